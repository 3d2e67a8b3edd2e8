// SPDX-License-Identifier: GPL-2.0-only
/*
 * pstream-nats - a perf event stream through NATS JetStream: `pub SUBJECT` on each host,
 * `sub SUBJECT...` anywhere.  See pstream-nats(1); the transport is src/lib/nats.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lib/diag.h"
#include "lib/files.h"
#include "lib/input.h"
#include "lib/merge.h"
#include "lib/nats.h"
#include "lib/opts.h"
#include "lib/output.h"
#include "lib/signals.h"

enum {
	OPT_BATCH = PS_OPT_LONG,
	OPT_BUFFER,
	OPT_MAX_AGE,
	OPT_MAX_BYTES,
	OPT_DUP_WINDOW,
	OPT_SNAP_EVERY,
	OPT_DURABLE,
	OPT_SINCE,
};

/* how long a silent subject may hold the others back in a merge (pcat --merge's) */
#define MERGE_IDLE_MS 100
/* how long a stopped publisher goes on trying to store what it read */
#define GIVE_UP_MS 10000
/* exit status: the stream ended, but messages of it were not there to read */
#define EXIT_LOSS 3

struct opts {
	const char *url;
	const char *output;
	bool force, quiet;
	bool follow, new_only;
	const char *durable;
	const char *since;
	uint64_t batch, buffer, max_bytes, max_age, dup_window, snap_every;
	const char *cmd;
	int nargs;
	char **args;
};

static const struct ps_cmdline cmdline = {
	.usage = "usage: pstream-nats [-fFnq] [-o file] [-s url] [option ...] "
                                 "pub subject [file] | sub subject ...\n",
	.about = "Carry a perf event stream through NATS JetStream: pub publishes a stream\n"
	         "under a subject, sub writes the stream of one or more subjects (wildcards,\n"
	         "merged in time order) to standard output, from wherever it starts.\n",
	.opts = {
		PS_OPT("server", 's', PS_ARG_REQUIRED, "URL",
		       "the NATS server (default $NATS_URL, else " PS_NATS_DEFAULT_URL ")"),
		PS_OPT("batch", OPT_BATCH, PS_ARG_REQUIRED, "SIZE",
		       "pub: records per message, in bytes (default 256k)"),
		PS_OPT("buffer", OPT_BUFFER, PS_ARG_REQUIRED, "SIZE",
		       "pub: what is held while the server does not store (default 64m);\n"
		       "when full, reading stops"),
		PS_OPT("max-bytes", OPT_MAX_BYTES, PS_ARG_REQUIRED, "SIZE",
		       "pub: keep at most SIZE bytes of the subject (the oldest go)"),
		PS_OPT("max-age", OPT_MAX_AGE, PS_ARG_REQUIRED, "TIME",
		       "pub: keep the subject's messages for TIME (5m, 2h...)"),
		PS_OPT("dup-window", OPT_DUP_WINDOW, PS_ARG_REQUIRED, "TIME",
		       "pub: JetStream's duplicate window (default 2m)"),
		PS_OPT("snapshot-every", OPT_SNAP_EVERY, PS_ARG_REQUIRED, "N",
		       "pub: a snapshot of the headers and side-band every N messages (64)"),
		PS_OPT("durable", OPT_DURABLE, PS_ARG_REQUIRED, "NAME",
		       "sub: a resumable subscription that goes on where it was acknowledged"),
		PS_OPT_FLAG("new", 'n', "sub: from now on, not from the start of the recording",
		            struct opts, new_only),
		PS_OPT("since", OPT_SINCE, PS_ARG_REQUIRED, "TIME",
		       "sub: what was stored since TIME ago (10m) or since a UTC time\n"
		       "(2026-12-05T10:00:00Z)"),
		PS_OPT_FLAG("follow", 'F', "sub: stay for the next recording on the subject", struct opts,
		            follow),
		PS_OPT_FORCE_ROW,
		PS_OPT_OUTPUT_ROW,
		{ "quiet", 'q', PS_ARG_NONE, NULL, "no notices about the server (gone, back) nor subjects left out",
		  PS_OPTG_QUIET, 0 },
	},
	.epilog =
	        "Examples: precord -a -e sched:sched_switch | pstream-nats pub hosts.$(hostname)\n"
	        "          pstream-nats sub 'hosts.*' | pcount --by input,comm -i 5\n",
};

