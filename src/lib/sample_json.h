/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sample_json.h - a decoded SAMPLE as JSON, every field its attr's sample_type carries and
 * nothing else, tracepoint fields typed through libtraceevent.  ps_sample_writer writes the
 * text straight into a buffer (ptojson's hot path: no allocation per sample, keys and event
 * names escaped once per event).  The tests hold it to a second encoder that builds jansson
 * objects, tests/tools/json_oracle.h, which is not part of the library.
 *
 * Numbers: integers are written exactly as JSON integers.  Addresses (ip, addr, callchain, branch
 * from/to, phys_addr, pointer fields) are hex strings "0x...", since readers that hold
 * numbers as doubles (jq 1.6, JavaScript) round integers above 2^53.  Strings are valid
 * UTF-8: each byte that is not part of valid UTF-8 becomes U+FFFD.
 */
#ifndef PS_SAMPLE_JSON_H
#define PS_SAMPLE_JSON_H

#include <stdint.h>

#include "json.h"
#include "sample.h"

struct ps_session;

enum ps_time_format {
	PS_TIME_NS,  /* integer nanoseconds, as in the stream */
	PS_TIME_SEC, /* "SECONDS.NANOSECONDS" string, as perf script --ns prints it */
	PS_TIME_ISO, /* ISO 8601 wall-clock time in UTC, from the stream's clock data */
};

/**
 * struct ps_json_clock - how to turn stream time into wall-clock time (CLOCK_DATA feature).
 * @valid: the stream carried clock data
 * @tod_ns: wall-clock time (ns since the epoch) at @clock_ns
 * @clock_ns: the event clock at the same moment
 */
struct ps_json_clock {
	int valid;
	uint64_t tod_ns, clock_ns;
};

/**
 * ps_json_clock__from_session() - read the CLOCK_DATA feature of a stream.
 * Return: 0 when the stream has clock data (@c filled), -1 when it has none.
 */
int ps_json_clock__from_session(const struct ps_session *s, struct ps_json_clock *c);

/**
 * ps_json_time_string() - format @t per @tf into @buf (for PS_TIME_SEC and PS_TIME_ISO).
 * Return: @buf.
 */
const char *ps_json_time_string(uint64_t t, enum ps_time_format tf,
                                const struct ps_json_clock *clock, char *buf, size_t len);

/**
 * enum ps_sample_key - the top-level keys of a sample's object, in the order written.
 * PS_KEY_HOST is the stream's host name (ptojson --host, see ps_sample_writer__set_host()),
 * PS_KEY_INPUT the input of the sample's event in a merged stream (pcat --merge; no key in
 * other streams),
 * PS_KEY_TYPE is "type": "SAMPLE" (ptojson --all): both written only when asked.
 */
enum ps_sample_key {
	PS_KEY_EVENT,
	PS_KEY_TIME,
	PS_KEY_PID,
	PS_KEY_TID,
	PS_KEY_CPU,
	PS_KEY_COMM,
	PS_KEY_PERIOD,
	PS_KEY_IP,
	PS_KEY_ADDR,
	PS_KEY_ID,
	PS_KEY_STREAM_ID,
	PS_KEY_READ,
	PS_KEY_CALLCHAIN,
	PS_KEY_FIELDS,
	PS_KEY_RAW_SIZE,
	PS_KEY_BRANCH_STACK,
	PS_KEY_BRANCH_HW_IDX,
	PS_KEY_REGS_USER,
	PS_KEY_STACK_USER,
	PS_KEY_WEIGHT,
	PS_KEY_INS_LAT,
	PS_KEY_P_STAGE_CYC,
	PS_KEY_DATA_SRC,
	PS_KEY_TRANSACTION,
	PS_KEY_REGS_INTR,
	PS_KEY_PHYS_ADDR,
	PS_KEY_CGROUP,
	PS_KEY_DATA_PAGE_SIZE,
	PS_KEY_CODE_PAGE_SIZE,
	PS_KEY_AUX_SIZE,
	PS_KEY_LATENCY, /* the duration fields of durations.h, where the sample has them */
	PS_KEY_RUN_TIME,
	PS_KEY_WAIT_TIME,
	PS_KEY_SCH_DELAY,
	PS_KEY_OFF_CPU,
	PS_KEY_PAIRS, /* every --pair's field, under its NAME */
	PS_KEY_HOST,
	PS_KEY_INPUT,
	PS_KEY_SYM,
	PS_KEY_SYMOFF,
	PS_KEY_DSO,
	PS_KEY_TYPE,
	PS_NR_SAMPLE_KEYS
};

/** ps_sample_key_of() - the key named @name (@len bytes), or -1 when no sample key is. */
int ps_sample_key_of(const char *name, size_t len);

struct ps_sample_writer;
struct ps_symbols;

/**
 * ps_sample_writer__new() - a writer of samples as JSON text.
 * @s: the session the samples come from; kept until ps_sample_writer__delete()
 * @tf: how to write "time"
 * @clock: clock data for PS_TIME_ISO (copied); may be NULL otherwise
 * Every key but "host" and "type" is written until ps_sample_writer__keep() says otherwise.
 * Return: a writer, or NULL when out of memory.
 */
struct ps_sample_writer *ps_sample_writer__new(const struct ps_session *s, enum ps_time_format tf,
                                               const struct ps_json_clock *clock);

/** ps_sample_writer__delete() - free the writer; NULL is allowed. */
void ps_sample_writer__delete(struct ps_sample_writer *w);

/**
 * ps_sample_writer__keep() - write only the keys in @mask (bit 1 << enum ps_sample_key);
 * with PS_KEY_TYPE set, "type": "SAMPLE" ends each object.
 */
void ps_sample_writer__keep(struct ps_sample_writer *w, uint64_t mask);

/**
 * ps_sample_writer__set_host() - the value of "host" (escaped once, here); without it, or
 * with PS_KEY_HOST not kept, no "host" key is written.
 * Return: 0, or -1 when out of memory.
 */
int ps_sample_writer__set_host(struct ps_sample_writer *w, const char *host);

/**
 * ps_sample_writer__set_symbols() - name addresses as the oracle's ps_symbols__json() does:
 * "sym", "symoff", "dso" of the sample's ip after "host", and "callchain" as frame objects
 * {"ip", "sym", "symoff", "dso"}; with @st NULL (no symbols wanted) only the frames change,
 * to {"ip"} objects.  Without this call the callchain is an array of "0x..." strings.
 */
void ps_sample_writer__set_symbols(struct ps_sample_writer *w, struct ps_symbols *st);

/**
 * ps_sample_writer__set_symbolic() - write a "NAME_sym" text after each symbolic tracepoint
 * field, as the oracle's ps_sample_json__add_symbolic() adds it.  Call it before the first
 * sample.
 */
void ps_sample_writer__set_symbolic(struct ps_sample_writer *w, bool on);

/**
 * ps_sample_writer__write() - append the sample's object (no newline) to @b: the same keys,
 * values and order as the oracle's ps_sample_json(), as jansson's compact dump
 * writes them, except that a u64 above INT64_MAX is an exact number; then "host" and "type"
 * when kept.
 * @comm: the thread's name at the sample's time, or NULL (no "comm" key)
 * @misc: the SAMPLE record's header misc (for the symbols)
 * Return: 0, or -1 when out of memory (@b->failed set).
 */
int ps_sample_writer__write(struct ps_sample_writer *w, struct ps_json_buf *b,
                            const struct ps_sample *smp, const char *comm, uint16_t misc);

#endif
