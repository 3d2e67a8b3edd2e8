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
#include <stdio.h>
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

/* a NUL-terminated string: taken with its NUL; without one the cursor goes bad */
static const char *string(struct cursor *c)
{
	const unsigned char *s = c->p + c->off;
	const unsigned char *nul = c->bad ? NULL : memchr(s, 0, c->len - c->off);

	return (const char *)take(c, nul ? (size_t)(nul - s) + 1 : SIZE_MAX);
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
	const unsigned char *data; /* the u64 size and the text, as written */
	size_t len;
	const unsigned char *orig; /* ... and as its blob has them */
	size_t orig_len;
	size_t blob;
	bool ftrace;        /* of the ftrace formats before the systems */
	bool swap;          /* its blob's numbers are not in the host's order */
	int64_t id;         /* its "ID:" line; -1: none that a sample could name (16 bits) */
	int64_t out;        /* its id in the joined blob */
	int same;           /* an identical format kept before it, or -1 */
	int next;           /* the next kept format of the same original id, or -1 */
	unsigned char *own; /* the bytes with a new "ID:" line */
};

struct parsed {
	size_t prefix; /* bytes before the event formats */
	size_t tail;   /* offset of kallsyms */
	size_t end;    /* where the content ends (padding follows) */
	bool swap;
};

struct formats {
	struct format *f;
	size_t n, cap;
};

static struct format *add_format(struct formats *fs, const struct cursor *c, const char *sys,
                                 size_t at, size_t blob, bool ftrace)
{
	struct format *f;

	if (fs->n == fs->cap) {
		if (fs->cap >= MAX_FORMATS)
			return NULL;
		f = realloc(fs->f, (fs->cap ? 2 * fs->cap : 64) * sizeof(*f));
		if (!f)
			return NULL;
		fs->f = f;
		fs->cap = fs->cap ? 2 * fs->cap : 64;
	}
	f = &fs->f[fs->n++];
	memset(f, 0, sizeof(*f));
	f->system = sys;
	f->data = f->orig = c->p + at;
	f->len = f->orig_len = c->off - at;
	f->swap = c->swap;
	f->blob = blob;
	f->ftrace = ftrace;
	f->id = -1;
	f->same = -1;
	f->next = -1;
	return f;
}

/*
 * Where the number of the "ID: N" line of a format's text @t (@len bytes) is, and its
 * value: 0, or -1 when there is no such line or N is not below 65536.
 */
static int find_id(const unsigned char *t, size_t len, size_t *at, size_t *digits, int64_t *id)
{
	size_t i = 0, j;
	int64_t v = 0;

	while (i < len) {
		if (len - i > 4 && memcmp(t + i, "ID: ", 4) == 0) {
			for (j = i + 4; j < len && t[j] >= '0' && t[j] <= '9' && v < 65536; j++)
				v = v * 10 + (t[j] - '0');
			if (j == i + 4 || v >= 65536 || (j < len && t[j] != '\n'))
				return -1;
			*at = i + 4;
			*digits = j - i - 4;
			*id = v;
			return 0;
		}
		while (i < len && t[i] != '\n')
			i++;
		i++;
	}
	return -1;
}

static int parse(const unsigned char *b, size_t len, size_t blob, struct parsed *pp,
                 struct formats *fs)
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
	for (i = 0; i < n && !c.bad; i++) {
		size_t at = c.off;

		chunk64(&c);
		if (!c.bad && !add_format(fs, &c, "ftrace", at, blob, true))
			return -1;
	}
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
			if (!add_format(fs, &c, sys, at, blob, false))
				return -1;
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

