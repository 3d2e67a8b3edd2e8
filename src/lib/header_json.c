// SPDX-License-Identifier: GPL-2.0-only
/*
 * header_json.c - attrs, FEATURE payloads, tracepoint formats and BUILD_ID records as
 * jansson objects.  Feature payloads are untrusted bytes: every count and length is
 * checked against what is left of the payload before it is used.
 */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>

#include "abi.h"
#include "header_json.h"
#include "sample.h"
#include "sample_json.h"
#include "session.h"
#include "xalloc.h"

/* ---- names: the one table for the text and the JSON renderings ---- */

static const char *const flag_names[] = {
	"disabled",
	"inherit",
	"pinned",
	"exclusive",
	"exclude_user",
	"exclude_kernel",
	"exclude_hv",
	"exclude_idle",
	"mmap",
	"comm",
	"freq",
	"inherit_stat",
	"enable_on_exec",
	"task",
	"watermark",
	"precise_ip",
	"precise_ip",
	"mmap_data",
	"sample_id_all",
	"exclude_host",
	"exclude_guest",
	"exclude_callchain_kernel",
	"exclude_callchain_user",
	"mmap2",
	"comm_exec",
	"use_clockid",
	"context_switch",
	"write_backward",
	"namespaces",
	"ksymbol",
	"bpf_event",
	"aux_output",
	"cgroup",
	"text_poke",
	"build_id",
	"inherit_thread",
	"remove_on_exec",
	"sigtrap",
};
_Static_assert(ARRAY_SIZE(flag_names) == 38, "attr flag bits 0..37 (perf 6.1)");

#define PRECISE_IP_SHIFT 15
#define PRECISE_IP_MASK (3ULL << PRECISE_IP_SHIFT)
#define USE_CLOCKID (1ULL << 25)

static const char *const read_format_names[] = {
	"TOTAL_TIME_ENABLED", "TOTAL_TIME_RUNNING", "ID", "GROUP", "LOST",
};

static const char *const branch_names[] = {
	"USER",     "KERNEL",    "HV",        "ANY",      "ANY_CALL",   "ANY_RETURN", "IND_CALL",
	"ABORT_TX", "IN_TX",     "NO_TX",     "COND",     "CALL_STACK", "IND_JUMP",   "CALL",
	"NO_FLAGS", "NO_CYCLES", "TYPE_SAVE", "HW_INDEX", "PRIV_SAVE",
};

static const char *const type_names[] = {
	"hardware", "software", "tracepoint", "hw_cache", "raw", "breakpoint",
};

/* perf 6.1 prints these sample_type bits, in this order (and not TRANSACTION) */
static const unsigned char evlist_sample_order[] = {
	0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 16, 18, 15, 14, 19, 20, 21, 22, 23, 24,
};

static const char *bit_name(const char *const *names, size_t n, uint64_t bit)
{
	unsigned int i;

	if (!bit || (bit & (bit - 1)))
		return NULL;
	i = (unsigned int)__builtin_ctzll(bit);
	return i < n ? names[i] : NULL;
}

const char *ps_attr_flag_name(unsigned int bit)
{
	return bit < ARRAY_SIZE(flag_names) ? flag_names[bit] : NULL;
}

const char *ps_read_format_name(uint64_t bit)
{
	return bit_name(read_format_names, ARRAY_SIZE(read_format_names), bit);
}

const char *ps_branch_sample_type_name(uint64_t bit)
{
	return bit_name(branch_names, ARRAY_SIZE(branch_names), bit);
}

const char *ps_attr_type_name(uint32_t type)
{
	return type < ARRAY_SIZE(type_names) ? type_names[type] : NULL;
}

/* ---- the perf evlist -v line ---- */

struct sbuf {
	char *buf;
	size_t len, pos;
};

static void PS_PRINTF(2, 3) sb_printf(struct sbuf *b, const char *fmt, ...)
{
	size_t room = b->pos < b->len ? b->len - b->pos : 0;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(room ? b->buf + b->pos : NULL, room, fmt, ap);
	va_end(ap);
	if (n > 0)
		b->pos += (size_t)n;
}

static void ev_sep(struct sbuf *b, bool *first, const char *name)
{
	sb_printf(b, "%s%s: ", *first ? "" : ", ", name);
	*first = false;
}

static void ev_u64(struct sbuf *b, bool *first, const char *name, uint64_t v)
{
	if (!v)
		return;
	ev_sep(b, first, name);
	sb_printf(b, "%" PRIu64, v);
}

static void ev_hex(struct sbuf *b, bool *first, const char *name, uint64_t v)
{
	if (!v)
		return;
	ev_sep(b, first, name);
	sb_printf(b, "%#" PRIx64, v);
}

