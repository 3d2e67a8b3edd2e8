// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_native.c - RowBinary batches into Native blocks: a decoder written here from the
 * format's description reads each block back, column by column, and every value must be
 * the row's value of the batch, the rows in the stable order of the key; random batches
 * of every type (arrays, empty strings and arrays, long strings, signed keys, equal keys)
 * and every cut of a batch (cut short: -1, never a read past the end).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/native.h"
#include "unit.h"

static const char *const type_names[] = { "UInt8", "UInt16", "UInt32", "UInt64",        "Int8",
	                                  "Int16", "Int32",  "Int64",  "Decimal128(0)", "String" };
static const unsigned int widths[] = { 1, 2, 4, 8, 1, 2, 4, 8, 16, 0 };

#define MAX_COLS 6
#define MAX_ROWS 300

/* one value: a number's bytes or a string's, or an array of them */
struct val {
	unsigned char b[8][40];
	size_t len[8];
	size_t n; /* elements (1 for a scalar) */
};

struct batch {
	int ncol, nrows;
	int type[MAX_COLS]; /* index into type_names */
	int array[MAX_COLS];
	char name[MAX_COLS][16];
	struct val v[MAX_ROWS][MAX_COLS];
};

static uint64_t rng = 88172645463325252ull;

static uint64_t rnd(void)
{
	return unit_xorshift(&rng);
}

static void put_varint(struct ps_json_buf *b, uint64_t v)
{
	do {
		ps_json__char(b, (char)((v & 0x7f) | (v > 0x7f ? 0x80 : 0)));
		v >>= 7;
	} while (v);
}

static void random_value(struct val *v, int type, int array)
{
	v->n = array ? rnd() % 4 : 1;
	for (size_t e = 0; e < v->n; e++) {
		if (widths[type]) {
			v->len[e] = widths[type];
			/* few distinct values: equal keys are common */
			for (size_t i = 0; i < v->len[e]; i++)
				v->b[e][i] =
				        (unsigned char)(rnd() % 3 == 0 ? rnd() :
				                                         (i == 0 ? rnd() % 4 : 0));
			if (rnd() % 5 == 0)
				v->b[e][v->len[e] - 1] = 0xff; /* negative when signed */
		} else {
			v->len[e] = rnd() % 3 == 0 ? 0 : rnd() % (sizeof(v->b[e]) + 1);
			for (size_t i = 0; i < v->len[e]; i++)
				v->b[e][i] = (unsigned char)("ab\x80\xff"[rnd() % 4]);
		}
	}
}

static void random_batch(struct batch *bt)
{
	bt->ncol = 1 + (int)(rnd() % MAX_COLS);
	bt->nrows = (int)(rnd() % MAX_ROWS);
	for (int c = 0; c < bt->ncol; c++) {
		bt->type[c] = (int)(rnd() % 10);
		bt->array[c] = rnd() % 4 == 0;
		snprintf(bt->name[c], sizeof(bt->name[c]), "c%u", (unsigned int)c % 10u);
	}
	for (int r = 0; r < bt->nrows; r++)
		for (int c = 0; c < bt->ncol; c++)
			random_value(&bt->v[r][c], bt->type[c], bt->array[c]);
}

static void write_batch(const struct batch *bt, struct ps_json_buf *b)
{
	ps_json__char(b, '(');
	for (int c = 0; c < bt->ncol; c++) {
		if (c)
			ps_json__raw(b, ", ", 2);
		ps_json__char(b, '`');
		ps_json__raw(b, bt->name[c], strlen(bt->name[c]));
		ps_json__char(b, '`');
	}
	ps_json__raw(b, ")\n", 2);
	for (int c = 0; c < bt->ncol; c++) {
		char t[40];

		snprintf(t, sizeof(t), bt->array[c] ? "%sArray(%s)" : "%s%s", c ? " " : "",
		         type_names[bt->type[c]]);
		ps_json__raw(b, t, strlen(t));
	}
	ps_json__char(b, '\n');
	for (int r = 0; r < bt->nrows; r++)
		for (int c = 0; c < bt->ncol; c++) {
			const struct val *v = &bt->v[r][c];

			if (bt->array[c])
				put_varint(b, v->n);
			for (size_t e = 0; e < v->n; e++) {
				if (!widths[bt->type[c]])
					put_varint(b, v->len[e]);
				ps_json__raw(b, v->b[e], v->len[e]);
			}
		}
}

/* the key's order, as the server's: strings by bytes then length, numbers as numbers */
static int cmp_value(const struct val *a, const struct val *b, int type)
{
	if (!widths[type]) {
		size_t n = a->len[0] < b->len[0] ? a->len[0] : b->len[0];
		int c = n ? memcmp(a->b[0], b->b[0], n) : 0;

		return c ? c : (a->len[0] > b->len[0]) - (a->len[0] < b->len[0]);
	}
	for (int i = (int)widths[type] - 1; i >= 0; i--) {
		int x = a->b[0][i], y = b->b[0][i];

		if (type >= 4 && i == (int)widths[type] - 1) {
			x ^= 0x80;
			y ^= 0x80;
		}
		if (x != y)
			return x < y ? -1 : 1;
	}
	return 0;
}

