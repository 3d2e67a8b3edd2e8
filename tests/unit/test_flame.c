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
	return ps_flame__add_folded(f, line, strlen(line), err);
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
	CHECK(add(f, "sh;main;baz_[k]  2 ", &err) == 0);
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
	/* a count after a tab is no count: a name may hold "\t9999999" */
	static const char *const bad[] = { "a;b",     "a;b x",  "a;b 1x",
		                           "  7",     "a;b -1", "a;b 99999999999999999999",
		                           "a\t9999", "a;b\t7" };
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
	/* the escaped names pcount --folded writes are names like any other */
	CHECK(add(f, "a\\x099999999\\x0ab;f\\x0a  9 3", &err) == 0);
	CHECK_EQ_U64(ps_flame__total(f), 3);
	CHECK(count_of(f, "a\\x099999999\\x0ab;f\\x0a  9") == 3);
	ps_flame__delete(f);
}

static void test_cap(void)
{
	struct ps_error err = { 0 };
	struct ps_flame *f = ps_flame__new(5, &err);

	CHECK(add(f, "a;b;c 1", &err) == 0);
	/* a;b;d fits (one new frame), a;x;y;z does not (three) and changes nothing */
	CHECK(add(f, "a;b;d 1", &err) == 0);
	CHECK(add(f, "a;x;y;z 1", &err) == -1);
	CHECK(err.code == PS_ECAP);
	CHECK_EQ_U64(ps_flame__frames(f), 5);
	CHECK_EQ_U64(ps_flame__total(f), 2);
	CHECK(count_of(f, "a;x") == -1);
	/* a known path still counts */
	CHECK(add(f, "a;b;c 3", &err) == 0);
	CHECK(count_of(f, "a;b;c") == 4);
	ps_flame__delete(f);
}

static void test_read(void)
{
	static const char text[] = "a;b 1\na;c 2\n\na;b 3";
	struct ps_error err = { 0 };
	struct ps_flame *f = ps_flame__new(0, &err);
	FILE *fp = fmemopen((void *)text, sizeof(text) - 1, "r");

	CHECK(ps_flame__read_folded(f, fp, "t", &err) == 0);
	CHECK(count_of(f, "a;b") == 4);
	CHECK(count_of(f, "a") == 6);
	fclose(fp);
	fp = fmemopen((void *)"a;b 1\nx\n", 8, "r");
	CHECK(ps_flame__read_folded(f, fp, "t", &err) == -1);
	CHECK(strncmp(err.detail, "line 2: ", 8) == 0);
	CHECK(strcmp(err.input, "t") == 0);
	fclose(fp);
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
	CHECK(strstr(buf, ">1 frames narrower than 0.1 px left out") != NULL);
	CHECK(strstr(buf, "]]>") == strstr(buf, "]]></script>"));
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
	test_read();
	test_svg();
	return UNIT_DONE("flame");
}
