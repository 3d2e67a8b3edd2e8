/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * unwind.h - the user part of a call chain from a sample's user registers and the copy of
 * the top of its user stack (PERF_SAMPLE_REGS_USER + PERF_SAMPLE_STACK_USER, what
 * `perf record --call-graph dwarf` records), through the CFI (.eh_frame, .debug_frame) of
 * the objects the process maps, with elfutils' libdw; and the functions DWARF says are
 * inlined at an address.
 *
 * Unwinding happens in a session per process (a libdwfl address space holding the objects
 * met so far, each at the place the process mapped it); the sessions are few (the least
 * recently used is ended) and a session whose process's maps changed is started again.
 * Memory is read only inside the sample's own stack copy: an address outside it ends the
 * unwind there, keeping the frames found so far.  At most PS_UNWIND_MAX_FRAMES frames.
 *
 * Only x86_64 samples (the 64-bit register ABI, in the reader's byte order) are unwound.
 */
#ifndef PS_UNWIND_H
#define PS_UNWIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sample.h"

struct ps_dso;
struct ps_dso_paths;
struct ps_unwind;
struct ps_dwarf;

#define PS_UNWIND_MAX_FRAMES 127

/* where an address of a process is mapped: [start, end) holds @dso from file offset @pgoff */
struct ps_unwind_map {
	uint64_t start, end, pgoff;
	struct ps_dso *dso;
};

/*
 * The map of process @pid that holds @addr, and the generation of that process's maps (a
 * number that changes whenever they do); false when nothing is mapped there.
 */
typedef bool (*ps_unwind_map_fn)(void *ctx, uint32_t pid, uint64_t addr, struct ps_unwind_map *m,
                                 uint64_t *gen);

/**
 * ps_unwind__new() - an unwinder with no session yet.
 * @paths: where objects are found (kept: must outlive the unwinder)
 * @map: how an address of a process is found in its maps; @ctx is given to it
 * Return: the unwinder, or NULL when out of memory.
 */
struct ps_unwind *ps_unwind__new(const struct ps_dso_paths *paths, ps_unwind_map_fn map, void *ctx);

/** ps_unwind__delete() - end every session; NULL is allowed. */
void ps_unwind__delete(struct ps_unwind *u);

/**
 * ps_unwind__usable() - whether @smp carries what an unwind needs: 64-bit user registers
 * with at least the stack pointer and the instruction pointer, and a non-empty stack copy.
 */
bool ps_unwind__usable(const struct ps_sample *smp);

/**
 * ps_unwind__sample() - unwind the user stack of @smp (ps_unwind__usable() must hold).
 * @ips: receives the addresses, innermost first: the sample's own user ip, then each
 *       caller's return address minus one (the call instruction, as perf shows them)
 * @max: room in @ips (at most PS_UNWIND_MAX_FRAMES are written)
 * Return: the number of addresses written (0 when nothing could be unwound).
 */
size_t ps_unwind__sample(struct ps_unwind *u, const struct ps_sample *smp, uint64_t *ips,
                         size_t max);

/**
 * ps_unwind__stats() - how many sessions are open and how many were started, for tests.
 */
void ps_unwind__stats(const struct ps_unwind *u, size_t *nr_sessions, uint64_t *started);

/**
 * ps_dwarf__open() - an object's DWARF (its own, else its separate debug file, found by
 * build-id), for ps_dwarf__inlines().
 * Return: the handle, or NULL when the object has no DWARF that can be read.
 */
struct ps_dwarf *ps_dwarf__open(struct ps_dso *d, const struct ps_dso_paths *p);

/** ps_dwarf__close() - free the handle; NULL is allowed. */
void ps_dwarf__close(struct ps_dwarf *dw);

/**
 * ps_dwarf__inlines() - the functions at @vaddr (an address of the object's own), as
 * addr2line -i names them: the innermost inlined function first, out to the function
 * that holds them (linkage names first).
 * @names: receives at most @max names, valid while @dw is open
 * Return: the number of names; 0 when DWARF knows no function there.
 */
size_t ps_dwarf__inlines(struct ps_dwarf *dw, uint64_t vaddr, const char **names, size_t max);

#endif
