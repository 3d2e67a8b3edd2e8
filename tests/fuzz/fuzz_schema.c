// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_schema.c - libFuzzer target for the table a stream's samples load into (schema.h,
 * pheader --schema, pstream-clickhouse's CREATE TABLE): an input that starts with the pipe
 * magic is a whole stream; any other input is a byte that chooses a header, then records
 * that follow it, so that EVENT_UPDATE names, attrs and features meet real tracepoint
 * formats (and the fuzzer does not spend its time on TRACING_DATA, which fuzz_input
 * covers).  The headers, up to their first sample: fuzz_session.h's stream (raw_syscalls),
 * and schema-conflict.pipe, made by perf record -e qdisc:qdisc_create -e
 * sock:sock_exceed_buf_limit, whose field "kind" is text in one event and a number in the
 * other, so that the schema has a comment that names an event.  The session's
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

#define CONFLICT_STREAM "tests/fuzz/schema-conflict.pipe"

struct head {
	unsigned char *p;
	size_t len;
};

/* The bytes of the stream at @path up to its first SAMPLE (none when it cannot be read). */
static void load_head(struct head *h, const char *path)
{
	struct ps_error err = { 0 };
	struct ps_record rec;
	struct ps_input *in = ps_input__open(path, 0, &err);
	uint64_t end = 0;
	FILE *fp;

	h->p = malloc(1);
	h->len = 0;
	if (!h->p)
		abort();
	if (!in)
		return;
	while (ps_input__next(in, &rec, &err) > 0 && rec.type != PERF_RECORD_SAMPLE)
		end = rec.offset + rec.len;
	ps_input__close(in);
	fp = fopen(path, "re");
	if (!fp || !(h->p = realloc(h->p, end ? end : 1)) || fread(h->p, 1, end, fp) != end)
		abort();
	fclose(fp);
	h->len = end;
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
	static struct head heads[2];
	static char *base;
	static int fd = -1;
	const struct head *h = NULL;
	struct ps_error err = { 0 };
	struct ps_record rec;
	struct ps_input *in;
	bool whole = size >= 8 && memcmp(data, "PERFILE2", 8) == 0;
	int d, flags, n = 0;

	if (size > 65536)
		return 0;
	if (!heads[0].p) {
		const char *path = getenv("PS_FUZZ_STREAM");

		load_head(&heads[0], path ? path : FUZZ_STREAM);
		load_head(&heads[1], CONFLICT_STREAM);
		base = baseline();
		sql_check(base, PS_SCHEMA_CLICKHOUSE);
	}
	if (!whole) {
		if (!size)
			return 0;
		h = &heads[data[0] & 1];
		data++;
		size--;
	}
	if (fd < 0)
		fd = memfd_create("fuzz_schema", MFD_CLOEXEC);
	if (fd < 0 || ftruncate(fd, 0) < 0 || lseek(fd, 0, SEEK_SET) < 0)
		abort();
	if ((h && h->len && write(fd, h->p, h->len) != (ssize_t)h->len) ||
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
			if (!size && h == &heads[0] && h->len && d == PS_SCHEMA_CLICKHOUSE &&
			    flags && strcmp(t, base) != 0)
				abort();
			free(t);
		}
	ps_input__close(in);
	return 0;
}
