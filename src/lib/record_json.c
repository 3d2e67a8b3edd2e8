// SPDX-License-Identifier: GPL-2.0-only
/*
 * record_json.c - the records other than SAMPLE as JSON objects: the kernel's side-band
 * records decoded field by field (with their sample_id trailer), the others by type name
 * and size.
 */
#include <string.h>

#include "abi.h"
#include "compat.h"
#include "header_json.h"
#include "record_json.h"
#include "sample.h"
#include "session.h"

static int put(json_t *o, const char *key, json_t *v)
{
	return v ? json_object_set_new(o, key, v) : -1;
}

/* a NUL-terminated string inside the record body, bounded by the record */
static json_t *body_string(const unsigned char *p, size_t len)
{
	const unsigned char *nul = memchr(p, 0, len);

	return ps_json_string((const char *)p, nul ? (size_t)(nul - p) : len);
}

/* ---- the body layouts of the kernel's side-band records, for both renderings ---- */

enum field_kind {
	FK_I32,      /* a signed 32-bit number: pids and tids */
	FK_U16,      /* an unsigned number of 16 bits */
	FK_U32,      /* ... of 32 bits */
	FK_U64,      /* ... of 64 bits */
	FK_HEX,      /* a u64 as a "0x..." string: addresses and lengths */
	FK_STR,      /* NUL-terminated text up to the end of the body */
	FK_MISC,     /* a bool: a bit of the record header's misc, not of the body */
	FK_BUILD_ID, /* u8 size, 3 bytes padding, 20 bytes: the first size bytes in hex */
};

/* One field of a body: its key, byte offset in the body (FK_MISC: the misc bit), kind. */
struct body_field {
	const char *key;
	unsigned short off, kind;
};

static const struct body_field mmap_fields[] = {
	{ "pid", 0, FK_I32 },  { "tid", 4, FK_I32 },    { "start", 8, FK_HEX },
	{ "len", 16, FK_HEX }, { "pgoff", 24, FK_HEX }, { "filename", 32, FK_STR },
};
static const struct body_field mmap2_fields[] = {
	{ "pid", 0, FK_I32 },   { "tid", 4, FK_I32 },    { "start", 8, FK_HEX },
	{ "len", 16, FK_HEX },  { "pgoff", 24, FK_HEX }, { "maj", 32, FK_U32 },
	{ "min", 36, FK_U32 },  { "ino", 40, FK_U64 },   { "ino_generation", 48, FK_U64 },
	{ "prot", 56, FK_U32 }, { "flags", 60, FK_U32 }, { "filename", 64, FK_STR },
};
static const struct body_field mmap2_build_id_fields[] = {
	{ "pid", 0, FK_I32 },   { "tid", 4, FK_I32 },    { "start", 8, FK_HEX },
	{ "len", 16, FK_HEX },  { "pgoff", 24, FK_HEX }, { "build_id", 32, FK_BUILD_ID },
	{ "prot", 56, FK_U32 }, { "flags", 60, FK_U32 }, { "filename", 64, FK_STR },
};
static const struct body_field comm_fields[] = {
	{ "pid", 0, FK_I32 },
	{ "tid", 4, FK_I32 },
	{ "comm", 8, FK_STR },
	{ "exec", PERF_RECORD_MISC_COMM_EXEC, FK_MISC },
};
static const struct body_field fork_fields[] = {
	{ "pid", 0, FK_I32 },   { "ppid", 4, FK_I32 },  { "tid", 8, FK_I32 },
	{ "ptid", 12, FK_I32 }, { "time", 16, FK_U64 },
};
static const struct body_field lost_fields[] = { { "id", 0, FK_U64 }, { "lost", 8, FK_U64 } };
static const struct body_field lost_samples_fields[] = { { "lost", 0, FK_U64 } };
static const struct body_field throttle_fields[] = {
	{ "time", 0, FK_U64 },
	{ "id", 8, FK_U64 },
	{ "stream_id", 16, FK_U64 },
};
static const struct body_field switch_fields[] = {
	{ "out", PERF_RECORD_MISC_SWITCH_OUT, FK_MISC },
};
static const struct body_field switch_cpu_wide_fields[] = {
	{ "out", PERF_RECORD_MISC_SWITCH_OUT, FK_MISC },
	{ "next_prev_pid", 0, FK_I32 },
	{ "next_prev_tid", 4, FK_I32 },
};
static const struct body_field ksymbol_fields[] = {
	{ "addr", 0, FK_HEX },   { "len", 8, FK_U32 },   { "ksym_type", 12, FK_U16 },
	{ "flags", 14, FK_U16 }, { "name", 16, FK_STR },
};
static const struct body_field cgroup_fields[] = { { "id", 0, FK_U64 }, { "path", 8, FK_STR } };

