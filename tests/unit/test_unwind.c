// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_unwind.c - DWARF unwinding on this very process: its registers (getcontext) and a
 * copy of the top of its stack are a --call-graph dwarf sample, its maps (/proc/self/maps)
 * the MMAP2 records; the frames must be the functions that called.  Then a stack copy cut
 * short, registers that point anywhere, a mask without the instruction pointer, a chain
 * deeper than the cap, and the bound on sessions.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include "lib/session.h"
#include "lib/symbols.h"
#include "lib/symbols_int.h"
#include "lib/unwind.h"
#include "unit.h"

#define NR_REGS 20 /* mask 0xff0fff */
#define COPY 8192

struct capture {
	uint64_t regs[NR_REGS];
	unsigned char *stack;
	size_t len;
};

static volatile int depth_sink;

/* the end of the [stack] mapping: a copy must not run past it */
static uint64_t stack_end(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[4096];
	unsigned long long start, end = 0;

	if (!f)
		abort();
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "[stack]") && sscanf(line, "%llx-%llx", &start, &end) == 2)
			break;
	fclose(f);
	return end;
}

/* the kernel's copy, byte by byte: not through ASan's view of this stack's redzones */
static __attribute__((no_sanitize_address, noinline)) void raw_copy(unsigned char *dst,
                                                                    uint64_t src, size_t n)
{
	const volatile unsigned char *p = (const volatile unsigned char *)(uintptr_t)src;

	for (size_t i = 0; i < n; i++)
		dst[i] = p[i];
}

/* perf's register order: ax bx cx dx si di bp sp ip flags cs ss r8..r15 (mask 0xff0fff) */
static __attribute__((noinline)) void capture_now(struct capture *c)
{
	ucontext_t uc;
	const greg_t *g;
	static const int order[NR_REGS] = { REG_RAX, REG_RBX, REG_RCX, REG_RDX, REG_RSI,
		                            REG_RDI, REG_RBP, REG_RSP, REG_RIP, REG_EFL,
		                            -1,      -1,      REG_R8,  REG_R9,  REG_R10,
		                            REG_R11, REG_R12, REG_R13, REG_R14, REG_R15 };

	if (getcontext(&uc) != 0)
		abort();
	g = uc.uc_mcontext.gregs;
	for (int i = 0; i < NR_REGS; i++)
		c->regs[i] = order[i] < 0 ? 0 : (uint64_t)g[order[i]];
	/* the copy is a buffer of its own, exactly sized: ASan sees any read past it */
	if (c->regs[7] + c->len > stack_end())
		c->len = (size_t)(stack_end() - c->regs[7]);
	c->stack = malloc(c->len);
	if (!c->stack)
		abort();
	raw_copy(c->stack, c->regs[7], c->len);
}

static __attribute__((noinline)) void unw_level3(struct capture *c)
{
	capture_now(c);
	depth_sink++;
}

static __attribute__((noinline)) void unw_level2(struct capture *c)
{
	unw_level3(c);
	depth_sink++;
}

static __attribute__((noinline)) void unw_level1(struct capture *c)
{
	unw_level2(c);
	depth_sink++;
}

static __attribute__((noinline)) void unw_deep(struct capture *c, int n)
{
	if (n)
		unw_deep(c, n - 1);
	else
		capture_now(c);
	depth_sink++;
}

/* the process's file maps as MMAP2 records */
static void feed_maps(struct ps_symbols *st, uint32_t pid)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[4096];

	if (!f)
		abort();
	while (fgets(line, sizeof(line), f)) {
		unsigned long long start, end, pgoff;
		char perms[8], path[4096] = "";
		unsigned char rec[8 + 64 + 4096] = { 0 };
		struct ps_record r = { .data = rec };
		size_t n, rlen;

		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %4095s", &start, &end, perms, &pgoff,
		           path) < 4 ||
		    path[0] != '/')
			continue;
		n = strlen(path);
		rlen = (8 + 64 + n + 1 + 7) & ~(size_t)7;
		ps_put32(rec, PERF_RECORD_MMAP2, false);
		ps_put16(rec + 6, (uint16_t)rlen, false);
		ps_put32(rec + 8, pid, false);
		ps_put32(rec + 12, pid, false);
		ps_put64(rec + 16, start, false);
		ps_put64(rec + 24, end - start, false);
		ps_put64(rec + 32, pgoff, false);
		memcpy(rec + 8 + 64, path, n);
		r.type = PERF_RECORD_MMAP2;
		r.misc = PERF_RECORD_MISC_USER;
		r.len = r.size = (uint16_t)rlen;
		ps_symbols__process(st, &r);
	}
	fclose(f);
}

static struct ps_attr attr = { .sample_regs_user = 0xff0fffull };
static uint64_t user_marker[1] = { (uint64_t)PERF_CONTEXT_USER };

