// SPDX-License-Identifier: GPL-2.0-only
/*
 * merge.c - k-way time merge of several streams, with id remapping for inputs of
 * different recordings.
 */
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <traceevent/event-parse.h>

#include "abi.h"
#include "compat.h"
#include "input.h"
#include "merge.h"
#include "order.h"
#include "sample.h"
#include "session.h"
#include "swap.h"
#include "tracedata.h"
#include "tracing.h"
#include "xalloc.h"

#define INPUT_IDLE_MS 10
#define QUIET_POLL_MS 50
#define MAX_HELD (16u << 20)
#define SCRATCH (65536 + 64)

struct idmap {
	uint64_t old, new;
};

struct src {
	struct ps_input *in;
	struct ps_session *s;
	struct ps_order *ord;
	struct ps_swap *turn; /* the input's byte order is not the host's: its records turned */
	bool ended, done;
	bool has_head;
	struct ps_record head;
	uint64_t head_t;      /* the head's time; 0: it has none */
	uint64_t quiet_since; /* ms, 0 when not quiet */
	uint64_t next_poll;   /* ms: a quiet input is only looked at again from then on */
	/* untimed side-band records held until the input's next timed record: each a u32
	 * length, the u64 offset and the record */
	struct ps_bytes pend;
	size_t pend_off;
	struct ps_error err;
	bool failed;
	struct ps_record_copies hdr; /* the header records, kept to be written once merged */
	size_t nattr_seen;           /* ATTR records rewritten so far */
	struct idmap *ids;           /* sorted by old */
	size_t nids;
	uint64_t *attr_new; /* per attr: the first new id */
	size_t nattrs;
	uint64_t default_id;
	struct ps_tp_remap tp; /* its tracepoint ids that the joined tracing data changed */
	char *label;
};

/* which input perf last took the name of thread @tid from (see rename_thread()) */
struct owner {
	uint32_t tid;
	int src; /* the input + 1; 0: an empty slot; -1: no input's name (a FORK) */
};

struct ps_merge {
	struct src *src;
	int n;
	int idle_ms;
	bool swap, same, begun;
	bool distinct; /* the user said the inputs are different recordings */
	/* different recordings: the inputs' threads of one tid share perf's one name */
	struct owner *owners;
	size_t nowners, cap_owners;
	bool owners_full;
	struct src *after; /* whose head follows the COMM record just given */
	unsigned char comm[64 + 8 * 8];
	uint64_t next_id;
	/* the header phase: stashed records still to give out */
	int hsrc;
	size_t hidx;
	int hphase; /* 0: ATTR records, 1: the other header records, 2: done */
	size_t ident_i;
	bool round_pending;
	uint64_t since_round;
	uint64_t late;
	uint64_t last_time;
	struct src *consumed; /* whose head was given last */
	/* every input but the one consumed is steady (steady()) and key[i] is input i's
	 * head time (UINT64_MAX: it has ended): the next pick needs no full scan */
	bool stable;
	uint64_t *key;
	/* the earliest key but the last pick's, and its input (n: none): while the input
	 * picked stays ahead of it, it is picked again without a look at the others */
	uint64_t second_t;
	int second_i;
	struct src *draining; /* whose held untimed records are being given */
	int flush_left;       /* FINISHED_ROUNDs to give before them */
	bool queued;          /* timed records given since perf's queue was last emptied */
	unsigned char *scratch;
	unsigned char *tracing; /* the joined TRACING_DATA record, when inputs had several */
	size_t tracing_len;
	bool tracing_given;
};

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static struct ps_merge *merge_open(int n, const char *const *paths, const int *fds, int idle_ms,
                                   struct ps_error *err)
{
	struct ps_merge *m = calloc(1, sizeof(*m));
	int i;

	if (!m || !(m->src = calloc((size_t)n, sizeof(*m->src))) ||
	    !(m->key = calloc((size_t)n, sizeof(*m->key))) || !(m->scratch = malloc(SCRATCH))) {
		ps_merge__close(m);
		ps_error__set(err, PS_ENOMEM, NULL, PS_NO_OFFSET, "out of memory");
		return NULL;
	}
	m->n = n;
	m->idle_ms = idle_ms;
	for (i = 0; i < n; i++) {
		struct src *s = &m->src[i];

		s->in = fds ? ps_input__open_fd(fds[i], paths[i], PS_INPUT_DECOMPRESS, err) :
		              ps_input__open(paths[i], PS_INPUT_DECOMPRESS, err);
		if (!s->in) {
			ps_merge__close(m);
			return NULL;
		}
		s->s = ps_input__session(s->in);
		s->ord = ps_order__new(s->s, 0);
		if (!s->ord) {
			ps_merge__close(m);
			ps_error__set(err, PS_ENOMEM, NULL, PS_NO_OFFSET, "out of memory");
			return NULL;
		}
		ps_input__set_idle(s->in, INPUT_IDLE_MS);
	}
	return m;
}

struct ps_merge *ps_merge__open(int n, const char *const *paths, int idle_ms, struct ps_error *err)
{
	return merge_open(n, paths, NULL, idle_ms, err);
}

struct ps_merge *ps_merge__open_fds(int n, const int *fds, const char *const *names, int idle_ms,
                                    struct ps_error *err)
{
	return merge_open(n, names, fds, idle_ms, err);
}

void ps_merge__set_wait_hook(struct ps_merge *m, void (*fn)(void *), void *arg)
{
	int i;

	for (i = 0; i < m->n; i++)
		ps_input__set_wait_hook(m->src[i].in, fn, arg);
}

void ps_merge__close(struct ps_merge *m)
{
	int i;

	if (!m)
		return;
	for (i = 0; m->src && i < m->n; i++) {
		struct src *s = &m->src[i];

		ps_order__delete(s->ord);
		ps_swap__delete(s->turn);
		ps_input__close(s->in);
		ps_record_copies__release(&s->hdr);
		free(s->ids);
		free(s->attr_new);
		free(s->label);
		free(s->pend.p);
		ps_tracedata__remap_free(&s->tp);
	}
	free(m->src);
	free(m->key);
	free(m->scratch);
	free(m->tracing);
	free(m->owners);
	free(m);
}

bool ps_merge__swapped(const struct ps_merge *m)
{
	return m->swap;
}

