/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * spool.h - a directory of batches waiting to be sent (pstream-clickhouse's spool): the
 * batch files' names, the directory's safety check, rows counted and a batch cut short
 * by a kill cut back to its whole rows, and the queue of sealed batches in their order.
 * A batch is JSON rows, one a line (b-SEQ-RUN-N.json), or RowBinary rows after a header
 * (b-SEQ-RUN-N.rb, rowbinary.h); while it is written its name ends in .part (.rb.part).
 * What to send and how stays with the program; this file prints nothing.
 */
#ifndef PS_SPOOL_H
#define PS_SPOOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

/* the RUN part of a batch name: sixteen hex digits */
#define PS_SPOOL_RUN_ID_LEN 16
/* at most this many sealed batches wait */
#define PS_SPOOL_MAX_QUEUE 100000

/**
 * struct ps_batch - one sealed batch.
 * @path: SPOOL/b-SEQ-ID.json or .rb (malloc'ed)
 * @id: the batch id, RUN-N (the batch column's value)
 * @bin: RowBinary: the header's two lines, then the rows from @data_off
 * @tried: an insert was attempted: check before inserting again
 */
struct ps_batch {
	char *path;
	char id[64];
	uint64_t rows, bytes;
	bool bin;
	uint64_t data_off;
	bool tried;
	uint64_t ack; /* the caller's: what its insert lets it acknowledge upstream */
};

/**
 * ps_spool__batch_name() - @name is a batch of ours, b-SEQ-RUN-N.json/.rb (.part,
 * .rb.part while written), SEQ N in twelve digits, RUN sixteen hex digits, and nothing else:
 * its id RUN-N in @id, SEQ in @seq, whether it is still written (@part) and RowBinary (@bin).
 * Return: true when it is.
 */
bool ps_spool__batch_name(const char *name, char *id, size_t idlen, uint64_t *seq, bool *part,
                          bool *bin);

/**
 * ps_spool__check_dir() - @dir is safe to spool in: a directory (not a symbolic link) of
 * the effective user that nobody else can write; else someone could put a link at a batch's
 * name and have this run write through it, or remove batches unloaded.
 * Return: 0, or -1 with @err set (PS_EUSAGE, or PS_ESYS when it cannot be looked at).
 */
int ps_spool__check_dir(const char *dir, struct ps_error *err);

/** ps_spool__file_size() - the size of the open file @fd (0 when unknown). */
uint64_t ps_spool__file_size(int fd);

/**
 * ps_spool__count() - a sealed batch's @rows, @bytes and (RowBinary) @data_off from its
 * file @b->path; 0 rows when it cannot be read or is not a batch.
 */
void ps_spool__count(struct ps_batch *b);

/**
 * ps_spool__cut() - the batch a killed run was writing, @part (@b->bin says its kind): a
 * row cut short at its end is cut off the file; @b->rows, @b->bytes (what is kept) and
 * @b->data_off set, @size the bytes it had.
 * Return: 0, or -1 with @err set when it cannot be read or cut.
 */
int ps_spool__cut(const char *part, struct ps_batch *b, uint64_t *size, struct ps_error *err);

/** struct ps_spool_queue - sealed batches, first first; zero it to start. */
struct ps_spool_queue {
	struct ps_batch *q;
	size_t head, n, cap;
};

/**
 * ps_spool_queue__push() - @b last in the queue (copied).
 * Return: 0, or -1 when PS_SPOOL_MAX_QUEUE wait already or out of memory.
 */
int ps_spool_queue__push(struct ps_spool_queue *q, const struct ps_batch *b);

/** ps_spool_queue__release() - free the queue (not the batches' paths). */
void ps_spool_queue__release(struct ps_spool_queue *q);

#endif
