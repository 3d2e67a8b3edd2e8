/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * symbols_int.h - what symbols.c (address spaces) and symbols_dso.c (reading objects)
 * share: one object and its sorted symbol table.
 */
#ifndef PS_SYMBOLS_INT_H
#define PS_SYMBOLS_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PS_BUILD_ID_MAX 20

struct ps_dwarf;

enum ps_dso_kind {
	PS_DSO_ELF,    /* a file: executable, shared library */
	PS_DSO_KERNEL, /* [kernel.kallsyms] and its modules */
	PS_DSO_VDSO,   /* [vdso] */
	PS_DSO_JIT,    /* /tmp/perf-PID.map: absolute addresses */
	PS_DSO_NONE,   /* mapped, but nothing to read ([heap], [stack], a failed file) */
};

/* one symbol: [start, end) in the object's own address space */
struct ps_sym {
	uint64_t start, end;
	uint32_t name; /* offset into the table's strings */
	uint8_t bind;  /* STB_* */
	bool is_mod;   /* a kernel module's: its "[module]" follows the name's NUL */
};

/*
 * @limit: the bytes the table may take (0: only the absolute caps); @full: an add failed
 * because of it or of the caps, so the table is not whole.  ps_symtab__free() keeps both.
 */
struct ps_symtab {
	struct ps_sym *syms;
	size_t nr, cap;
	char *strs;
	size_t strs_len, strs_cap;
	size_t limit;
	bool full;
};

/* a PT_LOAD program header: file offsets [off, off + size) are at vaddr */
struct ps_load {
	uint64_t off, vaddr, size;
};

struct ps_dso {
	char *name; /* as perf script prints it */
	uint32_t hash;
	enum ps_dso_kind kind;
	int refs;           /* maps that point here */
	uint64_t last_use;  /* for the cache's eviction order */
	bool loaded;        /* tried to read (successfully or not) */
	unsigned int reads; /* times read in a row, each dropped for room soon after */
	uint64_t lookups;   /* lookups since it was last read */
	char *note;         /* why a file was refused, waiting to be said; or NULL */
	bool noticed;       /* said something once: quiet from now on */
	bool has_build_id;  /* @build_id is what the stream says */
	unsigned char build_id[PS_BUILD_ID_MAX];
	size_t build_id_len;
	struct ps_symtab tab;
	struct ps_load *loads;
	size_t nr_loads;
	struct ps_dwarf *dwarf; /* its DWARF for inlined functions (unwind.h), or NULL */
	bool dwarf_tried;       /* ps_dwarf__open() was tried (and @dwarf is what it gave) */
	uint64_t dwarf_use;     /* the frames call that last used @dwarf */
	bool unwind_refused;    /* could not be opened for unwinding: not tried again */
	struct ps_dso *next;    /* hash chain */
};

/* where objects are looked for, and how big a table may grow */
struct ps_dso_paths {
	const char *symfs;     /* "" when none */
	const char *debug_dir; /* perf's build-id cache */
	size_t table_limit;    /* bytes one object's table may take */
};

/* the most bytes read from a text file (a JIT map, kallsyms), and the size of an ELF file */
#define PS_SYM_TEXT_MAX (1ull << 30)
#define PS_SYM_ELF_MAX (8ull << 30)

/* Keep the first of an object's notices: "PATH: WHY", said once by the caller. */
void ps_dso__note(struct ps_dso *d, const char *path, const char *why);

/*
 * Append a symbol of @len name bytes; @mod: its kernel module ("[ext4]"), or NULL.
 * Return: 0, or -1 when out of memory or over the cap.
 */
int ps_symtab__add(struct ps_symtab *t, uint64_t start, uint64_t end, const char *name, size_t len,
                   uint8_t bind, const char *mod);

/* Sort and apply perf's rules (duplicates, ends); @kallsyms: the kernel's order of rules. */
void ps_symtab__finish(struct ps_symtab *t, bool kallsyms);

/* The name of @s, and its module or NULL. */
const char *ps_symtab__name(const struct ps_symtab *t, const struct ps_sym *s, const char **mod);

/* Sort again after adding symbols to a finished table (no rules applied). */
void ps_symtab__sort(struct ps_symtab *t);

/* The symbol that holds @addr, or NULL. */
const struct ps_sym *ps_symtab__find(const struct ps_symtab *t, uint64_t addr);

/* Free the symbols and names; @limit and @full stay. */
void ps_symtab__free(struct ps_symtab *t);

/* bytes the table holds */
size_t ps_symtab__bytes(const struct ps_symtab *t);

/*
 * The loaders: each sets @d->loaded, and leaves @d->tab empty when the object cannot be
 * read, is refused (@d->note says why), grows past @p->table_limit (@d->note too), or
 * when a stop was asked (ps_stop: the program is ending, a long read ends with it).
 */

/* Read an ELF object's symbols (and program headers) into @d. */
void ps_dso__load_elf(struct ps_dso *d, const struct ps_dso_paths *p);

/*
 * Open the object @d names itself (not a separate debug file): perf's build-id cache, else
 * its path (under --symfs); build-id checked when the stream gave one.  The [vdso] is this
 * process's copy, in a memory file, when it is the recorded one.
 * Return: a read-only descriptor the caller owns, or -1.
 */
int ps_dso__open_object(struct ps_dso *d, const struct ps_dso_paths *p);

/* Read this process's [vdso]. */
void ps_dso__load_vdso(struct ps_dso *d, const struct ps_dso_paths *p);

/* Read a JIT map /tmp/perf-PID.map (@d->name is its path). */
void ps_dso__load_jit(struct ps_dso *d, const struct ps_dso_paths *p);

/* "ab12..." of @bid into @out (2 * @len + 1 bytes). */
void ps_build_id_hex(const unsigned char *bid, size_t len, char *out);

/*
 * Read a kallsyms file into @t, finished (text, weak, data and bss symbols, as perf keeps
 * them); with @reloc_text (where the stream says _text was), the kernel's own symbols are
 * moved by the difference to the file's _text.  Opened as ps_file__open_named() (files.h) opens.
 * @why: as ps_file__open_named() (files.h) sets it, or why a file that was read is of
 *       no use (every address 0, as kptr_restrict shows them)
 * Return: 0, or -1 when the file cannot be read or used (or is refused: @why).
 */
int ps_kallsyms__read(const char *path, struct ps_symtab *t, uint64_t reloc_text, const char **why);

#endif
