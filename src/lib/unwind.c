// SPDX-License-Identifier: GPL-2.0-only
/*
 * unwind.c - user stacks unwound with libdwfl over a sample's stack copy, and the inlined
 * functions DWARF names at an address (unwind.h).
 */
#include <dwarf.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include "compat.h"
#include "session.h"
#include "symbols_int.h"
#include "unwind.h"

#define MAX_SESSIONS 16   /* processes unwound at once */
#define NR_DWARF_REGS 17  /* x86_64: rax..r15 and the return address (rip) */
#define INLINE_CACHE 4096 /* addresses remembered per object */
#define INLINE_MAX 8      /* names per address */

/* perf's x86_64 register numbers (the bits of sample_regs_user) */
enum {
	PERF_AX,
	PERF_BX,
	PERF_CX,
	PERF_DX,
	PERF_SI,
	PERF_DI,
	PERF_BP,
	PERF_SP,
	PERF_IP,
	PERF_R8 = 16,
};

/* DWARF register n of x86_64 is perf's register dwarf_to_perf[n] */
static const unsigned char dwarf_to_perf[NR_DWARF_REGS] = {
	PERF_AX,     PERF_DX,     PERF_CX,     PERF_BX,     PERF_SI,     PERF_DI,
	PERF_BP,     PERF_SP,     PERF_R8,     PERF_R8 + 1, PERF_R8 + 2, PERF_R8 + 3,
	PERF_R8 + 4, PERF_R8 + 5, PERF_R8 + 6, PERF_R8 + 7, PERF_IP,
};

struct session {
	uint32_t pid;
	uint64_t gen;
	Dwfl *dwfl;
	bool attached;
	uint64_t last_use;
};

/* one unwind in progress */
struct walk {
	struct ps_unwind *u;
	struct session *ss;
	uint32_t pid;
	const unsigned char *stack;
	uint64_t stack_len, sp;
	bool swap;
	Dwarf_Word regs[NR_DWARF_REGS];
	uint64_t *ips;
	size_t n, max;
	bool past_first;
	bool refused; /* a read outside the copy since the last frame */
};

struct ps_unwind {
	const struct ps_dso_paths *paths;
	ps_unwind_map_fn map;
	void *ctx;
	struct session sessions[MAX_SESSIONS];
	uint64_t clock, started;
	struct walk *cur;
};

static char *debuginfo_path;

/* the inlined functions' DWARF: the object's own, else its debug file */
static const Dwfl_Callbacks dwfl_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.debuginfo_path = &debuginfo_path,
};

static int no_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
                        const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
                        char **debuginfo_file_name)
{
	(void)mod;
	(void)userdata;
	(void)modname;
	(void)base;
	(void)file_name;
	(void)debuglink_file;
	(void)debuglink_crc;
	(void)debuginfo_file_name;
	return -1;
}

/*
 * Unwinding: the objects' own CFI (.eh_frame, else their .debug_frame), never a separate
 * debug file, which every session of every process would read again (decompressing it)
 * for the rare address its .eh_frame does not cover.
 */
static const Dwfl_Callbacks unwind_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = no_debuginfo,
	.debuginfo_path = &debuginfo_path,
};

/* ---- the thread callbacks: one thread, its registers and stack from the sample ---- */

static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	struct ps_unwind *u = arg;

	(void)dwfl;
	if (*thread_argp || !u->cur)
		return 0;
	*thread_argp = u->cur;
	return u->cur->pid ? (pid_t)u->cur->pid : 1;
}

static bool get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
	struct ps_unwind *u = arg;

	(void)dwfl;
	(void)tid;
	*thread_argp = u->cur;
	return u->cur != NULL;
}

/*
 * Only inside the stack copy: anything else is unknown.  Like perf, the copy's last eight
 * bytes are not read (perf's unwinders refuse a word that ends where the copy ends).
 */
static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	struct ps_unwind *u = arg;
	struct walk *w = u->cur;

	(void)dwfl;
	if (!w)
		return false;
	if (w->stack_len < 8 || addr < w->sp || addr - w->sp >= w->stack_len - 8) {
		w->refused = true;
		return false;
	}
	*result = ps_get64(w->stack + (addr - w->sp), w->swap);
	return true;
}

