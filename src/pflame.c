// SPDX-License-Identifier: GPL-2.0-only
/*
 * pflame - draw a perf event stream's call chains (or folded stack lines) as one
 * self-contained interactive SVG flame graph, once, per interval of sample time, or as
 * the difference of two profiles.  See pflame(1).
 */
#include <errno.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lib/diag.h"
#include "lib/duration.h"
#include "lib/durations.h"
#include "lib/files.h"
#include "lib/flame.h"
#include "lib/input.h"
#include "lib/reader.h"
#include "lib/opts.h"
#include "lib/sample.h"
#include "lib/session.h"
#include "lib/signals.h"
#include "lib/symbols.h"

enum {
	OPT_ICICLE = PS_OPT_LONG,
	OPT_OFF_CPU,
	OPT_REVERSE,
	OPT_FLAMECHART,
};

#define MAX_SKIPPED_SHOWN 10 /* malformed folded lines named one by one */

struct opts {
	const char *output;
	bool folded, diff, by_pid;
	bool off_cpu;      /* --off-cpu: stacks weighted by ns off-CPU (durations.h) */
	unsigned int mode; /* PS_FLAME_REVERSE, PS_FLAME_CHART */
	uint64_t interval_ns;
	struct ps_flame_style style;
	struct ps_symbols_opts sym; /* --symfs, --kallsyms */
	const char *const *inputs;
	int ninputs;
};

static const struct ps_cmdline cmdline = {
	.usage = "usage: pflame [-df] [--icicle] [--off-cpu] [--reverse] [--flamechart] [-b key] "
        "[-c palette] [-H px] [-i time] [-m px] [-o file] [-t title] [-w px] [--symfs dir] "
        "[--kallsyms file] [file ...]\n",
	.about = "Draw the call chains of a perf event stream as an interactive SVG flame "
	         "graph.\n",
	.opts = {
		{ "output", 'o', PS_ARG_REQUIRED, "FILE",
		  "write the SVG to FILE (default: standard output);\n"
		  "with -i, %n in FILE is the interval's number",
		  PS_OPTG_OUTPUT, 0 },
		PS_OPT_FLAG("folded", 'f', "the inputs are folded stack lines ('a;b;c COUNT')", struct opts,
		            folded),
		PS_OPT("interval", 'i', PS_ARG_REQUIRED, "TIME",
		       "one graph per TIME of sample time (5, 5s, 500ms, 2m;\n"
		       "needs -o)"),
		PS_OPT_FLAG("diff", 'd',
		            "two inputs, BEFORE and AFTER: draw AFTER, coloured by\n"
		            "the change of each frame's share (red grew, blue shrank)",
		            struct opts, diff),
		PS_OPT("by", 'b', PS_ARG_REQUIRED, "comm|pid",
		       "root the stacks at the comm (default) or at comm-pid"),
		PS_OPT("title", 't', PS_ARG_REQUIRED, "TEXT", "the graph's title"),
		PS_OPT("width", 'w', PS_ARG_REQUIRED, "PX", "the image's width (default 1200)"),
		PS_OPT("height", 'H', PS_ARG_REQUIRED, "PX", "the height of one frame (default 16)"),
		PS_OPT("minwidth", 'm', PS_ARG_REQUIRED, "PX",
		       "leave out frames narrower than PX (default 0.1)"),
		PS_OPT("colors", 'c', PS_ARG_REQUIRED, "PALETTE", "hot (default), cool, mem, gray"),
		PS_OPT("colours", 'c', PS_ARG_REQUIRED, NULL, NULL),
		PS_OPT("icicle", OPT_ICICLE, PS_ARG_NONE, NULL,
		       "roots at the top, stacks growing downwards"),
		PS_OPT_FLAG("off-cpu", OPT_OFF_CPU,
		            "the stacks threads left the cpu with, weighted by\n"
		            "the time off-CPU (sched_switch; with -f: counts in ns)",
		            struct opts, off_cpu),
		PS_OPT("reverse", OPT_REVERSE, PS_ARG_NONE, NULL,
		       "each stack turned around: callees at the root, merged\n"
		       "at the leaves"),
		PS_OPT("flamechart", OPT_FLAMECHART, PS_ARG_NONE, NULL,
		       "a flame chart: samples in the order they came (time)\n"
		       "on the x axis, not merged by name"),
		PS_OPT_SYMBOL_FILES_ROWS,
	},
};

