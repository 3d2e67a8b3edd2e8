// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_xalloc.c - the growing byte buffer: appends keep every byte across growths, a cap
 * or an overflowing length refuses the append and leaves the buffer as it was.
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

int main(void)
{
	test_bytes_grow();
	test_bytes_refused();
	return UNIT_DONE("xalloc");
}
