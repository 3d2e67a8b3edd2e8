// SPDX-License-Identifier: GPL-2.0-only
/*
 * key.c - the key language: parse a key list, check it against a stream, turn a sample
 * into its key text; and the summed fields of pcount --sum.
 *
 * Each key kind is a row of one table (its name, the sample bits it needs, how to read its
 * value, whether a stream can answer it), so a new kind is one function and one row.  A
 * tracepoint field, the kind without a fixed name, comes last.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>
#include <traceevent/event-parse.h>

#include "abi.h"
#include "compat.h"
#include "durations.h"
#include "json.h"
#include "key.h"
#include "sample.h"
#include "session.h"
#include "symbolic.h"
#include "symbols.h"
#include "syscalls.h"
#include "text.h"
#include "tracing.h"
#include "xalloc.h"

struct key_kind;

/* field_text()'s view of each attr, by its index: worked out once per attr, not per sample */
struct fc_attr {
	const struct ps_attr *a; /* the attr, format and name it was worked out from */
	const struct tep_event *tp;
	const char *aname;
	struct tep_format_field *f; /* the field, or NULL */
	bool match;                 /* the event named with the field is this attr's */
	bool swap;                  /* ps_tracing__swapped() */
};

/* One field's lookups, owned by the key or sum that names it. */
struct fcache {
	struct fc_attr *e;
	size_t n;
	int df_none;                  /* the duration index with no durations in the sample */
	const struct ps_durations *d; /* and with these */
	int df_d;
};

struct key {
	const struct key_kind *kind;
	char *name;        /* the key as given ("comm", "prev_state", "bytes/1024") */
	char *field;       /* a field key: the field name, without a system:event. prefix */
	char *event;       /* a field key: "system:event" when qualified, else NULL */
	uint64_t bucket;   /* a field key: histogram bucket size, 0 for exact values */
	struct fcache *fc; /* a field key: its lookups, or NULL */
};

struct ps_key {
	struct key keys[PS_KEY_MAX];
	size_t n;
	bool has_errno;
	/* learnt from the stream, on first use */
	bool arch_known;
	const char *arch;
	char arch_buf[64];
	const char *const *sysnames; /* ps_syscall_names() of @arch */
	size_t nsysnames;
	bool enter_known, has_enter;
	bool exits;              /* ps_key__set_exits() */
	struct ps_symbols *syms; /* for sym and dso; not owned */
	unsigned int view;       /* PS_KEY_VIEW_* */
	/* ps_key__text_frame(): sym, dso and ip of this frame rather than the sample's */
	const struct ps_frame *frame;
	/* value_syscall()'s view of each attr, by its index (worked out once per attr) */
	struct sc_attr *sc;
	size_t nsc;
	struct fcache *ret_fc; /* value_errno()'s "ret", or NULL */
};

/* what an attr is to the syscall key */
enum sc_kind {
	SC_NONE,
	SC_NAMED_ENTER,
	SC_NAMED_EXIT,
	SC_RAW_ENTER,
	SC_RAW_EXIT
};

struct sc_attr {
	const struct tep_event *tp; /* the format it was worked out from */
	enum sc_kind kind;
	const char *name;            /* SC_NAMED_*: the syscall's name, in the format's name */
	struct tep_format_field *id; /* SC_RAW_*: the id field */
	bool swap;                   /* ps_tracing__swapped() */
};

struct ps_key_sum {
	char *name;        /* the column's title: NAME= of the spec, or the spec */
	char *event;       /* "system:event" when qualified, else NULL */
	char *field;       /* NULL: count the samples of @event */
	bool period;       /* @field is "period" (is_period()) */
	struct fcache *fc; /* @field's lookups, or NULL */
};

/*
 * One kind of key.  @value puts the key's value in @buf (or points *@out at a string that
 * lives as long as the sample) and returns 0, or -1 when the sample has none.  @available
 * says whether some event of the stream can have it (NULL: an event whose sample_type
 * carries @need).
 */
struct key_kind {
	const char *name;
	uint64_t need;
	int (*value)(struct ps_key *ks, const struct key *k, const struct ps_session *s,
	             const struct ps_sample *smp, char *buf, size_t len, const char **out);
	bool (*available)(const struct ps_session *s);
	const char *absent; /* why no event has it, for the message */
};

/* ---- reading tracepoint fields ---- */

static bool field_is_number(const struct tep_format_field *f)
{
	return !(f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_STRING | TEP_FIELD_IS_DYNAMIC)) &&
	       (f->size == 1 || f->size == 2 || f->size == 4 || f->size == 8) && f->offset >= 0;
}

static bool field_is_text(const struct tep_format_field *f)
{
	if (f->flags & TEP_FIELD_IS_DYNAMIC)
		return f->size == 4 && f->type && strstr(f->type, "char");
	return (f->flags & TEP_FIELD_IS_STRING) != 0;
}

/* A string field's text into @buf; -1 when it does not fit the raw data. */
static int string_field(const struct ps_sample *smp, const struct tep_format_field *f, char *buf,
                        size_t len)
{
	uint64_t off = (uint64_t)f->offset, size = (uint64_t)f->size;
	const char *src, *nul;
	size_t n;

	if (f->offset < 0 || f->size < 0 || off + size > smp->raw_size)
		return -1;
	if (f->flags & TEP_FIELD_IS_DYNAMIC) {
		uint32_t loc;

		if (f->size != 4)
			return -1;
		loc = ps_get32(smp->raw + off, smp->swap);
		size = loc >> 16;
		off = (loc & 0xffff) + ((f->flags & TEP_FIELD_IS_RELATIVE) ? off + 4 : 0);
		if (off + size > smp->raw_size)
			return -1;
	}
	src = (const char *)smp->raw + off;
	n = size < len - 1 ? (size_t)size : len - 1;
	nul = memchr(src, 0, n);
	if (nul)
		n = (size_t)(nul - src);
	memcpy(buf, src, n);
	buf[n] = 0;
	return 0;
}

