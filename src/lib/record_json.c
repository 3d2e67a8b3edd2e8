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

/* ---- the body fields of the kernel's side-band records (record.h), both renderings ---- */

/* the fields of @rec's body of @len bytes (trailer excluded) in @n, NULL for none */
static const struct ps_record_field *fields_of(const struct ps_record *rec, size_t len, size_t *n)
{
	const struct ps_record_layout *l = ps_record_layout(rec->type);

	if (!l || !l->json || len + 8 < l->min_size)
		return NULL;
	return ps_record_layout__fields(l, rec->misc, n);
}

/* A field of the sample_id trailer (PS_FIELD_I32, PS_FIELD_U32 or PS_FIELD_U64), its value. */
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
		f[n++] = (struct trailer_field){ "pid", PS_FIELD_I32, id->pid };
		f[n++] = (struct trailer_field){ "tid", PS_FIELD_I32, id->tid };
	}
	if (st & PERF_SAMPLE_TIME)
		f[n++] = (struct trailer_field){ "time", PS_FIELD_U64, id->time };
	if (st & PERF_SAMPLE_ID)
		f[n++] = (struct trailer_field){ "id", PS_FIELD_U64, id->id };
	if (st & PERF_SAMPLE_STREAM_ID)
		f[n++] = (struct trailer_field){ "stream_id", PS_FIELD_U64, id->stream_id };
	if (st & PERF_SAMPLE_CPU)
		f[n++] = (struct trailer_field){ "cpu", PS_FIELD_U32, id->cpu };
	if (st & PERF_SAMPLE_IDENTIFIER)
		f[n++] = (struct trailer_field){ "identifier", PS_FIELD_U64, id->identifier };
	return n;
}

/* the build-id at @p (PS_FIELD_BUILD_ID) as NUL-terminated hex in @hex; returns its length */
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

static json_t *field_json(const struct ps_record_field *f, const struct ps_record *rec,
                          const unsigned char *p, size_t len, bool swap)
{
	char hex[41];

	switch (f->kind) {
	case PS_FIELD_I32:
		return json_integer((int32_t)ps_get32(p + f->off, swap));
	case PS_FIELD_U16:
		return json_integer(ps_get16(p + f->off, swap));
	case PS_FIELD_U32:
		return json_integer(ps_get32(p + f->off, swap));
	case PS_FIELD_U64:
		return ps_json_u64(ps_get64(p + f->off, swap));
	case PS_FIELD_HEX:
		return ps_json_hex(ps_get64(p + f->off, swap));
	case PS_FIELD_STR:
		return body_string(p + f->off, len - f->off);
	case PS_FIELD_MISC:
		return json_boolean(rec->misc & f->off);
	case PS_FIELD_BUILD_ID:
		build_id_hex(p + f->off, hex);
		return json_string(hex);
	}
	return NULL;
}

/* The body fields of the kernel record types, within @len bytes (trailer excluded). */
static int kernel_body(json_t *o, const struct ps_record *rec, const unsigned char *p, size_t len,
                       bool swap)
{
	size_t i, n = 0;
	const struct ps_record_field *f = fields_of(rec, len, &n);

	for (i = 0; i < n; i++)
		if (put(o, f[i].name, field_json(&f[i], rec, p, len, swap)))
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
		        f[i].kind == PS_FIELD_I32 ? json_integer((int32_t)f[i].v) :
		        f[i].kind == PS_FIELD_U32 ? json_integer((json_int_t)f[i].v) :
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
		body -= 8 * (size_t)id.attr->trailer_words;
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
	size_t i, n = 0;
	const struct ps_record_field *fields = fields_of(rec, len, &n);
	char hex[41];

	for (i = 0; i < n; i++) {
		const struct ps_record_field *f = &fields[i];

		ps_json__key(b, f->name);
		switch (f->kind) {
		case PS_FIELD_I32:
			ps_json__i64(b, (int32_t)ps_get32(p + f->off, swap));
			break;
		case PS_FIELD_U16:
		case PS_FIELD_U32:
		case PS_FIELD_U64:
			ps_json__u64(b, ps_get_num(p + f->off, f->width, swap));
			break;
		case PS_FIELD_HEX:
			ps_json__hex(b, ps_get64(p + f->off, swap));
			break;
		case PS_FIELD_STR:
			w_string(b, p + f->off, len - f->off);
			break;
		case PS_FIELD_MISC:
			w_bool(b, rec->misc & f->off);
			break;
		case PS_FIELD_BUILD_ID:
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
		if (f[i].kind == PS_FIELD_I32)
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
		body -= 8 * (size_t)id.attr->trailer_words;
		w_trailer(b, &id);
	}
	w_kernel_body(b, rec, rec->data + 8, body, swap);
	ps_json__close(b, at, '{', '}');
	return b->failed ? -1 : 1;
}
