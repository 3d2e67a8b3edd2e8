// SPDX-License-Identifier: GPL-2.0-only
/*
 * recorder_buildid.c - which binaries the samples hit, and their BUILD_ID records.
 *
 * The code mappings of each process are followed from the MMAP2 records (synthesized and
 * the kernel's), FORK (a new process starts with its parent's), COMM with COMM_EXEC (exec
 * drops them) and EXIT (dropped two rounds later, since other CPUs' rings may still hold
 * samples of the process).  Each user sample address, call chain included, marks the file
 * mapped there; a kernel address marks the kernel.  At the end each file marked gets a
 * BUILD_ID record with the build-id note read from the file with libelf, and the kernel
 * one with the note of /sys/kernel/notes.  Tables are bounded (REC_BIDS_MAX_*); past the
 * bounds addresses are simply not attributed.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <search.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "abi.h"
#include "compat.h"
#include "files.h"
#include "recorder_int.h"
#include "xalloc.h"

#define REC_BIDS_MAX_PROCS 65536
#define REC_BIDS_MAX_MAPS 65536 /* per process */
#define REC_BIDS_MAX_DSOS 65536
#define BUILD_ID_MAX 20
#define MISC_BUILD_ID_SIZE (1u << 15) /* perf: the record says the build-id's size */
#define NAME_ALIGN 64
#define OBJECT_MAX (8ull << 30) /* an object bigger than this is not read */

struct dso {
	char *name;
	uint64_t ino;   /* of the first mapping; 0 when unknown */
	bool ambiguous; /* mapped with another inode too: another file (a container's)? */
	bool hit;
};

struct map {
	uint64_t start, end;
	struct dso *dso;
};

struct proc {
	pid_t pid;
	bool dead;
	uint64_t dead_round;
	struct map *maps;
	uint32_t nr, cap;
};

struct dead {
	pid_t pid;
	uint64_t round;
};

struct rec_bids {
	void *dsos;
	struct dso **list; /* in order of first mapping */
	size_t nr_dsos, list_cap;
	void *procs;
	size_t nr_procs;
	struct proc *last;
	struct dead *dead;
	size_t nr_dead, cap_dead;
	uint64_t round;
	bool kernel_hit;
};

static int cmp_dso(const void *a, const void *b)
{
	return strcmp(((const struct dso *)a)->name, ((const struct dso *)b)->name);
}

static int cmp_proc(const void *a, const void *b)
{
	pid_t x = ((const struct proc *)a)->pid, y = ((const struct proc *)b)->pid;

	return (x > y) - (x < y);
}

static void free_proc(void *p)
{
	struct proc *pr = p;

	free(pr->maps);
	free(pr);
}

static void free_dso(void *p)
{
	(void)p; /* owned by the list */
}

struct rec_bids *ps_rec_bids__new(void)
{
	return calloc(1, sizeof(struct rec_bids));
}

void ps_rec_bids__delete(struct rec_bids *b)
{
	size_t i;

	if (!b)
		return;
	tdestroy(b->procs, free_proc);
	tdestroy(b->dsos, free_dso);
	for (i = 0; i < b->nr_dsos; i++) {
		free(b->list[i]->name);
		free(b->list[i]);
	}
	free(b->list);
	free(b->dead);
	free(b);
}

static struct dso *dso_findnew(struct rec_bids *b, const char *name)
{
	struct dso key = { .name = (char *)name }, *d, **found;

	found = tfind(&key, &b->dsos, cmp_dso);
	if (found)
		return *found;
	if (b->nr_dsos >= REC_BIDS_MAX_DSOS ||
	    ps_grow((void **)&b->list, &b->list_cap, b->nr_dsos + 1, sizeof(*b->list), 16))
		return NULL;
	d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	d->name = strdup(name);
	if (!d->name || !tsearch(d, &b->dsos, cmp_dso)) {
		free(d->name);
		free(d);
		return NULL;
	}
	b->list[b->nr_dsos++] = d;
	return d;
}

static struct proc *proc_find(struct rec_bids *b, pid_t pid)
{
	struct proc key = { .pid = pid }, **found;

	if (b->last && b->last->pid == pid)
		return b->last;
	found = tfind(&key, &b->procs, cmp_proc);
	if (!found)
		return NULL;
	b->last = *found;
	return *found;
}

static struct proc *proc_findnew(struct rec_bids *b, pid_t pid)
{
	struct proc *p = proc_find(b, pid);

	if (p)
		return p;
	if (b->nr_procs >= REC_BIDS_MAX_PROCS)
		return NULL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->pid = pid;
	if (!tsearch(p, &b->procs, cmp_proc)) {
		free(p);
		return NULL;
	}
	b->nr_procs++;
	b->last = p;
	return p;
}

static void proc_remove(struct rec_bids *b, struct proc *p)
{
	if (b->last == p)
		b->last = NULL;
	tdelete(p, &b->procs, cmp_proc);
	free_proc(p);
	b->nr_procs--;
}

