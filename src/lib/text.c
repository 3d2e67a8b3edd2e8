// SPDX-License-Identifier: GPL-2.0-only
/*
 * text.c - string helpers: the edit distance behind "did you mean" suggestions, names
 * written on one line.
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

void ps_text__put_line(FILE *fp, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + n;

	for (; p < end && *p; p++) {
		if (*p == '\n')
			fputs("\\n", fp);
		else if (*p == '\t')
			fputs("\\t", fp);
		else if (*p < 0x20 || *p == 0x7f)
			fprintf(fp, "\\x%02x", *p);
		else if (*p == 0xc2 && p + 1 < end && p[1] >= 0x80 && p[1] <= 0x9f)
			fprintf(fp, "\\xc2\\x%02x", *++p);
		else
			fputc(*p, fp);
	}
}
