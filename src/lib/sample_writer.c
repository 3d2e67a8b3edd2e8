// SPDX-License-Identifier: GPL-2.0-only
/*
 * sample_writer.c - samples as JSON text written straight into a buffer: ptojson's hot path.
 *
 * What an event's samples share is prepared once per event and reused: its ,"event":"NAME"
 * and, for a tracepoint, each field's escaped ,"NAME": key and how its value is read.  No
 * allocation per sample.  The object is the one the test oracle's ps_sample_json() builds
 * (tests/tools/json_oracle.c), key for key: the tests compare the two on every fixture, so
 * a key added here is added there in the same place.
 *
 * Every member is written with a leading comma; ps_json__close() turns the first one into
 * the opening brace, so that keys left out by ps_sample_writer__keep() cost nothing.
 */
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>

#include "abi.h"
#include "compat.h"
#include "durations.h"
#include "sample_json.h"
#include "session.h"
#include "symbolic.h"
#include "symbols.h"
#include "tpfield.h"
#include "xalloc.h"

static const char *const key_names[PS_NR_SAMPLE_KEYS] = {
	[PS_KEY_EVENT] = "event",
	[PS_KEY_TIME] = "time",
	[PS_KEY_PID] = "pid",
	[PS_KEY_TID] = "tid",
	[PS_KEY_CPU] = "cpu",
	[PS_KEY_COMM] = "comm",
	[PS_KEY_PERIOD] = "period",
	[PS_KEY_IP] = "ip",
	[PS_KEY_ADDR] = "addr",
	[PS_KEY_ID] = "id",
	[PS_KEY_STREAM_ID] = "stream_id",
	[PS_KEY_READ] = "read",
	[PS_KEY_CALLCHAIN] = "callchain",
	[PS_KEY_FIELDS] = "fields",
	[PS_KEY_RAW_SIZE] = "raw_size",
	[PS_KEY_BRANCH_STACK] = "branch_stack",
	[PS_KEY_BRANCH_HW_IDX] = "branch_hw_idx",
	[PS_KEY_REGS_USER] = "regs_user",
	[PS_KEY_STACK_USER] = "stack_user",
	[PS_KEY_WEIGHT] = "weight",
	[PS_KEY_INS_LAT] = "ins_lat",
	[PS_KEY_P_STAGE_CYC] = "p_stage_cyc",
	[PS_KEY_DATA_SRC] = "data_src",
	[PS_KEY_TRANSACTION] = "transaction",
	[PS_KEY_REGS_INTR] = "regs_intr",
	[PS_KEY_PHYS_ADDR] = "phys_addr",
	[PS_KEY_CGROUP] = "cgroup",
	[PS_KEY_DATA_PAGE_SIZE] = "data_page_size",
	[PS_KEY_CODE_PAGE_SIZE] = "code_page_size",
	[PS_KEY_AUX_SIZE] = "aux_size",
	[PS_KEY_LATENCY] = "latency",
	[PS_KEY_RUN_TIME] = "run_time",
	[PS_KEY_WAIT_TIME] = "wait_time",
	[PS_KEY_SCH_DELAY] = "sch_delay",
	[PS_KEY_OFF_CPU] = "off_cpu",
	[PS_KEY_PAIRS] = "pairs",
	[PS_KEY_HOST] = "host",
	[PS_KEY_INPUT] = "input",
	[PS_KEY_SYM] = "sym",
	[PS_KEY_SYMOFF] = "symoff",
	[PS_KEY_DSO] = "dso",
	[PS_KEY_TYPE] = "type",
};

int ps_sample_key_of(const char *name, size_t len)
{
	int k;

	for (k = 0; k < PS_NR_SAMPLE_KEYS; k++)
		if (strlen(key_names[k]) == len && memcmp(key_names[k], name, len) == 0)
			return k;
	return -1;
}

