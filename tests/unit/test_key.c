// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_key.c - the key language (parse errors, checks against real streams with their
 * "did you mean" and lists, key text of real samples, columns, sums) and the duration
 * parser.  The streams are the bundled recordings in tests/data (run from the top
 * directory, as `make unit` does); their counts are the ones perf script reports for them
 * (tests/pcount.bats checks pcount against perf on the same files).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>
#include <traceevent/event-parse.h>

#include "lib/duration.h"
#include "lib/input.h"
#include "lib/key.h"
#include "lib/sample.h"
#include "lib/session.h"
#include "lib/symbolic.h"
#include "unit.h"

#define RAWSYS "tests/data/rawsys-dd.pipe"
#define SCHED "tests/data/sched-switch-wakeup-a.pipe"

/* ---- parsing ---- */

static void test_parse(void)
{
	struct ps_error err = { 0 };
	struct ps_key *k;

	k = ps_key__parse("comm,,pid,sched:sched_switch.prev_state,bytes/1024", &err);
	CHECK(k != NULL);
	if (k) {
		CHECK_EQ_U64(ps_key__nr(k), 4);
		CHECK(strcmp(ps_key__name(k, 0), "comm") == 0);
		CHECK(strcmp(ps_key__name(k, 2), "sched:sched_switch.prev_state") == 0);
		CHECK(strcmp(ps_key__name(k, 3), "bytes/1024") == 0);
		CHECK(ps_key__name(k, 4) == NULL);
	}
	ps_key__delete(k);

	memset(&err, 0, sizeof(err));
	CHECK(ps_key__parse("", &err) == NULL);
	CHECK(err.code == PS_EUSAGE && strcmp(err.detail, "no key given") == 0);
	memset(&err, 0, sizeof(err));
	CHECK(ps_key__parse(",,", &err) == NULL && err.code == PS_EUSAGE);
	memset(&err, 0, sizeof(err));
	CHECK(ps_key__parse("a,b,c,d,e,f,g,h,i", &err) == NULL);
	CHECK(strcmp(err.detail, "at most 8 keys") == 0);
	memset(&err, 0, sizeof(err));
	CHECK(ps_key__parse("bytes/0", &err) == NULL);
	CHECK(strstr(err.detail, "'0' in 'bytes/0' is not a bucket size") == err.detail);
	memset(&err, 0, sizeof(err));
	CHECK(ps_key__parse("bytes/1k", &err) == NULL && err.code == PS_EUSAGE);
	memset(&err, 0, sizeof(err));
	CHECK(ps_key__parse("bytes/99999999999999999999", &err) == NULL);
	memset(&err, 0, sizeof(err));
	CHECK(ps_key__parse("sched:sched_switch.", &err) == NULL);
	CHECK(strcmp(err.detail, "empty field name in 'sched:sched_switch.'") == 0);
	memset(&err, 0, sizeof(err));
	CHECK(ps_key__parse("/10", &err) == NULL && err.code == PS_EUSAGE);
	ps_key__delete(NULL);
}

static void test_suggest(void)
{
	static const char *const names[] = {
		"event", "comm", "pid", "syscall", "prev_state", NULL
	};

	CHECK(strcmp(ps_key__suggest("sycall", names), "syscall") == 0);
	CHECK(strcmp(ps_key__suggest("prev_stat", names), "prev_state") == 0);
	CHECK(strcmp(ps_key__suggest("pd", names), "pid") == 0);
	CHECK(ps_key__suggest("bogus", names) == NULL);
	CHECK(ps_key__suggest("x", NULL) == NULL);
}

/* ---- against real streams ---- */

struct stream {
	struct ps_input *in;
	struct ps_session *s;
	struct ps_record rec; /* the first sample */
	struct ps_sample smp;
};