/* @f with the id @id in its "ID:" line: its own bytes (u64 size, text). */
static int rewrite_id(struct format *f, int64_t id)
{
	size_t at, digits, tlen = f->len - 8;
	char num[16];
	int l = snprintf(num, sizeof(num), "%lld", (long long)id);
	int64_t old;

	if (find_id(f->data + 8, tlen, &at, &digits, &old) < 0)
		return -1;
	f->own = malloc(f->len - digits + (size_t)l);
	if (!f->own)
		return -1;
	ps_put64(f->own, tlen - digits + (size_t)l, f->swap);
	memcpy(f->own + 8, f->data + 8, at);
	memcpy(f->own + 8 + at, num, (size_t)l);
	memcpy(f->own + 8 + at + l, f->data + 8 + at + digits, tlen - at - digits);
	f->len = f->len - digits + (size_t)l;
	f->data = f->own;
	f->out = id;
	return 0;
}

static bool same_format(const struct format *a, const struct format *b)
{
	return a->orig_len == b->orig_len && a->ftrace == b->ftrace &&
	       strcmp(a->system, b->system) == 0 && memcmp(a->orig, b->orig, a->orig_len) == 0;
}

/*
 * Give every format of @fs its id in the joined blob: its own, that of an identical format
 * kept before it, or a new one when its own was given to another format.
 */
static int plan(struct formats *fs)
{
	int *by_id = malloc(65536 * sizeof(*by_id)); /* the first kept format of an original id */
	bool *used = calloc(65536, sizeof(*used));   /* ids of the joined blob, or of any blob */
	int64_t fresh = 1;
	size_t i;
	int k, r = -1;

	if (!by_id || !used)
		goto out;
	for (i = 0; i < 65536; i++)
		by_id[i] = -1;
	for (i = 0; i < fs->n; i++) {
		struct format *f = &fs->f[i];
		size_t at, digits;

		if (find_id(f->data + 8, f->len - 8, &at, &digits, &f->id) < 0)
			f->id = -1;
		f->out = f->id;
		if (f->id >= 0)
			used[f->id] = true;
	}
	for (i = 0; i < fs->n; i++) {
		struct format *f = &fs->f[i];

		if (f->ftrace && f->blob)
			continue; /* the joined blob has the first blob's ftrace formats */
		if (f->id < 0) {
			/* no id a sample names: once is enough */
			for (k = 0; k < (int)i && f->same < 0; k++)
				if (fs->f[k].id < 0 && fs->f[k].same < 0 &&
				    same_format(&fs->f[k], f))
					f->same = k;
			continue;
		}
		for (k = by_id[f->id]; k >= 0; k = fs->f[k].next)
			if (same_format(&fs->f[k], f))
				break;
		if (k >= 0) {
			f->same = k;
			f->out = fs->f[k].out;
			continue;
		}
		for (k = by_id[f->id]; k >= 0 && fs->f[k].out != f->id; k = fs->f[k].next)
			;
		if (k >= 0) {
			/* its id is another format's: the first id nobody has */
			while (fresh < 65536 && used[fresh])
				fresh++;
			if (fresh >= 65536 || rewrite_id(f, fresh) < 0)
				goto out;
			used[fresh] = true;
		}
		f->next = by_id[f->id];
		by_id[f->id] = (int)i;
	}
	r = 0;
out:
	free(by_id);
	free(used);
	return r;
}

/* Blob @blob's ids that the joined blob changed, into @r. */
static int make_remap(const struct formats *fs, size_t blob, struct ps_tp_remap *r)
{
	size_t i, j, n = 0;

	memset(r, 0, sizeof(*r));
	for (i = 0; i < fs->n; i++)
		n += fs->f[i].blob == blob && fs->f[i].id >= 0 && fs->f[i].out != fs->f[i].id;
	if (!n)
		return 0;
	r->old = malloc(n * sizeof(*r->old));
	r->new = malloc(n * sizeof(*r->new));
	if (!r->old || !r->new) {
		ps_tracedata__remap_free(r);
		return -1;
	}
	for (i = 0; i < fs->n; i++) {
		const struct format *f = &fs->f[i];

		if (f->blob != blob || f->id < 0 || f->out == f->id)
			continue;
		/* insertion by old id: a blob has few formats */
		for (j = r->n; j > 0 && r->old[j - 1] > (uint32_t)f->id; j--) {
			r->old[j] = r->old[j - 1];
			r->new[j] = r->new[j - 1];
		}
		r->old[j] = (uint32_t)f->id;
		r->new[j] = (uint32_t)f->out;
		r->n++;
	}
	return 0;
}

