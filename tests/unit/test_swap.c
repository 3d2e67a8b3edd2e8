// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_swap.c - records turned to the other byte order: every record is built twice, once
 * in each order, and the turned bytes of one must be the bytes of the other (both ways),
 * field by field at its width, with text and build-ids left as they are; then what the
 * turner refuses: fields that do not fit, a record of no event, layouts it does not know
 * (left alone and counted, or refused under PS_SWAP_STRICT).
 */
#include <stdlib.h>
#include <string.h>

#include "lib/swap.h"
#include "build.h"
#include "unit.h"

#define ST                                                                                        \
	(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | PERF_SAMPLE_CPU | \
	 PERF_SAMPLE_PERIOD)

/* the sample_id trailer of ST: pid, tid, time, id, cpu, res */
static void trailer(struct buf *b, uint64_t id)
{
	put32(b, 300);
	put32(b, 301);
	put64(b, 123456789);
	put64(b, id);
	put32(b, 1);
	put32(b, 0);
}

static void sample(struct buf *b)
{
	size_t at = rec_begin(b, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);

	put64(b, 0x401000); /* ip */
	put32(b, 300);
	put32(b, 301);
	put64(b, 123456789); /* time */
	put64(b, 22);        /* id: the second event */
	put32(b, 1);         /* cpu */
	put32(b, 0);
	put64(b, 1000); /* period */
	rec_end(b, at);
}

static void comm(struct buf *b)
{
	size_t at = rec_begin(b, PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC);

	put32(b, 300);
	put32(b, 301);
	put_bytes(b, "worker\0", 8);
	trailer(b, 11);
	rec_end(b, at);
}

static void mmap2(struct buf *b, bool build_id)
{
	size_t at = rec_begin(b, PERF_RECORD_MMAP2, build_id ? PERF_RECORD_MISC_MMAP_BUILD_ID : 0);

	put32(b, 300);
	put32(b, 300);
	put64(b, 0x400000); /* start */
	put64(b, 0x2000);   /* len */
	put64(b, 0x1000);   /* pgoff */
	if (build_id) {
		put_bytes(b, "\x14\0\0\0", 4); /* size 20, padding */
		put_bytes(b, "0123456789abcdefghij", 20);
	} else {
		put32(b, 8);
		put32(b, 1);
		put64(b, 4242);
		put64(b, 7);
	}
	put32(b, 5); /* prot */
	put32(b, 2); /* flags */
	put_bytes(b, "/bin/true\0\0\0\0\0\0", 16);
	trailer(b, 11);
	rec_end(b, at);
}

static void mmap2_inode(struct buf *b)
{
	mmap2(b, false);
}

static void mmap2_build_id(struct buf *b)
{
	mmap2(b, true);
}

/* a record of @n fields of the given widths, then the trailer of event @id (0: none) */
struct field {
	unsigned int width;
	uint64_t v;
};

static void fields(struct buf *b, uint32_t type, const struct field *f, size_t n, uint64_t id)
{
	size_t at = rec_begin(b, type, 0), i;

	for (i = 0; i < n; i++) {
		if (f[i].width == 8)
			put64(b, f[i].v);
		else if (f[i].width == 4)
			put32(b, (uint32_t)f[i].v);
		else
			put16(b, (uint16_t)f[i].v);
	}
	if (id)
		trailer(b, id);
	rec_end(b, at);
}

static void fork_rec(struct buf *b)
{
	static const struct field f[] = {
		{ 4, 300 }, { 4, 200 }, { 4, 302 }, { 4, 200 }, { 8, 99 }
	};

	fields(b, PERF_RECORD_FORK, f, ARRAY_SIZE(f), 22);
}

static void lost(struct buf *b)
{
	static const struct field f[] = { { 8, 11 }, { 8, 17 } };

	fields(b, PERF_RECORD_LOST, f, ARRAY_SIZE(f), 11);
}

static void throttle(struct buf *b)
{
	static const struct field f[] = { { 8, 5000 }, { 8, 11 }, { 8, 12 } };

	fields(b, PERF_RECORD_THROTTLE, f, ARRAY_SIZE(f), 11);
}

static void text_poke(struct buf *b)
{
	static const struct field f[] = {
		{ 8, 0xffffffff81000000ULL }, { 2, 0 }, { 2, 0 }, { 4, 0 }
	};

	fields(b, PERF_RECORD_TEXT_POKE, f, ARRAY_SIZE(f), 11);
}

