// SPDX-License-Identifier: GPL-2.0-only
/*
 * pcat - pass a perf event stream through, turn a perf.data file into a stream, and
 * concatenate the pieces of one recording.  See pcat(1).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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
#include "lib/swap.h"

enum {
	OPT_DATA = PS_OPT_LONG,
	OPT_DISTINCT,
};

/* how long a silent live input may hold the others back in a merge */
#define MERGE_IDLE_MS 100

struct opts {
	const char *output; /* -o FILE; "-" is standard output */
	bool force;         /* -f: write binary even to a terminal */
	bool merge;         /* -m: merge the inputs in time order */
	bool data;          /* --data: write a perf.data file */
	bool distinct;      /* --distinct: the merged inputs are different recordings */
	bool quiet;         /* -q: no progress line */
	int ninputs;
	char **inputs; /* operands; none means standard input */
};

static const struct ps_cmdline cmdline = {
	.usage = "usage: pcat [-fmq] [--data] [--distinct] [-o file] [file ...]\n",
	.about = "Pass a perf event stream through, turn perf.data files into a stream,\n"
	         "and concatenate the pieces of one recording (in either byte order).\n",
	.opts = {
		PS_OPT_FORCE_ROW,
		PS_OPT_FLAG("merge", 'm', "merge the inputs into one stream in sample time order",
		            struct opts, merge),
		PS_OPT_FLAG("data", OPT_DATA, "write a perf.data file (with -o FILE) instead of a stream",
		            struct opts, data),
		PS_OPT_FLAG("distinct", OPT_DISTINCT,
		            "with -m: the inputs are different recordings (hosts, runs),\n"
		            "never pieces of one, even with the same events and ids",
		            struct opts, distinct),
		PS_OPT_OUTPUT_ROW,
		{ "quiet", 'q', PS_ARG_NONE, NULL, "no progress line for a large file (none with -m)",
		  PS_OPTG_QUIET, 0 },
	},
};

