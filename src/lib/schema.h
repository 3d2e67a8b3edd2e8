/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * schema.h - the table a stream's samples load into, typed from the stream's own attrs and
 * tracepoint formats: one column per key ptojson writes for a sample (host, event, time,
 * pid, tid, cpu, comm, the sample fields the attrs carry) and one "fields.NAME" column per
 * tracepoint field, typed from libtraceevent's field description (signedness, width,
 * strings, arrays), widened when two events disagree.  Columns hold the values as ptojson
 * writes them: addresses ("0x..." strings) are text, u64 numbers are exact (a u64 field that
 * is signed in another event too: a 128-bit decimal).  Names from the stream (fields, events)
 * are data: a column name is quoted whatever its bytes, a name in a comment escaped.  The call
 * chain has one array column per frame member (callchain.ip, .sym, .symoff, .dso: a
 * ClickHouse Nested, as pstream-clickhouse writes it); other nested objects have none.
 */
#ifndef PS_SCHEMA_H
#define PS_SCHEMA_H

#include "error.h"

struct ps_session;

enum ps_schema_dialect {
	PS_SCHEMA_SQL,        /* a plain column list: "name" TYPE, portable SQL types */
	PS_SCHEMA_CLICKHOUSE, /* CREATE TABLE ... ENGINE = MergeTree ORDER BY (host, event, time) */
};

/* ps_schema__text() flags */
/* a "fields.NAME_sym" text column next to each field ptojson --symbolic names */
#define PS_SCHEMA_SYMBOLIC 0x1
/* ClickHouse: the "nats_subject", "nats_seq" and "nats_offset" columns of a loader that reads
 * NATS itself (pstream-clickhouse --nats): where each row's record was, for exactly once */
#define PS_SCHEMA_NATS 0x2

/**
 * ps_schema__text() - the table of @s's samples as text.
 * @s: the session, once its header records are read (attrs, TRACING_DATA)
 * @d: the dialect
 * @table: the table name for PS_SCHEMA_CLICKHOUSE, "NAME" or "DATABASE.NAME", each part
 *         letters, digits and '_'; NULL means "pstream"
 * @flags: PS_SCHEMA_*
 * @err: why not, when NULL is returned
 *
 * The ClickHouse statement is CREATE TABLE IF NOT EXISTS and has a "stack" column (the
 * sample's folded stack, as pcount --folded writes it) and a "batch" column (the loader's
 * batch id), see pstream-clickhouse(1); it loads into ClickHouse 18.16 and later.
 * A tracepoint field that is a number in one event and text or an array in another has no
 * column (a comment says so), since no column type holds both as ptojson writes them.  A
 * column's name is ptojson's key (invalid UTF-8 as U+FFFD), in `backquotes` with \ escapes
 * (ClickHouse) or "double quotes" with "" (SQL); a name in a comment has every control byte,
 * \, invalid UTF-8 byte and the / of * / written \xNN, so it ends neither.
 *
 * Return: the text (malloc'ed, NUL-terminated, ends with a newline; the caller frees it),
 * or NULL with @err set (bad table name, out of memory).
 */
char *ps_schema__text(const struct ps_session *s, enum ps_schema_dialect d, const char *table,
                      unsigned int flags, struct ps_error *err);

/**
 * ps_schema__valid_table() - @table is a name ps_schema__text() takes.
 * Return: true when it is.
 */
bool ps_schema__valid_table(const char *table);

enum ps_column_kind {
	PS_COL_INT,  /* a number: @sign, @bytes (1, 2, 4, 8; 16: Decimal128(0)) */
	PS_COL_TEXT, /* String */
	PS_COL_AINT, /* Array of numbers */
	PS_COL_ATEXT /* Array(String) */
};

/**
 * struct ps_schema_column - one column of ps_schema__text()'s ClickHouse table.
 * @name: ptojson's key (valid UTF-8)
 * @quoted: the name as the CREATE statement writes it (`name`, escaped)
 */
struct ps_schema_column {
	char *name, *quoted;
	enum ps_column_kind kind;
	bool sign;
	unsigned int bytes;
};

/**
 * ps_schema__columns() - the columns of the ClickHouse table ps_schema__text() declares
 * for @s with @flags (PS_SCHEMA_NATS; PS_SCHEMA_SYMBOLIC is not taken), in its order, the
 * columns it leaves out left out.
 * @nr: receives their number
 * Return: the array (free it with ps_schema__columns_free()), or NULL when out of memory.
 */
struct ps_schema_column *ps_schema__columns(const struct ps_session *s, unsigned int flags,
                                            size_t *nr, struct ps_error *err);

/** ps_schema__columns_free() - free what ps_schema__columns() returned. */
void ps_schema__columns_free(struct ps_schema_column *c, size_t n);

#endif
