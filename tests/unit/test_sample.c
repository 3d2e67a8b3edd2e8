// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_sample.c - SAMPLE decoding, field by field and all together, in both byte orders,
 * from hand-made records; hostile counts (callchain, raw, branch, stack, aux, read group)
 * and every truncation of a full record must give an error, never a read past the record
 * (each record is parsed from a heap copy of exactly its size, so ASan sees any overrun);
 * and the sample_id trailer of the other kernel records.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "lib/sample.h"
#include "lib/session.h"
#include "build.h"
#include "unit.h"

/* ---- building records ---- */

/* Start a record: an 8-byte header whose size is patched by finish(). */
static void start(struct buf *b, uint32_t type, bool swap)
{
	b->len = 0;
	b->swap = swap;
	put32(b, type);
	put32(b, 0);
}

static void finish(struct buf *b)
{
	if (b->len > UINT16_MAX)
		abort();
	ps_put16(b->p + 6, (uint16_t)b->len, b->swap);
}

/*
 * A record parsed from a heap block of exactly its size (ASan then catches any read past
 * it).  @size may be smaller than what was built: the copy is cut and its header says so.
 */
struct exact {
	unsigned char *p;
	struct ps_record rec;
};

static void exact_make(struct exact *e, const struct buf *b, size_t size)
{
	e->p = malloc(size);
	if (!e->p)
		abort();
	memcpy(e->p, b->p, size);
	ps_put16(e->p + 6, (uint16_t)size, b->swap);
	memset(&e->rec, 0, sizeof(e->rec));
	e->rec.data = e->p;
	e->rec.len = size;
	e->rec.type = ps_get32(e->p, b->swap);
	e->rec.size = (uint16_t)size;
	e->rec.offset = 0x1234;
}

static void exact_free(struct exact *e)
{
	free(e->p);
	e->p = NULL;
}

static int add_attr(struct ps_session *s, const struct attr_spec *a, const uint64_t *ids,
                    size_t nids, bool swap)
{
	struct buf b = { 0 };
	struct ps_error err = { 0 };
	struct exact e;
	size_t i;
	int r;

	start(&b, PS_RECORD_HEADER_ATTR, swap);
	attr_bytes(&b, a, 128);
	for (i = 0; i < nids; i++)
		put64(&b, ids[i]);
	finish(&b);
	exact_make(&e, &b, b.len);
	r = ps_session__process(s, &e.rec, "t", &err);
	exact_free(&e);
	free(b.p);
	return r;
}

/* A session holding one attr. */
static struct ps_session *session1(const struct attr_spec *a, bool swap)
{
	struct ps_session *s = ps_session__new(swap);

	if (!s || add_attr(s, a, NULL, 0, swap))
		abort();
	return s;
}

/* Word @i of an array the sample points at; 0 when the parse left it NULL. */
static uint64_t word(const struct ps_sample *s, const unsigned char *arr, uint64_t i)
{
	return arr ? ps_sample__u64(s, arr, i) : 0;
}

/* Parse @b (all of it) with @s; the exact copy stays alive in @e for the caller. */
static int parse(struct ps_session *s, const struct buf *b, struct exact *e, struct ps_sample *out,
                 struct ps_error *err)
{
	exact_make(e, b, b->len);
	return ps_sample__parse(s, &e->rec, out, "t", err);
}

/* Every cut of @b from its header to one byte short must be an error. */
static void check_every_cut(struct ps_session *s, const struct buf *b, const char *what)
{
	size_t cut;
	int bad = 0;

	for (cut = 8; cut < b->len; cut++) {
		struct ps_error err = { 0 };
		struct ps_sample out;
		struct exact e;

		exact_make(&e, b, cut);
		if (ps_sample__parse(s, &e.rec, &out, "t", &err) != -1 || err.code != PS_ECORRUPT ||
		    err.offset != 0x1234) {
			if (!bad++)
				fprintf(stderr, "%s: cut at %zu of %zu bytes was accepted\n", what,
				        cut, b->len);
		}
		exact_free(&e);
	}
	CHECK_EQ_U64(bad, 0);
}

/* @b with each of @vals in turn as the u64 at @off (a count or size) must be corrupt. */
static void check_refused(struct ps_session *s, struct buf *b, size_t off, const uint64_t *vals,
                          size_t n)
{
	struct ps_sample out;
	struct exact e;
	size_t i;

	for (i = 0; i < n; i++) {
		struct ps_error err = { 0 };

		ps_put64(b->p + off, vals[i], b->swap);
		CHECK_EQ_U64(parse(s, b, &e, &out, &err), -1);
		CHECK_EQ_U64(err.code, PS_ECORRUPT);
		exact_free(&e);
	}
}

/* ---- one field at a time ---- */

struct simple_field {
	uint64_t bit;
	size_t off; /* in struct ps_sample */
};

