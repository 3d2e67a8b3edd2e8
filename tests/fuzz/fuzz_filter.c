// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_filter.c - libFuzzer target for pfilter's language: the input, split at its NUL
 * bytes, is the list of operands; they are lexed, parsed, checked against the session of a
 * real recording with tracepoints (fuzz_session.h), matched against its first sample,
 * described, split for the kernel, inverted and matched again.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/filter.h"
#include "lib/sample.h"
#include "lib/session.h"
#include "fuzz_session.h"
#include "fuzz_util.h"
#include "replay.h"

#define MAX_OPERANDS 16

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct ps_session *s;
	static struct ps_sample smp;
	const char *ops[MAX_OPERANDS];
	struct ps_filter_error ferr;
	struct ps_filter *f;
	char *text, *p, *desc, *kernel = NULL, *rest = NULL;
	int n = 0;

	text = fuzz_begin(data, size, &s, &smp);
	if (!text)
		return 0;
	for (p = text; n < MAX_OPERANDS && p <= text + size; p += strlen(p) + 1)
		ops[n++] = p;
	memset(&ferr, 0, sizeof(ferr));
	f = ps_filter__parse(n, ops, &ferr);
	if (!f) {
		char *caret = ps_filter_error__caret(&ferr);

		free(caret);
		free(text);
		return 0;
	}
	if (ps_filter__check(f, s, &ferr) == 0) {
		desc = ps_filter__describe(f);
		free(desc);
		if (ps_filter__pushdown(f, &kernel, &rest) == 0) {
			free(kernel);
			free(rest);
		}
		ps_filter__uses_comm(f);
		ps_filter__match(f, s, &smp);
		ps_filter__invert(f);
		desc = ps_filter__describe(f);
		free(desc);
		ps_filter__match(f, s, &smp);
	} else {
		char *caret = ps_filter_error__caret(&ferr);

		free(caret);
	}
	ps_filter__delete(f);
	free(text);
	return 0;
}