/* a record type's fields; a body shorter than @min_len shows none */
struct body_layout {
	uint32_t type;
	unsigned short min_len;
	const struct body_field *fields;
	size_t n;
};

static const struct body_layout layouts[] = {
	{ PERF_RECORD_MMAP, 32, mmap_fields, ARRAY_SIZE(mmap_fields) },
	{ PERF_RECORD_MMAP2, 64, mmap2_fields, ARRAY_SIZE(mmap2_fields) },
	{ PERF_RECORD_COMM, 8, comm_fields, ARRAY_SIZE(comm_fields) },
	{ PERF_RECORD_EXIT, 24, fork_fields, ARRAY_SIZE(fork_fields) },
	{ PERF_RECORD_FORK, 24, fork_fields, ARRAY_SIZE(fork_fields) },
	{ PERF_RECORD_LOST, 16, lost_fields, ARRAY_SIZE(lost_fields) },
	{ PERF_RECORD_LOST_SAMPLES, 8, lost_samples_fields, ARRAY_SIZE(lost_samples_fields) },
	{ PERF_RECORD_THROTTLE, 24, throttle_fields, ARRAY_SIZE(throttle_fields) },
	{ PERF_RECORD_UNTHROTTLE, 24, throttle_fields, ARRAY_SIZE(throttle_fields) },
	{ PERF_RECORD_SWITCH, 0, switch_fields, ARRAY_SIZE(switch_fields) },
	{ PERF_RECORD_SWITCH_CPU_WIDE, 8, switch_cpu_wide_fields,
	  ARRAY_SIZE(switch_cpu_wide_fields) },
	{ PERF_RECORD_KSYMBOL, 16, ksymbol_fields, ARRAY_SIZE(ksymbol_fields) },
	{ PERF_RECORD_CGROUP, 8, cgroup_fields, ARRAY_SIZE(cgroup_fields) },
};

/* the fields of @rec's body of @len bytes (trailer excluded), NULL for none */
static const struct body_layout *layout_of(const struct ps_record *rec, size_t len)
{
	static const struct body_layout mmap2_build_id = { PERF_RECORD_MMAP2, 64,
		                                           mmap2_build_id_fields,
		                                           ARRAY_SIZE(mmap2_build_id_fields) };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(layouts); i++) {
		const struct body_layout *l = &layouts[i];

		if (l->type != rec->type)
			continue;
		if (len < l->min_len)
			return NULL;
		if (l->type == PERF_RECORD_MMAP2 && (rec->misc & PERF_RECORD_MISC_MMAP_BUILD_ID))
			return &mmap2_build_id;
		return l;
	}
	return NULL;
}

/* A field of the sample_id trailer (FK_I32, FK_U32 or FK_U64) and its value. */
struct trailer_field {
	const char *key;
	unsigned short kind;
	uint64_t v;
};

/* the fields of the trailer @id in @f, in the order perf writes them; returns how many */
static size_t trailer_fields(const struct ps_sample *id, struct trailer_field f[7])
{
	uint64_t st = id->type;
	size_t n = 0;

	if (st & PERF_SAMPLE_TID) {
		f[n++] = (struct trailer_field){ "pid", FK_I32, id->pid };
		f[n++] = (struct trailer_field){ "tid", FK_I32, id->tid };
	}
	if (st & PERF_SAMPLE_TIME)
		f[n++] = (struct trailer_field){ "time", FK_U64, id->time };
	if (st & PERF_SAMPLE_ID)
		f[n++] = (struct trailer_field){ "id", FK_U64, id->id };
	if (st & PERF_SAMPLE_STREAM_ID)
		f[n++] = (struct trailer_field){ "stream_id", FK_U64, id->stream_id };
	if (st & PERF_SAMPLE_CPU)
		f[n++] = (struct trailer_field){ "cpu", FK_U32, id->cpu };
	if (st & PERF_SAMPLE_IDENTIFIER)
		f[n++] = (struct trailer_field){ "identifier", FK_U64, id->identifier };
	return n;
}

/* the build-id at @p (FK_BUILD_ID) as NUL-terminated hex in @hex; returns its length */
static size_t build_id_hex(const unsigned char *p, char hex[41])
{
	static const char digits[] = "0123456789abcdef";
	unsigned int n = p[0] <= 20 ? p[0] : 20, i;

	for (i = 0; i < n; i++) {
		hex[2 * i] = digits[p[4 + i] >> 4];
		hex[2 * i + 1] = digits[p[4 + i] & 15];
	}
	hex[2 * n] = 0;
	return 2 * n;
}