/* one tracepoint field, as the oracle's ps_tracepoint_json() reads it */
struct tp_field {
	char *key; /* ,"NAME": */
	size_t key_len;
	const char *name;
	char *sym_key; /* ,"NAME_sym": with set_symbolic, for a symbolic field; else NULL */
	size_t sym_key_len;
	struct ps_tp_field val; /* how its value is read */
};

/* what one event's samples share; rebuilt when the attr's name or format changes */
struct event {
	struct ps_tp_event h;
	char *head; /* ,"event":"NAME" */
	size_t head_len;
	struct tp_field *fields;
	size_t nr_fields;
};

struct ps_sample_writer {
	const struct ps_session *s;
	enum ps_time_format tf;
	struct ps_json_clock clock;
	uint64_t keep;
	bool frames;             /* callchain as frame objects */
	bool symbolic;           /* NAME_sym texts */
	struct ps_symbols *syms; /* names for them, and for the ip */
	char *host;              /* ,"host":"NAME", or NULL */
	size_t host_len;
	struct event *events; /* by attr index */
	size_t nr_events;
};

#define KEEP(w, k) ((w)->keep & (1ull << (k)))

struct ps_sample_writer *ps_sample_writer__new(const struct ps_session *s, enum ps_time_format tf,
                                               const struct ps_json_clock *clock)
{
	struct ps_sample_writer *w = calloc(1, sizeof(*w));

	if (!w)
		return NULL;
	w->s = s;
	w->tf = tf;
	if (clock)
		w->clock = *clock;
	w->keep = ((1ull << PS_NR_SAMPLE_KEYS) - 1) & ~(1ull << PS_KEY_TYPE | 1ull << PS_KEY_HOST);
	return w;
}

static void event_clear(struct event *e)
{
	size_t i;

	for (i = 0; i < e->nr_fields; i++) {
		free(e->fields[i].key);
		free(e->fields[i].sym_key);
	}
	free(e->fields);
	free(e->head);
	free(e->h.name);
	memset(e, 0, sizeof(*e));
}

void ps_sample_writer__delete(struct ps_sample_writer *w)
{
	size_t i;

	if (!w)
		return;
	for (i = 0; i < w->nr_events; i++)
		event_clear(&w->events[i]);
	free(w->events);
	free(w->host);
	free(w);
}

void ps_sample_writer__keep(struct ps_sample_writer *w, uint64_t mask)
{
	w->keep = mask;
}

static char *take(struct ps_json_buf *b, size_t *len);

void ps_sample_writer__set_symbolic(struct ps_sample_writer *w, bool on)
{
	w->symbolic = on;
}

void ps_sample_writer__set_symbols(struct ps_sample_writer *w, struct ps_symbols *st)
{
	w->frames = true;
	w->syms = st;
}

int ps_sample_writer__set_host(struct ps_sample_writer *w, const char *host)
{
	struct ps_json_buf b = { 0 };

	free(w->host);
	ps_json__raw(&b, ",\"host\":", 8);
	ps_json__string(&b, host, strlen(host));
	w->host = take(&b, &w->host_len);
	return w->host ? 0 : -1;
}

/* @b's bytes as a new string (the buffer is released) */
static char *take(struct ps_json_buf *b, size_t *len)
{
	char *s;

	if (b->failed) {
		ps_json_buf__release(b);
		return NULL;
	}
	s = malloc(b->len + 1);
	if (s) {
		memcpy(s, b->p, b->len);
		s[b->len] = 0;
		*len = b->len;
	}
	ps_json_buf__release(b);
	return s;
}

static int prepare_field(struct tp_field *t, const struct tep_event *ev,
                         const struct tep_format_field *f, bool symbolic)
{
	struct ps_json_buf b = { 0 };

	ps_json__key(&b, f->name);
	t->key = take(&b, &t->key_len);
	if (!t->key)
		return -1;
	t->name = f->name;
	if (symbolic && ps_symbolic__json_field(ev, f)) {
		char *name = ps_symbolic__key(f->name);

		if (!name)
			return -1;
		ps_json__key(&b, name);
		free(name);
		t->sym_key = take(&b, &t->sym_key_len);
		if (!t->sym_key)
			return -1;
	}
	ps_tp_field__init(&t->val, f);
	return 0;
}

