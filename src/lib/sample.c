// SPDX-License-Identifier: GPL-2.0-only
/*
 * sample.c - walk a SAMPLE record field by field in sample_type order, checking every
 * length against the record before it is used.
 */
#include <inttypes.h>
#include <string.h>

#include "sample.h"
#include "session.h"

/*
 * memset() through a pointer the compiler cannot see through: for a struct ps_sample it
 * would inline `rep stos`, whose start-up cost was a third of the parse on x86 (perf
 * record -e cpu-clock on pcount), where the library's memset is a few vector stores.
 */
static void *(*volatile zero)(void *, int, size_t) = memset;

struct walker {
	const unsigned char *p;
	size_t len, pos;
	bool swap;
};

static bool take(struct walker *w, size_t n, const unsigned char **at)
{
	if (w->len - w->pos < n)
		return false;
	if (at)
		*at = w->p + w->pos;
	w->pos += n;
	return true;
}

static bool u64(struct walker *w, uint64_t *v)
{
	const unsigned char *at;

	if (!take(w, 8, &at))
		return false;
	*v = ps_get64(at, w->swap);
	return true;
}

static bool u32pair(struct walker *w, uint32_t *a, uint32_t *b)
{
	const unsigned char *at;

	if (!take(w, 8, &at))
		return false;
	*a = ps_get32(at, w->swap);
	if (b)
		*b = ps_get32(at + 4, w->swap);
	return true;
}

/* A counted array of @n u64 words, @n checked against what is left. */
static bool words(struct walker *w, uint64_t n, const unsigned char **at)
{
	if (n > (w->len - w->pos) / 8)
		return false;
	return take(w, (size_t)n * 8, at);
}

static size_t read_block_size(uint64_t rf, uint64_t nr)
{
	size_t per = 1 + !!(rf & PERF_FORMAT_ID) + !!(rf & PERF_FORMAT_LOST);
	size_t fixed =
	        !!(rf & PERF_FORMAT_TOTAL_TIME_ENABLED) + !!(rf & PERF_FORMAT_TOTAL_TIME_RUNNING);

	if (rf & PERF_FORMAT_GROUP)
		return 8 * (1 + fixed + per * (size_t)nr);
	return 8 * (fixed + per);
}

static bool regs(struct walker *w, uint64_t mask, uint64_t *abi, const unsigned char **at,
                 uint64_t *nr)
{
	if (!u64(w, abi))
		return false;
	*nr = 0;
	*at = NULL;
	if (!*abi)
		return true;
	*nr = (uint64_t)__builtin_popcountll(mask);
	return words(w, *nr, at);
}

/* the fields after RAW, in sample_type order */
#define TAIL_FIELDS                                                                     \
	(PERF_SAMPLE_BRANCH_STACK | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER |    \
	 PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT | PERF_SAMPLE_DATA_SRC |        \
	 PERF_SAMPLE_TRANSACTION | PERF_SAMPLE_REGS_INTR | PERF_SAMPLE_PHYS_ADDR |      \
	 PERF_SAMPLE_CGROUP | PERF_SAMPLE_DATA_PAGE_SIZE | PERF_SAMPLE_CODE_PAGE_SIZE | \
	 PERF_SAMPLE_AUX)

