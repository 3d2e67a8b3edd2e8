/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * text.h - small string helpers shared by the modules that suggest names.
 */
#ifndef PS_TEXT_H
#define PS_TEXT_H

#include <stddef.h>
#include <stdio.h>

/**
 * ps_edit_distance() - the Levenshtein distance between @a and @b, for "did you mean".
 * Return: the distance, or SIZE_MAX when either string is 255 bytes or longer.
 */
size_t ps_edit_distance(const char *a, const char *b);

/**
 * ps_text__put_line() - write @n bytes of a name that came from a stream, a file name or a
 * neighbour to @fp so that it stays on its line and cannot drive a terminal: newline and
 * tab as \n and \t, the other control bytes (and DEL) as \xNN, the C1 controls of UTF-8
 * (U+0080 to U+009F) as \xc2\xNN; every other byte as it is.  Stops at a NUL.
 */
void ps_text__put_line(FILE *fp, const char *s, size_t n);

#endif