static int prepare(struct event *e, const struct ps_attr *a, bool symbolic)
{
	struct ps_json_buf b = { 0 };
	struct tep_format_field *f;
	size_t n = 0;

	event_clear(e);
	e->h.name = strdup(a->name);
	ps_json__raw(&b, ",\"event\":", 9);
	ps_json__string(&b, a->name, strlen(a->name));
	e->head = take(&b, &e->head_len);
	if (!e->h.name || !e->head)
		goto fail;
	e->h.tp = a->tp;
	if (a->tp) {
		for (f = a->tp->format.fields; f; f = f->next)
			n++;
		e->fields = ps_realloc_array(NULL, n ? n : 1, sizeof(*e->fields));
		if (!e->fields)
			goto fail;
		memset(e->fields, 0, (n ? n : 1) * sizeof(*e->fields));
		for (f = a->tp->format.fields; f; f = f->next)
			if (prepare_field(&e->fields[e->nr_fields++], a->tp, f, symbolic) < 0)
				goto fail;
	}
	e->h.ready = true;
	return 0;
fail:
	event_clear(e);
	return -1;
}

/* the prepared event of @a, rebuilt if its name or format changed since */
static struct event *event_of(struct ps_sample_writer *w, const struct ps_attr *a)
{
	struct event *e = ps_slot((void **)&w->events, &w->nr_events, sizeof(*e), a->idx);

	if (!e || ps_tp_event__serves(&e->h, a))
		return e;
	return prepare(e, a, w->symbolic) < 0 ? NULL : e;
}

/* ---- values ---- */

static inline void key(struct ps_json_buf *b, const char *k, size_t len)
{
	ps_json__raw(b, k, len);
}

/* a constant ,"NAME": */
#define KEY(b, lit) key(b, lit, sizeof(lit) - 1)

static void number(struct ps_json_buf *b, const struct tp_field *t, const unsigned char *p,
                   unsigned int size, bool swap)
{
	uint64_t v = ps_get_num(p, size, swap);

	if (t->val.pointer)
		ps_json__hex(b, v);
	else if (t->val.sign)
		ps_json__i64(b, ps_sign_extend(v, size));
	else
		ps_json__u64(b, v);
}

/* ,"NAME_sym":"TEXT" after a symbolic field's number */
static void symbolic_text(struct ps_json_buf *b, const struct tp_field *t,
                          const struct ps_sample *smp)
{
	char text[PS_SYMBOLIC_MAX];

	if (ps_symbolic__text(smp->attr->tp, t->name, smp, text, sizeof(text)) < 0)
		return;
	key(b, t->sym_key, t->sym_key_len);
	ps_json__string(b, text, strlen(text));
}

static void tp_fields(struct ps_json_buf *b, const struct event *e, const struct ps_sample *smp)
{
	const unsigned char *raw = smp->raw;
	uint32_t size = smp->raw_size;
	bool swap = smp->swap;
	size_t at = ps_json__open(b), i;

	for (i = 0; i < e->nr_fields; i++) {
		const struct tp_field *t = &e->fields[i];
		unsigned int off, len, j;

		if (!ps_tp_field__locate(&t->val, raw, size, swap, &off, &len))
			continue;
		key(b, t->key, t->key_len);
		switch (t->val.kind) {
		case PS_TP_STRING: {
			const unsigned char *nul = memchr(raw + off, 0, len);

			ps_json__string(b, (const char *)raw + off,
			                nul ? (size_t)(nul - (raw + off)) : len);
			break;
		}
		case PS_TP_NUMBER:
			number(b, t, raw + off, len, swap);
			if (t->sym_key)
				symbolic_text(b, t, smp);
			break;
		case PS_TP_ARRAY: {
			size_t arr = ps_json__open(b);

			for (j = 0; j + t->val.elem <= len; j += t->val.elem) {
				ps_json__char(b, ',');
				number(b, t, raw + off + j, t->val.elem, swap);
			}
			ps_json__close(b, arr, '[', ']');
			break;
		}
		}
	}
	ps_json__close(b, at, '{', '}');
}

