/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * arrival.h - records waiting, in the order they arrived, for the samples before them to
 * be decided (pfilter writes the stream in its original order while samples are decided in
 * time order through order.h).
 *
 * Entries sit in a ring, their bytes one after another in one buffer that is compacted or
 * grown when its end is reached: no allocation per record.  A record the time-order view
 * holds is not copied again: its entry points at the view's pinned copy
 * (ps_order__push_pinned()), unpinned here when the entry leaves.  Nor is a large record
 * whose block was taken over from the input (ps_input__detach()): the queue frees it.
 * Used by reader.c only, so the pin protocol never leaves the library.
 */
#ifndef PS_ARRIVAL_H
#define PS_ARRIVAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "record.h"

struct ps_arrival;
struct ps_order;

enum ps_arrival_state {
	PS_ARRIVAL_KEEP,
	PS_ARRIVAL_DROP,
	PS_ARRIVAL_PENDING, /* a sample not decided yet */
};

/**
 * ps_arrival__new() - an empty queue.
 * @ord: the view that holds the pinned copies pushed here, or NULL when none is
 * Return: the queue, or NULL when out of memory.
 */
struct ps_arrival *ps_arrival__new(struct ps_order *ord);

/** ps_arrival__delete() - free the queue and what it holds; NULL is allowed. */
void ps_arrival__delete(struct ps_arrival *q);

/**
 * ps_arrival__push() - queue @rec at the end.
 * @pinned: the view's pinned copy of @rec's bytes, or NULL
 * @owned: or the block that holds @rec's bytes, the queue's from now on; or NULL: the
 *         bytes are copied
 * Return: 0, or -1 when out of memory (nothing was taken: the caller still owns @owned and
 * the pin).
 */
int ps_arrival__push(struct ps_arrival *q, const struct ps_record *rec, const unsigned char *pinned,
                     void *owned, enum ps_arrival_state st);

/**
 * ps_arrival__decide() - the fate of the queued record of arrival number @seq (nothing
 * happens when it is not queued).
 */
void ps_arrival__decide(struct ps_arrival *q, uint64_t seq, bool keep);

/**
 * ps_arrival__first() - the first queued record, when its fate is known.
 * @out: its data and len (valid until ps_arrival__pop()), and its seq
 * Return: 1 with a record to keep, 2 with one to drop, 0 when the queue is empty or its
 * first record is not decided.
 */
int ps_arrival__first(struct ps_arrival *q, struct ps_record *out);

/** ps_arrival__pop() - drop the first entry (its pin, its block). */
void ps_arrival__pop(struct ps_arrival *q);

/** ps_arrival__len() - how many records are queued. */
size_t ps_arrival__len(const struct ps_arrival *q);

/** ps_arrival__bytes() - the bytes of the queued records. */
size_t ps_arrival__bytes(const struct ps_arrival *q);

#endif
