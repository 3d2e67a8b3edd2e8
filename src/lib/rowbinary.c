// SPDX-License-Identifier: GPL-2.0-only
/*
 * rowbinary.c - samples as ClickHouse RowBinary rows (rowbinary.h): each column of the
 * schema knows where its value comes from, each event which of its tracepoint fields fills
 * which column; a row is the values in column order, little-endian numbers and
 * length-prefixed strings and arrays.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/perf_event.h>
#include <traceevent/event-parse.h>

#include "compat.h"
#include "rowbinary.h"
#include "sample.h"
#include "schema.h"
#include "durations.h"
#include "session.h"
#include "symbols.h"
#include "tpfield.h"
#include "xalloc.h"

#define MAX_LEN (1u << 30) /* a string or array in a row, when rows are read back */

enum src {
	S_NONE, /* a column this loader has no value for: the default */
	S_HOST,
	S_EVENT,
	S_TIME,
	S_PID,
	S_TID,
	S_CPU,
	S_COMM,
	S_PERIOD,
	S_IP,
	S_SYM,
	S_SYMOFF,
	S_DSO,
	S_ADDR,
	S_ID,
	S_STREAM_ID,
	S_CC_IP,
	S_CC_SYM,
	S_CC_SYMOFF,
	S_CC_DSO,
	S_RAW_SIZE,
	S_WEIGHT,
	S_INS_LAT,
	S_P_STAGE_CYC,
	S_DATA_SRC,
	S_TRANSACTION,
	S_PHYS_ADDR,
	S_CGROUP,
	S_DATA_PAGE_SIZE,
	S_CODE_PAGE_SIZE,
	S_AUX_SIZE,
	S_LATENCY, /* the duration fields (durations.h), in enum ps_dur_field's order */
	S_RUN_TIME,
	S_WAIT_TIME,
	S_SCH_DELAY,
	S_OFF_CPU,
	S_STACK,
	S_NATS_SUBJECT,
	S_NATS_SEQ,
	S_NATS_OFFSET,
	S_BATCH,
	S_FIELD, /* "fields.NAME": the event's field of that name */
};

static const char *const src_names[] = {
	[S_HOST] = "host",
	[S_EVENT] = "event",
	[S_TIME] = "time",
	[S_PID] = "pid",
	[S_TID] = "tid",
	[S_CPU] = "cpu",
	[S_COMM] = "comm",
	[S_PERIOD] = "period",
	[S_IP] = "ip",
	[S_SYM] = "sym",
	[S_SYMOFF] = "symoff",
	[S_DSO] = "dso",
	[S_ADDR] = "addr",
	[S_ID] = "id",
	[S_STREAM_ID] = "stream_id",
	[S_CC_IP] = "callchain.ip",
	[S_CC_SYM] = "callchain.sym",
	[S_CC_SYMOFF] = "callchain.symoff",
	[S_CC_DSO] = "callchain.dso",
	[S_RAW_SIZE] = "raw_size",
	[S_WEIGHT] = "weight",
	[S_INS_LAT] = "ins_lat",
	[S_P_STAGE_CYC] = "p_stage_cyc",
	[S_DATA_SRC] = "data_src",
	[S_TRANSACTION] = "transaction",
	[S_PHYS_ADDR] = "phys_addr",
	[S_CGROUP] = "cgroup",
	[S_DATA_PAGE_SIZE] = "data_page_size",
	[S_CODE_PAGE_SIZE] = "code_page_size",
	[S_AUX_SIZE] = "aux_size",
	[S_LATENCY] = "latency",
	[S_RUN_TIME] = "run_time",
	[S_WAIT_TIME] = "wait_time",
	[S_SCH_DELAY] = "sch_delay",
	[S_OFF_CPU] = "off_cpu",
	[S_STACK] = "stack",
	[S_NATS_SUBJECT] = "nats_subject",
	[S_NATS_SEQ] = "nats_seq",
	[S_NATS_OFFSET] = "nats_offset",
	[S_BATCH] = "batch",
};

/* type codes (the header's second line names them) */
enum code {
	T_U8,
	T_U16,
	T_U32,
	T_U64,
	T_I8,
	T_I16,
	T_I32,
	T_I64,
	T_D128,
	T_STR,
	T_ARRAY = 16, /* | the element's code */
};