static const struct simple_field simple[] = {
	{ PERF_SAMPLE_IDENTIFIER, offsetof(struct ps_sample, identifier) },
	{ PERF_SAMPLE_IP, offsetof(struct ps_sample, ip) },
	{ PERF_SAMPLE_TIME, offsetof(struct ps_sample, time) },
	{ PERF_SAMPLE_ADDR, offsetof(struct ps_sample, addr) },
	{ PERF_SAMPLE_ID, offsetof(struct ps_sample, id) },
	{ PERF_SAMPLE_STREAM_ID, offsetof(struct ps_sample, stream_id) },
	{ PERF_SAMPLE_PERIOD, offsetof(struct ps_sample, period) },
	{ PERF_SAMPLE_WEIGHT, offsetof(struct ps_sample, weight) },
	{ PERF_SAMPLE_WEIGHT_STRUCT, offsetof(struct ps_sample, weight) },
	{ PERF_SAMPLE_DATA_SRC, offsetof(struct ps_sample, data_src) },
	{ PERF_SAMPLE_TRANSACTION, offsetof(struct ps_sample, transaction) },
	{ PERF_SAMPLE_PHYS_ADDR, offsetof(struct ps_sample, phys_addr) },
	{ PERF_SAMPLE_CGROUP, offsetof(struct ps_sample, cgroup) },
	{ PERF_SAMPLE_DATA_PAGE_SIZE, offsetof(struct ps_sample, data_page_size) },
	{ PERF_SAMPLE_CODE_PAGE_SIZE, offsetof(struct ps_sample, code_page_size) },
};

static void test_simple_fields(bool swap)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(simple); i++) {
		struct attr_spec a = { .type = PERF_TYPE_SOFTWARE, .sample_type = simple[i].bit };
		struct ps_session *s = session1(&a, swap);
		uint64_t v = 0x0102030405060708ULL + i, got;
		struct ps_error err = { 0 };
		struct buf b = { 0 };
		struct ps_sample out;
		struct exact e;

		start(&b, PERF_RECORD_SAMPLE, swap);
		put64(&b, v);
		finish(&b);
		CHECK_EQ_U64(parse(s, &b, &e, &out, &err), 0);
		memcpy(&got, (const char *)&out + simple[i].off, 8);
		CHECK_EQ_U64(got, v);
		CHECK_EQ_U64(out.type, simple[i].bit);
		CHECK(out.swap == swap);
		CHECK(out.attr == ps_session__attr(s, 0));
		exact_free(&e);
		check_every_cut(s, &b, ps_sample_type_name(simple[i].bit));
		/* a word too many is fine (perf pads some records) */
		put64(&b, 0);
		finish(&b);
		CHECK_EQ_U64(parse(s, &b, &e, &out, &err), 0);
		exact_free(&e);
		free(b.p);
		ps_session__delete(s);
	}
}

static void test_tid_cpu(bool swap)
{
	struct attr_spec a = { .type = PERF_TYPE_SOFTWARE,
		               .sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_CPU };
	struct ps_session *s = session1(&a, swap);
	struct ps_error err = { 0 };
	struct buf b = { 0 };
	struct ps_sample out;
	struct exact e;

	start(&b, PERF_RECORD_SAMPLE, swap);
	put32(&b, 1234); /* pid */
	put32(&b, 1235); /* tid */
	put32(&b, 3);    /* cpu */
	put32(&b, 0xdead);
	finish(&b);
	CHECK_EQ_U64(parse(s, &b, &e, &out, &err), 0);
	CHECK_EQ_U64(out.pid, 1234);
	CHECK_EQ_U64(out.tid, 1235);
	CHECK_EQ_U64(out.cpu, 3);
	exact_free(&e);
	check_every_cut(s, &b, "TID|CPU");
	free(b.p);
	ps_session__delete(s);
}

