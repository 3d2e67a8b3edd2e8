// SPDX-License-Identifier: GPL-2.0-only
/*
 * pcount - count the samples of a perf event stream by keys, optionally summing a field,
 * once at the end or per interval (a top-style live view).  See pcount(1).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <traceevent/event-parse.h>
#include <unistd.h>

#include "lib/abi.h"
#include "lib/duration.h"
#include "lib/diag.h"
#include "lib/filter.h"
#include "lib/input.h"
#include "lib/key.h"
#include "lib/opts.h"
#include "lib/order.h"
#include "lib/sample.h"
#include "lib/sample_json.h"
#include "lib/session.h"
#include "lib/signals.h"

static const char usage_text[] =
        "usage: pcount [-j] [-b keys] [-i duration] [-n top] [-s field] [-w expression] [file]\n";

#define IDLE_MS 100
#define MAX_SUMS 8
#define MAX_ROWS 200000 /* distinct rows kept; further ones are counted as "(other)" */

struct opts {
	struct ps_key *keys;               /* -b */
	struct ps_key_sum *sums[MAX_SUMS]; /* -s */
	int nsums;
	const char *where;    /* -w */
	uint64_t interval_ns; /* -i, 0: one table at the end */
	uint64_t top;         /* -n, 0: all */
	bool json;            /* -j */
	const char *input;
};

struct row {
	char *key; /* the key values joined by KEY_SEP */
	uint64_t count;
	int64_t sum[MAX_SUMS];
	struct row *next;
};

#define NBUCKETS 65536

struct table {
	struct row *buckets[NBUCKETS];
	size_t nrows;
	uint64_t total, other;
	int64_t total_sum[MAX_SUMS];
};

struct ctx {
	const struct opts *o;
	struct ps_input *in;
	struct ps_session *s;
	struct ps_filter *where;
	struct table t;
	bool tty;
	bool have_start;
	uint64_t start, end; /* the interval being counted: [start, end) in sample time */
	uint64_t intervals;
	uint64_t lost, lost_chunks, lost_samples;
	struct timespec last_print;
};

static const char help_text[] =
        "\nCount the samples of a perf event stream by keys.\n\n"
        "  -b, --by KEYS          comma-separated keys: event (default), comm, pid,\n"
        "                         tid, cpu, syscall, errno, a tracepoint field,\n"
        "                         FIELD/SIZE; checked against the stream\n"
        "  -i, --interval TIME    print a table every TIME of sample time\n"
        "                         (5, 5s, 500ms, 2m; 1ms to 24h)\n"
        "  -j, --json             JSON output (one document per table)\n"
        "  -n, --top N            print the N largest rows only\n"
        "  -s, --sum [NAME=]FIELD add up FIELD (or count EVENT) in a column;\n"
        "                         repeatable; rows sort by the first sum\n"
        "  -w, --where EXPR       count only samples that match EXPR (pfilter(1))\n"
        "  -h, --help             show this help\n"
        "  -V, --version          show the version\n";

static PS_NORETURN void usage(FILE *fp, int status)
{
	ps_usage(fp, status, usage_text, help_text);
}

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

static void parse_args(int argc, char **argv, struct opts *o)
{
	static const struct option longopts[] = {
		{ "by", required_argument, NULL, 'b' },
		{ "help", no_argument, NULL, 'h' },
		{ "interval", required_argument, NULL, 'i' },
		{ "json", no_argument, NULL, 'j' },
		{ "top", required_argument, NULL, 'n' },
		{ "sum", required_argument, NULL, 's' },
		{ "version", no_argument, NULL, 'V' },
		{ "where", required_argument, NULL, 'w' },
		{ NULL, 0, NULL, 0 },
	};
	const char *by = "event";
	int c;

	memset(o, 0, sizeof(*o));
	while ((c = getopt_long(argc, argv, "Vb:hi:jn:s:w:", longopts, NULL)) != -1) {
		switch (c) {
		case 'V':
			ps_print_version();
		case 'b':
			by = optarg;
			break;
		case 'h':
			usage(stdout, 0);
		case 'i':
			o->interval_ns = ps_parse_duration(optarg, PS_NS_PER_SEC / 1000,
			                                   86400 * PS_NS_PER_SEC, "--interval");
			break;
		case 'j':
			o->json = true;
			break;
		case 'n':
			o->top = ps_parse_u64(optarg, 1, UINT64_MAX, "--top");
			break;
		case 's':
			parse_sum(optarg, o);
			break;
		case 'w':
			o->where = optarg;
			break;
		default:
			usage(stderr, 2);
		}
	}
	parse_keys(by, o);
	if (argc - optind > 1)
		ps_usage_error("one input at most");
	o->input = optind < argc ? argv[optind] : "-";
}

