/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * merge.h - several streams as one, in sample time order (pcat --merge).
 *
 * Each input goes through its own time-ordered view (order.h); the merge then takes, again
 * and again, the earliest record at the head of the inputs (ties: the earlier input), so
 * the output is in time order whenever each input keeps perf's round promise.  A record
 * whose time goes back inside its input (the view counts them) passes where its input puts
 * it.  Records without a time (perf's synthesized side-band, user records) pass as soon as
 * they reach the head of their input.  An input that has nothing to give for longer than
 * the idle budget does not hold the others back: the merge goes on without it, and
 * what it gives later passes late (counted).
 *
 * Inputs that declare the same events with the same ids, and agree on the tracing data
 * and on every feature both carry (pieces of one recording, as psplit makes them: the
 * same host name, clock data, command line...), share one set of header records: the
 * first input's.  ps_merge__set_distinct() says they never are.  Inputs of
 * different recordings each keep their events: every event gets PERF_SAMPLE_IDENTIFIER
 * and new ids, so that no id of one input is taken for another's, every record that names
 * an id is rewritten to the new one, and an EVENT_UPDATE record of a type perf ignores
 * (PS_EVENT_UPDATE_INPUT) tells pstream's readers which input each event came from.
 * Tracepoint ids are each boot's: the inputs' formats are joined into one TRACING_DATA
 * (tracedata.h), and a format given a new id there has its input's tracepoint attrs
 * (config) and samples (common_type) rewritten to it.  perf keeps one name per thread id:
 * before a sample of thread T, when perf's name of T was last set by another input's
 * record, a COMM record (at the sample's time) gives it the name this input knows.
 *
 * The merged stream is in the host's byte order: an input of the other order has its
 * records turned (swap.h) as they leave the merge.
 */
#ifndef PS_MERGE_H
#define PS_MERGE_H

#include <stdbool.h>
#include <stdint.h>

#include "error.h"
#include "record.h"

struct ps_merge;

/**
 * ps_merge__open() - open the @n inputs at @paths ("-" is standard input).
 * @idle_ms: how long an input may stay silent before the merge goes on without it
 * Return: the merge, or NULL with @err set.
 */
struct ps_merge *ps_merge__open(int n, const char *const *paths, int idle_ms, struct ps_error *err);

/**
 * ps_merge__open_fds() - open the @n inputs on the descriptors @fds (not closed by the
 * merge), named @names (the pointers are kept: the inputs' names, as pcount --by input
 * shows them).
 * Return: the merge, or NULL with @err set.
 */
struct ps_merge *ps_merge__open_fds(int n, const int *fds, const char *const *names, int idle_ms,
                                    struct ps_error *err);

/**
 * ps_merge__set_distinct() - take the inputs for different recordings (hosts, runs) even
 * when they look like pieces of one; before ps_merge__begin().
 */
void ps_merge__set_distinct(struct ps_merge *m, bool distinct);

/**
 * ps_merge__begin() - read the header records of every input and decide whether they are
 * pieces of one recording.
 * Return: 0, or -1 with @err set (an input that is damaged, a header record of the other
 * byte order that cannot be turned...).
 */
int ps_merge__begin(struct ps_merge *m, struct ps_error *err);

/** ps_merge__swapped() - the merged stream's byte order is not the host's: never. */
bool ps_merge__swapped(const struct ps_merge *m);

/**
 * ps_merge__next() - the next record of the merged stream (header records first).
 * @rec: filled; its bytes are valid until the next call
 * Return: 1 with a record, 0 at the end of every input, -1 with @err set (after an error
 * in one input, the records every input gave before it have been returned).
 */
int ps_merge__next(struct ps_merge *m, struct ps_record *rec, struct ps_error *err);

/**
 * ps_merge__set_wait_hook() - call @fn(@arg) before a read that would block.
 */
void ps_merge__set_wait_hook(struct ps_merge *m, void (*fn)(void *), void *arg);

/** ps_merge__late() - records that passed later than their time (gone back in time). */
uint64_t ps_merge__late(const struct ps_merge *m);

/** ps_merge__close() - close every input and free; NULL is allowed. */
void ps_merge__close(struct ps_merge *m);

#endif