/* The lookups of the field @name; NULL when out of memory (then field_text() looks up). */
static struct fcache *fc_new(const char *name)
{
	struct fcache *fc = calloc(1, sizeof(*fc));

	if (fc)
		fc->df_none = ps_durations__field(NULL, name);
	return fc;
}

static void fc_delete(struct fcache *fc)
{
	if (fc)
		free(fc->e);
	free(fc);
}

/* @fc's view of @a; NULL when there is none (no cache, out of memory). */
static const struct fc_attr *fc_of(struct fcache *fc, const struct ps_attr *a, const char *event,
                                   const char *name)
{
	struct fc_attr *e;

	if (!fc || a->idx >= PS_MAX_ATTRS)
		return NULL;
	e = ps_slot((void **)&fc->e, &fc->n, sizeof(*fc->e), a->idx);
	if (!e)
		return NULL;
	if (e->a != a || e->tp != a->tp || e->aname != a->name) {
		e->a = a;
		e->tp = a->tp;
		e->aname = a->name;
		e->match = !event || (a->name && strcmp(event, a->name) == 0);
		e->f = a->tp ? ps_tracing__field(a->tp, name) : NULL;
		e->swap = ps_tracing__swapped(a->tp);
	}
	return e;
}

/* The duration index of @name for @smp (durations.h), or -1. */
static int fc_duration(struct fcache *fc, const struct ps_sample *smp, const char *name)
{
	const struct ps_durations *d = smp->dur ? smp->dur->d : NULL;

	if (!fc)
		return ps_durations__field(d, name);
	if (!d)
		return fc->df_none;
	if (fc->d != d) {
		fc->d = d;
		fc->df_d = ps_durations__field(d, name);
	}
	return fc->df_d;
}

/* A tracepoint field's value as text (numbers signed as the format says); -1 if absent.
 * @fc: the field's lookups, or NULL. */
static int field_text(const struct ps_sample *smp, const char *event, const char *name,
                      uint64_t bucket, char *buf, size_t len, int64_t *num, struct fcache *fc)
{
	const struct ps_attr *a = smp->attr;
	const struct fc_attr *e = fc_of(fc, a, event, name);
	struct tep_format_field *f = NULL;
	bool is_signed = false;
	uint64_t v;
	int df, bad;

	if (e ? !e->match : event && (!a->name || strcmp(event, a->name) != 0))
		return -1;
	/* a duration (durations.h): nanoseconds, where the sample has one */
	df = fc_duration(fc, smp, name);
	if (df >= 0) {
		if (!ps_durations__value(smp, df, &v) || v > INT64_MAX)
			return -1;
	} else {
		if (!a->tp || !smp->raw)
			return -1;
		f = e ? e->f : ps_tracing__field(a->tp, name);
		if (!f)
			return -1;
		bad = e ? ps_tracing__number(f, e->swap, smp->raw, smp->raw_size, &v) :
		          ps_tracing__read_u64(f, smp->raw, smp->raw_size, &v);
		if (!bad)
			is_signed = (f->flags & TEP_FIELD_IS_SIGNED) != 0;
		else
			df = -2; /* not a number */
	}
	if (df != -2) {
		int64_t sv = is_signed ? ps_sign_extend(v, (unsigned int)f->size) : (int64_t)v;

		if (num)
			*num = sv;
		if (!buf)
			return 0;
		if (bucket) {
			int64_t lo = sv >= 0 ? sv / (int64_t)bucket * (int64_t)bucket :
			                       -((-sv + (int64_t)bucket - 1) / (int64_t)bucket) *
			                               (int64_t)bucket;

			snprintf(buf, len, "%" PRId64 "-%" PRId64, lo, lo + (int64_t)bucket - 1);
		} else if (is_signed) {
			snprintf(buf, len, "%" PRId64, sv);
		} else {
			snprintf(buf, len, "%" PRIu64, v);
		}
		return 0;
	}
	if (num || bucket || !buf || !field_is_text(f))
		return -1;
	return string_field(smp, f, buf, len);
}

/* ---- the kinds ---- */

static int value_event(struct ps_key *ks, const struct key *k, const struct ps_session *s,
                       const struct ps_sample *smp, char *buf, size_t len, const char **out)
{
	(void)ks, (void)k, (void)s, (void)buf, (void)len;
	*out = smp->attr->name;
	return 0;
}

/* the input of a merged stream (pcat --merge of different recordings) */
static int value_input(struct ps_key *ks, const struct key *k, const struct ps_session *s,
                       const struct ps_sample *smp, char *buf, size_t len, const char **out)
{
	(void)ks, (void)k, (void)s, (void)buf, (void)len;
	*out = smp->attr->input ? smp->attr->input : "-";
	return 0;
}

static int value_comm(struct ps_key *ks, const struct key *k, const struct ps_session *s,
                      const struct ps_sample *smp, char *buf, size_t len, const char **out)
{
	(void)ks, (void)k;
	*out = ps_session__comm_text(s, smp->tid, buf, len);
	return 0;
}

static int value_pid(struct ps_key *ks, const struct key *k, const struct ps_session *s,
                     const struct ps_sample *smp, char *buf, size_t len, const char **out)
{
	(void)ks, (void)k, (void)s, (void)out;
	snprintf(buf, len, "%" PRId32, (int32_t)smp->pid);
	return 0;
}

static int value_tid(struct ps_key *ks, const struct key *k, const struct ps_session *s,
                     const struct ps_sample *smp, char *buf, size_t len, const char **out)
{
	(void)ks, (void)k, (void)s, (void)out;
	snprintf(buf, len, "%" PRId32, (int32_t)smp->tid);
	return 0;
}