void ps_merge__set_distinct(struct ps_merge *m, bool distinct)
{
	m->distinct = distinct;
}

uint64_t ps_merge__late(const struct ps_merge *m)
{
	uint64_t n = m->late;
	int i;

	for (i = 0; i < m->n; i++)
		n += ps_order__out_of_order(m->src[i].ord);
	return n;
}

/* ---- one input's head ---- */

/* A header record (described in record.h), or FINISHED_INIT; kernel records never are. */
static inline bool is_header(uint32_t type)
{
	return type >= PS_RECORD_USER_START &&
	       (ps_record_type_class(type) == PS_CLASS_HEADER || type == PS_RECORD_FINISHED_INIT);
}

/*
 * An untimed side-band record (perf's synthesized ones, psplit's replays) waits for the
 * next timed record of its input and goes out just before it: perf applies such a record
 * as soon as it reads it, so it must not overtake the records of the other inputs that
 * come before that time.  Return: true when @rec, the head of @s, was held.
 */
static bool hold(struct src *s, const struct ps_record *rec)
{
	size_t need = 12 + rec->len;

	if (s->head_t || rec->type >= PS_RECORD_USER_START)
		return false;
	if (ps_bytes__reserve(&s->pend, need, MAX_HELD) < 0)
		return false;
	memcpy(s->pend.p + s->pend.len, &(uint32_t){ (uint32_t)rec->len }, 4);
	memcpy(s->pend.p + s->pend.len + 4, &rec->offset, 8);
	memcpy(s->pend.p + s->pend.len + 12, rec->data, rec->len);
	s->pend.len += need;
	return true;
}

/* The time of the head record of @s, kept for the many looks at it. */
static void time_head(struct src *s)
{
	s->head_t = ps_order__time(s->ord);
}

/*
 * Try to give @s a head record.  FINISHED_ROUND records are noted, not made heads.
 * @got: what a pop of the view of @s just gave (1: a record, in s->head; 0: none), or -1
 * when it was not popped yet.
 */
static void fill_popped(struct ps_merge *m, struct src *s, int got)
{
	struct ps_record rec;
	bool ready = true; /* records may wait in the view */
	int r;

	while (!s->has_head && !s->done) {
		if (got < 0)
			got = ready ? ps_order__pop(s->ord, &s->head) : 0;
		if (got > 0) {
			got = -1;
			if (s->head.type == PS_RECORD_FINISHED_ROUND) {
				m->round_pending = true;
				continue;
			}
			time_head(s);
			if (hold(s, &s->head))
				continue;
			s->has_head = true;
			s->quiet_since = 0;
			return;
		}
		got = -1;
		if (s->ended) {
			s->done = true;
			return;
		}
		ready = true;
		r = ps_input__next(s->in, &rec, &s->err);
		if (r == 1) {
			/* mostly a record queued for its round: nothing to pop then */
			r = ps_order__push(s->ord, &rec, &s->err);
			ready = r != 0;
			if (r < 0) {
				s->failed = true;
				s->ended = true;
				ps_order__end(s->ord);
			}
		} else if (r == PS_INPUT_IDLE) {
			ps_order__flush_all(s->ord);
			if (ps_order__queued(s->ord) == 0 && !s->has_head) {
				/* nothing held: the input is quiet */
				if (ps_order__pop(s->ord, &s->head) > 0) {
					s->has_head = s->head.type != PS_RECORD_FINISHED_ROUND;
					if (!s->has_head)
						m->round_pending = true;
					else
						time_head(s);
					continue;
				}
				if (!s->quiet_since)
					s->quiet_since = now_ms();
				return;
			}
		} else {
			if (r < 0)
				s->failed = true;
			s->ended = true;
			ps_order__end(s->ord);
		}
	}
}

static void fill(struct ps_merge *m, struct src *s)
{
	fill_popped(m, s, -1);
}

/*
 * fill() for the input whose head was just given: mostly its view holds the next record
 * of the round, a timed one, which becomes the head at once.
 */
static inline void refill(struct ps_merge *m, struct src *s)
{
	int got = ps_order__pop(s->ord, &s->head);

	if (got > 0 && s->head.type != PS_RECORD_FINISHED_ROUND) {
		time_head(s);
		if (s->head_t) { /* hold() holds untimed records only */
			s->has_head = true;
			s->quiet_since = 0;
			return;
		}
	}
	fill_popped(m, s, got);
}

/* ---- begin: the header records ---- */

static int cmp_idmap(const void *a, const void *b)
{
	const struct idmap *x = a, *y = b;

	return x->old < y->old ? -1 : x->old > y->old;
}

/* New ids for every event of @s, from m->next_id on. */
static int plan_ids(struct ps_merge *m, struct src *s)
{
	const struct ps_attr *a;
	size_t i, j, n = 0, k = 0;

	ps_session__for_each_attr(s->s, a, i)
		n += a->nr_ids ? a->nr_ids : 1;
	s->nattrs = ps_session__nr_attrs(s->s);
	s->ids = calloc(n ? n : 1, sizeof(*s->ids));
	s->attr_new = calloc(s->nattrs ? s->nattrs : 1, sizeof(*s->attr_new));
	if (!s->ids || !s->attr_new)
		return -1;
	ps_session__for_each_attr(s->s, a, i) {
		s->attr_new[i] = m->next_id;
		if (!a->nr_ids)
			m->next_id++;
		for (j = 0; j < a->nr_ids; j++) {
			s->ids[k].old = a->ids[j];
			s->ids[k].new = m->next_id++;
			k++;
		}
	}
	s->nids = k;
	qsort(s->ids, k, sizeof(*s->ids), cmp_idmap);
	s->default_id = s->nattrs ? s->attr_new[0] : 0;
	return 0;
}

static uint64_t map_id(const struct src *s, uint64_t old)
{
	size_t lo = 0, hi = s->nids;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->ids[mid].old == old)
			return s->ids[mid].new;
		if (s->ids[mid].old < old)
			lo = mid + 1;
		else
			hi = mid;
	}
	return s->default_id;
}

/* The new id of the event of @a in @s (for records that name no id of their own). */
static uint64_t attr_id(const struct src *s, const struct ps_attr *a)
{
	return a && (size_t)a->idx < s->nattrs ? s->attr_new[a->idx] : s->default_id;
}

