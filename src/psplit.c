// SPDX-License-Identifier: GPL-2.0-only
/*
 * psplit - split a perf event stream into self-contained pieces: by count, by time slice,
 * by size, or by key.  See psplit(1).
 *
 * Records go through the time-ordered view (order.h), so that thread names and the
 * side-band state replayed into a new piece are those of each sample's time; the pieces
 * are written in that order, each a stream perf reads on its own (split.h).
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/datafile.h"
#include "lib/diag.h"
#include "lib/durations.h"
#include "lib/files.h"
#include "lib/filter.h"
#include "lib/input.h"
#include "lib/reader.h"
#include "lib/key.h"
#include "lib/opts.h"
#include "lib/sample.h"
#include "lib/session.h"
#include "lib/sideband.h"
#include "lib/signals.h"
#include "lib/split.h"

#define DEFAULT_MAX_PIECES 1000
#define DEFAULT_MAX_OPEN 64

enum mode {
	MODE_NONE,
	MODE_KEY,
	MODE_COUNT,
	MODE_TIME,
	MODE_SIZE,
};

enum {
	OPT_BY = PS_OPT_LONG,
	OPT_MAX_PIECES,
	OPT_MAX_OPEN,
	OPT_DATA,
};

struct opts {
	enum mode mode;
	struct ps_key *by; /* --by */
	uint64_t count;    /* -n */
	uint64_t slice_ns; /* -t */
	uint64_t size;     /* -b */
	const char *dir;
	const char *pattern;
	const char *where;
	uint64_t max_pieces;
	uint64_t max_open;
	bool verbose;
	bool data; /* --data: pieces as perf.data files */
	const char *input;
};

static const struct ps_cmdline cmdline = {
	.usage = "usage: psplit (--by keys | -n count | -t seconds | -b size) [-v] [-d dir] "
        "[-o pattern] [-w expression] [file]\n",
	.about = "Split a perf event stream into pieces, each a complete stream perf reads on\n"
	         "its own: the header records, the side-band its samples need, its samples.\n",
	.opts = {
		PS_OPT("by", OPT_BY, PS_ARG_REQUIRED, "KEYS",
		       "one piece per value of KEYS (pcount's keys: event, comm,\n"
		       "pid, tid, cpu, syscall, FIELD, FIELD/SIZE...)"),
		PS_OPT("count", 'n', PS_ARG_REQUIRED, "COUNT", "COUNT samples per piece"),
		PS_OPT("time", 't', PS_ARG_REQUIRED, "SECONDS",
		       "SECONDS of sample time per piece (0.1, 500ms, 2m)"),
		PS_OPT("bytes", 'b', PS_ARG_REQUIRED, "SIZE",
		       "pieces of at most SIZE bytes (k, m, g suffixes)"),
		PS_OPT("where", 'w', PS_ARG_REQUIRED, "EXPR",
		       "keep only the samples that match EXPR (pfilter's language)"),
		PS_OPT("dir", 'd', PS_ARG_REQUIRED, "DIR", "write the pieces into DIR (made when missing)"),
		{ "output", 'o', PS_ARG_REQUIRED, "PATTERN",
		  "piece file names: %n the piece number, %k its key,\n"
		  "%% a percent sign (default x%n-%k.pipe with --by,\n"
		  "else x%n.pipe)",
		  PS_OPTG_OUTPUT, 0 },
		PS_OPT("max-pieces", OPT_MAX_PIECES, PS_ARG_REQUIRED, "N",
		       "stop with an error rather than make more than N pieces\n"
		       "(default 1000)"),
		PS_OPT("max-open", OPT_MAX_OPEN, PS_ARG_REQUIRED, "N",
		       "pieces open at once; others are closed and reopened\n"
		       "for appending (default 64)"),
		PS_OPT_FLAG("data", OPT_DATA, "write the pieces as perf.data files", struct opts, data),
		PS_OPT_FLAG("verbose", 'v', "one line per piece on standard error", struct opts, verbose),
	},
	.epilog = "The names of the pieces are printed on standard output, one a line.\n"
	          "Examples: psplit --by cpu -d cpus trace.pipe\n"
	          "          perf record -o - -a -e sched:sched_switch sleep 9 | psplit -t 1\n",
};
static void set_mode(struct opts *o, enum mode m)
{
	if (o->mode != MODE_NONE && o->mode != m)
		ps_usage_error("one way of cutting at a time: --by, -n, -t or -b");
	o->mode = m;
}

