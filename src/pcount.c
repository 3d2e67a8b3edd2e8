// SPDX-License-Identifier: GPL-2.0-only
/*
 * pcount - count the samples of a perf event stream by keys, optionally summing a field,
 * once at the end or per interval (a top-style live view).  See pcount(1).
 */
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <traceevent/event-parse.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/abi.h"
#include "lib/duration.h"
#include "lib/diag.h"
#include "lib/durations.h"
#include "lib/files.h"
#include "lib/filter.h"
#include "lib/input.h"
#include "lib/key.h"
#include "lib/opts.h"
#include "lib/reader.h"
#include "lib/sample.h"
#include "lib/sample_json.h"
#include "lib/session.h"
#include "lib/signals.h"
#include "lib/symbols.h"

#define IDLE_MS 100
#define REDRAW_MS 100 /* a live view redraws its table at most this often */
#define MAX_SUMS 8
#define MAX_MEAS 2       /* fields measured: --stats and --hist */
#define HIST_BUCKETS 65  /* below 0, 0, then [2^k, 2^(k+1)) for k from 0 to 62 */
#define HIST_BAR 40      /* the width of a histogram's bar */
#define MAX_ROWS 200000  /* distinct rows kept; further ones are counted as "(other)" */
#define MAX_OPEN 4096    /* intervals counted at once: the margin is at most this many */
#define MAX_EMPTY 100000 /* empty intervals printed in a row before the rest are skipped */
#define DEFAULT_LATE (3 * PS_NS_PER_SEC)
/* a first sample this near the reader's clock is the present of a stream recorded here */
#define LIVE_WINDOW (60 * PS_NS_PER_SEC)

/* A field measured per row: its statistics (--stats), its log2 histogram (--hist). */
struct meas {
	struct ps_key_sum *field;
	bool stats, hist;
};

struct opts {
	struct ps_key *keys;               /* -b */
	struct ps_key_sum *sums[MAX_SUMS]; /* -s */
	int nsums;
	struct meas meas[MAX_MEAS]; /* --stats, --hist */
	int nmeas;
	bool bucket_key[PS_KEY_MAX]; /* a FIELD/SIZE key: rows in bucket order */
	bool any_bucket;
	const char *where;          /* -w */
	uint64_t interval_ns;       /* -i, 0: one table at the end */
	uint64_t late_ns;           /* -l */
	uint64_t top;               /* -n, 0: all */
	bool json;                  /* -j */
	bool folded;                /* --folded: stacks as perf's stackcollapse writes them */
	bool off_cpu;               /* --off-cpu: weighted by ns off-CPU (sums[0] is off_cpu) */
	bool children;              /* --children: rows also count the samples below them */
	bool pace;                  /* --pace */
	bool quiet;                 /* -q: no progress line */
	struct ps_symbols_opts sym; /* --symfs, --kallsyms */
	const char *pairs[PS_DUR_MAX_PAIRS]; /* --pair */
	size_t npairs;
	const char *input;
};

/*
 * A measured field's numbers in one row: count, min, max, total, and the mean and the
 * sum of squared differences from it by Welford's update (no cancellation however large
 * the values); the histogram's buckets lo to lo + nh - 1, grown as values come.
 */
struct stats {
	uint64_t n;
	int64_t min, max, total; /* total saturates at the int64 range */
	double mean, m2;
	uint64_t *hist;
	uint8_t lo, nh;
};

struct row {
	char *key; /* the key values joined by PS_KEY_SEP */
	uint64_t hash;
	size_t len;
	uint64_t count;
	uint64_t errors;   /* with --stats, syscall exits that failed (ret < 0) */
	uint64_t children; /* --children: samples with the key on their stack */
	uint64_t seen;     /* --children: the last sample that counted in @children */
	int64_t sum[MAX_SUMS];
	struct stats *st; /* one per measured field, or NULL */
	struct row *next;
};

struct table {
	struct row **buckets;
	size_t nbuckets; /* a power of two */
	size_t nrows;
	uint64_t total, other;
	uint64_t lost; /* events LOST records said were lost in this interval */
	int64_t total_sum[MAX_SUMS];
	struct row *last; /* the row counted last: runs of one key skip the hash */
	/* keys of the thread alone (ps_key__thread_only()): @last is the row of this pid
	 * and tid while the session's thread names are as they were (ps_session__comm_gen()) */
	bool last_thread_ok;
	uint32_t last_pid, last_tid;
	uint64_t last_gen;
};

/*
 * With -i, intervals are [grid0 + k * I, grid0 + (k + 1) * I) of the stream's clock, k from
 * 0.  The ones not yet final are kept in a ring, interval k in open[k % nopen]; interval k
 * is final once the stream's clock has passed its end by the lateness margin.  The stream's
 * clock is its latest sample time, plus (unless the input is a regular file) the wall time
 * since that sample arrived; before any sample, on a pipe, the reader's own clock.
 */
struct ctx {
	const struct opts *o;
	struct ps_reader *rd;
	bool status;             /* a progress line is shown */
	bool thread_key;         /* ps_key__thread_only(), and no --folded */
	bool fast;               /* thread_key and nothing else per sample: count_fast() */
	struct ps_symbols *syms; /* the reader's, for sym, dso, --folded; else NULL */
	struct ps_fold_buf fold;
	bool overhead; /* the table shows perf's OVERHEAD column (a key is sym, dso or ip) */
	uint64_t seq;  /* --children: samples counted, numbering them for row->seen */
	struct ps_session *s;
	struct ps_filter *where;
	struct table *whole; /* without -i */
	struct table **open;
	size_t nopen;
	size_t ntables;   /* tables in open[] */
	uint64_t first;   /* the oldest interval not final */
	uint64_t printed; /* tables printed */
	bool have_grid;
	bool grid_guess; /* grid0 is the reader's clock: no sample has come yet */
	uint64_t grid0;
	bool have_tmax;
	uint64_t tmax;      /* the latest sample time */
	uint64_t tmax_wall; /* when it arrived, CLOCK_MONOTONIC ns */
	bool regular;       /* the input is a regular file */
	bool paced;         /* --pace: samples are handled at the speed they were recorded */
	uint64_t pace_t0, pace_w0;
	bool have_sample;
	bool tty;       /* standard output is a terminal */
	bool live_view; /* text to a terminal from a live stream: draw at once, redraw */
	uint64_t shown; /* live view: the interval on screen + 1, 0 for none */
	bool dirty;     /* live view: the table on screen has changed */
	uint64_t last_draw;
	uint64_t late, late_total; /* samples that came after their interval was final */
	uint64_t lost_chunks, lost_samples;
	uint64_t lost_printed;               /* LOST events of the intervals final */
	uint64_t show_lost, show_lost_total; /* what the table being printed shows */
	uint64_t lost_pending;               /* LOST events before the first interval began */
	size_t nrows_all;                    /* rows of all the tables kept */
	struct ps_json_clock wall;
	bool wall_known;
	bool ns[MAX_MEAS]; /* a measured field's values are nanoseconds: shown with a unit */
	/* --stats in a stream of syscall exits: the calls that failed, as perf trace -s */
	bool errcol;
	struct ps_key_sum *ret; /* "ret" */
	bool failed;            /* the sample being counted is a failed call */
	bool out_failed;        /* a write to standard output failed */
};

static volatile sig_atomic_t resized;

enum {
	OPT_FOLDED = PS_OPT_LONG,
	OPT_OFF_CPU,
	OPT_PACE,
	OPT_STATS,
	OPT_HIST,
	OPT_CHILDREN,
};

