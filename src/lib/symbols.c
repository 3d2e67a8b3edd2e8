// SPDX-License-Identifier: GPL-2.0-only
/*
 * symbols.c - the address spaces of a stream's processes, built from its side-band
 * records, and the lookups, call chains and folded stacks made from them.  Objects are
 * read by symbols_dso.c.
 */
#include <elf.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include "abi.h"
#include "compat.h"
#include "files.h"
#include "session.h"
#include "signals.h"
#include "symbols.h"
#include "symbols_int.h"
#include "unwind.h"
#include "xalloc.h"

#define PROC_BUCKETS 4096
#define DSO_BUCKETS 4096
#define BID_BUCKETS 1024
#define MAX_PROCS 65536
#define MAX_MAPS 65536 /* per process */
#define MAX_DEAD 1024  /* processes kept after their EXIT */
#define MAX_DSOS 16384 /* objects known at once */
#define MAX_BIDS 65536 /* build-ids the stream gave */
#define MAX_SYM_BYTES (256u << 20)
#define MAX_READS 3      /* reads of one object's table in a row that served few lookups */
#define READ_WORTH 65536 /* lookups that make a read worth it: the count starts again */
#define MAX_NOTICES 32   /* notices waiting to be taken */
#define MAX_DWARF 32     /* objects whose DWARF is open at once (inlined functions) */

#define KERNEL_NAME "[kernel.kallsyms]"
#define MISC_BUILD_ID_SIZE (1u << 15)
#define PID_KERNEL 0xffffffffu

struct map {
	uint64_t start, end, pgoff;
	struct ps_dso *dso;
};

struct proc {
	uint32_t pid;
	struct map *maps;
	size_t nr, cap;
	uint64_t last_use;
	uint64_t gen;   /* changes with the maps of objects (unwind sessions follow it) */
	bool dead;      /* its EXIT came: kept for the samples after it, until the pid returns */
	uint64_t death; /* when dead: its number in the ring of the dead */
	struct proc *next;
};

struct bid {
	char *name;
	unsigned char id[PS_BUILD_ID_MAX];
	size_t len;
	struct bid *next;
};

struct ps_symbols {
	const struct ps_session *s;
	bool swap;
	struct ps_dso_paths paths;
	char *symfs, *debug_dir, *kallsyms;
	struct proc *procs[PROC_BUCKETS];
	size_t nr_procs, nr_dead;
	/* the processes that exited, oldest first: (pid, death) of each, MAX_DEAD at most */
	struct {
		uint32_t pid;
		uint64_t death;
	} dead[MAX_DEAD];
	size_t dead_head, dead_len;
	uint64_t deaths;
	struct ps_dso *dsos[DSO_BUCKETS];
	size_t nr_dsos;
	struct bid *bids[BID_BUCKETS];
	size_t nr_bids;
	size_t sym_bytes, sym_max;
	uint64_t clock; /* use counter for eviction */
	uint64_t reads; /* tables read, for tests */
	uint64_t gen;   /* the last generation given to a process's maps */
	struct ps_unwind *unwind;
	size_t nr_dwarf;      /* objects with their DWARF open */
	uint64_t frames_call; /* counts ps_symbols__frames() calls: names in use stay open */
	/* what a program says once (ps_symbols__take_notice()): a ring of strings */
	char *notices[MAX_NOTICES];
	size_t notice_head, nr_notices;
	char *notice_taken;
	/* the kernel */
	bool kernel_mapped;
	uint64_t kernel_start, kernel_text;
	bool kernel_loaded;
	bool kernel_said; /* a notice said why the kernel's table is empty */
	bool has_kernel_bid;
	unsigned char kernel_bid[PS_BUILD_ID_MAX];
	size_t kernel_bid_len;
	struct ps_symtab ktab;
};

static uint32_t hash_str(const char *s)
{
	uint32_t h = 2166136261u;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

/* ---- notices ---- */

/* Queue a notice (taken over; NULL is ignored); past MAX_NOTICES waiting, it is dropped. */
static void notice__push(struct ps_symbols *st, char *text)
{
	if (!text)
		return;
	if (st->nr_notices == MAX_NOTICES) {
		free(text);
		return;
	}
	st->notices[(st->notice_head + st->nr_notices++) % MAX_NOTICES] = text;
}

static void notice__printf(struct ps_symbols *st, const char *fmt, ...) PS_PRINTF(2, 3);

static void notice__printf(struct ps_symbols *st, const char *fmt, ...)
{
	char *text = NULL;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&text, fmt, ap) < 0)
		text = NULL;
	va_end(ap);
	notice__push(st, text);
}

const char *ps_symbols__take_notice(struct ps_symbols *st)
{
	free(st->notice_taken);
	st->notice_taken = NULL;
	if (!st->nr_notices)
		return NULL;
	st->notice_taken = st->notices[st->notice_head];
	st->notice_head = (st->notice_head + 1) % MAX_NOTICES;
	st->nr_notices--;
	return st->notice_taken;
}

/* ---- objects ---- */