static int make_labels(struct ps_merge *m)
{
	char host[256];
	bool distinct = true;
	int i, j;

	for (i = 0; i < m->n; i++) {
		if (!ps_session__feature_string(m->src[i].s, PS_FEAT_HOSTNAME, host,
		                                sizeof(host)) ||
		    !host[0])
			distinct = false;
		m->src[i].label = strdup(host);
		if (!m->src[i].label)
			return -1;
	}
	for (i = 0; distinct && i < m->n; i++)
		for (j = 0; j < i; j++)
			if (strcmp(m->src[i].label, m->src[j].label) == 0)
				distinct = false;
	if (distinct)
		return 0;
	/* the hosts do not tell the inputs apart: their names do */
	for (i = 0; i < m->n; i++) {
		free(m->src[i].label);
		m->src[i].label = strdup(ps_input__name(m->src[i].in));
		if (!m->src[i].label)
			return -1;
	}
	return 0;
}

/* The first TRACING_DATA record of @s, or NULL. */
static const struct ps_record_copy *tracing_of(const struct ps_merge *m, const struct src *s)
{
	size_t i;

	for (i = 0; i < s->hdr.n; i++) {
		const struct ps_record_copy *h = &s->hdr.v[i];
		size_t hs;

		if (h->type != PS_RECORD_HEADER_TRACING_DATA || h->len < 12)
			continue;
		hs = ps_get16(h->data + 6, m->swap);
		if (hs >= 12 && hs <= h->len)
			return h;
	}
	return NULL;
}

/*
 * perf reads one TRACING_DATA: when the inputs carry different ones, one record with the
 * formats of all.  Tracepoint ids are the kernel's of each boot: a format whose id an
 * earlier input gave to another event gets a new id, and its input's records are
 * rewritten to it (s->tp).
 * Return: 0, or -1 with @err set (a blob that cannot be read, no id left, no memory).
 */
static int join_tracing(struct ps_merge *m, struct ps_error *err)
{
	const unsigned char **blobs = calloc((size_t)m->n, sizeof(*blobs));
	struct ps_tp_remap *remap = calloc((size_t)m->n, sizeof(*remap));
	size_t *lens = calloc((size_t)m->n, sizeof(*lens)), n = 0, out_len, hsize;
	const struct ps_record_copy *first = NULL, *h;
	int *which = calloc((size_t)m->n, sizeof(*which)), k, r = -1;
	bool differ = false;
	unsigned char *out;

	if (!blobs || !remap || !lens || !which) {
		ps_error__set(err, PS_ENOMEM, NULL, PS_NO_OFFSET, "out of memory");
		goto done;
	}
	for (k = 0; k < m->n; k++) {
		h = tracing_of(m, &m->src[k]);
		if (!h)
			continue;
		if (!first)
			first = h;
		else if (first->len != h->len || memcmp(first->data, h->data, h->len) != 0)
			differ = true;
		hsize = ps_get16(h->data + 6, m->swap);
		blobs[n] = h->data + hsize;
		lens[n] = h->len - hsize;
		which[n++] = k;
	}
	if (!differ) {
		r = 0;
		goto done;
	}
	if (ps_tracedata__merge(n, blobs, lens, &out, &out_len, remap) < 0) {
		ps_error__set(err, PS_ECORRUPT, NULL, PS_NO_OFFSET,
		              "the tracepoint formats of the inputs cannot be joined into one "
		              "(damaged tracing data, or more than 65535 tracepoint ids)");
		goto done;
	}
	for (k = 0; k < (int)n; k++) {
		m->src[which[k]].tp = remap[k];
		memset(&remap[k], 0, sizeof(remap[k]));
	}
	hsize = ps_get16(first->data + 6, m->swap);
	m->tracing = malloc(hsize + out_len);
	if (!m->tracing) {
		free(out);
		ps_error__set(err, PS_ENOMEM, NULL, PS_NO_OFFSET, "out of memory");
		goto done;
	}
	memcpy(m->tracing, first->data, hsize);
	ps_put32(m->tracing + 8, (uint32_t)out_len, m->swap);
	memcpy(m->tracing + hsize, out, out_len);
	m->tracing_len = hsize + out_len;
	free(out);
	r = 0;
done:
	for (k = 0; remap && k < m->n; k++)
		ps_tracedata__remap_free(&remap[k]);
	free(remap);
	free(blobs);
	free(lens);
	free(which);
	return r;
}

/* Header records of input @s > 0 of another recording that would repeat the first's. */
static bool dropped_header(uint32_t type)
{
	switch (type) {
	case PS_RECORD_HEADER_EVENT_TYPE:
	case PS_RECORD_THREAD_MAP:
	case PS_RECORD_CPU_MAP:
	case PS_RECORD_TIME_CONV:
	case PS_RECORD_HEADER_FEATURE:
	case PS_RECORD_FINISHED_INIT:
	case PS_RECORD_AUXTRACE_INFO:
	case PS_RECORD_STAT_CONFIG:
		return true;
	default:
		return false;
	}
}

/* Whether the merged stream carries a header record of type @type of input @s. */
static bool header_kept(const struct ps_merge *m, const struct src *s, uint32_t type)
{
	bool first = s == &m->src[0];

	if (m->same)
		return first || !ps_record_type_repeats_per_piece(type);
	return first || !dropped_header(type);
}

/* The header record @h of input @s, turned to the host's byte order in place. */
static int turn_stash(struct src *s, struct ps_record_copy *h, struct ps_error *err)
{
	bool sw = ps_input__swapped(s->in);
	struct ps_record rec = { .data = h->data, .len = h->len, .type = h->type };
	const unsigned char *b;

	rec.offset = h->offset;
	rec.misc = ps_get16(h->data + 4, sw);
	rec.size = ps_get16(h->data + 6, sw);
	b = ps_swap__record(s->turn, &rec, ps_input__name(s->in), err);
	if (!b)
		return -1;
	memcpy(h->data, b, h->len);
	return 0;
}

/* The payload of the first header record of @s of type @type (and feature @feat). */
static const struct ps_record_copy *header_of(const struct src *s, uint32_t type, uint64_t feat)
{
	size_t i;

	for (i = 0; i < s->hdr.n; i++) {
		const struct ps_record_copy *h = &s->hdr.v[i];

		if (h->type != type)
			continue;
		if (type != PS_RECORD_HEADER_FEATURE ||
		    (h->len >= 16 && ps_get64(h->data + 8, ps_input__swapped(s->in)) == feat))
			return h;
	}
	return NULL;
}

