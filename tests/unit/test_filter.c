// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_filter.c - pfilter's language: numbers, globs, the exact text and column of syntax
 * and check errors, evaluation on hand-made samples of a hand-made stream (three
 * tracepoints with their formats, one software event), printing back, the kernel part, and
 * a fuzz loop over random and mutated expressions that must never crash.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "build.h"
#include "lib/filter.h"
#include "lib/filter_int.h"
#include "lib/sample.h"
#include "lib/session.h"
#include "unit.h"

/* ---- a hand-made stream: attrs, tracing data, samples ---- */

#define ID_SWITCH 316
#define ID_EXEC 317
#define ID_SYSENTER 318

static const char fmt_switch[] =
        "name: sched_switch\nID: 316\nformat:\n"
        "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
        "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
        "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
        "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
        "\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
        "\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
        "\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n"
        "\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"
        "\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:0;\n"
        "\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n"
        "\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;\n\n"
        "print fmt: \"prev_comm=%s prev_pid=%d\", REC->prev_comm, REC->prev_pid\n";

static const char fmt_exec[] =
        "name: sched_process_exec\nID: 317\nformat:\n"
        "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
        "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
        "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
        "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
        "\tfield:__data_loc char[] filename;\toffset:8;\tsize:4;\tsigned:1;\n"
        "\tfield:pid_t pid;\toffset:12;\tsize:4;\tsigned:1;\n"
        "\tfield:pid_t old_pid;\toffset:16;\tsize:4;\tsigned:1;\n\n"
        "print fmt: \"filename=%s pid=%d\", __get_str(filename), REC->pid\n";

static const char fmt_sysenter[] =
        "name: sys_enter\nID: 318\nformat:\n"
        "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
        "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
        "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
        "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
        "\tfield:long id;\toffset:8;\tsize:8;\tsigned:1;\n"
        "\tfield:unsigned long args[6];\toffset:16;\tsize:48;\tsigned:0;\n\n"
        "print fmt: \"NR %ld\", REC->id\n";

#define ST_TP                                                                           \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
	 PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_RAW)
#define ST_SW                                                                           \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
	 PERF_SAMPLE_PERIOD)

/* the tracepoints' formats, by system */
static int add_tracing(struct ps_session *s)
{
	static const char *const sched[] = { fmt_switch, fmt_exec };
	static const char *const raw_syscalls[] = { fmt_sysenter };
	static const struct tp_system systems[] = {
		{ "sched", sched, ARRAY_SIZE(sched) },
		{ "raw_syscalls", raw_syscalls, ARRAY_SIZE(raw_syscalls) },
	};

	return session_tracing(s, systems, ARRAY_SIZE(systems));
}

struct smp_spec {
	uint64_t id;
	uint32_t pid, tid, cpu;
	uint64_t time, period;
	unsigned char raw[128];
	uint32_t raw_size;
};

#define NSAMPLES 6
static struct buf samples[NSAMPLES];

static void make_sample(struct buf *b, const struct smp_spec *sp, int i)
{
	uint64_t ip = 0xffffffff81000000ULL + (uint64_t)i;
	bool tp = sp->raw_size != 0;

	b->len = 0;
	grow(b, 8);
	put64(b, sp->id);
	put64(b, ip);
	put32(b, sp->pid);
	put32(b, sp->tid);
	put64(b, sp->time);
	if (tp) {
		put32(b, sp->cpu);
		put32(b, 0);
	}
	put64(b, sp->period);
	if (tp) {
		uint32_t padded = (uint32_t)((sp->raw_size + 4 + 7) / 8 * 8 - 4);

		put32(b, padded);
		put_bytes(b, sp->raw, sp->raw_size);
		grow(b, padded - sp->raw_size);
	}
	record_header(b, PERF_RECORD_SAMPLE, b->len);
}

/* hand-made sample @i as a record */
static struct ps_record sample_record(int i)
{
	return buf_record(&samples[i], PERF_RECORD_SAMPLE, samples[i].len);
}

static void raw16(unsigned char *r, size_t off, uint16_t v)
{
	memcpy(r + off, &v, 2);
}

static void raw32(unsigned char *r, size_t off, uint32_t v)
{
	memcpy(r + off, &v, 4);
}

static void raw64(unsigned char *r, size_t off, uint64_t v)
{
	memcpy(r + off, &v, 8);
}

static void common(unsigned char *r, uint16_t type, uint32_t pid)
{
	raw16(r, 0, type);
	raw32(r, 4, pid);
}

static struct ps_session *make_stream(void)
{
	struct ps_session *s = ps_session__new(false);
	struct smp_spec sp;

	if (!s)
		return NULL;
	if (session_attr(s, 2, ID_SWITCH, ST_TP, 1001, "sched:sched_switch") ||
	    session_attr(s, 2, ID_EXEC, ST_TP, 1002, "sched:sched_process_exec") ||
	    session_attr(s, 2, ID_SYSENTER, ST_TP, 1003, "raw_syscalls:sys_enter") ||
	    session_attr(s, 1, 0, ST_SW, 1004, "cpu-clock/call-graph=fp/") || add_tracing(s)) {
		ps_session__delete(s);
		return NULL;
	}
	ps_session__set_comm(s, 42, 42, "dd");
	ps_session__set_comm(s, 100, 100, "yes");

