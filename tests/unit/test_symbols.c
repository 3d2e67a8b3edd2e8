// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_symbols.c - the symbol module: perf's rules for aliases and unsized symbols, the
 * address spaces (overlapping maps, FORK, EXIT), a JIT map, a kallsyms copy with its
 * relocation and modules, call chains with context markers, and folded stacks; files that
 * are not regular files refused without blocking, long lines and stop requests; the
 * cache's bound without reading a table for every sample.
 */
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include "build.h"
#include "lib/session.h"
#include "lib/signals.h"
#include "lib/symbols.h"
#include "lib/symbols_int.h"
#include "unit.h"

static const char *name_at(const struct ps_symtab *t, uint64_t addr)
{
	const struct ps_sym *s = ps_symtab__find(t, addr);

	return s ? ps_symtab__name(t, s, NULL) : NULL;
}

static bool streq(const char *a, const char *b)
{
	return a && b && strcmp(a, b) == 0;
}

static void add(struct ps_symtab *t, uint64_t start, uint64_t size, const char *name, int bind)
{
	CHECK(ps_symtab__add(t, start, start + size, name, strlen(name), (uint8_t)bind, NULL) == 0);
}

/* aliases: sized beats unsized, anything beats weak, global beats local, fewer leading
 * underscores, then the longer name */
static void test_aliases(void)
{
	struct ps_symtab t = { 0 };

	add(&t, 0x1000, 0x10, "__libc_malloc", STB_GLOBAL);
	add(&t, 0x1000, 0x10, "malloc", STB_GLOBAL);
	add(&t, 0x1000, 0x10, "__malloc", STB_WEAK);
	add(&t, 0x2000, 0, "label", STB_GLOBAL);
	add(&t, 0x2000, 0x20, "sized", STB_LOCAL);
	add(&t, 0x3000, 0x10, "local_fn", STB_LOCAL);
	add(&t, 0x3000, 0x10, "weak_fn", STB_WEAK);
	add(&t, 0x4000, 0x10, "ab", STB_GLOBAL);
	add(&t, 0x4000, 0x10, "abc", STB_GLOBAL);
	ps_symtab__finish(&t, false);
	CHECK(streq(name_at(&t, 0x1008), "malloc"));
	CHECK(streq(name_at(&t, 0x2010), "sized"));
	CHECK(streq(name_at(&t, 0x3000), "local_fn"));
	CHECK(streq(name_at(&t, 0x400f), "abc"));
	CHECK(name_at(&t, 0x4010) == NULL); /* past a sized symbol: nothing */
	CHECK(name_at(&t, 0x0fff) == NULL);
	ps_symtab__free(&t);
}

/* an unsized symbol reaches the next one; the last one to the next page */
static void test_unsized(void)
{
	struct ps_symtab t = { 0 };

	add(&t, 0x5000, 0, "asm_stub", STB_GLOBAL);
	add(&t, 0x5100, 0x10, "after", STB_GLOBAL);
	add(&t, 0x6010, 0, "last", STB_GLOBAL);
	ps_symtab__finish(&t, false);
	CHECK(streq(name_at(&t, 0x50ff), "asm_stub"));
	CHECK(name_at(&t, 0x5110) == NULL);
	CHECK(streq(name_at(&t, 0x7fff), "last"));
	CHECK(name_at(&t, 0x8000) == NULL);
	ps_symtab__free(&t);
}

static struct buf rec_start(uint32_t type, uint16_t misc)
{
	struct buf b = { 0 };

	put32(&b, type);
	put16(&b, misc);
	put16(&b, 0);
	return b;
}

static void rec_apply(struct ps_symbols *st, struct buf *b)
{
	struct ps_record r = { 0 };

	while (b->len % 8)
		put_bytes(b, "", 1);
	ps_put16(b->p + 6, (uint16_t)b->len, false);
	r.data = b->p;
	r.len = b->len;
	r.type = ps_get32(b->p, false);
	r.misc = ps_get16(b->p + 4, false);
	r.size = (uint16_t)b->len;
	ps_symbols__process(st, &r);
	free(b->p);
}