static const char *const code_names[] = { "UInt8", "UInt16", "UInt32", "UInt64",        "Int8",
	                                  "Int16", "Int32",  "Int64",  "Decimal128(0)", "String" };

static unsigned int code_width(unsigned int c)
{
	static const unsigned char w[] = { 1, 2, 4, 8, 1, 2, 4, 8, 16, 0 };

	return w[c & 15];
}

_Static_assert(T_I8 == PS_RB_I8 && T_D128 == PS_RB_D128 && T_STR == PS_RB_STRING &&
                       T_ARRAY == PS_RB_ARRAY,
               "rowbinary.h's type codes");

unsigned int ps_rowbinary__width(unsigned char code)
{
	return code_width(code);
}

struct column {
	enum src src;
	unsigned char code;
	unsigned int width; /* of a number or an array's element */
	bool sign;
};

struct event {
	struct ps_tp_event h;
	char *text; /* the name as the event column holds it */
	size_t text_len;
	struct ps_tp_field **fields; /* by column: NULL where the event has none */
};

struct ps_rowbinary {
	const struct ps_session *s;
	struct ps_symbols *syms;
	char *host;
	size_t host_len;
	struct ps_schema_column *cols;
	struct column *c;
	size_t n;
	char *header;
	struct event *events; /* by attr index */
	size_t nr_events;
	bool need_frames, need_sym;
	char *subject; /* ps_rowbinary__set_nats() */
	size_t subject_len;
	uint64_t nats_seq;
	uint32_t nats_offset;
};

/* ---- writing values ---- */

static inline unsigned char *room(struct ps_json_buf *b, size_t n)
{
	return (unsigned char *)ps_json_buf__room(b, n);
}

static inline void put_varint(struct ps_json_buf *b, uint64_t v)
{
	unsigned char *d = room(b, 10);
	size_t n = 0;

	if (!d)
		return;
	do {
		d[n++] = (unsigned char)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
	b->len += n;
}

/* @v (sign-extended when @sign) as @width bytes, little-endian */
static inline void put_int(struct ps_json_buf *b, uint64_t v, unsigned int width, bool sign)
{
	unsigned char *d = room(b, width);
	unsigned int i;

	if (!d)
		return;
	for (i = 0; i < width && i < 8; i++, v >>= 8)
		d[i] = (unsigned char)v;
	for (; i < width; i++)
		d[i] = sign && (d[7] & 0x80) ? 0xff : 0;
	b->len += width;
}

static void put_bytes(struct ps_json_buf *b, const void *s, size_t len)
{
	put_varint(b, len);
	ps_json__raw(b, s, len);
}

/* the length @s has once made valid UTF-8 (every bad byte: 3 bytes of U+FFFD) */
static size_t text_len(const unsigned char *s, size_t len, bool *clean)
{
	size_t i = 0, out = 0;

	*clean = true;
	while (i < len) {
		size_t n;

		if (s[i] < 0x80) {
			i++;
			out++;
			continue;
		}
		n = ps_json__utf8_seq(s + i, len - i);
		if (n) {
			i += n;
			out += n;
		} else {
			*clean = false;
			i++;
			out += 3;
		}
	}
	return out;
}

/* text as ptojson writes it: valid UTF-8 */
static void put_text(struct ps_json_buf *b, const char *str, size_t len)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i, out;
	unsigned char *d;
	bool clean;

	for (i = 0; i < len && s[i] < 0x80; i++)
		;
	if (i == len) {
		put_bytes(b, s, len);
		return;
	}
	out = text_len(s, len, &clean);
	if (clean) {
		put_bytes(b, s, len);
		return;
	}
	put_varint(b, out);
	d = room(b, out);
	if (!d)
		return;
	ps_json__valid_utf8((char *)d, str, len);
	b->len += out;
}

static void put_cstr(struct ps_json_buf *b, const char *s)
{
	if (s)
		put_text(b, s, strlen(s));
	else
		put_varint(b, 0);
}

/* "0x..." lower-case, no leading zeros, as ptojson writes an address */
static void put_hex(struct ps_json_buf *b, uint64_t v)
{
	static const char digits[] = "0123456789abcdef";
	char t[18];
	int n = 0, i;

	do {
		t[17 - n++] = digits[v & 15];
		v >>= 4;
	} while (v);
	t[17 - n++] = 'x';
	t[17 - n++] = '0';
	put_varint(b, (uint64_t)n);
	unsigned char *d = room(b, (size_t)n);

	if (!d)
		return;
	for (i = 0; i < n; i++)
		d[i] = (unsigned char)t[18 - n + i];
	b->len += (size_t)n;
}

