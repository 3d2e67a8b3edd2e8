// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_pair.c - libFuzzer target for --pair specs ([NAME=]START,END[:KEYS], durations.h):
 * the input is up to PS_DUR_MAX_PAIRS specs separated by NULs; when they parse, the state
 * is given the session of a real recording (fuzz_session.h) and its first sample, and
 * every field is named, checked and read.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/durations.h"
#include "fuzz_session.h"
#include "fuzz_util.h"
#include "replay.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct ps_session *s;
	static struct ps_sample smp;
	const char *specs[PS_DUR_MAX_PAIRS + 1];
	struct ps_error err = { 0 };
	struct ps_durations *d;
	struct ps_sample one;
	const char *names[PS_DUR_NR];
	char *text, *p, why[400];
	size_t n = 0;
	uint64_t t, v; /* the time step; a value read (not the loop's) */
	int f;

	text = fuzz_begin(data, size, &s, &smp);
	if (!text)
		return 0;
	for (p = text; p <= text + size && n < PS_DUR_MAX_PAIRS + 1; p += strlen(p) + 1)
		specs[n++] = p;
	d = ps_durations__new(specs, n, &err);
	if (d) {
		ps_session__set_durations(s, d);
		ps_durations__available(d, s, names, PS_DUR_NR);
		for (f = 0; f < PS_DUR_NR; f++) {
			const char *name = ps_durations__name(d, f);

			if (name && ps_durations__field(d, name) != f)
				abort();
			ps_durations__why_not(d, f, why, sizeof(why));
			ps_durations__check(s, f, &err);
		}
		for (t = 0; t < 3; t++) {
			one = smp;
			one.time += t;
			ps_durations__sample(d, s, &one);
			for (f = 0; f < PS_DUR_NR; f++)
				ps_durations__value(&one, f, &v);
		}
		ps_durations__take_notice(d);
		ps_session__set_durations(s, NULL);
		ps_durations__delete(d);
	}
	free(text);
	return 0;
}
