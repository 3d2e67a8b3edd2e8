// SPDX-License-Identifier: GPL-2.0-only
/*
 * symbols_dso.c - one object's symbols: read from an ELF file (libelf), a kallsyms file, a
 * JIT map or this process's vdso, sorted, and cleaned up by perf's rules so that the name
 * an address gets is the one perf script prints.
 */
#include <ctype.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <demangle.h>

#include "compat.h"
#include "files.h"
#include "io.h"
#include "signals.h"
#include "symbols_int.h"
#include "xalloc.h"

/* one object's table may not grow past this (a huge debug file still fits) */
#define MAX_SYMS (8u << 20)
#define MAX_STRS (256u << 20)
#define MAX_JIT_LINE 4096
#define MAX_KALLSYMS_LINE 1024

int ps_symtab__add(struct ps_symtab *t, uint64_t start, uint64_t end, const char *name, size_t len,
                   uint8_t bind, const char *mod)
{
	size_t mlen = mod ? strlen(mod) + 1 : 0, need = len + 1 + mlen;

	/* what the table holds with this symbol, against its limit (its arrays are shrunk
	 * to fit when it is finished) */
	if (t->limit && (t->nr + 1) * sizeof(*t->syms) + t->strs_len + need > t->limit)
		goto full;
	if (t->nr == t->cap) {
		size_t ncap = t->cap ? t->cap * 2 : 256;
		struct ps_sym *n;

		if (ncap > MAX_SYMS)
			goto full;
		n = ps_realloc_array(t->syms, ncap, sizeof(*n));
		if (!n)
			return -1;
		t->syms = n;
		t->cap = ncap;
	}
	if (ps_grow_cap(t->strs_cap, t->strs_len + need, 4096) > MAX_STRS)
		goto full;
	if (ps_grow((void **)&t->strs, &t->strs_cap, t->strs_len + need, 1, 4096))
		return -1;
	t->syms[t->nr] = (struct ps_sym){ .start = start,
		                          .end = end,
		                          .name = (uint32_t)t->strs_len,
		                          .bind = bind,
		                          .is_mod = mod != NULL };
	memcpy(t->strs + t->strs_len, name, len);
	t->strs[t->strs_len + len] = 0;
	if (mod)
		memcpy(t->strs + t->strs_len + len + 1, mod, mlen);
	t->strs_len += need;
	t->nr++;
	return 0;
full:
	t->full = true;
	return -1;
}

const char *ps_symtab__name(const struct ps_symtab *t, const struct ps_sym *s, const char **mod)
{
	const char *n = t->strs + s->name;

	if (mod)
		*mod = s->is_mod ? n + strlen(n) + 1 : NULL;
	return n;
}

/* the stable sort key: start, then the order perf inserted them in (equal keys go right) */
static int cmp_sym(const void *a, const void *b)
{
	const struct ps_sym *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->name < y->name ? -1 : x->name > y->name;
}

static size_t underscores(const char *s)
{
	size_t n = 0;

	while (s[n] == '_')
		n++;
	return n;
}

/* perf's choice between two symbols at one address: true keeps @a */
static bool keep_first(const struct ps_symtab *t, const struct ps_sym *a, const struct ps_sym *b)
{
	uint64_t la = a->end - a->start, lb = b->end - b->start;
	const char *na = t->strs + a->name, *nb = t->strs + b->name;
	size_t ua, ub, sa, sb;

	if (lb == 0 && la > 0)
		return true;
	if (la == 0 && lb > 0)
		return false;
	if ((b->bind == STB_WEAK) != (a->bind == STB_WEAK))
		return b->bind == STB_WEAK;
	if ((a->bind == STB_GLOBAL) != (b->bind == STB_GLOBAL))
		return a->bind == STB_GLOBAL;
	ua = underscores(na);
	ub = underscores(nb);
	if (ua != ub)
		return ua < ub;
	sa = strlen(na);
	sb = strlen(nb);
	return sa >= sb;
}

