/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sample.h - a SAMPLE record decoded by its attr's sample_type, and the sample_id trailer
 * of the other kernel records.
 */
#ifndef PS_SAMPLE_H
#define PS_SAMPLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "record.h"

struct ps_attr;
struct ps_dur_values;
struct ps_session;

/**
 * struct ps_sample - the fields of one SAMPLE (or of a trailer: only pid..identifier).
 * @attr: the event it belongs to
 * @type: the sample_type bits the values below were decoded with; a field is meaningful
 *        only when its PERF_SAMPLE_* bit is set
 * @misc: the record header's misc (the cpumode of @ip), for a SAMPLE
 * @read, @read_len: the READ block in stream byte order (see ps_sample__read())
 * @callchain, @nr_callchain: u64 addresses in stream byte order (ps_sample__u64())
 * @raw, @raw_size: the RAW bytes (a tracepoint's record), in stream byte order
 * @branch, @nr_branch, @branch_hw_idx: {from, to, flags} triples in stream order
 * @regs_user, @regs_intr: abi, then popcount(mask) u64 registers in stream order
 * @stack_user, @stack_size, @stack_dyn_size: the user stack dump
 * @aux, @aux_size: the AUX sample
 * @dur: its duration values (durations.h: the reader sets them), or NULL
 *
 * Pointers point into the record and share its lifetime.
 */
struct ps_sample {
	const struct ps_attr *attr;
	uint64_t type;
	uint16_t misc;
	bool swap;
	uint64_t identifier, ip, time, addr, id, stream_id, period;
	uint32_t pid, tid, cpu;
	const unsigned char *read;
	size_t read_len;
	const unsigned char *callchain;
	uint64_t nr_callchain;
	const unsigned char *raw;
	uint32_t raw_size;
	const unsigned char *branch;
	uint64_t nr_branch, branch_hw_idx;
	bool has_branch_hw_idx;
	uint64_t regs_user_abi, regs_intr_abi;
	const unsigned char *regs_user, *regs_intr;
	uint64_t nr_regs_user, nr_regs_intr;
	const unsigned char *stack_user;
	uint64_t stack_size, stack_dyn_size;
	uint64_t weight, data_src, transaction, phys_addr, cgroup, data_page_size, code_page_size;
	const unsigned char *aux;
	uint64_t aux_size;
	const struct ps_dur_values *dur;
};

/**
 * ps_sample__parse() - decode a SAMPLE record.
 * @s: the session that knows the record's attr
 * @rec: a PERF_RECORD_SAMPLE
 * @out: filled; its pointers point into @rec
 * @name: the input's name, for @err
 * Return: 0, or -1 when the record cannot be attributed or its fields do not fit its size.
 */
int ps_sample__parse(const struct ps_session *s, const struct ps_record *rec, struct ps_sample *out,
                     const char *name, struct ps_error *err);

/**
 * ps_sample__parse_attr() - ps_sample__parse() with the record's attr already known
 * (ps_order__attr()); NULL: look it up as ps_sample__parse() does.
 */
int ps_sample__parse_attr(const struct ps_session *s, const struct ps_record *rec,
                          const struct ps_attr *attr, struct ps_sample *out, const char *name,
                          struct ps_error *err);

/**
 * ps_sample__parse_id() - decode the sample_id trailer of a non-SAMPLE kernel record.
 * Return: 1 when the record has a trailer (and @out holds pid, tid, time, id, stream_id, cpu,
 * identifier as far as the sample_type carries them), 0 when it has none, -1 when it does not
 * fit the record.
 */
int ps_sample__parse_id(const struct ps_session *s, const struct ps_record *rec,
                        struct ps_sample *out);

/** ps_sample__u64() - word @i of an array in stream byte order. */
static inline uint64_t ps_sample__u64(const struct ps_sample *s, const unsigned char *arr,
                                      uint64_t i)
{
	uint64_t v;

	memcpy(&v, arr + 8 * i, 8);
	return s->swap ? __builtin_bswap64(v) : v;
}

/**
 * struct ps_read_value - one counter of a READ block.
 */
struct ps_read_value {
	uint64_t value, id, lost;
};

/**
 * ps_sample__read() - decode the READ block: time_enabled/time_running when present and up
 * to @max values (one without PERF_FORMAT_GROUP).
 * Return: the number of values in the block (may exceed @max), or -1 when malformed.
 */
long ps_sample__read(const struct ps_sample *s, uint64_t *time_enabled, uint64_t *time_running,
                     struct ps_read_value *vals, size_t max);

/**
 * ps_sample_type_name() - perf's name of one PERF_SAMPLE_* bit ("IP", "TID"...), or NULL.
 */
const char *ps_sample_type_name(uint64_t bit);

#endif
