// SPDX-License-Identifier: GPL-2.0-only
/*
 * session.c - the state the header records build up: attrs, the id table, event names,
 * feature payloads, the libtraceevent handle, and the thread names.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <traceevent/event-parse.h>

#include "session.h"
#include "tracing.h"
#include "xalloc.h"

#define THREAD_BUCKETS 16384

/*
 * The id table: open addressing with linear probing, kept at most half full and doubled
 * as it fills, so any id costs O(1) whatever its value.  The slots are found through a
 * hash seeded per session: ids chosen to collide (multiples of the table size, say) cost
 * no more than any others.
 */
struct id_slot {
	uint64_t id;
	uint32_t idx1; /* attr index + 1; 0: empty */
};

struct thread {
	uint32_t tid, pid;
	bool exited;
	char comm[PS_COMM_LEN];
	struct thread *next;
};

struct feature {
	unsigned char *data;
	size_t len;
};

/*
 * Looked up for every record: the attr of each of the few ids a stream's samples carry
 * (one per event and CPU), in a direct-mapped cache by the id's low bits in front of the
 * hash table; the thread found last.  Behind a pointer, so that the lookups through a
 * const session can fill it.
 */
#define ID_CACHE 64

struct id_hit {
	uint64_t id;
	struct ps_attr *attr;
};

struct hot {
	struct id_hit ids[ID_CACHE];
	struct thread *thread;
};

struct ps_session {
	bool swap;
	const struct ps_durations *durations; /* not owned (reader.c) */
	struct ps_attr **attrs;
	size_t nr_attrs, cap_attrs;
	struct id_slot *ids;
	size_t nr_ids, cap_ids; /* cap_ids: 0 or a power of two */
	struct hot *hot;
	uint64_t seed;
	struct feature features[PS_FEAT_BITS];
	struct tep_handle *tep;
	struct thread *threads[THREAD_BUCKETS];
	size_t nr_threads;
	size_t nr_build_ids;
	char tracing_error[256];
	bool tracing_noticed;
	uint64_t comm_gen; /* ps_session__comm_gen() */
};

struct ps_session *ps_session__new(bool swap)
{
	struct ps_session *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->hot = calloc(1, sizeof(*s->hot));
	if (!s->hot) {
		free(s);
		return NULL;
	}
	s->swap = swap;
	if (getrandom(&s->seed, sizeof(s->seed), GRND_NONBLOCK) != sizeof(s->seed))
		s->seed = (uint64_t)(uintptr_t)s ^ (uint64_t)time(NULL);
	/* perf names the idle thread before it reads anything */
	ps_session__set_comm(s, 0, 0, "swapper");
	return s;
}

static void clear_threads(struct ps_session *s, bool only_exited)
{
	size_t b;

	s->hot->thread = NULL;
	s->comm_gen++;
	for (b = 0; b < THREAD_BUCKETS; b++) {
		struct thread **pp = &s->threads[b];

		while (*pp) {
			struct thread *t = *pp;

			if (only_exited && !t->exited) {
				pp = &t->next;
				continue;
			}
			*pp = t->next;
			free(t);
			s->nr_threads--;
		}
	}
}

void ps_session__delete(struct ps_session *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->nr_attrs; i++) {
		free(s->attrs[i]->raw);
		free(s->attrs[i]->ids);
		free(s->attrs[i]->name);
		free(s->attrs[i]->unit);
		free(s->attrs[i]->input);
		free(s->attrs[i]);
	}
	free(s->attrs);
	free(s->ids);
	for (i = 0; i < PS_FEAT_BITS; i++)
		free(s->features[i].data);
	clear_threads(s, false);
	free(s->hot);
	if (s->tep)
		tep_free(s->tep);
	free(s);
}

bool ps_session__swapped(const struct ps_session *s)
{
	return s->swap;
}

void ps_session__set_durations(struct ps_session *s, const struct ps_durations *d)
{
	s->durations = d;
}

const struct ps_durations *ps_session__durations(const struct ps_session *s)
{
	return s->durations;
}

size_t ps_session__nr_attrs(const struct ps_session *s)
{
	return s->nr_attrs;
}