static void drop_duplicates(struct ps_symtab *t)
{
	size_t i, out = 0;

	for (i = 0; i < t->nr; i++) {
		if (out && t->syms[out - 1].start == t->syms[i].start) {
			if (!keep_first(t, &t->syms[out - 1], &t->syms[i]))
				t->syms[out - 1] = t->syms[i];
			continue;
		}
		t->syms[out++] = t->syms[i];
	}
	t->nr = out;
}

static void fix_ends(struct ps_symtab *t, bool kallsyms)
{
	size_t i;

	for (i = 1; i < t->nr; i++) {
		struct ps_sym *prev = &t->syms[i - 1], *cur = &t->syms[i];

		if (prev->end != prev->start)
			continue;
		/* the kernel's last symbol before the modules (or the reverse) ends at a page */
		if (kallsyms && prev->is_mod != cur->is_mod)
			prev->end = ((prev->end + 4096) + 4095) / 4096 * 4096;
		else
			prev->end = cur->start;
	}
	if (t->nr) {
		struct ps_sym *last = &t->syms[t->nr - 1];

		if (last->end == last->start)
			last->end = (last->start + 4095) / 4096 * 4096 + 4096;
	}
}

/* Give back what the arrays hold past their use: the table's bytes are what it keeps. */
static void shrink(struct ps_symtab *t)
{
	if (!t->nr) {
		ps_symtab__free(t);
		return;
	}
	if (t->nr < t->cap) {
		struct ps_sym *n = ps_realloc_array(t->syms, t->nr, sizeof(*n));

		if (n) {
			t->syms = n;
			t->cap = t->nr;
		}
	}
	if (t->strs_len < t->strs_cap) {
		char *n = realloc(t->strs, t->strs_len);

		if (n) {
			t->strs = n;
			t->strs_cap = t->strs_len;
		}
	}
}

void ps_symtab__finish(struct ps_symtab *t, bool kallsyms)
{
	size_t i;

	if (!t->nr)
		return;
	/* kallsyms comes in address order already: a look instead of a sort, then */
	for (i = 1; i < t->nr && cmp_sym(&t->syms[i - 1], &t->syms[i]) < 0; i++)
		;
	if (i < t->nr)
		qsort(t->syms, t->nr, sizeof(*t->syms), cmp_sym);
	/* perf gives unsized symbols their ends before it drops aliases */
	fix_ends(t, kallsyms);
	drop_duplicates(t);
	shrink(t);
}

void ps_symtab__sort(struct ps_symtab *t)
{
	/* qsort()'s array may not be NULL, even empty */
	if (t->nr > 1)
		qsort(t->syms, t->nr, sizeof(*t->syms), cmp_sym);
	shrink(t);
}

const struct ps_sym *ps_symtab__find(const struct ps_symtab *t, uint64_t addr)
{
	/* the last symbol starting at or before addr; ends never overlap after finishing */
	size_t lo = ps_upper_bound(t->syms, t->nr, sizeof(t->syms[0]),
	                           offsetof(struct ps_sym, start), addr);

	if (!lo)
		return NULL;
	{
		const struct ps_sym *s = &t->syms[lo - 1];

		if (addr < s->end || (addr == s->start && s->end == s->start))
			return s;
		/* a sized symbol may hide inside a bigger one before it (perf's tree search
		 * finds the outer one only when the inner does not hold the address) */
		if (lo >= 2 && addr < t->syms[lo - 2].end)
			return &t->syms[lo - 2];
	}
	return NULL;
}

void ps_symtab__free(struct ps_symtab *t)
{
	size_t limit = t->limit;
	bool full = t->full;

	free(t->syms);
	free(t->strs);
	memset(t, 0, sizeof(*t));
	t->limit = limit;
	t->full = full;
}

size_t ps_symtab__bytes(const struct ps_symtab *t)
{
	return t->cap * sizeof(*t->syms) + t->strs_cap;
}

void ps_build_id_hex(const unsigned char *bid, size_t len, char *out)
{
	static const char hex[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < len; i++) {
		out[2 * i] = hex[bid[i] >> 4];
		out[2 * i + 1] = hex[bid[i] & 15];
	}
	out[2 * len] = 0;
}

