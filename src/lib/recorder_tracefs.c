// SPDX-License-Identifier: GPL-2.0-only
/*
 * recorder_tracefs.c - the recorder's side of tracefs: find (or mount) it, turn tracepoint
 * names and globs into events, suggest close names for an unknown one, list what exists,
 * and build the TRACING_DATA blob (STREAM-FORMAT §5) from the formats of the events
 * recorded.
 */
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "recorder_int.h"
#include "xalloc.h"
#include "text.h"

#define MAX_EVENTS_FILE (16u << 20)
#define MAX_FORMAT (1u << 20)

static const char *const roots[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };

static bool has_events(const char *root)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/events/header_page", root);
	return access(path, F_OK) == 0;
}

static int find_root(char *out, size_t outlen, bool may_mount, struct ps_error *err)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(roots); i++) {
		if (has_events(roots[i])) {
			snprintf(out, outlen, "%s", roots[i]);
			return 0;
		}
	}
	/* as perf does: mount it when we may */
	if (may_mount && geteuid() == 0 && mount("nodev", roots[0], "tracefs", 0, NULL) == 0 &&
	    has_events(roots[0])) {
		snprintf(out, outlen, "%s", roots[0]);
		return 0;
	}
	if (geteuid() != 0 && access("/sys/kernel/tracing", R_OK | X_OK) < 0 && errno == EACCES)
		return ps_error__set(
		        err, PS_ESYS, NULL, PS_NO_OFFSET,
		        "cannot read tracefs at /sys/kernel/tracing: permission denied; tracepoints need root (or a tracefs readable by you)");
	return ps_error__set(
	        err, PS_ESYS, NULL, PS_NO_OFFSET,
	        "tracefs is not mounted at /sys/kernel/tracing; mount it as root: mount -t tracefs nodev /sys/kernel/tracing");
}

/* find tracefs (mounting it when root); Return: 0 or -1 */
static int tracefs_init(struct ps_recorder *r, struct ps_error *err)
{
	if (r->tracefs[0])
		return 0;
	return find_root(r->tracefs, sizeof(r->tracefs), true, err);
}

