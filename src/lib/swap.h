/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * swap.h - records turned to the other byte order, field by field (pcat --merge of inputs
 * of both orders, the byte-order test tool).
 *
 * Every field is turned at its own width: record headers, attrs field by field with the
 * attr flag bitfields moved to the other bit allocation order, the sample_id trailer by the
 * record's attr, SAMPLE fields by sample_type, tracepoint data (RAW) field by field by its
 * format (perf leaves RAW in the recording's order and has libtraceevent read it in the
 * order the tracing data says: the tracing data turns with it), the TRACING_DATA blob with
 * its byte-order byte flipped, and the FEATURE payloads perf 6.1 writes.
 *
 * Memory images (user stack dumps, AUX data, AUXTRACE payloads) are bytes of the recorded
 * machine and stay as they are.  Parts whose layout is not known here (bodies of unknown
 * record types and features, BPF_PROG_INFO entries, BTF data, tracepoint fields wider than
 * 8 bytes, RAW data of events without a format) are left as they are and counted, or
 * refused with PS_SWAP_STRICT.
 */
#ifndef PS_SWAP_H
#define PS_SWAP_H

#include <stdbool.h>

#include "error.h"
#include "record.h"

struct ps_session;
struct ps_swap;

/* A part of unknown layout is an error (PS_EUNSUP), not left as it is. */
#define PS_SWAP_STRICT 1u

/**
 * ps_swap__new() - a turner for the records of the stream of session @s (in its order).
 * @flags: PS_SWAP_STRICT or 0
 * Return: the turner, or NULL when memory runs out.
 */
struct ps_swap *ps_swap__new(const struct ps_session *s, unsigned int flags);

/** ps_swap__delete() - free; NULL is allowed. */
void ps_swap__delete(struct ps_swap *w);

/**
 * ps_swap__record() - @rec, whose bytes are in the session's order, in the other order.
 * @name: the input's name, for @err
 *
 * Records of the session's header (ATTR, TRACING_DATA, FEATURE...) must have been applied
 * to the session first, as ps_input__next() does: a record is turned by what they say.
 * Return: @rec->len turned bytes, valid until the next call, or NULL with @err set (fields
 * that do not fit the record; with PS_SWAP_STRICT, a part of unknown layout).
 */
const unsigned char *ps_swap__record(struct ps_swap *w, const struct ps_record *rec,
                                     const char *name, struct ps_error *err);

/**
 * ps_swap__left_alone() - records or parts of records left as they were: memory images and
 * (without PS_SWAP_STRICT) parts of unknown layout.
 */
unsigned long ps_swap__left_alone(const struct ps_swap *w);

#endif