/*
 * Whether inputs @a and @b are pieces of one recording: the same events with the same ids,
 * and, as psplit copies them into every piece, the same tracing data and the same
 * features (host name, clock data, command line...) where both have them.  Two hosts
 * running the same command with the same ids differ in some feature (or the user says
 * so: --distinct).
 */
static bool same_recording(const struct ps_merge *m, const struct src *a, const struct src *b)
{
	const struct ps_record_copy *x, *y;
	size_t i;

	(void)m;
	if (!ps_session__same_attrs(a->s, b->s))
		return false;
	if (ps_input__swapped(a->in) != ps_input__swapped(b->in))
		return false;
	x = header_of(a, PS_RECORD_HEADER_TRACING_DATA, 0);
	y = header_of(b, PS_RECORD_HEADER_TRACING_DATA, 0);
	if (x && y && (x->len != y->len || memcmp(x->data, y->data, x->len) != 0))
		return false;
	for (i = 0; i < a->hdr.n; i++) {
		x = &a->hdr.v[i];
		if (x->type != PS_RECORD_HEADER_FEATURE || x->len < 16)
			continue;
		y = header_of(b, PS_RECORD_HEADER_FEATURE,
		              ps_get64(x->data + 8, ps_input__swapped(a->in)));
		if (y && (x->len != y->len || memcmp(x->data, y->data, x->len) != 0))
			return false;
	}
	return true;
}

int ps_merge__begin(struct ps_merge *m, struct ps_error *err)
{
	int i;

	for (i = 0; i < m->n; i++) {
		struct src *s = &m->src[i];

		for (;;) {
			fill(m, s);
			if (s->has_head && is_header(s->head.type)) {
				if (ps_record_copies__add(&s->hdr, &s->head) < 0)
					return ps_error__set(err, PS_ENOMEM, NULL, PS_NO_OFFSET,
					                     "out of memory");
				s->has_head = false;
				continue;
			}
			if (s->has_head || s->done ||
			    (s->quiet_since && ps_session__nr_attrs(s->s)))
				break;
		}
		if (s->failed && !s->has_head) {
			*err = s->err;
			return -1;
		}
		/* the merged stream is in the host's byte order */
		if (ps_input__swapped(s->in) && !(s->turn = ps_swap__new(s->s, PS_SWAP_STRICT)))
			return ps_error__set(err, PS_ENOMEM, NULL, PS_NO_OFFSET, "out of memory");
	}
	m->same = !m->distinct;
	for (i = 1; i < m->n && m->same; i++)
		m->same = same_recording(m, &m->src[0], &m->src[i]);
	for (i = 0; i < m->n; i++) {
		struct src *s = &m->src[i];
		size_t j;

		for (j = 0; s->turn && j < s->hdr.n; j++)
			if (header_kept(m, s, s->hdr.v[j].type) &&
			    turn_stash(s, &s->hdr.v[j], err) < 0)
				return -1;
	}
	if (!m->same) {
		m->next_id = 1;
		for (i = 0; i < m->n; i++)
			if (plan_ids(m, &m->src[i]) < 0)
				return ps_error__set(err, PS_ENOMEM, NULL, PS_NO_OFFSET,
				                     "out of memory");
		if (make_labels(m) < 0)
			return ps_error__set(err, PS_ENOMEM, NULL, PS_NO_OFFSET, "out of memory");
		if (join_tracing(m, err) < 0)
			return -1;
	}
	m->begun = true;
	return 0;
}

/* ---- rewriting the records of different recordings ---- */

static size_t trailer_words(uint64_t st)
{
	return !!(st & PERF_SAMPLE_TID) + !!(st & PERF_SAMPLE_TIME) + !!(st & PERF_SAMPLE_ID) +
	       !!(st & PERF_SAMPLE_STREAM_ID) + !!(st & PERF_SAMPLE_CPU) +
	       !!(st & PERF_SAMPLE_IDENTIFIER);
}

static void remap_at(const struct src *s, unsigned char *p, bool swap)
{
	ps_put64(p, map_id(s, ps_get64(p, swap)), swap);
}

/* ATTR: PERF_SAMPLE_IDENTIFIER added, the ids replaced by the new ones. */
static int rewrite_attr(struct ps_merge *m, struct src *s, const struct ps_record_copy *h,
                        struct ps_record *out)
{
	const struct ps_attr *a = ps_session__attr(s->s, s->nattr_seen);
	unsigned char *o = m->scratch;
	uint32_t asize;
	size_t i, len;

	if (!a || h->len < 8 + 8)
		return -1;
	asize = ps_get32(h->data + 8 + PS_ATTR_SIZE, m->swap);
	if (!asize)
		asize = PS_ATTR_SIZE_VER0;
	if (8 + (size_t)asize > h->len)
		return -1;
	len = 8 + asize + 8 * (a->nr_ids ? a->nr_ids : 1);
	if (len > 65535)
		return -1;
	memcpy(o, h->data, 8 + asize);
	ps_put64(o + 8 + PS_ATTR_SAMPLE_TYPE, a->sample_type | PERF_SAMPLE_IDENTIFIER, m->swap);
	if (a->type == PERF_TYPE_TRACEPOINT)
		ps_put64(o + 8 + PS_ATTR_CONFIG, ps_tracedata__remap_id(&s->tp, a->config),
		         m->swap);
	if (!a->nr_ids)
		ps_put64(o + 8 + asize, s->attr_new[a->idx], m->swap);
	for (i = 0; i < a->nr_ids; i++)
		ps_put64(o + 8 + asize + 8 * i, map_id(s, a->ids[i]), m->swap);
	ps_put16(o + 6, (uint16_t)len, m->swap);
	s->nattr_seen++;
	out->data = o;
	out->len = len;
	out->size = (uint16_t)len;
	return 0;
}

/* The EVENT_UPDATE that says which input the event of new id @id came from. */
static void identity_record(struct ps_merge *m, const struct src *s, uint64_t id,
                            struct ps_record *out)
{
	size_t l = strlen(s->label), len;
	unsigned char *o = m->scratch;