static void mmap2(struct ps_symbols *st, uint32_t pid, uint64_t start, uint64_t len, uint64_t pgoff,
                  const char *file, uint16_t misc)
{
	struct buf b = rec_start(PERF_RECORD_MMAP2, misc);

	put32(&b, pid);
	put32(&b, pid);
	put64(&b, start);
	put64(&b, len);
	put64(&b, pgoff);
	grow(&b, 24); /* maj, min, ino, ino_generation */
	put32(&b, 5);
	put32(&b, 2);
	put_bytes(&b, file, strlen(file) + 1);
	rec_apply(st, &b);
}

static void fork_exit(struct ps_symbols *st, uint32_t type, uint32_t pid, uint32_t ppid)
{
	struct buf b = rec_start(type, 0);

	put32(&b, pid);
	put32(&b, ppid);
	put32(&b, pid);
	put32(&b, ppid);
	put64(&b, 0);
	rec_apply(st, &b);
}

static void test_spaces(void)
{
	struct ps_session *s = ps_session__new(false);
	char jit[64], kfile[] = "/tmp/test_symbols_XXXXXX";
	uint32_t pid = (uint32_t)getpid(), child = pid + 100000;
	struct ps_symbols_opts o = { 0 };
	struct ps_fold_buf fb = { 0 };
	struct ps_frame fr[8];
	struct ps_sample smp;
	struct ps_symbols *st;
	struct ps_symbol sym;
	struct ps_error err;
	uint64_t chain[6];
	FILE *fp;
	int fd;

	snprintf(jit, sizeof(jit), "/tmp/perf-%u.map", pid);
	fp = fopen(jit, "w");
	CHECK(fp != NULL);
	if (!fp)
		return;
	fprintf(fp, "7f0000001000 100 jit_fn;with;semicolons\n7f0000001100 80 jit_other\n");
	fclose(fp);
	fd = mkstemp(kfile);
	CHECK(fd >= 0);
	fp = fdopen(fd, "w");
	/* out of address order (sorted when read) and an address in capitals */
	fprintf(fp, "ffffffff81000000 T _text\nffffffff81000100 T do_work\n"
	            "ffffffff81000100 t __do_work_alias\nFFFFFFFF81000400 T upper_fn\n"
	            "ffffffff81000300 T next_fn\nffffffff81000200 r rodata_thing\n"
	            "ffffffffc0000000 t mod_fn\t[mymod]\n");
	fclose(fp);
	o.kallsyms = kfile;
	st = ps_symbols__new(s, &o, &err);
	CHECK(st != NULL);
	if (!st)
		return;

	/* KASLR: the stream's kernel sits 0x200000 higher than the copy says */
	{
		struct buf b = rec_start(PERF_RECORD_MMAP, PERF_RECORD_MISC_KERNEL);

		put32(&b, 0xffffffffu);
		put32(&b, 0);
		put64(&b, 0xffffffff81200000);
		put64(&b, 0x1000000);
		put64(&b, 0xffffffff81200000);
		put_bytes(&b, "[kernel.kallsyms]_text", 23);
		rec_apply(st, &b);
	}
	ps_symbols__find(st, pid, PERF_RECORD_MISC_KERNEL, 0xffffffff81200110, &sym);
	CHECK(streq(sym.name, "__do_work_alias") || streq(sym.name, "do_work"));
	CHECK_EQ_U64(sym.off, 0x10);
	CHECK(streq(sym.dso, "[kernel.kallsyms]"));
	/* r is not a symbol perf keeps: do_work reaches next_fn */
	ps_symbols__find(st, pid, PERF_RECORD_MISC_KERNEL, 0xffffffff81200250, &sym);
	CHECK_EQ_U64(sym.off, 0x150);
	ps_symbols__find(st, pid, PERF_RECORD_MISC_KERNEL, 0xffffffff81200310, &sym);
	CHECK(streq(sym.name, "next_fn"));
	CHECK_EQ_U64(sym.off, 0x10);
	ps_symbols__find(st, pid, PERF_RECORD_MISC_KERNEL, 0xffffffff81200404, &sym);
	CHECK(streq(sym.name, "upper_fn"));
	ps_symbols__find(st, pid, PERF_RECORD_MISC_KERNEL, 0xffffffffc0000004, &sym);
	CHECK(streq(sym.name, "mod_fn"));
	CHECK(streq(sym.dso, "[mymod]"));

	/* anonymous memory is named from the JIT map */
	mmap2(st, pid, 0x7f0000000000, 0x10000, 0, "//anon", 0);
	ps_symbols__find(st, pid, PERF_RECORD_MISC_USER, 0x7f0000001010, &sym);
	CHECK(streq(sym.name, "jit_fn;with;semicolons"));
	CHECK_EQ_U64(sym.off, 0x10);
	CHECK(streq(sym.dso, jit));
	/* a mapping in the middle cuts the old one in two */
	mmap2(st, pid, 0x7f0000004000, 0x1000, 0, "[heap]", 0);
	ps_symbols__find(st, pid, PERF_RECORD_MISC_USER, 0x7f0000004010, &sym);
	CHECK(streq(sym.dso, "[heap]") && !sym.name);
	ps_symbols__find(st, pid, PERF_RECORD_MISC_USER, 0x7f0000001110, &sym);
	CHECK(streq(sym.name, "jit_other"));
	ps_symbols__find(st, pid, PERF_RECORD_MISC_USER, 0x7f0000008000, &sym);
	CHECK(streq(sym.dso, jit));
	ps_symbols__find(st, pid, PERF_RECORD_MISC_USER, 0x7f0000010000, &sym);
	CHECK(!sym.dso && !sym.name);

	/* FORK copies the maps; after EXIT they still name the samples that come late, as
	 * perf names them, until the pid is a new process */
	fork_exit(st, PERF_RECORD_FORK, child, pid);
	ps_symbols__find(st, child, PERF_RECORD_MISC_USER, 0x7f0000001010, &sym);
	CHECK(streq(sym.name, "jit_fn;with;semicolons"));
	fork_exit(st, PERF_RECORD_EXIT, child, pid);
	ps_symbols__find(st, child, PERF_RECORD_MISC_USER, 0x7f0000001010, &sym);
	CHECK(sym.name && streq(sym.name, "jit_fn;with;semicolons"));
	mmap2(st, child, 0x7e0000000000, 0x1000, 0, "[heap]", 0);
	ps_symbols__find(st, child, PERF_RECORD_MISC_USER, 0x7f0000001010, &sym);
	CHECK(!sym.dso);
	ps_symbols__find(st, child, PERF_RECORD_MISC_USER, 0x7e0000000010, &sym);
	CHECK(sym.dso && streq(sym.dso, "[heap]"));

	/* a call chain: markers set the mode, are not frames; folded outermost first */
	chain[0] = (uint64_t)PERF_CONTEXT_KERNEL;
	chain[1] = 0xffffffff81200110;
	chain[2] = (uint64_t)PERF_CONTEXT_USER;
	chain[3] = 0x7f0000001010;
	chain[4] = 0x10; /* nothing mapped */
	memset(&smp, 0, sizeof(smp));
	smp.type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_CALLCHAIN;
	smp.pid = smp.tid = pid;
	smp.ip = chain[1];
	smp.callchain = (const unsigned char *)chain;
	smp.nr_callchain = 5;
	CHECK_EQ_U64(ps_symbols__frames(st, &smp, fr, 8), 3);
	CHECK(streq(fr[1].sym.name, "jit_fn;with;semicolons"));
	CHECK(!fr[2].sym.name && !fr[2].sym.dso);
	CHECK(ps_symbols__fold(st, &smp, PERF_RECORD_MISC_KERNEL, "my prog", &fb, &err) == 0);
	CHECK(strncmp(fb.buf, "my_prog;[unknown];jit_fn:with:semicolons;", 41) == 0);
	/* the sample's own ip, by the record's cpumode */
	CHECK(ps_symbols__sample(st, &smp, PERF_RECORD_MISC_KERNEL, &sym));
	CHECK(streq(sym.dso, "[kernel.kallsyms]"));
	/* an unknown marker drops the chain, as perf does */
	chain[2] = (uint64_t)-3000;
	CHECK_EQ_U64(ps_symbols__frames(st, &smp, fr, 8), 0);
	CHECK(ps_symbols__fold(st, &smp, 0, NULL, &fb, &err) == 0);
	CHECK(strcmp(fb.buf, "[unknown]") == 0);
	/* no callchain: the sample's own function */
	smp.type = PERF_SAMPLE_IP | PERF_SAMPLE_TID;
	smp.ip = 0x7f0000001120;
	CHECK(ps_symbols__fold(st, &smp, PERF_RECORD_MISC_USER, "p", &fb, &err) == 0);
	CHECK(strcmp(fb.buf, "p;jit_other") == 0);

	free(fb.buf);
	ps_symbols__delete(st);
	ps_session__delete(s);
	unlink(jit);
	unlink(kfile);
}

