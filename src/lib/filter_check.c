// SPDX-License-Identifier: GPL-2.0-only
/*
 * filter_check.c - bind each condition to the events of a stream, and refuse what no event
 * can answer.
 *
 * For every attr, a condition learns how to read its field: a sample field (when the attr's
 * sample_type carries it), the event's name, the thread's name, or a tracepoint field at an
 * offset of the raw data, typed by the format the stream carried.  A field an attr lacks, or
 * whose type does not fit the comparison there, is absent for that attr: the comparison is
 * false on its samples.  A field absent from every attr is an error, whose message lists
 * the fields that do exist.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>

#include "durations.h"
#include "filter_int.h"
#include "session.h"
#include "symbolic.h"
#include "syscalls.h"
#include "tracing.h"
#include "text.h"

/* ---- reading the formats ---- */

static bool is_char_type(const struct tep_format_field *fld)
{
	return fld->type && strstr(fld->type, "char") != NULL;
}

/* How @c reads its tracepoint field @fld; *type says what it holds (for the type check). */
static enum fbind_kind classify(const struct fcond *c, const struct tep_format_field *fld,
                                struct fbind *b, enum ftype *type, bool *array_misuse)
{
	unsigned long fl = fld->flags;

	*array_misuse = false;
	b->offset = (uint32_t)fld->offset;
	b->size = (uint32_t)fld->size;
	b->is_signed = (fl & TEP_FIELD_IS_SIGNED) != 0;
	if (fld->offset < 0 || fld->size < 0)
		return BK_ABSENT;
	if (fl & TEP_FIELD_IS_DYNAMIC) {
		if (c->has_index || !is_char_type(fld) || fld->size != 4) {
			*array_misuse = true;
			return BK_ABSENT;
		}
		*type = FT_STR;
		return (fl & TEP_FIELD_IS_RELATIVE) ? BK_TP_REL : BK_TP_DYN;
	}
	if (fl & TEP_FIELD_IS_ARRAY) {
		if (!c->has_index) {
			if (!is_char_type(fld)) {
				*array_misuse = true;
				return BK_ABSENT;
			}
			*type = FT_STR;
			return BK_TP_STR;
		}
		if (!fld->elementsize || c->index >= fld->arraylen)
			return BK_ABSENT;
		b->offset += c->index * fld->elementsize;
		b->size = fld->elementsize;
		*type = FT_NUM;
		return b->size == 1 || b->size == 2 || b->size == 4 || b->size == 8 ? BK_TP_NUM :
		                                                                      BK_ABSENT;
	}
	if (c->has_index) {
		*array_misuse = true;
		return BK_ABSENT;
	}
	*type = FT_NUM;
	return b->size == 1 || b->size == 2 || b->size == 4 || b->size == 8 ? BK_TP_NUM : BK_ABSENT;
}

static bool tp_is(const struct tep_event *tp, const char *sys, const char *name)
{
	return tp && tp->system && tp->name && strcmp(tp->system, sys) == 0 &&
	       strcmp(tp->name, name) == 0;
}

/* raw_syscalls:* carry the number in "id"; syscalls:sys_enter_NAME are named. */
static void bind_syscall(const struct ps_attr *a, struct fbind *b)
{
	const struct tep_event *tp = a->tp;
	struct tep_format_field *fld;
	const char *n = NULL;

	if (!tp || !tp->system || !tp->name)
		return;
	if (strcmp(tp->system, "raw_syscalls") == 0) {
		fld = ps_tracing__field((struct tep_event *)tp, "id");
		if (!fld || (fld->flags & TEP_FIELD_IS_ARRAY) || fld->offset < 0 ||
		    (fld->size != 4 && fld->size != 8))
			return;
		b->kind = BK_SYS_RAW;
	} else if (strcmp(tp->system, "syscalls") == 0) {
		if (strncmp(tp->name, "sys_enter_", 10) == 0)
			n = tp->name + 10;
		else if (strncmp(tp->name, "sys_exit_", 9) == 0)
			n = tp->name + 9;
		if (!n || strlen(n) >= sizeof(b->sysname))
			return;
		snprintf(b->sysname, sizeof(b->sysname), "%s", n);
		b->kind = BK_SYS_NAMED;
		fld = ps_tracing__field((struct tep_event *)tp, "__syscall_nr");
		if (!fld || fld->offset < 0 || (fld->size != 4 && fld->size != 8)) {
			b->size = 0;
			return;
		}
	} else {
		return;
	}
	b->offset = (uint32_t)fld->offset;
	b->size = (uint32_t)fld->size;
	b->is_signed = true;
}

