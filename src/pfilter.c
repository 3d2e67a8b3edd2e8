// SPDX-License-Identifier: GPL-2.0-only
/*
 * pfilter - keep the samples of a perf event stream that match an expression.
 *
 * Header, side-band and unknown records pass through unchanged and in their order; only
 * samples are dropped.  See pfilter(1).
 *
 * When the expression reads thread names (comm) or the time bounds are relative to the
 * first sample, samples are decided in time order, through the library's time-ordered
 * view, while records are written in their original order: a record read after an
 * undecided sample waits in the arrival queue below until every sample before it is
 * decided.  Otherwise each sample is decided as it is read and nothing waits.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/diag.h"
#include "lib/durations.h"
#include "lib/files.h"
#include "lib/filter.h"
#include "lib/input.h"
#include "lib/reader.h"
#include "lib/opts.h"
#include "lib/output.h"
#include "lib/session.h"
#include "lib/signals.h"
#include "lib/symbols.h"

/* how long an idle input may keep samples waiting for their time order */
#define IDLE_MS 30

enum {
	OPT_EXPLAIN = PS_OPT_LONG,
	OPT_ONLY_SAMPLES,
	OPT_KEEP_SIDEBAND,
	OPT_START,
	OPT_STOP,
};

struct bound {
	bool set;
	bool relative; /* to the first sample's time */
	uint64_t ns;
};

struct opts {
	const char *input;  /* -i FILE; "-" is standard input */
	const char *output; /* -o FILE; "-" is standard output */
	bool count;         /* -c: print the number of matching samples */
	bool force;         /* -f: write binary even to a terminal */
	bool invert;        /* -v: keep the samples that do not match */
	bool explain;       /* --explain: show the parsed expression and stop */
	bool only_samples;  /* --only-samples: drop side-band records too */
	bool quiet;         /* -q: no progress line */
	struct bound start, stop;
	struct ps_symbols_opts sym;          /* --symfs, --kallsyms */
	const char *pairs[PS_DUR_MAX_PAIRS]; /* --pair */
	size_t npairs;
	int nexpr; /* operands, joined with "and" */
	const char *const *expr;
};

static const struct ps_cmdline cmdline = {
	.usage = "usage: pfilter [-cfqv] [--explain] [--only-samples] "
        "[--start time] [--stop time] [--pair spec] [--symfs dir] [--kallsyms file] "
        "[-i file] [-o file] "
        "[expression ...]\n",
	.about = "Keep the samples of a perf event stream that match an expression; header\n"
	         "and side-band records pass unchanged.  Operands are joined with 'and'.\n",
	.opts = {
		PS_OPT_FLAG("count", 'c', "print the number of matching samples, not a stream", struct opts,
		            count),
		PS_OPT_FLAG("explain", OPT_EXPLAIN,
		            "print the parsed expression and the part the kernel\n"
		            "could evaluate, without reading a stream",
		            struct opts, explain),
		PS_OPT_FORCE_ROW,
		PS_OPT("input", 'i', PS_ARG_REQUIRED, "FILE", "read FILE instead of standard input"),
		PS_OPT("keep-sideband", OPT_KEEP_SIDEBAND, PS_ARG_NONE, NULL,
		       "pass side-band records (the default)"),
		PS_OPT_OUTPUT_ROW,
		PS_OPT_FLAG("only-samples", OPT_ONLY_SAMPLES, "drop side-band records too (COMM, MMAP...)",
		            struct opts, only_samples),
		PS_OPT_QUIET_ROW,
		PS_OPT("start", OPT_START, PS_ARG_REQUIRED, "TIME",
		       "drop samples before TIME (ns, 1.5s, 2m, or +100ms\n"
		       "after the first sample)"),
		PS_OPT("stop", OPT_STOP, PS_ARG_REQUIRED, "TIME", "drop samples after TIME"),
		PS_OPT_FLAG("invert", 'v', "keep the samples that do not match", struct opts, invert),
		PS_OPT_PAIR_ROW,
		PS_OPT_SYMBOL_FILES_ROWS,
	},
	.epilog = "Examples: pfilter comm=dd pid=42    pfilter 'event glob \"sched:*\" and not "
	          "comm startswith kworker'\n",
};