static int walk(struct walker *w, const struct ps_attr *a, struct ps_sample *o)
{
	uint64_t st = a->sample_type;
	const unsigned char *p = w->p;
	bool swap = w->swap;

	/* the fixed words first, checked against the record at once */
	if (!take(w, 8 * (size_t)a->sample_head_words, NULL))
		return -1;
	if (st & PERF_SAMPLE_IDENTIFIER) {
		o->identifier = ps_get64(p, swap);
		p += 8;
	}
	if (st & PERF_SAMPLE_IP) {
		o->ip = ps_get64(p, swap);
		p += 8;
	}
	if (st & PERF_SAMPLE_TID) {
		o->pid = ps_get32(p, swap);
		o->tid = ps_get32(p + 4, swap);
		p += 8;
	}
	if (st & PERF_SAMPLE_TIME) {
		o->time = ps_get64(p, swap);
		p += 8;
	}
	if (st & PERF_SAMPLE_ADDR) {
		o->addr = ps_get64(p, swap);
		p += 8;
	}
	if (st & PERF_SAMPLE_ID) {
		o->id = ps_get64(p, swap);
		p += 8;
	}
	if (st & PERF_SAMPLE_STREAM_ID) {
		o->stream_id = ps_get64(p, swap);
		p += 8;
	}
	if (st & PERF_SAMPLE_CPU) {
		o->cpu = ps_get32(p, swap);
		p += 8;
	}
	if (st & PERF_SAMPLE_PERIOD)
		o->period = ps_get64(p, swap);
	if (st & PERF_SAMPLE_READ) {
		uint64_t nr = 1;
		size_t n;

		if (a->read_format & PERF_FORMAT_GROUP) {
			if (w->len - w->pos < 8)
				return -1;
			nr = ps_get64(w->p + w->pos, w->swap);
			if (nr > (w->len - w->pos) / 8)
				return -1;
		}
		n = read_block_size(a->read_format, nr);
		o->read_len = n;
		if (!take(w, n, &o->read))
			return -1;
	}
	if (st & PERF_SAMPLE_CALLCHAIN) {
		if (!u64(w, &o->nr_callchain) || !words(w, o->nr_callchain, &o->callchain))
			return -1;
	}
	if (st & PERF_SAMPLE_RAW) {
		const unsigned char *at;

		if (!take(w, 4, &at))
			return -1;
		o->raw_size = ps_get32(at, w->swap);
		if (!take(w, o->raw_size, &o->raw))
			return -1;
	}
	if (!(st & TAIL_FIELDS))
		return 0; /* the common case: one test for the rarer fields below */
	if (st & PERF_SAMPLE_BRANCH_STACK) {
		if (!u64(w, &o->nr_branch))
			return -1;
		if (a->branch_sample_type & PS_BRANCH_HW_INDEX) {
			o->has_branch_hw_idx = true;
			if (!u64(w, &o->branch_hw_idx))
				return -1;
		}
		if (o->nr_branch > (w->len - w->pos) / 24 ||
		    !words(w, o->nr_branch * 3, &o->branch))
			return -1;
	}
	if ((st & PERF_SAMPLE_REGS_USER) &&
	    !regs(w, a->sample_regs_user, &o->regs_user_abi, &o->regs_user, &o->nr_regs_user))
		return -1;
	if (st & PERF_SAMPLE_STACK_USER) {
		if (!u64(w, &o->stack_size))
			return -1;
		if (o->stack_size) {
			if (o->stack_size > w->len - w->pos ||
			    !take(w, (size_t)o->stack_size, &o->stack_user) ||
			    !u64(w, &o->stack_dyn_size))
				return -1;
		}
	}
	if ((st & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT)) && !u64(w, &o->weight))
		return -1;
	if ((st & PERF_SAMPLE_DATA_SRC) && !u64(w, &o->data_src))
		return -1;
	if ((st & PERF_SAMPLE_TRANSACTION) && !u64(w, &o->transaction))
		return -1;
	if ((st & PERF_SAMPLE_REGS_INTR) &&
	    !regs(w, a->sample_regs_intr, &o->regs_intr_abi, &o->regs_intr, &o->nr_regs_intr))
		return -1;
	if ((st & PERF_SAMPLE_PHYS_ADDR) && !u64(w, &o->phys_addr))
		return -1;
	if ((st & PERF_SAMPLE_CGROUP) && !u64(w, &o->cgroup))
		return -1;
	if ((st & PERF_SAMPLE_DATA_PAGE_SIZE) && !u64(w, &o->data_page_size))
		return -1;
	if ((st & PERF_SAMPLE_CODE_PAGE_SIZE) && !u64(w, &o->code_page_size))
		return -1;
	if (st & PERF_SAMPLE_AUX) {
		if (!u64(w, &o->aux_size) || o->aux_size > w->len - w->pos ||
		    !take(w, (size_t)o->aux_size, &o->aux))
			return -1;
	}
	return 0;
}

int ps_sample__parse(const struct ps_session *s, const struct ps_record *rec, struct ps_sample *out,
                     const char *name, struct ps_error *err)
{
	return ps_sample__parse_attr(s, rec, NULL, out, name, err);
}

int ps_sample__parse_attr(const struct ps_session *s, const struct ps_record *rec,
                          const struct ps_attr *attr, struct ps_sample *out, const char *name,
                          struct ps_error *err)
{
	const struct ps_attr *a = attr ? attr : ps_session__attr_of(s, rec);
	struct walker w = { rec->data + 8, rec->size - 8u, 0, ps_session__swapped(s) };

	zero(out, 0, sizeof(*out));
	if (!a)
		return ps_error__set(
		        err, PS_ECORRUPT, name, rec->offset,
		        "SAMPLE record belongs to no event of the stream (unknown id)");
	out->attr = a;
	out->type = a->sample_type;
	out->misc = rec->misc;
	out->swap = w.swap;
	if (walk(&w, a, out) < 0)
		return ps_error__set(
		        err, PS_ECORRUPT, name, rec->offset,
		        "SAMPLE record of %u bytes is too small for the fields of %s (sample_type 0x%" PRIx64
		        ")",
		        rec->size, a->name, a->sample_type);
	return 0;
}

