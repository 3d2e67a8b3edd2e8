// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_header_json.c - the header records as JSON: the name tables, the `perf evlist -v`
 * line of a recorded attr (the text perf 6.1 printed for the same file), the snprintf
 * contract of that line, feature payloads decoded or marked malformed when their counts
 * and lengths lie, the features object, and BUILD_ID records of every size.
 */
#include <stdlib.h>
#include <string.h>

#include "lib/header_json.h"
#include "lib/input.h"
#include "lib/session.h"
#include "build.h"
#include "unit.h"

static void test_names(void)
{
	CHECK(strcmp(ps_attr_flag_name(0), "disabled") == 0);
	CHECK(strcmp(ps_attr_flag_name(15), "precise_ip") == 0);
	CHECK(strcmp(ps_attr_flag_name(16), "precise_ip") == 0);
	CHECK(strcmp(ps_attr_flag_name(18), "sample_id_all") == 0);
	CHECK(ps_attr_flag_name(63) == NULL);
	CHECK(ps_attr_flag_name(64) == NULL);
	CHECK(strcmp(ps_read_format_name(PERF_FORMAT_LOST), "LOST") == 0);
	CHECK(ps_read_format_name(1ULL << 40) == NULL);
	CHECK(strcmp(ps_attr_type_name(PERF_TYPE_TRACEPOINT), "tracepoint") == 0);
	CHECK(ps_attr_type_name(9) == NULL);
	CHECK(strcmp(ps_branch_sample_type_name(PERF_SAMPLE_BRANCH_USER), "USER") == 0);
}

/* `perf evlist -v -i tests/data/cpuclock-g-sh.data` (perf 6.1), after "cpu-clock: " */
static const char perf_evlist[] =
        "type: 1, size: 128, { sample_period, sample_freq }: 999, sample_type: "
        "IP|TID|TIME|CALLCHAIN|PERIOD, read_format: ID|LOST, disabled: 1, inherit: 1, mmap: 1, "
        "comm: 1, freq: 1, enable_on_exec: 1, task: 1, sample_id_all: 1, exclude_guest: 1, "
        "mmap2: 1, comm_exec: 1, ksymbol: 1, bpf_event: 1";

static void check_recorded(struct ps_session *s)
{
	const struct ps_attr *a = ps_session__attr(s, 0);
	char line[1024], small[10];
	json_t *o, *f;

	CHECK(a != NULL);
	if (!a)
		return;
	CHECK_EQ_U64(ps_header_json__evlist(a, line, sizeof(line)), strlen(perf_evlist));
	CHECK(strcmp(line, perf_evlist) == 0);
	/* cut like snprintf: the whole length, a NUL-terminated start */
	memset(small, 'x', sizeof(small));
	CHECK_EQ_U64(ps_header_json__evlist(a, small, sizeof(small)), strlen(perf_evlist));
	CHECK(small[9] == 0 && strncmp(small, perf_evlist, 9) == 0);
	CHECK_EQ_U64(ps_header_json__evlist(a, NULL, 0), strlen(perf_evlist));
	o = ps_header_json__attr(a);
	CHECK(o && strcmp(json_string_value(json_object_get(o, "name")), "cpu-clock") == 0);
	CHECK(o && json_array_size(json_object_get(o, "ids")) == 2);
	CHECK(o && json_integer_value(json_array_get(json_object_get(o, "ids"), 0)) == 4590);
	json_decref(o);
	/* `perf report --header-only` of the same file: hostname vm, nrcpus 2 and 2 */
	f = ps_header_json__features(s);
	CHECK(f && strcmp(json_string_value(json_object_get(f, "hostname")), "vm") == 0);
	CHECK(f &&
	      json_integer_value(json_object_get(json_object_get(f, "nrcpus"), "online")) == 2);
	CHECK(f && json_integer_value(json_object_get(json_object_get(f, "nrcpus"), "avail")) == 2);
	CHECK(f && strcmp(json_string_value(json_object_get(f, "arch")), "x86_64") == 0);
	CHECK(f && json_integer_value(json_object_get(f, "total_mem")) == 24683664);
	json_decref(f);
}