/* ---- files ---- */

void ps_dso__note(struct ps_dso *d, const char *path, const char *why)
{
	size_t n;

	if (d->noticed || d->note || !why)
		return;
	n = strlen(path) + strlen(why) + 3;
	d->note = malloc(n);
	if (d->note)
		snprintf(d->note, n, "%s: %s", path, why);
}

/*
 * Lines of a text file, read in chunks: at most @max bytes in all, a line longer than
 * @max_line skipped whole, and the reading ends when a stop is asked (ps_stop: then
 * @stopped is set, and what was read is not the whole file).
 */
#define LINES_BUF (64u << 10)

struct lines {
	int fd;
	char *buf;
	size_t start, end, max_line;
	uint64_t total, max;
	bool eof, skipping, stopped;
};

static int lines__open(struct lines *l, const char *path, size_t max_line, const char **why)
{
	memset(l, 0, sizeof(*l));
	l->max_line = max_line;
	l->max = PS_SYM_TEXT_MAX;
	l->fd = ps_file__open_named(path, l->max, why);
	if (l->fd < 0)
		return -1;
	l->buf = malloc(LINES_BUF + 1);
	if (!l->buf) {
		close(l->fd);
		return -1;
	}
	return 0;
}

static void lines__close(struct lines *l)
{
	free(l->buf);
	close(l->fd);
}

/* The next line, NUL-terminated in place (its newline gone), or NULL at the end. */
static char *lines__next(struct lines *l, size_t *len)
{
	for (;;) {
		char *nl = memchr(l->buf + l->start, '\n', l->end - l->start), *line;
		size_t n;
		ssize_t got;

		if (nl || (l->eof && l->start < l->end)) {
			line = l->buf + l->start;
			n = nl ? (size_t)(nl - line) : l->end - l->start;
			l->start += n + (nl != NULL);
			if (l->skipping) {
				/* the end of a line too long to keep */
				l->skipping = false;
				continue;
			}
			if (n > l->max_line)
				continue;
			line[n] = 0;
			*len = n;
			return line;
		}
		l->stopped = !l->eof && ps_stop;
		if (l->eof || ps_stop || l->total >= l->max)
			return NULL;
		if (l->end - l->start > l->max_line) {
			l->skipping = true;
			l->start = l->end = 0;
		}
		memmove(l->buf, l->buf + l->start, l->end - l->start);
		l->end -= l->start;
		l->start = 0;
		n = LINES_BUF - l->end;
		if (n > l->max - l->total)
			n = (size_t)(l->max - l->total);
		got = read(l->fd, l->buf + l->end, n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			l->eof = true;
			continue;
		}
		l->end += (size_t)got;
		l->total += (uint64_t)got;
	}
}

/* ---- ELF ---- */

static size_t elf_build_id(Elf *elf, unsigned char *bid)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		Elf_Data *data;
		size_t off = 0, noff, doff;
		GElf_Nhdr nh;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		data = elf_getdata(scn, NULL);
		if (!data)
			continue;
		while ((off = gelf_getnote(data, off, &nh, &noff, &doff)) > 0) {
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    memcmp((const char *)data->d_buf + noff, "GNU", 4) == 0 &&
			    nh.n_descsz > 0) {
				size_t n = nh.n_descsz < PS_BUILD_ID_MAX ? nh.n_descsz :
				                                           PS_BUILD_ID_MAX;

				memcpy(bid, (const char *)data->d_buf + doff, n);
				return n;
			}
		}
	}
	return 0;
}

static bool elf_has_section(Elf *elf, Elf64_Word type)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn)) != NULL)
		if (gelf_getshdr(scn, &sh) && sh.sh_type == type && sh.sh_size > 0)
			return true;
	return false;
}

struct elf_file {
	int fd;
	Elf *elf;
};