static int value_cpu(struct ps_key *ks, const struct key *k, const struct ps_session *s,
                     const struct ps_sample *smp, char *buf, size_t len, const char **out)
{
	(void)ks, (void)k, (void)s, (void)out;
	snprintf(buf, len, "%" PRIu32, smp->cpu);
	return 0;
}

static bool is_syscall_tp(const struct tep_event *tp)
{
	if (!tp || !tp->system || !tp->name)
		return false;
	if (strcmp(tp->system, "raw_syscalls") == 0)
		return strcmp(tp->name, "sys_enter") == 0 || strcmp(tp->name, "sys_exit") == 0;
	return strcmp(tp->system, "syscalls") == 0 &&
	       (strncmp(tp->name, "sys_enter_", 10) == 0 || strncmp(tp->name, "sys_exit_", 9) == 0);
}

/* Does the stream record syscall entries?  Then exits are not counted by syscall. */
static bool stream_has_enter(const struct ps_session *s)
{
	const struct ps_attr *a;
	size_t i;

	ps_session__for_each_attr(s, a, i) {
		if (a->tp &&
		    (strcmp(a->tp->system, "raw_syscalls") == 0 ||
		     strcmp(a->tp->system, "syscalls") == 0) &&
		    strncmp(a->tp->name, "sys_enter", 9) == 0)
			return true;
	}
	return false;
}

static void sc_learn(struct tep_event *tp, struct sc_attr *sc)
{
	memset(sc, 0, sizeof(*sc));
	sc->tp = tp;
	if (!tp || !tp->system || !tp->name)
		return;
	if (strcmp(tp->system, "syscalls") == 0) {
		if (strncmp(tp->name, "sys_enter_", 10) == 0) {
			sc->kind = SC_NAMED_ENTER;
			sc->name = tp->name + 10;
		} else if (strncmp(tp->name, "sys_exit_", 9) == 0) {
			sc->kind = SC_NAMED_EXIT;
			sc->name = tp->name + 9;
		}
	} else if (strcmp(tp->system, "raw_syscalls") == 0) {
		sc->kind = strcmp(tp->name, "sys_exit") == 0 ? SC_RAW_EXIT : SC_RAW_ENTER;
		sc->id = ps_tracing__field(tp, "id");
	}
	sc->swap = ps_tracing__swapped(tp);
}

/* What @a is to the syscall key; NULL when out of memory.  Worked out for every attr again
 * when the stream declares more, and for one whose format changed. */
static const struct sc_attr *sc_of(struct ps_key *ks, const struct ps_session *s,
                                   const struct ps_attr *a)
{
	size_t n = ps_session__nr_attrs(s), i;
	struct sc_attr *sc;

	if (a->idx < 0 || (size_t)a->idx >= n)
		return NULL;
	if (n != ks->nsc) {
		sc = calloc(n, sizeof(*sc));
		if (!sc)
			return NULL;
		for (i = 0; i < n; i++)
			sc_learn(ps_session__attr(s, i)->tp, &sc[i]);
		free(ks->sc);
		ks->sc = sc;
		ks->nsc = n;
	}
	sc = &ks->sc[a->idx];
	if (sc->tp != a->tp)
		sc_learn(a->tp, sc);
	return sc;
}

/* The syscall a raw_syscalls or syscalls event is about; none for an exit when the
 * stream has the entries too (each call is counted once, at its entry). */
static int value_syscall(struct ps_key *ks, const struct key *k, const struct ps_session *s,
                         const struct ps_sample *smp, char *buf, size_t len, const char **out)
{
	const struct ps_attr *a = smp->attr;
	const struct sc_attr *sc;
	const char *name;
	uint64_t id;

	(void)k;
	if (!a->tp || !(sc = sc_of(ks, s, a)))
		return -1;
	if (!ks->enter_known) {
		ks->enter_known = true;
		/* errno is a property of the exit: then the exits are the calls counted */
		ks->has_enter = stream_has_enter(s) && !ks->has_errno && !ks->exits;
	}
	switch (sc->kind) {
	case SC_NONE:
		return -1;
	case SC_NAMED_EXIT:
		if (ks->has_enter)
			return -1;
		/* fall through */
	case SC_NAMED_ENTER:
		*out = sc->name;
		return 0;
	case SC_RAW_EXIT:
		if (ks->has_enter)
			return -1;
		break;
	case SC_RAW_ENTER:
		break;
	}
	if (!sc->id || ps_tracing__number(sc->id, sc->swap, smp->raw, smp->raw_size, &id))
		return -1;
	if (!ks->arch_known) {
		ks->arch_known = true;
		ks->arch = ps_session__feature_string(s, PS_FEAT_ARCH, ks->arch_buf,
		                                      sizeof(ks->arch_buf));
		ks->sysnames = ps_syscall_names(ks->arch, &ks->nsysnames);
	}
	name = (int64_t)id >= 0 && id < ks->nsysnames ? ks->sysnames[id] : NULL;
	if (name)
		*out = name;
	else
		snprintf(buf, len, "%" PRId64, (int64_t)id);
	return 0;
}

/* A syscall exit's negative return value, by name. */
static int value_errno(struct ps_key *ks, const struct key *k, const struct ps_session *s,
                       const struct ps_sample *smp, char *buf, size_t len, const char **out)
{
	int64_t ret;

	(void)k, (void)s;
	if (!ks->ret_fc)
		ks->ret_fc = fc_new("ret"); /* NULL: looked up each time */
	if (field_text(smp, NULL, "ret", 0, NULL, 0, &ret, ks->ret_fc) || ret >= 0 || ret < -4095)
		return -1;
	*out = strerrorname_np((int)-ret);
	if (!*out)
		snprintf(buf, len, "%" PRId64, -ret);
	return 0;
}