struct ps_attr *ps_session__attr(const struct ps_session *s, size_t idx)
{
	return idx < s->nr_attrs ? s->attrs[idx] : NULL;
}

uint32_t ps_session__input_number(const struct ps_session *s, size_t idx)
{
	const struct ps_attr *a = ps_session__attr(s, idx);
	uint32_t n = 0;
	size_t i, k;

	if (!a || !a->input)
		return 0;
	for (i = 0; i <= idx; i++) {
		const struct ps_attr *b = s->attrs[i];

		if (!b->input)
			continue;
		/* a new input where no earlier attr names it */
		for (k = 0; k < i; k++)
			if (s->attrs[k]->input && strcmp(s->attrs[k]->input, b->input) == 0)
				break;
		n += k == i;
		if (strcmp(b->input, a->input) == 0)
			return n;
	}
	return n;
}

bool ps_session__same_attrs(const struct ps_session *a, const struct ps_session *b)
{
	struct ps_attr *x, *y;
	size_t i;

	if (ps_session__nr_attrs(a) != ps_session__nr_attrs(b))
		return false;
	ps_session__for_each_attr(a, x, i) {
		y = ps_session__attr(b, i);
		if (x->raw_size != y->raw_size || memcmp(x->raw, y->raw, x->raw_size) != 0)
			return false;
		if (x->nr_ids != y->nr_ids ||
		    memcmp(x->ids, y->ids, x->nr_ids * sizeof(x->ids[0])) != 0)
			return false;
	}
	return true;
}

static struct id_slot *find_slot(struct id_slot *tab, size_t cap, uint64_t seed, uint64_t id)
{
	size_t mask = cap - 1, i = (size_t)ps_mix64(id ^ seed) & mask;

	while (tab[i].idx1 && tab[i].id != id)
		i = (i + 1) & mask;
	return &tab[i];
}

static inline struct ps_attr *attr_by_id(const struct ps_session *s, uint64_t id)
{
	struct id_hit *c = &s->hot->ids[id % ID_CACHE];
	const struct id_slot *slot;

	if (c->attr && c->id == id)
		return c->attr;
	if (!s->cap_ids)
		return NULL;
	slot = find_slot(s->ids, s->cap_ids, s->seed, id);
	if (!slot->idx1)
		return NULL;
	c->id = id;
	c->attr = s->attrs[slot->idx1 - 1];
	return c->attr;
}

struct ps_attr *ps_session__attr_by_id(const struct ps_session *s, uint64_t id)
{
	return attr_by_id(s, id);
}

/* Double the table (or make the first one); -1 when out of memory. */
static int grow_ids(struct ps_session *s)
{
	size_t cap = s->cap_ids ? s->cap_ids * 2 : 64, i;
	struct id_slot *tab = calloc(cap, sizeof(*tab));

	if (!tab)
		return -1;
	for (i = 0; i < s->cap_ids; i++)
		if (s->ids[i].idx1)
			*find_slot(tab, cap, s->seed, s->ids[i].id) = s->ids[i];
	free(s->ids);
	s->ids = tab;
	s->cap_ids = cap;
	return 0;
}

static int add_id(struct ps_session *s, uint64_t id, int idx)
{
	struct id_slot *slot;

	if (2 * (s->nr_ids + 1) > s->cap_ids && grow_ids(s))
		return -1;
	memset(s->hot->ids, 0, sizeof(s->hot->ids)); /* an id may change its attr */
	slot = find_slot(s->ids, s->cap_ids, s->seed, id);
	if (!slot->idx1) {
		if (s->nr_ids >= PS_MAX_IDS)
			return -1;
		slot->id = id;
		s->nr_ids++;
	}
	slot->idx1 = (uint32_t)idx + 1;
	return 0;
}

/* ---- names ---- */

static const char *const sw_names[] = {
	"cpu-clock",        "task-clock",   "page-faults",  "context-switches",
	"cpu-migrations",   "minor-faults", "major-faults", "alignment-faults",
	"emulation-faults", "dummy",        "bpf-output",   "cgroup-switches",
};

