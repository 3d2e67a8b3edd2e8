// SPDX-License-Identifier: GPL-2.0-only
/* pflame tests: a workload with deep frame-pointer call chains, libc and syscalls. */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
volatile unsigned long sink;
static __attribute__((noinline)) void spin(int n)
{
	for (int i = 0; i < n; i++)
		sink += i;
}
static __attribute__((noinline)) void leaf_cpu(void)
{
	spin(200000);
}
static __attribute__((noinline)) void leaf_sys(void)
{
	char buf[256];
	for (int i = 0; i < 5000; i++) {
		sink += getppid();
		memset(buf, i, sizeof(buf));
		sink += buf[7];
	}
}
static __attribute__((noinline)) void down(int d, int kind)
{
	if (d == 0) {
		if (kind)
			leaf_sys();
		else
			leaf_cpu();
		return;
	}
	down(d - 1, kind);
	sink++;
}
static int mix = 1; /* 0: only leaf_cpu */

static __attribute__((noinline)) void stage_b(int i)
{
	down(8 + i % 5, mix && i % 3 == 0);
}
static __attribute__((noinline)) void stage_a(int i)
{
	stage_b(i);
	sink++;
}
/* deep [SECONDS [cpu]]: run for SECONDS (1); "cpu": no syscalls */
int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 1;

	if (argc > 2 && strcmp(argv[2], "cpu") == 0)
		mix = 0;
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int i = 0;; i++) {
		stage_a(i);
		clock_gettime(CLOCK_MONOTONIC, &t);
		if ((t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) / 1e9 > secs)
			break;
	}
	return 0;
}