static int value_field(struct ps_key *ks, const struct key *k, const struct ps_session *s,
                       const struct ps_sample *smp, char *buf, size_t len, const char **out)
{
	const struct ps_attr *a = smp->attr;

	(void)ks, (void)s, (void)out;
	/* values as perf prints them: prev_state S, D, R+ */
	if (!k->bucket && a->tp && (!k->event || strcmp(k->event, a->name) == 0) &&
	    ps_symbolic__has(a->tp, k->field) &&
	    ps_symbolic__text(a->tp, k->field, smp, buf, len) == 0)
		return 0;
	return field_text(smp, k->event, k->field, k->bucket, buf, len, NULL, k->fc);
}

static bool has_syscall_event(const struct ps_session *s)
{
	const struct ps_attr *a;
	size_t i;

	ps_session__for_each_attr(s, a, i)
		if (is_syscall_tp(a->tp))
			return true;
	return false;
}

static bool has_ret_field(const struct ps_session *s)
{
	const struct ps_attr *a;
	size_t i;

	ps_session__for_each_attr(s, a, i) {
		struct tep_format_field *f = a->tp ? ps_tracing__field(a->tp, "ret") : NULL;

		if (f && field_is_number(f))
			return true;
	}
	return false;
}

/* The symbol of the sample's ip, or of the frame ps_key__text_frame() gives. */
static void symbol_of(struct ps_key *ks, const struct ps_sample *smp, struct ps_symbol *sym)
{
	if (ks->frame) {
		*sym = ks->frame->sym;
		return;
	}
	memset(sym, 0, sizeof(*sym));
	sym->addr = smp->ip;
	if (ks->syms)
		ps_symbols__sample(ks->syms, smp, smp->misc, sym);
}

static int value_sym(struct ps_key *ks, const struct key *k, const struct ps_session *s,
                     const struct ps_sample *smp, char *buf, size_t len, const char **out)
{
	struct ps_symbol sym;
	char addr[32];
	const char *name;

	(void)k, (void)s;
	symbol_of(ks, smp, &sym);
	name = sym.name;
	if (!name && (ks->view & PS_KEY_VIEW_ADDR)) {
		/* perf report's name for an unnamed address: where it is in its object, in
		 * its format (which writes 0 without the 0x) */
		snprintf(addr, sizeof(addr), "%#.16" PRIx64, sym.addr);
		name = addr;
	}
	if (!name)
		name = "[unknown]"; /* as perf script prints it */
	if (!(ks->view & PS_KEY_VIEW_MARK) || !sym.level) {
		if (name != addr) {
			*out = name;
			return 0;
		}
		snprintf(buf, len, "%s", addr);
		return 0;
	}
	snprintf(buf, len, "[%c] %s", sym.level, name);
	return 0;
}

static int value_dso(struct ps_key *ks, const struct key *k, const struct ps_session *s,
                     const struct ps_sample *smp, char *buf, size_t len, const char **out)
{
	struct ps_symbol sym;

	(void)k, (void)s, (void)buf, (void)len;
	symbol_of(ks, smp, &sym);
	*out = sym.dso ? sym.dso : "[unknown]"; /* as perf script prints it */
	return 0;
}

/* the sample's ip (or the frame's), as perf prints an address */
static int value_ip(struct ps_key *ks, const struct key *k, const struct ps_session *s,
                    const struct ps_sample *smp, char *buf, size_t len, const char **out)
{
	(void)k, (void)s, (void)out;
	snprintf(buf, len, "0x%016" PRIx64, ks->frame ? ks->frame->ip : smp->ip);
	return 0;
}

static bool has_input(const struct ps_session *s)
{
	const struct ps_attr *a;
	size_t i;

	ps_session__for_each_attr(s, a, i)
		if (a->input)
			return true;
	return false;
}

static const struct key_kind kinds[] = {
	{ "event", 0, value_event, NULL, NULL },
	{ "comm", PERF_SAMPLE_TID, value_comm, NULL, "no event of this stream records the thread" },
	{ "pid", PERF_SAMPLE_TID, value_pid, NULL, "no event of this stream records the thread" },
	{ "tid", PERF_SAMPLE_TID, value_tid, NULL, "no event of this stream records the thread" },
	{ "cpu", PERF_SAMPLE_CPU, value_cpu, NULL, "no event of this stream records the cpu" },
	{ "syscall", 0, value_syscall, has_syscall_event,
	  "no event of this stream is a syscall event (raw_syscalls:* or syscalls:*)" },
	{ "errno", 0, value_errno, has_ret_field,
	  "no event of this stream has a return value (raw_syscalls:sys_exit, syscalls:sys_exit_*)" },
	{ "sym", PERF_SAMPLE_IP, value_sym, NULL, "no event of this stream records the ip" },
	{ "dso", PERF_SAMPLE_IP, value_dso, NULL, "no event of this stream records the ip" },
	{ "ip", PERF_SAMPLE_IP, value_ip, NULL, "no event of this stream records the ip" },
	{ "input", 0, value_input, has_input,
	  "this stream is not a merge of different recordings (pcat --merge)" },
};

static const struct key_kind field_kind = { NULL, 0, value_field, NULL, NULL };

/* ---- parsing ---- */

static char *dup_n(const char *s, size_t n, struct ps_error *err)
{
	char *r = malloc(n + 1);

	if (!r) {
		ps_error__set(err, PS_ENOMEM, NULL, PS_NO_OFFSET, "out of memory");
		return NULL;
	}
	memcpy(r, s, n);
	r[n] = 0;
	return r;
}

/* "sys:event.field" or "field" */
static int split_field(const char *spec, char **event, char **field, struct ps_error *err)
{
	const char *colon = strchr(spec, ':'), *dot = colon ? strchr(colon, '.') : NULL;

	*event = NULL;
	if (dot) {
		*event = dup_n(spec, (size_t)(dot - spec), err);
		*field = dup_n(dot + 1, strlen(dot + 1), err);
	} else {
		*field = dup_n(spec, strlen(spec), err);
	}
	return *field && (!dot || *event) ? 0 : -1;
}

