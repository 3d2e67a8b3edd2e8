// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_order.c - the time-ordered view on hand-made records, in both byte orders: what
 * comes out at once, what waits for which FINISHED_ROUND, ties, the memory cap, the idle
 * release, and the comm a sample sees when an exec's COMM arrives late.
 */
#include <stdlib.h>
#include <string.h>

#include "lib/order.h"
#include "lib/session.h"
#include "unit.h"

#define ST_BASE (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD)
#define MISC_COMM_EXEC (1 << 13)

/* One record under construction, in the byte order of the stream being tested. */
struct rb {
	unsigned char b[256];
	size_t n;
	bool swap;
};

struct env {
	bool swap;
	struct ps_session *s;
	uint64_t offset, seq;
	struct rb last; /* the bytes of the last record made (push copies them) */
};

static void put16(struct rb *r, uint16_t v)
{
	if (r->n + 2 > sizeof(r->b))
		abort(); /* a bug in this test */
	v = r->swap ? __builtin_bswap16(v) : v;
	memcpy(r->b + r->n, &v, 2);
	r->n += 2;
}

static void put32(struct rb *r, uint32_t v)
{
	if (r->n + 4 > sizeof(r->b))
		abort(); /* a bug in this test */
	v = r->swap ? __builtin_bswap32(v) : v;
	memcpy(r->b + r->n, &v, 4);
	r->n += 4;
}

static void put64(struct rb *r, uint64_t v)
{
	if (r->n + 8 > sizeof(r->b))
		abort(); /* a bug in this test */
	v = r->swap ? __builtin_bswap64(v) : v;
	memcpy(r->b + r->n, &v, 8);
	r->n += 8;
}

static void begin(struct rb *r, bool swap, uint32_t type, uint16_t misc)
{
	memset(r, 0, sizeof(*r));
	r->swap = swap;
	put32(r, type);
	put16(r, misc);
	put16(r, 0); /* size, set by finish() */
}

/* Set the header's size and describe the record as ps_input__next() would. */
static struct ps_record finish(struct env *e, struct rb *r)
{
	struct ps_record rec = { 0 };
	uint16_t size = (uint16_t)r->n;

	r->n = 6;
	put16(r, size);
	r->n = size;
	e->last = *r;
	rec.data = e->last.b;
	rec.len = size;
	rec.size = size;
	memcpy(&rec.type, r->b, 4);
	rec.type = r->swap ? __builtin_bswap32(rec.type) : rec.type;
	memcpy(&rec.misc, r->b + 4, 2);
	rec.misc = r->swap ? __builtin_bswap16(rec.misc) : rec.misc;
	rec.offset = e->offset;
	rec.seq = e->seq++;
	e->offset += size;
	return rec;
}

/* A session with one software event of @sample_type, sample_id_all set. */
static struct ps_session *make_session(struct env *e, uint64_t sample_type)
{
	struct ps_error err = { 0 };
	struct ps_record rec;
	struct rb r;
	int i;

	e->s = ps_session__new(e->swap);
	begin(&r, e->swap, PS_RECORD_HEADER_ATTR, 0);
	put32(&r, PERF_TYPE_SOFTWARE); /* type */
	put32(&r, 128);                /* size */
	put64(&r, PERF_COUNT_SW_CPU_CLOCK);
	put64(&r, 1);           /* sample_period */
	put64(&r, sample_type); /* sample_type */
	put64(&r, 0);           /* read_format */
	/* flags: sample_id_all, where a big-endian compiler puts that bitfield */
	put64(&r, e->swap != ps_host_is_big_endian() ? 1ULL << (63 - 18) : 1ULL << 18);
	for (i = 48; i < 128; i += 8)
		put64(&r, 0);
	rec = finish(e, &r);
	CHECK(ps_session__process(e->s, &rec, "test", &err) == 0);
	return e->s;
}

static struct ps_record sample(struct env *e, uint32_t pid, uint32_t tid, uint64_t time)
{
	struct rb r;