static void dso__unload(struct ps_symbols *st, struct ps_dso *d)
{
	st->sym_bytes -= ps_symtab__bytes(&d->tab);
	ps_symtab__free(&d->tab);
	free(d->loads);
	d->loads = NULL;
	d->nr_loads = 0;
	d->loaded = false;
}

static void dso__free(struct ps_symbols *st, struct ps_dso *d)
{
	if (d->dwarf) {
		ps_dwarf__close(d->dwarf);
		st->nr_dwarf--;
	}
	dso__unload(st, d);
	free(d->note);
	free(d->name);
	free(d);
}

static const struct bid *find_bid(const struct ps_symbols *st, const char *name)
{
	const struct bid *b;

	for (b = st->bids[hash_str(name) % BID_BUCKETS]; b; b = b->next)
		if (strcmp(b->name, name) == 0)
			return b;
	return NULL;
}

/* Free objects no map uses, least recently used first, until there is room for one. */
static void dsos__make_room(struct ps_symbols *st)
{
	while (st->nr_dsos >= MAX_DSOS) {
		struct ps_dso **victim = NULL;
		size_t b;

		for (b = 0; b < DSO_BUCKETS; b++) {
			struct ps_dso **pp;

			for (pp = &st->dsos[b]; *pp; pp = &(*pp)->next)
				if ((*pp)->refs == 0 &&
				    (!victim || (*pp)->last_use < (*victim)->last_use))
					victim = pp;
		}
		if (!victim)
			return;
		{
			struct ps_dso *d = *victim;

			*victim = d->next;
			dso__free(st, d);
			st->nr_dsos--;
		}
	}
}

static enum ps_dso_kind kind_of(const char *name)
{
	if (strcmp(name, "[vdso]") == 0)
		return PS_DSO_VDSO;
	if (strncmp(name, "/tmp/perf-", 10) == 0)
		return PS_DSO_JIT;
	if (name[0] != '/')
		return PS_DSO_NONE; /* [heap], [stack], [vsyscall], [uprobes]... */
	return PS_DSO_ELF;
}

static struct ps_dso *dso__get(struct ps_symbols *st, const char *name, const unsigned char *bid,
                               size_t bid_len)
{
	uint32_t h = hash_str(name);
	struct ps_dso *d;
	const struct bid *b;

	for (d = st->dsos[h % DSO_BUCKETS]; d; d = d->next)
		if (d->hash == h && strcmp(d->name, name) == 0 &&
		    (!bid_len || !d->has_build_id ||
		     (d->build_id_len == bid_len && memcmp(d->build_id, bid, bid_len) == 0)))
			break;
	if (d) {
		if (bid_len && !d->has_build_id && !d->loaded) {
			memcpy(d->build_id, bid, bid_len);
			d->build_id_len = bid_len;
			d->has_build_id = true;
		}
		d->refs++;
		return d;
	}
	dsos__make_room(st);
	if (st->nr_dsos >= MAX_DSOS)
		return NULL;
	d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	d->name = strdup(name);
	if (!d->name) {
		free(d);
		return NULL;
	}
	d->hash = h;
	d->kind = kind_of(name);
	b = bid_len ? NULL : find_bid(st, name);
	if (b) {
		bid = b->id;
		bid_len = b->len;
	}
	if (bid_len) {
		memcpy(d->build_id, bid, bid_len);
		d->build_id_len = bid_len;
		d->has_build_id = true;
	}
	d->refs = 1;
	d->next = st->dsos[h % DSO_BUCKETS];
	st->dsos[h % DSO_BUCKETS] = d;
	st->nr_dsos++;
	return d;
}

static void dso__put(struct ps_dso *d)
{
	if (d)
		d->refs--;
}

/*
 * Unload the least recently used tables, never @keep's (the object in use), until the
 * cache is under its cap.
 */
static void dsos__trim(struct ps_symbols *st, const struct ps_dso *keep)
{
	while (st->sym_bytes > st->sym_max) {
		struct ps_dso *victim = NULL, *d;
		size_t b;

		for (b = 0; b < DSO_BUCKETS; b++)
			for (d = st->dsos[b]; d; d = d->next)
				if (d != keep && d->loaded && ps_symtab__bytes(&d->tab) &&
				    (!victim || d->last_use < victim->last_use))
					victim = d;
		if (!victim)
			return;
		dso__unload(st, victim);
	}
}

/*
 * Read @d's table.  What does not fit is not kept, and an object whose table was dropped
 * for room MAX_READS times in a row with fewer than READ_WORTH lookups each time is not
 * read again (two tables that do not fit together would otherwise be read in turn for
 * every sample): said once.
 */
