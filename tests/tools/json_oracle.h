/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * json_oracle.h - the test oracle for ptojson's writer: a decoded SAMPLE as a jansson
 * object, built field by field the slow and obvious way, which the tests (pjsoncmp) compare
 * with what ps_sample_writer writes.  Not part of the library: the programs never build
 * jansson objects per sample.  The keys, their order and the number rules are
 * sample_json.h's (a u64 above INT64_MAX is a decimal string, see json.h).
 */
#ifndef PS_JSON_ORACLE_H
#define PS_JSON_ORACLE_H

#include <jansson.h>
#include <stdint.h>

#include "lib/sample_json.h"
#include "lib/symbols.h"

struct tep_event;

/**
 * ps_sample_json() - the JSON object of a decoded sample.
 * @s: the session (event names, byte order, tracepoint formats)
 * @smp: the decoded sample
 * @comm: the thread's name at the sample's time, or NULL when unknown (no "comm" key)
 * @tf: how to write "time"
 * @clock: clock data for PS_TIME_ISO; may be NULL otherwise
 *
 * The keys are the streaming writer's, in its order, "host" and "type" aside: "input"
 * (PS_KEY_INPUT) where the sample's event names its input (a merged stream).
 * Return: a new reference (the caller json_decref()s it), or NULL when out of memory.
 */
json_t *ps_sample_json(const struct ps_session *s, const struct ps_sample *smp, const char *comm,
                       enum ps_time_format tf, const struct ps_json_clock *clock);

/**
 * ps_sample_json__add_symbolic() - next to each field of @obj's "fields" that the event's
 * format prints through __print_symbolic or __print_flags, the text perf script prints for
 * it, under the field's name and "_sym" (symbolic.h): "prev_state":1,"prev_state_sym":"S".
 * The number stays as it was.  What ptojson --symbolic writes.
 * @obj: the sample's object (ps_sample_json()); changed in place
 * @smp: the sample it was made of
 * Return: 0, or -1 when out of memory.
 */
int ps_sample_json__add_symbolic(json_t *obj, const struct ps_sample *smp);

/**
 * ps_tracepoint_json() - the fields of a tracepoint record as a JSON object, typed by the
 * format: integers with the field's signedness, char arrays and __data_loc strings as
 * strings, other arrays as arrays.  Fields that do not fit in @raw are left out.
 * Return: a new reference, or NULL when out of memory.
 */
json_t *ps_tracepoint_json(struct tep_event *ev, const unsigned char *raw, uint32_t size,
                           int with_common);

/**
 * ps_symbols__json() - add "sym", "symoff" and "dso" for the sample's ip to @obj, and turn
 * its "callchain" (when present) into an array of frames {"ip", "sym", "symoff", "dso"} in
 * perf script's order; a key whose value is unknown is left out.  With @st NULL (no
 * symbols wanted) only the frames change: {"ip"} objects, markers left out.
 * @obj: the sample's object (ps_sample_json()); changed in place
 * @misc: the SAMPLE record's header misc
 * Return: 0, or -1 when out of memory (@obj may then be half changed).
 */
int ps_symbols__json(struct ps_symbols *st, json_t *obj, const struct ps_sample *smp,
                     uint16_t misc);

#endif
