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

#endif
