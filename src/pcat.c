// SPDX-License-Identifier: GPL-2.0-only
/*
 * pcat - pass a perf event stream through, turn a perf.data file into a stream, and
 * concatenate the pieces of one recording.  See pcat(1).
 */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/datafile.h"
#include "lib/diag.h"
#include "lib/files.h"
#include "lib/input.h"
#include "lib/merge.h"
#include "lib/opts.h"
#include "lib/output.h"
#include "lib/progress.h"
#include "lib/session.h"
#include "lib/signals.h"

static const char usage_text[] = "usage: pcat [-fmq] [--data] [-o file] [file ...]\n";

enum {
	OPT_DATA = 256,
};

/* how long a silent live input may hold the others back in a merge */
#define MERGE_IDLE_MS 100

struct opts {
	const char *output; /* -o FILE; "-" is standard output */
	bool force;         /* -f: write binary even to a terminal */
	bool merge;         /* -m: merge the inputs in time order */
	bool data;          /* --data: write a perf.data file */
	bool quiet;         /* -q: no progress line */
	int ninputs;
	char **inputs; /* operands; none means standard input */
};

static const char help_text[] =
        "\nPass a perf event stream through, turn perf.data files into a stream,\n"
        "and concatenate the pieces of one recording.\n\n"
        "  -f, --force        write the binary stream even to a terminal\n"
        "  -m, --merge        merge the inputs into one stream in sample time order\n"
        "      --data         write a perf.data file (with -o FILE) instead of a stream\n"
        "  -o, --output FILE  write to FILE instead of standard output (never an input)\n"
        "  -q, --quiet        no progress line for a large file (none with -m)\n"
        "  -h, --help         show this help\n"
        "  -V, --version      show the version\n";

static PS_NORETURN void usage(FILE *fp, int status)
{
	ps_usage(fp, status, usage_text, help_text);
}