/* errno is a property of an event with a signed "ret" number: a syscall exit. */
static void bind_errno(const struct ps_attr *a, struct fbind *b)
{
	struct tep_format_field *fld;

	if (!a->tp || !(a->sample_type & PERF_SAMPLE_RAW))
		return;
	fld = ps_tracing__field(a->tp, "ret");
	if (!fld ||
	    (fld->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_STRING | TEP_FIELD_IS_DYNAMIC)) ||
	    fld->offset < 0 || (fld->size != 4 && fld->size != 8))
		return;
	b->kind = BK_ERRNO;
	b->offset = (uint32_t)fld->offset;
	b->size = (uint32_t)fld->size;
	b->is_signed = true;
}

/* The error number named @name (ENOENT), or -1. */
static long errno_number(const char *name)
{
	int e;

	for (e = 1; e < 4096; e++) {
		const char *n = strerrorname_np(e);

		if (n && strcmp(n, name) == 0)
			return e;
	}
	return -1;
}

static void bind_one(const struct fcond *c, const struct ps_session *s, const struct ps_attr *a,
                     struct fbind *b)
{
	const struct ps_durations *d = ps_session__durations(s);
	uint64_t st = a->sample_type;
	struct tep_format_field *fld;
	enum ftype type = FT_NUM;
	bool misuse;
	int df;
	size_t i;

	memset(b, 0, sizeof(*b));
	switch (c->field) {
	case FF_EVENT:
		b->kind = BK_EVENT;
		return;
	case FF_INPUT:
		b->kind = a->input ? BK_INPUT : BK_ABSENT;
		return;
	case FF_SYSCALL:
		bind_syscall(a, b);
		return;
	case FF_ERRNO:
		bind_errno(a, b);
		return;
	case FF_TP:
		break;
	default:
		for (i = 0; i < ps_filter_nr_sample_fields; i++) {
			const struct fsample_field *sf = &ps_filter_sample_fields[i];

			if (sf->id != c->field)
				continue;
			if (sf->need && !(st & sf->need))
				return;
			b->kind = c->field == FF_COMM ? BK_COMM :
			          c->field == FF_SYM || c->field == FF_DSO || c->field == FF_STACK ?
			                                BK_SYMBOL :
			                                BK_SAMPLE;
			b->is_signed = sf->is_signed;
			return;
		}
		return;
	}
	if (!a->tp || !(st & PERF_SAMPLE_RAW))
		return;
	if (c->sys && !tp_is(a->tp, c->sys, c->event))
		return;
	df = ps_durations__field(d, c->name);
	if (df >= 0) {
		/* latency > 10ms: nanoseconds, where the event can have them */
		if (!c->has_index && ps_durations__attr_has(d, s, a, df) &&
		    !ps_filter_type_error(c, FT_NUM, NULL)) {
			b->kind = BK_DUR;
			b->offset = (uint32_t)df;
		}
		return;
	}
	fld = ps_tracing__field(a->tp, c->name);
	if (!fld)
		return;
	b->kind = classify(c, fld, b, &type, &misuse);
	if (b->kind == BK_TP_NUM && ps_symbolic__has(a->tp, c->name)) {
		/* prev_state = D: a word compares the text perf prints */
		b->symbolic = true;
		type = FT_SYSCALL;
	}
	if (b->kind != BK_ABSENT && ps_filter_type_error(c, type, NULL))
		b->kind = BK_ABSENT;
}

int ps_filter_bind(struct ps_filter *f, const struct ps_session *s)
{
	size_t n = ps_session__nr_attrs(s), i, k;

	/* the architecture the stream was recorded on names its syscalls */
	ps_session__feature_string(s, PS_FEAT_ARCH, f->arch, sizeof(f->arch));
	for (i = 0; i < f->nconds; i++) {
		struct fcond *c = f->conds[i];

		c->memo_valid = false;
		if (n > c->nbind) {
			struct fbind *nb = realloc(c->bind, n * sizeof(*nb));

			if (!nb)
				return -1;
			c->bind = nb;
			c->nbind = n;
		}
		for (k = 0; k < n; k++)
			bind_one(c, s, ps_session__attr(s, k), &c->bind[k]);
		for (k = 0; c->field == FF_INPUT && k < n; k++)
			c->bind[k].offset = ps_session__input_number(s, k);
		for (k = 0; k < c->nvalues; k++) {
			struct fvalue *v = &c->values[k];

			v->sysnr = -1;
			if (c->field == FF_SYSCALL && !v->is_num)
				v->sysnr = ps_syscall_number(f->arch[0] ? f->arch : NULL, v->text);
			if (c->field == FF_ERRNO && !v->is_num)
				v->sysnr = errno_number(v->text);
		}
	}
	f->session = s;
	f->nbound = n;
	return 0;
}