static void namespaces(struct buf *b)
{
	static const struct field f[] = {
		{ 4, 300 }, { 4, 301 },        { 8, 2 }, /* pid, tid, two namespaces */
		{ 8, 1 },   { 8, 0xf0000001 }, { 8, 2 }, { 8, 0xf0000002 }, /* dev, inode each */
	};

	fields(b, PERF_RECORD_NAMESPACES, f, ARRAY_SIZE(f), 11);
}

static void ksymbol(struct buf *b)
{
	size_t at = rec_begin(b, PERF_RECORD_KSYMBOL, 0);

	put64(b, 0xffffffffc0000000ULL);
	put32(b, 4096);
	put16(b, 1);
	put16(b, 0);
	put_bytes(b, "bpf_prog_1\0\0\0\0\0\0", 16);
	trailer(b, 11);
	rec_end(b, at);
}

static void feature_hostname(struct buf *b)
{
	size_t at = rec_begin(b, PS_RECORD_HEADER_FEATURE, 0);

	put64(b, PS_FEAT_HOSTNAME);
	put32(b, 8);
	put_bytes(b, "host\0\0\0\0", 8);
	rec_end(b, at);
}

static void feature_nrcpus(struct buf *b)
{
	static const struct field f[] = { { 8, PS_FEAT_NRCPUS }, { 4, 2 }, { 4, 4 } };

	fields(b, PS_RECORD_HEADER_FEATURE, f, ARRAY_SIZE(f), 0);
}

static void event_update(struct buf *b)
{
	static const struct field f[] = {
		{ 8, PS_EVENT_UPDATE_SCALE }, { 8, 11 }, { 8, 0x3ff0000000000000ULL } /* 1.0 */
	};

	fields(b, PS_RECORD_EVENT_UPDATE, f, ARRAY_SIZE(f), 0);
}

static void round_rec(struct buf *b)
{
	rec_end(b, rec_begin(b, PS_RECORD_FINISHED_ROUND, 0));
}

/* the two events: ids 11 and 22, ST, sample_id_all */
static void attrs(struct buf *b)
{
	const struct attr_spec a = { .type = PERF_TYPE_SOFTWARE,
		                     .sample_type = ST,
		                     .flags = PS_ATTR_FLAG_SAMPLE_ID_ALL };
	const uint64_t id1 = 11, id2 = 22;

	attr_rec(b, &a, &id1, 1);
	attr_rec(b, &a, &id2, 1);
}

struct order {
	struct buf b;
	struct ps_session *s;
	struct ps_swap *w;
};

/* a session of the order @swap, fed the attrs */
static void order_open(struct order *o, bool swap, unsigned int flags)
{
	memset(o, 0, sizeof(*o));
	o->b.swap = swap;
	attrs(&o->b);
	o->s = session_fed(&o->b);
	o->w = ps_swap__new(o->s, flags);
	if (!o->w)
		abort();
}

static void order_close(struct order *o)
{
	ps_swap__delete(o->w);
	ps_session__delete(o->s);
	buf_free(&o->b);
}

/* @o's record at @at turned: NULL with @err set when refused */
static const unsigned char *turn(struct order *o, size_t at, struct ps_error *err)
{
	struct ps_record rec = rec_at(&o->b, at);

	return ps_swap__record(o->w, &rec, "test", err);
}

/* @build in both orders: each turned is the other, and turned twice is itself */
static void check_both_ways(void (*build)(struct buf *), const char *what)
{
	struct order a, b;
	struct ps_error err = { 0 };
	const unsigned char *t;
	size_t size;

	order_open(&a, false, PS_SWAP_STRICT);
	order_open(&b, true, PS_SWAP_STRICT);
	build(&a.b);
	build(&b.b);
	CHECK(a.b.len == b.b.len);
	size = rec_at(&a.b, 0).size;
	t = turn(&a, 0, &err);
	CHECK(t && memcmp(t, b.b.p, size) == 0);
	t = turn(&b, 0, &err);
	CHECK(t && memcmp(t, a.b.p, size) == 0);
	CHECK_EQ_U64(ps_swap__left_alone(a.w) + ps_swap__left_alone(b.w), 0);
	if (err.code)
		fprintf(stderr, "%s: %s\n", what, err.detail);
	order_close(&a);
	order_close(&b);
}

