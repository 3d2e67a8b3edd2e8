// SPDX-License-Identifier: GPL-2.0-only
/*
 * porder - print every sample of a stream in time order, with the comm the thread had at
 * that moment: a test program for the time-ordered view (order.h), compared with
 * `perf script -G -F comm,pid,tid,time --ns` by tests/order.bats.
 *
 * Default line: "TIME PID TID COMM", TIME as seconds.nanoseconds, COMM as raw bytes (perf
 * prints comms unescaped), ":TID" for a thread never named, as perf names it; -x prints
 * COMM in hex instead, so that a comm with a newline in it cannot break the line.  With -p
 * the line is laid out as perf script lays it out ("%16s %5d/%-5d %5lu.%09lu: "), byte for
 * byte.
 *
 * Like perf script it delivers one sample per member of a PERF_SAMPLE_READ group (each
 * with that member's period; none when the period did not move), and it does not sort a
 * perf.data file whose events lack sample_id_all (perf falls back to unordered processing).
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/diag.h"
#include "lib/input.h"
#include "lib/opts.h"
#include "lib/order.h"
#include "lib/sample.h"
#include "lib/session.h"
#include "lib/signals.h"
#include "lib/xalloc.h"

static const char usage_text[] = "usage: porder [-px] [-m bytes] [-t ms] [file]\n";

struct opts {
	bool perf_layout;  /* -p */
	bool hex;          /* -x: comm in hex */
	size_t mem_cap;    /* -m: bytes the view may hold; 0 is its default */
	int idle_ms;       /* -t: release everything after this long without input */
	const char *input; /* operand; "-" is standard input */
};

/* last value of each counter id, for the periods of PERF_SAMPLE_READ samples */
struct counter {
	uint64_t id, value;
};

struct counters {
	struct counter *slot; /* open addressing; id 0 marks a free slot */
	size_t cap, nr;
};

struct state {
	const struct opts *o;
	struct ps_session *s;
	const char *name;
	struct counters c;
	struct ps_read_value *vals;
	size_t nvals;
	bool unordered;
	bool decided;
};

static PS_NORETURN void usage(FILE *fp, int status)
{
	fputs(usage_text, fp);
	if (fp == stdout) {
		fputs("\nPrint the samples of a perf event stream in time order (a test program).\n\n"
		      "  -m BYTES  memory cap of the time-ordered view\n"
		      "  -p        lay lines out as perf script -F comm,pid,tid,time --ns does\n"
		      "  -t MS     release everything held after MS milliseconds without input\n"
		      "  -x        print comms in hex\n"
		      "  -h        show this help\n",
		      fp);
		exit(ps_finish_stdout() ? 1 : status);
	}
	exit(status);
}

static void parse_args(int argc, char **argv, struct opts *o)
{
	int c;

	memset(o, 0, sizeof(*o));
	while ((c = getopt(argc, argv, "hm:pt:x")) != -1) {
		switch (c) {
		case 'h':
			usage(stdout, 0);
		case 'm':
			o->mem_cap = ps_parse_u64(optarg, 1, SIZE_MAX, "-m");
			break;
		case 'p':
			o->perf_layout = true;
			break;
		case 't':
			o->idle_ms = (int)ps_parse_u64(optarg, 1, 3600000, "-t");
			break;
		case 'x':
			o->hex = true;
			break;
		default:
			usage(stderr, 2);
		}
	}
	if (argc - optind > 1)
		usage(stderr, 2);
	o->input = optind < argc ? argv[optind] : "-";
}

/*
 * The last value of counter @id (0 when first seen) into @prev, replaced by @value.
 * Return: false when out of memory.
 */
static bool counter_swap(struct counters *c, uint64_t id, uint64_t value, uint64_t *prev)
{
	size_t i, mask;

	if (c->nr * 2 >= c->cap) {
		struct counters n = { 0 };

		n.cap = c->cap ? c->cap * 2 : 64;
		n.slot = calloc(n.cap, sizeof(*n.slot));
		if (!n.slot)
			return false;
		for (i = 0; i < c->cap; i++)
			if (c->slot[i].id)
				counter_swap(&n, c->slot[i].id, c->slot[i].value, prev);
		free(c->slot);
		*c = n;
	}
	mask = c->cap - 1;
	for (i = (id * 0x9e3779b97f4a7c15ULL) >> 7 & mask; c->slot[i].id; i = (i + 1) & mask) {
		if (c->slot[i].id == id) {
			*prev = c->slot[i].value;
			c->slot[i].value = value;
			return true;
		}
	}
	c->slot[i].id = id;
	c->slot[i].value = value;
	c->nr++;
	*prev = 0;
	return true;
}

static void print_line(const struct state *st, const struct ps_sample *smp)
{
	const char *comm = ps_session__comm(st->s, smp->tid);
	uint64_t secs = smp->time / 1000000000, ns = smp->time % 1000000000;
	char unnamed[16], hex[2 * 16 + 1];
	size_t i;

	if (!comm) {
		snprintf(unnamed, sizeof(unnamed), ":%d", (int32_t)smp->tid);
		comm = unnamed;
	}
	if (st->o->hex) {
		for (i = 0; comm[i] && i < 16; i++)
			snprintf(hex + 2 * i, 3, "%02x", (unsigned char)comm[i]);
		hex[2 * i] = 0;
		comm = hex;
	}
	if (st->o->perf_layout)
		printf("%16s %5d/%-5d %5" PRIu64 ".%09" PRIu64 ": \n", comm, (int32_t)smp->pid,
		       (int32_t)smp->tid, secs, ns);
	else
		printf("%" PRIu64 ".%09" PRIu64 " %d %d %s\n", secs, ns, (int32_t)smp->pid,
		       (int32_t)smp->tid, comm);
}

