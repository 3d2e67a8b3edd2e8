/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * json.h - the JSON primitives every encoder shares: a growing text buffer, integers,
 * "0x..." addresses and strings written straight into it, and the same values as jansson
 * objects for the rare documents built with jansson (pheader --json, pcount --json).
 *
 * The text the buffer functions write is byte for byte what jansson's compact dump writes
 * for the same value (json_dumpb with JSON_COMPACT): the same escapes (\" \\ \b \f \n \r \t,
 * \u00XX with upper-case hex for the other bytes below 0x20), UTF-8 kept as it is.  Strings
 * are made valid UTF-8 on the way: every byte that does not start a valid UTF-8 sequence
 * becomes U+FFFD.  One deliberate difference: ps_json__u64() writes every u64 as an exact
 * JSON number, also above INT64_MAX, where the jansson value (ps_json_u64()) is a decimal
 * string because jansson holds integers as long long.
 */
#ifndef PS_JSON_H
#define PS_JSON_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/**
 * struct ps_json_buf - text being written.
 * @p: the bytes (not NUL-terminated)
 * @len: how many are written
 * @cap: how many @p has room for
 * @failed: an allocation failed; what was written since is lost, @len stays put
 *
 * Zero-initialise it; ps_json_buf__release() frees it.  Writers never fail: they set
 * @failed instead, checked once per document.
 */
struct ps_json_buf {
	char *p;
	size_t len, cap;
	bool failed;
};

/**
 * ps_json_buf__grow() - make room for @n more bytes (the slow path of ps_json_buf__room()).
 * Return: 0, or -1 (and @failed set) when out of memory or @n is absurd.
 */
int ps_json_buf__grow(struct ps_json_buf *b, size_t n);

/** ps_json_buf__release() - free the bytes; the buffer is empty and usable again. */
void ps_json_buf__release(struct ps_json_buf *b);

/**
 * ps_json_buf__room() - a pointer to room for @n more bytes at the end, or NULL when out of
 * memory.  Advance @len by what was used.
 */
static inline char *ps_json_buf__room(struct ps_json_buf *b, size_t n)
{
	if (b->cap - b->len < n && ps_json_buf__grow(b, n) < 0)
		return NULL;
	return b->p + b->len;
}

/** ps_json__raw() - append @n bytes as they are (JSON text already). */
static inline void ps_json__raw(struct ps_json_buf *b, const void *s, size_t n)
{
	char *d = ps_json_buf__room(b, n);

	if (d) {
		memcpy(d, s, n);
		b->len += n;
	}
}

/** ps_json__char() - append one byte of JSON text. */
static inline void ps_json__char(struct ps_json_buf *b, char c)
{
	char *d = ps_json_buf__room(b, 1);

	if (d) {
		*d = c;
		b->len++;
	}
}

/**
 * ps_json__fmt_u64() - @v in decimal at @d (room for 20 bytes), without a terminator.
 * Return: the number of bytes written.
 */
size_t ps_json__fmt_u64(char *d, uint64_t v);

/** ps_json__u64() - @v as an exact JSON number, whatever its size. */
void ps_json__u64(struct ps_json_buf *b, uint64_t v);

/** ps_json__i64() - @v as a JSON number. */
void ps_json__i64(struct ps_json_buf *b, int64_t v);

/** ps_json__hex() - @v as a "0x..." string, lower-case hex without leading zeros. */
void ps_json__hex(struct ps_json_buf *b, uint64_t v);

/**
 * ps_json__string() - @len bytes that may hold anything as a JSON string: escaped, invalid
 * UTF-8 replaced by U+FFFD, NUL bytes kept as \u0000.  One pass over the bytes.
 */
void ps_json__string(struct ps_json_buf *b, const char *bytes, size_t len);

/**
 * ps_json__key() - ",\"KEY\":" with @key escaped as ps_json__string() does; the leading
 * comma is for ps_json__open()/ps_json__close().
 */
void ps_json__key(struct ps_json_buf *b, const char *key);

/**
 * ps_json__open() - start an object or array whose members are each written with a
 * leading comma (ps_json__key(), or ps_json__char(b, ',') before an array element).
 * Return: the position to hand to ps_json__close().
 */
static inline size_t ps_json__open(struct ps_json_buf *b)
{
	return b->len;
}

/**
 * ps_json__close() - end what ps_json__open() started at @at: the first member's comma
 * becomes @open, @close is appended ("{}" or "[]" when nothing was written).
 */
static inline void ps_json__close(struct ps_json_buf *b, size_t at, char open, char close)
{
	if (b->len == at)
		ps_json__char(b, open);
	else if (!b->failed)
		b->p[at] = open;
	ps_json__char(b, close);
}

/**
 * ps_json__indent() - the compact JSON text @s (@len bytes, as the ps_json__ writers and
 * jansson's JSON_COMPACT write it) indented as jansson's JSON_INDENT(@n) writes it.
 */
void ps_json__indent(struct ps_json_buf *b, const char *s, size_t len, unsigned int n);

/**
 * ps_json__utf8_seq() - the length of the valid UTF-8 sequence at @p (at most @n bytes, at
 * least 1), 0 when @p does not start one (ill-formed, overlong, surrogate, above U+10FFFF).
 */
size_t ps_json__utf8_seq(const unsigned char *p, size_t n);

/**
 * ps_json__valid_utf8() - the @len bytes at @s written at @d made valid UTF-8 as
 * ps_json__string() writes them: a byte that starts no valid sequence becomes U+FFFD.
 * @d: room for 3 bytes for every bad one (3 * @len at the most)
 *
 * Return: the bytes written.
 */
size_t ps_json__valid_utf8(char *d, const char *s, size_t len);

/* ---- the same values as jansson objects ---- */

/**
 * ps_json_string() - a JSON string of @len bytes that may hold anything: invalid UTF-8
 * becomes U+FFFD, the rest is kept.
 * Return: a new reference, or NULL when out of memory.
 */
json_t *ps_json_string(const char *bytes, size_t len);

/**
 * ps_json_object_set() - json_object_set_new() for a key from the stream: @key is made valid
 * UTF-8 as ps_json_string() makes a value (the key the buffer writers write), where jansson
 * refuses a key that is not valid UTF-8.  @v is consumed, also when setting fails.
 * Return: 0, or -1 when @v is NULL or out of memory.
 */
int ps_json_object_set(json_t *o, const char *key, json_t *v);

/**
 * ps_json_u64() - @v as a jansson integer, or a decimal string above INT64_MAX (jansson
 * integers are long long; the buffer writer ps_json__u64() has no such limit).
 */
json_t *ps_json_u64(uint64_t v);

/** ps_json_hex() - @v as a "0x..." string. */
json_t *ps_json_hex(uint64_t v);

#endif
