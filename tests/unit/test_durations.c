// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_durations.c - the duration fields: --pair specs, names, latency on the bundled
 * raw_syscalls recording against enter/exit pairs worked out here, the sched times on the
 * bundled sched recording, and the bound on pending starts (the oldest let go, counted).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>
#include <traceevent/event-parse.h>

#include "lib/durations.h"
#include "lib/reader.h"
#include "lib/sample.h"
#include "lib/session.h"
#include "lib/tracing.h"
#include "unit.h"

#define RAWSYS "tests/data/rawsys-dd.pipe"
#define SCHED "tests/data/sched-switch-wakeup-a.pipe"

static int parse(const char *const *specs, size_t n, char *why, size_t len)
{
	struct ps_error err = { 0 };
	struct ps_durations *d = ps_durations__new(specs, n, &err);

	snprintf(why, len, "%s", err.detail);
	ps_durations__delete(d);
	return d ? 0 : -1;
}

/* a reader of the recording at @path (one check: it opens) */
static struct ps_reader *open_path(const char *path)
{
	struct ps_reader_opts o = { .path = path };
	struct ps_error err = { 0 };
	struct ps_reader *rd = ps_reader__open(&o, &err);

	CHECK(rd != NULL);
	return rd;
}

/*
 * The next sample of @rd from a tracepoint whose name's first @n bytes are @name's (the whole
 * name with its NUL), of the host's byte order when @native, copied into @smp with its raw
 * data in @raw (@size bytes at most).  Return: 1, or what ps_reader__next() returned at
 * the end (0) or on an error (-1).
 */
static int next_tp_sample(struct ps_reader *rd, const char *name, size_t n, bool native,
                          struct ps_sample *smp, unsigned char *raw, size_t size)
{
	struct ps_reader_event ev;
	struct ps_error err = { 0 };
	int r;

	while ((r = ps_reader__next(rd, &ev, &err)) > 0) {
		if (ev.kind != PS_READER_SAMPLE || !ev.smp.attr->tp || (native && ev.smp.swap) ||
		    strncmp(ev.smp.attr->tp->name, name, n) != 0 || ev.smp.raw_size > size)
			continue;
		*smp = ev.smp;
		memcpy(raw, smp->raw, smp->raw_size);
		smp->raw = raw;
		return 1;
	}
	return r;
}

/* @spec alone is refused, for a reason that says @reason (NULL: any) */
static bool refused(const char *spec, const char *reason)
{
	char why[300];

	return parse(&spec, 1, why, sizeof(why)) < 0 && (!reason || strstr(why, reason));
}

static void test_specs(void)
{
	const char *ok[] = { "io=block:block_rq_issue,block:block_rq_complete:dev,sector",
		             "irq:irq_handler_entry,irq:irq_handler_exit:irq",
		             "t=sched:sched_waking,sched:sched_switch:tid" };
	const char *dup[] = { "a:b,c:d", "a:b,c:d" };
	const char *five[] = { "a=a:b,c:d", "b=a:b,c:d", "c=a:b,c:d", "d=a:b,c:d", "e=a:b,c:d" };
	struct ps_error err = { 0 };
	struct ps_durations *d;
	char why[300];

	CHECK(parse(ok, 3, why, sizeof(why)) == 0);
	d = ps_durations__new(ok, 3, &err);
	CHECK(d != NULL);
	if (d) {
		CHECK(ps_durations__field(d, "io") == PS_DUR_PAIR);
		CHECK(ps_durations__field(d, "duration") == PS_DUR_PAIR + 1);
		CHECK(ps_durations__field(d, "t") == PS_DUR_PAIR + 2);
		CHECK(ps_durations__field(d, "latency") == PS_DUR_LATENCY);
		CHECK(ps_durations__field(d, "sch_delay") == PS_DUR_SCH_DELAY);
		CHECK(ps_durations__field(d, "nope") == -1);
		CHECK(strcmp(ps_durations__name(d, PS_DUR_PAIR), "io") == 0);
		CHECK(ps_durations__name(d, PS_DUR_PAIR + 3) == NULL);
		ps_durations__why_not(d, PS_DUR_PAIR, why, sizeof(why));
		CHECK(strstr(why, "block:block_rq_issue and block:block_rq_complete") != NULL);
		ps_durations__delete(d);
	}
	CHECK(ps_durations__field(NULL, "off_cpu") == PS_DUR_OFF_CPU);
	CHECK(ps_durations__field(NULL, "io") == -1);

	CHECK(refused("a,b", "START is a tracepoint"));
	CHECK(refused("a:b,c", "END is a tracepoint"));
	CHECK(refused("a:b,c:d:", "no KEY after the colon"));
	CHECK(refused("a:b,c:d:e,f,g,h,i", "at most 4 keys"));
	CHECK(refused("a:b,c:d:e-f", "a key is a field name"));
	CHECK(refused("1x=a:b,c:d", "NAME is letters"));
	CHECK(refused("run_time=a:b,c:d", "built-in"));
	CHECK(refused("a:b:c,d:e", NULL));
	CHECK(parse(dup, 2, why, sizeof(why)) < 0 && strstr(why, "two pairs of the same NAME"));
	CHECK(parse(five, 5, why, sizeof(why)) < 0 && strstr(why, "at most 4 pairs"));
}

