// SPDX-License-Identifier: GPL-2.0-only
/*
 * json_oracle.c - SAMPLE records, tracepoint fields and symbol keys as jansson objects: the
 * reference ptojson's writer is tested against (json_oracle.h).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>

#include "json_oracle.h"
#include "lib/abi.h"
#include "lib/durations.h"
#include "lib/json.h"
#include "lib/session.h"
#include "lib/symbolic.h"

/* json_object_set_new that reports failure as -1 */
static int put(json_t *o, const char *key, json_t *v)
{
	return v ? json_object_set_new(o, key, v) : -1;
}

/* ---- tracepoint fields ---- */

static bool is_char_type(const char *type)
{
	return strstr(type, "char") != NULL;
}

static json_t *number(struct tep_event *ev, const struct tep_format_field *f,
                      const unsigned char *p, unsigned int size)
{
	unsigned long long v = tep_read_number(ev->tep, p, (int)size);

	if (f->flags & TEP_FIELD_IS_POINTER)
		return ps_json_hex(v);
	if (f->flags & TEP_FIELD_IS_SIGNED)
		return json_integer(ps_sign_extend(v, size));
	return ps_json_u64(v);
}

static json_t *field_value(struct tep_event *ev, const struct tep_format_field *f,
                           const unsigned char *raw, uint32_t size)
{
	unsigned int off = (unsigned int)f->offset, len = (unsigned int)f->size, elem, i;
	json_t *arr;

	if ((uint64_t)off + len > size)
		return NULL;
	if (f->flags & TEP_FIELD_IS_DYNAMIC) {
		unsigned int loc = (unsigned int)tep_read_number(ev->tep, raw + off, 4);

		if (f->flags & TEP_FIELD_IS_RELATIVE)
			off = off + len + (loc & 0xffff);
		else
			off = loc & 0xffff;
		len = loc >> 16;
		if ((uint64_t)off + len > size)
			return NULL;
	}
	if ((f->flags & TEP_FIELD_IS_STRING) ||
	    ((f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC)) && is_char_type(f->type))) {
		const unsigned char *nul = memchr(raw + off, 0, len);

		return ps_json_string((const char *)raw + off,
		                      nul ? (size_t)(nul - (raw + off)) : len);
	}
	if (!(f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC)))
		return number(ev, f, raw + off, len);
	elem = f->elementsize ? f->elementsize : 1;
	if (elem != 1 && elem != 2 && elem != 4 && elem != 8)
		elem = 1;
	arr = json_array();
	if (!arr)
		return NULL;
	for (i = 0; i + elem <= len; i += elem) {
		if (json_array_append_new(arr, number(ev, f, raw + off + i, elem))) {
			json_decref(arr);
			return NULL;
		}
	}
	return arr;
}

static int add_fields(json_t *o, struct tep_event *ev, struct tep_format_field *f,
                      const unsigned char *raw, uint32_t size)
{
	for (; f; f = f->next) {
		json_t *v = field_value(ev, f, raw, size);

		if (v && ps_json_object_set(o, f->name, v))
			return -1;
	}
	return 0;
}

json_t *ps_tracepoint_json(struct tep_event *ev, const unsigned char *raw, uint32_t size,
                           int with_common)
{
	json_t *o = json_object();

	if (!o)
		return NULL;
	if ((with_common && add_fields(o, ev, ev->format.common_fields, raw, size)) ||
	    add_fields(o, ev, ev->format.fields, raw, size)) {
		json_decref(o);
		return NULL;
	}
	return o;
}

int ps_sample_json__add_symbolic(json_t *obj, const struct ps_sample *smp)
{
	struct tep_event *ev = smp->attr->tp;
	json_t *old = json_object_get(obj, "fields"), *o, *v;
	char text[PS_SYMBOLIC_MAX], *name;
	const char *key;

	if (!ev || !json_is_object(old))
		return 0;
	o = json_object();
	if (!o)
		return -1;
	json_object_foreach(old, key, v)
	{
		struct tep_format_field *f = tep_find_field(ev, key);

		if (json_object_set(o, key, v))
			goto fail;
		if (!f || !ps_symbolic__json_field(ev, f) ||
		    ps_symbolic__text(ev, key, smp, text, sizeof(text)) < 0)
			continue;
		name = ps_symbolic__key(key);
		if (!name)
			goto fail;
		if (put(o, name, ps_json_string(text, strlen(text)))) {
			free(name);
			goto fail;
		}
		free(name);
	}
	return json_object_set_new(obj, "fields", o); /* in place: the key keeps its position */
fail:
	json_decref(o);
	return -1;
}