static void test_read(bool swap)
{
	uint64_t rf = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING |
	              PERF_FORMAT_ID | PERF_FORMAT_LOST;
	struct attr_spec a = { .type = PERF_TYPE_SOFTWARE,
		               .sample_type = PERF_SAMPLE_READ | PERF_SAMPLE_PERIOD,
		               .read_format = rf };
	struct ps_read_value vals[4];
	struct ps_session *s = session1(&a, swap);
	struct ps_error err = { 0 };
	struct buf b = { 0 };
	struct ps_sample out;
	uint64_t te, tr;
	struct exact e;

	/* without GROUP: value, enabled, running, id, lost */
	start(&b, PERF_RECORD_SAMPLE, swap);
	put64(&b, 7);   /* period */
	put64(&b, 200); /* value */
	put64(&b, 100); /* time enabled */
	put64(&b, 42);  /* time running */
	put64(&b, 300); /* id */
	put64(&b, 5);   /* lost */
	finish(&b);
	CHECK_EQ_U64(parse(s, &b, &e, &out, &err), 0);
	CHECK_EQ_U64(out.period, 7);
	CHECK_EQ_U64(out.read_len, 40);
	CHECK_EQ_U64(ps_sample__read(&out, &te, &tr, vals, 4), 1);
	CHECK_EQ_U64(te, 100);
	CHECK_EQ_U64(tr, 42);
	CHECK_EQ_U64(vals[0].value, 200);
	CHECK_EQ_U64(vals[0].id, 300);
	CHECK_EQ_U64(vals[0].lost, 5);
	exact_free(&e);
	check_every_cut(s, &b, "READ");
	ps_session__delete(s);

	/* GROUP: nr, enabled, running, nr x {value, id, lost} */
	a.read_format = rf | PERF_FORMAT_GROUP;
	s = session1(&a, swap);
	start(&b, PERF_RECORD_SAMPLE, swap);
	put64(&b, 7);
	put64(&b, 3);
	put64(&b, 100);
	put64(&b, 42);
	put64(&b, 11);
	put64(&b, 12);
	put64(&b, 13);
	put64(&b, 21);
	put64(&b, 22);
	put64(&b, 23);
	put64(&b, 31);
	put64(&b, 32);
	put64(&b, 33);
	finish(&b);
	CHECK_EQ_U64(parse(s, &b, &e, &out, &err), 0);
	CHECK_EQ_U64(out.read_len, 8 * 12);
	memset(vals, 0, sizeof(vals));
	CHECK_EQ_U64(ps_sample__read(&out, &te, &tr, vals, 4), 3);
	CHECK_EQ_U64(te, 100);
	CHECK_EQ_U64(tr, 42);
	CHECK_EQ_U64(vals[0].value, 11);
	CHECK_EQ_U64(vals[1].id, 22);
	CHECK_EQ_U64(vals[2].lost, 33);
	/* fewer slots than values: the count still says how many there are */
	memset(vals, 0, sizeof(vals));
	CHECK_EQ_U64(ps_sample__read(&out, &te, &tr, vals, 1), 3);
	CHECK_EQ_U64(vals[0].value, 11);
	CHECK_EQ_U64(vals[1].value, 0);
	exact_free(&e);
	check_every_cut(s, &b, "READ|GROUP");

	/* a hostile group count */
	ps_put64(b.p + 16, 1ULL << 61, swap);
	CHECK_EQ_U64(parse(s, &b, &e, &out, &err), -1);
	exact_free(&e);
	ps_put64(b.p + 16, UINT64_MAX, swap);
	CHECK_EQ_U64(parse(s, &b, &e, &out, &err), -1);
	exact_free(&e);
	ps_put64(b.p + 16, 4, swap); /* one more than there is */
	CHECK_EQ_U64(parse(s, &b, &e, &out, &err), -1);
	exact_free(&e);
	ps_put64(b.p + 16, 0, swap); /* none: the rest is padding */
	CHECK_EQ_U64(parse(s, &b, &e, &out, &err), 0);
	CHECK_EQ_U64(ps_sample__read(&out, &te, &tr, vals, 4), 0);
	exact_free(&e);
	free(b.p);
	ps_session__delete(s);
}

static void test_callchain(bool swap)
{
	struct attr_spec a = { .type = PERF_TYPE_SOFTWARE,
		               .sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN |
		                              PERF_SAMPLE_PERIOD };
	static const uint64_t nrs[] = { 1ULL << 61, 1ULL << 63, UINT64_MAX, 4,
		                        0x2000000000000001ULL };
	struct ps_session *s = session1(&a, swap);
	struct ps_error err = { 0 };
	struct buf b = { 0 };
	struct ps_sample out;
	struct exact e;

	start(&b, PERF_RECORD_SAMPLE, swap);
	put64(&b, 0x400000);
	put64(&b, 9); /* period comes before the callchain */
	put64(&b, 3);
	put64(&b, (uint64_t)-512); /* PERF_CONTEXT_USER */
	put64(&b, 0x400000);
	put64(&b, 0x400100);
	finish(&b);
	CHECK_EQ_U64(parse(s, &b, &e, &out, &err), 0);
	CHECK_EQ_U64(out.nr_callchain, 3);
	CHECK_EQ_U64(word(&out, out.callchain, 0), (uint64_t)-512);
	CHECK_EQ_U64(word(&out, out.callchain, 2), 0x400100);
	CHECK_EQ_U64(out.period, 9);
	exact_free(&e);
	check_every_cut(s, &b, "CALLCHAIN");

	check_refused(s, &b, 24, nrs, ARRAY_SIZE(nrs));
	ps_put64(b.p + 24, 0, swap); /* an empty chain: the words after it are padding */
	CHECK_EQ_U64(parse(s, &b, &e, &out, &err), 0);
	CHECK_EQ_U64(out.nr_callchain, 0);
	CHECK_EQ_U64(out.period, 9);
	exact_free(&e);
	free(b.p);
	ps_session__delete(s);
}

