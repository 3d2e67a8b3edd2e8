// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_xalloc.c - the growing byte buffer: appends keep every byte across growths, a cap
 * or an overflowing length refuses the append and leaves the buffer as it was; the sticky
 * writers stop at @max and stay failed, and text written with printf is whole however long.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/xalloc.h"
#include "unit.h"

static void test_bytes_grow(void)
{
	struct ps_bytes b = { 0 };
	unsigned char chunk[100];
	size_t i, ok = 0;

	for (i = 0; i < 100; i++) {
		memset(chunk, (int)i, sizeof(chunk));
		ok += ps_bytes__add(&b, chunk, sizeof(chunk), SIZE_MAX) == 0;
	}
	CHECK_EQ_U64(ok, 100);
	CHECK_EQ_U64(b.len, 10000);
	CHECK(b.cap >= b.len);
	for (i = 0, ok = 0; i < b.len; i++)
		ok += b.p[i] == (unsigned char)(i / 100);
	CHECK_EQ_U64(ok, 10000);
	CHECK_EQ_U64(ps_bytes__add(&b, chunk, 0, SIZE_MAX), 0);
	CHECK_EQ_U64(b.len, 10000);
	free(b.p);
}

static void test_bytes_refused(void)
{
	struct ps_bytes b = { 0 };
	unsigned char chunk[64] = { 1 };
	unsigned char *before;

	CHECK_EQ_U64(ps_bytes__add(&b, chunk, sizeof(chunk), 100), 0);
	before = b.p;
	CHECK(ps_bytes__add(&b, chunk, sizeof(chunk), 100) < 0);
	CHECK(ps_bytes__reserve(&b, SIZE_MAX, SIZE_MAX) < 0);
	CHECK(ps_bytes__reserve(&b, SIZE_MAX - 8, SIZE_MAX) < 0);
	CHECK(b.p == before);
	CHECK_EQ_U64(b.len, 64);
	/* a reservation does not count as held bytes until the caller adds them */
	CHECK_EQ_U64(ps_bytes__reserve(&b, 36, 100), 0);
	CHECK_EQ_U64(b.len, 64);
	free(b.p);
}

static void test_bytes_writers(void)
{
	struct ps_bytes b = { .max = 16 };
	char big[3000];

	ps_bytes__u32(&b, 0x01020304);
	ps_bytes__pad(&b, 8);
	ps_bytes__u64(&b, 7);
	CHECK_EQ_U64(b.len, 16);
	CHECK(!b.failed);
	CHECK_EQ_U64(b.p[4] | b.p[5] | b.p[6] | b.p[7], 0);
	ps_bytes__zero(&b, 1); /* past @max: refused, and it sticks */
	CHECK(b.failed);
	CHECK_EQ_U64(b.len, 16);
	b.max = 0;
	ps_bytes__puts(&b, "x");
	CHECK_EQ_U64(b.len, 16);
	ps_bytes__release(&b);
	CHECK(!b.p && !b.len && !b.failed);

	CHECK(strcmp(ps_bytes__text(&b), "") == 0);
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = 0;
	ps_bytes__printf(&b, "%s-%d", "ab", 12);
	ps_bytes__printf(&b, "[%s]", big); /* longer than the first block: grows and writes again */
	CHECK(!b.failed);
	CHECK_EQ_U64(b.len, 5 + sizeof(big) + 1);
	CHECK(strncmp(ps_bytes__text(&b), "ab-12[aaa", 9) == 0);
	CHECK_EQ_U64(strlen(ps_bytes__text(&b)), b.len);
	CHECK(ps_bytes__text(&b)[b.len - 1] == ']');
	ps_bytes__release(&b);

	b.max = 4;
	ps_bytes__printf(&b, "%s", "toolong");
	CHECK(b.failed);
	CHECK_EQ_U64(b.len, 0);
	CHECK(strcmp(ps_bytes__text(&b), "") == 0);
	ps_bytes__release(&b);
}

int main(void)
{
	test_bytes_writers();
	test_bytes_grow();
	test_bytes_refused();
	return UNIT_DONE("xalloc");
}
