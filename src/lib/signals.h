/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * signals.h - the one signal setup every program shares.
 *
 * SIGINT and SIGTERM ask a program to stop: it stops reading, writes out every complete
 * record it has read and exits 0 (pstream(7)).  A Ctrl-C on a terminal reaches every
 * program of the pipeline at once, the writer upstream included, which still writes its
 * last records as it ends (precord drains its rings).  So a first SIGINT while a live
 * input is open (a pipe, a socket, a terminal: ps_signals__live_input()) does not stop the
 * reader at once: ps_interrupted is set, and the reader goes on reading until its input
 * ends, or no byte came for PS_DRAIN_QUIET_MS, or PS_DRAIN_MAX_MS have passed since the
 * signal (ps_signals__drain_wait()); then ps_stop is set and the program ends as it would
 * have.  A second SIGINT, or SIGTERM, sets ps_stop at once.  Files are read to no end
 * after a signal: a program that reads only files stops at once.
 *
 * The state is process-wide, as signals are: two sig_atomic_t flags the handler sets, and
 * the drain's clock, kept by the reading thread only.
 */
#ifndef PS_SIGNALS_H
#define PS_SIGNALS_H

#include <signal.h>
#include <stdbool.h>

#define PS_DRAIN_QUIET_MS 1000 /* after a first SIGINT: a live input this quiet has ended */
#define PS_DRAIN_MAX_MS 3000   /* after a first SIGINT: the longest a reader reads on */

/* Set by SIGINT / SIGTERM (or at the end of a drain); read loops test it and end. */
extern volatile sig_atomic_t ps_stop;

/* Set, instead of ps_stop, by a first SIGINT while a live input is open. */
extern volatile sig_atomic_t ps_interrupted;

/* Set, instead of ps_stop, by a first SIGINT or SIGTERM after ps_signals__wind_down(). */
extern volatile sig_atomic_t ps_winding_down;
/**
 * ps_signals__init() - ignore SIGPIPE (writes then fail with EPIPE) and make SIGINT and
 * SIGTERM set ps_stop (or ps_interrupted, see above), without SA_RESTART so a blocked read
 * returns EINTR.
 */
void ps_signals__init(void);

/**
 * ps_signals__wind_down() - from now on a first SIGINT or SIGTERM sets ps_winding_down,
 * not ps_stop: for a program that, asked to stop, stops taking new input and finishes
 * what it took (pstream-nats sub's merge: its feeds end, the merge writes what they gave,
 * and all of it is acknowledged).  A second signal sets ps_stop, as ever.
 */
void ps_signals__wind_down(void);
/**
 * ps_signals__child_reset() - in a forked child before exec: default SIGPIPE, SIGINT, SIGTERM.
 */
void ps_signals__child_reset(void);

/**
 * ps_signals__live_input() - a live input was opened (@open) or closed: while one is
 * open, a first SIGINT drains instead of stopping.
 */
void ps_signals__live_input(bool open);

/**
 * ps_signals__drain_wait() - for a reader about to wait for bytes, or between records:
 * whether a drain goes on and for how long it may still wait.
 * @live: the input is live (a file input ends at once after a signal)
 * @progress: bytes came since this reader last asked (the quiet time starts again)
 * Return: -1 when no drain goes on (no signal yet); 0 when the program is to stop now
 * (ps_stop is set); otherwise the milliseconds the reader may still wait for a byte.
 */
int ps_signals__drain_wait(bool live, bool progress);

#endif