static const char *const hw_names[] = {
	"cycles",
	"instructions",
	"cache-references",
	"cache-misses",
	"branches",
	"branch-misses",
	"bus-cycles",
	"stalled-cycles-frontend",
	"stalled-cycles-backend",
	"ref-cycles",
};

static int set_name(struct ps_attr *a, const char *name, bool from_stream)
{
	char *n = strdup(name);

	if (!n)
		return -1;
	free(a->name);
	a->name = n;
	a->name_from_stream = from_stream;
	return 0;
}

static int default_name(struct ps_attr *a)
{
	char buf[96];

	if (a->type == PERF_TYPE_SOFTWARE && a->config < ARRAY_SIZE(sw_names))
		return set_name(a, sw_names[a->config], false);
	if (a->type == PERF_TYPE_HARDWARE && a->config < ARRAY_SIZE(hw_names))
		return set_name(a, hw_names[a->config], false);
	if (a->type == PERF_TYPE_TRACEPOINT && a->tp) {
		snprintf(buf, sizeof(buf), "%s:%s", a->tp->system, a->tp->name);
		return set_name(a, buf, false);
	}
	if (a->type == PERF_TYPE_TRACEPOINT)
		snprintf(buf, sizeof(buf), "tracepoint:0x%" PRIx64, a->config);
	else
		snprintf(buf, sizeof(buf), "type%" PRIu32 ":0x%" PRIx64, a->type, a->config);
	return set_name(a, buf, false);
}

static void bind_tracepoints(struct ps_session *s)
{
	size_t i;

	if (!s->tep)
		return;
	for (i = 0; i < s->nr_attrs; i++) {
		struct ps_attr *a = s->attrs[i];

		/* every attr again: a new TRACING_DATA frees the formats of the last one */
		if (a->type != PERF_TYPE_TRACEPOINT)
			continue;
		a->tp = tep_find_event(s->tep, (int)a->config);
		if (a->tp && !a->name_from_stream)
			default_name(a);
	}
}

/* ---- header records ---- */

static int bad(struct ps_error *err, const char *name, const struct ps_record *rec, const char *fmt,
               ...) PS_PRINTF(4, 5);

static int bad(struct ps_error *err, const char *name, const struct ps_record *rec, const char *fmt,
               ...)
{
	va_list ap;

	if (!err)
		return -1;
	err->code = PS_ECORRUPT;
	err->sys_errno = 0;
	err->input = name;
	err->has_offset = true;
	err->offset = rec->offset;
	va_start(ap, fmt);
	vsnprintf(err->detail, sizeof(err->detail), fmt, ap);
	va_end(ap);
	return -1;
}

static uint64_t attr64(const unsigned char *p, uint32_t size, unsigned int off, bool swap)
{
	return off + 8 <= size ? ps_get64(p + off, swap) : 0;
}

static uint32_t attr32(const unsigned char *p, uint32_t size, unsigned int off, bool swap)
{
	return off + 4 <= size ? ps_get32(p + off, swap) : 0;
}

/*
 * A big-endian compiler packs the attr's bitfields from the top bit of the flag word, so
 * after the byte swap each field sits mirrored: move every field back to its place, keeping
 * the order of the bits within the field (precise_ip is two bits wide, the rest one, and
 * bits 40 and up are one reserved field for the fields we do not name).
 */
uint64_t ps_attr_flags_from_big_endian(uint64_t v)
{
	unsigned int off, width;
	uint64_t w = 0;

	for (off = 0; off < 64; off += width) {
		width = off == 15 ? 2 : off == 40 ? 24 : 1;
		w |= ((v >> (64 - off - width)) & ((1ULL << width) - 1)) << off;
	}
	return w;
}

/* How many of the one-word fields in @mask a sample_type @st has. */
static unsigned int words(uint64_t st, uint64_t mask)
{
	return (unsigned int)__builtin_popcountll(st & mask);
}

/* The word positions of the id and the time, as ps_session__attr_of() and
 * ps_session__record_time() need them for every record. */
