/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * symbols.h - addresses to function names, the way perf script names them.
 *
 * The module is fed the stream's records in time order (order.h) and keeps, per process,
 * the address space the MMAP and MMAP2 records describe (FORK copies the parent's, a new
 * mapping replaces what it overlaps, EXIT frees it; an exec keeps the old maps until the
 * new image's replace them, because samples taken inside execve still show the old user
 * stack, and perf names them from the old maps).  An address is named from the object mapped there:
 *
 * - user objects through libelf, .symtab first, else .dynsym; the address becomes a file
 *   offset through the mapping, then an ELF virtual address through the PT_LOAD program
 *   headers (PIE, shared libraries, non-PIE executables alike).  The file is looked for, by
 *   build-id, in perf's build-id cache (~/.debug/.build-id), in /usr/lib/debug/.build-id,
 *   then at its path (under --symfs when given); a file whose build-id differs from the
 *   one the stream gave (BUILD_ID records, MMAP2 build-ids) is not used;
 * - the kernel from a kallsyms file: --kallsyms FILE, else perf's cached copy for the
 *   stream's kernel build-id, else /proc/kallsyms when the stream's kernel is the running
 *   one (build-id, or release when the stream has no kernel build-id), relocated by the
 *   stream's kernel MMAP record;
 * - [vdso] from this process's own vdso (the kernel's, so only for the running kernel);
 * - anonymous executable memory from perf's JIT map /tmp/perf-PID.map.
 *
 * Among symbols at the same address, and for symbols of no size, perf's own rules choose
 * (a sized symbol before an unsized one, any before a weak one, global before local,
 * fewer leading underscores, the longer name); an address past the end of every sized
 * symbol has no name.  Nothing here is an error for the stream: what cannot be found or read is unknown.
 *
 * Every file is named by the stream or the file system, so none is trusted: each is opened
 * without blocking and without side effects (O_PATH first, then O_RDONLY | O_NONBLOCK |
 * O_NOCTTY; symbolic links followed), and read only when it is a regular file (a FIFO,
 * /dev/zero or any device is refused, said once per object: ps_symbols__take_notice());
 * what is read is bounded (1 GiB of a text file, 8 GiB for an ELF file, a JIT map's lines
 * 4 KiB, kallsyms' 1 KiB), and every long read ends when a stop is asked (ps_stop,
 * signals.h).
 *
 * Every table is bounded: processes, maps per process, objects, and the bytes of the
 * sorted symbol tables (256 MiB by default).  Each object is read once and kept while the
 * cache has room; past it, the least recently used tables are dropped, never the one in
 * use.  A table bigger than the whole cache is not kept, and a table dropped three times is
 * not read again (so two that do not fit together are not read in turn for every sample):
 * their functions are unnamed, and a notice says so.
 */
#ifndef PS_SYMBOLS_H
#define PS_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "record.h"
#include "sample.h"

struct ps_session;
struct ps_symbols;

/* perf's default --max-stack: frames past this many are not shown */
#define PS_SYMBOLS_MAX_STACK 127

/**
 * struct ps_symbols_opts - where to look for what the stream names.
 * @symfs: a root directory objects are looked for under (perf --symfs), or NULL
 * @kallsyms: a kallsyms file taken on the traced machine, used without any check, or NULL
 * @debug_dir: perf's build-id cache; NULL means $HOME/.debug
 * @cache_max: the bytes all symbol tables may take together (one table no more); 0 means
 *             256 MiB
 * @off: no symbols wanted (--no-symbols): the program makes no table at all
 */
struct ps_symbols_opts {
	const char *symfs;
	const char *kallsyms;
	const char *debug_dir;
	size_t cache_max;
	bool off;
};

/**
 * struct ps_symbol - what one address is.
 * @name: the function, or NULL when unknown
 * @off: @addr minus the function's start (meaningful with @name)
 * @dso: the object as perf script prints it ("[kernel.kallsyms]", a path, "[vdso]",
 *       "/tmp/perf-PID.map"), or NULL when no object is mapped there
 * @addr: the address as perf report shows it when @name is NULL ("0x%016llx"): within
 *        the object mapped there (the file offset perf's map gives), else as it was
 * @level: the mode the address was named in, as perf report marks it: 'k' kernel,
 *         '.' user, 'g' guest kernel, 'u' guest user, 'H' hypervisor; 0 for none
 *
 * The strings belong to the module and stay valid until the next call to
 * ps_symbols__process(), ps_symbols__sample() or ps_symbols__frames().
 */
struct ps_symbol {
	const char *name;
	uint64_t off;
	const char *dso;
	uint64_t addr;
	char level;
};

/**
 * struct ps_frame - one frame of a sample's call chain.
 * @ip: the address as the callchain holds it (an unwound caller's: its return address
 *      minus one, as perf shows it)
 * @sym: its name
 * @inlined: @sym.name is a function DWARF says is inlined at @ip (perf script's
 *           "NAME (inlined)"): the frames of one address are the inlined functions,
 *           innermost first, then the function that holds them, all with the same @ip
 */
