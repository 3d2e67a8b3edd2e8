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
 * struct ps_bytes - a byte buffer that grows by doubling.
 * @p: the bytes (NULL until the first append)
 * @len: bytes in use
 * @cap: bytes allocated
 *
 * Starts zeroed ({ 0 }); free(@p) releases it.
 */
struct ps_bytes {
	unsigned char *p;
	size_t len, cap;
};

/**
 * ps_bytes__reserve() - room for @more bytes at @b->p + @b->len, @b->len + @more <= @max.
 * @b: the buffer
 * @more: bytes the caller is about to write after @b->len (it then adds them to @b->len)
 * @max: cap on the bytes held (SIZE_MAX: none)
 *
 * The first block is 1 KiB; each growth doubles it until the bytes fit.
 * Return: 0, or -1 with @b unchanged past @max, on overflow or without memory.
 */
int ps_bytes__reserve(struct ps_bytes *b, size_t more, size_t max);

/**
 * ps_bytes__add() - append @len bytes at @src to @b, as ps_bytes__reserve() allows.
 * @b: the buffer
 * @src: the bytes
 * @len: how many
 * @max: cap on the bytes held (SIZE_MAX: none)
 *
 * Return: 0, or -1 with @b unchanged.
 */
int ps_bytes__add(struct ps_bytes *b, const void *src, size_t len, size_t max);

/**
 * ps_strndup0() - copy at most @max bytes of @s up to its first NUL, always terminated.
 * Return: a malloc'ed string or NULL.
 */
char *ps_strndup0(const void *s, size_t max);

#endif
