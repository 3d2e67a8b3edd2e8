/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * diag.h - the program side of error reporting: the only code that writes
 * to stderr.  Called from mains, never from the stream modules.
 */
#ifndef PS_DIAG_H
#define PS_DIAG_H

#include "compat.h"
#include "error.h"

/* Set once, as the first statement of main(). */
extern const char *ps_progname;

/**
 * ps_warn() - print @err as one line: "PROG: INPUT: offset 0xN: detail[: strerror]".
 * @err: the error to print; nothing is printed when its code is 0
 */
void ps_warn(const struct ps_error *err);

/**
 * ps_die() - ps_warn() then exit with status 1 (2 for PS_EUSAGE).
 */
PS_NORETURN void ps_die(const struct ps_error *err);

/**
 * ps_msg() - print "PROG: message" on stderr.
 */
void ps_msg(const char *fmt, ...) PS_PRINTF(1, 2);

/**
 * ps_status() - on a terminal, show "PROG: message" as a status line that the next call
 * replaces; ps_status(NULL) erases it.  Nothing is printed when stderr is not a terminal.
 */
void ps_status(const char *fmt, ...) PS_PRINTF(1, 2);

/**
 * ps_caret() - print a caret block (an expression, then a caret under the bad spot) on
 * stderr as it is; the one exception to one-line messages.
 */
void ps_caret(const char *block);

/**
 * ps_usage_error() - print "PROG: message" and a hint to try --help; exit 2.
 */
PS_NORETURN void ps_usage_error(const char *fmt, ...) PS_PRINTF(1, 2);

struct ps_reader_event;

/**
 * ps_show_event() - what a reading loop does with the events it has no use of its own
 * for: a notice printed as "PROG: text", the progress line shown (or erased) with
 * ps_status(); any other event is ignored.
 */
void ps_show_event(const struct ps_reader_event *ev);

/**
 * ps_die_nomem() - print "PROG: out of memory" and exit 1 (never 2: the command line was
 * right).
 */
PS_NORETURN void ps_die_nomem(void);

/**
 * ps_exit_status() - the status a program ends with after @err (pstream(7), EXIT STATUS):
 * 0 when nothing went wrong or the reader downstream went away (PS_EPIPE), 2 for a
 * usage error (PS_EUSAGE), 1 for anything else.  @err may be NULL.
 */
int ps_exit_status(const struct ps_error *err);

/**
 * ps_finish() - the last words of a main: ps_warn(@err) unless it is PS_EPIPE or was said
 * already (an empty detail), then its status.
 * Return: ps_exit_status(@err).
 */
int ps_finish(const struct ps_error *err);

#endif