static void test_raw(bool swap)
{
	struct attr_spec a = { .type = PERF_TYPE_TRACEPOINT,
		               .sample_type =
		                       PERF_SAMPLE_PERIOD | PERF_SAMPLE_RAW | PERF_SAMPLE_WEIGHT };
	static const uint32_t sizes[] = { 0xffffffff, 0x80000000, 0x10000, 13 };
	struct ps_session *s = session1(&a, swap);
	struct ps_error err = { 0 };
	struct buf b = { 0 };
	struct ps_sample out;
	struct exact e;
	size_t i;

	start(&b, PERF_RECORD_SAMPLE, swap);
	put64(&b, 1);
	put32(&b, 12); /* 4 + 12: a multiple of 8, as the kernel pads it */
	put_bytes(&b, "\x2a\x01\0\0tracepts", 12);
	put64(&b, 77);
	finish(&b);
	CHECK_EQ_U64(parse(s, &b, &e, &out, &err), 0);
	CHECK_EQ_U64(out.raw_size, 12);
	CHECK(out.raw && memcmp(out.raw + 4, "tracepts", 8) == 0);
	CHECK_EQ_U64(ps_get16(out.raw, swap), swap ? 0x2a01 : 0x012a);
	CHECK_EQ_U64(out.weight, 77);
	exact_free(&e);
	check_every_cut(s, &b, "RAW");
	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		ps_put32(b.p + 16, sizes[i], swap);
		CHECK_EQ_U64(parse(s, &b, &e, &out, &err), -1);
		exact_free(&e);
	}
	/* size 0 is allowed: the weight then starts 4 bytes later, inside the raw bytes */
	ps_put32(b.p + 16, 0, swap);
	CHECK_EQ_U64(parse(s, &b, &e, &out, &err), 0);
	CHECK_EQ_U64(out.raw_size, 0);
	exact_free(&e);
	free(b.p);
	ps_session__delete(s);
}

static void test_branch_stack(bool swap)
{
	struct attr_spec a = { .type = PERF_TYPE_HARDWARE,
		               .sample_type = PERF_SAMPLE_BRANCH_STACK | PERF_SAMPLE_PERIOD };
	static const uint64_t nrs[] = { 0x5555555555555556ULL, 1ULL << 62, UINT64_MAX,
		                        0x0aaaaaaaaaaaaaabULL, 3 };
	struct ps_session *s;
	struct ps_error err = { 0 };
	struct buf b = { 0 };
	struct ps_sample out;
	struct exact e;
	int hw;
	size_t i;

	for (hw = 0; hw < 2; hw++) {
		a.branch_sample_type = hw ? PS_BRANCH_HW_INDEX : 0;
		s = session1(&a, swap);
		start(&b, PERF_RECORD_SAMPLE, swap);
		put64(&b, 5); /* period */
		put64(&b, 2);
		if (hw)
			put64(&b, 17);
		for (i = 0; i < 6; i++)
			put64(&b, 0x1000 + i);
		finish(&b);
		CHECK_EQ_U64(parse(s, &b, &e, &out, &err), 0);
		CHECK_EQ_U64(out.period, 5);
		CHECK_EQ_U64(out.nr_branch, 2);
		CHECK(out.has_branch_hw_idx == (hw != 0));
		CHECK_EQ_U64(out.branch_hw_idx, hw ? 17 : 0);
		CHECK_EQ_U64(word(&out, out.branch, 0), 0x1000);
		CHECK_EQ_U64(word(&out, out.branch, 5), 0x1005);
		exact_free(&e);
		check_every_cut(s, &b, hw ? "BRANCH_STACK|HW_INDEX" : "BRANCH_STACK");
		check_refused(s, &b, 16, nrs, ARRAY_SIZE(nrs)); /* after the period */
		free(b.p);
		b.p = NULL;
		b.cap = 0;
		ps_session__delete(s);
	}
}

static void test_regs(bool swap)
{
	struct attr_spec a = { .type = PERF_TYPE_SOFTWARE,
		               .sample_type = PERF_SAMPLE_REGS_USER | PERF_SAMPLE_REGS_INTR |
		                              PERF_SAMPLE_PHYS_ADDR,
		               .regs_user = 0xb,          /* 3 registers */
		               .regs_intr = 1ULL << 63 }; /* 1 register */
	struct ps_session *s = session1(&a, swap);
	struct ps_error err = { 0 };
	struct buf b = { 0 };
	struct ps_sample out;
	struct exact e;

	start(&b, PERF_RECORD_SAMPLE, swap);
	put64(&b, 2); /* abi 64 */
	put64(&b, 0xa0);
	put64(&b, 0xa1);
	put64(&b, 0xa2);
	put64(&b, 1); /* abi 32 */
	put64(&b, 0xb0);
	put64(&b, 0xfeed);
	finish(&b);
	CHECK_EQ_U64(parse(s, &b, &e, &out, &err), 0);
	CHECK_EQ_U64(out.regs_user_abi, 2);
	CHECK_EQ_U64(out.nr_regs_user, 3);
	CHECK_EQ_U64(word(&out, out.regs_user, 2), 0xa2);
	CHECK_EQ_U64(out.regs_intr_abi, 1);
	CHECK_EQ_U64(out.nr_regs_intr, 1);
	CHECK_EQ_U64(word(&out, out.regs_intr, 0), 0xb0);
	CHECK_EQ_U64(out.phys_addr, 0xfeed);
	exact_free(&e);
	check_every_cut(s, &b, "REGS");

	/* abi 0: no registers follow */
	start(&b, PERF_RECORD_SAMPLE, swap);
	put64(&b, 0);
	put64(&b, 0);
	put64(&b, 0xbeef);
	finish(&b);
	CHECK_EQ_U64(parse(s, &b, &e, &out, &err), 0);
	CHECK_EQ_U64(out.nr_regs_user, 0);
	CHECK(out.regs_user == NULL);
	CHECK_EQ_U64(out.phys_addr, 0xbeef);
	exact_free(&e);
	free(b.p);
	ps_session__delete(s);

	/* all 64 registers in the mask, but the record holds fewer */
	a.regs_user = UINT64_MAX;
	a.sample_type = PERF_SAMPLE_REGS_USER;
	s = session1(&a, swap);
	b.p = NULL;
	b.cap = 0;
	start(&b, PERF_RECORD_SAMPLE, swap);
	put64(&b, 2);
	grow(&b, 63 * 8);
	finish(&b);
	CHECK_EQ_U64(parse(s, &b, &e, &out, &err), -1);
	exact_free(&e);
	grow(&b, 8);
	finish(&b);
	CHECK_EQ_U64(parse(s, &b, &e, &out, &err), 0);
	CHECK_EQ_U64(out.nr_regs_user, 64);
	exact_free(&e);
	free(b.p);
	ps_session__delete(s);
}

