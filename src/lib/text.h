/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * text.h - small string helpers shared by the modules that suggest names.
 */
#ifndef PS_TEXT_H
#define PS_TEXT_H

#include <stddef.h>

/**
 * ps_edit_distance() - the Levenshtein distance between @a and @b, for "did you mean".
 * Return: the distance, or SIZE_MAX when either string is 255 bytes or longer.
 */
size_t ps_edit_distance(const char *a, const char *b);

#endif
