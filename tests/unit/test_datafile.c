// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_datafile.c - a stream written as a perf.data file, in both byte orders, and read
 * back through the library's reader: the data records byte for byte in their order, the
 * file header's sections (attrs at perf 6.1's size, ids, features), SAMPLE_TIME from the
 * samples' times, the event's name; outputs that cannot be seeked are refused, and an ATTR
 * record that lies about its attr's size leaves no attr behind.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/datafile.h"
#include "readback.h"
#include "unit.h"

/*
 * A stream of one event (id 42, "clk"), a host name, a thread and three samples; returns
 * where its data records (those after the header records) begin.
 */
static size_t stream(struct buf *b)
{
	size_t at, data;

	small_header(b, 42, "clk");
	at = rec_begin(b, PS_RECORD_HEADER_FEATURE, 0);
	put64(b, PS_FEAT_HOSTNAME);
	put32(b, 4);
	put_bytes(b, "box\0", 4);
	rec_end(b, at);
	data = small_comm(b, 10, 10, "sh", 100, 42);
	small_sample(b, 10, 10, 300, 42);
	small_sample(b, 10, 10, 200, 42);
	small_round(b);
	small_sample(b, 10, 10, 400, 42);
	return data;
}

/* @in copied into a perf.data file at @out; 0, or -1 with @err set */
static int convert(const char *in_path, const char *out, struct ps_error *err)
{
	struct ps_input *in = ps_input__open(in_path, 0, err);
	struct ps_datafile *df;
	struct ps_record rec;
	int r;

	if (!in)
		return -1;
	df = ps_datafile__open(out, ps_input__swapped(in), err);
	if (!df) {
		ps_input__close(in);
		return -1;
	}
	while ((r = ps_input__next(in, &rec, err)) == 1)
		if (ps_datafile__put(df, ps_input__session(in), &rec, err) < 0)
			break;
	if (r == 0)
		r = ps_datafile__close(df, err);
	else
		ps_datafile__close(df, NULL);
	ps_input__close(in);
	return r < 0 ? -1 : 0;
}

/* the records of @k that are data (not the header records a perf.data file is shown with) */
static size_t data_records(const struct back *k, const struct back_rec **out, size_t max)
{
	size_t i, n = 0;

	for (i = 0; i < k->n && n < max; i++)
		if (ps_record_type_class(k->r[i].type) != PS_CLASS_HEADER)
			out[n++] = &k->r[i];
	return n;
}

static void check_header(const char *path, bool swap)
{
	unsigned char h[PS_FILE_HEADER_SIZE];
	FILE *f = fopen(path, "r");

	CHECK(f && fread(h, 1, sizeof(h), f) == sizeof(h));
	if (f)
		fclose(f);
	CHECK(ps_get64(h, swap) == PS_MAGIC);
	CHECK_EQ_U64(ps_get64(h + 8, swap), PS_FILE_HEADER_SIZE);
	CHECK_EQ_U64(ps_get64(h + 16, swap), 128 + 16); /* perf 6.1's attr and its ids section */
	CHECK_EQ_U64(ps_get64(h + 32, swap), 128 + 16); /* one attr */
	CHECK_EQ_U64(ps_get64(h + 40, swap), PS_FILE_HEADER_SIZE); /* data right after */
	/* EVENT_UPDATE (no section holds it), COMM, samples, round */
	CHECK_EQ_U64(ps_get64(h + 48, swap), 32 + 48 + 3 * 48 + 8);
	CHECK_EQ_U64(ps_get64(h + 72, swap),
	             1ULL << PS_FEAT_HOSTNAME | 1ULL << PS_FEAT_SAMPLE_TIME); /* features */
}

