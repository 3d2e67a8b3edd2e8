// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_reader.c - the reading driver: the header moment, time order, idle, notices, the
 * arrival mode's writes, and the ending after an error (everything before it first).
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "build.h"
#include "lib/input.h"
#include "lib/reader.h"
#include "unit.h"

#define ST (PERF_SAMPLE_TID | PERF_SAMPLE_TIME)

static void attr(struct buf *b)
{
	const struct attr_spec a = { .type = PERF_TYPE_SOFTWARE,
		                     .sample_type = ST,
		                     .flags = 1ULL << 18 };
	size_t at = rec_begin(b, PS_RECORD_HEADER_ATTR, 0);

	attr_bytes(b, &a, 128);
	rec_end(b, at);
}

static void comm(struct buf *b, uint32_t tid, const char *name, uint64_t t)
{
	size_t at = rec_begin(b, PERF_RECORD_COMM, 0), n = strlen(name) + 1;

	put32(b, tid);
	put32(b, tid);
	put_bytes(b, name, n);
	grow(b, PS_ALIGN8(n) - n);
	put32(b, tid); /* sample_id: pid, tid, time */
	put32(b, tid);
	put64(b, t);
	rec_end(b, at);
}

static void sample(struct buf *b, uint32_t tid, uint64_t t)
{
	size_t at = rec_begin(b, PERF_RECORD_SAMPLE, 0);

	put32(b, tid);
	put32(b, tid);
	put64(b, t);
	rec_end(b, at);
}

static void bare(struct buf *b, uint32_t type)
{
	rec_end(b, rec_begin(b, type, 0));
}

/*
 * ATTR, COMM(5), [FINISHED_INIT], SAMPLE 30, 10, 20, ROUND, ROUND, SAMPLE 40: where the
 * stream stops before the last sample (for a writer that pauses) in @cut.
 */
static void stream(struct buf *b, bool init, size_t *cut)
{
	memset(b, 0, sizeof(*b));
	put64(b, PS_MAGIC);
	put64(b, PS_PIPE_HEADER_SIZE);
	attr(b);
	comm(b, 7, "seven", 5);
	if (init)
		bare(b, PS_RECORD_FINISHED_INIT);
	sample(b, 7, 30);
	sample(b, 7, 10);
	sample(b, 7, 20);
	if (cut)
		*cut = b->len;
	bare(b, PS_RECORD_FINISHED_ROUND);
	bare(b, PS_RECORD_FINISHED_ROUND);
	sample(b, 7, 40);
}

/* @len bytes of @b as a file the reader opens by name */
static int as_file(const struct buf *b, size_t len, char *path, size_t n)
{
	int fd = memfd_create("reader", 0);

	if (fd < 0 || write(fd, b->p, len) != (ssize_t)len)
		abort();
	snprintf(path, n, "/proc/self/fd/%d", fd);
	return fd;
}

struct got {
	int kinds[64];
	uint64_t times[64]; /* SAMPLE: its time */
	uint32_t types[64]; /* its record's type */
	size_t n;
	int last;
	struct ps_error err;
};

static void run(struct ps_reader *rd, struct got *g, bool drop20)
{
	struct ps_reader_event ev = { 0 };

	memset(g, 0, sizeof(*g));
	while ((g->last = ps_reader__next(rd, &ev, &g->err)) > 0 && g->n < 64) {
		g->kinds[g->n] = ev.kind;
		g->types[g->n] = ev.rec.type;
		g->times[g->n] = ev.kind == PS_READER_SAMPLE ? ev.smp.time :
		                 ev.kind == PS_READER_HEADER ? ev.at_end :
		                 ev.kind == PS_READER_WRITE  ? ev.rec.seq :
		                                               0;
		if (ev.kind == PS_READER_SAMPLE && ev.smp.time == 20 && drop20)
			ps_reader__drop(rd);
		g->n++;
	}
}

static size_t count(const struct got *g, int kind)
{
	size_t i, n = 0;

	for (i = 0; i < g->n; i++)
		n += g->kinds[i] == kind;
	return n;
}

/* the index of the first event of @kind, or g->n */
static size_t first(const struct got *g, int kind)
{
	size_t i;

	for (i = 0; i < g->n && g->kinds[i] != kind; i++)
		;
	return i;
}

/* the times of the samples among the first @upto events of @g are the @nwant of @want, in
 * that order (two checks: how many, which) */