static void dso__load(struct ps_symbols *st, struct ps_dso *d)
{
	if (d->lookups >= READ_WORTH)
		d->reads = 0;
	d->lookups = 0;
	if (d->reads >= MAX_READS && d->kind != PS_DSO_NONE) {
		d->loaded = true;
		d->noticed = true;
		notice__printf(
		        st,
		        "%s: symbol table read %u times, dropped each time soon after to keep the cache under %zu MiB: not read again, its functions are unnamed",
		        d->name, d->reads, st->sym_max >> 20);
		return;
	}
	switch (d->kind) {
	case PS_DSO_ELF:
		ps_dso__load_elf(d, &st->paths);
		break;
	case PS_DSO_VDSO:
		ps_dso__load_vdso(d, &st->paths);
		break;
	case PS_DSO_JIT:
		ps_dso__load_jit(d, &st->paths);
		break;
	default:
		d->loaded = true;
		return;
	}
	d->reads++;
	st->reads++;
	/* one notice per object: a table that did not fit, else a file refused */
	if (!d->noticed && d->tab.full) {
		notice__printf(
		        st,
		        "%s: symbol table bigger than %zu MiB: not kept, its functions are unnamed",
		        d->name, st->paths.table_limit >> 20);
		d->noticed = true;
	} else if (!d->noticed && d->note) {
		notice__push(st, d->note);
		d->note = NULL;
		d->noticed = true;
	}
	free(d->note);
	d->note = NULL;
	st->sym_bytes += ps_symtab__bytes(&d->tab);
	dsos__trim(st, d);
}

/* ---- processes ---- */

static struct proc *proc__find(const struct ps_symbols *st, uint32_t pid)
{
	struct proc *p;

	for (p = st->procs[pid % PROC_BUCKETS]; p; p = p->next)
		if (p->pid == pid)
			return p;
	return NULL;
}

static void proc__clear(struct proc *p)
{
	size_t i;

	for (i = 0; i < p->nr; i++)
		dso__put(p->maps[i].dso);
	p->nr = 0;
}

static void proc__remove(struct ps_symbols *st, uint32_t pid)
{
	struct proc **pp;

	for (pp = &st->procs[pid % PROC_BUCKETS]; *pp; pp = &(*pp)->next) {
		struct proc *p = *pp;

		if (p->pid == pid) {
			*pp = p->next;
			st->nr_dead -= p->dead;
			proc__clear(p);
			free(p->maps);
			free(p);
			st->nr_procs--;
			return;
		}
	}
}

static struct proc *proc__new(struct ps_symbols *st, uint32_t pid)
{
	struct proc *p;

	proc__remove(st, pid);
	if (st->nr_procs >= MAX_PROCS) {
		/* a stream that lost its EXIT records: forget the least recently used */
		struct proc *victim = NULL;
		size_t b;

		for (b = 0; b < PROC_BUCKETS; b++)
			for (p = st->procs[b]; p; p = p->next)
				if (!victim || p->last_use < victim->last_use)
					victim = p;
		if (victim)
			proc__remove(st, victim->pid);
	}
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->pid = pid;
	p->last_use = ++st->clock;
	p->gen = ++st->gen;
	p->next = st->procs[pid % PROC_BUCKETS];
	st->procs[pid % PROC_BUCKETS] = p;
	st->nr_procs++;
	return p;
}

/* A process's maps: a pid that comes back after its EXIT is a new process. */
static struct proc *proc__get(struct ps_symbols *st, uint32_t pid)
{
	struct proc *p = proc__find(st, pid);

	return p && !p->dead ? p : proc__new(st, pid);
}

/*
 * An EXIT does not forget the process: samples that come after it (its last ones on
 * another CPU, the exit path's) are still named from its maps, as perf names them.  The
 * MAX_DEAD most recent are kept; a pid used again starts afresh.
 */
static void proc__exit(struct ps_symbols *st, uint32_t pid)
{
	struct proc *p = proc__find(st, pid);
	size_t at;

	if (!p || p->dead)
		return;
	if (st->dead_len == MAX_DEAD) {
		/* the oldest death goes, unless its pid has become a new process since */
		struct proc *old = proc__find(st, st->dead[st->dead_head].pid);

		if (old && old->dead && old->death == st->dead[st->dead_head].death)
			proc__remove(st, old->pid);
		st->dead_head = (st->dead_head + 1) % MAX_DEAD;
		st->dead_len--;
	}
	p->dead = true;
	p->death = ++st->deaths;
	st->nr_dead++;
	at = (st->dead_head + st->dead_len++) % MAX_DEAD;
	st->dead[at].pid = pid;
	st->dead[at].death = p->death;
}

static int proc__reserve(struct proc *p, size_t n)
{
	if (n > MAX_MAPS)
		return -1;
	return ps_grow((void **)&p->maps, &p->cap, n, sizeof(*p->maps), 16);
}

/* Map [start, end) to @dso (reference taken over), cutting what it overlaps, as mmap does. */
static void proc__insert(struct proc *p, uint64_t start, uint64_t end, uint64_t pgoff,
                         struct ps_dso *dso)
{
	size_t i, out = 0, at;

