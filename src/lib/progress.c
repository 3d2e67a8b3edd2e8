// SPDX-License-Identifier: GPL-2.0-only
/*
 * progress.c - "45.2 MiB of 120.0 MiB (37%), 1.2M samples/s, 0:07 left".
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "progress.h"

#define FIRST_NS 500000000ull /* quiet work needs no line */
#define EVERY_NS 250000000ull

struct ps_progress {
	uint64_t size;
	uint64_t start_ns, next_ns;
	uint64_t offset, samples; /* as of the last update */
	unsigned int calls;
	char line[128];
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

struct ps_progress *ps_progress__new(const char *path, bool stdout_busy)
{
	struct ps_progress *p;
	struct stat st;
	int r;

	if (!isatty(2) || (stdout_busy && isatty(1)))
		return NULL;
	r = !path || strcmp(path, "-") == 0 ? fstat(0, &st) : stat(path, &st);
	if (r < 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_size < PS_PROGRESS_MIN_BYTES)
		return NULL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->size = (uint64_t)st.st_size;
	p->start_ns = now_ns();
	p->next_ns = p->start_ns + FIRST_NS;
	return p;
}

/* 1234567 -> "1.2M" */
static void human(char *buf, size_t len, double v, const char *const *units)
{
	int u = 0;

	while (v >= 1000 && units[u + 1]) {
		v /= 1000;
		u++;
	}
	snprintf(buf, len, v < 10 && u ? "%.1f%s" : "%.0f%s", v, units[u]);
}

const char *ps_progress__tick(struct ps_progress *p, uint64_t offset, uint64_t samples)
{
	static const char *const counts[] = { "", "k", "M", "G", NULL };
	uint64_t t, left_s;
	double secs, rate;
	char sps[32];

	if (!p)
		return NULL;
	p->offset = offset;
	p->samples = samples;
	if (++p->calls % 1024)
		return NULL;
	t = now_ns();
	if (t < p->next_ns)
		return NULL;
	p->next_ns = t + EVERY_NS;
	if (offset > p->size)
		offset = p->size;
	secs = (double)(t - p->start_ns) / 1e9;
	rate = secs > 0 ? (double)samples / secs : 0;
	human(sps, sizeof(sps), rate, counts);
	left_s = offset ? (uint64_t)(secs * (double)(p->size - offset) / (double)offset) : 0;
	snprintf(p->line, sizeof(p->line),
	         "%.1f MiB of %.1f MiB (%d%%), %s samples/s, %u:%02u left",
	         (double)offset / 1048576, (double)p->size / 1048576, (int)(offset * 100 / p->size),
	         sps, (unsigned int)(left_s / 60), (unsigned int)(left_s % 60));
	return p->line;
}

const char *ps_progress__waiting(struct ps_progress *p)
{
	if (!p)
		return NULL;
	p->calls = 1023; /* the next update reads the clock */
	return ps_progress__tick(p, p->offset, p->samples);
}

void ps_progress__delete(struct ps_progress *p)
{
	free(p);
}
