// SPDX-License-Identifier: GPL-2.0-only
/*
 * order.c - the time-ordered view, without an allocation per record: record copies live in
 * an arena of chunks, queued records form sorted runs merged through a small heap, released
 * records wait in a FIFO that ps_order__pop() drains.
 *
 * The rule is that of tools/perf/util/ordered-events.c in perf 6.1, state for state:
 * @max_ts is its max_timestamp (the highest time queued, restarting from the first record
 * queued after the queue ran empty), @next_flush its next_flush (the limit the next
 * FINISHED_ROUND releases up to, 0 at first), @last_released its last_flush (the time of
 * the last record released, against which late records are counted).
 *
 * The stream is each CPU's ring drained in turn, so it is a few runs already in time order
 * interleaved.  A queued record is appended to a run whose last time is not later than its
 * own (the run it joined last time, most often: O(1)); the runs' first records sit in a
 * min-heap on (time, arrival), so a release costs O(log runs) per record.  A record that
 * fits no run opens a new one; past MAX_RUNS runs it goes to a plain heap of its own.
 *
 * The arena: copies are carved one after another from chunks of CHUNK bytes (a record
 * larger than that gets a chunk of its own); a chunk is reused once the last record in it
 * has been popped and the record after it asked for.  Chunks pinned by a few long-held
 * records count against the cap too (PINNED_SLACK), so memory stays bounded.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "order.h"
#include "session.h"
#include "xalloc.h"

#define CHUNK ((size_t)256 << 10)
#define MAX_RUNS 256
/* arena bytes allowed beyond the cap before everything is released */
#define PINNED_SLACK (4 * CHUNK)
#define FREE_CHUNKS 4

struct chunk {
	struct chunk *prev, *next; /* every chunk, for ps_order__delete() */
	struct chunk *next_free;
	size_t size, used, live;
	uint64_t first_offset; /* the input offset of the first record placed in it */
	unsigned char data[];
};

struct held {
	uint64_t time;
	uint64_t arrival;
	struct held *next;          /* in its run */
	const struct ps_attr *attr; /* the record's, as found when it was pushed, or NULL */
	struct chunk *chunk;
	size_t cost;
	struct ps_record rec;
	unsigned char bytes[];
};

struct run {
	struct held *head, *tail;
};

struct ps_order {
	struct ps_session *s;
	size_t cap;
	size_t bytes;

	struct chunk *chunks, *cur, *free_chunks;
	size_t nr_free, arena_bytes;

	struct run runs[MAX_RUNS];
	unsigned int nr_runs;         /* slots in use: runs[0..nr_runs) */
	unsigned int last_run;        /* the run the last queued record joined */
	unsigned int rheap[MAX_RUNS]; /* non-empty runs, a min-heap on their heads */
	unsigned int nr_rheap;

	struct held **heap; /* queued records that fit no run, a min-heap on (time, arrival) */
	size_t nr_heap, heap_cap;
	size_t nr; /* queued records */

	struct held **ready; /* released records, a ring in the order they come out */
	size_t ready_head, nr_ready, ready_cap;

	struct held *cur_rec; /* the record the last pop returned */

	uint64_t arrivals;
	uint64_t max_ts, next_flush, last_released;
	uint64_t out_of_order, overflows;
	bool notice_pending, notice_given;
};

struct ps_order *ps_order__new(struct ps_session *s, size_t mem_cap)
{
	struct ps_order *o = calloc(1, sizeof(*o));

	if (!o)
		return NULL;
	o->s = s;
	o->cap = mem_cap ? mem_cap : PS_ORDER_DEFAULT_CAP;
	/* perf_session__process_events() names the idle task before the first record */
	if (!ps_session__comm(s, 0))
		ps_session__set_comm(s, 0, 0, "swapper");
	return o;
}

void ps_order__delete(struct ps_order *o)
{
	struct chunk *c, *next;

	if (!o)
		return;
	for (c = o->chunks; c; c = next) {
		next = c->next;
		free(c);
	}
	free(o->heap);
	free(o->ready);
	free(o);
}

/* ---- the arena ---- */

static struct chunk *chunk_new(struct ps_order *o, size_t size)
{
	struct chunk *c;

	if (size == CHUNK && o->free_chunks) {
		c = o->free_chunks;
		o->free_chunks = c->next_free;
		o->nr_free--;
	} else {
		c = malloc(sizeof(*c) + size);
		if (!c)
			return NULL;
		c->size = size;
		c->prev = NULL;
		c->next = o->chunks;
		if (o->chunks)
			o->chunks->prev = c;
		o->chunks = c;
	}
	c->used = 0;
	c->live = 0;
	c->next_free = NULL;
	o->arena_bytes += c->size;
	return c;
}

