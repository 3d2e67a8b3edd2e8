// SPDX-License-Identifier: GPL-2.0-only
/*
 * pswap - write a perf event stream in the other byte order: a little-endian stream comes out
 * as the stream a big-endian machine would have written for the same events (and a big-endian
 * one as the little-endian stream).  The byte-order tests feed the result to pcat and perf.
 *
 * Every field is turned at its own width: record headers, attrs field by field, the attr flag
 * bitfields moved to the other bit allocation order, the sample_id trailer by the record's
 * attr, SAMPLE fields by sample_type, tracepoint data field by field by its format, the
 * TRACING_DATA blob (its byte-order byte flipped), and the FEATURE payloads perf 6.1 writes.
 * A compressed stream comes out decompressed, without its COMPRESSED feature.
 *
 * With -d the result is written as a perf.data file instead (-o required): perf 6.1 reads the
 * other byte order correctly only from a file, because in pipe mode it never marks its events
 * as swapped (TID and CPU pairs come out wrong, tracepoint samples fail to parse).  The file
 * holds the attrs, the data records, and the features (TRACING_DATA as feature 1); perf needs
 * the HOSTNAME feature to trust the feature bitmap of a file in the other byte order.
 *
 * Left as they are, because their layout is not known here (a warning counts them): bodies of
 * unknown record types and features, BPF_PROG_INFO entries, BTF data, the contents of
 * __data_loc arrays that are not strings, tracepoint fields wider than 8 bytes, user stack
 * dumps and AUX data (memory images), AUXTRACE payloads, and RAW data of events without a
 * format.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>
#include <unistd.h>

#include "lib/diag.h"
#include "lib/input.h"
#include "lib/io.h"
#include "lib/output.h"
#include "lib/session.h"
#include "lib/signals.h"
#include "lib/xalloc.h"

static const char usage_text[] = "usage: pswap [-d] [-o file] [file]\n";

struct opts {
	const char *input;  /* operand; NULL or "-" is standard input */
	const char *output; /* -o FILE; NULL is standard output */
	bool data_file;     /* -d: write a perf.data file */
};

/* A growing byte buffer. */
struct bytes {
	unsigned char *p;
	size_t len, cap;
};

/* What a perf.data file needs besides its data section, gathered while the records pass. */
struct datafile {
	int fd;
	uint64_t data_size;
	struct bytes attrs; /* the attrs, back to back, each attr_size bytes */
	struct bytes ids;   /* their ids */
	uint64_t *nr_ids;   /* per attr */
	size_t nr_attrs;
	uint32_t attr_size;
	struct bytes feat[PS_FEAT_LAST_61];
	bool has_feat[PS_FEAT_LAST_61];
};

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

struct swapper {
	struct ps_session *s;
	bool swap;   /* the input's order is not the host's */
	bool in_big; /* the input is big endian */
	unsigned char *buf;
	size_t cap;
	unsigned long left_alone; /* records or parts whose layout is unknown, left unturned */
};

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

static PS_NORETURN void usage(FILE *fp, int status)
{
	fputs(usage_text, fp);
	if (fp == stdout)
		fputs("\nWrite a perf event stream in the other byte order (a test tool).\n\n"
		      "  -d, --perf-data    write a perf.data file (needs -o)\n"
		      "  -o, --output FILE  write to FILE instead of standard output\n",
		      fp);
	exit(status);
}

static void parse_args(int argc, char **argv, struct opts *o)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "output", required_argument, NULL, 'o' },
		{ "perf-data", no_argument, NULL, 'd' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(o, 0, sizeof(*o));
	while ((c = getopt_long(argc, argv, "dho:", longopts, NULL)) != -1) {
		switch (c) {
		case 'd':
			o->data_file = true;
			break;
		case 'h':
			usage(stdout, 0);
		case 'o':
			o->output = optarg;
			break;
		default:
			usage(stderr, 2);
		}
	}
	if (argc - optind > 1)
		usage(stderr, 2);
	if (argc - optind == 1)
		o->input = argv[optind];
	if (o->data_file && (!o->output || strcmp(o->output, "-") == 0))
		ps_usage_error("-d writes a perf.data file, which needs -o file");
}

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
static uint64_t attr_flags(const struct swapper *w, const struct ps_attr *a)
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
static const struct ps_attr *attr_of(const struct swapper *w, const struct ps_record *rec)
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

