/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * build.h - a growable byte buffer for building streams and records by hand in the unit
 * tests, in either byte order (@swap: write the order opposite to the host's).
 */
#ifndef PS_UNIT_BUILD_H
#define PS_UNIT_BUILD_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/compat.h"

struct buf {
	unsigned char *p;
	size_t len, cap;
	bool swap;
};

/* @n more zeroed bytes at the end; the test aborts when memory runs out */
static inline unsigned char *grow(struct buf *b, size_t n)
{
	unsigned char *r;

	if (b->len + n > b->cap) {
		size_t c = b->cap ? b->cap : 1024;

		while (c < b->len + n)
			c *= 2;
		b->p = realloc(b->p, c);
		if (!b->p)
			abort();
		b->cap = c;
	}
	r = b->p + b->len;
	memset(r, 0, n);
	b->len += n;
	return r;
}

static inline void put_bytes(struct buf *b, const void *d, size_t n)
{
	memcpy(grow(b, n), d, n);
}

static inline void put16(struct buf *b, uint16_t v)
{
	ps_put16(grow(b, 2), v, b->swap);
}

static inline void put32(struct buf *b, uint32_t v)
{
	ps_put32(grow(b, 4), v, b->swap);
}

static inline void put64(struct buf *b, uint64_t v)
{
	ps_put64(grow(b, 8), v, b->swap);
}

#endif
