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

/* What a thread and a process begin with: their key in a struct table. */
struct slot {
	uint32_t id; /* the tid, the pid */
	bool used, exited;
};

struct thread {
	struct slot h; /* h.id: the tid */
	uint32_t pid;
	bool named;
	char comm[PS_COMM_LEN + 1];
};

struct process {
	struct slot h;       /* h.id: the pid */
	unsigned char *maps; /* MMAP/MMAP2 records, time zeroed, back to back */
	size_t len, cap;
};

/* An open-addressing table (linear probing) of @slots entries of @size bytes. */
struct table {
	unsigned char *v;
	size_t size, n, slots;
};

struct ps_sideband {
	const struct ps_session *s;
	bool swap;
	struct table threads, procs;
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
	sb->threads.size = sizeof(struct thread);
	sb->procs.size = sizeof(struct process);
	return sb;
}

static struct process *proc_at(const struct ps_sideband *sb, size_t i)
{
	return (struct process *)(sb->procs.v + i * sizeof(struct process));
}

void ps_sideband__delete(struct ps_sideband *sb)
{
	size_t i;

	if (!sb)
		return;
	for (i = 0; i < sb->procs.slots; i++)
		free(proc_at(sb, i)->maps);
	free(sb->procs.v);
	free(sb->threads.v);
	free(sb->global.p);
	free(sb->seen);
	free(sb);
}

static size_t hash32(uint32_t v, size_t slots)
{
	return (size_t)((v * 0x9e3779b97f4a7c15ULL) >> 20) & (slots - 1);
}

/* ---- the tables of threads and processes ---- */

static struct slot *slot_at(const struct table *t, size_t i)
{
	return (struct slot *)(t->v + i * t->size);
}

static struct slot *table_find(const struct table *t, uint32_t id)
{
	size_t i;

	if (!t->slots)
		return NULL;
	for (i = hash32(id, t->slots);; i = (i + 1) & (t->slots - 1)) {
		struct slot *e = slot_at(t, i);

		if (!e->used)
			return NULL;
		if (e->id == id)
			return e;
	}
}

/* what a process lets go of when the table drops it */
static void proc_drop(struct ps_sideband *sb, struct slot *e)
{
	struct process *p = (struct process *)e;

	sb->map_bytes -= p->cap;
	free(p->maps);
}

/*
 * Rehash @t into @slots slots, keeping the live entries (and the exited ones when
 * @keep_dead); @drop, when not NULL, lets go of what an entry left out holds.
 */
static int table_rehash(struct ps_sideband *sb, struct table *t, size_t slots, bool keep_dead,
                        void (*drop)(struct ps_sideband *, struct slot *))
{
	unsigned char *old = t->v, *nv = calloc(slots, t->size);
	size_t i, n = t->slots;

	if (!nv)
		return -1;
	t->v = nv;
	t->slots = slots;
	t->n = 0;
	for (i = 0; i < n; i++) {
		struct slot *e = (struct slot *)(old + i * t->size);
		size_t j;

		if (!e->used)
			continue;
		if (e->exited && !keep_dead) {
			if (drop)
				drop(sb, e);
			continue;
		}
		for (j = hash32(e->id, slots); slot_at(t, j)->used; j = (j + 1) & (slots - 1))
			;
		memcpy(slot_at(t, j), e, t->size);
		t->n++;
	}
	free(old);
	return 0;
}

/*
 * The entry of @id, made (zeroed, *@made set) when there is none.  A full table first
 * lets its exited entries go.  NULL when it is still full (counted as dropped) or memory
 * runs out.
 */
static struct slot *table_get(struct ps_sideband *sb, struct table *t, uint32_t id,
                              void (*drop)(struct ps_sideband *, struct slot *), bool *made)
{
	struct slot *e = table_find(t, id);
	size_t i;

	*made = false;
	if (e)
		return e;
	if (t->n >= PS_SIDEBAND_MAX_THREADS) {
		if (table_rehash(sb, t, t->slots, false, drop) < 0 ||
		    t->n >= PS_SIDEBAND_MAX_THREADS) {
			sb->dropped++;
			return NULL;
		}
	}
	if (2 * (t->n + 1) > t->slots &&
	    table_rehash(sb, t, t->slots ? 2 * t->slots : 1024, true, drop) < 0)
		return NULL;
	for (i = hash32(id, t->slots); slot_at(t, i)->used; i = (i + 1) & (t->slots - 1))
		;
	e = slot_at(t, i);
	memset(e, 0, t->size);
	e->used = true;
	e->id = id;
	t->n++;
	*made = true;
	return e;
}

static struct thread *thread_find(const struct ps_sideband *sb, uint32_t tid)
{
	return (struct thread *)table_find(&sb->threads, tid);
}

static struct thread *thread_get(struct ps_sideband *sb, uint32_t tid)
{
	bool made;
	struct thread *t = (struct thread *)table_get(sb, &sb->threads, tid, NULL, &made);

	if (made)
		t->pid = tid;
	return t;
}

static struct process *proc_find(const struct ps_sideband *sb, uint32_t pid)
{
	return (struct process *)table_find(&sb->procs, pid);
}

static struct process *proc_get(struct ps_sideband *sb, uint32_t pid)
{
	bool made;

	return (struct process *)table_get(sb, &sb->procs, pid, proc_drop, &made);
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
		uint32_t pid = p->h.id;

		/* drop the maps of exited processes, then look again */
		if (table_rehash(sb, &sb->procs, sb->procs.slots, false, proc_drop) < 0)
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

/* the pid and tid an MMAP, MMAP2 or COMM body starts with */
static void pid_tid(struct ps_sideband_info *info, const unsigned char *b, bool swap)
{
	info->pid = ps_get32(b, swap);
	info->tid = ps_get32(b + 4, swap);
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
		pid_tid(info, b, sb->swap);
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
		pid_tid(info, b, sb->swap);
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
				t->h.exited = true;
			p = info->pid == info->tid ? proc_find(sb, info->pid) : NULL;
			if (p)
				p->h.exited = true;
			return 0;
		}
		info->scope = PS_SB_FORK;
		t = thread_get(sb, info->tid);
		if (t) {
			const struct thread *parent = thread_find(sb, info->ptid);

			t->pid = info->pid;
			t->h.exited = false;
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
	ps_put32(rec + 12, t->h.id, sb->swap);
	memcpy(rec + 16, t->comm, strlen(t->comm));
	return emit(arg, rec, size);
}

int ps_sideband__replay_all(const struct ps_sideband *sb, ps_sideband_emit emit, void *arg)
{
	size_t i;

	if (ps_sideband__replay_global(sb, emit, arg) < 0)
		return -1;
	for (i = 0; i < sb->procs.slots; i++) {
		const struct process *p = proc_at(sb, i);

		if (p->h.used && !p->h.exited && p->len && emit(arg, p->maps, p->len) < 0)
			return -1;
	}
	for (i = 0; i < sb->threads.slots; i++) {
		const struct thread *t = (const struct thread *)slot_at(&sb->threads, i);

		if (t->h.used && !t->h.exited && t->named &&
		    ps_sideband__replay_thread(sb, t->h.id, emit, arg) < 0)
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