static bool set_initial_registers(Dwfl_Thread *thread, void *thread_arg)
{
	const struct walk *w = thread_arg;

	return dwfl_thread_state_registers(thread, 0, NR_DWARF_REGS, w->regs);
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
	.next_thread = next_thread,
	.get_thread = get_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

/* ---- sessions ---- */

static void session__end(struct session *s)
{
	if (s->dwfl)
		dwfl_end(s->dwfl);
	memset(s, 0, sizeof(*s));
}

/* The session of @pid for maps of generation @gen: kept, or started (the oldest ended). */
static struct session *session__get(struct ps_unwind *u, uint32_t pid, uint64_t gen)
{
	struct session *s, *victim = NULL;
	size_t i;

	for (i = 0; i < MAX_SESSIONS; i++) {
		s = &u->sessions[i];
		if (s->dwfl && s->pid == pid) {
			if (s->gen == gen) {
				s->last_use = ++u->clock;
				return s;
			}
			victim = s;
			break;
		}
		if (!victim || !s->dwfl || (victim->dwfl && s->last_use < victim->last_use))
			victim = s;
	}
	session__end(victim);
	victim->dwfl = dwfl_begin(&unwind_callbacks);
	if (!victim->dwfl)
		return NULL;
	victim->pid = pid;
	victim->gen = gen;
	victim->last_use = ++u->clock;
	u->started++;
	return victim;
}

/* Make sure the object mapped at @pc is a module of @w's session. */
static bool report(struct walk *w, uint64_t pc)
{
	struct session *s = w->ss;
	struct ps_unwind_map m;
	Dwfl_Module *mod;
	uint64_t gen;
	int fd;

	if (dwfl_addrmodule(s->dwfl, pc))
		return true;
	if (!w->u->map(w->u->ctx, w->pid, pc, &m, &gen) || gen != s->gen || !m.dso ||
	    (m.dso->kind != PS_DSO_ELF && m.dso->kind != PS_DSO_VDSO) || m.dso->unwind_refused ||
	    m.pgoff > m.start)
		return false;
	fd = ps_dso__open_object(m.dso, w->u->paths);
	if (fd < 0) {
		m.dso->unwind_refused = true;
		return false;
	}
	dwfl_report_begin_add(s->dwfl);
	mod = dwfl_report_elf(s->dwfl, m.dso->name, m.dso->name, fd, m.start - m.pgoff, false);
	if (!mod)
		close(fd); /* on failure the descriptor stays ours */
	dwfl_report_end(s->dwfl, NULL, NULL);
	return mod && dwfl_addrmodule(s->dwfl, pc) == mod;
}

static int frame_callback(Dwfl_Frame *state, void *arg)
{
	struct walk *w = arg;
	Dwarf_Addr pc;
	bool activation;

	w->refused = false;
	if (!dwfl_frame_pc(state, &pc, &activation) || pc == 0)
		return DWARF_CB_ABORT;
	if (!activation)
		pc--;
	if (!w->past_first) {
		w->past_first = true; /* the sample's ip, written already */
		return DWARF_CB_OK;
	}
	w->ips[w->n++] = pc;
	if (w->n >= w->max)
		return DWARF_CB_ABORT;
	/* the caller's object, before its CFI is looked for */
	report(w, pc);
	return DWARF_CB_OK;
}

bool ps_unwind__usable(const struct ps_sample *smp)
{
	uint64_t need = (1ull << PERF_SP) | (1ull << PERF_IP);

	return (smp->type & PERF_SAMPLE_REGS_USER) && (smp->type & PERF_SAMPLE_STACK_USER) &&
	       smp->regs_user_abi == PERF_SAMPLE_REGS_ABI_64 && smp->attr &&
	       (smp->attr->sample_regs_user & need) == need && smp->regs_user &&
	       smp->nr_regs_user == (uint64_t)__builtin_popcountll(smp->attr->sample_regs_user) &&
	       smp->stack_user && smp->stack_size && !smp->swap;
}

size_t ps_unwind__sample(struct ps_unwind *u, const struct ps_sample *smp, uint64_t *ips,
                         size_t max)
{
	uint64_t mask = smp->attr->sample_regs_user, perf_regs[64] = { 0 }, gen, dyn;
	struct ps_unwind_map m;
	struct walk w = { 0 };
	unsigned int bit, k = 0;
	size_t i;
	int rc;

	if (max > PS_UNWIND_MAX_FRAMES)
		max = PS_UNWIND_MAX_FRAMES;
	if (!max)
		return 0;
	for (bit = 0; bit < 64 && k < smp->nr_regs_user; bit++)
		if (mask & (1ull << bit))
			perf_regs[bit] = ps_get64(smp->regs_user + 8 * k++, smp->swap);
	for (i = 0; i < NR_DWARF_REGS; i++)
		w.regs[i] = perf_regs[dwarf_to_perf[i]];
	w.u = u;
	w.pid = smp->pid;
	w.ips = ips;
	w.max = max;
	w.sp = perf_regs[PERF_SP];
	w.stack = smp->stack_user;
	dyn = smp->stack_dyn_size;
	w.stack_len = dyn && dyn < smp->stack_size ? dyn : smp->stack_size;
	ips[w.n++] = perf_regs[PERF_IP];
	if (w.n >= max || !u->map(u->ctx, w.pid, perf_regs[PERF_IP], &m, &gen))
		return w.n;
	w.ss = session__get(u, w.pid, gen);
	if (!w.ss || !report(&w, perf_regs[PERF_IP]))
		return w.n;
	u->cur = &w;
	if (!w.ss->attached) {
		if (!dwfl_attach_state(w.ss->dwfl, NULL, w.pid ? (pid_t)w.pid : 1,
		                       &thread_callbacks, u)) {
			u->cur = NULL;
			session__end(w.ss);
			return w.n;
		}
		w.ss->attached = true;
	}
	/* the first frame is the ip already written: frame_callback skips it */
	rc = dwfl_getthread_frames(w.ss->dwfl, w.pid ? (pid_t)w.pid : 1, frame_callback, &w);
	u->cur = NULL;
	/*
	 * A return address past the end of the copy: perf's unwinder shows one more frame, at
	 * address 0 minus one ("[unknown]"), and so do we.
	 */
	if (rc >= 0 && w.refused && w.n < max)
		ips[w.n++] = UINT64_MAX;
	return w.n;
}

struct ps_unwind *ps_unwind__new(const struct ps_dso_paths *paths, ps_unwind_map_fn map, void *ctx)
{
	struct ps_unwind *u = calloc(1, sizeof(*u));

	if (!u)
		return NULL;
	u->paths = paths;
	u->map = map;
	u->ctx = ctx;
	return u;
}

void ps_unwind__delete(struct ps_unwind *u)
{
	if (!u)
		return;
	for (size_t i = 0; i < MAX_SESSIONS; i++)
		session__end(&u->sessions[i]);
	free(u);
}

void ps_unwind__stats(const struct ps_unwind *u, size_t *nr_sessions, uint64_t *started)
{
	size_t n = 0;

	for (size_t i = 0; i < MAX_SESSIONS; i++)
		n += u->sessions[i].dwfl != NULL;
	if (nr_sessions)
		*nr_sessions = n;
	if (started)
		*started = u->started;
}

/* ---- inlined functions ---- */

struct inline_entry {
	uint64_t vaddr;
	bool valid;
	uint8_t n;
	const char *names[INLINE_MAX];
};

struct ps_dwarf {
	Dwfl *dwfl;
	Dwfl_Module *mod;
	/* a separate debug file opened here, some sections left compressed; else NULL and
	 * the module's own DWARF (dwfl_module_getdwarf) */
	Dwarf *dbg;
	Elf *elf;
	int fd;
	struct inline_entry *cache;
};

/*
 * Debug sections the inline lookup never reads (scopes, names and ranges are all it
 * needs).  libdw inflates every compressed debug section it knows when it opens a file,
 * and Debian's debug files are compressed: a third of libc's is line tables and location
 * lists.  They are marked as holding nothing, in a private copy of the section headers.
 */
static bool unread_section(const char *name)
{
	static const char *const names[] = { "line",  "loclists", "loc",      "macro", "macinfo",
		                             "frame", "pubnames", "pubtypes", "names" };

	if (strncmp(name, ".debug_", 7) == 0)
		name += 7;
	else if (strncmp(name, ".zdebug_", 8) == 0)
		name += 8;
	else
		return false;
	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (strcmp(name, names[i]) == 0)
			return true;
	return false;
}

/*
 * Whether @elf has no section named @want; with @hide, the unread sections are marked
 * empty on the way (only in an Elf opened ELF_C_READ_MMAP_PRIVATE: its headers are a
 * private copy).  False too when the headers cannot be read.
 */
static bool lacks(Elf *elf, const char *want, bool hide)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_kind(elf) != ELF_K_ELF || elf_getshdrstrndx(elf, &shstrndx) < 0)
		return false;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr shdr;
		const char *name;

		if (!gelf_getshdr(scn, &shdr) || !(name = elf_strptr(elf, shstrndx, shdr.sh_name)))
			continue;
		if (strcmp(name, want) == 0)
			return false;
		if (hide && shdr.sh_type == SHT_PROGBITS && unread_section(name)) {
			shdr.sh_type = SHT_NOBITS;
			if (!gelf_update_shdr(scn, &shdr))
				return false;
		}
	}
	return true;
}