static void parse_bound(const char *arg, const char *what, struct bound *b)
{
	bool neg;

	b->relative = arg[0] == '+';
	if (arg[0] == '-' ||
	    ps_filter__parse_number(arg + b->relative, strlen(arg + b->relative), &b->ns, &neg) ||
	    neg || !arg[b->relative] || arg[b->relative] == '+')
		ps_usage_error(
		        "%s: '%s' is not a time (ns, 1.5s, 200ms, 2m, or +10ms after the first sample)",
		        what, arg);
	b->set = true;
}

static void parse_args(int argc, char **argv, struct opts *o)
{
	struct ps_common_opts co;
	struct ps_args a;
	int c;

	memset(o, 0, sizeof(*o));
	ps_args__init(&a, &cmdline, argc, argv, &co);
	a.flags = o;
	while ((c = ps_args__next(&a)) != -1) {
		switch (c) {
		case 'i':
			o->input = a.arg;
			break;
		case OPT_KEEP_SIDEBAND:
			o->only_samples = false;
			break;
		case OPT_START:
			parse_bound(a.arg, "--start", &o->start);
			break;
		case OPT_STOP:
			parse_bound(a.arg, "--stop", &o->stop);
			break;
		}
	}
	o->output = co.output;
	o->force = co.force;
	o->quiet = co.quiet;
	o->sym = co.sym;
	memcpy(o->pairs, co.pairs, sizeof(o->pairs));
	o->npairs = co.npairs;
	o->nexpr = argc - a.optind;
	o->expr = (const char *const *)(argv + a.optind);
	if (!o->nexpr && (o->invert || o->explain || (!o->start.set && !o->stop.set)))
		ps_usage_error("an expression is needed, as in: pfilter comm=NAME");
	if (o->start.set && o->stop.set && o->start.relative == o->stop.relative &&
	    o->start.ns > o->stop.ns)
		ps_usage_error("--start is after --stop");
}

/*
 * Print a filter error: one line, then the operand and a caret under the spot.
 * Return: the exit status: 2 for a mistake in the expression, 1 for the stream's
 * (no field of that name in its events).
 */
static int filter_error(const struct ps_filter_error *fe)
{
	char *caret = ps_filter_error__caret(fe);

	if (fe->text && access(fe->text, F_OK) == 0)
		ps_msg("%s (an input file is read with -i %s)", fe->msg, fe->text);
	else
		ps_msg("%s", fe->msg);
	ps_caret(caret);
	free(caret);
	return fe->text ? 2 : 1;
}

static int explain(const struct ps_filter *f)
{
	char *expr = ps_filter__describe(f), *kernel = NULL, *rest = NULL;

	if (!expr || ps_filter__pushdown(f, &kernel, &rest)) {
		free(expr);
		ps_msg("out of memory");
		return 1;
	}
	printf("expression: %s\n", expr);
	printf("kernel:     %s\n", kernel[0] ? kernel : "none");
	printf("userspace:  %s\n", rest[0] ? rest : "none");
	free(expr);
	free(kernel);
	free(rest);
	return ps_finish_stdout() ? 1 : 0;
}

/* ---- the filter run ---- */

struct run {
	const struct opts *o;
	struct ps_filter *filter;
	struct ps_reader *rd;
	struct ps_session *s;
	struct ps_output *out;
	bool want_stream; /* not -c */
	bool started;     /* the filter is checked and the output begun */
	bool have_first;
	int refused; /* the stream's events refuse the expression: the exit status (said) */
	uint64_t start_ns, stop_ns;
	unsigned long long matched;
	struct ps_error err, oerr;
};

