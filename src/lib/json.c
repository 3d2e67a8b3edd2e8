// SPDX-License-Identifier: GPL-2.0-only
/*
 * json.c - JSON text written straight into a buffer (integers two digits at a time,
 * strings escaped and made valid UTF-8 in one pass), and the same values as jansson objects.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "json.h"
#include "xalloc.h"

/* a buffer never grows past this: one JSON document of a record is far smaller */
#define JSON_BUF_MAX ((size_t)1 << 31)

int ps_json_buf__grow(struct ps_json_buf *b, size_t n)
{
	if (b->failed)
		return -1;
	if (n > JSON_BUF_MAX || b->len > JSON_BUF_MAX - n ||
	    ps_grow((void **)&b->p, &b->cap, b->len + n, 1, 4096)) {
		b->failed = true;
		return -1;
	}
	return 0;
}

void ps_json_buf__release(struct ps_json_buf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

static const char digits2[] = "00010203040506070809"
                              "10111213141516171819"
                              "20212223242526272829"
                              "30313233343536373839"
                              "40414243444546474849"
                              "50515253545556575859"
                              "60616263646566676869"
                              "70717273747576777879"
                              "80818283848586878889"
                              "90919293949596979899";

static const uint64_t pow10[20] = {
	1ull,
	10ull,
	100ull,
	1000ull,
	10000ull,
	100000ull,
	1000000ull,
	10000000ull,
	100000000ull,
	1000000000ull,
	10000000000ull,
	100000000000ull,
	1000000000000ull,
	10000000000000ull,
	100000000000000ull,
	1000000000000000ull,
	10000000000000000ull,
	100000000000000000ull,
	1000000000000000000ull,
	10000000000000000000ull,
};

/* @v (below 10^8) as exactly eight digits at @d, leading zeros included */
static inline void fmt8(char *d, uint32_t v)
{
	uint32_t hi = v / 10000, lo = v % 10000;

	memcpy(d, digits2 + 2 * (hi / 100), 2);
	memcpy(d + 2, digits2 + 2 * (hi % 100), 2);
	memcpy(d + 4, digits2 + 2 * (lo / 100), 2);
	memcpy(d + 6, digits2 + 2 * (lo % 100), 2);
}

/* @v (below 10^8) without leading zeros; returns the digits written */
static inline size_t fmt_small(char *d, uint32_t v)
{
	/* the number of digits: log10 from log2 (1233/4096 ~ log10(2)), then one compare;
	 * v | 1 makes 0 one digit and changes no other count (10^t - 1 is odd) */
	unsigned int t = ((unsigned int)(32 - __builtin_clz(v | 1)) * 1233) >> 12;
	size_t n = t + ((v | 1) >= pow10[t]);
	char *p = d + n;

	while (v >= 100) {
		uint32_t r = v % 100;

		v /= 100;
		p -= 2;
		memcpy(p, digits2 + 2 * r, 2);
	}
	if (v >= 10)
		memcpy(p - 2, digits2 + 2 * v, 2);
	else
		p[-1] = (char)('0' + v);
	return n;
}

/*
 * In 32-bit pieces of eight digits: two 64-bit divisions at most, and the pieces' digits
 * worked out independently of each other, where one chain of 64-bit divisions by 100 made
 * each pair wait for the one before.
 */
size_t ps_json__fmt_u64(char *d, uint64_t v)
{
	uint64_t hi;
	size_t n;

	if (v < 100000000)
		return fmt_small(d, (uint32_t)v);
	hi = v / 100000000;
	if (hi < 100000000) {
		n = fmt_small(d, (uint32_t)hi);
	} else {
		n = fmt_small(d, (uint32_t)(hi / 100000000));
		fmt8(d + n, (uint32_t)(hi % 100000000));
		n += 8;
	}
	fmt8(d + n, (uint32_t)(v % 100000000));
	return n + 8;
}

void ps_json__u64(struct ps_json_buf *b, uint64_t v)
{
	char *d = ps_json_buf__room(b, 20);

	if (d)
		b->len += ps_json__fmt_u64(d, v);
}

void ps_json__i64(struct ps_json_buf *b, int64_t v)
{
	char *d = ps_json_buf__room(b, 21);

	if (!d)
		return;
	if (v < 0) {
		*d = '-';
		b->len += 1 + ps_json__fmt_u64(d + 1, -(uint64_t)v);
	} else {
		b->len += ps_json__fmt_u64(d, (uint64_t)v);
	}
}

void ps_json__hex(struct ps_json_buf *b, uint64_t v)
{
	static const char hex[] = "0123456789abcdef";
	char *d = ps_json_buf__room(b, 20);
	int n = v ? (64 - __builtin_clzll(v) + 3) / 4 : 1, i;

	if (!d)
		return;
	d[0] = '"';
	d[1] = '0';
	d[2] = 'x';
	for (i = n - 1; i >= 0; i--, v >>= 4)
		d[3 + i] = hex[v & 15];
	d[3 + n] = '"';
	b->len += 4 + (size_t)n;
}

size_t ps_json__utf8_seq(const unsigned char *p, size_t n)
{
	uint32_t cp;
	size_t len, i;

	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		len = 2, cp = p[0] & 0x1f;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		len = 3, cp = p[0] & 0x0f;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		len = 4, cp = p[0] & 0x07;
	else
		return 0;
	if (len > n)
		return 0;
	for (i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (p[i] & 0x3f);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

/*
 * What a byte needs: 0 copied as it is, 1 a short escape, 2 a \u00XX escape, 3 the start of
 * a multi-byte sequence (or an invalid byte) to check.
 */
static const unsigned char byte_class[256] = {
	2, 2, 2, 2, 2, 2, 2, 2, 1, 1, 1, 2, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
	2, 2, 2, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3,
	3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3,
	3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3,
	3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3,
	3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3,
};

/* the sequence at @p (@left bytes on) at @d, or U+FFFD for a byte that starts none; the end
 * of what was written, @*used the bytes read */
static inline char *put_seq(char *d, const unsigned char *p, size_t left, size_t *used)
{
	size_t n = *p < 0x80 ? 1 : ps_json__utf8_seq(p, left);

	if (!n) {
		memcpy(d, "\xef\xbf\xbd", 3);
		*used = 1;
		return d + 3;
	}
	memcpy(d, p, n);
	*used = n;
	return d + n;
}

size_t ps_json__valid_utf8(char *d, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + len;
	char *start = d;
	size_t used;

	while (p < end) {
		d = put_seq(d, p, (size_t)(end - p), &used);
		p += used;
	}
	return (size_t)(d - start);
}

void ps_json__string(struct ps_json_buf *b, const char *bytes, size_t len)
{
	static const char hex[] = "0123456789ABCDEF";
	const unsigned char *p = (const unsigned char *)bytes, *end = p + len;
	char *d, *start;

	/* the worst case: every byte a \u00XX escape (U+FFFD takes 3 for 1) */
	if (len > JSON_BUF_MAX / 6) {
		b->failed = true;
		return;
	}
	d = start = ps_json_buf__room(b, 6 * len + 2);
	if (!d)
		return;
	*d++ = '"';
	while (p < end) {
		const unsigned char *run = p;
		size_t n;

		while (p < end && !byte_class[*p])
			p++;
		memcpy(d, run, (size_t)(p - run));
		d += p - run;
		if (p == end)
			break;
		switch (byte_class[*p]) {
		case 1:
			*d++ = '\\';
			switch (*p) {
			case '\b':
				*d++ = 'b';
				break;
			case '\f':
				*d++ = 'f';
				break;
			case '\n':
				*d++ = 'n';
				break;
			case '\r':
				*d++ = 'r';
				break;
			case '\t':
				*d++ = 't';
				break;
			default: /* '"' and '\\' */
				*d++ = (char)*p;
				break;
			}
			p++;
			break;
		case 2:
			memcpy(d, "\\u00", 4);
			d[4] = hex[*p >> 4];
			d[5] = hex[*p & 15];
			d += 6;
			p++;
			break;
		default:
			d = put_seq(d, p, (size_t)(end - p), &n);
			p += n;
			break;
		}
	}
	*d++ = '"';
	b->len += (size_t)(d - start);
}

void ps_json__key(struct ps_json_buf *b, const char *key)
{
	ps_json__char(b, ',');
	ps_json__string(b, key, strlen(key));
	ps_json__char(b, ':');
}

static void newline(struct ps_json_buf *b, unsigned int depth, unsigned int n)
{
	char *d = ps_json_buf__room(b, 1 + (size_t)depth * n);

	if (!d)
		return;
	*d = '\n';
	memset(d + 1, ' ', (size_t)depth * n);
	b->len += 1 + (size_t)depth * n;
}

void ps_json__indent(struct ps_json_buf *b, const char *s, size_t len, unsigned int n)
{
	unsigned int depth = 0;
	size_t i = 0;

	while (i < len) {
		char c = s[i];

		if (c == '"') {
			size_t j = i + 1;

			while (j < len && s[j] != '"')
				j += s[j] == '\\' ? 2 : 1;
			j = j < len ? j + 1 : len;
			ps_json__raw(b, s + i, j - i);
			i = j;
			continue;
		}
		if ((c == '{' || c == '[') && i + 1 < len && s[i + 1] == (c == '{' ? '}' : ']')) {
			ps_json__raw(b, s + i, 2);
			i += 2;
			continue;
		}
		switch (c) {
		case '{':
		case '[':
			ps_json__char(b, c);
			newline(b, ++depth, n);
			break;
		case '}':
		case ']':
			newline(b, depth ? --depth : 0, n);
			ps_json__char(b, c);
			break;
		case ',':
			ps_json__char(b, ',');
			newline(b, depth, n);
			break;
		case ':':
			ps_json__raw(b, ": ", 2);
			break;
		default:
			ps_json__char(b, c);
			break;
		}
		i++;
	}
}

/* ---- jansson values ---- */

/* @len bytes made valid UTF-8 (invalid bytes as U+FFFD), NUL-terminated, its length in @n */
static char *valid_utf8(const char *bytes, size_t len, size_t *n)
{
	char *buf;

	/* the worst case: every byte becomes the 3-byte U+FFFD */
	if (len > SIZE_MAX / 3 - 1)
		return NULL;
	buf = malloc(len * 3 + 1);
	if (!buf)
		return NULL;
	*n = ps_json__valid_utf8(buf, bytes, len);
	buf[*n] = 0;
	return buf;
}

json_t *ps_json_string(const char *bytes, size_t len)
{
	size_t n;
	char *buf = valid_utf8(bytes, len, &n);
	json_t *j;

	if (!buf)
		return NULL;
	j = json_stringn(buf, n);
	free(buf);
	return j;
}

int ps_json_object_set(json_t *o, const char *key, json_t *v)
{
	size_t n;
	char *k;
	int r;

	if (!v)
		return -1;
	k = valid_utf8(key, strlen(key), &n);
	if (!k) {
		json_decref(v);
		return -1;
	}
	r = json_object_set_new(o, k, v);
	free(k);
	return r;
}

json_t *ps_json_u64(uint64_t v)
{
	char buf[24];

	if (v <= INT64_MAX)
		return json_integer((json_int_t)v);
	snprintf(buf, sizeof(buf), "%" PRIu64, v);
	return json_string(buf);
}

json_t *ps_json_hex(uint64_t v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "0x%" PRIx64, v);
	return json_string(buf);
}
