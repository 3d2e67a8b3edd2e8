/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * xalloc.h - allocation with overflow checks; nothing here exits.
 */
#ifndef PS_XALLOC_H
#define PS_XALLOC_H

#include <stdbool.h>
#include <stddef.h>

/* Caps on what a stream may make us hold at once. */
#define PS_MAX_TRACING_DATA (64u << 20) /* TRACING_DATA blob */
#define PS_MAX_AUXTRACE (256u << 20)    /* one AUXTRACE payload */
#define PS_MAX_FEATURE_SECTION (16u << 20)
#define PS_MAX_ATTRS 4096
#define PS_MAX_IDS (1u << 20)

/**
 * ps_mul_ok() - @a * @b into @res unless it overflows.
 * Return: true when it fits.
 */
static inline bool ps_mul_ok(size_t a, size_t b, size_t *res)
{
	return !__builtin_mul_overflow(a, b, res);
}

/**
 * ps_realloc_array() - realloc(@p, @n * @size) with the multiplication checked.
 * Return: the new block, or NULL (and @p untouched) on overflow or no memory.
 */
void *ps_realloc_array(void *p, size_t n, size_t size);

/**
 * ps_strndup0() - copy at most @max bytes of @s up to its first NUL, always terminated.
 * Return: a malloc'ed string or NULL.
 */
char *ps_strndup0(const void *s, size_t max);

#endif
