/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * unit.h - a tiny test harness: CHECK() counts, reports file:line on failure, and
 * UNIT_DONE() prints "NAME: N passed, N failed" and returns the exit status.
 */
#ifndef PS_UNIT_H
#define PS_UNIT_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int unit_passed, unit_failed;

#define CHECK(cond)                                                                              \
	do {                                                                                     \
		if (cond) {                                                                      \
			unit_passed++;                                                           \
		} else {                                                                         \
			unit_failed++;                                                           \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
		}                                                                                \
	} while (0)

#define CHECK_EQ_U64(a, b)                                                                    \
	do {                                                                                  \
		unsigned long long unit_a = (a), unit_b = (b);                                \
		if (unit_a == unit_b) {                                                       \
			unit_passed++;                                                        \
		} else {                                                                      \
			unit_failed++;                                                        \
			fprintf(stderr, "%s:%d: %s == %llu, expected %s == %llu\n", __FILE__, \
			        __LINE__, #a, unit_a, #b, unit_b);                            \
		}                                                                             \
	} while (0)

/* xorshift64: a pseudo-random number, the same sequence on every run from the seed in @state */
static inline uint64_t unit_xorshift(uint64_t *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return *state;
}

/* a new empty directory of this test's own (removed by scratch_remove()) */
static inline char *scratch_dir(void)
{
	static char dir[64];
	const char *t = getenv("TMPDIR");

	snprintf(dir, sizeof(dir), "%s/psunitXXXXXX", t && strlen(t) < 40 ? t : "/tmp");
	if (!mkdtemp(dir))
		abort();
	return dir;
}

static inline void scratch_remove(const char *dir)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", dir);
}

#define UNIT_DONE(name)                                                          \
	(printf("%s: %d passed, %d failed\n", (name), unit_passed, unit_failed), \
	 unit_failed ? 1 : 0)

#endif
