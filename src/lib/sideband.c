// SPDX-License-Identifier: GPL-2.0-only
/*
 * sideband.c - the bounded per-thread and per-process side-band state, and its replay.
 */
#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "compat.h"
#include "session.h"
#include "sideband.h"
#include "xalloc.h"

#define MAX_PROCESS_BYTES (1u << 20)
#define MAX_GLOBAL_BYTES (4u << 20)
#define GLOBAL_SEEN_SLOTS (1u << 16) /* records told apart from the ones kept */

struct thread {
	uint32_t tid, pid;
	bool used, named, exited;
	char comm[PS_COMM_LEN + 1];
};

struct process {
	uint32_t pid;
	bool used, exited;
	unsigned char *maps; /* MMAP/MMAP2 records, time zeroed, back to back */
	size_t len, cap;
};

struct ps_sideband {
	const struct ps_session *s;
	bool swap;
	struct thread *threads;
	size_t nthreads, thread_slots;
	struct process *procs;
	size_t nprocs, proc_slots;
	size_t map_bytes;
	struct ps_bytes global;
	uint32_t *seen; /* GLOBAL_SEEN_SLOTS offsets + 1 into @global, by the bytes' hash */
	size_t nseen;
	uint64_t dropped;
};

struct ps_sideband *ps_sideband__new(const struct ps_session *s)
{
	struct ps_sideband *sb = calloc(1, sizeof(*sb));

	if (!sb)
		return NULL;
	sb->s = s;
	sb->swap = ps_session__swapped(s);
	return sb;
}

void ps_sideband__delete(struct ps_sideband *sb)
{
	size_t i;

	if (!sb)
		return;
	for (i = 0; i < sb->proc_slots; i++)
		free(sb->procs[i].maps);
	free(sb->procs);
	free(sb->threads);
	free(sb->global.p);
	free(sb->seen);
	free(sb);
}

static size_t hash32(uint32_t v, size_t slots)
{
	return (size_t)((v * 0x9e3779b97f4a7c15ULL) >> 20) & (slots - 1);
}

/* ---- threads ---- */

static struct thread *thread_find(const struct ps_sideband *sb, uint32_t tid)
{
	size_t i;

	if (!sb->thread_slots)
		return NULL;
	for (i = hash32(tid, sb->thread_slots);; i = (i + 1) & (sb->thread_slots - 1)) {
		struct thread *t = &sb->threads[i];

		if (!t->used)
			return NULL;
		if (t->tid == tid)
			return t;
	}
}

/* Rehash into @slots slots, keeping the live threads (and the exited ones when @keep_dead). */
static int thread_rehash(struct ps_sideband *sb, size_t slots, bool keep_dead)
{
	struct thread *old = sb->threads, *nt = calloc(slots, sizeof(*nt));
	size_t i, n = sb->thread_slots;

	if (!nt)
		return -1;
	sb->threads = nt;
	sb->thread_slots = slots;
	sb->nthreads = 0;
	for (i = 0; i < n; i++) {
		size_t j;

		if (!old[i].used || (old[i].exited && !keep_dead))
			continue;
		for (j = hash32(old[i].tid, slots); nt[j].used; j = (j + 1) & (slots - 1))
			;
		nt[j] = old[i];
		sb->nthreads++;
	}
	free(old);
	return 0;
}

static struct thread *thread_get(struct ps_sideband *sb, uint32_t tid)
{
	struct thread *t = thread_find(sb, tid);
	size_t i;

	if (t)
		return t;
	if (sb->nthreads >= PS_SIDEBAND_MAX_THREADS) {
		if (thread_rehash(sb, sb->thread_slots, false) < 0 ||
		    sb->nthreads >= PS_SIDEBAND_MAX_THREADS) {
			sb->dropped++;
			return NULL;
		}
	}
	if (2 * (sb->nthreads + 1) > sb->thread_slots &&
	    thread_rehash(sb, sb->thread_slots ? 2 * sb->thread_slots : 1024, true) < 0)
		return NULL;
	for (i = hash32(tid, sb->thread_slots); sb->threads[i].used;
	     i = (i + 1) & (sb->thread_slots - 1))
		;
	t = &sb->threads[i];
	memset(t, 0, sizeof(*t));
	t->used = true;
	t->tid = tid;
	t->pid = tid;
	sb->nthreads++;
	return t;
}

/* ---- processes ---- */

static struct process *proc_find(const struct ps_sideband *sb, uint32_t pid)
{
	size_t i;

	if (!sb->proc_slots)
		return NULL;
	for (i = hash32(pid, sb->proc_slots);; i = (i + 1) & (sb->proc_slots - 1)) {
		struct process *p = &sb->procs[i];

		if (!p->used)
			return NULL;
		if (p->pid == pid)
			return p;
	}
}

