/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * tracedata.h - join the tracing data (TRACING_DATA payloads: the tracepoint formats) of
 * several recordings into one, for a merged stream: perf reads one TRACING_DATA only.
 */
#ifndef PS_TRACEDATA_H
#define PS_TRACEDATA_H

#include <stddef.h>

/**
 * ps_tracedata__merge() - one tracing data blob with the event formats of all of @blobs.
 * @blobs, @lens: @n payloads (the bytes after the TRACING_DATA record header)
 * @out, @out_len: set to a malloc'ed blob, padded with zeros to a multiple of 8
 *
 * The first blob gives everything but the event formats (header page, header event, ftrace
 * formats, kallsyms, printk formats, cmdlines); the event formats are the union of all,
 * each system once, each format once.
 * Return: 0, or -1 when a blob is malformed or memory runs out.
 */
int ps_tracedata__merge(size_t n, const unsigned char *const *blobs, const size_t *lens,
                        unsigned char **out, size_t *out_len);

#endif
