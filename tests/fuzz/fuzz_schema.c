// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_schema.c - libFuzzer target for the table a stream's samples load into (schema.h,
 * pheader --schema, pstream-clickhouse's CREATE TABLE): an input that starts with the pipe
 * magic is a whole stream; any other input is records that follow the header of a real
 * recording with tracepoints (fuzz_session.h's stream, up to its first sample), so that
 * EVENT_UPDATE names, attrs and features meet real tracepoint formats.  The session's
 * schema is written in both dialects, with and without the symbolic columns, and must be
 * SQL in which the stream's names stay inside quoted identifiers or a comment: outside
 * them only the writer's own keywords and types, numbers and punctuation may appear.
 */
#include <ctype.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "lib/input.h"
#include "lib/schema.h"
#include "lib/session.h"
#include "fuzz_session.h"
#include "replay.h"

#define MAX_RECORDS 5000

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* the words the writer itself puts outside quotes */
static const char *const words[] = {
	"CREATE",         "TABLE",     "IF",      "NOT",     "EXISTS",  "ENGINE",   "MergeTree",
	"ORDER",          "BY",        "host",    "event",   "time",    "String",   "UInt8",
	"UInt16",         "UInt32",    "UInt64",  "Int8",    "Int16",   "Int32",    "Int64",
	"Int128",         "UInt128",   "Float32", "Float64", "Array",   "Nullable", "Decimal",
	"LowCardinality", "VARCHAR",   "BIGINT",  "INTEGER", "NUMERIC", "SMALLINT", "DECIMAL",
	"DOUBLE",         "PRECISION", "REAL",    "TEXT",    "BOOLEAN",
};

static _Noreturn void bad(const char *text, const char *at, const char *why)
{
	fprintf(stderr, "schema text: %s at byte %zu:\n%s\n", why, (size_t)(at - text), text);
	abort();
}

static void sql_check(const char *t, enum ps_schema_dialect d)
{
	const char *p = t, *last = NULL, *ended = NULL;
	int depth = 0;

	while (*p) {
		if (p[0] == '-' && p[1] == '-') {
			p += strcspn(p, "\n");
		} else if (p[0] == '/' && p[1] == '*') {
			const char *e = strstr(p + 2, "*/");

			if (!e)
				bad(t, p, "a comment without its end");
			p = e + 2;
		} else if (*p == '"' || *p == '`' || *p == '\'') {
			const char *start = p;
			char q = *p++;

			for (;;) {
				if (!*p)
					bad(t, start, "a quote without its end");
				if (*p == '\\' && d == PS_SCHEMA_CLICKHOUSE) {
					if (!p[1])
						bad(t, start, "a quote without its end");
					p += 2;
				} else if (*p == q && p[1] == q) {
					p += 2;
				} else if (*p == q) {
					p++;
					break;
				} else {
					p++;
				}
			}
			last = p - 1;
		} else if (isalpha((unsigned char)*p) || *p == '_') {
			const char *start = p;
			size_t n, k;

			while (isalnum((unsigned char)*p) || *p == '_')
				p++;
			n = (size_t)(p - start);
			for (k = 0; k < sizeof(words) / sizeof(words[0]); k++)
				if (strlen(words[k]) == n && memcmp(words[k], start, n) == 0)
					break;
			if (k == sizeof(words) / sizeof(words[0]))
				bad(t, start,
				    "a word outside quotes that the writer does not write");
			last = p - 1;
		} else if (isdigit((unsigned char)*p)) {
			while (isdigit((unsigned char)*p))
				p++;
			last = p - 1;
		} else if (*p == '(') {
			depth++;
			last = p++;
		} else if (*p == ')') {
			if (--depth < 0)
				bad(t, p, "')' closes nothing");
			last = p++;
		} else if (strchr(",.[];=", *p)) {
			if (*p == ';' && d != PS_SCHEMA_CLICKHOUSE)
				bad(t, p, "';' in a column list");
			last = p++;
		} else if (strchr(" \t\n", *p)) {
			p++;
		} else {
			bad(t, p, "a byte outside quotes and comments");
		}
		if (ended && last > ended)
			bad(t, last, "something after the statement's ';'");
		if (last && *last == ';' && !ended)
			ended = last;
	}
	if (depth)
		bad(t, p, "a '(' not closed");
}

static unsigned char *head;
static size_t head_len;

/* The bytes of fuzz_session.h's stream up to its first SAMPLE, once. */
static void load_head(void)
{
	const char *path = getenv("PS_FUZZ_STREAM") ? getenv("PS_FUZZ_STREAM") : FUZZ_STREAM;
	struct ps_error err = { 0 };
	struct ps_record rec;
	struct ps_input *in = ps_input__open(path, 0, &err);
	uint64_t end = 0;
	FILE *fp;

	head = malloc(1);
	if (!head)
		abort();
	if (!in)
		return;
	while (ps_input__next(in, &rec, &err) > 0 && rec.type != PERF_RECORD_SAMPLE)
		end = rec.offset + rec.len;
	ps_input__close(in);
	fp = fopen(path, "re");
	if (!fp || !(head = realloc(head, end ? end : 1)) || fread(head, 1, end, fp) != end)
		abort();
	fclose(fp);
	head_len = end;
}

/* The schema of fuzz_session.h's session, for comparison with an input of no records. */
static char *baseline(void)
{
	struct ps_error err = { 0 };
	struct ps_sample smp;
	struct ps_session *s = fuzz_session(&smp);
	char *t = ps_schema__text(s, PS_SCHEMA_CLICKHOUSE, NULL, PS_SCHEMA_SYMBOLIC, &err);

	if (!t)
		abort();
	return t;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char *base;
	static int fd = -1;
	struct ps_error err = { 0 };
	struct ps_record rec;
	struct ps_input *in;
	bool whole = size >= 8 && memcmp(data, "PERFILE2", 8) == 0;
	int d, flags, n = 0;

	if (size > 65536)
		return 0;
	if (!head) {
		load_head();
		base = baseline();
		sql_check(base, PS_SCHEMA_CLICKHOUSE);
	}
	if (fd < 0)
		fd = memfd_create("fuzz_schema", MFD_CLOEXEC);
	if (fd < 0 || ftruncate(fd, 0) < 0 || lseek(fd, 0, SEEK_SET) < 0)
		abort();
	if ((!whole && head_len && write(fd, head, head_len) != (ssize_t)head_len) ||
	    (size && write(fd, data, size) != (ssize_t)size) || lseek(fd, 0, SEEK_SET) < 0)
		abort();
	in = ps_input__open_fd(fd, "fuzz", PS_INPUT_DECOMPRESS, &err);
	if (!in)
		return 0;
	while (n++ < MAX_RECORDS && ps_input__next(in, &rec, &err) > 0)
		;
	for (d = PS_SCHEMA_SQL; d <= PS_SCHEMA_CLICKHOUSE; d++)
		for (flags = 0; flags <= PS_SCHEMA_SYMBOLIC; flags += PS_SCHEMA_SYMBOLIC) {
			struct ps_error serr = { 0 };
			char *t = ps_schema__text(ps_input__session(in), (enum ps_schema_dialect)d,
			                          flags ? NULL : "db.t_1", (unsigned int)flags,
			                          &serr);

			if (!t) {
				if (!serr.code)
					abort();
				continue;
			}
			if (!*t || t[strlen(t) - 1] != '\n')
				abort();
			sql_check(t, (enum ps_schema_dialect)d);
			/* the header alone is the recording's own schema */
			if (!size && head_len && d == PS_SCHEMA_CLICKHOUSE && flags &&
			    strcmp(t, base) != 0)
				abort();
			free(t);
		}
	ps_input__close(in);
	return 0;
}
