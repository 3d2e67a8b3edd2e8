// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_schema.c - the table of a hand-made stream whose two tracepoints declare the same
 * field names differently: widths and signedness widened (a u64 and a signed field into a
 * 128-bit decimal), a number against text left out with a comment, pointers and char arrays
 * as text, arrays of their element type; the plain SQL list and the table name rules; names
 * from the stream (an event's, a field's) with any bytes quoted in a name or escaped in a
 * comment, never ending either.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "build.h"
#include "lib/schema.h"
#include "lib/session.h"
#include "unit.h"

#define ST_TP                                                                           \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
	 PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_RAW)

#define COMMON                                                                         \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"         \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"         \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"

static const char fmt_a[] =
        "name: ev_a\nID: 500\nformat:\n" COMMON "\tfield:int x;\toffset:8;\tsize:4;\tsigned:1;\n"
        "\tfield:unsigned char y;\toffset:12;\tsize:1;\tsigned:0;\n"
        "\tfield:char s[16];\toffset:13;\tsize:16;\tsigned:0;\n"
        "\tfield:unsigned int z;\toffset:32;\tsize:4;\tsigned:0;\n"
        "\tfield:void * p;\toffset:40;\tsize:8;\tsigned:0;\n"
        "\tfield:int arr[4];\toffset:48;\tsize:16;\tsigned:1;\n"
        "\tfield:__data_loc char[] name;\toffset:64;\tsize:4;\tsigned:0;\n\n"
        "print fmt: \"x=%d\", REC->x\n";

static const char fmt_b[] =
        "name: ev_b\nID: 501\nformat:\n" COMMON "\tfield:long x;\toffset:8;\tsize:8;\tsigned:1;\n"
        "\tfield:short y;\toffset:16;\tsize:2;\tsigned:1;\n"
        "\tfield:int s;\toffset:20;\tsize:4;\tsigned:1;\n"
        "\tfield:unsigned long z;\toffset:24;\tsize:8;\tsigned:0;\n"
        "\tfield:u64 big;\toffset:32;\tsize:8;\tsigned:0;\n"
        "\tfield:long ret;\toffset:40;\tsize:8;\tsigned:1;\n\n"
        "print fmt: \"x=%ld\", REC->x\n";

static const char fmt_c[] = "name: ev_c\nID: 502\nformat:\n" COMMON
                            "\tfield:unsigned long ret;\toffset:8;\tsize:8;\tsigned:0;\n"
                            "\tfield:unsigned int y;\toffset:16;\tsize:4;\tsigned:0;\n\n"
                            "print fmt: \"ret=%lu\", REC->ret\n";

/* the three events of system "test" */
static int add_events(struct ps_session *s)
{
	static const char *const formats[] = { fmt_a, fmt_b, fmt_c };
	static const struct tp_system test = { "test", formats, ARRAY_SIZE(formats) };

	return session_attr(s, PERF_TYPE_TRACEPOINT, 500, ST_TP, 1001, "test:ev_a") ||
	       session_attr(s, PERF_TYPE_TRACEPOINT, 501, ST_TP, 1002, "test:ev_b") ||
	       session_attr(s, PERF_TYPE_TRACEPOINT, 502, ST_TP, 1003, "test:ev_c") ||
	       session_tracing(s, &test, 1);
}

static bool has(const char *text, const char *line)
{
	return text && strstr(text, line) != NULL;
}

/* @text has each line of @want (NULL-ended): a check each, a missing one said */
static void check_has_all(const char *text, const char *const *want)
{
	for (; *want; want++) {
		CHECK(has(text, *want));
		if (!has(text, *want))
			fprintf(stderr, "  missing: %s\n", *want);
	}
}

static size_t lines(const char *text)
{
	size_t n = 0;

	for (; text && *text; text++)
		n += *text == '\n';
	return n;
}

/* Rename field @from of every event of @s to @to, as a TRACING_DATA format could name it. */
static void rename_field(struct ps_session *s, const char *from, const char *to)
{
	struct ps_attr *a;
	size_t i;

	ps_session__for_each_attr(s, a, i) {
		struct tep_format_field *f = a->tp ? tep_find_field(a->tp, from) : NULL;
		char *old;

		if (!f)
			continue;
		old = f->name;
		f->name = strdup(to);
		if (f->alias == old)
			f->alias = f->name;
		free(old);
	}
}

/* an event name and a field name that try every way out of a comment or a quoted name */
#define HOSTILE "h\n);DROP TABLE important;--\r\"`'\\*/\x01\xff\xc2\x85\xe2\x80\xa8"

