// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_split.c - psplit's engine on a stream built in memory, in both byte orders, with
 * one piece open at a time (every piece closed and reopened for appending): the pieces'
 * names, every piece a whole stream the library reads to its end, each sample in its key's
 * piece only, a thread's name before its first sample and its later renames routed to the
 * pieces that know it; name patterns refused, the piece cap, two keys given one name, keys
 * that are not file names.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/split.h"
#include "readback.h"
#include "unit.h"

/* threads 10 ("ten") and 20 ("twenty"); 10 renamed "ten-b" after its piece began */
static void stream(struct buf *b)
{
	small_header(b, 42, "clk");
	small_comm(b, 10, 10, "ten", 1, 42);
	small_comm(b, 20, 20, "twenty", 2, 42);
	small_sample(b, 10, 10, 100, 42);
	small_sample(b, 20, 20, 110, 42);
	small_round(b);
	small_comm(b, 10, 10, "ten-b", 115, 42);
	small_sample(b, 10, 10, 120, 42);
	small_sample(b, 20, 20, 130, 42);
	small_sample(b, 10, 10, 140, 42);
}

/* the key of a sample of thread @tid: @keys[0] for 10, @keys[1] for the others */
static int split_file(const char *path, struct ps_split_config *cfg, const char *const keys[2],
                      struct ps_error *err)
{
	struct ps_input *in = ps_input__open(path, 0, err);
	struct ps_split *sp = NULL;
	struct ps_record rec;
	int r;

	if (!in)
		return -1;
	cfg->swap = ps_input__swapped(in);
	while ((r = ps_input__next(in, &rec, err)) == 1) {
		struct ps_session *s = ps_input__session(in);
		struct ps_sample smp;
		size_t piece;

		if (!sp && !(sp = ps_split__new(cfg, s, err)))
			break;
		if (rec.type != PERF_RECORD_SAMPLE) {
			r = ps_split__record(sp, &rec, err);
		} else if (ps_sample__parse(s, &rec, &smp, "test", err) == 0) {
			r = ps_split__sample(sp, &rec, keys[smp.tid != 10], UINT64_MAX, smp.tid,
			                     &piece, err);
		} else {
			r = -1;
		}
		if (r < 0)
			break;
	}
	if (r == 0 && sp)
		r = ps_split__finish(sp, err);
	ps_split__delete(sp);
	ps_input__close(in);
	return r < 0 ? -1 : 0;
}

/* a scratch directory holding stream() as in.pipe (@b keeps its bytes), and a splitter's
 * config that writes its pieces there */
struct fixture {
	struct buf b;
	char *dir;
	struct ps_split_config cfg;
};

static void setup(struct fixture *f, bool swap, const char *pattern, size_t max_pieces,
                  size_t max_open)
{
	memset(f, 0, sizeof(*f));
	f->b.swap = swap;
	f->dir = scratch_dir();
	stream(&f->b);
	write_file(path_in(f->dir, "in.pipe", 0), &f->b);
	f->cfg = (struct ps_split_config){
		.dir = f->dir, .pattern = pattern, .max_pieces = max_pieces, .max_open = max_open
	};
}

static void teardown(struct fixture *f)
{
	buf_free(&f->b);
	scratch_remove(f->dir);
}

/* split_file() of in.pipe by @f's config */
static int split(struct fixture *f, const char *const keys[2], struct ps_error *err)
{
	return split_file(path_in(f->dir, "in.pipe", 0), &f->cfg, keys, err);
}

static void test_patterns(void)
{
	CHECK(ps_split__pattern_ok("", false) != NULL);
	CHECK(ps_split__pattern_ok("a/%k", false) != NULL);
	CHECK(ps_split__pattern_ok("%x.pipe", false) != NULL);
	CHECK(ps_split__pattern_ok("out.pipe", true) != NULL);
	CHECK(ps_split__pattern_ok("out.pipe", false) == NULL);
	CHECK(ps_split__pattern_ok("%k.pipe", true) == NULL);
	CHECK(ps_split__pattern_ok("100%%-%n", true) == NULL);
	CHECK(ps_split__pattern_ok("100%%", true) != NULL);
}