static void test_stack_user(bool swap)
{
	struct attr_spec a = { .type = PERF_TYPE_SOFTWARE,
		               .sample_type = PERF_SAMPLE_STACK_USER | PERF_SAMPLE_DATA_SRC };
	static const uint64_t sizes[] = { UINT64_MAX, 1ULL << 63, 0xfffffffffffffff0ULL, 24, 17 };
	struct ps_session *s = session1(&a, swap);
	struct ps_error err = { 0 };
	struct buf b = { 0 };
	struct ps_sample out;
	struct exact e;

	start(&b, PERF_RECORD_SAMPLE, swap);
	put64(&b, 16);
	put_bytes(&b, "stack bytes 0123", 16);
	put64(&b, 12); /* dyn_size */
	put64(&b, 0x5a);
	finish(&b);
	CHECK_EQ_U64(parse(s, &b, &e, &out, &err), 0);
	CHECK_EQ_U64(out.stack_size, 16);
	CHECK(out.stack_user && memcmp(out.stack_user, "stack bytes", 11) == 0);
	CHECK_EQ_U64(out.stack_dyn_size, 12);
	CHECK_EQ_U64(out.data_src, 0x5a);
	exact_free(&e);
	check_every_cut(s, &b, "STACK_USER");
	check_refused(s, &b, 8, sizes, ARRAY_SIZE(sizes));

	/* size 0: no data and no dyn_size */
	start(&b, PERF_RECORD_SAMPLE, swap);
	put64(&b, 0);
	put64(&b, 0x5b);
	finish(&b);
	CHECK_EQ_U64(parse(s, &b, &e, &out, &err), 0);
	CHECK_EQ_U64(out.stack_size, 0);
	CHECK_EQ_U64(out.stack_dyn_size, 0);
	CHECK_EQ_U64(out.data_src, 0x5b);
	exact_free(&e);
	free(b.p);
	ps_session__delete(s);
}

static void test_aux(bool swap)
{
	struct attr_spec a = { .type = PERF_TYPE_SOFTWARE,
		               .sample_type = PERF_SAMPLE_CODE_PAGE_SIZE | PERF_SAMPLE_AUX };
	static const uint64_t sizes[] = { UINT64_MAX, 1ULL << 63, 9 };
	struct ps_session *s = session1(&a, swap);
	struct ps_error err = { 0 };
	struct buf b = { 0 };
	struct ps_sample out;
	struct exact e;

	start(&b, PERF_RECORD_SAMPLE, swap);
	put64(&b, 4096);
	put64(&b, 8);
	put_bytes(&b, "aux data", 8);
	finish(&b);
	CHECK_EQ_U64(parse(s, &b, &e, &out, &err), 0);
	CHECK_EQ_U64(out.code_page_size, 4096);
	CHECK_EQ_U64(out.aux_size, 8);
	CHECK(out.aux && memcmp(out.aux, "aux data", 8) == 0);
	exact_free(&e);
	check_every_cut(s, &b, "AUX");
	check_refused(s, &b, 16, sizes, ARRAY_SIZE(sizes));
	free(b.p);
	ps_session__delete(s);
}

/* ---- everything at once: the order of the fields ---- */

#define ST_ALL                                                                             \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |    \
	 PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU |     \
	 PERF_SAMPLE_PERIOD | PERF_SAMPLE_READ | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW | \
	 PERF_SAMPLE_BRANCH_STACK | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER |       \
	 PERF_SAMPLE_WEIGHT | PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_TRANSACTION |             \
	 PERF_SAMPLE_REGS_INTR | PERF_SAMPLE_PHYS_ADDR | PERF_SAMPLE_CGROUP |              \
	 PERF_SAMPLE_DATA_PAGE_SIZE | PERF_SAMPLE_CODE_PAGE_SIZE | PERF_SAMPLE_AUX)

