// SPDX-License-Identifier: GPL-2.0-only
/*
 * opts.c - the command line from a table, number and duration parsing, --version,
 * checked close of stdout.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "duration.h"
#include "durations.h"
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

uint64_t ps_parse_size(const char *arg, uint64_t max, const char *what)
{
	unsigned long long v;
	uint64_t mul = 1;
	char *end;

	errno = 0;
	v = strtoull(arg, &end, 10);
	if (end != arg && !errno && *arg != '-') {
		if (*end == 'k' || *end == 'K')
			mul = 1ULL << 10, end++;
		else if (*end == 'm' || *end == 'M')
			mul = 1ULL << 20, end++;
		else if (*end == 'g' || *end == 'G')
			mul = 1ULL << 30, end++;
		if (!*end && v > 0 && v <= max / mul)
			return v * mul;
	}
	ps_usage_error("%s: '%s' is not a size (4096, 64k, 10m, 1g)", what, arg);
}

struct ps_filter *ps_where__parse(const char *expr)
{
	struct ps_filter_error fe;
	struct ps_filter *f = ps_filter__parse(1, &expr, &fe);

	if (!f) {
		ps_where__say(&fe);
		exit(2);
	}
	return f;
}

void ps_where__say(const struct ps_filter_error *fe)
{
	char *caret = ps_filter_error__caret(fe);

	ps_msg("--where: %s", fe->msg);
	ps_caret(caret);
	free(caret);
}

int ps_where__refuse(const struct ps_filter_error *fe, struct ps_error *err)
{
	ps_where__say(fe);
	ps_error__set(err, PS_EUSAGE, NULL, PS_NO_OFFSET, NULL);
	err->detail[0] = 0; /* already said */
	return -1;
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

/* ---- the command line from one table ---- */

static const struct ps_opt help_rows[] = {
	{ "help", 'h', PS_ARG_NONE, NULL, "show this help", PS_OPTG_OWN, 0 },
	{ "version", 'V', PS_ARG_NONE, NULL, "show the version", PS_OPTG_OWN, 0 },
	{ NULL, 0, PS_ARG_NONE, NULL, NULL, PS_OPTG_OWN, 0 },
};

static const struct ps_opt *row_of(const struct ps_cmdline *cl, int key)
{
	const struct ps_opt *r;

	for (r = cl->opts; r->name || r->key; r++)
		if (r->key == key)
			return r;
	return NULL;
}

void ps_args__init(struct ps_args *a, const struct ps_cmdline *cl, int argc, char **argv,
                   struct ps_common_opts *common)
{
	static const int has_arg[] = { no_argument, required_argument, optional_argument };
	const struct ps_opt *r;
	size_t nl = 0, ns = 0;
	int i;

	if (cl->opts[PS_OPTS_MAX].name || cl->opts[PS_OPTS_MAX].key)
		abort(); /* a table with no end: our bug */
	memset(a, 0, sizeof(*a));
	memset(common, 0, sizeof(*common));
	a->cl = cl;
	a->common = common;
	a->argc = argc;
	a->argv = argv;
	a->longopts = a->longbuf;
	if (cl->in_order)
		a->shortopts[ns++] = '+';
	a->shortopts[ns++] = ':'; /* a missing argument is told apart from an unknown option */
	for (i = 0; i < 2; i++) {
		for (r = i ? help_rows : cl->opts; r->name || r->key; r++) {
			if (nl >= PS_ARGS_MAX)
				abort(); /* our table, our bug */
			if (r->name)
				a->longbuf[nl++] =
				        (struct option){ r->name, has_arg[r->arg], NULL, r->key };
			if (r->key > 0 && r->key < 0x100 && r->help) {
				a->shortopts[ns++] = (char)r->key;
				if (r->arg == PS_ARG_REQUIRED)
					a->shortopts[ns++] = ':';
			}
		}
	}
	a->shortopts[ns] = 0;
	a->longbuf[nl] = (struct option){ NULL, 0, NULL, 0 };
	optind = 1;
	opterr = 0;
}

/* the option as it was typed, for a message: "--name" (without "=value") or "-x" */
static PS_NORETURN void bad_option(struct ps_args *a, int c)
{
	const char *typed = optind > 0 && optind <= a->argc ? a->argv[optind - 1] : "";
	const struct ps_opt *r = optopt ? row_of(a->cl, optopt) : NULL;
	bool known = r || optopt == 'h' || optopt == 'V';
	int len = (int)strcspn(typed, "=");

	if (strncmp(typed, "--", 2) != 0) {
		if (c == ':')
			ps_msg("option '-%c' needs an argument", optopt);
		else
			ps_msg("unknown option '-%c'", optopt);
	} else if (c == ':') {
		ps_msg("option '%.*s' needs an argument", len, typed);
	} else if (known && typed[len] == '=') {
		ps_msg("option '%.*s' takes no argument", len, typed);
	} else {
		ps_msg("unknown option '%.*s'", len, typed);
	}
	ps_cmdline__usage(a->cl);
}