/* The latency of every exit, against the last entry of the same thread worked out here. */
static void test_latency(void)
{
	struct ps_reader *rd = open_path(RAWSYS);
	uint64_t enter_t[65536] = { 0 }, enter_nr[65536] = { 0 };
	size_t exits = 0, valued = 0, right = 0;
	unsigned char raw[512];
	struct ps_sample one;
	int r;

	if (!rd)
		return;
	while ((r = next_tp_sample(rd, "", 0, false, &one, raw, sizeof(raw))) > 0) {
		const struct ps_sample *smp = &one;
		struct tep_format_field *f;
		uint64_t id, ns;
		uint32_t t;

		f = ps_tracing__field(smp->attr->tp, "id");
		if (!f || ps_tracing__read_u64(f, smp->raw, smp->raw_size, &id))
			continue;
		t = smp->tid & 0xffff;
		if (strcmp(smp->attr->tp->name, "sys_enter") == 0) {
			CHECK(!ps_durations__value(smp, PS_DUR_LATENCY, &ns));
			enter_t[t] = smp->time;
			enter_nr[t] = id + 1;
			continue;
		}
		exits++;
		if (ps_durations__value(smp, PS_DUR_LATENCY, &ns)) {
			valued++;
			right += enter_nr[t] == id + 1 && ns == smp->time - enter_t[t];
		} else {
			CHECK(enter_nr[t] != id + 1); /* no entry seen: no value, never 0 */
		}
		enter_nr[t] = 0;
	}
	CHECK(r == 0);
	CHECK(exits > 400);
	CHECK(valued > 400);
	CHECK_EQ_U64(right, valued);
	ps_reader__close(rd);
}