/* ---- the table ---- */

static uint64_t hash(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ULL;
	return h;
}

static int add_row(struct table *t, const char *key, const int64_t *sum, int nsums)
{
	uint64_t h = hash(key) % NBUCKETS;
	struct row *r;
	int i;

	t->total++;
	for (i = 0; i < nsums; i++)
		t->total_sum[i] += sum[i];
	for (r = t->buckets[h]; r; r = r->next) {
		if (strcmp(r->key, key) == 0) {
			r->count++;
			for (i = 0; i < nsums; i++)
				r->sum[i] += sum[i];
			return 0;
		}
	}
	if (t->nrows >= MAX_ROWS) {
		t->other++;
		return 0;
	}
	r = malloc(sizeof(*r));
	if (!r || !(r->key = strdup(key))) {
		free(r);
		return -1;
	}
	r->count = 1;
	memset(r->sum, 0, sizeof(r->sum));
	for (i = 0; i < nsums; i++)
		r->sum[i] = sum[i];
	r->next = t->buckets[h];
	t->buckets[h] = r;
	t->nrows++;
	return 0;
}

static void clear_table(struct table *t)
{
	size_t b;

	for (b = 0; b < NBUCKETS; b++) {
		while (t->buckets[b]) {
			struct row *r = t->buckets[b];

			t->buckets[b] = r->next;
			free(r->key);
			free(r);
		}
	}
	t->nrows = 0;
	t->total = t->other = 0;
	memset(t->total_sum, 0, sizeof(t->total_sum));
}

static bool by_sum;

static int cmp_rows(const void *a, const void *b)
{
	const struct row *x = *(const struct row *const *)a, *y = *(const struct row *const *)b;

	if (by_sum && x->sum[0] != y->sum[0])
		return x->sum[0] < y->sum[0] ? 1 : -1;
	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return strcmp(x->key, y->key);
}

static struct row **sorted_rows(struct table *t, bool sum)
{
	struct row **v = malloc((t->nrows ? t->nrows : 1) * sizeof(*v)), *r;
	size_t b, n = 0;

	if (!v)
		return NULL;
	for (b = 0; b < NBUCKETS; b++)
		for (r = t->buckets[b]; r; r = r->next)
			v[n++] = r;
	by_sum = sum;
	qsort(v, n, sizeof(*v), cmp_rows);
	return v;
}

/* ---- printing ---- */

static void fmt_time(uint64_t t, char *buf, size_t len)
{
	snprintf(buf, len, "%" PRIu64 ".%06" PRIu64, t / 1000000000, t % 1000000000 / 1000);
}