PS_COLD static void chunk_done(struct ps_order *o, struct chunk *c)
{
	o->arena_bytes -= c->size;
	if (c->size == CHUNK && o->nr_free < FREE_CHUNKS) {
		c->next_free = o->free_chunks;
		o->free_chunks = c;
		o->nr_free++;
		return;
	}
	if (c->prev)
		c->prev->next = c->next;
	else
		o->chunks = c->next;
	if (c->next)
		c->next->prev = c->prev;
	free(c);
}

/* room for @cost bytes, 8-aligned, counted live in its chunk, for the record at input
 * offset @off */
static struct held *arena_alloc(struct ps_order *o, size_t cost, uint64_t off)
{
	size_t need = (cost + 7) & ~(size_t)7;
	struct chunk *c = o->cur;
	struct held *h;

	if (c && c->live == 0) {
		c->used = 0;
		c->first_offset = off;
	}
	if (!c || c->size - c->used < need) {
		c = chunk_new(o, need > CHUNK ? need : CHUNK);
		if (!c)
			return NULL;
		c->first_offset = off; /* records go in in arrival order */
		if (need <= CHUNK) {
			if (o->cur && o->cur->live == 0)
				chunk_done(o, o->cur);
			o->cur = c;
		}
	}
	h = (struct held *)(void *)(c->data + c->used);
	c->used += need;
	c->live++;
	h->chunk = c;
	return h;
}

static void arena_free(struct ps_order *o, struct held *h)
{
	struct chunk *c = h->chunk;

	if (--c->live == 0 && c != o->cur)
		chunk_done(o, c);
}

/* ---- the runs and the heaps ---- */

static inline bool before(const struct held *a, const struct held *b)
{
	return a->time < b->time || (a->time == b->time && a->arrival < b->arrival);
}

static void heap_sift_up(struct held **h, size_t i)
{
	struct held *x = h[i];

	while (i > 0) {
		size_t parent = (i - 1) / 2;

		if (!before(x, h[parent]))
			break;
		h[i] = h[parent];
		i = parent;
	}
	h[i] = x;
}

static void heap_sift_down(struct held **h, size_t n, size_t i)
{
	struct held *x = h[i];

	for (;;) {
		size_t child = 2 * i + 1;

		if (child >= n)
			break;
		if (child + 1 < n && before(h[child + 1], h[child]))
			child++;
		if (!before(h[child], x))
			break;
		h[i] = h[child];
		i = child;
	}
	h[i] = x;
}

static bool run_before(const struct ps_order *o, unsigned int a, unsigned int b)
{
	return before(o->runs[a].head, o->runs[b].head);
}

static void rheap_sift_up(struct ps_order *o, unsigned int i)
{
	unsigned int x = o->rheap[i];

	while (i > 0) {
		unsigned int parent = (i - 1) / 2;

		if (!run_before(o, x, o->rheap[parent]))
			break;
		o->rheap[i] = o->rheap[parent];
		i = parent;
	}
	o->rheap[i] = x;
}

static void rheap_sift_down(struct ps_order *o, unsigned int i)
{
	unsigned int x = o->rheap[i], n = o->nr_rheap;

	for (;;) {
		unsigned int child = 2 * i + 1;

		if (child >= n)
			break;
		if (child + 1 < n && run_before(o, o->rheap[child + 1], o->rheap[child]))
			child++;
		if (!run_before(o, o->rheap[child], x))
			break;
		o->rheap[i] = o->rheap[child];
		i = child;
	}
	o->rheap[i] = x;
}

static int heap_reserve(struct ps_order *o, size_t want)
{
	if (want <= o->heap_cap)
		return 0; /* the common case, without a call per record */
	return ps_grow((void **)&o->heap, &o->heap_cap, want, sizeof(*o->heap), 64);
}

