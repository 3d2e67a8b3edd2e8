// SPDX-License-Identifier: GPL-2.0-only
/*
 * record_json.c - the records other than SAMPLE as JSON objects: the kernel's side-band
 * records decoded field by field (with their sample_id trailer), the others by type name
 * and size.
 */
#include <string.h>

#include "abi.h"
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

static int pid_tid(json_t *o, const unsigned char *p, bool swap)
{
	return put(o, "pid", json_integer((int32_t)ps_get32(p, swap))) ||
	       put(o, "tid", json_integer((int32_t)ps_get32(p + 4, swap)));
}

/* The body fields of the kernel record types, within @len bytes (trailer excluded). */
static int kernel_body(json_t *o, const struct ps_record *rec, const unsigned char *p, size_t len,
                       bool swap)
{
	switch (rec->type) {
	case PERF_RECORD_MMAP:
		if (len < 32)
			return 0;
		return pid_tid(o, p, swap) || put(o, "start", ps_json_hex(ps_get64(p + 8, swap))) ||
		       put(o, "len", ps_json_hex(ps_get64(p + 16, swap))) ||
		       put(o, "pgoff", ps_json_hex(ps_get64(p + 24, swap))) ||
		       put(o, "filename", body_string(p + 32, len - 32));
	case PERF_RECORD_MMAP2:
		if (len < 64)
			return 0;
		if (pid_tid(o, p, swap) || put(o, "start", ps_json_hex(ps_get64(p + 8, swap))) ||
		    put(o, "len", ps_json_hex(ps_get64(p + 16, swap))) ||
		    put(o, "pgoff", ps_json_hex(ps_get64(p + 24, swap))))
			return -1;
		if (rec->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
			unsigned int n = p[32] <= 20 ? p[32] : 20, i;
			char hex[41];

			for (i = 0; i < n; i++)
				snprintf(hex + 2 * i, 3, "%02x", p[36 + i]);
			hex[2 * n] = 0;
			if (put(o, "build_id", json_string(hex)))
				return -1;
		} else if (put(o, "maj", json_integer(ps_get32(p + 32, swap))) ||
		           put(o, "min", json_integer(ps_get32(p + 36, swap))) ||
		           put(o, "ino", ps_json_u64(ps_get64(p + 40, swap))) ||
		           put(o, "ino_generation", ps_json_u64(ps_get64(p + 48, swap)))) {
			return -1;
		}
		return put(o, "prot", json_integer(ps_get32(p + 56, swap))) ||
		       put(o, "flags", json_integer(ps_get32(p + 60, swap))) ||
		       put(o, "filename", body_string(p + 64, len - 64));
	case PERF_RECORD_COMM:
		if (len < 8)
			return 0;
		return pid_tid(o, p, swap) || put(o, "comm", body_string(p + 8, len - 8)) ||
		       put(o, "exec", json_boolean(rec->misc & PERF_RECORD_MISC_COMM_EXEC));
	case PERF_RECORD_EXIT:
	case PERF_RECORD_FORK:
		if (len < 24)
			return 0;
		return put(o, "pid", json_integer((int32_t)ps_get32(p, swap))) ||
		       put(o, "ppid", json_integer((int32_t)ps_get32(p + 4, swap))) ||
		       put(o, "tid", json_integer((int32_t)ps_get32(p + 8, swap))) ||
		       put(o, "ptid", json_integer((int32_t)ps_get32(p + 12, swap))) ||
		       put(o, "time", ps_json_u64(ps_get64(p + 16, swap)));
	case PERF_RECORD_LOST:
		if (len < 16)
			return 0;
		return put(o, "id", ps_json_u64(ps_get64(p, swap))) ||
		       put(o, "lost", ps_json_u64(ps_get64(p + 8, swap)));
	case PERF_RECORD_LOST_SAMPLES:
		if (len < 8)
			return 0;
		return put(o, "lost", ps_json_u64(ps_get64(p, swap)));
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE:
		if (len < 24)
			return 0;
		return put(o, "time", ps_json_u64(ps_get64(p, swap))) ||
		       put(o, "id", ps_json_u64(ps_get64(p + 8, swap))) ||
		       put(o, "stream_id", ps_json_u64(ps_get64(p + 16, swap)));
	case PERF_RECORD_SWITCH:
		return put(o, "out", json_boolean(rec->misc & PERF_RECORD_MISC_SWITCH_OUT));
	case PERF_RECORD_SWITCH_CPU_WIDE:
		if (len < 8)
			return 0;
		return put(o, "out", json_boolean(rec->misc & PERF_RECORD_MISC_SWITCH_OUT)) ||
		       put(o, "next_prev_pid", json_integer((int32_t)ps_get32(p, swap))) ||
		       put(o, "next_prev_tid", json_integer((int32_t)ps_get32(p + 4, swap)));
	case PERF_RECORD_KSYMBOL:
		if (len < 16)
			return 0;
		return put(o, "addr", ps_json_hex(ps_get64(p, swap))) ||
		       put(o, "len", json_integer(ps_get32(p + 8, swap))) ||
		       put(o, "ksym_type", json_integer(ps_get16(p + 12, swap))) ||
		       put(o, "flags", json_integer(ps_get16(p + 14, swap))) ||
		       put(o, "name", body_string(p + 16, len - 16));
	case PERF_RECORD_CGROUP:
		if (len < 8)
			return 0;
		return put(o, "id", ps_json_u64(ps_get64(p, swap))) ||
		       put(o, "path", body_string(p + 8, len - 8));
	default:
		return 0;
	}
}

