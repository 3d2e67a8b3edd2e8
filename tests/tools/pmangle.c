// SPDX-License-Identifier: GPL-2.0-only
/*
 * pmangle - list the records of a pipe stream, or write a damaged copy of it (the editcap -E
 * idea), so the bad-input tests make their inputs at test time and never hard-code an
 * offset.
 *
 * It trusts the input no further than the framing it needs: its own walker checks every size
 * against the bytes there are, and it reads either byte order.  Records are numbered from 1,
 * in the order --list prints them.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/abi.h"
#include "lib/compat.h"

#define MAX_INPUT (1ULL << 30)

static const char usage_text[] =
        "usage: pmangle --list file\n"
        "       pmangle {--truncate-in N | --size-zero N | --size-huge N} file\n"
        "       pmangle {--attr-size-big | --truncate-tracing | --wrong-magic} file\n";

enum action {
	LIST = 1,
	TRUNCATE_IN,
	SIZE_ZERO,
	SIZE_HUGE,
	ATTR_SIZE_BIG,
	TRUNCATE_TRACING,
	WRONG_MAGIC,
};

struct opts {
	enum action action;
	uint64_t n; /* record number, from 1 */
	const char *input;
};

/* One framed record: where it starts, its header, the out-of-band payload after it. */
struct rec {
	uint64_t offset;
	uint32_t type;
	uint16_t size;
	uint64_t payload;
};

struct stream {
	unsigned char *buf;
	size_t len;
	bool swap;
	const char *name;
};

static PS_NORETURN void usage(FILE *fp, int status)
{
	fputs(usage_text, fp);
	if (fp == stdout)
		fputs("\nList the records of a pipe stream (OFFSET TYPE SIZE [payload BYTES]), or\n"
		      "write a damaged copy of it to standard output.  N counts records from 1,\n"
		      "in the order --list prints them.\n",
		      fp);
	exit(status);
}

static PS_NORETURN PS_PRINTF(3, 4) void die_at(const struct stream *st, uint64_t off,
                                               const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "pmangle: %s: offset 0x%" PRIx64 ": ", st->name, off);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static uint64_t parse_n(const char *arg)
{
	unsigned long long v;
	char *end;

	errno = 0;
	if (arg[0] < '1' || arg[0] > '9')
		usage(stderr, 2);
	v = strtoull(arg, &end, 10);
	if (errno || *end)
		usage(stderr, 2);
	return v;
}

static void parse_args(int argc, char **argv, struct opts *o)
{
	static const struct option longopts[] = {
		{ "attr-size-big", no_argument, NULL, ATTR_SIZE_BIG },
		{ "help", no_argument, NULL, 'h' },
		{ "list", no_argument, NULL, LIST },
		{ "size-huge", required_argument, NULL, SIZE_HUGE },
		{ "size-zero", required_argument, NULL, SIZE_ZERO },
		{ "truncate-in", required_argument, NULL, TRUNCATE_IN },
		{ "truncate-tracing", no_argument, NULL, TRUNCATE_TRACING },
		{ "wrong-magic", no_argument, NULL, WRONG_MAGIC },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(o, 0, sizeof(*o));
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'h':
			usage(stdout, 0);
		case LIST:
		case ATTR_SIZE_BIG:
		case TRUNCATE_TRACING:
		case WRONG_MAGIC:
		case TRUNCATE_IN:
		case SIZE_ZERO:
		case SIZE_HUGE:
			if (o->action)
				usage(stderr, 2);
			o->action = (enum action)c;
			if (optarg)
				o->n = parse_n(optarg);
			break;
		default:
			usage(stderr, 2);
		}
	}
	if (!o->action || argc - optind != 1)
		usage(stderr, 2);
	o->input = argv[optind];
}

static void load(struct stream *st, const char *path)
{
	FILE *fp = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
	size_t cap = 1 << 16;

	st->name = strcmp(path, "-") == 0 ? "<stdin>" : path;
	if (!fp) {
		fprintf(stderr, "pmangle: %s: cannot open: %s\n", path, strerror(errno));
		exit(1);
	}
	st->buf = malloc(cap);
	st->len = 0;
	for (;;) {
		size_t n;

		if (!st->buf) {
			fprintf(stderr, "pmangle: out of memory\n");
			exit(1);
		}
		n = fread(st->buf + st->len, 1, cap - st->len, fp);
		st->len += n;
		if (n == 0)
			break;
		if (st->len == cap) {
			if (cap >= MAX_INPUT) {
				fprintf(stderr, "pmangle: %s: larger than 1 GiB\n", st->name);
				exit(1);
			}
			cap *= 2;
			st->buf = realloc(st->buf, cap);
		}
	}
	if (ferror(fp)) {
		fprintf(stderr, "pmangle: %s: read error: %s\n", st->name, strerror(errno));
		exit(1);
	}
	if (fp != stdin)
		fclose(fp);
}

/* The pipe header: magic in either byte order, size 16. */
static void check_header(struct stream *st)
{
	uint64_t magic;

	if (st->len < PS_PIPE_HEADER_SIZE)
		die_at(st, 0, "shorter than a pipe header");
	magic = ps_get64(st->buf, false);
	if (magic != PS_MAGIC && magic != PS_MAGIC_SWAPPED)
		die_at(st, 0, "no PERFILE2 magic");
	st->swap = magic == PS_MAGIC_SWAPPED;
	if (ps_get64(st->buf + 8, st->swap) != PS_PIPE_HEADER_SIZE)
		die_at(st, 8, "not a pipe stream (header size is not 16)");
}

