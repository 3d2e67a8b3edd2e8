// SPDX-License-Identifier: GPL-2.0-only
/*
 * swap.c - a record in the other byte order: every field turned at its own width.
 */
#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>

#include "abi.h"
#include "compat.h"
#include "session.h"
#include "swap.h"
#include "xalloc.h"

/*
 * A walk over one region of a record: the input bytes are read (counts, lengths) in the
 * input's order, the same bytes of the output copy are turned.  A field that does not fit
 * the region sets @bad, after which nothing more is done.
 */
struct cur {
	const unsigned char *in;
	unsigned char *out;
	size_t pos, end;
	bool swap; /* the input's order is not the host's */
	bool bad;
};

struct ps_swap {
	const struct ps_session *s;
	bool swap;                /* the input's order is not the host's */
	bool in_big;              /* the input is big endian */
	bool strict;              /* PS_SWAP_STRICT */
	struct ps_bytes buf;      /* the record turned */
	unsigned long left_alone; /* records or parts left as they were */
	const char *unknown;      /* in the record being turned: a part of unknown layout */
};

/* A part of the record whose layout is not known here: left as it is, or refused. */
static void unknown(struct ps_swap *w, const char *what)
{
	w->left_alone++;
	if (!w->unknown)
		w->unknown = what;
}

/* A memory image of the recorded machine: its bytes are right in either order. */
static void image(struct ps_swap *w)
{
	w->left_alone++;
}

/*
 * Words of bitfields: the fields wider than one bit, by their bit offset on a little-endian
 * machine; every other bit is a field of its own.  A terminating { 0, 0 } ends each list.
 */
struct wide_field {
	unsigned char off, width;
};

/* perf_event_attr at offset 40: precise_ip, and the reserved rest after defer_output */
static const struct wide_field attr_flags_wide[] = { { 15, 2 }, { 40, 24 }, { 0, 0 } };
/* perf_event_attr at offset 116 (aux_action since 6.13, reserved before): the reserved rest */
static const struct wide_field attr_aux_action_wide[] = { { 3, 29 }, { 0, 0 } };
/* perf_branch_entry flags: cycles, type, spec, new_type, priv, reserved */
static const struct wide_field branch_flags_wide[] = {
	{ 4, 16 }, { 20, 4 }, { 24, 2 }, { 26, 4 }, { 30, 3 }, { 33, 31 }, { 0, 0 },
};
/* ---- the walk ---- */

static void reverse(unsigned char *p, size_t n)
{
	size_t i;

	for (i = 0; i < n / 2; i++) {
		unsigned char t = p[i];

		p[i] = p[n - 1 - i];
		p[n - 1 - i] = t;
	}
}

static bool room(struct cur *c, uint64_t n)
{
	if (c->bad || c->end - c->pos < n) {
		c->bad = true;
		return false;
	}
	return true;
}

static void skip(struct cur *c, uint64_t n)
{
	if (room(c, n))
		c->pos += (size_t)n;
}

/* Turn one number of @width bytes; return its value as the input had it. */
static uint64_t num(struct cur *c, unsigned int width)
{
	const unsigned char *p = c->in + c->pos;
	uint64_t v;

	if (!room(c, width))
		return 0;
	switch (width) {
	case 2:
		v = ps_get16(p, c->swap);
		break;
	case 4:
		v = ps_get32(p, c->swap);
		break;
	case 8:
		v = ps_get64(p, c->swap);
		break;
	default:
		v = 0;
		break;
	}
	reverse(c->out + c->pos, width);
	c->pos += width;
	return v;
}

static uint16_t u16(struct cur *c)
{
	return (uint16_t)num(c, 2);
}

static uint32_t u32(struct cur *c)
{
	return (uint32_t)num(c, 4);
}

static uint64_t u64(struct cur *c)
{
	return num(c, 8);
}

/* @n numbers of @width bytes, @n checked against what is left first. */
static void nums(struct cur *c, uint64_t n, unsigned int width)
{
	if (c->bad || n > (c->end - c->pos) / width) {
		c->bad = true;
		return;
	}
	while (n--)
		num(c, width);
}