/* Open @path and read up to its first sample. */
static int open_stream(const char *path, struct stream *st)
{
	struct ps_error err = { 0 };

	memset(st, 0, sizeof(*st));
	st->in = ps_input__open(path, PS_INPUT_DECOMPRESS, &err);
	if (!st->in) {
		fprintf(stderr, "%s: %s\n", path, err.detail);
		return -1;
	}
	st->s = ps_input__session(st->in);
	while (ps_input__next(st->in, &st->rec, &err) > 0) {
		if (st->rec.type != PERF_RECORD_SAMPLE) {
			ps_session__process_sideband(st->s, &st->rec);
			continue;
		}
		return ps_sample__parse(st->s, &st->rec, &st->smp, path, &err);
	}
	return -1;
}

/* The next sample; 0 at the end. */
static int next_sample(struct stream *st)
{
	struct ps_error err = { 0 };

	while (ps_input__next(st->in, &st->rec, &err) > 0) {
		if (st->rec.type != PERF_RECORD_SAMPLE) {
			ps_session__process_sideband(st->s, &st->rec);
			continue;
		}
		return ps_sample__parse(st->s, &st->rec, &st->smp, "x", &err) == 0;
	}
	return 0;
}

static int check_list(const char *list, struct ps_session *s, struct ps_error *err)
{
	struct ps_key *k = ps_key__parse(list, err);
	int r;

	if (!k)
		return -2;
	memset(err, 0, sizeof(*err));
	r = ps_key__check(k, s, err);
	ps_key__delete(k);
	return r;
}

static void test_check(void)
{
	struct ps_error err = { 0 };
	struct stream st;

	if (open_stream(RAWSYS, &st)) {
		CHECK(!"open " RAWSYS);
		return;
	}
	CHECK(check_list("event,comm,pid,tid,cpu,syscall,errno,ret/8", st.s, &err) == 0);
	CHECK(check_list("raw_syscalls:sys_enter.id", st.s, &err) == 0);
	CHECK(check_list("sycall", st.s, &err) == -1);
	CHECK(err.code == PS_EUSAGE);
	CHECK(strstr(err.detail,
	             "unknown key 'sycall' (did you mean syscall?); the keys of this "
	             "stream are: event, comm, pid, tid, cpu, syscall, errno, sym, dso, ip, id, "
	             "args, ret") == err.detail);
	CHECK(check_list("bogus", st.s, &err) == -1);
	CHECK(strstr(err.detail, "unknown key 'bogus'; the keys") == err.detail);
	CHECK(check_list("raw_syscalls:sys_entr.id", st.s, &err) == -1);
	CHECK(strstr(err.detail, "no event raw_syscalls:sys_entr in this stream (did you mean "
	                         "raw_syscalls:sys_enter?); its tracepoints are: "
	                         "raw_syscalls:sys_enter, raw_syscalls:sys_exit") == err.detail);
	CHECK(check_list("raw_syscalls:sys_enter.ret", st.s, &err) == -1);
	CHECK(strstr(err.detail, "raw_syscalls:sys_enter has no field 'ret' (did you mean id?)") ==
	      NULL); /* "ret" is 3 letters from "id": no guess */
	CHECK(strstr(err.detail, "raw_syscalls:sys_enter has no field 'ret'; its fields are: id, "
	                         "args, common_type") == err.detail);
	CHECK(check_list("args/10", st.s, &err) == -1);
	CHECK(strstr(err.detail, "'args/10' is an array (in raw_syscalls:sys_enter)") ==
	      err.detail);
	ps_input__close(st.in);

	if (open_stream(SCHED, &st)) {
		CHECK(!"open " SCHED);
		return;
	}
	CHECK(check_list("prev_state,next_comm,cpu", st.s, &err) == 0);
	CHECK(check_list("syscall", st.s, &err) == -1);
	CHECK(strstr(err.detail, "no key syscall: no event of this stream is a syscall event") ==
	      err.detail);
	CHECK(check_list("errno", st.s, &err) == -1);
	CHECK(check_list("prev_comm/4", st.s, &err) == -1);
	CHECK(strstr(err.detail, "'prev_comm/4' is a string (in sched:sched_switch), and only "
	                         "numbers") == err.detail);
	CHECK(check_list("prev_stat", st.s, &err) == -1);
	CHECK(strstr(err.detail, "(did you mean prev_state?)") != NULL);
	ps_input__close(st.in);

	/* a session without attrs yet: nothing to check against */
	{
		struct ps_session *empty = ps_session__new(false);

		CHECK(empty && check_list("nosuchkey", empty, &err) == 0);
		ps_session__delete(empty);
	}
}