static void test_all_fields(bool swap)
{
	struct attr_spec a = { .type = PERF_TYPE_RAW,
		               .sample_type = ST_ALL,
		               .read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID,
		               .branch_sample_type = PS_BRANCH_HW_INDEX,
		               .regs_user = 0x3,
		               .regs_intr = 0x1 };
	struct ps_session *s = session1(&a, swap);
	struct ps_read_value vals[2];
	struct ps_error err = { 0 };
	struct buf b = { 0 };
	struct ps_sample out;
	uint64_t te, tr, t;
	struct exact e;

	start(&b, PERF_RECORD_SAMPLE, swap);
	put64(&b, 101);   /* identifier */
	put64(&b, 0x102); /* ip */
	put32(&b, 103);   /* pid */
	put32(&b, 104);   /* tid */
	put64(&b, 105);   /* time */
	put64(&b, 0x106); /* addr */
	put64(&b, 101);   /* id */
	put64(&b, 107);   /* stream_id */
	put32(&b, 1);     /* cpu */
	put32(&b, 0);
	put64(&b, 108); /* period */
	put64(&b, 2);   /* read: nr, {value, id} x 2 */
	put64(&b, 1000);
	put64(&b, 101);
	put64(&b, 2000);
	put64(&b, 102);
	put64(&b, 2); /* callchain */
	put64(&b, 0x201);
	put64(&b, 0x202);
	put32(&b, 4); /* raw */
	put_bytes(&b, "RAW!", 4);
	put64(&b, 1); /* branch stack: nr, hw_idx, {from, to, flags} */
	put64(&b, 0);
	put64(&b, 0x301);
	put64(&b, 0x302);
	put64(&b, 0x303);
	put64(&b, 2); /* regs_user */
	put64(&b, 0x401);
	put64(&b, 0x402);
	put64(&b, 8); /* stack_user */
	put_bytes(&b, "stack!!!", 8);
	put64(&b, 8);
	put64(&b, 0x501); /* weight */
	put64(&b, 0x502); /* data_src */
	put64(&b, 0x503); /* transaction */
	put64(&b, 2);     /* regs_intr */
	put64(&b, 0x601);
	put64(&b, 0x602); /* phys_addr */
	put64(&b, 0x603); /* cgroup */
	put64(&b, 0x604); /* data_page_size */
	put64(&b, 0x605); /* code_page_size */
	put64(&b, 16);    /* aux */
	put_bytes(&b, "aux sample bytes", 16);
	finish(&b);

	CHECK_EQ_U64(parse(s, &b, &e, &out, &err), 0);
	CHECK_EQ_U64(out.identifier, 101);
	CHECK_EQ_U64(out.ip, 0x102);
	CHECK_EQ_U64(out.pid, 103);
	CHECK_EQ_U64(out.tid, 104);
	CHECK_EQ_U64(out.time, 105);
	CHECK_EQ_U64(out.addr, 0x106);
	CHECK_EQ_U64(out.id, 101);
	CHECK_EQ_U64(out.stream_id, 107);
	CHECK_EQ_U64(out.cpu, 1);
	CHECK_EQ_U64(out.period, 108);
	CHECK_EQ_U64(ps_sample__read(&out, &te, &tr, vals, 2), 2);
	CHECK_EQ_U64(vals[1].value, 2000);
	CHECK_EQ_U64(vals[1].id, 102);
	CHECK_EQ_U64(out.nr_callchain, 2);
	CHECK_EQ_U64(word(&out, out.callchain, 1), 0x202);
	CHECK_EQ_U64(out.raw_size, 4);
	CHECK(memcmp(out.raw, "RAW!", 4) == 0);
	CHECK_EQ_U64(out.nr_branch, 1);
	CHECK(out.has_branch_hw_idx);
	CHECK_EQ_U64(word(&out, out.branch, 2), 0x303);
	CHECK_EQ_U64(out.nr_regs_user, 2);
	CHECK_EQ_U64(word(&out, out.regs_user, 1), 0x402);
	CHECK_EQ_U64(out.stack_size, 8);
	CHECK_EQ_U64(out.stack_dyn_size, 8);
	CHECK_EQ_U64(out.weight, 0x501);
	CHECK_EQ_U64(out.data_src, 0x502);
	CHECK_EQ_U64(out.transaction, 0x503);
	CHECK_EQ_U64(out.nr_regs_intr, 1);
	CHECK_EQ_U64(word(&out, out.regs_intr, 0), 0x601);
	CHECK_EQ_U64(out.phys_addr, 0x602);
	CHECK_EQ_U64(out.cgroup, 0x603);
	CHECK_EQ_U64(out.data_page_size, 0x604);
	CHECK_EQ_U64(out.code_page_size, 0x605);
	CHECK_EQ_U64(out.aux_size, 16);
	CHECK(memcmp(out.aux, "aux sample bytes", 16) == 0);
	CHECK(ps_session__record_time(s, &e.rec, &t) && t == 105);
	exact_free(&e);
	check_every_cut(s, &b, "all fields");
	free(b.p);
	ps_session__delete(s);
}

