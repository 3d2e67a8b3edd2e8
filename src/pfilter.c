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
#include "lib/files.h"
#include "lib/filter.h"
#include "lib/input.h"
#include "lib/opts.h"
#include "lib/order.h"
#include "lib/output.h"
#include "lib/progress.h"
#include "lib/sample.h"
#include "lib/session.h"
#include "lib/signals.h"
#include "lib/symbols.h"

static const char usage_text[] = "usage: pfilter [-cfqv] [--explain] [--only-samples] "
                                 "[--start time] [--stop time] [--symfs dir] [--kallsyms file] "
                                 "[-i file] [-o file] "
                                 "[expression ...]\n";

/* how long an idle input may keep samples waiting for their time order */
#define IDLE_MS 30
/* bytes of records the arrival queue may hold before the time order is forced */
#define QUEUE_CAP (64u << 20)
/* a record this large that must wait is taken over from the input, not copied */
#define DETACH_MIN (1u << 20)

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
	struct ps_symbols_opts sym; /* --symfs, --kallsyms */
	int nexpr;                  /* operands, joined with "and" */
	const char *const *expr;
};

static const struct ps_opt options[] = {
	PS_OPT("count", 'c', PS_ARG_NONE, NULL,
	       "print the number of matching samples, not a stream"),
	PS_OPT("explain", OPT_EXPLAIN, PS_ARG_NONE, NULL,
	       "print the parsed expression and the part the kernel\n"
	       "could evaluate, without reading a stream"),
	PS_OPT_FORCE_ROW,
	PS_OPT("input", 'i', PS_ARG_REQUIRED, "FILE", "read FILE instead of standard input"),
	PS_OPT("keep-sideband", OPT_KEEP_SIDEBAND, PS_ARG_NONE, NULL,
	       "pass side-band records (the default)"),
	PS_OPT_OUTPUT_ROW,
	PS_OPT("only-samples", OPT_ONLY_SAMPLES, PS_ARG_NONE, NULL,
	       "drop side-band records too (COMM, MMAP...)"),
	PS_OPT_QUIET_ROW,
	PS_OPT("start", OPT_START, PS_ARG_REQUIRED, "TIME",
	       "drop samples before TIME (ns, 1.5s, 2m, or +100ms\n"
	       "after the first sample)"),
	PS_OPT("stop", OPT_STOP, PS_ARG_REQUIRED, "TIME", "drop samples after TIME"),
	PS_OPT("invert", 'v', PS_ARG_NONE, NULL, "keep the samples that do not match"),
	PS_OPT_SYMBOL_FILES_ROWS,
	{ 0 },
};

