// SPDX-License-Identifier: GPL-2.0-only
/*
 * durations.c - duration fields from pairs of events (durations.h): per-thread state
 * (a syscall entered, the last switch-out, the first wakeup since), per-cpu last switch,
 * and the pending starts of the user's pairs, each in a bounded table that lets go of
 * its oldest entry when full.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>
#include <traceevent/event-parse.h>

#include "compat.h"
#include "durations.h"
#include "sample.h"
#include "session.h"
#include "tracing.h"
#include "xalloc.h"

#define MAX_CPUS 4096
#define NAME_MAX_LEN 64
/* prev_state of a task that leaves the cpu for good: X (EXIT_DEAD) or Z (EXIT_ZOMBIE) */
#define DEAD_STATES 0x30

/* what the samples of an attr mean here */
enum {
	R_ENTER_RAW = 1u << 0,
	R_EXIT_RAW = 1u << 1,
	R_ENTER_NAMED = 1u << 2,
	R_EXIT_NAMED = 1u << 3,
	R_SWITCH = 1u << 4,
	R_WAKE = 1u << 5,
	R_START = 1u << 8, /* << pair */
	R_END = 1u << 12,  /* << pair */
};

/* a pair's KEY that is not a tracepoint field */
enum {
	K_FIELD,
	K_TID,
	K_PID,
	K_CPU
};

struct pair {
	char name[NAME_MAX_LEN];
	char start[128], end[128];
	char keys[PS_DUR_MAX_KEYS][NAME_MAX_LEN];
	int kind[PS_DUR_MAX_KEYS];
	size_t nkeys;
};

struct arole {
	uint32_t roles;
	uint32_t input;              /* 0, or 1 + the first attr of its input in a merged stream */
	struct tep_format_field *nr; /* syscall number: id or __syscall_nr */
	struct tep_format_field *prev_pid, *next_pid; /* sched_switch */
	struct tep_format_field *prev_state;          /* sched_switch, or NULL */
	struct tep_format_field *pid;                 /* wakeups */
	struct tep_format_field *key[PS_DUR_MAX_PAIRS][PS_DUR_MAX_KEYS];
	bool swap; /* the tracepoint data's byte order is not this machine's */
};

enum {
	T_SYS_RAW = 1u << 0, /* a raw_syscalls entry is pending */
	T_SYS_NAMED = 1u << 1,
	T_OUT = 1u << 2,  /* switched out, not in again: off-CPU since last_time */
	T_DEAD = 1u << 3, /* EXIT seen: goes after its last switch-out */
};

/* the state of one thread; entries are in a hash chain and in the order they came */
struct thr {
	struct thr *next, *older, *newer;
	uint64_t key; /* the tid, and the input of a merged stream above it */
	uint32_t tid, pid;
	uint32_t flags;
	uint64_t raw_nr, raw_t, named_nr, named_t;
	uint64_t last_time; /* timehist's: its last switch-out */
	uint64_t ready;     /* timehist's ready_to_run: the first wakeup since */
	unsigned char *chain;
	uint64_t nr_chain;
};

/* a pending start of a pair */
struct pend {
	struct pend *next, *older, *newer;
	uint32_t pair;
	uint64_t key[PS_DUR_MAX_KEYS];
	uint64_t t;
};

/* a bounded hash table with the order of insertion (the oldest goes first) */
struct table {
	void **buckets;
	size_t nbuckets, n;
	void *oldest, *newest;
};

struct cpu_state {
	uint64_t last; /* the time of its last sched_switch: 0 none */
	uint64_t idle_last_time, idle_ready;
};

struct ps_durations {
	struct pair pairs[PS_DUR_MAX_PAIRS];
	size_t npairs;
	struct arole *roles;
	size_t nroles;
	struct table threads, pends;
	struct cpu_state *cpus;
	size_t ncpus;
	uint64_t dropped;
	uint64_t in; /* the input of the sample or record at hand (arole.input) */
	bool have_switch, noticed;
	struct ps_dur_values vals;
	char note[200];
};

static const char *const builtin[] = {
	[PS_DUR_LATENCY] = "latency",     [PS_DUR_RUN_TIME] = "run_time",
	[PS_DUR_WAIT_TIME] = "wait_time", [PS_DUR_SCH_DELAY] = "sch_delay",
	[PS_DUR_OFF_CPU] = "off_cpu",
};

/* ---- the pairs' specs ---- */

