// SPDX-License-Identifier: GPL-2.0-only
/*
 * order.c - the time-ordered view: a binary heap of record copies keyed by (time, arrival),
 * released by perf's round rule into a FIFO that ps_order__pop() drains.
 *
 * The rule is that of tools/perf/util/ordered-events.c in perf 6.1, state for state:
 * @max_ts is its max_timestamp (the highest time queued, restarting from the first record
 * queued after the queue ran empty), @next_flush its next_flush (the limit the next
 * FINISHED_ROUND releases up to, 0 at first), @last_released its last_flush (the time of
 * the last record released, against which late records are counted).
 */
#include <stdlib.h>
#include <string.h>

#include "order.h"
#include "session.h"
#include "xalloc.h"

struct held {
	uint64_t time;
	uint64_t arrival;
	size_t cost;
	struct ps_record rec;
	unsigned char bytes[];
};

struct ps_order {
	struct ps_session *s;
	size_t cap;
	size_t bytes;

	struct held **heap; /* queued timed records, a min-heap on (time, arrival) */
	size_t nr, heap_cap;

	struct held **ready; /* released records, a ring in the order they come out */
	size_t ready_head, nr_ready, ready_cap;

	struct held *cur; /* the record the last pop returned */

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
	size_t i;

	if (!o)
		return;
	for (i = 0; i < o->nr; i++)
		free(o->heap[i]);
	for (i = 0; i < o->nr_ready; i++)
		free(o->ready[(o->ready_head + i) % o->ready_cap]);
	free(o->cur);
	free(o->heap);
	free(o->ready);
	free(o);
}

/* ---- the heap ---- */

static bool before(const struct held *a, const struct held *b)
{
	return a->time < b->time || (a->time == b->time && a->arrival < b->arrival);
}

static void sift_up(struct held **h, size_t i)
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

static void sift_down(struct held **h, size_t n, size_t i)
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

static struct held *heap_take(struct ps_order *o)
{
	struct held *top = o->heap[0];

	o->nr--;
	if (o->nr) {
		o->heap[0] = o->heap[o->nr];
		sift_down(o->heap, o->nr, 0);
	}
	return top;
}

/* ---- the ready ring ---- */

static int ready_reserve(struct ps_order *o, size_t want)
{
	struct held **nr;
	size_t n, i;

	if (want <= o->ready_cap)
		return 0;
	n = o->ready_cap ? o->ready_cap : 64;
	while (n < want) {
		if (n > SIZE_MAX / 2)
			return -1;
		n *= 2;
	}
	nr = ps_realloc_array(NULL, n, sizeof(*nr));
	if (!nr)
		return -1;
	for (i = 0; i < o->nr_ready; i++)
		nr[i] = o->ready[(o->ready_head + i) % o->ready_cap];
	free(o->ready);
	o->ready = nr;
	o->ready_cap = n;
	o->ready_head = 0;
	return 0;
}

static int heap_reserve(struct ps_order *o, size_t want)
{
	struct held **nh;
	size_t n;

	if (want <= o->heap_cap)
		return 0;
	n = o->heap_cap ? o->heap_cap : 64;
	while (n < want) {
		if (n > SIZE_MAX / 2)
			return -1;
		n *= 2;
	}
	nh = ps_realloc_array(o->heap, n, sizeof(*nh));
	if (!nh)
		return -1;
	o->heap = nh;
	o->heap_cap = n;
	return 0;
}

/* The caller reserved the room (ready_reserve). */
static void ready_put(struct ps_order *o, struct held *h)
{
	o->ready[(o->ready_head + o->nr_ready) % o->ready_cap] = h;
	o->nr_ready++;
}

/* Move every queued record with a time up to @limit to the ready ring, in time order. */
static void release(struct ps_order *o, uint64_t limit)
{
	while (o->nr && o->heap[0]->time <= limit) {
		struct held *h = heap_take(o);

		o->bytes -= h->cost;
		o->last_released = h->time;
		ready_put(o, h);
	}
}

/* ---- the view ---- */

/* The record's time when perf would queue it: a kernel record with a time not 0 nor ~0. */
static bool timed(const struct ps_order *o, const struct ps_record *rec, uint64_t *t)
{
	if (rec->type >= PS_RECORD_USER_START)
		return false;
	if (!ps_session__record_time(o->s, rec, t))
		return false;
	return *t != 0 && *t != UINT64_MAX;
}

int ps_order__push(struct ps_order *o, const struct ps_record *rec, struct ps_error *err)
{
	struct held *h;
	uint64_t t = 0;
	bool queue = timed(o, rec, &t);
	size_t cost = sizeof(*h) + rec->len;

	/* Room first, so that nothing below can fail halfway. */
	if (rec->len > SIZE_MAX - sizeof(*h) || ready_reserve(o, o->nr_ready + o->nr + 1) ||
	    (queue && heap_reserve(o, o->nr + 1)))
		goto nomem;
	h = malloc(cost);
	if (!h)
		goto nomem;
	memcpy(h->bytes, rec->data, rec->len);
	h->rec = *rec;
	h->rec.data = h->bytes;
	h->time = t;
	h->arrival = o->arrivals++;
	h->cost = cost;

	if (!queue) {
		if (rec->type == PS_RECORD_FINISHED_ROUND) {
			release(o, o->next_flush);
			o->next_flush = o->max_ts;
		}
		ready_put(o, h);
		return 0;
	}

	/* perf: "out of order event", still queued, so it comes out at the next release */
	if (t < o->last_released)
		o->out_of_order++;
	if (o->nr == 0 || t > o->max_ts)
		o->max_ts = t;
	o->heap[o->nr] = h;
	sift_up(o->heap, o->nr);
	o->nr++;
	o->bytes += cost;
	if (o->bytes > o->cap) {
		release(o, UINT64_MAX);
		o->overflows++;
		if (!o->notice_given)
			o->notice_pending = true;
	}
	return 0;
nomem:
	return ps_error__set(err, PS_ENOMEM, NULL, rec->offset,
	                     "out of memory holding %zu records (%zu bytes) for time order", o->nr,
	                     o->bytes);
}

int ps_order__pop(struct ps_order *o, struct ps_record *out)
{
	struct held *h;

	free(o->cur);
	o->cur = NULL;
	if (!o->nr_ready)
		return 0;
	h = o->ready[o->ready_head];
	o->ready_head = (o->ready_head + 1) % o->ready_cap;
	o->nr_ready--;
	o->cur = h;
	if (h->rec.type < PS_RECORD_USER_START)
		ps_session__process_sideband(o->s, &h->rec);
	*out = h->rec;
	return 1;
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