static int parse_bucket(const char *s, const char *key, uint64_t *out, struct ps_error *err)
{
	uint64_t v = 0;
	const char *p;

	for (p = s; *p >= '0' && *p <= '9'; p++) {
		if (v > (UINT64_MAX - 9) / 10)
			break;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	if (p == s || *p || !v || v > INT64_MAX)
		return ps_error__set(
		        err, PS_EUSAGE, NULL, PS_NO_OFFSET,
		        "'%s' in '%s' is not a bucket size (a whole number from 1 to %" PRId64 ")",
		        s, key, INT64_MAX);
	*out = v;
	return 0;
}

static int parse_one(struct ps_key *ks, const char *tok, struct ps_error *err)
{
	struct key *k = &ks->keys[ks->n++];
	char *slash, *spec;
	size_t i;

	k->name = dup_n(tok, strlen(tok), err);
	if (!k->name)
		return -1;
	for (i = 0; i < ARRAY_SIZE(kinds); i++) {
		if (strcmp(tok, kinds[i].name) == 0) {
			k->kind = &kinds[i];
			if (strcmp(tok, "errno") == 0)
				ks->has_errno = true;
			return 0;
		}
	}
	k->kind = &field_kind;
	spec = dup_n(tok, strlen(tok), err);
	if (!spec)
		return -1;
	slash = strchr(spec, '/');
	if (slash) {
		*slash = 0;
		if (parse_bucket(slash + 1, tok, &k->bucket, err)) {
			free(spec);
			return -1;
		}
	}
	if (split_field(spec, &k->event, &k->field, err)) {
		free(spec);
		return -1;
	}
	free(spec);
	if (!k->field[0])
		return ps_error__set(err, PS_EUSAGE, NULL, PS_NO_OFFSET, "empty field name in '%s'",
		                     tok);
	k->fc = fc_new(k->field); /* NULL: looked up each time */
	return 0;
}

struct ps_key *ps_key__parse(const char *list, struct ps_error *err)
{
	struct ps_key *ks = calloc(1, sizeof(*ks));
	const char *p = list, *end;

	if (!ks) {
		ps_error__set(err, PS_ENOMEM, NULL, PS_NO_OFFSET, "out of memory");
		return NULL;
	}
	for (; *p; p = *end ? end + 1 : end) {
		char tok[512];
		size_t n;

		end = strchr(p, ',');
		if (!end)
			end = p + strlen(p);
		n = (size_t)(end - p);
		if (!n)
			continue; /* "a,,b" */
		if (ks->n == PS_KEY_MAX) {
			ps_error__set(err, PS_EUSAGE, NULL, PS_NO_OFFSET, "at most %d keys",
			              PS_KEY_MAX);
			goto fail;
		}
		if (n >= sizeof(tok)) {
			ps_error__set(err, PS_EUSAGE, NULL, PS_NO_OFFSET,
			              "key '%.40s...' is too long", p);
			goto fail;
		}
		memcpy(tok, p, n);
		tok[n] = 0;
		if (parse_one(ks, tok, err))
			goto fail;
	}
	if (!ks->n) {
		ps_error__set(err, PS_EUSAGE, NULL, PS_NO_OFFSET, "no key given");
		goto fail;
	}
	return ks;
fail:
	ps_key__delete(ks);
	return NULL;
}

void ps_key__delete(struct ps_key *ks)
{
	size_t i;

	if (!ks)
		return;
	for (i = 0; i < ks->n; i++) {
		free(ks->keys[i].name);
		free(ks->keys[i].field);
		free(ks->keys[i].event);
		fc_delete(ks->keys[i].fc);
	}
	free(ks->sc);
	fc_delete(ks->ret_fc);
	free(ks);
}

size_t ps_key__nr(const struct ps_key *ks)
{
	return ks->n;
}

const char *ps_key__name(const struct ps_key *ks, size_t i)
{
	return i < ks->n ? ks->keys[i].name : NULL;
}

/* ---- key text ---- */

bool ps_key__thread_only(const struct ps_key *ks)
{
	size_t i;

	for (i = 0; i < ks->n; i++)
		if (ks->keys[i].kind->value != value_comm && ks->keys[i].kind->value != value_pid &&
		    ks->keys[i].kind->value != value_tid)
			return false;
	return ks->n > 0;
}

bool ps_key__needs_symbols(const struct ps_key *ks)
{
	size_t i;

	for (i = 0; i < ks->n; i++)
		if (ks->keys[i].kind->value == value_sym || ks->keys[i].kind->value == value_dso)
			return true;
	return false;
}

bool ps_key__by_frame(const struct ps_key *ks)
{
	size_t i;

	for (i = 0; i < ks->n; i++)
		if (ks->keys[i].kind->value == value_sym || ks->keys[i].kind->value == value_dso ||
		    ks->keys[i].kind->value == value_ip)
			return true;
	return false;
}

void ps_key__set_view(struct ps_key *ks, unsigned int view)
{
	ks->view = view;
}

int ps_key__text_frame(struct ps_key *ks, const struct ps_session *s, const struct ps_sample *smp,
                       const struct ps_frame *f, char *key, size_t len)
{
	int r;

	ks->frame = f;
	r = ps_key__text(ks, s, smp, key, len);
	ks->frame = NULL;
	return r;
}

void ps_key__set_symbols(struct ps_key *ks, struct ps_symbols *st)
{
	ks->syms = st;
}

void ps_key__set_exits(struct ps_key *ks, bool exits)
{
	ks->exits = exits;
	ks->enter_known = false;
}

int ps_key__text(struct ps_key *ks, const struct ps_session *s, const struct ps_sample *smp,
                 char *key, size_t len)
{
	size_t pos = 0, i;

	if (!len)
		return -1;
	for (i = 0; i < ks->n; i++) {
		const struct key *k = &ks->keys[i];
		char buf[PS_KEY_VALUE_MAX];
		const char *v = NULL;

		if ((smp->type & k->kind->need) != k->kind->need)
			return -1;
		if (k->kind->value(ks, k, s, smp, buf, sizeof(buf), &v))
			return -1;
		if (!v)
			v = buf;
		if (i) {
			if (pos + 2 > len)
				return -1;
			key[pos++] = PS_KEY_SEP;
		}
		/* the bytes that give the text its structure are data when in a value */
		for (; *v; v++) {
			bool esc = *v == PS_KEY_SEP || *v == PS_KEY_ESC;

			if (pos + 2 + esc > len)
				return -1;
			if (esc)
				key[pos++] = PS_KEY_ESC;
			key[pos++] = *v;
		}
	}
	key[pos] = 0;
	return (int)pos;
}

const char *ps_key__column(const char *key, size_t idx, char *buf, size_t len)
{
	const char *p = key;
	size_t i = 0, o = 0;

	if (!len)
		return buf;
	/* skip @idx values, then copy one with its escapes undone */
	for (; *p && i < idx; p++) {
		if (*p == PS_KEY_ESC && p[1])
			p++;
		else if (*p == PS_KEY_SEP)
			i++;
	}
	if (i == idx)
		for (; *p && *p != PS_KEY_SEP; p++) {
			if (*p == PS_KEY_ESC && p[1])
				p++;
			if (o + 1 < len)
				buf[o++] = *p;
		}
	buf[o] = 0;
	return buf;
}

const char *ps_key__shown(const char *value, char *buf, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)value, *end = p + strlen(value);
	size_t o = 0;

	if (!len)
		return buf;
	while (*p) {
		size_t n = ps_json__utf8_seq(p, (size_t)(end - p)), i;
		char esc[4];
		size_t elen = 0;

		if (n > 1 && !(p[0] == 0xc2 && p[1] < 0xa0)) { /* not a C1 control */
			if (o + n >= len)
				break;
			for (i = 0; i < n; i++)
				buf[o++] = (char)p[i];
			p += n;
			continue;
		}
		if (*p == '\\' || *p == '\n' || *p == '\t' || *p == '\r') {
			esc[0] = '\\';
			esc[1] = *p == '\n' ? 'n' : *p == '\t' ? 't' : *p == '\r' ? 'r' : '\\';
			elen = 2;
		} else if (*p < 0x20 || *p >= 0x7f) {
			esc[0] = '\\';
			esc[1] = 'x';
			esc[2] = hex[*p >> 4];
			esc[3] = hex[*p & 15];
			elen = 4;
		} else {
			esc[0] = (char)*p;
			elen = 1;
		}
		if (o + elen >= len)
			break;
		memcpy(buf + o, esc, elen);
		o += elen;
		p++;
	}
	buf[o] = 0;
	return buf;
}

