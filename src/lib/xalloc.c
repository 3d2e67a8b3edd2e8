// SPDX-License-Identifier: GPL-2.0-only
/*
 * xalloc.c - checked allocation helpers.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

void *ps_realloc_array(void *p, size_t n, size_t size)
{
	size_t bytes;

	if (!ps_mul_ok(n, size, &bytes))
		return NULL;
	return realloc(p, bytes ? bytes : 1);
}

char *ps_strndup0(const void *s, size_t max)
{
	const char *end = memchr(s, 0, max);
	size_t len = end ? (size_t)(end - (const char *)s) : max;
	char *r = malloc(len + 1);

	if (!r)
		return NULL;
	memcpy(r, s, len);
	r[len] = 0;
	return r;
}

int ps_bytes__reserve(struct ps_bytes *b, size_t more, size_t max)
{
	size_t need, cap;
	unsigned char *n;

	if (more > max || b->len > max - more)
		return -1;
	need = b->len + more;
	if (need <= b->cap)
		return 0;
	cap = b->cap ? b->cap : 1024;
	while (cap < need) {
		if (cap > SIZE_MAX / 2)
			return -1;
		cap *= 2;
	}
	n = realloc(b->p, cap);
	if (!n)
		return -1;
	b->p = n;
	b->cap = cap;
	return 0;
}

int ps_bytes__add(struct ps_bytes *b, const void *src, size_t len, size_t max)
{
	if (ps_bytes__reserve(b, len, max) < 0)
		return -1;
	if (len)
		memcpy(b->p + b->len, src, len);
	b->len += len;
	return 0;
}