static void parse_args(int argc, char **argv, struct opts *o)
{
	struct ps_common_opts co;
	struct ps_args a;
	int k;

	memset(o, 0, sizeof(*o));
	ps_args__init(&a, &cmdline, argc, argv, &co);
	a.flags = o;
	while ((k = ps_args__next(&a)) != -1) {
		switch (k) {
		case 's':
			o->url = a.arg;
			break;
		case OPT_BATCH:
			o->batch = ps_parse_size(a.arg, INT64_MAX >> 1, "--batch");
			break;
		case OPT_BUFFER:
			o->buffer = ps_parse_size(a.arg, INT64_MAX >> 1, "--buffer");
			break;
		case OPT_MAX_BYTES:
			o->max_bytes = ps_parse_size(a.arg, INT64_MAX >> 1, "--max-bytes");
			break;
		case OPT_MAX_AGE:
			o->max_age = ps_parse_duration(a.arg, 1000000000ULL,
			                               100ULL * 365 * 86400 * 1000000000ULL,
			                               "--max-age");
			break;
		case OPT_DUP_WINDOW:
			o->dup_window = ps_parse_duration(
			        a.arg, 1000000000ULL, 7ULL * 86400 * 1000000000ULL, "--dup-window");
			break;
		case OPT_SNAP_EVERY:
			o->snap_every = ps_parse_u64(a.arg, 1, 1000000, "--snapshot-every");
			break;
		case OPT_DURABLE:
			o->durable = a.arg;
			break;
		case OPT_SINCE:
			o->since = a.arg;
			break;
		default:
			break;
		}
	}
	o->output = co.output;
	o->force = co.force;
	o->quiet = co.quiet;
	if (!o->url)
		o->url = getenv("NATS_URL");
	if (a.optind >= argc)
		ps_usage_error("say pub or sub");
	o->cmd = argv[a.optind];
	o->args = argv + a.optind + 1;
	o->nargs = argc - a.optind - 1;
	if (strcmp(o->cmd, "pub") == 0) {
		if (o->nargs < 1 || o->nargs > 2)
			ps_usage_error("pub takes a subject and at most one file");
		if (o->durable || o->since || o->new_only || o->follow || o->output)
			ps_usage_error("--durable, --since, --new, --follow and -o are for sub");
	} else if (strcmp(o->cmd, "sub") == 0) {
		if (o->nargs < 1)
			ps_usage_error("sub takes one subject or more");
		if (o->batch || o->buffer || o->max_bytes || o->max_age || o->dup_window ||
		    o->snap_every)
			ps_usage_error(
			        "--batch, --buffer, --max-bytes, --max-age, --dup-window and "
			        "--snapshot-every are for pub");
		if (o->new_only && o->since)
			ps_usage_error("--new or --since: one start at a time");
		/* a merge reads each input's recording once: a new recording of a subject, or
		 * a subject first published later, would not be read (see the man page) */
		if (o->follow && (o->nargs > 1 || strpbrk(o->args[0], "*>")))
			ps_usage_error("--follow reads one subject, not several nor a wildcard: "
			               "run sub again when it ends (with --durable it goes on "
			               "where it was)");
	} else {
		ps_usage_error("'%s': say pub or sub", o->cmd);
	}
}

static void notice(void *arg, const char *text)
{
	const struct opts *o = arg;

	if (!o->quiet)
		ps_msg("%s", text);
}

/* ---- pub ---- */

struct pub_ctx {
	struct ps_nats_pub *p;
	struct ps_error err;
};

static void pub_flush_hook(void *arg)
{
	struct pub_ctx *c = arg;

	if (!c->err.code)
		ps_nats_pub__flush(c->p, &c->err);
}

