// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_merge.c - several streams as one, read back through the library's reader: pieces
 * of one recording share one header and come out in time order; different recordings keep
 * their events apart (new ids, PERF_SAMPLE_IDENTIFIER, the input named) and their thread
 * names (a thread id named differently in each); an input of the other byte order is
 * turned; a damaged input ends the merge with its name and offset after what came before.
 */
#include <stdlib.h>
#include <string.h>

#include "lib/merge.h"
#include "readback.h"
#include "unit.h"

/* a recording of event 42: thread 10 named @comm, samples at @times (0 ends) */
static void recording(struct buf *b, const char *comm, const uint64_t *times)
{
	small_header(b, 42, "clk");
	small_comm(b, 10, 10, comm, 1, 42);
	for (; *times; times++)
		small_sample(b, 10, 10, *times, 42);
	small_round(b);
}

/* the input named by the last error, copied before the merge that owns it is closed */
static char failed_input[256];

/* the merge of @n files written from @bufs, written as one stream to @out */
static int merge_files(const char *dir, struct buf *bufs, int n, bool distinct, const char *out,
                       struct ps_error *err)
{
	const char *paths[4];
	char names[4][256];
	struct ps_merge *m;
	struct ps_record rec;
	struct buf o = { 0 };
	int i, r;

	for (i = 0; i < n; i++) {
		snprintf(names[i], sizeof(names[i]), "%s/in%d.pipe", dir, i);
		write_file(names[i], &bufs[i]);
		paths[i] = names[i];
	}
	m = ps_merge__open(n, paths, 1000, err);
	if (!m)
		return -1;
	ps_merge__set_distinct(m, distinct);
	pipe_header(&o);
	r = ps_merge__begin(m, err);
	while (r == 0 && (r = ps_merge__next(m, &rec, err)) == 1) {
		put_bytes(&o, rec.data, rec.len);
		r = 0;
	}
	CHECK(!ps_merge__swapped(m));
	write_file(out, &o);
	snprintf(failed_input, sizeof(failed_input), "%s", err->input ? err->input : "");
	ps_merge__close(m);
	buf_free(&o);
	return r;
}

/* two recordings of thread 10 (named @ca, @cb) with samples at @ta, @tb, in a directory */
struct two {
	char *dir;
	const char *out;
	struct buf in[2];
	struct back k;
};

static void two_open(struct two *w, const char *ca, const uint64_t *ta, const char *cb,
                     const uint64_t *tb, bool swap_second)
{
	memset(w, 0, sizeof(*w));
	w->dir = scratch_dir();
	w->out = path_in(w->dir, "out.pipe", 0);
	w->in[1].swap = swap_second;
	recording(&w->in[0], ca, ta);
	recording(&w->in[1], cb, tb);
}

static void two_close(struct two *w)
{
	back_free(&w->k);
	buf_free(&w->in[0]);
	buf_free(&w->in[1]);
	scratch_remove(w->dir);
}

/* the times of @k's samples joined by ' ' */
static void times(const struct back *k, char *out, size_t size)
{
	size_t i, o = 0;

	out[0] = 0;
	for (i = 0; i < k->n; i++)
		if (k->r[i].has_sample && o < size)
			o += (size_t)snprintf(out + o, size - o, "%s%llu", o ? " " : "",
			                      (unsigned long long)k->r[i].sample.time);
}

/* merge @w's inputs into @w->out and read that back into @w->k; the merge's result */
static int two_merge(struct two *w, bool distinct, struct ps_error *err)
{
	int r = merge_files(w->dir, w->in, 2, distinct, w->out, err);

	read_back(w->out, 0, &w->k);
	return r;
}

static void test_pieces(bool swap_second)
{
	static const uint64_t ta[] = { 100, 300, 500, 0 }, tb[] = { 200, 400, 0 };
	struct ps_error err = { 0 };
	struct two w;
	char t[128];

	two_open(&w, "sh", ta, "sh", tb, swap_second);
	CHECK(two_merge(&w, false, &err) == 0);
	CHECK(w.k.last == 0 && !w.k.swapped);
	/* one header for the pieces of one recording; inputs of two byte orders are taken
	 * for two recordings */
	CHECK_EQ_U64(w.k.nr_attrs, swap_second ? 2 : 1);
	CHECK_EQ_U64(back_count(&w.k, PS_RECORD_HEADER_ATTR), swap_second ? 2 : 1);
	times(&w.k, t, sizeof(t));
	CHECK(strcmp(t, "100 200 300 400 500") == 0);
	two_close(&w);
}

static void test_recordings(void)
{
	static const uint64_t ta[] = { 100, 300, 0 }, tb[] = { 200, 400, 0 };
	struct ps_error err = { 0 };
	uint64_t id_a = 0, id_b = 0;
	struct two w;
	char names[128] = "";
	size_t i, o = 0;

	two_open(&w, "alpha", ta, "beta", tb, false);
	CHECK(two_merge(&w, true, &err) == 0);
	CHECK(w.k.last == 0);
	CHECK_EQ_U64(w.k.nr_attrs, 2); /* each recording keeps its event */
	for (i = 0; i < w.k.n; i++) {
		const struct back_rec *r = &w.k.r[i];

		if (!r->has_sample)
			continue;
		CHECK(r->sample.type & PERF_SAMPLE_IDENTIFIER);
		if (r->sample.time == 100 || r->sample.time == 300)
			id_a = r->sample.identifier;
		else
			id_b = r->sample.identifier;
		o += (size_t)snprintf(names + o, sizeof(names) - o, "%s%s", o ? " " : "", r->comm);
	}
	CHECK(id_a && id_b && id_a != id_b);
	/* thread 10 is another thread in each recording: each sample has its own's name */
	CHECK(strcmp(names, "alpha beta alpha beta") == 0);
	two_close(&w);
}

/* the second input breaks off inside a record: its error, after what came before */
static void test_damaged(void)
{
	static const uint64_t ta[] = { 100, 300, 0 }, tb[] = { 200, 0 };
	struct ps_error err = { 0 };
	struct two w;
	size_t cut;

	two_open(&w, "sh", ta, "sh", tb, false);
	cut = small_sample(&w.in[1], 10, 10, 250, 42);
	w.in[1].len = cut + 20;
	CHECK(two_merge(&w, false, &err) == -1);
	CHECK_EQ_U64(err.code, PS_ETRUNC);
	CHECK(strstr(failed_input, "in1.pipe") != NULL);
	CHECK(err.has_offset && err.offset == cut);
	/* every whole sample was handed out before the error: 100, 200, 300 */
	CHECK_EQ_U64(back_count(&w.k, PERF_RECORD_SAMPLE), 3);
	memset(&err, 0, sizeof(err));
	CHECK(ps_merge__open(1, (const char *const[]){ path_in(w.dir, "none.pipe", 1) }, 1000,
	                     &err) == NULL);
	CHECK(err.code != 0 && strstr(err.input ? err.input : "", "none.pipe") != NULL);
	two_close(&w);
}

int main(void)
{
	test_pieces(false);
	test_pieces(true);
	test_recordings();
	test_damaged();
	return UNIT_DONE("test_merge");
}
