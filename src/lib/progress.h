/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * progress.h - a progress line for long work on a large file: bytes read, samples a second,
 * time left.  The module only makes the text; mains show it with ps_status() (diag.h).
 */
#ifndef PS_PROGRESS_H
#define PS_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>

/* smaller files are read before a line would be worth showing */
#define PS_PROGRESS_MIN_BYTES (32ull << 20)

struct ps_progress;

/**
 * ps_progress__new() - a progress meter for reading @path, when one is worth showing.
 * @path: the input ("-" or NULL is standard input)
 * @stdout_busy: the program writes to standard output as it reads (a terminal there would
 *               mix the two)
 *
 * There is one only when standard error is a terminal, @path is a regular file of
 * PS_PROGRESS_MIN_BYTES or more (standard input counts when it is such a file, never a
 * pipe), and standard output is not a terminal when @stdout_busy.
 * Return: the meter (free it with ps_progress__delete()), or NULL: no progress to show.
 */
struct ps_progress *ps_progress__new(const char *path, bool stdout_busy);

/**
 * ps_progress__update() - the input is read up to byte @offset, @samples samples so far.
 * Cheap enough to call for every record: the clock is read every 1024 calls.
 * Return: the line to show, when one is due (the first after half a second, then at most
 * four a second), else NULL.  The text lives in @p until the next call.
 */
/* ps_progress__update() for a meter that is there; call that instead */
const char *ps_progress__tick(struct ps_progress *p, uint64_t offset, uint64_t samples);

static inline const char *ps_progress__update(struct ps_progress *p, uint64_t offset,
                                              uint64_t samples)
{
	/* no meter, the common case: not even a call */
	return p ? ps_progress__tick(p, offset, samples) : NULL;
}

/**
 * ps_progress__waiting() - the program waits (pcount --pace) rather than reads: the line
 * of the last update, when one is due.  Call it between waits.
 * Return: as ps_progress__update().
 */
const char *ps_progress__waiting(struct ps_progress *p);

/** ps_progress__delete() - free; NULL is allowed. */
void ps_progress__delete(struct ps_progress *p);

#endif