static int run_pub(const struct opts *o, struct ps_nats *n)
{
	struct ps_nats_pub_config cfg = {
		.subject = o->args[0],
		.batch = o->batch,
		.buffer = o->buffer,
		.snap_every = (unsigned int)o->snap_every,
		.max_bytes = (int64_t)o->max_bytes,
		.max_age_ns = (int64_t)o->max_age,
		.dup_window_ns = (int64_t)o->dup_window,
		.notice = notice,
		.arg = (void *)o,
	};
	const char *path = o->nargs > 1 ? o->args[1] : "-";
	struct ps_error err = { 0 }, ferr = { 0 };
	struct ps_nats_pub_stats st;
	struct pub_ctx c = { 0 };
	struct ps_record rec;
	struct ps_input *in;
	char name[PS_NATS_NAME_MAX];
	int r = 0;

	if (ps_nats__stream_name(cfg.subject, name, sizeof(name), &err) < 0)
		ps_usage_error("%s", err.detail);
	if (ps_stdin__refuse_tty((const char *const *)&path, 1, &err) < 0)
		ps_die(&err);
	in = ps_input__open(path, PS_INPUT_DECOMPRESS, &err);
	if (!in)
		ps_die(&err);
	c.p = ps_nats_pub__open(n, &cfg, ps_input__session(in), ps_input__swapped(in), &err);
	if (!c.p) {
		ps_input__close(in);
		ps_die(&err);
	}
	ps_input__set_wait_hook(in, pub_flush_hook, &c);
	while (!ps_stop && !c.err.code && (r = ps_input__next(in, &rec, &err)) > 0)
		if (ps_nats_pub__record(c.p, &rec, &c.err) < 0)
			break;
	if (r < 0)
		ps_warn(&err);
	if (c.err.code)
		ps_warn(&c.err);
	/* whatever was read goes out, with the end mark; a stopped publisher does not wait
	 * for ever on a server that does not come back */
	if (ps_nats_pub__finish(c.p, ps_stop ? GIVE_UP_MS : -1, &ferr) < 0)
		ps_warn(&ferr);
	ps_nats_pub__stats(c.p, &st);
	if (st.retries && !o->quiet)
		ps_msg("%s: %" PRIu64 " messages stored, %" PRIu64 " publishes tried again",
		       cfg.subject, st.messages, st.retries);
	ps_nats_pub__close(c.p);
	ps_input__close(in);
	return err.code || c.err.code || ferr.code ? 1 : 0;
}

/* ---- sub ---- */

/* --since TIME: a duration ago, or a UTC time YYYY-MM-DDTHH:MM:SS[Z] */
static int64_t parse_since(const char *arg)
{
	struct timespec now;
	struct tm tm;
	const char *end;

	if (strchr(arg, 'T') && strchr(arg, '-')) {
		memset(&tm, 0, sizeof(tm));
		end = strptime(arg, "%Y-%m-%dT%H:%M:%S", &tm);
		if (end && (!*end || !strcmp(end, "Z")))
			return (int64_t)timegm(&tm) * 1000000000LL;
		ps_usage_error("--since: '%s' is not a UTC time (2026-12-05T10:00:00Z)", arg);
	}
	clock_gettime(CLOCK_REALTIME, &now);
	return (int64_t)now.tv_sec * 1000000000LL + now.tv_nsec -
	       (int64_t)ps_parse_duration(arg, 1, 100ULL * 365 * 86400 * 1000000000ULL, "--since");
}

static struct ps_nats_sub_config sub_config(const struct opts *o, const char *subject,
                                            int64_t since)
{
	struct ps_nats_sub_config c = {
		.subject = subject,
		.durable = o->durable,
		.start = o->new_only ? PS_NATS_NEW :
		         o->since    ? PS_NATS_SINCE :
		                       PS_NATS_LATEST,
		.since_ns = since,
		.follow = o->follow,
	};
	return c;
}

static void say_lost(const char *subject, const struct ps_nats_sub_stats *st)
{
	if (st->lost)
		ps_msg("%s: %" PRIu64 " messages of the recording were not there to read "
		       "(discarded by the subject's limits, or never stored)",
		       subject, st->lost);
}

/* One subject: its stream as the messages give it, acknowledged once written. */
static int sub_one(const struct opts *o, struct ps_nats *n, const char *subject, int64_t since)
{
	struct ps_nats_sub_config cfg = sub_config(o, subject, since);
	struct ps_error err = { 0 }, oerr = { 0 };
	struct ps_nats_sub_stats st;
	struct ps_nats_sub *sub;
	struct ps_output *out;
	const unsigned char *d;
	size_t len, unflushed = 0;
	int r;

	out = ps_output__open(o->output, o->force, &oerr);
	if (!out)
		ps_die(&oerr);
	sub = ps_nats_sub__open(n, &cfg, &err);
	if (!sub) {
		ps_output__close(out, &oerr);
		ps_die(&err);
	}
	while (!ps_stop && (r = ps_nats_sub__read(sub, &d, &len, 100, &err)) != 0) {
		if (r < 0)
			break;
		if (r == 1) {
			if (ps_output__write(out, d, len, &oerr) < 0)
				break;
			unflushed += len;
			if (unflushed < (4u << 20))
				continue;
		}
		/* written out, then acknowledged: at least once */
		if (ps_output__flush(out, &oerr) < 0 || ps_nats_sub__ack(sub, &err) < 0)
			break;
		unflushed = 0;
	}
	if (!oerr.code && ps_output__flush(out, &oerr) == 0 && !err.code)
		ps_nats_sub__ack(sub, &err);
	ps_nats_sub__stats(sub, &st);
	ps_nats_sub__close(sub);
	if (ps_output__close(out, oerr.code ? &(struct ps_error){ 0 } : &oerr) < 0 && !oerr.code)
		oerr.code = PS_EWRITE;
	if (oerr.code == PS_EPIPE)
		return 0;
	if (oerr.code)
		ps_warn(&oerr);
	if (err.code)
		ps_warn(&err);
	say_lost(subject, &st);
	return err.code || oerr.code ? 1 : st.lost ? EXIT_LOSS : 0;
}