	/* 0: dd switches out to the idle task on cpu 1 */
	memset(&sp, 0, sizeof(sp));
	sp = (struct smp_spec){ 1001, 42, 42, 1, 1000000000ULL, 1, { 0 }, 64 };
	common(sp.raw, ID_SWITCH, 42);
	memcpy(sp.raw + 8, "dd", 3);
	raw32(sp.raw, 24, 42);
	raw32(sp.raw, 28, 120);
	raw64(sp.raw, 32, 1);
	memcpy(sp.raw + 40, "swapper/0", 10);
	raw32(sp.raw, 56, 0);
	raw32(sp.raw, 60, 120);
	make_sample(&samples[0], &sp, 0);

	/* 1: yes switches to dd on cpu 0 */
	sp = (struct smp_spec){ 1001, 100, 100, 0, 1500000000ULL, 1, { 0 }, 64 };
	common(sp.raw, ID_SWITCH, 100);
	memcpy(sp.raw + 8, "yes", 4);
	raw32(sp.raw, 24, 100);
	raw32(sp.raw, 28, 120);
	raw64(sp.raw, 32, 0);
	memcpy(sp.raw + 40, "dd", 3);
	raw32(sp.raw, 56, 42);
	raw32(sp.raw, 60, 120);
	make_sample(&samples[1], &sp, 1);

	/* 2: dd execs /usr/bin/dd */
	sp = (struct smp_spec){ 1002, 42, 42, 1, 2000000000ULL, 1, { 0 }, 32 };
	common(sp.raw, ID_EXEC, 42);
	raw32(sp.raw, 8, (12u << 16) | 20u);
	raw32(sp.raw, 12, 42);
	raw32(sp.raw, 16, 42);
	memcpy(sp.raw + 20, "/usr/bin/dd", 12);
	make_sample(&samples[2], &sp, 2);

	/* 3: dd enters write(1, 0x1000, 4096) */
	sp = (struct smp_spec){ 1003, 42, 42, 0, 3000000000ULL, 1, { 0 }, 64 };
	common(sp.raw, ID_SYSENTER, 42);
	raw64(sp.raw, 8, 1);
	raw64(sp.raw, 16, 1);
	raw64(sp.raw, 24, 0x1000);
	raw64(sp.raw, 32, 4096);
	make_sample(&samples[3], &sp, 3);

	/* 4: an unnamed thread 7 enters read(0, ...) */
	sp = (struct smp_spec){ 1003, 7, 7, 0, 4000000000ULL, 1, { 0 }, 64 };
	common(sp.raw, ID_SYSENTER, 7);
	raw64(sp.raw, 8, 0);
	make_sample(&samples[4], &sp, 4);

	/* 5: a cpu-clock tick in the idle task: no cpu, no raw data */
	sp = (struct smp_spec){ 1004, 0, 0, 0, 5000000000ULL, 1000000, { 0 }, 0 };
	make_sample(&samples[5], &sp, 5);
	return s;
}

/* ---- helpers ---- */

static struct ps_filter *compile1(const char *expr, struct ps_filter_error *fe)
{
	const char *v[1] = { expr };

	memset(fe, 0, sizeof(*fe));
	return ps_filter__parse(1, v, fe);
}

/* Which of the samples @expr keeps, as a bit mask; -1 on a parse or check error. */
static int mask_of(struct ps_session *s, const char *expr)
{
	struct ps_filter_error fe;
	struct ps_filter *f = compile1(expr, &fe);
	int i, mask = 0;

	if (!f) {
		fprintf(stderr, "parse error in '%s': %s at %zu\n", expr, fe.msg, fe.pos);
		return -1;
	}
	if (ps_filter__check(f, s, &fe)) {
		fprintf(stderr, "check error in '%s': %s at %zu\n", expr, fe.msg, fe.pos);
		ps_filter__delete(f);
		return -1;
	}
	for (i = 0; i < NSAMPLES; i++) {
		struct ps_record rec = sample_record(i);
		struct ps_error err = { 0 };
		struct ps_sample smp;

		if (ps_sample__parse(s, &rec, &smp, "test", &err)) {
			fprintf(stderr, "sample %d: %s\n", i, err.detail);
			mask = -1;
			break;
		}
		if (ps_filter__match(f, s, &smp) == 1)
			mask |= 1 << i;
	}
	ps_filter__delete(f);
	return mask;
}

#define S(i) (1 << (i))

