// SPDX-License-Identifier: GPL-2.0-only
/*
 * pswap - write a perf event stream in the other byte order: a little-endian stream comes out
 * as the stream a big-endian machine would have written for the same events (and a big-endian
 * one as the little-endian stream).  The byte-order tests feed the result to pcat and perf.
 *
 * The records are turned by the library's swap.h (which pcat --merge uses for inputs of the
 * other byte order).  A compressed stream comes out decompressed, without its COMPRESSED
 * feature.
 *
 * With -d the result is written as a perf.data file instead (-o required): perf 6.1 reads the
 * other byte order correctly only from a file, because in pipe mode it never marks its events
 * as swapped (TID and CPU pairs come out wrong, tracepoint samples fail to parse).  The file
 * holds the attrs, the data records, and the features (TRACING_DATA as feature 1); perf needs
 * the HOSTNAME feature to trust the feature bitmap of a file in the other byte order.
 *
 * Left as they are, and counted in a warning: memory images (user stack dumps, AUX data,
 * AUXTRACE payloads) and the parts whose layout swap.h does not know.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
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
#include "lib/swap.h"
#include "lib/xalloc.h"

static const char usage_text[] = "usage: pswap [-d] [-o file] [file]\n";

struct opts {
	const char *input;  /* operand; NULL or "-" is standard input */
	const char *output; /* -o FILE; NULL is standard output */
	bool data_file;     /* -d: write a perf.data file */
};

/* What a perf.data file needs besides its data section, gathered while the records pass. */
struct datafile {
	int fd;
	uint64_t data_size;
	struct ps_bytes attrs; /* the attrs, back to back, each attr_size bytes */
	struct ps_bytes ids;   /* their ids */
	uint64_t *nr_ids;      /* per attr */
	size_t nr_attrs;
	uint32_t attr_size;
	struct ps_bytes feat[PS_FEAT_LAST_61];
	bool has_feat[PS_FEAT_LAST_61];
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

struct swapper {
	struct ps_swap *t;
	bool swap;                /* the input's order is not the host's */
	const unsigned char *buf; /* the record last turned */
};

static int turn(struct swapper *w, const struct ps_record *rec, const char *name,
                struct ps_error *err)
{
	w->buf = ps_swap__record(w->t, rec, name, err);
	return w->buf ? 0 : -1;
}

/* ---- -d: a perf.data file ---- */

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
		if (ps_bytes__add(&df->attrs, w->buf + 8, asize, SIZE_MAX) ||
		    ps_bytes__add(&df->ids, w->buf + 8 + asize, 8 * n[df->nr_attrs - 1], SIZE_MAX))
			break;
		return 0;
	case PS_RECORD_HEADER_FEATURE:
		feat = ps_get64(p + 8, w->swap);
		if (feat == 0 || feat >= PS_FEAT_LAST_61)
			return 0; /* the end marker, or a feature perf 6.1 does not know */
		df->feat[feat].len = 0;
		df->has_feat[feat] = true;
		if (ps_bytes__add(&df->feat[feat], w->buf + 16, rec->size - 16u, SIZE_MAX))
			break;
		return 0;
	case PS_RECORD_HEADER_TRACING_DATA:
		df->feat[PS_FEAT_TRACING_DATA].len = 0;
		df->has_feat[PS_FEAT_TRACING_DATA] = true;
		if (ps_bytes__add(&df->feat[PS_FEAT_TRACING_DATA], w->buf + rec->size,
		                  rec->len - rec->size, SIZE_MAX))
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
	w.swap = ps_input__swapped(in);
	w.t = ps_swap__new(ps_input__session(in), 0);
	if (!w.t) {
		ps_error__set(&err, PS_ENOMEM, NULL, PS_NO_OFFSET, "out of memory");
		ps_die(&err);
	}
	if (o.data_file)
		run_file(&w, in, &o, &err, &oerr);
	else
		run_stream(&w, in, &o, &err, &oerr);
	if (ps_swap__left_alone(w.t) && !err.code && !oerr.code)
		ps_msg("%lu records or parts of records of unknown layout were left unturned",
		       ps_swap__left_alone(w.t));
	if (oerr.code == PS_EPIPE)
		oerr.code = 0;
	if (oerr.code)
		ps_warn(&oerr);
	if (err.code)
		ps_warn(&err); /* before the close: its input name belongs to the input */
	ps_input__close(in);
	ps_swap__delete(w.t);
	return err.code || oerr.code ? 1 : 0;
}