static const struct ps_cmdline cmdline = {
	.usage = "usage: pcount [-jq] [-b keys] [-i duration] [-l duration] [-n top] [--pace] [-s field] [--stats field] [--hist field] [-w expression] [--children] [--folded [--off-cpu]] [--pair spec] [--symfs dir] [--kallsyms file] [file]\n",
	.about = "Count the samples of a perf event stream by keys.\n",
	.opts = {
		PS_OPT("by", 'b', PS_ARG_REQUIRED, "KEYS",
		       "comma-separated keys: event (default), comm, pid,\n"
		       "tid, cpu, syscall, errno, sym, dso, ip, a tracepoint\n"
		       "field, FIELD/SIZE; checked against the stream"),
		PS_OPT_FLAG("children", OPT_CHILDREN,
		            "with sym, dso or ip keys: also count every sample\n"
		            "a row is on the call chain of (perf's Children)",
		            struct opts, children),
		PS_OPT_FLAG("folded", OPT_FOLDED,
		            "count folded stacks (comm;outer;...;inner COUNT),\n"
		            "as perf's stackcollapse writes them",
		            struct opts, folded),
		PS_OPT("hist", OPT_HIST, PS_ARG_REQUIRED, "[NAME=]FIELD",
		       "a log2 histogram of FIELD under each row"),
		PS_OPT("interval", 'i', PS_ARG_REQUIRED, "TIME",
		       "print a table every TIME of sample time\n"
		       "(5, 5s, 500ms, 2m; 1ms to 24h)"),
		PS_OPT_FLAG("json", 'j', "JSON output (one document per table)", struct opts, json),
		PS_OPT_FLAG("off-cpu", OPT_OFF_CPU,
		            "with --folded: the stacks threads left the cpu with,\n"
		            "weighted by nanoseconds off-CPU (sched_switch)",
		            struct opts, off_cpu),
		PS_OPT("late", 'l', PS_ARG_REQUIRED, "TIME",
		       "with -i: how late a sample may arrive and still\n"
		       "count in its interval (default 3s)"),
		PS_OPT("top", 'n', PS_ARG_REQUIRED, "N", "print the N largest rows only"),
		PS_OPT_FLAG("pace", OPT_PACE, "with -i: replay at the speed of the recording", struct opts,
		            pace),
		PS_OPT_QUIET_ROW,
		PS_OPT("stats", OPT_STATS, PS_ARG_REQUIRED, "[NAME=]FIELD",
		       "count, min, avg, max, total, stddev of FIELD;\n"
		       "rows sort by the total"),
		PS_OPT("sum", 's', PS_ARG_REQUIRED, "[NAME=]FIELD",
		       "add up FIELD (or count EVENT) in a column;\n"
		       "repeatable; rows sort by the first sum"),
		PS_OPT("where", 'w', PS_ARG_REQUIRED, "EXPR",
		       "count only samples that match EXPR (pfilter(1))"),
		PS_OPT_PAIR_ROW,
		PS_OPT_SYMBOL_FILES_ROWS,
	},
};

static void parse_keys(const char *list, struct opts *o)
{
	struct ps_error err = { 0 };

	o->keys = ps_key__parse(list, &err);
	if (!o->keys)
		ps_usage_error("--by: %s", err.detail);
}

/* [NAME=]FIELD, [NAME=]system:event.FIELD, or [NAME=]system:event (a count) */
static void parse_sum(const char *arg, struct opts *o)
{
	struct ps_error err = { 0 };

	if (o->nsums == MAX_SUMS)
		ps_usage_error("--sum: at most %d", MAX_SUMS);
	o->sums[o->nsums] = ps_key_sum__parse(arg, &err);
	if (!o->sums[o->nsums])
		ps_usage_error("--sum: %s", err.detail);
	o->nsums++;
}

/* --stats or --hist FIELD: one field each; both on the same field share one */
static void parse_meas(const char *arg, bool hist, struct opts *o)
{
	const char *opt = hist ? "--hist" : "--stats";
	struct ps_error err = { 0 };
	struct ps_key_sum *f;
	const char *name;
	int i;

	for (i = 0; i < o->nmeas; i++) {
		if (hist ? o->meas[i].hist : o->meas[i].stats)
			ps_usage_error("%s: given twice", opt);
		if (strcmp(ps_key_sum__name(o->meas[i].field), arg) == 0) {
			*(hist ? &o->meas[i].hist : &o->meas[i].stats) = true;
			return;
		}
	}
	f = ps_key_sum__parse(arg, &err);
	if (!f)
		ps_usage_error("%s: %s", opt, err.detail);
	name = ps_key_sum__name(f);
	if (!ps_key_sum__field(f))
		ps_usage_error("%s: '%s' names an event, not a field", opt, arg);
	if (strcmp(name, "count") == 0 || strcmp(name, "sum") == 0)
		ps_usage_error("%s: '%s' would hide the row's %s: name it (%s=%s)", opt, name, name,
		               hist ? "h" : "s", arg);
	o->meas[o->nmeas].field = f;
	*(hist ? &o->meas[o->nmeas].hist : &o->meas[o->nmeas].stats) = true;
	o->nmeas++;
}

static void parse_args(int argc, char **argv, struct opts *o)
{
	struct ps_common_opts co;
	struct ps_args a;
	const char *by = "event";
	int c;

	memset(o, 0, sizeof(*o));
	o->late_ns = DEFAULT_LATE;
	ps_args__init(&a, &cmdline, argc, argv, &co);
	a.flags = o;
	while ((c = ps_args__next(&a)) != -1) {
		switch (c) {
		case 'b':
			by = a.arg;
			break;
		case 'i':
			o->interval_ns = ps_parse_duration(a.arg, PS_NS_PER_SEC / 1000,
			                                   86400 * PS_NS_PER_SEC, "--interval");
			break;
		case 'l':
			o->late_ns = ps_parse_duration(a.arg, 0, 3600 * PS_NS_PER_SEC, "--late");
			break;
		case 'n':
			o->top = ps_parse_u64(a.arg, 1, UINT64_MAX, "--top");
			break;
		case 's':
			parse_sum(a.arg, o);
			break;
		case 'w':
			o->where = a.arg;
			break;
		case OPT_STATS:
		case OPT_HIST:
			parse_meas(a.arg, c == OPT_HIST, o);
			break;
		}
	}
	o->quiet = co.quiet;
	o->sym = co.sym;
	memcpy(o->pairs, co.pairs, sizeof(o->pairs));
	o->npairs = co.npairs;
	parse_keys(by, o);
	if (o->folded && (o->json || o->nsums || o->nmeas))
		ps_usage_error("--folded counts stacks: no --json, --sum, --stats or --hist");
	if (o->off_cpu && !o->folded)
		ps_usage_error("--off-cpu weighs folded stacks: it needs --folded");
	if (o->off_cpu)
		parse_sum("off_cpu", o); /* the weight, and the check that the stream has it */
	for (size_t i = 0; i < ps_key__nr(o->keys); i++)
		o->any_bucket |= o->bucket_key[i] = strchr(ps_key__name(o->keys, i), '/') != NULL;
	/* the values are on the exits: a call is counted once, at its exit */
	ps_key__set_exits(o->keys, o->nmeas > 0);
	if (o->children && (o->folded || o->nsums || o->nmeas || !ps_key__by_frame(o->keys)))
		ps_usage_error(
		        "--children counts the functions of call chains: a sym, dso or ip key, no --folded, --sum, --stats or --hist");
	if (argc - a.optind > 1)
		ps_usage_error("one input at most");
	o->input = a.optind < argc ? argv[a.optind] : "-";
}
/* ---- the table ---- */