struct ps_frame {
	uint64_t ip;
	struct ps_symbol sym;
	bool inlined;
};

/**
 * ps_symbols__new() - an empty symbol table for one stream.
 * @s: the stream's session (byte order, features); kept, must outlive the table
 * @o: where to look; NULL for the defaults; the strings are copied
 * @err: filled on failure
 * Return: the table, or NULL (PS_ENOMEM, or PS_EUSAGE when @o->kallsyms cannot be read).
 */
struct ps_symbols *ps_symbols__new(const struct ps_session *s, const struct ps_symbols_opts *o,
                                   struct ps_error *err);

/** ps_symbols__delete() - free the table and every cached object; NULL is allowed. */
void ps_symbols__delete(struct ps_symbols *st);

/**
 * ps_symbols__process() - apply one record: MMAP, MMAP2, FORK, COMM, EXIT and BUILD_ID
 * change the table, other records are ignored.  Call it with every record, in time order
 * (as ps_order__pop() gives them), before the samples that follow.  Never fails: a
 * malformed or unaffordable record is ignored.
 */
void ps_symbols__process(struct ps_symbols *st, const struct ps_record *rec);

/**
 * ps_symbols__find() - name one address of process @pid.
 * @cpumode: the PERF_RECORD_MISC_CPUMODE of the address (kernel, user...)
 * @out: filled; fields unknown are NULL
 */
void ps_symbols__find(struct ps_symbols *st, uint32_t pid, unsigned int cpumode, uint64_t addr,
                      struct ps_symbol *out);

/**
 * ps_symbols__sample() - name a sample's own ip, as perf script does: with the record's
 * cpumode, then with the mode the address belongs to when that finds no object.
 * @misc: the SAMPLE record's header misc
 * Return: true when the sample has an ip (@out filled), false otherwise (@out all NULL).
 */
bool ps_symbols__sample(struct ps_symbols *st, const struct ps_sample *smp, uint16_t misc,
                        struct ps_symbol *out);

/**
 * ps_symbols__frames() - a sample's callchain as perf script shows it: innermost first,
 * context markers (PERF_CONTEXT_*) setting the mode of the frames after them and not
 * frames themselves, at most PS_SYMBOLS_MAX_STACK frames.  An unknown marker ends the
 * chain with no frames, as in perf.  A sample with user registers and a user stack copy
 * (--call-graph dwarf) gets its user frames from unwinding them (unwind.h), after the
 * chain's own.  Where an object's DWARF (its own, or its debug file's) says functions are
 * inlined at an unwound address, each is a frame of its own (@inlined), as perf 6.1 shows
 * them (it does not look for them in the chains the kernel gives).
 * @out: room for @max frames
 * Return: the number of frames written; 0 when the sample has no callchain.
 */
size_t ps_symbols__frames(struct ps_symbols *st, const struct ps_sample *smp, struct ps_frame *out,
                          size_t max);

/**
 * struct ps_fold_buf - a growing line for ps_symbols__fold(); zero it before first use,
 * free @buf when done.
 */
struct ps_fold_buf {
	char *buf;
	size_t len, cap;
};

/**
 * ps_symbols__fold() - a sample as one folded stack, the line perf's stackcollapse script
 * writes without its count: "comm;outermost;...;innermost".  Spaces in @comm become '_',
 * ';' in @comm and in function names ':', control bytes (below 0x20, 0x7f) in either
 * "\xNN" (so a name cannot end the line, add a count or split a frame), unknown functions
 * "[unknown]"; a sample whose event has no callchain gets its own function as its only
 * frame.
 * @comm: the thread's name (NULL: "[unknown]")
 * @misc: the SAMPLE record's header misc
 * @fb: receives the line, NUL-terminated, in @fb->buf (@fb->len bytes before the NUL)
 * Return: 0, or -1 when out of memory (@err filled).
 */
int ps_symbols__fold(struct ps_symbols *st, const struct ps_sample *smp, uint16_t misc,
                     const char *comm, struct ps_fold_buf *fb, struct ps_error *err);

/**
 * ps_symbols__stats() - how many objects are cached, and how many bytes their symbol
 * tables take (for tests and --debug output).
 */
void ps_symbols__stats(const struct ps_symbols *st, size_t *nr_objects, size_t *sym_bytes,
                       size_t *nr_processes);

/**
 * ps_symbols__reads() - how many symbol tables (objects, JIT maps, the kernel's) have been
 * read so far, for tests: an object read again and again shows here.
 */
uint64_t ps_symbols__reads(const struct ps_symbols *st);

/**
 * ps_symbols__take_notice() - the next sentence worth saying once about the files read
 * ("PATH: not a regular file, not read", a table not kept and why), for a main to print;
 * each object says at most one.  Ask after the lookups of a sample, until NULL.
 * Return: the sentence, owned by @st and valid until the next call, or NULL when there is
 * nothing (more) to say.
 */
const char *ps_symbols__take_notice(struct ps_symbols *st);

#endif
