/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * session.h - what the header records of a stream said: the attrs and their ids, event
 * names, features, the tracepoint formats (a libtraceevent handle), and the threads' names.
 *
 * Every table is bounded (PS_MAX_ATTRS, PS_MAX_IDS, PS_MAX_THREADS) so memory stays flat
 * however long the stream runs.
 */
#ifndef PS_SESSION_H
#define PS_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "record.h"

struct tep_handle;
struct tep_event;
struct ps_session;

#define PS_MAX_THREADS (1u << 18)
#define PS_COMM_LEN 16

/**
 * struct ps_attr - one event of the stream, as its ATTR record (or the file's attrs section)
 * described it.  Owned by the session; valid until the session is deleted.
 * @idx: position among the stream's attrs, from 0
 * @raw: the attr's bytes as in the stream (input byte order), @raw_size of them
 * @type .. @clockid: the fields, in host order; fields past @size read as 0
 * @ids: the ids of its instances, @nr_ids of them
 * @name: its event name (EVENT_UPDATE, event_desc, tracing format, or made up from type and
 *        config), never NULL
 * @name_from_stream: @name came from the stream rather than being made up
 * @unit, @scale: from EVENT_UPDATE; NULL and 0 when not given
 * @input: the input the event came from in a merged stream (pcat --merge of different
 *         recordings: its host or file name), NULL otherwise
 * @tp: the tracepoint's parsed format, when @type is a tracepoint and the stream carried it
 */
struct ps_attr {
	int idx;
	unsigned char *raw;
	uint32_t raw_size;
	uint32_t type;
	uint32_t size;
	uint64_t config;
	uint64_t sample_period;
	uint64_t sample_type;
	uint64_t read_format;
	uint64_t flags;
	uint32_t wakeup;
	uint32_t bp_type;
	uint64_t config1;
	uint64_t config2;
	uint64_t branch_sample_type;
	uint64_t sample_regs_user;
	uint32_t sample_stack_user;
	int32_t clockid;
	uint64_t sample_regs_intr;
	uint32_t aux_watermark;
	uint16_t sample_max_stack;
	uint32_t aux_sample_size;
	uint64_t sig_data;
	uint64_t config3;
	uint64_t *ids;
	size_t nr_ids;
	char *name;
	bool name_from_stream;
	char *unit;
	char *input;
	double scale;
	struct tep_event *tp;
	/* where the hot fields are, worked out once from sample_type and flags (in words;
	 * UINT32_MAX when absent): the id and the time in a SAMPLE's body, and in the
	 * sample_id trailer of other records counted back from its end, and the trailer's
	 * length (0 without sample_id_all) */
	uint32_t sample_id_pos, sample_time_pos;
	uint32_t trailer_id_back, trailer_time_back, trailer_words;
	uint32_t sample_head_words; /* the fixed u64 words a SAMPLE starts with, up to PERIOD */
};

/**
 * ps_session__new() - an empty session for a stream in the given byte order.
 * @swap: the stream's byte order is not the host's
 * Return: a session, or NULL when out of memory.
 */
struct ps_session *ps_session__new(bool swap);

/** ps_session__delete() - free the session and everything it owns; NULL is allowed. */
void ps_session__delete(struct ps_session *s);

/**
 * ps_session__process() - apply a header record (ATTR, EVENT_UPDATE, FEATURE, TRACING_DATA,
 * ID_INDEX, TIME_CONV...) to the session.  Other records are ignored.
 * @name: the input's name, for @err
 * Return: 0, or -1 when the record is malformed (@err says why, at the record's offset).
 */
int ps_session__process(struct ps_session *s, const struct ps_record *rec, const char *name,
                        struct ps_error *err);

/**
 * ps_session__process_sideband() - apply COMM, FORK and EXIT records to the thread table.
 * Call it in time order (see order.h) for names as perf script shows them.
 */
void ps_session__process_sideband(struct ps_session *s, const struct ps_record *rec);

/**
 * ps_attr_flags_from_big_endian() - the attr flag word (offset 40) of a big-endian writer,
 * already byte-swapped, with its bitfields moved to where a little-endian compiler puts them.
 * Return: the flags as PS_ATTR_FLAG_* and perf_event_attr's bit numbers expect them.
 */
uint64_t ps_attr_flags_from_big_endian(uint64_t v);

/** ps_session__swapped() - the stream's byte order is not the host's. */
bool ps_session__swapped(const struct ps_session *s);

struct ps_durations;

/**
 * ps_session__set_durations() - the durations state (durations.h) whose pairs name the
 * duration fields of this stream's samples; not owned, NULL for none.  The reader sets it.
 */
void ps_session__set_durations(struct ps_session *s, const struct ps_durations *d);

/** ps_session__durations() - what ps_session__set_durations() set, or NULL. */
const struct ps_durations *ps_session__durations(const struct ps_session *s);

/** ps_session__nr_attrs() - how many attrs the stream declared so far. */
size_t ps_session__nr_attrs(const struct ps_session *s);