static uint64_t hash(const char *s, size_t len)
{
	uint64_t h = 1469598103934665603ULL;
	size_t i;

	for (i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
	return h;
}

static struct table *table_new(void)
{
	struct table *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->nbuckets = 64;
	t->buckets = calloc(t->nbuckets, sizeof(*t->buckets));
	if (!t->buckets) {
		free(t);
		return NULL;
	}
	return t;
}

/* Twice the buckets when the chains grow long; up to 65536 buckets. */
static void table_grow(struct table *t)
{
	size_t n = t->nbuckets * 2, b;
	struct row **nb;

	if (t->nrows < t->nbuckets * 2 || t->nbuckets >= 65536)
		return;
	nb = calloc(n, sizeof(*nb));
	if (!nb)
		return; /* longer chains, still correct */
	for (b = 0; b < t->nbuckets; b++) {
		while (t->buckets[b]) {
			struct row *r = t->buckets[b];
			size_t h = r->hash & (n - 1);

			t->buckets[b] = r->next;
			r->next = nb[h];
			nb[h] = r;
		}
	}
	free(t->buckets);
	t->buckets = nb;
	t->nbuckets = n;
}

/* ---- statistics ---- */

/* The log2 bucket of @v: 0 below 0, 1 for 0, 2 + k for [2^k, 2^(k+1)). */
static int hist_index(int64_t v)
{
	if (v <= 0)
		return v < 0 ? 0 : 1;
	return 2 + 63 - __builtin_clzll((uint64_t)v);
}

/* Add @v to @st (and to its histogram with @hist); -1 when out of memory. */
static int stats_add(struct stats *st, int64_t v, bool hist)
{
	double d = (double)v - st->mean;
	int i;

	if (!st->n++) {
		st->min = st->max = v;
	} else {
		st->min = v < st->min ? v : st->min;
		st->max = v > st->max ? v : st->max;
	}
	if (__builtin_add_overflow(st->total, v, &st->total))
		st->total = v < 0 ? INT64_MIN : INT64_MAX;
	st->mean += d / (double)st->n;
	st->m2 += d * ((double)v - st->mean);
	if (!hist)
		return 0;
	i = hist_index(v);
	if (!st->nh || i < st->lo || i >= st->lo + st->nh) {
		int lo = st->nh && st->lo < i ? st->lo : i;
		int hi = st->nh && st->lo + st->nh - 1 > i ? st->lo + st->nh - 1 : i;
		uint64_t *h = calloc((size_t)(hi - lo + 1), sizeof(*h));

		if (!h)
			return -1;
		if (st->nh)
			memcpy(h + (st->lo - lo), st->hist, st->nh * sizeof(*h));
		free(st->hist);
		st->hist = h;
		st->lo = (uint8_t)lo;
		st->nh = (uint8_t)(hi - lo + 1);
	}
	st->hist[i - st->lo]++;
	return 0;
}

static double stats_stddev(const struct stats *st)
{
	return st->n ? sqrt(st->m2 / (double)st->n) : 0;
}

/* The measured fields' values @mv into @r; -1 when out of memory. */
static int add_stats(struct ctx *c, struct row *r, const int64_t *mv)
{
	int i;

	for (i = 0; i < c->o->nmeas; i++)
		if (stats_add(&r->st[i], mv[i], c->o->meas[i].hist))
			return -1;
	return 0;
}

/* The errors and --stats of a sample counted in @r; a call only when there are stats. */
static inline int measure(struct ctx *c, struct row *r, const int64_t *mv)
{
	r->errors += c->failed;
	return c->o->nmeas ? add_stats(c, r, mv) : 0;
}

static void row_free(struct ctx *c, struct row *r)
{
	int i;

	if (r->st)
		for (i = 0; i < c->o->nmeas; i++)
			free(r->st[i].hist);
	free(r->st);
	free(r->key);
	free(r);
}

/* Count a sample in @r, a row of @t; -1 when out of memory. */
static int count_in(struct ctx *c, struct table *t, struct row *r, const int64_t *sum,
                    const int64_t *mv)
{
	int nsums = c->o->nsums, i;

	t->total++;
	r->count++;
	for (i = 0; i < nsums; i++) {
		t->total_sum[i] += sum[i];
		r->sum[i] += sum[i];
	}
	return measure(c, r, mv);
}

/* Count a sample under @key, @len bytes long.  Return: 1 when it went into a row (then
 * t->last), 0 when into "other" (too many rows), -1 when out of memory. */
static int add_row(struct ctx *c, struct table *t, const char *key, size_t len, const int64_t *sum,
                   const int64_t *mv)
{
	int nsums = c->o->nsums, i;
	uint64_t hv = 0;
	size_t h = 0;
	struct row *r = t->last;

	t->last_thread_ok = false;
	t->total++;
	for (i = 0; i < nsums; i++)
		t->total_sum[i] += sum[i];
	if (!r || r->len != len || memcmp(r->key, key, len) != 0) {
		hv = hash(key, len);
		h = hv & (t->nbuckets - 1);
		for (r = t->buckets[h]; r; r = r->next)
			if (r->hash == hv && r->len == len && memcmp(r->key, key, len) == 0)
				break;
	}
	if (r) {
		r->count++;
		for (i = 0; i < nsums; i++)
			r->sum[i] += sum[i];
		t->last = r;
		return measure(c, r, mv) ? -1 : 1;
	}
	if (c->nrows_all >= MAX_ROWS) {
		t->other++;
		return 0;
	}
	r = calloc(1, sizeof(*r));
	if (!r || !(r->key = strdup(key)) ||
	    (c->o->nmeas && !(r->st = calloc((size_t)c->o->nmeas, sizeof(*r->st))))) {
		if (r)
			free(r->key);
		free(r);
		return -1;
	}
	r->hash = hv;
	r->len = len;
	r->count = 1;
	r->children = r->seen = 0;
	memset(r->sum, 0, sizeof(r->sum));
	for (i = 0; i < nsums; i++)
		r->sum[i] = sum[i];
	r->next = t->buckets[h];
	t->buckets[h] = r;
	t->last = r;
	t->nrows++;
	c->nrows_all++;
	table_grow(t);
	return measure(c, r, mv) ? -1 : 1;
}

/* --children: the sample numbered c->seq has @key on its stack; once per sample and row.
 * Return: 0, or -1 when out of memory (a row past MAX_ROWS is not counted). */
static int add_child(struct ctx *c, struct table *t, const char *key, size_t len)
{
	uint64_t hv = hash(key, len);
	size_t h = hv & (t->nbuckets - 1);
	struct row *r;

	for (r = t->buckets[h]; r; r = r->next)
		if (r->hash == hv && r->len == len && memcmp(r->key, key, len) == 0)
			break;
	if (!r) {
		if (c->nrows_all >= MAX_ROWS)
			return 0;
		r = calloc(1, sizeof(*r));
		if (!r || !(r->key = strdup(key))) {
			free(r);
			return -1;
		}
		r->hash = hv;
		r->len = len;
		r->next = t->buckets[h];
		t->buckets[h] = r;
		t->nrows++;
		c->nrows_all++;
		table_grow(t);
	}
	if (r->seen != c->seq) {
		r->seen = c->seq;
		r->children++;
	}
	return 0;
}

/* --children: every key of the sample's call chain (its own included) counted once. */
static int count_children(struct ctx *c, struct table *t, const struct ps_sample *smp,
                          const char *self, size_t self_len)
{
	struct ps_frame frames[PS_SYMBOLS_MAX_STACK];
	char key[PS_KEY_TEXT_MAX];
	size_t n, i;
	int len;

	c->seq++;
	if (add_child(c, t, self, self_len) < 0)
		return -1;
	n = c->syms ? ps_symbols__frames(c->syms, smp, frames, ARRAY_SIZE(frames)) : 0;
	for (i = 0; i < n; i++) {
		len = ps_key__text_frame(c->o->keys, c->s, smp, &frames[i], key, sizeof(key));
		if (len >= 0 && add_child(c, t, key, (size_t)len) < 0)
			return -1;
	}
	return 0;
}

static void table_free(struct ctx *c, struct table *t)
{
	size_t b;

	if (!t)
		return;
	for (b = 0; b < t->nbuckets; b++) {
		while (t->buckets[b]) {
			struct row *r = t->buckets[b];

			t->buckets[b] = r->next;
			row_free(c, r);
		}
	}
	c->nrows_all -= t->nrows;
	free(t->buckets);
	free(t);
}

static bool by_sum, by_children;
static int by_meas = -1;           /* sort by this measured field's total */
static const struct opts *by_keys; /* the rows in key order, buckets by their value */

static int cmp_rows(const void *a, const void *b)
{
	const struct row *x = *(const struct row *const *)a, *y = *(const struct row *const *)b;

	if (by_children && x->children != y->children)
		return x->children < y->children ? 1 : -1;
	if (by_sum && x->sum[0] != y->sum[0])
		return x->sum[0] < y->sum[0] ? 1 : -1;
	if (!by_sum && by_meas >= 0 && x->st[by_meas].total != y->st[by_meas].total)
		return x->st[by_meas].total < y->st[by_meas].total ? 1 : -1;
	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return strcmp(x->key, y->key);
}

/* Key by key: a bucket (FIELD/SIZE) by its low end, other values as text. */
static int cmp_key_order(const void *a, const void *b)
{
	const struct row *x = *(const struct row *const *)a, *y = *(const struct row *const *)b;
	char bx[PS_KEY_VALUE_MAX], by[PS_KEY_VALUE_MAX];
	size_t i, n = ps_key__nr(by_keys->keys);
	int r;

	for (i = 0; i < n; i++) {
		ps_key__column(x->key, i, bx, sizeof(bx));
		ps_key__column(y->key, i, by, sizeof(by));
		if (by_keys->bucket_key[i]) {
			long long lx = strtoll(bx, NULL, 10), ly = strtoll(by, NULL, 10);

			if (lx != ly)
				return lx < ly ? -1 : 1;
		} else if ((r = strcmp(bx, by)) != 0) {
			return r;
		}
	}
	return 0;
}

/* The rows to print, largest first (by count, first sum, or measured total); with
 * buckets among the keys, the first @shown of them (the largest) in bucket order. */
static struct row **sorted_rows(const struct ctx *c, const struct table *t, size_t shown)
{
	struct row **v = malloc((t->nrows ? t->nrows : 1) * sizeof(*v)), *r;
	size_t b, n = 0;
	int i;

	if (!v)
		return NULL;
	for (b = 0; b < t->nbuckets; b++)
		for (r = t->buckets[b]; r; r = r->next)
			v[n++] = r;
	by_sum = c->o->nsums > 0;
	by_meas = -1;
	for (i = 0; i < c->o->nmeas; i++)
		if (c->o->meas[i].stats) {
			by_meas = i;
			break;
		}
	by_children = c->o->children;
	qsort(v, n, sizeof(*v), cmp_rows);
	if (c->o->any_bucket && !c->o->folded) {
		by_keys = c->o;
		qsort(v, shown < n ? shown : n, sizeof(*v), cmp_key_order);
	}
	return v;
}

/* ---- time ---- */

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * PS_NS_PER_SEC + (uint64_t)ts.tv_nsec;
}

