// SPDX-License-Identifier: GPL-2.0-only
/*
 * text.c - string helpers: the edit distance behind "did you mean" suggestions.
 */
#include <stdint.h>
#include <string.h>

#include "text.h"

size_t ps_edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j, prev, tmp, best;
	size_t row[256];

	if (la >= 255 || lb >= 255)
		return SIZE_MAX;
	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		prev = row[0];
		row[0] = i;
		for (j = 1; j <= lb; j++) {
			tmp = row[j];
			best = prev + (a[i - 1] != b[j - 1]);
			if (row[j] + 1 < best)
				best = row[j] + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			prev = tmp;
		}
	}
	return row[lb];
}