/* Every whole u64 left in the region. */
static void rest_u64(struct cur *c)
{
	if (!c->bad)
		nums(c, (c->end - c->pos) / 8, 8);
}

/* A feature string: u32 length, then that many bytes. */
static void string(struct cur *c)
{
	skip(c, u32(c));
}

/*
 * A counted list: a u32 count, then that many entries laid out as @layout says, item by
 * item: '4' a u32, '8' a u64, 's' a perf string (u32 length, bytes).
 */
static void entries(struct cur *c, const char *layout)
{
	uint32_t n = u32(c), i;
	const char *k;

	for (i = 0; i < n && !c->bad; i++)
		for (k = layout; *k && !c->bad; k++) {
			if (*k == 's')
				string(c);
			else
				num(c, (unsigned int)(*k - '0'));
		}
}

/* A NUL-terminated string inside the region. */
static const char *cstring(struct cur *c)
{
	const unsigned char *at = c->in + c->pos, *nul;

	if (c->bad)
		return NULL;
	nul = memchr(at, 0, c->end - c->pos);
	if (!nul) {
		c->bad = true;
		return NULL;
	}
	c->pos += (size_t)(nul - at) + 1;
	return (const char *)at;
}

/*
 * A word of bitfields: a little-endian machine allocates the first field at the lowest bit,
 * a big-endian one at the highest, each field keeping its own bit order.  Move every field
 * to where the other machine puts it.
 */
static void bitfield(struct cur *c, unsigned int bytes, const struct wide_field *wide, bool in_big)
{
	unsigned int bits = 8 * bytes, off, width;
	uint64_t v, w = 0, mask;

	if (!room(c, bytes))
		return;
	v = bytes == 8 ? ps_get64(c->in + c->pos, c->swap) : ps_get32(c->in + c->pos, c->swap);
	for (off = 0; off < bits; off += width) {
		unsigned int le = off, be;

		width = 1;
		if (wide->width && wide->off == off)
			width = (wide++)->width;
		if (width > bits - off)
			width = bits - off;
		be = bits - off - width;
		mask = width == 64 ? ~0ULL : (1ULL << width) - 1;
		w |= ((v >> (in_big ? be : le)) & mask) << (in_big ? le : be);
	}
	/* the output's order is the other one: relative to the host, swapped iff the input is not */
	if (bytes == 8)
		ps_put64(c->out + c->pos, w, !c->swap);
	else
		ps_put32(c->out + c->pos, (uint32_t)w, !c->swap);
	c->pos += bytes;
}

/* perf_event_attr of @size bytes at the cursor, field by field (STREAM-FORMAT 4.1). */
static void attr(struct cur *c, uint32_t size, bool in_big)
{
	static const struct {
		unsigned char off, width;
		const struct wide_field *bits; /* a word of bitfields */
	} fields[] = {
		{ 0, 4, NULL },                   /* type */
		{ 4, 4, NULL },                   /* size */
		{ 8, 8, NULL },                   /* config */
		{ 16, 8, NULL },                  /* sample_period */
		{ 24, 8, NULL },                  /* sample_type */
		{ 32, 8, NULL },                  /* read_format */
		{ 40, 8, attr_flags_wide },       /* flags */
		{ 48, 4, NULL },                  /* wakeup_events */
		{ 52, 4, NULL },                  /* bp_type */
		{ 56, 8, NULL },                  /* config1 */
		{ 64, 8, NULL },                  /* config2 */
		{ 72, 8, NULL },                  /* branch_sample_type */
		{ 80, 8, NULL },                  /* sample_regs_user */
		{ 88, 4, NULL },                  /* sample_stack_user */
		{ 92, 4, NULL },                  /* clockid */
		{ 96, 8, NULL },                  /* sample_regs_intr */
		{ 104, 4, NULL },                 /* aux_watermark */
		{ 108, 2, NULL },                 /* sample_max_stack */
		{ 110, 2, NULL },                 /* reserved */
		{ 112, 4, NULL },                 /* aux_sample_size */
		{ 116, 4, attr_aux_action_wide }, /* aux_action */
		{ 120, 8, NULL },                 /* sig_data */
		{ 128, 8, NULL },                 /* config3 */
	};
	size_t start = c->pos, end = c->end, i;

	if (!room(c, size))
		return;
	c->end = start + size;
	for (i = 0; i < ARRAY_SIZE(fields) && fields[i].off + fields[i].width <= size; i++) {
		c->pos = start + fields[i].off;
		if (fields[i].bits)
			bitfield(c, fields[i].width, fields[i].bits, in_big);
		else
			num(c, fields[i].width);
	}
	if (size > PS_ATTR_SIZE_MAX) {
		/* fields newer than we know: u64 words, as the newest ones are */
		c->pos = start + PS_ATTR_SIZE_MAX;
		rest_u64(c);
	}
	c->pos = start + size;
	c->end = end;
}