/* a column's default: 0, "" or [] */
static void put_default(struct ps_json_buf *b, const struct column *c)
{
	if (c->code == T_STR || (c->code & T_ARRAY))
		put_varint(b, 0);
	else
		put_int(b, 0, c->width, false);
}

/* ---- the events ---- */

static void event_clear(struct event *e, size_t ncols)
{
	if (e->fields)
		for (size_t i = 0; i < ncols; i++)
			free(e->fields[i]);
	free(e->fields);
	free(e->h.name);
	free(e->text);
	memset(e, 0, sizeof(*e));
}

/* @s made valid UTF-8 as a NUL-terminated string (the column names are) */
static char *valid_text(const char *s)
{
	size_t len = strlen(s), out;
	bool clean;
	char *t;

	out = text_len((const unsigned char *)s, len, &clean);
	t = malloc(out + 1);
	if (t) {
		ps_json__valid_utf8(t, s, len);
		t[out] = 0;
	}
	return t;
}

/* one event's field that fills a column */
static struct ps_tp_field *field_of(const struct tep_format_field *f)
{
	struct ps_tp_field *t = malloc(sizeof(*t));

	if (t)
		ps_tp_field__init(t, f);
	return t;
}

/* the field fits the column's type as ptojson writes it; else the column's default */
static bool fits(const struct ps_tp_field *f, const struct column *c)
{
	switch (f->kind) {
	case PS_TP_STRING:
		return c->code == T_STR;
	case PS_TP_NUMBER:
		return f->pointer ? c->code == T_STR : c->code < T_STR;
	case PS_TP_ARRAY:
		return f->pointer ? c->code == (T_ARRAY | T_STR) :
		                    (c->code & T_ARRAY) && (c->code & 15) < T_STR;
	}
	return false;
}

static int prepare(struct ps_rowbinary *rb, struct event *e, const struct ps_attr *a)
{
	event_clear(e, rb->n);
	e->h.name = strdup(a->name);
	e->text = valid_text(a->name);
	e->fields = calloc(rb->n ? rb->n : 1, sizeof(*e->fields));
	if (!e->h.name || !e->text || !e->fields)
		goto fail;
	e->text_len = strlen(e->text);
	e->h.tp = a->tp;
	if (a->tp)
		for (struct tep_format_field *f = a->tp->format.fields; f; f = f->next) {
			char name[300], *key;

			if (snprintf(name, sizeof(name), "fields.%s", f->name) >= (int)sizeof(name))
				continue;
			key = valid_text(name);
			if (!key)
				goto fail;
			for (size_t i = 0; i < rb->n; i++)
				if (rb->c[i].src == S_FIELD && !e->fields[i] &&
				    strcmp(rb->cols[i].name, key) == 0) {
					e->fields[i] = field_of(f);
					if (!e->fields[i]) {
						free(key);
						goto fail;
					}
					if (!fits(e->fields[i], &rb->c[i])) {
						free(e->fields[i]);
						e->fields[i] = NULL;
					}
					break;
				}
			free(key);
		}
	e->h.ready = true;
	return 0;
fail:
	event_clear(e, rb->n);
	return -1;
}

static struct event *event_of(struct ps_rowbinary *rb, const struct ps_attr *a)
{
	struct event *e = ps_slot((void **)&rb->events, &rb->nr_events, sizeof(*e), a->idx);

	if (!e || ps_tp_event__serves(&e->h, a))
		return e;
	return prepare(rb, e, a) < 0 ? NULL : e;
}

/* ---- the writer ---- */

static unsigned char code_of(const struct ps_schema_column *c, unsigned int *width)
{
	unsigned char k;

	if (c->kind == PS_COL_TEXT || c->kind == PS_COL_ATEXT) {
		k = T_STR;
		*width = 0;
	} else {
		unsigned int b = c->bytes;

		k = b == 1 ? 0 : b == 2 ? 1 : b == 4 ? 2 : b == 8 ? 3 : 4;
		if (k == 4)
			k = c->sign ? T_D128 : T_U64;
		else if (c->sign)
			k += T_I8;
		*width = code_width(k);
	}
	return c->kind == PS_COL_AINT || c->kind == PS_COL_ATEXT ? (unsigned char)(k | T_ARRAY) : k;
}