/* The sample_id trailer (STREAM-FORMAT 2.1), which ends the region. */
static void trailer(struct cur *c, uint64_t st)
{
	if (st & PERF_SAMPLE_TID)
		nums(c, 2, 4);
	if (st & PERF_SAMPLE_TIME)
		u64(c);
	if (st & PERF_SAMPLE_ID)
		u64(c);
	if (st & PERF_SAMPLE_STREAM_ID)
		u64(c);
	if (st & PERF_SAMPLE_CPU)
		nums(c, 2, 4);
	if (st & PERF_SAMPLE_IDENTIFIER)
		u64(c);
}

/* ---- SAMPLE ---- */

/* A tracepoint's record: each field at its own size, by the event's format. */
static void raw_fields(struct swapper *w, struct cur *c, const struct ps_attr *a, uint32_t size)
{
	struct tep_format_field *lists[2], *f;
	struct tep_event *ev = a->tp;
	size_t start = c->pos, i;

	if (!ev && a->type == PERF_TYPE_TRACEPOINT && ps_session__tep(w->s))
		ev = tep_find_event(ps_session__tep(w->s), (int)a->config);
	if (!ev) {
		w->left_alone++;
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
				width = 4; /* u32 offset | length << 16; the data stays */
			} else if (f->flags & TEP_FIELD_IS_STRING) {
				continue;
			} else if (f->flags & TEP_FIELD_IS_ARRAY) {
				width = f->elementsize;
				n = width ? (unsigned int)f->size / width : 0;
			}
			if (width == 1)
				continue;
			if (width != 2 && width != 4 && width != 8) {
				w->left_alone++;
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

static void sample(struct swapper *w, struct cur *c, const struct ps_attr *a)
{
	uint64_t st = a->sample_type, n;

	if (st & PERF_SAMPLE_IDENTIFIER)
		u64(c);
	if (st & PERF_SAMPLE_IP)
		u64(c);
	if (st & PERF_SAMPLE_TID)
		nums(c, 2, 4);
	if (st & PERF_SAMPLE_TIME)
		u64(c);
	if (st & PERF_SAMPLE_ADDR)
		u64(c);
	if (st & PERF_SAMPLE_ID)
		u64(c);
	if (st & PERF_SAMPLE_STREAM_ID)
		u64(c);
	if (st & PERF_SAMPLE_CPU)
		nums(c, 2, 4);
	if (st & PERF_SAMPLE_PERIOD)
		u64(c);
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
			w->left_alone++;
		}
	}
	if (st & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT))
		u64(c);
	if (st & PERF_SAMPLE_DATA_SRC)
		u64(c);
	if (st & PERF_SAMPLE_TRANSACTION)
		u64(c);
	if (st & PERF_SAMPLE_REGS_INTR)
		regs(c, a->sample_regs_intr);
	if (st & PERF_SAMPLE_PHYS_ADDR)
		u64(c);
	if (st & PERF_SAMPLE_CGROUP)
		u64(c);
	if (st & PERF_SAMPLE_DATA_PAGE_SIZE)
		u64(c);
	if (st & PERF_SAMPLE_CODE_PAGE_SIZE)
		u64(c);
	if (st & PERF_SAMPLE_AUX) {
		n = u64(c);
		skip(c, n);
		if (n)
			w->left_alone++;
	}
}

/* ---- kernel records other than SAMPLE (STREAM-FORMAT 3.1), before their trailer ---- */