static void check_times(const struct got *g, size_t upto, const uint64_t *want, size_t nwant)
{
	uint64_t t[64];
	size_t i, n = 0;

	for (i = 0; i < upto && i < g->n; i++)
		if (g->kinds[i] == PS_READER_SAMPLE)
			t[n++] = g->times[i];
	CHECK_EQ_U64(n, nwant);
	CHECK(n == nwant && memcmp(t, want, n * sizeof(*t)) == 0);
}

static struct ps_reader *open_buf(const struct buf *b, size_t len, struct ps_reader_opts *o,
                                  int *fd)
{
	static char path[64];
	struct ps_error err = { 0 };
	struct ps_reader *rd;

	*fd = as_file(b, len, path, sizeof(path));
	o->path = path;
	rd = ps_reader__open(o, &err);
	if (!rd)
		fprintf(stderr, "open: %s\n", err.detail);
	return rd;
}

/* what a test reads: the test stream in a file, and a reader of it */
struct fix {
	struct buf b;
	struct ps_reader *rd;
	int fd;
	struct got g;
};

/* stream() (@finish_init as it takes it) into a file, all but its last @cut bytes read by
 * a reader of @o */
static struct ps_reader *fix_open(struct fix *f, bool finish_init, size_t cut,
                                  struct ps_reader_opts *o)
{
	stream(&f->b, finish_init, NULL);
	f->rd = open_buf(&f->b, f->b.len - cut, o, &f->fd);
	return f->rd;
}

static void fix_close(struct fix *f)
{
	ps_reader__close(f->rd);
	close(f->fd);
}

/* the first @len bytes of the stream, read again by a reader of @o */
static void fix_reopen(struct fix *f, size_t len, struct ps_reader_opts *o)
{
	fix_close(f);
	f->rd = open_buf(&f->b, len, o, &f->fd);
}

static void fix_done(struct fix *f)
{
	fix_close(f);
	free(f->b.p);
}

static void test_time_order(void)
{
	struct ps_reader_opts o = { .mode = PS_READER_TIME };
	struct fix f;

	CHECK(fix_open(&f, true, 0, &o) != NULL);
	if (!f.rd)
		return;
	run(f.rd, &f.g, false);
	CHECK_EQ_U64(f.g.last, 0);
	check_times(&f.g, f.g.n, (const uint64_t[]){ 10, 20, 30, 40 }, 4);
	/* once, before every sample, at FINISHED_INIT (not at the end) */
	CHECK_EQ_U64(count(&f.g, PS_READER_HEADER), 1);
	CHECK(first(&f.g, PS_READER_HEADER) < first(&f.g, PS_READER_SAMPLE));
	CHECK_EQ_U64(f.g.times[first(&f.g, PS_READER_HEADER)], 0);
	CHECK_EQ_U64(f.g.types[first(&f.g, PS_READER_HEADER) + 1], PS_RECORD_FINISHED_INIT);
	/* the session knows the thread's name as the samples come */
	CHECK(ps_session__comm(ps_reader__session(f.rd), 7) &&
	      strcmp(ps_session__comm(ps_reader__session(f.rd), 7), "seven") == 0);
	fix_done(&f);
}

/* Without FINISHED_INIT, the first sample makes the header moment; without sample either,
 * the end does. */
static void test_header_moment(void)
{
	struct ps_reader_opts o = { .mode = PS_READER_AS_READ };
	struct fix f;

	run(fix_open(&f, false, 0, &o), &f.g, false);
	CHECK_EQ_U64(count(&f.g, PS_READER_HEADER), 1);
	/* ATTR, COMM as read, then the header, then the first sample */
	CHECK_EQ_U64(first(&f.g, PS_READER_HEADER), 2);
	CHECK_EQ_U64(first(&f.g, PS_READER_SAMPLE), 3);
	CHECK_EQ_U64(f.g.times[3], 30); /* as read */

	/* ATTR and COMM only */
	fix_reopen(&f, PS_PIPE_HEADER_SIZE + 136 + 40, &o);
	run(f.rd, &f.g, false);
	CHECK_EQ_U64(f.g.last, 0);
	CHECK_EQ_U64(count(&f.g, PS_READER_HEADER), 1);
	CHECK_EQ_U64(first(&f.g, PS_READER_HEADER), 2);
	CHECK_EQ_U64(f.g.times[2], 1); /* at_end */
	fix_done(&f);
}

/* A stream cut inside its last record: every sample before the cut, in time order, then
 * the error; no header moment at the end of a failed read. */
