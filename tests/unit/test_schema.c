// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_schema.c - the table of a hand-made stream whose two tracepoints declare the same
 * field names differently: widths and signedness widened, a number against text left out
 * with a comment, pointers and char arrays as text, arrays of their element type; the
 * plain SQL list and the table name rules.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/perf_event.h>

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

static const char header_page[] = "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
                                  "\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
                                  "\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
                                  "\tfield: char data;\toffset:16;\tsize:4080;\tsigned:1;\n";

struct buf {
	unsigned char b[8192];
	size_t n;
};

static void put(struct buf *b, const void *p, size_t n)
{
	memcpy(b->b + b->n, p, n);
	b->n += n;
}

static void put64(struct buf *b, uint64_t v)
{
	put(b, &v, 8);
}

static void put32(struct buf *b, uint32_t v)
{
	put(b, &v, 4);
}

static void put_str(struct buf *b, const char *s)
{
	put(b, s, strlen(s) + 1);
}

static void put_text(struct buf *b, const char *s)
{
	put64(b, strlen(s));
	put(b, s, strlen(s));
}

static void record_header(struct buf *b, uint32_t type, size_t size)
{
	uint16_t misc = 0, sz = (uint16_t)size;

	memcpy(b->b, &type, 4);
	memcpy(b->b + 4, &misc, 2);
	memcpy(b->b + 6, &sz, 2);
}

static int feed(struct ps_session *s, struct buf *b, uint32_t type, uint16_t size)
{
	struct ps_record rec = { .data = b->b, .len = b->n, .type = type, .size = size };
	struct ps_error err = { 0 };

	return ps_session__process(s, &rec, "test", &err);
}

static int add_attr(struct ps_session *s, uint64_t config, uint64_t id, const char *name)
{
	unsigned char attr[128] = { 0 };
	uint64_t flags = 1ULL << 18, period = 1, st = ST_TP;
	uint32_t size = sizeof(attr), type = PERF_TYPE_TRACEPOINT;
	struct buf b = { .n = 8 }, u = { .n = 8 };

	memcpy(attr, &type, 4);
	memcpy(attr + 4, &size, 4);
	memcpy(attr + 8, &config, 8);
	memcpy(attr + 16, &period, 8);
	memcpy(attr + 24, &st, 8);
	memcpy(attr + 40, &flags, 8);
	put(&b, attr, sizeof(attr));
	put64(&b, id);
	record_header(&b, 64, b.n);
	if (feed(s, &b, 64, (uint16_t)b.n))
		return -1;
	put64(&u, 2); /* EVENT_UPDATE NAME */
	put64(&u, id);
	put(&u, name, strlen(name) + 1);
	while (u.n % 8)
		u.b[u.n++] = 0;
	record_header(&u, 78, u.n);
	return feed(s, &u, 78, (uint16_t)u.n);
}

static int add_tracing(struct ps_session *s)
{
	static const unsigned char magic[] = {
		0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g'
	};
	struct buf *b = calloc(1, sizeof(*b));
	unsigned char le_long[2] = { 0, 8 };
	uint32_t blob;
	int r;

	if (!b)
		return -1;
	b->n = 16;
	put(b, magic, sizeof(magic));
	put_str(b, "0.6");
	put(b, le_long, 2);
	put32(b, 4096);
	put_str(b, "header_page");
	put_text(b, header_page);
	put_str(b, "header_event");
	put64(b, 0);
	put32(b, 0); /* ftrace formats */
	put32(b, 1); /* systems */
	put_str(b, "test");
	put32(b, 3);
	put_text(b, fmt_a);
	put_text(b, fmt_b);
	put_text(b, fmt_c);
	put32(b, 0); /* kallsyms */
	put32(b, 0); /* printk */
	put64(b, 0); /* saved cmdlines */
	while (b->n % 8)
		b->b[b->n++] = 0;
	blob = (uint32_t)(b->n - 16);
	record_header(b, 66, 16);
	memcpy(b->b + 8, &blob, 4);
	memset(b->b + 12, 0, 4);
	r = feed(s, b, 66, 16);
	free(b);
	return r;
}

static bool has(const char *text, const char *line)
{
	return text && strstr(text, line) != NULL;
}

int main(void)
{
	struct ps_session *s = ps_session__new(false);
	struct ps_error err = { 0 };
	char *ch, *sql;

	CHECK(s != NULL);
	if (!s)
		return UNIT_DONE("schema");
	CHECK(add_attr(s, 500, 1001, "test:ev_a") == 0);
	CHECK(add_attr(s, 501, 1002, "test:ev_b") == 0);
	CHECK(add_attr(s, 502, 1003, "test:ev_c") == 0);
	CHECK(add_tracing(s) == 0);

	ch = ps_schema__text(s, PS_SCHEMA_CLICKHOUSE, "db.ev", &err);
	CHECK(ch != NULL);
	CHECK(has(ch, "CREATE TABLE IF NOT EXISTS `db`.`ev`\n(\n    `host` String,\n"));
	CHECK(has(ch, "    `time` UInt64,\n"));
	CHECK(has(ch, "    `pid` Int32,\n"));
	CHECK(has(ch, "    `ip` String,\n"));
	/* int and long: the wider */
	CHECK(has(ch, "    `fields.x` Int64,\n"));
	/* unsigned char and short, then unsigned int: signed, twice the unsigned width */
	CHECK(has(ch, "    `fields.y` Int64,\n"));
	/* unsigned int and unsigned long */
	CHECK(has(ch, "    `fields.z` UInt64,\n"));
	/* long and unsigned long: Int64, the widest there is */
	CHECK(has(ch, "    `fields.ret` Int64,\n"));
	CHECK(has(ch, "    `fields.big` UInt64,\n"));
	/* a pointer is a "0x..." string; char arrays and __data_loc strings are text */
	CHECK(has(ch, "    `fields.p` String,\n"));
	CHECK(has(ch, "    `fields.name` String,\n"));
	CHECK(has(ch, "    `fields.arr` Array(Int32),\n"));
	/* text in one event, a number in the other: no column, a comment */
	CHECK(!has(ch, "`fields.s`"));
	CHECK(has(ch, "    -- no column fields.s: text in one event, a number in test:ev_b\n"));
	CHECK(has(ch, "    `batch` String\n"));
	CHECK(has(ch, ")\nENGINE = MergeTree\nORDER BY (host, event, time);\n"));
	/* common fields are not columns: the sample's pid is */
	CHECK(!has(ch, "common_"));
	free(ch);

	sql = ps_schema__text(s, PS_SCHEMA_SQL, NULL, &err);
	CHECK(sql != NULL);
	CHECK(has(sql, "    \"host\" VARCHAR,\n"));
	CHECK(has(sql, "    \"fields.big\" NUMERIC(20),\n"));
	CHECK(has(sql, "    \"fields.arr\" INTEGER[],\n"));
	CHECK(!has(sql, "batch"));
	CHECK(!has(sql, "CREATE"));
	free(sql);

	CHECK(ps_schema__text(s, PS_SCHEMA_CLICKHOUSE, "a;b", &err) == NULL);
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
	return UNIT_DONE("schema");
}
