// SPDX-License-Identifier: GPL-2.0-only
/*
 * symbols_json.c - the symbol keys of a sample's JSON object.
 */
#include <stdio.h>
#include <string.h>

#include "sample_json.h"
#include "symbols_json.h"

static int put(json_t *o, const char *key, json_t *v)
{
	return v ? json_object_set_new(o, key, v) : -1;
}

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
