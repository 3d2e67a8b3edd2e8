/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * tracing.h - the TRACING_DATA blob handed to libtraceevent, and tracepoint fields by name.
 */
#ifndef PS_TRACING_H
#define PS_TRACING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tep_handle;
struct tep_event;
struct tep_format_field;

/**
 * struct ps_tracing_info - what the blob said besides the formats.
 * @version: "0.6", "0.5"...
 * @big_endian: the blob's own byte order
 * @long_size, @page_size: of the traced machine
 */
struct ps_tracing_info {
	char version[16];
	bool big_endian;
	unsigned int long_size;
	unsigned int page_size;
};

/**
 * ps_tracing__parse() - parse a TRACING_DATA blob into a new libtraceevent handle.
 * @blob, @len: the payload that follows the TRACING_DATA record
 * @info: filled with the blob's version, byte order and sizes; may be NULL
 * @why: on failure, what is wrong (lowercase, no period), @whylen bytes
 * Return: the handle (the caller frees it with tep_free()), or NULL.
 */
struct tep_handle *ps_tracing__parse(const unsigned char *blob, size_t len,
                                     struct ps_tracing_info *info, char *why, size_t whylen);

/**
 * ps_tracing__field() - the field @name of @event (common_* fields included), or NULL.
 */
struct tep_format_field *ps_tracing__field(struct tep_event *event, const char *name);

/**
 * ps_tracing__read_u64() - read a numeric field from raw sample data.
 * @raw, @size: the sample's RAW bytes
 * Return: 0 with *@val set, -1 when the field does not fit in @raw or is not a number.
 */
int ps_tracing__read_u64(struct tep_format_field *f, const void *raw, uint32_t size, uint64_t *val);

/**
 * ps_tracing__swapped() - whether @event's data is in the other byte order than this
 * machine's (the TRACING_DATA's order, which is the traced machine's, not the stream's).
 */
bool ps_tracing__swapped(const struct tep_event *event);

/**
 * ps_tracing__number() - ps_tracing__read_u64() for the per-sample paths: the byte order
 * @swap worked out once with ps_tracing__swapped() of the field's event, no libtraceevent
 * call.  The same values tep_read_number_field() gives.
 */
int ps_tracing__number(const struct tep_format_field *f, bool swap, const void *raw, uint32_t size,
                       uint64_t *val);

#endif