struct ps_rowbinary *ps_rowbinary__new(const struct ps_session *s, struct ps_symbols *syms,
                                       const char *host, unsigned int flags, struct ps_error *err)
{
	struct ps_rowbinary *rb = calloc(1, sizeof(*rb));
	struct ps_bytes h = { 0 };
	size_t i;

	if (!rb)
		goto nomem;
	rb->s = s;
	rb->syms = syms;
	rb->host = valid_text(host ? host : "");
	if (!rb->host)
		goto nomem;
	rb->host_len = strlen(rb->host);
	rb->cols = ps_schema__columns(s, flags, &rb->n, err);
	if (!rb->cols) {
		ps_rowbinary__delete(rb);
		return NULL;
	}
	rb->c = calloc(rb->n ? rb->n : 1, sizeof(*rb->c));
	if (!rb->c)
		goto nomem;
	ps_bytes__puts(&h, "(");
	for (i = 0; i < rb->n; i++) {
		struct column *c = &rb->c[i];
		const char *name = rb->cols[i].name;

		c->code = code_of(&rb->cols[i], &c->width);
		c->sign = rb->cols[i].sign;
		c->src = S_NONE;
		if (strncmp(name, "fields.", 7) == 0)
			c->src = S_FIELD;
		for (size_t k = 1; k < ARRAY_SIZE(src_names) && c->src == S_NONE; k++)
			if (strcmp(src_names[k], name) == 0)
				c->src = (enum src)k;
		if (c->src >= S_CC_IP && c->src <= S_CC_DSO)
			rb->need_frames = true;
		if (c->src >= S_SYM && c->src <= S_DSO)
			rb->need_sym = true;
		ps_bytes__printf(&h, "%s%s", i ? ", " : "", rb->cols[i].quoted);
	}
	ps_bytes__puts(&h, ")\n");
	for (i = 0; i < rb->n; i++) {
		unsigned char k = rb->c[i].code;

		if (k & T_ARRAY)
			ps_bytes__printf(&h, "%sArray(%s)", i ? " " : "", code_names[k & 15]);
		else
			ps_bytes__printf(&h, "%s%s", i ? " " : "", code_names[k]);
	}
	ps_bytes__puts(&h, "\n");
	ps_bytes__text(&h);
	if (h.failed)
		goto nomem;
	rb->header = (char *)h.p;
	return rb;
nomem:
	ps_bytes__release(&h);
	ps_rowbinary__delete(rb);
	ps_error__set(err, PS_ENOMEM, NULL, PS_NO_OFFSET, "out of memory");
	return NULL;
}

void ps_rowbinary__delete(struct ps_rowbinary *rb)
{
	if (!rb)
		return;
	for (size_t i = 0; i < rb->nr_events; i++)
		event_clear(&rb->events[i], rb->n);
	free(rb->events);
	ps_schema__columns_free(rb->cols, rb->n);
	free(rb->c);
	free(rb->header);
	free(rb->host);
	free(rb->subject);
	free(rb);
}

int ps_rowbinary__set_nats(struct ps_rowbinary *rb, const char *subject, uint64_t seq,
                           uint32_t offset)
{
	if (subject && (!rb->subject || strcmp(subject, rb->subject) != 0)) {
		char *t = valid_text(subject);

		if (!t)
			return -1;
		free(rb->subject);
		rb->subject = t;
		rb->subject_len = strlen(t);
	}
	rb->nats_seq = seq;
	rb->nats_offset = offset;
	return 0;
}

int ps_rowbinary__set_host(struct ps_rowbinary *rb, const char *host)
{
	char *h = valid_text(host ? host : "");

	if (!h)
		return -1;
	free(rb->host);
	rb->host = h;
	rb->host_len = strlen(h);
	return 0;
}

const char *ps_rowbinary__header(const struct ps_rowbinary *rb)
{
	return rb->header;
}