static void parse_args(int argc, char **argv, struct opts *o)
{
	struct ps_common_opts co;
	struct ps_args a;
	const char *bad;
	int c;

	memset(o, 0, sizeof(*o));
	o->max_pieces = DEFAULT_MAX_PIECES;
	o->max_open = DEFAULT_MAX_OPEN;
	ps_args__init(&a, &cmdline, argc, argv, &co);
	a.flags = o;
	while ((c = ps_args__next(&a)) != -1) {
		switch (c) {
		case 'b':
			set_mode(o, MODE_SIZE);
			o->size = ps_parse_size(a.arg, UINT64_MAX, "-b");
			break;
		case 'd':
			o->dir = a.arg;
			break;
		case 'n':
			set_mode(o, MODE_COUNT);
			o->count = ps_parse_u64(a.arg, 1, UINT64_MAX, "-n");
			break;
		case 't':
			set_mode(o, MODE_TIME);
			o->slice_ns = ps_parse_duration(a.arg, 1, UINT64_MAX / 2, "-t");
			break;
		case 'w':
			o->where = a.arg;
			break;
		case OPT_BY: {
			struct ps_error err = { 0 };

			set_mode(o, MODE_KEY);
			ps_key__delete(o->by);
			o->by = ps_key__parse(a.arg, &err);
			if (!o->by)
				ps_usage_error("--by: %s", err.detail);
			break;
		}
		case OPT_MAX_OPEN:
			o->max_open = ps_parse_u64(a.arg, 1, 100000, "--max-open");
			break;
		case OPT_MAX_PIECES:
			o->max_pieces = ps_parse_u64(a.arg, 1, UINT64_MAX, "--max-pieces");
			break;
		}
	}
	o->pattern = co.output;
	if (argc - a.optind > 1)
		ps_usage_error("one input at a time (join several with pcat first)");
	o->input = a.optind < argc ? argv[a.optind] : "-";
	if (o->mode == MODE_NONE)
		ps_usage_error("say how to cut: --by KEYS, -n COUNT, -t SECONDS or -b SIZE");
	if (!o->pattern)
		o->pattern = o->mode == MODE_KEY ? (o->data ? "x%n-%k.data" : "x%n-%k.pipe") :
		                                   (o->data ? "x%n.data" : "x%n.pipe");
	bad = ps_split__pattern_ok(o->pattern, true);
	if (bad)
		ps_usage_error("-o: %s", bad);
}

/* The pieces open at once: what was asked, within the descriptors this process may have. */
static size_t max_open(const struct opts *o)
{
	struct rlimit rl;
	uint64_t n = o->max_open;

	if (o->mode != MODE_KEY)
		n = 1; /* pieces come one after the other */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
	    rl.rlim_cur > 16 && n > rl.rlim_cur - 16)
		n = rl.rlim_cur - 16;
	return (size_t)n;
}

struct run {
	const struct opts *o;
	struct ps_reader *rd;
	struct ps_session *s;
	struct ps_split *sp;
	struct ps_filter *where;
	bool checked;
	uint64_t kept;     /* samples written */
	uint64_t first_ns; /* -t: time of the first sample */
	bool have_first;
	size_t cur;        /* the last sample's piece */
	uint64_t cur_num;  /* -b: the current piece's number */
	uint64_t last_num; /* -n, -t, -b: the number of the last sample's piece */
	bool have_cur;
	struct memo *memo; /* --by keys of the event, cpu, pid and tid only; else NULL */
	const char *name;  /* the input's, for errors */
};

/*
 * The pieces of the last samples by (event, cpu, pid, tid): when the --by keys name
 * nothing else, those decide the piece, and a sample like one before spares the key's
 * text and its lookup.  One entry a slot, the newest kept.
 */
#define MEMO_SLOTS 1024

struct memo {
	uint64_t attr_cpu, pid_tid;
	size_t piece1; /* the piece's index + 1; 0: empty */
};

static bool memo_keys(const struct ps_key *by)
{
	static const char *const ok[] = { "event", "cpu", "pid", "tid", "input" };
	size_t i, j;

	for (i = 0; i < ps_key__nr(by); i++) {
		for (j = 0; j < ARRAY_SIZE(ok); j++)
			if (strcmp(ps_key__name(by, i), ok[j]) == 0)
				break;
		if (j == ARRAY_SIZE(ok))
			return false;
	}
	return true;
}