/* ---- messages ---- */

/* Add @name to a comma-separated list unless it is there already. */
static void sb_add_unique(struct ps_bytes *b, const char *name)
{
	size_t n = strlen(name);
	const char *p = ps_bytes__text(b);

	while (p && *p) {
		const char *end = strstr(p, ", ");
		size_t len = end ? (size_t)(end - p) : strlen(p);

		if (len == n && memcmp(p, name, n) == 0)
			return;
		if (!end)
			break;
		p = end + 2;
	}
	if (b->len)
		ps_bytes__puts(b, ", ");
	ps_bytes__puts(b, name);
}

static bool any_attr_has(const struct ps_session *s, uint64_t bit)
{
	const struct ps_attr *a;
	size_t i;

	ps_session__for_each_attr(s, a, i)
		if (!bit || (a->sample_type & bit))
			return true;
	return false;
}

static bool is_syscall_event(const struct ps_attr *a)
{
	struct fbind b;

	memset(&b, 0, sizeof(b));
	bind_syscall(a, &b);
	return b.kind != BK_ABSENT;
}

static bool has_errno(const struct ps_attr *a)
{
	struct fbind b;

	memset(&b, 0, sizeof(b));
	bind_errno(a, &b);
	return b.kind != BK_ABSENT;
}

/* The fields of the stream: the sample's own that some event carries, then each
 * tracepoint's (only those of @sys:@event when given), common_* last. */
static void list_fields(const struct ps_session *s, const char *sys, const char *event,
                        struct ps_bytes *b)
{
	const struct ps_attr *a;
	size_t i, k;
	int pass;

	if (!sys) {
		for (k = 0; k < ps_filter_nr_sample_fields; k++) {
			const struct fsample_field *sf = &ps_filter_sample_fields[k];
			bool have = any_attr_has(s, sf->need);

			if (sf->id == FF_SYSCALL) {
				have = false;
				ps_session__for_each_attr(s, a, i)
					have = have || is_syscall_event(a);
			}
			if (sf->id == FF_ERRNO) {
				have = false;
				ps_session__for_each_attr(s, a, i)
					have = have || has_errno(a);
			}
			if (sf->id == FF_INPUT) {
				have = false;
				ps_session__for_each_attr(s, a, i)
					have = have || a->input;
			}
			if (have)
				sb_add_unique(b, sf->name);
		}
	}
	for (pass = 0; pass < 2; pass++) {
		ps_session__for_each_attr(s, a, i) {
			const struct tep_format_field *fld;

			if (!a->tp || (sys && !tp_is(a->tp, sys, event)))
				continue;
			fld = pass ? a->tp->format.common_fields : a->tp->format.fields;
			for (; fld; fld = fld->next)
				if (fld->name)
					sb_add_unique(b, fld->name);
		}
	}
	/* the duration fields (durations.h) last */
	if (!sys) {
		const char *durs[PS_DUR_NR];
		size_t nd = ps_durations__available(ps_session__durations(s), s, durs,
		                                    ARRAY_SIZE(durs));

		for (k = 0; k < nd; k++)
			sb_add_unique(b, durs[k]);
	}
}

static void list_events(const struct ps_session *s, struct ps_bytes *b)
{
	const struct ps_attr *a;
	char name[256];
	size_t i;

	ps_session__for_each_attr(s, a, i) {
		if (!a->tp || !a->tp->system || !a->tp->name)
			continue;
		snprintf(name, sizeof(name), "%s:%s", a->tp->system, a->tp->name);
		sb_add_unique(b, name);
	}
}