/* ---- which attr a record belongs to ---- */

/* The attr flags in little-endian bit numbering (STREAM-FORMAT 4.2), from its raw bytes. */
static uint64_t attr_flags(const struct ps_swap *w, const struct ps_attr *a)
{
	unsigned char tmp[8];
	struct cur c = { a->raw + PS_ATTR_FLAGS, tmp, 0, 8, w->swap, false };

	if (a->raw_size < PS_ATTR_FLAGS + 8)
		return 0;
	if (!w->in_big)
		return ps_get64(a->raw + PS_ATTR_FLAGS, w->swap);
	bitfield(&c, 8, attr_flags_wide, true);
	return ps_get64(tmp, !w->swap);
}

static unsigned int trailer_words(uint64_t st)
{
	return !!(st & PERF_SAMPLE_TID) + !!(st & PERF_SAMPLE_TIME) + !!(st & PERF_SAMPLE_ID) +
	       !!(st & PERF_SAMPLE_STREAM_ID) + !!(st & PERF_SAMPLE_CPU) +
	       !!(st & PERF_SAMPLE_IDENTIFIER);
}

/*
 * The attr of a SAMPLE or other kernel record, by perf's rules (session.h), but with the
 * flags read from the attr's bytes in the input's bitfield order.
 */
static const struct ps_attr *attr_of(const struct ps_swap *w, const struct ps_record *rec)
{
	const struct ps_attr *first = ps_session__attr(w->s, 0);
	size_t words = (rec->size - 8u) / 8;
	uint64_t st, id;
	size_t pos;

	if (!first || ps_session__nr_attrs(w->s) == 1)
		return first;
	st = first->sample_type;
	if (rec->type == PERF_RECORD_SAMPLE) {
		if (st & PERF_SAMPLE_IDENTIFIER)
			pos = 0;
		else if (st & PERF_SAMPLE_ID)
			pos = !!(st & PERF_SAMPLE_IP) + !!(st & PERF_SAMPLE_TID) +
			      !!(st & PERF_SAMPLE_TIME) + !!(st & PERF_SAMPLE_ADDR);
		else
			return NULL;
		if (pos >= words)
			return NULL;
	} else {
		if (!(attr_flags(w, first) & PS_ATTR_FLAG_SAMPLE_ID_ALL))
			return first;
		if (st & PERF_SAMPLE_IDENTIFIER)
			pos = 1;
		else if (st & PERF_SAMPLE_ID)
			pos = 1 + !!(st & PERF_SAMPLE_STREAM_ID) + !!(st & PERF_SAMPLE_CPU);
		else
			return NULL;
		if (pos > words)
			return NULL;
		pos = words - pos;
	}
	id = ps_get64(rec->data + 8 + 8 * pos, w->swap);
	return id ? ps_session__attr_by_id(w->s, id) : first;
}

/*
 * The u64 fields among @bits that @st has, which follow one another: each is turned as a
 * word of its own, so they are turned as one run of words.
 */
static void words(struct cur *c, uint64_t st, uint64_t bits)
{
	nums(c, (uint64_t)__builtin_popcountll(st & bits), 8);
}

/* pid, tid or cpu, res: two u32 */
static void pair32(struct cur *c, uint64_t st, uint64_t bit)
{
	if (st & bit)
		nums(c, 2, 4);
}

