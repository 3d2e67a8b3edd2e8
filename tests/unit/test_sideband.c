// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_sideband.c - the per-thread and per-process side-band state, in both byte orders:
 * what each record is about (scope, pid, tid), the names and maps replayed as records a
 * reader takes (time 0, the child's pid in inherited maps), kernel-wide records kept once,
 * records too short for their fields, and the thread cap (exited threads go first).
 */
#include <stdlib.h>
#include <string.h>

#include "lib/sideband.h"
#include "build.h"
#include "unit.h"

#define ST (PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID)
#define ID 7

struct env {
	bool swap;
	struct ps_session *s;
	struct ps_sideband *sb;
	struct buf b;   /* the record being applied */
	struct buf out; /* what a replay emitted */
};

/* the trailer of ST: pid, tid, time, id */
static void trailer(struct buf *b, uint32_t pid, uint32_t tid, uint64_t time)
{
	put32(b, pid);
	put32(b, tid);
	put64(b, time);
	put64(b, ID);
}

static void env_open(struct env *e, bool swap)
{
	const struct attr_spec a = { .type = PERF_TYPE_SOFTWARE,
		                     .sample_type = ST,
		                     .flags = PS_ATTR_FLAG_SAMPLE_ID_ALL };
	const uint64_t id = ID;

	memset(e, 0, sizeof(*e));
	e->swap = e->b.swap = e->out.swap = swap;
	attr_rec(&e->b, &a, &id, 1);
	e->s = session_fed(&e->b);
	e->sb = ps_sideband__new(e->s);
	if (!e->sb)
		abort();
}

static void env_close(struct env *e)
{
	ps_sideband__delete(e->sb);
	ps_session__delete(e->s);
	buf_free(&e->b);
	buf_free(&e->out);
}

/* apply the record in @e->b and empty it */
static struct ps_sideband_info apply(struct env *e)
{
	struct ps_record rec = rec_at(&e->b, 0);
	struct ps_sideband_info info;

	if (ps_sideband__apply(e->sb, &rec, &info) != 0)
		CHECK(!"the record was applied");
	e->b.len = 0;
	return info;
}

static struct ps_sideband_info comm(struct env *e, uint32_t pid, uint32_t tid, const char *name)
{
	size_t at = rec_begin(&e->b, PERF_RECORD_COMM, 0), n = strlen(name) + 1;

	put32(&e->b, pid);
	put32(&e->b, tid);
	put_bytes(&e->b, name, n);
	grow(&e->b, PS_ALIGN8(n) - n);
	trailer(&e->b, pid, tid, 1000);
	rec_end(&e->b, at);
	return apply(e);
}

static struct ps_sideband_info task(struct env *e, uint32_t type, uint32_t pid, uint32_t ppid,
                                    uint32_t tid, uint32_t ptid)
{
	size_t at = rec_begin(&e->b, type, 0);

	put32(&e->b, pid);
	put32(&e->b, ppid);
	put32(&e->b, tid);
	put32(&e->b, ptid);
	put64(&e->b, 2000);
	trailer(&e->b, pid, tid, 2000);
	rec_end(&e->b, at);
	return apply(e);
}

static struct ps_sideband_info mmap2(struct env *e, uint32_t pid, uint64_t start)
{
	size_t at = rec_begin(&e->b, PERF_RECORD_MMAP2, 0);

	put32(&e->b, pid);
	put32(&e->b, pid);
	put64(&e->b, start);
	put64(&e->b, 0x1000);
	put64(&e->b, 0);
	grow(&e->b, 32); /* maj, min, ino, ino_generation, prot, flags */
	put_bytes(&e->b, "/bin/sh\0", 8);
	trailer(&e->b, pid, pid, 3000);
	rec_end(&e->b, at);
	return apply(e);
}

static int emit(void *arg, const void *data, size_t len)
{
	put_bytes(arg, data, len);
	return 0;
}

static int refuse(void *arg, const void *data, size_t len)
{
	(void)arg;
	(void)data;
	(void)len;
	return -1;
}

/* the records @e->out holds */
static size_t nr_out(const struct env *e)
{
	size_t at, n = 0;

	for (at = 0; at + 8 <= e->out.len; at += rec_at(&e->out, at).size, n++)
		if (rec_at(&e->out, at).size < 8)
			return SIZE_MAX;
	return n;
}

static void test_threads(bool swap)
{
	struct env e;
	struct ps_sideband_info i;
	struct ps_record rec;

	env_open(&e, swap);
	i = comm(&e, 300, 301, "worker");
	CHECK(i.scope == PS_SB_THREAD && i.pid == 300 && i.tid == 301);
	CHECK_EQ_U64(ps_sideband__pid_of(e.sb, 301), 300);
	CHECK_EQ_U64(ps_sideband__pid_of(e.sb, 302), PS_SIDEBAND_NO_PID);
	CHECK(ps_sideband__replay_thread(e.sb, 301, emit, &e.out) == 0);
	CHECK_EQ_U64(nr_out(&e), 1);
	rec = rec_at(&e.out, 0);
	CHECK_EQ_U64(rec.type, PERF_RECORD_COMM);
	CHECK_EQ_U64(rec.size, 16 + 8 + 24); /* body, name, a trailer of ST with time 0 */
	CHECK_EQ_U64(ps_get32(rec.data + 8, swap), 300);
	CHECK_EQ_U64(ps_get32(rec.data + 12, swap), 301);
	CHECK(strcmp((const char *)rec.data + 16, "worker") == 0);
	CHECK_EQ_U64(ps_get64(rec.data + 32, swap), 0);
	/* a thread forked from it has its name until it gets its own */
	i = task(&e, PERF_RECORD_FORK, 300, 300, 303, 301);
	CHECK(i.scope == PS_SB_FORK && i.pid == 300 && i.ppid == 300 && i.tid == 303 &&
	      i.ptid == 301);
	e.out.len = 0;
	CHECK(ps_sideband__replay_thread(e.sb, 303, emit, &e.out) == 0);
	CHECK(e.out.len && strcmp((const char *)e.out.p + 16, "worker") == 0);
	i = task(&e, PERF_RECORD_EXIT, 300, 300, 303, 303);
	CHECK(i.scope == PS_SB_THREAD && i.tid == 303);
	/* nothing to say about a thread never named */
	e.out.len = 0;
	CHECK(ps_sideband__replay_thread(e.sb, 999, emit, &e.out) == 0 && e.out.len == 0);
	CHECK(ps_sideband__replay_thread(e.sb, 301, refuse, NULL) == -1);
	/* a name longer than a kernel's is cut at PS_COMM_LEN bytes */
	comm(&e, 400, 400, "a-name-longer-than-sixteen-bytes");
	e.out.len = 0;
	ps_sideband__replay_thread(e.sb, 400, emit, &e.out);
	CHECK(e.out.len && strlen((const char *)e.out.p + 16) == PS_COMM_LEN);
	env_close(&e);
}

static void test_maps(bool swap)
{
	struct env e;
	struct ps_sideband_info i;
	struct ps_record rec;

	env_open(&e, swap);
	i = mmap2(&e, 300, 0x400000);
	CHECK(i.scope == PS_SB_PROCESS && i.pid == 300);
	mmap2(&e, 300, 0x400000); /* the same map again is kept once */
	mmap2(&e, 300, 0x600000);
	CHECK(ps_sideband__replay_process(e.sb, 300, emit, &e.out) == 0);
	CHECK_EQ_U64(nr_out(&e), 2);
	rec = rec_at(&e.out, 0);
	CHECK_EQ_U64(ps_get64(rec.data + 16, swap), 0x400000);
	CHECK_EQ_U64(ps_get64(rec.data + rec.size - 16, swap), 0); /* the trailer's time */
	/* a new process starts with its parent's maps, under its own pid */
	task(&e, PERF_RECORD_FORK, 500, 300, 500, 301);
	e.out.len = 0;
	CHECK(ps_sideband__replay_process(e.sb, 500, emit, &e.out) == 0);
	CHECK_EQ_U64(nr_out(&e), 2);
	rec = rec_at(&e.out, rec_at(&e.out, 0).size);
	CHECK_EQ_U64(ps_get32(rec.data + 8, swap), 500);
	CHECK_EQ_U64(ps_get32(rec.data + 12, swap), 500);
	CHECK_EQ_U64(ps_get64(rec.data + 16, swap), 0x600000);
	/* kernel maps (pid -1) are everyone's, kept once */
	i = mmap2(&e, UINT32_MAX, 0xffffffff81000000ULL);
	CHECK(i.scope == PS_SB_EVERYONE);
	mmap2(&e, UINT32_MAX, 0xffffffff81000000ULL);
	e.out.len = 0;
	CHECK(ps_sideband__replay_global(e.sb, emit, &e.out) == 0);
	CHECK_EQ_U64(nr_out(&e), 1);
	CHECK(ps_sideband__replay_global(e.sb, refuse, NULL) == -1);
	env_close(&e);
}

/* records too short for what they should say are about no one, and change nothing */
static void test_short(bool swap)
{
	struct env e;
	struct ps_sideband_info i;
	const uint64_t w[2] = { 0, 0 };

	env_open(&e, swap);
	rec_words(&e.b, PERF_RECORD_COMM, 0, w, 1);
	i = apply(&e);
	CHECK(i.scope == PS_SB_EVERYONE && i.tid == 0);
	rec_words(&e.b, PERF_RECORD_FORK, 0, w, 1);
	i = apply(&e);
	CHECK(i.scope == PS_SB_EVERYONE);
	rec_words(&e.b, PERF_RECORD_MMAP2, 0, w, 0);
	i = apply(&e);
	CHECK(i.scope == PS_SB_EVERYONE);
	/* a SWITCH is its trailer's thread; one too short for the trailer is no one's */
	rec_begin(&e.b, PERF_RECORD_SWITCH, 0);
	trailer(&e.b, 10, 11, 5);
	rec_end(&e.b, 0);
	i = apply(&e);
	CHECK(i.scope == PS_SB_THREAD && i.pid == 10 && i.tid == 11);
	rec_words(&e.b, PERF_RECORD_SWITCH, 0, w, 2);
	i = apply(&e);
	CHECK(i.scope == PS_SB_EVERYONE);
	CHECK_EQ_U64(ps_sideband__pid_of(e.sb, 0), PS_SIDEBAND_NO_PID);
	CHECK_EQ_U64(ps_sideband__dropped(e.sb), 0);
	env_close(&e);
}

/* more threads than the cap: new ones are dropped, until exited ones make room */
static void test_cap(void)
{
	struct env e;
	uint32_t t;

	env_open(&e, false);
	for (t = 1; t <= PS_SIDEBAND_MAX_THREADS + 5; t++)
		comm(&e, t, t, "t");
	CHECK_EQ_U64(ps_sideband__dropped(e.sb), 5);
	CHECK_EQ_U64(ps_sideband__pid_of(e.sb, PS_SIDEBAND_MAX_THREADS), PS_SIDEBAND_MAX_THREADS);
	CHECK_EQ_U64(ps_sideband__pid_of(e.sb, PS_SIDEBAND_MAX_THREADS + 1), PS_SIDEBAND_NO_PID);
	task(&e, PERF_RECORD_EXIT, 1, 1, 1, 1);
	comm(&e, 0x7fffffff, 0x7fffffff, "late");
	CHECK_EQ_U64(ps_sideband__dropped(e.sb), 5);
	CHECK_EQ_U64(ps_sideband__pid_of(e.sb, 0x7fffffff), 0x7fffffff);
	CHECK_EQ_U64(ps_sideband__pid_of(e.sb, 1), PS_SIDEBAND_NO_PID);
	env_close(&e);
}

int main(void)
{
	test_threads(false);
	test_threads(true);
	test_maps(false);
	test_maps(true);
	test_short(false);
	test_short(true);
	test_cap();
	return UNIT_DONE("test_sideband");
}