#define IDLE_MS 100

struct ctx {
	const struct opts *o;
	struct ps_flame *tree;
	struct ps_reader *rd;
	struct ps_session *s;
	const char **names;
	size_t *lens;
	enum ps_frame_kind *kinds;
	struct ps_symbols *sym;                         /* the reader's */
	struct ps_fold_buf fb;                          /* one sample's folded stack */
	enum ps_frame_kind chain[PS_SYMBOLS_MAX_STACK]; /* its callchain's kinds */
	char root[224];                                 /* --by pid: comm-pid */
	bool have_start;
	uint64_t start, end, intervals;
	uint64_t late; /* samples of an interval already written, in the current one */
	struct timespec last_write;
	struct ps_outfile *of; /* -o's file, opened before reading; per interval with -i */
	char *name;            /* its name, kept for messages until the end */
	/* folded input */
	struct ps_flame *fold_before; /* a differential input's BEFORE counts */
	const char *differential;     /* the first differential input, and a plain one */
	const char *plain;
	uint64_t skipped; /* malformed lines left out */
};

static double parse_double(const char *arg, double min, double max, const char *what)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (errno || end == arg || *end || !(v >= min && v <= max))
		ps_usage_error("%s: '%s' is not a number in [%g, %g]", what, arg, min, max);
	return v;
}

/* FILE with %n: only %n and %% are allowed */
static void check_pattern(const char *p, bool interval)
{
	bool n = false;

	for (; *p; p++) {
		if (*p != '%')
			continue;
		if (p[1] == 'n')
			n = true;
		else if (p[1] != '%')
			ps_usage_error("--output: only %%n and %%%% may follow a %% in '%s'", p);
		p++;
	}
	if (interval && !n)
		ps_usage_error("--interval: the output name needs %%n (one file per interval)");
}

static void parse_args(int argc, char **argv, struct opts *o)
{
	struct ps_common_opts co;
	struct ps_args a;
	struct ps_error err = { 0 };
	int c, pal;

	memset(o, 0, sizeof(*o));
	o->style.width = 1200;
	o->style.height = 16;
	o->style.minwidth = 0.1;
	ps_args__init(&a, &cmdline, argc, argv, &co);
	a.flags = o;
	while ((c = ps_args__next(&a)) != -1) {
		switch (c) {
		case 'H':
			o->style.height = (unsigned int)ps_parse_u64(a.arg, 4, 200, "--height");
			break;
		case 'b':
			if (strcmp(a.arg, "pid") == 0)
				o->by_pid = true;
			else if (strcmp(a.arg, "comm") != 0)
				ps_usage_error("--by: '%s' is neither comm nor pid", a.arg);
			break;
		case 'c':
			pal = ps_flame_palette__parse(a.arg);
			if (pal < 0)
				ps_usage_error("--colors: '%s' is not one of hot, cool, mem, gray",
				               a.arg);
			o->style.palette = (enum ps_flame_palette)pal;
			break;
		case 'i':
			if (ps_duration__parse(a.arg, PS_NS_PER_SEC / 1000, 86400 * PS_NS_PER_SEC,
			                       &o->interval_ns, &err))
				ps_usage_error("--interval: %s", err.detail);
			break;
		case 'm':
			o->style.minwidth = parse_double(a.arg, 0, 1e6, "--minwidth");
			break;
		case 't':
			o->style.title = a.arg;
			break;
		case 'w':
			o->style.width = (unsigned int)ps_parse_u64(a.arg, 100, 1000000, "--width");
			break;
		case OPT_ICICLE:
			o->style.icicle = true;
			break;
		case OPT_REVERSE:
			o->mode |= PS_FLAME_REVERSE;
			break;
		case OPT_FLAMECHART:
			o->mode |= PS_FLAME_CHART;
			break;
		}
	}
	o->output = co.output;
	o->sym = co.sym;
	o->style.time_ns = o->off_cpu;
	o->ninputs = argc - a.optind;
	if (o->diff) {
		if (o->ninputs != 2)
			ps_usage_error("--diff: two inputs, BEFORE and AFTER");
		if (o->interval_ns)
			ps_usage_error("--diff and --interval do not go together");
		if (o->mode & PS_FLAME_CHART)
			ps_usage_error("--diff and --flamechart do not go together");
	} else if (o->ninputs > 1 && o->interval_ns) {
		ps_usage_error("--interval: one input (several streams: pcat --merge them)");
	}
	if (o->ninputs) {
		int i, stdin_seen = 0;

		o->inputs = (const char *const *)argv + a.optind;
		for (i = 0; i < o->ninputs; i++)
			stdin_seen += strcmp(o->inputs[i], "-") == 0;
		if (stdin_seen > 1)
			ps_usage_error("standard input can be only one of the inputs");
	} else {
		static const char *const std_in[] = { "-" };

		o->inputs = std_in;
	}
	if (o->folded && o->by_pid)
		ps_usage_error("--by pid needs a stream: folded lines have no pids");
	if (o->interval_ns) {
		if (o->folded)
			ps_usage_error("--interval needs a stream: folded lines have no times");
		if (!o->output || strcmp(o->output, "-") == 0)
			ps_usage_error(
			        "--interval writes one file per interval: give -o 'NAME-%%n.svg'");
	}
	if (o->output && strcmp(o->output, "-") != 0)
		check_pattern(o->output, o->interval_ns != 0);
}