/* The sample_id trailer (STREAM-FORMAT 2.1), which ends the region. */
static void trailer(struct cur *c, uint64_t st)
{
	pair32(c, st, PERF_SAMPLE_TID);
	words(c, st, PERF_SAMPLE_TIME | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID);
	pair32(c, st, PERF_SAMPLE_CPU);
	words(c, st, PERF_SAMPLE_IDENTIFIER);
}

/* ---- SAMPLE ---- */

/*
 * A __data_loc or __rel_loc field: a u32 offset | length << 16, and the array it points at
 * (inside the tracepoint's record at @start, @size bytes), turned element by element.
 */
static void dynamic(struct ps_swap *w, struct cur *c, const struct tep_format_field *f,
                    size_t start, uint32_t size)
{
	uint32_t v = u32(c), off = v & 0xffff, len = v >> 16;
	unsigned int width = (unsigned int)f->elementsize;

	if (c->bad || (f->flags & TEP_FIELD_IS_STRING) || width == 1 || !len)
		return;
	if (f->flags & TEP_FIELD_IS_RELATIVE)
		off += (uint32_t)f->offset + (uint32_t)f->size;
	if ((uint64_t)off + len > size) {
		unknown(w, "a dynamic tracepoint field that points outside its record");
		return;
	}
	if ((width != 2 && width != 4 && width != 8) || len % width) {
		unknown(w, "a dynamic tracepoint array of elements of unknown size");
		return;
	}
	c->pos = start + off;
	nums(c, len / width, width);
}

/* A tracepoint's record: each field at its own size, by the event's format. */
static void raw_fields(struct ps_swap *w, struct cur *c, const struct ps_attr *a, uint32_t size)
{
	struct tep_format_field *lists[2], *f;
	struct tep_event *ev = a->tp;
	size_t start = c->pos, i;

	if (!ev && a->type == PERF_TYPE_TRACEPOINT && ps_session__tep(w->s))
		ev = tep_find_event(ps_session__tep(w->s), (int)a->config);
	if (!ev) {
		unknown(w, "RAW data of an event without a format");
		return;
	}
	lists[0] = ev->format.common_fields;
	lists[1] = ev->format.fields;
	for (i = 0; i < 2; i++) {
		for (f = lists[i]; f; f = f->next) {
			unsigned int width = (unsigned int)f->size;
			uint64_t n = 1;

			if (f->offset < 0 || f->size < 0 || (uint64_t)f->offset + f->size > size)
				continue;
			if (f->flags & (TEP_FIELD_IS_DYNAMIC | TEP_FIELD_IS_RELATIVE)) {
				c->pos = start + (size_t)f->offset;
				dynamic(w, c, f, start, size);
				continue;
			} else if (f->flags & TEP_FIELD_IS_STRING) {
				continue;
			} else if (f->flags & TEP_FIELD_IS_ARRAY) {
				width = f->elementsize;
				n = width ? (unsigned int)f->size / width : 0;
			}
			if (width == 1)
				continue;
			if (width != 2 && width != 4 && width != 8) {
				unknown(w, "a tracepoint field wider than 8 bytes");
				continue;
			}
			c->pos = start + (size_t)f->offset;
			nums(c, n, width);
		}
	}
	c->pos = start + size;
}

static void read_block(struct cur *c, uint64_t rf)
{
	uint64_t nr = 1, per = 1 + !!(rf & PERF_FORMAT_ID) + !!(rf & PERF_FORMAT_LOST);

	if (rf & PERF_FORMAT_GROUP)
		nr = u64(c);
	nums(c, !!(rf & PERF_FORMAT_TOTAL_TIME_ENABLED) + !!(rf & PERF_FORMAT_TOTAL_TIME_RUNNING),
	     8);
	if (nr > (c->end - c->pos) / 8 / per) {
		c->bad = true;
		return;
	}
	nums(c, nr * per, 8);
}

static void regs(struct cur *c, uint64_t mask)
{
	if (u64(c))
		nums(c, (uint64_t)__builtin_popcountll(mask), 8);
}