/* named bits of @v joined by "|", in the order of @order (or bit order when NULL) */
static void ev_bits(struct sbuf *b, bool *first, const char *name, uint64_t v,
                    const char *(*namefn)(uint64_t), const unsigned char *order, size_t norder)
{
	bool one = true;
	size_t i;

	if (!v)
		return;
	ev_sep(b, first, name);
	for (i = 0; i < (order ? norder : 64); i++) {
		uint64_t bit = 1ULL << (order ? order[i] : i);
		const char *n = namefn(bit);

		if (!(v & bit) || !n)
			continue;
		sb_printf(b, "%s%s", one ? "" : "|", n);
		one = false;
	}
}

size_t ps_header_json__evlist(const struct ps_attr *a, char *buf, size_t len)
{
	struct sbuf b = { buf, len, 0 };
	bool first = true;
	unsigned int bit;

	if (len)
		buf[0] = 0;
	ev_u64(&b, &first, "type", a->type);
	ev_u64(&b, &first, "size", a->size);
	ev_hex(&b, &first, "config", a->config);
	ev_u64(&b, &first, "{ sample_period, sample_freq }", a->sample_period);
	ev_bits(&b, &first, "sample_type", a->sample_type, ps_sample_type_name, evlist_sample_order,
	        ARRAY_SIZE(evlist_sample_order));
	ev_bits(&b, &first, "read_format", a->read_format, ps_read_format_name, NULL, 0);
	for (bit = 0; bit < ARRAY_SIZE(flag_names); bit++) {
		if (bit == PRECISE_IP_SHIFT) {
			ev_u64(&b, &first, "precise_ip",
			       (a->flags & PRECISE_IP_MASK) >> PRECISE_IP_SHIFT);
			bit++;
			continue;
		}
		ev_u64(&b, &first, flag_names[bit], (a->flags >> bit) & 1);
	}
	ev_u64(&b, &first, "{ wakeup_events, wakeup_watermark }", a->wakeup);
	ev_u64(&b, &first, "bp_type", a->bp_type);
	ev_hex(&b, &first, "{ bp_addr, config1 }", a->config1);
	ev_hex(&b, &first, "{ bp_len, config2 }", a->config2);
	ev_bits(&b, &first, "branch_sample_type", a->branch_sample_type, ps_branch_sample_type_name,
	        NULL, 0);
	ev_hex(&b, &first, "sample_regs_user", a->sample_regs_user);
	ev_u64(&b, &first, "sample_stack_user", a->sample_stack_user);
	if (a->clockid) {
		ev_sep(&b, &first, "clockid");
		sb_printf(&b, "%" PRId32, a->clockid);
	}
	ev_hex(&b, &first, "sample_regs_intr", a->sample_regs_intr);
	ev_u64(&b, &first, "aux_watermark", a->aux_watermark);
	ev_u64(&b, &first, "sample_max_stack", a->sample_max_stack);
	ev_u64(&b, &first, "aux_sample_size", a->aux_sample_size);
	ev_u64(&b, &first, "sig_data", a->sig_data);
	return b.pos;
}

/* ---- attrs ---- */

/* json_object_set_new() that takes a NULL value (out of memory) as a failure; @v is
 * consumed, also when setting fails */
static int put(json_t *o, const char *key, json_t *v)
{
	if (!v)
		return -1;
	return json_object_set_new(o, key, v);
}

/* json_array_append_new(): @v is consumed, also when appending fails */
static int append(json_t *arr, json_t *v)
{
	if (!v)
		return -1;
	return json_array_append_new(arr, v);
}

/* append @v to @arr unless @failed (filling @v failed); either way @v is consumed */
static int add(json_t *arr, json_t *v, bool failed)
{
	if (failed) {
		json_decref(v);
		return -1;
	}
	return append(arr, v);
}