static void kernel_body(struct swapper *w, struct cur *c, const struct ps_record *rec)
{
	switch (rec->type) {
	case PERF_RECORD_MMAP:
		nums(c, 2, 4);
		nums(c, 3, 8);
		break;
	case PERF_RECORD_LOST:
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE:
	case PERF_RECORD_AUX:
	case PERF_RECORD_LOST_SAMPLES:
	case PERF_RECORD_AUX_OUTPUT_HW_ID:
	case PS_RECORD_CALLCHAIN_DEFERRED:
		rest_u64(c);
		break;
	case PERF_RECORD_COMM:
	case PERF_RECORD_ITRACE_START:
	case PERF_RECORD_SWITCH_CPU_WIDE:
		nums(c, 2, 4);
		break;
	case PERF_RECORD_EXIT:
	case PERF_RECORD_FORK:
		nums(c, 4, 4);
		u64(c);
		break;
	case PERF_RECORD_READ:
		nums(c, 2, 4);
		rest_u64(c);
		break;
	case PERF_RECORD_MMAP2:
		nums(c, 2, 4);
		nums(c, 3, 8);
		if (rec->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
			skip(c, 2); /* build_id_size, pad */
			u16(c);
			skip(c, 20);
		} else {
			nums(c, 2, 4); /* maj, min */
			nums(c, 2, 8); /* ino, ino_generation */
		}
		nums(c, 2, 4); /* prot, flags */
		break;
	case PERF_RECORD_SWITCH:
		break;
	case PERF_RECORD_NAMESPACES:
		nums(c, 2, 4);
		nums(c, 2 * u64(c), 8);
		break;
	case PERF_RECORD_KSYMBOL:
		u64(c);
		u32(c);
		nums(c, 2, 2);
		break;
	case PERF_RECORD_BPF_EVENT:
		nums(c, 2, 2);
		u32(c);
		break;
	case PERF_RECORD_CGROUP:
		u64(c);
		break;
	case PERF_RECORD_TEXT_POKE:
		u64(c);
		nums(c, 2, 2);
		break;
	default:
		w->left_alone++;
		break;
	}
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
static void tracing_blob(struct swapper *w, struct cur *c)
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
static uint32_t nr_cpus(const struct swapper *w)
{
	const unsigned char *p;
	size_t len;

	p = ps_session__feature(w->s, PS_FEAT_NRCPUS, &len);
	return p && len >= 4 ? ps_get32(p, w->swap) : 0;
}

/* A FEATURE payload (STREAM-FORMAT 6). */
static void feature(struct swapper *w, struct cur *c, uint64_t feat)
{
	uint32_t n, i, j, attr_size, ncpu;

	switch (feat) {
	case PS_FEAT_HOSTNAME:
	case PS_FEAT_OSRELEASE:
	case PS_FEAT_VERSION:
	case PS_FEAT_ARCH:
	case PS_FEAT_CPUDESC:
	case PS_FEAT_CPUID:
		string(c);
		break;
	case PS_FEAT_NRCPUS:
		nums(c, 2, 4);
		break;
	case PS_FEAT_TOTAL_MEM:
	case PS_FEAT_SAMPLE_TIME:
	case PS_FEAT_MEM_TOPOLOGY:
	case PS_FEAT_CLOCKID:
	case PS_FEAT_DIR_FORMAT:
		rest_u64(c);
		break;
	case PS_FEAT_CMDLINE:
		n = u32(c);
		for (i = 0; i < n && !c->bad; i++)
			string(c);
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
		for (j = 0; j < 2; j++) {
			n = u32(c);
			for (i = 0; i < n && !c->bad; i++)
				string(c);
		}
		ncpu = nr_cpus(w);
		if (!ncpu) {
			w->left_alone++;
			break;
		}
		nums(c, 2ULL * ncpu, 4); /* core_id, socket_id */
		if (c->bad || c->pos == c->end)
			break;
		n = u32(c); /* dies */
		for (i = 0; i < n && !c->bad; i++)
			string(c);
		nums(c, ncpu, 4);
		break;
	case PS_FEAT_NUMA_TOPOLOGY:
		n = u32(c);
		for (i = 0; i < n && !c->bad; i++) {
			u32(c);
			nums(c, 2, 8);
			string(c);
		}
		break;
	case PS_FEAT_PMU_MAPPINGS:
		n = u32(c);
		for (i = 0; i < n && !c->bad; i++) {
			u32(c);
			string(c);
		}
		break;
	case PS_FEAT_GROUP_DESC:
		n = u32(c);
		for (i = 0; i < n && !c->bad; i++) {
			string(c);
			nums(c, 2, 4);
		}
		break;
	case PS_FEAT_CACHE:
		u32(c);
		n = u32(c);
		for (i = 0; i < n && !c->bad; i++) {
			nums(c, 4, 4);
			for (j = 0; j < 3; j++)
				string(c);
		}
		break;
	case PS_FEAT_BPF_PROG_INFO:
		if (u32(c))
			w->left_alone++;
		break;
	case PS_FEAT_BPF_BTF:
		n = u32(c);
		for (i = 0; i < n && !c->bad; i++) {
			u32(c);
			skip(c, u32(c));
		}
		if (n)
			w->left_alone++; /* BTF data has its own byte order */
		break;
	case PS_FEAT_COMPRESSED:
		nums(c, 5, 4);
		break;
	case PS_FEAT_CPU_PMU_CAPS:
	case PS_FEAT_HYBRID_TOPOLOGY:
		n = u32(c);
		for (i = 0; i < n && !c->bad; i++) {
			string(c);
			string(c);
		}
		break;
	case PS_FEAT_CLOCK_DATA:
		nums(c, 2, 4);
		nums(c, 2, 8);
		break;
	case PS_FEAT_PMU_CAPS:
		n = u32(c);
		for (i = 0; i < n && !c->bad; i++) {
			uint32_t caps = u32(c);

			for (j = 0; j < caps && !c->bad; j++) {
				string(c);
				string(c);
			}
			string(c);
		}
		break;
	case PS_FEAT_BRANCH_STACK:
	case PS_FEAT_STAT:
	case PS_FEAT_LAST_61:
		break;
	default:
		if (c->pos < c->end)
			w->left_alone++;
		break;
	}
}

static void user_body(struct swapper *w, struct cur *c, const struct ps_record *rec)
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
			w->left_alone++; /* the AUX data */
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
		w->left_alone++;
		break;
	}
}