	if (proc__reserve(p, p->nr + 2) < 0) {
		dso__put(dso);
		return;
	}
	for (i = 0; i < p->nr; i++) {
		struct map m = p->maps[i];

		if (m.end <= start || m.start >= end) {
			p->maps[out++] = m;
			continue;
		}
		if (m.start < start && m.end > end) {
			/* split in two: the right half needs one more slot */
			struct map right = m;

			right.pgoff += end - m.start;
			right.start = end;
			right.dso->refs++;
			m.end = start;
			p->maps[out++] = m;
			memmove(&p->maps[i + 2], &p->maps[i + 1], (p->nr - i - 1) * sizeof(m));
			p->maps[i + 1] = right;
			p->nr++;
			continue;
		}
		if (m.start < start) {
			m.end = start;
			p->maps[out++] = m;
		} else if (m.end > end) {
			m.pgoff += end - m.start;
			m.start = end;
			p->maps[out++] = m;
		} else {
			dso__put(m.dso);
		}
	}
	p->nr = out;
	for (at = 0; at < p->nr && p->maps[at].start < start; at++)
		;
	memmove(&p->maps[at + 1], &p->maps[at], (p->nr - at) * sizeof(p->maps[0]));
	p->maps[at] = (struct map){ start, end, pgoff, dso };
	p->nr++;
}

static const struct map *proc__find_map(const struct proc *p, uint64_t addr)
{
	size_t lo = ps_upper_bound(p->maps, p->nr, sizeof(p->maps[0]), offsetof(struct map, start),
	                           addr);

	if (lo && addr < p->maps[lo - 1].end)
		return &p->maps[lo - 1];
	return NULL;
}

/* ---- records ---- */

static bool is_anon(const char *f)
{
	return strcmp(f, "//anon") == 0 || strncmp(f, "/dev/zero", 9) == 0 ||
	       strncmp(f, "/anon_hugepage", 14) == 0;
}

static void add_bid(struct ps_symbols *st, const char *name, const unsigned char *id, size_t len)
{
	uint32_t h = hash_str(name) % BID_BUCKETS;
	struct bid *b;

	if (find_bid(st, name) || st->nr_bids >= MAX_BIDS)
		return;
	b = calloc(1, sizeof(*b));
	if (!b)
		return;
	b->name = strdup(name);
	if (!b->name) {
		free(b);
		return;
	}
	memcpy(b->id, id, len);
	b->len = len;
	b->next = st->bids[h];
	st->bids[h] = b;
	st->nr_bids++;
}

