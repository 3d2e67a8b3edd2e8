/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * build.h - a growable byte buffer for building streams and records by hand in the unit
 * tests and tests/tools/phostile, in either byte order (@swap: write the order opposite to the host's), and the
 * header records (attrs with their names, tracing data) that give a session its events.
 */
#ifndef PS_UNIT_BUILD_H
#define PS_UNIT_BUILD_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <linux/perf_event.h>

#include "lib/abi.h"
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

/* the record that starts at @at in @b, as ps_input__next() describes it (offset @at) */
static inline struct ps_record rec_at(const struct buf *b, size_t at)
{
	struct ps_record rec = { 0 };

	rec.data = b->p + at;
	rec.type = ps_get32(b->p + at, b->swap);
	rec.misc = ps_get16(b->p + at + 4, b->swap);
	rec.size = ps_get16(b->p + at + 6, b->swap);
	rec.len = rec.size;
	rec.offset = at;
	return rec;
}

/* Every record of @b (no pipe header) applied to session @s; -1 at the first refused. */
static inline int feed_all(struct ps_session *s, const struct buf *b)
{
	struct ps_error err = { 0 };
	size_t at;

	for (at = 0; at + 8 <= b->len;) {
		struct ps_record rec = rec_at(b, at);

		if (rec.size < 8 || ps_session__process(s, &rec, "test", &err) < 0)
			return -1;
		at += rec.size;
	}
	return 0;
}

/* A new session of @b's byte order fed the records in @b, which is emptied; aborts when
 * the session refuses one (a bug in the test). */
static inline struct ps_session *session_fed(struct buf *b)
{
	struct ps_session *s = ps_session__new(b->swap);

	if (!s || feed_all(s, b) < 0)
		abort();
	b->len = 0;
	return s;
}

/* What the tests set in a perf_event_attr; the rest is 0, the sample period 1. */
struct attr_spec {
	uint32_t type;
	uint64_t config;
	uint64_t sample_type;
	uint64_t read_format;
	uint64_t flags;
	uint64_t branch_sample_type;
	uint64_t regs_user;
	uint64_t regs_intr;
};

/*
 * The attr flag word (offset 40) as the writer's compiler lays out its bitfields: a
 * big-endian writer packs them from the top bit, so field n (1 bit wide; precise_ip 2)
 * lands at the mirrored position.  ps_put64() then stores it in the writer's byte order.
 */
static inline uint64_t writer_flags(uint64_t f, bool swap)
{
	unsigned int off, width;
	uint64_t w = 0;

	if (ps_host_is_big_endian() == swap) /* a little-endian writer */
		return f;
	for (off = 0; off < 64; off += width) {
		width = off == 15 ? 2 : off == 40 ? 24 : 1;
		w |= ((f >> off) & ((1ULL << width) - 1)) << (64 - off - width);
	}
	return w;
}

/* The 128 bytes of a perf 6.1 perf_event_attr whose size field says @size_field. */
static inline void attr_bytes(struct buf *b, const struct attr_spec *a, uint32_t size_field)
{
	unsigned char *p = grow(b, 128);

	ps_put32(p + PS_ATTR_TYPE, a->type, b->swap);
	ps_put32(p + PS_ATTR_SIZE, size_field, b->swap);
	ps_put64(p + PS_ATTR_CONFIG, a->config, b->swap);
	ps_put64(p + PS_ATTR_PERIOD, 1, b->swap);
	ps_put64(p + PS_ATTR_SAMPLE_TYPE, a->sample_type, b->swap);
	ps_put64(p + PS_ATTR_READ_FORMAT, a->read_format, b->swap);
	ps_put64(p + PS_ATTR_FLAGS, writer_flags(a->flags, b->swap), b->swap);
	ps_put64(p + PS_ATTR_BRANCH_SAMPLE_TYPE, a->branch_sample_type, b->swap);
	ps_put64(p + PS_ATTR_SAMPLE_REGS_USER, a->regs_user, b->swap);
	ps_put64(p + PS_ATTR_SAMPLE_REGS_INTR, a->regs_intr, b->swap);
}

/*
 * An ATTR record (sample_id_all) for @id, then, when @name is given, the EVENT_UPDATE
 * that names it.  0, or -1 when the session refused one.
 */
static inline int session_attr(struct ps_session *s, uint32_t type, uint64_t config,
                               uint64_t sample_type, uint64_t id, const char *name)
{
	const struct attr_spec a = {
		.type = type, .config = config, .sample_type = sample_type, .flags = 1ULL << 18
	};
	struct buf b = { 0 };
	int r;

	grow(&b, 8);
	attr_bytes(&b, &a, 128);
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

/* ---- whole records, appended to a stream in @b ---- */

/* The u64 word that puts u32 @a then u32 @b in the stream's byte order (TID, CPU). */
static inline uint64_t pair(uint32_t a, uint32_t b, bool swap)
{
	bool le = ps_host_is_big_endian() == swap;

	return le ? ((uint64_t)b << 32) | a : ((uint64_t)a << 32) | b;
}

static inline void buf_free(struct buf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

/* Start a record (size patched by rec_end); returns its offset in @b. */
static inline size_t rec_begin(struct buf *b, uint32_t type, uint16_t misc)
{
	size_t at = b->len;

	put32(b, type);
	put16(b, misc);
	put16(b, 0);
	return at;
}

static inline void rec_end(struct buf *b, size_t at)
{
	size_t size = b->len - at;

	if (size > UINT16_MAX)
		abort();
	ps_put16(b->p + at + 6, (uint16_t)size, b->swap);
}

static inline void pipe_header(struct buf *b)
{
	put64(b, PS_MAGIC);
	put64(b, PS_PIPE_HEADER_SIZE);
}

/* A record of @n u64 words after its header; returns its offset. */
static inline size_t rec_words(struct buf *b, uint32_t type, uint16_t misc, const uint64_t *w,
                               size_t n)
{
	size_t at = rec_begin(b, type, misc), i;

	for (i = 0; i < n; i++)
		put64(b, w[i]);
	rec_end(b, at);
	return at;
}

/* A record with @n bytes of body (any length: records need not be multiples of 8). */
static inline size_t rec_raw(struct buf *b, uint32_t type, const void *body, size_t n)
{
	size_t at = rec_begin(b, type, 0);

	put_bytes(b, body, n);
	rec_end(b, at);
	return at;
}

static inline size_t attr_rec(struct buf *b, const struct attr_spec *a, const uint64_t *ids,
                              size_t n)
{
	size_t at = rec_begin(b, PS_RECORD_HEADER_ATTR, 0), i;

	attr_bytes(b, a, 128);
	for (i = 0; i < n; i++)
		put64(b, ids[i]);
	rec_end(b, at);
	return at;
}

/* COMM: pid, tid, name padded to 8, then @ntr trailer words. */
static inline size_t comm_rec(struct buf *b, uint32_t pid, uint32_t tid, const char *name,
                              const uint64_t *trailer, size_t ntr)
{
	size_t at = rec_begin(b, PERF_RECORD_COMM, 0), i;
	size_t n = strlen(name) + 1;

	put32(b, pid);
	put32(b, tid);
	put_bytes(b, name, n);
	grow(b, PS_ALIGN8(n) - n);
	for (i = 0; i < ntr; i++)
		put64(b, trailer[i]);
	rec_end(b, at);
	return at;
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