static void test_layouts(void)
{
	static const struct {
		void (*build)(struct buf *);
		const char *what;
	} cases[] = {
		{ attrs, "ATTR" },
		{ sample, "SAMPLE" },
		{ comm, "COMM" },
		{ mmap2_inode, "MMAP2" },
		{ mmap2_build_id, "MMAP2 build-id" },
		{ fork_rec, "FORK" },
		{ lost, "LOST" },
		{ namespaces, "NAMESPACES" },
		{ throttle, "THROTTLE" },
		{ text_poke, "TEXT_POKE" },
		{ ksymbol, "KSYMBOL" },
		{ feature_hostname, "FEATURE hostname" },
		{ feature_nrcpus, "FEATURE nrcpus" },
		{ event_update, "EVENT_UPDATE" },
		{ round_rec, "FINISHED_ROUND" },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++)
		check_both_ways(cases[i].build, cases[i].what);
}

/* text and build-ids are bytes of the recorded machine: the same in both orders */
static void test_bytes_kept(void)
{
	struct order o;
	struct ps_error err = { 0 };
	const unsigned char *t;

	order_open(&o, true, 0);
	mmap2_build_id(&o.b);
	t = turn(&o, 0, &err);
	CHECK(t && memcmp(t + 44, "0123456789abcdefghij", 20) == 0);
	CHECK(t && memcmp(t + 72, "/bin/true", 10) == 0);
	CHECK(t && ps_get64(t + 16, false) == 0x400000);
	order_close(&o);
}

/* a record whose header says fewer bytes than its fields need */
static void test_short(void)
{
	struct order o;
	struct ps_error err = { 0 };

	order_open(&o, true, 0);
	rec_begin(&o.b, PERF_RECORD_COMM, 0); /* the trailer, and no room for pid and tid */
	trailer(&o.b, 11);
	rec_end(&o.b, 0);
	CHECK(turn(&o, 0, &err) == NULL);
	CHECK_EQ_U64(err.code, PS_ECORRUPT);
	CHECK(strstr(err.detail, "COMM record of 40 bytes does not hold") != NULL);
	/* too short for the trailer that names its event */
	o.b.len = 0;
	rec_words(&o.b, PERF_RECORD_COMM, 0, (const uint64_t[]){ 1 }, 1);
	CHECK(turn(&o, 0, &err) == NULL);
	CHECK(strstr(err.detail, "belongs to no event") != NULL);
	/* a FEATURE too short for its id */
	o.b.len = 0;
	rec_end(&o.b, rec_begin(&o.b, PS_RECORD_HEADER_FEATURE, 0));
	CHECK(turn(&o, 0, &err) == NULL);
	/* a THREAD_MAP whose count says more entries than it holds */
	o.b.len = 0;
	rec_end(&o.b, rec_words(&o.b, PS_RECORD_THREAD_MAP, 0, (const uint64_t[]){ 1000 }, 1));
	CHECK(turn(&o, 0, &err) == NULL);
	order_close(&o);
}

/* a kernel record whose trailer names an id no event has */
static void test_no_event(void)
{
	struct order o;
	struct ps_error err = { 0 };
	size_t at;

	order_open(&o, true, 0);
	at = rec_begin(&o.b, PERF_RECORD_LOST, 0);
	put64(&o.b, 1);
	put64(&o.b, 2);
	trailer(&o.b, 33);
	rec_end(&o.b, at);
	CHECK(turn(&o, 0, &err) == NULL);
	CHECK_EQ_U64(err.code, PS_ECORRUPT);
	CHECK(err.has_offset && err.offset == 0);
	CHECK(strstr(err.detail, "LOST record belongs to no event") != NULL);
	order_close(&o);
}

/* a user record type perf 6.1 does not have: left alone, or refused when strict */
static void test_unknown(void)
{
	struct order o, strict;
	struct ps_error err = { 0 };
	const uint64_t w[2] = { 1, 2 };
	const unsigned char *t;

	order_open(&o, true, 0);
	order_open(&strict, true, PS_SWAP_STRICT);
	rec_words(&o.b, 90, 0, w, 2);
	rec_words(&strict.b, 90, 0, w, 2);
	t = turn(&o, 0, &err);
	CHECK(t != NULL);
	CHECK(t && memcmp(t + 8, o.b.p + 8, 16) == 0); /* the body as it was */
	CHECK(t && ps_get32(t, !o.b.swap) == 90);      /* the header turned */
	CHECK_EQ_U64(ps_swap__left_alone(o.w), 1);
	CHECK(turn(&strict, 0, &err) == NULL);
	CHECK_EQ_U64(err.code, PS_EUNSUP);
	CHECK(strstr(err.detail, "type 90") != NULL);
	order_close(&o);
	order_close(&strict);
}

int main(void)
{
	test_layouts();
	test_bytes_kept();
	test_short();
	test_no_event();
	test_unknown();
	return UNIT_DONE("test_swap");
}
