// SPDX-License-Identifier: GPL-2.0-only
/*
 * recorder_self.c - which samples belong to the recorder's own pipeline.
 *
 * The pipeline is the recorder's process group (a shell puts the programs of one pipeline
 * in one group).  The workload the recorder started is in that group too, but it is what
 * the user wants to see, so it and its descendants are kept.  A process is classified once,
 * from /proc/PID/stat (its group, and its parents up to the workload), and the verdict is
 * remembered; a FORK record hands the parent's verdict to the child, so a short-lived
 * child is classified even after it is gone.  The table is bounded: past REC_SELF_MAX
 * entries it is emptied and refilled.
 */
#include <dirent.h>
#include <search.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "recorder_int.h"

#define REC_SELF_MAX 65536
#define REC_SELF_INITIAL 64 /* pids put in the kernel filter */

enum verdict {
	KEEP,
	DROP,
	WORKLOAD, /* keep, and so its children */
};

struct verdict_entry {
	pid_t pid;
	enum verdict v;
};

struct rec_self {
	pid_t pgid;
	pid_t workload;
	void *root;
	size_t n;
	pid_t initial[REC_SELF_INITIAL];
	size_t nr_initial;
};

static int cmp(const void *a, const void *b)
{
	pid_t x = ((const struct verdict_entry *)a)->pid,
	      y = ((const struct verdict_entry *)b)->pid;

	return (x > y) - (x < y);
}

/* the ppid and process group of @pid from /proc/PID/stat; -1 when it is gone */
static int stat_of(pid_t pid, pid_t *ppid, pid_t *pgrp)
{
	char path[64], buf[1024], *p;
	FILE *fp;
	int pp, pg;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fp = fopen(path, "re");
	if (!fp)
		return -1;
	p = fgets(buf, sizeof(buf), fp);
	fclose(fp);
	if (!p)
		return -1;
	p = strrchr(buf, ')'); /* the comm may hold anything, ')' included */
	if (!p || sscanf(p + 1, " %*c %d %d", &pp, &pg) != 2)
		return -1;
	*ppid = pp;
	*pgrp = pg;
	return 0;
}

static enum verdict classify(struct rec_self *s, pid_t pid)
{
	pid_t ppid, pgrp, p = pid;
	int depth;

	if (pid <= 0 || stat_of(pid, &ppid, &pgrp) < 0 || pgrp != s->pgid)
		return KEEP;
	for (depth = 0; depth < 64 && p > 1; depth++) {
		if (p == s->workload)
			return WORKLOAD;
		if (stat_of(p, &ppid, &pgrp) < 0)
			break;
		p = ppid;
	}
	return DROP;
}

static void set(struct rec_self *s, pid_t pid, enum verdict v)
{
	struct verdict_entry key = { .pid = pid }, *e, **found;

	found = tfind(&key, &s->root, cmp);
	if (found) {
		(*found)->v = v;
		return;
	}
	if (s->n >= REC_SELF_MAX) {
		tdestroy(s->root, free);
		s->root = NULL;
		s->n = 0;
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

static struct verdict_entry *get(struct rec_self *s, pid_t pid)
{
	struct verdict_entry key = { .pid = pid }, **found;

	found = tfind(&key, &s->root, cmp);
	return found ? *found : NULL;
}

struct rec_self *rec_self__new(pid_t workload)
{
	struct rec_self *s = calloc(1, sizeof(*s));
	struct dirent *d;
	DIR *dp;

	if (!s)
		return NULL;
	s->pgid = getpgrp();
	s->workload = workload;
	if (workload)
		set(s, workload, WORKLOAD);
	dp = opendir("/proc");
	if (!dp)
		return s;
	while ((d = readdir(dp)) != NULL) {
		pid_t pid = (pid_t)atoi(d->d_name), ppid, pgrp;

		if (pid <= 0 || stat_of(pid, &ppid, &pgrp) < 0 || pgrp != s->pgid)
			continue;
		if (classify(s, pid) != DROP)
			continue;
		set(s, pid, DROP);
		if (s->nr_initial < REC_SELF_INITIAL)
			s->initial[s->nr_initial++] = pid;
	}
	closedir(dp);
	return s;
}

void rec_self__delete(struct rec_self *s)
{
	if (!s)
		return;
	tdestroy(s->root, free);
	free(s);
}

bool rec_self__drop(struct rec_self *s, pid_t pid)
{
	struct verdict_entry *e = get(s, pid);
	enum verdict v;

	if (e)
		return e->v == DROP;
	v = classify(s, pid);
	set(s, pid, v);
	return v == DROP;
}

void rec_self__fork(struct rec_self *s, pid_t pid, pid_t ppid)
{
	struct verdict_entry *parent;

	if (pid == ppid)
		return; /* a new thread of a process already classified */
	parent = get(s, ppid);
	if (parent)
		set(s, pid, parent->v);
	else
		set(s, pid, classify(s, pid));
}

size_t rec_self__initial(struct rec_self *s, const pid_t **pids)
{
	*pids = s->initial;
	return s->nr_initial;
}
