// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_folded.c - libFuzzer target for folded stack lines ("comm;outer;...;inner COUNT"),
 * as pflame --folded reads them: the input's lines are added one by one with
 * ps_flame__add_folded() to a tree with a small frame cap, and the whole input is read
 * again with ps_flame__read_folded(); both trees must agree, a tree reset and filled again
 * must come out the same, and an error must say what it is; read once more with a BEFORE
 * tree, as a differential input ("STACK BEFORE AFTER") is read.  The first line is also
 * added through ps_flame__add() split at its ';', with kinds taken from the input.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/flame.h"
#include "replay.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_FRAMES 2048

static void check_error(const struct ps_error *err)
{
	if (err->code != PS_ECORRUPT && err->code != PS_ECAP && err->code != PS_ENOMEM)
		abort();
	if (!memchr(err->detail, 0, sizeof(err->detail)))
		abort();
}

/* every line of @s added; the number of lines refused */
static size_t add_lines(struct ps_flame *f, const char *s, size_t size)
{
	size_t start = 0, i, bad = 0;

	for (i = 0; i <= size; i++) {
		struct ps_error err = { 0 };
		uint64_t before;

		if (i < size && s[i] != '\n')
			continue;
		before = ps_flame__total(f);
		if (ps_flame__add_folded(f, NULL, s + start, i - start, &err) < 0) {
			check_error(&err);
			if (ps_flame__total(f) != before)
				abort(); /* a refused line changes nothing */
			bad++;
		} else if (ps_flame__total(f) < before) {
			abort();
		}
		ps_flame__guess_kind(s + start, i - start);
		start = i + 1;
	}
	return bad;
}

static uint64_t skipped;

/* a skipped line's report: an error that says what and where */
static void on_skipped(void *arg, const struct ps_error *err)
{
	(void)arg;
	if (err->code != PS_ECORRUPT || strncmp(err->detail, "line ", 5) != 0)
		abort();
	skipped++;
}

static void add_split(struct ps_flame *f, const char *s, size_t size)
{
	const char *names[64];
	size_t lens[64], n = 0, start = 0, i;
	enum ps_frame_kind kinds[64];
	struct ps_error err = { 0 };
	uint64_t before = ps_flame__total(f);

	for (i = 0; i <= size && n < 64; i++) {
		if (i < size && s[i] != ';' && s[i] != '\n')
			continue;
		names[n] = s + start;
		lens[n] = i - start;
		kinds[n] = (enum ps_frame_kind)((unsigned char)s[start < size ? start : 0] %
		                                PS_FRAME_KINDS);
		n++;
		start = i + 1;
		if (i < size && s[i] == '\n')
			break;
	}
	if (ps_flame__add(f, names, lens, kinds, n, 3, &err) < 0) {
		check_error(&err);
		if (ps_flame__total(f) != before)
			abort();
	} else if (ps_flame__total(f) != before + 3) {
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data;
	struct ps_error err = { 0 };
	struct ps_flame *a, *b, *before;
	struct ps_folded_stats st;
	struct ps_folded_opts fo = { .skipped = on_skipped };
	uint64_t total;
	size_t frames, bad;
	FILE *fp;
	int r;

	if (size > 65536)
		return 0;
	a = ps_flame__new(MAX_FRAMES, &err);
	b = ps_flame__new(MAX_FRAMES, &err);
	before = ps_flame__new(MAX_FRAMES, &err);
	if (!a || !b || !before)
		abort();
	fo.before = before;
	skipped = 0;
	bad = add_lines(a, s, size);
	total = ps_flame__total(a);
	frames = ps_flame__frames(a);
	if (frames < 1 || frames > MAX_FRAMES)
		abort();

	/* the same lines again, after a reset */
	ps_flame__reset(a);
	if (ps_flame__total(a) != 0 || ps_flame__frames(a) != 1)
		abort();
	if (add_lines(a, s, size) != bad || ps_flame__total(a) != total ||
	    ps_flame__frames(a) != frames)
		abort();

	/* read as a file: the same tree when every line was taken and there is no NUL */
	fp = fmemopen((void *)data, size ? size : 1, "r");
	if (!fp)
		abort();
	if (!size)
		getc(fp); /* fmemopen needs a size: an empty input is one byte read already */
	r = ps_flame__read_folded(b, fp, "fuzz", NULL, &st, &err);
	fclose(fp);
	if (r < 0)
		check_error(&err);
	if (!bad && !memchr(data, 0, size) &&
	    (r < 0 || st.skipped || ps_flame__total(b) != total || ps_flame__frames(b) != frames))
		abort();

	/* again with a BEFORE tree: a differential input goes to both, never wraps */
	ps_flame__reset(b);
	fp = fmemopen((void *)data, size ? size : 1, "r");
	if (!fp)
		abort();
	if (!size)
		getc(fp);
	r = ps_flame__read_folded(b, fp, "fuzz", &fo, &st, &err);
	fclose(fp);
	if (r < 0)
		check_error(&err);
	else if (st.skipped != skipped || st.lines > size)
		abort();
	/* a plain input read so is the tree of its lines, a differential one adds to both */
	if (r == 0 && !st.differential && !bad && ps_flame__total(b) != total)
		abort();
	ps_flame__delete(before);

	add_split(a, s, size);
	ps_flame__delete(a);
	ps_flame__delete(b);
	return 0;
}
