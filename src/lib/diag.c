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
#include "reader.h"
#include "text.h"

const char *ps_progname = "pstream";

/*
 * Names in a message come from streams, file names and neighbours: a newline in one would
 * print a line of its own, an escape sequence would drive the terminal.  A message is
 * written as ps_text__put_line() writes a name: one line whatever it names.
 */
static void put_text(const char *s, size_t n)
{
	ps_text__put_line(stderr, s, n);
}

static void put_str(const char *s)
{
	put_text(s, strlen(s));
}

/* "PROG: " and a message formatted, then written as put_text() writes it */
static void put_msg(const char *fmt, va_list ap)
{
	char small[512], *big = NULL;
	va_list again;
	int n;

	fprintf(stderr, "%s: ", ps_progname);
	va_copy(again, ap);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	if (n >= (int)sizeof(small) && (big = malloc((size_t)n + 1)) != NULL)
		vsnprintf(big, (size_t)n + 1, fmt, again);
	va_end(again);
	if (n < 0)
		return;
	if (big)
		put_text(big, (size_t)n);
	else
		put_text(small, strnlen(small, sizeof(small) - 1));
	free(big);
}

void ps_warn(const struct ps_error *err)
{
	if (!err || !err->code)
		return;
	fprintf(stderr, "%s: ", ps_progname);
	if (err->input) {
		put_str(err->input);
		fputs(": ", stderr);
	}
	if (err->has_offset)
		fprintf(stderr, "offset 0x%" PRIx64 ": ", err->offset);
	put_str(err->detail[0] ? err->detail : ps_strerror(err->code));
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

	va_start(ap, fmt);
	put_msg(fmt, ap);
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
		va_start(ap, fmt);
		put_msg(fmt, ap);
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

	va_start(ap, fmt);
	put_msg(fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n%s: try '%s --help'\n", ps_progname, ps_progname);
	exit(2);
}

void ps_show_event(const struct ps_reader_event *ev)
{
	if (ev->kind == PS_READER_NOTICE)
		ps_msg("%s", ev->text);
	else if (ev->kind == PS_READER_PROGRESS && ev->text)
		ps_status("%s", ev->text);
	else if (ev->kind == PS_READER_PROGRESS)
		ps_status(NULL);
}

void ps_die_nomem(void)
{
	ps_msg("out of memory");
	exit(1);
}

int ps_exit_status(const struct ps_error *err)
{
	if (!err || !err->code || err->code == PS_EPIPE)
		return 0;
	return err->code == PS_EUSAGE ? 2 : 1;
}

int ps_finish(const struct ps_error *err)
{
	if (err && err->code && err->code != PS_EPIPE && err->detail[0])
		ps_warn(err);
	return ps_exit_status(err);
}