/* ---- output ---- */

/*
 * Open -o (interval @n's name) by the rules of every output (files.h): a regular file is
 * written under a temporary name and renamed, so whoever watches the name sees a complete
 * graph; a device or a FIFO is written as it is; an input is never written over.
 */
static int open_output(struct ctx *c, uint64_t n, struct ps_error *err)
{
	free(c->name);
	c->name = ps_outpath__expand(NULL, c->o->output, n, 0, NULL);
	if (!c->name)
		return ps_error__set(err, PS_ENOMEM, NULL, PS_NO_OFFSET, "out of memory");
	c->of = ps_outfile__create(c->name, c->o->inputs, c->o->ninputs, err);
	return c->of ? 0 : -1;
}

/* Write the graph of @tree to -o (interval @n's file) or to standard output. */
static int write_graph(struct ctx *c, const struct ps_flame *tree, const struct ps_flame *before,
                       uint64_t n, const char *subtitle, struct ps_error *err)
{
	struct ps_flame_style st = c->o->style;
	FILE *fp = stdout;
	int rc;

	st.before = before;
	st.subtitle = subtitle;
	if (c->o->output && strcmp(c->o->output, "-") != 0) {
		if (!c->of && open_output(c, n, err) < 0)
			return -1;
		fp = ps_outfile__stream(c->of, err);
	}
	rc = fp ? ps_flame__write_svg(tree, &st, fp, c->of ? c->name : "<stdout>", err) : -1;
	/* a reader that went away is a quiet end */
	if (rc && err->code == PS_EWRITE && err->sys_errno == EPIPE)
		err->code = PS_EPIPE;
	if (c->of && ps_outfile__close(c->of, !rc, false, rc ? NULL : err) < 0)
		rc = -1;
	c->of = NULL;
	return rc;
}

/* ---- folded input ---- */

/* a malformed line: said, for the first few, and left out */
static void folded_skipped(void *arg, const struct ps_error *e)
{
	struct ctx *c = arg;

	if (c->skipped++ < MAX_SKIPPED_SHOWN)
		ps_warn(e);
}

/*
 * Folded lines into the tree (several inputs add up, as flamegraph.pl reads them); a
 * differential input ("STACK BEFORE AFTER") puts its BEFORE counts in c->fold_before,
 * unless --diff gave the two sides as two inputs.
 */