static void hex_array(struct ps_json_buf *b, const struct ps_sample *smp, const unsigned char *arr,
                      uint64_t nr, bool skip_markers)
{
	size_t at = ps_json__open(b);
	uint64_t i;

	for (i = 0; i < nr; i++) {
		uint64_t v = ps_sample__u64(smp, arr, i);

		if (skip_markers && v >= (uint64_t)PERF_CONTEXT_MAX)
			continue;
		ps_json__char(b, ',');
		ps_json__hex(b, v);
	}
	ps_json__close(b, at, '[', ']');
}

/* ,"sym":..,"symoff":..,"dso":.. as far as known (and kept, at the top level) */
static void symbol(struct ps_sample_writer *w, struct ps_json_buf *b, const struct ps_symbol *s,
                   bool top)
{
	if (s->name) {
		if (!top || KEEP(w, PS_KEY_SYM)) {
			KEY(b, ",\"sym\":");
			ps_json__string(b, s->name, strlen(s->name));
		}
		if (!top || KEEP(w, PS_KEY_SYMOFF)) {
			KEY(b, ",\"symoff\":");
			ps_json__u64(b, s->off);
		}
	}
	if (s->dso && (!top || KEEP(w, PS_KEY_DSO))) {
		KEY(b, ",\"dso\":");
		ps_json__string(b, s->dso, strlen(s->dso));
	}
}

/* the callchain as frame objects, as the oracle's ps_symbols__json() makes them */
static void frames(struct ps_sample_writer *w, struct ps_json_buf *b, const struct ps_sample *smp)
{
	struct ps_frame f[PS_SYMBOLS_MAX_STACK];
	size_t at = ps_json__open(b), o, n, i;

	if (!w->syms) {
		for (i = 0; i < smp->nr_callchain; i++) {
			uint64_t ip = ps_sample__u64(smp, smp->callchain, i);

			if (ip >= (uint64_t)PERF_CONTEXT_MAX)
				continue;
			KEY(b, ",{\"ip\":");
			ps_json__hex(b, ip);
			ps_json__char(b, '}');
		}
		ps_json__close(b, at, '[', ']');
		return;
	}
	n = ps_symbols__frames(w->syms, smp, f, PS_SYMBOLS_MAX_STACK);
	for (i = 0; i < n; i++) {
		ps_json__char(b, ',');
		o = ps_json__open(b);
		KEY(b, ",\"ip\":");
		ps_json__hex(b, f[i].ip);
		symbol(w, b, &f[i].sym, false);
		if (f[i].inlined)
			KEY(b, ",\"inlined\":true");
		ps_json__close(b, o, '{', '}');
	}
	ps_json__close(b, at, '[', ']');
}

static void read_values(struct ps_sample_writer *w, struct ps_json_buf *b,
                        const struct ps_sample *smp)
{
	struct ps_read_value vals[64];
	uint64_t te, tr, rf = smp->attr->read_format;
	long n = ps_sample__read(smp, &te, &tr, vals, 64), i;
	size_t at, arr;

	if (n < 0) {
		ps_json__raw(b, "null", 4);
		return;
	}
	at = ps_json__open(b);
	if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED) {
		KEY(b, ",\"time_enabled\":");
		ps_json__u64(b, te);
	}
	if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING) {
		KEY(b, ",\"time_running\":");
		ps_json__u64(b, tr);
	}
	KEY(b, ",\"values\":");
	arr = ps_json__open(b);
	for (i = 0; i < n && i < 64; i++) {
		size_t v;

		ps_json__char(b, ',');
		v = ps_json__open(b);
		KEY(b, ",\"value\":");
		ps_json__u64(b, vals[i].value);
		if (rf & PERF_FORMAT_ID) {
			const struct ps_attr *a = ps_session__attr_by_id(w->s, vals[i].id);

			KEY(b, ",\"id\":");
			ps_json__u64(b, vals[i].id);
			if (a) {
				KEY(b, ",\"event\":");
				ps_json__string(b, a->name, strlen(a->name));
			}
		}
		if (rf & PERF_FORMAT_LOST) {
			KEY(b, ",\"lost\":");
			ps_json__u64(b, vals[i].lost);
		}
		ps_json__close(b, v, '{', '}');
	}
	ps_json__close(b, arr, '[', ']');
	ps_json__close(b, at, '{', '}');
}