static void attr_positions(struct ps_attr *a)
{
	/* a sample's head: identifier, ip, tid, time, addr, id, stream_id, cpu, period;
	 * the trailer of other records: tid, time, id, stream_id, cpu, identifier */
	const uint64_t head = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
	                      PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_ID |
	                      PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD;
	const uint64_t trailer = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID |
	                         PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER;
	uint64_t st = a->sample_type;

	if (st & PERF_SAMPLE_IDENTIFIER)
		a->sample_id_pos = 0;
	else if (st & PERF_SAMPLE_ID)
		a->sample_id_pos = words(st, PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
		                                     PERF_SAMPLE_ADDR);
	else
		a->sample_id_pos = UINT32_MAX;
	a->sample_time_pos =
	        (st & PERF_SAMPLE_TIME) ?
	                words(st, PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID) :
	                UINT32_MAX;
	/* counted back from the trailer's end, the identifier last */
	if (st & PERF_SAMPLE_IDENTIFIER)
		a->trailer_id_back = 1;
	else if (st & PERF_SAMPLE_ID)
		a->trailer_id_back = 1 + words(st, PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU);
	else
		a->trailer_id_back = UINT32_MAX;
	a->trailer_time_back =
	        (st & PERF_SAMPLE_TIME) ?
	                1 + words(st, PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU |
	                                      PERF_SAMPLE_IDENTIFIER) :
	                UINT32_MAX;
	a->sample_head_words = words(st, head);
	a->trailer_words = (a->flags & PS_ATTR_FLAG_SAMPLE_ID_ALL) ? words(st, trailer) : 0;
}

static void decode_attr(struct ps_attr *a, bool swap)
{
	const unsigned char *p = a->raw;
	uint32_t n = a->size;

	a->type = attr32(p, n, PS_ATTR_TYPE, swap);
	a->config = attr64(p, n, PS_ATTR_CONFIG, swap);
	a->sample_period = attr64(p, n, PS_ATTR_PERIOD, swap);
	a->sample_type = attr64(p, n, PS_ATTR_SAMPLE_TYPE, swap);
	a->read_format = attr64(p, n, PS_ATTR_READ_FORMAT, swap);
	a->flags = attr64(p, n, PS_ATTR_FLAGS, swap);
	if (swap != ps_host_is_big_endian()) /* written by a big-endian machine */
		a->flags = ps_attr_flags_from_big_endian(a->flags);
	a->wakeup = attr32(p, n, PS_ATTR_WAKEUP, swap);
	a->bp_type = attr32(p, n, PS_ATTR_BP_TYPE, swap);
	a->config1 = attr64(p, n, PS_ATTR_CONFIG1, swap);
	a->config2 = attr64(p, n, PS_ATTR_CONFIG2, swap);
	a->branch_sample_type = attr64(p, n, PS_ATTR_BRANCH_SAMPLE_TYPE, swap);
	a->sample_regs_user = attr64(p, n, PS_ATTR_SAMPLE_REGS_USER, swap);
	a->sample_stack_user = attr32(p, n, PS_ATTR_SAMPLE_STACK_USER, swap);
	a->clockid = (int32_t)attr32(p, n, PS_ATTR_CLOCKID, swap);
	a->sample_regs_intr = attr64(p, n, PS_ATTR_SAMPLE_REGS_INTR, swap);
	a->aux_watermark = attr32(p, n, PS_ATTR_AUX_WATERMARK, swap);
	a->sample_max_stack = PS_ATTR_SAMPLE_MAX_STACK + 2 <= n ?
	                              ps_get16(p + PS_ATTR_SAMPLE_MAX_STACK, swap) :
	                              0;
	a->aux_sample_size = attr32(p, n, PS_ATTR_AUX_SAMPLE_SIZE, swap);
	a->sig_data = attr64(p, n, PS_ATTR_SIG_DATA, swap);
	a->config3 = attr64(p, n, PS_ATTR_CONFIG3, swap);
	attr_positions(a);
}

static int process_attr(struct ps_session *s, const struct ps_record *rec, const char *name,
                        struct ps_error *err)
{
	const unsigned char *p = rec->data + 8;
	size_t body = rec->size - 8u, i, nids;
	struct ps_attr *a, **na;
	uint32_t asize;