/* The closest name of the comma-separated @list, or NULL when none is close. */
static char *closest(const char *name, const char *list, char *buf, size_t len)
{
	size_t best = SIZE_MAX, limit = strlen(name) < 5 ? 1 : 2;
	const char *p = list;

	buf[0] = 0;
	while (p && *p) {
		const char *end = strstr(p, ", ");
		size_t n = end ? (size_t)(end - p) : strlen(p);
		char cand[64];
		size_t d;

		if (n < sizeof(cand)) {
			memcpy(cand, p, n);
			cand[n] = 0;
			d = ps_edit_distance(name, cand);
			if (d <= limit && d < best) {
				best = d;
				snprintf(buf, len, "%s", cand);
			}
		}
		if (!end)
			break;
		p = end + 2;
	}
	return buf[0] ? buf : NULL;
}

/* "@head; the fields ...: LIST", cut with "..." if it does not fit the message. */
static int fail_with_list(struct ps_filter_error *err, const char *text, size_t pos,
                          const char *head, const char *what, struct ps_bytes *list)
{
	size_t room = sizeof(err->msg);
	int n;

	if (list->failed)
		return ps_filter_seterr(err, NULL, 0, "out of memory");
	n = snprintf(err->msg, room, "%s; %s: %s", head, what,
	             list->len ? ps_bytes__text(list) : "none");
	err->text = text;
	err->pos = pos;
	if (n >= 0 && (size_t)n >= room) {
		/* cut at the last complete name */
		char *cut = err->msg + room - sizeof(", ...");

		while (cut > err->msg && *cut != ',')
			cut--;
		if (cut > err->msg)
			memcpy(cut, ", ...", sizeof(", ..."));
	}
	return -1;
}

static int unknown_field(const struct fcond *c, const struct ps_session *s,
                         struct ps_filter_error *err)
{
	struct ps_bytes list = { 0 };
	char head[512], near[64];
	const char *guess;
	int r;

	if (c->sys) {
		struct ps_bytes events = { 0 };
		const struct ps_attr *a;
		bool found = false;
		size_t i;

		ps_session__for_each_attr(s, a, i)
			found = found || tp_is(a->tp, c->sys, c->event);
		if (!found) {
			list_events(s, &events);
			snprintf(head, sizeof(head), "no event %s:%s in this stream", c->sys,
			         c->event);
			r = fail_with_list(err, c->src, c->fpos, head, "its tracepoints are",
			                   &events);
			ps_bytes__release(&events);
			return r;
		}
		list_fields(s, c->sys, c->event, &list);
		guess = closest(c->name, ps_bytes__text(&list), near, sizeof(near));
		snprintf(head, sizeof(head), "%s:%s has no field '%s'%s%s%s", c->sys, c->event,
		         c->name, guess ? " (did you mean " : "", guess ? guess : "",
		         guess ? "?)" : "");
		r = fail_with_list(err, c->src, c->fpos, head, "its fields are", &list);
		ps_bytes__release(&list);
		return r;
	}
	list_fields(s, NULL, NULL, &list);
	guess = closest(c->name, ps_bytes__text(&list), near, sizeof(near));
	if (c->field == FF_TP && ps_durations__field(ps_session__durations(s), c->name) >= 0) {
		const struct ps_durations *d = ps_session__durations(s);
		char why[400];

		ps_bytes__release(&list);
		return ps_filter_seterr(err, c->src, c->fpos, "no %s in this stream: %s", c->name,
		                        ps_durations__why_not(d, ps_durations__field(d, c->name),
		                                              why, sizeof(why)));
	}
	if (c->field == FF_TP)
		snprintf(head, sizeof(head), "unknown field '%s'%s%s%s", c->name,
		         guess ? " (did you mean " : "", guess ? guess : "", guess ? "?)" : "");
	else if (c->field == FF_ERRNO)
		snprintf(
		        head, sizeof(head),
		        "no event in this stream has a return value (raw_syscalls:sys_exit, syscalls:sys_exit_*), so none has the field errno");
	else if (c->field == FF_SYSCALL)
		snprintf(
		        head, sizeof(head),
		        "no event in this stream is a syscall event (raw_syscalls:* or syscalls:*), so none has the field syscall");
	else
		snprintf(head, sizeof(head), "no event in this stream has the field %s", c->name);
	if (c->field == FF_TP && ps_session__tracing_error(s)) {
		size_t n = strlen(head);

		snprintf(head + n, sizeof(head) - n,
		         " (the stream's tracepoint formats could not be read: %s)",
		         ps_session__tracing_error(s));
	}
	r = fail_with_list(err, c->src, c->fpos, head, "the fields of this stream are", &list);
	ps_bytes__release(&list);
	return r;
}