/* ---- checking ---- */

/* A list of names (not owned), without repeats. */
struct names {
	const char **v;
	size_t n, cap;
	bool oom;
};

static void names_add(struct names *l, const char *name)
{
	size_t i;

	if (!name || l->oom)
		return;
	for (i = 0; i < l->n; i++)
		if (strcmp(l->v[i], name) == 0)
			return;
	if (l->n + 1 >= l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 32;
		const char **v = realloc(l->v, cap * sizeof(*v));

		if (!v) {
			l->oom = true;
			return;
		}
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n++] = name;
	l->v[l->n] = NULL;
}

const char *ps_key__suggest(const char *name, const char *const *names)
{
	size_t best = SIZE_MAX, limit = strlen(name) < 5 ? 1 : 2;
	const char *pick = NULL;

	for (; names && *names; names++) {
		size_t d = ps_edit_distance(name, *names);

		if (d <= limit && d < best) {
			best = d;
			pick = *names;
		}
	}
	return pick;
}

/* "HEAD (did you mean X?); WHAT: a, b, c", cut at a whole name with ", ..." to fit. */
static int fail_list(struct ps_error *err, const char *head, const char *name, const char *what,
                     struct names *l)
{
	const char *guess = name ? ps_key__suggest(name, l->v) : NULL;
	char *d = err->detail;
	size_t room = sizeof(err->detail), pos, i;
	int n;

	if (l->oom)
		return ps_error__set(err, PS_ENOMEM, NULL, PS_NO_OFFSET, "out of memory");
	ps_error__set(err, PS_EUSAGE, NULL, PS_NO_OFFSET, "%s", head);
	pos = strlen(d);
	if (guess) {
		n = snprintf(d + pos, room - pos, " (did you mean %s?)", guess);
		pos = n > 0 && (size_t)n < room - pos ? pos + (size_t)n : pos;
	}
	n = snprintf(d + pos, room - pos, "; %s:", what);
	if (n < 0 || (size_t)n >= room - pos)
		return -1;
	pos += (size_t)n;
	if (!l->n && pos + 6 < room)
		memcpy(d + pos, " none", 6);
	for (i = 0; i < l->n; i++) {
		size_t len = strlen(l->v[i]);

		/* leave room for ", ..." */
		if (pos + len + 3 + 5 >= room) {
			snprintf(d + pos, room - pos, "%s", i ? ", ..." : " ...");
			break;
		}
		pos += (size_t)snprintf(d + pos, room - pos, "%s%s", i ? ", " : " ", l->v[i]);
	}
	return -1;
}

static bool attr_has(const struct ps_session *s, uint64_t need)
{
	const struct ps_attr *a;
	size_t i;

	ps_session__for_each_attr(s, a, i)
		if ((a->sample_type & need) == need)
			return true;
	return false;
}

static bool kind_available(const struct key_kind *kk, const struct ps_session *s)
{
	if (kk->available)
		return kk->available(s);
	return attr_has(s, kk->need);
}

/* The keys this stream can answer: the kinds, then each event's fields, common_* last;
 * with @number, its numeric fields only. */