	if (l > 1024)
		l = 1024;
	len = 24 + PS_ALIGN8(l + 1);
	memset(o, 0, len);
	ps_put32(o, PS_RECORD_EVENT_UPDATE, m->swap);
	ps_put16(o + 6, (uint16_t)len, m->swap);
	ps_put64(o + 8, PS_EVENT_UPDATE_INPUT, m->swap);
	ps_put64(o + 16, id, m->swap);
	memcpy(o + 24, s->label, l);
	out->data = o;
	out->len = len;
	out->type = PS_RECORD_EVENT_UPDATE;
	out->size = (uint16_t)len;
}

/*
 * A header record of input @s, as the merged stream carries it.
 * Return: 1 to give @out, 0 to drop it, -1 when it cannot be rewritten.
 */
static int header_out(struct ps_merge *m, struct src *s, const struct ps_record_copy *h,
                      struct ps_record *out)
{
	bool first = s == &m->src[0];
	size_t i;

	out->data = h->data;
	out->len = h->len;
	out->type = h->type;
	out->offset = h->offset;
	out->size = h->len >= 8 ? ps_get16(h->data + 6, m->swap) : 0;
	if (!header_kept(m, s, h->type))
		return 0;
	if (m->same)
		return 1;
	if (h->type == PS_RECORD_HEADER_TRACING_DATA && m->tracing) {
		if (m->tracing_given)
			return 0;
		m->tracing_given = true;
		out->data = m->tracing;
		out->len = m->tracing_len;
		return 1;
	}
	if (h->type == PS_RECORD_HEADER_TRACING_DATA && !first) {
		int j;

		/* the same formats from an input before: once is enough */
		for (j = 0; &m->src[j] != s; j++)
			for (i = 0; i < m->src[j].hdr.n; i++)
				if (m->src[j].hdr.v[i].len == h->len &&
				    memcmp(m->src[j].hdr.v[i].data, h->data, h->len) == 0)
					return 0;
		return 1;
	}
	if (h->type == PS_RECORD_HEADER_ATTR)
		return rewrite_attr(m, s, h, out) < 0 ? -1 : 1;
	if (h->type == PS_RECORD_EVENT_UPDATE || h->type == PS_RECORD_ID_INDEX) {
		if (h->len > SCRATCH || h->len < 24)
			return -1;
		memcpy(m->scratch, h->data, h->len);
		out->data = m->scratch;
		if (h->type == PS_RECORD_EVENT_UPDATE) {
			remap_at(s, m->scratch + 16, m->swap);
		} else {
			uint64_t nr = ps_get64(m->scratch + 8, m->swap), esz;

			esz = nr ? (h->len - 16) / nr : 0;
			if (esz < 32)
				return nr ? -1 : 1;
			for (i = 0; i < nr; i++)
				remap_at(s, m->scratch + 16 + i * esz, m->swap);
		}
	}
	return 1;
}

/*
 * The common_type of a tracepoint sample's raw data at @raw (@size bytes, in the output's
 * byte order), made the id its format has in the joined tracing data.
 */
static void retype(const struct src *s, const struct ps_attr *a, unsigned char *raw, uint32_t size,
                   bool swap)
{
	struct tep_format_field *f = a->tp ? ps_tracing__field(a->tp, "common_type") : NULL;
	unsigned int at = f ? (unsigned int)f->offset : 0, len = f ? (unsigned int)f->size : 2;
	uint64_t v;

	if ((uint64_t)at + len > size || (len != 2 && len != 4))
		return;
	v = len == 2 ? ps_get16(raw + at, swap) : ps_get32(raw + at, swap);
	v = ps_tracedata__remap_id(&s->tp, v);
	if (len == 2 && v <= UINT16_MAX)
		ps_put16(raw + at, (uint16_t)v, swap);
	else if (len == 4)
		ps_put32(raw + at, (uint32_t)v, swap);
}

/*
 * A SAMPLE or kernel record of input @s, with its ids made the new ones.  @rec is the
 * record as its input gave it, @bytes the same record in the output's byte order.
 */
static int rewrite_record(struct ps_merge *m, struct src *s, const struct ps_record *rec,
                          const unsigned char *bytes, struct ps_record *out, struct ps_error *err)
{
	const struct ps_attr *a = ps_session__attr_of(s->s, rec);
	unsigned char *o = m->scratch;
	bool swap = m->swap, add;
	uint64_t st;
	size_t len = rec->len, extra;

	*out = *rec;
	out->data = bytes;
	if (rec->type >= PS_RECORD_USER_START || !a)
		return 0;
	st = a->sample_type;
	add = !(st & PERF_SAMPLE_IDENTIFIER);
	if (rec->type == PERF_RECORD_SAMPLE) {
		struct ps_sample smp;
		size_t off = 8;

		if (ps_sample__parse(s->s, rec, &smp, ps_input__name(s->in), err) < 0)
			return -1;
		extra = add ? 8 : 0;
		if (rec->size + extra > 65535)
			return ps_error__set(err, PS_ECAP, ps_input__name(s->in), rec->offset,
			                     "no room for the sample's new id");
		memcpy(o, bytes, 8);
		if (add)
			ps_put64(o + 8, attr_id(s, a), swap);
		memcpy(o + 8 + extra, bytes + 8, len - 8);
		if (!add) {
			remap_at(s, o + 8, swap);
			off += 8;
		}
		off += extra;
		off += 8 * (!!(st & PERF_SAMPLE_IP) + !!(st & PERF_SAMPLE_TID) +
		            !!(st & PERF_SAMPLE_TIME) + !!(st & PERF_SAMPLE_ADDR));
		if (st & PERF_SAMPLE_ID)
			remap_at(s, o + off, swap);
		if ((st & PERF_SAMPLE_READ) && (a->read_format & PERF_FORMAT_ID) && smp.read) {
			uint64_t rf = a->read_format, nr, i, step;
			unsigned char *r = o + (smp.read - rec->data) + extra;
			size_t head = 8 * (!!(rf & PERF_FORMAT_TOTAL_TIME_ENABLED) +
			                   !!(rf & PERF_FORMAT_TOTAL_TIME_RUNNING));

			step = 16 + 8 * !!(rf & PERF_FORMAT_LOST);
			if (rf & PERF_FORMAT_GROUP) {
				nr = ps_get64(r, swap);
				for (i = 0; i < nr && 8 + head + i * step + 16 <= smp.read_len; i++)
					remap_at(s, r + 8 + head + i * step + 8, swap);
			} else if (8 + head + 8 <= smp.read_len) {
				remap_at(s, r + 8 + head, swap);
			}
		}
		if (a->type == PERF_TYPE_TRACEPOINT && s->tp.n && smp.raw)
			retype(s, a, o + (smp.raw - rec->data) + extra, smp.raw_size, swap);
		len += extra;
	} else {
		memcpy(o, bytes, len);
		if (rec->type == PERF_RECORD_LOST && rec->size >= 16)
			remap_at(s, o + 8, swap);
		if ((rec->type == PERF_RECORD_THROTTLE || rec->type == PERF_RECORD_UNTHROTTLE) &&
		    rec->size >= 24)
			remap_at(s, o + 16, swap);
		if ((a->flags & PS_ATTR_FLAG_SAMPLE_ID_ALL) &&
		    ps_record_type_has_trailer(rec->type)) {
			size_t n = trailer_words(st), t;

			if (rec->size < 8 + 8 * n || len != rec->size)
				return 0;
			t = rec->size - 8 * n +
			    8 * (!!(st & PERF_SAMPLE_TID) + !!(st & PERF_SAMPLE_TIME));
			if (st & PERF_SAMPLE_ID) {
				ps_put64(o + t,
				         attr_id(s, a) == s->default_id && !ps_get64(o + t, swap) ?
				                 s->default_id :
				                 map_id(s, ps_get64(o + t, swap)),
				         swap);
				t += 8;
			}
			t += 8 * (!!(st & PERF_SAMPLE_STREAM_ID) + !!(st & PERF_SAMPLE_CPU));
			if (!add)
				ps_put64(o + t, attr_id(s, a), swap);
			else if (rec->size + 8 <= 65535) {
				ps_put64(o + len, attr_id(s, a), swap);
				len += 8;
			}
		}
	}
	ps_put16(o + 6, (uint16_t)len, swap);
	out->data = o;
	out->len = len;
	out->size = (uint16_t)len;
	return 0;
}