/* many short-lived processes: the tables stay bounded */
static void test_flat(void)
{
	struct ps_session *s = ps_session__new(false);
	struct ps_symbols *st = ps_symbols__new(s, NULL, NULL);
	size_t objs = 0, bytes = 0, procs = 0;
	uint32_t i;

	for (i = 0; i < 200000; i++) {
		char name[64];

		snprintf(name, sizeof(name), "/nonexistent/lib%u.so", i % 5000);
		fork_exit(st, PERF_RECORD_FORK, 1000 + i, 1);
		mmap2(st, 1000 + i, 0x400000, 0x1000, 0, name, 0);
		fork_exit(st, PERF_RECORD_EXIT, 1000 + i, 1);
	}
	ps_symbols__stats(st, &objs, &bytes, &procs);
	/* the processes that exited last are kept for their late samples, no more */
	CHECK_EQ_U64(procs, 1024);
	CHECK(objs <= 16384);
	ps_symbols__delete(st);
	ps_session__delete(s);
}

/* the notices waiting, one per line, into @out; how many */
static int take_notices(struct ps_symbols *st, char *out, size_t len)
{
	const char *n;
	int k = 0;

	out[0] = 0;
	while ((n = ps_symbols__take_notice(st)) != NULL) {
		size_t at = strlen(out);

		snprintf(out + at, len - at, "%s\n", n);
		k++;
	}
	return k;
}

