// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_flame.c - the frame tree: counts along each path, merged frames, kinds, the
 * folded-line reader's errors, the frame cap (the tree unchanged by a stack that does not
 * fit), reset, and the SVG writer's titles, escaping and note on a small tree.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/flame.h"
#include "lib/flame_int.h"
#include "unit.h"

static int add(struct ps_flame *f, const char *line, struct ps_error *err)
{
	return ps_flame__add_folded(f, NULL, line, strlen(line), err) < 0 ? -1 : 0;
}

/* the count of the frame at the end of path "a;b;c" (the root is "all"), or -1 */
static long long count_of(const struct ps_flame *f, const char *path)
{
	char *copy = strdup(path), *tok, *save = NULL;
	uint32_t cur = 0;

	for (tok = strtok_r(copy, ";", &save); tok && cur != FLAME_NONE;
	     tok = strtok_r(NULL, ";", &save))
		cur = ps_flame__find_child(f, cur, tok, strlen(tok));
	free(copy);
	return cur == FLAME_NONE ? -1 : (long long)f->nodes[cur].count;
}

static void test_tree(void)
{
	struct ps_error err = { 0 };
	struct ps_flame *f = ps_flame__new(0, &err);

	CHECK(f != NULL);
	CHECK(add(f, "sh;main;foo;bar 5", &err) == 0);
	CHECK(add(f, "sh;main;foo 3\r", &err) == 0);
	CHECK(add(f, "sh;main;baz_[k] 2 ", &err) == 0);
	CHECK(add(f, "dd;main 4", &err) == 0);
	CHECK(add(f, "", &err) == 0);
	CHECK(add(f, "dd;zero 0", &err) == 0);
	CHECK_EQ_U64(ps_flame__total(f), 14);
	CHECK(count_of(f, "sh") == 10);
	CHECK(count_of(f, "sh;main") == 10);
	CHECK(count_of(f, "sh;main;foo") == 8);
	CHECK(count_of(f, "sh;main;foo;bar") == 5);
	CHECK(count_of(f, "dd;main") == 4);
	CHECK(count_of(f, "dd;zero") == -1);
	/* all, sh, main, foo, bar, baz_[k], dd, main */
	CHECK_EQ_U64(ps_flame__frames(f), 8);
	CHECK(ps_flame__guess_kind("baz_[k]", 7) == PS_FRAME_KERNEL);
	CHECK(ps_flame__guess_kind("x_[j]", 5) == PS_FRAME_JIT);
	CHECK(ps_flame__guess_kind("[unknown]", 9) == PS_FRAME_UNKNOWN);
	CHECK(ps_flame__guess_kind("0x7f001234", 10) == PS_FRAME_UNKNOWN);
	CHECK(ps_flame__guess_kind("0xnothex", 8) == PS_FRAME_USER);
	CHECK(ps_flame__guess_kind("main", 4) == PS_FRAME_USER);
	ps_flame__reset(f);
	CHECK_EQ_U64(ps_flame__total(f), 0);
	CHECK_EQ_U64(ps_flame__frames(f), 1);
	CHECK(count_of(f, "sh") == -1);
	CHECK(add(f, "sh;main 1", &err) == 0);
	CHECK(count_of(f, "sh;main") == 1);
	ps_flame__delete(f);
}

static void test_errors(void)
{
	static const char *const bad[] = { "a;b",    "a;b x",  "a;b 1x",    " 7",
		                           "a;b -1", "a;b .5", "a;b 1.2.3", "\t7" };
	struct ps_error err = { 0 };
	struct ps_flame *f = ps_flame__new(0, &err);
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&err, 0, sizeof(err));
		CHECK(add(f, bad[i], &err) == -1);
		CHECK(err.code == PS_ECORRUPT);
		CHECK(err.detail[0] != 0);
	}
	CHECK_EQ_U64(ps_flame__total(f), 0);
	/* past 2^64: no malformed line, an input that cannot be drawn */
	CHECK(add(f, "a;b 99999999999999999999", &err) == -1);
	CHECK(err.code == PS_ECAP);
	CHECK(add(f, "a;b 18446744073709551615", &err) == 0);
	CHECK(add(f, "a;c 1", &err) == -1);
	CHECK(err.code == PS_ECAP);
	CHECK_EQ_U64(ps_flame__total(f), UINT64_MAX);
	ps_flame__reset(f);
	/* the escaped names pcount --folded writes are names like any other */
	CHECK(add(f, "a\\x099999999\\x0ab;f\\x0a 9x 3", &err) == 0);
	CHECK_EQ_U64(ps_flame__total(f), 3);
	CHECK(count_of(f, "a\\x099999999\\x0ab;f\\x0a 9x") == 3);
	ps_flame__delete(f);
}