static void test_error_ending(void)
{
	struct ps_reader_opts o = { .mode = PS_READER_TIME };
	struct fix f;

	run(fix_open(&f, false, 4, &o), &f.g, false);
	CHECK_EQ_U64(f.g.last, -1);
	CHECK(f.g.err.code != 0);
	check_times(&f.g, f.g.n, (const uint64_t[]){ 10, 20, 30 }, 3);
	CHECK_EQ_U64(count(&f.g, PS_READER_HEADER), 1); /* at the first sample */
	/* the error comes again, nothing more */
	CHECK_EQ_U64(ps_reader__next(f.rd, &(struct ps_reader_event){ 0 }, &f.g.err), -1);

	/* cut before any sample: the error, and no header moment */
	fix_reopen(&f, PS_PIPE_HEADER_SIZE + 136 + 20, &o);
	run(f.rd, &f.g, false);
	CHECK_EQ_U64(f.g.last, -1);
	CHECK_EQ_U64(count(&f.g, PS_READER_HEADER), 0);
	CHECK_EQ_U64(count(&f.g, PS_READER_RECORD), 1); /* the ATTR */
	fix_done(&f);
}

/* A memory cap too small for one round: released early, said once as a notice. */
static void test_notice(void)
{
	struct ps_reader_opts o = { .mode = PS_READER_TIME, .order_cap = 64 };
	struct ps_reader_event ev = { 0 };
	struct ps_error err = { 0 };
	struct fix f;
	int r, notices = 0;

	fix_open(&f, true, 0, &o);
	while ((r = ps_reader__next(f.rd, &ev, &err)) > 0)
		if (ev.kind == PS_READER_NOTICE) {
			notices++;
			CHECK(strstr(ev.text, "released early") != NULL);
		}
	CHECK_EQ_U64(r, 0);
	CHECK_EQ_U64(notices, 1);
	fix_done(&f);
}

/* A writer that pauses after three samples: they come out, in time order, before IDLE. */
static void test_idle(void)
{
	struct ps_reader_opts o = { .mode = PS_READER_TIME, .idle_ms = 30 };
	struct ps_error err = { 0 };
	struct ps_reader *rd;
	char path[64];
	struct buf b;
	struct got g;
	size_t cut;
	int p[2];
	pid_t pid;

	stream(&b, true, &cut);
	if (pipe(p) < 0)
		abort();
	pid = fork();
	if (pid == 0) {
		close(p[0]);
		if (write(p[1], b.p, cut) != (ssize_t)cut)
			_exit(1);
		nanosleep(&(struct timespec){ 0, 300 * 1000000L }, NULL);
		if (write(p[1], b.p + cut, b.len - cut) != (ssize_t)(b.len - cut))
			_exit(1);
		_exit(0);
	}
	close(p[1]);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", p[0]);
	o.path = path;
	rd = ps_reader__open(&o, &err);
	CHECK(rd != NULL);
	if (rd) {
		run(rd, &g, false);
		CHECK_EQ_U64(g.last, 0);
		CHECK(count(&g, PS_READER_IDLE) >= 1);
		/* before the first IDLE: the three samples, in time order */
		check_times(&g, first(&g, PS_READER_IDLE), (const uint64_t[]){ 10, 20, 30 }, 3);
		ps_reader__close(rd);
	}
	close(p[0]);
	waitpid(pid, NULL, 0);
	free(b.p);
}

/* ARRIVAL: samples decided in time order, every record written in arrival order, the
 * dropped sample not; nothing is written before the header moment. */
static void test_arrival(bool unordered)
{
	struct ps_reader_opts o = { .mode = PS_READER_ARRIVAL,
		                    .write = true,
		                    .unordered = unordered };
	struct fix f;
	size_t i, w;

	run(fix_open(&f, true, 0, &o), &f.g, true);
	CHECK_EQ_U64(f.g.last, 0);
	check_times(&f.g, f.g.n,
	            unordered ? (const uint64_t[]){ 30, 10, 20, 40 } :
	                        (const uint64_t[]){ 10, 20, 30, 40 },
	            4);
	CHECK(first(&f.g, PS_READER_HEADER) < first(&f.g, PS_READER_WRITE));
	/* 9 records, one dropped: the sample of time 20, arrival number 5 */
	CHECK_EQ_U64(count(&f.g, PS_READER_WRITE), 8);
	for (i = w = 0; i < f.g.n; i++) {
		if (f.g.kinds[i] != PS_READER_WRITE)
			continue;
		CHECK_EQ_U64(f.g.times[i], w + (w >= 5));
		w++;
	}
	fix_done(&f);
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	test_time_order();
	test_header_moment();
	test_error_ending();
	test_notice();
	test_idle();
	test_arrival(false);
	test_arrival(true);
	return UNIT_DONE("reader");
}