/* ---- records ---- */

/*
 * Write @rec's bytes turned into @w->buf.  Return: 0, or -1 with @err set when the record's
 * fields do not fit its size.
 */
static int turn(struct swapper *w, const struct ps_record *rec, const char *name,
                struct ps_error *err)
{
	struct cur c;
	const char *what = ps_record_type_name(rec->type);

	if (rec->len > w->cap) {
		unsigned char *nb = realloc(w->buf, rec->len);

		if (!nb)
			return ps_error__set(err, PS_ENOMEM, name, rec->offset, "out of memory");
		w->buf = nb;
		w->cap = rec->len;
	}
	memcpy(w->buf, rec->data, rec->len);
	c = (struct cur){ rec->data, w->buf, 0, rec->size, w->swap, false };
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
	return 0;
}

/* ---- -d: a perf.data file ---- */

static int add_bytes(struct bytes *b, const void *p, size_t len)
{
	if (b->len + len > b->cap) {
		size_t ncap = b->cap ? b->cap : 4096;
		unsigned char *np;

		while (ncap < b->len + len)
			ncap *= 2;
		np = realloc(b->p, ncap);
		if (!np)
			return -1;
		b->p = np;
		b->cap = ncap;
	}
	memcpy(b->p + b->len, p, len);
	b->len += len;
	return 0;
}

/*
 * Keep @rec (already turned into @w->buf) for the file: ATTR, FEATURE and TRACING_DATA go to
 * the header sections, every other record to the data section.
 */