static void wait_hook(void *arg)
{
	struct run *r = arg;

	if (r->out && r->started)
		ps_output__flush_hook(r->out);
}

/* Keep the sample?  Bounds first, then the expression.  -1 on error (r->err). */
static int decide(struct run *r, const struct ps_sample *smp)
{
	int m;

	if (r->o->start.set || r->o->stop.set) {
		if (!(smp->type & PERF_SAMPLE_TIME))
			return 0;
		if (!r->have_first) {
			r->have_first = true;
			r->start_ns = r->o->start.ns + (r->o->start.relative ? smp->time : 0);
			r->stop_ns = r->o->stop.ns + (r->o->stop.relative ? smp->time : 0);
		}
		if (r->o->start.set && smp->time < r->start_ns)
			return 0;
		if (r->o->stop.set && smp->time > r->stop_ns)
			return 0;
	}
	m = ps_filter__match(r->filter, r->s, smp);
	if (m < 0)
		return ps_error__set(&r->err, PS_ENOMEM, NULL, PS_NO_OFFSET, "out of memory");
	if (m)
		r->matched++;
	return m;
}

/*
 * The header is read: check the expression against the stream's events and begin writing.
 * When the input only went idle (@final false), a stream that the check refuses may still
 * be in the middle of its header: wait for more.
 * Return: false to wait; true when done, @r->refused set when the events refuse it.
 */
static bool start(struct run *r, bool final)
{
	struct ps_filter_error fe;

	if (ps_filter__check(r->filter, r->s, &fe)) {
		if (!final && fe.text)
			return false;
		r->refused = filter_error(&fe);
		return true;
	}
	r->started = true;
	if (!r->want_stream)
		return true;
	if (!r->out) {
		r->out = ps_output__open(r->o->output, r->o->force, &r->oerr);
		if (!r->out)
			return true;
	}
	ps_output__begin(r->out, ps_reader__swapped(r->rd), &r->oerr);
	return true;
}

/* One event of the reading; -1 ends it. */
static int handle(struct run *r, const struct ps_reader_event *ev)
{
	int keep;

	switch (ev->kind) {
	case PS_READER_HEADER:
		if (!start(r, ev->final))
			ps_reader__not_yet(r->rd);
		else if (r->refused || (r->want_stream && (!r->out || r->oerr.code)))
			return -1;
		return 0;
	case PS_READER_SAMPLE:
		keep = decide(r, &ev->smp);
		if (keep < 0)
			return -1;
		if (!keep)
			ps_reader__drop(r->rd);
		return 0;
	case PS_READER_WRITE:
		return ps_output__put(r->out, &ev->rec, &r->oerr);
	case PS_READER_IDLE:
		/* nothing comes: what waited is decided and out */
		if (r->out && r->started)
			return ps_output__flush(r->out, &r->oerr);
		return 0;
	default:
		ps_show_event(ev);
		return 0;
	}
}

/* -o FILE is standard output by now (ps_outfile__open()) */
static int count_out(const struct run *r)
{
	printf("%llu\n", r->matched);
	return ps_finish_stdout() ? 1 : 0;
}