static struct memo *memo_slot(struct memo *memo, const struct ps_sample *smp, uint64_t *ac,
                              uint64_t *pt)
{
	uint64_t h;

	*ac = (uint64_t)smp->attr->idx << 32 | smp->cpu;
	*pt = (uint64_t)smp->pid << 32 | smp->tid;
	h = (*ac * 0x9e3779b97f4a7c15ULL) ^ (*pt * 0xc2b2ae3d27d4eb4fULL);
	return &memo[(h >> 40) & (MEMO_SLOTS - 1)];
}

static int check_where(struct run *r, struct ps_error *err)
{
	struct ps_filter_error ferr;

	r->checked = true;
	if (r->o->by && ps_key__check(r->o->by, r->s, err)) {
		ps_msg("--by: %s", err->detail);
		err->code = PS_EUSAGE;
		err->detail[0] = 0; /* already said */
		return -1;
	}
	if (!r->where || ps_filter__check(r->where, r->s, &ferr) == 0)
		return 0;
	return ps_where__refuse(&ferr, err);
}

/* The piece of a sample the memo does not know, or of a run that cuts by other than keys. */
static int split_sample_slow(struct run *r, const struct ps_record *rec,
                             const struct ps_sample *smp, uint32_t tid, struct ps_error *err)
{
	const struct opts *o = r->o;
	struct ps_piece_info pi;
	uint64_t num = 0;
	char key[PS_KEY_TEXT_MAX];
	struct memo *slot = NULL;
	uint64_t ac = 0, pt = 0;
	size_t idx;

	switch (o->mode) {
	case MODE_COUNT:
		num = r->kept / o->count;
		break;
	case MODE_TIME:
		if (!(smp->type & PERF_SAMPLE_TIME))
			return ps_error__set(err, PS_EUNSUP, r->name, rec->offset,
			                     "a sample without a time: -t needs PERF_SAMPLE_TIME");
		if (!r->have_first) {
			r->have_first = true;
			r->first_ns = smp->time;
		}
		num = smp->time > r->first_ns ? (smp->time - r->first_ns) / o->slice_ns : 0;
		break;
	case MODE_SIZE:
		if (r->have_cur) {
			ps_split__piece(r->sp, r->cur, &pi);
			if (pi.samples &&
			    (pi.full ||
			     pi.bytes + ps_split__cost(r->sp, r->cur, tid, rec->len) > o->size))
				r->cur_num++;
		}
		num = r->cur_num;
		break;
	case MODE_KEY:
	case MODE_NONE:
		break;
	}
	if (o->mode == MODE_KEY && r->memo) {
		slot = memo_slot(r->memo, smp, &ac, &pt);
	} else if (o->mode != MODE_KEY && r->have_cur && num == r->last_num) {
		idx = r->cur;
		goto known;
	}
	if (o->mode != MODE_KEY)
		snprintf(key, sizeof(key), "%llu", (unsigned long long)num);
	else if (ps_key__text(o->by, r->s, smp, key, sizeof(key)) < 0)
		key[0] =
		        0; /* a sample without one of the keys goes to the piece of the empty key */
	if (ps_split__sample(r->sp, rec, key, o->mode == MODE_KEY ? UINT64_MAX : num, tid, &idx,
	                     err) < 0)
		return -1;
	if (slot)
		*slot = (struct memo){ ac, pt, idx + 1 };
	goto written;
known:
	if (ps_split__sample_to(r->sp, rec, idx, tid, err) < 0)
		return -1;
written:
	r->cur = idx;
	r->last_num = num;
	r->have_cur = true;
	r->kept++;
	return 0;
}

static int split_sample(struct run *r, const struct ps_reader_event *ev, struct ps_error *err)
{
	const struct ps_record *rec = &ev->rec;
	const struct ps_sample *smp = &ev->smp;
	struct memo *slot;
	uint64_t ac, pt;
	uint32_t tid;

	if (r->where) {
		int m = ps_filter__match(r->where, r->s, smp);

		if (m < 0)
			return ps_error__set(err, PS_ENOMEM, NULL, PS_NO_OFFSET, "out of memory");
		if (!m)
			return 0;
	}
	tid = smp->type & PERF_SAMPLE_TID ? smp->tid : PS_SIDEBAND_NO_PID;
	if (!r->memo) /* (--by keys of the memo only) */
		return split_sample_slow(r, rec, smp, tid, err);
	slot = memo_slot(r->memo, smp, &ac, &pt);
	if (!slot->piece1 || slot->attr_cpu != ac || slot->pid_tid != pt)
		return split_sample_slow(r, rec, smp, tid, err);
	/* a sample like one before: its piece without the key's text and its lookup */
	if (ps_split__sample_to(r->sp, rec, slot->piece1 - 1, tid, err) < 0)
		return -1;
	r->cur = slot->piece1 - 1;
	r->have_cur = true;
	r->kept++;
	return 0;
}

