/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * build.h - a growable byte buffer for building streams and records by hand in the unit
 * tests, in either byte order (@swap: write the order opposite to the host's), and the
 * header records (attrs with their names, tracing data) that give a session its events.
 */
#ifndef PS_UNIT_BUILD_H
#define PS_UNIT_BUILD_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <linux/perf_event.h>

#include "lib/compat.h"
#include "lib/record.h"
#include "lib/session.h"

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

/* @s and its NUL */
static inline void put_str(struct buf *b, const char *s)
{
	put_bytes(b, s, strlen(s) + 1);
}

/* a u64 length, then @s without its NUL: a format text in tracing data */
static inline void put_text(struct buf *b, const char *s)
{
	put64(b, strlen(s));
	put_bytes(b, s, strlen(s));
}

/* zeros up to the next multiple of 8 bytes */
static inline void pad8(struct buf *b)
{
	grow(b, (8 - b->len % 8) % 8);
}

/* ---- header records into a session of the host's byte order: @b holds one record ---- */

/* the record header at the start of @b: @type, misc 0, @size */
static inline void record_header(struct buf *b, uint32_t type, size_t size)
{
	ps_put32(b->p, type, b->swap);
	ps_put16(b->p + 4, 0, b->swap);
	ps_put16(b->p + 6, (uint16_t)size, b->swap);
}

/* @b as a record of @type whose header says @size (less than @b->len for TRACING_DATA) */
static inline struct ps_record buf_record(const struct buf *b, uint32_t type, size_t size)
{
	struct ps_record rec = {
		.data = b->p, .len = b->len, .type = type, .size = (uint16_t)size
	};

	return rec;
}

static inline int feed(struct ps_session *s, const struct buf *b, uint32_t type, size_t size)
{
	struct ps_record rec = buf_record(b, type, size);
	struct ps_error err = { 0 };

	return ps_session__process(s, &rec, "test", &err);
}

/*
 * An ATTR record (perf 6.1's 128 bytes, sample_id_all, period 1) for @id, then, when @name
 * is given, the EVENT_UPDATE that names it.  0, or -1 when the session refused one.
 */
static inline int session_attr(struct ps_session *s, uint32_t type, uint64_t config,
                               uint64_t sample_type, uint64_t id, const char *name)
{
	struct buf b = { 0 };
	unsigned char *attr;
	int r;

	grow(&b, 8);
	attr = grow(&b, 128);
	ps_put32(attr, type, b.swap);
	ps_put32(attr + 4, 128, b.swap);
	ps_put64(attr + 8, config, b.swap);
	ps_put64(attr + 16, 1, b.swap);
	ps_put64(attr + 24, sample_type, b.swap);
	ps_put64(attr + 40, 1ULL << 18, b.swap);
	put64(&b, id);
	record_header(&b, PS_RECORD_HEADER_ATTR, b.len);
	r = feed(s, &b, PS_RECORD_HEADER_ATTR, b.len);
	if (!r && name) {
		b.len = 0;
		grow(&b, 8);
		put64(&b, 2); /* EVENT_UPDATE NAME */
		put64(&b, id);
		put_str(&b, name);
		pad8(&b);
		record_header(&b, PS_RECORD_EVENT_UPDATE, b.len);
		r = feed(s, &b, PS_RECORD_EVENT_UPDATE, b.len);
	}
	free(b.p);
	return r;
}

/* a system of tracepoints: its name and the format texts of its events */
struct tp_system {
	const char *name;
	const char *const *formats;
	size_t n;
};

/* A TRACING_DATA record (version 0.6, little-endian, 8-byte longs) with @n @systems. */
static inline int session_tracing(struct ps_session *s, const struct tp_system *systems, size_t n)
{
	static const unsigned char magic[] = {
		0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g'
	};
	static const char header_page[] =
	        "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
	        "\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
	        "\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
	        "\tfield: char data;\toffset:16;\tsize:4080;\tsigned:1;\n";
	static const unsigned char le_long[2] = { 0, 8 };
	struct buf b = { 0 };
	size_t i, j;
	int r;

	grow(&b, 16);
	put_bytes(&b, magic, sizeof(magic));
	put_str(&b, "0.6");
	put_bytes(&b, le_long, 2);
	put32(&b, 4096);
	put_str(&b, "header_page");
	put_text(&b, header_page);
	put_str(&b, "header_event");
	put64(&b, 0);
	put32(&b, 0); /* ftrace formats */
	put32(&b, (uint32_t)n);
	for (i = 0; i < n; i++) {
		put_str(&b, systems[i].name);
		put32(&b, (uint32_t)systems[i].n);
		for (j = 0; j < systems[i].n; j++)
			put_text(&b, systems[i].formats[j]);
	}
	put32(&b, 0); /* kallsyms */
	put32(&b, 0); /* printk */
	put64(&b, 0); /* saved cmdlines */
	pad8(&b);
	record_header(&b, PS_RECORD_HEADER_TRACING_DATA, 16);
	ps_put32(b.p + 8, (uint32_t)(b.len - 16), b.swap);
	r = feed(s, &b, PS_RECORD_HEADER_TRACING_DATA, 16);
	free(b.p);
	return r;
}

#endif
