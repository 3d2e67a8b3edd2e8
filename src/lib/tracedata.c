// SPDX-License-Identifier: GPL-2.0-only
/*
 * tracedata.c - the union of the event formats of several tracing data blobs.
 *
 * A blob is: "\027\010\104tracing", a version string, u8 big_endian, u8 long_size, u32
 * page_size, "header_page" u64 size + data, "header_event" u64 size + data, u32 count +
 * count ftrace formats (u64 size + data), u32 systems + per system its name, u32 count and
 * count formats (u64 size + data), then kallsyms (u32 size + data), printk formats (u32 size
 * + data) and, from version 0.6, cmdlines (u64 size + data).  Numbers are in the byte order
 * the big_endian byte says.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "compat.h"
#include "tracedata.h"

#define MAX_FORMATS 65536

struct cursor {
	const unsigned char *p;
	size_t len, off;
	bool swap;
	bool bad;
};

static const unsigned char *take(struct cursor *c, size_t n)
{
	const unsigned char *r;

	if (c->bad || n > c->len - c->off) {
		c->bad = true;
		return NULL;
	}
	r = c->p + c->off;
	c->off += n;
	return r;
}

static uint64_t num(struct cursor *c, size_t n)
{
	const unsigned char *p = take(c, n);

	if (!p)
		return 0;
	return n == 4 ? ps_get32(p, c->swap) : ps_get64(p, c->swap);
}

static const char *string(struct cursor *c)
{
	const unsigned char *s = c->p + c->off, *nul;

	if (c->bad)
		return NULL;
	nul = memchr(s, 0, c->len - c->off);
	if (!nul) {
		c->bad = true;
		return NULL;
	}
	c->off += (size_t)(nul - s) + 1;
	return (const char *)s;
}

/* a u64-sized chunk: skip it */
static void chunk64(struct cursor *c)
{
	uint64_t n = num(c, 8);

	if (n > c->len)
		c->bad = true;
	else
		take(c, (size_t)n);
}

struct format {
	const char *system;
	const unsigned char *data; /* the u64 size and the text */
	size_t len;
};

struct parsed {
	size_t prefix; /* bytes before the event formats */
	size_t tail;   /* offset of kallsyms */
	size_t end;    /* where the content ends (padding follows) */
	bool swap;
};

static int parse(const unsigned char *b, size_t len, struct parsed *pp, struct format **fmts,
                 size_t *nfmts, size_t *cap)
{
	struct cursor c = { b, len, 0, false, false };
	uint32_t i, j, nsys, n;
	const unsigned char *magic = take(&c, 10);
	const char *ver;
	uint64_t sz;

	if (!magic || memcmp(magic, "\027\010\104tracing", 10) != 0)
		return -1;
	ver = string(&c);
	magic = take(&c, 2);
	if (!magic)
		return -1;
	c.swap = (magic[0] != 0) != ps_host_is_big_endian();
	pp->swap = c.swap;
	num(&c, 4);
	if (!string(&c))
		return -1;
	chunk64(&c);
	if (!string(&c))
		return -1;
	chunk64(&c);
	n = (uint32_t)num(&c, 4);
	for (i = 0; i < n && !c.bad; i++)
		chunk64(&c);
	pp->prefix = c.off;
	nsys = (uint32_t)num(&c, 4);
	for (i = 0; i < nsys && !c.bad; i++) {
		const char *sys = string(&c);

		n = (uint32_t)num(&c, 4);
		for (j = 0; j < n && !c.bad; j++) {
			size_t at = c.off;

			chunk64(&c);
			if (c.bad)
				break;
			if (*nfmts == *cap) {
				struct format *f;

				if (*cap >= MAX_FORMATS)
					return -1;
				f = realloc(*fmts, (*cap ? 2 * *cap : 64) * sizeof(*f));
				if (!f)
					return -1;
				*fmts = f;
				*cap = *cap ? 2 * *cap : 64;
			}
			(*fmts)[*nfmts].system = sys;
			(*fmts)[*nfmts].data = b + at;
			(*fmts)[*nfmts].len = c.off - at;
			(*nfmts)++;
		}
	}
	pp->tail = c.off;
	sz = num(&c, 4); /* kallsyms */
	take(&c, (size_t)(sz < len ? sz : len));
	sz = num(&c, 4); /* printk formats */
	take(&c, (size_t)(sz < len ? sz : len));
	if (ver && strcmp(ver, "0.5") != 0)
		chunk64(&c); /* cmdlines */
	pp->end = c.off;
	return c.bad ? -1 : 0;
}

int ps_tracedata__merge(size_t n, const unsigned char *const *blobs, const size_t *lens,
                        unsigned char **out, size_t *out_len)
{
	struct format *f = NULL;
	size_t nf = 0, cap = 0, i, j, k, total, o, tail_len = 0, nsys_at;
	struct parsed first = { 0 }, p;
	unsigned char *b;
	uint32_t nsys = 0;
	bool *dup;

	for (i = 0; i < n; i++) {
		if (parse(blobs[i], lens[i], i ? &p : &first, &f, &nf, &cap) < 0) {
			free(f);
			return -1;
		}
	}
	tail_len = first.end - first.tail;
	dup = calloc(nf ? nf : 1, sizeof(*dup));
	if (!dup) {
		free(f);
		return -1;
	}
	total = first.prefix + 4 + tail_len;
	for (i = 0; i < nf; i++) {
		for (j = 0; j < i && !dup[i]; j++)
			if (!dup[j] && f[j].len == f[i].len &&
			    strcmp(f[j].system, f[i].system) == 0 &&
			    memcmp(f[j].data, f[i].data, f[i].len) == 0)
				dup[i] = true;
		if (!dup[i])
			total += f[i].len;
	}
	/* each system once: its name and a count */
	for (i = 0; i < nf; i++) {
		bool seen = false;

		for (j = 0; j < i && !seen; j++)
			seen = strcmp(f[j].system, f[i].system) == 0;
		if (!seen) {
			total += strlen(f[i].system) + 1 + 4;
			nsys++;
		}
	}
	b = calloc(1, PS_ALIGN8(total) ? PS_ALIGN8(total) : 8);
	if (!b) {
		free(dup);
		free(f);
		return -1;
	}
	memcpy(b, blobs[0], first.prefix);
	o = first.prefix;
	nsys_at = o;
	ps_put32(b + nsys_at, nsys, first.swap);
	o += 4;
	for (i = 0; i < nf; i++) {
		bool seen = false;
		uint32_t count = 0;
		size_t l;

		for (j = 0; j < i && !seen; j++)
			seen = strcmp(f[j].system, f[i].system) == 0;
		if (seen)
			continue;
		l = strlen(f[i].system) + 1;
		memcpy(b + o, f[i].system, l);
		o += l;
		for (k = i; k < nf; k++)
			if (!dup[k] && strcmp(f[k].system, f[i].system) == 0)
				count++;
		ps_put32(b + o, count, first.swap);
		o += 4;
		for (k = i; k < nf; k++) {
			if (dup[k] || strcmp(f[k].system, f[i].system) != 0)
				continue;
			memcpy(b + o, f[k].data, f[k].len);
			o += f[k].len;
		}
	}
	memcpy(b + o, blobs[0] + first.tail, tail_len);
	o += tail_len;
	free(dup);
	free(f);
	*out = b;
	*out_len = PS_ALIGN8(o);
	return 0;
}