static void elf_file__close(struct elf_file *f)
{
	if (f->elf)
		elf_end(f->elf);
	if (f->fd >= 0)
		close(f->fd);
	f->elf = NULL;
	f->fd = -1;
}

/*
 * Open an ELF file for @d (a refusal noted there); with @bid_len, only when its build-id
 * is @bid.  0 or -1.
 */
static int elf_file__open(struct elf_file *f, struct ps_dso *d, const char *path,
                          const unsigned char *bid, size_t bid_len)
{
	unsigned char got[PS_BUILD_ID_MAX];
	const char *why;

	f->elf = NULL;
	f->fd = ps_file__open_named(path, PS_SYM_ELF_MAX, &why);
	if (f->fd < 0) {
		ps_dso__note(d, path, why);
		return -1;
	}
	f->elf = elf_begin(f->fd, ELF_C_READ_MMAP, NULL);
	if (!f->elf || elf_kind(f->elf) != ELF_K_ELF)
		goto fail;
	if (bid_len) {
		size_t n = elf_build_id(f->elf, got);

		if (n != bid_len || memcmp(got, bid, n) != 0)
			goto fail;
	}
	return 0;
fail:
	elf_file__close(f);
	return -1;
}

/* The build-id of the ELF file at @path; its length, or 0. */
static size_t elf_path_build_id(struct ps_dso *d, const char *path, unsigned char *bid)
{
	struct elf_file f;
	size_t n;

	if (elf_file__open(&f, d, path, NULL, 0) < 0)
		return 0;
	n = elf_build_id(f.elf, bid);
	elf_file__close(&f);
	return n;
}

static void read_loads(struct ps_dso *d, Elf *elf)
{
	size_t n, i, k = 0;
	GElf_Phdr ph;

	free(d->loads);
	d->loads = NULL;
	d->nr_loads = 0;
	if (elf_getphdrnum(elf, &n) != 0 || n == 0 || n > 4096)
		return;
	d->loads = calloc(n, sizeof(*d->loads));
	if (!d->loads)
		return;
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		d->loads[k++] = (struct ps_load){ ph.p_offset, ph.p_vaddr, ph.p_memsz };
	}
	d->nr_loads = k;
}

/* perf's filter: functions (and ifuncs), objects, and labels in code sections; no
 * version names */
static bool want_sym(Elf *elf, size_t shstrndx, const GElf_Sym *s)
{
	int type = GELF_ST_TYPE(s->st_info), vis = GELF_ST_VISIBILITY(s->st_other);

	if (s->st_name == 0 || s->st_shndx == SHN_UNDEF)
		return false;
	/* the version names of a .dynsym (LLVM_14, ZLIB_1.2.0, libjansson.so.4): absolute,
	 * no size, at 0; perf names no address after them */
	if (s->st_shndx == SHN_ABS && s->st_size == 0)
		return false;
	if (type == STT_FUNC || type == STT_GNU_IFUNC || type == STT_OBJECT)
		return true;
	if (type == STT_NOTYPE && s->st_shndx != SHN_ABS && vis != STV_HIDDEN &&
	    vis != STV_INTERNAL && s->st_shndx < SHN_LORESERVE) {
		Elf_Scn *scn = elf_getscn(elf, s->st_shndx);
		GElf_Shdr sh;
		const char *name;

		if (!scn || !gelf_getshdr(scn, &sh))
			return false;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		return name && strstr(name, ".text") != NULL;
	}
	return false;
}

/* perf's names: C++ demangled without parameters (libiberty, as Debian's perf) */
static int add_demangled(struct ps_symtab *t, uint64_t start, uint64_t end, const char *name,
                         uint8_t bind, const char *suffix)
{
	char *dm = cplus_demangle(name, DMGL_NO_OPTS), buf[1024];
	const char *n = dm ? dm : name;
	int r;

	if (*suffix) {
		snprintf(buf, sizeof(buf), "%s%s", n, suffix);
		n = buf;
	}
	r = ps_symtab__add(t, start, end, n, strlen(n), bind, NULL);
	free(dm);
	return r;
}