static void test_recorded(void)
{
	struct ps_error err = { 0 };
	struct ps_record rec;
	struct ps_input *in;
	int r;

	in = ps_input__open("tests/data/cpuclock-g-sh.data", 0, &err);
	CHECK(in != NULL);
	if (!in)
		return;
	while ((r = ps_input__next(in, &rec, &err)) == 1 && rec.type != PERF_RECORD_SAMPLE)
		;
	CHECK(r == 1);
	check_recorded(ps_input__session(in));
	ps_input__close(in);
}

/* a FEATURE record of @feat whose payload is @n bytes of @payload */
static void feature(struct buf *b, uint64_t feat, const void *payload, size_t n)
{
	size_t at = rec_begin(b, PS_RECORD_HEADER_FEATURE, 0);

	put64(b, feat);
	put_bytes(b, payload, n);
	pad8(b);
	rec_end(b, at);
}

/* a session of @swap order that has seen the FEATURE records @build appends */
static struct ps_session *feature_session(bool swap, void (*build)(struct buf *))
{
	struct buf b = { .swap = swap };
	struct ps_session *s;

	build(&b);
	s = session_fed(&b);
	buf_free(&b);
	return s;
}

static void good_features(struct buf *b)
{
	struct buf p = { .swap = b->swap };

	put32(&p, 5); /* hostname: u32 length, text padded */
	put_bytes(&p, "host\0\0\0", 8);
	feature(b, PS_FEAT_HOSTNAME, p.p, p.len);
	p.len = 0;
	put32(&p, 8); /* nrcpus: avail, online */
	put32(&p, 4);
	feature(b, PS_FEAT_NRCPUS, p.p, p.len);
	p.len = 0;
	put32(&p, 2); /* cmdline: count, then strings */
	put32(&p, 4);
	put_bytes(&p, "perf", 4);
	put32(&p, 4);
	put_bytes(&p, "rec\0", 4);
	feature(b, PS_FEAT_CMDLINE, p.p, p.len);
	feature(b, 60, "\1\2\3\4\5\6\7\10", 8); /* an id without a name */
	buf_free(&p);
}

static void lying_features(struct buf *b)
{
	struct buf p = { .swap = b->swap };
	size_t at;

	put32(&p, 4096); /* a hostname longer than its payload */
	put_bytes(&p, "host", 4);
	feature(b, PS_FEAT_HOSTNAME, p.p, p.len);
	p.len = 0;
	put32(&p, 0x7fffffff); /* a cmdline of two billion strings */
	put32(&p, 4);
	put_bytes(&p, "perf", 4);
	feature(b, PS_FEAT_CMDLINE, p.p, p.len);
	buf_free(&p);
	at = rec_begin(b, PS_RECORD_HEADER_FEATURE, 0); /* nrcpus cut after its first field */
	put64(b, PS_FEAT_NRCPUS);
	put32(b, 8);
	rec_end(b, at);
}

static void test_features(bool swap)
{
	struct ps_session *s = feature_session(swap, good_features);
	json_t *v, *all;

	v = ps_header_json__feature(s, PS_FEAT_HOSTNAME);
	CHECK(v && json_is_string(v) && strcmp(json_string_value(v), "host") == 0);
	json_decref(v);
	v = ps_header_json__feature(s, PS_FEAT_NRCPUS);
	CHECK(v && json_integer_value(json_object_get(v, "avail")) == 8);
	CHECK(v && json_integer_value(json_object_get(v, "online")) == 4);
	json_decref(v);
	v = ps_header_json__feature(s, PS_FEAT_CMDLINE);
	CHECK(v && json_array_size(v) == 2);
	CHECK(v && strcmp(json_string_value(json_array_get(v, 1)), "rec") == 0);
	json_decref(v);
	CHECK(ps_header_json__feature(s, PS_FEAT_ARCH) == NULL); /* absent */
	all = ps_header_json__features(s);
	CHECK(all && json_object_size(all) == 4);
	CHECK(all &&
	      json_integer_value(json_object_get(json_object_get(all, "unknown_60"), "size")) == 8);
	json_decref(all);
	ps_session__delete(s);

	s = feature_session(swap, lying_features);
	all = ps_header_json__features(s);
	CHECK(all && json_object_size(all) == 3);
	CHECK(all && json_is_true(json_object_get(json_object_get(all, "hostname"), "malformed")));
	CHECK(all && json_is_true(json_object_get(json_object_get(all, "cmdline"), "malformed")));
	CHECK(all && json_is_true(json_object_get(json_object_get(all, "nrcpus"), "malformed")));
	CHECK(all &&
	      json_integer_value(json_object_get(json_object_get(all, "nrcpus"), "size")) == 4);
	json_decref(all);
	ps_session__delete(s);
}