/* ---- samples ---- */

static json_t *hex_array(const struct ps_sample *smp, const unsigned char *arr, uint64_t nr,
                         bool skip_markers)
{
	json_t *a = json_array();
	uint64_t i;

	if (!a)
		return NULL;
	for (i = 0; i < nr; i++) {
		uint64_t v = ps_sample__u64(smp, arr, i);

		if (skip_markers && v >= (uint64_t)PERF_CONTEXT_MAX)
			continue;
		if (json_array_append_new(a, ps_json_hex(v))) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

static json_t *int_array(const struct ps_sample *smp, const unsigned char *arr, uint64_t nr)
{
	json_t *a = json_array();
	uint64_t i;

	if (!a)
		return NULL;
	for (i = 0; i < nr; i++) {
		if (json_array_append_new(a, ps_json_u64(ps_sample__u64(smp, arr, i)))) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

static json_t *read_json(const struct ps_session *s, const struct ps_sample *smp)
{
	struct ps_read_value vals[64];
	uint64_t te, tr, rf = smp->attr->read_format;
	long n = ps_sample__read(smp, &te, &tr, vals, 64), i;
	json_t *o, *arr;

	if (n < 0)
		return json_null();
	o = json_object();
	arr = json_array();
	if (!o || !arr)
		goto fail;
	if ((rf & PERF_FORMAT_TOTAL_TIME_ENABLED) && put(o, "time_enabled", ps_json_u64(te)))
		goto fail;
	if ((rf & PERF_FORMAT_TOTAL_TIME_RUNNING) && put(o, "time_running", ps_json_u64(tr)))
		goto fail;
	for (i = 0; i < n && i < 64; i++) {
		json_t *v = json_object();
		const struct ps_attr *a;

		if (!v || json_array_append_new(arr, v))
			goto fail;
		if (put(v, "value", ps_json_u64(vals[i].value)))
			goto fail;
		if (rf & PERF_FORMAT_ID) {
			if (put(v, "id", ps_json_u64(vals[i].id)))
				goto fail;
			a = ps_session__attr_by_id(s, vals[i].id);
			if (a && put(v, "event", ps_json_string(a->name, strlen(a->name))))
				goto fail;
		}
		if ((rf & PERF_FORMAT_LOST) && put(v, "lost", ps_json_u64(vals[i].lost)))
			goto fail;
	}
	if (json_object_set_new(o, "values", arr))
		goto fail_o;
	return o;
fail:
	json_decref(arr);
fail_o:
	json_decref(o);
	return NULL;
}

static json_t *branch_json(const struct ps_sample *smp)
{
	json_t *a = json_array();
	uint64_t i;

	if (!a)
		return NULL;
	for (i = 0; i < smp->nr_branch; i++) {
		json_t *b = json_object();

		if (!b || json_array_append_new(a, b) ||
		    put(b, "from", ps_json_hex(ps_sample__u64(smp, smp->branch, 3 * i))) ||
		    put(b, "to", ps_json_hex(ps_sample__u64(smp, smp->branch, 3 * i + 1))) ||
		    put(b, "flags", ps_json_u64(ps_sample__u64(smp, smp->branch, 3 * i + 2)))) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

static json_t *regs_json(const struct ps_sample *smp, uint64_t abi, uint64_t mask,
                         const unsigned char *regs, uint64_t nr)
{
	json_t *o = json_object();

	if (!o || put(o, "abi", json_integer((json_int_t)abi)) ||
	    put(o, "mask", ps_json_hex(mask)) ||
	    (regs && put(o, "regs", int_array(smp, regs, nr)))) {
		json_decref(o);
		return NULL;
	}
	return o;
}

json_t *ps_sample_json(const struct ps_session *s, const struct ps_sample *smp, const char *comm,
                       enum ps_time_format tf, const struct ps_json_clock *clock)
{
	const struct ps_attr *a = smp->attr;
	uint64_t st = smp->type;
	json_t *o = json_object();
	char tbuf[64];

	if (!o)
		return NULL;
	if (put(o, "event", ps_json_string(a->name, strlen(a->name))))
		goto fail;
	if ((st & PERF_SAMPLE_TIME) &&
	    put(o, "time",
	        tf == PS_TIME_NS ?
	                ps_json_u64(smp->time) :
	                json_string(ps_json_time_string(smp->time, tf, clock, tbuf, sizeof(tbuf)))))
		goto fail;
	if (st & PERF_SAMPLE_TID) {
		if (put(o, "pid", json_integer((int32_t)smp->pid)) ||
		    put(o, "tid", json_integer((int32_t)smp->tid)))
			goto fail;
	}
	if ((st & PERF_SAMPLE_CPU) && put(o, "cpu", json_integer(smp->cpu)))
		goto fail;
	if (comm && put(o, "comm", ps_json_string(comm, strlen(comm))))
		goto fail;
	if ((st & PERF_SAMPLE_PERIOD) && put(o, "period", ps_json_u64(smp->period)))
		goto fail;
	if ((st & PERF_SAMPLE_IP) && put(o, "ip", ps_json_hex(smp->ip)))
		goto fail;
	if ((st & PERF_SAMPLE_ADDR) && put(o, "addr", ps_json_hex(smp->addr)))
		goto fail;
	if ((st & (PERF_SAMPLE_ID | PERF_SAMPLE_IDENTIFIER)) &&
	    put(o, "id", ps_json_u64(st & PERF_SAMPLE_IDENTIFIER ? smp->identifier : smp->id)))
		goto fail;
	if ((st & PERF_SAMPLE_STREAM_ID) && put(o, "stream_id", ps_json_u64(smp->stream_id)))
		goto fail;
	if ((st & PERF_SAMPLE_READ) && put(o, "read", read_json(s, smp)))
		goto fail;
	if ((st & PERF_SAMPLE_CALLCHAIN) &&
	    put(o, "callchain", hex_array(smp, smp->callchain, smp->nr_callchain, true)))
		goto fail;
	if (st & PERF_SAMPLE_RAW) {
		if (a->tp) {
			if (put(o, "fields", ps_tracepoint_json(a->tp, smp->raw, smp->raw_size, 0)))
				goto fail;
		} else if (put(o, "raw_size", json_integer(smp->raw_size))) {
			goto fail;
		}
	}
	if ((st & PERF_SAMPLE_BRANCH_STACK) && put(o, "branch_stack", branch_json(smp)))
		goto fail;
	if ((st & PERF_SAMPLE_BRANCH_STACK) && smp->has_branch_hw_idx &&
	    put(o, "branch_hw_idx", ps_json_u64(smp->branch_hw_idx)))
		goto fail;
	if ((st & PERF_SAMPLE_REGS_USER) &&
	    put(o, "regs_user",
	        regs_json(smp, smp->regs_user_abi, a->sample_regs_user, smp->regs_user,
	                  smp->nr_regs_user)))
		goto fail;
	if (st & PERF_SAMPLE_STACK_USER) {
		json_t *su = json_object();

		if (put(o, "stack_user", su) || put(su, "size", ps_json_u64(smp->stack_size)) ||
		    put(su, "dyn_size", ps_json_u64(smp->stack_dyn_size)))
			goto fail;
	}
	if (st & PERF_SAMPLE_WEIGHT_STRUCT) {
		if (put(o, "weight", json_integer((uint32_t)smp->weight)) ||
		    put(o, "ins_lat", json_integer((uint16_t)(smp->weight >> 32))) ||
		    put(o, "p_stage_cyc", json_integer((uint16_t)(smp->weight >> 48))))
			goto fail;
	} else if ((st & PERF_SAMPLE_WEIGHT) && put(o, "weight", ps_json_u64(smp->weight))) {
		goto fail;
	}
	if ((st & PERF_SAMPLE_DATA_SRC) && put(o, "data_src", ps_json_hex(smp->data_src)))
		goto fail;
	if ((st & PERF_SAMPLE_TRANSACTION) && put(o, "transaction", ps_json_u64(smp->transaction)))
		goto fail;
	if ((st & PERF_SAMPLE_REGS_INTR) &&
	    put(o, "regs_intr",
	        regs_json(smp, smp->regs_intr_abi, a->sample_regs_intr, smp->regs_intr,
	                  smp->nr_regs_intr)))
		goto fail;
	if ((st & PERF_SAMPLE_PHYS_ADDR) && put(o, "phys_addr", ps_json_hex(smp->phys_addr)))
		goto fail;
	if ((st & PERF_SAMPLE_CGROUP) && put(o, "cgroup", ps_json_u64(smp->cgroup)))
		goto fail;
	if ((st & PERF_SAMPLE_DATA_PAGE_SIZE) &&
	    put(o, "data_page_size", ps_json_u64(smp->data_page_size)))
		goto fail;
	if ((st & PERF_SAMPLE_CODE_PAGE_SIZE) &&
	    put(o, "code_page_size", ps_json_u64(smp->code_page_size)))
		goto fail;
	if ((st & PERF_SAMPLE_AUX) && put(o, "aux_size", ps_json_u64(smp->aux_size)))
		goto fail;
	/* the duration fields (durations.h), in nanoseconds, where the sample has them */
	for (int f = 0; smp->dur && f < PS_DUR_NR; f++)
		if ((smp->dur->mask & (1u << f)) &&
		    put(o, ps_durations__name(smp->dur->d, f), ps_json_u64(smp->dur->v[f])))
			goto fail;
	/* a merged stream's input (pcat --merge), where the writer puts it: after "host" */
	if (a->input && put(o, "input", ps_json_string(a->input, strlen(a->input))))
		goto fail;
	return o;
fail:
	json_decref(o);
	return NULL;
}

/* ---- symbols ---- */

static int put_symbol(json_t *o, const struct ps_symbol *s)
{
	if (s->name && (put(o, "sym", ps_json_string(s->name, strlen(s->name))) < 0 ||
	                put(o, "symoff", ps_json_u64(s->off)) < 0))
		return -1;
	if (s->dso && put(o, "dso", ps_json_string(s->dso, strlen(s->dso))) < 0)
		return -1;
	return 0;
}

/* no lookup: every address of the chain, markers left out */
static json_t *plain_frames(const struct ps_sample *smp)
{
	json_t *arr = json_array();
	uint64_t k;

	for (k = 0; arr && k < smp->nr_callchain; k++) {
		uint64_t ip = ps_sample__u64(smp, smp->callchain, k);
		json_t *f;

		if (ip >= (uint64_t)PERF_CONTEXT_MAX)
			continue;
		f = json_object();
		if (!f || json_array_append_new(arr, f) < 0 || put(f, "ip", ps_json_hex(ip)) < 0) {
			json_decref(arr);
			return NULL;
		}
	}
	return arr;
}

int ps_symbols__json(struct ps_symbols *st, json_t *obj, const struct ps_sample *smp, uint16_t misc)
{
	struct ps_frame frames[PS_SYMBOLS_MAX_STACK];
	struct ps_symbol sym;
	size_t n, i;
	json_t *arr;

	if (st && ps_symbols__sample(st, smp, misc, &sym) && put_symbol(obj, &sym) < 0)
		return -1;
	if (!(smp->type & PERF_SAMPLE_CALLCHAIN) || !json_object_get(obj, "callchain"))
		return 0;
	if (!st)
		return put(obj, "callchain", plain_frames(smp));
	n = ps_symbols__frames(st, smp, frames, PS_SYMBOLS_MAX_STACK);
	arr = json_array();
	if (!arr)
		return -1;
	for (i = 0; i < n; i++) {
		json_t *f = json_object();

		if (!f || json_array_append_new(arr, f) < 0 ||
		    put(f, "ip", ps_json_hex(frames[i].ip)) < 0 ||
		    put_symbol(f, &frames[i].sym) < 0 ||
		    (frames[i].inlined && put(f, "inlined", json_true()) < 0)) {
			json_decref(arr);
			return -1;
		}
	}
	return json_object_set_new(obj, "callchain", arr);
}
