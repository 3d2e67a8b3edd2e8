// SPDX-License-Identifier: GPL-2.0-only
/* A library with a version script: its stripped .dynsym holds the absolute version name
 * VERLIB_1 and one function; the hot loop is a static function before it, unnamed. */
static volatile unsigned long sink;

static void spin(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i * 7;
}

void verlib_work(unsigned long n)
{
	spin(n);
}