/* Queue @h: on a run that it extends, a new run, or the heap (the caller reserved it). */
static void enqueue(struct ps_order *o, struct held *h)
{
	struct run *r = &o->runs[o->last_run];
	unsigned int i, best = MAX_RUNS, empty = MAX_RUNS;

	h->next = NULL;
	if (o->last_run < o->nr_runs && r->head && r->tail->time <= h->time) {
		r->tail->next = h;
		r->tail = h;
		return;
	}
	for (i = 0; i < o->nr_runs; i++) {
		r = &o->runs[i];
		if (!r->head) {
			if (empty == MAX_RUNS)
				empty = i;
		} else if (r->tail->time <= h->time &&
		           (best == MAX_RUNS || r->tail->time > o->runs[best].tail->time)) {
			best = i;
		}
	}
	if (best != MAX_RUNS) {
		r = &o->runs[best];
		r->tail->next = h;
		r->tail = h;
		o->last_run = best;
		return;
	}
	if (empty == MAX_RUNS && o->nr_runs < MAX_RUNS)
		empty = o->nr_runs++;
	if (empty != MAX_RUNS) {
		r = &o->runs[empty];
		r->head = r->tail = h;
		o->rheap[o->nr_rheap] = empty;
		rheap_sift_up(o, o->nr_rheap++);
		o->last_run = empty;
		return;
	}
	o->heap[o->nr_heap] = h;
	heap_sift_up(o->heap, o->nr_heap++);
}

/* the earliest queued record, NULL when none */
static struct held *first(const struct ps_order *o)
{
	struct held *a = o->nr_rheap ? o->runs[o->rheap[0]].head : NULL;
	struct held *b = o->nr_heap ? o->heap[0] : NULL;

	if (!a)
		return b;
	if (!b)
		return a;
	return before(a, b) ? a : b;
}

/* take @h, the earliest queued record, out of its run or the heap */
static void take_first(struct ps_order *o, struct held *h)
{
	struct run *r;

	if (o->nr_heap && o->heap[0] == h) {
		if (--o->nr_heap) {
			o->heap[0] = o->heap[o->nr_heap];
			heap_sift_down(o->heap, o->nr_heap, 0);
		}
		return;
	}
	r = &o->runs[o->rheap[0]];
	r->head = h->next;
	if (r->head) {
		if (o->nr_rheap > 1) /* alone, it stays on top */
			rheap_sift_down(o, 0);
		return;
	}
	r->tail = NULL;
	if (--o->nr_rheap) {
		o->rheap[0] = o->rheap[o->nr_rheap];
		rheap_sift_down(o, 0);
	}
	/* the highest empty slots are given back, so the scan stays short */
	while (o->nr_runs && !o->runs[o->nr_runs - 1].head)
		o->nr_runs--;
}

/* ---- the ready ring ---- */

static int ready_reserve(struct ps_order *o, size_t want)
{
	struct held **nr;
	size_t n, i;

	if (want <= o->ready_cap)
		return 0;
	n = ps_grow_cap(o->ready_cap, want, 64);
	if (!n)
		return -1;
	nr = ps_realloc_array(NULL, n, sizeof(*nr));
	if (!nr)
		return -1;
	for (i = 0; i < o->nr_ready; i++)
		nr[i] = o->ready[(o->ready_head + i) & (o->ready_cap - 1)];
	free(o->ready);
	o->ready = nr;
	o->ready_cap = n;
	o->ready_head = 0;
	return 0;
}

/* The caller reserved the room (ready_reserve). */
static void ready_put(struct ps_order *o, struct held *h)
{
	o->ready[(o->ready_head + o->nr_ready) & (o->ready_cap - 1)] = h;
	o->nr_ready++;
}

/* Move every queued record with a time up to @limit to the ready ring, in time order. */
static void release(struct ps_order *o, uint64_t limit)
{
	struct held *h;

	while ((h = first(o)) && h->time <= limit) {
		take_first(o, h);
		o->nr--;
		o->bytes -= h->cost;
		o->last_released = h->time;
		ready_put(o, h);
	}
}

/* ---- the view ---- */

/* The record's time when perf would queue it: a kernel record with a time not 0 nor ~0. */
static bool timed(const struct ps_order *o, const struct ps_record *rec, uint64_t *t,
                  const struct ps_attr **attr)
{
	*attr = NULL;
	if (rec->type >= PS_RECORD_USER_START)
		return false;
	if (!ps_session__record_attr_time(o->s, rec, t, attr))
		return false;
	return *t != 0 && *t != UINT64_MAX;
}

static struct held *push(struct ps_order *o, const struct ps_record *rec, bool pin,
                         struct ps_error *err)
{
	struct held *h;
	const struct ps_attr *attr;
	uint64_t t = 0;
	bool queue = timed(o, rec, &t, &attr);
	size_t cost = sizeof(*h) + rec->len;