static void process_build_id(struct ps_symbols *st, const struct ps_record *rec)
{
	const unsigned char *p = rec->data + 8;
	size_t body = rec->size - 8u, len = 20;
	char name[4096];
	size_t n;

	if (body < 4 + 24 + 1)
		return;
	if (rec->misc & MISC_BUILD_ID_SIZE) {
		len = p[4 + 20];
		if (!len || len > 20)
			return;
	}
	n = strnlen((const char *)p + 28, body - 28);
	if (n == 0 || n >= sizeof(name) || n == body - 28)
		return;
	memcpy(name, p + 28, n);
	name[n] = 0;
	if ((rec->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL &&
	    strcmp(name, KERNEL_NAME) == 0) {
		memcpy(st->kernel_bid, p + 4, len);
		st->kernel_bid_len = len;
		st->has_kernel_bid = true;
		return;
	}
	add_bid(st, name, p + 4, len);
}

static void process_mmap(struct ps_symbols *st, const struct ps_record *rec)
{
	const unsigned char *p = rec->data + 8;
	size_t body = rec->size - 8u, fo = rec->type == PERF_RECORD_MMAP2 ? 64 : 32, n;
	uint32_t pid;
	uint64_t start, len, pgoff;
	const unsigned char *bid = NULL;
	size_t bid_len = 0;
	char name[4096];
	struct ps_dso *d;
	struct proc *pr;

	if (body <= fo)
		return;
	pid = ps_get32(p, st->swap);
	start = ps_get64(p + 8, st->swap);
	len = ps_get64(p + 16, st->swap);
	pgoff = ps_get64(p + 24, st->swap);
	n = strnlen((const char *)p + fo, body - fo);
	if (n == body - fo || n >= sizeof(name) || len == 0 || start + len < start)
		return;
	memcpy(name, p + fo, n);
	name[n] = 0;
	if (rec->type == PERF_RECORD_MMAP2 && (rec->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) &&
	    p[32] && p[32] <= 20) {
		bid = p + 36;
		bid_len = p[32];
	}
	if (pid == PID_KERNEL) {
		if (strncmp(name, KERNEL_NAME, strlen(KERNEL_NAME)) == 0) {
			st->kernel_mapped = true;
			st->kernel_start = start;
			/* [kernel.kallsyms]_text: pgoff is where _text is */
			st->kernel_text = name[strlen(KERNEL_NAME)] ? pgoff : 0;
		}
		return; /* modules are named from kallsyms */
	}
	if (is_anon(name))
		snprintf(name, sizeof(name), "/tmp/perf-%u.map", pid);
	pr = proc__get(st, pid);
	if (!pr)
		return;
	d = dso__get(st, name, bid, bid_len);
	if (!d)
		return;
	if (d->kind == PS_DSO_JIT)
		pgoff = start; /* JIT maps hold absolute addresses */
	else
		pr->gen = ++st->gen; /* an object (re)mapped: unwinding starts again */
	proc__insert(pr, start, start + len, pgoff, d);
}

void ps_symbols__process(struct ps_symbols *st, const struct ps_record *rec)
{
	const unsigned char *p = rec->data + 8;
	size_t body = rec->size - 8u;

	if (rec->size < 8 || rec->len < rec->size)
		return;
	switch (rec->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		process_mmap(st, rec);
		break;
	case PERF_RECORD_FORK:
		if (body >= 16) {
			uint32_t pid = ps_get32(p, st->swap), ppid = ps_get32(p + 4, st->swap);
			struct proc *parent, *child;

			if (pid == ppid)
				break; /* a new thread shares its process's maps */
			child = proc__new(st, pid);
			parent = proc__find(st, ppid);
			if (!child || !parent || !parent->nr ||
			    proc__reserve(child, parent->nr) < 0)
				break;
			if (parent->nr) /* maps may be NULL */
				memcpy(child->maps, parent->maps,
				       parent->nr * sizeof(*parent->maps));
			child->nr = parent->nr;
			for (size_t i = 0; i < child->nr; i++)
				child->maps[i].dso->refs++;
		}
		break;
	case PERF_RECORD_COMM:
		/*
		 * An exec does not empty the address space: until the new image's maps
		 * replace them, the old ones still name the samples taken inside execve
		 * (their user stack is the old image's), as perf names them.
		 */
		break;
	case PERF_RECORD_EXIT:
		if (body >= 16) {
			uint32_t pid = ps_get32(p, st->swap), tid = ps_get32(p + 8, st->swap);

			if (pid == tid)
				proc__exit(st, pid);
		}
		break;
	case PS_RECORD_HEADER_BUILD_ID:
		process_build_id(st, rec);
		break;
	default:
		break;
	}
}

/* ---- the kernel ---- */

static size_t running_kernel_build_id(unsigned char *bid)
{
	unsigned char buf[4096];
	size_t n = 0, off = 0;
	const char *why;
	int fd = ps_file__open_named("/sys/kernel/notes", PS_SYM_TEXT_MAX, &why);
	ssize_t got;

	if (fd < 0)
		return 0;
	while (n < sizeof(buf) && (got = read(fd, buf + n, sizeof(buf) - n)) != 0) {
		if (got < 0 && errno == EINTR && !ps_stop)
			continue;
		if (got < 0)
			break;
		n += (size_t)got;
	}
	close(fd);
	while (off + 12 <= n) {
		uint32_t namesz, descsz, type;
		size_t name_off = off + 12, desc_off;

		memcpy(&namesz, buf + off, 4);
		memcpy(&descsz, buf + off + 4, 4);
		memcpy(&type, buf + off + 8, 4);
		desc_off = name_off + ((namesz + 3u) & ~3u);
		if (desc_off + descsz > n)
			break;
		if (type == NT_GNU_BUILD_ID && namesz == 4 &&
		    memcmp(buf + name_off, "GNU", 4) == 0) {
			size_t len = descsz < PS_BUILD_ID_MAX ? descsz : PS_BUILD_ID_MAX;

			memcpy(bid, buf + desc_off, len);
			return len;
		}
		off = desc_off + ((descsz + 3u) & ~3u);
	}
	return 0;
}

/* Read the kernel's table from the kallsyms file at @path; what is wrong with it said once. */
static int kernel__read(struct ps_symbols *st, const char *path)
{
	const char *why = NULL;
	int r = ps_kallsyms__read(path, &st->ktab, st->kernel_text, &why);

	if (why || st->ktab.full)
		st->kernel_said = true;
	if (why)
		notice__printf(st, "%s: %s", path, why);
	else if (st->ktab.full)
		notice__printf(
		        st,
		        "%s: kernel symbol table bigger than %zu MiB: not kept, its functions are unnamed",
		        path, st->paths.table_limit >> 20);
	return r;
}

static void kernel__load(struct ps_symbols *st)
{
	char path[4096], hex[2 * PS_BUILD_ID_MAX + 1];
	unsigned char bid[PS_BUILD_ID_MAX];
	bool running = false;
	size_t n;

	st->kernel_loaded = true;
	if (st->kallsyms) {
		kernel__read(st, st->kallsyms);
		goto out;
	}
	if (st->has_kernel_bid) {
		ps_build_id_hex(st->kernel_bid, st->kernel_bid_len, hex);
		snprintf(path, sizeof(path), "%s/" KERNEL_NAME "/%s/kallsyms", st->debug_dir, hex);
		if (kernel__read(st, path) == 0)
			goto out;
		n = running_kernel_build_id(bid);
		running = n == st->kernel_bid_len && memcmp(bid, st->kernel_bid, n) == 0;
	} else {
		char rel[256];
		struct utsname u;

		if (ps_session__feature_string(st->s, PS_FEAT_OSRELEASE, rel, sizeof(rel)) &&
		    uname(&u) == 0)
			running = strcmp(rel, u.release) == 0;
	}
	/* under --symfs, the root's own copy, as perf looks for it */
	snprintf(path, sizeof(path), "%s/proc/kallsyms", st->symfs);
	/* a stream of another kernel without its table stays unnamed silently, as in perf */
	if (!running)
		goto out;
	kernel__read(st, path);
out:
	if (st->kallsyms && !st->ktab.nr && !st->kernel_said)
		notice__printf(st,
		               KERNEL_NAME
		               ": no kernel symbols read from %s: kernel functions are unnamed",
		               st->kallsyms);
	st->reads++;
	st->sym_bytes += ps_symtab__bytes(&st->ktab);
	dsos__trim(st, NULL);
}

static void kernel__find(struct ps_symbols *st, uint64_t addr, struct ps_symbol *out)
{
	const struct ps_sym *s;
	const char *mod;

	if (!st->kernel_loaded)
		kernel__load(st);
	s = ps_symtab__find(&st->ktab, addr);
	if (s) {
		out->name = ps_symtab__name(&st->ktab, s, &mod);
		out->off = addr - s->start;
		out->dso = mod ? mod : KERNEL_NAME;
		return;
	}
	if (st->kernel_mapped && addr >= st->kernel_start)
		out->dso = KERNEL_NAME;
}

/* ---- lookups ---- */

static uint64_t to_vaddr(const struct ps_dso *d, const struct map *m, uint64_t addr)
{
	uint64_t off = addr - m->start + m->pgoff;
	size_t i;

	if (d->kind == PS_DSO_JIT)
		return addr;
	for (i = 0; i < d->nr_loads; i++)
		if (off >= d->loads[i].off && off - d->loads[i].off < d->loads[i].size)
			return off - d->loads[i].off + d->loads[i].vaddr;
	return off;
}

/* ps_symbols__find(), and the user object and its address there (@dp NULL when none) */
static void find(struct ps_symbols *st, uint32_t pid, unsigned int cpumode, uint64_t addr,
                 struct ps_symbol *out, struct ps_dso **dp, uint64_t *vap)
{
	const struct map *m;
	struct proc *p;
	struct ps_dso *d;
	const struct ps_sym *s;
	uint64_t va;

	memset(out, 0, sizeof(*out));
	*dp = NULL;
	out->addr = addr;
	switch (cpumode) {
	case PERF_RECORD_MISC_KERNEL:
		out->level = 'k';
		kernel__find(st, addr, out);
		return;
	case PERF_RECORD_MISC_USER:
	case PERF_RECORD_MISC_CPUMODE_UNKNOWN:
		out->level = '.';
		break;
	default:
		/* hypervisor, guests: perf names nothing there */
		out->level = cpumode == PERF_RECORD_MISC_GUEST_KERNEL ? 'g' :
		             cpumode == PERF_RECORD_MISC_GUEST_USER   ? 'u' :
		                                                        'H';
		return;
	}
	p = proc__find(st, pid);
	if (!p)
		return;
	p->last_use = ++st->clock;
	m = proc__find_map(p, addr);
	if (!m)
		return;
	d = m->dso;
	out->dso = d->name;
	out->addr = addr - m->start + m->pgoff; /* perf's map__map_ip() */
	d->last_use = st->clock;
	if (!d->loaded)
		dso__load(st, d);
	d->lookups++;
	va = to_vaddr(d, m, addr);
	*dp = d;
	*vap = va;
	s = ps_symtab__find(&d->tab, va);
	if (s) {
		out->name = ps_symtab__name(&d->tab, s, NULL);
		out->off = va - s->start;
	}
}

void ps_symbols__find(struct ps_symbols *st, uint32_t pid, unsigned int cpumode, uint64_t addr,
                      struct ps_symbol *out)
{
	struct ps_dso *d;
	uint64_t va;

	find(st, pid, cpumode, addr, out, &d, &va);
}

/* the map callback of the unwinder */
static bool unwind_map(void *ctx, uint32_t pid, uint64_t addr, struct ps_unwind_map *out,
                       uint64_t *gen)
{
	struct ps_symbols *st = ctx;
	struct proc *p = proc__find(st, pid);
	const struct map *m = p ? proc__find_map(p, addr) : NULL;

	if (!m)
		return false;
	*out = (struct ps_unwind_map){ m->start, m->end, m->pgoff, m->dso };
	*gen = p->gen;
	return true;
}

/*
 * @d's DWARF, opened on first use; at most MAX_DWARF open, the least recently used closed
 * first, never one that named a frame of this call (its names are in use).
 */
static struct ps_dwarf *dso__dwarf(struct ps_symbols *st, struct ps_dso *d)
{
	if (d->kind != PS_DSO_ELF)
		return NULL;
	if (!d->dwarf_tried) {
		if (st->nr_dwarf >= MAX_DWARF) {
			struct ps_dso *victim = NULL, *x;

			for (size_t b = 0; b < DSO_BUCKETS; b++)
				for (x = st->dsos[b]; x; x = x->next)
					if (x->dwarf && x->dwarf_use != st->frames_call &&
					    (!victim || x->dwarf_use < victim->dwarf_use))
						victim = x;
			if (!victim)
				return NULL;
			ps_dwarf__close(victim->dwarf);
			victim->dwarf = NULL;
			victim->dwarf_tried = false;
			st->nr_dwarf--;
		}
		d->dwarf_tried = true;
		d->dwarf = ps_dwarf__open(d, &st->paths);
		if (d->dwarf)
			st->nr_dwarf++;
	}
	if (d->dwarf)
		d->dwarf_use = st->frames_call;
	return d->dwarf;
}

/*
 * Name the frame at @ip into @out (room for @max, at least 1); with @inlines (an unwound
 * frame: perf 6.1 looks for inlined functions there only, not in the kernel's chains),
 * the functions DWARF says are inlined there each as a frame of its own, innermost
 * first, then the function that holds them, as perf script shows them (a name that is
 * not the symbol's is marked inlined, even the outermost one).  Return: the frames
 * written.
 */
static size_t name_frame(struct ps_symbols *st, uint32_t pid, unsigned int mode, uint64_t ip,
                         bool inlines, struct ps_frame *out, size_t max)
{
	const char *names[8];
	struct ps_symbol base;
	struct ps_dwarf *dw;
	struct ps_dso *d;
	uint64_t va = 0;
	size_t n, i;

	out[0].ip = ip;
	out[0].inlined = false;
	find(st, pid, mode, ip, &out[0].sym, &d, &va);
	if (!inlines || !d || !out[0].sym.name || !(dw = dso__dwarf(st, d)))
		return 1;
	base = out[0].sym;
	n = ps_dwarf__inlines(dw, va, names, ARRAY_SIZE(names));
	if (n > max)
		n = max;
	for (i = 0; i < n; i++) {
		out[i].ip = ip;
		out[i].sym = base;
		out[i].sym.name = names[i];
		out[i].inlined = strcmp(names[i], base.name) != 0;
	}
	return n ? n : 1;
}

static unsigned int mode_of(const struct ps_symbols *st, uint64_t addr)
{
	uint64_t kstart = st->kernel_mapped ? st->kernel_start : 1ull << 63;

	return addr >= kstart ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER;
}

bool ps_symbols__sample(struct ps_symbols *st, const struct ps_sample *smp, uint16_t misc,
                        struct ps_symbol *out)
{
	unsigned int mode = misc & PERF_RECORD_MISC_CPUMODE_MASK, amode;
	uint32_t pid = (smp->type & PERF_SAMPLE_TID) ? smp->pid : PID_KERNEL;

	memset(out, 0, sizeof(*out));
	if (!(smp->type & PERF_SAMPLE_IP))
		return false;
	ps_symbols__find(st, pid, mode, smp->ip, out);
	amode = mode_of(st, smp->ip);
	if (!out->dso && amode != mode &&
	    (mode == PERF_RECORD_MISC_KERNEL || mode == PERF_RECORD_MISC_USER))
		ps_symbols__find(st, pid, amode, smp->ip, out);
	return true;
}

size_t ps_symbols__frames(struct ps_symbols *st, const struct ps_sample *smp, struct ps_frame *out,
                          size_t max)
{
	unsigned int mode = PERF_RECORD_MISC_USER;
	uint32_t pid = (smp->type & PERF_SAMPLE_TID) ? smp->pid : PID_KERNEL;
	uint64_t ips[PS_UNWIND_MAX_FRAMES];
	size_t n = 0, nr_ips, k;
	uint64_t i;

	if (!(smp->type & PERF_SAMPLE_CALLCHAIN))
		return 0;
	if (max > PS_SYMBOLS_MAX_STACK)
		max = PS_SYMBOLS_MAX_STACK;
	st->frames_call++;
	for (i = 0; i < smp->nr_callchain && n < max; i++) {
		uint64_t ip = ps_sample__u64(smp, smp->callchain, i);

		if (ip >= (uint64_t)PERF_CONTEXT_MAX) {
			switch (ip) {
			case (uint64_t)PERF_CONTEXT_HV:
				mode = PERF_RECORD_MISC_HYPERVISOR;
				break;
			case (uint64_t)PERF_CONTEXT_KERNEL:
				mode = PERF_RECORD_MISC_KERNEL;
				break;
			case (uint64_t)PERF_CONTEXT_USER:
				mode = PERF_RECORD_MISC_USER;
				break;
			default:
				return 0; /* perf drops the whole chain */
			}
			continue;
		}
		n += name_frame(st, pid, mode, ip, false, out + n, max - n);
	}
	/* the user part of a --call-graph dwarf sample, after the kernel's chain, as perf */
	if (n >= max || pid == PID_KERNEL || !ps_unwind__usable(smp))
		return n;
	if (!st->unwind)
		st->unwind = ps_unwind__new(&st->paths, unwind_map, st);
	if (!st->unwind)
		return n;
	nr_ips = ps_unwind__sample(st->unwind, smp, ips, max - n);
	for (k = 0; k < nr_ips && n < max; k++)
		n += name_frame(st, pid, PERF_RECORD_MISC_USER, ips[k], true, out + n, max - n);
	return n;
}

/*
 * Append @s to the folded line: with @name, as a frame name (';' as ':', a control byte
 * as \xNN, so no name can end the line, add a count or split a frame; and with @comm,
 * a space as '_'); else as it is.
 */
static int fb_put(struct ps_fold_buf *fb, const char *s, bool name, bool comm)
{
	static const char hex[] = "0123456789abcdef";
	size_t n = strlen(s);

	if (ps_grow((void **)&fb->buf, &fb->cap, fb->len + 4 * n + 2, 1, 256))
		return -1;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (name && (c < 0x20 || c == 0x7f)) {
			fb->buf[fb->len++] = '\\';
			fb->buf[fb->len++] = 'x';
			fb->buf[fb->len++] = hex[c >> 4];
			fb->buf[fb->len++] = hex[c & 15];
			continue;
		}
		if (name && c == ';')
			c = ':';
		else if (comm && c == ' ')
			c = '_';
		fb->buf[fb->len++] = (char)c;
	}
	fb->buf[fb->len] = 0;
	return 0;
}