static void stream_keys(const struct ps_session *s, const char *event, bool number, struct names *l)
{
	const struct ps_attr *a;
	size_t i;
	int pass;

	const char *durs[PS_DUR_NR];
	size_t nd;

	if (!event && !number)
		for (i = 0; i < ARRAY_SIZE(kinds); i++)
			if (kind_available(&kinds[i], s))
				names_add(l, kinds[i].name);
	for (pass = 0; pass < 2; pass++) {
		ps_session__for_each_attr(s, a, i) {
			const struct tep_format_field *f;

			if (!a->tp || (event && strcmp(event, a->name) != 0))
				continue;
			f = pass ? a->tp->format.common_fields : a->tp->format.fields;
			for (; f; f = f->next)
				if (!number || field_is_number(f))
					names_add(l, f->name);
		}
	}
	/* the duration fields (durations.h) last */
	nd = ps_durations__available(ps_session__durations(s), s, durs, ARRAY_SIZE(durs));
	for (i = 0; !event && i < nd; i++)
		names_add(l, durs[i]);
}

static void stream_events(const struct ps_session *s, bool tp_only, struct names *l)
{
	const struct ps_attr *a;
	size_t i;

	ps_session__for_each_attr(s, a, i)
		if (!tp_only || a->tp)
			names_add(l, a->name);
}

static bool event_exists(const struct ps_session *s, const char *event, bool tp_only)
{
	const struct ps_attr *a;
	size_t i;

	ps_session__for_each_attr(s, a, i)
		if ((!tp_only || a->tp) && a->name && strcmp(a->name, event) == 0)
			return true;
	return false;
}

static int unknown_event(const struct ps_session *s, const char *event, bool tp_only,
                         struct ps_error *err)
{
	struct names l = { 0 };
	char head[300];
	int r;

	stream_events(s, tp_only, &l);
	snprintf(head, sizeof(head), "no event %s in this stream", event);
	r = fail_list(err, head, event, tp_only ? "its tracepoints are" : "its events are", &l);
	free(l.v);
	return r;
}

static int unknown_key(const struct ps_session *s, const char *what, const char *name,
                       const char *event, bool number, struct ps_error *err)
{
	struct names l = { 0 };
	char head[400];
	const char *why = ps_session__tracing_error(s);
	int r;

	stream_keys(s, event, number, &l);
	if (event)
		snprintf(head, sizeof(head), "%s has no field '%s'", event, name);
	else
		snprintf(head, sizeof(head), "unknown %s '%s'", what, name);
	if (why) {
		size_t n = strlen(head);

		snprintf(head + n, sizeof(head) - n,
		         " (the stream's tracepoint formats could not be read: %s)", why);
	}
	r = fail_list(err, head, name,
	              event ? (number ? "its numeric fields are" : "its fields are") :
	                      (number ? "the numeric fields of this stream are" :
	                                "the keys of this stream are"),
	              &l);
	free(l.v);
	return r;
}

/*
 * Find @field in the events (of @event when given): *any set when some event has it, the
 * first one's description in @first; return whether some event has it as @want wants it
 * (a number, or a number or text).
 */
static bool find_field(const struct ps_session *s, const char *event, const char *field,
                       bool number, bool *any, const struct tep_format_field **first,
                       const struct ps_attr **first_attr)
{
	const struct ps_attr *a;
	size_t i;

	*any = false;
	ps_session__for_each_attr(s, a, i) {
		struct tep_format_field *f;

		if (!a->tp || (event && strcmp(event, a->name) != 0))
			continue;
		f = ps_tracing__field(a->tp, field);
		if (!f)
			continue;
		if (!*any) {
			*first = f;
			*first_attr = a;
		}
		*any = true;
		if (field_is_number(f) || (!number && field_is_text(f)))
			return true;
	}
	return false;
}

static const char *field_type(const struct tep_format_field *f)
{
	if (field_is_text(f))
		return "a string";
	if (f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC))
		return "an array";
	return "not a number of 1, 2, 4 or 8 bytes";
}

/* A duration field: some event of the stream (@event when given) must carry it. */
static int check_duration(const struct ps_session *s, int df, const char *event,
                          struct ps_error *err)
{
	const struct ps_durations *d = ps_session__durations(s);
	const struct ps_attr *a;
	char why[400];
	size_t i;

	if (event && !event_exists(s, event, true))
		return unknown_event(s, event, true, err);
	ps_session__for_each_attr(s, a, i)
		if ((!event || (a->name && strcmp(event, a->name) == 0)) &&
		    ps_durations__attr_has(d, s, a, df))
			return 0;
	return ps_error__set(err, PS_EUSAGE, NULL, PS_NO_OFFSET, "no %s in this stream%s%s: %s",
	                     ps_durations__name(d, df), event ? " for " : "", event ? event : "",
	                     ps_durations__why_not(d, df, why, sizeof(why)));
}

static int check_field(const struct ps_session *s, const char *what, const char *name,
                       const char *event, const char *field, bool number, struct ps_error *err)
{
	const struct tep_format_field *f = NULL;
	const struct ps_attr *fa = NULL;
	int df = ps_durations__field(ps_session__durations(s), field);
	bool any;

	if (df >= 0)
		return check_duration(s, df, event, err);
	if (event && !event_exists(s, event, true))
		return unknown_event(s, event, true, err);
	if (find_field(s, event, field, number, &any, &f, &fa))
		return 0;
	if (!any)
		return unknown_key(s, what, field, event, number && strcmp(what, "field") == 0,
		                   err);
	return ps_error__set(err, PS_EUSAGE, NULL, PS_NO_OFFSET, "'%s' is %s (in %s)%s", name,
	                     field_type(f), fa->name,
	                     number ? ", and only numbers can be summed or cut into buckets" : "");
}