/* run_time is the time since the cpu's previous switch; off_cpu since the task left. */
static void test_sched(void)
{
	struct ps_reader *rd = open_path(SCHED);
	uint64_t last_switch[64] = { 0 }, out_at[65536] = { 0 };
	size_t switches = 0, run = 0, off = 0, off_right = 0;
	unsigned char raw[512];
	struct ps_sample one;
	int r;

	if (!rd)
		return;
	while ((r = next_tp_sample(rd, "sched_switch", sizeof("sched_switch"), false, &one, raw,
	                           sizeof(raw))) > 0) {
		const struct ps_sample *smp = &one;
		struct tep_format_field *pf, *nf;
		uint64_t prev, next, ns;

		if (smp->cpu >= 64)
			continue;
		pf = ps_tracing__field(smp->attr->tp, "prev_pid");
		nf = ps_tracing__field(smp->attr->tp, "next_pid");
		if (ps_tracing__read_u64(pf, smp->raw, smp->raw_size, &prev) ||
		    ps_tracing__read_u64(nf, smp->raw, smp->raw_size, &next))
			continue;
		switches++;
		if (ps_durations__value(smp, PS_DUR_RUN_TIME, &ns)) {
			run++;
			CHECK(last_switch[smp->cpu] && ns == smp->time - last_switch[smp->cpu]);
		} else {
			CHECK(!last_switch[smp->cpu]);
		}
		if (ps_durations__value(smp, PS_DUR_OFF_CPU, &ns)) {
			off++;
			off_right += next && out_at[next & 0xffff] &&
			             ns == smp->time - out_at[next & 0xffff];
		}
		if (next)
			out_at[next & 0xffff] = 0;
		if (prev)
			out_at[prev & 0xffff] = smp->time;
		last_switch[smp->cpu] = smp->time;
	}
	CHECK(r == 0);
	CHECK(switches > 100 && run + 4 >= switches);
	CHECK(off > 100);
	CHECK_EQ_U64(off_right, off);
	ps_reader__close(rd);
}

/* More threads woken than the table keeps: the oldest go, counted once at the end. */
static void test_bound(void)
{
	struct ps_error err = { 0 };
	struct ps_reader *rd = open_path(SCHED);
	struct ps_durations *d = ps_durations__new(NULL, 0, &err);
	unsigned char raw[512];
	struct ps_sample smp;
	struct tep_format_field *pf = NULL;
	bool found = false;
	const char *note;
	char want[64];
	uint32_t i;

	CHECK(d != NULL);
	if (!rd || !d)
		goto out;
	while (!found && next_tp_sample(rd, "sched_wak", 9, false, &smp, raw, sizeof(raw)) > 0) {
		pf = ps_tracing__field(smp.attr->tp, "pid");
		found = pf && pf->size == 4;
	}
	CHECK(found);
	if (!found)
		goto out;
	for (i = 1; i <= PS_DUR_MAX_PENDING + 1000; i++) {
		memcpy(raw + pf->offset, &i, 4);
		smp.time = i;
		smp.dur = NULL;
		ps_durations__sample(d, ps_reader__session(rd), &smp);
	}
	note = ps_durations__take_notice(d);
	snprintf(want, sizeof(want), "durations: 1000 pending starts dropped");
	CHECK(note && strncmp(note, want, strlen(want)) == 0);
	CHECK(ps_durations__take_notice(d) == NULL); /* once */
out:
	ps_durations__delete(d);
	ps_reader__close(rd);
}

/* @smp (a sched_switch whose raw data it may write) as @prev leaving the cpu for @next,
 * sampled as thread @tid at @time, through @d */
static void switch_at(struct ps_durations *d, struct ps_reader *rd, struct ps_sample *smp,
                      const struct tep_format_field *pf, const struct tep_format_field *nf,
                      uint32_t prev, uint32_t next, uint32_t tid, uint64_t time)
{
	unsigned char *raw = (unsigned char *)smp->raw;

	memcpy(raw + pf->offset, &prev, 4);
	memcpy(raw + nf->offset, &next, 4);
	smp->pid = smp->tid = tid;
	smp->time = time;
	smp->dur = NULL;
	ps_durations__sample(d, ps_reader__session(rd), smp);
}

/*
 * off_cpu keeps the whole call chain of a switch-out: 127 frames (perf's
 * perf_event_max_stack) with their context words, so the stack of pcount --folded
 * --off-cpu is perf script's (a 128-word cap cut a frame off the deepest chains).
 */
