/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * files.h - the files a command line names: an -o output that must never destroy an input
 * nor be left half written, and a terminal where a stream is expected on standard input.
 */
#ifndef PS_FILES_H
#define PS_FILES_H

#include <stdbool.h>

#include "error.h"

struct ps_outfile;

/**
 * ps_outfile__open() - send standard output to @path, safely.
 * @path: the -o operand (a path, not "-")
 * @inputs: the inputs the program reads ("-" is standard input); NULL when it reads only
 *          standard input
 * @nr_inputs: how many; 0 means standard input
 * @err: filled on failure
 *
 * An output that is the same file (device and inode) as an input is refused with PS_EUSAGE
 * before anything is written.  When @path is a regular file or does not exist, standard
 * output (fd 1) goes to a new temporary file beside it, ".NAME.XXXXXX" in the same
 * directory with @path's permissions, which ps_outfile__close() renames over @path; until
 * then @path is untouched, and a program that exits without that (a usage error, a failure,
 * a crash of its own) leaves no temporary file behind: an atexit handler removes it.  Any
 * other file (a FIFO, a device) is opened as it is.  The caller keeps writing to standard
 * output (stdio or fd 1) and must not have written to it yet.
 *
 * Return: the handle (owned by the caller until ps_outfile__close()), or NULL.
 */
struct ps_outfile *ps_outfile__open(const char *path, const char *const *inputs, int nr_inputs,
                                    struct ps_error *err);

/**
 * ps_outfile__close() - put the output in place, or leave the old file as it was.
 * @of: from ps_outfile__open(); NULL is allowed and does nothing
 * @complete: everything was written to standard output (flushed, no write error)
 * @interrupted: the program was stopped by a signal before the end of its input
 * @err: filled when the rename fails
 *
 * Standard output must already be flushed.  The temporary file replaces @path when
 * @complete, unless @interrupted while every input was a regular file (a conversion cut
 * short is not kept; a live stream ended by Ctrl-C is).  Otherwise it is removed.  Frees @of.
 * Return: 1 when the output was put in place, 0 when it was dropped, -1 on failure.
 */
int ps_outfile__close(struct ps_outfile *of, bool complete, bool interrupted, struct ps_error *err);

/**
 * ps_outpath__refuse_input() - refuse to write @path when it is the same file (device and
 * inode) as one of @inputs (as ps_outfile__open() does), for a program that writes files of
 * its own besides standard output (psplit's pieces).
 * @inputs, @nr_inputs: as for ps_outfile__open(); none means standard input
 * Return: 0, or -1 with PS_EUSAGE in @err.
 */
int ps_outpath__refuse_input(const char *path, const char *const *inputs, int nr_inputs,
                             struct ps_error *err);

/**
 * ps_outpath__create_tmp() - create the temporary file a new @final is written under:
 * ".NAME.XXXXXX" in @final's directory, with the owner and permissions of the @final it
 * will replace, or those of a new file.  The caller renames it over @final when the file is
 * complete, and removes it otherwise.
 * @tmp: set to its name (malloc'ed; the caller frees it)
 * Return: a descriptor open for writing, or -1 with @err set.
 */
int ps_outpath__create_tmp(const char *final, char **tmp, struct ps_error *err);

/**
 * ps_stdin__refuse_tty() - refuse to read a stream from a terminal, where a user who forgot
 * the input would otherwise wait in silence.
 * @inputs: the inputs the program reads; NULL, "-" or @nr_inputs 0 is standard input
 * @nr_inputs: how many
 * @err: filled with PS_EUSAGE when one of them is standard input and that is a terminal
 * Return: 0 or -1.
 */
int ps_stdin__refuse_tty(const char *const *inputs, int nr_inputs, struct ps_error *err);

#endif