static void parse_args(int argc, char **argv, struct opts *o)
{
	static const struct option longopts[] = {
		{ "data", no_argument, NULL, OPT_DATA },
		{ "force", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ "merge", no_argument, NULL, 'm' },
		{ "output", required_argument, NULL, 'o' },
		{ "quiet", no_argument, NULL, 'q' }, /* no progress line */
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(o, 0, sizeof(*o));
	while ((c = getopt_long(argc, argv, "Vfhmo:q", longopts, NULL)) != -1) {
		switch (c) {
		case 'V':
			ps_print_version();
		case 'f':
			o->force = true;
			break;
		case 'h':
			usage(stdout, 0);
		case 'm':
			o->merge = true;
			break;
		case OPT_DATA:
			o->data = true;
			break;
		case 'o':
			o->output = optarg;
			break;
		case 'q':
			o->quiet = true;
			break;
		default:
			usage(stderr, 2);
		}
	}
	o->ninputs = argc - optind;
	o->inputs = argv + optind;
	if (o->data && (!o->output || strcmp(o->output, "-") == 0))
		ps_usage_error("--data writes a perf.data file, whose header is rewritten at the "
		               "end: it needs -o FILE, not a pipe");
}

/* Where the records go: a pipe stream, or a perf.data file (--data). */
struct sink {
	const struct opts *o;
	struct ps_output *out;
	struct ps_datafile *df;
};

static int sink_open(struct sink *k, const struct opts *o, struct ps_error *err)
{
	memset(k, 0, sizeof(*k));
	k->o = o;
	if (o->data)
		return 0; /* made by sink_begin(), once the byte order is known */
	k->out = ps_output__open(o->output, o->force, err);
	return k->out ? 0 : -1;
}

static int sink_begin(struct sink *k, bool swap, struct ps_error *err)
{
	int fd;

	if (!k->o->data)
		return ps_output__begin(k->out, swap, err);
	/* standard output is the temporary file ps_outfile__open() made beside -o FILE */
	fd = dup(1);
	if (fd < 0)
		return ps_error__sys(err, PS_ESYS, k->o->output, "cannot write");
	k->df = ps_datafile__open_fd(fd, k->o->output, swap, err);
	return k->df ? 0 : -1;
}

static int sink_put(struct sink *k, const struct ps_session *s, const struct ps_record *rec,
                    struct ps_error *err)
{
	if (k->df)
		return ps_datafile__put(k->df, s, rec, err);
	return k->out ? ps_output__put(k->out, rec, err) : 0;
}

static void sink_hook(void *arg)
{
	struct sink *k = arg;

	if (k->out)
		ps_output__flush_hook(k->out);
}

static int sink_close(struct sink *k, struct ps_error *err)
{
	if (k->df)
		return ps_datafile__close(k->df, err);
	return ps_output__close(k->out, err);
}

/*
 * Copy one input.  @first is the first input's session (NULL for the first input), whose
 * attrs a later input must repeat.  Returns 0, or -1 with @err or @oerr set.
 */
static int copy_input(struct ps_input *in, struct sink *out, struct ps_session *first,
                      const char *first_name, struct ps_progress *prog, struct ps_error *err,
                      struct ps_error *oerr)
{
	bool checked = first == NULL;
	uint64_t nr_samples = 0;
	struct ps_record rec;
	const char *line;
	int r = 0;

	while (!ps_stop && (r = ps_input__next(in, &rec, err)) > 0) {
		nr_samples += rec.type == PERF_RECORD_SAMPLE;
		if ((line = ps_progress__update(prog, rec.offset, nr_samples)))
			ps_status("%s", line);
		/* header records of a later input repeat the first input's */
		if (first && ps_record_type_repeats_per_piece(rec.type))
			continue;
		if (!checked) {
			if (!ps_session__same_attrs(first, ps_input__session(in))) {
				ps_error__set(
				        err, PS_EMISMATCH, ps_input__name(in), PS_NO_OFFSET,
				        "its events are not those of %s: not a piece of the same recording",
				        first_name);
				return -1;
			}
			checked = true;
		}
		if (sink_put(out, ps_input__session(in), &rec, oerr) < 0)
			return -1;
	}
	if (r == 0 && !checked && !ps_session__same_attrs(first, ps_input__session(in))) {
		ps_error__set(err, PS_EMISMATCH, ps_input__name(in), PS_NO_OFFSET,
		              "its events are not those of %s: not a piece of the same recording",
		              first_name);
		return -1;
	}
	return r < 0 ? -1 : 0;
}

/* pcat --merge: the inputs as one stream in time order.  Return: the exit status. */
static int merge(const struct opts *o)
{
	struct ps_error err = { 0 }, oerr = { 0 }, spare = { 0 };
	const char *std[] = { "-" };
	struct sink out;
	struct ps_merge *m;
	struct ps_record rec;
	int r = 0;

	m = ps_merge__open(o->ninputs ? o->ninputs : 1,
	                   o->ninputs ? (const char *const *)o->inputs : std, MERGE_IDLE_MS, &err);
	if (!m)
		ps_die(&err);
	if (sink_open(&out, o, &oerr) < 0) {
		ps_merge__close(m);
		ps_die(&oerr);
	}
	ps_merge__set_wait_hook(m, sink_hook, &out);
	if (ps_merge__begin(m, &err) == 0 && sink_begin(&out, ps_merge__swapped(m), &oerr) == 0) {
		while (!ps_stop && (r = ps_merge__next(m, &rec, &err)) > 0)
			if (sink_put(&out, NULL, &rec, &oerr) < 0)
				break;
	}
	sink_close(&out, oerr.code ? &spare : &oerr);
	if (oerr.code && oerr.code != PS_EPIPE)
		ps_warn(&oerr);
	if (err.code && oerr.code != PS_EPIPE)
		ps_warn(&err);
	if (ps_merge__late(m) && oerr.code != PS_EPIPE)
		ps_msg("%llu records went back in time inside their input and passed late",
		       (unsigned long long)ps_merge__late(m));
	ps_merge__close(m);
	if (oerr.code == PS_EPIPE)
		return 0;
	return err.code || oerr.code ? 1 : 0;
}

int main(int argc, char **argv)
{
	struct ps_error err = { 0 }, oerr = { 0 }, spare = { 0 };
	struct ps_input *first = NULL, *in = NULL;
	struct ps_outfile *of = NULL;
	struct ps_progress *prog;
	struct sink out;
	struct opts o;
	unsigned int flags;
	int i, n, n_ok;

	ps_progname = "pcat";
	ps_signals__init();
	parse_args(argc, argv, &o);
	if (ps_stdin__refuse_tty((const char *const *)o.inputs, o.ninputs, &err) < 0)
		ps_die(&err);
	/* -o FILE (a stream or, with --data, a perf.data file): standard output, through a
	 * temporary name, never over an input */
	if (o.output && strcmp(o.output, "-") != 0) {
		of = ps_outfile__open(o.output, (const char *const *)o.inputs, o.ninputs, &err);
		if (!of)
			ps_die(&err);
		if (!o.data)
			o.output = NULL;
	}
	if (o.merge) {
		n = merge(&o);
		if (ps_outfile__close(of, n == 0, ps_stop, &spare) < 0) {
			ps_warn(&spare);
			return 1;
		}
		return n;
	}

	/* One input is copied as it is; pieces are joined decompressed, since each
	 * piece's compressed records continue a compression stream of their own. */
	n = o.ninputs ? o.ninputs : 1;
	flags = n > 1 || o.data ? PS_INPUT_DECOMPRESS : 0;

	if (sink_open(&out, &o, &err) < 0)
		ps_die(&err);
	for (i = 0; i < n && !ps_stop; i++) {
		const char *path = o.ninputs ? o.inputs[i] : "-";

		in = ps_input__open(path, flags, &err);
		if (!in)
			break;
		ps_input__set_wait_hook(in, sink_hook, &out);
		if (i == 0 && sink_begin(&out, ps_input__swapped(in), &oerr) < 0)
			break;
		if (i > 0 && ps_input__swapped(in) != ps_input__swapped(first)) {
			ps_error__set(&err, PS_EMISMATCH, ps_input__name(in), PS_NO_OFFSET,
			              "its byte order differs from that of %s",
			              ps_input__name(first));
			break;
		}
		/* one input at a time, so one meter at a time */
		prog = o.quiet ? NULL : ps_progress__new(path, !o.data);
		n_ok = copy_input(in, &out, first ? ps_input__session(first) : NULL,
		                  first ? ps_input__name(first) : NULL, prog, &err, &oerr);
		if (prog)
			ps_status(NULL);
		ps_progress__delete(prog);
		if (n_ok < 0)
			break;
		if (!first)
			first = in;
		else
			ps_input__close(in);
		in = NULL;
	}

	/* Deliver every complete record before saying what went wrong. */
	sink_close(&out, oerr.code ? &spare : &oerr);
	if (oerr.code && oerr.code != PS_EPIPE)
		ps_warn(&oerr);
	if (err.code && oerr.code != PS_EPIPE)
		ps_warn(&err);
	ps_input__close(in != first ? in : NULL);
	ps_input__close(first);
	if (ps_outfile__close(of, !oerr.code, ps_stop, &spare) < 0) {
		ps_warn(&spare);
		return 1;
	}
	if (oerr.code == PS_EPIPE)
		return 0;
	return err.code || oerr.code ? 1 : 0;
}