static void test_text(void)
{
	struct ps_error err = { 0 };
	struct ps_key *k = ps_key__parse("event,pid,cpu,raw_syscalls:sys_exit.ret/4096", &err);
	struct ps_key *sys = ps_key__parse("syscall", &err);
	struct ps_key *sys_errno = ps_key__parse("syscall,errno", &err);
	unsigned long writes = 0, exits = 0, full = 0, total = 0, errnos = 0;
	char text[512], col[64];
	struct stream st;
	int n;

	if (!k || !sys || !sys_errno || open_stream(RAWSYS, &st)) {
		CHECK(!"setup");
		return;
	}
	CHECK(ps_key__check(k, st.s, &err) == 0);
	CHECK(ps_key__check(sys, st.s, &err) == 0);
	CHECK(ps_key__check(sys_errno, st.s, &err) == 0);
	do {
		total++;
		/* the exit's ret, in buckets: only the exits have it */
		n = ps_key__text(k, st.s, &st.smp, text, sizeof(text));
		if (n >= 0) {
			exits++;
			CHECK_EQ_U64((size_t)n, strlen(text));
			CHECK(strcmp(ps_key__column(text, 0, col, sizeof(col)),
			             "raw_syscalls:sys_exit") == 0);
			CHECK(strcmp(ps_key__column(text, 4, col, sizeof(col)), "") == 0);
			if (strcmp(ps_key__column(text, 3, col, sizeof(col)), "4096-8191") == 0)
				full++; /* the 4096-byte reads and writes */
		}
		/* each call once, at its entry */
		if (ps_key__text(sys, st.s, &st.smp, text, sizeof(text)) >= 0 &&
		    strcmp(text, "write") == 0)
			writes++;
		/* with errno the exits are the calls, and only failed ones have an errno */
		if (ps_key__text(sys_errno, st.s, &st.smp, text, sizeof(text)) >= 0)
			errnos++;
		/* too small a buffer is no key, never a cut one */
		CHECK(ps_key__text(sys, st.s, &st.smp, text, 3) == -1 || strlen(text) < 3);
	} while (next_sample(&st));
	/* perf script counts 448 entries and 448 exits in this recording, 203 of them write */
	CHECK_EQ_U64(total, 896);
	CHECK_EQ_U64(exits, 448);
	CHECK_EQ_U64(writes, 203);
	CHECK_EQ_U64(full, 400);
	CHECK(errnos < exits);
	ps_input__close(st.in);
	ps_key__delete(k);
	ps_key__delete(sys);
	ps_key__delete(sys_errno);
}

/*
 * Key texts of hostile values: a value holding PS_KEY_SEP or PS_KEY_ESC stays one value,
 * comes back as it was, and is shown on one line (the key texts are built here the way
 * ps_key__text() builds them: values escaped, then joined).
 */
static void join(char *out, size_t len, const char *const *v, size_t n)
{
	size_t o = 0, i;

	for (i = 0; i < n; i++) {
		const char *p;

		if (i)
			out[o++] = PS_KEY_SEP;
		for (p = v[i]; *p && o + 3 < len; p++) {
			if (*p == PS_KEY_SEP || *p == PS_KEY_ESC)
				out[o++] = PS_KEY_ESC;
			out[o++] = *p;
		}
	}
	out[o] = 0;
}