static void test_eval(struct ps_session *s)
{
	static const struct {
		const char *expr;
		int mask;
	} t[] = {
		{ "comm=dd", S(0) | S(2) | S(3) },
		{ "comm == dd", S(0) | S(2) | S(3) },
		{ "not comm=dd", S(1) | S(4) | S(5) },
		{ "comm != dd", S(1) | S(4) | S(5) },
		{ "comm = swapper", S(5) },
		{ "comm = :7", S(4) },
		{ "comm in (\"dd\", 'yes')", S(0) | S(1) | S(2) | S(3) },
		{ "comm startswith y or comm endswith d", S(0) | S(1) | S(2) | S(3) },
		{ "comm contains ''", 0x3f },
		{ "pid=42", S(0) | S(2) | S(3) },
		{ "pid in (42, 100)", S(0) | S(1) | S(2) | S(3) },
		{ "tid = 7 or tid = 0", S(4) | S(5) },
		{ "pid > -1 and pid < 0x2a", S(4) | S(5) },
		{ "cpu = 1", S(0) | S(2) },
		{ "cpu != 1", S(1) | S(3) | S(4) },
		{ "not cpu = 1", S(1) | S(3) | S(4) | S(5) },
		{ "cpu exists", 0x1f },
		{ "!(cpu exists)", S(5) },
		{ "prev_pid = 42", S(0) },
		{ "prev_pid != 42", S(1) },
		{ "prev_comm = yes", S(1) },
		{ "prev_comm = \"d\\x64\"", S(0) },
		{ "next_comm startswith swapper", S(0) },
		{ "next_comm glob 'swap*/[0-9]'", S(0) },
		{ "next_comm ~ \"*/0\"", S(0) },
		{ "prev_state & 1", S(0) },
		{ "prev_state = 0", S(1) },
		{ "prev_prio <= 120 and prev_prio >= 120", S(0) | S(1) },
		{ "filename endswith /dd", S(2) },
		{ "filename contains bin", S(2) },
		{ "filename = /usr/bin/dd", S(2) },
		{ "sched:sched_process_exec.pid = 42", S(2) },
		{ "sched:sched_switch.prev_pid > 50", S(1) },
		{ "args[0] = 1", S(3) },
		{ "args[2] = 0x1000", S(3) },
		{ "args[5] = 0", S(3) | S(4) },
		{ "id = 1", S(3) },
		{ "syscall = write", S(3) },
		{ "syscall in (read, write)", S(3) | S(4) },
		{ "syscall glob 'wr*'", S(3) },
		{ "syscall = 0", S(4) },
		{ "syscall != write", S(4) },
		{ "event = sched:sched_switch", S(0) | S(1) },
		{ "event glob 'sched:*'", S(0) | S(1) | S(2) },
		{ "event = cpu-clock", S(5) },
		{ "event = 'cpu-clock/call-graph=fp/'", S(5) },
		{ "event != cpu-clock", 0x1f },
		{ "time >= 2s and time < 4s", S(2) | S(3) },
		{ "time > 1.5", S(2) | S(3) | S(4) | S(5) },
		{ "time >= 1500ms", 0x3e },
		{ "time < 1500000us", S(0) },
		{ "time = 1000000000ns", S(0) },
		{ "time < 0.025m", S(0) },
		{ "time >= 0.0005h and time < 0.05m", S(2) },
		{ "period > 1", S(5) },
		{ "ip = 0xffffffff81000000", S(0) },
		{ "ip exists and not cpu exists", S(5) },
		{ "(comm=dd or comm=yes) and cpu=0", S(1) | S(3) },
		{ "comm=dd and not (prev_pid exists)", S(2) | S(3) },
		{ "!(comm == dd) && cpu == 0", S(1) | S(4) },
		{ "comm=dd || comm=yes && cpu=0", S(0) | S(1) | S(2) | S(3) },
		{ "common_pid = 42", S(0) | S(2) | S(3) },
		{ "common_type = 316", S(0) | S(1) },
		{ "not not comm=yes", S(1) },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		int m = mask_of(s, t[i].expr);

		if (m != t[i].mask)
			fprintf(stderr, "'%s': mask 0x%x, expected 0x%x\n", t[i].expr, m,
			        t[i].mask);
		CHECK(m == t[i].mask);
	}
}

/* several operands are joined by "and" */
static void test_operands(struct ps_session *s)
{
	const char *v[] = { "comm=dd", "cpu=1 or cpu=0", "not prev_pid exists" };
	struct ps_filter_error fe;
	struct ps_filter *f = ps_filter__parse(3, v, &fe);
	char *d;

	CHECK(f != NULL);
	if (!f)
		return;
	d = ps_filter__describe(f);
	CHECK(d && strcmp(d, "comm = dd and (cpu = 1 or cpu = 0) and not prev_pid exists") == 0);
	free(d);
	CHECK(ps_filter__check(f, s, &fe) == 0);
	CHECK(ps_filter__uses_comm(f));
	ps_filter__delete(f);

	v[0] = "cpu=1";
	v[1] = "comm=)";
	f = ps_filter__parse(2, v, &fe);
	CHECK(f == NULL);
	CHECK(fe.text == v[1] && fe.pos == 5);
}