	begin(&r, e->swap, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
	put64(&r, 0x400000); /* ip */
	put32(&r, pid);
	put32(&r, tid);
	put64(&r, time);
	put64(&r, 1); /* period */
	return finish(e, &r);
}

/* The sample_id trailer of the test attr: pid, tid, time. */
static void trailer(struct rb *r, uint32_t pid, uint32_t tid, uint64_t time)
{
	put32(r, pid);
	put32(r, tid);
	put64(r, time);
}

static struct ps_record comm(struct env *e, uint32_t pid, uint32_t tid, uint64_t time,
                             const char *name, bool exec)
{
	struct rb r;
	char padded[16] = { 0 };

	begin(&r, e->swap, PERF_RECORD_COMM, exec ? MISC_COMM_EXEC : 0);
	put32(&r, pid);
	put32(&r, tid);
	strncpy(padded, name, 15);
	memcpy(r.b + r.n, padded, 16);
	r.n += 16;
	trailer(&r, pid, tid, time);
	return finish(e, &r);
}

static struct ps_record task(struct env *e, uint32_t type, uint32_t pid, uint32_t ppid,
                             uint32_t tid, uint32_t ptid, uint64_t time)
{
	struct rb r;

	begin(&r, e->swap, type, 0);
	put32(&r, pid);
	put32(&r, ppid);
	put32(&r, tid);
	put32(&r, ptid);
	put64(&r, time);
	trailer(&r, pid, tid, time);
	return finish(e, &r);
}

static struct ps_record user(struct env *e, uint32_t type)
{
	struct rb r;