/* ---- thread names: one per tid in perf, one per input and tid in the inputs ---- */

static struct owner *owner_slot(struct ps_merge *m, uint32_t tid)
{
	size_t mask = m->cap_owners - 1, i = (size_t)(tid * 0x9e3779b1u) & mask;

	while (m->owners[i].src && m->owners[i].tid != tid)
		i = (i + 1) & mask;
	return &m->owners[i];
}

/* Note that perf's name of @tid now comes from input @src (-1: from none). */
static void set_owner(struct ps_merge *m, uint32_t tid, int src)
{
	struct owner *o;

	if (!m->owners || m->nowners * 2 >= m->cap_owners) {
		size_t cap = m->cap_owners ? 2 * m->cap_owners : 1024, i;
		struct owner *old = m->owners, *n;

		if (cap > (8u << 20) || !(n = calloc(cap, sizeof(*n)))) {
			m->owners_full = true; /* threads past the cap keep perf's one name */
			if (!m->owners)
				return;
			o = owner_slot(m, tid);
			if (o->src)
				o->src = src;
			return;
		}
		m->owners = n;
		for (i = 0; i < m->cap_owners; i++)
			if (old[i].src)
				*owner_slot(m, old[i].tid) = old[i];
		m->cap_owners = cap;
		free(old);
	}
	o = owner_slot(m, tid);
	if (!o->src) {
		o->tid = tid;
		m->nowners++;
	}
	o->src = src;
}

static int get_owner(struct ps_merge *m, uint32_t tid)
{
	return m->owners ? owner_slot(m, tid)->src : 0;
}

/* A COMM or FORK record of input @s passes: perf names the thread as @s does. */
static void note_names(struct ps_merge *m, const struct src *s, const struct ps_record *rec)
{
	bool sw = ps_input__swapped(s->in);
	int me = (int)(s - m->src) + 1, parent;

	if (m->same || m->n < 2)
		return;
	if (rec->type == PERF_RECORD_COMM && rec->len >= 16) {
		set_owner(m, ps_get32(rec->data + 12, sw), me);
	} else if (rec->type == PERF_RECORD_FORK && rec->len >= 24) {
		/* perf names the child after the parent as perf names it */
		parent = get_owner(m, ps_get32(rec->data + 20, sw));
		set_owner(m, ps_get32(rec->data + 16, sw), parent == me || !parent ? me : -1);
	}
}

/*
 * Before the SAMPLE at the head of @s: when perf's name of its thread came from another
 * input, a COMM record in @rec that gives it the name @s knows, at the sample's time and
 * with the sample's event, so that perf applies it just before the sample.
 * Return: 1 with @rec filled, 0 when none is needed (or cannot be timed), -1 with @err.
 */
static int rename_thread(struct ps_merge *m, struct src *s, struct ps_record *rec,
                         struct ps_error *err)
{
	int me = (int)(s - m->src) + 1, owner;
	const struct ps_attr *a;
	struct ps_sample smp;
	char unnamed[16];
	const char *name;
	unsigned char *o = m->comm;
	uint64_t st, id;
	size_t l, len, t;