/* --pair: the spec is checked here, so a mistake is a usage error */
static void add_pair(struct ps_common_opts *co, const char *spec)
{
	struct ps_error err = { 0 };
	struct ps_durations *d;

	if (co->npairs == PS_DUR_MAX_PAIRS)
		ps_usage_error("--pair: at most %d", PS_DUR_MAX_PAIRS);
	co->pairs[co->npairs++] = spec;
	d = ps_durations__new(co->pairs, co->npairs, &err);
	if (!d) {
		if (err.code == PS_ENOMEM)
			ps_die_nomem();
		ps_usage_error("--pair: %s", err.detail);
	}
	ps_durations__delete(d);
}

int ps_args__next(struct ps_args *a)
{
	struct ps_common_opts *co = a->common;
	const struct ps_opt *r;
	int c;

	for (;;) {
		c = getopt_long(a->argc, a->argv, a->shortopts, a->longopts, NULL);
		a->optind = optind;
		a->arg = optarg;
		if (c == -1)
			return -1;
		if (c == '?' || c == ':')
			bad_option(a, c);
		r = row_of(a->cl, c);
		if (!r && c == 'h') {
			ps_cmdline__help(a->cl, stdout);
			exit(ps_finish_stdout() ? 1 : 0);
		}
		if (!r && c == 'V')
			ps_print_version();
		if (!r)
			bad_option(a, '?');
		switch (r->group) {
		case PS_OPTG_OWN:
			return c;
		case PS_OPTG_OUTPUT:
			co->output = optarg;
			break;
		case PS_OPTG_FORCE:
			co->force = true;
			break;
		case PS_OPTG_QUIET:
			co->quiet = true;
			break;
		case PS_OPTG_SYMFS:
			co->sym.symfs = optarg;
			break;
		case PS_OPTG_KALLSYMS:
			co->sym.kallsyms = optarg;
			break;
		case PS_OPTG_NO_SYMBOLS:
			co->sym.off = true;
			break;
		case PS_OPTG_PAIR:
			add_pair(co, optarg);
			break;
		case PS_OPTG_FLAG:
			if (!a->flags)
				abort(); /* our bug: a flag row and nowhere to set it */
			*(bool *)((char *)a->flags + r->flag) = true;
			break;
		case PS_OPTG_STRING:
			if (!a->flags)
				abort(); /* our bug, as above */
			*(const char **)((char *)a->flags + r->flag) = optarg;
			break;
		}
	}
}

/* the left column of a row: "  -o, --output FILE" */
static int left_of(const struct ps_opt *r, char *buf, size_t size)
{
	/* an optional argument is --name[=ARG], unless its name says it as "[...]" */
	bool bracketed = r->argname && r->arg == PS_ARG_OPTIONAL && r->argname[0] != '[';
	int n;

	if (r->key > 0 && r->key < 0x100)
		n = snprintf(buf, size, "  -%c%s", r->key, r->name ? ", " : "");
	else
		n = snprintf(buf, size, "      ");
	if (r->name && n >= 0 && (size_t)n < size)
		n += snprintf(buf + n, size - (size_t)n, "--%s%s%s%s", r->name,
		              !r->argname ? "" :
		              bracketed   ? "[=" :
		                            " ",
		              r->argname ? r->argname : "", bracketed ? "]" : "");
	else if (r->argname && n >= 0 && (size_t)n < size)
		n += snprintf(buf + n, size - (size_t)n, " %s", r->argname);
	return n < 0 ? 0 : n;
}

/* the longest left column a help line keeps beside its text */
#define HELP_COL_MAX 26

void ps_cmdline__help(const struct ps_cmdline *cl, FILE *fp)
{
	const struct ps_opt *r;
	char left[128];
	int i, col = 0, n;
	const char *h, *nl;

	fputs(cl->usage, fp);
	if (cl->about)
		fprintf(fp, "\n%s", cl->about);
	fputc('\n', fp);
	for (i = 0; i < 2; i++)
		for (r = i ? help_rows : cl->opts; r->name || r->key; r++) {
			if (!r->help)
				continue;
			n = left_of(r, left, sizeof(left)) + 2;
			if (n > col && n <= HELP_COL_MAX)
				col = n;
		}
	for (i = 0; i < 2; i++)
		for (r = i ? help_rows : cl->opts; r->name || r->key; r++) {
			if (!r->help)
				continue; /* another name of the row before */
			n = left_of(r, left, sizeof(left));
			fputs(left, fp);
			if (n + 2 > col)
				fprintf(fp, "\n%*s", col, "");
			else
				fprintf(fp, "%*s", col - n, "");
			for (h = r->help; (nl = strchr(h, '\n')); h = nl + 1)
				fprintf(fp, "%.*s\n%*s", (int)(nl - h), h, col, "");
			fprintf(fp, "%s\n", h);
		}
	if (cl->epilog)
		fprintf(fp, "\n%s", cl->epilog);
}

void ps_cmdline__usage(const struct ps_cmdline *cl)
{
	fputs(cl->usage, stderr);
	exit(2);
}
