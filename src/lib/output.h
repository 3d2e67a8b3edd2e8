/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * output.h - the buffered writer of a pipe stream.
 *
 * Bytes are held until the buffer fills, ps_output__flush() is called (programs call it
 * from the input's wait hook, before a read that would block), or the output is closed.
 * A reader that went away makes every call fail with PS_EPIPE, which mains treat as a
 * quiet end.
 *
 * Each ps_output__put() or ps_output__write() is one unit (a record, a line).  Into a pipe,
 * whole units go at most PIPE_BUF bytes per write(2), which the kernel makes atomic, so a
 * SIGINT/SIGTERM (ps_stop) that interrupts a write blocked on a stalled reader leaves no
 * cut unit behind.  After a stop request nothing blocks: the units held are written while
 * the reader takes them, for at most a fraction of a second; when it does not, the output
 * ends with PS_EPIPE (a quiet end) at a unit boundary.
 */
#ifndef PS_OUTPUT_H
#define PS_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>

#include "error.h"
#include "record.h"

struct ps_output;

/**
 * ps_output__open() - open @path for writing ("-" or NULL: standard output).
 * @path: kept for messages, so it must outlive the output.  A file is opened by the rules
 *        of files.h (ps_outfile__create(), with standard input as the input): a device or
 *        a FIFO is written as it is; a regular file is written under a temporary name and
 *        put in place by ps_output__close() when everything was written.
 * @force: write even when standard output is a terminal (otherwise refused)
 * Return: the output, or NULL with @err filled.
 */
struct ps_output *ps_output__open(const char *path, bool force, struct ps_error *err);

/**
 * ps_output__begin() - write the 16-byte pipe header.
 * @swap: write it in the byte order opposite to the host's (to match forwarded records)
 * Return: 0 or -1.
 */
int ps_output__begin(struct ps_output *out, bool swap, struct ps_error *err);

/** ps_output__put() - write a record's bytes (payload included). Return: 0 or -1. */
int ps_output__put(struct ps_output *out, const struct ps_record *rec, struct ps_error *err);

/** ps_output__write() - write raw bytes. Return: 0 or -1. */
int ps_output__write(struct ps_output *out, const void *buf, size_t len, struct ps_error *err);

/** ps_output__flush() - write out what is held. Return: 0 or -1. */
int ps_output__flush(struct ps_output *out, struct ps_error *err);

/**
 * ps_output__flush_hook() - ps_output__flush() for ps_input__set_wait_hook(); a failure is
 * kept and reported by the next call.
 */
void ps_output__flush_hook(void *out);

/**
 * ps_output__close() - flush, close and free.  NULL is allowed.  A named file is put in
 * place (files.h) when every write succeeded, and removed otherwise.
 * Return: 0, or -1 when something held could not be written or the file put in place.
 */
int ps_output__close(struct ps_output *out, struct ps_error *err);

/** ps_output__bytes() - bytes accepted so far. */
unsigned long long ps_output__bytes(const struct ps_output *out);

#endif