static Elf_Scn *section_by_name(Elf *elf, size_t shstrndx, const char *want, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		const char *name;

		if (!gelf_getshdr(scn, sh))
			continue;
		name = elf_strptr(elf, shstrndx, sh->sh_name);
		if (name && strcmp(name, want) == 0)
			return scn;
	}
	return NULL;
}

/*
 * perf 6.1's PLT symbols: one "NAME@plt" per .rela.plt entry, in order, each one .plt
 * entry long, after the .plt header (one entry long).
 */
static void synth_plt(struct ps_dso *d, Elf *elf)
{
	GElf_Shdr rel_sh, plt_sh, sym_sh;
	Elf_Scn *rel, *plt, *dynsym;
	Elf_Data *rel_data, *sym_data;
	uint64_t addr, entsize;
	size_t shstrndx, i, n;
	bool rela = true;

	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return;
	rel = section_by_name(elf, shstrndx, ".rela.plt", &rel_sh);
	if (!rel) {
		rel = section_by_name(elf, shstrndx, ".rel.plt", &rel_sh);
		rela = false;
	}
	plt = section_by_name(elf, shstrndx, ".plt", &plt_sh);
	if (!rel || !plt || rel_sh.sh_entsize == 0 || plt_sh.sh_entsize == 0)
		return;
	dynsym = elf_getscn(elf, rel_sh.sh_link);
	if (!dynsym || !gelf_getshdr(dynsym, &sym_sh) || sym_sh.sh_type != SHT_DYNSYM)
		return;
	rel_data = elf_getdata(rel, NULL);
	sym_data = elf_getdata(dynsym, NULL);
	if (!rel_data || !sym_data)
		return;
	entsize = plt_sh.sh_entsize;
	addr = plt_sh.sh_addr + entsize;
	n = rel_sh.sh_size / rel_sh.sh_entsize;
	for (i = 0; i < n; i++, addr += entsize) {
		size_t symidx;
		const char *name;
		GElf_Sym s;

		if (i % 4096 == 0 && ps_stop)
			return;

		if (rela) {
			GElf_Rela r;

			if (!gelf_getrela(rel_data, (int)i, &r))
				return;
			symidx = GELF_R_SYM(r.r_info);
		} else {
			GElf_Rel r;

			if (!gelf_getrel(rel_data, (int)i, &r))
				return;
			symidx = GELF_R_SYM(r.r_info);
		}
		if (!gelf_getsym(sym_data, (int)symidx, &s))
			continue;
		name = elf_strptr(elf, sym_sh.sh_link, s.st_name);
		if (!name)
			continue;
		if (add_demangled(&d->tab, addr, addr + entsize, name, STB_GLOBAL, "@plt") < 0)
			return;
	}
}

static int read_symtab(struct ps_dso *d, Elf *elf, Elf64_Word type)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Shdr sh;

	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return -1;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		Elf_Data *data;
		size_t i, n;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != type || sh.sh_entsize == 0)
			continue;
		data = elf_getdata(scn, NULL);
		if (!data)
			return -1;
		n = sh.sh_size / sh.sh_entsize;
		for (i = 0; i < n; i++) {
			GElf_Sym s;
			const char *name;

			if (i % 4096 == 0 && ps_stop)
				return -1;
			if (!gelf_getsym(data, (int)i, &s) || !want_sym(elf, shstrndx, &s))
				continue;
			name = elf_strptr(elf, sh.sh_link, s.st_name);
			if (!name || !*name)
				continue;
			/* ARM mapping symbols name no function */
			if (name[0] == '$' && name[1] && strchr("adtx", name[1]) &&
			    (!name[2] || name[2] == '.'))
				continue;
			if (add_demangled(&d->tab, s.st_value, s.st_value + s.st_size, name,
			                  GELF_ST_BIND(s.st_info), "") < 0)
				return -1;
		}
		return 0;
	}
	return -1;
}

static void join(char *out, size_t len, const char *a, const char *b, const char *c)
{
	snprintf(out, len, "%s%s%s", a, b, c ? c : "");
}

