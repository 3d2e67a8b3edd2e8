/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * nats.h - a pipe stream through NATS JetStream (pstream-nats): one JetStream stream per
 * subject, messages of whole records, and the snapshots that let a reader start anywhere.
 *
 * Naming: subject S is kept in the JetStream stream "PSTREAM-" + S with every '.' turned
 * into '_' (hosts.web1 -> PSTREAM-hosts_web1), which captures S only; its limits (max
 * bytes, max age) are the subject's retention.
 *
 * A recording is a run of messages, each with these headers:
 *   Nats-Msg-Id     RECORDING:INDEX, so that a publish retried after a lost
 *                   acknowledgement is stored once (JetStream's duplicate window)
 *   Pstream-Rec     the recording's id (random, 16 hex digits)
 *   Pstream-Index   the message's number in its recording, from 0
 *   Pstream-Kind    snap: the 16-byte pipe header, every header record so far, and the
 *                   side-band state as of now (kernel maps, each live process's maps, each
 *                   live thread's COMM), replayed as time-0 records as psplit's pieces
 *                   begin (sideband.h); a snapshot may span several messages (Pstream-Part
 *                   I of Pstream-Parts N);
 *                   data: records, as they were read, whole;
 *                   end: the publisher ended the recording (no payload)
 *   Pstream-Snap    (data, end) the stream sequence of the first part of the latest stored
 *                   snapshot
 *   Pstream-Begin   the stream sequence of the recording's first message (0 in it)
 * A reader that starts at a data message of sequence Q reads snapshot P = Pstream-Snap,
 * then of the messages P+1..Q-1 of the same recording everything but the samples, then
 * goes on from Q: a stream perf reads, whatever Q is.
 *
 * The library does the NATS calls and keeps the state; it never prints: the publisher's
 * notices (server gone, stored again) go to a callback the main gives.
 */
#ifndef PS_NATS_H
#define PS_NATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "record.h"

struct ps_nats;
struct ps_nats_pub;
struct ps_nats_sub;
struct ps_session;

#define PS_NATS_DEFAULT_URL "nats://127.0.0.1:4222"
#define PS_NATS_STREAM_PREFIX "PSTREAM-"
#define PS_NATS_NAME_MAX 256

/**
 * ps_nats__connect() - connect to the server at @url (NULL: PS_NATS_DEFAULT_URL); once
 * connected, a lost connection is tried again for ever, in the background.
 * Return: the connection, or NULL with @err set (a server that does not answer, a URL that
 * is not one, no JetStream).
 */
struct ps_nats *ps_nats__connect(const char *url, struct ps_error *err);

/** ps_nats__close() - close the connection and free; NULL is allowed. */
void ps_nats__close(struct ps_nats *n);

/**
 * ps_nats__stream_name() - the JetStream stream that keeps subject @subject.
 * Return: 0, or -1 with @err set when @subject cannot be published to (a wildcard, a
 * character other than letters, digits, '-', '_' and '.', an empty token, too long).
 */
int ps_nats__stream_name(const char *subject, char *name, size_t len, struct ps_error *err);

/**
 * ps_nats__subject_match() - whether subject @subject matches @pattern ('*' one token,
 * '>' one or more tokens at the end, as NATS matches them).
 */
bool ps_nats__subject_match(const char *pattern, const char *subject);

/**
 * ps_nats__find() - the subjects of the pstream streams that match @pattern, sorted.
 * @subjects: made here: an array of *@n strings, each malloc'd (freed by the caller)
 * Return: 0 (with *@n possibly 0), or -1 with @err set.
 */
int ps_nats__find(struct ps_nats *n, const char *pattern, char ***subjects, int *count,
                  struct ps_error *err);

/**
 * ps_nats__resolve() - the subjects @k patterns name: a pattern without a wildcard is
 * itself, one with '*' or '>' the pstream subjects that match it (ps_nats__find()); each
 * subject once, in the order first named.
 * @out: made here: an array of the returned number of strings, each malloc'd (freed by
 *       the caller)
 * Return: their number, or -1 with @err set (a wildcard that matches nothing is PS_EEMPTY).
 */
int ps_nats__resolve(struct ps_nats *n, char *const *patterns, int k, char ***out,
                     struct ps_error *err);

/* ---- publishing ---- */

/**
 * struct ps_nats_pub_config - how a stream is published.
 * @subject: where
 * @batch: bytes of records per message (a record larger than this is a message alone)
 * @buffer: bytes of messages held while the server does not store them; when full,
 *          ps_nats_pub__record() waits (the caller then stops reading)
 * @snap_every: a snapshot after this many data messages (0: 64)
 * @max_bytes: the subject's retention in bytes (0: unlimited), set on the stream
 * @max_age_ns: the subject's retention in age (0: unlimited)
 * @dup_window_ns: JetStream's duplicate window (0: its default, 2 minutes)
 * @notice: told what happens to the server (gone, retrying, stored again); may be NULL
 * @arg: for @notice
 */
struct ps_nats_pub_config {
	const char *subject;
	size_t batch, buffer;
	unsigned int snap_every;
	int64_t max_bytes, max_age_ns, dup_window_ns;
	void (*notice)(void *arg, const char *text);
	void *arg;
};

/**
 * ps_nats_pub__open() - create (or update the limits of) the subject's stream and start the
 * sending thread.  @s is the session of the input (kept, not owned), @swap its byte order.
 * Return: the publisher, or NULL with @err set.
 */
struct ps_nats_pub *ps_nats_pub__open(struct ps_nats *n, const struct ps_nats_pub_config *cfg,
                                      const struct ps_session *s, bool swap, struct ps_error *err);

/**
 * ps_nats_pub__record() - add the record @rec (as the input delivered it) to the stream.
 * Return: 0, or -1 with @err set (the sending thread gave up, a cap).
 */
int ps_nats_pub__record(struct ps_nats_pub *p, const struct ps_record *rec, struct ps_error *err);

/**
 * ps_nats_pub__flush() - send the records added so far without waiting for a full batch
 * (before a read that would block).
 * Return: 0, or -1 with @err set.
 */
int ps_nats_pub__flush(struct ps_nats_pub *p, struct ps_error *err);

/**
 * ps_nats_pub__finish() - send the rest and the end mark, wait until the server stored every
 * message, and stop the sending thread.
 * @give_up_ms: how long to go on trying while the server does not store (-1: for ever)
 * Return: 0 when everything is stored, or -1 with @err set (what was not stored).
 */
int ps_nats_pub__finish(struct ps_nats_pub *p, int give_up_ms, struct ps_error *err);

/**
 * struct ps_nats_pub_stats - what a publisher did.
 */
struct ps_nats_pub_stats {
	uint64_t messages, bytes, records, retries, snapshots, duplicates;
};

/** ps_nats_pub__stats() - the publisher's counts so far. */
void ps_nats_pub__stats(struct ps_nats_pub *p, struct ps_nats_pub_stats *st);

/** ps_nats_pub__close() - stop (without waiting) and free; NULL is allowed. */
void ps_nats_pub__close(struct ps_nats_pub *p);

/* ---- subscribing ---- */

enum ps_nats_start {
	PS_NATS_LATEST, /* the start of the subject's latest recording */
	PS_NATS_NEW,    /* what is published from now on */
	PS_NATS_SINCE,  /* what was stored since a time */
};

/**
 * struct ps_nats_sub_config - what to read.
 * @subject: one subject (no wildcard: ps_nats__find() resolves those)
 * @durable: the name of a durable consumer that remembers what was acknowledged, or NULL;
 *           one that exists goes on right after its acknowledged point (the messages it was
 *           handed and did not acknowledge come again at once)
 * @start: where to start (a durable consumer that exists goes on where it was)
 * @since_ns: for PS_NATS_SINCE, wall-clock nanoseconds since the epoch
 * @follow: after the end of a recording, go on with the next one on the subject
 */
struct ps_nats_sub_config {
	const char *subject;
	const char *durable;
	enum ps_nats_start start;
	int64_t since_ns;
	bool follow;
};

/**
 * ps_nats_sub__open() - create the consumer of @cfg.
 * Return: the subscription, or NULL with @err set (no such subject...).
 */
struct ps_nats_sub *ps_nats_sub__open(struct ps_nats *n, const struct ps_nats_sub_config *cfg,
                                      struct ps_error *err);

/**
 * ps_nats_sub__read_to_end() - a durable subscription made earlier has read its subject's
 * latest recording to its end and acknowledged all of it: it has nothing to read until
 * the subject's next recording.
 */
bool ps_nats_sub__read_to_end(const struct ps_nats_sub *sub);

#define PS_NATS_IDLE 2

/**
 * ps_nats_sub__read() - the next bytes of the pipe stream.
 * @data, @len: set to the bytes (valid until the next call)
 * @timeout_ms: how long to wait for a message
 * Return: 1 with bytes, 0 at the end of the recording (not with @follow), PS_NATS_IDLE when
 * nothing came in @timeout_ms, -1 with @err set.
 */
int ps_nats_sub__read(struct ps_nats_sub *sub, const unsigned char **data, size_t *len,
                      int timeout_ms, struct ps_error *err);

/**
 * ps_nats_sub__ack() - acknowledge every message whose bytes ps_nats_sub__read() handed
 * out (call once they are written): a durable consumer started again begins after them.
 * Return: 0, or -1 with @err set.
 */
int ps_nats_sub__ack(struct ps_nats_sub *sub, struct ps_error *err);

/**
 * ps_nats_sub__ack_before() - acknowledge the messages ps_nats_sub__read() handed out at or
 * before @ms (CLOCK_MONOTONIC milliseconds): for a reader whose writes go on living after
 * it (a merge that holds records for a while).
 * Return: 0, or -1 with @err set.
 */
int ps_nats_sub__ack_before(struct ps_nats_sub *sub, int64_t ms, struct ps_error *err);

/**
 * ps_nats_sub__ack_upto() - acknowledge the messages handed out whose stream sequence is
 * at most @seq: for a reader that acknowledges once what it made of them is stored.
 * Return: 0, or -1 with @err set.
 */
int ps_nats_sub__ack_upto(struct ps_nats_sub *sub, uint64_t seq, struct ps_error *err);

/**
 * ps_nats_sub__position() - where the bytes ps_nats_sub__read() handed out last came from:
 * their tail from @at on is the whole payload of the message of the returned stream
 * sequence; the bytes before @at (a snapshot and the side-band of a start in the middle of
 * a recording) are of earlier messages.  Return: the sequence, or 0 when no message's
 * payload ends them.
 */
uint64_t ps_nats_sub__position(const struct ps_nats_sub *sub, size_t *at);

/**
 * ps_nats_sub__start_seq() - the first stream sequence the subscription delivers: after
 * the acknowledged point of a durable consumer that existed, the start of the latest
 * recording for a new one (PS_NATS_LATEST); 0 when not known (PS_NATS_NEW, _SINCE).
 */
uint64_t ps_nats_sub__start_seq(const struct ps_nats_sub *sub);

/** ps_nats_sub__unacked() - messages handed out and not acknowledged yet. */
size_t ps_nats_sub__unacked(const struct ps_nats_sub *sub);

/**
 * struct ps_nats_sub_stats - what a subscription read.
 * @messages: messages read
 * @lost: messages of the recording that were not there to read (discarded by the
 *        retention limits, or never stored)
 * @skipped: messages that were no pstream message, or of a recording not read
 */
struct ps_nats_sub_stats {
	uint64_t messages, bytes, lost, skipped;
};

/** ps_nats_sub__stats() - the subscription's counts so far. */
void ps_nats_sub__stats(const struct ps_nats_sub *sub, struct ps_nats_sub_stats *st);

/** ps_nats_sub__close() - unsubscribe (a durable consumer stays) and free; NULL allowed. */
void ps_nats_sub__close(struct ps_nats_sub *sub);

#endif
