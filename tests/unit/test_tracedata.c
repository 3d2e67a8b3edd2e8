// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_tracedata.c - the join of tracing data blobs: a format whose tracepoint id another
 * blob gave to another event gets an id nobody has, identical formats are kept once and
 * share their id, and a damaged blob is refused.  Blobs are made here, little-endian.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/lib/tracedata.h"
#include "unit.h"

struct blob {
	unsigned char b[4096];
	size_t len;
};

static void put(struct blob *x, const void *p, size_t n)
{
	memcpy(x->b + x->len, p, n);
	x->len += n;
}

static void put32(struct blob *x, uint32_t v)
{
	unsigned char p[4] = { v, v >> 8, v >> 16, v >> 24 };

	put(x, p, 4);
}

static void put64(struct blob *x, uint64_t v)
{
	put32(x, (uint32_t)v);
	put32(x, (uint32_t)(v >> 32));
}

/* a blob of one system @sys with the formats of events @names[i], ids @ids[i] */
static void make(struct blob *x, const char *sys, int n, const char *const *names, const int *ids)
{
	char text[256];
	int i;

	x->len = 0;
	put(x, "\027\010\104tracing", 10);
	put(x, "0.6", 4);
	put(x, "\0\010", 2);
	put32(x, 4096);
	put(x, "header_page", 12);
	put64(x, 0);
	put(x, "header_event", 13);
	put64(x, 0);
	put32(x, 0); /* ftrace formats */
	put32(x, 1);
	put(x, sys, strlen(sys) + 1);
	put32(x, (uint32_t)n);
	for (i = 0; i < n; i++) {
		int l = snprintf(text, sizeof(text), "name: %s\nID: %d\nformat:\n\tfield:x;\n",
		                 names[i], ids[i]);

		put64(x, (uint64_t)l);
		put(x, text, (size_t)l);
	}
	put32(x, 0); /* kallsyms */
	put32(x, 0); /* printk */
	put64(x, 0); /* cmdlines */
}

static size_t count(const unsigned char *b, size_t len, const char *s)
{
	size_t n = 0, l = strlen(s), i;

	for (i = 0; i + l <= len; i++)
		n += memcmp(b + i, s, l) == 0;
	return n;
}

int main(void)
{
	static const char *const enter[] = { "sys_enter" }, *const wake[] = { "sched_wakeup" };
	static const char *const big[] = { "big" };
	const int id443[] = { 443 }, id70000[] = { 70000 };
	struct blob a, b, c, d;
	const unsigned char *blobs[4];
	size_t lens[4], out_len;
	struct ps_tp_remap r[4];
	unsigned char *out;
	char want[32];
	uint64_t fresh;
	int i;

	/* two boots: 443 is sys_enter on one, sched_wakeup on the other and the third */
	make(&a, "raw_syscalls", 1, enter, id443);
	make(&b, "sched", 1, wake, id443);
	make(&c, "sched", 1, wake, id443);
	blobs[0] = a.b, lens[0] = a.len;
	blobs[1] = b.b, lens[1] = b.len;
	blobs[2] = c.b, lens[2] = c.len;
	CHECK(ps_tracedata__merge(3, blobs, lens, &out, &out_len, r) == 0);
	CHECK_EQ_U64(r[0].n, 0);
	CHECK_EQ_U64(ps_tracedata__remap_id(&r[0], 443), 443);
	CHECK_EQ_U64(r[1].n, 1);
	fresh = ps_tracedata__remap_id(&r[1], 443);
	CHECK(fresh != 443 && fresh > 0 && fresh < 65536);
	CHECK_EQ_U64(ps_tracedata__remap_id(&r[2], 443), fresh); /* the same format: one id */
	CHECK_EQ_U64(ps_tracedata__remap_id(&r[1], 12), 12);
	CHECK_EQ_U64(out_len % 8, 0);
	CHECK_EQ_U64(count(out, out_len, "ID: 443\n"), 1);
	snprintf(want, sizeof(want), "name: sched_wakeup\nID: %llu\n", (unsigned long long)fresh);
	CHECK_EQ_U64(count(out, out_len, want), 1);
	CHECK_EQ_U64(count(out, out_len, "name: sys_enter\nID: 443\n"), 1);
	for (i = 0; i < 3; i++)
		ps_tracedata__remap_free(&r[i]);
	free(out);

	/* the same format in both: kept once, no id changed */
	blobs[1] = a.b, lens[1] = a.len;
	CHECK(ps_tracedata__merge(2, blobs, lens, &out, &out_len, r) == 0);
	CHECK_EQ_U64(r[0].n + r[1].n, 0);
	CHECK_EQ_U64(count(out, out_len, "name: sys_enter"), 1);
	ps_tracedata__remap_free(&r[0]);
	ps_tracedata__remap_free(&r[1]);
	free(out);

	/* an id no sample's 16-bit common_type can hold is left as it is */
	make(&d, "big", 1, big, id70000);
	blobs[1] = d.b, lens[1] = d.len;
	CHECK(ps_tracedata__merge(2, blobs, lens, &out, &out_len, r) == 0);
	CHECK_EQ_U64(r[1].n, 0);
	CHECK_EQ_U64(count(out, out_len, "ID: 70000\n"), 1);
	free(out);

	/* a damaged blob: refused, no table left to free */
	blobs[1] = b.b, lens[1] = b.len - 30;
	CHECK(ps_tracedata__merge(2, blobs, lens, &out, &out_len, r) == -1);
	CHECK(r[0].old == NULL && r[1].old == NULL && r[1].n == 0);
	return UNIT_DONE("tracedata");
}