/* a tracepoint field's value in its column's type */
static void put_field(struct ps_json_buf *b, const struct column *c, const struct ps_tp_field *t,
                      const struct ps_sample *smp)
{
	const unsigned char *raw = smp->raw;
	uint32_t size = smp->raw_size;
	bool swap = smp->swap;
	unsigned int off, len, j;

	if (!raw || !ps_tp_field__locate(t, raw, size, swap, &off, &len))
		goto none;
	switch (t->kind) {
	case PS_TP_STRING: {
		const unsigned char *nul = memchr(raw + off, 0, len);

		put_text(b, (const char *)raw + off, nul ? (size_t)(nul - (raw + off)) : len);
		return;
	}
	case PS_TP_NUMBER: {
		uint64_t v = ps_get_num(raw + off, len, swap);

		if (t->pointer)
			put_hex(b, v);
		else
			put_int(b, t->sign ? (uint64_t)ps_sign_extend(v, len) : v, c->width,
			        t->sign);
		return;
	}
	case PS_TP_ARRAY:
		put_varint(b, len / t->elem);
		for (j = 0; j + t->elem <= len; j += t->elem) {
			uint64_t v = ps_get_num(raw + off + j, t->elem, swap);

			if (t->pointer)
				put_hex(b, v);
			else
				put_int(b, t->sign ? (uint64_t)ps_sign_extend(v, t->elem) : v,
				        c->width, t->sign);
		}
		return;
	}
none:
	put_default(b, c);
}