static void test_parse_errors(void)
{
	static const struct {
		const char *expr;
		const char *msg;
		size_t pos;
	} t[] = {
		{ "(comm=dd", "this '(' is never closed", 0 },
		{ "((comm=dd)", "this '(' is never closed", 0 },
		{ "comm=dd)", "this ')' closes no '('", 7 },
		{ ")", "this ')' closes no '(' (or a condition is missing)", 0 },
		{ "comm < 5", "comm is a string: '<' compares numbers", 5 },
		{ "event >= 1", "event is a string: '>=' compares numbers", 6 },
		{ "comm & 1", "comm is a string: '&' compares numbers", 5 },
		{ "pid contains 1", "pid is a number: 'contains' compares strings", 4 },
		{ "pid=abc", "pid is a number, and 'abc' is not one", 4 },
		{ "pid in (1, x)", "pid is a number, and 'x' is not one", 11 },
		{ "time > 1.5d", "time is a number, and '1.5d' is not one", 7 },
		{ "time > 2min", "time is a number, and '2min' is not one", 7 },
		{ "syscall < write", "syscall is a number, and 'write' is not one", 10 },
		{ "comm",
		  "an operator (=, !=, <, >, contains, glob, in, exists...) is expected after comm, not the end of the expression",
		  4 },
		{ "comm dd",
		  "an operator (=, !=, <, >, contains, glob, in, exists...) is expected after comm, not 'dd'",
		  5 },
		{ "comm=", "a value is expected here, not the end of the expression", 5 },
		{ "comm=(", "a value is expected here, not '('", 5 },
		{ "comm=&&", "a value is expected here", 5 },
		{ "comm=dd pid=1",
		  "'and', 'or' or the end of the expression is expected here, not 'pid'", 8 },
		{ "comm=dd and", "a condition is expected here, as in comm=NAME", 11 },
		{ "", "a condition is expected here, as in comm=NAME", 0 },
		{ "   ", "a condition is expected here, as in comm=NAME", 3 },
		{ "comm=dd and and", "a field name or '(' is expected here, not 'and'", 12 },
		{ "comm = \"dd", "this string has no closing \"", 7 },
		{ "comm = 'dd", "this string has no closing '", 7 },
		{ "comm | x", "'|' is not an operator: 'or' is written '||' or 'or'", 5 },
		{ "comm in dd", "'in' takes a list in parentheses: in (a, b, c)", 8 },
		{ "comm in (a, b", "this '(' is never closed", 8 },
		{ "comm in (a b)", "',' or ')' is expected in the list of 'in', not 'b'", 11 },
		{ "comm in ()", "a value is expected here, not ')'", 9 },
		{ "sched:sched_switch = 1",
		  "'sched:sched_switch' is an event, not a field: a field of it is written sched:sched_switch.FIELD",
		  0 },
		{ "a.b = 1",
		  "'a.b' is not a field: a tracepoint's field is written system:event.field", 0 },
		{ "a:b.c.d = 1",
		  "'a:b.c.d' is not a field: a tracepoint's field is written system:event.field",
		  0 },
		{ "\"dd\" = comm", "a field name is expected here, not the string '\"dd\"'", 0 },
		{ "42 = pid", "a field name is expected here, not the number '42'", 0 },
		{ "pid[0] = 1", "pid is not an array", 3 },
		{ "args[a] = 1", "an array index (a number) is expected here", 5 },
		{ "args[1s] = 1", "an array index (a number) is expected here", 5 },
		{ "args[1 = 1", "']' is expected here, to close the '[' of the index", 7 },
		{ "x = \"\\x0\"", "\\x needs two hex digits, as in \\x09", 5 },
		{ "x = \"\\x00\"", "a NUL byte cannot be in a string", 5 },
		{ "# = 1", "unexpected character '#'", 0 },
		{ "comm = dd \x01", "unexpected byte 0x01", 10 },
		{ "not", "a condition is expected here, as in comm=NAME", 3 },
		{ "comm=dd or (pid=1 and)", "a condition is expected here, not ')'", 21 },
		{ "()", "a condition is expected here, not ')'", 1 },
		{ "(pid=1 pid=2)", "')' is expected here, not 'pid'", 7 },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		struct ps_filter_error fe;
		struct ps_filter *f = compile1(t[i].expr, &fe);
		bool ok = !f && fe.text == t[i].expr && strcmp(fe.msg, t[i].msg) == 0 &&
		          fe.pos == t[i].pos;

		if (!ok)
			fprintf(stderr, "'%s': got '%s' at %zu, expected '%s' at %zu\n", t[i].expr,
			        f ? "(parsed)" : fe.msg, fe.pos, t[i].msg, t[i].pos);
		CHECK(ok);
		ps_filter__delete(f);
	}
}