int ps_symbols__fold(struct ps_symbols *st, const struct ps_sample *smp, uint16_t misc,
                     const char *comm, struct ps_fold_buf *fb, struct ps_error *err)
{
	struct ps_frame frames[PS_SYMBOLS_MAX_STACK];
	size_t n, i;

	fb->len = 0;
	if (fb_put(fb, comm ? comm : "[unknown]", true, true) < 0)
		goto nomem;
	if (smp->type & PERF_SAMPLE_CALLCHAIN) {
		n = ps_symbols__frames(st, smp, frames, ARRAY_SIZE(frames));
	} else {
		n = ps_symbols__sample(st, smp, misc, &frames[0].sym) ? 1 : 0;
	}
	for (i = n; i-- > 0;) {
		const char *name = frames[i].sym.name ? frames[i].sym.name : "[unknown]";

		if (fb_put(fb, ";", false, false) < 0 || fb_put(fb, name, true, false) < 0)
			goto nomem;
	}
	return 0;
nomem:
	return ps_error__set(err, PS_ENOMEM, NULL, PS_NO_OFFSET, "out of memory");
}

/* ---- life ---- */

struct ps_symbols *ps_symbols__new(const struct ps_session *s, const struct ps_symbols_opts *o,
                                   struct ps_error *err)
{
	struct ps_symbols *st = calloc(1, sizeof(*st));
	const char *home = getenv("HOME");
	char dbg[4096];