static const struct batch *sort_bt;
static const int *sort_key;
static int sort_nkey;

static int cmp_rows(const void *pa, const void *pb)
{
	int a = *(const int *)pa, b = *(const int *)pb;

	for (int k = 0; k < sort_nkey; k++) {
		int c = sort_key[k];
		int d = cmp_value(&sort_bt->v[a][c], &sort_bt->v[b][c], sort_bt->type[c]);

		if (d)
			return d;
	}
	return (a > b) - (a < b); /* stable */
}

static int get_varint(const unsigned char **p, const unsigned char *end, uint64_t *v)
{
	int shift = 0;

	*v = 0;
	while (*p < end && shift < 70) {
		unsigned char x = *(*p)++;

		*v |= (uint64_t)(x & 0x7f) << shift;
		shift += 7;
		if (!(x & 0x80))
			return 0;
	}
	return -1;
}

/* read the block back and check it against the batch in the order @order */
static int check_block(const struct batch *bt, const int *order, const unsigned char *p, size_t len)
{
	const unsigned char *end = p + len;
	uint64_t v;

	if (get_varint(&p, end, &v) || v != (uint64_t)bt->ncol)
		return -1;
	if (get_varint(&p, end, &v) || v != (uint64_t)bt->nrows)
		return -2;
	for (int c = 0; c < bt->ncol; c++) {
		char t[40];
		const unsigned char *elems;
		uint64_t prev = 0;

		if (get_varint(&p, end, &v) || v != strlen(bt->name[c]) || (size_t)(end - p) < v ||
		    memcmp(p, bt->name[c], v))
			return -3;
		p += v;
		snprintf(t, sizeof(t), bt->array[c] ? "Array(%s)" : "%s", type_names[bt->type[c]]);
		if (get_varint(&p, end, &v) || v != strlen(t) || (size_t)(end - p) < v ||
		    memcmp(p, t, v))
			return -4;
		p += v;
		/* an Array: every row's end, then the elements */
		elems = p;
		if (bt->array[c]) {
			if ((size_t)(end - p) < 8u * (size_t)bt->nrows)
				return -5;
			elems = p + 8u * (size_t)bt->nrows;
		}
		for (int r = 0; r < bt->nrows; r++) {
			const struct val *x = &bt->v[order[r]][c];

			if (bt->array[c]) {
				uint64_t o = 0;

				for (int i = 7; i >= 0; i--)
					o = o << 8 | p[8 * r + i];
				if (o - prev != x->n)
					return -6;
				prev = o;
			}
			for (size_t e = 0; e < x->n; e++) {
				if (!widths[bt->type[c]]) {
					if (get_varint(&elems, end, &v) || v != x->len[e])
						return -7;
				}
				if ((size_t)(end - elems) < x->len[e] ||
				    memcmp(elems, x->b[e], x->len[e]))
					return -8;
				elems += x->len[e];
			}
		}
		p = elems;
	}
	return p == end ? 0 : -9;
}

static void test_random(void)
{
	static struct batch bt;
	int ok = 0, cuts_ok = 0, cuts = 0;

	for (int it = 0; it < 400; it++) {
		struct ps_json_buf in = { 0 }, out = { 0 };
		const char *names[MAX_COLS + 1];
		int key[MAX_COLS], nkey = 0, order[MAX_ROWS];
		long rows;

		random_batch(&bt);
		write_batch(&bt, &in);
		/* a key of some scalar columns, in any order, and a name the batch lacks */
		for (int c = 0; c < bt.ncol; c++)
			if (!bt.array[c] && rnd() % 2)
				key[nkey++] = c;
		for (int k = nkey - 1; k > 0; k--) {
			int j = (int)(rnd() % (unsigned)(k + 1)), t = key[k];

			key[k] = key[j];
			key[j] = t;
		}
		for (int k = 0; k < nkey; k++)
			names[k] = bt.name[key[k]];
		names[nkey] = "absent";
		for (int r = 0; r < bt.nrows; r++)
			order[r] = r;
		sort_bt = &bt;
		sort_key = key;
		sort_nkey = nkey;
		qsort(order, (size_t)bt.nrows, sizeof(order[0]), cmp_rows);
		rows = ps_native__from_rowbinary(in.p, in.len, names, (size_t)nkey + 1, &out);
		if (rows == bt.nrows &&
		    check_block(&bt, order, (const unsigned char *)out.p, out.len) == 0)
			ok++;
		else
			fprintf(stderr, "batch %d: %ld rows, check %d\n", it, rows,
			        check_block(&bt, order, (const unsigned char *)out.p, out.len));
		/* cut short anywhere in the rows: malformed, nothing read past the end */
		if (bt.nrows) {
			size_t h = (size_t)((char *)memchr(memchr(in.p, '\n', in.len) + 1, '\n',
			                                   in.len) -
			                    in.p) +
			           1;
			size_t cut = h + rnd() % (in.len - h);
			char *copy = malloc(cut ? cut : 1);
			struct ps_json_buf o2 = { 0 };
			long r2;

			memcpy(copy, in.p, cut);
			r2 = ps_native__from_rowbinary(copy, cut, names, (size_t)nkey, &o2);
			cuts++;
			/* a cut between rows is a shorter batch, else malformed */
			cuts_ok += r2 == -1 || (r2 >= 0 && r2 < bt.nrows);
			free(copy);
			ps_json_buf__release(&o2);
		}
		ps_json_buf__release(&in);
		ps_json_buf__release(&out);
	}
	CHECK_EQ_U64(ok, 400);
	CHECK_EQ_U64(cuts_ok, cuts);
}