static void sample(struct ps_swap *w, struct cur *c, const struct ps_attr *a)
{
	uint64_t st = a->sample_type, n;

	words(c, st, PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP);
	pair32(c, st, PERF_SAMPLE_TID);
	words(c, st, PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID);
	pair32(c, st, PERF_SAMPLE_CPU);
	words(c, st, PERF_SAMPLE_PERIOD);
	if (st & PERF_SAMPLE_READ)
		read_block(c, a->read_format);
	if (st & PERF_SAMPLE_CALLCHAIN)
		nums(c, u64(c), 8);
	if (st & PERF_SAMPLE_RAW) {
		uint32_t size = u32(c);

		if (room(c, size))
			raw_fields(w, c, a, size);
	}
	if (st & PERF_SAMPLE_BRANCH_STACK) {
		n = u64(c);
		if (a->branch_sample_type & PS_BRANCH_HW_INDEX)
			u64(c);
		if (n > (c->end - c->pos) / 24) {
			c->bad = true;
			return;
		}
		while (n-- && !c->bad) {
			nums(c, 2, 8); /* from, to */
			bitfield(c, 8, branch_flags_wide, w->in_big);
		}
	}
	if (st & PERF_SAMPLE_REGS_USER)
		regs(c, a->sample_regs_user);
	if (st & PERF_SAMPLE_STACK_USER) {
		n = u64(c);
		if (n) {
			skip(c, n); /* a memory image: left as it is */
			u64(c);     /* dyn_size */
			image(w);
		}
	}
	if (st & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT))
		u64(c);
	words(c, st, PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_TRANSACTION);
	if (st & PERF_SAMPLE_REGS_INTR)
		regs(c, a->sample_regs_intr);
	words(c, st,
	      PERF_SAMPLE_PHYS_ADDR | PERF_SAMPLE_CGROUP | PERF_SAMPLE_DATA_PAGE_SIZE |
	              PERF_SAMPLE_CODE_PAGE_SIZE);
	if (st & PERF_SAMPLE_AUX) {
		n = u64(c);
		skip(c, n);
		if (n)
			image(w);
	}
}

/* ---- kernel records other than SAMPLE (STREAM-FORMAT 3.1), before their trailer ---- */

/* whether every field of @f is a u64: such a body is turned word by word to its end */
static bool words_only(const struct ps_record_field *f, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (f[i].width != 8 || f[i].kind > PS_FIELD_COUNT)
			return false;
	return true;
}

/* the body by its layout (record.h): each number at its width, text and tags as they are */
static void kernel_body(struct ps_swap *w, struct cur *c, const struct ps_record *rec)
{
	const struct ps_record_layout *l = ps_record_layout(rec->type);
	const struct ps_record_field *f;
	uint64_t count = 0;
	size_t i, n;

	if (!l || l->cls != PS_CLASS_SIDEBAND) {
		unknown(w, "its layout is not known");
		return;
	}
	f = ps_record_layout__fields(l, rec->misc, &n);
	if (l->tail == PS_TAIL_U64 && words_only(f, n)) {
		rest_u64(c);
		return;
	}
	for (i = 0; i < n; i++) {
		if (f[i].kind >= PS_FIELD_STR && f[i].kind != PS_FIELD_BUILD_ID)
			continue; /* bytes as recorded, or a misc bit */
		if (8u + f[i].off > c->pos)
			skip(c, 8u + f[i].off - c->pos);
		if (f[i].kind == PS_FIELD_BUILD_ID) {
			skip(c, 2); /* size, a reserved byte */
			u16(c);     /* reserved */
		} else if (f[i].kind == PS_FIELD_COUNT) {
			count = u64(c);
		} else {
			num(c, f[i].width);
		}
	}
	if (l->tail == PS_TAIL_U64)
		rest_u64(c);
	else if (l->tail == PS_TAIL_COUNTED)
		nums(c, count * l->tail_words, 8);
}

/* ---- perf's own records ---- */