	if (body < 8)
		return bad(err, name, rec, "ATTR record of %u bytes is too small for an attr",
		           rec->size);
	asize = ps_get32(p + PS_ATTR_SIZE, s->swap);
	if (asize == 0)
		asize = PS_ATTR_SIZE_VER0;
	if (asize < PS_ATTR_SIZE_VER0)
		return bad(err, name, rec,
		           "attr size %u is smaller than the first attr layout (64)", asize);
	if (asize > body)
		return bad(
		        err, name, rec,
		        "attr size %u is larger than the ATTR record (%zu bytes after its header)",
		        asize, body);
	if (s->nr_attrs >= PS_MAX_ATTRS)
		return ps_error__set(err, PS_ECAP, name, rec->offset,
		                     "more than %u attrs in one stream", PS_MAX_ATTRS);
	nids = (body - asize) / 8;
	if (nids > PS_MAX_IDS - s->nr_ids)
		return ps_error__set(err, PS_ECAP, name, rec->offset, "more than %u event ids",
		                     PS_MAX_IDS);
	a = calloc(1, sizeof(*a));
	if (!a)
		goto nomem;
	a->raw = malloc(asize);
	a->ids = malloc(nids ? nids * sizeof(uint64_t) : 1);
	if (!a->raw || !a->ids)
		goto nomem_a;
	memcpy(a->raw, p, asize);
	a->raw_size = asize;
	a->size = asize;
	decode_attr(a, s->swap);
	a->nr_ids = nids;
	for (i = 0; i < nids; i++)
		a->ids[i] = ps_get64(p + asize + 8 * i, s->swap);
	if (s->nr_attrs == s->cap_attrs) {
		size_t n = s->cap_attrs ? s->cap_attrs * 2 : 8;

		na = ps_realloc_array(s->attrs, n, sizeof(*na));
		if (!na)
			goto nomem_a;
		s->attrs = na;
		s->cap_attrs = n;
	}
	a->idx = (int)s->nr_attrs;
	if (s->tep && a->type == PERF_TYPE_TRACEPOINT)
		a->tp = tep_find_event(s->tep, (int)a->config);
	if (default_name(a))
		goto nomem_a;
	/* the attr is in the table before any id points at it */
	s->attrs[s->nr_attrs++] = a;
	for (i = 0; i < nids; i++) {
		if (add_id(s, a->ids[i], a->idx))
			return ps_error__set(err, PS_ENOMEM, name, rec->offset, "out of memory");
	}
	return 0;
nomem_a:
	free(a->raw);
	free(a->ids);
	free(a->name);
	free(a);
nomem:
	return ps_error__set(err, PS_ENOMEM, name, rec->offset, "out of memory");
}

static int process_event_update(struct ps_session *s, const struct ps_record *rec, const char *name,
                                struct ps_error *err)
{
	const unsigned char *p = rec->data + 8;
	size_t body = rec->size - 8u;
	uint64_t type, id;
	struct ps_attr *a;
	char **text;

	if (body < 16)
		return bad(err, name, rec, "EVENT_UPDATE record of %u bytes is too small",
		           rec->size);
	type = ps_get64(p, s->swap);
	id = ps_get64(p + 8, s->swap);
	a = ps_session__attr_by_id(s, id);
	if (!a && s->nr_attrs == 1)
		a = s->attrs[0];
	if (!a)
		return 0; /* perf refuses these; we only lose a name */
	p += 16;
	body -= 16;
	/* the text updates: the attr's string that the record's text replaces */
	text = type == PS_EVENT_UPDATE_NAME  ? &a->name :
	       type == PS_EVENT_UPDATE_UNIT  ? &a->unit :
	       type == PS_EVENT_UPDATE_INPUT ? &a->input :
	                                       NULL;
	if (text) {
		char *t = ps_strndup0(p, body);

		if (!t)
			return ps_error__set(err, PS_ENOMEM, name, rec->offset, "out of memory");
		free(*text);
		*text = t;
		if (type == PS_EVENT_UPDATE_NAME)
			a->name_from_stream = true;
	} else if (type == PS_EVENT_UPDATE_SCALE && body >= 8) {
		uint64_t bits = ps_get64(p, s->swap);

		memcpy(&a->scale, &bits, sizeof(bits));
	}
	return 0;
}