	if (ps_sample__parse(s->s, &s->head, &smp, ps_input__name(s->in), err) < 0)
		return -1;
	a = smp.attr;
	st = a->sample_type | PERF_SAMPLE_IDENTIFIER;
	if (!(a->sample_type & PERF_SAMPLE_TID) || !(a->sample_type & PERF_SAMPLE_TIME) ||
	    !(a->flags & PS_ATTR_FLAG_SAMPLE_ID_ALL))
		return 0;
	owner = get_owner(m, smp.tid);
	name = ps_session__comm(s->s, smp.tid);
	if (owner == me || (!owner && !name))
		goto mine;
	if (!owner && m->owners_full)
		return 0;
	if (!name) {
		snprintf(unnamed, sizeof(unnamed), ":%u", smp.tid);
		name = unnamed;
	}
	l = strnlen(name, 63);
	len = 16 + PS_ALIGN8(l + 1) + 8 * trailer_words(st);
	memset(o, 0, len);
	ps_put32(o, PERF_RECORD_COMM, m->swap);
	ps_put16(o + 6, (uint16_t)len, m->swap);
	ps_put32(o + 8, smp.pid, m->swap);
	ps_put32(o + 12, smp.tid, m->swap);
	memcpy(o + 16, name, l);
	t = 16 + PS_ALIGN8(l + 1);
	id = a->sample_type & PERF_SAMPLE_IDENTIFIER ? map_id(s, smp.identifier) : attr_id(s, a);
	ps_put32(o + t, smp.pid, m->swap);
	ps_put32(o + t + 4, smp.tid, m->swap);
	ps_put64(o + t + 8, smp.time, m->swap);
	t += 16;
	if (st & PERF_SAMPLE_ID) {
		ps_put64(o + t, map_id(s, smp.id), m->swap);
		t += 8;
	}
	if (st & PERF_SAMPLE_STREAM_ID) {
		ps_put64(o + t, smp.stream_id, m->swap);
		t += 8;
	}
	if (st & PERF_SAMPLE_CPU) {
		ps_put32(o + t, smp.cpu, m->swap);
		t += 8;
	}
	ps_put64(o + t, id, m->swap);
	memset(rec, 0, sizeof(*rec));
	rec->data = o;
	rec->len = len;
	rec->size = (uint16_t)len;
	rec->type = PERF_RECORD_COMM;
	set_owner(m, smp.tid, me);
	return 1;
mine:
	if (!owner)
		set_owner(m, smp.tid, me);
	return 0;
}

/*
 * A SAMPLE or side-band record of input @s as the merged stream carries it: in the host's
 * byte order, with the new ids when the inputs are different recordings.
 */
static int record_out(struct ps_merge *m, struct src *s, const struct ps_record *rec,
                      struct ps_record *out, struct ps_error *err)
{
	const unsigned char *bytes = rec->data;

	if (s->turn) {
		bytes = ps_swap__record(s->turn, rec, ps_input__name(s->in), err);
		if (!bytes)
			return -1;
	}
	if (m->same) {
		*out = *rec;
		out->data = bytes;
		return 0;
	}
	if (rec->type == PERF_RECORD_COMM || rec->type == PERF_RECORD_FORK)
		note_names(m, s, rec);
	return rewrite_record(m, s, rec, bytes, out, err);
}

/* ---- next ---- */

static bool head_time(const struct src *s, uint64_t *t)
{
	*t = s->head_t;
	return s->head_t != 0;
}

/*
 * The header records: first the ATTR records of every input (each input's followed by the
 * records that say which input its events came from), then the others: perf binds the
 * tracepoint formats of TRACING_DATA to the events declared before it.
 */
static int give_header(struct ps_merge *m, struct ps_record *rec, struct ps_error *err)
{
	while (m->hphase < 2) {
		struct src *s;
		const struct ps_record_copy *h;
		int r;

		if (m->hsrc >= m->n) {
			m->hphase++;
			m->hsrc = 0;
			m->hidx = 0;
			continue;
		}
		s = &m->src[m->hsrc];
		if (m->hidx >= s->hdr.n) {
			if (m->hphase == 0 && !m->same && m->ident_i < s->nattrs) {
				identity_record(m, s, s->attr_new[m->ident_i++], rec);
				return 1;
			}
			m->hsrc++;
			m->hidx = 0;
			m->ident_i = 0;
			continue;
		}
		h = &s->hdr.v[m->hidx++];
		if ((h->type == PS_RECORD_HEADER_ATTR) != (m->hphase == 0))
			continue;
		r = header_out(m, s, h, rec);
		if (r < 0)
			return ps_error__set(
			        err, PS_ECORRUPT, ps_input__name(s->in), PS_NO_OFFSET,
			        "a header record that cannot be rewritten with new ids");
		if (r > 0)
			return 1;
	}
	return 0;
}

static const unsigned char *round_record(bool swap)
{
	static unsigned char rec[2][8];

	ps_put32(rec[swap], PS_RECORD_FINISHED_ROUND, swap);
	ps_put16(rec[swap] + 4, 0, swap);
	ps_put16(rec[swap] + 6, 8, swap);
	return rec[swap];
}

/* Give the head of @best, a late header record (BUILD_ID, FEATURE...). */
static int give_header_head(struct ps_merge *m, struct src *best, struct ps_record *rec,
                            struct ps_error *err)
{
	struct ps_record_copy h = { (unsigned char *)best->head.data, best->head.len,
		                    best->head.type, best->head.offset };
	int r;

	memset(rec, 0, sizeof(*rec));
	if (best->turn && header_kept(m, best, h.type)) {
		h.data = (unsigned char *)ps_swap__record(best->turn, &best->head,
		                                          ps_input__name(best->in), err);
		if (!h.data)
			return -1;
	}
	r = header_out(m, best, &h, rec);
	if (r < 0)
		return ps_error__set(err, PS_ECORRUPT, ps_input__name(best->in), best->head.offset,
		                     "cannot rewrite this header record");
	if (r == 0) {
		best->has_head = false;
		m->consumed = NULL;
		return ps_merge__next(m, rec, err);
	}
	return 1;
}

/* Give the head record of @best (rewritten for different recordings). */
static inline int give_head(struct ps_merge *m, struct src *best, struct ps_record *rec,
                            struct ps_error *err)
{
	if (m->after != best && !m->same && m->n > 1 && best->head.type == PERF_RECORD_SAMPLE) {
		int r = rename_thread(m, best, rec, err);

		if (r) {
			m->after = r > 0 ? best : NULL;
			return r;
		}
	}
	m->after = NULL;
	m->queued = true;
	m->consumed = best;
	m->since_round++;
	if (is_header(best->head.type))
		return give_header_head(m, best, rec, err);
	if (m->same && !best->turn) {
		*rec = best->head; /* as it came */
		return 1;
	}
	return record_out(m, best, &best->head, rec, err) < 0 ? -1 : 1;
}

/*
 * An input whose state a full scan would leave as it is: it has a timed head, or it has
 * ended with nothing held.
 */
static inline bool steady(const struct src *s)
{
	return s->has_head ? s->head_t != 0 : s->done && !s->pend.len;
}

/*
 * The input with the earliest head by m->key (ties: the earlier input), and the one after
 * it noted in m->second_*; NULL when all have ended.
 */
static struct src *pick(struct ps_merge *m, uint64_t *best_t)
{
	uint64_t t = UINT64_MAX, t2 = UINT64_MAX;
	int i, b = -1, b2 = m->n;