static const char *user_name(struct ps_symbols *st, uint32_t pid, uint64_t addr)
{
	struct ps_symbol sym;

	ps_symbols__find(st, pid, PERF_RECORD_MISC_USER, addr, &sym);
	return sym.name;
}

/*
 * Objects and JIT maps that are FIFOs, /dev/zero or directories: refused at once (before
 * the fix, the FIFOs blocked here forever and /dev/zero was read forever), said once each.
 */
static void test_refused(void)
{
	struct ps_session *s = ps_session__new(false);
	uint32_t pid = (uint32_t)getpid();
	char dir[] = "/tmp/test_symbols_XXXXXX", fifo[64], zero[64], jfifo[64], jzero[64],
	     jlong[64], notes[4096], *line;
	struct ps_symbols *st;
	uint64_t reads;
	FILE *fp;

	CHECK(mkdtemp(dir) != NULL);
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	snprintf(zero, sizeof(zero), "%s/zero.so", dir);
	snprintf(jfifo, sizeof(jfifo), "/tmp/perf-test-%u-fifo.map", pid);
	snprintf(jzero, sizeof(jzero), "/tmp/perf-test-%u-zero.map", pid);
	snprintf(jlong, sizeof(jlong), "/tmp/perf-test-%u-long.map", pid);
	/* what a run killed on the way left (the pid may come again) */
	unlink(jfifo);
	unlink(jzero);
	CHECK(mkfifo(fifo, 0600) == 0);
	CHECK(mkfifo(jfifo, 0600) == 0);
	CHECK(symlink("/dev/zero", zero) == 0);
	CHECK(symlink("/dev/zero", jzero) == 0);
	st = ps_symbols__new(s, NULL, NULL);
	CHECK(st != NULL);
	if (!st)
		return;
	mmap2(st, pid, 0x10000000, 0x10000, 0, fifo, 0);
	mmap2(st, pid, 0x20000000, 0x10000, 0, zero, 0);
	mmap2(st, pid, 0x30000000, 0x10000, 0, jfifo, 0);
	mmap2(st, pid, 0x40000000, 0x10000, 0, jzero, 0);
	mmap2(st, pid, 0x50000000, 0x10000, 0, dir, 0);
	for (int k = 0; k < 3; k++) {
		CHECK(!user_name(st, pid, 0x10000010));
		CHECK(!user_name(st, pid, 0x20000010));
		CHECK(!user_name(st, pid, 0x30000010));
		CHECK(!user_name(st, pid, 0x40000010));
		CHECK(!user_name(st, pid, 0x50000010));
	}
	/* one notice per refused file, none for the directory (nothing to say: no object) */
	CHECK_EQ_U64(take_notices(st, notes, sizeof(notes)), 4);
	line = strstr(notes, fifo);
	CHECK(line && strncmp(line + strlen(fifo), ": not a regular file, not read\n", 31) == 0);
	CHECK(strstr(notes, zero) && strstr(notes, jfifo) && strstr(notes, jzero));
	CHECK(!strstr(notes, "XXXXXX"));
	/* each was tried once */
	reads = ps_symbols__reads(st);
	CHECK_EQ_U64(reads, 5);
	CHECK(!user_name(st, pid, 0x10000010));
	CHECK_EQ_U64(ps_symbols__reads(st), reads);
	CHECK_EQ_U64(take_notices(st, notes, sizeof(notes)), 0);

	/* a line past the cap is skipped whole: its tail is no symbol of its own */
	fp = fopen(jlong, "w");
	CHECK(fp != NULL);
	if (fp) {
		fprintf(fp, "60001000 100 first\n60003000 100 ");
		for (int k = 17; k < 4095; k++)
			fputc('x', fp);
		fprintf(fp, "60002000 10 spoofed\n60004000 10 after\n60005000 10 last");
		fclose(fp);
	}
	mmap2(st, pid, 0x60000000, 0x10000, 0, jlong, 0);
	CHECK(streq(user_name(st, pid, 0x60001004), "first"));
	CHECK(!user_name(st, pid, 0x60002004));
	CHECK(!user_name(st, pid, 0x60003004));
	CHECK(streq(user_name(st, pid, 0x60004004), "after"));
	CHECK(streq(user_name(st, pid, 0x60005004), "last")); /* no newline at the end */
	ps_symbols__delete(st);

	/* a stop request ends a read: nothing is kept, the program is ending */
	st = ps_symbols__new(s, NULL, NULL);
	mmap2(st, pid, 0x60000000, 0x10000, 0, jlong, 0);
	ps_stop = 1;
	CHECK(!user_name(st, pid, 0x60001004));
	ps_stop = 0;
	ps_symbols__delete(st);

	unlink(fifo);
	unlink(zero);
	unlink(jfifo);
	unlink(jzero);
	unlink(jlong);
	rmdir(dir);
	ps_session__delete(s);
}