/* ---- attribution ---- */

static void test_unattributed(bool swap)
{
	struct attr_spec a = { .type = PERF_TYPE_SOFTWARE,
		               .sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_ID };
	static const uint64_t ids0[1] = { 5 }, ids1[1] = { 6 };
	struct ps_session *s = ps_session__new(swap);
	struct ps_error err = { 0 };
	struct buf b = { 0 };
	struct ps_sample out;
	struct exact e;

	/* no attr at all */
	start(&b, PERF_RECORD_SAMPLE, swap);
	put64(&b, 1);
	put64(&b, 6);
	finish(&b);
	CHECK_EQ_U64(parse(s, &b, &e, &out, &err), -1);
	CHECK_EQ_U64(err.code, PS_ECORRUPT);
	CHECK_EQ_U64(err.offset, 0x1234);
	CHECK(out.attr == NULL);
	exact_free(&e);

	/* two attrs: the id (after IP) picks one; an unknown id picks none */
	CHECK_EQ_U64(add_attr(s, &a, ids0, 1, swap), 0);
	CHECK_EQ_U64(add_attr(s, &a, ids1, 1, swap), 0);
	CHECK_EQ_U64(parse(s, &b, &e, &out, &err), 0);
	CHECK(out.attr == ps_session__attr(s, 1));
	exact_free(&e);
	ps_put64(b.p + 16, 7, swap);
	CHECK_EQ_U64(parse(s, &b, &e, &out, &err), -1);
	exact_free(&e);
	/* a record too short to hold the id */
	b.len = 16;
	finish(&b);
	CHECK_EQ_U64(parse(s, &b, &e, &out, &err), -1);
	exact_free(&e);
	free(b.p);
	ps_session__delete(s);
}

/* ---- the sample_id trailer ---- */

static void test_trailer(bool swap)
{
	struct attr_spec a = { .type = PERF_TYPE_SOFTWARE,
		               .sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP |
		                              PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID |
		                              PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU |
		                              PERF_SAMPLE_PERIOD,
		               .flags = PS_ATTR_FLAG_SAMPLE_ID_ALL };
	static const uint64_t ids0[1] = { 40 }, ids1[1] = { 41 };
	struct ps_session *s = ps_session__new(swap);
	struct ps_sample out;
	struct buf b = { 0 };
	struct exact e;
	uint64_t t;
	size_t cut;

	CHECK_EQ_U64(add_attr(s, &a, ids0, 1, swap), 0);
	CHECK_EQ_U64(add_attr(s, &a, ids1, 1, swap), 0);

	/* LOST: id, lost, then pid/tid, time, id, stream_id, cpu, identifier */
	start(&b, PERF_RECORD_LOST, swap);
	put64(&b, 41);
	put64(&b, 3);
	put32(&b, 50);
	put32(&b, 51);
	put64(&b, 52);
	put64(&b, 41);
	put64(&b, 53);
	put32(&b, 1);
	put32(&b, 0);
	put64(&b, 41);
	finish(&b);
	exact_make(&e, &b, b.len);
	CHECK_EQ_U64(ps_sample__parse_id(s, &e.rec, &out), 1);
	CHECK(out.attr == ps_session__attr(s, 1));
	CHECK_EQ_U64(out.pid, 50);
	CHECK_EQ_U64(out.tid, 51);
	CHECK_EQ_U64(out.time, 52);
	CHECK_EQ_U64(out.id, 41);
	CHECK_EQ_U64(out.stream_id, 53);
	CHECK_EQ_U64(out.cpu, 1);
	CHECK_EQ_U64(out.identifier, 41);
	CHECK_EQ_U64(out.type, a.sample_type & ~(PERF_SAMPLE_IP | PERF_SAMPLE_PERIOD));
	CHECK(ps_session__record_time(s, &e.rec, &t) && t == 52);
	exact_free(&e);

	/* cut from the front: the trailer is read from the end, until it no longer fits */
	for (cut = 1; cut <= 2; cut++) {
		struct buf c = { 0 };

		start(&c, PERF_RECORD_LOST, swap);
		put_bytes(&c, b.p + 8 + 8 * cut, b.len - 8 - 8 * cut);
		finish(&c);
		exact_make(&e, &c, c.len);
		CHECK_EQ_U64(ps_sample__parse_id(s, &e.rec, &out), 1);
		CHECK_EQ_U64(out.time, 52);
		exact_free(&e);
		free(c.p);
	}
	{
		struct buf c = { 0 };

		start(&c, PERF_RECORD_LOST, swap);
		put_bytes(&c, b.p + 8 + 24, b.len - 8 - 24);
		finish(&c);
		exact_make(&e, &c, c.len);
		/* 5 of 6 trailer words: whatever attr the last word names, it does not fit */
		CHECK(ps_sample__parse_id(s, &e.rec, &out) <= 0);
		exact_free(&e);
		start(&c, PERF_RECORD_LOST, swap);
		finish(&c);
		exact_make(&e, &c, c.len);
		CHECK(ps_sample__parse_id(s, &e.rec, &out) <= 0);
		CHECK(!ps_session__record_time(s, &e.rec, &t));
		exact_free(&e);
		free(c.p);
	}

	/* SAMPLE and perf's own types have no trailer */
	ps_put32(b.p, PERF_RECORD_SAMPLE, swap);
	exact_make(&e, &b, b.len);
	CHECK_EQ_U64(ps_sample__parse_id(s, &e.rec, &out), 0);
	exact_free(&e);
	ps_put32(b.p, PS_RECORD_FINISHED_ROUND, swap);
	exact_make(&e, &b, b.len);
	CHECK_EQ_U64(ps_sample__parse_id(s, &e.rec, &out), 0);
	CHECK(!ps_session__record_time(s, &e.rec, &t));
	exact_free(&e);
	free(b.p);
	ps_session__delete(s);

	/* without sample_id_all: no trailer */
	a.flags = 0;
	s = session1(&a, swap);
	b.p = NULL;
	b.cap = 0;
	start(&b, PERF_RECORD_COMM, swap);
	put32(&b, 1);
	put32(&b, 1);
	put_bytes(&b, "comm\0\0\0\0", 8);
	finish(&b);
	exact_make(&e, &b, b.len);
	CHECK_EQ_U64(ps_sample__parse_id(s, &e.rec, &out), 0);
	CHECK(!ps_session__record_time(s, &e.rec, &t));
	exact_free(&e);
	free(b.p);
	ps_session__delete(s);
}