static int handle(struct run *r, const struct ps_reader_event *ev, struct ps_error *err)
{
	switch (ev->kind) {
	case PS_READER_HEADER:
		/* checked when samples come: a stream without any is split into none */
		return ev->at_end ? 0 : check_where(r, err);
	case PS_READER_SAMPLE:
		return split_sample(r, ev, err);
	case PS_READER_RECORD:
		/* an event's name may change: the pieces known by event are not */
		if (r->memo && (ev->rec.type == PS_RECORD_HEADER_ATTR ||
		                ev->rec.type == PS_RECORD_EVENT_UPDATE))
			memset(r->memo, 0, MEMO_SLOTS * sizeof(*r->memo));
		return ps_split__record(r->sp, &ev->rec, err);
	default:
		ps_show_event(ev);
		return 0;
	}
}

/* --data: a piece is written as a stream NAME.part first, then made the perf.data NAME */
#define PART ".part"

static void final_name(const char *part, char *buf, size_t len)
{
	size_t l = strlen(part);

	snprintf(buf, len, "%.*s", (int)(l > strlen(PART) ? l - strlen(PART) : l), part);
}

static int to_data(const char *part, const char *input, struct ps_error *err)
{
	static char name[PATH_MAX]; /* an error names it after this returns */
	struct ps_reader_opts ro = { .path = part,
		                     .mode = PS_READER_AS_READ,
		                     .input_flags = PS_INPUT_DECOMPRESS,
		                     .no_durations = true };
	struct ps_reader_event ev;
	struct ps_datafile *df;
	struct ps_reader *rd;
	char *tmp = NULL;
	int r, fd;

	final_name(part, name, sizeof(name));
	/* the perf.data file too is written under a temporary name, never over the input */
	if (ps_outpath__refuse_input(name, &input, 1, err) < 0 ||
	    (fd = ps_outpath__create_tmp(name, &tmp, err)) < 0)
		return -1;
	rd = ps_reader__open(&ro, err);
	if (!rd)
		close(fd);
	df = rd ? ps_datafile__open_fd(fd, name, ps_reader__swapped(rd), err) : NULL;
	if (!df) {
		ps_reader__close(rd);
		unlink(tmp);
		free(tmp);
		return -1;
	}
	while ((r = ps_reader__next(rd, &ev, err)) > 0)
		if ((ev.kind == PS_READER_RECORD || ev.kind == PS_READER_SAMPLE) &&
		    ps_datafile__put(df, ps_reader__session(rd), &ev.rec, err) < 0) {
			r = -1;
			break;
		}
	if (ps_datafile__close(df, r < 0 ? NULL : err) < 0)
		r = -1;
	ps_reader__close(rd);
	if (r == 0 && ps_outpath__commit(tmp, name, err) < 0)
		r = -1;
	if (r == 0)
		unlink(part);
	else
		unlink(tmp);
	free(tmp);
	return r;
}

static int pieces_to_data(const struct run *r, struct ps_error *err)
{
	size_t i, n = ps_split__nr_pieces(r->sp);
	struct ps_piece_info pi;

	for (i = 0; i < n; i++) {
		ps_split__piece(r->sp, i, &pi);
		if (to_data(pi.name, r->o->input, err) < 0)
			return -1;
	}
	return 0;
}

/* -b: the pieces that could not stay within the size, said once */
static void oversize(const struct run *r)
{
	size_t i, over = 0, n = ps_split__nr_pieces(r->sp);
	struct ps_piece_info pi, big = { 0 };

	if (r->o->mode != MODE_SIZE)
		return;
	for (i = 0; i < n; i++) {
		ps_split__piece(r->sp, i, &pi);
		if (pi.bytes <= r->o->size)
			continue;
		over++;
		if (pi.bytes > big.bytes)
			big = pi;
	}
	if (over)
		ps_msg("%zu of %zu pieces are over -b %llu bytes (the largest, %s, %llu bytes): a "
		       "piece holds at least the header records and one sample",
		       over, n, (unsigned long long)r->o->size, big.name,
		       (unsigned long long)big.bytes);
}