static void test_hostile_values(void)
{
	static const char *const a[] = { "sshd\0371", "2408" }; /* octal: 0x1f, then '1' */
	static const char *const b[] = { "p", "a\037b" };
	static const char *const c[] = { "p\037a", "b" };
	static const char *const d[] = { "x\x1e", "\x1e\x1f\x1e" };
	char ta[64], tb[64], tc[64], td[64], col[64], show[PS_KEY_SHOWN_MAX];

	join(ta, sizeof(ta), a, 2);
	join(tb, sizeof(tb), b, 2);
	join(tc, sizeof(tc), c, 2);
	join(td, sizeof(td), d, 2);
	/* two different keys are two texts */
	CHECK(strcmp(tb, tc) != 0);
	/* each value as it was, never split at a separator inside it */
	CHECK(strcmp(ps_key__column(ta, 0, col, sizeof(col)), a[0]) == 0);
	CHECK(strcmp(ps_key__column(ta, 1, col, sizeof(col)), "2408") == 0);
	CHECK(strcmp(ps_key__column(ta, 2, col, sizeof(col)), "") == 0);
	CHECK(strcmp(ps_key__column(tb, 1, col, sizeof(col)), b[1]) == 0);
	CHECK(strcmp(ps_key__column(tc, 0, col, sizeof(col)), c[0]) == 0);
	CHECK(strcmp(ps_key__column(td, 0, col, sizeof(col)), d[0]) == 0);
	CHECK(strcmp(ps_key__column(td, 1, col, sizeof(col)), d[1]) == 0);
	/* cut to fit, never past the buffer */
	CHECK(strcmp(ps_key__column(td, 1, col, 2), "\x1e") == 0);
	/* shown: one line, unmistakable, valid UTF-8 kept */
	CHECK(strcmp(ps_key__shown(a[0], show, sizeof(show)), "sshd\\x1f1") == 0);
	CHECK(strcmp(ps_key__shown("\n  99999  sshd", show, sizeof(show)), "\\n  99999  sshd") ==
	      0);
	CHECK(strcmp(ps_key__shown("a\t9\r\\b\x7f", show, sizeof(show)), "a\\t9\\r\\\\b\\x7f") ==
	      0);
	CHECK(strcmp(ps_key__shown("caf\xc3\xa9 \xe2\x98\x83", show, sizeof(show)),
	             "caf\xc3\xa9 \xe2\x98\x83") == 0);
	/* C1 controls, stray and overlong bytes, a cut sequence */
	CHECK(strcmp(ps_key__shown("\302\2331;2H\xff\xc0\xaf\xe2\x98", show, sizeof(show)),
	             "\\xc2\\x9b1;2H\\xff\\xc0\\xaf\\xe2\\x98") == 0);
	/* cut at a whole escape */
	CHECK(strcmp(ps_key__shown("ab\n", show, 4), "ab") == 0);
	CHECK(strcmp(ps_key__shown("ab\n", show, 5), "ab\\n") == 0);
}

static void test_sums(void)
{
	struct ps_error err = { 0 };
	struct ps_key_sum *prio = ps_key_sum__parse("p=prev_prio", &err);
	struct ps_key_sum *count = ps_key_sum__parse("sched:sched_wakeup", &err);
	struct ps_key_sum *str = ps_key_sum__parse("prev_comm", &err);
	unsigned long wakeups = 0, switches = 0;
	struct stream st;
	int64_t v;

	CHECK(ps_key_sum__parse("x=", &err) == NULL && err.code == PS_EUSAGE);
	CHECK(ps_key_sum__parse("=prev_prio", &err) == NULL);
	if (!prio || !count || !str || open_stream(SCHED, &st)) {
		CHECK(!"setup");
		return;
	}
	CHECK(strcmp(ps_key_sum__name(prio), "p") == 0);
	CHECK(strcmp(ps_key_sum__name(count), "sched:sched_wakeup") == 0);
	CHECK(ps_key_sum__check(prio, st.s, &err) == 0);
	CHECK(ps_key_sum__check(count, st.s, &err) == 0);
	CHECK(ps_key_sum__check(str, st.s, &err) == -1);
	CHECK(strstr(err.detail, "'prev_comm' is a string") == err.detail);
	do {
		if (ps_key_sum__value(count, &st.smp, &v)) {
			wakeups++;
			CHECK(v == 1);
		}
		if (ps_key_sum__value(prio, &st.smp, &v)) {
			switches++;
			CHECK(v >= 0 && v < 140);
		}
		CHECK(!ps_key_sum__value(str, &st.smp, &v));
	} while (next_sample(&st));
	CHECK(wakeups > 0 && switches > 0);
	ps_input__close(st.in);
	{
		struct ps_key_sum *bad = ps_key_sum__parse("sched:sched_wakup", &err);

		CHECK(bad && open_stream(SCHED, &st) == 0);
		if (bad && st.in) {
			CHECK(ps_key_sum__check(bad, st.s, &err) == -1);
			CHECK(strstr(err.detail,
			             "no event sched:sched_wakup in this stream (did you "
			             "mean sched:sched_wakeup?)") == err.detail);
			ps_input__close(st.in);
		}
		ps_key_sum__delete(bad);
	}
	ps_key_sum__delete(prio);
	ps_key_sum__delete(count);
	ps_key_sum__delete(str);
}

