/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fuzz_session.h - a session and a sample for the targets that check text against a stream
 * (filters, keys, sums): the header of a real recording with tracepoints (raw_syscalls), read
 * once, and its first SAMPLE.  PS_FUZZ_STREAM names another stream; without one a session
 * with a single software event is made by hand.
 */
#ifndef PS_FUZZ_SESSION_H
#define PS_FUZZ_SESSION_H

#include <stdlib.h>
#include <string.h>

#include "lib/input.h"
#include "lib/sample.h"
#include "lib/session.h"
#include "fuzz_util.h"

#define FUZZ_STREAM "tests/data/rawsys-dd.pipe"

/* A session that has seen one ATTR record: cpu-clock, sampling ip, tid, time, cpu. */
static struct ps_session *fuzz_session_by_hand(struct ps_sample *smp)
{
	static unsigned char attr[8 + 128 + 8], rec[8 + 32];
	struct ps_record r = { .data = attr, .len = sizeof(attr), .size = sizeof(attr) };
	struct ps_error err = { 0 };
	struct ps_session *s = ps_session__new(false);

	if (!s)
		abort();
	r.type = PS_RECORD_HEADER_ATTR;
	ps_put32(attr, PS_RECORD_HEADER_ATTR, false);
	ps_put16(attr + 6, sizeof(attr), false);
	ps_put32(attr + 8 + PS_ATTR_TYPE, PERF_TYPE_SOFTWARE, false);
	ps_put32(attr + 8 + PS_ATTR_SIZE, 128, false);
	ps_put64(attr + 8 + PS_ATTR_SAMPLE_TYPE,
	         PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU, false);
	ps_put64(attr + 8 + 128, 7, false);
	if (ps_session__process(s, &r, "fuzz", &err) < 0)
		abort();
	r = (struct ps_record){ .data = rec, .len = sizeof(rec), .size = sizeof(rec) };
	r.type = PERF_RECORD_SAMPLE;
	ps_put32(rec, PERF_RECORD_SAMPLE, false);
	ps_put16(rec + 6, sizeof(rec), false);
	ps_put64(rec + 8, 0xffffffff81000000ULL, false);
	ps_put32(rec + 16, 42, false);
	ps_put32(rec + 20, 43, false);
	ps_put64(rec + 24, 1000000, false);
	ps_put32(rec + 32, 1, false);
	if (ps_sample__parse(s, &r, smp, "fuzz", &err) < 0)
		abort();
	return s;
}

/* The session of a real stream up to its first SAMPLE, kept open for the whole run. */
static struct ps_session *fuzz_session(struct ps_sample *smp)
{
	static unsigned char copy[65536];
	static struct ps_input *in; /* kept open (and reachable) for the whole run */
	const char *path = getenv("PS_FUZZ_STREAM");
	struct ps_error err = { 0 };
	struct ps_record rec;

	in = ps_input__open(path ? path : FUZZ_STREAM, PS_INPUT_DECOMPRESS, &err);
	if (!in)
		return fuzz_session_by_hand(smp);
	while (ps_input__next(in, &rec, &err) > 0) {
		if (rec.type != PERF_RECORD_SAMPLE || rec.len > sizeof(copy))
			continue;
		memcpy(copy, rec.data, rec.len);
		rec.data = copy;
		if (ps_sample__parse(ps_input__session(in), &rec, smp, "fuzz", &err) == 0)
			return ps_input__session(in); /* @in stays open: it owns the session */
	}
	ps_input__close(in);
	in = NULL;
	return fuzz_session_by_hand(smp);
}

/*
 * The start of a target that checks text against the stream: @data as text (fuzz_text()),
 * or NULL for an input over 4 KiB (not tried); *@s and *@smp, the session and its first
 * sample, made by the first call.
 */
static inline char *fuzz_begin(const uint8_t *data, size_t size, struct ps_session **s,
                               struct ps_sample *smp)
{
	if (size > 4096)
		return NULL;
	if (!*s)
		*s = fuzz_session(smp);
	return fuzz_text(data, size);
}

#endif