/* a BUILD_ID record: pid, the id (20 bytes, or misc bit 15 and a size), a file name */
static struct ps_record build_id(struct buf *b, uint16_t misc, unsigned int id_size)
{
	size_t at;
	unsigned int i;

	b->len = 0;
	at = rec_begin(b, PS_RECORD_HEADER_BUILD_ID, misc);
	put32(b, (uint32_t)-1);
	for (i = 0; i < 20; i++)
		put_bytes(b, (const unsigned char[]){ (unsigned char)(0xa0 + i) }, 1);
	put_bytes(b, (const unsigned char[]){ (unsigned char)id_size, 0, 0, 0 }, 4);
	put_bytes(b, "/usr/lib/libc.so.6\0\0\0\0\0\0", 24);
	rec_end(b, at);
	return rec_at(b, at);
}

static void test_build_id(bool swap)
{
	struct buf b = { .swap = swap };
	struct ps_record rec;
	json_t *o;

	rec = build_id(&b, PERF_RECORD_MISC_KERNEL, 20);
	o = ps_header_json__build_id(&rec, swap);
	CHECK(o && json_integer_value(json_object_get(o, "pid")) == -1);
	CHECK(o && strcmp(json_string_value(json_object_get(o, "cpumode")), "kernel") == 0);
	CHECK(o && strcmp(json_string_value(json_object_get(o, "build_id")),
	                  "a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3") == 0);
	CHECK(o &&
	      strcmp(json_string_value(json_object_get(o, "filename")), "/usr/lib/libc.so.6") == 0);
	json_decref(o);
	/* misc bit 15: the size byte says how much of the 20 bytes is the id */
	rec = build_id(&b, PERF_RECORD_MISC_USER | (1u << 15), 8);
	o = ps_header_json__build_id(&rec, swap);
	CHECK(o &&
	      strcmp(json_string_value(json_object_get(o, "build_id")), "a0a1a2a3a4a5a6a7") == 0);
	json_decref(o);
	rec = build_id(&b, 1u << 15, 200); /* a size beyond the 20 bytes there are */
	o = ps_header_json__build_id(&rec, swap);
	CHECK(o && strlen(json_string_value(json_object_get(o, "build_id"))) == 40);
	json_decref(o);
	/* too short for the file name's place */
	rec = build_id(&b, 0, 20);
	rec.size = 35;
	o = ps_header_json__build_id(&rec, swap);
	CHECK(o && json_is_true(json_object_get(o, "malformed")));
	CHECK(o && json_object_get(o, "build_id") == NULL);
	json_decref(o);
	/* a file name that fills the record without a NUL stops at the record's end */
	rec = build_id(&b, 0, 20);
	rec.size = 40;
	o = ps_header_json__build_id(&rec, swap);
	CHECK(o && strcmp(json_string_value(json_object_get(o, "filename")), "/usr") == 0);
	json_decref(o);
	buf_free(&b);
}

int main(void)
{
	test_names();
	test_recorded();
	test_features(false);
	test_features(true);
	test_build_id(false);
	test_build_id(true);
	return UNIT_DONE("test_header_json");
}