/* Every loader starts here: the table's limit, and no failure yet. */
static void load_begin(struct ps_dso *d, const struct ps_dso_paths *p)
{
	d->loaded = true;
	d->tab.limit = p->table_limit;
	d->tab.full = false;
}

/* Every loader ends here: a table that did not fit is not kept. */
static void load_end(struct ps_dso *d)
{
	if (d->tab.full)
		ps_symtab__free(&d->tab);
}

void ps_dso__load_elf(struct ps_dso *d, const struct ps_dso_paths *p)
{
	char path[4096], hex[2 * PS_BUILD_ID_MAX + 1], cand[3][4096];
	struct elf_file f, fallback = { -1, NULL };
	unsigned char bid[PS_BUILD_ID_MAX];
	size_t bid_len = 0, i;
	bool done = false;

	load_begin(d, p);
	if (elf_version(EV_CURRENT) == EV_NONE)
		return;
	join(path, sizeof(path), p->symfs, d->name, NULL);
	if (d->has_build_id) {
		memcpy(bid, d->build_id, d->build_id_len);
		bid_len = d->build_id_len;
	} else {
		bid_len = elf_path_build_id(d, path, bid);
	}
	/* perf's order: its build-id cache, the distribution's debug files, the path */
	i = 0;
	if (bid_len) {
		ps_build_id_hex(bid, bid_len, hex);
		snprintf(cand[i++], sizeof(cand[0]), "%s/.build-id/%.2s/%s/elf", p->debug_dir, hex,
		         hex + 2);
		snprintf(cand[i++], sizeof(cand[0]), "%s/usr/lib/debug/.build-id/%.2s/%s.debug",
		         p->symfs, hex, hex + 2);
	}
	snprintf(cand[i++], sizeof(cand[0]), "%s", path);
	for (size_t k = 0; k < i && !done && !d->tab.full && !ps_stop; k++) {
		if (elf_file__open(&f, d, cand[k], bid, bid_len) < 0)
			continue;
		if (elf_has_section(f.elf, SHT_SYMTAB)) {
			if (read_symtab(d, f.elf, SHT_SYMTAB) == 0)
				done = true;
			else
				ps_symtab__free(&d->tab);
			elf_file__close(&f);
			continue;
		}
		if (!fallback.elf && elf_has_section(f.elf, SHT_DYNSYM))
			fallback = f;
		else
			elf_file__close(&f);
	}
	if (!done && fallback.elf && !d->tab.full && !ps_stop &&
	    read_symtab(d, fallback.elf, SHT_DYNSYM) < 0)
		ps_symtab__free(&d->tab);
	elf_file__close(&fallback);
	if (d->tab.full) {
		load_end(d);
		return;
	}
	ps_symtab__finish(&d->tab, false);
	/* the object itself: its program headers (a debug file's file offsets are not the
	 * object's) and its PLT */
	for (size_t k = 0; k < i && !d->nr_loads; k++) {
		if (strstr(cand[k], "/usr/lib/debug/") ||
		    elf_file__open(&f, d, cand[k], bid, bid_len) < 0)
			continue;
		read_loads(d, f.elf);
		if (d->tab.nr)
			synth_plt(d, f.elf);
		elf_file__close(&f);
	}
	ps_symtab__sort(&d->tab);
	load_end(d);
}

/* This process's vdso (the running kernel's) and its size; NULL when it has none. */
static const char *own_vdso(size_t *size)
{
	unsigned long base = getauxval(AT_SYSINFO_EHDR);
	char line[512];
	FILE *fp;

	*size = 0;
	if (!base)
		return NULL;
	/* the mapping's size, so that libelf reads nothing past it */
	fp = fopen("/proc/self/maps", "re");
	if (!fp)
		return NULL;
	while (fgets(line, sizeof(line), fp)) {
		unsigned long lo, hi;

		if (strstr(line, "[vdso]") && sscanf(line, "%lx-%lx", &lo, &hi) == 2 && lo == base)
			*size = hi - lo;
	}
	fclose(fp);
	return *size ? (const char *)base : NULL;
}