static void test_check_errors(struct ps_session *s)
{
	static const struct {
		const char *expr;
		const char *msg; /* a prefix of the message */
		size_t pos;
	} t[] = {
		{ "comn=dd",
		  "unknown field 'comn' (did you mean comm?); the fields of this stream are: event, comm, pid, tid, cpu, time, period, ip, syscall, sym, dso, stack, prev_comm, prev_pid, prev_prio, prev_state, next_comm, next_pid, next_prio, filename, old_pid, id, args, common_type, common_flags, common_preempt_count, common_pid",
		  0 },
		{ "pid=1 and ret < 0", "unknown field 'ret'; the fields of this stream are: event,",
		  10 },
		{ "stream_id = 1",
		  "no event in this stream has the field stream_id; the fields of this stream are: event, comm",
		  0 },
		{ "sched:sched_swich.prev_pid=1",
		  "no event sched:sched_swich in this stream; its tracepoints are: sched:sched_switch, sched:sched_process_exec, raw_syscalls:sys_enter",
		  0 },
		{ "sched:sched_switch.prev_pd=1",
		  "sched:sched_switch has no field 'prev_pd' (did you mean prev_pid?); its fields are: prev_comm, prev_pid",
		  0 },
		{ "prev_comm < 5", "prev_comm is a string: '<' compares numbers", 10 },
		{ "prev_pid contains 4", "prev_pid is a number: 'contains' compares strings", 9 },
		{ "prev_pid = abc", "prev_pid is a number, and 'abc' is not one", 11 },
		{ "filename > 1", "filename is a string: '>' compares numbers", 9 },
		{ "args = 1",
		  "args is an array of 6 (in raw_syscalls:sys_enter): compare one element, as in args[0]",
		  0 },
		{ "args[6] = 1",
		  "args has 6 elements (in raw_syscalls:sys_enter): index 6 is past its end", 0 },
		{ "prev_pid[0] = 1", "prev_pid is not an array (in sched:sched_switch)", 0 },
		{ "syscall = wrte", "'wrte' is not a syscall on x86_64", 10 },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		struct ps_filter_error fe;
		struct ps_filter *f = compile1(t[i].expr, &fe);
		bool ok = f && ps_filter__check(f, s, &fe) < 0 && fe.text == t[i].expr &&
		          strncmp(fe.msg, t[i].msg, strlen(t[i].msg)) == 0 && fe.pos == t[i].pos;

		if (!ok)
			fprintf(stderr, "'%s': got '%s' at %zu, expected '%s' at %zu\n", t[i].expr,
			        f ? fe.msg : "(no parse)", fe.pos, t[i].msg, t[i].pos);
		CHECK(ok);
		ps_filter__delete(f);
	}
}

static void test_caret(void)
{
	struct ps_filter_error fe = { .text = "(comm=dd", .pos = 0 };
	char *c = ps_filter_error__caret(&fe);

	CHECK(c && strcmp(c, "(comm=dd\n^\n") == 0);
	free(c);
	fe.text = "comm < 5";
	fe.pos = 5;
	c = ps_filter_error__caret(&fe);
	CHECK(c && strcmp(c, "comm < 5\n     ^\n") == 0);
	free(c);
	/* a snowman is one column, a tab stays a tab, a newline shows as a space */
	fe.text = "comm=\xe2\x98\x83\t)\nx";
	fe.pos = 9;
	c = ps_filter_error__caret(&fe);
	CHECK(c && strcmp(c, "comm=\xe2\x98\x83\t) x\n      \t^\n") == 0);
	free(c);
	fe.text = "abc";
	fe.pos = 3;
	c = ps_filter_error__caret(&fe);
	CHECK(c && strcmp(c, "abc\n   ^\n") == 0);
	free(c);
	fe.text = NULL;
	CHECK(ps_filter_error__caret(&fe) == NULL);
}

static void test_describe(void)
{
	static const struct {
		const char *expr, *out;
	} t[] = {
		{ "a=1 or b=2 and c=3", "a = 1 or (b = 2 and c = 3)" },
		{ "(a=1 or b=2) and c=3", "(a = 1 or b = 2) and c = 3" },
		{ "not (a=1 or b=2)", "not (a = 1 or b = 2)" },
		{ "!a==1 && b!=2 || c~'x*'", "(not a = 1 and b != 2) or c glob \"x*\"" },
		{ "c~x*", "c glob x*" },
		{ "comm in (a, 'b c')", "comm in (a, \"b c\")" },
		{ "x exists", "x exists" },
		{ "comm = \"a\\\"b\\x01\"", "comm = \"a\\\"b\\x01\"" },
		{ "sched:sched_switch.prev_pid[2] >= 0x10",
		  "sched:sched_switch.prev_pid[2] >= 0x10" },
		{ "time > 1.5ms", "time > 1.5ms" },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		struct ps_filter_error fe;
		struct ps_filter *f = compile1(t[i].expr, &fe);
		char *d = f ? ps_filter__describe(f) : NULL;
		bool ok = d && strcmp(d, t[i].out) == 0;

		if (!ok)
			fprintf(stderr, "'%s': described as '%s', expected '%s'\n", t[i].expr,
			        d ? d : fe.msg, t[i].out);
		CHECK(ok);
		free(d);
		ps_filter__delete(f);
	}
}