	for (i = 0; i < m->n; i++) {
		if (m->key[i] < t) {
			t2 = t;
			b2 = b < 0 ? m->n : b;
			t = m->key[i];
			b = i;
		} else if (m->key[i] < t2) {
			t2 = m->key[i];
			b2 = i;
		}
	}
	m->second_t = t2;
	m->second_i = b2;
	*best_t = t;
	return b < 0 ? NULL : &m->src[b];
}

/* After a full scan chose @best by its timed head: can the next picks go by the keys? */
static void settle(struct ps_merge *m)
{
	int i;

	for (i = 0; i < m->n; i++)
		if (!steady(&m->src[i]))
			return;
	for (i = 0; i < m->n; i++)
		m->key[i] = m->src[i].has_head ? m->src[i].head_t : UINT64_MAX;
	m->stable = true;
	pick(m, &(uint64_t){ 0 }); /* the second, for the next pick */
}

/* Give @best's head, the earliest (at @best_t), or first the untimed records it holds. */
static inline int give(struct ps_merge *m, struct src *best, uint64_t best_t, struct ps_record *rec,
                       struct ps_error *err)
{
	if (best->pend.len) {
		/* its held untimed records first, after perf's queue is emptied */
		m->stable = false;
		m->draining = best;
		m->flush_left = m->queued ? 2 : 0;
		m->queued = false;
		m->since_round = 0;
		return ps_merge__next(m, rec, err);
	}
	if (best_t && best_t < m->last_time)
		m->late++;
	else if (best_t)
		m->last_time = best_t;
	return give_head(m, best, rec, err);
}

int ps_merge__next(struct ps_merge *m, struct ps_record *rec, struct ps_error *err)
{
	struct src *best;
	uint64_t best_t, t;
	int i, r;

	if (m->after) /* the sample a COMM record was given for */
		return give_head(m, m->after, rec, err);
	/*
	 * The inputs other than the one whose head was given last are as the last full scan
	 * left them: refill that one; when it is steady again, the earliest of the heads
	 * wins, as a full scan would find.  Pieces of one recording keep one input winning
	 * for long runs, and each record costs a look at k keys.
	 */
	if (m->stable && m->consumed) {
		struct src *c = m->consumed;

		m->consumed = NULL;
		c->has_head = false;
		refill(m, c);
		if (!m->round_pending && steady(c)) {
			int ci = (int)(c - m->src);

			t = m->key[ci] = c->has_head ? c->head_t : UINT64_MAX;
			if (t != UINT64_MAX &&
			    (t < m->second_t || (t == m->second_t && ci < m->second_i)))
				return give(m, c, t, rec, err);
			best = pick(m, &best_t);
			if (best)
				return give(m, best, best_t, rec, err);
		}
		m->stable = false;
	}
	m->stable = false;
	memset(rec, 0, sizeof(*rec));
	if (m->hphase < 2) {
		r = give_header(m, rec, err);
		if (r)
			return r;
	}
	if (m->consumed) {
		m->consumed->has_head = false;
		m->consumed = NULL;
	}
	if (m->draining) {
		struct src *d = m->draining;

		if (m->flush_left) {
			m->flush_left--;
			rec->data = round_record(m->swap);
			rec->len = rec->size = 8;
			rec->type = PS_RECORD_FINISHED_ROUND;
			return 1;
		}
		if (d->pend_off < d->pend.len) {
			struct ps_record held = { 0 };
			uint32_t l;

			memcpy(&l, d->pend.p + d->pend_off, 4);
			memcpy(&held.offset, d->pend.p + d->pend_off + 4, 8);
			held.data = d->pend.p + d->pend_off + 12;
			held.len = l;
			held.size = ps_get16(held.data + 6, ps_input__swapped(d->in));
			held.misc = ps_get16(held.data + 4, ps_input__swapped(d->in));
			held.type = ps_get32(held.data, ps_input__swapped(d->in));
			d->pend_off += 12 + l;
			return record_out(m, d, &held, rec, err) < 0 ? -1 : 1;
		}
		d->pend.len = d->pend_off = 0;
		m->draining = NULL;
		if (d->has_head)
			return give_head(m, d, rec, err);
	}
	for (;;) {
		bool waiting = false, open = false;
		uint64_t now = 0;

		best = NULL;
		best_t = UINT64_MAX;
		for (i = 0; i < m->n; i++) {
			struct src *s = &m->src[i];

			open |= !s->done;
			if (!s->has_head && !s->done) {
				/* an input quiet for longer than the budget: a look now and then */
				if (s->quiet_since) {
					if (!now)
						now = now_ms();
					if (now - s->quiet_since >= (uint64_t)m->idle_ms &&
					    now < s->next_poll)
						continue;
					s->next_poll = now + QUIET_POLL_MS;
				}
				fill(m, s);
			}
			if (!s->has_head && s->done && s->pend.len) {
				best = s; /* held records at the end of an input */
				best_t = 0;
				break;
			}
			if (!s->has_head) {
				if (s->done)
					continue;
				if (!now)
					now = now_ms();
				if (!s->quiet_since || now - s->quiet_since < (uint64_t)m->idle_ms)
					waiting = true;
				continue;
			}
			if (!head_time(s, &t)) {
				best = s; /* untimed: at once */
				best_t = 0;
				break;
			}
			if (t < best_t) {
				best = s;
				best_t = t;
			}
		}
		if (m->round_pending && m->since_round && (!best || best_t)) {
			m->round_pending = false;
			m->since_round = 0;
			rec->data = round_record(m->swap);
			rec->len = rec->size = 8;
			rec->type = PS_RECORD_FINISHED_ROUND;
			return 1;
		}
		if (best && (!waiting || best_t == 0))
			break;
		if (!best && !waiting && !open)
			break;
		if (!best && !waiting) {
			/* every input that has not ended is quiet: nothing to give, but not the
			 * end either; read them again (each read waits up to INPUT_IDLE_MS) */
			for (i = 0; i < m->n; i++)
				m->src[i].next_poll = 0;
			continue;
		}
		/* a live input has not said anything yet: its records may come first */
	}
	if (!best) {
		for (i = 0; i < m->n; i++)
			if (m->src[i].failed) {
				*err = m->src[i].err;
				return -1;
			}
		return 0;
	}
	if (best_t)
		settle(m);
	return give(m, best, best_t, rec, err);
}