/*
 * A message of a merged subject is acknowledged once its bytes were handed to the merge
 * ACK_DELAY_MS before an output flush: the merge holds a record no longer than its
 * time-order window (perf's rounds) or its idle budget.  A feed waits while more than
 * MAX_UNACKED of its messages wait for that.
 */
#define ACK_DELAY_MS 2000
#define MAX_UNACKED 4096

static _Atomic int64_t last_flush_ms = INT64_MIN / 2;

static int64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* the merge's wait hook: flush, and tell the feeds when */
static void merge_flush_hook(void *out)
{
	int64_t now = mono_ms();

	ps_output__flush_hook(out);
	last_flush_ms = now;
}

/* A subject of a merge: its stream into a pipe that the merge reads. */
struct feed {
	pthread_t th;
	struct ps_nats_sub *sub;
	int fd;
	const char *subject;
	struct ps_error err;
	struct ps_nats_sub_stats st;
};

static void *feed_thread(void *arg)
{
	struct feed *f = arg;
	const unsigned char *d;
	size_t len;
	int r;

	while (!ps_stop && !ps_winding_down &&
	       (r = ps_nats_sub__read(f->sub, &d, &len, 100, &f->err)) != 0) {
		if (r < 0)
			break;
		while (r == 1 && len) {
			ssize_t w = write(f->fd, d, len);

			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0)
				goto out; /* the merge went away */
			d += w;
			len -= (size_t)w;
		}
		/* handed to the merge, acknowledged once the merge wrote it out */
		if (ps_nats_sub__ack_before(f->sub, last_flush_ms - ACK_DELAY_MS, &f->err) < 0)
			goto out;
		while (!ps_stop && ps_nats_sub__unacked(f->sub) > MAX_UNACKED) {
			struct timespec ts = { 0, 50 * 1000000L };

			nanosleep(&ts, NULL);
			if (ps_nats_sub__ack_before(f->sub, last_flush_ms - ACK_DELAY_MS, &f->err) <
			    0)
				goto out;
		}
	}
out:
	ps_nats_sub__stats(f->sub, &f->st);
	close(f->fd);
	f->fd = -1;
	return NULL;
}

/*
 * A durable merge leaves out the subjects whose latest recording it read to the end
 * before: they have nothing to give until their next recording, and the merge would wait
 * for their header records until then.  When none has anything, all stay: the merge
 * waits for their next recordings, as a single subject does.  Return: the subjects left.
 */
static int leave_out_read(const struct opts *o, struct feed *f, int k)
{
	int i, j = 0;

	for (i = 0; i < k; i++)
		j += !ps_nats_sub__read_to_end(f[i].sub);
	if (!j || j == k)
		return k;
	for (i = j = 0; i < k; i++) {
		if (!ps_nats_sub__read_to_end(f[i].sub)) {
			f[j++] = f[i];
			continue;
		}
		if (!o->quiet)
			ps_msg("%s: its recording was read to its end before; left out until the "
			       "next one",
			       f[i].subject);
		ps_nats_sub__close(f[i].sub);
	}
	return j;
}

