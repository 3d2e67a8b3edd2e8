/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * datafile.h - write a stream as a perf.data file, in one streaming pass.
 *
 * The records of the data section are written as they come, after a file header left
 * blank.  Header records are not data: ATTR records become the attrs section (each attr
 * written at perf 6.1's size, 128 bytes, with its ids), FEATURE records the feature
 * sections, TRACING_DATA the tracing data feature, BUILD_ID records the build-id table,
 * and SAMPLE_TIME the first and last sample time seen.  At the end these sections are
 * written after the data, and the file header is written over the blank one: the output
 * must be a regular file that can be seeked.
 */
#ifndef PS_DATAFILE_H
#define PS_DATAFILE_H

#include <stdbool.h>

#include "error.h"
#include "record.h"

struct ps_datafile;
struct ps_session;

/**
 * ps_datafile__open() - create the perf.data file @path.
 * @swap: the records will be in the byte order opposite to the host's
 * Return: the writer, or NULL with @err set (PS_EUSAGE for "-" or a file that cannot be
 * seeked, PS_ESYS when it cannot be created).
 */
struct ps_datafile *ps_datafile__open(const char *path, bool swap, struct ps_error *err);

/**
 * ps_datafile__open_fd() - write a perf.data file to @fd, an empty regular file open for
 * writing at offset 0 (a temporary file that will be renamed into place, say).
 * @fd: taken over: closed by ps_datafile__close(), or here on failure
 * @name: the name said in messages (not opened); kept, so it must outlive the writer
 * @swap: as for ps_datafile__open()
 * Return: the writer, or NULL with @err set (PS_EUSAGE when @fd is not a regular file).
 */
struct ps_datafile *ps_datafile__open_fd(int fd, const char *name, bool swap, struct ps_error *err);

/**
 * ps_datafile__put() - take one record of the stream.
 * @s: the session that read it, for the sample times of the SAMPLE_TIME feature; NULL
 *     leaves that feature out
 * Return: 0, or -1 with @err set.
 */
int ps_datafile__put(struct ps_datafile *df, const struct ps_session *s,
                     const struct ps_record *rec, struct ps_error *err);

/**
 * ps_datafile__close() - write the sections and the file header, close and free.
 * NULL is allowed.  Return: 0, or -1 with @err set (the file is then incomplete).
 */
int ps_datafile__close(struct ps_datafile *df, struct ps_error *err);

#endif