/*
 * The field exists somewhere but the condition fits it nowhere: say why, for the first attr
 * that has it.
 */
static int misfit(const struct fcond *c, const struct ps_session *s, struct ps_filter_error *err)
{
	const struct ps_attr *a;
	size_t i;

	ps_session__for_each_attr(s, a, i) {
		struct tep_format_field *fld;
		enum ftype type = FT_NUM;
		struct fbind b;
		bool misuse;

		if (!a->tp || (c->sys && !tp_is(a->tp, c->sys, c->event)))
			continue;
		fld = ps_tracing__field(a->tp, c->name);
		if (!fld)
			continue;
		memset(&b, 0, sizeof(b));
		b.kind = classify(c, fld, &b, &type, &misuse);
		if (b.kind == BK_TP_NUM && ps_symbolic__has(a->tp, c->name))
			type = FT_SYSCALL;
		if (b.kind == BK_ABSENT) {
			if (misuse && c->has_index)
				return ps_filter_seterr(err, c->src, c->fpos,
				                        "%s is not an array (in %s:%s)", c->name,
				                        a->tp->system, a->tp->name);
			if (misuse)
				return ps_filter_seterr(
				        err, c->src, c->fpos,
				        "%s is an array of %u (in %s:%s): compare one element, as in %s[0]",
				        c->name, fld->arraylen, a->tp->system, a->tp->name,
				        c->name);
			if (c->has_index)
				return ps_filter_seterr(
				        err, c->src, c->fpos,
				        "%s has %u elements (in %s:%s): index %u is past its end",
				        c->name, fld->arraylen, a->tp->system, a->tp->name,
				        c->index);
			continue;
		}
		if (ps_filter_type_error(c, type, err))
			return -1;
	}
	return unknown_field(c, s, err);
}

static bool tp_field_anywhere(const struct fcond *c, const struct ps_session *s)
{
	const struct ps_attr *a;
	size_t i;

	ps_session__for_each_attr(s, a, i) {
		if (!a->tp || (c->sys && !tp_is(a->tp, c->sys, c->event)))
			continue;
		if (ps_tracing__field(a->tp, c->name))
			return true;
	}
	return false;
}

static int check_syscall_names(const struct ps_filter *f, const struct fcond *c,
                               struct ps_filter_error *err)
{
	size_t i, k;
	bool raw = false;

	if (c->op != OP_EQ && c->op != OP_NE && c->op != OP_IN)
		return 0;
	for (k = 0; k < f->nbound; k++)
		raw = raw || c->bind[k].kind == BK_SYS_RAW;
	if (!raw)
		return 0;
	for (i = 0; i < c->nvalues; i++) {
		const struct fvalue *v = &c->values[i];

		if (!v->is_num && v->sysnr < 0)
			return ps_filter_seterr(err, c->src, v->pos, "'%s' is not a syscall on %s",
			                        v->text, f->arch[0] ? f->arch : "x86_64");
	}
	return 0;
}

/* "errno = ENOENTT" names no error: refuse it, with the nearest name. */
static int check_errno_names(const struct fcond *c, struct ps_filter_error *err)
{
	size_t i;
	int e;

	if (c->op != OP_EQ && c->op != OP_NE && c->op != OP_IN)
		return 0;
	for (i = 0; i < c->nvalues; i++) {
		const struct fvalue *v = &c->values[i];
		const char *best = NULL;
		size_t bd = 3;

		if (v->is_num || v->sysnr >= 0)
			continue;
		for (e = 1; e < 4096; e++) {
			const char *n = strerrorname_np(e);
			size_t d = n ? ps_edit_distance(v->text, n) : SIZE_MAX;

			if (d < bd) {
				bd = d;
				best = n;
			}
		}
		return ps_filter_seterr(err, c->src, v->pos, "'%s' is not an error name%s%s%s",
		                        v->text, best ? " (did you mean " : "", best ? best : "",
		                        best ? "?)" : " (such as ENOENT, EAGAIN)");
	}
	return 0;
}

/* Does @a answer to @name, as event_cond() compares it (the name up to a '/' or, for
 * other than tracepoints, a ':' modifier, also counts)? */
