/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * order.h - the time-ordered view of a stream: perf's round rule, bounded by a memory cap
 * and by the latency budget.
 *
 * The stream is only roughly in time order (each CPU's ring is drained in turn).  A
 * program that needs the state of the world at a sample's time pushes every record it
 * reads into the view and pops them back in the order perf itself would handle them
 * (tools/perf/util/ordered-events.c):
 *
 * - user records (type 64 and up) and kernel records without a usable timestamp (no
 *   PERF_SAMPLE_TIME, no sample_id_all, or a time of 0 or ~0 as on perf's synthesized
 *   records) come out at once, after whatever is already releasable;
 * - other kernel records are queued;
 * - a FINISHED_ROUND releases, in time order, every queued record whose time is at most
 *   the highest time queued as of the previous FINISHED_ROUND, then comes out itself;
 * - ps_order__end() and ps_order__flush_all() release everything queued.
 *
 * Ties keep arrival order.  Records come out with their bytes, offset and seq unchanged, so
 * a program that forwards the stream can still write records in their original order.
 * COMM, FORK and EXIT records are applied to the session (ps_session__process_sideband())
 * as they come out, so that while a SAMPLE is being handled ps_session__comm() gives the
 * name perf script would print for it.  Like perf, the view names thread 0 "swapper" when
 * the stream has not named it.
 */
#ifndef PS_ORDER_H
#define PS_ORDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "record.h"

struct ps_order;
struct ps_session;

/* ps_order__new() memory cap when given 0: bytes of queued records */
#define PS_ORDER_DEFAULT_CAP (64u << 20)

/**
 * ps_order__new() - an empty view over the records of one stream.
 * @s: the stream's session, used to find each record's time and to apply COMM, FORK and
 *     EXIT as they come out; the caller keeps ownership and must keep it alive until
 *     ps_order__delete().  Thread 0 is named "swapper" in it unless already named, as
 *     perf_session__process_events() does
 * @mem_cap: how many bytes of record copies may be queued (record bytes plus a small
 *           per-record overhead) before everything queued is released at once; 0 means
 *           PS_ORDER_DEFAULT_CAP
 * Return: a new view, or NULL when out of memory.
 */
struct ps_order *ps_order__new(struct ps_session *s, size_t mem_cap);

/**
 * ps_order__delete() - free the view and every record it still holds; NULL is allowed.
 * The bytes of the last popped record are freed too.
 */
void ps_order__delete(struct ps_order *o);

/**
 * ps_order__push() - hand one record to the view.
 * @rec: the record, as ps_input__next() gave it; the view copies its @len bytes, so the
 *       caller's bytes may go away as soon as this returns
 * @err: filled (code PS_ENOMEM, at @rec's offset, no input name) on failure
 *
 * A FINISHED_ROUND releases what its round allows; going over the memory cap releases
 * everything queued.  Pop after every push to get what became releasable (a push that
 * returned 0 released nothing).
 * Return: 1 when records wait to be popped, 0 when none does, -1 when out of memory (the
 * record was not taken; the view is unchanged).
 */
int ps_order__push(struct ps_order *o, const struct ps_record *rec, struct ps_error *err);

/**
 * ps_order__push_pinned() - ps_order__push(), and keep the view's copy of the record valid
 * after it is popped, until ps_order__unpin().  A program that writes records in arrival
 * order once their fate is known (pfilter) points at this copy instead of making its own.
 * Pinned copies count against the memory cap like queued ones.
 * Return: the copy's @rec->len bytes, or NULL when out of memory (@err filled as by
 * ps_order__push(); the view is unchanged).
 */
const unsigned char *ps_order__push_pinned(struct ps_order *o, const struct ps_record *rec,
                                           struct ps_error *err);

/**
 * ps_order__unpin() - the copy ps_order__push_pinned() returned is no longer needed.
 * @bytes: what ps_order__push_pinned() returned; each pinned copy is unpinned once.
 */
void ps_order__unpin(struct ps_order *o, const unsigned char *bytes);

/**
 * ps_order__pop() - the next record in time order, if one is releasable now.
 * @out: filled with the record: data, len, type, misc, size, offset, seq and flags as they
 *       were pushed; its bytes belong to the view and stay valid until the next call to
 *       ps_order__pop() or ps_order__delete()
 *
 * A COMM, FORK or EXIT record is applied to the session before it is returned.
 * Return: 1 with a record, 0 when nothing is releasable now.
 */
int ps_order__pop(struct ps_order *o, struct ps_record *out);

/**
 * ps_order__attr() - the attr of the record ps_order__pop() gave last, as the session found
 * it when the record was pushed (ps_session__attr_of()), or NULL; for
 * ps_sample__parse_attr(), which then need not look it up again.
 */
const struct ps_attr *ps_order__attr(const struct ps_order *o);

/**
 * ps_order__ready() - how many records ps_order__pop() would give now, without a call to it.
 */
size_t ps_order__ready(const struct ps_order *o);

/**
 * ps_order__time() - the time the view ordered the record ps_order__pop() gave last by: 0
 * for a record it did not queue (no time, a time of 0 or ~0, a user record).
 */
uint64_t ps_order__time(const struct ps_order *o);

/**
 * ps_order__flush_all() - make everything queued releasable, in time order.  For an idle
 * input (ps_input__next() returned PS_INPUT_IDLE): what is held must not wait longer than
 * the latency budget.  Records pushed afterwards are queued again under the round rule; one
 * older than what was released is counted by ps_order__out_of_order().
 */
void ps_order__flush_all(struct ps_order *o);

/**
 * ps_order__end() - the input ended: make everything queued releasable, in time order.
 */
void ps_order__end(struct ps_order *o);

/**
 * ps_order__take_overflow_notice() - true once, the first time this is called after the
 * memory cap forced a release, so that a program says so on stderr once; false otherwise.
 */
bool ps_order__take_overflow_notice(struct ps_order *o);

/**
 * ps_order__overflows() - how many times the memory cap forced a release.
 */
uint64_t ps_order__overflows(const struct ps_order *o);

/**
 * ps_order__out_of_order() - how many timed records arrived with a time older than a record
 * already released (perf script: "N out of order events recorded").  They come out at the
 * next release, later than their time says.
 */
uint64_t ps_order__out_of_order(const struct ps_order *o);

/**
 * ps_order__queued() - how many records are queued, waiting for a release.
 */
size_t ps_order__queued(const struct ps_order *o);

/**
 * ps_order__queued_bytes() - the bytes the queued records take, as counted for the cap.
 */
size_t ps_order__queued_bytes(const struct ps_order *o);

/**
 * ps_order__oldest_offset() - a bound on what the view still holds: no record it holds
 * (queued, released and not yet popped, or pinned) has an input offset below this.
 * Return: the offset, or UINT64_MAX when the view holds nothing.
 */
uint64_t ps_order__oldest_offset(const struct ps_order *o);

#endif
