// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_record.c - the one description of the record formats: every row consistent (fields
 * inside the fixed part its smallest size promises, in offset order, a counted tail with
 * its count), the sizes perf_event.h gives, fields read by name in both byte orders, and
 * the feature payloads of fixed numbers.
 */
#include <string.h>

#include "lib/record.h"
#include "build.h"
#include "unit.h"

/* the fixed part of a row's fields: the end of the last field with a width */
static unsigned int fields_end(const struct ps_record_field *f, size_t n)
{
	unsigned int end = 0;
	size_t i;

	for (i = 0; i < n; i++)
		if (f[i].kind != PS_FIELD_MISC && f[i].off + f[i].width > end)
			end = f[i].off + f[i].width;
	return end;
}

static void check_fields(const struct ps_record_layout *l, const struct ps_record_field *f,
                         size_t n)
{
	unsigned int last = 0;
	bool counted = false;
	size_t i;

	CHECK(fields_end(f, n) + 8 <= l->min_size);
	for (i = 0; i < n; i++) {
		if (f[i].kind == PS_FIELD_MISC)
			continue;
		CHECK(f[i].off >= last); /* in offset order, no overlap */
		last = f[i].off + f[i].width;
		if (f[i].kind == PS_FIELD_STR)
			CHECK(i == n - 1 ||
			      f[i + 1].kind == PS_FIELD_MISC); /* text ends the body */
		counted |= f[i].kind == PS_FIELD_COUNT;
	}
	CHECK(counted == (l->tail == PS_TAIL_COUNTED));
	CHECK(l->tail != PS_TAIL_COUNTED || l->tail_words > 0);
}

static void test_table(void)
{
	uint32_t type;
	size_t n, rows = 0;

	for (type = 0; type < 256; type++) {
		const struct ps_record_layout *l = ps_record_layout(type);
		const struct ps_record_field *f;

		if (!l)
			continue;
		rows++;
		CHECK(l->min_size >= 8 && l->name &&
		      strcmp(ps_record_type_name(type), l->name) == 0);
		CHECK(l->json ? l->nfields > 0 : true);
		f = ps_record_layout__fields(l, 0, &n);
		check_fields(l, f, n);
		if (l->alt_misc) {
			f = ps_record_layout__fields(l, l->alt_misc, &n);
			CHECK(f == l->alt_fields && n == l->alt_nfields);
			check_fields(l, f, n);
		}
		/* the kernel's records are side-band (SAMPLE aside), perf's own are not all */
		if (type != PERF_RECORD_SAMPLE && type < PS_RECORD_USER_START)
			CHECK(l->cls == PS_CLASS_SIDEBAND);
	}
	CHECK_EQ_U64(rows, 45); /* the types perf 6.1 knows, and CALLCHAIN_DEFERRED */
	CHECK(ps_record_layout(PS_RECORD_USER_START - 1) == NULL);
	CHECK_EQ_U64(ps_record_type_min_size(1000), 8);
	CHECK(ps_record_type_class(1000) == PS_CLASS_UNKNOWN);
	/* perf_event.h: struct sizes, header included */
	CHECK_EQ_U64(ps_record_type_min_size(PERF_RECORD_MMAP2), 72);
	CHECK_EQ_U64(ps_record_type_min_size(PERF_RECORD_FORK), 32);
	CHECK_EQ_U64(ps_record_type_min_size(PERF_RECORD_KSYMBOL), 24);
	CHECK_EQ_U64(ps_record_type_min_size(PERF_RECORD_TEXT_POKE), 20);
	CHECK_EQ_U64(ps_record_type_min_size(PS_RECORD_HEADER_BUILD_ID), 36);
}

static void test_get(bool swap)
{
	struct buf b = { .swap = swap };
	const uint64_t w[2] = { 7, 1234 };
	struct ps_record rec;
	uint64_t v = 0;

	rec_words(&b, PERF_RECORD_LOST, 0, w, 2);
	rec = rec_at(&b, 0);
	CHECK(ps_record__get(&rec, swap, "lost", &v) == 0 && v == 1234);
	CHECK(ps_record__get(&rec, swap, "id", &v) == 0 && v == 7);
	CHECK(ps_record__get(&rec, swap, "nope", &v) == -1);
	rec.size = 23; /* one byte short of "lost" */
	CHECK(ps_record__get(&rec, swap, "lost", &v) == -1);
	CHECK(ps_record__get(&rec, swap, "id", &v) == 0);
	/* a pid is signed; text is not a number */
	b.len = 0;
	rec_begin(&b, PERF_RECORD_COMM, 0);
	put32(&b, (uint32_t)-1);
	put32(&b, 5);
	put_bytes(&b, "sh\0\0\0\0\0", 8);
	rec_end(&b, 0);
	rec = rec_at(&b, 0);
	CHECK(ps_record__get(&rec, swap, "pid", &v) == 0 && v == UINT64_MAX);
	CHECK(ps_record__get(&rec, swap, "tid", &v) == 0 && v == 5);
	CHECK(ps_record__get(&rec, swap, "comm", &v) == -1);
	rec.type = 1000;
	CHECK(ps_record__get(&rec, swap, "pid", &v) == -1);
	buf_free(&b);
}

static void test_features(void)
{
	const struct ps_record_field *f;
	size_t n = 0;

	f = ps_feature_fields(PS_FEAT_NRCPUS, &n);
	CHECK(f && n == 2 && strcmp(f[0].name, "avail") == 0 && f[1].off == 4);
	f = ps_feature_fields(PS_FEAT_CLOCK_DATA, &n);
	CHECK(f && n == 4 && fields_end(f, n) == 24);
	CHECK(ps_feature_fields(PS_FEAT_HOSTNAME, &n) == NULL);
	CHECK(ps_feature_fields(1ULL << 40, &n) == NULL);
}

int main(void)
{
	test_table();
	test_get(false);
	test_get(true);
	test_features();
	return UNIT_DONE("test_record");
}