static void test_cap(void)
{
	struct ps_error err = { 0 };
	struct ps_flame *f = ps_flame__new(5, &err);

	CHECK(add(f, "a;b;c 1", &err) == 0);
	CHECK(add(f, "a;b;d 1", &err) == 0);
	/* full: the narrowest frames make room, their samples stay in their callers */
	CHECK(add(f, "a;x;y;z 1", &err) == 0);
	CHECK(ps_flame__frames(f) <= 5);
	CHECK_EQ_U64(ps_flame__merged(f), 3);
	CHECK(count_of(f, "a") == 3);
	CHECK(count_of(f, "a;x;y;z") == 1);
	CHECK(count_of(f, "a;b") == -1);
	/* a stack longer than the cap cannot fit: refused, the counts unchanged */
	CHECK(add(f, "a;b;c;d;e;f 1", &err) == -1);
	CHECK(err.code == PS_ECAP);
	CHECK_EQ_U64(ps_flame__total(f), 3);
	ps_flame__delete(f);
}

static void test_read(void)
{
	static const char text[] = "a;b 1\na;c 2\n\na;b 3";
	struct ps_error err = { 0 };
	struct ps_flame *f = ps_flame__new(0, &err);
	FILE *fp = fmemopen((void *)text, sizeof(text) - 1, "r");

	CHECK(ps_flame__read_folded(f, fp, "t", NULL, NULL, &err) == 0);
	CHECK(count_of(f, "a;b") == 4);
	CHECK(count_of(f, "a") == 6);
	fclose(fp);
	/* not text: an error, not a skipped line */
	fp = fmemopen((void *)"a;b 1\nx\0 1\n", 10, "r");
	CHECK(ps_flame__read_folded(f, fp, "t", NULL, NULL, &err) == -1);
	CHECK(strncmp(err.detail, "line 2: ", 8) == 0);
	CHECK(strcmp(err.input, "t") == 0);
	fclose(fp);
	ps_flame__delete(f);
}

static void test_fields(void)
{
	struct ps_error err = { 0 };
	struct ps_flame *f = ps_flame__new(0, &err), *b = ps_flame__new(0, &err);
	uint32_t c;
	size_t len;

	/* whitespace-only names and tabs inside names are names */
	CHECK(add(f, "a; ;x\ty 2", &err) == 0);
	CHECK(count_of(f, "a; ;x\ty") == 2);
	CHECK(add(f, "a;  3", &err) == 0);
	c = ps_flame__find_child(f, ps_flame__find_child(f, 0, "a", 1), " ", 1);
	CHECK(c != FLAME_NONE && f->nodes[c].count == 5);
	/* ClickHouse's TSV: a tab before the count, the stack unescaped */
	CHECK(add(f, "t;p\\\\x09q;r\\ts\t4", &err) == 0);
	c = ps_flame__find_child(f, 0, "t", 1);
	c = ps_flame__find_child(f, c, "p\\x09q", 6);
	CHECK(c != FLAME_NONE && f->nodes[c].count == 4);
	c = ps_flame__find_child(f, c, "r\ts", 3);
	CHECK(c != FLAME_NONE && f->nodes[c].count == 4);
	(void)flame__name(f, c, &len);
	CHECK(len == 3);
	/* a comment, a count of 0 */
	CHECK(ps_flame__add_folded(f, NULL, "# a;b 5", 7, &err) == 0);
	CHECK(ps_flame__add_folded(f, NULL, "a;z 0", 5, &err) == 1);
	CHECK_EQ_U64(ps_flame__total(f), 9);
	/* two counts: differential, BEFORE into @before, AFTER into the tree */
	CHECK(ps_flame__add_folded(f, NULL, "d;main 274 3", 12, &err) == -1);
	CHECK(err.code == PS_ECORRUPT);
	CHECK(ps_flame__add_folded(f, b, "d;main 274 3", 12, &err) == 2);
	CHECK(count_of(f, "d;main") == 3);
	CHECK(count_of(b, "d;main") == 274);
	CHECK(count_of(f, "d;main 274") == -1);
	CHECK(ps_flame__add_folded(f, b, "d;x\t1\t2", 7, &err) == 2);
	CHECK(count_of(b, "d;x") == 1);
	ps_flame__delete(f);
	ps_flame__delete(b);
}