/* Names from the event_desc feature: nr, attr_size, nr x {attr, nr_ids, string, ids}. */
static void apply_event_desc(struct ps_session *s, const unsigned char *p, size_t len)
{
	uint32_t nr, attr_size, i;
	size_t pos = 8;

	if (len < 8)
		return;
	nr = ps_get32(p, s->swap);
	attr_size = ps_get32(p + 4, s->swap);
	for (i = 0; i < nr && i < PS_MAX_ATTRS; i++) {
		uint32_t nr_ids, slen;
		struct ps_attr *a = NULL;
		const char *str;
		char *n;

		if (attr_size > len - pos || len - pos - attr_size < 8)
			return;
		pos += attr_size;
		nr_ids = ps_get32(p + pos, s->swap);
		slen = ps_get32(p + pos + 4, s->swap);
		pos += 8;
		if (slen > len - pos)
			return;
		str = (const char *)p + pos;
		pos += slen;
		if (nr_ids > (len - pos) / 8)
			return;
		if (nr_ids)
			a = ps_session__attr_by_id(s, ps_get64(p + pos, s->swap));
		if (!a && i < s->nr_attrs)
			a = s->attrs[i];
		pos += 8ULL * nr_ids;
		if (!a || a->name_from_stream)
			continue;
		n = ps_strndup0(str, slen);
		if (!n || !n[0]) {
			free(n);
			continue;
		}
		free(a->name);
		a->name = n;
		a->name_from_stream = true;
	}
}

static int process_feature(struct ps_session *s, const struct ps_record *rec, const char *name,
                           struct ps_error *err)
{
	size_t len;
	uint64_t feat;
	unsigned char *copy;

	if (rec->size < 16)
		return bad(err, name, rec, "FEATURE record of %u bytes is too small", rec->size);
	feat = ps_get64(rec->data + 8, s->swap);
	if (feat >= PS_FEAT_BITS)
		return 0; /* not one we can keep; forwarded all the same */
	len = rec->size - 16u;
	copy = malloc(len ? len : 1);
	if (!copy)
		return ps_error__set(err, PS_ENOMEM, name, rec->offset, "out of memory");
	memcpy(copy, rec->data + 16, len);
	free(s->features[feat].data);
	s->features[feat].data = copy;
	s->features[feat].len = len;
	if (feat == PS_FEAT_EVENT_DESC)
		apply_event_desc(s, copy, len);
	return 0;
}

static int process_tracing(struct ps_session *s, const struct ps_record *rec, const char *name,
                           struct ps_error *err)
{
	char why[200];
	struct tep_handle *tep;

	(void)err;
	(void)name;
	tep = ps_tracing__parse(rec->data + rec->size, rec->len - rec->size, NULL, why,
	                        sizeof(why));
	if (!tep) {
		/* not fatal: the record is still forwarded; only field access is lost */
		snprintf(s->tracing_error, sizeof(s->tracing_error), "offset 0x%" PRIx64 ": %s",
		         rec->offset, why);
		return 0;
	}
	s->tracing_error[0] = 0;
	if (s->tep)
		tep_free(s->tep);
	s->tep = tep;
	bind_tracepoints(s);
	return 0;
}

int ps_session__process(struct ps_session *s, const struct ps_record *rec, const char *name,
                        struct ps_error *err)
{
	switch (rec->type) {
	case PS_RECORD_HEADER_ATTR:
		return process_attr(s, rec, name, err);
	case PS_RECORD_EVENT_UPDATE:
		return process_event_update(s, rec, name, err);
	case PS_RECORD_HEADER_FEATURE:
		return process_feature(s, rec, name, err);
	case PS_RECORD_HEADER_TRACING_DATA:
		return process_tracing(s, rec, name, err);
	case PS_RECORD_HEADER_BUILD_ID:
		s->nr_build_ids++;
		return 0;
	default:
		return 0;
	}
}

const unsigned char *ps_session__feature(const struct ps_session *s, unsigned int feat, size_t *len)
{
	if (feat >= PS_FEAT_BITS || !s->features[feat].data)
		return NULL;
	*len = s->features[feat].len;
	return s->features[feat].data;
}