static void test_pushdown(void)
{
	static const struct {
		const char *expr, *kernel, *rest;
	} t[] = {
		{ "prev_pid > 42 and comm = dd", "prev_pid > 42", "comm = dd" },
		{ "prev_pid > 42 or comm = dd", "", "prev_pid > 42 or comm = dd" },
		{ "comm = dd", "", "comm = dd" },
		{ "prev_comm contains 'a*'", "", "prev_comm contains \"a*\"" },
		{ "prev_comm contains a", "prev_comm ~ \"*a*\"", "" },
		{ "prev_comm startswith a and prev_comm endswith b",
		  "prev_comm ~ \"a*\" && prev_comm ~ \"*b\"", "" },
		{ "not (prev_pid = 1 and next_pid = 2)", "!(prev_pid == 1 && next_pid == 2)", "" },
		{ "not prev_pid = 1", "!(prev_pid == 1)", "" },
		{ "prev_comm in (a, b)", "prev_comm == \"a\" || prev_comm == \"b\"", "" },
		{ "prev_pid = 1 and (next_pid = 2 or comm = dd)", "prev_pid == 1",
		  "next_pid = 2 or comm = dd" },
		{ "prev_pid = 1 and (next_pid = 2 or comm = dd) and (cpu = 1 or ret = 2)",
		  "prev_pid == 1", "(next_pid = 2 or comm = dd) and (cpu = 1 or ret = 2)" },
		{ "(prev_pid = 1 and comm = x) or next_pid = 2", "prev_pid == 1 || next_pid == 2",
		  "(prev_pid = 1 and comm = x) or next_pid = 2" },
		{ "time > 1s && ret < 0", "ret < 0", "time > 1s" },
		{ "ret < -1", "ret < -1", "" },
		{ "x = 1ms", "x == 1000000", "" },
		{ "x = 2m", "x == 120000000000", "" },
		{ "flags & 0x10", "flags & 16", "" },
		{ "prev_comm = 'a\"b'", "prev_comm == 'a\"b'", "" },
		{ "prev_comm = \"a\\tb\"", "", "prev_comm = \"a\\tb\"" },
		{ "args[0] = 1", "", "args[0] = 1" },
		{ "common_pid = 5", "common_pid == 5", "" },
		{ "sched:sched_switch.prev_pid = 5", "prev_pid == 5", "" },
		{ "prev_pid exists", "", "prev_pid exists" },
		{ "not comm = dd", "", "not comm = dd" },
		{ "prev_comm glob 'kworker/*'", "prev_comm ~ \"kworker/*\"", "" },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		struct ps_filter_error fe;
		struct ps_filter *f = compile1(t[i].expr, &fe);
		char *k = NULL, *r = NULL;
		bool ok = f && ps_filter__pushdown(f, &k, &r) == 0 && strcmp(k, t[i].kernel) == 0 &&
		          strcmp(r, t[i].rest) == 0;

		if (!ok)
			fprintf(stderr, "'%s': kernel '%s' rest '%s', expected '%s' and '%s'\n",
			        t[i].expr, k ? k : "?", r ? r : "?", t[i].kernel, t[i].rest);
		CHECK(ok);
		free(k);
		free(r);
		ps_filter__delete(f);
	}
}

static void test_numbers(void)
{
	static const struct {
		const char *s;
		int ret;
		uint64_t v;
		bool neg;
	} t[] = {
		{ "0", 0, 0, false },
		{ "42", 0, 42, false },
		{ "0x10", 0, 16, false },
		{ "0XfF", 0, 255, false },
		{ "-1", 0, UINT64_MAX, true },
		{ "+7", 0, 7, false },
		{ "-0", 0, 0, false },
		{ "2s", 0, 2000000000ULL, false },
		{ "1.5ms", 0, 1500000ULL, false },
		{ "3us", 0, 3000ULL, false },
		{ "5ns", 0, 5ULL, false },
		{ "1.000000001s", 0, 1000000001ULL, false },
		{ "1.0000000019s", 0, 1000000001ULL, false },
		{ "1.5", 0, 1500000000ULL, false },
		{ "18842.620566", 0, 18842620566000ULL, false },
		{ "18446744073709551615", 0, UINT64_MAX, false },
		{ "0xffffffffffffffff", 0, UINT64_MAX, false },
		{ "-9223372036854775808", 0, 1ULL << 63, true },
		{ "18446744073709551616", -1, 0, false },
		{ "0x10000000000000000", -1, 0, false },
		{ "-9223372036854775809", -1, 0, false },
		{ "20000000000s", -1, 0, false },
		{ "abc", -1, 0, false },
		{ "1e3", -1, 0, false },
		{ "0x", -1, 0, false },
		{ "0xg", -1, 0, false },
		{ "-", -1, 0, false },
		{ "1.", -1, 0, false },
		{ ".5", -1, 0, false },
		{ "1.s", -1, 0, false },
		{ "1 s", -1, 0, false },
		{ "1h", 0, 3600000000000ULL, false },
		{ "1.5h", 0, 5400000000000ULL, false },
		{ "2m", 0, 120000000000ULL, false },
		{ "0.5m", 0, 30000000000ULL, false },
		{ "-1m", 0, (uint64_t)0 - 60000000000ULL, true },
		{ "0x1m", -1, 0, false },
		{ "5124096h", -1, 0, false },
		{ "1d", -1, 0, false },
		{ "1M", -1, 0, false },
		{ "1min", -1, 0, false },
		{ "", -1, 0, false },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		uint64_t v = 0;
		bool neg = false;
		int r = ps_filter__parse_number(t[i].s, strlen(t[i].s), &v, &neg);
		bool ok = r == t[i].ret && (r || (v == t[i].v && neg == t[i].neg));

		if (!ok)
			fprintf(stderr, "number '%s': %d %llu %d\n", t[i].s, r,
			        (unsigned long long)v, neg);
		CHECK(ok);
	}
}