	begin(&r, e->swap, type, 0);
	return finish(e, &r);
}

static struct ps_record round_end(struct env *e)
{
	return user(e, PS_RECORD_FINISHED_ROUND);
}

static uint64_t get_u64(const struct env *e, const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return e->swap ? __builtin_bswap64(v) : v;
}

static uint32_t get_u32(const struct env *e, const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return e->swap ? __builtin_bswap32(v) : v;
}

/* time and tid of a popped SAMPLE */
static uint64_t stime(const struct env *e, const struct ps_record *rec)
{
	return get_u64(e, rec->data + 24);
}

static uint32_t stid(const struct env *e, const struct ps_record *rec)
{
	return get_u32(e, rec->data + 20);
}

/* failed pushes, checked once at the end (the flat-memory test pushes 200,000 records) */
static unsigned long push_failures;

static void push(struct ps_order *o, struct ps_record rec)
{
	struct ps_error err = { 0 };

	if (ps_order__push(o, &rec, &err) < 0)
		push_failures++;
}

/* Pop everything releasable; the types (or, for samples, the times) in @got. */
static size_t drain(struct env *e, struct ps_order *o, uint64_t *got, size_t max)
{
	struct ps_record rec;
	size_t n = 0;

	while (ps_order__pop(o, &rec) == 1) {
		if (n < max)
			got[n] = rec.type == PERF_RECORD_SAMPLE ? stime(e, &rec) :
			                                          1000000 + rec.type;
		n++;
	}
	return n;
}

#define ROUND_MARK (1000000 + PS_RECORD_FINISHED_ROUND)

/* ps_order__push() says whether records wait to be popped: a caller pops only then */
static void test_push_says_ready(bool swap)
{
	struct env e = { .swap = swap };
	struct ps_error err = { 0 };
	struct ps_record rec;
	struct ps_order *o;
	uint64_t got[8];

	make_session(&e, ST_BASE);
	o = ps_order__new(e.s, 0);
	CHECK(o != NULL);
	rec = sample(&e, 1, 1, 100);
	CHECK_EQ_U64(ps_order__push(o, &rec, &err), 0); /* queued */
	rec = user(&e, PS_RECORD_FINISHED_INIT);
	CHECK_EQ_U64(ps_order__push(o, &rec, &err), 1); /* out at once */
	rec = sample(&e, 1, 1, 300);
	CHECK_EQ_U64(ps_order__push(o, &rec, &err), 1); /* the user record still waits */
	CHECK_EQ_U64(drain(&e, o, got, 8), 1);
	rec = sample(&e, 1, 1, 200);
	CHECK_EQ_U64(ps_order__push(o, &rec, &err), 0);
	rec = round_end(&e); /* the limit is 0: only the FINISHED_ROUND */
	CHECK_EQ_U64(ps_order__push(o, &rec, &err), 1);
	CHECK_EQ_U64(drain(&e, o, got, 8), 1);
	rec = round_end(&e); /* up to 300 */
	CHECK_EQ_U64(ps_order__push(o, &rec, &err), 1);
	CHECK_EQ_U64(drain(&e, o, got, 8), 4);
	CHECK_EQ_U64(got[0], 100);
	CHECK_EQ_U64(got[2], 300);
	CHECK_EQ_U64(err.code, 0);
	ps_order__delete(o);
	ps_session__delete(e.s);
}

static void test_immediate(bool swap)
{
	struct env e = { .swap = swap };
	struct ps_order *o;
	struct ps_record rec;
	uint64_t got[8];

	make_session(&e, ST_BASE);
	o = ps_order__new(e.s, 0);
	CHECK(o != NULL);
	push(o, sample(&e, 1, 1, 100));
	CHECK_EQ_U64(ps_order__queued(o), 1);
	CHECK(ps_order__pop(o, &rec) == 0);

	/* user records and kernel records at time 0 or ~0 come out at once, in arrival order */
	push(o, user(&e, PS_RECORD_FINISHED_INIT));
	push(o, comm(&e, 2, 2, 0, "synth", false));
	push(o, sample(&e, 3, 3, 0));
	push(o, sample(&e, 4, 4, UINT64_MAX));
	CHECK_EQ_U64(drain(&e, o, got, 8), 4);
	CHECK_EQ_U64(got[0], 1000000 + PS_RECORD_FINISHED_INIT);
	CHECK_EQ_U64(got[1], 1000000 + PERF_RECORD_COMM);
	CHECK_EQ_U64(got[2], 0);
	CHECK_EQ_U64(got[3], UINT64_MAX);
	CHECK_EQ_U64(ps_order__queued(o), 1);
	CHECK(ps_session__comm(e.s, 2) && !strcmp(ps_session__comm(e.s, 2), "synth"));

	ps_order__end(o);
	CHECK_EQ_U64(drain(&e, o, got, 8), 1);
	CHECK_EQ_U64(got[0], 100);
	ps_order__delete(o);
	ps_session__delete(e.s);

	/* without PERF_SAMPLE_TIME nothing has a time: all comes out at once */
	e = (struct env){ .swap = swap };
	make_session(&e, PERF_SAMPLE_IP | PERF_SAMPLE_TID);
	o = ps_order__new(e.s, 0);
	{
		struct rb r;

		begin(&r, swap, PERF_RECORD_SAMPLE, 0);
		put64(&r, 1);
		put32(&r, 7);
		put32(&r, 7);
		rec = finish(&e, &r);
	}
	push(o, rec);
	CHECK_EQ_U64(ps_order__queued(o), 0);
	CHECK(ps_order__pop(o, &rec) == 1 && rec.type == PERF_RECORD_SAMPLE);
	CHECK(ps_order__pop(o, &rec) == 0);
	ps_order__delete(o);
	ps_session__delete(e.s);
}

/*
 * Round k releases what is at most the highest time queued as of round k-1: so the data
 * before the first FINISHED_ROUND comes out at the second one, and a round's records that
 * are newer than the previous round's maximum wait for the next.
 */
static void test_rounds(bool swap)
{
	struct env e = { .swap = swap };
	struct ps_order *o;
	uint64_t got[16];

	make_session(&e, ST_BASE);
	o = ps_order__new(e.s, 0);
	push(o, sample(&e, 1, 1, 100));
	push(o, sample(&e, 1, 1, 300));
	push(o, sample(&e, 1, 1, 200));
	CHECK_EQ_U64(drain(&e, o, got, 16), 0);

	/* round 1: the limit is still 0, only the FINISHED_ROUND itself comes out */
	push(o, round_end(&e));
	CHECK_EQ_U64(drain(&e, o, got, 16), 1);
	CHECK_EQ_U64(got[0], ROUND_MARK);
	CHECK_EQ_U64(ps_order__queued(o), 3);

	push(o, sample(&e, 1, 1, 250));
	push(o, sample(&e, 1, 1, 400));
	push(o, sample(&e, 1, 1, 300)); /* ties the 300 of round 1, arrives later */
	CHECK_EQ_U64(drain(&e, o, got, 16), 0);

	/* round 2: up to 300 (round 1's maximum), sorted, then the FINISHED_ROUND */
	push(o, round_end(&e));
	CHECK_EQ_U64(drain(&e, o, got, 16), 6);
	CHECK_EQ_U64(got[0], 100);
	CHECK_EQ_U64(got[1], 200);
	CHECK_EQ_U64(got[2], 250);
	CHECK_EQ_U64(got[3], 300);
	CHECK_EQ_U64(got[4], 300);
	CHECK_EQ_U64(got[5], ROUND_MARK);
	CHECK_EQ_U64(ps_order__queued(o), 1);
	CHECK_EQ_U64(ps_order__out_of_order(o), 0);

	/* a late record, older than what came out: counted, and released at the next round */
	push(o, sample(&e, 1, 1, 150));
	CHECK_EQ_U64(ps_order__out_of_order(o), 1);
	push(o, sample(&e, 1, 1, 500));
	CHECK_EQ_U64(drain(&e, o, got, 16), 0);
	push(o, round_end(&e)); /* limit 400: round 2's maximum */
	CHECK_EQ_U64(drain(&e, o, got, 16), 3);
	CHECK_EQ_U64(got[0], 150);
	CHECK_EQ_U64(got[1], 400);
	CHECK_EQ_U64(got[2], ROUND_MARK);

	/* the end releases the rest */
	push(o, sample(&e, 1, 1, 450));
	ps_order__end(o);
	CHECK_EQ_U64(drain(&e, o, got, 16), 2);
	CHECK_EQ_U64(got[0], 450);
	CHECK_EQ_U64(got[1], 500);
	CHECK_EQ_U64(ps_order__queued(o), 0);
	CHECK_EQ_U64(ps_order__queued_bytes(o), 0);
	ps_order__delete(o);
	ps_session__delete(e.s);
}

/*
 * perf's max_timestamp restarts from the first record queued after the queue ran empty;
 * the view keeps that, so a round's limit can go down.
 */
static void test_round_limit_restarts(void)
{
	struct env e = { 0 };
	struct ps_order *o;
	uint64_t got[8];

	make_session(&e, ST_BASE);
	o = ps_order__new(e.s, 0);
	push(o, sample(&e, 1, 1, 1000));
	push(o, round_end(&e)); /* limit 0; next limit 1000 */
	push(o, round_end(&e)); /* releases 1000: empty */
	CHECK_EQ_U64(drain(&e, o, got, 8), 3);
	push(o, sample(&e, 1, 1, 900)); /* late, and the new maximum */
	push(o, round_end(&e));         /* limit 1000: releases 900; next limit 900 */
	push(o, sample(&e, 1, 1, 950));
	push(o, round_end(&e)); /* limit 900: 950 stays */
	CHECK_EQ_U64(drain(&e, o, got, 8), 3);
	CHECK_EQ_U64(got[0], 900);
	CHECK_EQ_U64(got[1], ROUND_MARK);
	CHECK_EQ_U64(got[2], ROUND_MARK);
	CHECK_EQ_U64(ps_order__queued(o), 1);
	CHECK_EQ_U64(ps_order__out_of_order(o), 1);

	/* 950 waited, so a 940 arriving now still comes out before it (perf does the same) */
	push(o, sample(&e, 1, 1, 940));
	ps_order__end(o);
	CHECK_EQ_U64(drain(&e, o, got, 8), 2);
	CHECK_EQ_U64(got[0], 940);
	CHECK_EQ_U64(got[1], 950);
	CHECK_EQ_U64(ps_order__out_of_order(o), 1);
	ps_order__delete(o);
	ps_session__delete(e.s);
}

/* Equal times come out in arrival order, with their seq, offset, flags and bytes. */
static void test_ties(bool swap)
{
	struct env e = { .swap = swap };
	struct ps_record rec, in[6];
	struct ps_order *o;
	uint32_t tids[] = { 5, 1, 2, 3, 4, 6 };
	uint64_t times[] = { 70, 50, 50, 50, 50, 10 };
	size_t i;

	make_session(&e, ST_BASE);
	o = ps_order__new(e.s, 0);
	for (i = 0; i < 6; i++) {
		in[i] = sample(&e, tids[i], tids[i], times[i]);
		in[i].flags = PS_RECORD_INNER;
		push(o, in[i]);
		memset(e.last.b, 0xee, sizeof(e.last.b)); /* the view holds its own copy */
	}
	ps_order__end(o);
	for (i = 0; i < 6; i++) {
		static const size_t want[] = { 5, 1, 2, 3, 4, 0 };
		const struct ps_record *w = &in[want[i]];

		CHECK(ps_order__pop(o, &rec) == 1);
		CHECK_EQ_U64(stid(&e, &rec), tids[want[i]]);
		CHECK_EQ_U64(stime(&e, &rec), times[want[i]]);
		CHECK_EQ_U64(rec.seq, w->seq);
		CHECK_EQ_U64(rec.offset, w->offset);
		CHECK_EQ_U64(rec.size, w->size);
		CHECK_EQ_U64(rec.len, w->len);
		CHECK_EQ_U64(rec.misc, PERF_RECORD_MISC_USER);
		CHECK_EQ_U64(rec.flags, PS_RECORD_INNER);
	}
	CHECK(ps_order__pop(o, &rec) == 0);
	ps_order__delete(o);
	ps_session__delete(e.s);
}

/* Over the cap, everything queued comes out in time order, and the notice is given once. */
static void test_mem_cap(void)
{
	struct env e = { 0 };
	struct ps_order *o;
	uint64_t got[8];
	size_t one;

	make_session(&e, ST_BASE);
	o = ps_order__new(e.s, 0);
	push(o, sample(&e, 1, 1, 10));
	one = ps_order__queued_bytes(o);
	CHECK(one >= 40);
	ps_order__delete(o);

	o = ps_order__new(e.s, 3 * one);
	push(o, sample(&e, 1, 1, 30));
	push(o, sample(&e, 1, 1, 10));
	push(o, sample(&e, 1, 1, 20));
	CHECK_EQ_U64(ps_order__queued_bytes(o), 3 * one);
	CHECK_EQ_U64(drain(&e, o, got, 8), 0);
	CHECK(!ps_order__take_overflow_notice(o));

	push(o, sample(&e, 1, 1, 15));
	CHECK_EQ_U64(ps_order__queued(o), 0);
	CHECK_EQ_U64(ps_order__queued_bytes(o), 0);
	CHECK_EQ_U64(ps_order__overflows(o), 1);
	CHECK(ps_order__take_overflow_notice(o));
	CHECK(!ps_order__take_overflow_notice(o));
	CHECK_EQ_U64(drain(&e, o, got, 8), 4);
	CHECK_EQ_U64(got[0], 10);
	CHECK_EQ_U64(got[1], 15);
	CHECK_EQ_U64(got[2], 20);
	CHECK_EQ_U64(got[3], 30);

	/* a second overflow is counted, but the notice is not given again */
	push(o, sample(&e, 1, 1, 25)); /* older than what came out */
	push(o, sample(&e, 1, 1, 40));
	push(o, sample(&e, 1, 1, 50));
	push(o, sample(&e, 1, 1, 60));
	CHECK_EQ_U64(ps_order__overflows(o), 2);
	CHECK_EQ_U64(ps_order__out_of_order(o), 1);
	CHECK(!ps_order__take_overflow_notice(o));
	CHECK_EQ_U64(drain(&e, o, got, 8), 4);
	CHECK_EQ_U64(got[0], 25);
	ps_order__delete(o);
	ps_session__delete(e.s);
}

/* The idle release: everything held comes out; the round rule goes on afterwards. */
static void test_flush_all(bool swap)
{
	struct env e = { .swap = swap };
	struct ps_order *o;
	uint64_t got[8];

	make_session(&e, ST_BASE);
	o = ps_order__new(e.s, 0);
	push(o, sample(&e, 1, 1, 300));
	push(o, round_end(&e));
	push(o, sample(&e, 1, 1, 200));
	push(o, sample(&e, 1, 1, 100));
	CHECK_EQ_U64(drain(&e, o, got, 8), 1);
	ps_order__flush_all(o);
	CHECK_EQ_U64(drain(&e, o, got, 8), 3);
	CHECK_EQ_U64(got[0], 100);
	CHECK_EQ_U64(got[1], 200);
	CHECK_EQ_U64(got[2], 300);
	ps_order__flush_all(o);
	CHECK_EQ_U64(drain(&e, o, got, 8), 0);

	push(o, sample(&e, 1, 1, 350));
	push(o, round_end(&e)); /* limit 300 (set by the first round): 350 stays */
	CHECK_EQ_U64(drain(&e, o, got, 8), 1);
	CHECK_EQ_U64(got[0], ROUND_MARK);
	push(o, round_end(&e));
	CHECK_EQ_U64(drain(&e, o, got, 8), 2);
	CHECK_EQ_U64(got[0], 350);
	CHECK_EQ_U64(ps_order__out_of_order(o), 0);
	ps_order__delete(o);
	ps_session__delete(e.s);
}

static bool comm_is(struct ps_session *s, uint32_t tid, const char *want)
{
	const char *c = ps_session__comm(s, tid);

	if (!want)
		return c == NULL;
	return c && !strcmp(c, want);
}

/*
 * An exec's COMM written by one CPU after a sample another CPU took later: the samples
 * see the name they had at their time, as perf script prints it.
 */
static void test_comm_at_sample_time(bool swap)
{
	struct env e = { .swap = swap };
	struct ps_record rec;
	struct ps_order *o;
	int n = 0, ok = 0;

	make_session(&e, ST_BASE);
	o = ps_order__new(e.s, 0);
	push(o, comm(&e, 100, 100, 0, "sh", false)); /* synthesized: time 0 */
	push(o, sample(&e, 100, 100, 1000));
	push(o, sample(&e, 100, 100, 3000));
	push(o, comm(&e, 100, 100, 2000, "ls", true));
	push(o, sample(&e, 100, 100, 2500));
	push(o, round_end(&e));
	push(o, task(&e, PERF_RECORD_FORK, 101, 100, 101, 100, 3500));
	push(o, sample(&e, 101, 101, 3600));
	push(o, task(&e, PERF_RECORD_FORK, 102, 999, 102, 999, 3700)); /* unnamed parent */
	push(o, sample(&e, 102, 102, 3800));
	push(o, task(&e, PERF_RECORD_EXIT, 101, 100, 101, 100, 3900));
	push(o, sample(&e, 101, 101, 3950)); /* a name outlives its thread's EXIT */
	push(o, sample(&e, 0, 0, 3960));
	push(o, sample(&e, 200, 201, 3970)); /* never named */
	push(o, round_end(&e));
	ps_order__end(o);

	/* the COMM at time 0 is applied when it comes out, before any sample */
	while (ps_order__pop(o, &rec) == 1) {
		uint64_t t;

		if (rec.type != PERF_RECORD_SAMPLE)
			continue;
		t = stime(&e, &rec);
		n++;
		if (t == 1000)
			ok += comm_is(e.s, 100, "sh");
		else if (t == 2500 || t == 3000)
			ok += comm_is(e.s, 100, "ls");
		else if (t == 3600 || t == 3950)
			ok += comm_is(e.s, 101, "ls");
		else if (t == 3800)
			ok += comm_is(e.s, 102, NULL);
		else if (t == 3960)
			ok += comm_is(e.s, 0, "swapper");
		else if (t == 3970)
			ok += comm_is(e.s, 201, NULL);
	}
	CHECK_EQ_U64(n, 8);
	CHECK_EQ_U64(ok, 8);
	ps_order__delete(o);
	ps_session__delete(e.s);
}

/* A name the stream gave thread 0 is kept. */
static void test_swapper_kept(void)
{
	struct env e = { 0 };
	struct ps_order *o;

	make_session(&e, ST_BASE);
	ps_session__set_comm(e.s, 0, 0, "idle");
	o = ps_order__new(e.s, 0);
	CHECK(comm_is(e.s, 0, "idle"));
	ps_order__delete(o);
	ps_session__delete(e.s);
}

/* An endless stream with rounds: what is held stays bounded, and order holds throughout. */
static void test_flat(void)
{
	struct env e = { 0 };
	struct ps_record rec;
	struct ps_order *o;
	size_t max_queued = 0, max_bytes = 0, out = 0;
	uint64_t i, last = 0, disorder = 0;

	make_session(&e, ST_BASE);
	o = ps_order__new(e.s, 0);
	for (i = 0; i < 200000; i++) {
		/* two CPUs drained in turn: times interleave within a window of 16 */
		uint64_t t = 1000 + i * 10 + (i % 2 ? 0 : 160);

		push(o, sample(&e, 1, 1, t));
		if (i % 16 == 15)
			push(o, round_end(&e));
		if (ps_order__queued(o) > max_queued)
			max_queued = ps_order__queued(o);
		if (ps_order__queued_bytes(o) > max_bytes)
			max_bytes = ps_order__queued_bytes(o);
		while (ps_order__pop(o, &rec) == 1) {
			if (rec.type != PERF_RECORD_SAMPLE)
				continue;
			disorder += stime(&e, &rec) < last;
			last = stime(&e, &rec);
			out++;
		}
	}
	ps_order__end(o);
	while (ps_order__pop(o, &rec) == 1) {
		disorder += stime(&e, &rec) < last;
		last = stime(&e, &rec);
		out++;
	}
	CHECK_EQ_U64(out, 200000);
	CHECK_EQ_U64(disorder, 0);
	CHECK_EQ_U64(ps_order__out_of_order(o), 0);
	CHECK(max_queued <= 64);
	CHECK(max_bytes <= 64 * 200);
	ps_order__delete(o);
	ps_session__delete(e.s);
}

/*
 * Pinned copies: each stays as it was pushed after the view popped it and went on carving
 * new copies, until it is unpinned; unpinned in arrival order, the arena is reused, so
 * memory stays flat however many records pass.  (Under ASan a copy freed too early is a
 * use after free.)
 */
static void test_pinned(void)
{
	enum {
		WINDOW = 3000, /* pinned at once: more than a chunk of copies */
		TOTAL = 60000
	};
	static const unsigned char *pins[WINDOW];
	static uint64_t times[WINDOW];
	struct env e = { 0 };
	struct ps_error err = { 0 };
	struct ps_record rec;
	struct ps_order *o;
	unsigned int i, bad = 0, fails = 0, popped = 0, ready_seen = 0, not_ready = 0, bad_attr = 0;

	make_session(&e, ST_BASE);
	o = ps_order__new(e.s, 0);
	for (i = 0; i < TOTAL; i++) {
		unsigned int slot = i % WINDOW;

		if (i >= WINDOW) { /* the oldest pin: still the record it was */
			bad += stime(&e, &(struct ps_record){ .data = pins[slot] }) != times[slot];
			ps_order__unpin(o, pins[slot]);
		}
		rec = sample(&e, 1, 1, 1000 + i);
		times[slot] = 1000 + i;
		pins[slot] = ps_order__push_pinned(o, &rec, &err);
		if (!pins[slot]) {
			fails++;
			break;
		}
		if (i % 16 == 15) {
			push(o, round_end(&e));
			ready_seen += ps_order__ready(o) > 0;
		} else {
			not_ready += ps_order__ready(o) != 0; /* a sample waits for its round */
		}
		while (ps_order__pop(o, &rec) == 1) {
			popped += rec.type == PERF_RECORD_SAMPLE;
			/* the attr found at the push, handed on */
			bad_attr += rec.type == PERF_RECORD_SAMPLE &&
			            (!ps_order__attr(o) ||
			             ps_order__attr(o) != ps_session__attr_of(e.s, &rec));
		}
		not_ready += ps_order__ready(o) != 0;
	}
	ps_order__end(o);
	while (ps_order__pop(o, &rec) == 1)
		popped += rec.type == PERF_RECORD_SAMPLE;
	for (i = TOTAL - WINDOW; i < TOTAL && !fails; i++) {
		unsigned int slot = i % WINDOW;

		bad += stime(&e, &(struct ps_record){ .data = pins[slot] }) != times[slot];
		ps_order__unpin(o, pins[slot]);
	}
	CHECK_EQ_U64(fails, 0);
	CHECK_EQ_U64(popped, TOTAL);
	CHECK_EQ_U64(ready_seen, TOTAL / 16); /* every round end releases (at least itself) */
	CHECK_EQ_U64(not_ready, 0);
	CHECK_EQ_U64(bad_attr, 0);
	CHECK_EQ_U64(bad, 0);
	CHECK_EQ_U64(ps_order__overflows(o), 0);
	ps_order__delete(o);
	ps_session__delete(e.s);
}

/* reference: (time, arrival) pairs sorted stably */
static int cmp_pair(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	if (x[0] != y[0])
		return x[0] < y[0] ? -1 : 1;
	return x[1] < y[1] ? -1 : x[1] > y[1];
}

/*
 * Many interleaved runs (CPUs drained in turn), more runs than the view merges (the rest in
 * its heap), descending times, random times with ties: what comes out at the end is sorted
 * on (time, arrival), nothing lost.  The tid carries the arrival number.
 */
static void test_runs(unsigned int cpus, unsigned int kind)
{
	enum {
		N = 6000
	};
	static uint64_t want[N][2];
	struct env e = { 0 };
	struct ps_record rec;
	struct ps_order *o;
	uint64_t seed = 88172645463325252ull;
	unsigned int i, n = 0, bad = 0;

	make_session(&e, ST_BASE);
	o = ps_order__new(e.s, 0);
	for (i = 0; i < N; i++) {
		unsigned int cpu = (i / 50) % cpus, k = i / (50 * cpus);
		uint64_t t;

		seed ^= seed << 13;
		seed ^= seed >> 7;
		seed ^= seed << 17;
		if (kind == 0) /* each CPU in order, blocks of 50 interleaved */
			t = 1000 + (uint64_t)k * 5000 + (i % 50) * 100 + cpu;
		else if (kind == 1) /* descending: every record opens a run */
			t = 1000000 - i;
		else /* random, many ties */
			t = 1 + seed % 500;
		want[i][0] = t;
		want[i][1] = i;
		push(o, sample(&e, 1, i, t));
	}
	ps_order__end(o);
	qsort(want, N, sizeof(want[0]), cmp_pair);
	while (ps_order__pop(o, &rec) == 1) {
		if (n < N && (stime(&e, &rec) != want[n][0] || stid(&e, &rec) != want[n][1]))
			bad++;
		n++;
	}
	CHECK_EQ_U64(n, N);
	CHECK_EQ_U64(bad, 0);
	ps_order__delete(o);
	ps_session__delete(e.s);
}

/*
 * ps_order__oldest_offset() bounds what is held: never above the offset of a record the
 * view still holds (queued, or popped and not yet given back by the next pop), the
 * first held record's own offset when nothing before it was, none when nothing is held.
 * Records in rounds, out of time order, over many chunks.
 */
static void test_oldest_offset(void)
{
	struct env e = { 0 };
	struct ps_record rec;
	struct ps_order *o;
	uint64_t first_off, round_first, prev_first = 0;
	size_t popped = 0, i, round;

	make_session(&e, ST_BASE);
	o = ps_order__new(e.s, 0);
	CHECK(o != NULL);
	CHECK_EQ_U64(ps_order__oldest_offset(o), UINT64_MAX);
	first_off = e.offset;
	push(o, sample(&e, 1, 1, 1000));
	push(o, sample(&e, 1, 1, 500));
	CHECK_EQ_U64(ps_order__oldest_offset(o), first_off);
	/* rounds of 5000 samples, times falling within a round: after a round's
	 * FINISHED_ROUND the view holds that round's samples, the one before released */
	for (round = 0; round < 20; round++) {
		round_first = e.offset;
		for (i = 0; i < 5000; i++)
			push(o, sample(&e, 1, 1, 2000 + round * 10000 + (5000 - i)));
		push(o, round_end(&e));
		while (ps_order__pop(o, &rec) == 1)
			popped++;
		CHECK(ps_order__oldest_offset(o) <= round_first);
		/* what came before the round before is given back, but for the rest of a
		 * chunk (256 KiB of arena: fewer bytes of input) */
		if (round > 1)
			CHECK(ps_order__oldest_offset(o) + (256u << 10) >= prev_first);
		prev_first = round_first;
	}
	ps_order__end(o);
	while (ps_order__pop(o, &rec) == 1)
		popped++;
	CHECK_EQ_U64(popped, 2 + 20 * 5001);
	CHECK_EQ_U64(ps_order__oldest_offset(o), UINT64_MAX);
	ps_order__delete(o);
	ps_session__delete(e.s);
}

int main(void)
{
	int swap;

	for (swap = 0; swap <= 1; swap++) {
		test_immediate(swap);
		test_push_says_ready(swap);
		test_rounds(swap);
		test_ties(swap);
		test_flush_all(swap);
		test_comm_at_sample_time(swap);
	}
	test_round_limit_restarts();
	test_mem_cap();
	test_swapper_kept();
	test_flat();
	test_pinned();
	test_oldest_offset();
	test_runs(1, 0);
	test_runs(4, 0);
	test_runs(100, 0);
	test_runs(400, 0);
	test_runs(1, 1);
	test_runs(1, 2);
	CHECK_EQ_U64(push_failures, 0);
	return UNIT_DONE("order");
}
