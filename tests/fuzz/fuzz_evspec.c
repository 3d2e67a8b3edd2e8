// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_evspec.c - libFuzzer target for precord's event specs: the input up to its first NUL
 * is an -e argument (software events, system:event with globs, comma lists, as the
 * tracefs of this machine has them), the rest a --filter for it.  Nothing is opened.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/recorder.h"
#include "fuzz_util.h"
#include "replay.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ps_error err = { 0 };
	struct ps_recorder *r;
	char *text;

	if (size > 1024)
		return 0;
	text = fuzz_text(data, size);
	r = ps_recorder__new(&err);
	if (!r)
		abort();
	if (ps_recorder__add_event(r, text, &err) > 0)
		ps_recorder__set_filter(r, text + strlen(text) + 1, &err);
	ps_recorder__delete(r);
	free(text);
	return 0;
}
