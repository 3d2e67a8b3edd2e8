// SPDX-License-Identifier: GPL-2.0-only
/* calls the versioned library of verlib.c: N loops of its unnamed hot function */
#include <stdlib.h>
void verlib_work(unsigned long n);
int main(int argc, char **argv)
{
	verlib_work(argc > 1 ? strtoul(argv[1], NULL, 0) : 100000000);
	return 0;
}