static void make_sample(struct ps_sample *smp, const struct capture *c, size_t len)
{
	memset(smp, 0, sizeof(*smp));
	smp->attr = &attr;
	smp->type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_CALLCHAIN |
	            PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
	smp->pid = smp->tid = (uint32_t)getpid();
	smp->ip = c->regs[8];
	smp->callchain = (const unsigned char *)user_marker;
	smp->nr_callchain = 1;
	smp->regs_user_abi = PERF_SAMPLE_REGS_ABI_64;
	smp->regs_user = (const unsigned char *)c->regs;
	smp->nr_regs_user = NR_REGS;
	smp->stack_user = c->stack;
	smp->stack_size = smp->stack_dyn_size = len;
}

static ssize_t find_frame(const struct ps_frame *f, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (f[i].sym.name && strcmp(f[i].sym.name, name) == 0)
			return (ssize_t)i;
	return -1;
}

static void test_self(struct ps_symbols *st)
{
	struct ps_frame f[PS_SYMBOLS_MAX_STACK];
	struct capture c = { .len = COPY };
	struct ps_sample smp;
	ssize_t a, b, d;
	size_t n;

	unw_level1(&c);
	make_sample(&smp, &c, c.len);
	CHECK(ps_unwind__usable(&smp));
	n = ps_symbols__frames(st, &smp, f, PS_SYMBOLS_MAX_STACK);
	a = find_frame(f, n, "unw_level3");
	b = find_frame(f, n, "unw_level2");
	d = find_frame(f, n, "unw_level1");
	CHECK(n >= 4);
	CHECK(a >= 0 && b == a + 1 && d == b + 1);
	CHECK(find_frame(f, n, "main") > d);
	/* callers are shown at their call instruction: return address minus one */
	CHECK(n > 1 && f[1].ip != 0);

	/* a copy that ends inside the first frames: what can be unwound, then perf's
	 * [unknown] for the return address it could not read */
	make_sample(&smp, &c, 16);
	n = ps_symbols__frames(st, &smp, f, PS_SYMBOLS_MAX_STACK);
	CHECK(n >= 1 && n < 5);
	CHECK(find_frame(f, n, "main") < 0);
	CHECK(n >= 2 && f[n - 1].ip == UINT64_MAX && !f[n - 1].sym.name);

	/* no copy at all, or a stack pointer far from it: the sample's own ip only, maybe
	 * followed by [unknown] */
	make_sample(&smp, &c, 0);
	CHECK(!ps_unwind__usable(&smp));
	CHECK(ps_symbols__frames(st, &smp, f, PS_SYMBOLS_MAX_STACK) == 0);
	c.regs[7] ^= 0x5555555555550000ull;
	make_sample(&smp, &c, c.len);
	n = ps_symbols__frames(st, &smp, f, PS_SYMBOLS_MAX_STACK);
	CHECK(n >= 1 && n <= 2);
	c.regs[7] ^= 0x5555555555550000ull;

	/* a mask without the instruction pointer is not unwound */
	attr.sample_regs_user = 0xff0effull;
	make_sample(&smp, &c, c.len);
	smp.nr_regs_user = NR_REGS - 1;
	CHECK(!ps_unwind__usable(&smp));
	attr.sample_regs_user = 0xff0fffull;
	free(c.stack);

	/* deeper than the cap: at most PS_SYMBOLS_MAX_STACK frames */
	c.len = 65528;
	unw_deep(&c, 300);
	make_sample(&smp, &c, c.len);
	n = ps_symbols__frames(st, &smp, f, PS_SYMBOLS_MAX_STACK);
	CHECK_EQ_U64(n, PS_SYMBOLS_MAX_STACK);
	CHECK(find_frame(f, n, "unw_deep") >= 0);
	free(c.stack);
}

static bool any_map(void *ctx, uint32_t pid, uint64_t addr, struct ps_unwind_map *m, uint64_t *gen)
{
	(void)ctx;
	(void)pid;
	(void)addr;
	(void)m;
	*gen = 1;
	return false;
}

/* many processes: the sessions stay few */
static void test_sessions(void)
{
	static const struct ps_dso_paths paths = { "", "/nonexistent", 0 };
	struct ps_unwind *u = ps_unwind__new(&paths, any_map, NULL);
	struct capture c = { .len = 256 };
	struct ps_sample smp;
	uint64_t ips[8], started;
	size_t nr;

	CHECK(u != NULL);
	unw_level1(&c);
	make_sample(&smp, &c, c.len);
	for (uint32_t pid = 1; pid <= 40; pid++) {
		smp.pid = pid;
		/* nothing mapped: the sample's ip alone */
		CHECK_EQ_U64(ps_unwind__sample(u, &smp, ips, 8), 1);
	}
	ps_unwind__stats(u, &nr, &started);
	CHECK(nr <= 16);
	free(c.stack);
	ps_unwind__delete(u);
}

int main(void)
{
	struct ps_error err = { 0 };
	struct ps_session *s = ps_session__new(false);
	struct ps_symbols *st = s ? ps_symbols__new(s, NULL, &err) : NULL;

	CHECK(st != NULL);
	if (st) {
		feed_maps(st, (uint32_t)getpid());
		test_self(st);
		ps_symbols__delete(st);
	}
	ps_session__delete(s);
	test_sessions();
	return UNIT_DONE("unwind");
}