/* cpu_map_data (STREAM-FORMAT 6.4) */
static void cpu_map(struct cur *c)
{
	uint16_t type = u16(c), nr;

	switch (type) {
	case 0:
		nums(c, u16(c), 2);
		break;
	case 1:
		nr = u16(c);
		switch (u16(c)) {
		case 4:
			nums(c, nr, 4);
			break;
		case 8:
			skip(c, 4);
			nums(c, nr, 8);
			break;
		default:
			c->bad = true;
			break;
		}
		break;
	case 2:
		skip(c, 2);
		nums(c, 2, 2);
		break;
	default:
		c->bad = true;
		break;
	}
}

/* The TRACING_DATA blob (STREAM-FORMAT 5): numbers in the blob's own order, which flips. */
static void tracing_blob(struct ps_swap *w, struct cur *c)
{
	const char *version, *s;
	uint32_t n, i, j, nev;
	bool big;

	(void)w;
	skip(c, 10); /* magic */
	version = cstring(c);
	if (!room(c, 2))
		return;
	big = c->in[c->pos] != 0;
	c->out[c->pos] = !big;
	c->swap = big != ps_host_is_big_endian();
	skip(c, 2); /* byte order, long size */
	u32(c);     /* page size */
	s = cstring(c);
	if (s && strcmp(s, "header_page") != 0)
		c->bad = true;
	skip(c, u64(c));
	s = cstring(c);
	if (s && strcmp(s, "header_event") != 0)
		c->bad = true;
	skip(c, u64(c));
	n = u32(c);
	for (i = 0; i < n && !c->bad; i++)
		skip(c, u64(c));
	n = u32(c);
	for (i = 0; i < n && !c->bad; i++) {
		cstring(c);
		nev = u32(c);
		for (j = 0; j < nev && !c->bad; j++)
			skip(c, u64(c));
	}
	skip(c, u32(c)); /* kallsyms */
	skip(c, u32(c)); /* printk formats */
	if (version && strcmp(version, "0.6") >= 0 && !c->bad && c->end - c->pos >= 8)
		skip(c, u64(c)); /* saved cmdlines */
	                         /* the rest is padding */
}

/* nr_cpus_avail, from the NRCPUS feature seen before, or 0. */
static uint32_t nr_cpus(const struct ps_swap *w)
{
	const unsigned char *p;
	size_t len;

	p = ps_session__feature(w->s, PS_FEAT_NRCPUS, &len);
	return p && len >= 4 ? ps_get32(p, w->swap) : 0;
}

/* A FEATURE payload (STREAM-FORMAT 6). */
/* @n numbers laid out as @f says (record.h), one after the other */
static void fixed_numbers(struct cur *c, const struct ps_record_field *f, size_t n)
{
	size_t i;

	if (words_only(f, n)) {
		rest_u64(c);
		return;
	}
	for (i = 0; i < n; i++)
		num(c, f[i].width);
}