const char *ps_session__feature_string(const struct ps_session *s, unsigned int feat, char *buf,
                                       size_t len)
{
	const unsigned char *p;
	size_t plen = 0, n;

	if (!len)
		return NULL;
	buf[0] = 0;
	p = ps_session__feature(s, feat, &plen);
	if (!p || plen < 4)
		return NULL;
	n = ps_get32(p, s->swap);
	if (n > plen - 4)
		n = plen - 4;
	if (n > len - 1)
		n = len - 1;
	memcpy(buf, p + 4, n);
	buf[n] = 0;
	buf[strnlen(buf, n)] = 0;
	return buf;
}

struct tep_handle *ps_session__tep(const struct ps_session *s)
{
	return s->tep;
}

const char *ps_session__tracing_error(const struct ps_session *s)
{
	return s->tracing_error[0] ? s->tracing_error : NULL;
}

const char *ps_session__tracing_notice(struct ps_session *s, const struct ps_attr *a, char *buf,
                                       size_t len)
{
	if (!a || a->type != PERF_TYPE_TRACEPOINT || a->tp || s->tracing_noticed || !len)
		return NULL;
	s->tracing_noticed = true;
	if (s->tracing_error[0])
		snprintf(
		        buf, len,
		        "the fields of %s are not decoded: its TRACING_DATA record cannot be read (%s)",
		        a->name ? a->name : "tracepoint events", s->tracing_error);
	else if (!s->tep)
		snprintf(buf, len,
		         "the fields of %s are not decoded: the stream has no TRACING_DATA record",
		         a->name ? a->name : "tracepoint events");
	else
		snprintf(
		        buf, len,
		        "the fields of %s are not decoded: its TRACING_DATA has no format for tracepoint id %" PRIu64,
		        a->name ? a->name : "tracepoint events", a->config);
	return buf;
}

/* ---- which attr, what time ---- */

/* ps_session__attr_of(), inline in ps_session__record_attr_time(): run for every record */
static inline struct ps_attr *attr_of(const struct ps_session *s, const struct ps_record *rec)
{
	const struct ps_attr *first;
	size_t words = (rec->size - 8u) / 8;
	size_t pos;
	uint64_t id;

	if (s->nr_attrs <= 1)
		return s->nr_attrs ? s->attrs[0] : NULL;
	/* perf finds the id where the first event's sample_type puts it */
	first = s->attrs[0];
	if (rec->type == PERF_RECORD_SAMPLE) {
		pos = first->sample_id_pos; /* UINT32_MAX when none: past any record */
		if (pos >= words)
			return NULL;
	} else if (ps_record_type_has_trailer(rec->type)) {
		if (!(first->flags & PS_ATTR_FLAG_SAMPLE_ID_ALL))
			return s->attrs[0];
		if (first->trailer_id_back > words)
			return NULL;
		pos = words - first->trailer_id_back;
	} else {
		return NULL;
	}
	id = ps_get64(rec->data + 8 + 8 * pos, s->swap);
	if (id == 0)
		return s->attrs[0];
	return attr_by_id(s, id);
}

struct ps_attr *ps_session__attr_of(const struct ps_session *s, const struct ps_record *rec)
{
	return attr_of(s, rec);
}

bool ps_session__record_attr_time(const struct ps_session *s, const struct ps_record *rec,
                                  uint64_t *time, const struct ps_attr **attr)
{
	const struct ps_attr *a;
	size_t words = (rec->size - 8u) / 8;
	size_t pos;

	*attr = NULL;
	if (rec->type >= PS_RECORD_USER_START || rec->type == 0)
		return false;
	a = *attr = attr_of(s, rec);
	if (!a)
		return false;
	if (rec->type == PERF_RECORD_SAMPLE) {
		pos = a->sample_time_pos; /* UINT32_MAX without PERF_SAMPLE_TIME */
		if (pos >= words)
			return false;
	} else {
		/* the whole trailer must fit, as ps_sample__parse_id() requires */
		if (a->trailer_time_back == UINT32_MAX || !a->trailer_words ||
		    a->trailer_words > words)
			return false;
		pos = words - a->trailer_time_back;
	}
	*time = ps_get64(rec->data + 8 + 8 * pos, s->swap);
	return true;
}