int ps_key__check(struct ps_key *ks, const struct ps_session *s, struct ps_error *err)
{
	size_t i;

	ks->arch_known = false;
	ks->enter_known = false;
	if (ps_session__nr_attrs(s) == 0)
		return 0;
	for (i = 0; i < ks->n; i++) {
		const struct key *k = &ks->keys[i];

		if (k->kind == &field_kind) {
			if (check_field(s, "key", k->name, k->event, k->field, k->bucket != 0, err))
				return -1;
		} else if (!kind_available(k->kind, s)) {
			const char *why = k->kind->available ? ps_session__tracing_error(s) : NULL;

			return ps_error__set(
			        err, PS_EUSAGE, NULL, PS_NO_OFFSET, "no key %s: %s%s%s%s", k->name,
			        k->kind->absent,
			        why ? " (the stream's tracepoint formats could not be read: " : "",
			        why ? why : "", why ? ")" : "");
		}
	}
	return 0;
}

/* ---- sums ---- */

struct ps_key_sum *ps_key_sum__parse(const char *arg, struct ps_error *err)
{
	const char *eq = strchr(arg, '='), *spec = eq ? eq + 1 : arg;
	struct ps_key_sum *sm = calloc(1, sizeof(*sm));

	if (!sm) {
		ps_error__set(err, PS_ENOMEM, NULL, PS_NO_OFFSET, "out of memory");
		return NULL;
	}
	sm->name = dup_n(arg, eq ? (size_t)(eq - arg) : strlen(arg), err);
	if (!sm->name)
		goto fail;
	if (!spec[0] || !sm->name[0]) {
		ps_error__set(err, PS_EUSAGE, NULL, PS_NO_OFFSET, "'%s' names no field", arg);
		goto fail;
	}
	if (strchr(spec, ':') && !strchr(spec, '.')) {
		sm->event = dup_n(spec, strlen(spec), err);
		if (!sm->event)
			goto fail;
	} else if (split_field(spec, &sm->event, &sm->field, err)) {
		goto fail;
	} else if (!sm->field[0]) {
		ps_error__set(err, PS_EUSAGE, NULL, PS_NO_OFFSET, "'%s' names no field", arg);
		goto fail;
	} else {
		sm->fc = fc_new(sm->field); /* NULL: looked up each time */
		sm->period = strcmp(sm->field, "period") == 0;
	}
	return sm;
fail:
	ps_key_sum__delete(sm);
	return NULL;
}

void ps_key_sum__delete(struct ps_key_sum *sm)
{
	if (!sm)
		return;
	free(sm->name);
	free(sm->event);
	free(sm->field);
	fc_delete(sm->fc);
	free(sm);
}

const char *ps_key_sum__name(const struct ps_key_sum *sm)
{
	return sm->name;
}

const char *ps_key_sum__field(const struct ps_key_sum *sm)
{
	return sm->field;
}

/* The sample's period stands for "period" where no tracepoint field has that name. */
static bool is_period(const struct ps_key_sum *sm)
{
	return sm->period;
}

static bool counts_ns(const struct ps_attr *a)
{
	return a->type == PERF_TYPE_SOFTWARE &&
	       (a->config == PERF_COUNT_SW_CPU_CLOCK || a->config == PERF_COUNT_SW_TASK_CLOCK);
}

/*
 * The durations' hook: a field whose values are nanoseconds says so here.  The period
 * of cpu-clock and task-clock is one (when every event that can give it is one of them);
 * the durations of pairs of events (latency, run_time, wait_time, sch_delay, a --pair's
 * field) are others.
 */
enum ps_key_unit ps_key_sum__unit(const struct ps_key_sum *sm, const struct ps_session *s)
{
	const struct ps_attr *a;
	size_t i, n = 0;

	if (ps_key_sum__is_duration(sm, s))
		return PS_KEY_UNIT_NS;
	if (!is_period(sm))
		return PS_KEY_UNIT_NONE;
	ps_session__for_each_attr(s, a, i) {
		if (sm->event ? !a->name || strcmp(sm->event, a->name) != 0 :
		                a->type == PERF_TYPE_SOFTWARE && a->config == PERF_COUNT_SW_DUMMY)
			continue;
		if (a->tp && ps_tracing__field(a->tp, sm->field))
			return PS_KEY_UNIT_NONE;
		if (!counts_ns(a))
			return PS_KEY_UNIT_NONE;
		n++;
	}
	return n ? PS_KEY_UNIT_NS : PS_KEY_UNIT_NONE;
}

int ps_key_sum__check(const struct ps_key_sum *sm, const struct ps_session *s, struct ps_error *err)
{
	if (ps_session__nr_attrs(s) == 0)
		return 0;
	if (!sm->field)
		return event_exists(s, sm->event, false) ? 0 :
		                                           unknown_event(s, sm->event, false, err);
	if (is_period(sm) && (!sm->event || event_exists(s, sm->event, false)))
		return 0;
	return check_field(s, "field", sm->field, sm->event, sm->field, true, err);
}

bool ps_key_sum__value(const struct ps_key_sum *sm, const struct ps_sample *smp, int64_t *val)
{
	if (!sm->field) {
		if (strcmp(sm->event, smp->attr->name) != 0)
			return false;
		*val = 1;
		return true;
	}
	if (field_text(smp, sm->event, sm->field, 0, NULL, 0, val, sm->fc) == 0)
		return true;
	if (!is_period(sm) || (sm->event && strcmp(sm->event, smp->attr->name) != 0))
		return false;
	*val = (int64_t)((smp->type & PERF_SAMPLE_PERIOD) ? smp->period : smp->attr->sample_period);
	return true;
}

bool ps_key_sum__is_duration(const struct ps_key_sum *sm, const struct ps_session *s)
{
	return sm->field && ps_durations__field(ps_session__durations(s), sm->field) >= 0;
}

bool ps_key__is_duration(const struct ps_session *s, const char *field)
{
	const char *dot = strchr(field, ':') ? strchr(strchr(field, ':'), '.') : NULL;

	return ps_durations__field(ps_session__durations(s), dot ? dot + 1 : field) >= 0;
}
