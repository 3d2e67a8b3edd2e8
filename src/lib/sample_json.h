/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sample_json.h - a decoded SAMPLE as a JSON object (jansson), every field its attr's
 * sample_type carries and nothing else, tracepoint fields typed through libtraceevent.
 *
 * Numbers: integers are written exactly as JSON integers; a u64 above INT64_MAX is written
 * as a decimal string.  Addresses (ip, addr, callchain, branch from/to, phys_addr, pointer
 * fields) are hex strings "0x...", since readers that hold numbers as doubles (jq 1.6,
 * JavaScript) round integers above 2^53.  Strings are valid UTF-8: each byte that is not
 * part of valid UTF-8 becomes U+FFFD.
 */
#ifndef PS_SAMPLE_JSON_H
#define PS_SAMPLE_JSON_H

#include <jansson.h>
#include <stdint.h>

#include "sample.h"

struct ps_session;
struct tep_event;

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
 * ps_sample_json() - the JSON object of a decoded sample.
 * @s: the session (event names, byte order, tracepoint formats)
 * @smp: the decoded sample
 * @comm: the thread's name at the sample's time, or NULL when unknown (no "comm" key)
 * @tf: how to write "time"
 * @clock: clock data for PS_TIME_ISO; may be NULL otherwise
 * Return: a new reference (the caller json_decref()s it), or NULL when out of memory.
 */
json_t *ps_sample_json(const struct ps_session *s, const struct ps_sample *smp, const char *comm,
                       enum ps_time_format tf, const struct ps_json_clock *clock);

/**
 * ps_tracepoint_json() - the fields of a tracepoint record as a JSON object, typed by the
 * format: integers with the field's signedness, char arrays and __data_loc strings as
 * strings, other arrays as arrays.  Fields that do not fit in @raw are left out.
 * Return: a new reference, or NULL when out of memory.
 */
json_t *ps_tracepoint_json(struct tep_event *ev, const unsigned char *raw, uint32_t size,
                           int with_common);

/**
 * ps_json_string() - a JSON string of @len bytes that may hold anything: invalid UTF-8
 * becomes U+FFFD, the rest is kept.
 * Return: a new reference, or NULL when out of memory.
 */
json_t *ps_json_string(const char *bytes, size_t len);

/** ps_json_u64() - @v as a JSON integer, or a decimal string above INT64_MAX. */
json_t *ps_json_u64(uint64_t v);

/** ps_json_hex() - @v as a "0x..." string. */
json_t *ps_json_hex(uint64_t v);

/**
 * ps_json_time_string() - format @t per @tf into @buf (for PS_TIME_SEC and PS_TIME_ISO).
 * Return: @buf.
 */
const char *ps_json_time_string(uint64_t t, enum ps_time_format tf,
                                const struct ps_json_clock *clock, char *buf, size_t len);

#endif