/* @o when filling it went well; otherwise NULL, and @o (which may be NULL) is released */
static json_t *built(json_t *o, bool failed)
{
	if (failed) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* the names of the bits of @v, bit 0 first; a bit without a name as "0x..." */
static json_t *bit_names_json(uint64_t v, const char *(*namefn)(uint64_t))
{
	json_t *arr = json_array();
	unsigned int i;

	if (!arr)
		return NULL;
	for (i = 0; i < 64; i++) {
		uint64_t bit = 1ULL << i;
		const char *n;

		if (!(v & bit))
			continue;
		n = namefn(bit);
		if (append(arr, n ? json_string(n) : ps_json_hex(bit)) < 0) {
			json_decref(arr);
			return NULL;
		}
	}
	return arr;
}

static const char *flag_name64(uint64_t bit)
{
	unsigned int i;

	if (!bit || (bit & (bit - 1)))
		return NULL;
	i = (unsigned int)__builtin_ctzll(bit);
	return ps_attr_flag_name(i);
}

static json_t *ids_json(const struct ps_attr *a)
{
	json_t *arr = json_array();
	size_t i;

	for (i = 0; arr && i < a->nr_ids; i++) {
		if (append(arr, ps_json_u64(a->ids[i])) < 0) {
			json_decref(arr);
			return NULL;
		}
	}
	return arr;
}

static int put_nonzero(json_t *o, const char *key, uint64_t v)
{
	return v ? put(o, key, ps_json_u64(v)) : 0;
}

json_t *ps_header_json__attr(const struct ps_attr *a)
{
	json_t *o = json_object();
	const char *tn = ps_attr_type_name(a->type);
	char line[4096];
	int bad = 0;

	if (!o)
		return NULL;
	if (a->idx >= 0)
		bad |= put(o, "index", json_integer(a->idx));
	bad |= put(o, "name",
	           ps_json_string(a->name ? a->name : "", a->name ? strlen(a->name) : 0));
	bad |= put(o, "type", json_integer(a->type));
	if (tn)
		bad |= put(o, "type_name", json_string(tn));
	bad |= put(o, "size", json_integer(a->size));
	bad |= put(o, "config", ps_json_u64(a->config));
	if (a->flags & PS_ATTR_FLAG_FREQ)
		bad |= put(o, "sample_freq", ps_json_u64(a->sample_period));
	else
		bad |= put(o, "sample_period", ps_json_u64(a->sample_period));
	bad |= put(o, "sample_type", bit_names_json(a->sample_type, ps_sample_type_name));
	bad |= put(o, "read_format", bit_names_json(a->read_format, ps_read_format_name));
	bad |= put(o, "flags", bit_names_json(a->flags & ~PRECISE_IP_MASK, flag_name64));
	bad |= put_nonzero(o, "precise_ip", (a->flags & PRECISE_IP_MASK) >> PRECISE_IP_SHIFT);
	bad |= put_nonzero(o, "wakeup_events", a->wakeup);
	bad |= put_nonzero(o, "bp_type", a->bp_type);
	bad |= put_nonzero(o, "config1", a->config1);
	bad |= put_nonzero(o, "config2", a->config2);
	bad |= put_nonzero(o, "config3", a->config3);
	if (a->branch_sample_type)
		bad |= put(o, "branch_sample_type",
		           bit_names_json(a->branch_sample_type, ps_branch_sample_type_name));
	bad |= put_nonzero(o, "sample_regs_user", a->sample_regs_user);
	bad |= put_nonzero(o, "sample_stack_user", a->sample_stack_user);
	if (a->clockid || (a->flags & USE_CLOCKID))
		bad |= put(o, "clockid", json_integer(a->clockid));
	bad |= put_nonzero(o, "sample_regs_intr", a->sample_regs_intr);
	bad |= put_nonzero(o, "aux_watermark", a->aux_watermark);
	bad |= put_nonzero(o, "sample_max_stack", a->sample_max_stack);
	bad |= put_nonzero(o, "aux_sample_size", a->aux_sample_size);
	bad |= put_nonzero(o, "sig_data", a->sig_data);
	bad |= put(o, "ids", ids_json(a));
	if (a->unit)
		bad |= put(o, "unit", ps_json_string(a->unit, strlen(a->unit)));
	/* JSON has no NaN or infinity: a scale that is one is given as a string */
	if (a->scale != 0)
		bad |= put(o, "scale",
		           isfinite(a->scale) ? json_real(a->scale) :
		                                json_string(isnan(a->scale) ? "nan" :
		                                            a->scale < 0    ? "-inf" :
		                                                              "inf"));
	ps_header_json__evlist(a, line, sizeof(line));
	bad |= put(o, "perf_evlist", json_string(line));
	return built(o, bad);
}

/* ---- feature payloads ---- */

/* A read position in an untrusted payload; @bad sticks once anything did not fit. */
struct cur {
	const unsigned char *p;
	size_t len, pos;
	bool swap, bad;
};

static bool need(struct cur *c, size_t n)
{
	if (c->bad || n > c->len - c->pos) {
		c->bad = true;
		return false;
	}
	return true;
}

/* a number of @width bytes (4 or 8), or 0 when it does not fit */
static uint64_t get(struct cur *c, unsigned int width)
{
	uint64_t v;

	if (!need(c, width))
		return 0;
	v = width == 4 ? ps_get32(c->p + c->pos, c->swap) : ps_get64(c->p + c->pos, c->swap);
	c->pos += width;
	return v;
}

static uint32_t get32(struct cur *c)
{
	return (uint32_t)get(c, 4);
}

static uint64_t get64(struct cur *c)
{
	return get(c, 8);
}

/* perf's "string": u32 len, then len bytes holding the text, NUL-padded */
static const char *getstr(struct cur *c, size_t *n)
{
	uint32_t len = get32(c);
	const char *s;

	if (!need(c, len))
		return NULL;
	s = (const char *)c->p + c->pos;
	c->pos += len;
	*n = strnlen(s, len);
	return s;
}

static json_t *str_json(struct cur *c)
{
	size_t n;
	const char *s = getstr(c, &n);

	return s ? ps_json_string(s, n) : NULL;
}

/* @nr items of at least @min_each bytes each can be in what is left */
static bool count_ok(struct cur *c, uint64_t nr, size_t min_each)
{
	if (c->bad || nr > (c->len - c->pos) / min_each) {
		c->bad = true;
		return false;
	}
	return true;
}

/* @nr items of at least @min_each bytes each, each read by @item (NULL: failed) */
static json_t *list_json(struct cur *c, uint64_t nr, size_t min_each,
                         json_t *(*item)(struct cur *c))
{
	json_t *arr;
	uint64_t i;

	if (!count_ok(c, nr, min_each))
		return NULL;
	arr = json_array();
	for (i = 0; arr && i < nr; i++) {
		if (append(arr, item(c)) < 0) {
			json_decref(arr);
			return NULL;
		}
	}
	return arr;
}

static json_t *u64_json(struct cur *c)
{
	return ps_json_u64(get64(c));
}

static json_t *u32_count_json(struct cur *c)
{
	json_t *o = json_object();

	return built(o, o && put(o, "count", json_integer(get32(c))) < 0);
}

/* u32 nr, nr x string */
static json_t *string_list(struct cur *c)
{
	return list_json(c, get32(c), 4, str_json);
}

/*
 * Fill @a from @size bytes of a perf_event_attr; fields past @size read as 0.  The flag
 * word is a C bitfield: a big-endian writer allocates it from the most significant bit, so
 * there each field is mirrored (see ps_attr_flags_from_big_endian()).
 */
static void attr_from_bytes(struct ps_attr *a, const unsigned char *p, size_t size, bool swap)
{
#define F(off, w) ((off) + (w) <= size)
	if (F(PS_ATTR_TYPE, 4))
		a->type = ps_get32(p + PS_ATTR_TYPE, swap);
	if (F(PS_ATTR_SIZE, 4))
		a->size = ps_get32(p + PS_ATTR_SIZE, swap);
	if (F(PS_ATTR_CONFIG, 8))
		a->config = ps_get64(p + PS_ATTR_CONFIG, swap);
	if (F(PS_ATTR_PERIOD, 8))
		a->sample_period = ps_get64(p + PS_ATTR_PERIOD, swap);
	if (F(PS_ATTR_SAMPLE_TYPE, 8))
		a->sample_type = ps_get64(p + PS_ATTR_SAMPLE_TYPE, swap);
	if (F(PS_ATTR_READ_FORMAT, 8))
		a->read_format = ps_get64(p + PS_ATTR_READ_FORMAT, swap);
	if (F(PS_ATTR_FLAGS, 8)) {
		a->flags = ps_get64(p + PS_ATTR_FLAGS, swap);
		if (ps_host_is_big_endian() != swap)
			a->flags = ps_attr_flags_from_big_endian(a->flags);
	}
	if (F(PS_ATTR_WAKEUP, 4))
		a->wakeup = ps_get32(p + PS_ATTR_WAKEUP, swap);
	if (F(PS_ATTR_BP_TYPE, 4))
		a->bp_type = ps_get32(p + PS_ATTR_BP_TYPE, swap);
	if (F(PS_ATTR_CONFIG1, 8))
		a->config1 = ps_get64(p + PS_ATTR_CONFIG1, swap);
	if (F(PS_ATTR_CONFIG2, 8))
		a->config2 = ps_get64(p + PS_ATTR_CONFIG2, swap);
	if (F(PS_ATTR_BRANCH_SAMPLE_TYPE, 8))
		a->branch_sample_type = ps_get64(p + PS_ATTR_BRANCH_SAMPLE_TYPE, swap);
	if (F(PS_ATTR_SAMPLE_REGS_USER, 8))
		a->sample_regs_user = ps_get64(p + PS_ATTR_SAMPLE_REGS_USER, swap);
	if (F(PS_ATTR_SAMPLE_STACK_USER, 4))
		a->sample_stack_user = ps_get32(p + PS_ATTR_SAMPLE_STACK_USER, swap);
	if (F(PS_ATTR_CLOCKID, 4))
		a->clockid = (int32_t)ps_get32(p + PS_ATTR_CLOCKID, swap);
	if (F(PS_ATTR_SAMPLE_REGS_INTR, 8))
		a->sample_regs_intr = ps_get64(p + PS_ATTR_SAMPLE_REGS_INTR, swap);
	if (F(PS_ATTR_AUX_WATERMARK, 4))
		a->aux_watermark = ps_get32(p + PS_ATTR_AUX_WATERMARK, swap);
	if (F(PS_ATTR_SAMPLE_MAX_STACK, 2))
		a->sample_max_stack = ps_get16(p + PS_ATTR_SAMPLE_MAX_STACK, swap);
	if (F(PS_ATTR_AUX_SAMPLE_SIZE, 4))
		a->aux_sample_size = ps_get32(p + PS_ATTR_AUX_SAMPLE_SIZE, swap);
	if (F(PS_ATTR_SIG_DATA, 8))
		a->sig_data = ps_get64(p + PS_ATTR_SIG_DATA, swap);
	if (F(PS_ATTR_CONFIG3, 8))
		a->config3 = ps_get64(p + PS_ATTR_CONFIG3, swap);
#undef F
}

/* nr, attr_size, nr x {attr[attr_size], u32 nr_ids, string name, u64 ids[nr_ids]} */
static json_t *event_desc(struct cur *c)
{
	uint32_t nr = get32(c), attr_size = get32(c), i;
	json_t *arr;

	if (attr_size < 8)
		c->bad = true;
	if (!count_ok(c, nr, (size_t)attr_size + 8))
		return NULL;
	arr = json_array();
	for (i = 0; arr && i < nr; i++) {
		struct ps_attr a = { .idx = -1 };
		uint32_t nr_ids;
		const char *name;
		json_t *o, *ids;
		size_t n;

		if (!need(c, attr_size))
			break;
		attr_from_bytes(&a, c->p + c->pos, attr_size, c->swap);
		c->pos += attr_size;
		nr_ids = get32(c);
		name = getstr(c, &n);
		if (!name || !count_ok(c, nr_ids, 8))
			break;
		a.name = ps_strndup0(name, n);
		if (!a.name)
			break;
		o = ps_header_json__attr(&a);
		free(a.name);
		ids = list_json(c, nr_ids, 8, u64_json);
		if (!o) {
			json_decref(ids);
			break;
		}
		if (add(arr, o, put(o, "ids", ids) < 0) < 0)
			break;
	}
	if (arr && i < nr) {
		json_decref(arr);
		return NULL;
	}
	return arr;
}

/*
 * sibling sockets, sibling threads, nr_cpus_avail x {core_id, socket_id}; then optionally
 * sibling dies and nr_cpus_avail x die_id.  Older perf wrote only the two lists.
 */
static json_t *cpu_topology(const struct ps_session *s, struct cur *c)
{
	json_t *o = json_object(), *cpus = NULL, *dies;
	const unsigned char *nrcpus;
	uint32_t nr_cpus = 0, i;
	size_t nlen;

	if (!o)
		return NULL;
	if (put(o, "sibling_sockets", string_list(c)) < 0 ||
	    put(o, "sibling_threads", string_list(c)) < 0)
		goto fail;
	nrcpus = ps_session__feature(s, PS_FEAT_NRCPUS, &nlen);
	if (nrcpus && nlen >= 4)
		nr_cpus = ps_get32(nrcpus, ps_session__swapped(s));
	if (!nr_cpus || c->len - c->pos < 8ULL * nr_cpus)
		return o;
	cpus = json_array();
	for (i = 0; cpus && i < nr_cpus; i++) {
		json_t *cpu = json_object();
		uint32_t core = get32(c), socket = get32(c);

		if (add(cpus, cpu,
		        !cpu || put(cpu, "cpu", json_integer(i)) < 0 ||
		                put(cpu, "core_id", json_integer(core)) < 0 ||
		                put(cpu, "socket_id", json_integer(socket)) < 0) < 0)
			goto fail;
	}
	if (c->pos < c->len) {
		dies = string_list(c);
		if (!dies || put(o, "sibling_dies", dies) < 0 || !count_ok(c, nr_cpus, 4))
			goto fail;
		for (i = 0; i < nr_cpus; i++) {
			json_t *cpu = json_array_get(cpus, i);

			if (put(cpu, "die_id", json_integer(get32(c))) < 0)
				goto fail;
		}
	}
	if (put(o, "cpus", cpus) < 0)
		goto fail_o;
	return o;
fail:
	json_decref(cpus);
fail_o:
	json_decref(o);
	return NULL;
}

/* {u32 node, u64 mem_total, u64 mem_free, string cpus} */
static json_t *numa_node(struct cur *c)
{
	json_t *n = json_object();
	uint32_t node = get32(c);
	uint64_t total = get64(c), free_kb = get64(c);

	return built(n, !n || put(n, "node", json_integer(node)) < 0 ||
	                        put(n, "mem_total", ps_json_u64(total)) < 0 ||
	                        put(n, "mem_free", ps_json_u64(free_kb)) < 0 ||
	                        put(n, "cpus", str_json(c)) < 0);
}

/* {u32 type, string name} */
static json_t *pmu_mapping(struct cur *c)
{
	json_t *m = json_object();
	uint32_t type = get32(c);

	return built(m, !m || put(m, "type", json_integer(type)) < 0 ||
	                        put(m, "name", str_json(c)) < 0);
}

/* {string name, u32 leader_idx, u32 nr_members} */
static json_t *group(struct cur *c)
{
	json_t *g = json_object();
	json_t *name = str_json(c);
	uint32_t leader = get32(c), members = get32(c);

	if (!g)
		json_decref(name);
	return built(g, !g || put(g, "name", name) < 0 || c->bad ||
	                        put(g, "leader_idx", json_integer(leader)) < 0 ||
	                        put(g, "nr_members", json_integer(members)) < 0);
}

/* {u32 level, line_size, sets, ways; string type, size, map} */
static json_t *cache_level(struct cur *c)
{
	json_t *l = json_object();
	uint32_t level = get32(c), line = get32(c), sets = get32(c), ways = get32(c);

	return built(l, !l || put(l, "level", json_integer(level)) < 0 ||
	                        put(l, "line_size", json_integer(line)) < 0 ||
	                        put(l, "sets", json_integer(sets)) < 0 ||
	                        put(l, "ways", json_integer(ways)) < 0 ||
	                        put(l, "type", str_json(c)) < 0 ||
	                        put(l, "size", str_json(c)) < 0 || put(l, "map", str_json(c)) < 0);
}

/* u32 version, u32 nr, nr x cache_level() */
static json_t *cache(struct cur *c)
{
	json_t *o = json_object();
	uint32_t version = get32(c);

	return built(o, !o || put(o, "version", json_integer(version)) < 0 ||
	                        put(o, "levels", list_json(c, get32(c), 28, cache_level)) < 0);
}

/*
 * u64 version, u64 block_size, u64 nr, nr x {u64 node, u64 size, bitmap: u64 nbits,
 * ceil(nbits / 64) x u64}: per node, its memory blocks as a range list ("0-23,32-199").
 */
static json_t *mem_topology(struct cur *c)
{
	uint64_t version = get64(c), bsize = get64(c), nr = get64(c), i;
	json_t *o = json_object(), *arr = json_array();

	if (!o || !arr || !count_ok(c, nr, 24) || put(o, "version", ps_json_u64(version)) < 0 ||
	    put(o, "block_size", ps_json_u64(bsize)) < 0)
		goto fail;
	for (i = 0; i < nr; i++) {
		uint64_t node = get64(c), size = get64(c), nbits = get64(c), words, b, set = 0;
		uint64_t start = 0, bytes;
		struct ps_bytes d = { 0 };
		bool in = false, bad;
		json_t *n;
		size_t base;

		(void)size;
		words = nbits / 64 + (nbits % 64 != 0);
		if (!count_ok(c, words, 8))
			goto fail;
		base = c->pos;
		c->pos += words * 8;
		for (b = 0; b <= nbits; b++) {
			bool on = b < nbits &&
			          (ps_get64(c->p + base + 8 * (b / 64), c->swap) >> (b % 64)) & 1;

			if (on && !in) {
				start = b;
				in = true;
			} else if (!on && in) {
				ps_bytes__printf(&d, "%s%" PRIu64, d.len ? "," : "", start);
				if (b - 1 > start)
					ps_bytes__printf(&d, "-%" PRIu64, b - 1);
				in = false;
			}
			set += on;
		}
		n = json_object();
		bad = !n || d.failed || put(n, "node", ps_json_u64(node)) < 0 ||
		      (!__builtin_mul_overflow(set, bsize, &bytes) &&
		       put(n, "size", ps_json_u64(bytes)) < 0) ||
		      put(n, "blocks", json_string(ps_bytes__text(&d))) < 0;
		ps_bytes__release(&d);
		if (add(arr, n, bad) < 0)
			goto fail;
	}
	if (put(o, "nodes", arr) < 0) {
		json_decref(o);
		return NULL;
	}
	return o;
fail:
	json_decref(arr);
	json_decref(o);
	return NULL;
}

/* u32 nr, nr x {string name, string value} as {name: value} */
static json_t *caps_object(struct cur *c, uint32_t nr)
{
	json_t *o;
	uint32_t i;

	if (!count_ok(c, nr, 8))
		return NULL;
	o = json_object();
	for (i = 0; o && i < nr; i++) {
		json_t *name = str_json(c), *value = str_json(c);

		if (!name || !value) {
			json_decref(name);
			json_decref(value);
			json_decref(o);
			return NULL;
		}
		/* json_object_set_new() consumes @value, also when it fails */
		if (json_object_set_new(o, json_string_value(name), value) < 0) {
			json_decref(name);
			json_decref(o);
			return NULL;
		}
		json_decref(name);
	}
	return o;
}

/* {u32 nr_caps, nr_caps x {string name, string value}, string pmu} */
static json_t *pmu_caps(struct cur *c)
{
	json_t *caps = caps_object(c, get32(c));
	json_t *pmu = caps ? str_json(c) : NULL;
	json_t *p = caps && pmu ? json_object() : NULL;
	bool bad;

	if (!p) {
		json_decref(caps);
		json_decref(pmu);
		return NULL;
	}
	/* the stream gives the caps first; the name reads better first */
	bad = put(p, "pmu", pmu) < 0;
	bad |= put(p, "caps", caps) < 0;
	return built(p, bad);
}

/* {string pmu, string cpus} */
static json_t *hybrid_pmu(struct cur *c)
{
	json_t *h = json_object();

	return built(h, !h || put(h, "pmu", str_json(c)) < 0 || put(h, "cpus", str_json(c)) < 0);
}

/* A fixed layout: fields of 4 or 8 bytes, read in order. */
/* a payload of fixed numbers (record.h's feature fields) as an object */
static json_t *fixed_fields(struct cur *c, const struct ps_record_field *fields, size_t n)
{
	json_t *o = json_object();
	size_t i;

	for (i = 0; o && i < n; i++) {
		uint64_t v = fields[i].width == 8 ? get64(c) : get32(c);

		if (c->bad || put(o, fields[i].name, ps_json_u64(v)) < 0) {
			json_decref(o);
			return NULL;
		}
	}
	return o;
}

static json_t *decode(const struct ps_session *s, unsigned int feat, struct cur *c)
{
	size_t n = 0;
	const struct ps_record_field *fixed = ps_feature_fields(feat, &n);
	json_t *v;

	if (fixed && feat != PS_FEAT_COMPRESSED)
		return fixed_fields(c, fixed, n);
	if (ps_feature_is_string(feat))
		return str_json(c);
	switch (feat) {
	case PS_FEAT_TOTAL_MEM:
		v = ps_json_u64(get64(c));
		return c->bad ? (json_decref(v), NULL) : v;
	case PS_FEAT_CMDLINE:
		return string_list(c);
	case PS_FEAT_EVENT_DESC:
		return event_desc(c);
	case PS_FEAT_CPU_TOPOLOGY:
		return cpu_topology(s, c);
	case PS_FEAT_NUMA_TOPOLOGY:
		return list_json(c, get32(c), 24, numa_node);
	case PS_FEAT_BRANCH_STACK:
	case PS_FEAT_STAT:
		return json_true();
	case PS_FEAT_PMU_MAPPINGS:
		return list_json(c, get32(c), 8, pmu_mapping);
	case PS_FEAT_GROUP_DESC:
		return list_json(c, get32(c), 12, group);
	case PS_FEAT_CACHE:
		return cache(c);
	case PS_FEAT_MEM_TOPOLOGY:
		return mem_topology(c);
	case PS_FEAT_BPF_PROG_INFO:
	case PS_FEAT_BPF_BTF:
		return u32_count_json(c);
	case PS_FEAT_COMPRESSED:
		v = fixed_fields(c, fixed, n);
		if (v && json_integer_value(json_object_get(v, "type")) == 1)
			json_object_set_new(v, "type", json_string("zstd"));
		return v;
	case PS_FEAT_CPU_PMU_CAPS:
		return caps_object(c, get32(c));
	case PS_FEAT_HYBRID_TOPOLOGY:
		return list_json(c, get32(c), 8, hybrid_pmu);
	case PS_FEAT_PMU_CAPS:
		return list_json(c, get32(c), 8, pmu_caps);
	default:
		return NULL;
	}
}

static bool decodable(unsigned int feat)
{
	return feat >= PS_FEAT_HOSTNAME && feat <= PS_FEAT_PMU_CAPS && feat != PS_FEAT_AUXTRACE;
}

json_t *ps_header_json__feature(const struct ps_session *s, unsigned int feat)
{
	struct cur c = { 0 };
	json_t *v, *o;

	c.p = ps_session__feature(s, feat, &c.len);
	if (!c.p)
		return NULL;
	c.swap = ps_session__swapped(s);
	if (decodable(feat)) {
		v = decode(s, feat, &c);
		if (v && !c.bad)
			return v;
		json_decref(v);
		if (!c.bad)
			return NULL; /* out of memory */
	}
	o = json_object();
	return built(o, !o || put(o, "id", json_integer(feat)) < 0 ||
	                        put(o, "size", json_integer((json_int_t)c.len)) < 0 ||
	                        (decodable(feat) && put(o, "malformed", json_true()) < 0));
}

json_t *ps_header_json__features(const struct ps_session *s)
{
	json_t *o = json_object();
	unsigned int feat;

	for (feat = 1; o && feat < PS_FEAT_BITS; feat++) {
		const char *name = ps_feature_name(feat);
		char key[32];
		size_t len;

		if (!ps_session__feature(s, feat, &len))
			continue;
		if (len == 0 && feat >= PS_FEAT_LAST_61)
			continue; /* the end marker */
		if (!name) {
			snprintf(key, sizeof(key), "unknown_%u", feat);
			name = key;
		}
		if (put(o, name, ps_header_json__feature(s, feat)) < 0) {
			json_decref(o);
			return NULL;
		}
	}
	return o;
}

/* ---- tracepoint formats ---- */

static json_t *cstr_json(const char *str)
{
	return str ? ps_json_string(str, strlen(str)) : json_string("");
}

static json_t *field_json(const struct tep_format_field *f)
{
	json_t *o = json_object();

	return built(o, !o || put(o, "name", cstr_json(f->name)) < 0 ||
	                        put(o, "type", cstr_json(f->type)) < 0 ||
	                        put(o, "offset", json_integer(f->offset)) < 0 ||
	                        put(o, "size", json_integer(f->size)) < 0 ||
	                        put(o, "signed", json_boolean(f->flags & TEP_FIELD_IS_SIGNED)) < 0);
}

json_t *ps_header_json__tracepoints(const struct ps_session *s)
{
	struct tep_handle *tep = ps_session__tep(s);
	json_t *arr = json_array();
	int i, n = tep ? tep_get_events_count(tep) : 0;

	for (i = 0; arr && i < n; i++) {
		struct tep_event *ev = tep_get_event(tep, i);
		const struct tep_format_field *f;
		json_t *o, *fields;
		bool bad;

		if (!ev)
			continue;
		o = json_object();
		fields = json_array();
		for (f = ev->format.fields; fields && f; f = f->next) {
			if (append(fields, field_json(f)) < 0) {
				json_decref(fields);
				fields = NULL;
			}
		}
		if (!o) {
			json_decref(fields);
			json_decref(arr);
			return NULL;
		}
		/* every put() runs, so that @fields is always consumed */
		bad = put(o, "system", cstr_json(ev->system)) < 0;
		bad |= put(o, "name", cstr_json(ev->name)) < 0;
		bad |= put(o, "id", json_integer(ev->id)) < 0;
		bad |= put(o, "fields", fields) < 0;
		if (add(arr, o, bad) < 0) {
			json_decref(arr);
			return NULL;
		}
	}
	return arr;
}

/* ---- BUILD_ID records ---- */

#define BUILD_ID_PID 8
#define BUILD_ID_DATA 12
#define BUILD_ID_SIZE_BYTE 32
#define BUILD_ID_FILENAME 36
#define BUILD_ID_MAX 20
#define BUILD_ID_MISC_SIZE (1u << 15)

static const char *const cpumode_names[] = {
	"unknown", "kernel", "user", "hypervisor", "guest_kernel", "guest_user",
};

json_t *ps_header_json__build_id(const struct ps_record *rec, bool swap)
{
	unsigned int mode = rec->misc & PERF_RECORD_MISC_CPUMODE_MASK, len = BUILD_ID_MAX, i;
	json_t *o = json_object();
	char hex[2 * BUILD_ID_MAX + 1];
	const char *name;
	int bad = 0;

	if (!o)
		return NULL;
	if (rec->size < BUILD_ID_FILENAME) {
		bad |= put(o, "size", json_integer(rec->size));
		bad |= put(o, "malformed", json_true());
		goto out;
	}
	if (rec->misc & BUILD_ID_MISC_SIZE) {
		len = rec->data[BUILD_ID_SIZE_BYTE];
		if (len > BUILD_ID_MAX)
			len = BUILD_ID_MAX;
	}
	for (i = 0; i < len; i++)
		snprintf(hex + 2 * i, 3, "%02x", rec->data[BUILD_ID_DATA + i]);
	hex[2 * len] = 0;
	name = (const char *)rec->data + BUILD_ID_FILENAME;
	bad |= put(o, "pid", json_integer((int32_t)ps_get32(rec->data + BUILD_ID_PID, swap)));
	bad |= put(o, "cpumode",
	           mode < ARRAY_SIZE(cpumode_names) ? json_string(cpumode_names[mode]) :
	                                              json_integer(mode));
	bad |= put(o, "build_id", json_string(hex));
	bad |= put(o, "filename",
	           ps_json_string(name, strnlen(name, rec->size - BUILD_ID_FILENAME)));
out:
	return built(o, bad);
}
