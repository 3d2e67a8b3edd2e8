// SPDX-License-Identifier: GPL-2.0-only
/*
 * recorder_self.c - which samples belong to the recorder's own pipeline.
 *
 * The pipeline is the recorder and the processes connected to the pipe it writes the stream
 * into: the process that reads it (pcount), and, downstream, the process that reads the
 * pipe a reader writes its own output into (precord | pfilter | pcount), found through
 * /proc/PID/fd when recording starts.  Not the process group: in a
 * script, that is the whole script, the workload it started in the background included.
 * Processes started later by one of them are the pipeline's too (a FORK record hands the
 * parent's verdict to the child, and a process not seen before takes its parent's verdict
 * from /proc/PID/stat), threads with their process.  The workload the recorder started is
 * what the user wants to see: it and its descendants are kept.  Each verdict is
 * remembered; the table is bounded: past REC_SELF_MAX entries it is emptied and refilled,
 * the processes found at the start kept.
 */
#include <dirent.h>
#include <search.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "recorder_int.h"

#define REC_SELF_MAX 65536
#define REC_SELF_INITIAL 64  /* pids put in the kernel filter */
#define REC_SELF_PIPES 64    /* pipes of the pipeline followed */
#define REC_SELF_WAIT_MS 500 /* for the reader of a pipe to be there */

enum verdict {
	KEEP,
	DROP,
	WORKLOAD, /* keep, and so its children */
};

struct verdict_entry {
	pid_t pid;
	enum verdict v;
};

/* a process that has descriptors on pipes, as found in /proc when recording starts */
struct proc_pipes {
	pid_t pid, ppid;
	size_t n;
	struct pipe_fd {
		int fd;
		dev_t dev;
		ino_t ino;
	} * fds;
};

struct rec_self {
	pid_t workload;
	void *root;
	size_t n;
	pid_t initial[REC_SELF_INITIAL];
	size_t nr_initial;
	struct ps_recorder_proc found[PS_RECORDER_MAX_SELF];
	size_t nr_found;   /* named in found[] */
	size_t nr_more;    /* found when recording started, past found[] */
	size_t nr_later;   /* left out since: processes they started */
	pid_t *start_drop; /* every pid left out at the start, for a refill */
	size_t nr_start_drop;
};

static int cmp(const void *a, const void *b)
{
	pid_t x = ((const struct verdict_entry *)a)->pid,
	      y = ((const struct verdict_entry *)b)->pid;

	return (x > y) - (x < y);
}

/* the ppid of @pid from /proc/PID/stat; -1 when it is gone */
static pid_t ppid_of(pid_t pid)
{
	char path[64], buf[1024], *p;
	FILE *fp;
	int pp;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fp = fopen(path, "re");
	if (!fp)
		return -1;
	p = fgets(buf, sizeof(buf), fp);
	fclose(fp);
	if (!p)
		return -1;
	p = strrchr(buf, ')'); /* the comm may hold anything, ')' included */
	if (!p || sscanf(p + 1, " %*c %d", &pp) != 1)
		return -1;
	return pp;
}

static struct verdict_entry *get(struct rec_self *s, pid_t pid)
{
	struct verdict_entry key = { .pid = pid }, **found;

	found = tfind(&key, &s->root, cmp);
	return found ? *found : NULL;
}

static void set(struct rec_self *s, pid_t pid, enum verdict v)
{
	struct verdict_entry key = { .pid = pid }, *e, **found;
	size_t i;

	found = tfind(&key, &s->root, cmp);
	if (found) {
		(*found)->v = v;
		return;
	}
	if (s->n >= REC_SELF_MAX) {
		/* refilled with what cannot be found again: the start's verdicts */
		tdestroy(s->root, free);
		s->root = NULL;
		s->n = 0;
		if (s->workload)
			set(s, s->workload, WORKLOAD);
		for (i = 0; i < s->nr_start_drop; i++)
			set(s, s->start_drop[i], DROP);
	}
	e = malloc(sizeof(*e));
	if (!e)
		return;
	e->pid = pid;
	e->v = v;
	if (!tsearch(e, &s->root, cmp)) {
		free(e);
		return;
	}
	s->n++;
}

/* A process first seen now: its parent's verdict when the parent has one, else kept. */
static enum verdict classify(struct rec_self *s, pid_t pid)
{
	struct verdict_entry *parent;
	pid_t ppid = pid > 0 ? ppid_of(pid) : -1;

	parent = ppid > 0 ? get(s, ppid) : NULL;
	if (parent && parent->v == DROP) {
		s->nr_later++;
		return DROP;
	}
	return parent && parent->v == WORKLOAD ? WORKLOAD : KEEP;
}

/* ---- the pipeline, when recording starts ---- */

