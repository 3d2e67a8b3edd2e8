// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_input.c - libFuzzer target for the stream reader and everything a program does
 * with what it reads: framing, payloads, decompression, perf.data files, the session
 * (attrs, ids, names, features, tracepoint formats), SAMPLE decoding, sample_id trailers,
 * record times and tracepoint fields.
 *
 * The bytes go to a memfd, so the input is a seekable regular file: a header that says 16
 * is read as a pipe stream, one that says 104 as a perf.data file.  Each input is read
 * twice, the second time with its header size switched to the other layout, so that every
 * input exercises both readers.  Every pointer and length the library hands out is read
 * in full, so that ASan sees a bound that is wrong.
 *
 * Built with -DPS_FUZZ_REPLAY, replay.h's main() runs the target on each file named on the
 * command line (make unit replays tests/fuzz/corpus/ this way).
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <traceevent/event-parse.h>

#include "lib/input.h"
#include "lib/sample.h"
#include "lib/session.h"
#include "lib/tracing.h"
#include "replay.h"

#define MAX_RECORDS 100000

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile uint64_t sink;

/* Read @n bytes at @p: a bound the library got wrong shows up here under ASan. */
static void touch(const void *p, uint64_t n)
{
	const unsigned char *c = p;
	uint64_t i, s = 0;

	if (!p)
		return;
	for (i = 0; i < n; i++)
		s += c[i];
	sink += s;
}

static void fields(struct tep_format_field *f, const struct ps_sample *smp)
{
	for (; f; f = f->next) {
		uint64_t v;

		if (ps_tracing__read_u64(f, smp->raw, smp->raw_size, &v) == 0)
			sink += v;
		if (!ps_tracing__field(smp->attr->tp, f->name))
			abort(); /* a field of the event must be found by its name */
	}
}

static void sample(struct ps_session *s, const struct ps_record *rec, const char *name)
{
	struct ps_read_value vals[4];
	struct ps_error err = { 0 };
	struct ps_sample smp;
	uint64_t te, tr;

	if (ps_sample__parse(s, rec, &smp, name, &err) < 0) {
		if (!err.code || !memchr(err.detail, 0, sizeof(err.detail)))
			abort();
		return;
	}
	if (!smp.attr)
		abort();
	touch(smp.read, smp.read_len);
	touch(smp.callchain, smp.nr_callchain * 8);
	touch(smp.raw, smp.raw_size);
	touch(smp.branch, smp.nr_branch * 24);
	touch(smp.regs_user, smp.nr_regs_user * 8);
	touch(smp.regs_intr, smp.nr_regs_intr * 8);
	touch(smp.stack_user, smp.stack_size);
	touch(smp.aux, smp.aux_size);
	if (smp.read && ps_sample__read(&smp, &te, &tr, vals, 4) > 0)
		sink += vals[0].value + te + tr;
	if (smp.attr->tp && smp.raw) {
		fields(smp.attr->tp->format.common_fields, &smp);
		fields(smp.attr->tp->format.fields, &smp);
	}
}

static void session_end(struct ps_session *s)
{
	struct ps_attr *a;
	unsigned int f;
	size_t i;

	ps_session__for_each_attr(s, a, i) {
		touch(a->raw, a->raw_size);
		touch(a->ids, a->nr_ids * 8);
		touch(a->name, strlen(a->name));
		if (a->unit)
			touch(a->unit, strlen(a->unit));
		if (ps_session__attr_by_id(s, a->nr_ids ? a->ids[0] : 0) == NULL && a->nr_ids)
			abort(); /* an id the attr declared must find an attr */
	}
	for (f = 0; f < PS_FEAT_BITS + 1; f++) {
		size_t len = 0;
		const unsigned char *p = ps_session__feature(s, f, &len);

		touch(p, len);
	}
	if (ps_session__tracing_error(s))
		touch(ps_session__tracing_error(s), strlen(ps_session__tracing_error(s)));
}

static void read_all(int fd, unsigned int flags)
{
	struct ps_error err = { 0 };
	struct ps_record rec;
	struct ps_input *in;
	struct ps_session *s;
	int ret = 0;
	long n = 0;

	if (lseek(fd, 0, SEEK_SET) < 0)
		abort();
	in = ps_input__open_fd(fd, "fuzz", flags, &err);
	if (!in) {
		if (!err.code || !memchr(err.detail, 0, sizeof(err.detail)))
			abort();
		return;
	}
	s = ps_input__session(in);
	while (n++ < MAX_RECORDS && (ret = ps_input__next(in, &rec, &err)) == 1) {
		struct ps_sample smp;
		uint64_t t;

		if (rec.size < 8 || rec.len < rec.size)
			abort();
		touch(rec.data, rec.len);
		if (rec.type == PERF_RECORD_SAMPLE) {
			sample(s, &rec, "fuzz");
		} else if (rec.type < PS_RECORD_USER_START &&
		           ps_sample__parse_id(s, &rec, &smp) == 1) {
			if (!smp.attr)
				abort();
			sink += smp.time + smp.pid;
		}
		if (ps_session__record_time(s, &rec, &t))
			sink += t;
		sink += (uintptr_t)ps_session__attr_of(s, &rec);
		ps_session__process_sideband(s, &rec);
		if (rec.type == PERF_RECORD_COMM && rec.size >= 16) {
			const char *c =
			        ps_session__comm(s, ps_get32(rec.data + 12, ps_input__swapped(in)));

			if (c)
				touch(c, strlen(c));
		}
		sink += ps_record_type_class(rec.type);
	}
	if (ret < 0) {
		struct ps_error again = { 0 };

		if (!err.code || !memchr(err.detail, 0, sizeof(err.detail)))
			abort();
		/* an error is final, and says the same thing again */
		if (ps_input__next(in, &rec, &again) != -1 || again.code != err.code)
			abort();
	}
	session_end(s);
	ps_input__close(in);
}

static int memfd = -1;

static void load(const uint8_t *data, size_t size)
{
	size_t off = 0;

	if (memfd < 0)
		memfd = memfd_create("fuzz_input", MFD_CLOEXEC);
	if (memfd < 0 || ftruncate(memfd, 0) < 0)
		abort();
	while (off < size) {
		ssize_t n = pwrite(memfd, data + off, size - off, (off_t)off);

		if (n <= 0)
			abort();
		off += (size_t)n;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *other;

	load(data, size);
	read_all(memfd, PS_INPUT_DECOMPRESS | PS_INPUT_CONTAINERS);
	if (size < 16)
		return 0;

	/* the same bytes under the other header: pipe stream <-> perf.data file */
	other = malloc(size);
	if (!other)
		return 0;
	memcpy(other, data, size);
	{
		bool swap = ps_get64(data, false) == PS_MAGIC_SWAPPED;
		uint64_t hsize = ps_get64(data + 8, swap);

		ps_put64(other, PS_MAGIC, swap);
		ps_put64(other + 8,
		         hsize == PS_PIPE_HEADER_SIZE ? PS_FILE_HEADER_SIZE : PS_PIPE_HEADER_SIZE,
		         swap);
	}
	load(other, size);
	read_all(memfd, PS_INPUT_DECOMPRESS);
	free(other);
	return 0;
}
