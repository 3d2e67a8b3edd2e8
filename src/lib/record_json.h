/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * record_json.h - a record other than SAMPLE as a JSON object.
 */
#ifndef PS_RECORD_JSON_H
#define PS_RECORD_JSON_H

#include <jansson.h>

#include "record.h"
#include "sample_json.h"

struct ps_session;

/**
 * ps_record_json() - {"type": NAME, "size": N, ...}: the kernel's side-band records (MMAP,
 * MMAP2, COMM, FORK, EXIT, LOST, LOST_SAMPLES, THROTTLE, SWITCH, KSYMBOL, CGROUP...) with
 * their fields and their sample_id trailer as "sample_id"; other types by name and size
 * only, and an unknown type by its number.
 * Return: a new reference, or NULL when out of memory.
 */
json_t *ps_record_json(const struct ps_session *s, const struct ps_record *rec);

/**
 * ps_record_json__write() - the object ps_record_json() builds for a kernel record, written
 * straight into @b as jansson's compact dump writes it (but a u64 above INT64_MAX is an
 * exact number, see json.h).  Records from user space (perf's header records) and
 * unknown types are not written: build them with ps_record_json().
 * Return: 1 when written, 0 when not a kernel record, -1 when out of memory.
 */
int ps_record_json__write(const struct ps_session *s, struct ps_json_buf *b,
                          const struct ps_record *rec);

#endif