static int read_folded(struct ctx *c, const char *path, struct ps_error *err)
{
	FILE *fp = strcmp(path, "-") == 0 ? stdin : fopen(path, "r");
	const char *name = strcmp(path, "-") == 0 ? "<stdin>" : path;
	struct ps_folded_opts fo = { .skipped = folded_skipped, .arg = c };
	struct ps_folded_stats st;
	int rc;

	if (!fp)
		return ps_error__sys(err, PS_ESYS, path, "open");
	if (!c->o->diff) {
		if (!c->fold_before) {
			c->fold_before = ps_flame__new(0, err);
			if (!c->fold_before)
				return -1;
			ps_flame__set_mode(c->fold_before, c->o->mode);
		}
		fo.before = c->fold_before;
	}
	rc = ps_flame__read_folded(c->tree, fp, name, &fo, &st, err);
	if (fp != stdin)
		fclose(fp);
	if (rc)
		return rc;
	if (!st.lines)
		return ps_error__set(err, PS_ECORRUPT, name, PS_NO_OFFSET,
		                     "no folded stack lines ('a;b;c COUNT')%s",
		                     st.skipped ? ", only malformed ones" : ": an empty input");
	if (st.differential && !c->differential)
		c->differential = name;
	else if (!st.differential && !c->plain)
		c->plain = name;
	if (c->differential && c->plain)
		return ps_error__set(err, PS_ECORRUPT, c->differential, PS_NO_OFFSET,
		                     "differential lines ('STACK BEFORE AFTER'), but %s has lines "
		                     "of one count: give them apart",
		                     c->plain);
	return 0;
}

/* ---- stream input ---- */

/* the kind of each frame of @smp's callchain, innermost first, as its context markers say */
static size_t chain_kinds(const struct ps_sample *smp, enum ps_frame_kind *out, size_t max)
{
	enum ps_frame_kind kind = PS_FRAME_USER;
	size_t n = 0;
	uint64_t i;

	if (max > PS_SYMBOLS_MAX_STACK)
		max = PS_SYMBOLS_MAX_STACK;
	for (i = 0; i < smp->nr_callchain && n < max; i++) {
		uint64_t ip = ps_sample__u64(smp, smp->callchain, i);

		if (ip < (uint64_t)PERF_CONTEXT_MAX)
			out[n++] = kind;
		else if (ip == (uint64_t)PERF_CONTEXT_KERNEL)
			kind = PS_FRAME_KERNEL;
		else if (ip == (uint64_t)PERF_CONTEXT_USER)
			kind = PS_FRAME_USER;
		else if (ip != (uint64_t)PERF_CONTEXT_HV)
			return 0;
	}
	return n;
}

/*
 * One sample's stack as perf's stackcollapse folds it (the symbol module's
 * ps_symbols__fold(): the comm, then the frames from the outermost caller in), split into
 * frames with their kinds; --by pid roots it at comm-pid.
 */
static int fold_sample(struct ctx *c, const struct ps_sample *smp, uint16_t misc, size_t *np,
                       struct ps_error *err)
{
	char unnamed[16];
	const char *comm = (smp->type & PERF_SAMPLE_TID) ?
	                           ps_session__comm_text(c->s, smp->tid, unnamed, sizeof(unnamed)) :
	                           NULL;
	char *p, *end, *semi;
	size_t n = 0, m, i;

