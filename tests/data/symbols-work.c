// SPDX-License-Identifier: GPL-2.0-only
/*
 * The workload of tests/symbols.bats: deep frame-pointer call chains, libc calls (stdio,
 * malloc, libm) and system calls, built with -O0 -fno-omit-frame-pointer by the test.
 */
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile unsigned long sink;

__attribute__((noinline)) static void spin(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i * i;
}

__attribute__((noinline)) void leaf_work(int depth)
{
	char buf[256];
	void *p;

	spin(200000);
	snprintf(buf, sizeof(buf), "%d %f", depth, sqrt((double)depth + sink));
	sink += strlen(buf);
	for (int k = 0; k < 40; k++) {
		int fd = open("/dev/null", O_WRONLY);

		if (fd >= 0) {
			if (write(fd, buf, strlen(buf)) < 0)
				sink++;
			close(fd);
		}
		getppid();
	}
	p = malloc(64 + depth);
	if (p) {
		memset(p, depth, 64 + depth);
		sink += ((char *)p)[3];
		free(p);
	}
}

__attribute__((noinline)) void recurse(int depth)
{
	if (depth == 0) {
		leaf_work(depth);
		return;
	}
	if (depth % 5 == 0)
		leaf_work(depth);
	recurse(depth - 1);
	sink++;
}

int main(int argc, char **argv)
{
	int loops = argc > 1 ? atoi(argv[1]) : 200;

	for (int i = 0; i < loops; i++)
		recurse(12 + i % 8);
	return 0;
}
