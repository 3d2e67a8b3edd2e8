// SPDX-License-Identifier: GPL-2.0-only
/*
 * A workload of tests/dwarf.bats that spends its time in the vdso: clock_gettime() in a
 * loop, so most samples are taken inside __vdso_clock_gettime and unwound through it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

__attribute__((noinline)) static long spin(long n)
{
	struct timespec ts;
	long s = 0;

	for (long i = 0; i < n; i++) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		s += ts.tv_nsec;
	}
	return s;
}

int main(int argc, char **argv)
{
	printf("%ld\n", spin(argc > 1 ? atol(argv[1]) : 10000000) & 1);
	return 0;
}