/* fractional counts: the tree's unit shrinks, exactly */
static void test_fractions(void)
{
	struct ps_error err = { 0 };
	struct ps_flame *f = ps_flame__new(0, &err);

	CHECK(add(f, "a;b 2", &err) == 0);
	CHECK_EQ_U64(ps_flame__scale(f), 1);
	CHECK(add(f, "a;c 0.25", &err) == 0);
	CHECK_EQ_U64(ps_flame__scale(f), 100);
	CHECK(count_of(f, "a;b") == 200);
	CHECK(count_of(f, "a;c") == 25);
	CHECK(add(f, "a;c 1.5", &err) == 0);
	CHECK(add(f, "a;d 3.", &err) == 0);
	CHECK(count_of(f, "a;c") == 175);
	CHECK(count_of(f, "a") == 675);
	/* past 2^64 once scaled: refused, the tree as it was */
	CHECK(add(f, "a;e 184467440737095516.15", &err) == -1);
	CHECK(err.code == PS_ECAP);
	CHECK(count_of(f, "a") == 675);
	CHECK_EQ_U64(ps_flame__scale(f), 100);
	ps_flame__delete(f);
}

/* the reader: malformed lines skipped and reported, the rest drawn */
static int nskipped;
static char first_skipped[512];

static void on_skipped(void *arg, const struct ps_error *e)
{
	(void)arg;
	if (!nskipped++)
		snprintf(first_skipped, sizeof(first_skipped), "%s: %.200s", e->input, e->detail);
}

static void test_read_skips(void)
{
	static const char text[] = "a;b 1\nno count\n# c 9\na;c 2\nx;y 1x\na;b 3";
	static const char diff[] = "a;b 1 2\na;c 5 0\nx 1\n";
	struct ps_error err = { 0 };
	struct ps_flame *f = ps_flame__new(0, &err), *b = ps_flame__new(0, &err);
	struct ps_folded_opts o = { .before = b, .skipped = on_skipped };
	struct ps_folded_stats st;
	FILE *fp = fmemopen((void *)text, sizeof(text) - 1, "r");

	CHECK(ps_flame__read_folded(f, fp, "t", &o, &st, &err) == 0);
	fclose(fp);
	CHECK(nskipped == 2);
	CHECK(strcmp(first_skipped, "t: line 2: sample count 'count' is not a number") == 0);
	CHECK_EQ_U64(st.lines, 3);
	CHECK_EQ_U64(st.skipped, 2);
	CHECK(!st.differential);
	CHECK(count_of(f, "a") == 6);
	CHECK_EQ_U64(ps_flame__total(b), 0);
	/* a differential input: its first line says so, a line of one count is malformed */
	ps_flame__reset(f);
	nskipped = 0;
	fp = fmemopen((void *)diff, sizeof(diff) - 1, "r");
	CHECK(ps_flame__read_folded(f, fp, "d", &o, &st, &err) == 0);
	fclose(fp);
	CHECK(st.differential);
	CHECK_EQ_U64(st.lines, 2);
	CHECK(nskipped == 1);
	CHECK(count_of(b, "a;c") == 5);
	CHECK(count_of(f, "a;b") == 2);
	CHECK(count_of(f, "a;c") == -1);
	ps_flame__delete(f);
	ps_flame__delete(b);
}

/* the cap: the narrowest frames merge into their callers, every sample kept */
static void test_merge(void)
{
	struct ps_error err = { 0 };
	struct ps_flame *f = ps_flame__new(64, &err);
	char line[64];
	int i;

	CHECK(add(f, "p;main;hot;hotter 1000", &err) == 0);
	for (i = 0; i < 500; i++) {
		snprintf(line, sizeof(line), "p;main;cold%d;colder%d 1", i, i);
		CHECK(add(f, line, &err) == 0);
	}
	CHECK(ps_flame__frames(f) <= 64);
	CHECK(ps_flame__merged(f) > 0);
	CHECK_EQ_U64(ps_flame__total(f), 1500);
	CHECK(count_of(f, "p;main") == 1500);
	CHECK(count_of(f, "p;main;hot;hotter") == 1000);
	/* the newest stacks are there */
	CHECK(count_of(f, "p;main;cold499;colder499") == 1);
	CHECK(add(f, "p;main;hot 5", &err) == 0);
	CHECK(count_of(f, "p;main;hot") == 1005);
	ps_flame__delete(f);
}