/* ---- jansson objects ---- */

static json_t *field_json(const struct body_field *f, const struct ps_record *rec,
                          const unsigned char *p, size_t len, bool swap)
{
	char hex[41];

	switch (f->kind) {
	case FK_I32:
		return json_integer((int32_t)ps_get32(p + f->off, swap));
	case FK_U16:
		return json_integer(ps_get16(p + f->off, swap));
	case FK_U32:
		return json_integer(ps_get32(p + f->off, swap));
	case FK_U64:
		return ps_json_u64(ps_get64(p + f->off, swap));
	case FK_HEX:
		return ps_json_hex(ps_get64(p + f->off, swap));
	case FK_STR:
		return body_string(p + f->off, len - f->off);
	case FK_MISC:
		return json_boolean(rec->misc & f->off);
	case FK_BUILD_ID:
		build_id_hex(p + f->off, hex);
		return json_string(hex);
	}
	return NULL;
}

/* The body fields of the kernel record types, within @len bytes (trailer excluded). */
static int kernel_body(json_t *o, const struct ps_record *rec, const unsigned char *p, size_t len,
                       bool swap)
{
	const struct body_layout *l = layout_of(rec, len);
	size_t i;

	for (i = 0; l && i < l->n; i++)
		if (put(o, l->fields[i].key, field_json(&l->fields[i], rec, p, len, swap)))
			return -1;
	return 0;
}

static int trailer(json_t *o, const struct ps_sample *id)
{
	struct trailer_field f[7];
	size_t i, n = trailer_fields(id, f);
	json_t *t = json_object();

	if (put(o, "sample_id", t))
		return -1;
	for (i = 0; i < n; i++)
		if (put(t, f[i].key,
		        f[i].kind == FK_I32 ? json_integer((int32_t)f[i].v) :
		        f[i].kind == FK_U32 ? json_integer((json_int_t)f[i].v) :
		                              ps_json_u64(f[i].v)))
			return -1;
	return 0;
}

/* the attr an ATTR record declared: the session's attr with the same bytes */
static const struct ps_attr *attr_of_record(const struct ps_session *s, const struct ps_record *rec)
{
	const struct ps_attr *a;
	size_t i;

	ps_session__for_each_attr(s, a, i) {
		if (8u + a->raw_size <= rec->size &&
		    memcmp(rec->data + 8, a->raw, a->raw_size) == 0)
			return a;
	}
	return NULL;
}

/* perf's own records that describe the stream, decoded as pheader shows them */
static int header_body(json_t *o, const struct ps_session *s, const struct ps_record *rec)
{
	bool swap = ps_session__swapped(s);
	const struct ps_attr *a;
	json_t *v;

	switch (rec->type) {
	case PS_RECORD_HEADER_ATTR:
		a = attr_of_record(s, rec);
		return a ? put(o, "attr", ps_header_json__attr(a)) : 0;
	case PS_RECORD_HEADER_FEATURE: {
		uint64_t feat;
		const char *fname;

		if (rec->size < 16)
			return 0;
		feat = ps_get64(rec->data + 8, swap);
		fname = ps_feature_name(feat);
		if (put(o, "feature", fname ? json_string(fname) : ps_json_u64(feat)))
			return -1;
		if (feat >= PS_FEAT_BITS || rec->size == 16)
			return 0;
		v = ps_header_json__feature(s, (unsigned int)feat);
		return v ? put(o, "value", v) : 0;
	}
	case PS_RECORD_HEADER_TRACING_DATA:
		return put(o, "formats", ps_header_json__tracepoints(s));
	case PS_RECORD_HEADER_BUILD_ID: {
		int r;

		v = ps_header_json__build_id(rec, swap);
		if (!v)
			return -1;
		r = json_object_update(o, v);
		json_decref(v);
		return r;
	}
	case PS_RECORD_EVENT_UPDATE:
		if (rec->size < 24)
			return 0;
		a = ps_session__attr_by_id(s, ps_get64(rec->data + 16, swap));
		return put(o, "update_type", ps_json_u64(ps_get64(rec->data + 8, swap))) ||
		       put(o, "id", ps_json_u64(ps_get64(rec->data + 16, swap))) ||
		       (a && put(o, "event", ps_json_string(a->name, strlen(a->name))));
	default:
		return 0;
	}
}