/* the period as a field, the unit of a field's values, and syscall exits keyed */
static void test_units(void)
{
	struct ps_error err = { 0 };
	struct ps_key_sum *period = ps_key_sum__parse("period", &err);
	struct ps_key_sum *ret = ps_key_sum__parse("ret", &err);
	struct ps_key_sum *ev = ps_key_sum__parse("raw_syscalls:sys_exit", &err);
	struct ps_key *k = ps_key__parse("syscall", &err);
	unsigned long named = 0, exits = 0, named_exits = 0;
	char buf[PS_KEY_TEXT_MAX];
	struct stream st;
	int64_t v;

	if (!period || !ret || !ev || !k || open_stream("tests/data/cpuclock-g-sh.data", &st)) {
		CHECK(!"setup");
		goto out;
	}
	CHECK(ps_key_sum__field(ev) == NULL && strcmp(ps_key_sum__field(ret), "ret") == 0);
	/* cpu-clock counts nanoseconds: its period is a duration */
	CHECK(ps_key_sum__check(period, st.s, &err) == 0);
	CHECK(ps_key_sum__unit(period, st.s) == PS_KEY_UNIT_NS);
	CHECK(ps_key_sum__value(period, &st.smp, &v) && v == 1001001);
	ps_input__close(st.in);
	if (open_stream(RAWSYS, &st)) {
		CHECK(!"open " RAWSYS);
		goto out;
	}
	/* a tracepoint's period counts samples; ret is a plain number */
	CHECK(ps_key_sum__check(period, st.s, &err) == 0);
	CHECK(ps_key_sum__unit(period, st.s) == PS_KEY_UNIT_NONE);
	CHECK(ps_key_sum__unit(ret, st.s) == PS_KEY_UNIT_NONE);
	CHECK(ps_key__check(k, st.s, &err) == 0);
	ps_key__set_exits(k, true);
	do {
		bool exit = ps_key_sum__value(ev, &st.smp, &v);

		if (ps_key__text(k, st.s, &st.smp, buf, sizeof(buf)) >= 0) {
			named++;
			named_exits += exit;
		}
		exits += exit;
		CHECK(ps_key_sum__value(period, &st.smp, &v) && v == 1);
	} while (next_sample(&st));
	/* 448 enters and 448 exits, each named */
	CHECK(named == 896 && exits == 448 && named_exits == 448);
	ps_input__close(st.in);
out:
	ps_key_sum__delete(period);
	ps_key_sum__delete(ret);
	ps_key_sum__delete(ev);
	ps_key__delete(k);
}