/* a JIT map of @n functions "fNNNNNN" of 16 bytes each, from @base */
static void write_map(const char *path, uint64_t base, unsigned int n)
{
	FILE *fp = fopen(path, "w");

	CHECK(fp != NULL);
	if (!fp)
		return;
	for (unsigned int i = 0; i < n; i++)
		fprintf(fp, "%llx 10 f%06u\n", (unsigned long long)(base + 16u * i), i);
	fclose(fp);
}

/* a record between two lookups, as a stream has: before the fix, the cache was trimmed
 * after every record, and a table over the cap read again for every lookup */
static void comm_record(struct ps_symbols *st, uint32_t pid)
{
	struct buf b = rec_start(PERF_RECORD_COMM, 0);

	put32(&b, pid);
	put32(&b, pid);
	put_bytes(&b, "other", 6);
	rec_apply(st, &b);
}

/* a symbol table of @s that knows process @pid's two perf maps: @map1 at @at1, @map2 at @at2 */
static struct ps_symbols *two_maps(struct ps_session *s, const struct ps_symbols_opts *o,
                                   uint32_t pid, uint64_t at1, const char *map1, uint64_t at2,
                                   const char *map2)
{
	struct ps_symbols *st = ps_symbols__new(s, o, NULL);

	mmap2(st, pid, at1, 0x100000, 0, map1, 0);
	mmap2(st, pid, at2, 0x100000, 0, map2, 0);
	return st;
}

