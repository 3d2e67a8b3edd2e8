// SPDX-License-Identifier: GPL-2.0-only
/*
 * recorder_util.c - what every part of the recorder uses, below all of them: the event
 * table and its software and hardware names, small (proc, sys, trace) files, CPU lists,
 * feature strings and writing one record.  It calls no other recorder file, so the
 * recorder's files form layers: this one, then tracefs, self and build-ids, then header
 * synthesis, then recorder.c.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "recorder_int.h"
#include "xalloc.h"

#define NAME_ALIGN 64

/* ---- events ---- */

const struct rec_sw ps_rec_sw_events[] = {
	{ "cpu-clock", PERF_COUNT_SW_CPU_CLOCK, false },
	{ "task-clock", PERF_COUNT_SW_TASK_CLOCK, false },
	{ "page-faults", PERF_COUNT_SW_PAGE_FAULTS, false },
	{ "faults", PERF_COUNT_SW_PAGE_FAULTS, true },
	{ "minor-faults", PERF_COUNT_SW_PAGE_FAULTS_MIN, false },
	{ "major-faults", PERF_COUNT_SW_PAGE_FAULTS_MAJ, false },
	{ "context-switches", PERF_COUNT_SW_CONTEXT_SWITCHES, false },
	{ "cs", PERF_COUNT_SW_CONTEXT_SWITCHES, true },
	{ "cpu-migrations", PERF_COUNT_SW_CPU_MIGRATIONS, false },
	{ "migrations", PERF_COUNT_SW_CPU_MIGRATIONS, true },
	{ "alignment-faults", PERF_COUNT_SW_ALIGNMENT_FAULTS, false },
	{ "emulation-faults", PERF_COUNT_SW_EMULATION_FAULTS, false },
};
const size_t ps_rec_nr_sw = ARRAY_SIZE(ps_rec_sw_events);

const struct rec_sw ps_rec_hw_events[] = {
	{ "cycles", PERF_COUNT_HW_CPU_CYCLES, false },
	{ "cpu-cycles", PERF_COUNT_HW_CPU_CYCLES, true },
	{ "instructions", PERF_COUNT_HW_INSTRUCTIONS, false },
	{ "cache-references", PERF_COUNT_HW_CACHE_REFERENCES, false },
	{ "cache-misses", PERF_COUNT_HW_CACHE_MISSES, false },
	{ "branch-instructions", PERF_COUNT_HW_BRANCH_INSTRUCTIONS, false },
	{ "branches", PERF_COUNT_HW_BRANCH_INSTRUCTIONS, true },
	{ "branch-misses", PERF_COUNT_HW_BRANCH_MISSES, false },
	{ "bus-cycles", PERF_COUNT_HW_BUS_CYCLES, false },
	{ "stalled-cycles-frontend", PERF_COUNT_HW_STALLED_CYCLES_FRONTEND, false },
	{ "idle-cycles-frontend", PERF_COUNT_HW_STALLED_CYCLES_FRONTEND, true },
	{ "stalled-cycles-backend", PERF_COUNT_HW_STALLED_CYCLES_BACKEND, false },
	{ "idle-cycles-backend", PERF_COUNT_HW_STALLED_CYCLES_BACKEND, true },
	{ "ref-cycles", PERF_COUNT_HW_REF_CPU_CYCLES, false },
};
const size_t ps_rec_nr_hw = ARRAY_SIZE(ps_rec_hw_events);

struct rec_event *ps_rec_event__add(struct ps_recorder *r, const char *name)
{
	struct rec_event *e;

	if (r->nr_ev >= PS_MAX_ATTRS ||
	    ps_grow((void **)&r->ev, &r->ev_cap, r->nr_ev + 1, sizeof(*r->ev), 8))
		return NULL;
	e = &r->ev[r->nr_ev];
	memset(e, 0, sizeof(*e));
	e->name = strdup(name);
	if (!e->name)
		return NULL;
	e->group = r->groups;
	r->nr_ev++;
	return e;
}

/* ---- feature strings ---- */