static int file_put(struct datafile *df, const struct swapper *w, const struct ps_record *rec,
                    const char *name, struct ps_error *err)
{
	const unsigned char *p = rec->data;
	uint64_t feat, *n;
	uint32_t asize;

	switch (rec->type) {
	case PS_RECORD_HEADER_ATTR:
		asize = ps_get32(p + 8 + PS_ATTR_SIZE, w->swap);
		asize = asize ? asize : PS_ATTR_SIZE_VER0;
		if (df->nr_attrs && asize != df->attr_size)
			return ps_error__set(
			        err, PS_EUNSUP, name, rec->offset,
			        "attrs of different sizes cannot share a perf.data file");
		n = ps_realloc_array(df->nr_ids, df->nr_attrs + 1, sizeof(*n));
		if (!n)
			break;
		df->nr_ids = n;
		n[df->nr_attrs++] = (rec->size - 8u - asize) / 8;
		df->attr_size = asize;
		if (add_bytes(&df->attrs, w->buf + 8, asize) ||
		    add_bytes(&df->ids, w->buf + 8 + asize, 8 * n[df->nr_attrs - 1]))
			break;
		return 0;
	case PS_RECORD_HEADER_FEATURE:
		feat = ps_get64(p + 8, w->swap);
		if (feat == 0 || feat >= PS_FEAT_LAST_61)
			return 0; /* the end marker, or a feature perf 6.1 does not know */
		df->feat[feat].len = 0;
		df->has_feat[feat] = true;
		if (add_bytes(&df->feat[feat], w->buf + 16, rec->size - 16u))
			break;
		return 0;
	case PS_RECORD_HEADER_TRACING_DATA:
		df->feat[PS_FEAT_TRACING_DATA].len = 0;
		df->has_feat[PS_FEAT_TRACING_DATA] = true;
		if (add_bytes(&df->feat[PS_FEAT_TRACING_DATA], w->buf + rec->size,
		              rec->len - rec->size))
			break;
		return 0;
	default:
		if (ps_write_full(df->fd, w->buf, rec->len))
			return ps_error__sys(err, PS_EWRITE, name, "write error");
		df->data_size += rec->len;
		return 0;
	}
	return ps_error__set(err, PS_ENOMEM, name, rec->offset, "out of memory");
}

/*
 * Write what follows the data section: the feature index (perf looks for it right after the
 * data), the feature sections, the attrs and their ids; then the header (STREAM-FORMAT 1.2).
 * Everything in @swap order.
 */
static int file_finish(struct datafile *df, bool swap, const char *name, struct ps_error *err)
{
	unsigned char hdr[PS_FILE_HEADER_SIZE] = { 0 }, pair[16];
	uint64_t idx_off = PS_FILE_HEADER_SIZE + df->data_size, entry = df->attr_size + 16ULL;
	uint64_t off, attrs_off, ids_off, bits = 0;
	unsigned int f, nfeat = 0;
	size_t i;

	if (!df->nr_attrs)
		return ps_error__set(err, PS_EUNSUP, name, PS_NO_OFFSET,
		                     "no ATTR record: nothing to make a perf.data file of");
	for (f = 1; f < PS_FEAT_LAST_61; f++)
		nfeat += df->has_feat[f];
	off = idx_off + 16ULL * nfeat;
	for (f = 1; f < PS_FEAT_LAST_61; f++) {
		if (!df->has_feat[f])
			continue;
		bits |= 1ULL << f;
		ps_put64(pair, off, swap);
		ps_put64(pair + 8, df->feat[f].len, swap);
		off += df->feat[f].len;
		if (ps_write_full(df->fd, pair, sizeof(pair)))
			goto werr;
	}
	for (f = 1; f < PS_FEAT_LAST_61; f++)
		if (df->has_feat[f] && df->feat[f].len &&
		    ps_write_full(df->fd, df->feat[f].p, df->feat[f].len))
			goto werr;
	attrs_off = off;
	ids_off = attrs_off + entry * df->nr_attrs;
	for (i = 0; i < df->nr_attrs; i++) {
		ps_put64(pair, ids_off, swap);
		ps_put64(pair + 8, 8 * df->nr_ids[i], swap);
		ids_off += 8 * df->nr_ids[i];
		if (ps_write_full(df->fd, df->attrs.p + i * df->attr_size, df->attr_size) ||
		    ps_write_full(df->fd, pair, sizeof(pair)))
			goto werr;
	}
	if (df->ids.len && ps_write_full(df->fd, df->ids.p, df->ids.len))
		goto werr;
	ps_put64(hdr, PS_MAGIC, swap);
	ps_put64(hdr + 8, PS_FILE_HEADER_SIZE, swap);
	ps_put64(hdr + PS_FH_ATTR_SIZE, entry, swap);
	ps_put64(hdr + PS_FH_ATTRS, attrs_off, swap);
	ps_put64(hdr + PS_FH_ATTRS + 8, entry * df->nr_attrs, swap);
	ps_put64(hdr + PS_FH_DATA, PS_FILE_HEADER_SIZE, swap);
	ps_put64(hdr + PS_FH_DATA + 8, df->data_size, swap);
	ps_put64(hdr + PS_FH_FEATURES, bits, swap);
	if (pwrite(df->fd, hdr, sizeof(hdr), 0) != (ssize_t)sizeof(hdr))
		goto werr;
	return 0;
werr:
	return ps_error__sys(err, PS_EWRITE, name, "write error");
}

