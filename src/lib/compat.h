/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * compat.h - compiler attributes, ARRAY_SIZE and byte-order helpers.
 *
 * Stream bytes are never cast to structs: records may sit at any offset,
 * so every multi-byte value is read with ps_get*() in the stream's order.
 */
#ifndef PS_COMPAT_H
#define PS_COMPAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define PS_PRINTF(f, a) __attribute__((format(printf, f, a)))
#define PS_NORETURN _Noreturn
#define PS_UNUSED __attribute__((unused))
/* a rare path kept out of line, so the common path around it stays small */
#define PS_COLD __attribute__((cold, noinline))
/* a call kept a call: inlined, it would make every caller save registers it rarely needs */
#define PS_NOINLINE __attribute__((noinline))

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

#define PS_ALIGN8(x) (((x) + 7) & ~(uint64_t)7)

static inline uint16_t ps_get16(const void *p, bool swap)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return swap ? __builtin_bswap16(v) : v;
}

static inline uint32_t ps_get32(const void *p, bool swap)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return swap ? __builtin_bswap32(v) : v;
}

static inline uint64_t ps_get64(const void *p, bool swap)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return swap ? __builtin_bswap64(v) : v;
}

static inline void ps_put16(void *p, uint16_t v, bool swap)
{
	if (swap)
		v = __builtin_bswap16(v);
	memcpy(p, &v, sizeof(v));
}

static inline void ps_put32(void *p, uint32_t v, bool swap)
{
	if (swap)
		v = __builtin_bswap32(v);
	memcpy(p, &v, sizeof(v));
}

static inline void ps_put64(void *p, uint64_t v, bool swap)
{
	if (swap)
		v = __builtin_bswap64(v);
	memcpy(p, &v, sizeof(v));
}

/* an unsigned number of @size bytes (1, 2, 4 or 8) at @p, in the stream's order; else 0 */
static inline uint64_t ps_get_num(const void *p, unsigned int size, bool swap)
{
	switch (size) {
	case 1:
		return *(const unsigned char *)p;
	case 2:
		return ps_get16(p, swap);
	case 4:
		return ps_get32(p, swap);
	case 8:
		return ps_get64(p, swap);
	default:
		return 0;
	}
}

/* @v read from a signed field of @size bytes (1, 2, 4 or 8), as a signed 64-bit value */
static inline int64_t ps_sign_extend(uint64_t v, unsigned int size)
{
	switch (size) {
	case 1:
		return (int8_t)v;
	case 2:
		return (int16_t)v;
	case 4:
		return (int32_t)v;
	default:
		return (int64_t)v;
	}
}

/*
 * ps_upper_bound() - in @n entries of @size bytes at @base, sorted by the uint64_t at byte
 * @off of each (a start address), the index of the first whose key is above @key; the one
 * before it is the last at or below @key.  Inline, with constant @size and @off, it is the
 * loop over the struct member.
 */
static inline size_t ps_upper_bound(const void *base, size_t n, size_t size, size_t off,
                                    uint64_t key)
{
	const unsigned char *p = base;
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t v;

		memcpy(&v, p + mid * size + off, sizeof(v));
		if (v <= key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static inline bool ps_host_is_big_endian(void)
{
	return __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__;
}

/* splitmix64's finalizer: every input bit moves every output bit (a hash table's index
 * from an id, a tid or a seeded key) */
static inline uint64_t ps_mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

#endif