/* index of the first map whose start is above @addr */
static uint32_t upper(const struct proc *p, uint64_t addr)
{
	return (uint32_t)ps_upper_bound(p->maps, p->nr, sizeof(p->maps[0]),
	                                offsetof(struct map, start), addr);
}

static void insert_map(struct proc *p, uint64_t start, uint64_t end, struct dso *d)
{
	uint32_t i, j, k;

	/* a new mapping replaces whatever it overlaps */
	for (i = 0, k = 0; i < p->nr; i++) {
		if (p->maps[i].start < end && p->maps[i].end > start)
			continue;
		p->maps[k++] = p->maps[i];
	}
	p->nr = k;
	if (p->nr == p->cap) {
		uint32_t cap = p->cap ? 2 * p->cap : 16;
		struct map *nm;

		if (p->nr >= REC_BIDS_MAX_MAPS)
			return;
		nm = ps_realloc_array(p->maps, cap, sizeof(*nm));
		if (!nm)
			return;
		p->maps = nm;
		p->cap = cap;
	}
	j = upper(p, start);
	memmove(p->maps + j + 1, p->maps + j, (p->nr - j) * sizeof(*p->maps));
	p->maps[j].start = start;
	p->maps[j].end = end;
	p->maps[j].dso = d;
	p->nr++;
}

void ps_rec_bids__mmap(struct rec_bids *b, pid_t pid, uint64_t start, uint64_t len, uint64_t ino,
                       const char *filename)
{
	struct proc *p;
	struct dso *d;

	if (!len || start + len < start)
		return;
	p = proc_findnew(b, pid);
	d = dso_findnew(b, filename);
	if (!p || !d)
		return;
	if (!d->ino)
		d->ino = ino;
	else if (ino && ino != d->ino)
		d->ambiguous = true;
	insert_map(p, start, start + len, d);
}

void ps_rec_bids__fork(struct rec_bids *b, pid_t pid, pid_t ppid)
{
	struct proc *parent, *child;

	if (pid == ppid)
		return; /* a thread: it shares its process's maps */
	child = proc_findnew(b, pid);
	if (!child)
		return;
	child->dead = false;
	child->nr = 0;
	parent = proc_find(b, ppid);
	if (!parent || !parent->nr)
		return;
	if (child->cap < parent->nr) {
		struct map *nm = ps_realloc_array(child->maps, parent->nr, sizeof(*nm));

		if (!nm)
			return;
		child->maps = nm;
		child->cap = parent->nr;
	}
	memcpy(child->maps, parent->maps, parent->nr * sizeof(*child->maps));
	child->nr = parent->nr;
}

void ps_rec_bids__exec(struct rec_bids *b, pid_t pid)
{
	struct proc *p = proc_find(b, pid);

	if (p)
		p->nr = 0;
}

void ps_rec_bids__exit(struct rec_bids *b, pid_t pid)
{
	struct proc *p = proc_find(b, pid);

	if (!p || p->dead)
		return;
	if (b->nr_dead == b->cap_dead) {
		size_t cap = b->cap_dead ? 2 * b->cap_dead : 64;
		struct dead *nd = ps_realloc_array(b->dead, cap, sizeof(*nd));

		if (!nd)
			return; /* kept: memory over accuracy */
		b->dead = nd;
		b->cap_dead = cap;
	}
	p->dead = true;
	p->dead_round = b->round;
	b->dead[b->nr_dead].pid = pid;
	b->dead[b->nr_dead].round = b->round;
	b->nr_dead++;
}

void ps_rec_bids__round(struct rec_bids *b)
{
	size_t i, k = 0;

	b->round++;
	for (i = 0; i < b->nr_dead; i++) {
		struct proc *p;

		if (b->dead[i].round + 2 > b->round) {
			b->dead[k++] = b->dead[i];
			continue;
		}
		p = proc_find(b, b->dead[i].pid);
		if (p && p->dead && p->dead_round == b->dead[i].round)
			proc_remove(b, p);
	}
	b->nr_dead = k;
}

void ps_rec_bids__sample(struct rec_bids *b, pid_t pid, unsigned int cpumode, uint64_t ip)
{
	struct proc *p;
	uint32_t i;

	if (cpumode == PERF_RECORD_MISC_KERNEL) {
		b->kernel_hit = true;
		return;
	}
	if (cpumode != PERF_RECORD_MISC_USER)
		return;
	p = proc_find(b, pid);
	if (!p || !p->nr)
		return;
	i = upper(p, ip);
	if (i && ip < p->maps[i - 1].end)
		p->maps[i - 1].dso->hit = true;
}

