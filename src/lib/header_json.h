/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * header_json.h - what the header records of a stream say, as jansson objects: the attrs
 * with their flags decoded, the FEATURE payloads, the tracepoint formats and the BUILD_ID
 * records.  Nothing here prints: pheader renders these objects as text or JSON, and
 * ptojson can reuse them.
 *
 * Numbers: integers are exact JSON integers; a u64 above INT64_MAX (which a jansson
 * integer, a signed 64-bit value, cannot hold) is written as a decimal string instead.
 * Strings from the stream are valid UTF-8: bytes that are not become U+FFFD.
 *
 * The flag names below are the one table both renderings use; they are spelt as perf
 * prints them.
 */
#ifndef PS_HEADER_JSON_H
#define PS_HEADER_JSON_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "record.h"

struct ps_attr;
struct ps_session;

/**
 * ps_attr_flag_name() - perf's name of bit @bit (0..63) of the attr flag word at offset 40
 * ("disabled", "inherit"...); both bits of the 2-bit precise_ip field give "precise_ip".
 * Return: a static string, or NULL for a bit perf 6.1 does not name.
 */
const char *ps_attr_flag_name(unsigned int bit);

/**
 * ps_read_format_name() - perf's name of one PERF_FORMAT_* bit ("ID", "GROUP"...), or NULL.
 */
const char *ps_read_format_name(uint64_t bit);

/**
 * ps_branch_sample_type_name() - perf's name of one PERF_SAMPLE_BRANCH_* bit ("USER",
 * "ANY_CALL"...), or NULL.
 */
const char *ps_branch_sample_type_name(uint64_t bit);

/**
 * ps_attr_type_name() - the name of a fixed attr type ("hardware", "software",
 * "tracepoint", "hw_cache", "raw", "breakpoint"), or NULL for a dynamic PMU type.
 */
const char *ps_attr_type_name(uint32_t type);

/**
 * ps_header_json__evlist() - the attr as `perf evlist -v` (perf 6.1) prints it after the
 * event name: "type: 2, size: 128, config: 0x1bb, ..., sample_type: IP|TID, ...".  Like
 * perf, fields that are zero are left out, and sample_type shows only the bits perf names,
 * in perf's order.
 * @buf: where to write, @len bytes; always NUL-terminated when @len > 0
 * Return: the length of the whole line (like snprintf: @len or more means it was cut).
 */
size_t ps_header_json__evlist(const struct ps_attr *a, char *buf, size_t len);

/**
 * ps_header_json__attr() - one event: {"index", "name", "type", "type_name", "size",
 * "config", "sample_period" or "sample_freq", "sample_type": [names], "read_format":
 * [names], "flags": [names], "precise_ip", the other fields that are not zero, "ids",
 * "unit", "scale", "perf_evlist": the ps_header_json__evlist() line}.  A bit without a
 * name is given as a "0x..." string among the names.
 * Return: a new reference, or NULL when out of memory.
 */
json_t *ps_header_json__attr(const struct ps_attr *a);

/**
 * ps_header_json__feature() - the decoded payload of feature @feat: a string (hostname,
 * osrelease, version, arch, cpudesc, cpuid), an integer (total_mem in kB), an array
 * (cmdline, event_desc, numa_topology, pmu_mappings, group_desc...), an object (nrcpus,
 * cpu_topology, sample_time, compressed, clock_data...), true for the empty flag features
 * (branch_stack, stat), or {"id", "size"} for a feature this library does not decode.
 * A payload that does not hold what its counts and lengths promise gives {"id", "size",
 * "malformed": true}: every length is checked against the payload, never trusted.
 * Return: a new reference; NULL when the feature is absent or memory ran out.
 */
json_t *ps_header_json__feature(const struct ps_session *s, unsigned int feat);

/**
 * ps_header_json__features() - every feature the stream gave, in id order, as an object
 * keyed by feature name ("unknown_<id>" for an id without a name).  The empty end marker
 * perf writes after its features is left out.
 * Return: a new reference, or NULL when out of memory.
 */
json_t *ps_header_json__features(const struct ps_session *s);

/**
 * ps_header_json__tracepoints() - the tracepoint formats of the TRACING_DATA record:
 * [{"system", "name", "id", "fields": [{"name", "type", "offset", "size", "signed"}]}]
 * (the common_* fields left out).  An empty array when the stream has no tracing data.
 * Return: a new reference, or NULL when out of memory.
 */
json_t *ps_header_json__tracepoints(const struct ps_session *s);

/**
 * ps_header_json__build_id() - a HEADER_BUILD_ID record: {"pid", "cpumode", "build_id":
 * hex, "filename"}; the build-id is 20 bytes unless misc bit 15 says the record gives its
 * size.  A record too short for its fixed part gives {"size", "malformed": true}.
 * @swap: the stream's byte order is not the host's
 * Return: a new reference, or NULL when out of memory.
 */
json_t *ps_header_json__build_id(const struct ps_record *rec, bool swap);

#endif
