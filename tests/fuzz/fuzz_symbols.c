// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_symbols.c - libFuzzer target for the symbol tables read from files a stream names:
 * a JIT map (/tmp/perf-PID.map, which any user can write for a pid of their own), an ELF
 * object (.symtab, .dynsym, program headers, build-id notes) and a kallsyms file.
 *
 * The input is:
 *   byte 0      what the rest is: 0 a JIT map, 1 an ELF object, 2 a kallsyms file
 *   byte 1      how many addresses to look up (at most 16)
 *   8 bytes     per address, little-endian
 *   the rest    the file's content
 * The content is written to a file, which a table made for the input is pointed at through
 * the public API only (an MMAP2 record of //anon memory for a JIT map, of the file for an
 * ELF object, --kallsyms for the kernel); each address is then looked up, alone and as a
 * callchain, and folded as pcount --folded and pflame fold it.  Every name handed out is
 * read in full, so that ASan sees a bound that is wrong.
 */
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/record.h"
#include "lib/sample.h"
#include "lib/session.h"
#include "lib/symbols.h"
#include "fuzz_util.h"
#include "replay.h"

#define MAX_LOOKUPS 16
/* an ELF object mapped where a non-PIE executable is, offset 0; a JIT map's //anon
 * memory over nearly all of user space, its lines holding absolute addresses */
#define ELF_START 0x400000ULL
#define ELF_LEN (1ULL << 44)
#define JIT_START 0x1000ULL
#define JIT_LEN (1ULL << 62)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[64], jit_path[64], elf_path[96], kallsyms_path[96];
static volatile size_t sink;

static void cleanup(void)
{
	unlink(jit_path);
	unlink(elf_path);
	unlink(kallsyms_path);
	rmdir(dir);
}

static void setup(void)
{
	fuzz_tmpdir(dir, sizeof(dir), "symbols");
	/* the name perf gives a JIT map: where the table looks for //anon memory of our pid */
	snprintf(jit_path, sizeof(jit_path), "/tmp/perf-%d.map", (int)getpid());
	snprintf(elf_path, sizeof(elf_path), "%s/object", dir);
	snprintf(kallsyms_path, sizeof(kallsyms_path), "%s/kallsyms", dir);
	atexit(cleanup);
}

static void touch_sym(const struct ps_symbol *s)
{
	if (s->name)
		sink += strlen(s->name);
	if (s->dso)
		sink += strlen(s->dso);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t chain[1 + MAX_LOOKUPS];
	struct ps_frame frames[PS_SYMBOLS_MAX_STACK];
	struct ps_symbols_opts o = { .debug_dir = dir };
	struct ps_fold_buf fb = { 0 };
	struct ps_error err = { 0 };
	struct ps_sample smp = { 0 };
	struct ps_session *s;
	struct ps_symbols *st;
	struct ps_symbol sym;
	unsigned int mode, n, i, cpumode;
	uint32_t pid = (uint32_t)getpid();
	size_t nf;

	if (size < 2)
		return 0;
	if (!dir[0])
		setup();
	mode = data[0] % 3;
	n = data[1] % (MAX_LOOKUPS + 1);
	if (size < 2 + 8 * (size_t)n)
		return 0;
	for (i = 0; i < n; i++)
		chain[1 + i] = ps_get64(data + 2 + 8 * i, false);
	data += 2 + 8 * n;
	size -= 2 + 8 * (size_t)n;

	fuzz_put_file(mode == 0 ? jit_path : mode == 1 ? elf_path : kallsyms_path, data, size);
	if (mode == 2)
		o.kallsyms = kallsyms_path;
	st = fuzz_symbols(&s, &o);
	if (mode == 0)
		fuzz_mmap2(st, pid, "//anon", JIT_START, JIT_LEN);
	else if (mode == 1)
		fuzz_mmap2(st, pid, elf_path, ELF_START, ELF_LEN);
	cpumode = mode == 2 ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER;

	for (i = 0; i < n; i++) {
		ps_symbols__find(st, pid, cpumode, chain[1 + i], &sym);
		touch_sym(&sym);
		if (sym.name && mode == 0 && !sym.dso)
			abort(); /* a name comes from an object */
	}
	/* the same addresses as a call chain, and folded */
	chain[0] = mode == 2 ? (uint64_t)PERF_CONTEXT_KERNEL : (uint64_t)PERF_CONTEXT_USER;
	smp.type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_CALLCHAIN;
	smp.pid = smp.tid = pid;
	smp.ip = n ? chain[1] : 0;
	smp.callchain = (const unsigned char *)chain;
	smp.nr_callchain = 1 + n;
	nf = ps_symbols__frames(st, &smp, frames, PS_SYMBOLS_MAX_STACK);
	if (nf > n)
		abort();
	for (i = 0; i < nf; i++)
		touch_sym(&frames[i].sym);
	if (ps_symbols__fold(st, &smp, (uint16_t)cpumode, "fuzz", &fb, &err) == 0) {
		if (!fb.buf || strlen(fb.buf) != fb.len)
			abort();
	}
	smp.type &= ~(uint64_t)PERF_SAMPLE_CALLCHAIN;
	if (ps_symbols__sample(st, &smp, (uint16_t)cpumode, &sym))
		touch_sym(&sym);
	free(fb.buf);
	ps_symbols__delete(st);
	ps_session__delete(s);
	return 0;
}