static void feature(struct ps_swap *w, struct cur *c, uint64_t feat)
{
	uint32_t n, i, j, attr_size, ncpu;
	size_t nfixed;
	const struct ps_record_field *fixed = ps_feature_fields(feat, &nfixed);

	if (fixed) {
		fixed_numbers(c, fixed, nfixed);
		return;
	}
	if (ps_feature_is_string(feat)) {
		string(c);
		return;
	}
	switch (feat) {
	case PS_FEAT_TOTAL_MEM:
	case PS_FEAT_MEM_TOPOLOGY:
		rest_u64(c);
		break;
	case PS_FEAT_CMDLINE:
		entries(c, "s");
		break;
	case PS_FEAT_EVENT_DESC:
		n = u32(c);
		attr_size = u32(c);
		for (i = 0; i < n && !c->bad; i++) {
			attr(c, attr_size, w->in_big);
			j = u32(c);
			string(c);
			nums(c, j, 8);
		}
		break;
	case PS_FEAT_CPU_TOPOLOGY:
		entries(c, "s"); /* core siblings */
		entries(c, "s"); /* thread siblings */
		ncpu = nr_cpus(w);
		if (!ncpu) {
			unknown(w, "CPU topology without the number of CPUs");
			break;
		}
		nums(c, 2ULL * ncpu, 4); /* core_id, socket_id */
		if (c->bad || c->pos == c->end)
			break;
		entries(c, "s"); /* die siblings */
		nums(c, ncpu, 4);
		break;
	case PS_FEAT_NUMA_TOPOLOGY:
		entries(c, "488s"); /* node, mem_total, mem_free, cpus */
		break;
	case PS_FEAT_PMU_MAPPINGS:
		entries(c, "4s"); /* type, name */
		break;
	case PS_FEAT_GROUP_DESC:
		entries(c, "s44"); /* name, leader_idx, nr_members */
		break;
	case PS_FEAT_CACHE:
		u32(c);                /* version */
		entries(c, "4444sss"); /* level, line_size, sets, ways, type, size, map */
		break;
	case PS_FEAT_BPF_PROG_INFO:
		if (u32(c))
			unknown(w, "BPF program info");
		break;
	case PS_FEAT_BPF_BTF:
		n = u32(c);
		for (i = 0; i < n && !c->bad; i++) {
			u32(c);
			skip(c, u32(c));
		}
		if (n)
			unknown(w, "BTF data"); /* BTF data has its own byte order */
		break;
	case PS_FEAT_CPU_PMU_CAPS:
	case PS_FEAT_HYBRID_TOPOLOGY:
		entries(c, "ss"); /* name and value; pmu name and cpus */
		break;
	case PS_FEAT_PMU_CAPS:
		n = u32(c);
		for (i = 0; i < n && !c->bad; i++) {
			entries(c, "ss"); /* the capabilities: name, value */
			string(c);        /* the PMU's name */
		}
		break;
	case PS_FEAT_BRANCH_STACK:
	case PS_FEAT_STAT:
	case PS_FEAT_LAST_61:
		break;
	default:
		if (c->pos < c->end)
			unknown(w, "the layout of this feature is not known");
		break;
	}
}

static void user_body(struct ps_swap *w, struct cur *c, const struct ps_record *rec)
{
	uint32_t asize;
	uint64_t v;

	switch (rec->type) {
	case PS_RECORD_HEADER_ATTR:
		if (!room(c, 8))
			break;
		asize = ps_get32(c->in + c->pos + PS_ATTR_SIZE, c->swap);
		attr(c, asize ? asize : PS_ATTR_SIZE_VER0, w->in_big);
		rest_u64(c); /* ids */
		break;
	case PS_RECORD_HEADER_EVENT_TYPE:
		u64(c);
		break;
	case PS_RECORD_HEADER_TRACING_DATA:
		/* u32 size, u32 pad (older perf: no pad), then the blob after header.size */
		v = u32(c);
		if (c->end - c->pos >= 4)
			u32(c);
		if (c->pos != c->end || v != rec->len - rec->size) {
			c->bad = true;
			break;
		}
		c->end = rec->len;
		tracing_blob(w, c);
		c->pos = c->end;
		break;
	case PS_RECORD_HEADER_BUILD_ID:
		u32(c); /* pid */
		if (rec->misc & (1u << 15)) {
			skip(c, 22); /* data[20], size, reserved */
			u16(c);
		}
		break;
	case PS_RECORD_FINISHED_ROUND:
	case PS_RECORD_FINISHED_INIT:
		break;
	case PS_RECORD_ID_INDEX:
	case PS_RECORD_STAT_CONFIG:
	case PS_RECORD_STAT_ROUND:
		rest_u64(c);
		break;
	case PS_RECORD_AUXTRACE_INFO:
		nums(c, 2, 4);
		rest_u64(c);
		break;
	case PS_RECORD_AUXTRACE:
		nums(c, 3, 8);
		nums(c, 4, 4);
		if (rec->len > rec->size)
			image(w); /* the AUX data */
		break;
	case PS_RECORD_AUXTRACE_ERROR:
		nums(c, 6, 4);
		nums(c, 2, 8);
		skip(c, 64);
		if (c->end - c->pos >= 8)
			nums(c, 2, 4);
		break;
	case PS_RECORD_THREAD_MAP:
		v = u64(c);
		if (v > (c->end - c->pos) / 24) {
			c->bad = true;
			break;
		}
		while (v--) {
			u64(c);
			skip(c, 16);
		}
		break;
	case PS_RECORD_CPU_MAP:
		cpu_map(c);
		break;
	case PS_RECORD_STAT:
		u64(c);
		nums(c, 2, 4);
		nums(c, 3, 8);
		break;
	case PS_RECORD_EVENT_UPDATE:
		v = u64(c);
		u64(c);
		if (v == PS_EVENT_UPDATE_SCALE)
			u64(c);
		else if (v == PS_EVENT_UPDATE_CPUS)
			cpu_map(c);
		break;
	case PS_RECORD_TIME_CONV:
		nums(c, (c->end - c->pos) >= 40 ? 5 : 3, 8);
		break;
	case PS_RECORD_HEADER_FEATURE:
		feature(w, c, u64(c));
		break;
	default:
		unknown(w, "its layout is not known");
		break;
	}
}