static void procs_free(struct proc_pipes *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i].fds);
	free(v);
}

/* every process with descriptors on pipes or FIFOs, and its parent */
static struct proc_pipes *procs_read(size_t *np)
{
	struct proc_pipes *v = NULL;
	size_t n = 0, cap = 0;
	struct dirent *d;
	DIR *dp = opendir("/proc");

	*np = 0;
	if (!dp)
		return NULL;
	while ((d = readdir(dp)) != NULL) {
		pid_t pid = (pid_t)atoi(d->d_name);
		struct proc_pipes p = { .pid = pid };
		size_t fcap = 0;
		struct dirent *f;
		char path[64];
		DIR *fdp;

		if (pid <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
		fdp = opendir(path);
		if (!fdp)
			continue; /* gone, or not ours to look at */
		while ((f = readdir(fdp)) != NULL) {
			int fd = atoi(f->d_name);
			struct stat st;
			char fpath[96];

			if (f->d_name[0] < '0' || f->d_name[0] > '9')
				continue;
			snprintf(fpath, sizeof(fpath), "/proc/%d/fd/%d", (int)pid, fd);
			if (stat(fpath, &st) < 0 || !S_ISFIFO(st.st_mode))
				continue;
			if (p.n == fcap) {
				struct pipe_fd *nf;

				fcap = fcap ? 2 * fcap : 8;
				nf = realloc(p.fds, fcap * sizeof(*nf));
				if (!nf)
					break;
				p.fds = nf;
			}
			p.fds[p.n++] = (struct pipe_fd){ fd, st.st_dev, st.st_ino };
		}
		closedir(fdp);
		p.ppid = ppid_of(pid);
		if (n == cap) {
			struct proc_pipes *nv;

			cap = cap ? 2 * cap : 256;
			nv = realloc(v, cap * sizeof(*nv));
			if (!nv) {
				free(p.fds);
				break;
			}
			v = nv;
		}
		v[n++] = p;
	}
	closedir(dp);
	*np = n;
	return v;
}

struct pipes {
	struct pipe_fd v[REC_SELF_PIPES];
	size_t n;
};

static bool pipes_has(const struct pipes *ps, const struct pipe_fd *f)
{
	size_t i;

	for (i = 0; i < ps->n; i++)
		if (ps->v[i].dev == f->dev && ps->v[i].ino == f->ino)
			return true;
	return false;
}

static void pipes_add(struct pipes *ps, const struct pipe_fd *f)
{
	if (ps->n < REC_SELF_PIPES && !pipes_has(ps, f))
		ps->v[ps->n++] = *f;
}

/* Process @pid is the pipeline's: left out, named, and in the kernel filter with its
 * threads. */
static void take(struct rec_self *s, pid_t pid)
{
	struct ps_recorder_proc *p;
	pid_t *nd;
	char path[64];
	struct dirent *d;
	DIR *dp;
	FILE *fp;

	if (get(s, pid))
		return;
	set(s, pid, DROP);
	nd = realloc(s->start_drop, (s->nr_start_drop + 1) * sizeof(*nd));
	if (nd) {
		s->start_drop = nd;
		s->start_drop[s->nr_start_drop++] = pid;
	}
	if (s->nr_found < PS_RECORDER_MAX_SELF) {
		p = &s->found[s->nr_found++];
		p->pid = pid;
		p->comm[0] = 0;
		snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
		fp = fopen(path, "re");
		if (fp) {
			if (fgets(p->comm, sizeof(p->comm), fp))
				p->comm[strcspn(p->comm, "\n")] = 0;
			fclose(fp);
		}
	} else {
		s->nr_more++;
	}
	/* the kernel filter compares thread ids */
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	dp = opendir(path);
	while (dp && (d = readdir(dp)) != NULL) {
		pid_t tid = (pid_t)atoi(d->d_name);

		if (tid > 0 && s->nr_initial < REC_SELF_INITIAL)
			s->initial[s->nr_initial++] = tid;
	}
	if (dp)
		closedir(dp);
	else if (s->nr_initial < REC_SELF_INITIAL)
		s->initial[s->nr_initial++] = pid;
}

/* Whether a process other than this one has the pipe @out as its standard input. */
static bool has_reader(const struct pipe_fd *out)
{
	struct dirent *d;
	DIR *dp = opendir("/proc");
	pid_t self = getpid();
	bool found = false;

	if (!dp)
		return true; /* nothing to wait for */
	while (!found && (d = readdir(dp)) != NULL) {
		pid_t pid = (pid_t)atoi(d->d_name);
		char path[64];
		struct stat st;

		if (pid <= 0 || pid == self)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/fd/0", (int)pid);
		found = stat(path, &st) == 0 && st.st_dev == out->dev && st.st_ino == out->ino;
	}
	closedir(dp);
	return found;
}

/*
 * A shell starts the two sides of "precord | pcount" one after the other: on a busy
 * machine the recorder can look before its reader exists, and would then record it.  When
 * the stream goes into an anonymous pipe (standard output), wait a little for a process
 * that reads it.  A reader that holds it on another descriptor (pcat <(precord ...)) is
 * not waited for longer than REC_SELF_WAIT_MS.
 */
static void wait_for_reader(const struct pipe_fd *out)
{
	struct timespec tick = { 0, 5 * 1000 * 1000 };
	struct stat st;
	char link[64];
	ssize_t n;
	int i;

	n = readlink("/proc/self/fd/1", link, sizeof(link) - 1);
	if (n <= 0 || fstat(1, &st) < 0 || st.st_dev != out->dev || st.st_ino != out->ino)
		return;
	link[n] = 0;
	if (strncmp(link, "pipe:", 5) != 0)
		return;
	for (i = 0; i < REC_SELF_WAIT_MS / 5 && !has_reader(out); i++)
		nanosleep(&tick, NULL);
}

/*
 * The processes on the pipes of the pipeline, from the recorder's output on: each one that
 * reads one of them (its standard input) is the pipeline's, and the pipe of its standard
 * output is then the pipeline's too.  A process that holds one on another descriptor is
 * not: the shell reading the last one for a $(...) is the script itself.  Then the
 * processes they had started already (a subshell's).
 */
static void find_pipeline(struct rec_self *s, const struct pipe_fd *out)
{
	struct pipes ps = { .n = 0 };
	struct proc_pipes *v;
	size_t n, i, j, k;
	bool more = true;

	v = procs_read(&n);
	if (out)
		pipes_add(&ps, out);
	while (more) {
		more = false;
		for (i = 0; i < n; i++) {
			bool reads = false;

			for (j = 0; j < v[i].n; j++)
				reads |= v[i].fds[j].fd == 0 && pipes_has(&ps, &v[i].fds[j]);
			if (!reads || get(s, v[i].pid))
				continue;
			take(s, v[i].pid);
			for (j = 0; j < v[i].n; j++)
				if (v[i].fds[j].fd == 1 && !pipes_has(&ps, &v[i].fds[j])) {
					pipes_add(&ps, &v[i].fds[j]);
					more = true;
				}
		}
	}
	/* their children already running (a subshell's), down to any depth */
	for (more = true, k = 0; more && k < 64; k++) {
		more = false;
		for (i = 0; i < n; i++) {
			struct verdict_entry *parent = get(s, v[i].ppid);

			if (!get(s, v[i].pid) && parent && parent->v == DROP) {
				take(s, v[i].pid);
				more = true;
			}
		}
	}
	procs_free(v, n);
}

struct rec_self *ps_rec_self__new(pid_t workload, const struct ps_recorder_config *cfg)
{
	struct rec_self *s = calloc(1, sizeof(*s));
	struct pipe_fd out = { .fd = -1 };