static bool is_glob(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

static int read_id(const char *root, const char *sys, const char *name, uint64_t *id)
{
	char path[PATH_MAX], *buf, *end;
	size_t len;
	unsigned long long v;

	if ((size_t)snprintf(path, sizeof(path), "%s/events/%s/%s/id", root, sys, name) >=
	    sizeof(path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if (ps_rec_read_file(path, &buf, &len, 64) < 0)
		return -1;
	errno = 0;
	v = strtoull(buf, &end, 10);
	if (errno || end == buf) {
		free(buf);
		errno = EINVAL;
		return -1;
	}
	free(buf);
	*id = v;
	return 0;
}

static int add_tp(struct ps_recorder *r, const char *sys, const char *name, struct ps_error *err)
{
	struct rec_event *e;
	char full[512];
	uint64_t id;

	if (read_id(r->tracefs, sys, name, &id) < 0)
		return ps_error__set(err, PS_ESYS, NULL, PS_NO_OFFSET,
		                     "cannot read the id of tracepoint %s:%s: %s", sys, name,
		                     strerror(errno));
	snprintf(full, sizeof(full), "%s:%s", sys, name);
	e = ps_rec_event__add(r, full);
	if (!e)
		return ps_error__set(err, PS_ENOMEM, NULL, PS_NO_OFFSET, "out of memory");
	e->sys = strdup(sys);
	e->tp = strdup(name);
	if (!e->sys || !e->tp)
		return ps_error__set(err, PS_ENOMEM, NULL, PS_NO_OFFSET, "out of memory");
	e->type = PERF_TYPE_TRACEPOINT;
	e->config = id;
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* the lines of available_events ("sys:name"), sorted; *buf owns the strings */
static int load_available(const char *root, char **buf, char ***names, size_t *nr)
{
	char path[PATH_MAX], *p, *nl, **v = NULL;
	size_t len, n = 0, cap = 0;

	snprintf(path, sizeof(path), "%s/available_events", root);
	if (ps_rec_read_file(path, buf, &len, MAX_EVENTS_FILE) < 0)
		return -1;
	for (p = *buf; p && *p; p = nl) {
		nl = strchr(p, '\n');
		if (nl)
			*nl++ = 0;
		if (!*p || !strchr(p, ':'))
			continue;
		if (n == cap) {
			char **nv;

			cap = cap ? 2 * cap : 1024;
			nv = ps_realloc_array(v, cap, sizeof(*v));
			if (!nv) {
				free(v);
				free(*buf);
				errno = ENOMEM;
				return -1;
			}
			v = nv;
		}
		v[n++] = p;
	}
	if (n)
		qsort(v, n, sizeof(*v), cmp_str);
	*names = v;
	*nr = n;
	return 0;
}

struct cand {
	const char *name;
	size_t score;
};

static void consider(struct cand *best, size_t nbest, const char *spec, const char *name)
{
	const char *colon = strchr(name, ':');
	size_t s = ps_edit_distance(spec, name), i, j;

	/* "sched_switch" for "sched:sched_switch": the system was left out */
	if (colon && !strchr(spec, ':')) {
		size_t t = ps_edit_distance(spec, colon + 1);

		if (t != SIZE_MAX && t + 1 < s)
			s = t + 1;
	}
	if (s == SIZE_MAX)
		return;
	for (i = 0; i < nbest; i++) {
		if (!best[i].name || s < best[i].score) {
			for (j = nbest - 1; j > i; j--)
				best[j] = best[j - 1];
			best[i].name = name;
			best[i].score = s;
			return;
		}
	}
}

/* up to three known event names close to @spec, ", "-separated into @out; Return: how many */
static int suggest(struct ps_recorder *r, const char *spec, char *out, size_t outlen)
{
	struct cand best[3] = { { NULL, 0 } };
	char *buf = NULL, **names = NULL;
	size_t nr = 0, i, limit, used = 0;
	int n = 0;

	out[0] = 0;
	limit = strlen(spec) / 4;
	if (limit < 2)
		limit = 2;
	for (i = 0; i < ps_rec_nr_sw; i++)
		consider(best, ARRAY_SIZE(best), spec, ps_rec_sw_events[i].name);
	if (r->tracefs[0] || find_root(r->tracefs, sizeof(r->tracefs), false, NULL) == 0) {
		if (load_available(r->tracefs, &buf, &names, &nr) == 0) {
			for (i = 0; i < nr; i++)
				consider(best, ARRAY_SIZE(best), spec, names[i]);
		}
	}
	for (i = 0; i < ARRAY_SIZE(best); i++) {
		if (!best[i].name || best[i].score > limit)
			break;
		used += (size_t)snprintf(out + used, used < outlen ? outlen - used : 0, "%s%s",
		                         n ? ", " : "", best[i].name);
		if (used >= outlen) {
			out[outlen - 1] = 0;
			break;
		}
		n++;
	}
	free(names);
	free(buf);
	return n;
}

int ps_rec_tracefs__unknown(struct ps_recorder *r, const char *spec, struct ps_error *err)
{
	char sugg[200];

	if (suggest(r, spec, sugg, sizeof(sugg)) > 0)
		return ps_error__set(
		        err, PS_EUSAGE, NULL, PS_NO_OFFSET,
		        "unknown event '%s'; did you mean %s? ('precord -l' lists the events)",
		        spec, sugg);
	return ps_error__set(err, PS_EUSAGE, NULL, PS_NO_OFFSET,
	                     "unknown event '%s' ('precord -l' lists the events)", spec);
}

int ps_rec_tracefs__add(struct ps_recorder *r, const char *spec, struct ps_error *err)
{
	char sys[256], *name, **names = NULL, *buf = NULL;
	const char *colon = strchr(spec, ':');
	size_t nr = 0, i;
	int added = 0;

	if (!colon || colon == spec || !colon[1] || (size_t)(colon - spec) >= sizeof(sys) ||
	    strchr(spec, '/'))
		return ps_rec_tracefs__unknown(r, spec, err);
	if (tracefs_init(r, err) < 0)
		return -1;
	memcpy(sys, spec, (size_t)(colon - spec));
	sys[colon - spec] = 0;
	name = (char *)colon + 1;

	if (!is_glob(spec)) {
		char path[PATH_MAX];

		snprintf(path, sizeof(path), "%s/events/%s/%s", r->tracefs, sys, name);
		if (access(path, F_OK) < 0) {
			if (errno == EACCES)
				return ps_error__set(
				        err, PS_ESYS, NULL, PS_NO_OFFSET,
				        "cannot read %s: permission denied; tracepoints need root",
				        path);
			return ps_rec_tracefs__unknown(r, spec, err);
		}
		return add_tp(r, sys, name, err) < 0 ? -1 : 1;
	}

	if (load_available(r->tracefs, &buf, &names, &nr) < 0)
		return ps_error__set(err, PS_ESYS, NULL, PS_NO_OFFSET,
		                     "cannot read %s/available_events: %s", r->tracefs,
		                     strerror(errno));
	for (i = 0; i < nr; i++) {
		char *c = strchr(names[i], ':');

		*c = 0;
		if (fnmatch(sys, names[i], 0) == 0 && fnmatch(name, c + 1, 0) == 0) {
			if (add_tp(r, names[i], c + 1, err) < 0) {
				added = -1;
				break;
			}
			added++;
		}
		*c = ':';
	}
	free(names);
	free(buf);
	if (added == 0)
		return ps_error__set(err, PS_EUSAGE, NULL, PS_NO_OFFSET,
		                     "no tracepoint matches '%s' ('precord -l' lists the events)",
		                     spec);
	return added;
}

static void put_file(struct ps_bytes *b, const char *path, bool len64, struct ps_error *err,
                     int *ret)
{
	char *data;
	size_t len;

	if (*ret < 0)
		return;
	if (ps_rec_read_file(path, &data, &len, MAX_FORMAT) < 0) {
		*ret = ps_error__set(err, PS_ESYS, NULL, PS_NO_OFFSET, "cannot read %s: %s", path,
		                     strerror(errno));
		return;
	}
	if (len64)
		ps_bytes__u64(b, len);
	else
		ps_bytes__u32(b, (uint32_t)len);
	ps_bytes__put(b, data, len);
	free(data);
}

int ps_rec_tracefs__blob(struct ps_recorder *r, struct ps_bytes *b, struct ps_error *err)
{
	static const unsigned char magic[] = {
		0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g'
	};
	char path[PATH_MAX];
	size_t i, j, nsys = 0;
	bool *done;
	int ret = 0;

	if (tracefs_init(r, err) < 0)
		return -1;
	done = calloc(r->nr_ev ? r->nr_ev : 1, sizeof(*done));
	if (!done)
		return ps_error__set(err, PS_ENOMEM, NULL, PS_NO_OFFSET, "out of memory");

	ps_bytes__put(b, magic, sizeof(magic));
	ps_bytes__put(b, "0.6", 4);
	ps_bytes__put(b, (const unsigned char[]){ ps_host_is_big_endian() ? 1 : 0 }, 1);
	ps_bytes__put(b, (const unsigned char[]){ (unsigned char)sizeof(long) }, 1);
	ps_bytes__u32(b, (uint32_t)sysconf(_SC_PAGESIZE));

	ps_bytes__put(b, "header_page", 12);
	snprintf(path, sizeof(path), "%s/events/header_page", r->tracefs);
	put_file(b, path, true, err, &ret);
	ps_bytes__put(b, "header_event", 13);
	snprintf(path, sizeof(path), "%s/events/header_event", r->tracefs);
	put_file(b, path, true, err, &ret);

	ps_bytes__u32(b, 0); /* ftrace's own formats: none recorded */

	/* the recorded events, grouped by system in the order they were given */
	for (i = 0; i < r->nr_ev; i++) {
		if (r->ev[i].sys && !done[i]) {
			for (j = i; j < r->nr_ev; j++)
				if (r->ev[j].sys && !done[j] &&
				    strcmp(r->ev[j].sys, r->ev[i].sys) == 0)
					done[j] = true;
			nsys++;
		}
	}
	ps_bytes__u32(b, (uint32_t)nsys);
	memset(done, 0, r->nr_ev * sizeof(*done));
	for (i = 0; i < r->nr_ev && ret == 0; i++) {
		uint32_t nev = 0;

		if (!r->ev[i].sys || done[i])
			continue;
		for (j = i; j < r->nr_ev; j++)
			if (r->ev[j].sys && strcmp(r->ev[j].sys, r->ev[i].sys) == 0)
				nev++;
		ps_bytes__put(b, r->ev[i].sys, strlen(r->ev[i].sys) + 1);
		ps_bytes__u32(b, nev);
		for (j = i; j < r->nr_ev && ret == 0; j++) {
			if (!r->ev[j].sys || strcmp(r->ev[j].sys, r->ev[i].sys) != 0)
				continue;
			done[j] = true;
			snprintf(path, sizeof(path), "%s/events/%s/%s/format", r->tracefs,
			         r->ev[j].sys, r->ev[j].tp);
			put_file(b, path, true, err, &ret);
		}
	}
	free(done);

	ps_bytes__u32(b, 0); /* kallsyms: none (a reader on a pipe cannot skip it) */
	snprintf(path, sizeof(path), "%s/printk_formats", r->tracefs);
	put_file(b, path, false, err, &ret);
	ps_bytes__u64(b, 0); /* saved cmdlines: none, COMM records name the tasks */
	ps_bytes__pad(b, 8);
	if (ret == 0 && b->failed)
		ret = ps_error__set(err, PS_ECAP, NULL, PS_NO_OFFSET,
		                    "the tracing data of the events is too large");
	return ret;
}

int ps_rec_tracefs__list(const char *root, void (*fn)(const char *, const char *, void *),
                         void *arg, struct ps_error *err)
{
	char dir[64], *buf, **names;
	size_t nr, i;

	if (root)
		snprintf(dir, sizeof(dir), "%s", root);
	else if (find_root(dir, sizeof(dir), true, err) < 0)
		return -1;
	if (load_available(dir, &buf, &names, &nr) < 0)
		return ps_error__set(err, PS_ESYS, NULL, PS_NO_OFFSET,
		                     "cannot read %s/available_events: %s", dir, strerror(errno));
	for (i = 0; i < nr; i++)
		fn(names[i], "Tracepoint event", arg);
	free(names);
	free(buf);
	return 0;
}