/* The module's separate debug file, opened with the sections it does not need hidden;
 * false when it has none or one that libdw must open itself (dwz's shared file). */
static bool open_debug_file(struct ps_dwarf *dw, const char *name)
{
	GElf_Addr bias;
	Elf *main_elf = dwfl_module_getelf(dw->mod, &bias);
	const char *link;
	GElf_Word crc = 0;
	void **ud = NULL;
	char *path = NULL;

	if (!main_elf || bias != 0)
		return false;
	/* the object's own DWARF is not compressed by the usual builds: libdw opens that */
	if (!lacks(main_elf, ".debug_info", false))
		return false;
	link = dwelf_elf_gnu_debuglink(main_elf, &crc);
	if (!dwfl_module_info(dw->mod, &ud, NULL, NULL, NULL, NULL, NULL, NULL))
		return false;
	dw->fd = dwfl_standard_find_debuginfo(dw->mod, ud, name, 0, name, link, crc, &path);
	free(path);
	if (dw->fd < 0)
		return false;
	dw->elf = elf_begin(dw->fd, ELF_C_READ_MMAP_PRIVATE, NULL);
	if (dw->elf && lacks(dw->elf, ".gnu_debugaltlink", true))
		dw->dbg = dwarf_begin_elf(dw->elf, DWARF_C_READ, NULL);
	if (dw->dbg)
		return true;
	if (dw->elf)
		elf_end(dw->elf);
	dw->elf = NULL;
	close(dw->fd);
	dw->fd = -1;
	return false;
}