/* --reverse: callees first; --flamechart: merged only with the newest sibling */
static void test_modes(void)
{
	struct ps_error err = { 0 };
	struct ps_flame *f = ps_flame__new(0, &err);

	ps_flame__set_mode(f, PS_FLAME_REVERSE);
	CHECK(add(f, "sh;main;a;leaf 2", &err) == 0);
	CHECK(add(f, "sh;main;b;leaf 3", &err) == 0);
	CHECK(count_of(f, "leaf") == 5);
	CHECK(count_of(f, "leaf;a;main;sh") == 2);
	CHECK(f->nodes[ps_flame__find_child(f, 0, "leaf", 4)].kind == PS_FRAME_USER);
	ps_flame__reset(f);
	ps_flame__set_mode(f, PS_FLAME_CHART);
	CHECK(add(f, "sh;main;a 1", &err) == 0);
	CHECK(add(f, "sh;main;a 1", &err) == 0);
	CHECK(add(f, "sh;main;b 1", &err) == 0);
	CHECK(add(f, "sh;main;a 1", &err) == 0);
	/* all, sh, main, a, b, a, and after each leaf the mark of its own samples */
	CHECK_EQ_U64(ps_flame__frames(f), 9);
	CHECK(count_of(f, "sh;main") == 4);
	ps_flame__delete(f);
}

static void test_svg(void)
{
	struct ps_error err = { 0 };
	struct ps_flame *f = ps_flame__new(0, &err);
	struct ps_flame_style st = { .width = 1200, .height = 16, .minwidth = 0.1 };
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);

	CHECK(add(f, "p;a<&>b 1000000", &err) == 0);
	CHECK(add(f, "p;tiny 1", &err) == 0);
	CHECK(ps_flame__write_svg(f, &st, fp, "mem", &err) == 0);
	fclose(fp);
	CHECK(strstr(buf, "<title>all (1000001 samples, 100.00%)</title>") != NULL);
	CHECK(strstr(buf, "<title>a&lt;&amp;&gt;b (1000000 samples, 100.00%)</title>") != NULL);
	CHECK(strstr(buf, "<title>tiny") == NULL);
	CHECK(strstr(buf, ">1 frame narrower than 0.1 px left out (pflame -m 0 draws it)") != NULL);
	CHECK(strstr(buf, "<title>tiny") == NULL);
	CHECK(strstr(buf, "]]>") == strstr(buf, "]]></script>"));
	free(buf);
	/* "1 sample", fractions, labels without flamegraph.pl's "_[k]" (it only colours) */
	ps_flame__reset(f);
	CHECK(add(f, "p;sys_read_[k] 1", &err) == 0);
	CHECK(add(f, "p;half 0.5", &err) == 0);
	CHECK(add(f, "p;more 1.25", &err) == 0);
	fp = open_memstream(&buf, &len);
	CHECK(ps_flame__write_svg(f, &st, fp, "mem", &err) == 0);
	fclose(fp);
	CHECK(strstr(buf, "<title>sys_read (1 sample, 36.36%)</title>") != NULL);
	CHECK(strstr(buf, ">sys_read</text>") != NULL);
	CHECK(strstr(buf, "_[k]") == NULL);
	CHECK(strstr(buf, "<title>half (0.5 samples, ") != NULL);
	CHECK(strstr(buf, "<title>all (2.75 samples, 100.00%)") != NULL);
	/* the script's total is in samples too: its search shares divide by it */
	CHECK(strstr(buf, "\"total\": 2.75}") != NULL);
	free(buf);
	CHECK(ps_flame_palette__parse("mem") == PS_PALETTE_MEM);
	CHECK(ps_flame_palette__parse("grey") == PS_PALETTE_GRAY);
	CHECK(ps_flame_palette__parse("pink") == -1);
	ps_flame__delete(f);
}

int main(void)
{
	test_tree();
	test_errors();
	test_cap();
	test_fields();
	test_fractions();
	test_read_skips();
	test_merge();
	test_modes();
	test_read();
	test_svg();
	return UNIT_DONE("flame");
}
