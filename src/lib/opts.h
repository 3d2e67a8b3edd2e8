/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * opts.h - option helpers shared by the mains.
 */
#ifndef PS_OPTS_H
#define PS_OPTS_H

#include <stdint.h>
#include <stdio.h>

#include "version.h" /* PS_VERSION, generated from the GNUmakefile's VERSION */

/**
 * ps_parse_u64() - parse a decimal or 0x-hex number in [@min, @max]; exit 2 otherwise.
 * @what: the option's name for the message
 * Return: the value.
 */
uint64_t ps_parse_u64(const char *arg, uint64_t min, uint64_t max, const char *what);

/**
 * ps_parse_duration() - parse a duration ("5", "5s", "500ms", "2m": duration.h) in
 * [@min_ns, @max_ns]; exit 2 with "WHAT: ..." otherwise.
 * @what: the option's name for the message
 * Return: the value in nanoseconds.
 */
uint64_t ps_parse_duration(const char *arg, uint64_t min_ns, uint64_t max_ns, const char *what);

/**
 * ps_usage() - print @usage_line on @fp and exit with @status; on stdout (--help) add
 * @help and exit 1 instead when stdout cannot be written.
 */
_Noreturn void ps_usage(FILE *fp, int status, const char *usage_line, const char *help);

/**
 * ps_print_version() - print "PROG (pstream) VERSION" on stdout and exit 0
 * (1 if stdout cannot be written).
 */
_Noreturn void ps_print_version(void);

/**
 * ps_finish_stdout() - flush and close stdout, checking for errors (full disk...).
 * Return: 0, or -1 after printing a message (EPIPE is silent and returns 0).
 */
int ps_finish_stdout(void);

#endif