static bool event_named(const struct ps_attr *a, const char *name)
{
	size_t n, base, i;

	if (!a->name)
		return false;
	n = strlen(a->name);
	base = n;
	for (i = 0; i < n; i++) {
		if (a->name[i] == '/' || (a->name[i] == ':' && a->type != PERF_TYPE_TRACEPOINT)) {
			base = i;
			break;
		}
	}
	return strcmp(a->name, name) == 0 ||
	       (strlen(name) == base && strncmp(a->name, name, base) == 0);
}

/*
 * Whether value @v names an event of the stream; when not, the message (@head) and the
 * list of the stream's events (@list) that refuse it.
 */
static bool event_known(const struct ps_session *s, const struct fvalue *v, struct ps_bytes *list,
                        char *head, size_t len)
{
	const struct ps_attr *a;
	const char *guess;
	char near[64];
	size_t i;

	ps_session__for_each_attr(s, a, i)
		if (event_named(a, v->text))
			return true;
	ps_session__for_each_attr(s, a, i)
		if (a->name)
			sb_add_unique(list, a->name);
	guess = closest(v->text, ps_bytes__text(list), near, sizeof(near));
	snprintf(head, len, "no event '%s' in this stream%s%s%s", v->text,
	         guess ? " (did you mean " : "", guess ? guess : "", guess ? "?)" : "");
	return false;
}

/* The same for an input: its name, or a number from 1 to the number of inputs. */
static bool input_known(const struct ps_session *s, const struct fvalue *v, struct ps_bytes *list,
                        char *head, size_t len)
{
	const struct ps_attr *a;
	uint32_t most = 0;
	bool found = false;
	size_t i;

	ps_session__for_each_attr(s, a, i) {
		if (!a->input)
			continue;
		found = found || strcmp(a->input, v->text) == 0;
		if (ps_session__input_number(s, i) > most)
			most = ps_session__input_number(s, i);
		sb_add_unique(list, a->input);
	}
	if (found || (v->is_num && !v->neg && v->num >= 1 && v->num <= most))
		return true;
	snprintf(head, len, "no input '%s' in this stream (a name, or 1 to %u)", v->text, most);
	return false;
}

/*
 * "=", "!=" and "in" with a value that nothing of the stream has would match nothing:
 * refuse it, listing @what the stream has.
 */
static int check_values(const struct fcond *c, const struct ps_session *s,
                        bool (*known)(const struct ps_session *, const struct fvalue *,
                                      struct ps_bytes *, char *, size_t),
                        const char *what, struct ps_filter_error *err)
{
	size_t k;

	if (c->op != OP_EQ && c->op != OP_NE && c->op != OP_IN)
		return 0;
	for (k = 0; k < c->nvalues; k++) {
		struct ps_bytes list = { 0 };
		char head[512];
		int r;

		if (known(s, &c->values[k], &list, head, sizeof(head))) {
			ps_bytes__release(&list);
			continue;
		}
		r = fail_with_list(err, c->src, c->values[k].pos, head, what, &list);
		ps_bytes__release(&list);
		return r;
	}
	return 0;
}

int ps_filter__check(struct ps_filter *f, const struct ps_session *s, struct ps_filter_error *err)
{
	size_t i, k;

	if (ps_session__nr_attrs(s) == 0)
		return 0;
	if (ps_filter_bind(f, s))
		return ps_filter_seterr(err, NULL, 0, "out of memory");
	for (i = 0; i < f->nconds; i++) {
		const struct fcond *c = f->conds[i];
		bool present = false;

		for (k = 0; k < f->nbound && !present; k++)
			present = c->bind[k].kind != BK_ABSENT;
		if (!present) {
			if (c->field == FF_INPUT)
				return ps_filter_seterr(
				        err, c->src, c->fpos,
				        "this stream is not a merge of different "
				        "recordings (pcat --merge): it has no input");
			if (c->field == FF_TP && tp_field_anywhere(c, s))
				return misfit(c, s, err);
			return unknown_field(c, s, err);
		}
		if (c->field == FF_SYSCALL && check_syscall_names(f, c, err))
			return -1;
		if (c->field == FF_EVENT && check_values(c, s, event_known, "its events are", err))
			return -1;
		if (c->field == FF_INPUT && check_values(c, s, input_known, "its inputs are", err))
			return -1;
		if (c->field == FF_ERRNO && check_errno_names(c, err))
			return -1;
	}
	return 0;
}