static bool is_ident(const char *s, size_t n)
{
	size_t i;

	if (!n || n >= NAME_MAX_LEN || (s[0] >= '0' && s[0] <= '9'))
		return false;
	for (i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
		      (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
			return false;
	return true;
}

/* "system:event" with one colon, both parts not empty */
static bool is_tracepoint(const char *s, size_t n)
{
	const char *c = memchr(s, ':', n);

	return c && c > s && (size_t)(c - s) + 1 < n &&
	       !memchr(c + 1, ':', n - (size_t)(c - s) - 1) && n < 128 && !memchr(s, ',', n);
}

static int bad_pair(struct ps_error *err, const char *spec, const char *why)
{
	return ps_error__set(err, PS_EUSAGE, NULL, PS_NO_OFFSET,
	                     "'%s' is not a pair [NAME=]START,END[:KEY,...]: %s", spec, why);
}

static int parse_keys(struct pair *p, const char *spec, const char *keys, struct ps_error *err)
{
	const char *k = keys;

	while (*k) {
		const char *end = strchr(k, ',');
		size_t n = end ? (size_t)(end - k) : strlen(k);

		if (p->nkeys == PS_DUR_MAX_KEYS)
			return bad_pair(err, spec, "at most 4 keys");
		if (!is_ident(k, n))
			return bad_pair(err, spec, "a key is a field name");
		memcpy(p->keys[p->nkeys], k, n);
		p->keys[p->nkeys][n] = 0;
		p->kind[p->nkeys] = strcmp(p->keys[p->nkeys], "tid") == 0 ? K_TID :
		                    strcmp(p->keys[p->nkeys], "pid") == 0 ? K_PID :
		                    strcmp(p->keys[p->nkeys], "cpu") == 0 ? K_CPU :
		                                                            K_FIELD;
		p->nkeys++;
		k = end ? end + 1 : k + n;
	}
	return 0;
}

static int parse_pair(struct ps_durations *d, const char *spec, struct ps_error *err)
{
	struct pair *p = &d->pairs[d->npairs];
	const char *eq = strchr(spec, '='), *body = eq ? eq + 1 : spec, *comma, *rest, *c2;
	size_t i;

	memset(p, 0, sizeof(*p));
	if (eq) {
		if (!is_ident(spec, (size_t)(eq - spec)))
			return bad_pair(err, spec, "NAME is letters, digits and _");
		memcpy(p->name, spec, (size_t)(eq - spec));
	} else {
		snprintf(p->name, sizeof(p->name), "duration");
	}
	if (ps_durations__field(NULL, p->name) >= 0)
		return bad_pair(err, spec, "NAME is a built-in duration field");
	for (i = 0; i < d->npairs; i++)
		if (strcmp(d->pairs[i].name, p->name) == 0)
			return bad_pair(err, spec, "two pairs of the same NAME (name each one)");
	comma = strchr(body, ',');
	if (!comma || !is_tracepoint(body, (size_t)(comma - body)))
		return bad_pair(err, spec, "START is a tracepoint (system:event)");
	memcpy(p->start, body, (size_t)(comma - body));
	rest = comma + 1;
	c2 = strchr(rest, ':');
	c2 = c2 ? strchr(c2 + 1, ':') : NULL;
	if (!is_tracepoint(rest, c2 ? (size_t)(c2 - rest) : strlen(rest)))
		return bad_pair(err, spec, "END is a tracepoint (system:event)");
	memcpy(p->end, rest, c2 ? (size_t)(c2 - rest) : strlen(rest));
	if (c2 && (!c2[1] || parse_keys(p, spec, c2 + 1, err)))
		return c2[1] ? -1 : bad_pair(err, spec, "no KEY after the colon");
	d->npairs++;
	return 0;
}

struct ps_durations *ps_durations__new(const char *const *pairs, size_t npairs,
                                       struct ps_error *err)
{
	struct ps_durations *d = calloc(1, sizeof(*d));
	size_t i;

	if (!d) {
		ps_error__set(err, PS_ENOMEM, NULL, PS_NO_OFFSET, "out of memory");
		return NULL;
	}
	d->vals.d = d;
	if (npairs > PS_DUR_MAX_PAIRS) {
		ps_error__set(err, PS_EUSAGE, NULL, PS_NO_OFFSET, "at most %d pairs",
		              PS_DUR_MAX_PAIRS);
		goto fail;
	}
	for (i = 0; i < npairs; i++)
		if (parse_pair(d, pairs[i], err))
			goto fail;
	return d;
fail:
	free(d);
	return NULL;
}

static void free_thr(struct thr *t)
{
	free(t->chain);
	free(t);
}

void ps_durations__delete(struct ps_durations *d)
{
	struct thr *t, *tn;
	struct pend *p, *pn;

	if (!d)
		return;
	for (t = d->threads.oldest; t; t = tn) {
		tn = t->newer;
		free_thr(t);
	}
	for (p = d->pends.oldest; p; p = pn) {
		pn = p->newer;
		free(p);
	}
	free(d->threads.buckets);
	free(d->pends.buckets);
	free(d->roles);
	free(d->cpus);
	free(d);
}

/* ---- names ---- */

int ps_durations__field(const struct ps_durations *d, const char *name)
{
	size_t i;

	/* asked for every field of every sample a key reads: the first byte settles most */
	for (i = 0; i < ARRAY_SIZE(builtin); i++)
		if (name[0] == builtin[i][0] && strcmp(name, builtin[i]) == 0)
			return (int)i;
	for (i = 0; d && i < d->npairs; i++)
		if (name[0] == d->pairs[i].name[0] && strcmp(name, d->pairs[i].name) == 0)
			return PS_DUR_PAIR + (int)i;
	return -1;
}

bool ps_durations__named(const char *text)
{
	for (size_t i = 0; text && i < ARRAY_SIZE(builtin); i++)
		if (strstr(text, builtin[i]))
			return true;
	return false;
}

const char *ps_durations__name(const struct ps_durations *d, int field)
{
	if (field >= 0 && field < PS_DUR_PAIR)
		return builtin[field];
	if (d && field >= PS_DUR_PAIR && (size_t)(field - PS_DUR_PAIR) < d->npairs)
		return d->pairs[field - PS_DUR_PAIR].name;
	return NULL;
}

/* ---- what each attr is ---- */

static bool tp_is(const struct ps_attr *a, const char *sys, const char *name)
{
	return a->tp && a->tp->system && a->tp->name && strcmp(a->tp->system, sys) == 0 &&
	       strcmp(a->tp->name, name) == 0;
}

static bool named_is(const struct ps_attr *a, const char *spec)
{
	char buf[300];

	if (!a->tp || !a->tp->system || !a->tp->name)
		return false;
	snprintf(buf, sizeof(buf), "%s:%s", a->tp->system, a->tp->name);
	return strcmp(buf, spec) == 0;
}

static struct tep_format_field *num_field(const struct ps_attr *a, const char *name)
{
	struct tep_format_field *f = a->tp ? ps_tracing__field(a->tp, name) : NULL;

	if (!f || (f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_STRING | TEP_FIELD_IS_DYNAMIC)) ||
	    f->offset < 0 || !(f->size == 1 || f->size == 2 || f->size == 4 || f->size == 8))
		return NULL;
	return f;
}

/* a syscalls:sys_enter_NAME for this sys_exit_NAME? */
static bool has_named_enter(const struct ps_session *s, const struct ps_attr *exit)
{
	const struct ps_attr *a;
	size_t i;

	ps_session__for_each_attr(s, a, i)
		if (a->tp && a->tp->system && a->tp->name &&
		    strcmp(a->tp->system, "syscalls") == 0 &&
		    strncmp(a->tp->name, "sys_enter_", 10) == 0 &&
		    strcmp(a->tp->name + 10, exit->tp->name + 9) == 0)
			return true;
	return false;
}

static bool has_role(const struct ps_session *s, bool (*is)(const struct ps_attr *))
{
	const struct ps_attr *a;
	size_t i;

	ps_session__for_each_attr(s, a, i)
		if (is(a))
			return true;
	return false;
}

static bool is_raw_enter(const struct ps_attr *a)
{
	return tp_is(a, "raw_syscalls", "sys_enter");
}

static bool is_wake(const struct ps_attr *a)
{
	return tp_is(a, "sched", "sched_waking") || tp_is(a, "sched", "sched_wakeup") ||
	       tp_is(a, "sched", "sched_wakeup_new");
}

static bool is_switch(const struct ps_attr *a)
{
	return tp_is(a, "sched", "sched_switch");
}

static bool timed(const struct ps_attr *a)
{
	return (a->sample_type & (PERF_SAMPLE_TIME | PERF_SAMPLE_RAW)) ==
	       (PERF_SAMPLE_TIME | PERF_SAMPLE_RAW);
}

static uint32_t attr_roles(const struct ps_durations *d, const struct ps_session *s,
                           const struct ps_attr *a, struct arole *r)
{
	size_t p, k;

	memset(r, 0, sizeof(*r));
	if (!a->tp || !timed(a))
		return 0;
	r->swap = ps_tracing__swapped(a->tp);
	if (tp_is(a, "raw_syscalls", "sys_enter") || tp_is(a, "raw_syscalls", "sys_exit")) {
		r->nr = num_field(a, "id");
		if (r->nr && (a->sample_type & PERF_SAMPLE_TID))
			r->roles |= strcmp(a->tp->name, "sys_enter") == 0 ? R_ENTER_RAW :
			            has_role(s, is_raw_enter)             ? R_EXIT_RAW :
			                                                    0;
	} else if (a->tp->system && strcmp(a->tp->system, "syscalls") == 0 && a->tp->name &&
	           (a->sample_type & PERF_SAMPLE_TID)) {
		r->nr = num_field(a, "__syscall_nr");
		if (strncmp(a->tp->name, "sys_enter_", 10) == 0)
			r->roles |= R_ENTER_NAMED;
		else if (strncmp(a->tp->name, "sys_exit_", 9) == 0 && has_named_enter(s, a))
			r->roles |= R_EXIT_NAMED;
	} else if (is_switch(a)) {
		r->prev_pid = num_field(a, "prev_pid");
		r->next_pid = num_field(a, "next_pid");
		r->prev_state = num_field(a, "prev_state");
		if (r->prev_pid && r->next_pid && (a->sample_type & PERF_SAMPLE_CPU))
			r->roles |= R_SWITCH;
	} else if (is_wake(a)) {
		r->pid = num_field(a, "pid");
		if (r->pid)
			r->roles |= R_WAKE;
	}
	for (p = 0; d && p < d->npairs; p++) {
		const struct pair *pr = &d->pairs[p];
		bool ok = true;

		if (!named_is(a, pr->start) && !named_is(a, pr->end))
			continue;
		for (k = 0; k < pr->nkeys; k++) {
			if (pr->kind[k] == K_FIELD)
				ok = ok && (r->key[p][k] = num_field(a, pr->keys[k]));
			else
				ok = ok &&
				     (a->sample_type &
				      (pr->kind[k] == K_CPU ? PERF_SAMPLE_CPU : PERF_SAMPLE_TID));
		}
		if (!pr->nkeys)
			ok = ok && (a->sample_type & PERF_SAMPLE_TID);
		if (!ok)
			continue;
		if (named_is(a, pr->start))
			r->roles |= R_START << p;
		if (named_is(a, pr->end))
			r->roles |= R_END << p;
	}
	return r->roles;
}

/* the roles of every attr, worked out again when the stream declares more */
static int learn(struct ps_durations *d, const struct ps_session *s)
{
	size_t n = ps_session__nr_attrs(s), i;
	struct arole *r;

	if (n == d->nroles)
		return 0;
	r = calloc(n ? n : 1, sizeof(*r));
	if (!r)
		return -1;
	d->have_switch = false;
	for (i = 0; i < n; i++) {
		d->have_switch |= (attr_roles(d, s, ps_session__attr(s, i), &r[i]) & R_SWITCH) != 0;
		r[i].input = ps_session__input_number(s, i);
	}
	free(d->roles);
	d->roles = r;
	d->nroles = n;
	return 0;
}

static bool pair_side(const struct ps_durations *d, const struct ps_session *s, size_t p,
                      uint32_t role)
{
	const struct ps_attr *a;
	struct arole r;
	size_t i;

	ps_session__for_each_attr(s, a, i)
		if (attr_roles(d, s, a, &r) & (role << p))
			return true;
	return false;
}

bool ps_durations__attr_has(const struct ps_durations *d, const struct ps_session *s,
                            const struct ps_attr *a, int field)
{
	struct arole r;
	uint32_t roles = attr_roles(d, s, a, &r);

	switch (field) {
	case PS_DUR_LATENCY:
		return roles & (R_EXIT_RAW | R_EXIT_NAMED);
	case PS_DUR_RUN_TIME:
	case PS_DUR_WAIT_TIME:
	case PS_DUR_OFF_CPU:
		return roles & R_SWITCH;
	case PS_DUR_SCH_DELAY:
		return (roles & R_SWITCH) && has_role(s, is_wake);
	default:
		if (!d || field < PS_DUR_PAIR || (size_t)(field - PS_DUR_PAIR) >= d->npairs)
			return false;
		return (roles & (R_END << (field - PS_DUR_PAIR))) &&
		       pair_side(d, s, (size_t)(field - PS_DUR_PAIR), R_START);
	}
}

const char *ps_durations__why_not(const struct ps_durations *d, int field, char *buf, size_t len)
{
	const struct pair *p;

	switch (field) {
	case PS_DUR_LATENCY:
		snprintf(
		        buf, len,
		        "latency needs the entries and exits of the syscalls, with times and threads: record raw_syscalls:sys_enter and raw_syscalls:sys_exit (or syscalls:sys_enter_NAME and syscalls:sys_exit_NAME)");
		break;
	case PS_DUR_RUN_TIME:
	case PS_DUR_WAIT_TIME:
	case PS_DUR_OFF_CPU:
		snprintf(
		        buf, len,
		        "%s needs sched:sched_switch with times and cpus: record it (perf sched record, or precord -a -e sched:sched_switch)",
		        builtin[field]);
		break;
	case PS_DUR_SCH_DELAY:
		snprintf(
		        buf, len,
		        "sch_delay needs sched:sched_switch and the wakeups (sched:sched_waking or sched:sched_wakeup, and sched:sched_wakeup_new), with times and cpus: record them (perf sched record does)");
		break;
	default:
		p = d && field >= PS_DUR_PAIR && (size_t)(field - PS_DUR_PAIR) < d->npairs ?
		            &d->pairs[field - PS_DUR_PAIR] :
		            NULL;
		if (!p) {
			snprintf(buf, len, "no such duration field");
			break;
		}
		snprintf(
		        buf, len,
		        "%s needs %s and %s with times%s%s%s: record both (their keys must be numeric fields of both)",
		        p->name, p->start, p->end, p->nkeys ? " and the fields " : " and threads",
		        p->nkeys ? p->keys[0] : "", p->nkeys > 1 ? ",..." : "");
	}
	return buf;
}

size_t ps_durations__available(const struct ps_durations *d, const struct ps_session *s,
                               const char **names, size_t max)
{
	const struct ps_attr *a;
	size_t n = 0, i;
	int f;

	for (f = 0; f < PS_DUR_NR && n < max; f++) {
		const char *name = ps_durations__name(d, f);

		if (!name)
			continue;
		ps_session__for_each_attr(s, a, i) {
			if (ps_durations__attr_has(d, s, a, f)) {
				names[n++] = name;
				break;
			}
		}
	}
	return n;
}

int ps_durations__check(const struct ps_session *s, int field, struct ps_error *err)
{
	const struct ps_durations *d = ps_session__durations(s);
	const struct ps_attr *a;
	char why[400];
	size_t i;

	if (!ps_session__nr_attrs(s))
		return 0;
	ps_session__for_each_attr(s, a, i)
		if (ps_durations__attr_has(d, s, a, field))
			return 0;
	return ps_error__set(err, PS_EUSAGE, NULL, PS_NO_OFFSET, "no %s in this stream: %s",
	                     ps_durations__name(d, field),
	                     ps_durations__why_not(d, field, why, sizeof(why)));
}

bool ps_durations__value(const struct ps_sample *smp, int field, uint64_t *ns)
{
	if (!smp->dur || field < 0 || field >= PS_DUR_NR || !(smp->dur->mask & (1u << field)))
		return false;
	*ns = smp->dur->v[field];
	return true;
}

/* ---- the tables ---- */

static size_t hash64(uint64_t v)
{
	return (size_t)ps_mix64(v);
}

/* Make room for one more entry (the buckets grow up to the cap's size). */
static int grow(struct table *t)
{
	size_t nb;
	void **b;

	if (t->n < t->nbuckets || t->nbuckets >= 2 * PS_DUR_MAX_PENDING)
		return 0;
	nb = t->nbuckets ? t->nbuckets * 2 : 256;
	b = calloc(nb, sizeof(*b));
	if (!b)
		return t->nbuckets ? 0 : -1;
	free(t->buckets);
	t->buckets = b;
	t->nbuckets = nb;
	return 1; /* the caller puts its entries back */
}

static size_t thr_bucket(const struct table *t, uint64_t key)
{
	return hash64(key) & (t->nbuckets - 1);
}

static struct thr *thr_find(struct ps_durations *d, uint32_t tid)
{
	uint64_t key = d->in << 32 | tid;
	struct thr *t;

	if (!d->threads.nbuckets)
		return NULL;
	for (t = d->threads.buckets[thr_bucket(&d->threads, key)]; t; t = t->next)
		if (t->key == key)
			return t;
	return NULL;
}

static void thr_unlink(struct ps_durations *d, struct thr *t)
{
	struct thr **pp = (struct thr **)&d->threads.buckets[thr_bucket(&d->threads, t->key)];

	while (*pp != t)
		pp = &(*pp)->next;
	*pp = t->next;
	if (t->older)
		t->older->newer = t->newer;
	else
		d->threads.oldest = t->newer;
	if (t->newer)
		t->newer->older = t->older;
	else
		d->threads.newest = t->older;
	d->threads.n--;
}

static void thr_forget(struct ps_durations *d, struct thr *t)
{
	thr_unlink(d, t);
	free_thr(t);
}

static struct thr *thr_get(struct ps_durations *d, uint32_t tid)
{
	struct thr *t = thr_find(d, tid), *o;
	int g;

	if (t)
		return t;
	if (d->threads.n >= PS_DUR_MAX_PENDING) {
		o = d->threads.oldest;
		if (o->flags & (T_SYS_RAW | T_SYS_NAMED | T_OUT) || o->ready)
			d->dropped++;
		thr_forget(d, o);
	}
	g = grow(&d->threads);
	if (g < 0)
		return NULL;
	if (g > 0)
		for (o = d->threads.oldest; o; o = o->newer) {
			size_t b = thr_bucket(&d->threads, o->key);

			o->next = d->threads.buckets[b];
			d->threads.buckets[b] = o;
		}
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->tid = tid;
	t->key = d->in << 32 | tid;
	t->next = d->threads.buckets[thr_bucket(&d->threads, t->key)];
	d->threads.buckets[thr_bucket(&d->threads, t->key)] = t;
	t->older = d->threads.newest;
	if (t->older)
		t->older->newer = t;
	else
		d->threads.oldest = t;
	d->threads.newest = t;
	d->threads.n++;
	return t;
}

static size_t pend_hash(uint32_t pair, const uint64_t *key)
{
	size_t h = hash64(pair), i;

	for (i = 0; i < PS_DUR_MAX_KEYS; i++)
		h = hash64(h ^ key[i]);
	return h;
}

static size_t pend_bucket(const struct table *t, uint32_t pair, const uint64_t *key)
{
	return pend_hash(pair, key) & (t->nbuckets - 1);
}

static struct pend **pend_slot(struct ps_durations *d, uint32_t pair, const uint64_t *key)
{
	struct pend **pp;

	if (!d->pends.nbuckets)
		return NULL;
	for (pp = (struct pend **)&d->pends.buckets[pend_bucket(&d->pends, pair, key)]; *pp;
	     pp = &(*pp)->next)
		if ((*pp)->pair == pair && memcmp((*pp)->key, key, sizeof((*pp)->key)) == 0)
			return pp;
	return NULL;
}

static void pend_forget(struct ps_durations *d, struct pend *p)
{
	struct pend **pp = pend_slot(d, p->pair, p->key);

	if (pp)
		*pp = p->next;
	if (p->older)
		p->older->newer = p->newer;
	else
		d->pends.oldest = p->newer;
	if (p->newer)
		p->newer->older = p->older;
	else
		d->pends.newest = p->older;
	d->pends.n--;
	free(p);
}

static void pend_put(struct ps_durations *d, uint32_t pair, const uint64_t *key, uint64_t time)
{
	struct pend **pp = pend_slot(d, pair, key), *p, *o;
	size_t b;
	int g;

	if (pp) {
		/* started again: the newest start counts */
		p = *pp;
		pend_forget(d, p);
	}
	if (d->pends.n >= PS_DUR_MAX_PENDING) {
		d->dropped++;
		pend_forget(d, d->pends.oldest);
	}
	g = grow(&d->pends);
	if (g < 0)
		return;
	if (g > 0)
		for (o = d->pends.oldest; o; o = o->newer) {
			b = pend_bucket(&d->pends, o->pair, o->key);
			o->next = d->pends.buckets[b];
			d->pends.buckets[b] = o;
		}
	p = calloc(1, sizeof(*p));
	if (!p)
		return;
	p->pair = pair;
	memcpy(p->key, key, sizeof(p->key));
	p->t = time;
	b = pend_bucket(&d->pends, pair, key);
	p->next = d->pends.buckets[b];
	d->pends.buckets[b] = p;
	p->older = d->pends.newest;
	if (p->older)
		p->older->newer = p;
	else
		d->pends.oldest = p;
	d->pends.newest = p;
	d->pends.n++;
}

static struct cpu_state *cpu_get(struct ps_durations *d, uint32_t cpu)
{
	/* a merged stream's inputs: 512 cpus each, as far as the table goes */
	if (d->in && cpu < 512)
		cpu += (uint32_t)(d->in < 8 ? d->in * 512 : MAX_CPUS);
	if (cpu >= MAX_CPUS)
		return NULL;
	if (cpu >= d->ncpus) {
		size_t n = cpu < 64 ? 64 : (size_t)cpu * 2;

		if (ps_resize_zeroed((void **)&d->cpus, &d->ncpus, n < MAX_CPUS ? n : MAX_CPUS,
		                     sizeof(*d->cpus)))
			return NULL;
	}
	return &d->cpus[cpu];
}

/* ---- the events ---- */

static void set(struct ps_durations *d, int field, uint64_t ns)
{
	d->vals.mask |= 1u << field;
	d->vals.v[field] = ns;
}

static bool read_num(const struct arole *r, const struct tep_format_field *f,
                     const struct ps_sample *smp, uint64_t *v)
{
	return f && ps_tracing__number(f, r->swap, smp->raw, smp->raw_size, v) == 0;
}

static void syscall_event(struct ps_durations *d, const struct arole *r, uint32_t roles,
                          const struct ps_sample *smp)
{
	bool raw = roles & (R_ENTER_RAW | R_EXIT_RAW);
	uint32_t flag = raw ? T_SYS_RAW : T_SYS_NAMED;
	uint64_t nr = 0;
	struct thr *t;

	if (r->nr && !read_num(r, r->nr, smp, &nr))
		return;
	if (roles & (R_ENTER_RAW | R_ENTER_NAMED)) {
		t = thr_get(d, smp->tid);
		if (!t)
			return;
		t->flags |= flag;
		*(raw ? &t->raw_nr : &t->named_nr) = nr;
		*(raw ? &t->raw_t : &t->named_t) = smp->time;
		return;
	}
	t = thr_find(d, smp->tid);
	if (!t || !(t->flags & flag) || (raw ? t->raw_nr : t->named_nr) != nr)
		return;
	t->flags &= ~flag;
	if (smp->time >= (raw ? t->raw_t : t->named_t))
		set(d, PS_DUR_LATENCY, smp->time - (raw ? t->raw_t : t->named_t));
}

static void wake_event(struct ps_durations *d, const struct arole *r, const struct ps_sample *smp)
{
	uint64_t pid;
	struct thr *t;

	if (!read_num(r, r->pid, smp, &pid) || !pid)
		return;
	t = thr_get(d, (uint32_t)pid);
	if (t && !t->ready)
		t->ready = smp->time;
}

/* timehist: times of the task switched out, whose last switch-out and wakeup are given */
static void sched_times(struct ps_durations *d, uint64_t t, uint64_t tprev, uint64_t last,
                        uint64_t ready)
{
	if (!tprev || t < tprev)
		return;
	set(d, PS_DUR_RUN_TIME, t - tprev);
	if (ready && ready <= tprev)
		set(d, PS_DUR_SCH_DELAY, tprev - ready);
	else if (last && !ready)
		set(d, PS_DUR_SCH_DELAY, 0); /* runnable all along: no wakeup to wait from */
	if (last && last <= tprev)
		set(d, PS_DUR_WAIT_TIME, tprev - last);
}

static void keep_chain(struct thr *t, const struct ps_sample *smp)
{
	uint64_t n = (smp->type & PERF_SAMPLE_CALLCHAIN) ? smp->nr_callchain : 0;
	unsigned char *c;

	if (n > PS_DUR_MAX_CHAIN)
		n = PS_DUR_MAX_CHAIN;
	if (!n) {
		t->nr_chain = 0;
		return;
	}
	if (n > t->nr_chain || !t->chain) {
		c = realloc(t->chain, (size_t)n * 8);
		if (!c) {
			t->nr_chain = 0;
			return;
		}
		t->chain = c;
	}
	memcpy(t->chain, smp->callchain, (size_t)n * 8);
	t->nr_chain = n;
}

static void switch_event(struct ps_durations *d, const struct arole *r, struct ps_sample *smp)
{
	uint64_t prev, next, tprev, state;
	struct cpu_state *c = cpu_get(d, smp->cpu);
	struct thr *t;

	if (!c || !read_num(r, r->prev_pid, smp, &prev) || !read_num(r, r->next_pid, smp, &next))
		return;
	tprev = c->last;
	c->last = smp->time;
	/* the task switched in: off-CPU since its switch-out */
	if (next && (t = thr_find(d, (uint32_t)next)) && (t->flags & T_OUT)) {
		t->flags &= ~T_OUT;
		if (smp->time >= t->last_time) {
			set(d, PS_DUR_OFF_CPU, smp->time - t->last_time);
			d->vals.off_pid = t->pid;
			d->vals.off_tid = t->tid;
			d->vals.off_chain = t->nr_chain ? t->chain : NULL;
			d->vals.off_nr = t->nr_chain;
		}
	}
	/* the task switched out; the idle task is one per cpu, as timehist has it */
	if (!prev) {
		sched_times(d, smp->time, tprev, c->idle_last_time, c->idle_ready);
		c->idle_last_time = smp->time;
		c->idle_ready = 0;
		return;
	}
	t = thr_get(d, (smp->type & PERF_SAMPLE_TID) && smp->tid ? smp->tid : (uint32_t)prev);
	if (!t)
		return;
	sched_times(d, smp->time, tprev, t->last_time, t->ready);
	/*
	 * A task past its release in exit is sampled as pid -1.  Its sched times are those
	 * of timehist's one thread -1; its off-CPU time and its end are the task's own, which
	 * prev_pid names.
	 */
	if ((smp->type & PERF_SAMPLE_TID) && smp->tid == UINT32_MAX) {
		t->last_time = smp->time;
		t->ready = 0;
		t = thr_get(d, (uint32_t)prev);
		if (!t)
			return;
	}
	/* after its EXIT, a task may still sleep and run; it is gone when it leaves the
	 * cpu as a zombie or dead (prev_state X or Z) */
	if ((t->flags & T_DEAD) && (!r->prev_state || (read_num(r, r->prev_state, smp, &state) &&
	                                               (state & DEAD_STATES)))) {
		thr_forget(d, t);
		return;
	}
	t->last_time = smp->time;
	t->ready = 0;
	t->flags |= T_OUT;
	if (!(smp->type & PERF_SAMPLE_TID))
		t->pid = (uint32_t)prev;
	else if (smp->pid != UINT32_MAX)
		t->pid = smp->pid;
	keep_chain(t, smp);
}

static void pair_event(struct ps_durations *d, const struct arole *r, uint32_t roles,
                       const struct ps_sample *smp)
{
	size_t p, k;

	for (p = 0; p < d->npairs; p++) {
		const struct pair *pr = &d->pairs[p];
		uint64_t key[PS_DUR_MAX_KEYS] = { 0 };
		/* the pair, and the input of a merged stream */
		uint32_t pid = (uint32_t)(p + d->in * PS_DUR_MAX_PAIRS);
		struct pend **pp;
		bool ok = true;

		if (!(roles & ((R_START | R_END) << p)))
			continue;
		if (!pr->nkeys)
			key[0] = smp->tid;
		for (k = 0; k < pr->nkeys && ok; k++) {
			switch (pr->kind[k]) {
			case K_TID:
				key[k] = smp->tid;
				break;
			case K_PID:
				key[k] = smp->pid;
				break;
			case K_CPU:
				key[k] = smp->cpu;
				break;
			default:
				ok = read_num(r, r->key[p][k], smp, &key[k]);
			}
		}
		if (!ok)
			continue;
		if (roles & (R_END << p)) {
			pp = pend_slot(d, pid, key);
			if (pp) {
				if (smp->time >= (*pp)->t)
					set(d, PS_DUR_PAIR + (int)p, smp->time - (*pp)->t);
				pend_forget(d, *pp);
			}
		}
		if (roles & (R_START << p))
			pend_put(d, pid, key, smp->time);
	}
}

void ps_durations__sample(struct ps_durations *d, const struct ps_session *s, struct ps_sample *smp)
{
	const struct arole *r;
	uint32_t roles;

	if (!smp->attr->tp || smp->attr->idx < 0)
		return;
	if (learn(d, s) || (size_t)smp->attr->idx >= d->nroles)
		return;
	r = &d->roles[smp->attr->idx];
	roles = r->roles;
	d->in = r->input;
	if (!roles || !smp->raw)
		return;
	d->vals.mask = 0;
	if (roles & (R_ENTER_RAW | R_EXIT_RAW | R_ENTER_NAMED | R_EXIT_NAMED))
		syscall_event(d, r, roles, smp);
	else if (roles & R_SWITCH)
		switch_event(d, r, smp);
	else if (roles & R_WAKE)
		wake_event(d, r, smp);
	if (roles >> 8)
		pair_event(d, r, roles, smp);
	if (d->vals.mask)
		smp->dur = &d->vals;
}

void ps_durations__record(struct ps_durations *d, const struct ps_session *s,
                          const struct ps_record *rec)
{
	const struct ps_attr *a;
	struct thr *t;
	uint32_t tid;

	if (rec->type != PERF_RECORD_EXIT || rec->size < 32 || !d->threads.n)
		return;
	tid = ps_get32(rec->data + 16, ps_session__swapped(s));
	a = ps_session__attr_of(s, rec);
	d->in = a && (size_t)a->idx < d->nroles ? d->roles[a->idx].input : 0;
	t = thr_find(d, tid);
	if (!t)
		return;
	if (d->have_switch) {
		/* still to switch out for the last time: it goes then */
		t->flags = (t->flags & ~(T_SYS_RAW | T_SYS_NAMED)) | T_DEAD;
		return;
	}
	thr_forget(d, t);
}

const char *ps_durations__take_notice(struct ps_durations *d)
{
	if (d->noticed || !d->dropped)
		return NULL;
	d->noticed = true;
	snprintf(d->note, sizeof(d->note),
	         "durations: %" PRIu64
	         " pending starts dropped (more than %u at once): their ends have no value",
	         d->dropped, PS_DUR_MAX_PENDING);
	return d->note;
}

bool ps_durations__off_cpu_sample(const struct ps_sample *smp, struct ps_sample *view)
{
	const struct ps_dur_values *v = smp->dur;

	if (!v || !(v->mask & (1u << PS_DUR_OFF_CPU)))
		return false;
	*view = *smp;
	view->pid = v->off_pid;
	view->tid = v->off_tid;
	view->type |= PERF_SAMPLE_TID;
	view->callchain = v->off_chain;
	view->nr_callchain = v->off_nr;
	if (!v->off_chain)
		view->type &= ~(uint64_t)(PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_IP);
	return true;
}