int main(int argc, char **argv)
{
	struct ps_filter_error fe;
	struct ps_error spare = { 0 }, ferr = { 0 };
	struct ps_outfile *of = NULL;
	struct ps_reader_opts ro = { 0 };
	struct ps_reader_event ev;
	bool bad_count;
	struct run r = { 0 };
	struct opts o;
	int status;

	ps_progname = "pfilter";
	ps_signals__init();
	parse_args(argc, argv, &o);
	r.o = &o;
	r.want_stream = !o.count;

	r.filter = ps_filter__parse(o.nexpr, o.expr, &fe);
	if (!r.filter)
		return filter_error(&fe);
	if (o.invert && ps_filter__invert(r.filter))
		ps_die_nomem();
	if (o.explain) {
		status = explain(r.filter);
		ps_filter__delete(r.filter);
		return status;
	}

	if (ps_stdin__refuse_tty(&o.input, 1, &r.err) < 0)
		ps_die(&r.err);
	/* -o FILE: standard output, through a temporary name, never over the input */
	if (o.output && strcmp(o.output, "-") != 0) {
		of = ps_outfile__open(o.output, &o.input, 1, &r.err);
		if (!of)
			ps_die(&r.err);
		o.output = NULL;
	}
	/* standard output is checked for a terminal before anything is read */
	if (r.want_stream && (!o.output || strcmp(o.output, "-") == 0)) {
		r.out = ps_output__open(o.output, o.force, &r.err);
		if (!r.out)
			ps_die(&r.err);
	}
	ro.path = o.input;
	ro.mode = PS_READER_ARRIVAL;
	ro.input_flags = PS_INPUT_DECOMPRESS;
	ro.idle_ms = IDLE_MS;
	ro.symbols = ps_filter__uses_symbols(r.filter);
	ro.sym = &o.sym;
	ro.pairs = o.pairs;
	ro.npairs = o.npairs;
	/* durations are worked out only when the command line names one: a program that
	 * reads none does not pay for them on every sample */
	ro.no_durations = !o.npairs;
	for (int i = 1; i < argc && ro.no_durations; i++)
		ro.no_durations = !ps_durations__named(argv[i]);
	/* samples in time order when the expression needs the world as of their time */
	ro.unordered = !ps_filter__uses_comm(r.filter) && !ro.symbols && !o.start.relative &&
	               !o.stop.relative && !ps_filter__uses_durations(r.filter) && !o.npairs;
	ro.write = r.want_stream;
	ro.drop_sideband = o.only_samples;
	/* the stream goes to standard output as it is read; a count only at the end */
	ro.progress = !o.quiet;
	ro.stdout_busy = r.want_stream;
	r.rd = ps_reader__open(&ro, &r.err);
	if (!r.rd) {
		ps_output__close(r.out, &spare);
		ps_die(&r.err);
	}
	r.s = ps_reader__session(r.rd);
	ps_reader__set_wait_hook(r.rd, wait_hook, &r);
	if (ro.symbols)
		ps_filter__set_symbols(r.filter, ps_reader__symbols(r.rd));
	/* every complete record read is written before what went wrong is said */
	while (ps_reader__next(r.rd, &ev, &r.err) > 0)
		if (handle(&r, &ev) < 0)
			break;
	if (r.refused) {
		/* nothing was written: no output file, no count */
		ps_output__close(r.out, NULL);
		ps_outfile__close(of, false, ps_stop, &ferr);
		ps_reader__close(r.rd);
		ps_filter__delete(r.filter);
		return r.refused;
	}
	if (r.out)
		ps_output__close(r.out, r.oerr.code ? &spare : &r.oerr);
	/* a reader that went away ends quietly, whatever else happened */
	status = r.oerr.code ? ps_exit_status(&r.oerr) : ps_exit_status(&r.err);
	if (r.oerr.code && r.oerr.code != PS_EPIPE)
		ps_warn(&r.oerr);
	if (r.err.code && r.oerr.code != PS_EPIPE) {
		if (!r.err.input && r.err.code != PS_ENOMEM)
			r.err.input = ps_reader__name(r.rd);
		ps_warn(&r.err);
		status = status ? status : 1;
	}
	/* the count of what was read, even when the input broke off */
	bad_count = o.count && count_out(&r);
	if (bad_count)
		status = 1;
	if (ps_outfile__close(of, !r.oerr.code && !bad_count, ps_stop, &ferr) < 0) {
		ps_warn(&ferr);
		status = 1;
	}
	ps_reader__close(r.rd);
	ps_filter__delete(r.filter);
	return status;
}