struct ps_dwarf *ps_dwarf__open(struct ps_dso *d, const struct ps_dso_paths *p)
{
	struct ps_dwarf *dw;
	Dwarf_Addr bias;
	int fd = d->kind == PS_DSO_VDSO ? -1 : ps_dso__open_object(d, p); /* no DWARF there */

	if (fd < 0)
		return NULL;
	dw = calloc(1, sizeof(*dw));
	if (!dw) {
		close(fd);
		return NULL;
	}
	dw->fd = -1;
	dw->dwfl = dwfl_begin(&dwfl_callbacks);
	if (!dw->dwfl) {
		close(fd);
		goto fail;
	}
	dwfl_report_begin(dw->dwfl);
	/* at the object's own addresses: a bias of 0 */
	dw->mod = dwfl_report_elf(dw->dwfl, d->name, d->name, fd, 0, true);
	if (!dw->mod)
		close(fd);
	dwfl_report_end(dw->dwfl, NULL, NULL);
	if (!dw->mod || (!open_debug_file(dw, d->name) && !dwfl_module_getdwarf(dw->mod, &bias)))
		goto fail;
	dw->cache = calloc(INLINE_CACHE, sizeof(*dw->cache));
	if (!dw->cache)
		goto fail;
	return dw;
fail:
	ps_dwarf__close(dw);
	return NULL;
}

