// SPDX-License-Identifier: GPL-2.0-only
/*
 * diag.c - one-line diagnostics on stderr for the mains.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diag.h"

const char *ps_progname = "pstream";

void ps_warn(const struct ps_error *err)
{
	if (!err || !err->code)
		return;
	fprintf(stderr, "%s: ", ps_progname);
	if (err->input)
		fprintf(stderr, "%s: ", err->input);
	if (err->has_offset)
		fprintf(stderr, "offset 0x%" PRIx64 ": ", err->offset);
	fputs(err->detail[0] ? err->detail : ps_strerror(err->code), stderr);
	if (err->sys_errno)
		fprintf(stderr, ": %s", strerror(err->sys_errno));
	fputc('\n', stderr);
}

void ps_die(const struct ps_error *err)
{
	ps_warn(err);
	exit(err && err->code == PS_EUSAGE ? 2 : 1);
}

void ps_msg(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", ps_progname);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void ps_status(const char *fmt, ...)
{
	static int tty = -1;
	va_list ap;

	if (tty < 0)
		tty = isatty(2);
	if (!tty)
		return;
	fputs("\r\033[K", stderr);
	if (fmt) {
		fprintf(stderr, "%s: ", ps_progname);
		va_start(ap, fmt);
		vfprintf(stderr, fmt, ap);
		va_end(ap);
	}
	fflush(stderr);
}

void ps_caret(const char *block)
{
	if (block)
		fputs(block, stderr);
}

void ps_usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", ps_progname);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n%s: try '%s --help'\n", ps_progname, ps_progname);
	exit(2);
}