int ps_rowbinary__write(struct ps_rowbinary *rb, struct ps_json_buf *b, const struct ps_sample *smp,
                        const char *comm, uint16_t misc, const char *stack, size_t stack_len,
                        const char *batch)
{
	const struct ps_attr *a = smp->attr;
	uint64_t st = smp->type;
	struct event *e = event_of(rb, a);
	struct ps_frame f[PS_SYMBOLS_MAX_STACK];
	struct ps_symbol sym = { 0 };
	size_t nf = 0, i, k;
	bool cc = st & PERF_SAMPLE_CALLCHAIN;

	if (!e) {
		b->failed = true;
		return -1;
	}
	if (rb->syms && rb->need_sym && !ps_symbols__sample(rb->syms, smp, misc, &sym))
		memset(&sym, 0, sizeof(sym));
	if (rb->syms && rb->need_frames && cc)
		nf = ps_symbols__frames(rb->syms, smp, f, PS_SYMBOLS_MAX_STACK);
	for (i = 0; i < rb->n; i++) {
		const struct column *c = &rb->c[i];

		switch (c->src) {
		case S_HOST:
			put_bytes(b, rb->host, rb->host_len);
			continue;
		case S_EVENT:
			put_bytes(b, e->text, e->text_len);
			continue;
		case S_TIME:
			put_int(b, st & PERF_SAMPLE_TIME ? smp->time : 0, c->width, false);
			continue;
		case S_PID:
			put_int(b, st & PERF_SAMPLE_TID ? (uint64_t)(int64_t)(int32_t)smp->pid : 0,
			        c->width, true);
			continue;
		case S_TID:
			put_int(b, st & PERF_SAMPLE_TID ? (uint64_t)(int64_t)(int32_t)smp->tid : 0,
			        c->width, true);
			continue;
		case S_CPU:
			put_int(b, st & PERF_SAMPLE_CPU ? smp->cpu : 0, c->width, false);
			continue;
		case S_COMM:
			put_cstr(b, comm);
			continue;
		case S_PERIOD:
			put_int(b, st & PERF_SAMPLE_PERIOD ? smp->period : 0, c->width, false);
			continue;
		case S_IP:
			if (st & PERF_SAMPLE_IP)
				put_hex(b, smp->ip);
			else
				put_varint(b, 0);
			continue;
		case S_SYM:
			put_cstr(b, sym.name);
			continue;
		case S_SYMOFF:
			put_int(b, sym.name ? sym.off : 0, c->width, false);
			continue;
		case S_DSO:
			put_cstr(b, sym.dso);
			continue;
		case S_ADDR:
			if (st & PERF_SAMPLE_ADDR)
				put_hex(b, smp->addr);
			else
				put_varint(b, 0);
			continue;
		case S_ID:
			put_int(b,
			        st & PERF_SAMPLE_IDENTIFIER ? smp->identifier :
			        st & PERF_SAMPLE_ID         ? smp->id :
			                                      0,
			        c->width, false);
			continue;
		case S_STREAM_ID:
			put_int(b, st & PERF_SAMPLE_STREAM_ID ? smp->stream_id : 0, c->width,
			        false);
			continue;
		case S_CC_IP:
		case S_CC_SYM:
		case S_CC_SYMOFF:
		case S_CC_DSO:
			if (!cc) {
				put_varint(b, 0);
				continue;
			}
			if (!rb->syms) {
				/* every frame but the context markers, names empty */
				size_t n = 0;

				for (k = 0; k < smp->nr_callchain; k++)
					if (ps_sample__u64(smp, smp->callchain, k) <
					    (uint64_t)PERF_CONTEXT_MAX)
						n++;
				put_varint(b, n);
				for (k = 0; k < smp->nr_callchain; k++) {
					uint64_t ip = ps_sample__u64(smp, smp->callchain, k);

					if (ip >= (uint64_t)PERF_CONTEXT_MAX)
						continue;
					if (c->src == S_CC_IP)
						put_hex(b, ip);
					else if (c->src == S_CC_SYMOFF)
						put_int(b, 0, 8, false);
					else
						put_varint(b, 0);
				}
				continue;
			}
			put_varint(b, nf);
			for (k = 0; k < nf; k++) {
				const struct ps_symbol *y = &f[k].sym;

				if (c->src == S_CC_IP)
					put_hex(b, f[k].ip);
				else if (c->src == S_CC_SYM)
					put_cstr(b, y->name);
				else if (c->src == S_CC_SYMOFF)
					put_int(b, y->name ? y->off : 0, 8, false);
				else
					put_cstr(b, y->dso);
			}
			continue;
		case S_RAW_SIZE:
			put_int(b, (st & PERF_SAMPLE_RAW) && !a->tp ? smp->raw_size : 0, c->width,
			        false);
			continue;
		case S_WEIGHT:
			put_int(b,
			        st & PERF_SAMPLE_WEIGHT_STRUCT ? (uint32_t)smp->weight :
			        st & PERF_SAMPLE_WEIGHT        ? smp->weight :
			                                         0,
			        c->width, false);
			continue;
		case S_INS_LAT:
			put_int(b,
			        st & PERF_SAMPLE_WEIGHT_STRUCT ? (uint16_t)(smp->weight >> 32) : 0,
			        c->width, false);
			continue;
		case S_P_STAGE_CYC:
			put_int(b,
			        st & PERF_SAMPLE_WEIGHT_STRUCT ? (uint16_t)(smp->weight >> 48) : 0,
			        c->width, false);
			continue;
		case S_DATA_SRC:
			if (st & PERF_SAMPLE_DATA_SRC)
				put_hex(b, smp->data_src);
			else
				put_varint(b, 0);
			continue;
		case S_TRANSACTION:
			put_int(b, st & PERF_SAMPLE_TRANSACTION ? smp->transaction : 0, c->width,
			        false);
			continue;
		case S_PHYS_ADDR:
			if (st & PERF_SAMPLE_PHYS_ADDR)
				put_hex(b, smp->phys_addr);
			else
				put_varint(b, 0);
			continue;
		case S_CGROUP:
			put_int(b, st & PERF_SAMPLE_CGROUP ? smp->cgroup : 0, c->width, false);
			continue;
		case S_DATA_PAGE_SIZE:
			put_int(b, st & PERF_SAMPLE_DATA_PAGE_SIZE ? smp->data_page_size : 0,
			        c->width, false);
			continue;
		case S_CODE_PAGE_SIZE:
			put_int(b, st & PERF_SAMPLE_CODE_PAGE_SIZE ? smp->code_page_size : 0,
			        c->width, false);
			continue;
		case S_AUX_SIZE:
			put_int(b, st & PERF_SAMPLE_AUX ? smp->aux_size : 0, c->width, false);
			continue;
		case S_LATENCY:
		case S_RUN_TIME:
		case S_WAIT_TIME:
		case S_SCH_DELAY:
		case S_OFF_CPU: {
			unsigned int df = PS_DUR_LATENCY + (unsigned int)(c->src - S_LATENCY);

			/* none: the default, as a JSON row without the key loads */
			put_int(b, smp->dur && (smp->dur->mask & (1u << df)) ? smp->dur->v[df] : 0,
			        c->width, false);
			continue;
		}
		case S_STACK:
			put_bytes(b, stack ? stack : "", stack ? stack_len : 0);
			continue;
		case S_NATS_SUBJECT:
			put_bytes(b, rb->subject ? rb->subject : "", rb->subject_len);
			continue;
		case S_NATS_SEQ:
			put_int(b, rb->nats_seq, c->width, false);
			continue;
		case S_NATS_OFFSET:
			put_int(b, rb->nats_offset, c->width, false);
			continue;
		case S_BATCH:
			put_bytes(b, batch, strlen(batch));
			continue;
		case S_FIELD:
			if (e->fields[i] && (st & PERF_SAMPLE_RAW))
				put_field(b, c, e->fields[i], smp);
			else
				put_default(b, c);
			continue;
		case S_NONE:
			put_default(b, c);
			continue;
		}
	}
	return b->failed ? -1 : 0;
}