/* ---- records ---- */

/*
 * Write @rec's bytes turned into @w->buf.p.  Return: 0, or -1 with @err set when the record's
 * fields do not fit its size.
 */
static int turn(struct ps_swap *w, const struct ps_record *rec, const char *name,
                struct ps_error *err)
{
	struct cur c;
	const char *what = ps_record_type_name(rec->type);

	w->buf.len = 0;
	if (ps_bytes__add(&w->buf, rec->data, rec->len, SIZE_MAX) < 0)
		return ps_error__set(err, PS_ENOMEM, name, rec->offset, "out of memory");
	c = (struct cur){ rec->data, w->buf.p, 0, rec->size, w->swap, false };
	u32(&c);
	nums(&c, 2, 2);
	if (rec->type == PERF_RECORD_SAMPLE || ps_record_type_has_trailer(rec->type)) {
		const struct ps_attr *a = attr_of(w, rec);

		if (!a)
			return ps_error__set(err, PS_ECORRUPT, name, rec->offset,
			                     "%s record belongs to no event of the stream",
			                     what ? what : "kernel");
		if (rec->type == PERF_RECORD_SAMPLE) {
			sample(w, &c, a);
		} else {
			size_t tl = 0;

			if (attr_flags(w, a) & PS_ATTR_FLAG_SAMPLE_ID_ALL)
				tl = 8 * trailer_words(a->sample_type);
			if (tl > c.end - c.pos) {
				c.bad = true;
			} else {
				c.end -= tl;
				kernel_body(w, &c, rec);
				c.pos = c.end;
				c.end += tl;
				trailer(&c, a->sample_type);
			}
		}
	} else {
		user_body(w, &c, rec);
	}
	if (c.bad)
		return ps_error__set(err, PS_ECORRUPT, name, rec->offset,
		                     "%s record of %u bytes does not hold the fields it should",
		                     what ? what : "a", rec->size);
	if (w->strict && w->unknown && what)
		return ps_error__set(err, PS_EUNSUP, name, rec->offset,
		                     "%s record cannot be turned to the other byte order: %s", what,
		                     w->unknown);
	if (w->strict && w->unknown)
		return ps_error__set(
		        err, PS_EUNSUP, name, rec->offset,
		        "a record of type %u cannot be turned to the other byte order: "
		        "%s",
		        rec->type, w->unknown);
	return 0;
}

struct ps_swap *ps_swap__new(const struct ps_session *s, unsigned int flags)
{
	struct ps_swap *w = calloc(1, sizeof(*w));

	if (!w)
		return NULL;
	w->s = s;
	w->swap = ps_session__swapped(s);
	w->in_big = w->swap != ps_host_is_big_endian();
	w->strict = flags & PS_SWAP_STRICT;
	return w;
}

void ps_swap__delete(struct ps_swap *w)
{
	if (!w)
		return;
	free(w->buf.p);
	free(w);
}

const unsigned char *ps_swap__record(struct ps_swap *w, const struct ps_record *rec,
                                     const char *name, struct ps_error *err)
{
	w->unknown = NULL;
	return turn(w, rec, name, err) < 0 ? NULL : w->buf.p;
}

unsigned long ps_swap__left_alone(const struct ps_swap *w)
{
	return w->left_alone;
}