static void file_free(struct datafile *df)
{
	unsigned int f;

	free(df->attrs.p);
	free(df->ids.p);
	free(df->nr_ids);
	for (f = 0; f < PS_FEAT_LAST_61; f++)
		free(df->feat[f].p);
}

static bool dropped(const struct ps_record *rec, bool swap)
{
	/* the output is not compressed: it must not say it is */
	return rec->type == PS_RECORD_HEADER_FEATURE && rec->size >= 16 &&
	       ps_get64(rec->data + 8, swap) == PS_FEAT_COMPRESSED;
}

static int run_stream(struct swapper *w, struct ps_input *in, const struct opts *o,
                      struct ps_error *err, struct ps_error *oerr)
{
	struct ps_error spare = { 0 };
	struct ps_output *out;
	struct ps_record rec;
	int r = 0;

	out = ps_output__open(o->output, false, oerr);
	if (!out)
		return -1;
	ps_input__set_wait_hook(in, ps_output__flush_hook, out);
	if (ps_output__begin(out, !w->swap, oerr) < 0)
		goto done;
	while (!ps_stop && (r = ps_input__next(in, &rec, err)) > 0) {
		if (dropped(&rec, w->swap))
			continue;
		if (turn(w, &rec, ps_input__name(in), err) < 0) {
			r = -1;
			break;
		}
		if (ps_output__write(out, w->buf, rec.len, oerr) < 0)
			break;
	}
done:
	ps_input__set_wait_hook(in, NULL, NULL);
	ps_output__close(out, oerr->code ? &spare : oerr);
	return r < 0 || oerr->code ? -1 : 0;
}

static int run_file(struct swapper *w, struct ps_input *in, const struct opts *o,
                    struct ps_error *err, struct ps_error *oerr)
{
	unsigned char zero[PS_FILE_HEADER_SIZE] = { 0 };
	struct datafile df = { 0 };
	struct ps_record rec;
	int r = 0;

	df.fd = open(o->output, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (df.fd < 0)
		return ps_error__sys(oerr, PS_ESYS, o->output, "cannot open");
	if (ps_write_full(df.fd, zero, sizeof(zero))) {
		ps_error__sys(oerr, PS_EWRITE, o->output, "write error");
		goto done;
	}
	while (!ps_stop && (r = ps_input__next(in, &rec, err)) > 0) {
		if (dropped(&rec, w->swap))
			continue;
		if (turn(w, &rec, ps_input__name(in), err) < 0 ||
		    file_put(&df, w, &rec, o->output, oerr) < 0) {
			r = -1;
			break;
		}
	}
	if (r == 0)
		file_finish(&df, !w->swap, o->output, oerr);
done:
	if (close(df.fd) && !oerr->code)
		ps_error__sys(oerr, PS_EWRITE, o->output, "write error");
	file_free(&df);
	return r < 0 || oerr->code ? -1 : 0;
}

int main(int argc, char **argv)
{
	struct ps_error err = { 0 }, oerr = { 0 };
	struct swapper w = { 0 };
	struct ps_input *in;
	struct opts o;

	ps_progname = "pswap";
	ps_signals__init();
	parse_args(argc, argv, &o);
	in = ps_input__open(o.input, PS_INPUT_DECOMPRESS, &err);
	if (!in)
		ps_die(&err);
	w.s = ps_input__session(in);
	w.swap = ps_input__swapped(in);
	w.in_big = w.swap != ps_host_is_big_endian();
	if (o.data_file)
		run_file(&w, in, &o, &err, &oerr);
	else
		run_stream(&w, in, &o, &err, &oerr);
	if (w.left_alone && !err.code && !oerr.code)
		ps_msg("%lu records or parts of records of unknown layout were left unturned",
		       w.left_alone);
	if (oerr.code == PS_EPIPE)
		oerr.code = 0;
	if (oerr.code)
		ps_warn(&oerr);
	if (err.code)
		ps_warn(&err); /* before the close: its input name belongs to the input */
	ps_input__close(in);
	free(w.buf);
	return err.code || oerr.code ? 1 : 0;
}