static void parse_args(int argc, char **argv, struct opts *o)
{
	struct ps_common_opts co;
	struct ps_args a;
	int i, nstdin;

	memset(o, 0, sizeof(*o));
	ps_args__init(&a, &cmdline, argc, argv, &co);
	a.flags = o;
	while (ps_args__next(&a) != -1)
		continue; /* every option of pcat is stored by the parser */
	o->output = co.output;
	o->force = co.force;
	o->quiet = co.quiet;
	o->ninputs = argc - a.optind;
	o->inputs = argv + a.optind;
	for (i = 0, nstdin = 0; i < o->ninputs; i++)
		nstdin += strcmp(o->inputs[i], "-") == 0;
	if (o->distinct && !o->merge)
		ps_usage_error("--distinct says how to merge: it needs -m");
	if (nstdin > 1)
		ps_usage_error("standard input (-) is named %d times: it can be read only once",
		               nstdin);
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
 * One input of a concatenation.  An input whose byte order is not the output's has its
 * records turned (swap.h, strict as in a merge: a record of unknown layout is refused at
 * its offset), and its ATTR records, turned, make @turned: the session that reads the
 * turned records, which the other pieces' attrs are compared with.
 */
struct piece {
	struct ps_input *in;
	struct ps_swap *turn;      /* NULL: the input is in the output's byte order */
	struct ps_session *turned; /* the input's attrs in the output's order (with @turn) */
};

/* Make @p turn its input's records when the input is not in the order @out_swap says. */
static int piece_init(struct piece *p, struct ps_input *in, bool out_swap, struct ps_error *err)
{
	p->in = in;
	if (ps_input__swapped(in) == out_swap)
		return 0;
	p->turn = ps_swap__new(ps_input__session(in), PS_SWAP_STRICT);
	p->turned = ps_session__new(out_swap);
	if (!p->turn || !p->turned)
		return ps_error__set(err, PS_ENOMEM, ps_input__name(in), PS_NO_OFFSET,
		                     "out of memory");
	return 0;
}

/* The session that reads the records of @p as they are written: in the output's order. */
static struct ps_session *piece_session(struct piece *p)
{
	return p->turned ? p->turned : ps_input__session(p->in);
}

static void piece_close(struct piece *p)
{
	ps_swap__delete(p->turn);
	ps_session__delete(p->turned);
	ps_input__close(p->in);
	memset(p, 0, sizeof(*p));
}

/* @rec of @p in the output's byte order: in place, valid until the next record of @p. */
static int piece_turn(struct piece *p, struct ps_record *rec, struct ps_error *err)
{
	const unsigned char *b = ps_swap__record(p->turn, rec, ps_input__name(p->in), err);

	if (!b)
		return -1;
	rec->data = b;
	if (rec->type == PS_RECORD_HEADER_ATTR)
		return ps_session__process(p->turned, rec, ps_input__name(p->in), err);
	return 0;
}

/*
 * Copy one input.  @first is the session of the first input as written (NULL for the first
 * input), whose attrs a later input must repeat.  Returns 0, or -1 with @err or @oerr set.
 */
static int copy_input(struct piece *p, struct sink *out, struct ps_session *first,
                      const char *first_name, struct ps_progress *prog, struct ps_error *err,
                      struct ps_error *oerr)
{
	struct ps_session *s = piece_session(p);
	struct ps_input *in = p->in;
	bool checked = first == NULL;
	uint64_t nr_samples = 0;
	struct ps_record rec;
	const char *line;
	int r = 0;

	while (!ps_stop && (r = ps_input__next(in, &rec, err)) > 0) {
		nr_samples += rec.type == PERF_RECORD_SAMPLE;
		if ((line = ps_progress__update(prog, rec.offset, nr_samples)))
			ps_status("%s", line);
		/* header records of a later input repeat the first input's; the attrs of an
		 * input of the other order are turned all the same, to be compared with them */
		if (first && ps_record_type_repeats_per_piece(rec.type)) {
			if (p->turn && rec.type == PS_RECORD_HEADER_ATTR &&
			    piece_turn(p, &rec, err) < 0)
				return -1;
			continue;
		}
		if (!checked) {
			if (!ps_session__same_attrs(first, s)) {
				ps_error__set(
				        err, PS_EMISMATCH, ps_input__name(in), PS_NO_OFFSET,
				        "its events are not those of %s: not a piece of the same recording "
				        "(to merge different recordings: pcat --merge)",
				        first_name);
				return -1;
			}
			checked = true;
		}
		if (p->turn && piece_turn(p, &rec, err) < 0)
			return -1;
		if (sink_put(out, s, &rec, oerr) < 0)
			return -1;
	}
	if (r == 0 && !checked && !ps_session__same_attrs(first, s)) {
		ps_error__set(err, PS_EMISMATCH, ps_input__name(in), PS_NO_OFFSET,
		              "its events are not those of %s: not a piece of the same recording "
		              "(to merge different recordings: pcat --merge)",
		              first_name);
		return -1;
	}
	return r < 0 ? -1 : 0;
}

/* An input of a concatenation opened before its turn (see concat_order()). */
struct early {
	struct ps_input *in; /* kept open for its turn */
	struct ps_error err; /* or why it could not be opened, said at its turn */
};

/*
 * The byte order of a concatenation whose first input is @first: @first's when every
 * input has it, else the host's, as pcat --merge writes (perf reads a pipe stream of the
 * other order only in part).  Only when @first is not in the host's order are the later
 * inputs looked at before anything is written: a regular file is opened and closed again,
 * another input (a pipe, a fifo) is opened into *@early (made here) for its turn, as its
 * bytes can be read only once.
 * Return: whether the output is in the other order than the host's; -1 with @err set
 * when out of memory.
 */
static int concat_order(const struct opts *o, struct ps_input *first, unsigned int flags,
                        struct early **early, struct ps_error *err)
{
	bool mixed = false;
	struct stat st;
	int i;

	if (!ps_input__swapped(first) || o->ninputs < 2)
		return ps_input__swapped(first);
	*early = calloc((size_t)o->ninputs, sizeof(**early));
	if (!*early)
		return ps_error__set(err, PS_ENOMEM, NULL, PS_NO_OFFSET, "out of memory");
	for (i = 1; i < o->ninputs && !ps_stop; i++) {
		const char *path = o->inputs[i];
		bool regular =
		        strcmp(path, "-") != 0 && stat(path, &st) == 0 && S_ISREG(st.st_mode);
		struct ps_input *in;

		in = ps_input__open(path, flags, &(*early)[i].err);
		if (!in) {
			/* said at its turn; a regular file is opened again then */
			if (regular)
				memset(&(*early)[i].err, 0, sizeof((*early)[i].err));
			continue;
		}
		mixed |= !ps_input__swapped(in);
		if (regular)
			ps_input__close(in);
		else
			(*early)[i].in = in;
	}
	return !mixed;
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
	ps_merge__set_distinct(m, o->distinct);
	if (ps_merge__begin(m, &err) == 0 && sink_begin(&out, ps_merge__swapped(m), &oerr) == 0) {
		if (out.out) { /* a stream: each record straight to the output */
			while (!ps_stop && (r = ps_merge__next(m, &rec, &err)) > 0)
				if (ps_output__write(out.out, rec.data, rec.len, &oerr) < 0)
					break;
		} else {
			while (!ps_stop && (r = ps_merge__next(m, &rec, &err)) > 0)
				if (sink_put(&out, NULL, &rec, &oerr) < 0)
					break;
		}
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
	struct piece first = { 0 }, cur = { 0 };
	struct early *early = NULL;
	struct ps_outfile *of = NULL;
	struct ps_progress *prog;
	struct ps_input *in;
	struct sink out;
	struct opts o;
	unsigned int flags;
	bool out_swap = false;
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
		struct piece *p = i == 0 ? &first : &cur;

		if (early && early[i].err.code) {
			err = early[i].err;
			break;
		}
		in = early && early[i].in ? early[i].in : ps_input__open(path, flags, &err);
		if (!in)
			break;
		if (early)
			early[i].in = NULL;
		ps_input__set_wait_hook(in, sink_hook, &out);
		if (i == 0) {
			/* the first input's order, or the host's when the inputs' orders differ */
			int order = concat_order(&o, in, flags, &early, &err);

			out_swap = order > 0;
			if (order < 0 || sink_begin(&out, out_swap, &oerr) < 0) {
				ps_input__close(in);
				break;
			}
		}
		if (piece_init(p, in, out_swap, &err) < 0) {
			piece_close(p);
			break;
		}
		/* one input at a time, so one meter at a time */
		prog = o.quiet ? NULL : ps_progress__new(path, !o.data);
		n_ok = copy_input(p, &out, i > 0 ? piece_session(&first) : NULL,
		                  i > 0 ? ps_input__name(first.in) : NULL, prog, &err, &oerr);
		if (prog)
			ps_status(NULL);
		ps_progress__delete(prog);
		if (n_ok < 0)
			break;
		if (i > 0)
			piece_close(&cur);
	}

	/* Deliver every complete record before saying what went wrong. */
	sink_close(&out, oerr.code ? &spare : &oerr);
	if (oerr.code && oerr.code != PS_EPIPE)
		ps_warn(&oerr);
	if (err.code && oerr.code != PS_EPIPE)
		ps_warn(&err);
	piece_close(&cur);
	piece_close(&first);
	for (i = 0; early && i < n; i++)
		ps_input__close(early[i].in);
	free(early);
	if (ps_outfile__close(of, !oerr.code, ps_stop, &spare) < 0) {
		ps_warn(&spare);
		return 1;
	}
	if (oerr.code == PS_EPIPE)
		return 0;
	return err.code || oerr.code ? 1 : 0;
}