/* Every byte pattern in a short record, for a few sample_types: no crash, no overread. */
static void test_patterns(bool swap)
{
	static const uint64_t types[] = {
		ST_ALL,
		PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW,
		PERF_SAMPLE_READ | PERF_SAMPLE_BRANCH_STACK | PERF_SAMPLE_STACK_USER,
		PERF_SAMPLE_REGS_USER | PERF_SAMPLE_AUX,
	};
	static const unsigned char fills[] = { 0x00, 0x01, 0x07, 0x08, 0x7f, 0x80, 0xfe, 0xff };
	size_t t, f, len;
	int accepted = 0;

	for (t = 0; t < ARRAY_SIZE(types); t++) {
		struct attr_spec a = { .type = PERF_TYPE_RAW,
			               .sample_type = types[t],
			               .read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID |
			                              PERF_FORMAT_LOST,
			               .branch_sample_type = PS_BRANCH_HW_INDEX,
			               .regs_user = 0xff,
			               .regs_intr = 0xf };
		struct ps_session *s = session1(&a, swap);

		for (f = 0; f < ARRAY_SIZE(fills); f++) {
			for (len = 8; len <= 200; len += 4) {
				struct ps_error err = { 0 };
				struct buf b = { 0 };
				struct ps_sample out;
				struct exact e;

				start(&b, PERF_RECORD_SAMPLE, swap);
				memset(grow(&b, len - 8), fills[f], len - 8);
				finish(&b);
				if (parse(s, &b, &e, &out, &err) == 0) {
					uint64_t te, tr;
					struct ps_read_value v[4];

					accepted++;
					if (out.read)
						ps_sample__read(&out, &te, &tr, v, 4);
				}
				exact_free(&e);
				free(b.p);
			}
		}
		ps_session__delete(s);
	}
	CHECK(accepted > 0); /* all-zero records of the right length are valid */
}

static void test_type_names(void)
{
	CHECK(strcmp(ps_sample_type_name(PERF_SAMPLE_IP), "IP") == 0);
	CHECK(strcmp(ps_sample_type_name(PERF_SAMPLE_IDENTIFIER), "IDENTIFIER") == 0);
	CHECK(strcmp(ps_sample_type_name(PERF_SAMPLE_CODE_PAGE_SIZE), "CODE_PAGE_SIZE") == 0);
	CHECK(strcmp(ps_sample_type_name(PERF_SAMPLE_WEIGHT_STRUCT), "WEIGHT_STRUCT") == 0);
	CHECK(ps_sample_type_name(0) == NULL);
	CHECK(ps_sample_type_name(PERF_SAMPLE_IP | PERF_SAMPLE_TID) == NULL);
	CHECK(ps_sample_type_name(1ULL << 40) == NULL);
}

int main(void)
{
	int swap;

	for (swap = 0; swap < 2; swap++) {
		test_simple_fields(swap);
		test_tid_cpu(swap);
		test_read(swap);
		test_callchain(swap);
		test_raw(swap);
		test_branch_stack(swap);
		test_regs(swap);
		test_stack_user(swap);
		test_aux(swap);
		test_all_fields(swap);
		test_unattributed(swap);
		test_trailer(swap);
		test_patterns(swap);
	}
	test_type_names();
	return UNIT_DONE("sample");
}