/*
 * Frame the record at @off.  Returns 1 with @r filled, 0 at the end of the input; a record
 * that does not fit is fatal.
 */
static int frame(const struct stream *st, uint64_t off, struct rec *r)
{
	const unsigned char *p = st->buf + off;
	uint64_t left = st->len - off;

	if (left == 0)
		return 0;
	if (left < PS_RECORD_HEADER_SIZE)
		die_at(st, off, "input ends inside a record header");
	r->offset = off;
	r->type = ps_get32(p, st->swap);
	r->size = ps_get16(p + 6, st->swap);
	r->payload = 0;
	if (r->size < PS_RECORD_HEADER_SIZE)
		die_at(st, off, "record size %u is smaller than its header", r->size);
	if (r->size > left)
		die_at(st, off, "record of %u bytes runs past the end", r->size);
	if (r->type == PS_RECORD_HEADER_TRACING_DATA && r->size >= 12)
		r->payload = ps_get32(p + 8, st->swap);
	else if (r->type == PS_RECORD_AUXTRACE && r->size >= 16)
		r->payload = ps_get64(p + 8, st->swap);
	if (r->payload > left - r->size)
		die_at(st, off, "payload of %" PRIu64 " bytes runs past the end", r->payload);
	return 1;
}

static uint64_t next_off(const struct rec *r)
{
	return r->offset + r->size + r->payload;
}

/* Record number @n (from 1), or the first record of @type when @n is 0. */
static void find(const struct stream *st, uint64_t n, uint32_t type, struct rec *r)
{
	uint64_t off = PS_PIPE_HEADER_SIZE, i = 0;

	while (frame(st, off, r)) {
		i++;
		if (n ? i == n : r->type == type)
			return;
		off = next_off(r);
	}
	if (n)
		die_at(st, off, "the stream has %" PRIu64 " records, not %" PRIu64, i, n);
	die_at(st, off, "the stream has no record of type %" PRIu32, type);
}

static void list(const struct stream *st)
{
	uint64_t off = PS_PIPE_HEADER_SIZE;
	struct rec r;

	while (frame(st, off, &r)) {
		if (r.type == PS_RECORD_HEADER_TRACING_DATA || r.type == PS_RECORD_AUXTRACE)
			printf("%" PRIu64 " %" PRIu32 " %u payload %" PRIu64 "\n", r.offset, r.type,
			       r.size, r.payload);
		else
			printf("%" PRIu64 " %" PRIu32 " %u\n", r.offset, r.type, r.size);
		off = next_off(&r);
	}
}

static void emit(const struct stream *st, uint64_t len)
{
	if (len && fwrite(st->buf, 1, len, stdout) != len) {
		fprintf(stderr, "pmangle: write error: %s\n", strerror(errno));
		exit(1);
	}
}

int main(int argc, char **argv)
{
	struct stream st;
	struct opts o;
	uint64_t len;
	struct rec r;

	parse_args(argc, argv, &o);
	load(&st, o.input);
	len = st.len;
	if (o.action == WRONG_MAGIC) {
		/* "PERFILE2" becomes "PERFILE3", in whichever byte order it was written */
		if (len < 8)
			die_at(&st, 0, "shorter than the magic");
		st.buf[ps_get64(st.buf, false) == PS_MAGIC ? 7 : 0] ^= 0x01;
	} else {
		check_header(&st);
	}
	switch (o.action) {
	case LIST:
		list(&st);
		break;
	case TRUNCATE_IN:
		/* keep the record's header and a few bytes of its body, never all of it */
		find(&st, o.n, 0, &r);
		len = r.offset + (r.size > 12 ? 12 : r.size / 2);
		break;
	case SIZE_ZERO:
		find(&st, o.n, 0, &r);
		ps_put16(st.buf + r.offset + 6, 0, st.swap);
		break;
	case SIZE_HUGE:
		/* 0xffff bytes, and the input cut so that they run past its end */
		find(&st, o.n, 0, &r);
		ps_put16(st.buf + r.offset + 6, 0xffff, st.swap);
		if (len >= r.offset + 0xffff)
			len = r.offset + 0xffff - 1;
		break;
	case ATTR_SIZE_BIG:
		find(&st, 0, PS_RECORD_HEADER_ATTR, &r);
		if (r.size < 16)
			die_at(&st, r.offset, "ATTR record too small to hold an attr size");
		ps_put32(st.buf + r.offset + 8 + PS_ATTR_SIZE, r.size, st.swap);
		break;
	case TRUNCATE_TRACING:
		find(&st, 0, PS_RECORD_HEADER_TRACING_DATA, &r);
		if (r.payload < 2)
			die_at(&st, r.offset, "TRACING_DATA payload too small to cut");
		len = r.offset + r.size + r.payload / 2;
		break;
	default:
		break;
	}
	if (o.action != LIST)
		emit(&st, len);
	free(st.buf);
	if (fclose(stdout)) {
		fprintf(stderr, "pmangle: write error: %s\n", strerror(errno));
		return 1;
	}
	return 0;
}