static void test_glob(void)
{
	static const struct {
		const char *pat, *s;
		bool m;
	} t[] = {
		{ "*", "", true },
		{ "*", "abc", true },
		{ "a*", "abc", true },
		{ "*c", "abc", true },
		{ "*b*", "abc", true },
		{ "a?c", "abc", true },
		{ "a?c", "ac", false },
		{ "[a-c]x", "bx", true },
		{ "[!a-c]x", "bx", false },
		{ "[^a-c]x", "dx", true },
		{ "[]]", "]", true },
		{ "[", "[", true },
		{ "a[", "a[", true },
		{ "\\*", "*", true },
		{ "\\*", "a", false },
		{ "sched:*", "sched:sched_switch", true },
		{ "sched:*", "raw_syscalls:sys_enter", false },
		{ "*a*a*a*a*b", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", false },
		{ "kworker/*:*", "kworker/1:2-eve", true },
		{ "", "", true },
		{ "", "a", false },
		{ "abc", "abcd", false },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		bool m = ps_filter_glob(t[i].pat, strlen(t[i].pat), t[i].s, strlen(t[i].s));

		if (m != t[i].m)
			fprintf(stderr, "glob '%s' on '%s': %d\n", t[i].pat, t[i].s, m);
		CHECK(m == t[i].m);
	}
}

/* A filter made before the stream is known binds on the first sample of each event. */
static void test_late_binding(struct ps_session *s)
{
	struct ps_filter_error fe;
	struct ps_filter *f = compile1("prev_pid = 42 or syscall = write", &fe);
	struct ps_record rec = sample_record(0);
	struct ps_error err = { 0 };
	struct ps_session *empty = ps_session__new(false);
	struct ps_sample smp;

	CHECK(f != NULL);
	CHECK(empty != NULL);
	if (!f || !empty)
		return;
	/* a stream without events is not checked */
	CHECK(ps_filter__check(f, empty, &fe) == 0);
	CHECK(ps_sample__parse(s, &rec, &smp, "test", &err) == 0);
	CHECK(ps_filter__match(f, s, &smp) == 1);
	rec = sample_record(3);
	CHECK(ps_sample__parse(s, &rec, &smp, "test", &err) == 0);
	CHECK(ps_filter__match(f, s, &smp) == 1);
	CHECK(ps_filter__invert(f) == 0);
	CHECK(ps_filter__match(f, s, &smp) == 0);
	ps_filter__delete(f);
	ps_session__delete(empty);
}

/* ---- fuzz: random and mutated expressions never crash ---- */

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint32_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng >> 11);
}

static void try_expr(struct ps_session *s, const char *expr)
{
	const char *v[2] = { expr, "comm=dd or not cpu exists" };
	struct ps_filter_error fe;
	struct ps_filter *f = ps_filter__parse(1 + (int)(rnd() % 2), v, &fe);
	char *d, *k, *r;
	int i;

	if (!f) {
		/* every error has a message, and points inside the text or at its end */
		if (!fe.msg[0] || (fe.text && fe.pos > strlen(fe.text)))
			CHECK(!"a parse error without a message or outside its text");
		free(ps_filter_error__caret(&fe));
		return;
	}
	d = ps_filter__describe(f);
	free(d);
	if (ps_filter__pushdown(f, &k, &r) == 0) {
		free(k);
		free(r);
	}
	if (rnd() % 4 == 0)
		ps_filter__invert(f);
	if (ps_filter__check(f, s, &fe) == 0) {
		for (i = 0; i < NSAMPLES; i++) {
			struct ps_record rec = sample_record(i);
			struct ps_error err = { 0 };
			struct ps_sample smp;

			if (ps_sample__parse(s, &rec, &smp, "test", &err) == 0)
				ps_filter__match(f, s, &smp);
		}
	} else {
		free(ps_filter_error__caret(&fe));
	}
	ps_filter__delete(f);
}