uint64_t ps_tracedata__remap_id(const struct ps_tp_remap *r, uint64_t id)
{
	size_t lo = 0, hi = r ? r->n : 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (r->old[mid] == id)
			return r->new[mid];
		if (r->old[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return id;
}

void ps_tracedata__remap_free(struct ps_tp_remap *r)
{
	if (!r)
		return;
	free(r->old);
	free(r->new);
	memset(r, 0, sizeof(*r));
}

/* Whether format @i is written into the joined blob's systems. */
static bool kept(const struct formats *fs, size_t i)
{
	return !fs->f[i].ftrace && fs->f[i].same < 0;
}

static void free_formats(struct formats *fs)
{
	size_t i;

	for (i = 0; i < fs->n; i++)
		free(fs->f[i].own);
	free(fs->f);
}

int ps_tracedata__merge(size_t n, const unsigned char *const *blobs, const size_t *lens,
                        unsigned char **out, size_t *out_len, struct ps_tp_remap *remap)
{
	struct formats fs = { 0 };
	size_t i, j, k, total, o, tail_len = 0;
	struct parsed first = { 0 }, p;
	unsigned char *b = NULL;
	uint32_t nsys = 0;
	struct format *f;

	memset(remap, 0, n * sizeof(*remap));
	for (i = 0; i < n; i++)
		if (parse(blobs[i], lens[i], i, i ? &p : &first, &fs) < 0)
			goto fail;
	if (plan(&fs) < 0)
		goto fail;
	f = fs.f;
	tail_len = first.end - first.tail;
	total = first.prefix + 4 + tail_len;
	for (i = 0; i < fs.n; i++) {
		bool seen = false;

		if (!kept(&fs, i))
			continue;
		total += f[i].len;
		/* each system once: its name and a count */
		for (j = 0; j < i && !seen; j++)
			seen = kept(&fs, j) && strcmp(f[j].system, f[i].system) == 0;
		if (!seen) {
			total += strlen(f[i].system) + 1 + 4;
			nsys++;
		}
	}
	b = calloc(1, PS_ALIGN8(total) ? PS_ALIGN8(total) : 8);
	if (!b)
		goto fail;
	memcpy(b, blobs[0], first.prefix);
	o = first.prefix;
	ps_put32(b + o, nsys, first.swap);
	o += 4;
	for (i = 0; i < fs.n; i++) {
		bool seen = false;
		uint32_t count = 0;
		size_t l;

		if (!kept(&fs, i))
			continue;
		for (j = 0; j < i && !seen; j++)
			seen = kept(&fs, j) && strcmp(f[j].system, f[i].system) == 0;
		if (seen)
			continue;
		l = strlen(f[i].system) + 1;
		memcpy(b + o, f[i].system, l);
		o += l;
		for (k = i; k < fs.n; k++)
			count += kept(&fs, k) && strcmp(f[k].system, f[i].system) == 0;
		ps_put32(b + o, count, first.swap);
		o += 4;
		for (k = i; k < fs.n; k++) {
			if (!kept(&fs, k) || strcmp(f[k].system, f[i].system) != 0)
				continue;
			memcpy(b + o, f[k].data, f[k].len);
			o += f[k].len;
		}
	}
	memcpy(b + o, blobs[0] + first.tail, tail_len);
	o += tail_len;
	for (i = 0; i < n; i++)
		if (make_remap(&fs, i, &remap[i]) < 0)
			goto fail;
	free_formats(&fs);
	*out = b;
	*out_len = PS_ALIGN8(o);
	return 0;
fail:
	for (i = 0; i < n; i++)
		ps_tracedata__remap_free(&remap[i]);
	free(b);
	free_formats(&fs);
	return -1;
}