	if (ps_symbols__fold(c->sym, smp, misc, comm, &c->fb, err) < 0)
		return -1;
	p = c->fb.buf;
	end = p + c->fb.len;
	while (n < PS_FLAME_MAX_DEPTH) {
		semi = memchr(p, ';', (size_t)(end - p));
		c->names[n] = p;
		c->lens[n] = (size_t)((semi ? semi : end) - p);
		c->kinds[n++] = PS_FRAME_USER;
		if (!semi)
			break;
		p = semi + 1;
	}
	c->kinds[0] = PS_FRAME_ROOT;
	if (c->o->by_pid) {
		snprintf(c->root, sizeof(c->root), "%.*s-%" PRIu32,
		         (int)(c->lens[0] < 200 ? c->lens[0] : 200), c->names[0], smp->pid);
		c->names[0] = c->root;
		c->lens[0] = strlen(c->root);
	}
	/* kinds: the callchain's context markers, frame for frame, else the sample's mode */
	if ((smp->type & PERF_SAMPLE_CALLCHAIN) && smp->nr_callchain) {
		m = chain_kinds(smp, c->chain, PS_SYMBOLS_MAX_STACK);
		/* past the chain's frames: a --call-graph dwarf sample's unwound user frames */
		if (m <= n - 1)
			for (i = 0; i < m; i++)
				c->kinds[n - 1 - i] = c->chain[i];
	} else if (n == 2 && (misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL) {
		c->kinds[1] = PS_FRAME_KERNEL;
	}
	for (i = 1; i < n; i++)
		if (c->lens[i] == 9 && memcmp(c->names[i], "[unknown]", 9) == 0)
			c->kinds[i] = PS_FRAME_UNKNOWN;
	*np = n;
	return 0;
}

static int close_interval(struct ctx *c, bool final, struct ps_error *err)
{
	char sub[160], late[64] = "";

	if (c->late)
		snprintf(late, sizeof(late), "; %" PRIu64 " late samples of earlier intervals",
		         c->late);
	snprintf(sub, sizeof(sub), "interval %" PRIu64 ": %.3f s of sample time%s%s",
	         c->intervals + 1, (double)c->o->interval_ns / 1e9, final ? " (last, partial)" : "",
	         late);
	c->late = 0;
	if (write_graph(c, c->tree, NULL, c->intervals + 1, sub, err))
		return -1;
	c->intervals++;
	clock_gettime(CLOCK_MONOTONIC, &c->last_write);
	ps_flame__reset(c->tree);
	return 0;
}

static int advance_to(struct ctx *c, uint64_t t, struct ps_error *err)
{
	while (t >= c->end) {
		if (close_interval(c, false, err))
			return -1;
		c->start = c->end;
		c->end += c->o->interval_ns;
	}
	return 0;
}

/* an interval with no sample still closes after its length of wall-clock time */
static int idle_tick(struct ctx *c, struct ps_error *err)
{
	struct timespec now;
	uint64_t ms;

	if (!c->o->interval_ns || !c->have_start)
		return 0;
	clock_gettime(CLOCK_MONOTONIC, &now);
	ms = (uint64_t)(now.tv_sec - c->last_write.tv_sec) * 1000 +
	     (uint64_t)((now.tv_nsec - c->last_write.tv_nsec) / 1000000);
	if (ms * 1000000 < c->o->interval_ns)
		return 0;
	return advance_to(c, c->end, err);
}

static int handle(struct ctx *c, const struct ps_reader_event *ev, struct ps_error *err)
{
	const struct ps_sample *smp = &ev->smp;
	struct ps_sample view;
	uint64_t count = 1;
	size_t n;

	if (c->o->interval_ns && (smp->type & PERF_SAMPLE_TIME)) {
		if (!c->have_start) {
			c->have_start = true;
			c->start = smp->time;
			c->end = smp->time + c->o->interval_ns;
		}
		if (advance_to(c, smp->time, err))
			return -1;
		/* after the wall clock closed its interval: drawn here, and said so */
		if (smp->time < c->start)
			c->late++;
	}
	/* --off-cpu: the thread switched in, with the stack it left with, by its time off */
	if (c->o->off_cpu) {
		if (!ps_durations__off_cpu_sample(smp, &view))
			return 0;
		smp = &view;
		count = view.dur->v[PS_DUR_OFF_CPU];
		if (!count)
			return 0;
	}
	if (fold_sample(c, smp, ev->rec.misc, &n, err))
		return -1;
	if (ps_flame__add(c->tree, c->names, c->lens, c->kinds, n, count, err)) {
		err->input = ps_reader__name(c->rd);
		return -1;
	}
	return 0;
}

static int read_stream(struct ctx *c, const char *path, struct ps_error *err)
{
	struct ps_reader_opts ro = { 0 };
	struct ps_reader_event ev;
	int r;

	ro.path = path;
	ro.input_flags = PS_INPUT_DECOMPRESS | PS_INPUT_SKIP_AUX;
	ro.idle_ms = c->o->interval_ns ? IDLE_MS : 0;
	ro.symbols = true;
	ro.sym = &c->o->sym;
	ro.no_durations = !c->o->off_cpu; /* the only duration a flame graph reads */
	c->rd = ps_reader__open(&ro, err);
	if (!c->rd)
		return -1;
	c->s = ps_reader__session(c->rd);
	c->sym = ps_reader__symbols(c->rd);
	clock_gettime(CLOCK_MONOTONIC, &c->last_write);
	while ((r = ps_reader__next(c->rd, &ev, err)) > 0) {
		if (ev.kind == PS_READER_SAMPLE)
			r = handle(c, &ev, err);
		else if (ev.kind == PS_READER_HEADER && c->o->off_cpu)
			r = ps_durations__check(c->s, PS_DUR_OFF_CPU, err);
		else if (ev.kind == PS_READER_IDLE)
			r = idle_tick(c, err);
		else
			ps_show_event(&ev);
		if (r < 0)
			break;
	}
	if (r < 0 && err->input == ps_reader__name(c->rd)) /* it goes away with the input */
		err->input = strcmp(path, "-") == 0 ? "<stdin>" : path;
	ps_reader__close(c->rd);
	c->rd = NULL;
	c->s = NULL;
	c->sym = NULL;
	return r < 0 ? -1 : 0;
}

static int read_input(struct ctx *c, const char *path, struct ps_error *err)
{
	return c->o->folded ? read_folded(c, path, err) : read_stream(c, path, err);
}

/* every input into c->tree: the cap merged frames, or folded lines were left out: say so */
static int read_inputs(struct ctx *c, struct ps_error *err)
{
	const struct opts *o = c->o;
	int i, n = o->ninputs ? o->ninputs : 1, rc = 0;

	for (i = 0; i < n && !rc; i++)
		rc = read_input(c, o->inputs[i], err);
	if (c->skipped)
		ps_msg("%" PRIu64 " malformed line%s left out of the graph%s", c->skipped,
		       c->skipped == 1 ? "" : "s",
		       c->skipped > MAX_SKIPPED_SHOWN ? " (the first ones named above)" : "");
	if (ps_flame__merged(c->tree))
		ps_msg("more than %zu distinct frames: the narrowest %" PRIu64
		       " merged into their callers (their samples drawn as the callers' own)",
		       (size_t)PS_FLAME_MAX_FRAMES, ps_flame__merged(c->tree));
	return rc;
}

int main(int argc, char **argv)
{
	struct ps_error err = { 0 };
	struct ps_flame *before = NULL;
	struct ctx c = { 0 };
	struct opts o;
	int rc = 0, status;

	ps_progname = "pflame";
	ps_signals__init();
	parse_args(argc, argv, &o);
	c.o = &o;
	c.names = calloc(PS_FLAME_MAX_DEPTH, sizeof(*c.names));
	c.lens = calloc(PS_FLAME_MAX_DEPTH, sizeof(*c.lens));
	c.kinds = calloc(PS_FLAME_MAX_DEPTH, sizeof(*c.kinds));
	if (!c.names || !c.lens || !c.kinds)
		ps_die_nomem();
	c.tree = ps_flame__new(0, &err);
	if (!c.tree)
		ps_die(&err);
	ps_flame__set_mode(c.tree, o.mode);
	/* one graph: its file is checked and opened first (-i: one per interval, as written) */
	if (!o.interval_ns && o.output && strcmp(o.output, "-") != 0 && open_output(&c, 0, &err))
		ps_die(&err);
	if (o.diff) {
		rc = read_input(&c, o.inputs[0], &err);
		if (!rc) {
			before = c.tree;
			c.tree = ps_flame__new(0, &err);
			if (c.tree)
				ps_flame__set_mode(c.tree, o.mode);
			rc = c.tree ? read_input(&c, o.inputs[1], &err) : -1;
		}
	} else {
		rc = read_inputs(&c, &err);
		/* one differential input: drawn as --diff draws two */
		if (!rc && c.differential) {
			before = c.fold_before;
			c.fold_before = NULL;
		}
	}
	/* what was read before an error is still drawn, but the exit status says it */
	if (c.tree && err.code != PS_EPIPE && err.code != PS_EWRITE &&
	    (!err.code || ps_flame__total(c.tree)) && (!o.diff || !rc || before)) {
		struct ps_error werr = { 0 };

		if (o.interval_ns ?
		            (c.have_start || !c.intervals) && close_interval(&c, true, &werr) :
		            write_graph(&c, c.tree, before, 0, NULL, &werr)) {
			if (!err.code)
				err = werr;
		}
	}
	/* nothing was drawn: the old file stays as it was */
	ps_outfile__close(c.of, false, false, NULL);
	/* standard output failed already, and that is said once (or not at all: EPIPE) */
	if ((err.code == PS_EWRITE || err.code == PS_EPIPE) && !c.name)
		fclose(stdout);
	else if (ps_finish_stdout() < 0 && !err.code)
		err.code = PS_EWRITE;
	status = ps_finish(&err); /* before what it names is freed */
	ps_flame__delete(c.tree);
	ps_flame__delete(before);
	ps_flame__delete(c.fold_before);
	free(c.names);
	free(c.lens);
	free(c.kinds);
	free(c.fb.buf);
	free(c.name);
	return status;
}