/** ps_session__attr() - attr number @idx (0-based), or NULL. */
struct ps_attr *ps_session__attr(const struct ps_session *s, size_t idx);

/**
 * ps_session__input_number() - the input of attr @idx in a merged stream (pcat --merge,
 * pstream-nats sub of several subjects): numbered from 1 in the order the inputs' first
 * attrs came; 0 for an attr with no input (a stream that is not a merge).
 */
uint32_t ps_session__input_number(const struct ps_session *s, size_t idx);

#define ps_session__for_each_attr(s, a, i) \
	for ((i) = 0; ((a) = ps_session__attr((s), (i))) != NULL; (i)++)

/**
 * ps_session__same_attrs() - @a and @b declared the same attrs: the same bytes and the
 * same ids, in the same order (the pieces of one recording).
 */
bool ps_session__same_attrs(const struct ps_session *a, const struct ps_session *b);

/** ps_session__attr_by_id() - the attr that owns sample id @id, or NULL. */
struct ps_attr *ps_session__attr_by_id(const struct ps_session *s, uint64_t id);

/**
 * ps_session__attr_of() - the attr a SAMPLE or other kernel record belongs to, by perf's
 * rules: the only attr when there is one; else the record's id (id 0: the first attr).
 * Return: the attr, or NULL when the record cannot be attributed.
 */
struct ps_attr *ps_session__attr_of(const struct ps_session *s, const struct ps_record *rec);

/**
 * ps_session__record_time() - the timestamp of a SAMPLE (TIME) or of another kernel record
 * (its sample_id trailer).
 * Return: true and *@time set when the record carries a time.
 */
bool ps_session__record_time(const struct ps_session *s, const struct ps_record *rec,
                             uint64_t *time);

/**
 * ps_session__record_attr_time() - ps_session__record_time(), and the record's attr
 * (ps_session__attr_of()) in *@attr, NULL when not found, for a caller that wants both.
 */
bool ps_session__record_attr_time(const struct ps_session *s, const struct ps_record *rec,
                                  uint64_t *time, const struct ps_attr **attr);

/**
 * ps_session__feature() - the payload of feature @feat as the stream gave it (input byte
 * order), or NULL when absent.  Valid until the session is deleted or the feature is
 * given again.
 */
const unsigned char *ps_session__feature(const struct ps_session *s, unsigned int feat,
                                         size_t *len);

/**
 * ps_session__feature_string() - a string feature (hostname, arch, version...): its u32
 * length and text, bounded by the payload and by @len, copied into @buf up to its NUL.
 * Return: @buf, or NULL when the stream did not give the feature (@buf is then "").
 */
const char *ps_session__feature_string(const struct ps_session *s, unsigned int feat, char *buf,
                                       size_t len);

/** ps_session__tep() - the libtraceevent handle once TRACING_DATA was read, else NULL. */
struct tep_handle *ps_session__tep(const struct ps_session *s);

/**
 * ps_session__comm() - the name of thread @tid as the side-band applied so far says, or
 * NULL when it was never named.  Valid until the next side-band record is applied.
 */
const char *ps_session__comm(const struct ps_session *s, uint32_t tid);

/**
 * ps_session__comm_text() - the name of thread @tid as perf shows it: its name, or, for a
 * thread never named, ":TID" (":-1" for the pid -1 of samples taken after the task was
 * gone), which perf script prints and its stackcollapse roots the stack at.
 * @buf, @len: room for ":TID" (16 bytes suffice)
 * Return: the name (owned by @s, valid as ps_session__comm()'s) or @buf.
 */
const char *ps_session__comm_text(const struct ps_session *s, uint32_t tid, char *buf, size_t len);

/**
 * ps_session__set_comm() - name thread @tid (used for COMM and, with the parent's name,
 * FORK).
 */
void ps_session__set_comm(struct ps_session *s, uint32_t pid, uint32_t tid, const char *comm);

/**
 * ps_session__comm_gen() - a number that changes whenever the name of some thread may have
 * changed (a name set, threads forgotten).  While it stays the same, ps_session__comm()
 * gives the same answer for a tid, so a program may keep what it worked out from one.
 */
uint64_t ps_session__comm_gen(const struct ps_session *s);

/**
 * ps_session__tracing_error() - why the last TRACING_DATA could not be parsed ("offset
 * 0xN: what"), or NULL.  Such a record is not an input error: it is forwarded like any
 * other, and only tracepoint field access is lost.
 */
const char *ps_session__tracing_error(const struct ps_session *s);

/**
 * ps_session__tracing_notice() - why the tracepoint fields of @a cannot be decoded (no
 * TRACING_DATA, one that cannot be read and why, or no format for its id), once per
 * session: mains print it, so a stream whose fields are lost does not pass without a word.
 * @buf, @len: where the sentence goes
 * Return: @buf the first time it is asked about a tracepoint attr without a format; NULL
 * for any other attr and every later time.
 */
const char *ps_session__tracing_notice(struct ps_session *s, const struct ps_attr *a, char *buf,
                                       size_t len);

#endif