static int proc_rehash(struct ps_sideband *sb, size_t slots, bool keep_dead)
{
	struct process *old = sb->procs, *np = calloc(slots, sizeof(*np));
	size_t i, n = sb->proc_slots;

	if (!np)
		return -1;
	sb->procs = np;
	sb->proc_slots = slots;
	sb->nprocs = 0;
	for (i = 0; i < n; i++) {
		size_t j;

		if (!old[i].used)
			continue;
		if (old[i].exited && !keep_dead) {
			sb->map_bytes -= old[i].cap;
			free(old[i].maps);
			continue;
		}
		for (j = hash32(old[i].pid, slots); np[j].used; j = (j + 1) & (slots - 1))
			;
		np[j] = old[i];
		sb->nprocs++;
	}
	free(old);
	return 0;
}

static struct process *proc_get(struct ps_sideband *sb, uint32_t pid)
{
	struct process *p = proc_find(sb, pid);
	size_t i;

	if (p)
		return p;
	if (sb->nprocs >= PS_SIDEBAND_MAX_THREADS) {
		if (proc_rehash(sb, sb->proc_slots, false) < 0 ||
		    sb->nprocs >= PS_SIDEBAND_MAX_THREADS) {
			sb->dropped++;
			return NULL;
		}
	}
	if (2 * (sb->nprocs + 1) > sb->proc_slots &&
	    proc_rehash(sb, sb->proc_slots ? 2 * sb->proc_slots : 1024, true) < 0)
		return NULL;
	for (i = hash32(pid, sb->proc_slots); sb->procs[i].used; i = (i + 1) & (sb->proc_slots - 1))
		;
	p = &sb->procs[i];
	memset(p, 0, sizeof(*p));
	p->used = true;
	p->pid = pid;
	sb->nprocs++;
	return p;
}

/* Room for @len more bytes in @p's maps, within the caps.  NULL when there is none. */
static unsigned char *proc_room(struct ps_sideband *sb, struct process **pp, size_t len)
{
	struct process *p = *pp;
	size_t cap;
	unsigned char *n;

	if (p->len + len > MAX_PROCESS_BYTES)
		return NULL;
	if (p->len + len <= p->cap)
		return p->maps + p->len;
	cap = ps_grow_cap(p->cap, p->len + len, 1024);
	if (sb->map_bytes + cap - p->cap > PS_SIDEBAND_MAX_BYTES) {
		uint32_t pid = p->pid;

		/* drop the maps of exited processes, then look again */
		if (proc_rehash(sb, sb->proc_slots, false) < 0)
			return NULL;
		p = *pp = proc_find(sb, pid);
		if (!p || sb->map_bytes + cap - p->cap > PS_SIDEBAND_MAX_BYTES)
			return NULL;
	}
	n = realloc(p->maps, cap);
	if (!n)
		return NULL;
	sb->map_bytes += cap - p->cap;
	p->maps = n;
	p->cap = cap;
	return p->maps + p->len;
}

/* ---- records ---- */

/* Zero the time of @rec's sample_id trailer in @copy (its bytes), if it has one. */
static void zero_time(const struct ps_sideband *sb, const struct ps_record *rec,
                      unsigned char *copy)
{
	const struct ps_attr *a = ps_session__attr_of(sb->s, rec);
	uint64_t st, after = 0;
	size_t need;

	if (!a || !(a->flags & PS_ATTR_FLAG_SAMPLE_ID_ALL) || !(a->sample_type & PERF_SAMPLE_TIME))
		return;
	st = a->sample_type;
	after += !!(st & PERF_SAMPLE_ID) + !!(st & PERF_SAMPLE_STREAM_ID) +
	         !!(st & PERF_SAMPLE_CPU) + !!(st & PERF_SAMPLE_IDENTIFIER);
	need = 8 * (after + 1);
	if (rec->size < 8 + need)
		return;
	memset(copy + rec->size - need, 0, 8);
}

static uint64_t hash_bytes(const unsigned char *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	while (n--)
		h = (h ^ *p++) * 0x100000001b3ULL;
	return h;
}

/*
 * Whether the record just kept at @at (@len bytes, time zeroed) repeats one kept before,
 * such as the kernel maps a stream made of several recordings of one machine carries
 * again and again: once is enough for a replay.  Else remember it.
 */