static int print_text(struct ctx *c, bool final)
{
	const struct opts *o = c->o;
	size_t width[PS_KEY_MAX], n = c->t.nrows, i, shown;
	int nkeys = (int)ps_key__nr(o->keys);
	struct row **rows = sorted_rows(&c->t, o->nsums > 0);
	char buf[256];
	int k, j;

	if (!rows)
		return -1;
	shown = o->top && o->top < n ? o->top : n;
	for (k = 0; k < nkeys; k++) {
		width[k] = strlen(ps_key__name(o->keys, (size_t)k));
		for (i = 0; i < shown; i++) {
			size_t w =
			        strlen(ps_key__column(rows[i]->key, (size_t)k, buf, sizeof(buf)));

			if (w > width[k])
				width[k] = w;
		}
	}
	if (o->interval_ns) {
		char a[32], b[32];

		if (c->tty)
			fputs("\033[H\033[2J", stdout);
		fmt_time(c->start, a, sizeof(a));
		fmt_time(c->end, b, sizeof(b));
		printf("%s[%s, %s) %" PRIu64 " samples%s\n", c->intervals ? "\n" : "", a, b,
		       c->t.total, final ? " (last, partial)" : "");
	}
	printf("%10s", "COUNT");
	for (j = 0; j < o->nsums; j++)
		printf(" %14s", ps_key_sum__name(o->sums[j]));
	for (k = 0; k < nkeys; k++)
		printf("  %-*s", k + 1 < nkeys ? (int)width[k] : 0,
		       ps_key__name(o->keys, (size_t)k));
	putchar('\n');
	for (i = 0; i < shown; i++) {
		printf("%10" PRIu64, rows[i]->count);
		for (j = 0; j < o->nsums; j++)
			printf(" %14" PRId64, rows[i]->sum[j]);
		for (k = 0; k < nkeys; k++)
			printf("  %-*s", k + 1 < nkeys ? (int)width[k] : 0,
			       ps_key__column(rows[i]->key, (size_t)k, buf, sizeof(buf)));
		putchar('\n');
	}
	if (c->t.other)
		printf("%10" PRIu64 "  (other: more than %d distinct rows)\n", c->t.other,
		       MAX_ROWS);
	if (c->lost)
		printf("lost: %" PRIu64 " events (LOST records)\n", c->lost);
	free(rows);
	return fflush(stdout);
}

