/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rowbinary.h - samples as ClickHouse RowBinary rows of the table schema.h declares: the
 * values ptojson writes (and pstream-clickhouse's JSON rows carried), in binary, so the
 * server reads them without parsing text.  Text is made valid UTF-8 as ptojson makes it
 * (every byte that starts no valid sequence becomes U+FFFD), addresses are "0x..." text,
 * a u64 widened with a signed field a 16-byte Decimal128(0); a column the sample has no
 * value for gets the type's default (0, "", []).  The "stack" column takes the caller's
 * bytes as they are (pcount --folded's line), "batch" the caller's id.
 *
 * A batch of rows is self-describing: ps_rowbinary__header() is two text lines, the column
 * list for INSERT INTO t (...) FORMAT RowBinary and the columns' types, after which the
 * rows follow; ps_rowbinary__row() finds where a row ends from the types alone (the spool
 * counts and cuts rows with it).
 */
#ifndef PS_ROWBINARY_H
#define PS_ROWBINARY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "json.h"

struct ps_session;
struct ps_sample;
struct ps_symbols;
struct ps_rowbinary;

/**
 * ps_rowbinary__new() - a row writer for @s's table (ps_schema__columns()).
 * @syms: names for ip, sym, symoff, dso and the callchain's frames, or NULL (addresses
 *        only: every frame kept, names empty)
 * @host: the host column's value
 * @flags: ps_schema__columns()'s (PS_SCHEMA_NATS)
 * Return: the writer, or NULL with @err set (out of memory).
 */
struct ps_rowbinary *ps_rowbinary__new(const struct ps_session *s, struct ps_symbols *syms,
                                       const char *host, unsigned int flags, struct ps_error *err);

/**
 * ps_rowbinary__set_nats() - the values of the NATS columns (PS_SCHEMA_NATS) from the next
 * row on: the subject (NULL: unchanged), the message's stream sequence and the record's
 * byte offset in the message.
 * Return: 0, or -1 when out of memory (the subject is then unchanged).
 */
int ps_rowbinary__set_nats(struct ps_rowbinary *rb, const char *subject, uint64_t seq,
                           uint32_t offset);

/**
 * ps_rowbinary__set_host() - the host column's value from the next row on (a merged
 * stream's rows take their input's).
 * Return: 0, or -1 when out of memory (the value is then unchanged).
 */
int ps_rowbinary__set_host(struct ps_rowbinary *rb, const char *host);

/** ps_rowbinary__delete() - free @rb (NULL is fine). */
void ps_rowbinary__delete(struct ps_rowbinary *rb);

/**
 * ps_rowbinary__header() - the two header lines of a batch (NUL-terminated, newline after
 * each): "(`col`, ...)" and the types, space-separated.
 */
const char *ps_rowbinary__header(const struct ps_rowbinary *rb);

/**
 * ps_rowbinary__write() - append one row for @smp to @b.
 * @comm: the thread's name, or NULL ("")
 * @misc: the SAMPLE record's header misc (for the symbols)
 * @stack, @stack_len: the stack column's bytes, as they are
 * @batch: the batch column's value
 * Return: 0, or -1 when out of memory (@b->failed set).
 */
int ps_rowbinary__write(struct ps_rowbinary *rb, struct ps_json_buf *b, const struct ps_sample *smp,
                        const char *comm, uint16_t misc, const char *stack, size_t stack_len,
                        const char *batch);

/**
 * struct ps_rowbinary_types - the column types of a batch's header, to walk its rows.
 */
struct ps_rowbinary_types {
	unsigned char *t; /* one code per column */
	size_t n;
};

/**
 * ps_rowbinary__parse_header() - the header at the start of @p (@len bytes).
 * @types: receives the column types (free @types->t)
 * Return: the header's length (the first row's offset), 0 when @p holds no complete
 * header, -1 when it is not one ps_rowbinary__header() writes (or out of memory).
 */
long ps_rowbinary__parse_header(const char *p, size_t len, struct ps_rowbinary_types *types);

/**
 * ps_rowbinary__row() - the length of the row at @p (@len bytes available).
 * @last: receives the offset of the row's last column (the batch id), or NULL
 * Return: the length, 0 when the row is cut short within @len, -1 when it is malformed
 * (a string or array longer than 1 GiB).
 */
long ps_rowbinary__row(const struct ps_rowbinary_types *types, const unsigned char *p, size_t len,
                       size_t *last);

/*
 * A type code: the scalar's kind in the low four bits (PS_RB_U8 ... PS_RB_STRING, in the
 * order UInt8 UInt16 UInt32 UInt64 Int8 Int16 Int32 Int64 Decimal128(0) String), PS_RB_ARRAY
 * for an Array of it.
 */
#define PS_RB_I8 4
#define PS_RB_D128 8
#define PS_RB_STRING 9
#define PS_RB_ARRAY 16

/** ps_rowbinary__width() - the bytes of one element of type @code (0: a String). */
unsigned int ps_rowbinary__width(unsigned char code);

/**
 * ps_rowbinary__value() - the length of one value of type @code (a byte of @types->t) at @p.
 * Return: as ps_rowbinary__row().
 */
long ps_rowbinary__value(unsigned char code, const unsigned char *p, size_t len);

/**
 * ps_rowbinary__names() - the column names of a header's first line, unquoted (the names
 * of the table, as system.columns has them).
 * @names: receives a malloc'ed array of @n malloc'ed strings (ps_rowbinary__names_free())
 * Return: 0, or -1 when the line is not one ps_rowbinary__header() writes (or out of memory).
 */
int ps_rowbinary__names(const char *line, size_t len, char ***names, size_t *n);

/** ps_rowbinary__names_free() - free what ps_rowbinary__names() gave. */
void ps_rowbinary__names_free(char **names, size_t n);

/**
 * ps_rowbinary__project() - a batch (header and rows, @len bytes at @p) with only the
 * columns @keep says (one flag per column), for a table that lacks the others.
 * @out: receives the new batch (header and rows)
 * Return: the number of rows, or -1 when the batch is malformed (or out of memory:
 * @out->failed).
 */
long ps_rowbinary__project(const char *p, size_t len, const bool *keep, struct ps_json_buf *out);

#endif