static bool global_repeat(struct ps_sideband *sb, size_t at, size_t len)
{
	const unsigned char *rec = sb->global.p + at;
	size_t i;

	if (!sb->seen && !(sb->seen = calloc(GLOBAL_SEEN_SLOTS, sizeof(*sb->seen))))
		return false;
	for (i = hash_bytes(rec, len) & (GLOBAL_SEEN_SLOTS - 1); sb->seen[i];
	     i = (i + 1) & (GLOBAL_SEEN_SLOTS - 1)) {
		const unsigned char *old = sb->global.p + sb->seen[i] - 1;

		if (ps_get16(old + 6, sb->swap) == len && memcmp(old, rec, len) == 0)
			return true;
	}
	if (sb->nseen < GLOBAL_SEEN_SLOTS / 2) {
		sb->seen[i] = (uint32_t)at + 1;
		sb->nseen++;
	}
	return false;
}

static int keep_global(struct ps_sideband *sb, const struct ps_record *rec)
{
	size_t at = sb->global.len;

	if (ps_bytes__add(&sb->global, rec->data, rec->size, MAX_GLOBAL_BYTES) < 0) {
		sb->dropped++;
		return 0;
	}
	zero_time(sb, rec, sb->global.p + at);
	if (global_repeat(sb, at, rec->size))
		sb->global.len = at;
	return 0;
}

/*
 * Whether the map record just written at @at (time zeroed) repeats one @p holds: a stream
 * of several recordings of one machine maps the same objects into the same pid again and
 * again, which would fill the process's share with copies.
 */
static bool map_repeat(const struct ps_sideband *sb, const struct process *p,
                       const unsigned char *at, size_t len)
{
	size_t off = 0, size;

	for (; off + 8 <= p->len; off += size) {
		size = ps_get16(p->maps + off + 6, sb->swap);
		if (size < 8)
			break;
		if (size == len && memcmp(p->maps + off, at, len) == 0)
			return true;
	}
	return false;
}

static void keep_map(struct ps_sideband *sb, uint32_t pid, const struct ps_record *rec)
{
	struct process *p = proc_get(sb, pid);
	unsigned char *at;

	if (!p || !(at = proc_room(sb, &p, rec->size))) {
		sb->dropped++;
		return;
	}
	memcpy(at, rec->data, rec->size);
	zero_time(sb, rec, at);
	if (!map_repeat(sb, p, at, rec->size))
		p->len += rec->size;
}

/* A new process @pid forked from @ppid starts with a copy of its parent's maps. */
static void inherit_maps(struct ps_sideband *sb, uint32_t pid, uint32_t tid, uint32_t ppid)
{
	struct process *parent = proc_find(sb, ppid), *child;
	size_t off, len;
	unsigned char *at;

	if (!parent || !parent->len)
		return;
	len = parent->len;
	child = proc_get(sb, pid);
	if (!child)
		return;
	child->len = 0;
	if (!(at = proc_room(sb, &child, len))) {
		sb->dropped++;
		return;
	}
	/* the rehash in proc_room() may have moved the parent */
	parent = proc_find(sb, ppid);
	if (!parent || parent->len < len)
		return;
	memcpy(at, parent->maps, len);
	for (off = 0; off + 16 <= len;) {
		uint16_t size = ps_get16(at + off + 6, sb->swap);

		if (size < 16 || off + size > len)
			break;
		ps_put32(at + off + 8, pid, sb->swap);
		ps_put32(at + off + 12, tid, sb->swap);
		off += size;
	}
	child->len = off;
}

int ps_sideband__apply(struct ps_sideband *sb, const struct ps_record *rec,
                       struct ps_sideband_info *info)
{
	const unsigned char *b = rec->data + 8;
	size_t body = rec->size >= 8 ? rec->size - 8u : 0;
	struct thread *t;