static int print_json(struct ctx *c, bool final)
{
	const struct opts *o = c->o;
	struct row **rows = sorted_rows(&c->t, o->nsums > 0);
	size_t n = c->t.nrows, i, shown = o->top && o->top < n ? o->top : n;
	json_t *doc = json_object(), *arr = json_array(), *keys = json_array();
	int nkeys = (int)ps_key__nr(o->keys);
	char buf[256];
	int k, r, j;

	if (!rows || !doc || !arr || !keys)
		return -1;
	for (k = 0; k < nkeys; k++)
		json_array_append_new(keys, json_string(ps_key__name(o->keys, (size_t)k)));
	json_object_set_new(doc, "keys", keys);
	if (o->interval_ns) {
		json_object_set_new(doc, "start", ps_json_u64(c->start));
		json_object_set_new(doc, "end", ps_json_u64(c->end));
		json_object_set_new(doc, "partial", json_boolean(final));
	}
	json_object_set_new(doc, "total", ps_json_u64(c->t.total));
	if (o->nsums) {
		json_t *ts = json_object();

		for (j = 0; j < o->nsums; j++)
			json_object_set_new(ts, ps_key_sum__name(o->sums[j]),
			                    json_integer(c->t.total_sum[j]));
		json_object_set_new(doc, "total_sum", json_integer(c->t.total_sum[0]));
		json_object_set_new(doc, "total_sums", ts);
	}
	for (i = 0; i < shown; i++) {
		json_t *row = json_object();

		for (k = 0; k < nkeys; k++) {
			const char *v = ps_key__column(rows[i]->key, (size_t)k, buf, sizeof(buf));

			json_object_set_new(row, ps_key__name(o->keys, (size_t)k),
			                    ps_json_string(v, strlen(v)));
		}
		json_object_set_new(row, "count", ps_json_u64(rows[i]->count));
		if (o->nsums)
			json_object_set_new(row, "sum", json_integer(rows[i]->sum[0]));
		for (j = 0; j < o->nsums; j++)
			json_object_set_new(row, ps_key_sum__name(o->sums[j]),
			                    json_integer(rows[i]->sum[j]));
		json_array_append_new(arr, row);
	}
	json_object_set_new(doc, "rows", arr);
	if (c->t.other)
		json_object_set_new(doc, "other", ps_json_u64(c->t.other));
	if (c->lost)
		json_object_set_new(doc, "lost", ps_json_u64(c->lost));
	r = json_dumpf(doc, stdout, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(doc);
	free(rows);
	if (r < 0 || putchar('\n') == EOF)
		return -1;
	return fflush(stdout);
}

static int print_table(struct ctx *c, bool final)
{
	int r = c->o->json ? print_json(c, final) : print_text(c, final);

	c->intervals++;
	clock_gettime(CLOCK_MONOTONIC, &c->last_print);
	return r;
}

/* Close intervals until @t falls in the current one. */
static int advance_to(struct ctx *c, uint64_t t)
{
	while (t >= c->end) {
		if (print_table(c, false))
			return -1;
		clear_table(&c->t);
		c->start = c->end;
		c->end += c->o->interval_ns;
	}
	return 0;
}

/* The wall clock: an interval with no sample still closes after its length. */
static int idle_tick(struct ctx *c)
{
	struct timespec now;
	uint64_t ms;

	if (!c->o->interval_ns || !c->have_start)
		return 0;
	clock_gettime(CLOCK_MONOTONIC, &now);
	ms = (uint64_t)(now.tv_sec - c->last_print.tv_sec) * 1000 +
	     (uint64_t)((now.tv_nsec - c->last_print.tv_nsec) / 1000000);
	if (ms * 1000000 < c->o->interval_ns)
		return 0;
	return advance_to(c, c->end);
}

/* ---- records ---- */

static int count_sample(struct ctx *c, const struct ps_record *rec, struct ps_error *err)
{
	const struct opts *o = c->o;
	struct ps_sample smp;
	char key[1024];
	int64_t sum[MAX_SUMS] = { 0 };
	bool any = false;
	int j;

	if (ps_sample__parse(c->s, rec, &smp, ps_input__name(c->in), err) < 0)
		return -1;
	if (o->interval_ns && (smp.type & PERF_SAMPLE_TIME)) {
		if (!c->have_start) {
			c->have_start = true;
			c->start = smp.time;
			c->end = smp.time + o->interval_ns;
		}
		if (advance_to(c, smp.time))
			return ps_error__set(err, PS_EPIPE, NULL, PS_NO_OFFSET, NULL);
	}
	if (c->where && ps_filter__match(c->where, c->s, &smp) != 1)
		return 0;
	for (j = 0; j < o->nsums; j++)
		if (ps_key_sum__value(o->sums[j], &smp, &sum[j]))
			any = true;
	if (o->nsums && !any)
		return 0; /* none of the summed fields is there: not counted */
	if (ps_key__text(o->keys, c->s, &smp, key, sizeof(key)) < 0)
		return 0;
	if (add_row(&c->t, key, sum, o->nsums))
		return ps_error__set(err, PS_ENOMEM, NULL, PS_NO_OFFSET, "out of memory");
	return 0;
}

static int handle(struct ctx *c, const struct ps_record *rec, struct ps_error *err)
{
	if (rec->type == PERF_RECORD_SAMPLE)
		return count_sample(c, rec, err);
	/* LOST records give what a ring dropped; LOST_SAMPLES, written at the end, every
	 * sample an event lost, those included: the larger sum is what was lost */
	if (rec->type == PERF_RECORD_LOST && rec->size >= 24)
		c->lost_chunks += ps_get64(rec->data + 16, ps_session__swapped(c->s));
	else if (rec->type == PERF_RECORD_LOST_SAMPLES && rec->size >= 16)
		c->lost_samples += ps_get64(rec->data + 8, ps_session__swapped(c->s));
	c->lost = c->lost_chunks > c->lost_samples ? c->lost_chunks : c->lost_samples;
	return 0;
}

static int drain(struct ctx *c, struct ps_order *ord, struct ps_error *err)
{
	struct ps_record rec;

	while (ps_order__pop(ord, &rec) > 0)
		if (handle(c, &rec, err) < 0)
			return -1;
	return 0;
}

/* The keys, sums and filter are checked against the events once the header records are
 * in: an unknown name is a usage error. */
static int check_names(struct ctx *c, struct ps_error *err)
{
	struct ps_filter_error ferr;
	char *caret;
	int j;

	if (ps_key__check(c->o->keys, c->s, err)) {
		ps_msg("--by: %s", err->detail);
		err->detail[0] = 0; /* already said */
		return -1;
	}
	for (j = 0; j < c->o->nsums; j++) {
		if (ps_key_sum__check(c->o->sums[j], c->s, err)) {
			ps_msg("--sum: %s", err->detail);
			err->detail[0] = 0;
			return -1;
		}
	}
	if (!c->where || ps_filter__check(c->where, c->s, &ferr) == 0)
		return 0;
	ps_msg("--where: %s", ferr.msg);
	caret = ps_filter_error__caret(&ferr);
	ps_caret(caret);
	free(caret);
	ps_error__set(err, PS_EUSAGE, NULL, PS_NO_OFFSET, NULL);
	err->detail[0] = 0; /* already said */
	return -1;
}

static void free_opts(struct opts *o)
{
	int i;

	ps_key__delete(o->keys);
	for (i = 0; i < o->nsums; i++)
		ps_key_sum__delete(o->sums[i]);
}

int main(int argc, char **argv)
{
	struct ps_error err = { 0 };
	struct ps_filter_error ferr;
	struct ps_order *ord = NULL;
	struct ctx *c = calloc(1, sizeof(*c));
	bool checked = false;
	struct ps_record rec;
	struct opts o;
	int r = 0;

	ps_progname = "pcount";
	ps_signals__init();
	parse_args(argc, argv, &o);
	if (!c)
		ps_usage_error("out of memory");
	c->o = &o;
	c->tty = isatty(1);
	if (o.where) {
		const char *e = o.where;

		c->where = ps_filter__parse(1, &e, &ferr);
		if (!c->where) {
			char *caret = ps_filter_error__caret(&ferr);

			ps_msg("--where: %s", ferr.msg);
			ps_caret(caret);
			free(caret);
			exit(2);
		}
	}
	c->in = ps_input__open(o.input, PS_INPUT_DECOMPRESS, &err);
	if (!c->in)
		ps_die(&err);
	c->s = ps_input__session(c->in);
	ps_input__set_idle(c->in, IDLE_MS);
	clock_gettime(CLOCK_MONOTONIC, &c->last_print);
	ord = ps_order__new(c->s, 0);
	if (!ord) {
		ps_error__set(&err, PS_ENOMEM, NULL, PS_NO_OFFSET, "out of memory");
		goto out;
	}
	while (!ps_stop && (r = ps_input__next(c->in, &rec, &err)) > 0) {
		if (r == PS_INPUT_IDLE) {
			ps_order__flush_all(ord);
		} else {
			if (!checked && rec.type < PS_RECORD_USER_START) {
				checked = true;
				if (check_names(c, &err) < 0) {
					r = -1;
					break;
				}
			}
			if (ps_order__push(ord, &rec, &err) < 0) {
				r = -1;
				break;
			}
		}
		if (drain(c, ord, &err) < 0 || (r == PS_INPUT_IDLE && idle_tick(c) < 0)) {
			r = -1;
			break;
		}
	}
	if (!checked && !err.code && check_names(c, &err) < 0)
		r = -1;
	if (err.code != PS_EUSAGE && err.code != PS_EPIPE) {
		struct ps_error late = { 0 };

		/* every sample read is counted, even after an error further on */
		ps_order__flush_all(ord);
		if (drain(c, ord, err.code ? &late : &err) == 0 || err.code != PS_EPIPE)
			if (err.code != PS_EPIPE && print_table(c, o.interval_ns != 0) < 0 &&
			    !err.code)
				ps_error__set(&err, PS_EPIPE, NULL, PS_NO_OFFSET, NULL);
	}
out:
	ps_order__delete(ord);
	if (ps_finish_stdout() < 0 && !err.code)
		err.code = PS_EWRITE;
	if (err.code && err.code != PS_EPIPE && err.detail[0])
		ps_warn(&err);
	ps_input__close(c->in);
	ps_filter__delete(c->where);
	clear_table(&c->t);
	free(c);
	free_opts(&o);
	if (err.code == PS_EUSAGE)
		return 2;
	return err.code && err.code != PS_EPIPE ? 1 : 0;
}
