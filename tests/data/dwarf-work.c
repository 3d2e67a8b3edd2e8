// SPDX-License-Identifier: GPL-2.0-only
/*
 * The workload of tests/dwarf.bats: call chains without frame pointers (built with -O2 -g
 * -fomit-frame-pointer by the test), an always-inlined function whose frames only DWARF
 * knows, libc calls and system calls.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile unsigned long sink;

static inline __attribute__((always_inline)) unsigned long mix_inline(unsigned long n)
{
	unsigned long acc = 0;

	for (unsigned long i = 0; i < n; i++)
		acc += (i * i) ^ sink;
	return acc;
}

__attribute__((noinline)) void leaf_work(int depth)
{
	char buf[256];

	sink += mix_inline(300000);
	snprintf(buf, sizeof(buf), "%d %lu", depth, sink);
	sink += strlen(buf);
	for (int k = 0; k < 20; k++) {
		int fd = open("/dev/null", O_WRONLY);

		if (fd >= 0) {
			if (write(fd, buf, strlen(buf)) < 0)
				sink++;
			close(fd);
		}
	}
	qsort(buf, 64, 1, (int (*)(const void *, const void *))strcmp);
}

__attribute__((noinline)) void recurse(int depth)
{
	if (depth == 0) {
		leaf_work(depth);
		return;
	}
	recurse(depth - 1);
	sink++;
}

int main(int argc, char **argv)
{
	int loops = argc > 1 ? atoi(argv[1]) : 100;

	for (int i = 0; i < loops; i++)
		recurse(4 + i % 5);
	printf("%lu\n", sink);
	return 0;
}
