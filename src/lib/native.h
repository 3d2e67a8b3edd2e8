/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * native.h - a RowBinary batch (rowbinary.h: header and rows) as one block of ClickHouse's
 * Native format, the columnar form the server stores: the number of columns and of rows
 * (varints), then per column its name, its type name (strings: varint length, bytes) and
 * its values one after the other; a String value is a varint length and the bytes, a
 * number its little-endian bytes, an Array column the cumulative UInt64 end of every row's
 * elements and then all the elements.  The rows may be put in the order of some key
 * columns (the table's ORDER BY), stably: a block already in that order spares the server
 * its sort.  The spool keeps RowBinary (rows are counted and cut there); a batch becomes a
 * block only on its way to the server.
 */
#ifndef PS_NATIVE_H
#define PS_NATIVE_H

#include <stddef.h>

#include "json.h"

/**
 * ps_native__from_rowbinary() - the Native block of the batch at @p (@len bytes).
 * @key: the names of the columns to order the rows by, first first (a name the batch
 *       lacks, or an Array column, is left out of the key); NULL with @nkey 0: as they are
 * @out: the block is appended here
 * Return: the number of rows, or -1 when the batch is malformed (a row cut short, a value
 * too long) or out of memory (@out->failed set).
 */
long ps_native__from_rowbinary(const char *p, size_t len, const char *const *key, size_t nkey,
                               struct ps_json_buf *out);

/**
 * ps_native__place() - as ps_native__from_rowbinary(), the block written where the caller
 * wants it (a memory file's mapping: no copy of the block afterwards).
 * @place: called once, with an upper bound of the block's size, before a byte is written;
 *         returns where to write it, or NULL (out of memory: the conversion fails)
 * @size: set to the block's length (at most what @place was asked for)
 * Return: the number of rows, -1 when the batch is malformed, or -2 when out of memory
 * (@place said NULL).
 */
long ps_native__place(const char *p, size_t len, const char *const *key, size_t nkey,
                      char *(*place)(void *arg, size_t size), void *arg, size_t *size);

#endif