/* a batch by hand: the bytes of its block, exactly */
static void test_exact(void)
{
	static const char batch[] = "(`host`, `time`, `a`)\n"
	                            "String UInt64 Array(UInt32)\n"
	                            "\x01h\x02\0\0\0\0\0\0\0\x01\x07\0\0\0"
	                            "\x01h\x01\0\0\0\0\0\0\0\x00";
	static const char want[] = "\x03\x02"
	                           "\x04host\x06String\x01h\x01h"
	                           "\x04time\x06UInt64\x01\0\0\0\0\0\0\0\x02\0\0\0\0\0\0\0"
	                           "\x01"
	                           "a\x0d"
	                           "Array(UInt32)\0\0\0\0\0\0\0\0\x01\0\0\0\0\0\0\0\x07\0\0\0";
	const char *key[] = { "host", "time" };
	struct ps_json_buf out = { 0 };

	CHECK_EQ_U64(ps_native__from_rowbinary(batch, sizeof(batch) - 1, key, 2, &out), 2);
	CHECK_EQ_U64(out.len, sizeof(want) - 1);
	CHECK(out.len == sizeof(want) - 1 && memcmp(out.p, want, out.len) == 0);
	ps_json_buf__release(&out);
	/* not a batch */
	CHECK(ps_native__from_rowbinary("hello\nworld\n", 12, NULL, 0, &out) == -1);
	CHECK(ps_native__from_rowbinary("(`a`)\nUInt8\n\x01\x02", 14, NULL, 0, &out) == 2);
	ps_json_buf__release(&out);
	CHECK(ps_native__from_rowbinary("(`a`)\nString\n\x05x", 15, NULL, 0, &out) == -1);
	ps_json_buf__release(&out);
}

/* ps_native__place(): the same block where the caller wants it; no room: out of memory */
struct room {
	char buf[256];
	size_t asked;
};

static char *room_at(void *arg, size_t size)
{
	struct room *r = arg;

	r->asked = size;
	return size <= sizeof(r->buf) ? r->buf : NULL;
}

static void test_place(void)
{
	static const char batch[] = "(`host`, `time`, `a`)\n"
	                            "String UInt64 Array(UInt32)\n"
	                            "\x01h\x02\0\0\0\0\0\0\0\x01\x07\0\0\0"
	                            "\x01h\x01\0\0\0\0\0\0\0\x00";
	const char *key[] = { "host", "time" };
	struct ps_json_buf out = { 0 };
	struct room r = { { 0 }, 0 };
	size_t size = 1;
	char big[400];

	CHECK_EQ_U64(ps_native__from_rowbinary(batch, sizeof(batch) - 1, key, 2, &out), 2);
	CHECK_EQ_U64(ps_native__place(batch, sizeof(batch) - 1, key, 2, room_at, &r, &size), 2);
	CHECK_EQ_U64(size, out.len);
	CHECK(size <= r.asked && memcmp(r.buf, out.p, out.len) == 0);
	ps_json_buf__release(&out);
	/* longer strings than the fast copies cover: 40 bytes */
	static const char longer[] = "(`s`)\nString\n"
	                             "\x28xxxxxxxxxyyyyyyyyyzzzzzzzzzwwwwwwwwwvvvv"
	                             "\x03"
	                             "abc";
	static const char want[] = "\x01\x02\x01s\x06String"
	                           "\x28xxxxxxxxxyyyyyyyyyzzzzzzzzzwwwwwwwwwvvvv"
	                           "\x03"
	                           "abc";

	CHECK_EQ_U64(ps_native__place(longer, sizeof(longer) - 1, NULL, 0, room_at, &r, &size), 2);
	CHECK(size == sizeof(want) - 1 && memcmp(r.buf, want, size) == 0);
	/* a batch cut short: malformed; a block larger than the room given: out of memory */
	CHECK(ps_native__place(batch, sizeof(batch) - 2, key, 2, room_at, &r, &size) == -1);
	memcpy(big, "(`s`)\nString\n", 13);
	big[13] = (char)0xac; /* 300 bytes: a two-byte varint */
	big[14] = 0x02;
	memset(big + 15, 'q', 300);
	CHECK(ps_native__place(big, 315, NULL, 0, room_at, &r, &size) == -2);
	CHECK(r.asked > sizeof(r.buf));
}

int main(void)
{
	test_exact();
	test_place();
	test_random();
	return UNIT_DONE("native");
}