	if (!st)
		goto nomem;
	st->s = s;
	st->swap = ps_session__swapped(s);
	snprintf(dbg, sizeof(dbg), "%s/.debug", home && *home ? home : "/root");
	st->symfs = strdup(o && o->symfs ? o->symfs : "");
	st->debug_dir = strdup(o && o->debug_dir ? o->debug_dir : dbg);
	if (!st->symfs || !st->debug_dir)
		goto nomem;
	/* "/" as a root is no root: paths are joined by plain concatenation */
	while (st->symfs[0] && st->symfs[strlen(st->symfs) - 1] == '/')
		st->symfs[strlen(st->symfs) - 1] = 0;
	if (o && o->kallsyms) {
		const char *why;
		int fd = ps_file__open_named(o->kallsyms, PS_SYM_TEXT_MAX, &why);

		if (fd < 0) {
			if (why)
				ps_error__set(err, PS_EUSAGE, o->kallsyms, PS_NO_OFFSET,
				              "cannot read --kallsyms: %s", why);
			else
				ps_error__sys(err, PS_EUSAGE, o->kallsyms,
				              "cannot read --kallsyms");
			ps_symbols__delete(st);
			return NULL;
		}
		close(fd);
		st->kallsyms = strdup(o->kallsyms);
		if (!st->kallsyms)
			goto nomem;
	}
	st->paths.symfs = st->symfs;
	st->paths.debug_dir = st->debug_dir;
	st->sym_max = o && o->cache_max ? o->cache_max : MAX_SYM_BYTES;
	/* one table may take the whole cache, no more */
	st->paths.table_limit = st->sym_max;
	st->ktab.limit = st->sym_max;
	return st;
nomem:
	ps_symbols__delete(st);
	ps_error__set(err, PS_ENOMEM, NULL, PS_NO_OFFSET, "out of memory");
	return NULL;
}