/*
 * perf's evlist__deliver_sample(): a PERF_SAMPLE_READ sample is delivered once per counter
 * of its READ block whose id is known and whose value moved since that id's last sample.
 */
static int print_sample(struct state *st, const struct ps_record *rec, struct ps_error *err)
{
	uint64_t te, tr, prev;
	struct ps_sample smp;
	long n, i;

	if (ps_sample__parse(st->s, rec, &smp, st->name, err) < 0)
		return -1;
	if (!(smp.type & PERF_SAMPLE_READ)) {
		print_line(st, &smp);
		return 0;
	}
	n = ps_sample__read(&smp, &te, &tr, st->vals, st->nvals);
	if (n > (long)st->nvals) {
		struct ps_read_value *v = ps_realloc_array(st->vals, (size_t)n, sizeof(*v));

		if (!v)
			return ps_error__set(err, PS_ENOMEM, st->name, rec->offset,
			                     "out of memory");
		st->vals = v;
		st->nvals = (size_t)n;
		n = ps_sample__read(&smp, &te, &tr, st->vals, st->nvals);
	}
	if (n < 0)
		return ps_error__set(err, PS_ECORRUPT, st->name, rec->offset,
		                     "READ block does not fit the SAMPLE record");
	for (i = 0; i < n; i++) {
		if (!st->vals[i].id || !ps_session__attr_by_id(st->s, st->vals[i].id))
			continue;
		if (!counter_swap(&st->c, st->vals[i].id, st->vals[i].value, &prev))
			return ps_error__set(err, PS_ENOMEM, st->name, rec->offset,
			                     "out of memory");
		if (st->vals[i].value != prev)
			print_line(st, &smp);
	}
	return 0;
}

static int drain(struct state *st, struct ps_order *ord, struct ps_error *err)
{
	struct ps_record rec;

	while (ps_order__pop(ord, &rec) > 0) {
		if (rec.type == PERF_RECORD_SAMPLE && print_sample(st, &rec, err) < 0)
			return -1;
	}
	if (ps_order__take_overflow_notice(ord))
		ps_msg("%s: more than %zu bytes held for time order: released early, so the "
		       "order may differ from perf's",
		       st->name, st->o->mem_cap ? st->o->mem_cap : (size_t)PS_ORDER_DEFAULT_CAP);
	return 0;
}

/* perf script does not sort a perf.data file whose events lack sample_id_all. */
static void decide(struct state *st, struct ps_input *in, const struct ps_record *rec)
{
	const struct ps_attr *first = ps_session__attr(st->s, 0);

	if (st->decided || rec->type >= PS_RECORD_USER_START)
		return;
	st->decided = true;
	st->unordered = ps_input__format(in) == PS_FORMAT_FILE && first &&
	                !(first->flags & PS_ATTR_FLAG_SAMPLE_ID_ALL);
}

int main(int argc, char **argv)
{
	struct ps_error err = { 0 }, perr = { 0 };
	struct state st = { 0 };
	struct ps_order *ord;
	struct ps_input *in;
	struct ps_record rec;
	struct opts o;
	int r;

	ps_progname = "porder";
	ps_signals__init();
	parse_args(argc, argv, &o);

	in = ps_input__open(o.input, PS_INPUT_DECOMPRESS, &err);
	if (!in)
		ps_die(&err);
	st.o = &o;
	st.s = ps_input__session(in);
	st.name = ps_input__name(in);
	ord = ps_order__new(st.s, o.mem_cap);
	if (!ord) {
		ps_error__set(&err, PS_ENOMEM, st.name, PS_NO_OFFSET, "out of memory");
		ps_die(&err);
	}
	if (o.idle_ms)
		ps_input__set_idle(in, o.idle_ms);

	while (!ps_stop && (r = ps_input__next(in, &rec, &err)) != 0) {
		if (r < 0)
			break;
		if (r == PS_INPUT_IDLE) {
			ps_order__flush_all(ord);
			if (drain(&st, ord, &perr) < 0)
				break;
			fflush(stdout);
			continue;
		}
		decide(&st, in, &rec);
		if (ps_order__push(ord, &rec, &perr) < 0) {
			perr.input = st.name;
			break;
		}
		if (st.unordered)
			ps_order__flush_all(ord);
		if (drain(&st, ord, &perr) < 0)
			break;
	}

	/* Whatever happened, what was read comes out (perf flushes its queue at the end). */
	ps_order__end(ord);
	if (!perr.code)
		drain(&st, ord, &perr);
	if (ps_order__out_of_order(ord))
		ps_msg("%s: %" PRIu64 " out of order records", st.name,
		       ps_order__out_of_order(ord));
	r = ps_finish_stdout();
	ps_order__delete(ord);
	free(st.c.slot);
	free(st.vals);
	if (perr.code)
		ps_warn(&perr);
	if (err.code)
		ps_warn(&err);
	ps_input__close(in);
	return r || err.code || perr.code ? 1 : 0;
}
