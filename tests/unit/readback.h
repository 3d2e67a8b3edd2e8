/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * readback.h - files for the unit tests of the writers (merge, split, datafile): a built
 * stream written to a file, and a file read back through
 * ps_input (the library's own reader, the one every program uses) into a list of records.
 */
#ifndef PS_UNIT_READBACK_H
#define PS_UNIT_READBACK_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/input.h"
#include "lib/sample.h"
#include "lib/session.h"
#include "build.h"

/* @dir/@name, in a static buffer of @slot (0..3) */
static inline const char *path_in(const char *dir, const char *name, int slot)
{
	static char paths[4][256];

	snprintf(paths[slot], sizeof(paths[slot]), "%s/%s", dir, name);
	return paths[slot];
}

static inline void write_file(const char *path, const struct buf *b)
{
	FILE *f = fopen(path, "w");

	if (!f || fwrite(b->p, 1, b->len, f) != b->len || fclose(f))
		abort();
}

/* One record read back, with what its session said about it. */
struct back_rec {
	uint32_t type;
	uint16_t misc, size;
	unsigned char *bytes; /* a copy of the record's len bytes */
	size_t len;
	bool has_sample; /* a SAMPLE that parsed: its numbers below (not its pointers) */
	struct ps_sample sample;
	char event_buf[64]; /* the sample's event name */
	char comm[32];      /* the sample's thread name as the reader knew it then */
};

struct back {
	struct back_rec *r;
	size_t n;
	int last; /* ps_input__next()'s last result, or -1 when the file did not open */
	struct ps_error err;
	bool swapped;
	size_t nr_attrs;
};

static inline void back_free(struct back *k)
{
	size_t i;

	for (i = 0; i < k->n; i++)
		free(k->r[i].bytes);
	free(k->r);
	memset(k, 0, sizeof(*k));
}

/* Read @path to the end (or its error) through ps_input with @flags. */
static inline void read_back(const char *path, unsigned int flags, struct back *k)
{
	struct ps_input *in;
	struct ps_record rec;

	memset(k, 0, sizeof(*k));
	in = ps_input__open(path, flags, &k->err);
	if (!in) {
		k->last = -1;
		return;
	}
	k->swapped = ps_input__swapped(in);
	while ((k->last = ps_input__next(in, &rec, &k->err)) == 1) {
		struct ps_session *s = ps_input__session(in);
		struct back_rec *g;

		k->r = realloc(k->r, (k->n + 1) * sizeof(*k->r));
		if (!k->r)
			abort();
		g = &k->r[k->n++];
		memset(g, 0, sizeof(*g));
		g->type = rec.type;
		g->misc = rec.misc;
		g->size = rec.size;
		g->len = rec.len;
		g->bytes = malloc(rec.len ? rec.len : 1);
		if (!g->bytes)
			abort();
		memcpy(g->bytes, rec.data, rec.len);
		if (rec.type != PERF_RECORD_SAMPLE)
			ps_session__process_sideband(s, &rec); /* thread names */
		if (rec.type == PERF_RECORD_SAMPLE) {
			const struct ps_attr *a = ps_session__attr_of(s, &rec);

			struct ps_error perr = { 0 };

			g->has_sample = a && ps_sample__parse_attr(s, &rec, a, &g->sample, "test",
			                                           &perr) == 0;
			if (a && a->name)
				snprintf(g->event_buf, sizeof(g->event_buf), "%s", a->name);
			if (g->has_sample && ps_session__comm(s, g->sample.tid))
				snprintf(g->comm, sizeof(g->comm), "%s",
				         ps_session__comm(s, g->sample.tid));
		}
	}
	k->nr_attrs = ps_session__nr_attrs(ps_input__session(in));
	ps_input__close(in);
}

/* how many records of @type @k holds */
static inline size_t back_count(const struct back *k, uint32_t type)
{
	size_t i, n = 0;

	for (i = 0; i < k->n; i++)
		n += k->r[i].type == type;
	return n;
}

/* ---- a small recording: one software event sampling ST_SMALL, threads, samples ---- */

#define ST_SMALL \
	(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | PERF_SAMPLE_PERIOD)

/* the pipe header and the ATTR record of the event with id @id (named @name when given) */
static inline void small_header(struct buf *b, uint64_t id, const char *name)
{
	const struct attr_spec a = { .type = PERF_TYPE_SOFTWARE,
		                     .sample_type = ST_SMALL,
		                     .flags = PS_ATTR_FLAG_SAMPLE_ID_ALL };
	size_t at;

	pipe_header(b);
	attr_rec(b, &a, &id, 1);
	if (!name)
		return;
	at = rec_begin(b, PS_RECORD_EVENT_UPDATE, 0);
	put64(b, 2); /* NAME */
	put64(b, id);
	put_str(b, name);
	pad8(b);
	rec_end(b, at);
}

/* the sample_id trailer of ST_SMALL */
static inline void small_trailer(struct buf *b, uint32_t pid, uint32_t tid, uint64_t time,
                                 uint64_t id)
{
	put32(b, pid);
	put32(b, tid);
	put64(b, time);
	put64(b, id);
}

static inline size_t small_comm(struct buf *b, uint32_t pid, uint32_t tid, const char *name,
                                uint64_t time, uint64_t id)
{
	size_t at = rec_begin(b, PERF_RECORD_COMM, 0), n = strlen(name) + 1;

	put32(b, pid);
	put32(b, tid);
	put_bytes(b, name, n);
	grow(b, PS_ALIGN8(n) - n);
	small_trailer(b, pid, tid, time, id);
	rec_end(b, at);
	return at;
}

static inline size_t small_sample(struct buf *b, uint32_t pid, uint32_t tid, uint64_t time,
                                  uint64_t id)
{
	size_t at = rec_begin(b, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);

	put64(b, 0x400000 + time); /* ip */
	put32(b, pid);
	put32(b, tid);
	put64(b, time);
	put64(b, id);
	put64(b, 1); /* period */
	rec_end(b, at);
	return at;
}

static inline void small_round(struct buf *b)
{
	rec_end(b, rec_begin(b, PS_RECORD_FINISHED_ROUND, 0));
}

#endif
