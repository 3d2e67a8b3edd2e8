// SPDX-License-Identifier: GPL-2.0-only
/*
 * arrival.c - records in arrival order, waiting for their fate (arrival.h).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "arrival.h"
#include "order.h"
#include "xalloc.h"

struct entry {
	const unsigned char *pinned; /* the record's bytes in the time-order view, or NULL */
	void *owned;                 /* or a block taken over from the input, the bytes at data */
	const unsigned char *data;
	size_t off; /* else its bytes in the queue's buffer */
	size_t len;
	uint64_t seq;
	enum ps_arrival_state state;
};

struct ps_arrival {
	struct ps_order *ord;
	struct entry *v;
	size_t cap, head, n; /* a ring: cap is a power of two */
	size_t bytes;
	unsigned char *buf;
	size_t bcap, bstart, bend;
};

static struct entry *at(const struct ps_arrival *q, size_t i)
{
	return &q->v[(q->head + i) & (q->cap - 1)];
}

struct ps_arrival *ps_arrival__new(struct ps_order *ord)
{
	struct ps_arrival *q = calloc(1, sizeof(*q));

	if (q)
		q->ord = ord;
	return q;
}

void ps_arrival__delete(struct ps_arrival *q)
{
	if (!q)
		return;
	while (q->n)
		ps_arrival__pop(q);
	free(q->v);
	free(q->buf);
	free(q);
}

/* room for @len more bytes at the end of the buffer */
static int room(struct ps_arrival *q, size_t len)
{
	size_t live = q->bend - q->bstart, i;

	if (q->bcap - q->bend >= len)
		return 0;
	if (q->bstart >= q->bcap / 2 && q->bcap - live >= len) {
		memmove(q->buf, q->buf + q->bstart, live);
		for (i = 0; i < q->n; i++)
			if (!at(q, i)->data)
				at(q, i)->off -= q->bstart;
		q->bstart = 0;
		q->bend = live;
		return 0;
	}
	if (len > SIZE_MAX / 4 - q->bend)
		return -1;
	return ps_grow((void **)&q->buf, &q->bcap, q->bend + len, 1, 1u << 20);
}

int ps_arrival__push(struct ps_arrival *q, const struct ps_record *rec, const unsigned char *pinned,
                     void *owned, enum ps_arrival_state st)
{
	struct entry *e;

	if (q->n == q->cap) {
		size_t cap = q->cap ? 2 * q->cap : 1024, i;
		struct entry *nv = malloc(cap * sizeof(*nv));

		if (!nv)
			return -1;
		for (i = 0; i < q->n; i++)
			nv[i] = *at(q, i);
		free(q->v);
		q->v = nv;
		q->cap = cap;
		q->head = 0;
	}
	e = &q->v[(q->head + q->n) & (q->cap - 1)];
	e->pinned = pinned;
	e->owned = owned;
	e->data = pinned ? pinned : owned ? rec->data : NULL;
	if (!e->data) {
		if (room(q, rec->len) < 0)
			return -1;
		e->off = q->bend;
		memcpy(q->buf + q->bend, rec->data, rec->len);
		q->bend += rec->len;
	}
	e->len = rec->len;
	e->seq = rec->seq;
	e->state = st;
	q->n++;
	q->bytes += rec->len;
	return 0;
}

void ps_arrival__pop(struct ps_arrival *q)
{
	struct entry *e;

	if (!q->n)
		return;
	e = at(q, 0);
	q->bytes -= e->len;
	if (e->pinned)
		ps_order__unpin(q->ord, e->pinned);
	else if (e->owned)
		free(e->owned);
	else
		q->bstart = e->off + e->len;
	q->head = (q->head + 1) & (q->cap - 1);
	if (--q->n == 0)
		q->bstart = q->bend = 0;
}

/* The queued entry of arrival number @seq, or NULL. */
static struct entry *find(struct ps_arrival *q, uint64_t seq)
{
	size_t lo = 0, hi = q->n;
	uint64_t first;

	if (!q->n)
		return NULL;
	/* records are queued one after another: most often the entry is where its number says */
	first = at(q, 0)->seq;
	if (seq >= first && seq - first < q->n && at(q, (size_t)(seq - first))->seq == seq)
		return at(q, (size_t)(seq - first));
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		struct entry *e = at(q, mid);

		if (e->seq == seq)
			return e;
		if (e->seq < seq)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

void ps_arrival__decide(struct ps_arrival *q, uint64_t seq, bool keep)
{
	struct entry *e = find(q, seq);

	if (e)
		e->state = keep ? PS_ARRIVAL_KEEP : PS_ARRIVAL_DROP;
}

int ps_arrival__first(struct ps_arrival *q, struct ps_record *out)
{
	struct entry *e;

	if (!q->n)
		return 0;
	e = at(q, 0);
	if (e->state == PS_ARRIVAL_PENDING)
		return 0;
	*out = (struct ps_record){ .data = e->data ? e->data : q->buf + e->off,
		                   .len = e->len,
		                   .seq = e->seq };
	return e->state == PS_ARRIVAL_KEEP ? 1 : 2;
}

size_t ps_arrival__len(const struct ps_arrival *q)
{
	return q->n;
}

size_t ps_arrival__bytes(const struct ps_arrival *q)
{
	return q->bytes;
}
