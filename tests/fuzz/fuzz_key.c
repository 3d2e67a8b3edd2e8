// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_key.c - libFuzzer target for pcount's key language and --sum specs: the input up to
 * its first NUL is a --by list, the rest a --sum spec; both are parsed, checked against the
 * session of a real recording with tracepoints (fuzz_session.h) and applied to its first
 * sample.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/key.h"
#include "fuzz_session.h"
#include "fuzz_util.h"
#include "replay.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct ps_session *s;
	static struct ps_sample smp;
	struct ps_error err = { 0 };
	struct ps_key_sum *sm;
	struct ps_key *k;
	char *text, *spec, out[512], col[64];
	int64_t v;

	text = fuzz_begin(data, size, &s, &smp);
	if (!text)
		return 0;
	spec = text + strlen(text) + 1;
	k = ps_key__parse(text, &err);
	if (k) {
		size_t i;

		for (i = 0; i < ps_key__nr(k); i++)
			if (!ps_key__name(k, i))
				abort();
		if (ps_key__check(k, s, &err) == 0 &&
		    ps_key__text(k, s, &smp, out, sizeof(out)) >= 0) {
			for (i = 0; i <= ps_key__nr(k); i++)
				ps_key__column(out, i, col, sizeof(col));
		}
		ps_key__delete(k);
	}
	sm = ps_key_sum__parse(spec, &err);
	if (sm) {
		if (!ps_key_sum__name(sm))
			abort();
		if (ps_key_sum__check(sm, s, &err) == 0)
			ps_key_sum__value(sm, &smp, &v);
		ps_key_sum__delete(sm);
	}
	free(text);
	return 0;
}