static void hostile_names(void)
{
	static const char *const formats[] = { fmt_a, fmt_b };
	static const struct tp_system test = { "test", formats, ARRAY_SIZE(formats) };
	struct ps_session *s = ps_session__new(false);
	struct ps_error err = { 0 };
	char *ch, *sql;

	CHECK(s != NULL);
	if (!s)
		return;
	CHECK(session_attr(s, PERF_TYPE_TRACEPOINT, 500, ST_TP, 1001, "a" HOSTILE) == 0);
	CHECK(session_attr(s, PERF_TYPE_TRACEPOINT, 501, ST_TP, 1002, "b" HOSTILE) == 0);
	CHECK(session_tracing(s, &test, 1) == 0);
	rename_field(s, "x", "x" HOSTILE);
	rename_field(s, "s", "s" HOSTILE);
	/* two names ptojson writes alike (invalid bytes as U+FFFD) are one column: unsigned
	 * char, short, unsigned int, unsigned long */
	rename_field(s, "y", "y\xfe");
	rename_field(s, "z", "y\xff");

	ch = ps_schema__text(s, PS_SCHEMA_CLICKHOUSE, NULL, 0, &err);
	CHECK(has(ch, "    `fields.xh\\x0a);DROP TABLE important;--\\x0d\"\\`'\\\\*/\\x01"
	              "\xef\xbf\xbd\xc2\x85\xe2\x80\xa8` Int64,\n"));
	CHECK(has(ch, "    -- no column fields.sh\\x0a);DROP TABLE important;--\\x0d\"`'\\x5c*\\x2f"
	              "\\x01\xef\xbf\xbd\\xc2\\x85\xe2\x80\xa8: text in one event, a number in "
	              "bh\\x0a);DROP TABLE important;--\\x0d\"`'\\x5c*\\x2f\\x01\\xff\\xc2\\x85"
	              "\xe2\x80\xa8\n"));
	CHECK(has(ch, "    `fields.y\xef\xbf\xbd` Decimal128(0),\n"));
	CHECK(!has(ch, "DROP TABLE important;--\n"));
	/* CREATE, (, 22 columns (the loader's stack and batch last), the comment, ), ENGINE,
	 * ORDER BY */
	CHECK_EQ_U64(lines(ch), 28);
	free(ch);

	sql = ps_schema__text(s, PS_SCHEMA_SQL, NULL, 0, &err);
	/* SQL has no escapes in a quoted name: " doubled, the rest inside the quotes */
	CHECK(has(sql, "    \"fields.xh\n);DROP TABLE important;--\r\"\"`'\\*/\x01\xef\xbf\xbd"
	               "\xc2\x85\xe2\x80\xa8\" BIGINT,\n"));
	CHECK(has(sql, "    -- no column fields.sh\\x0a);DROP TABLE important;--\\x0d\"`'\\x5c*"));
	CHECK(has(sql, "    \"fields.y\xef\xbf\xbd\" NUMERIC(20),\n"));
	free(sql);
	ps_session__delete(s);
}

int main(void)
{
	static const char *const ch_columns[] = {
		"CREATE TABLE IF NOT EXISTS `db`.`ev`\n(\n    `host` String,\n",
		"    `time` UInt64,\n",
		"    `pid` Int32,\n",
		"    `ip` String,\n",
		/* int and long: the wider */
		"    `fields.x` Int64,\n",
		/* unsigned char and short, then unsigned int: signed, twice the unsigned width */
		"    `fields.y` Int64,\n",
		/* unsigned int and unsigned long */
		"    `fields.z` UInt64,\n",
		/* long and unsigned long: no 64-bit type holds both, a 38-digit decimal does */
		"    `fields.ret` Decimal128(0),\n",
		"    `fields.big` UInt64,\n",
		/* a pointer is a "0x..." string; char arrays and __data_loc strings are text */
		"    `fields.p` String,\n",
		"    `fields.name` String,\n",
		"    `fields.arr` Array(Int32),\n",
		NULL,
	};
	struct ps_session *s = ps_session__new(false);
	struct ps_error err = { 0 };
	char *ch, *sql;

	CHECK(s != NULL);
	if (!s)
		return UNIT_DONE("schema");
	CHECK(add_events(s) == 0);

	ch = ps_schema__text(s, PS_SCHEMA_CLICKHOUSE, "db.ev", 0, &err);
	CHECK(ch != NULL);
	check_has_all(ch, ch_columns);
	/* text in one event, a number in the other: no column, a comment */
	CHECK(!has(ch, "`fields.s`"));
	CHECK(has(ch, "    -- no column fields.s: text in one event, a number in test:ev_b\n"));
	CHECK(has(ch, "    `batch` String\n"));
	CHECK(has(ch, ")\nENGINE = MergeTree\nORDER BY (host, event, time);\n"));
	/* common fields are not columns: the sample's pid is */
	CHECK(!has(ch, "common_"));
	free(ch);

	sql = ps_schema__text(s, PS_SCHEMA_SQL, NULL, 0, &err);
	CHECK(sql != NULL);
	CHECK(has(sql, "    \"host\" VARCHAR,\n"));
	CHECK(has(sql, "    \"fields.big\" NUMERIC(20),\n"));
	CHECK(has(sql, "    \"fields.arr\" INTEGER[],\n"));
	CHECK(has(sql, "    \"fields.ret\" NUMERIC(20)\n"));
	CHECK(!has(sql, "batch"));
	CHECK(!has(sql, "CREATE"));
	free(sql);

	CHECK(ps_schema__text(s, PS_SCHEMA_CLICKHOUSE, "a;b", 0, &err) == NULL);
	CHECK(err.code == PS_EUSAGE);
	CHECK(ps_schema__valid_table("pstream"));
	CHECK(ps_schema__valid_table("db_1.t_2"));
	CHECK(!ps_schema__valid_table("1db.t"));
	CHECK(!ps_schema__valid_table("a.b.c"));
	CHECK(!ps_schema__valid_table(".t"));
	CHECK(!ps_schema__valid_table("t."));
	CHECK(!ps_schema__valid_table("a b"));
	CHECK(!ps_schema__valid_table("a`b"));
	CHECK(!ps_schema__valid_table(""));

	ps_session__delete(s);
	hostile_names();
	return UNIT_DONE("schema");
}