static int sub_merge(const struct opts *o, struct ps_nats *n, char **subjects, int k, int64_t since)
{
	struct ps_error err = { 0 }, oerr = { 0 };
	struct feed *f = calloc((size_t)k, sizeof(*f));
	int *fds = calloc((size_t)k, sizeof(*fds));
	const char **names = calloc((size_t)k, sizeof(*names));
	struct ps_output *out;
	struct ps_merge *m = NULL;
	struct ps_record rec;
	int i, r = 0, status = 0;
	bool done;

	if (!f || !fds || !names)
		ps_die_nomem();
	/* asked to stop (SIGTERM, as systemd stops a service), the feeds take no more
	 * messages and end their pipes; the merge writes everything they gave, which is
	 * then acknowledged: a durable subscription started again goes on from there, with
	 * nothing twice.  A second signal stops at once. */
	ps_signals__wind_down();
	out = ps_output__open(o->output, o->force, &oerr);
	if (!out)
		ps_die(&oerr);
	for (i = 0; i < k; i++) {
		struct ps_nats_sub_config cfg = sub_config(o, subjects[i], since);

		f[i].subject = subjects[i];
		f[i].sub = ps_nats_sub__open(n, &cfg, &err);
		if (!f[i].sub)
			ps_die(&err);
	}
	k = leave_out_read(o, f, k);
	for (i = 0; i < k; i++) {
		int p[2];

		names[i] = f[i].subject;
		if (pipe(p) < 0) {
			ps_error__sys(&err, PS_ESYS, f[i].subject, "cannot make a pipe");
			ps_die(&err);
		}
		fds[i] = p[0];
		f[i].fd = p[1];
		if (pthread_create(&f[i].th, NULL, feed_thread, &f[i]) != 0) {
			ps_error__set(&err, PS_ESYS, f[i].subject, PS_NO_OFFSET,
			              "cannot start a thread");
			ps_die(&err);
		}
	}
	m = ps_merge__open_fds(k, fds, names, MERGE_IDLE_MS, &err);
	if (m) {
		ps_merge__set_wait_hook(m, merge_flush_hook, out);
		if (ps_merge__begin(m, &err) == 0 &&
		    ps_output__begin(out, ps_merge__swapped(m), &oerr) == 0)
			while (!ps_stop && (r = ps_merge__next(m, &rec, &err)) > 0)
				if (ps_output__write(out, rec.data, rec.len, &oerr) < 0)
					break;
	}
	if (!oerr.code)
		ps_output__flush(out, &oerr);
	/* every record written: what the feeds handed over is acknowledged below, unless
	 * the merge ended early (an interruption ends the inputs before their pipes are
	 * read to the end) */
	done = r == 0 && !ps_stop && !err.code && !oerr.code;
	/* an interruption ends the feeds under the merge: what that does to it is no error */
	if (ps_stop)
		err.code = 0;
	/* said before the merge is closed: the error names an input the merge owns */
	if (err.code)
		ps_warn(&err);
	/* the feeds end: their pipes are closed under them */
	ps_stop = 1;
	ps_merge__close(m);
	for (i = 0; i < k; i++) {
		close(fds[i]);
		pthread_join(f[i].th, NULL);
		if (f[i].err.code) {
			ps_warn(&f[i].err);
			status = 1;
		}
		if (done && ps_nats_sub__ack(f[i].sub, &f[i].err) < 0) {
			ps_warn(&f[i].err);
			status = 1;
		}
		say_lost(f[i].subject, &f[i].st);
		if (f[i].st.lost && !status)
			status = EXIT_LOSS;
		ps_nats_sub__close(f[i].sub);
	}
	ps_output__close(out, oerr.code ? &(struct ps_error){ 0 } : &oerr);
	free(f);
	free(fds);
	free(names);
	if (oerr.code == PS_EPIPE)
		return 0;
	if (oerr.code)
		ps_warn(&oerr);
	return err.code || oerr.code ? 1 : status;
}

static int run_sub(const struct opts *o, struct ps_nats *n)
{
	struct ps_error err = { 0 };
	int64_t since = o->since ? parse_since(o->since) : 0;
	char **subjects = NULL;
	int k, i, status;

	k = ps_nats__resolve(n, o->args, o->nargs, &subjects, &err);
	if (k < 0)
		ps_die(&err);
	status = k == 1 ? sub_one(o, n, subjects[0], since) : sub_merge(o, n, subjects, k, since);
	for (i = 0; i < k; i++)
		free(subjects[i]);
	free(subjects);
	return status;
}

int main(int argc, char **argv)
{
	struct ps_error err = { 0 };
	struct ps_nats *n;
	struct opts o;
	int status;

	ps_progname = "pstream-nats";
	ps_signals__init();
	parse_args(argc, argv, &o);
	n = ps_nats__connect(o.url, &err);
	if (!n)
		ps_die(&err);
	status = strcmp(o.cmd, "pub") == 0 ? run_pub(&o, n) : run_sub(&o, n);
	ps_nats__close(n);
	return status;
}