static void test_fuzz(struct ps_session *s)
{
	static const char *const frags[] = {
		"comm",
		"pid",
		"tid",
		"cpu",
		"time",
		"event",
		"syscall",
		"prev_pid",
		"prev_comm",
		"args",
		"filename",
		"sched:sched_switch.prev_pid",
		"a:b.c",
		"x",
		"=",
		"==",
		"!=",
		"<",
		"<=",
		">",
		">=",
		"&",
		"&&",
		"|",
		"||",
		"!",
		"~",
		"and",
		"or",
		"not",
		"in",
		"exists",
		"contains",
		"startswith",
		"endswith",
		"glob",
		"(",
		")",
		"[",
		"]",
		",",
		"\"",
		"'",
		"\\",
		"\\x",
		"\\x4",
		"0x",
		"1",
		"-1",
		"42",
		"1.5",
		"ms",
		"s",
		"*",
		"?",
		" ",
		" ",
		" ",
		"\t",
		"\n",
		"\xe2\x98\x83",
		"\x01",
		"\xff",
		"dd",
		"sched:*",
		".",
		":",
		"write",
		"18446744073709551616",
	};
	static const char *const seeds[] = {
		"comm=dd and (pid in (1, 2) or not cpu exists)",
		"event glob \"sched:*\" and not comm startswith kworker",
		"sched:sched_switch.prev_comm = 'a\\\"b' || prev_state & 1",
		"args[2] >= 0x1000 && syscall in (read, write)",
		"!(time > 1.5ms) and filename endswith /dd",
	};
	char buf[512];
	int i, j;

	for (i = 0; i < 30000; i++) {
		size_t n = 0;
		int parts = 1 + (int)(rnd() % 12);

		for (j = 0; j < parts; j++) {
			const char *p = frags[rnd() % ARRAY_SIZE(frags)];
			size_t len = strlen(p);

			if (n + len >= sizeof(buf))
				break;
			memcpy(buf + n, p, len);
			n += len;
		}
		buf[n] = 0;
		try_expr(s, buf);
	}
	for (i = 0; i < 30000; i++) {
		const char *seed = seeds[rnd() % ARRAY_SIZE(seeds)];
		size_t n = strlen(seed);
		int k, edits = 1 + (int)(rnd() % 4);

		memcpy(buf, seed, n + 1);
		for (k = 0; k < edits; k++) {
			size_t at = n ? rnd() % n : 0;

			switch (rnd() % 4) {
			case 0: /* flip a byte */
				if (n)
					buf[at] = (char)(1 + rnd() % 255);
				break;
			case 1: /* delete one */
				if (n) {
					memmove(buf + at, buf + at + 1, n - at);
					n--;
				}
				break;
			case 2: /* insert one */
				if (n + 2 < sizeof(buf)) {
					memmove(buf + at + 1, buf + at, n - at + 1);
					buf[at] = "()\"' =!&|,[]\\x0"[rnd() % 15];
					n++;
				}
				break;
			default: /* cut */
				buf[at] = 0;
				n = at;
				break;
			}
		}
		try_expr(s, buf);
	}
	/* nesting deeper than the parser allows is an error, not a stack overflow */
	{
		static char deep[100001];

		memset(deep, '(', 50000);
		memcpy(deep + 50000, "comm=dd", 8);
		try_expr(s, deep);
		for (i = 0; i < 25000; i++)
			memcpy(deep + 4 * i, "not ", 4);
		memcpy(deep + 100000 - 8, "comm=dd", 8);
		try_expr(s, deep);
		memset(deep, '!', 100000);
		deep[100000] = 0;
		try_expr(s, deep);
	}
	/* long and/or chains: up to the limit they work, past it they are refused */
	{
		static char chain[8 * 5000 + 1];
		struct ps_filter_error fe;
		struct ps_filter *f;
		size_t n = 0;

		for (i = 0; i < 4096; i++) {
			memcpy(chain + n, i % 2 ? " or a=1" : " && x=1", 7);
			n += 7;
		}
		chain[n] = 0;
		memcpy(chain, "    x=1", 7);
		f = compile1(chain, &fe);
		CHECK(f != NULL);
		if (f) {
			char *d = ps_filter__describe(f), *k, *r;

			CHECK(d != NULL);
			free(d);
			CHECK(ps_filter__pushdown(f, &k, &r) == 0);
			free(k);
			free(r);
		}
		ps_filter__delete(f);
		memcpy(chain + n, " && y=2", 8);
		f = compile1(chain, &fe);
		CHECK(f == NULL && strcmp(fe.msg, "more than 4096 conditions in one filter") == 0 &&
		      fe.pos == n + 4);
	}
	CHECK(1);
}

/*
 * One filter, the same thread renamed between two of its samples (an exec's COMM, a
 * FORK, threads forgotten): each sample sees the name of its moment, though the filter
 * keeps its last comm answer for speed.
 */
static void test_comm_changes(void)
{
	struct ps_session *s = make_stream();
	struct ps_filter_error fe;
	struct ps_filter *f = compile1("comm=dd or comm=':42'", &fe);
	struct ps_record rec = sample_record(3); /* tid 42 */
	struct ps_error err = { 0 };
	struct ps_sample smp;

	CHECK(s && f && ps_filter__check(f, s, &fe) == 0);
	if (!s || !f) {
		ps_filter__delete(f);
		ps_session__delete(s);
		return;
	}
	CHECK(ps_sample__parse(s, &rec, &smp, "test", &err) == 0);
	CHECK(ps_filter__match(f, s, &smp) == 1);
	CHECK(ps_filter__match(f, s, &smp) == 1);
	ps_session__set_comm(s, 42, 42, "bash");
	CHECK(ps_filter__match(f, s, &smp) == 0);
	ps_session__set_comm(s, 42, 42, "dd");
	CHECK(ps_filter__match(f, s, &smp) == 1);
	ps_session__set_comm(s, 42, 42, ""); /* unnamed: ":42" */
	CHECK(ps_filter__match(f, s, &smp) == 1);
	ps_session__set_comm(s, 42, 42, "x");
	CHECK(ps_filter__match(f, s, &smp) == 0);
	ps_filter__delete(f);
	ps_session__delete(s);
}

int main(void)
{
	struct ps_session *s = make_stream();
	int i;

	CHECK(s != NULL);
	if (!s)
		return UNIT_DONE("filter");
	test_numbers();
	test_glob();
	test_parse_errors();
	test_caret();
	test_describe();
	test_pushdown();
	test_eval(s);
	test_operands(s);
	test_check_errors(s);
	test_late_binding(s);
	test_comm_changes();
	test_fuzz(s);
	ps_session__delete(s);
	for (i = 0; i < NSAMPLES; i++)
		free(samples[i].p);
	return UNIT_DONE("filter");
}
