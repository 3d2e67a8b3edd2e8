/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * tracedata.h - join the tracing data (TRACING_DATA payloads: the tracepoint formats) of
 * several recordings into one, for a merged stream: perf reads one TRACING_DATA only.
 *
 * A tracepoint's id is the kernel's, given at boot: id 1001 may be raw_syscalls:sys_enter
 * on one host and sched:sched_wakeup on another.  The joined formats keep one id per
 * format: a format whose id an earlier recording gave to another format gets a new id,
 * and the recording's tracepoint ids are remapped (the attrs' config, the samples'
 * common_type) by the table the join returns.
 */
#ifndef PS_TRACEDATA_H
#define PS_TRACEDATA_H

#include <stddef.h>
#include <stdint.h>

/**
 * struct ps_tp_remap - the tracepoint ids of one blob that the joined blob changed.
 * @old, @new: @n pairs, sorted by @old
 */
struct ps_tp_remap {
	uint32_t *old, *new;
	size_t n;
};

/**
 * ps_tracedata__merge() - one tracing data blob with the event formats of all of @blobs.
 * @blobs, @lens: @n payloads (the bytes after the TRACING_DATA record header)
 * @out, @out_len: set to a malloc'ed blob, padded with zeros to a multiple of 8
 * @remap: @n tables, filled: the ids of blob i that the joined blob changed (free each
 *         with ps_tracedata__remap_free())
 *
 * The first blob gives everything but the event formats (header page, header event, ftrace
 * formats, kallsyms, printk formats, cmdlines); the event formats are the union of all,
 * each system once, each format once.  A format of a later blob whose id is taken (by an
 * earlier blob's different format) gets an id that no blob uses, written into its "ID:"
 * line.  The first blob's ids never change.
 * Return: 0, or -1 when a blob is malformed, no id is left for a format (ids are 16 bits
 * in a sample's common_type) or memory runs out.
 */
int ps_tracedata__merge(size_t n, const unsigned char *const *blobs, const size_t *lens,
                        unsigned char **out, size_t *out_len, struct ps_tp_remap *remap);

/** ps_tracedata__remap_id() - the id @id of a blob becomes in the joined blob. */
uint64_t ps_tracedata__remap_id(const struct ps_tp_remap *r, uint64_t id);

/** ps_tracedata__remap_free() - free the pairs of @r (zeroed); NULL is allowed. */
void ps_tracedata__remap_free(struct ps_tp_remap *r);

#endif
