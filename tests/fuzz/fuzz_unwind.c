// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_unwind.c - libFuzzer target for DWARF unwinding (unwind.h through symbols.h): the
 * registers and the stack copy of a --call-graph dwarf sample, which come from the stream,
 * and the object whose CFI and DWARF are read (corrupt .eh_frame, .debug_frame, .debug_info).
 *
 * The input is:
 *   20 x 8 bytes  the user registers in perf's x86_64 order (mask 0xff0fff), little-endian
 *   2 bytes       the stack copy's length n, little-endian (at most what follows)
 *   n bytes       the stack copy
 *   the rest      the object, mapped at ELF_START from offset 0
 * The sample's frames are named and folded, and every name is read in full, so that ASan
 * sees a read outside the copy or a name that outlived its object.
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

#define NR_REGS 20
#define ELF_START 0x400000ULL
#define ELF_LEN (1ULL << 32)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[64], elf_path[96];
static volatile size_t sink;

static void cleanup(void)
{
	unlink(elf_path);
	rmdir(dir);
}

static void setup(void)
{
	fuzz_tmpdir(dir, sizeof(dir), "unwind");
	snprintf(elf_path, sizeof(elf_path), "%s/object", dir);
	atexit(cleanup);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ps_frame frames[PS_SYMBOLS_MAX_STACK];
	struct ps_symbols_opts o = { 0 };
	struct ps_attr attr = { 0 };
	struct ps_fold_buf fb = { 0 };
	struct ps_error err = { 0 };
	struct ps_sample smp = { 0 };
	uint64_t chain[1] = { (uint64_t)PERF_CONTEXT_USER };
	unsigned char *stack;
	struct ps_session *s;
	struct ps_symbols *st;
	uint32_t pid = (uint32_t)getpid();
	size_t n, nf, i;

	if (size < 8 * NR_REGS + 2)
		return 0;
	if (!dir[0])
		setup();
	n = (size_t)data[8 * NR_REGS] | (size_t)data[8 * NR_REGS + 1] << 8;
	if (n > size - 8 * NR_REGS - 2)
		n = size - 8 * NR_REGS - 2;
	/* a copy of its own, so that ASan sees a read past it */
	stack = malloc(n ? n : 1);
	if (!stack)
		abort();
	memcpy(stack, data + 8 * NR_REGS + 2, n);
	fuzz_put_file(elf_path, data + 8 * NR_REGS + 2 + n, size - 8 * NR_REGS - 2 - n);
	o.debug_dir = dir;
	st = fuzz_symbols(&s, &o);
	fuzz_mmap2(st, pid, elf_path, ELF_START, ELF_LEN);

	attr.sample_regs_user = 0xff0fffull;
	attr.sample_stack_user = (uint32_t)n;
	smp.attr = &attr;
	smp.type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_CALLCHAIN |
	           PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
	smp.pid = smp.tid = pid;
	smp.ip = ps_get64(data + 8 * 8, false);
	smp.callchain = (const unsigned char *)chain;
	smp.nr_callchain = 1;
	smp.regs_user_abi = PERF_SAMPLE_REGS_ABI_64;
	smp.regs_user = data;
	smp.nr_regs_user = NR_REGS;
	smp.stack_user = stack;
	smp.stack_size = n;
	smp.stack_dyn_size = n;
	/* twice: the second from the session and the caches the first left */
	for (int round = 0; round < 2; round++) {
		nf = ps_symbols__frames(st, &smp, frames, PS_SYMBOLS_MAX_STACK);
		if (nf > PS_SYMBOLS_MAX_STACK)
			abort();
		for (i = 0; i < nf; i++) {
			if (frames[i].sym.name)
				sink += strlen(frames[i].sym.name);
			if (frames[i].sym.dso)
				sink += strlen(frames[i].sym.dso);
		}
	}
	if (ps_symbols__fold(st, &smp, PERF_RECORD_MISC_USER, "fuzz", &fb, &err) == 0 &&
	    (!fb.buf || strlen(fb.buf) != fb.len))
		abort();
	free(fb.buf);
	free(stack);
	ps_symbols__delete(st);
	ps_session__delete(s);
	return 0;
}
