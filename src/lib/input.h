/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * input.h - read a perf event stream: a pipe stream or a perf.data file, in either byte
 * order, record by record.
 *
 * A perf.data file is presented as the equivalent pipe stream: its attrs come out as ATTR
 * records, its feature sections as FEATURE, TRACING_DATA and BUILD_ID records, then the
 * records of its data section.  Record bytes are never rewritten: they stay in the input's
 * byte order (ps_input__swapped() says whether that is not the host's).
 *
 * Header records (ATTR, EVENT_UPDATE, FEATURE, TRACING_DATA, ID_INDEX...) are applied to the
 * input's session as they are delivered, so that by the time a SAMPLE comes out the session
 * knows its attr, its event name and its tracepoint format.
 */
#ifndef PS_INPUT_H
#define PS_INPUT_H

#include <stdbool.h>

#include "error.h"
#include "record.h"

struct ps_input;
struct ps_session;

/* ps_input__open() flags */
#define PS_INPUT_DECOMPRESS 0x1 /* deliver the records inside COMPRESSED records */
#define PS_INPUT_CONTAINERS 0x2 /* with DECOMPRESS: deliver the COMPRESSED records too */
/* AUXTRACE records without their payload (len == size): the bytes are skipped, never held */
#define PS_INPUT_SKIP_AUX 0x4

/* ps_input__next() results besides 1 (a record), 0 (end) and -1 (error) */
#define PS_INPUT_IDLE 2

enum ps_format {
	PS_FORMAT_PIPE,
	PS_FORMAT_FILE,
};

/**
 * ps_input__open() - open @path ("-" or NULL: standard input) and read its header.
 * @flags: PS_INPUT_*
 * @err: filled on failure; its input name stays valid while the input is open
 * Return: a new input, or NULL (empty input, not a perf stream, unreadable file...).
 */
struct ps_input *ps_input__open(const char *path, unsigned int flags, struct ps_error *err);

/**
 * ps_input__open_fd() - like ps_input__open() on an open descriptor, which the input does
 * not close.
 * @name: the name to use in messages; the pointer is kept
 */
struct ps_input *ps_input__open_fd(int fd, const char *name, unsigned int flags,
                                   struct ps_error *err);

/**
 * ps_input__next() - the next record.
 * @rec: filled with the record; its bytes belong to the input and are valid until the next
 *       call to ps_input__next() or ps_input__close()
 * Return: 1 with a record, 0 at the end of the input, PS_INPUT_IDLE when an idle timeout is
 * set and no byte arrived within it, -1 on error (@err says what and where).  After an
 * error the input is finished: every later call returns -1 again.
 */
int ps_input__next(struct ps_input *in, struct ps_record *rec, struct ps_error *err);

/**
 * ps_input__close() - release the input (and its session); NULL is allowed.
 */
void ps_input__close(struct ps_input *in);

/**
 * ps_input__session() - what the header records read so far said. Owned by the input.
 */
struct ps_session *ps_input__session(struct ps_input *in);

/** ps_input__name() - the input's name as used in messages ("<stdin>" for -). */
const char *ps_input__name(const struct ps_input *in);

/** ps_input__format() - pipe stream or perf.data file. */
enum ps_format ps_input__format(const struct ps_input *in);

/** ps_input__swapped() - true when the input's byte order is not the host's. */
bool ps_input__swapped(const struct ps_input *in);

/**
 * ps_input__detach() - take over the bytes of the record ps_input__next() handed out last
 * (@rec), instead of copying them: the input goes on in a buffer of its own, and
 * @rec->data stays valid until the caller frees what is returned.  For a large record
 * (an AUXTRACE payload of 256 MiB) that must wait, held once rather than twice.
 * Return: the block to free(), or NULL when the record is not alone in a buffer the input
 * can give away (decompressed, synthesized, or read in place from the read-ahead ring,
 * which only small records are): copy it then.
 */
void *ps_input__detach(struct ps_input *in, const struct ps_record *rec);

/**
 * ps_input__set_wait_hook() - call @fn(@arg) before every read that would block, so a
 * program can flush its output first (the stream contract's latency rule).
 */
void ps_input__set_wait_hook(struct ps_input *in, void (*fn)(void *), void *arg);

/**
 * ps_input__set_idle() - make ps_input__next() return PS_INPUT_IDLE when no byte arrives
 * for @ms milliseconds (0 turns it off).  Nothing is lost: the next call goes on where the
 * last one stopped.
 */
void ps_input__set_idle(struct ps_input *in, int ms);

#endif