static void report(const struct run *r)
{
	size_t i, n = ps_split__nr_pieces(r->sp);
	struct ps_piece_info pi;

	for (i = 0; i < n; i++) {
		char name[PATH_MAX];

		ps_split__piece(r->sp, i, &pi);
		if (r->o->data) {
			final_name(pi.name, name, sizeof(name));
			pi.name = name;
		}
		if (r->o->verbose && r->o->mode == MODE_KEY) {
			char shown[PS_KEY_MAX * PS_KEY_SHOWN_MAX], v[PS_KEY_TEXT_MAX];
			size_t k, pos = 0;

			/* each value as pcount shows it, so no name can pass for another */
			shown[0] = 0;
			for (k = 0;
			     pi.key[0] && k < ps_key__nr(r->o->by) && pos + 1 < sizeof(shown);
			     k++) {
				if (k)
					shown[pos++] = ',';
				ps_key__shown(ps_key__column(pi.key, k, v, sizeof(v)), shown + pos,
				              sizeof(shown) - pos);
				pos += strlen(shown + pos);
			}
			fprintf(stderr, "psplit: %s: %llu samples, %llu bytes, key %s\n", pi.name,
			        (unsigned long long)pi.samples, (unsigned long long)pi.bytes,
			        shown);
		} else if (r->o->verbose) {
			fprintf(stderr, "psplit: %s: %llu samples, %llu bytes\n", pi.name,
			        (unsigned long long)pi.samples, (unsigned long long)pi.bytes);
		}
		printf("%s\n", pi.name);
	}
	oversize(r);
}

int main(int argc, char **argv)
{
	struct ps_error err = { 0 }, late = { 0 };
	struct ps_split_config cfg = { 0 };
	struct ps_reader_opts ro = { .path = NULL, .input_flags = PS_INPUT_DECOMPRESS };
	struct ps_reader_event ev;
	struct run r = { 0 };
	struct opts o;
	int ret = 0;

	ps_progname = "psplit";
	ps_signals__init();
	parse_args(argc, argv, &o);
	r.o = &o;
	if (o.where)
		r.where = ps_where__parse(o.where);
	if (o.dir && mkdir(o.dir, 0777) < 0 && errno != EEXIST) {
		ps_error__sys(&err, PS_ESYS, o.dir, "cannot make the directory");
		ps_die(&err);
	}
	ro.path = o.input;
	/* durations are worked out only when --where names one: a split that reads none
	 * does not pay for them on every sample */
	ro.no_durations = true;
	for (int i = 1; i < argc && ro.no_durations; i++)
		ro.no_durations = !ps_durations__named(argv[i]);
	r.rd = ps_reader__open(&ro, &err);
	if (!r.rd)
		ps_die(&err);
	r.s = ps_reader__session(r.rd);
	r.name = ps_reader__name(r.rd);
	cfg.dir = o.dir;
	if (o.data) {
		static char pat[4096];

		if (snprintf(pat, sizeof(pat), "%s" PART, o.pattern) >= (int)sizeof(pat))
			ps_usage_error("-o: the name pattern is too long");
		cfg.pattern = pat;
	} else {
		cfg.pattern = o.pattern;
	}
	cfg.max_pieces = o.max_pieces;
	cfg.max_open = max_open(&o);
	cfg.swap = ps_reader__swapped(r.rd);
	cfg.input = o.input;
	if (o.mode == MODE_SIZE)
		cfg.max_bytes = o.size;
	r.sp = ps_split__new(&cfg, r.s, &err);
	if (o.by && memo_keys(o.by))
		r.memo = calloc(MEMO_SLOTS, sizeof(*r.memo)); /* none: no shortcut */
	/* every sample read before an error or a signal still goes into its piece */
	while (r.sp && (ret = ps_reader__next(r.rd, &ev, &err)) > 0)
		if (handle(&r, &ev, &err) < 0)
			break;
	/* a usage error (a piece named as the input, two keys one name) leaves no piece */
	if (r.sp && err.code != PS_EUSAGE && ps_split__finish(r.sp, err.code ? &late : &err) == 0 &&
	    (!o.data || pieces_to_data(&r, err.code ? &late : &err) == 0))
		report(&r);
	else if (r.sp && !err.code)
		report(&r);
	if (r.sp && ps_split__dropped(r.sp))
		ps_msg("memory cap reached: %llu side-band records not kept for later pieces",
		       (unsigned long long)ps_split__dropped(r.sp));
	free(r.memo);
	ps_filter__delete(r.where);
	ps_key__delete(o.by);
	if (ps_finish_stdout() < 0 && !err.code)
		err.code = PS_EWRITE;
	if (err.code && err.detail[0])
		ps_warn(&err);
	ps_split__delete(r.sp); /* after the message: it may name a piece */
	ps_reader__close(r.rd);
	if (err.code == PS_EUSAGE)
		return 2;
	return err.code ? 1 : 0;
}