static const struct ps_cmdline cmdline = {
	.usage = usage_text,
	.about = "Keep the samples of a perf event stream that match an expression; header\n"
	         "and side-band records pass unchanged.  Operands are joined with 'and'.\n",
	.opts = options,
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
	while ((c = ps_args__next(&a)) != -1) {
		switch (c) {
		case 'c':
			o->count = true;
			break;
		case 'i':
			o->input = a.arg;
			break;
		case 'v':
			o->invert = true;
			break;
		case OPT_EXPLAIN:
			o->explain = true;
			break;
		case OPT_KEEP_SIDEBAND:
			o->only_samples = false;
			break;
		case OPT_ONLY_SAMPLES:
			o->only_samples = true;
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

/* ---- the arrival queue: records waiting for the samples before them ---- */

enum state {
	KEEP,
	DROP,
	PENDING,
};

struct entry {
	const unsigned char *pinned; /* the record's bytes in the time-order view, or NULL */
	void *owned;                 /* or a block taken over from the input, the bytes at data */
	const unsigned char *data;
	size_t off; /* else its bytes in the queue's buffer */
	size_t len;
	uint64_t seq;
	enum state state;
};

/*
 * Entries in a ring (a power of two), their bytes one after another in one buffer that
 * is compacted or grown when its end is reached: no allocation per record.  A record the
 * time-order view holds is not copied again: its entry points at the view's copy, pinned
 * until the entry is written or dropped.  Nor is a large record (an AUXTRACE payload, which
 * the view is not given): the input's buffer that holds it is taken over.
 */
struct queue {
	struct entry *v;
	size_t cap, head, n;
	size_t bytes;
	unsigned char *buf;
	size_t bcap, bstart, bend;
};

static struct entry *q_at(struct queue *q, size_t i)
{
	return &q->v[(q->head + i) & (q->cap - 1)];
}

/* room for @len more bytes at the end of the buffer */
static int q_room(struct queue *q, size_t len)
{
	size_t live = q->bend - q->bstart, i, cap;
	unsigned char *nb;

	if (q->bcap - q->bend >= len)
		return 0;
	if (q->bstart >= q->bcap / 2 && q->bcap - live >= len) {
		memmove(q->buf, q->buf + q->bstart, live);
		for (i = 0; i < q->n; i++)
			if (!q_at(q, i)->data)
				q_at(q, i)->off -= q->bstart;
		q->bstart = 0;
		q->bend = live;
		return 0;
	}
	cap = q->bcap ? 2 * q->bcap : 1u << 20;
	while (cap - q->bend < len) {
		if (cap > SIZE_MAX / 4)
			return -1;
		cap *= 2;
	}
	nb = realloc(q->buf, cap);
	if (!nb)
		return -1;
	q->buf = nb;
	q->bcap = cap;
	return 0;
}

/* Queue @rec: its bytes are copied, unless @pinned gives the time-order view's copy, or
 * @owned is the block that holds them, the queue's from now on. */
static int q_push(struct queue *q, const struct ps_record *rec, const unsigned char *pinned,
                  void *owned, enum state st)
{
	struct entry *e;

	if (q->n == q->cap) {
		size_t cap = q->cap ? 2 * q->cap : 1024, i;
		struct entry *nv = malloc(cap * sizeof(*nv));

		if (!nv)
			return -1;
		for (i = 0; i < q->n; i++)
			nv[i] = *q_at(q, i);
		free(q->v);
		q->v = nv;
		q->cap = cap;
		q->head = 0;
	}
	e = &q->v[(q->head + q->n) & (q->cap - 1)];
	e->pinned = pinned;
	e->owned = owned;
	e->data = pinned ? pinned : owned ? rec->data : NULL;
	if (!e->data) {
		if (q_room(q, rec->len) < 0)
			return -1;
		e->off = q->bend;
		memcpy(q->buf + q->bend, rec->data, rec->len);
		q->bend += rec->len;
	}
	e->len = rec->len;
	e->seq = rec->seq;
	e->state = st;
	q->n++;
	q->bytes += rec->len;
	return 0;
}

/* Drop the first entry; @ord: the view that holds the pinned ones. */
static void q_pop(struct queue *q, struct ps_order *ord)
{
	struct entry *e = q_at(q, 0);

	q->bytes -= e->len;
	if (e->pinned)
		ps_order__unpin(ord, e->pinned);
	else if (e->owned)
		free(e->owned);
	else
		q->bstart = e->off + e->len;
	q->head = (q->head + 1) & (q->cap - 1);
	if (--q->n == 0)
		q->bstart = q->bend = 0;
}

/* The queued entry of arrival number @seq, or NULL. */
static struct entry *q_find(struct queue *q, uint64_t seq)
{
	size_t lo = 0, hi = q->n;
	uint64_t first;

	if (!q->n)
		return NULL;
	/* records are queued one after another: most often the entry is where its number says */
	first = q_at(q, 0)->seq;
	if (seq >= first && seq - first < q->n && q_at(q, (size_t)(seq - first))->seq == seq)
		return q_at(q, (size_t)(seq - first));
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		struct entry *e = q_at(q, mid);

		if (e->seq == seq)
			return e;
		if (e->seq < seq)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static void q_free(struct queue *q)
{
	size_t i;

	for (i = 0; i < q->n; i++)
		free(q_at(q, i)->owned);
	free(q->v);
	free(q->buf);
}

/* ---- the filter run ---- */

struct run {
	const struct opts *o;
	struct ps_filter *filter;
	struct ps_input *in;
	struct ps_session *s;
	struct ps_order *ord;    /* NULL when samples are decided as they are read */
	struct ps_symbols *syms; /* for sym, dso, stack; else NULL */
	struct ps_output *out;
	bool want_stream; /* not -c */
	bool started;     /* the filter is checked and the output begun */
	struct queue q;
	uint64_t stop_seq; /* records from this arrival number on are not written */
	bool have_first;
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

/* Keep @rec (@attr: its attr when known, else NULL)?  Bounds first, then the expression.
 * -1 on error (r->err). */
static int decide(struct run *r, const struct ps_record *rec, const struct ps_attr *attr)
{
	struct ps_sample smp;
	int m;

	if (ps_sample__parse_attr(r->s, rec, attr, &smp, ps_input__name(r->in), &r->err) < 0)
		return -1;
	if (r->o->start.set || r->o->stop.set) {
		if (!(smp.type & PERF_SAMPLE_TIME))
			return 0;
		if (!r->have_first) {
			r->have_first = true;
			r->start_ns = r->o->start.ns + (r->o->start.relative ? smp.time : 0);
			r->stop_ns = r->o->stop.ns + (r->o->stop.relative ? smp.time : 0);
		}
		if (r->o->start.set && smp.time < r->start_ns)
			return 0;
		if (r->o->stop.set && smp.time > r->stop_ns)
			return 0;
	}
	m = ps_filter__match(r->filter, r->s, &smp);
	if (m < 0)
		return ps_error__set(&r->err, PS_ENOMEM, NULL, PS_NO_OFFSET, "out of memory");
	if (m)
		r->matched++;
	return m;
}

/* Write (or drop) the queued records whose fate is known, in arrival order. */
static int write_ready(struct run *r)
{
	while (r->q.n) {
		struct entry *e = q_at(&r->q, 0);
		struct ps_record rec = { .data = e->data ? e->data : r->q.buf + e->off,
			                 .len = e->len };

		if (e->state == PENDING)
			break;
		/* after a write error the queue is emptied all the same */
		if (e->state == KEEP && e->seq < r->stop_seq && !r->oerr.code)
			ps_output__put(r->out, &rec, &r->oerr);
		q_pop(&r->q, r->ord);
	}
	return r->oerr.code ? -1 : 0;
}

/* Decide the samples the time-ordered view releases. */
static int drain_order(struct run *r)
{
	struct ps_record rec;
	int ret = 0;

	while (ps_order__pop(r->ord, &rec) > 0) {
		struct entry *e;
		int keep;

		if (r->syms)
			ps_symbols__process(r->syms, &rec);
		if (rec.type != PERF_RECORD_SAMPLE)
			continue;
		if (rec.seq >= r->stop_seq)
			continue;
		keep = decide(r, &rec, ps_order__attr(r->ord));
		if (keep < 0) {
			r->stop_seq = rec.seq;
			ret = -1;
			keep = 0;
		}
		e = r->want_stream ? q_find(&r->q, rec.seq) : NULL;
		if (e)
			e->state = keep ? KEEP : DROP;
	}
	if (ps_order__take_overflow_notice(r->ord))
		ps_msg("more than %u MiB of records held for time order: released early",
		       PS_ORDER_DEFAULT_CAP >> 20);
	for (const char *n; r->syms && (n = ps_symbols__take_notice(r->syms));)
		ps_msg("%s", n); /* a file refused, a table not kept: once each */
	return ret;
}

/*
 * The header is read: check the expression against the stream's events and begin writing.
 * When the input only went idle (@final false), a stream that declared no event yet or that
 * the check refuses may still be in the middle of its header: wait for more.
 */
static bool start(struct run *r, bool final)
{
	struct ps_filter_error fe;

	if (!final && ps_session__nr_attrs(r->s) == 0)
		return false;
	if (ps_filter__check(r->filter, r->s, &fe)) {
		if (!final && fe.text)
			return false;
		ps_output__close(r->out, NULL);
		ps_input__close(r->in);
		exit(filter_error(&fe)); /* until the reading driver (issue 22) returns it */
	}
	r->started = true;
	if (!r->want_stream)
		return true;
	if (!r->out) {
		r->out = ps_output__open(r->o->output, r->o->force, &r->oerr);
		if (!r->out)
			return true;
	}
	if (ps_output__begin(r->out, ps_input__swapped(r->in), &r->oerr) == 0)
		write_ready(r);
	return true;
}

/* One record read after the header. */
static int handle(struct run *r, const struct ps_record *rec)
{
	enum ps_record_class cls = ps_record_type_class(rec->type);
	enum state st = KEEP;
	const unsigned char *pinned = NULL;
	void *owned = NULL;
	bool queue;

	if (rec->type == PERF_RECORD_SAMPLE) {
		if (r->ord) {
			st = PENDING;
		} else {
			int keep = decide(r, rec, NULL);

			if (keep < 0)
				return -1;
			st = keep ? KEEP : DROP;
		}
	} else if (r->o->only_samples && cls == PS_CLASS_SIDEBAND) {
		st = DROP;
	}
	/* written at once when nothing waits before it and its fate is known; else queued */
	queue = r->want_stream && (r->q.n || st == PENDING);
	/* an AUXTRACE record has no time and nothing to decide: the view is not given its
	 * payload (up to 256 MiB) to copy */
	if (r->ord && cls != PS_CLASS_HEADER && rec->type != PS_RECORD_AUXTRACE) {
		if (queue) {
			pinned = ps_order__push_pinned(r->ord, rec, &r->err);
			if (!pinned)
				return -1;
		} else if (ps_order__push(r->ord, rec, &r->err) < 0) {
			return -1;
		}
	}
	if (r->syms && rec->type == PS_RECORD_HEADER_BUILD_ID)
		ps_symbols__process(r->syms, rec); /* which files name the samples */
	if (r->want_stream) {
		if (!queue) {
			if (st == KEEP && ps_output__put(r->out, rec, &r->oerr) < 0)
				return -1;
		} else {
			/* a large record waits where the input read it: taken over, not copied */
			if (!pinned && rec->len >= DETACH_MIN)
				owned = ps_input__detach(r->in, rec);
			if (q_push(&r->q, rec, pinned, owned, st) < 0) {
				if (pinned)
					ps_order__unpin(r->ord, pinned);
				free(owned);
				return ps_error__set(&r->err, PS_ENOMEM, NULL, PS_NO_OFFSET,
				                     "out of memory");
			}
		}
	}
	if (r->ord) {
		/* most records wait for their round: nothing to decide then */
		if (ps_order__ready(r->ord) && drain_order(r) < 0)
			return -1;
		if (r->q.bytes > QUEUE_CAP) {
			ps_order__flush_all(r->ord);
			if (drain_order(r) < 0)
				return -1;
		}
	}
	return r->want_stream ? write_ready(r) : 0;
}

/* Make everything waiting decidable and write it: at the end, or when the input idles. */
static void release_all(struct run *r, bool end)
{
	if (r->ord) {
		if (end)
			ps_order__end(r->ord);
		else
			ps_order__flush_all(r->ord);
		/* an undecodable sample stops the writing at it; r->err says where */
		drain_order(r);
	}
	if (r->want_stream && r->out)
		write_ready(r);
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
	struct ps_progress *prog = NULL;
	uint64_t nr_samples = 0;
	const char *line;
	bool bad_count;
	struct run r = { 0 };
	struct ps_record rec;
	struct opts o;
	int ret = 0, status;

	ps_progname = "pfilter";
	ps_signals__init();
	parse_args(argc, argv, &o);
	r.o = &o;
	r.stop_seq = UINT64_MAX;
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
	r.in = ps_input__open(o.input, PS_INPUT_DECOMPRESS, &r.err);
	if (!r.in) {
		ps_output__close(r.out, &spare);
		ps_die(&r.err);
	}
	r.s = ps_input__session(r.in);
	ps_input__set_wait_hook(r.in, wait_hook, &r);
	ps_input__set_idle(r.in, IDLE_MS);
	if (ps_filter__uses_symbols(r.filter)) {
		r.syms = ps_symbols__new(r.s, &o.sym, &r.err);
		if (!r.syms)
			goto out;
		ps_filter__set_symbols(r.filter, r.syms);
	}
	if (ps_filter__uses_comm(r.filter) || r.syms || o.start.relative || o.stop.relative) {
		r.ord = ps_order__new(r.s, 0);
		if (!r.ord) {
			ps_error__set(&r.err, PS_ENOMEM, NULL, PS_NO_OFFSET, "out of memory");
			goto out;
		}
	}

	/* the stream goes to standard output as it is read; a count only at the end */
	prog = o.quiet ? NULL : ps_progress__new(o.input, r.want_stream);
	while (!ps_stop && (ret = ps_input__next(r.in, &rec, &r.err)) != 0) {
		if (ret < 0)
			break;
		if (ret != PS_INPUT_IDLE) {
			nr_samples += rec.type == PERF_RECORD_SAMPLE;
			if ((line = ps_progress__update(prog, rec.offset, nr_samples)))
				ps_status("%s", line);
		}
		if (ret == PS_INPUT_IDLE) {
			/* nothing comes: decide what waits, and let it out */
			if (!r.started && !start(&r, false))
				continue;
			if (r.want_stream && !r.out)
				break;
			release_all(&r, false);
			if (r.out && r.started && ps_output__flush(r.out, &r.oerr) < 0)
				break;
			continue;
		}
		if (!r.started) {
			if (ps_record_type_class(rec.type) == PS_CLASS_HEADER) {
				if (r.want_stream && q_push(&r.q, &rec, NULL, NULL, KEEP) < 0) {
					ps_error__set(&r.err, PS_ENOMEM, NULL, PS_NO_OFFSET,
					              "out of memory");
					break;
				}
				continue;
			}
			start(&r, true);
			if (r.want_stream && !r.out)
				break;
		}
		if (handle(&r, &rec) < 0)
			break;
	}
	if (prog)
		ps_status(NULL);
	ps_progress__delete(prog);
	/* Deliver every complete record before saying what went wrong. */
	if (!r.started)
		start(&r, true);
	release_all(&r, true);
out:
	if (r.out)
		ps_output__close(r.out, r.oerr.code ? &spare : &r.oerr);
	ps_order__delete(r.ord);
	ps_symbols__delete(r.syms);
	q_free(&r.q);
	/* a reader that went away ends quietly, whatever else happened */
	status = r.oerr.code ? ps_exit_status(&r.oerr) : ps_exit_status(&r.err);
	if (r.oerr.code && r.oerr.code != PS_EPIPE)
		ps_warn(&r.oerr);
	if (r.err.code && r.oerr.code != PS_EPIPE) {
		if (!r.err.input && r.err.code != PS_ENOMEM)
			r.err.input = ps_input__name(r.in);
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
	ps_input__close(r.in);
	ps_filter__delete(r.filter);
	return status;
}
