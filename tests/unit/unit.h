/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * unit.h - a tiny test harness: CHECK() counts, reports file:line on failure, and
 * UNIT_DONE() prints "NAME: N passed, N failed" and returns the exit status.
 */
#ifndef PS_UNIT_H
#define PS_UNIT_H

#include <stdio.h>

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

#define UNIT_DONE(name)                                                          \
	(printf("%s: %d passed, %d failed\n", (name), unit_passed, unit_failed), \
	 unit_failed ? 1 : 0)

#endif