static int trailer(json_t *o, const struct ps_sample *id)
{
	uint64_t st = id->type;
	json_t *t = json_object();

	if (put(o, "sample_id", t))
		return -1;
	if ((st & PERF_SAMPLE_TID) && (put(t, "pid", json_integer((int32_t)id->pid)) ||
	                               put(t, "tid", json_integer((int32_t)id->tid))))
		return -1;
	if ((st & PERF_SAMPLE_TIME) && put(t, "time", ps_json_u64(id->time)))
		return -1;
	if ((st & PERF_SAMPLE_ID) && put(t, "id", ps_json_u64(id->id)))
		return -1;
	if ((st & PERF_SAMPLE_STREAM_ID) && put(t, "stream_id", ps_json_u64(id->stream_id)))
		return -1;
	if ((st & PERF_SAMPLE_CPU) && put(t, "cpu", json_integer(id->cpu)))
		return -1;
	if ((st & PERF_SAMPLE_IDENTIFIER) && put(t, "identifier", ps_json_u64(id->identifier)))
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
		       (a && put(o, "event", json_string(a->name)));
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

static void w_pid_tid(struct ps_json_buf *b, const unsigned char *p, bool swap)
{
	KEY(b, ",\"pid\":");
	ps_json__i64(b, (int32_t)ps_get32(p, swap));
	KEY(b, ",\"tid\":");
	ps_json__i64(b, (int32_t)ps_get32(p + 4, swap));
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
	switch (rec->type) {
	case PERF_RECORD_MMAP:
		if (len < 32)
			return;
		w_pid_tid(b, p, swap);
		KEY(b, ",\"start\":");
		ps_json__hex(b, ps_get64(p + 8, swap));
		KEY(b, ",\"len\":");
		ps_json__hex(b, ps_get64(p + 16, swap));
		KEY(b, ",\"pgoff\":");
		ps_json__hex(b, ps_get64(p + 24, swap));
		KEY(b, ",\"filename\":");
		w_string(b, p + 32, len - 32);
		return;
	case PERF_RECORD_MMAP2:
		if (len < 64)
			return;
		w_pid_tid(b, p, swap);
		KEY(b, ",\"start\":");
		ps_json__hex(b, ps_get64(p + 8, swap));
		KEY(b, ",\"len\":");
		ps_json__hex(b, ps_get64(p + 16, swap));
		KEY(b, ",\"pgoff\":");
		ps_json__hex(b, ps_get64(p + 24, swap));
		if (rec->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
			static const char hex[] = "0123456789abcdef";
			unsigned int n = p[32] <= 20 ? p[32] : 20, i;
			char id[42];

			for (i = 0; i < n; i++) {
				id[2 * i] = hex[p[36 + i] >> 4];
				id[2 * i + 1] = hex[p[36 + i] & 15];
			}
			KEY(b, ",\"build_id\":");
			ps_json__string(b, id, 2 * n);
		} else {
			KEY(b, ",\"maj\":");
			ps_json__u64(b, ps_get32(p + 32, swap));
			KEY(b, ",\"min\":");
			ps_json__u64(b, ps_get32(p + 36, swap));
			KEY(b, ",\"ino\":");
			ps_json__u64(b, ps_get64(p + 40, swap));
			KEY(b, ",\"ino_generation\":");
			ps_json__u64(b, ps_get64(p + 48, swap));
		}
		KEY(b, ",\"prot\":");
		ps_json__u64(b, ps_get32(p + 56, swap));
		KEY(b, ",\"flags\":");
		ps_json__u64(b, ps_get32(p + 60, swap));
		KEY(b, ",\"filename\":");
		w_string(b, p + 64, len - 64);
		return;
	case PERF_RECORD_COMM:
		if (len < 8)
			return;
		w_pid_tid(b, p, swap);
		KEY(b, ",\"comm\":");
		w_string(b, p + 8, len - 8);
		KEY(b, ",\"exec\":");
		w_bool(b, rec->misc & PERF_RECORD_MISC_COMM_EXEC);
		return;
	case PERF_RECORD_EXIT:
	case PERF_RECORD_FORK:
		if (len < 24)
			return;
		KEY(b, ",\"pid\":");
		ps_json__i64(b, (int32_t)ps_get32(p, swap));
		KEY(b, ",\"ppid\":");
		ps_json__i64(b, (int32_t)ps_get32(p + 4, swap));
		KEY(b, ",\"tid\":");
		ps_json__i64(b, (int32_t)ps_get32(p + 8, swap));
		KEY(b, ",\"ptid\":");
		ps_json__i64(b, (int32_t)ps_get32(p + 12, swap));
		KEY(b, ",\"time\":");
		ps_json__u64(b, ps_get64(p + 16, swap));
		return;
	case PERF_RECORD_LOST:
		if (len < 16)
			return;
		KEY(b, ",\"id\":");
		ps_json__u64(b, ps_get64(p, swap));
		KEY(b, ",\"lost\":");
		ps_json__u64(b, ps_get64(p + 8, swap));
		return;
	case PERF_RECORD_LOST_SAMPLES:
		if (len < 8)
			return;
		KEY(b, ",\"lost\":");
		ps_json__u64(b, ps_get64(p, swap));
		return;
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE:
		if (len < 24)
			return;
		KEY(b, ",\"time\":");
		ps_json__u64(b, ps_get64(p, swap));
		KEY(b, ",\"id\":");
		ps_json__u64(b, ps_get64(p + 8, swap));
		KEY(b, ",\"stream_id\":");
		ps_json__u64(b, ps_get64(p + 16, swap));
		return;
	case PERF_RECORD_SWITCH:
		KEY(b, ",\"out\":");
		w_bool(b, rec->misc & PERF_RECORD_MISC_SWITCH_OUT);
		return;
	case PERF_RECORD_SWITCH_CPU_WIDE:
		if (len < 8)
			return;
		KEY(b, ",\"out\":");
		w_bool(b, rec->misc & PERF_RECORD_MISC_SWITCH_OUT);
		KEY(b, ",\"next_prev_pid\":");
		ps_json__i64(b, (int32_t)ps_get32(p, swap));
		KEY(b, ",\"next_prev_tid\":");
		ps_json__i64(b, (int32_t)ps_get32(p + 4, swap));
		return;
	case PERF_RECORD_KSYMBOL:
		if (len < 16)
			return;
		KEY(b, ",\"addr\":");
		ps_json__hex(b, ps_get64(p, swap));
		KEY(b, ",\"len\":");
		ps_json__u64(b, ps_get32(p + 8, swap));
		KEY(b, ",\"ksym_type\":");
		ps_json__u64(b, ps_get16(p + 12, swap));
		KEY(b, ",\"flags\":");
		ps_json__u64(b, ps_get16(p + 14, swap));
		KEY(b, ",\"name\":");
		w_string(b, p + 16, len - 16);
		return;
	case PERF_RECORD_CGROUP:
		if (len < 8)
			return;
		KEY(b, ",\"id\":");
		ps_json__u64(b, ps_get64(p, swap));
		KEY(b, ",\"path\":");
		w_string(b, p + 8, len - 8);
		return;
	default:
		return;
	}
}

static void w_trailer(struct ps_json_buf *b, const struct ps_sample *id)
{
	uint64_t st = id->type;
	size_t at;

	KEY(b, ",\"sample_id\":");
	at = ps_json__open(b);
	if (st & PERF_SAMPLE_TID) {
		KEY(b, ",\"pid\":");
		ps_json__i64(b, (int32_t)id->pid);
		KEY(b, ",\"tid\":");
		ps_json__i64(b, (int32_t)id->tid);
	}
	if (st & PERF_SAMPLE_TIME) {
		KEY(b, ",\"time\":");
		ps_json__u64(b, id->time);
	}
	if (st & PERF_SAMPLE_ID) {
		KEY(b, ",\"id\":");
		ps_json__u64(b, id->id);
	}
	if (st & PERF_SAMPLE_STREAM_ID) {
		KEY(b, ",\"stream_id\":");
		ps_json__u64(b, id->stream_id);
	}
	if (st & PERF_SAMPLE_CPU) {
		KEY(b, ",\"cpu\":");
		ps_json__u64(b, id->cpu);
	}
	if (st & PERF_SAMPLE_IDENTIFIER) {
		KEY(b, ",\"identifier\":");
		ps_json__u64(b, id->identifier);
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