static void branches(struct ps_json_buf *b, const struct ps_sample *smp)
{
	size_t at = ps_json__open(b), o;
	uint64_t i;

	for (i = 0; i < smp->nr_branch; i++) {
		ps_json__char(b, ',');
		o = ps_json__open(b);
		KEY(b, ",\"from\":");
		ps_json__hex(b, ps_sample__u64(smp, smp->branch, 3 * i));
		KEY(b, ",\"to\":");
		ps_json__hex(b, ps_sample__u64(smp, smp->branch, 3 * i + 1));
		KEY(b, ",\"flags\":");
		ps_json__u64(b, ps_sample__u64(smp, smp->branch, 3 * i + 2));
		ps_json__close(b, o, '{', '}');
	}
	ps_json__close(b, at, '[', ']');
}

static void regs(struct ps_json_buf *b, const struct ps_sample *smp, uint64_t abi, uint64_t mask,
                 const unsigned char *r, uint64_t nr)
{
	size_t at = ps_json__open(b), arr;
	uint64_t i;

	KEY(b, ",\"abi\":");
	ps_json__i64(b, (int64_t)abi);
	KEY(b, ",\"mask\":");
	ps_json__hex(b, mask);
	if (r) {
		KEY(b, ",\"regs\":");
		arr = ps_json__open(b);
		for (i = 0; i < nr; i++) {
			ps_json__char(b, ',');
			ps_json__u64(b, ps_sample__u64(smp, r, i));
		}
		ps_json__close(b, arr, '[', ']');
	}
	ps_json__close(b, at, '{', '}');
}

/* The duration fields (durations.h) in nanoseconds, those the sample has. */
static void durations(struct ps_sample_writer *w, struct ps_json_buf *b,
                      const struct ps_sample *smp)
{
	int f;

	for (f = 0; f < PS_DUR_NR; f++) {
		const char *name = ps_durations__name(smp->dur->d, f);

		if (!(smp->dur->mask & (1u << f)) || !name ||
		    !KEEP(w, f < PS_DUR_PAIR ? PS_KEY_LATENCY + f : PS_KEY_PAIRS))
			continue;
		ps_json__char(b, ',');
		ps_json__string(b, name, strlen(name));
		ps_json__char(b, ':');
		ps_json__u64(b, smp->dur->v[f]);
	}
}

static void time_value(struct ps_sample_writer *w, struct ps_json_buf *b, uint64_t t)
{
	char buf[64];
	const char *s;

	if (w->tf == PS_TIME_NS) {
		ps_json__u64(b, t);
		return;
	}
	s = ps_json_time_string(t, w->tf, &w->clock, buf, sizeof(buf));
	ps_json__string(b, s, strlen(s));
}