static bool note_build_id(const unsigned char *notes, size_t len, unsigned char *id, size_t *idlen)
{
	size_t off = 0;

	while (off + 12 <= len) {
		uint32_t namesz = ps_get32(notes + off, false);
		uint32_t descsz = ps_get32(notes + off + 4, false);
		uint32_t type = ps_get32(notes + off + 8, false);
		size_t name = off + 12, desc = name + ((namesz + 3) & ~3u);

		if (desc > len || descsz > len - desc)
			return false;
		if (type == NT_GNU_BUILD_ID && namesz == 4 && memcmp(notes + name, "GNU", 4) == 0 &&
		    descsz > 0) {
			*idlen = descsz < BUILD_ID_MAX ? descsz : BUILD_ID_MAX;
			memcpy(id, notes + desc, *idlen);
			return true;
		}
		off = desc + ((descsz + 3) & ~3u);
	}
	return false;
}

static bool data_build_id(Elf_Data *data, unsigned char *id, size_t *idlen)
{
	size_t off = 0, next, name_off, desc_off;
	GElf_Nhdr nh;

	if (!data)
		return false;
	while ((next = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 && nh.n_descsz > 0 &&
		    memcmp((const char *)data->d_buf + name_off, "GNU", 4) == 0) {
			*idlen = nh.n_descsz < BUILD_ID_MAX ? nh.n_descsz : BUILD_ID_MAX;
			memcpy(id, (const char *)data->d_buf + desc_off, *idlen);
			return true;
		}
		off = next;
	}
	return false;
}

static bool file_build_id(const char *path, unsigned char *id, size_t *idlen)
{
	Elf_Scn *scn = NULL;
	bool found = false;
	size_t phnum, i;
	const char *why;
	Elf *elf;
	int fd;

	/* a recorded process names its objects: a FIFO or a device there must not stop
	 * precord, nor a device's open run as root */
	fd = ps_file__open_named(path, OBJECT_MAX, &why);
	if (fd < 0)
		return false;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF)
		goto out;
	while (!found && (scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;

		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_NOTE)
			found = data_build_id(elf_getdata(scn, NULL), id, idlen);
	}
	/* no section headers (stripped hard): the program headers' notes */
	if (!found && elf_getphdrnum(elf, &phnum) == 0) {
		for (i = 0; !found && i < phnum; i++) {
			GElf_Phdr ph;

			if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_NOTE)
				found = data_build_id(elf_getdata_rawchunk(elf,
				                                           (int64_t)ph.p_offset,
				                                           ph.p_filesz, ELF_T_NHDR),
				                      id, idlen);
		}
	}
out:
	elf_end(elf);
	close(fd);
	return found;
}

static bool kernel_build_id(unsigned char *id, size_t *idlen)
{
	char *buf;
	size_t len;
	bool found;

	if (ps_rec_read_file("/sys/kernel/notes", &buf, &len, 1u << 20) < 0)
		return false;
	found = note_build_id((const unsigned char *)buf, len, id, idlen);
	free(buf);
	return found;
}

static int put_build_id(struct ps_output *out, uint16_t cpumode, const char *name,
                        const unsigned char *id, size_t idlen, struct ps_error *err)
{
	struct ps_bytes b;
	size_t nlen = strlen(name) + 1, padded = (nlen + NAME_ALIGN - 1) / NAME_ALIGN * NAME_ALIGN;
	int ret;

	b = (struct ps_bytes){ .max = REC_MAX_RECORD };
	ps_bytes__u32(&b, (uint32_t)-1); /* the host machine */
	ps_bytes__put(&b, id, idlen);
	ps_bytes__zero(&b, BUILD_ID_MAX - idlen);
	ps_bytes__put(&b, (const unsigned char[]){ (unsigned char)idlen, 0, 0, 0 }, 4);
	ps_bytes__put(&b, name, nlen);
	ps_bytes__zero(&b, padded - nlen);
	if (b.failed) {
		ps_bytes__release(&b);
		return 0; /* a path too long for one record: left out */
	}
	ret = ps_rec_put_record(out, PS_RECORD_HEADER_BUILD_ID, cpumode | MISC_BUILD_ID_SIZE, b.p,
	                        b.len, err);
	ps_bytes__release(&b);
	return ret;
}

int ps_rec_bids__write(struct rec_bids *b, struct ps_output *out, struct ps_error *err)
{
	unsigned char id[BUILD_ID_MAX];
	size_t i, idlen;

	elf_version(EV_CURRENT);
	for (i = 0; i < b->nr_dsos; i++) {
		const struct dso *d = b->list[i];
		struct stat st;

		if (!d->hit || d->name[0] != '/' || strstr(d->name, " (deleted)") || d->ambiguous)
			continue; /* [vdso], //anon, memfd:...: no file to read */
		/* the file at that path now must be the one that was mapped */
		if (stat(d->name, &st) < 0 || (d->ino && st.st_ino != d->ino))
			continue;
		if (!file_build_id(d->name, id, &idlen))
			continue;
		if (put_build_id(out, PERF_RECORD_MISC_USER, d->name, id, idlen, err) < 0)
			return -1;
	}
	if (b->kernel_hit && kernel_build_id(id, &idlen) &&
	    put_build_id(out, PERF_RECORD_MISC_KERNEL, "[kernel.kallsyms]", id, idlen, err) < 0)
		return -1;
	return 0;
}