int ps_sample__parse_id(const struct ps_session *s, const struct ps_record *rec,
                        struct ps_sample *out)
{
	const struct ps_attr *a;
	struct walker w;
	uint64_t st;
	size_t n;

	memset(out, 0, sizeof(*out));
	if (!ps_record_type_has_trailer(rec->type))
		return 0;
	a = ps_session__attr_of(s, rec);
	if (!a || !(a->flags & PS_ATTR_FLAG_SAMPLE_ID_ALL))
		return 0;
	st = a->sample_type;
	n = 8 * (size_t)a->trailer_words;
	if (n > rec->size - 8u)
		return -1;
	out->attr = a;
	out->type = st & (PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID |
	                  PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER);
	out->swap = ps_session__swapped(s);
	w.p = rec->data + rec->size - n;
	w.len = n;
	w.pos = 0;
	w.swap = out->swap;
	if ((st & PERF_SAMPLE_TID) && !u32pair(&w, &out->pid, &out->tid))
		return -1;
	if ((st & PERF_SAMPLE_TIME) && !u64(&w, &out->time))
		return -1;
	if ((st & PERF_SAMPLE_ID) && !u64(&w, &out->id))
		return -1;
	if ((st & PERF_SAMPLE_STREAM_ID) && !u64(&w, &out->stream_id))
		return -1;
	if ((st & PERF_SAMPLE_CPU) && !u32pair(&w, &out->cpu, NULL))
		return -1;
	if ((st & PERF_SAMPLE_IDENTIFIER) && !u64(&w, &out->identifier))
		return -1;
	return 1;
}

long ps_sample__read(const struct ps_sample *s, uint64_t *time_enabled, uint64_t *time_running,
                     struct ps_read_value *vals, size_t max)
{
	struct walker w = { s->read, s->read_len, 0, s->swap };
	uint64_t rf, nr = 1, i;

	*time_enabled = *time_running = 0;
	if (!s->read || !s->attr)
		return -1;
	rf = s->attr->read_format;
	if ((rf & PERF_FORMAT_GROUP) && !u64(&w, &nr))
		return -1;
	if (!(rf & PERF_FORMAT_GROUP)) {
		struct ps_read_value v = { 0 };

		if (!u64(&w, &v.value))
			return -1;
		if ((rf & PERF_FORMAT_TOTAL_TIME_ENABLED) && !u64(&w, time_enabled))
			return -1;
		if ((rf & PERF_FORMAT_TOTAL_TIME_RUNNING) && !u64(&w, time_running))
			return -1;
		if ((rf & PERF_FORMAT_ID) && !u64(&w, &v.id))
			return -1;
		if ((rf & PERF_FORMAT_LOST) && !u64(&w, &v.lost))
			return -1;
		if (max)
			vals[0] = v;
		return 1;
	}
	if ((rf & PERF_FORMAT_TOTAL_TIME_ENABLED) && !u64(&w, time_enabled))
		return -1;
	if ((rf & PERF_FORMAT_TOTAL_TIME_RUNNING) && !u64(&w, time_running))
		return -1;
	for (i = 0; i < nr; i++) {
		struct ps_read_value v = { 0 };

		if (!u64(&w, &v.value))
			return -1;
		if ((rf & PERF_FORMAT_ID) && !u64(&w, &v.id))
			return -1;
		if ((rf & PERF_FORMAT_LOST) && !u64(&w, &v.lost))
			return -1;
		if (i < max)
			vals[i] = v;
	}
	return (long)nr;
}

static const char *const type_names[] = {
	"IP",
	"TID",
	"TIME",
	"ADDR",
	"READ",
	"CALLCHAIN",
	"ID",
	"CPU",
	"PERIOD",
	"STREAM_ID",
	"RAW",
	"BRANCH_STACK",
	"REGS_USER",
	"STACK_USER",
	"WEIGHT",
	"DATA_SRC",
	"IDENTIFIER",
	"TRANSACTION",
	"REGS_INTR",
	"PHYS_ADDR",
	"AUX",
	"CGROUP",
	"DATA_PAGE_SIZE",
	"CODE_PAGE_SIZE",
	"WEIGHT_STRUCT",
};

const char *ps_sample_type_name(uint64_t bit)
{
	unsigned int i;

	if (!bit || (bit & (bit - 1)))
		return NULL;
	i = (unsigned int)__builtin_ctzll(bit);
	return i < ARRAY_SIZE(type_names) ? type_names[i] : NULL;
}
