/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * files.h - the files a command line names: an -o output that must never destroy an input,
 * a device or a FIFO, nor be left half written, and a terminal where a stream is expected on
 * standard input.
 *
 * The one set of rules for every output file of every program (pstream(7), FILES):
 *  - A device, a FIFO or a socket at the name is opened for writing as it is, never
 *    replaced.
 *  - A regular file, or no file, is written under a temporary name made by mkostemp(3)
 *    (exclusive creation, unpredictable name), ".NAME.XXXXXX" in the same directory, and
 *    renamed over NAME when complete; until then NAME keeps its old contents.  The new
 *    file has the owner (as far as allowed) and the permission bits of the file it
 *    replaces, never its set-user-ID, set-group-ID or sticky bits; a new file gets 0666
 *    less the umask.  An unfinished temporary file is removed on every exit but SIGKILL.
 *  - A symbolic link at the name is followed: its target is the file written or replaced
 *    (the temporary file is made beside the target), and the link stays a link.  A link
 *    is followed only when it belongs to the user running the program or to the owner of
 *    the directory that holds it (the rule of the kernel's fs.protected_symlinks, kept in
 *    every directory since a rename does not pass through the kernel's check); another
 *    link is refused.
 *  - A file that is an input (same device and inode, by any name) is refused.
 */
#ifndef PS_FILES_H
#define PS_FILES_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "error.h"

struct ps_outfile;

/**
 * ps_outfile__create() - open the output file @path by the rules above.
 * @path: the output's name (not "-"); kept for messages, so it must outlive the handle
 * @inputs: the inputs the program reads ("-" is standard input); NULL when it reads only
 *          standard input
 * @nr_inputs: how many; 0 means standard input
 * @err: filled on failure: PS_EUSAGE for an input or a symbolic link that is not followed,
 *       PS_ESYS when it cannot be made or opened
 *
 * Nothing is written at @path before ps_outfile__close() (a device or FIFO excepted, which
 * is written as it is).  The descriptor (ps_outfile__fd()) is close-on-exec.
 * Return: the handle (owned by the caller until ps_outfile__close()), or NULL.
 */
struct ps_outfile *ps_outfile__create(const char *path, const char *const *inputs, int nr_inputs,
                                      struct ps_error *err);

/**
 * ps_outfile__open() - ps_outfile__create(), then the file made standard output (fd 1).
 * @path, @inputs, @nr_inputs, @err: as for ps_outfile__create()
 *
 * The caller keeps writing to standard output (stdio or fd 1) and must not have written to
 * it yet; it flushes standard output before ps_outfile__close().
 * Return: the handle (owned by the caller until ps_outfile__close()), or NULL.
 */
struct ps_outfile *ps_outfile__open(const char *path, const char *const *inputs, int nr_inputs,
                                    struct ps_error *err);

/**
 * ps_outfile__fd() - the descriptor to write, owned by @of (closed by ps_outfile__close());
 * -1 after ps_outfile__open(), which made it standard output, or ps_outfile__stream().
 */
int ps_outfile__fd(const struct ps_outfile *of);

/**
 * ps_outfile__stream() - the descriptor as a stdio stream, made on the first call.
 * The stream is owned by @of: ps_outfile__close() flushes and closes it.
 * Return: the stream, or NULL with @err set (out of memory, or after ps_outfile__open()).
 */
FILE *ps_outfile__stream(struct ps_outfile *of, struct ps_error *err);

/**
 * ps_outfile__close() - put the output in place, or leave the old file as it was.
 * @of: from ps_outfile__create() or ps_outfile__open(); NULL is allowed and does nothing
 * @complete: everything was written (flushed, no write error)
 * @interrupted: the program was stopped by a signal before the end of its input
 * @err: filled when closing (a write error found late) or the rename fails
 *
 * The temporary file replaces the output when @complete, unless @interrupted while every
 * input was a regular file (a conversion cut short is not kept; a live stream ended by
 * Ctrl-C is).  Otherwise it is removed.  Frees @of.
 * Return: 1 when the output was put in place (or written as it is), 0 when it was dropped,
 * -1 on failure (and dropped).
 */
int ps_outfile__close(struct ps_outfile *of, bool complete, bool interrupted, struct ps_error *err);

/**
 * ps_outpath__refuse_input() - refuse to write @path when it is the same file (device and
 * inode) as one of @inputs (as ps_outfile__create() does), for a program that writes files
 * of its own besides standard output (psplit's pieces).
 * @inputs, @nr_inputs: as for ps_outfile__create(); none means standard input
 * Return: 0, or -1 with PS_EUSAGE in @err.
 */
int ps_outpath__refuse_input(const char *path, const char *const *inputs, int nr_inputs,
                             struct ps_error *err);

/**
 * ps_outpath__create_tmp() - create the temporary file a new @final is written under, by the
 * rules above, for a caller that keeps the temporary name itself (psplit's pieces, reopened
 * for appending): ".NAME.XXXXXX" beside @final, or beside the file a symbolic link at
 * @final leads to.  A device or a FIFO at @final is refused (PS_EUSAGE): this helper only
 * makes regular files.  The caller puts the file in place with ps_outpath__commit(), and
 * removes it with unlink(2) otherwise (it is not removed at exit).
 * @tmp: set to its name (malloc'ed; the caller frees it)
 * Return: a descriptor open for writing (close-on-exec), or -1 with @err set.
 */
int ps_outpath__create_tmp(const char *final, char **tmp, struct ps_error *err);

/**
 * ps_outpath__reopen_tmp() - open(2) @tmp, made by ps_outpath__create_tmp() and closed
 * since, for appending, refusing anything that cannot be that file: a symbolic link, a
 * file of several names, anything not a regular file (someone who can write the directory
 * may have put it there).
 * Return: a descriptor (close-on-exec), or -1 with errno set (ESTALE: not the file made).
 */
int ps_outpath__reopen_tmp(const char *tmp);

/**
 * ps_outpath__commit() - rename @tmp, from ps_outpath__create_tmp(@final), over @final, or
 * over the file its symbolic link leads to.
 * Return: 0, or -1 with @err set (PS_EWRITE); @tmp is then still there.
 */
int ps_outpath__commit(const char *tmp, const char *final, struct ps_error *err);

/**
 * ps_outpath__expand() - the name an output pattern gives (psplit's pieces, pflame's
 * graphs per interval): %n is @number, written with at least @width digits; %k is @key;
 * %% is a percent sign; any other character is itself.
 * @dir: a directory the name is put in ("DIR/NAME"), or NULL
 * @key: the text of %k, already made safe for a file name; NULL is empty
 * Return: the name (malloc'ed; the caller frees it), or NULL when out of memory.
 */
char *ps_outpath__expand(const char *dir, const char *pattern, uint64_t number, int width,
                         const char *key);

/**
 * ps_stdin__refuse_tty() - refuse to read a stream from a terminal, where a user who forgot
 * the input would otherwise wait in silence.
 * @inputs: the inputs the program reads; NULL, "-" or @nr_inputs 0 is standard input
 * @nr_inputs: how many
 * @err: filled with PS_EUSAGE when one of them is standard input and that is a terminal
 * Return: 0 or -1.
 */
int ps_stdin__refuse_tty(const char *const *inputs, int nr_inputs, struct ps_error *err);

/**
 * ps_file__open_named() - open a file that a stream or the file system named, for
 * reading, without blocking and without side effects: the name is first opened O_PATH (a
 * FIFO, a device or a socket is never opened for reading), then reopened O_RDONLY |
 * O_NONBLOCK | O_NOCTTY, and used only when it is a regular file of at most @max bytes.
 * Symbolic links are followed (libraries are reached through them); the file they end at
 * is what is checked.
 * @why: set to NULL when the file does not exist or cannot be opened (say nothing), else to
 *       what is wrong with it ("not a regular file, not read", "too big, not read")
 * Return: the descriptor (close-on-exec), or -1.
 */
int ps_file__open_named(const char *path, uint64_t max, const char **why);

#endif