bool ps_session__record_time(const struct ps_session *s, const struct ps_record *rec,
                             uint64_t *time)
{
	const struct ps_attr *a;

	return ps_session__record_attr_time(s, rec, time, &a);
}

/* ---- threads ---- */

/* seeded like the id table: tids chosen to share a bucket do not */
static size_t thread_bucket(const struct ps_session *s, uint32_t tid)
{
	return (size_t)(ps_mix64(tid ^ s->seed) % THREAD_BUCKETS);
}

static struct thread *find_thread(const struct ps_session *s, uint32_t tid)
{
	struct thread *t = s->hot->thread;

	if (t && t->tid == tid)
		return t;
	for (t = s->threads[thread_bucket(s, tid)]; t; t = t->next)
		if (t->tid == tid)
			return s->hot->thread = t;
	return NULL;
}

static struct thread *get_thread(struct ps_session *s, uint32_t pid, uint32_t tid)
{
	struct thread *t = find_thread(s, tid);

	if (t)
		return t;
	if (s->nr_threads >= PS_MAX_THREADS) {
		clear_threads(s, true);
		if (s->nr_threads >= PS_MAX_THREADS)
			clear_threads(s, false);
	}
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->tid = tid;
	t->pid = pid;
	t->next = s->threads[thread_bucket(s, tid)];
	s->threads[thread_bucket(s, tid)] = t;
	s->nr_threads++;
	return t;
}

void ps_session__set_comm(struct ps_session *s, uint32_t pid, uint32_t tid, const char *comm)
{
	struct thread *t = get_thread(s, pid, tid);

	if (!t)
		return;
	t->pid = pid;
	t->exited = false;
	snprintf(t->comm, sizeof(t->comm), "%s", comm);
	s->comm_gen++;
}

uint64_t ps_session__comm_gen(const struct ps_session *s)
{
	return s->comm_gen;
}

const char *ps_session__comm(const struct ps_session *s, uint32_t tid)
{
	const struct thread *t = find_thread(s, tid);

	return t && t->comm[0] ? t->comm : NULL;
}

const char *ps_session__comm_text(const struct ps_session *s, uint32_t tid, char *buf, size_t len)
{
	const char *comm = ps_session__comm(s, tid);

	if (comm)
		return comm;
	snprintf(buf, len, ":%" PRId32, (int32_t)tid);
	return buf;
}

void ps_session__process_sideband(struct ps_session *s, const struct ps_record *rec)
{
	const unsigned char *p = rec->data + 8;
	size_t body = rec->size - 8u;

	switch (rec->type) {
	case PERF_RECORD_COMM:
		if (body > 8) {
			char comm[PS_COMM_LEN];
			size_t n = body - 8 < sizeof(comm) - 1 ? body - 8 : sizeof(comm) - 1;
			const char *src = (const char *)p + 8;
			const char *nul = memchr(src, 0, n);

			if (nul)
				n = (size_t)(nul - src);
			memcpy(comm, src, n);
			comm[n] = 0;
			ps_session__set_comm(s, ps_get32(p, s->swap), ps_get32(p + 4, s->swap),
			                     comm);
		}
		break;
	case PERF_RECORD_FORK:
		if (body >= 16) {
			uint32_t pid = ps_get32(p, s->swap), ppid = ps_get32(p + 4, s->swap);
			uint32_t tid = ps_get32(p + 8, s->swap), ptid = ps_get32(p + 12, s->swap);
			const struct thread *parent = find_thread(s, ptid);
			char comm[PS_COMM_LEN] = "";

			/* a parent entry of another process is a stale, reused tid: perf
			 * starts the child unnamed then */
			if (parent && parent->pid != ppid)
				parent = NULL;
			if (parent)
				memcpy(comm, parent->comm, sizeof(comm));
			ps_session__set_comm(s, pid, tid, comm);
		}
		break;
	case PERF_RECORD_EXIT:
		if (body >= 16) {
			struct thread *t = find_thread(s, ps_get32(p + 8, s->swap));

			if (t)
				t->exited = true;
		}
		break;
	default:
		break;
	}
}