void ps_dwarf__close(struct ps_dwarf *dw)
{
	if (!dw)
		return;
	if (dw->dbg)
		dwarf_end(dw->dbg);
	if (dw->elf)
		elf_end(dw->elf);
	if (dw->fd >= 0)
		close(dw->fd);
	if (dw->dwfl)
		dwfl_end(dw->dwfl);
	free(dw->cache);
	free(dw);
}

/* a function's name as addr2line gives it: the linkage name, else the name */
static const char *die_name(Dwarf_Die *die)
{
	static const int attrs[] = { DW_AT_linkage_name, DW_AT_MIPS_linkage_name, DW_AT_name };
	Dwarf_Attribute a;

	for (size_t i = 0; i < ARRAY_SIZE(attrs); i++) {
		const char *s;

		if (dwarf_attr_integrate(die, attrs[i], &a) && (s = dwarf_formstring(&a)) && *s)
			return s;
	}
	return NULL;
}

/*
 * The innermost function or inlined instance holding @vaddr, then its parents in the
 * concrete tree (dwarf_getscopes() leaves an inlined instance for its abstract origin's
 * scopes, which are not the caller's).
 */
static size_t lookup(struct ps_dwarf *dw, uint64_t vaddr, const char **names, size_t max)
{
	Dwarf_Die *cu, *scopes = NULL, *chain = NULL, cu_die;
	Dwarf_Addr bias = 0;
	size_t n = 0;
	int nr, i;

	cu = dw->dbg ? dwarf_addrdie(dw->dbg, vaddr, &cu_die) :
	               dwfl_module_addrdie(dw->mod, vaddr, &bias);
	if (!cu)
		return 0;
	nr = dwarf_getscopes(cu, vaddr - bias, &scopes);
	for (i = 0; i < nr; i++) {
		int tag = dwarf_tag(&scopes[i]);

		if (tag == DW_TAG_inlined_subroutine || tag == DW_TAG_subprogram)
			break;
	}
	if (i < nr && dwarf_tag(&scopes[i]) == DW_TAG_subprogram) {
		/*
		 * Aliases an assembler describes as sibling functions over the same code
		 * (munmap, __munmap, __GI_munmap): addr2line names the last, so do we.
		 */
		Dwarf_Die sib = scopes[i], next;

		for (int k = 0;
		     k < 16 && dwarf_siblingof(&sib, &next) == 0 &&
		     dwarf_tag(&next) == DW_TAG_subprogram && dwarf_haspc(&next, vaddr - bias) == 1;
		     k++)
			sib = next;
		scopes[i] = sib;
	}
	if (i < nr)
		nr = dwarf_getscopes_die(&scopes[i], &chain);
	else
		nr = 0;
	for (i = 0; i < nr && n < max; i++) {
		int tag = dwarf_tag(&chain[i]);
		const char *name;

		if (tag != DW_TAG_inlined_subroutine && tag != DW_TAG_subprogram)
			continue;
		name = die_name(&chain[i]);
		names[n++] = name ? name : "??";
		if (tag == DW_TAG_subprogram)
			break;
	}
	free(chain);
	free(scopes);
	return n;
}

size_t ps_dwarf__inlines(struct ps_dwarf *dw, uint64_t vaddr, const char **names, size_t max)
{
	struct inline_entry *e = &dw->cache[(vaddr ^ (vaddr >> 12)) % INLINE_CACHE];
	size_t n;

	if (!e->valid || e->vaddr != vaddr) {
		e->vaddr = vaddr;
		e->n = (uint8_t)lookup(dw, vaddr, e->names, INLINE_MAX);
		e->valid = true;
	}
	n = e->n < max ? e->n : max;
	memcpy(names, e->names, n * sizeof(*names));
	return n;
}