/* the thread names piece @k's samples were read with, in order, joined by ' ' */
static void comms(const struct back *k, char *out, size_t size)
{
	size_t i, o = 0;

	out[0] = 0;
	for (i = 0; i < k->n; i++)
		if (k->r[i].type == PERF_RECORD_SAMPLE && o < size)
			o += (size_t)snprintf(out + o, size - o, "%s%s", o ? " " : "",
			                      k->r[i].comm);
}

/* piece @k: @n samples, all of thread @tid, each after a COMM naming @tid */
static void check_piece(const struct back *k, size_t n, uint32_t tid)
{
	size_t i, samples = 0;
	bool named = false;

	CHECK(k->last == 0 && k->nr_attrs == 1);
	for (i = 0; i < k->n; i++) {
		const struct back_rec *r = &k->r[i];

		if (r->type == PERF_RECORD_COMM) { /* only the piece's own thread's */
			CHECK_EQ_U64(ps_get32(r->bytes + 12, k->swapped), tid);
			named = true;
		}
		if (r->type != PERF_RECORD_SAMPLE)
			continue;
		samples++;
		CHECK(r->has_sample && r->sample.tid == tid && named);
		CHECK(strcmp(r->event_buf, "clk") == 0);
	}
	CHECK_EQ_U64(samples, n);
}

static void test_split(bool swap)
{
	static const char *const keys[2] = { "ten", "twenty" };
	struct ps_error err = { 0 };
	struct fixture f;
	struct back k;
	char names[128];

	setup(&f, swap, "p-%k-%n.pipe", 10, 1);
	CHECK(split(&f, keys, &err) == 0);
	read_back(path_in(f.dir, "p-ten-0000.pipe", 1), 0, &k);
	CHECK(k.swapped == swap);
	check_piece(&k, 3, 10);
	comms(&k, names, sizeof(names));
	CHECK(strcmp(names, "ten ten-b ten-b") == 0);
	back_free(&k);
	read_back(path_in(f.dir, "p-twenty-0001.pipe", 1), 0, &k);
	check_piece(&k, 2, 20);
	comms(&k, names, sizeof(names));
	CHECK(strcmp(names, "twenty twenty") == 0);
	back_free(&k);
	teardown(&f);
}

/* what a splitter says about its pieces, and the keys that are not file names */
static void test_info(void)
{
	static const char *const keys[2] = { "-a/b", "" };
	struct ps_error err = { 0 };
	struct fixture f;
	struct stat st;

	setup(&f, false, "%k", 10, 4);
	CHECK(split(&f, keys, &err) == 0);
	CHECK(stat(path_in(f.dir, "%2Da%2Fb", 1), &st) == 0); /* no option, no directory */
	CHECK(stat(path_in(f.dir, "%", 1), &st) == 0);        /* the empty key */
	teardown(&f);
}

static void test_refused(void)
{
	static const char *const keys[2] = { "a", "b" };
	struct ps_error err = { 0 };
	struct fixture f;

	setup(&f, false, "%k", 1, 1);
	CHECK(split(&f, keys, &err) < 0);
	CHECK_EQ_U64(err.code, PS_ECAP);
	CHECK(strstr(err.detail, "more than 1 pieces (the next one is for key 'b')") != NULL);
	f.cfg.max_pieces = 10;
	f.cfg.pattern = "same.pipe";
	memset(&err, 0, sizeof(err));
	CHECK(split(&f, keys, &err) < 0);
	CHECK_EQ_U64(err.code, PS_EUSAGE);
	CHECK(strstr(err.detail, "would both be named") != NULL);
	/* no piece over the input */
	f.cfg.pattern = "in.pipe";
	f.cfg.input = path_in(f.dir, "in.pipe", 0);
	memset(&err, 0, sizeof(err));
	CHECK(split(&f, keys, &err) < 0);
	CHECK(err.code != 0);
	teardown(&f);
}

int main(void)
{
	test_patterns();
	test_split(false);
	test_split(true);
	test_info();
	test_refused();
	return UNIT_DONE("test_split");
}
