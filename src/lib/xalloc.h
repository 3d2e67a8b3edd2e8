/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * xalloc.h - allocation with overflow checks; nothing here exits.
 */
#ifndef PS_XALLOC_H
#define PS_XALLOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "compat.h"

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
 * ps_resize_zeroed() - ps_realloc_array() of the array at *@p from its *@n elements of @size
 * bytes to @want of them, the new ones zeroed.
 * Return: 0 with *@p and *@n updated, or -1 with both unchanged.
 */
int ps_resize_zeroed(void **p, size_t *n, size_t want, size_t size);

/**
 * ps_grow_cap() - the capacity an array of @cap elements doubles to for @need of them.
 * @cap: what it holds now (0: nothing yet)
 * @need: how many it must hold
 * @first: where the doubling starts when @cap is 0
 *
 * Return: @cap when @need fits, else the first of @cap (or @first) doubled that holds
 * @need; 0 when that would overflow.
 */
size_t ps_grow_cap(size_t cap, size_t need, size_t first);

/**
 * ps_slot_grow() - ps_slot()'s slow path: the array grown to hold index @i and 8 more, the
 * new elements zeroed.
 * Return: element @i, or NULL (the array as it was) without memory.
 */
void *ps_slot_grow(void **p, size_t *n, size_t size, size_t i);

/**
 * ps_slot() - element @i of the array *@p of *@n elements of @size bytes (one per attr
 * index, say), the array grown with zeroed elements when it is too short.
 * @p: the array's pointer, cast to (void **)
 *
 * Return: the element; NULL for a negative @i or without memory.
 */
static inline void *ps_slot(void **p, size_t *n, size_t size, long i)
{
	if (i < 0)
		return NULL;
	if ((size_t)i < *n)
		return (unsigned char *)*p + (size_t)i * size;
	return ps_slot_grow(p, n, size, (size_t)i);
}

/**
 * ps_grow() - make the array at *@p hold at least @need elements of @size bytes,
 * doubling its capacity *@cap (from @first when it is 0) as ps_grow_cap() says.
 * @p: the array's pointer, cast to (void **)
 * @cap: its capacity in elements, updated with it
 *
 * Return: 0, or -1 with *@p and *@cap unchanged on overflow or without memory.
 */
int ps_grow(void **p, size_t *cap, size_t need, size_t size, size_t first);

/**
 * struct ps_bytes - the library's one growable byte buffer (and text being written).
 * @p: the bytes (NULL until the first append)
 * @len: bytes in use
 * @cap: bytes allocated
 * @max: for the writers below (ps_bytes__put() ...): a cap on @len, 0 for none
 * @failed: a writer below ran out of memory or past @max; later writes do nothing, so a
 *          run of writes is checked once at its end
 *
 * Starts zeroed ({ 0 }, or { .max = N }); ps_bytes__release() (or free(@p)) releases it.
 */
struct ps_bytes {
	unsigned char *p;
	size_t len, cap;
	size_t max;
	bool failed;
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

/** ps_bytes__put() - append @len bytes at @src, or set @b->failed. */
void ps_bytes__put(struct ps_bytes *b, const void *src, size_t len);

/** ps_bytes__puts() - append the string @s without its NUL. */
static inline void ps_bytes__puts(struct ps_bytes *b, const char *s)
{
	ps_bytes__put(b, s, strlen(s));
}

/** ps_bytes__zero() - append @len zero bytes, or set @b->failed. */
void ps_bytes__zero(struct ps_bytes *b, size_t len);

/** ps_bytes__pad() - append zeros up to a multiple of @align (not 0). */
void ps_bytes__pad(struct ps_bytes *b, size_t align);

/** ps_bytes__u32() - append a host-order u32. */
static inline void ps_bytes__u32(struct ps_bytes *b, uint32_t v)
{
	ps_bytes__put(b, &v, sizeof(v));
}

/** ps_bytes__u64() - append a host-order u64. */
static inline void ps_bytes__u64(struct ps_bytes *b, uint64_t v)
{
	ps_bytes__put(b, &v, sizeof(v));
}

/**
 * ps_bytes__printf() - append formatted text, or set @b->failed.  The bytes stay
 * NUL-terminated (the NUL after @len, not counted in it).
 */
void ps_bytes__printf(struct ps_bytes *b, const char *fmt, ...) PS_PRINTF(2, 3);

/**
 * ps_bytes__text() - what was written, as a NUL-terminated string.
 * Return: the text, or "" when nothing was written or no byte is left for the NUL.
 */
const char *ps_bytes__text(struct ps_bytes *b);

/** ps_bytes__release() - free the bytes; @b is zeroed (@max too). */
void ps_bytes__release(struct ps_bytes *b);

/**
 * ps_strndup0() - copy at most @max bytes of @s up to its first NUL, always terminated.
 * Return: a malloc'ed string or NULL.
 */
char *ps_strndup0(const void *s, size_t max);

#endif