	/* Room first, so that nothing below can fail halfway. */
	if (rec->len > SIZE_MAX / 2 || ready_reserve(o, o->nr_ready + o->nr + 1) ||
	    (queue && heap_reserve(o, o->nr_heap + 1)))
		goto nomem;
	h = arena_alloc(o, cost, rec->offset);
	if (!h)
		goto nomem;
	if (pin)
		h->chunk->live++; /* ps_order__unpin() gives it back */
	memcpy(h->bytes, rec->data, rec->len);
	h->rec = *rec;
	h->rec.data = h->bytes;
	h->time = queue ? t : 0;
	h->attr = attr;
	h->arrival = o->arrivals++;
	h->cost = cost;

	if (!queue) {
		if (rec->type == PS_RECORD_FINISHED_ROUND) {
			release(o, o->next_flush);
			o->next_flush = o->max_ts;
		}
		ready_put(o, h);
		return h;
	}

	/* perf: "out of order event", still queued, so it comes out at the next release */
	if (t < o->last_released)
		o->out_of_order++;
	if (o->nr == 0 || t > o->max_ts)
		o->max_ts = t;
	enqueue(o, h);
	o->nr++;
	o->bytes += cost;
	if (o->bytes > o->cap || o->arena_bytes > o->cap + PINNED_SLACK) {
		release(o, UINT64_MAX);
		o->overflows++;
		if (!o->notice_given)
			o->notice_pending = true;
	}
	return h;
nomem:
	ps_error__set(err, PS_ENOMEM, NULL, rec->offset,
	              "out of memory holding %zu records (%zu bytes) for time order", o->nr,
	              o->bytes);
	return NULL;
}

int ps_order__push(struct ps_order *o, const struct ps_record *rec, struct ps_error *err)
{
	if (!push(o, rec, false, err))
		return -1;
	return o->nr_ready != 0;
}

const unsigned char *ps_order__push_pinned(struct ps_order *o, const struct ps_record *rec,
                                           struct ps_error *err)
{
	struct held *h = push(o, rec, true, err);

	return h ? h->bytes : NULL;
}

void ps_order__unpin(struct ps_order *o, const unsigned char *bytes)
{
	arena_free(o, (struct held *)(void *)(bytes - offsetof(struct held, bytes)));
}

/* Side-band applied when handed out: a call of its own, so that popping a sample stays
 * a few instructions. */
PS_NOINLINE static void sideband(struct ps_order *o, const struct held *h)
{
	ps_session__process_sideband(o->s, &h->rec);
}

int ps_order__pop(struct ps_order *o, struct ps_record *out)
{
	struct held *h;

	if (o->cur_rec) {
		arena_free(o, o->cur_rec);
		o->cur_rec = NULL;
	}
	if (!o->nr_ready)
		return 0;
	h = o->ready[o->ready_head];
	o->ready_head = (o->ready_head + 1) & (o->ready_cap - 1);
	o->nr_ready--;
	o->cur_rec = h;
	if (h->rec.type < PS_RECORD_USER_START && h->rec.type != PERF_RECORD_SAMPLE)
		sideband(o, h); /* no SAMPLE changes a thread */
	*out = h->rec;
	return 1;
}

const struct ps_attr *ps_order__attr(const struct ps_order *o)
{
	return o->cur_rec ? o->cur_rec->attr : NULL;
}

size_t ps_order__ready(const struct ps_order *o)
{
	return o->nr_ready;
}

uint64_t ps_order__time(const struct ps_order *o)
{
	return o->cur_rec ? o->cur_rec->time : 0;
}

void ps_order__flush_all(struct ps_order *o)
{
	release(o, UINT64_MAX);
}

void ps_order__end(struct ps_order *o)
{
	release(o, UINT64_MAX);
}

bool ps_order__take_overflow_notice(struct ps_order *o)
{
	if (!o->notice_pending)
		return false;
	o->notice_pending = false;
	o->notice_given = true;
	return true;
}

uint64_t ps_order__overflows(const struct ps_order *o)
{
	return o->overflows;
}

uint64_t ps_order__out_of_order(const struct ps_order *o)
{
	return o->out_of_order;
}

size_t ps_order__queued(const struct ps_order *o)
{
	return o->nr;
}

size_t ps_order__queued_bytes(const struct ps_order *o)
{
	return o->bytes;
}

uint64_t ps_order__oldest_offset(const struct ps_order *o)
{
	uint64_t min = UINT64_MAX;

	/* a chunk's records are in arrival order: its first is its oldest */
	for (const struct chunk *c = o->chunks; c; c = c->next)
		if (c->live && c->first_offset < min)
			min = c->first_offset;
	return min;
}