void ps_symbols__delete(struct ps_symbols *st)
{
	size_t b;

	if (!st)
		return;
	for (b = 0; b < PROC_BUCKETS; b++)
		while (st->procs[b])
			proc__remove(st, st->procs[b]->pid);
	for (b = 0; b < DSO_BUCKETS; b++)
		while (st->dsos[b]) {
			struct ps_dso *d = st->dsos[b];

			st->dsos[b] = d->next;
			dso__free(st, d);
		}
	for (b = 0; b < BID_BUCKETS; b++)
		while (st->bids[b]) {
			struct bid *x = st->bids[b];

			st->bids[b] = x->next;
			free(x->name);
			free(x);
		}
	ps_unwind__delete(st->unwind);
	ps_symtab__free(&st->ktab);
	while (ps_symbols__take_notice(st))
		;
	free(st->symfs);
	free(st->debug_dir);
	free(st->kallsyms);
	free(st);
}

void ps_symbols__stats(const struct ps_symbols *st, size_t *nr_objects, size_t *sym_bytes,
                       size_t *nr_processes)
{
	if (nr_objects)
		*nr_objects = st->nr_dsos;
	if (sym_bytes)
		*sym_bytes = st->sym_bytes;
	if (nr_processes)
		*nr_processes = st->nr_procs;
}

uint64_t ps_symbols__reads(const struct ps_symbols *st)
{
	return st->reads;
}
