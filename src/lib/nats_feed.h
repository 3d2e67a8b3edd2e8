/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * nats_feed.h - one NATS subscription (nats.h) as a pipe stream on a descriptor, read by a
 * thread of its own, for a program that reads it with the reading driver (reader.h) and
 * acknowledges a message only once what it made of it is stored: pstream-clickhouse --nats.
 *
 * The feed keeps where each message's payload lies in the bytes it wrote, so that a record
 * read at input offset X is known as (stream sequence, offset in its message): a place
 * that stays the same when the message is delivered again after a restart.  The bytes a
 * subscription writes before a message's payload (the snapshot and side-band of a start in
 * the middle of a recording) belong to no message here: they hold no samples.
 *
 * The sequence of use:
 *
 *	f = ps_nats_feed__start(sub, &err);
 *	...read ps_nats_feed__fd(f) to its end; for each sample, ps_nats_feed__locate();
 *	   once the records below input offset W are stored: ps_nats_feed__ack(f,
 *	   ps_nats_feed__complete(f, W))...
 *	ps_nats_feed__finish(f, &err);   (the thread has ended: the subscription is the
 *	                                  caller's again, to acknowledge the rest)
 */
#ifndef PS_NATS_FEED_H
#define PS_NATS_FEED_H

#include <stdbool.h>
#include <stdint.h>

#include "error.h"

struct ps_nats_feed;
struct ps_nats_sub;

/**
 * ps_nats_feed__start() - start reading @sub (kept, not owned) into a pipe.
 * Return: the feed, or NULL with @err set.
 */
struct ps_nats_feed *ps_nats_feed__start(struct ps_nats_sub *sub, struct ps_error *err);

/** ps_nats_feed__fd() - the pipe's read end: the stream (ps_nats_feed__finish() closes it). */
int ps_nats_feed__fd(const struct ps_nats_feed *f);

/**
 * ps_nats_feed__locate() - the message of the record at input offset @off.
 * Return: true with its stream sequence and the record's offset in its payload, false when
 * the record is in no message's payload (replayed side-band, or located after
 * ps_nats_feed__complete() dropped it).
 */
bool ps_nats_feed__locate(struct ps_nats_feed *f, uint64_t off, uint64_t *seq, uint32_t *moff);

/**
 * ps_nats_feed__complete() - the messages whose payload lies wholly below input offset
 * @done are complete; they are forgotten.
 * Return: the highest stream sequence among them and those completed before, or 0.
 */
uint64_t ps_nats_feed__complete(struct ps_nats_feed *f, uint64_t done);

/**
 * ps_nats_feed__ack() - ask the feed's thread to acknowledge the messages handed out up to
 * stream sequence @seq (done between two reads; a later call with a higher @seq wins).
 */
void ps_nats_feed__ack(struct ps_nats_feed *f, uint64_t seq);

/**
 * ps_nats_feed__stop() - take no more messages: the thread ends after the one it is
 * writing, and the stream ends there (its reader reads what was written to its end).
 */
void ps_nats_feed__stop(struct ps_nats_feed *f);

/**
 * ps_nats_feed__finish() - stop reading (if not at the end yet), wait for the thread, send
 * the acknowledgement asked for since its last read, and free the feed; the pipe's read
 * end is closed (a thread still writing gets EPIPE).
 * Return: 0, or -1 with @err set by what ended the thread (a read or an acknowledgement
 * that failed).
 */
int ps_nats_feed__finish(struct ps_nats_feed *f, struct ps_error *err);

#endif
