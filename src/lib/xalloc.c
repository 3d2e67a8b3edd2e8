// SPDX-License-Identifier: GPL-2.0-only
/*
 * xalloc.c - checked allocation helpers.
 */
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