static uint64_t interval_start(const struct ctx *c, uint64_t k)
{
	return c->grid0 + k * c->o->interval_ns;
}

/* The stream's clock now; false when nothing tells it yet. */
static bool stream_now(const struct ctx *c, uint64_t *now)
{
	if (c->have_tmax) {
		*now = c->tmax + (c->regular && !c->paced ? 0 : mono_ns() - c->tmax_wall);
		return true;
	}
	if (c->grid_guess) {
		*now = mono_ns();
		return true;
	}
	return false;
}

/* The interval of stream time @t (the first for a time before the grid). */
static uint64_t interval_of(const struct ctx *c, uint64_t t)
{
	return t < c->grid0 ? 0 : (t - c->grid0) / c->o->interval_ns;
}

static struct table *slot(struct ctx *c, uint64_t k)
{
	struct table **t = &c->open[k % c->nopen];

	if (!*t && (*t = table_new()) != NULL)
		c->ntables++;
	return *t;
}

/* ---- printing ---- */

static void fmt_time(uint64_t t, char *buf, size_t len)
{
	snprintf(buf, len, "%" PRIu64 ".%06" PRIu64, t / 1000000000, t % 1000000000 / 1000);
}

/* " 12:34:56" (local time) when the stream maps its clock to the wall clock, else "". */
static void fmt_wall(const struct ctx *c, uint64_t t, char *buf, size_t len)
{
	int64_t wall = (int64_t)c->wall.tod_ns + ((int64_t)t - (int64_t)c->wall.clock_ns);
	time_t sec = (time_t)(wall / 1000000000);
	struct tm tm;

	buf[0] = 0;
	if (!c->wall_known)
		return;
	if (wall < 0)
		sec--;
	if (localtime_r(&sec, &tm))
		strftime(buf, len, " %H:%M:%S", &tm);
}

/* The terminal's size, or 0 x 0. */
static void term_size(unsigned int *rows, unsigned int *cols)
{
	struct winsize ws;

	*rows = *cols = 0;
	if (ioctl(1, TIOCGWINSZ, &ws) == 0) {
		*rows = ws.ws_row;
		*cols = ws.ws_col;
	}
}

/* One line of the table: cut to the terminal's width in a live view. */
static void put_line(unsigned int cols, const char *line)
{
	size_t n = strlen(line);

	while (n && line[n - 1] == ' ')
		n--;
	if (cols && n >= cols)
		n = cols - 1;
	printf("%.*s\n", (int)n, line);
}

/* Append to a line buffer, cut at its end. */
static void lineadd(char *line, size_t len, size_t *pos, const char *fmt, ...) PS_PRINTF(4, 5);

static void lineadd(char *line, size_t len, size_t *pos, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*pos >= len - 1)
		return;
	va_start(ap, fmt);
	n = vsnprintf(line + *pos, len - *pos, fmt, ap);
	va_end(ap);
	if (n > 0)
		*pos = *pos + (size_t)n < len - 1 ? *pos + (size_t)n : len - 1;
}

static uint64_t lost_total(const struct ctx *c)
{
	return c->lost_chunks > c->lost_samples ? c->lost_chunks : c->lost_samples;
}

/* The line over an interval's table: "[START, END) 12:34:56 N samples". */
static void interval_line(const struct ctx *c, const struct table *t, uint64_t k, bool final,
                          char *line, size_t len)
{
	char a[32], b[32], w[32];
	uint64_t start = interval_start(c, k);
	size_t pos = 0;

	fmt_time(start, a, sizeof(a));
	fmt_time(start + c->o->interval_ns, b, sizeof(b));
	fmt_wall(c, start, w, sizeof(w));
	lineadd(line, len, &pos, "[%s, %s)%s %" PRIu64 " sample%s%s", a, b, w, t->total,
	        t->total == 1 ? "" : "s", final ? " (last, partial)" : "");
}

/* A duration with a unit: "812 ns", "1.234 us", "56.789 ms", "3.000 s". */
static void fmt_ns(double ns, char *buf, size_t len)
{
	static const struct {
		double scale;
		const char *unit;
	} units[] = { { 1, "ns" }, { 1e3, "us" }, { 1e6, "ms" } };
	double a = fabs(ns);
	size_t i;

	if (a < 999.5) {
		snprintf(buf, len, "%.0f ns", ns);
		return;
	}
	for (i = 1; i < ARRAY_SIZE(units); i++)
		if (a / units[i].scale < 999.9995) {
			snprintf(buf, len, "%.3f %s", ns / units[i].scale, units[i].unit);
			return;
		}
	snprintf(buf, len, "%.3f s", ns / 1e9);
}

enum {
	ST_MIN,
	ST_AVG,
	ST_MAX,
	ST_TOTAL,
	ST_STDDEV,
	ST_NR
};
static const char *const st_titles[ST_NR] = { "MIN", "AVG", "MAX", "TOTAL", "STDDEV" };

/* Column @col of a row's statistics as the table shows it. */
static const char *fmt_stat(const struct stats *st, int col, bool ns, char *buf, size_t len)
{
	int64_t i = col == ST_MIN ? st->min : col == ST_MAX ? st->max : st->total;
	double d = col == ST_AVG ? st->mean : col == ST_STDDEV ? stats_stddev(st) : (double)i;

	if (ns)
		fmt_ns(d, buf, len);
	else if (col == ST_AVG || col == ST_STDDEV)
		snprintf(buf, len, "%.3f", d);
	else
		snprintf(buf, len, "%" PRId64, i);
	return buf;
}

/* 2^@e (0 to 63) as bpftrace writes a bucket's bound: 512, 1K, 2M, 8E */
static void fmt_pow2(int e, char *buf, size_t len)
{
	static const char sfx[] = "KMGTPE";
	int u = (e & 63) / 10;

	e &= 63;
	if (u)
		snprintf(buf, len, "%" PRIu64 "%c", (uint64_t)1 << (e - 10 * u), sfx[u - 1]);
	else
		snprintf(buf, len, "%" PRIu64, (uint64_t)1 << e);
}

/* Bucket @i's range: (..., 0), [0], [1], [2, 4), ..., [4E, 8E) */
static void hist_label(int i, char *buf, size_t len)
{
	char a[24], b[24];

	if (i < 3) {
		snprintf(buf, len, "%s", i == 0 ? "(..., 0)" : i == 1 ? "[0]" : "[1]");
		return;
	}
	fmt_pow2(i - 2, a, sizeof(a));
	fmt_pow2(i - 1, b, sizeof(b));
	snprintf(buf, len, "[%s, %s)", a, b);
}

/* The largest value in bucket @i: its "le" */
static int64_t hist_le(int i)
{
	return i == 0 ? -1 : i == 1 ? 0 : (int64_t)(((uint64_t)1 << (i - 1)) - 1);
}

/* The lines a row takes: its own, and under it each histogram with a title and a blank */
static size_t row_lines(const struct ctx *c, const struct row *r)
{
	size_t n = 1;
	int m;

	for (m = 0; m < c->o->nmeas; m++)
		if (c->o->meas[m].hist)
			n += 2 + r->st[m].nh;
	return n;
}

static void print_hist(const struct ctx *c, const struct row *r, int m, unsigned int cols)
{
	const struct stats *st = &r->st[m];
	char line[256], label[64];
	uint64_t most = 0;
	int i;

	snprintf(line, sizeof(line), "  %s%s:", ps_key_sum__name(c->o->meas[m].field),
	         c->ns[m] ? " (ns)" : "");
	put_line(cols, line);
	for (i = 0; i < st->nh; i++)
		most = st->hist[i] > most ? st->hist[i] : most;
	for (i = 0; i < st->nh; i++) {
		uint64_t n = st->hist[i];
		int bar = most ? (int)((n * HIST_BAR + most / 2) / most) : 0;
		char at[HIST_BAR + 1];

		if (n && !bar)
			bar = 1;
		memset(at, '@', (size_t)bar);
		at[bar] = 0;
		hist_label(st->lo + i, label, sizeof(label));
		snprintf(line, sizeof(line), "  %-20s %10" PRIu64 " |%-*s|", label, n, HIST_BAR,
		         at);
		put_line(cols, line);
	}
	put_line(cols, "");
}