	if (!s)
		return NULL;
	s->workload = workload;
	if (workload)
		set(s, workload, WORKLOAD);
	take(s, getpid());
	if (cfg->out_pipe) {
		out.dev = cfg->out_dev;
		out.ino = cfg->out_ino;
		wait_for_reader(&out);
	}
	find_pipeline(s, cfg->out_pipe ? &out : NULL);
	return s;
}

void ps_rec_self__delete(struct rec_self *s)
{
	if (!s)
		return;
	tdestroy(s->root, free);
	free(s->start_drop);
	free(s);
}

bool ps_rec_self__drop(struct rec_self *s, pid_t pid)
{
	struct verdict_entry *e = get(s, pid);
	enum verdict v;

	if (e)
		return e->v == DROP;
	v = classify(s, pid);
	set(s, pid, v);
	return v == DROP;
}

void ps_rec_self__fork(struct rec_self *s, pid_t pid, pid_t ppid)
{
	struct verdict_entry *parent;

	if (pid == ppid)
		return; /* a new thread of a process already classified */
	parent = get(s, ppid);
	if (parent) {
		struct verdict_entry *e = get(s, pid);

		if (parent->v == DROP && (!e || e->v != DROP))
			s->nr_later++;
		set(s, pid, parent->v);
	} else {
		set(s, pid, classify(s, pid));
	}
}

size_t ps_rec_self__initial(struct rec_self *s, const pid_t **pids)
{
	*pids = s->initial;
	return s->nr_initial;
}

size_t ps_rec_self__found(const struct rec_self *s, const struct ps_recorder_proc **procs,
                          size_t *more, size_t *later)
{
	*procs = s->found;
	*more = s->nr_more;
	*later = s->nr_later;
	return s->nr_found;
}