json_t *ps_record_json(const struct ps_session *s, const struct ps_record *rec)
{
	const char *name = ps_record_type_name(rec->type);
	bool swap = ps_session__swapped(s);
	struct ps_sample id;
	json_t *o = json_object();
	size_t body = rec->size - 8u;
	int r;

	if (!o)
		return NULL;
	if (put(o, "type", name ? json_string(name) : json_integer(rec->type)) ||
	    put(o, "size", json_integer(rec->size)) ||
	    (rec->misc && put(o, "misc", json_integer(rec->misc))))
		goto fail;
	if (rec->type >= PS_RECORD_USER_START || !name) {
		if (header_body(o, s, rec))
			goto fail;
		return o;
	}
	r = ps_sample__parse_id(s, rec, &id);
	if (r > 0) {
		size_t n = 8 * (size_t)__builtin_popcountll(id.type);

		body -= n;
		if (trailer(o, &id))
			goto fail;
	}
	if (kernel_body(o, rec, rec->data + 8, body, swap))
		goto fail;
	return o;
fail:
	json_decref(o);
	return NULL;
}

/* ---- the same objects written straight into a buffer (ptojson --all) ---- */

#define KEY(b, lit) ps_json__raw(b, lit, sizeof(lit) - 1)

static void w_string(struct ps_json_buf *b, const unsigned char *p, size_t len)
{
	const unsigned char *nul = memchr(p, 0, len);

	ps_json__string(b, (const char *)p, nul ? (size_t)(nul - p) : len);
}

static void w_bool(struct ps_json_buf *b, bool v)
{
	if (v)
		ps_json__raw(b, "true", 4);
	else
		ps_json__raw(b, "false", 5);
}

static void w_kernel_body(struct ps_json_buf *b, const struct ps_record *rec,
                          const unsigned char *p, size_t len, bool swap)
{
	const struct body_layout *l = layout_of(rec, len);
	char hex[41];
	size_t i;

	for (i = 0; l && i < l->n; i++) {
		const struct body_field *f = &l->fields[i];

		ps_json__key(b, f->key);
		switch (f->kind) {
		case FK_I32:
			ps_json__i64(b, (int32_t)ps_get32(p + f->off, swap));
			break;
		case FK_U16:
			ps_json__u64(b, ps_get16(p + f->off, swap));
			break;
		case FK_U32:
			ps_json__u64(b, ps_get32(p + f->off, swap));
			break;
		case FK_U64:
			ps_json__u64(b, ps_get64(p + f->off, swap));
			break;
		case FK_HEX:
			ps_json__hex(b, ps_get64(p + f->off, swap));
			break;
		case FK_STR:
			w_string(b, p + f->off, len - f->off);
			break;
		case FK_MISC:
			w_bool(b, rec->misc & f->off);
			break;
		case FK_BUILD_ID:
			ps_json__string(b, hex, build_id_hex(p + f->off, hex));
			break;
		}
	}
}

static void w_trailer(struct ps_json_buf *b, const struct ps_sample *id)
{
	struct trailer_field f[7];
	size_t i, n = trailer_fields(id, f), at;

	KEY(b, ",\"sample_id\":");
	at = ps_json__open(b);
	for (i = 0; i < n; i++) {
		ps_json__key(b, f[i].key);
		if (f[i].kind == FK_I32)
			ps_json__i64(b, (int32_t)f[i].v);
		else
			ps_json__u64(b, f[i].v);
	}
	ps_json__close(b, at, '{', '}');
}

int ps_record_json__write(const struct ps_session *s, struct ps_json_buf *b,
                          const struct ps_record *rec)
{
	const char *name = ps_record_type_name(rec->type);
	bool swap = ps_session__swapped(s);
	size_t body = rec->size - 8u, at;
	struct ps_sample id;

	if (rec->type >= PS_RECORD_USER_START || !name)
		return 0;
	at = ps_json__open(b);
	KEY(b, ",\"type\":");
	ps_json__string(b, name, strlen(name));
	KEY(b, ",\"size\":");
	ps_json__u64(b, rec->size);
	if (rec->misc) {
		KEY(b, ",\"misc\":");
		ps_json__u64(b, rec->misc);
	}
	if (ps_sample__parse_id(s, rec, &id) > 0) {
		body -= 8 * (size_t)__builtin_popcountll(id.type);
		w_trailer(b, &id);
	}
	w_kernel_body(b, rec, rec->data + 8, body, swap);
	ps_json__close(b, at, '{', '}');
	return b->failed ? -1 : 1;
}