void ps_rec_put_string(struct ps_bytes *b, const char *s)
{
	size_t len = strlen(s) + 1, padded = (len + NAME_ALIGN - 1) / NAME_ALIGN * NAME_ALIGN;

	ps_bytes__u32(b, (uint32_t)padded);
	ps_bytes__put(b, s, len);
	ps_bytes__zero(b, padded - len);
}

/* ---- small file helpers ---- */

int ps_rec_read_file(const char *path, char **buf, size_t *len, size_t max)
{
	size_t cap = 4096, n = 0;
	char *p = malloc(cap + 1), *np;
	ssize_t got;
	int fd;

	if (!p)
		return -1;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		free(p);
		return -1;
	}
	for (;;) {
		if (n == cap) {
			if (cap >= max) {
				close(fd);
				free(p);
				errno = EFBIG;
				return -1;
			}
			cap *= 2;
			np = realloc(p, cap + 1);
			if (!np) {
				close(fd);
				free(p);
				errno = ENOMEM;
				return -1;
			}
			p = np;
		}
		got = read(fd, p + n, cap - n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			int e = errno;

			close(fd);
			free(p);
			errno = e;
			return -1;
		}
		if (got == 0)
			break;
		n += (size_t)got;
	}
	close(fd);
	p[n] = 0;
	*buf = p;
	*len = n;
	return 0;
}

/* the first line of a small file, without its newline */
int ps_rec_read_line(const char *path, char *out, size_t outlen)
{
	char *buf, *nl;
	size_t len;

	if (ps_rec_read_file(path, &buf, &len, 1u << 20) < 0)
		return -1;
	nl = strchr(buf, '\n');
	if (nl)
		*nl = 0;
	snprintf(out, outlen, "%s", buf);
	free(buf);
	return 0;
}

long ps_rec_read_long(const char *path, long dflt)
{
	char line[64], *end;
	long v;

	if (ps_rec_read_line(path, line, sizeof(line)) < 0)
		return dflt;
	errno = 0;
	v = strtol(line, &end, 0);
	return errno || end == line ? dflt : v;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

int ps_rec_parse_cpu_list(const char *s, int **cpus)
{
	int *v = NULL, n = 0, cap = 0, i, j;
	long a, b;
	char *end;

	while (*s && *s != '\n') {
		if (!isdigit((unsigned char)*s))
			goto bad;
		a = strtol(s, &end, 10);
		b = a;
		s = end;
		if (*s == '-') {
			if (!isdigit((unsigned char)s[1]))
				goto bad;
			b = strtol(s + 1, &end, 10);
			s = end;
		}
		if (a < 0 || b < a || b >= 65536)
			goto bad;
		for (; a <= b; a++) {
			if (n == cap) {
				int *nv;

				cap = cap ? 2 * cap : 64;
				nv = ps_realloc_array(v, (size_t)cap, sizeof(*v));
				if (!nv)
					goto bad;
				v = nv;
			}
			v[n++] = (int)a;
		}
		if (*s == ',')
			s++;
		else if (*s && *s != '\n')
			goto bad;
	}
	if (!n)
		goto bad;
	qsort(v, (size_t)n, sizeof(*v), cmp_int);
	for (i = 1, j = 1; i < n; i++)
		if (v[i] != v[j - 1])
			v[j++] = v[i];
	*cpus = v;
	return j;
bad:
	free(v);
	return -1;
}

/* ---- records ---- */

int ps_rec_put_record(struct ps_output *out, uint32_t type, uint16_t misc, const void *body,
                      size_t len, struct ps_error *err)
{
	struct perf_event_header h;

	if (len + sizeof(h) > REC_MAX_RECORD)
		return ps_error__set(err, PS_ECAP, NULL, PS_NO_OFFSET,
		                     "a record of %zu bytes does not fit the stream",
		                     len + sizeof(h));
	h.type = type;
	h.misc = misc;
	h.size = (uint16_t)(len + sizeof(h));
	if (ps_output__write(out, &h, sizeof(h), err) < 0)
		return -1;
	return len ? ps_output__write(out, body, len, err) : 0;
}
