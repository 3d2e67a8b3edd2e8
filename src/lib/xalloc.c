// SPDX-License-Identifier: GPL-2.0-only
/*
 * xalloc.c - checked allocation helpers and the growable byte buffer.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
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

int ps_resize_zeroed(void **p, size_t *n, size_t want, size_t size)
{
	unsigned char *q = ps_realloc_array(*p, want, size);

	if (!q)
		return -1;
	if (want > *n)
		memset(q + *n * size, 0, (want - *n) * size);
	*p = q;
	*n = want;
	return 0;
}

size_t ps_grow_cap(size_t cap, size_t need, size_t first)
{
	size_t n = cap ? cap : first;

	if (need <= cap)
		return cap;
	while (n < need) {
		if (n > SIZE_MAX / 2)
			return 0;
		n *= 2;
	}
	return n;
}

void *ps_slot_grow(void **p, size_t *n, size_t size, size_t i)
{
	if (i + 8 < i || ps_resize_zeroed(p, n, i + 8, size))
		return NULL;
	return (unsigned char *)*p + i * size;
}

int ps_grow(void **p, size_t *cap, size_t need, size_t size, size_t first)
{
	size_t n = ps_grow_cap(*cap, need, first);
	void *q;

	if (n == *cap)
		return 0;
	if (!n)
		return -1;
	q = ps_realloc_array(*p, n, size);
	if (!q)
		return -1;
	*p = q;
	*cap = n;
	return 0;
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
	if (more > max || b->len > max - more)
		return -1;
	return ps_grow((void **)&b->p, &b->cap, b->len + more, 1, 1024);
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

/* room for @more bytes under @b->max, or @b->failed */
static bool writable(struct ps_bytes *b, size_t more)
{
	if (b->failed)
		return false;
	if (ps_bytes__reserve(b, more, b->max ? b->max : SIZE_MAX) < 0) {
		b->failed = true;
		return false;
	}
	return true;
}

void ps_bytes__put(struct ps_bytes *b, const void *src, size_t len)
{
	if (!len || !writable(b, len))
		return;
	memcpy(b->p + b->len, src, len);
	b->len += len;
}

void ps_bytes__zero(struct ps_bytes *b, size_t len)
{
	if (!len || !writable(b, len))
		return;
	memset(b->p + b->len, 0, len);
	b->len += len;
}

void ps_bytes__pad(struct ps_bytes *b, size_t align)
{
	size_t rem = b->len % align;

	if (rem)
		ps_bytes__zero(b, align - rem);
}

void ps_bytes__printf(struct ps_bytes *b, const char *fmt, ...)
{
	va_list ap;
	size_t room;
	int n;

	if (!writable(b, 1))
		return;
	room = b->cap - b->len;
	va_start(ap, fmt);
	n = vsnprintf((char *)b->p + b->len, room, fmt, ap);
	va_end(ap);
	if (n < 0) {
		b->p[b->len] = 0;
		b->failed = true;
		return;
	}
	/* within @max, and written whole (else again, now that there is room) */
	if (!writable(b, (size_t)n + 1)) {
		b->p[b->len] = 0;
		return;
	}
	if ((size_t)n >= room) {
		va_start(ap, fmt);
		vsnprintf((char *)b->p + b->len, (size_t)n + 1, fmt, ap);
		va_end(ap);
	}
	b->len += (size_t)n;
}

const char *ps_bytes__text(struct ps_bytes *b)
{
	if ((!b->p || b->len == b->cap) && !writable(b, 1))
		return "";
	b->p[b->len] = 0;
	return (const char *)b->p;
}

void ps_bytes__release(struct ps_bytes *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}