/* prev_state is printed through __print_flags: perf script shows 430 S and 4 D here */
static void test_symbolic(void)
{
	unsigned long s = 0, d = 0, other = 0;
	struct stream st;
	char text[64];

	if (open_stream(SCHED, &st)) {
		CHECK(!"open " SCHED);
		return;
	}
	do {
		const struct ps_attr *a = st.smp.attr;

		if (!a->tp || strcmp(a->tp->name, "sched_switch") != 0) {
			CHECK(!a->tp || !ps_symbolic__has(a->tp, "prev_state"));
			continue;
		}
		CHECK(ps_symbolic__has(a->tp, "prev_state"));
		CHECK(!ps_symbolic__has(a->tp, "prev_pid"));
		CHECK(ps_symbolic__text(a->tp, "prev_pid", &st.smp, text, sizeof(text)) == -1);
		if (ps_symbolic__text(a->tp, "prev_state", &st.smp, text, sizeof(text)) != 0) {
			CHECK(!"prev_state text");
			continue;
		}
		if (strcmp(text, "S") == 0)
			s++;
		else if (strcmp(text, "D") == 0)
			d++;
		else
			other++;
		/* cut to fit, never past the buffer */
		CHECK(ps_symbolic__text(a->tp, "prev_state", &st.smp, text, 1) == 0 && !text[0]);
	} while (next_sample(&st));
	CHECK_EQ_U64(s, 430);
	CHECK_EQ_U64(d, 4);
	CHECK_EQ_U64(other, 408 + 10 + 5);
	ps_input__close(st.in);
}

/* ---- durations ---- */

static void test_duration(void)
{
	static const struct {
		const char *arg;
		uint64_t ns;
	} good[] = {
		{ "5", 5000000000ULL },    { "5s", 5000000000ULL },      { "500ms", 500000000ULL },
		{ "2m", 120000000000ULL }, { "1.5h", 5400000000000ULL }, { "0.25", 250000000ULL },
		{ "100us", 100000ULL },    { "250ns", 250ULL },          { ".5s", 500000000ULL },
		{ "1.", 1000000000ULL },   { "0.0000000019", 1ULL },
	};
	static const char *const bad[] = { "",     "s",     "abc", "-1", "+1", "1 s",
		                           "1sec", "1.2.3", "1e3", "5S", " 5", "." };
	const uint64_t max = 86400 * PS_NS_PER_SEC;
	struct ps_error err = { 0 };
	char buf[32];
	uint64_t ns;
	size_t i;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		ns = 0;
		CHECK(ps_duration__parse(good[i].arg, 0, UINT64_MAX, &ns, &err) == 0);
		CHECK_EQ_U64(ns, good[i].ns);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&err, 0, sizeof(err));
		CHECK(ps_duration__parse(bad[i], 0, UINT64_MAX, &ns, &err) == -1);
		CHECK(err.code == PS_EUSAGE && strstr(err.detail, "is not a number of seconds"));
	}
	CHECK(ps_duration__parse("86400000", 1000000, max, &ns, &err) == -1);
	CHECK(strcmp(err.detail, "'86400000' is out of range: from 1ms to 24h") == 0);
	CHECK(ps_duration__parse("99999999999999999999999h", 0, max, &ns, &err) == -1);
	CHECK(strstr(err.detail, "out of range") != NULL);
	CHECK(ps_duration__parse("0.0001", 1000000, max, &ns, &err) == -1);
	CHECK(ps_duration__parse("24h", 1000000, max, &ns, &err) == 0 && ns == max);
	CHECK(strcmp(ps_duration__format(0, buf, sizeof(buf)), "0s") == 0);
	CHECK(strcmp(ps_duration__format(1500000000, buf, sizeof(buf)), "1500ms") == 0);
	CHECK(strcmp(ps_duration__format(120 * PS_NS_PER_SEC, buf, sizeof(buf)), "2m") == 0);
	CHECK(strcmp(ps_duration__format(7, buf, sizeof(buf)), "7ns") == 0);
	/* what format writes, parse reads back */
	for (i = 1; i < 20000000000ULL; i = i * 7 + 3) {
		CHECK(ps_duration__parse(ps_duration__format(i, buf, sizeof(buf)), 0, UINT64_MAX,
		                         &ns, &err) == 0 &&
		      ns == i);
	}
}

int main(void)
{
	test_parse();
	test_suggest();
	test_check();
	test_text();
	test_hostile_values();
	test_sums();
	test_units();
	test_symbolic();
	test_duration();
	return UNIT_DONE("key");
}