static void test_deep_chain(void)
{
	struct ps_error err = { 0 };
	struct ps_reader *rd = open_path(SCHED);
	struct ps_durations *d = ps_durations__new(NULL, 0, &err);
	struct tep_format_field *pf = NULL, *nf = NULL;
	unsigned char raw[512], chain[8 * 129];
	struct ps_sample smp, view;
	bool found = false;
	uint64_t w;
	uint32_t a = 4242, b = 4343;

	CHECK(d != NULL);
	if (!rd || !d)
		goto out;
	while (!found && next_tp_sample(rd, "sched_switch", sizeof("sched_switch"), true, &smp, raw,
	                                sizeof(raw)) > 0) {
		pf = ps_tracing__field(smp.attr->tp, "prev_pid");
		nf = ps_tracing__field(smp.attr->tp, "next_pid");
		found = pf && nf && pf->size == 4 && nf->size == 4;
	}
	CHECK(found);
	if (!found)
		goto out;
	/* the kernel's context, 100 frames, the user's, 27 frames: 129 words */
	for (size_t i = 0; i < 129; i++) {
		w = i == 0   ? (uint64_t)PERF_CONTEXT_KERNEL :
		    i == 101 ? (uint64_t)PERF_CONTEXT_USER :
		               0x1000 + i;
		memcpy(chain + 8 * i, &w, 8);
	}
	/* a leaves the cpu with that chain, then comes back */
	smp.type |= PERF_SAMPLE_CALLCHAIN;
	smp.callchain = chain;
	smp.nr_callchain = 129;
	switch_at(d, rd, &smp, pf, nf, a, 0, a, 1000);
	smp.nr_callchain = 0;
	switch_at(d, rd, &smp, pf, nf, b, a, b, 5000);
	found = ps_durations__off_cpu_sample(&smp, &view);
	CHECK(found);
	if (!found)
		goto out;
	CHECK_EQ_U64(view.tid, a);
	CHECK_EQ_U64(view.nr_callchain, 129);
	CHECK(view.callchain && view.nr_callchain == 129 &&
	      memcmp(view.callchain, chain, sizeof(chain)) == 0);
	/* a task past its release (exit) is sampled as pid -1: prev_pid still names it */
	switch_at(d, rd, &smp, pf, nf, a, 0, UINT32_MAX, 9000);
	switch_at(d, rd, &smp, pf, nf, b, a, b, 9500);
	CHECK(ps_durations__off_cpu_sample(&smp, &view) && view.tid == a);
	CHECK(ps_durations__value(&smp, PS_DUR_OFF_CPU, &w) && w == 500);
out:
	ps_durations__delete(d);
	ps_reader__close(rd);
}

/* The durations read fields with ps_tracing__number(): the values libtraceevent reads. */
static void test_numbers(const char *path)
{
	struct ps_reader_opts o = { .path = path };
	struct ps_error err = { 0 };
	struct ps_reader_event ev;
	struct ps_reader *rd = ps_reader__open(&o, &err);
	size_t read = 0, same = 0;
	int r;

	CHECK(rd != NULL);
	if (!rd)
		return;
	while ((r = ps_reader__next(rd, &ev, &err)) > 0) {
		const struct ps_sample *smp = &ev.smp;
		struct tep_format_field *lists[2], *f;
		unsigned long long want;
		uint64_t got;

		if (ev.kind != PS_READER_SAMPLE || !smp->attr->tp || !smp->raw)
			continue;
		lists[0] = smp->attr->tp->format.common_fields;
		lists[1] = smp->attr->tp->format.fields;
		for (int l = 0; l < 2; l++) {
			for (f = lists[l]; f; f = f->next) {
				if (ps_tracing__number(f, ps_tracing__swapped(smp->attr->tp),
				                       smp->raw, smp->raw_size, &got))
					continue;
				read++;
				same += tep_read_number_field(f, smp->raw, &want) == 0 &&
				        want == got;
			}
		}
	}
	CHECK(r == 0);
	CHECK(read > 1000);
	CHECK_EQ_U64(same, read);
	ps_reader__close(rd);
}

int main(void)
{
	test_specs();
	test_numbers(RAWSYS);
	test_numbers(SCHED);
	test_latency();
	test_sched();
	test_bound();
	test_deep_chain();
	return UNIT_DONE("durations");
}