/* @n of @total in percent, as perf's overhead columns show it */
static double percent(uint64_t n, uint64_t total)
{
	return total ? 100.0 * (double)n / (double)total : 0.0;
}

static int print_text(struct ctx *c, const struct table *t, uint64_t k, bool final)
{
	const struct opts *o = c->o;
	int nkeys = (int)ps_key__nr(o->keys);
	size_t width[PS_KEY_MAX], n = t->nrows, i, shown, pos, avail = SIZE_MAX;
	size_t stw[MAX_MEAS][ST_NR];
	struct row **rows;
	unsigned int trows = 0, tcols = 0, footer = 0;
	char buf[PS_KEY_TEXT_MAX], show[PS_KEY_SHOWN_MAX], line[4096], cell[64];
	int kk, j, m, col;

	shown = o->top && o->top < n ? o->top : n;
	rows = sorted_rows(c, t, shown);
	if (!rows)
		return -1;
	if (c->live_view) {
		term_size(&trows, &tcols);
		footer = (t->other != 0) + (c->show_lost_total != 0) + (c->late != 0);
		/* the interval line, the column titles and the footer stay on the screen */
		if (trows > 3 + footer)
			avail = trows - 3 - footer;
		else if (trows)
			avail = 0;
		shown = shown < avail ? shown : avail;
	}
	for (kk = 0; kk < nkeys; kk++) {
		width[kk] = strlen(ps_key__name(o->keys, (size_t)kk));
		for (i = 0; i < shown; i++) {
			size_t w = strlen(ps_key__shown(
			        ps_key__column(rows[i]->key, (size_t)kk, buf, sizeof(buf)), show,
			        sizeof(show)));

			if (w > width[kk])
				width[kk] = w;
		}
	}
	for (m = 0; m < o->nmeas; m++)
		for (col = 0; col < ST_NR; col++) {
			stw[m][col] = 10;
			for (i = 0; o->meas[m].stats && i < shown; i++) {
				size_t w = strlen(fmt_stat(&rows[i]->st[m], col, c->ns[m], cell,
				                           sizeof(cell)));

				stw[m][col] = w > stw[m][col] ? w : stw[m][col];
			}
		}
	if (o->interval_ns) {
		if (c->live_view)
			fputs("\033[H\033[2J", stdout);
		else if (c->printed)
			putchar('\n');
		interval_line(c, t, k, final, line, sizeof(line));
		put_line(tcols, line);
	}
	pos = 0;
	if (o->children)
		lineadd(line, sizeof(line), &pos, "%9s %9s ", "CHILDREN", "SELF");
	else if (c->overhead)
		lineadd(line, sizeof(line), &pos, "%9s ", "OVERHEAD");
	lineadd(line, sizeof(line), &pos, "%10s", "COUNT");
	for (j = 0; j < o->nsums; j++)
		lineadd(line, sizeof(line), &pos, " %14s", ps_key_sum__name(o->sums[j]));
	if (c->errcol)
		lineadd(line, sizeof(line), &pos, " %10s", "ERRORS");
	for (m = 0; m < o->nmeas; m++)
		for (col = 0; o->meas[m].stats && col < ST_NR; col++)
			lineadd(line, sizeof(line), &pos, " %*s", (int)stw[m][col], st_titles[col]);
	for (kk = 0; kk < nkeys; kk++)
		lineadd(line, sizeof(line), &pos, "  %-*s", kk + 1 < nkeys ? (int)width[kk] : 0,
		        ps_key__name(o->keys, (size_t)kk));
	put_line(tcols, line);
	for (i = 0; i < shown; i++) {
		size_t need = row_lines(c, rows[i]);

		if (need > avail)
			break;
		avail -= need;
		pos = 0;
		if (o->children)
			lineadd(line, sizeof(line), &pos, "%8.2f%% %8.2f%% ",
			        percent(rows[i]->children, t->total),
			        percent(rows[i]->count, t->total));
		else if (c->overhead)
			lineadd(line, sizeof(line), &pos, "%8.2f%% ",
			        percent(rows[i]->count, t->total));
		lineadd(line, sizeof(line), &pos, "%10" PRIu64, rows[i]->count);
		for (j = 0; j < o->nsums; j++)
			lineadd(line, sizeof(line), &pos, " %14" PRId64, rows[i]->sum[j]);
		if (c->errcol)
			lineadd(line, sizeof(line), &pos, " %10" PRIu64, rows[i]->errors);
		for (m = 0; m < o->nmeas; m++)
			for (col = 0; o->meas[m].stats && col < ST_NR; col++)
				lineadd(line, sizeof(line), &pos, " %*s", (int)stw[m][col],
				        fmt_stat(&rows[i]->st[m], col, c->ns[m], cell,
				                 sizeof(cell)));
		for (kk = 0; kk < nkeys; kk++)
			lineadd(line, sizeof(line), &pos, "  %-*s",
			        kk + 1 < nkeys ? (int)width[kk] : 0,
			        ps_key__shown(
			                ps_key__column(rows[i]->key, (size_t)kk, buf, sizeof(buf)),
			                show, sizeof(show)));
		put_line(tcols, line);
		for (m = 0; m < o->nmeas; m++)
			if (o->meas[m].hist)
				print_hist(c, rows[i], m, tcols);
	}
	if (t->other) {
		snprintf(line, sizeof(line), "%10" PRIu64 "  (other: more than %d distinct rows)",
		         t->other, MAX_ROWS);
		put_line(tcols, line);
	}
	if (!o->interval_ns && c->show_lost_total) {
		snprintf(line, sizeof(line), "lost: %" PRIu64 " events (LOST records)",
		         c->show_lost_total);
		put_line(tcols, line);
	} else if (o->interval_ns && c->show_lost_total) {
		snprintf(line, sizeof(line),
		         "lost: %" PRIu64 " events in this interval, %" PRIu64
		         " in total (LOST records)",
		         c->show_lost, c->show_lost_total);
		put_line(tcols, line);
	}
	if (c->late) {
		snprintf(line, sizeof(line),
		         "late: %" PRIu64
		         " sample%s came after their interval was printed (%" PRIu64
		         " in total; see --late)",
		         c->late, c->late == 1 ? "" : "s", c->late_total);
		put_line(tcols, line);
	}
	free(rows);
	return fflush(stdout);
}

/* A row's measured field: {"count","min","avg","max","total","stddev"} with --stats,
 * "hist": [{"le","count"}, ...] with --hist, in the field's own unit. */
static json_t *meas_json(const struct ctx *c, const struct row *r, int m)
{
	const struct stats *st = &r->st[m];
	json_t *o = json_object();
	int i;

	if (!o)
		return NULL;
	if (c->o->meas[m].stats) {
		json_object_set_new(o, "count", ps_json_u64(st->n));
		json_object_set_new(o, "min", json_integer(st->min));
		json_object_set_new(o, "avg", json_real(st->mean));
		json_object_set_new(o, "max", json_integer(st->max));
		json_object_set_new(o, "total", json_integer(st->total));
		json_object_set_new(o, "stddev", json_real(stats_stddev(st)));
		if (c->errcol)
			json_object_set_new(o, "errors", ps_json_u64(r->errors));
	}
	if (c->o->meas[m].hist) {
		json_t *h = json_array();

		for (i = 0; h && i < st->nh; i++) {
			json_t *b = json_object();

			json_object_set_new(b, "le", json_integer(hist_le(st->lo + i)));
			json_object_set_new(b, "count", ps_json_u64(st->hist[i]));
			json_array_append_new(h, b);
		}
		json_object_set_new(o, "hist", h);
	}
	return o;
}

