// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_feature.c - libFuzzer target for the FEATURE decoders: the first input byte picks the
 * feature (1-40, the ones perf writes and a few past them), the rest is its payload; it is
 * given to a session as a FEATURE record, in either byte order (the second byte's low bit),
 * then decoded as pheader --json and ptojson --all decode it.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>

#include "lib/header_json.h"
#include "lib/session.h"
#include "replay.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ps_error err = { 0 };
	struct ps_record r = { 0 };
	struct ps_session *s;
	unsigned char *rec;
	unsigned int feat;
	char tmp[256];
	bool swap;
	json_t *j;
	char *out;

	if (size < 2 || size - 2 > UINT16_MAX - 16)
		return 0;
	feat = 1 + data[0] % 40;
	swap = data[1] & 1;
	rec = malloc(16 + size - 2);
	if (!rec)
		abort();
	ps_put32(rec, PS_RECORD_HEADER_FEATURE, swap);
	ps_put16(rec + 4, 0, swap);
	ps_put16(rec + 6, (uint16_t)(16 + size - 2), swap);
	ps_put64(rec + 8, feat, swap);
	memcpy(rec + 16, data + 2, size - 2);
	r.data = rec;
	r.len = 16 + size - 2;
	r.type = PS_RECORD_HEADER_FEATURE;
	r.size = (uint16_t)r.len;
	s = ps_session__new(swap);
	if (!s)
		abort();
	if (ps_session__process(s, &r, "fuzz", &err) == 0) {
		ps_session__feature_string(s, feat, tmp, sizeof(tmp));
		j = ps_header_json__feature(s, feat);
		if (j) {
			out = json_dumps(j, JSON_COMPACT);
			free(out);
			json_decref(j);
		}
		j = ps_header_json__features(s);
		if (j) {
			out = json_dumps(j, JSON_COMPACT);
			free(out);
			json_decref(j);
		}
	}
	ps_session__delete(s);
	free(rec);
	return 0;
}