/*
 * The vdso as a file (a memory file holding this process's copy): the running kernel's,
 * which is the recorded one when the build-ids agree (a stream without the vdso's build-id
 * is taken to come from this kernel, as its symbols are).
 */
static int open_vdso(const struct ps_dso *d)
{
	unsigned char got[PS_BUILD_ID_MAX];
	const char *base;
	size_t size, n = 0;
	Elf *elf;
	int fd;

	if (!(base = own_vdso(&size)))
		return -1;
	if (d->has_build_id) {
		elf = elf_memory((char *)base, size);
		if (elf) {
			if (elf_kind(elf) == ELF_K_ELF)
				n = elf_build_id(elf, got);
			elf_end(elf);
		}
		if (n != d->build_id_len || memcmp(got, d->build_id, n) != 0)
			return -1; /* another kernel's vdso */
	}
	fd = memfd_create("pstream-vdso", MFD_CLOEXEC);
	if (fd >= 0 && ps_write_full(fd, base, size) < 0) {
		close(fd);
		fd = -1;
	}
	return fd;
}

int ps_dso__open_object(struct ps_dso *d, const struct ps_dso_paths *p)
{
	char path[4096], hex[2 * PS_BUILD_ID_MAX + 1], cand[2][4096];
	unsigned char bid[PS_BUILD_ID_MAX];
	size_t bid_len = 0, i = 0;
	struct elf_file f;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return -1;
	if (d->kind == PS_DSO_VDSO)
		return open_vdso(d);
	if (d->kind != PS_DSO_ELF)
		return -1;
	join(path, sizeof(path), p->symfs, d->name, NULL);
	if (d->has_build_id) {
		memcpy(bid, d->build_id, d->build_id_len);
		bid_len = d->build_id_len;
		ps_build_id_hex(bid, bid_len, hex);
		snprintf(cand[i++], sizeof(cand[0]), "%s/.build-id/%.2s/%s/elf", p->debug_dir, hex,
		         hex + 2);
	}
	snprintf(cand[i++], sizeof(cand[0]), "%s", path);
	for (size_t k = 0; k < i && !ps_stop; k++) {
		int fd;

		if (elf_file__open(&f, d, cand[k], bid, bid_len) < 0)
			continue;
		/* the caller reads it its own way: keep the descriptor only */
		fd = f.fd;
		f.fd = -1;
		elf_file__close(&f);
		if (lseek(fd, 0, SEEK_SET) == 0)
			return fd;
		close(fd);
	}
	return -1;
}

void ps_dso__load_vdso(struct ps_dso *d, const struct ps_dso_paths *p)
{
	size_t size;
	const char *base;
	Elf *elf;

	load_begin(d, p);
	if (elf_version(EV_CURRENT) == EV_NONE || !(base = own_vdso(&size)))
		return;
	elf = elf_memory((char *)base, size);
	if (!elf)
		return;
	if (elf_kind(elf) == ELF_K_ELF) {
		if (read_symtab(d, elf, SHT_SYMTAB) < 0) {
			ps_symtab__free(&d->tab);
			read_symtab(d, elf, SHT_DYNSYM);
		}
		read_loads(d, elf);
	}
	elf_end(elf);
	ps_symtab__finish(&d->tab, false);
	load_end(d);
}

void ps_dso__load_jit(struct ps_dso *d, const struct ps_dso_paths *p)
{
	const char *why;
	struct lines l;
	size_t len;
	char *line;

	load_begin(d, p);
	if (lines__open(&l, d->name, MAX_JIT_LINE, &why) < 0) {
		ps_dso__note(d, d->name, why);
		return;
	}
	while ((line = lines__next(&l, &len)) != NULL) {
		char *q = line, *end;
		uint64_t start, size;
		size_t n;

		start = strtoull(q, &end, 16);
		if (end == q || *end != ' ')
			continue;
		q = end + 1;
		size = strtoull(q, &end, 16);
		if (end == q || *end != ' ')
			continue;
		q = end + 1;
		n = strlen(q);
		if (!n)
			continue;
		if (ps_symtab__add(&d->tab, start, start + size, q, n, STB_GLOBAL, NULL) < 0)
			break;
	}
	lines__close(&l);
	if (l.stopped)
		ps_symtab__free(&d->tab); /* not the whole map */
	else if (!d->tab.full)
		ps_symtab__finish(&d->tab, false);
	load_end(d);
}