static int print_json(struct ctx *c, const struct table *t, uint64_t k, bool final)
{
	const struct opts *o = c->o;
	size_t n = t->nrows, i, shown = o->top && o->top < n ? o->top : n;
	struct row **rows = sorted_rows(c, t, shown);
	json_t *doc = json_object(), *arr = json_array(), *keys = json_array();
	int nkeys = (int)ps_key__nr(o->keys);
	char buf[PS_KEY_TEXT_MAX];
	int kk, r, j;

	if (!rows || !doc || !arr || !keys) {
		free(rows);
		json_decref(doc);
		json_decref(arr);
		json_decref(keys);
		errno = ENOMEM;
		return -1;
	}
	for (kk = 0; kk < nkeys; kk++)
		json_array_append_new(keys, json_string(ps_key__name(o->keys, (size_t)kk)));
	json_object_set_new(doc, "keys", keys);
	if (o->interval_ns) {
		uint64_t start = interval_start(c, k);

		json_object_set_new(doc, "start", ps_json_u64(start));
		json_object_set_new(doc, "end", ps_json_u64(start + o->interval_ns));
		if (c->wall_known)
			json_object_set_new(
			        doc, "start_iso",
			        json_string(ps_json_time_string(start, PS_TIME_ISO, &c->wall, buf,
			                                        sizeof(buf))));
		json_object_set_new(doc, "partial", json_boolean(final));
	}
	json_object_set_new(doc, "total", ps_json_u64(t->total));
	if (o->nsums) {
		json_t *ts = json_object();

		for (j = 0; j < o->nsums; j++)
			json_object_set_new(ts, ps_key_sum__name(o->sums[j]),
			                    json_integer(t->total_sum[j]));
		json_object_set_new(doc, "total_sum", json_integer(t->total_sum[0]));
		json_object_set_new(doc, "total_sums", ts);
	}
	if (o->nmeas) {
		json_t *u = json_object();

		for (j = 0; j < o->nmeas; j++)
			if (c->ns[j])
				json_object_set_new(u, ps_key_sum__name(o->meas[j].field),
				                    json_string("ns"));
		json_object_set_new(doc, "units", u);
	}
	for (i = 0; i < shown; i++) {
		json_t *row = json_object();

		for (kk = 0; kk < nkeys; kk++) {
			const char *v = ps_key__column(rows[i]->key, (size_t)kk, buf, sizeof(buf));

			json_object_set_new(row, ps_key__name(o->keys, (size_t)kk),
			                    ps_json_string(v, strlen(v)));
		}
		json_object_set_new(row, "count", ps_json_u64(rows[i]->count));
		if (o->children)
			json_object_set_new(row, "children", ps_json_u64(rows[i]->children));
		if (o->nsums)
			json_object_set_new(row, "sum", json_integer(rows[i]->sum[0]));
		for (j = 0; j < o->nsums; j++)
			json_object_set_new(row, ps_key_sum__name(o->sums[j]),
			                    json_integer(rows[i]->sum[j]));
		for (j = 0; j < o->nmeas; j++)
			json_object_set_new(row, ps_key_sum__name(o->meas[j].field),
			                    meas_json(c, rows[i], j));
		json_array_append_new(arr, row);
	}
	json_object_set_new(doc, "rows", arr);
	if (t->other)
		json_object_set_new(doc, "other", ps_json_u64(t->other));
	if (o->interval_ns) {
		if (c->show_lost_total) {
			json_object_set_new(doc, "lost", ps_json_u64(c->show_lost));
			json_object_set_new(doc, "lost_total", ps_json_u64(c->show_lost_total));
		}
		if (c->late) {
			json_object_set_new(doc, "late", ps_json_u64(c->late));
			json_object_set_new(doc, "late_total", ps_json_u64(c->late_total));
		}
	} else if (c->show_lost_total) {
		json_object_set_new(doc, "lost", ps_json_u64(c->show_lost_total));
	}
	r = json_dumpf(doc, stdout, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(doc);
	free(rows);
	if (r < 0 || putchar('\n') == EOF)
		return -1;
	return fflush(stdout);
}

static int cmp_keys(const void *a, const void *b)
{
	return strcmp((*(const struct row *const *)a)->key, (*(const struct row *const *)b)->key);
}

/* stackcollapse's lines, sorted as it sorts them; with -i, each block under a "# " line
 * giving its interval and over an empty line */
static int print_folded(struct ctx *c, const struct table *t, uint64_t k, bool final)
{
	size_t n = t->nrows, i;
	struct row **rows = sorted_rows(c, t, n);
	char line[256];

	if (!rows)
		return -1;
	if (c->o->top && c->o->top < n)
		n = c->o->top; /* the largest stacks, still in stackcollapse's order */
	qsort(rows, n, sizeof(*rows), cmp_keys);
	if (c->o->interval_ns) {
		interval_line(c, t, k, final, line, sizeof(line));
		printf("# %s\n", line);
	}
	for (i = 0; i < n; i++)
		printf("%s %" PRIu64 "\n", rows[i]->key,
		       c->o->off_cpu ? (uint64_t)rows[i]->sum[0] : rows[i]->count);
	free(rows);
	if (c->o->interval_ns && putchar('\n') == EOF)
		return -1;
	return fflush(stdout);
}

/* Print the table of interval @k (or the whole count); a write error fills @err. */
static int print_table(struct ctx *c, const struct table *t, uint64_t k, bool final,
                       struct ps_error *err)
{
	static const struct table empty;
	int r;

	if (!t)
		t = &empty;
	/* an interval's LOST events, and the running total of the intervals up to it */
	c->show_lost = t->lost + c->lost_pending;
	c->show_lost_total = c->o->interval_ns ? c->lost_printed + c->show_lost : lost_total(c);
	if (final && c->lost_samples > c->show_lost_total)
		c->show_lost_total = c->lost_samples;
	errno = 0;
	r = c->o->folded ? print_folded(c, t, k, final) :
	    c->o->json   ? print_json(c, t, k, final) :
	                   print_text(c, t, k, final);
	c->printed++;
	c->late = 0;
	c->last_draw = mono_ns();
	if (r == 0)
		return 0;
	c->out_failed = true;
	if (errno == EPIPE)
		return ps_error__set(err, PS_EPIPE, NULL, PS_NO_OFFSET, NULL);
	if (errno == ENOMEM)
		return ps_error__set(err, PS_ENOMEM, NULL, PS_NO_OFFSET, "out of memory");
	return ps_error__sys(err, PS_EWRITE, NULL, "standard output");
}

/* ---- intervals ---- */

/* Interval @k is final: print it (unless a live view has drawn it) and let it go. */
static int finish(struct ctx *c, uint64_t k, bool final, struct ps_error *err)
{
	struct table **t = &c->open[k % c->nopen];
	int r = 0;

	if (!c->live_view || final)
		r = print_table(c, *t, k, final, err);
	c->lost_printed += (*t ? (*t)->lost : 0) + c->lost_pending;
	c->lost_pending = 0;
	if (*t)
		c->ntables--;
	table_free(c, *t);
	*t = NULL;
	c->first = k + 1;
	return r;
}

/* Make the intervals before @target final.  Past the last table, a long quiet stretch
 * prints its last MAX_EMPTY empty intervals only, so a jump in time cannot hang. */
static int advance(struct ctx *c, uint64_t target, struct ps_error *err)
{
	while (c->first < target) {
		if (!c->ntables && target - c->first > MAX_EMPTY)
			c->first = target - MAX_EMPTY;
		if (finish(c, c->first, false, err))
			return -1;
	}
	return 0;
}

/* Close what the stream's clock has passed: a live view draws each interval as it ends
 * and redraws it while late samples come; elsewhere an interval is printed once the
 * clock has passed its end by the lateness margin. */
static int close_due(struct ctx *c, struct ps_error *err)
{
	uint64_t now, I = c->o->interval_ns, k;

	if (!I || !c->have_grid || !stream_now(c, &now))
		return 0;
	if (c->live_view) {
		if (now < c->grid0 + I)
			return 0;
		k = (now - c->grid0) / I - 1; /* the newest interval that has ended */
		if (c->shown && k + 1 <= c->shown) {
			if (resized ||
			    (c->dirty && mono_ns() - c->last_draw >= REDRAW_MS * 1000000ULL)) {
				resized = 0;
				c->dirty = false;
				return print_table(c, c->open[(c->shown - 1) % c->nopen],
				                   c->shown - 1, false, err);
			}
			return 0;
		}
		/* the ones before it will not be seen again: samples for them are late */
		advance(c, k, err);
		if (k < c->first)
			return 0;
		c->shown = k + 1;
		c->dirty = false;
		resized = 0;
		return print_table(c, c->open[k % c->nopen], k, false, err);
	}
	/* interval k is final when grid0 + (k + 1) * I + late <= now */
	if (now < c->grid0 || now - c->grid0 < c->o->late_ns)
		return 0;
	return advance(c, (now - c->grid0 - c->o->late_ns) / I, err);
}

/* Where samples are counted when they carry no time: the newest interval open. */
static uint64_t newest(const struct ctx *c)
{
	uint64_t k = c->have_tmax ? interval_of(c, c->tmax) : c->first;

	return k < c->first ? c->first : k;
}

/* The stream says when its clock was what on the wall clock (CLOCK_DATA). */
static void load_wall(struct ctx *c)
{
	c->wall_known = ps_json_clock__from_session(c->s, &c->wall) == 0;
}

/* The first sample fixes the grid, unless empty intervals timed by the reader's own clock
 * were printed already and the sample shows that the stream's clock is that clock. */
static void first_sample(struct ctx *c, uint64_t t)
{
	uint64_t now = mono_ns();
	bool here = t <= now + PS_NS_PER_SEC && now - t < LIVE_WINDOW;
	uint64_t k;

	c->have_sample = true;
	load_wall(c);
	c->live_view =
	        c->tty && !c->o->json && !c->o->folded && (c->paced || (!c->regular && here));
	if (c->have_grid && c->grid_guess && c->printed && here) {
		c->grid_guess = false;
		return;
	}
	for (k = 0; k < c->nopen; k++) {
		table_free(c, c->open[k]);
		c->open[k] = NULL;
	}
	c->grid0 = t;
	c->have_grid = true;
	c->grid_guess = false;
	c->first = 0;
	c->shown = 0;
}

/* ---- records ---- */

static int close_due(struct ctx *c, struct ps_error *err);

/* --pace: wait until the wall clock has run as long since the first sample as the
 * stream's clock has; the intervals that end meanwhile are closed on time. */
static int pace(struct ctx *c, uint64_t t, struct ps_error *err)
{
	uint64_t target, now;

	if (!c->pace_w0) {
		c->pace_t0 = t;
		c->pace_w0 = mono_ns();
		return 0;
	}
	if (t <= c->pace_t0)
		return 0;
	target = c->pace_w0 + (t - c->pace_t0);
	while (!ps_stop && (now = mono_ns()) < target) {
		uint64_t ns =
		        target - now < IDLE_MS * 1000000ULL ? target - now : IDLE_MS * 1000000ULL;
		struct timespec ts = { (time_t)(ns / PS_NS_PER_SEC), (long)(ns % PS_NS_PER_SEC) };

		const char *line;

		fflush(stdout);
		nanosleep(&ts, NULL);
		if (close_due(c, err))
			return -1;
		/* the reading may be done while the replay still waits: the line goes on */
		if ((line = ps_reader__progress_waiting(c->rd))) {
			ps_status("%s", line);
			c->status = true;
		}
	}
	return 0;
}

/* The progress line is done: clear it, before anything else is written. */
static void end_progress(struct ctx *c)
{
	if (!c->status)
		return;
	ps_status(NULL);
	c->status = false;
}

static bool is_syscall_exit(const struct ps_attr *a)
{
	const struct tep_event *tp = a->tp;

	/* per sample: the first bytes tell the other events from an exit at once */
	if (!tp || !tp->system || !tp->name || strncmp(tp->name, "sys_exit", 8) != 0)
		return false;
	return (strcmp(tp->system, "syscalls") == 0 && tp->name[8] == '_') ||
	       (strcmp(tp->system, "raw_syscalls") == 0 && tp->name[8] == 0);
}

/* The ERRORS column's test: a syscall exit that returned an error. */
static inline bool failed(const struct ctx *c, const struct ps_sample *smp)
{
	int64_t ret;

	/* the name test last: most calls succeed */
	return ps_key_sum__value(c->ret, smp, &ret) && ret < 0 && ret >= -4095 &&
	       is_syscall_exit(smp->attr);
}

/*
 * The common case, a key of the thread alone (comm, pid, tid) and nothing else per
 * sample: a sample of the thread counted last goes into its row at once, without the
 * frame count_sample() needs for the rest.  Return true when it was counted.
 */
static inline bool count_fast(struct ctx *c, const struct ps_sample *smp)
{
	struct table *t = c->whole;

	if (!(smp->type & PERF_SAMPLE_TID) || !t->last_thread_ok || t->last_tid != smp->tid ||
	    t->last_pid != smp->pid || t->last_gen != ps_session__comm_gen(c->s))
		return false;
	if (c->errcol)
		c->failed = failed(c, smp);
	t->total++;
	t->last->count++;
	t->last->errors += c->failed;
	return true;
}

static int count_sample(struct ctx *c, const struct ps_reader_event *ev, struct ps_error *err)
{
	const struct opts *o = c->o;
	const struct ps_sample *smp = &ev->smp;
	struct table *t = c->whole;
	char key[PS_KEY_TEXT_MAX];
	int64_t sum[MAX_SUMS] = { 0 }, mv[MAX_MEAS] = { 0 };
	bool any = false, late = false;
	uint64_t k = 0;
	int j, len = 0;

	if (o->interval_ns) {
		if (smp->type & PERF_SAMPLE_TIME) {
			if (c->paced && pace(c, smp->time, err))
				return -1;
			if (!c->have_sample)
				first_sample(c, smp->time);
			if (!c->have_tmax || smp->time > c->tmax) {
				c->have_tmax = true;
				c->tmax = smp->time;
				c->tmax_wall = mono_ns();
			}
			k = interval_of(c, smp->time);
			late = k < c->first || (c->live_view && c->shown && k + 1 < c->shown);
			/* a jump ahead: the intervals that fall out of the ring are past the margin */
			if (!late && k >= c->first + c->nopen && advance(c, k - c->nopen + 1, err))
				return -1;
		} else {
			if (!c->have_grid)
				return 0;
			k = newest(c);
		}
	}
	if (c->where && ps_filter__match(c->where, c->s, smp) != 1)
		return 0;
	for (j = 0; j < o->nsums; j++)
		if (ps_key_sum__value(o->sums[j], smp, &sum[j]))
			any = true;
	if (o->nsums && !any)
		return 0; /* none of the summed fields is there: not counted */
	for (j = 0; j < o->nmeas; j++)
		if (!ps_key_sum__value(o->meas[j].field, smp, &mv[j]))
			return 0; /* a measured field is not there: not counted */
	if (c->errcol)
		c->failed = failed(c, smp);
	if (o->folded) {
		const struct ps_sample *fs = smp;
		struct ps_sample view;
		char unnamed[16];

		/* --off-cpu: the thread switched in, with the stack it left the cpu with */
		if (o->off_cpu && ps_durations__off_cpu_sample(smp, &view))
			fs = &view;
		if (ps_symbols__fold(
		            c->syms, fs, ev->rec.misc,
		            (fs->type & PERF_SAMPLE_TID) ?
		                    ps_session__comm_text(c->s, fs->tid, unnamed, sizeof(unnamed)) :
		                    NULL,
		            &c->fold, err) < 0)
			return -1;
	} else if (c->thread_key) {
		/* the text only when the table's last row is not this thread's (below) */
		if (!(smp->type & PERF_SAMPLE_TID))
			return 0;
	} else if ((len = ps_key__text(o->keys, c->s, smp, key, sizeof(key))) < 0) {
		return 0;
	}
	if (late) {
		c->late++;
		c->late_total++;
		return 0;
	}
	if (o->interval_ns) {
		t = slot(c, k);
		if (c->live_view && k + 1 == c->shown)
			c->dirty = true;
	}
	if (!t)
		goto nomem;
	if (o->folded) {
		if (add_row(c, t, c->fold.buf, strlen(c->fold.buf), sum, mv) < 0)
			goto nomem;
	} else if (c->thread_key) {
		uint64_t gen = ps_session__comm_gen(c->s);
		int in_row;

		if (t->last_thread_ok && t->last_tid == smp->tid && t->last_pid == smp->pid &&
		    t->last_gen == gen) {
			if (count_in(c, t, t->last, sum, mv))
				goto nomem;
			return 0;
		}
		/* comm, pid and tid always have a text, and 8 of them fit in key[] */
		len = ps_key__text(o->keys, c->s, smp, key, sizeof(key));
		if (len < 0)
			return 0;
		in_row = add_row(c, t, key, (size_t)len, sum, mv);
		if (in_row < 0)
			goto nomem;
		t->last_thread_ok = in_row > 0;
		t->last_pid = smp->pid;
		t->last_tid = smp->tid;
		t->last_gen = gen;
	} else if (add_row(c, t, key, (size_t)len, sum, mv) < 0) {
		goto nomem;
	}
	if (o->children && count_children(c, t, smp, key, (size_t)len) < 0)
		goto nomem;
	return 0;
nomem:
	return ps_error__set(err, PS_ENOMEM, NULL, PS_NO_OFFSET, "out of memory");
}

static void count_lost(struct ctx *c, const struct ps_record *rec, uint64_t n)
{
	uint64_t t, k;
	struct table *tb;

	c->lost_chunks += n;
	if (!c->o->interval_ns)
		return;
	if (!c->have_grid) {
		c->lost_pending += n;
		return;
	}
	k = ps_session__record_time(c->s, rec, &t) ? interval_of(c, t) : newest(c);
	if (k < c->first)
		k = c->first;
	if (k >= c->first + c->nopen)
		k = c->first + c->nopen - 1;
	tb = slot(c, k);
	if (tb)
		tb->lost += n;
}

static int handle(struct ctx *c, const struct ps_record *rec)
{
	bool swap;
	uint64_t lost;

	swap = ps_session__swapped(c->s);
	/* LOST records give what a ring dropped; LOST_SAMPLES, written at the end, every
	 * sample an event lost, those included: the larger sum is what was lost */
	if (rec->type == PERF_RECORD_LOST && ps_record__get(rec, swap, "lost", &lost) == 0)
		count_lost(c, rec, lost);
	else if (rec->type == PERF_RECORD_LOST_SAMPLES &&
	         ps_record__get(rec, swap, "lost", &lost) == 0)
		c->lost_samples += lost;
	return 0;
}

/* At the end: every interval up to the newest is printed, the newest as partial. */
static int finish_all(struct ctx *c, struct ps_error *err)
{
	uint64_t last, now;

	if (!c->o->interval_ns)
		return print_table(c, c->whole, 0, false, err);
	if (!c->have_grid) {
		c->grid0 = c->have_tmax ? c->tmax : 0;
		c->have_grid = true;
	}
	last = c->have_tmax ? interval_of(c, c->tmax) : c->first;
	if (c->grid_guess && stream_now(c, &now))
		last = interval_of(c, now);
	if (last < c->first)
		last = c->first;
	if (advance(c, last, err))
		return -1;
	return finish(c, last, true, err);
}

/* The keys, sums and filter are checked against the events once the header records are
 * in: an unknown name is a usage error. */
static int check_names(struct ctx *c, struct ps_error *err)
{
	struct ps_filter_error ferr;
	int j;

	if (ps_key__check(c->o->keys, c->s, err)) {
		ps_msg("--by: %s", err->detail);
		err->detail[0] = 0; /* already said */
		return -1;
	}
	for (j = 0; j < c->o->nsums; j++) {
		if (ps_key_sum__check(c->o->sums[j], c->s, err)) {
			ps_msg("%s: %s", c->o->off_cpu ? "--off-cpu" : "--sum", err->detail);
			err->detail[0] = 0;
			return -1;
		}
	}
	for (j = 0; j < c->o->nmeas; j++) {
		const struct meas *m = &c->o->meas[j];

		if (ps_key_sum__check(m->field, c->s, err)) {
			ps_msg("--%s: %s", m->stats ? "stats" : "hist", err->detail);
			err->detail[0] = 0;
			return -1;
		}
		c->ns[j] = ps_key_sum__unit(m->field, c->s) == PS_KEY_UNIT_NS;
		if (m->stats) {
			const struct ps_attr *a;
			size_t i;

			ps_session__for_each_attr(c->s, a, i)
				c->errcol |= is_syscall_exit(a);
		}
	}
	if (!c->where || ps_filter__check(c->where, c->s, &ferr) == 0)
		return 0;
	return ps_where__refuse(&ferr, err);
}

static void free_opts(struct opts *o)
{
	int i;

	ps_key__delete(o->keys);
	for (i = 0; i < o->nsums; i++)
		ps_key_sum__delete(o->sums[i]);
	for (i = 0; i < o->nmeas; i++)
		ps_key_sum__delete(o->meas[i].field);
}

static void on_winch(int sig)
{
	(void)sig;
	resized = 1;
}

static int setup(struct ctx *c)
{
	const struct opts *o = c->o;
	struct stat st;

	c->tty = isatty(1);
	c->thread_key = !o->folded && o->keys && ps_key__thread_only(o->keys);
	c->fast = c->thread_key && !o->interval_ns && !o->nsums && !o->nmeas && !o->children &&
	          !c->where;
	c->paced = o->pace && o->interval_ns;
	c->regular = (strcmp(o->input, "-") == 0 ? fstat(0, &st) : stat(o->input, &st)) == 0 &&
	             S_ISREG(st.st_mode);
	if (!o->interval_ns) {
		c->whole = table_new();
		return c->whole ? 0 : -1;
	}
	/* intervals open at once: those within the margin, and the one being filled */
	c->nopen = (size_t)(o->late_ns / o->interval_ns) + 2;
	if (c->nopen > MAX_OPEN)
		c->nopen = MAX_OPEN;
	c->open = calloc(c->nopen, sizeof(*c->open));
	if (!c->open)
		return -1;
	if (!c->regular) {
		/* a live stream: empty intervals are shown from the start, by the reader's
		 * clock, until a sample tells the stream's */
		c->grid0 = mono_ns();
		c->have_grid = c->grid_guess = true;
		c->live_view = c->tty && !o->json && !o->folded;
	}
	if (c->tty) {
		struct sigaction sa;

		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_winch;
		sigemptyset(&sa.sa_mask);
		sigaction(SIGWINCH, &sa, NULL);
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct ps_error err = { 0 };
	struct ps_reader_opts ro = { 0 };
	struct ps_reader_event ev;
	struct ctx *c = calloc(1, sizeof(*c));
	struct opts o;
	size_t k;
	int r = 0, status;

	ps_progname = "pcount";
	ps_signals__init();
	parse_args(argc, argv, &o);
	if (!c)
		ps_die_nomem();
	c->o = &o;
	c->ret = ps_key_sum__parse("ret", &err);
	if (!c->ret)
		ps_die_nomem();
	/* sym as perf report and perf top show it, beside an overhead column */
	c->overhead = !o.json && !o.folded && ps_key__by_frame(o.keys);
	if (c->overhead)
		ps_key__set_view(o.keys, PS_KEY_VIEW_ADDR | PS_KEY_VIEW_MARK);
	if (o.where)
		c->where = ps_where__parse(o.where);
	if (ps_stdin__refuse_tty(&o.input, 1, &err) < 0)
		ps_die(&err);
	ro.path = o.input;
	ro.input_flags = PS_INPUT_DECOMPRESS | PS_INPUT_SKIP_AUX;
	ro.idle_ms = IDLE_MS;
	ro.symbols = o.folded || o.children || ps_key__needs_symbols(o.keys) ||
	             (c->where && ps_filter__uses_symbols(c->where));
	ro.sym = &o.sym;
	ro.pairs = o.pairs;
	ro.npairs = o.npairs;
	/* durations are worked out only when the command line names one: a program that
	 * reads none does not pay for them on every sample */
	ro.no_durations = !o.off_cpu || o.npairs;
	for (int i = 1; i < argc && ro.no_durations; i++)
		ro.no_durations = !ps_durations__named(argv[i]);
	/* with -i the tables are written as the input is read */
	ro.progress = !o.quiet;
	ro.stdout_busy = o.interval_ns != 0;
	ro.ticks = o.interval_ns != 0;
	c->rd = ps_reader__open(&ro, &err);
	if (!c->rd)
		ps_die(&err);
	c->s = ps_reader__session(c->rd);
	c->syms = ps_reader__symbols(c->rd);
	if (c->syms) {
		ps_key__set_symbols(o.keys, c->syms);
		if (c->where)
			ps_filter__set_symbols(c->where, c->syms);
	}
	if (setup(c)) {
		ps_error__set(&err, PS_ENOMEM, NULL, PS_NO_OFFSET, "out of memory");
		goto out;
	}
	/* every sample read is counted, even after an error further on; with --pace the
	 * last of them may still be waited for, under the progress line */
	while ((r = ps_reader__next(c->rd, &ev, &err)) > 0) {
		switch (ev.kind) {
		case PS_READER_HEADER:
			r = check_names(c, &err);
			break;
		case PS_READER_SAMPLE:
			if (!c->fast || !count_fast(c, &ev.smp))
				r = count_sample(c, &ev, &err);
			break;
		case PS_READER_RECORD:
			r = handle(c, &ev.rec);
			break;
		case PS_READER_IDLE:
		case PS_READER_TICK:
			r = o.interval_ns ? close_due(c, &err) : 0;
			break;
		default:
			if (ev.kind == PS_READER_PROGRESS)
				c->status = ev.text != NULL;
			ps_show_event(&ev);
		}
		if (r < 0)
			break;
	}
	if (err.code != PS_EUSAGE && !c->out_failed) {
		struct ps_error w = { 0 };

		end_progress(c);
		finish_all(c, &w);
		if (!err.code)
			err = w;
		else if (w.code == PS_EWRITE)
			ps_warn(&w);
	}
	end_progress(c);
out:
	end_progress(c);
	if (c->out_failed)
		fclose(stdout); /* it failed already, and that was said */
	else if (ps_finish_stdout() < 0 && !err.code)
		err.code = PS_EWRITE;
	status = ps_finish(&err); /* before what it names is freed */
	ps_reader__close(c->rd);
	ps_filter__delete(c->where);
	ps_key_sum__delete(c->ret);
	free(c->fold.buf);
	table_free(c, c->whole);
	for (k = 0; k < c->nopen; k++)
		table_free(c, c->open[k]);
	free(c->open);
	free(c);
	free_opts(&o);
	return status;
}