/* ---- reading rows back ---- */

long ps_rowbinary__parse_header(const char *p, size_t len, struct ps_rowbinary_types *types)
{
	const char *nl1 = memchr(p, '\n', len), *nl2, *q;
	size_t n = 0, cap = 0;

	memset(types, 0, sizeof(*types));
	if (!nl1)
		return 0;
	nl2 = memchr(nl1 + 1, '\n', len - (size_t)(nl1 + 1 - p));
	if (!nl2)
		return 0;
	if (nl1 == p || *p != '(')
		return -1;
	for (q = nl1 + 1; q < nl2;) {
		const char *end = memchr(q, ' ', (size_t)(nl2 - q));
		size_t wl;
		unsigned char code = 0;
		bool arr = false, found = false;

		if (!end)
			end = nl2;
		wl = (size_t)(end - q);
		if (wl > 7 && memcmp(q, "Array(", 6) == 0 && q[wl - 1] == ')') {
			arr = true;
			q += 6;
			wl -= 7;
		}
		for (unsigned char k = 0; k < ARRAY_SIZE(code_names); k++)
			if (strlen(code_names[k]) == wl && memcmp(code_names[k], q, wl) == 0) {
				code = (unsigned char)(k | (arr ? T_ARRAY : 0));
				found = true;
			}
		if (!found)
			goto bad;
		if (n == cap) {
			size_t nc = cap ? cap * 2 : 64;
			unsigned char *nt = nc <= 65536 ? realloc(types->t, nc) : NULL;

			if (!nt)
				goto bad;
			types->t = nt;
			cap = nc;
		}
		types->t[n++] = code;
		q = end + (end < nl2);
	}
	if (!n)
		goto bad;
	types->n = n;
	return (long)(nl2 + 1 - p);
bad:
	free(types->t);
	memset(types, 0, sizeof(*types));
	return -1;
}

/* a varint at @p (@len bytes): its length, 0 when cut short, -1 when too long */
static int get_varint(const unsigned char *p, size_t len, uint64_t *v)
{
	int shift = 0, i = 0;

	*v = 0;
	for (;;) {
		if ((size_t)i == len)
			return 0;
		if (i == 10)
			return -1;
		*v |= (uint64_t)(p[i] & 0x7f) << shift;
		shift += 7;
		if (!(p[i++] & 0x80))
			return i;
	}
}

long ps_rowbinary__value(unsigned char k, const unsigned char *p, size_t len)
{
	uint64_t n = 1, v;
	size_t at = 0;
	int r;

	if (k & T_ARRAY) {
		r = get_varint(p, len, &n);
		if (r <= 0)
			return r;
		at += (size_t)r;
		if (n > MAX_LEN)
			return -1;
	}
	for (uint64_t j = 0; j < n; j++) {
		if ((k & 15) == T_STR) {
			r = get_varint(p + at, len - at, &v);
			if (r <= 0)
				return r;
			if (v > MAX_LEN)
				return -1;
			at += (size_t)r;
			if (len - at < v)
				return 0;
			at += v;
		} else {
			unsigned int w = code_width(k);

			if (len - at < w)
				return 0;
			at += w;
		}
	}
	return (long)at;
}

long ps_rowbinary__row(const struct ps_rowbinary_types *types, const unsigned char *p, size_t len,
                       size_t *last)
{
	size_t at = 0;

	for (size_t i = 0; i < types->n; i++) {
		long r;

		if (last)
			*last = at;
		r = ps_rowbinary__value(types->t[i], p + at, len - at);
		if (r <= 0)
			return r;
		at += (size_t)r;
	}
	return (long)at;
}

