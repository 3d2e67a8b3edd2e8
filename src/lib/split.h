/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * split.h - write one stream as many self-contained pipe streams ("pieces"), psplit's
 * engine.
 *
 * The caller hands over every record of the input in time order (order.h): each sample
 * with the key of the piece it goes to, everything else as it comes.  Every piece gets the
 * pipe header, every header record (those that arrive late too: a piece that is already
 * finished gets them appended at the end), the kernel-wide side-band, and, before the first
 * sample of a thread, the name and mappings that thread had when the piece began (replayed
 * from sideband.h with a time of 0).  After that, a side-band record goes to the open pieces
 * that know its thread or process, and FINISHED_ROUND to the pieces that received records
 * since their last one.
 *
 * At most @max_open pieces are open at once: the least recently written one is closed and
 * reopened for appending when it is needed again (the stream in it stays valid).
 */
#ifndef PS_SPLIT_H
#define PS_SPLIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "record.h"

struct ps_session;
struct ps_split;

/**
 * struct ps_split_config - how pieces are named and bounded.
 * @dir: directory the pieces go to (NULL: the current one)
 * @pattern: file name pattern: %k the piece's key made safe for a file name, %n its
 *           number (4 digits, more when needed), %% a percent sign
 * @max_pieces: more pieces than this is an error (PS_ECAP)
 * @max_open: pieces open at once (at least 1)
 * @swap: write the pipe header in the byte order opposite to the host's (the records keep
 *        the input's order)
 * @input: the input's path (NULL or "-": standard input): no piece is written over it
 * @max_bytes: when not 0, a side-band record that would take a piece with samples past
 *             this size is left out of it and the piece marked full (the piece that takes
 *             the next samples starts with the state it gives)
 *
 * A piece is written under a temporary name beside its own (files.h) and renamed by
 * ps_split__finish(), so no half piece is ever found under a piece's name.
 */
struct ps_split_config {
	const char *dir;
	const char *pattern;
	size_t max_pieces;
	size_t max_open;
	bool swap;
	const char *input;
	uint64_t max_bytes;
};

/**
 * struct ps_piece_info - one piece, for the summary.
 */
struct ps_piece_info {
	const char *name;
	const char *key;
	uint64_t number;
	uint64_t samples;
	uint64_t bytes;
	bool full;
};

/**
 * ps_split__pattern_ok() - check a name pattern: only %k, %n and %% escapes.
 * @needs_unique: the pattern must contain %k or %n
 * Return: NULL when good, else a static description of what is wrong.
 */
const char *ps_split__pattern_ok(const char *pattern, bool needs_unique);

/**
 * ps_split__new() - start splitting the stream of session @s (kept, not owned).
 * Return: the splitter, or NULL with @err set.
 */
struct ps_split *ps_split__new(const struct ps_split_config *cfg, const struct ps_session *s,
                               struct ps_error *err);

/**
 * ps_split__record() - a record other than a sample, in time order: header records are
 * kept for every piece, side-band is applied and routed, FINISHED_ROUND is passed on.
 * Return: 0, or -1 with @err set (a write error).
 */
int ps_split__record(struct ps_split *sp, const struct ps_record *rec, struct ps_error *err);

/**
 * ps_split__sample() - write a sample into the piece of @key, made when new.
 * @number: the piece's number for %n when it is new; UINT64_MAX: the next one
 * @tid: the sample's thread (PS_SIDEBAND_NO_PID when it has none), whose side-band is
 *       replayed into the piece first
 * @piece: set to the piece's index (for ps_split__piece())
 * Return: 0, or -1 with @err set (too many pieces, a file that cannot be written).
 */
int ps_split__sample(struct ps_split *sp, const struct ps_record *rec, const char *key,
                     uint64_t number, uint32_t tid, size_t *piece, struct ps_error *err);

/**
 * ps_split__cost() - the bytes ps_split__sample_to() would add to piece @piece for a
 * sample of @len bytes of thread @tid: the sample and the side-band replayed before it.
 */
uint64_t ps_split__cost(const struct ps_split *sp, size_t piece, uint32_t tid, size_t len);

/**
 * ps_split__sample_to() - write a sample into piece @piece, an index ps_split__sample()
 * gave for the sample's key before (a caller that knows the key maps to it spares the
 * key's text and its lookup).
 * Return: as ps_split__sample().
 */
int ps_split__sample_to(struct ps_split *sp, const struct ps_record *rec, size_t piece,
                        uint32_t tid, struct ps_error *err);

/** ps_split__nr_pieces() - how many pieces were made. */
size_t ps_split__nr_pieces(const struct ps_split *sp);

/** ps_split__piece() - what piece @idx is (in the order they were made). */
void ps_split__piece(const struct ps_split *sp, size_t idx, struct ps_piece_info *info);

/**
 * ps_split__finish() - append the header records a piece missed and close every piece.
 * Return: 0, or -1 with @err set.
 */
int ps_split__finish(struct ps_split *sp, struct ps_error *err);

/** ps_split__delete() - close and free (pieces not finished stay as written); NULL is ok. */
void ps_split__delete(struct ps_split *sp);

/** ps_split__dropped() - side-band records not kept because a memory cap was reached. */
uint64_t ps_split__dropped(const struct ps_split *sp);

#endif