/* @st read its tables @reads times and said nothing; it is deleted */
static void done_quietly(struct ps_symbols *st, uint64_t reads)
{
	char notes[4096];

	CHECK_EQ_U64(ps_symbols__reads(st), reads);
	CHECK_EQ_U64(take_notices(st, notes, sizeof(notes)), 0);
	ps_symbols__delete(st);
}

static void test_cache(void)
{
	struct ps_session *s = ps_session__new(false);
	struct ps_symbols_opts o = { .cache_max = 1u << 20 };
	uint32_t pid = (uint32_t)getpid();
	char big[64], b1[64], b2[64], notes[4096];
	const uint64_t B0 = 0x7f1000000000, B1 = 0x7f2000000000, B2 = 0x7f3000000000;
	struct ps_symbols *st;
	int named = 0, k;

	snprintf(big, sizeof(big), "/tmp/perf-test-%u-big.map", pid);
	snprintf(b1, sizeof(b1), "/tmp/perf-test-%u-b1.map", pid);
	snprintf(b2, sizeof(b2), "/tmp/perf-test-%u-b2.map", pid);
	/* 32 bytes a symbol: 40000 take more than the cache, 20000 fit, two of them do not */
	write_map(big, B0, 40000);
	write_map(b1, B1, 20000);
	write_map(b2, B2, 20000);

	/* a table bigger than the cache: read once, not kept, said once */
	st = ps_symbols__new(s, &o, NULL);
	mmap2(st, pid, B0, 0x100000, 0, big, 0);
	for (k = 0; k < 1000; k++) {
		comm_record(st, pid + 1);
		named += user_name(st, pid, B0 + 16u * (unsigned int)k + 4) != NULL;
	}
	CHECK_EQ_U64(named, 0);
	CHECK_EQ_U64(ps_symbols__reads(st), 1);
	CHECK_EQ_U64(take_notices(st, notes, sizeof(notes)), 1);
	CHECK(strstr(notes, "symbol table bigger than 1 MiB: not kept") != NULL);
	ps_symbols__delete(st);

	/* one table, then the other, then the first again: each read once per turn, named */
	st = two_maps(s, &o, pid, B1, b1, B2, b2);
	named = 0;
	for (k = 0; k < 300; k++) {
		uint64_t base = k < 100 || k >= 200 ? B1 : B2;

		comm_record(st, pid + 1);
		named += user_name(st, pid, base + 16u * (unsigned int)k + 4) != NULL;
	}
	CHECK_EQ_U64(named, 300);
	done_quietly(st, 3);

	/* in turn, each for long (a day of ptop): read again every time it is needed */
	st = two_maps(s, &o, pid, B1, b1, B2, b2);
	named = 0;
	for (k = 0; k < 8; k++)
		for (int i = 0; i < 70000; i++)
			named += user_name(st, pid, (k % 2 ? B2 : B1) + 16u * (i % 20000u) + 4) !=
			         NULL;
	CHECK_EQ_U64(named, 8 * 70000);
	done_quietly(st, 8);

	/* the two in turn, sample after sample: a few reads, then one is given up, said once */
	st = two_maps(s, &o, pid, B1, b1, B2, b2);
	for (k = 0; k < 1000; k++) {
		comm_record(st, pid + 1);
		user_name(st, pid, B1 + 4);
		user_name(st, pid, B2 + 4);
	}
	CHECK(ps_symbols__reads(st) <= 6);
	CHECK_EQ_U64(take_notices(st, notes, sizeof(notes)), 1);
	CHECK(strstr(notes, "not read again") != NULL);
	/* the other one is still named */
	CHECK(user_name(st, pid, B1 + 4) || user_name(st, pid, B2 + 4));
	ps_symbols__delete(st);

	unlink(big);
	unlink(b1);
	unlink(b2);
	ps_session__delete(s);
}

int main(void)
{
	test_aliases();
	test_unsized();
	test_spaces();
	test_flat();
	test_refused();
	test_cache();
	return UNIT_DONE("symbols");
}