int ps_sample_writer__write(struct ps_sample_writer *w, struct ps_json_buf *b,
                            const struct ps_sample *smp, const char *comm, uint16_t misc)
{
	const struct ps_attr *a = smp->attr;
	uint64_t st = smp->type;
	size_t at = ps_json__open(b);
	struct event *e = event_of(w, a);

	if (!e) {
		b->failed = true;
		return -1;
	}
	if (KEEP(w, PS_KEY_EVENT))
		key(b, e->head, e->head_len);
	if ((st & PERF_SAMPLE_TIME) && KEEP(w, PS_KEY_TIME)) {
		KEY(b, ",\"time\":");
		time_value(w, b, smp->time);
	}
	if (st & PERF_SAMPLE_TID) {
		if (KEEP(w, PS_KEY_PID)) {
			KEY(b, ",\"pid\":");
			ps_json__i64(b, (int32_t)smp->pid);
		}
		if (KEEP(w, PS_KEY_TID)) {
			KEY(b, ",\"tid\":");
			ps_json__i64(b, (int32_t)smp->tid);
		}
	}
	if ((st & PERF_SAMPLE_CPU) && KEEP(w, PS_KEY_CPU)) {
		KEY(b, ",\"cpu\":");
		ps_json__u64(b, smp->cpu);
	}
	if (comm && KEEP(w, PS_KEY_COMM)) {
		KEY(b, ",\"comm\":");
		ps_json__string(b, comm, strlen(comm));
	}
	if ((st & PERF_SAMPLE_PERIOD) && KEEP(w, PS_KEY_PERIOD)) {
		KEY(b, ",\"period\":");
		ps_json__u64(b, smp->period);
	}
	if ((st & PERF_SAMPLE_IP) && KEEP(w, PS_KEY_IP)) {
		KEY(b, ",\"ip\":");
		ps_json__hex(b, smp->ip);
	}
	if ((st & PERF_SAMPLE_ADDR) && KEEP(w, PS_KEY_ADDR)) {
		KEY(b, ",\"addr\":");
		ps_json__hex(b, smp->addr);
	}
	if ((st & (PERF_SAMPLE_ID | PERF_SAMPLE_IDENTIFIER)) && KEEP(w, PS_KEY_ID)) {
		KEY(b, ",\"id\":");
		ps_json__u64(b, st & PERF_SAMPLE_IDENTIFIER ? smp->identifier : smp->id);
	}
	if ((st & PERF_SAMPLE_STREAM_ID) && KEEP(w, PS_KEY_STREAM_ID)) {
		KEY(b, ",\"stream_id\":");
		ps_json__u64(b, smp->stream_id);
	}
	if ((st & PERF_SAMPLE_READ) && KEEP(w, PS_KEY_READ)) {
		KEY(b, ",\"read\":");
		read_values(w, b, smp);
	}
	if ((st & PERF_SAMPLE_CALLCHAIN) && KEEP(w, PS_KEY_CALLCHAIN)) {
		KEY(b, ",\"callchain\":");
		if (w->frames)
			frames(w, b, smp);
		else
			hex_array(b, smp, smp->callchain, smp->nr_callchain, true);
	}
	if (st & PERF_SAMPLE_RAW) {
		if (a->tp) {
			if (KEEP(w, PS_KEY_FIELDS)) {
				KEY(b, ",\"fields\":");
				tp_fields(b, e, smp);
			}
		} else if (KEEP(w, PS_KEY_RAW_SIZE)) {
			KEY(b, ",\"raw_size\":");
			ps_json__u64(b, smp->raw_size);
		}
	}
	if ((st & PERF_SAMPLE_BRANCH_STACK) && KEEP(w, PS_KEY_BRANCH_STACK)) {
		KEY(b, ",\"branch_stack\":");
		branches(b, smp);
	}
	if ((st & PERF_SAMPLE_BRANCH_STACK) && smp->has_branch_hw_idx &&
	    KEEP(w, PS_KEY_BRANCH_HW_IDX)) {
		KEY(b, ",\"branch_hw_idx\":");
		ps_json__u64(b, smp->branch_hw_idx);
	}
	if ((st & PERF_SAMPLE_REGS_USER) && KEEP(w, PS_KEY_REGS_USER)) {
		KEY(b, ",\"regs_user\":");
		regs(b, smp, smp->regs_user_abi, a->sample_regs_user, smp->regs_user,
		     smp->nr_regs_user);
	}
	if ((st & PERF_SAMPLE_STACK_USER) && KEEP(w, PS_KEY_STACK_USER)) {
		KEY(b, ",\"stack_user\":{\"size\":");
		ps_json__u64(b, smp->stack_size);
		KEY(b, ",\"dyn_size\":");
		ps_json__u64(b, smp->stack_dyn_size);
		ps_json__char(b, '}');
	}
	if (st & PERF_SAMPLE_WEIGHT_STRUCT) {
		if (KEEP(w, PS_KEY_WEIGHT)) {
			KEY(b, ",\"weight\":");
			ps_json__u64(b, (uint32_t)smp->weight);
		}
		if (KEEP(w, PS_KEY_INS_LAT)) {
			KEY(b, ",\"ins_lat\":");
			ps_json__u64(b, (uint16_t)(smp->weight >> 32));
		}
		if (KEEP(w, PS_KEY_P_STAGE_CYC)) {
			KEY(b, ",\"p_stage_cyc\":");
			ps_json__u64(b, (uint16_t)(smp->weight >> 48));
		}
	} else if ((st & PERF_SAMPLE_WEIGHT) && KEEP(w, PS_KEY_WEIGHT)) {
		KEY(b, ",\"weight\":");
		ps_json__u64(b, smp->weight);
	}
	if ((st & PERF_SAMPLE_DATA_SRC) && KEEP(w, PS_KEY_DATA_SRC)) {
		KEY(b, ",\"data_src\":");
		ps_json__hex(b, smp->data_src);
	}
	if ((st & PERF_SAMPLE_TRANSACTION) && KEEP(w, PS_KEY_TRANSACTION)) {
		KEY(b, ",\"transaction\":");
		ps_json__u64(b, smp->transaction);
	}
	if ((st & PERF_SAMPLE_REGS_INTR) && KEEP(w, PS_KEY_REGS_INTR)) {
		KEY(b, ",\"regs_intr\":");
		regs(b, smp, smp->regs_intr_abi, a->sample_regs_intr, smp->regs_intr,
		     smp->nr_regs_intr);
	}
	if ((st & PERF_SAMPLE_PHYS_ADDR) && KEEP(w, PS_KEY_PHYS_ADDR)) {
		KEY(b, ",\"phys_addr\":");
		ps_json__hex(b, smp->phys_addr);
	}
	if ((st & PERF_SAMPLE_CGROUP) && KEEP(w, PS_KEY_CGROUP)) {
		KEY(b, ",\"cgroup\":");
		ps_json__u64(b, smp->cgroup);
	}
	if ((st & PERF_SAMPLE_DATA_PAGE_SIZE) && KEEP(w, PS_KEY_DATA_PAGE_SIZE)) {
		KEY(b, ",\"data_page_size\":");
		ps_json__u64(b, smp->data_page_size);
	}
	if ((st & PERF_SAMPLE_CODE_PAGE_SIZE) && KEEP(w, PS_KEY_CODE_PAGE_SIZE)) {
		KEY(b, ",\"code_page_size\":");
		ps_json__u64(b, smp->code_page_size);
	}
	if ((st & PERF_SAMPLE_AUX) && KEEP(w, PS_KEY_AUX_SIZE)) {
		KEY(b, ",\"aux_size\":");
		ps_json__u64(b, smp->aux_size);
	}
	if (smp->dur)
		durations(w, b, smp);
	if (w->host && KEEP(w, PS_KEY_HOST))
		key(b, w->host, w->host_len);
	if (a->input && KEEP(w, PS_KEY_INPUT)) {
		KEY(b, ",\"input\":");
		ps_json__string(b, a->input, strlen(a->input));
	}
	if (w->syms) {
		struct ps_symbol sym;

		if (ps_symbols__sample(w->syms, smp, misc, &sym))
			symbol(w, b, &sym, true);
	}
	if (KEEP(w, PS_KEY_TYPE))
		KEY(b, ",\"type\":\"SAMPLE\"");
	ps_json__close(b, at, '{', '}');
	return b->failed ? -1 : 0;
}