void ps_rowbinary__names_free(char **names, size_t n)
{
	if (!names)
		return;
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* the quoted names of a header's first line, "(`a`, `b`)": each with the span it takes */
static int split_names(const char *line, size_t len, char ***names, size_t *n, size_t **spans)
{
	size_t i = 1, cap = 0;

	*names = NULL;
	*n = 0;
	if (spans)
		*spans = NULL;
	if (len < 2 || line[0] != '(' || line[len - 1] != ')')
		return -1;
	while (i < len - 1) {
		size_t start = i, o = 0;
		char *name;

		if (line[i] != '`')
			goto bad;
		name = malloc(len);
		if (!name)
			goto bad;
		for (i++; i < len - 1 && line[i] != '`'; i++) {
			if (line[i] != '\\') {
				name[o++] = line[i];
			} else if (i + 1 < len - 1 && line[i + 1] == 'x' && i + 3 < len - 1 &&
			           hexval(line[i + 2]) >= 0 && hexval(line[i + 3]) >= 0) {
				name[o++] = (char)(hexval(line[i + 2]) << 4 | hexval(line[i + 3]));
				i += 3;
			} else if (i + 1 < len - 1) {
				name[o++] = line[++i];
			}
		}
		name[o] = 0;
		if (i >= len - 1) {
			free(name);
			goto bad;
		}
		i++;
		if (*n == cap) {
			size_t nc = cap ? cap * 2 : 64;
			char **nn = realloc(*names, nc * sizeof(*nn));
			size_t *ns = spans ? realloc(*spans, nc * 2 * sizeof(*ns)) : NULL;

			if (!nn || (spans && !ns)) {
				free(name);
				if (nn)
					*names = nn;
				if (ns)
					*spans = ns;
				goto bad;
			}
			*names = nn;
			if (spans)
				*spans = ns;
			cap = nc;
		}
		if (spans) {
			(*spans)[2 * *n] = start;
			(*spans)[2 * *n + 1] = i - start;
		}
		(*names)[(*n)++] = name;
		if (i < len - 1) {
			if (len - 1 - i < 2 || line[i] != ',' || line[i + 1] != ' ')
				goto bad;
			i += 2;
		}
	}
	return 0;
bad:
	ps_rowbinary__names_free(*names, *n);
	*names = NULL;
	*n = 0;
	if (spans) {
		free(*spans);
		*spans = NULL;
	}
	return -1;
}

int ps_rowbinary__names(const char *line, size_t len, char ***names, size_t *n)
{
	return split_names(line, len, names, n, NULL);
}

long ps_rowbinary__project(const char *p, size_t len, const bool *keep, struct ps_json_buf *out)
{
	struct ps_rowbinary_types types;
	const char *nl = memchr(p, '\n', len), *tl;
	char **names = NULL;
	size_t *spans = NULL, n = 0, i, at, first = 1;
	long h, rows = 0;

	h = ps_rowbinary__parse_header(p, len, &types);
	if (h <= 0 || !nl)
		return -1;
	if (split_names(p, (size_t)(nl - p), &names, &n, &spans) < 0 || n != types.n)
		goto bad;
	/* the header: the kept names, the kept types */
	ps_json__char(out, '(');
	for (i = 0; i < n; i++)
		if (keep[i]) {
			if (!first)
				ps_json__raw(out, ", ", 2);
			first = 0;
			ps_json__raw(out, p + spans[2 * i], spans[2 * i + 1]);
		}
	ps_json__raw(out, ")\n", 2);
	first = 1;
	tl = nl + 1;
	for (i = 0; i < n; i++) {
		const char *end = memchr(tl, i + 1 < n ? ' ' : '\n', (size_t)(p + h - tl));

		if (!end)
			goto bad;
		if (keep[i]) {
			if (!first)
				ps_json__char(out, ' ');
			first = 0;
			ps_json__raw(out, tl, (size_t)(end - tl));
		}
		tl = end + 1;
	}
	ps_json__char(out, '\n');
	for (at = (size_t)h; at < len; rows++)
		for (i = 0; i < n; i++) {
			long r = ps_rowbinary__value(types.t[i], (const unsigned char *)p + at,
			                             len - at);

			if (r <= 0)
				goto bad;
			if (keep[i])
				ps_json__raw(out, p + at, (size_t)r);
			at += (size_t)r;
		}
	ps_rowbinary__names_free(names, n);
	free(spans);
	free(types.t);
	return out->failed ? -1 : rows;
bad:
	ps_rowbinary__names_free(names, n);
	free(spans);
	free(types.t);
	return -1;
}