	memset(info, 0, sizeof(*info));
	info->scope = PS_SB_EVERYONE;
	switch (rec->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		if (body < 8)
			return 0;
		info->pid = ps_get32(b, sb->swap);
		info->tid = ps_get32(b + 4, sb->swap);
		if (info->pid == UINT32_MAX)
			return keep_global(sb, rec);
		info->scope = PS_SB_PROCESS;
		keep_map(sb, info->pid, rec);
		return 0;
	case PERF_RECORD_KSYMBOL:
		return keep_global(sb, rec);
	case PERF_RECORD_COMM:
		if (body < 9)
			return 0;
		info->scope = PS_SB_THREAD;
		info->pid = ps_get32(b, sb->swap);
		info->tid = ps_get32(b + 4, sb->swap);
		t = thread_get(sb, info->tid);
		if (t) {
			size_t max = body - 8 < PS_COMM_LEN ? body - 8 : PS_COMM_LEN;

			t->pid = info->pid;
			memset(t->comm, 0, sizeof(t->comm));
			memcpy(t->comm, b + 8, strnlen((const char *)b + 8, max));
			t->named = true;
		}
		return 0;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		if (body < 16)
			return 0;
		info->pid = ps_get32(b, sb->swap);
		info->ppid = ps_get32(b + 4, sb->swap);
		info->tid = ps_get32(b + 8, sb->swap);
		info->ptid = ps_get32(b + 12, sb->swap);
		if (rec->type == PERF_RECORD_EXIT) {
			struct process *p;

			info->scope = PS_SB_THREAD;
			t = thread_find(sb, info->tid);
			if (t)
				t->exited = true;
			p = info->pid == info->tid ? proc_find(sb, info->pid) : NULL;
			if (p)
				p->exited = true;
			return 0;
		}
		info->scope = PS_SB_FORK;
		t = thread_get(sb, info->tid);
		if (t) {
			const struct thread *parent = thread_find(sb, info->ptid);

			t->pid = info->pid;
			t->exited = false;
			if (parent && parent->named) {
				memcpy(t->comm, parent->comm, sizeof(t->comm));
				t->named = true;
			}
		}
		if (info->pid != info->ppid)
			inherit_maps(sb, info->pid, info->tid, info->ppid);
		return 0;
	default:
		break;
	}
	/* other kernel records: the thread of their sample_id trailer, if it says one */
	if (rec->type < PS_RECORD_USER_START && rec->type != PERF_RECORD_KSYMBOL &&
	    rec->type != PERF_RECORD_BPF_EVENT && rec->type != PERF_RECORD_TEXT_POKE &&
	    rec->type != PERF_RECORD_CGROUP && rec->type != PERF_RECORD_LOST &&
	    rec->type != PERF_RECORD_LOST_SAMPLES) {
		const struct ps_attr *a = ps_session__attr_of(sb->s, rec);
		uint64_t st = a ? a->sample_type : 0;
		size_t n = 0;

		if (a && (a->flags & PS_ATTR_FLAG_SAMPLE_ID_ALL) && (st & PERF_SAMPLE_TID)) {
			n = a->trailer_words;
			if (body >= 8 * n) {
				const unsigned char *tr = rec->data + rec->size - 8 * n;

				info->scope = PS_SB_THREAD;
				info->pid = ps_get32(tr, sb->swap);
				info->tid = ps_get32(tr + 4, sb->swap);
			}
		}
	}
	return 0;
}

int ps_sideband__replay_global(const struct ps_sideband *sb, ps_sideband_emit emit, void *arg)
{
	return sb->global.len ? emit(arg, sb->global.p, sb->global.len) : 0;
}

int ps_sideband__replay_process(const struct ps_sideband *sb, uint32_t pid, ps_sideband_emit emit,
                                void *arg)
{
	const struct process *p = proc_find(sb, pid);

	return p && p->len ? emit(arg, p->maps, p->len) : 0;
}

int ps_sideband__replay_thread(const struct ps_sideband *sb, uint32_t tid, ps_sideband_emit emit,
                               void *arg)
{
	const struct thread *t = thread_find(sb, tid);
	const struct ps_attr *a = ps_session__attr(sb->s, 0);
	unsigned char rec[8 + 8 + 24 + 6 * 8];
	size_t clen, trailer = 0, size;

	if (!t || !t->named)
		return 0;
	if (a)
		trailer = 8 * (size_t)a->trailer_words; /* 0 without sample_id_all */
	clen = PS_ALIGN8(strlen(t->comm) + 1);
	size = 16 + clen + trailer;
	memset(rec, 0, sizeof(rec));
	ps_put32(rec, PERF_RECORD_COMM, sb->swap);
	ps_put16(rec + 6, (uint16_t)size, sb->swap);
	ps_put32(rec + 8, t->pid, sb->swap);
	ps_put32(rec + 12, t->tid, sb->swap);
	memcpy(rec + 16, t->comm, strlen(t->comm));
	return emit(arg, rec, size);
}

int ps_sideband__replay_all(const struct ps_sideband *sb, ps_sideband_emit emit, void *arg)
{
	size_t i;

	if (ps_sideband__replay_global(sb, emit, arg) < 0)
		return -1;
	for (i = 0; i < sb->proc_slots; i++) {
		const struct process *p = &sb->procs[i];

		if (p->used && !p->exited && p->len && emit(arg, p->maps, p->len) < 0)
			return -1;
	}
	for (i = 0; i < sb->thread_slots; i++) {
		const struct thread *t = &sb->threads[i];

		if (t->used && !t->exited && t->named &&
		    ps_sideband__replay_thread(sb, t->tid, emit, arg) < 0)
			return -1;
	}
	return 0;
}

uint32_t ps_sideband__pid_of(const struct ps_sideband *sb, uint32_t tid)
{
	const struct thread *t = thread_find(sb, tid);

	return t ? t->pid : PS_SIDEBAND_NO_PID;
}

uint64_t ps_sideband__dropped(const struct ps_sideband *sb)
{
	return sb->dropped;
}
