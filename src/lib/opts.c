// SPDX-License-Identifier: GPL-2.0-only
/*
 * opts.c - number and duration parsing, --version, checked close of stdout.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "duration.h"
#include "opts.h"

uint64_t ps_parse_u64(const char *arg, uint64_t min, uint64_t max, const char *what)
{
	unsigned long long v;
	char *end;

	if (!arg || !isdigit((unsigned char)arg[0]))
		ps_usage_error("%s: '%s' is not a number", what, arg ? arg : "");
	errno = 0;
	v = strtoull(arg, &end, 0);
	if (errno || *end)
		ps_usage_error("%s: '%s' is not a number", what, arg);
	if (v < min || v > max)
		ps_usage_error("%s: %s is out of range [%llu, %llu]", what, arg,
		               (unsigned long long)min, (unsigned long long)max);
	return v;
}

uint64_t ps_parse_duration(const char *arg, uint64_t min_ns, uint64_t max_ns, const char *what)
{
	struct ps_error err = { 0 };
	uint64_t ns;

	if (ps_duration__parse(arg ? arg : "", min_ns, max_ns, &ns, &err))
		ps_usage_error("%s: %s", what, err.detail);
	return ns;
}

void ps_usage(FILE *fp, int status, const char *usage_line, const char *help)
{
	fputs(usage_line, fp);
	if (fp == stdout) {
		fputs(help, fp);
		exit(ps_finish_stdout() ? 1 : status);
	}
	exit(status);
}

void ps_print_version(void)
{
	printf("%s (pstream) %s\n", ps_progname, PS_VERSION);
	exit(ps_finish_stdout() ? 1 : 0);
}

int ps_finish_stdout(void)
{
	int bad = fflush(stdout) != 0 || ferror(stdout);
	int e = errno;

	if (fclose(stdout) != 0 && !bad) {
		bad = 1;
		e = errno;
	}
	if (!bad || e == EPIPE)
		return 0;
	ps_msg("standard output: %s", strerror(e));
	return -1;
}