static void test_roundtrip(bool swap)
{
	char *dir = scratch_dir();
	const char *in = path_in(dir, "in.pipe", 0), *out = path_in(dir, "out.data", 1);
	struct buf b = { .swap = swap };
	struct ps_error err = { 0 };
	const struct back_rec *d[16];
	struct back k;
	size_t n, at, i;

	at = stream(&b);
	write_file(in, &b);
	CHECK(convert(in, out, &err) == 0);
	check_header(out, swap);
	read_back(out, 0, &k);
	CHECK(k.last == 0 && k.swapped == swap && k.nr_attrs == 1);
	n = data_records(&k, d, ARRAY_SIZE(d));
	CHECK_EQ_U64(n, 5);
	/* the data records, byte for byte: the input's after its header records */
	for (i = 0; i < n; i++) {
		struct ps_record r = rec_at(&b, at);

		CHECK(d[i]->len == r.size && memcmp(d[i]->bytes, r.data, r.size) == 0);
		at += r.size;
	}
	CHECK(n == 5 && d[1]->has_sample && d[1]->sample.time == 300);
	CHECK(n == 5 && strcmp(d[1]->event_buf, "clk") == 0);
	back_free(&k);
	buf_free(&b);
	scratch_remove(dir);
}

/* SAMPLE_TIME and the host name, as the reader of the file sees them */
static void test_features(void)
{
	char *dir = scratch_dir();
	const char *in = path_in(dir, "in.pipe", 0), *out = path_in(dir, "out.data", 1);
	struct buf b = { 0 };
	struct ps_error err = { 0 };
	struct ps_input *input;
	struct ps_record rec;
	const unsigned char *p;
	size_t len = 0;

	stream(&b);
	write_file(in, &b);
	CHECK(convert(in, out, &err) == 0);
	input = ps_input__open(out, 0, &err);
	CHECK(input != NULL);
	while (input && ps_input__next(input, &rec, &err) == 1)
		;
	p = input ? ps_session__feature(ps_input__session(input), PS_FEAT_SAMPLE_TIME, &len) : NULL;
	CHECK(p && len == 16);
	CHECK(p && ps_get64(p, false) == 200 && ps_get64(p + 8, false) == 400);
	p = input ? ps_session__feature(ps_input__session(input), PS_FEAT_HOSTNAME, &len) : NULL;
	CHECK(p && len == 8 && strcmp((const char *)p + 4, "box") == 0);
	ps_input__close(input);
	buf_free(&b);
	scratch_remove(dir);
}

static void test_refused(void)
{
	struct ps_error err = { 0 };
	int p[2];

	CHECK(ps_datafile__open("-", false, &err) == NULL);
	CHECK_EQ_U64(err.code, PS_EUSAGE);
	memset(&err, 0, sizeof(err));
	CHECK(pipe(p) == 0);
	CHECK(ps_datafile__open_fd(p[1], "pipe", false, &err) == NULL);
	CHECK_EQ_U64(err.code, PS_EUSAGE);
	CHECK(fcntl(p[1], F_GETFD) < 0); /* taken over: closed */
	close(p[0]);
	memset(&err, 0, sizeof(err));
	CHECK(ps_datafile__open("/nonexistent-dir/x.data", false, &err) == NULL);
	CHECK_EQ_U64(err.code, PS_ESYS);
	CHECK(ps_datafile__close(NULL, &err) == 0);
}

/* an ATTR record whose attr says it is larger than the record: no attr, no overrun */
static void test_lying_attr(void)
{
	char *dir = scratch_dir();
	const char *out = path_in(dir, "out.data", 0);
	struct buf b = { 0 };
	struct ps_error err = { 0 };
	struct ps_datafile *df = ps_datafile__open(out, false, &err);
	const struct attr_spec a = { .type = PERF_TYPE_SOFTWARE };
	struct ps_record rec;
	struct back k;

	CHECK(df != NULL);
	attr_rec(&b, &a, NULL, 0);
	ps_put32(b.p + 8 + PS_ATTR_SIZE, 4096, false);
	rec = rec_at(&b, 0);
	CHECK(df && ps_datafile__put(df, NULL, &rec, &err) == 0);
	CHECK(df && ps_datafile__close(df, &err) == 0);
	read_back(out, 0, &k);
	CHECK(k.last == 0 && k.nr_attrs == 0);
	back_free(&k);
	buf_free(&b);
	scratch_remove(dir);
}

int main(void)
{
	test_roundtrip(false);
	test_roundtrip(true);
	test_features();
	test_refused();
	test_lying_attr();
	return UNIT_DONE("test_datafile");
}