/* ---- kallsyms ---- */

static uint8_t kallsyms_bind(char type)
{
	if (type == 'W')
		return STB_WEAK;
	return isupper((unsigned char)type) ? STB_GLOBAL : STB_LOCAL;
}

/* The address a kallsyms line starts with: up to 16 hex digits, as the kernel prints them,
 * read here; anything else (a sign, spaces, more digits) as strtoull() reads it. */
static uint64_t hex_addr(const char *p, char **end)
{
	/* a hex digit's value plus one; 0 for the other bytes (a lookup per digit, 121 k
	 * lines of 16 digits in a kallsyms) */
	static const unsigned char digit[256] = {
		['0'] = 1,  ['1'] = 2,  ['2'] = 3,  ['3'] = 4,  ['4'] = 5,  ['5'] = 6,
		['6'] = 7,  ['7'] = 8,  ['8'] = 9,  ['9'] = 10, ['a'] = 11, ['b'] = 12,
		['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16, ['A'] = 11, ['B'] = 12,
		['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
	};
	uint64_t v = 0;
	int i;

	for (i = 0; i < 17; i++) {
		unsigned int d = digit[(unsigned char)p[i]];

		if (!d)
			break;
		v = v << 4 | (d - 1);
	}
	if (i == 0 || i > 16)
		return strtoull(p, end, 16);
	*end = (char *)p + i;
	return v;
}

int ps_kallsyms__read(const char *path, struct ps_symtab *t, uint64_t reloc_text, const char **why)
{
	uint64_t text = 0, delta;
	struct lines l;
	size_t i, len, named = 0, shown = 0;
	char *line;

	t->full = false;
	if (lines__open(&l, path, MAX_KALLSYMS_LINE, why) < 0)
		return -1;
	while ((line = lines__next(&l, &len)) != NULL) {
		char *p = line, *end, *name, *mod = NULL, type, up;
		uint64_t addr;
		size_t n;

		addr = hex_addr(p, &end);
		if (end == p || end[0] != ' ' || !end[1] || end[2] != ' ')
			continue;
		named++;
		shown += addr != 0;
		type = end[1];
		name = end + 3;
		/* the line's length is known: a memchr, not a strcspn (to a NUL, as that) */
		n = strnlen(name, len - (size_t)(name - line));
		mod = memchr(name, '\t', n);
		if (mod)
			n = (size_t)(mod++ - name);
		if (!text && !mod && ((n == 5 && memcmp(name, "_text", 5) == 0)))
			text = addr;
		up = (char)toupper((unsigned char)type);
		if (up != 'T' && up != 'W' && up != 'D' && up != 'B')
			continue;
		if (mod && name[0] == '$')
			continue;
		if (ps_symtab__add(t, addr, addr, name, n, kallsyms_bind(type),
		                   mod && *mod ? mod : NULL) < 0)
			break;
	}
	lines__close(&l);
	if (t->full || l.stopped) {
		ps_symtab__free(t);
		return 0;
	}
	if (named && !shown) {
		/* kptr_restrict, or a reader without CAP_SYSLOG: every address 0 */
		ps_symtab__free(t);
		*why = "every address is 0 (kernel.kptr_restrict, or not root): kernel functions are unnamed";
		return -1;
	}
	delta = reloc_text && text ? reloc_text - text : 0;
	for (i = 0; delta && i < t->nr; i++)
		if (!t->syms[i].is_mod) {
			t->syms[i].start += delta;
			t->syms[i].end += delta;
		}
	ps_symtab__finish(t, true);
	return 0;
}
