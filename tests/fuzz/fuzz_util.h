/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fuzz_util.h - small helpers the fuzz targets share: the input as text, a file written
 * with the input's bytes, an MMAP2 record fed to a symbol table.  Anything that fails
 * here is the harness's fault, never the input's: abort().
 */
#ifndef PS_FUZZ_UTIL_H
#define PS_FUZZ_UTIL_H

#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/record.h"
#include "lib/session.h"
#include "lib/symbols.h"

/*
 * The @size bytes at @data as a malloc'ed string, followed by two NULs (a second string
 * after the first NUL of the input always ends).
 */
static inline char *fuzz_text(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 2);

	if (!text)
		abort();
	memcpy(text, data, size);
	text[size] = text[size + 1] = 0;
	return text;
}

/* A new private directory "/tmp/ps-fuzz-NAME-XXXXXX" into @dir (@size bytes). */
static inline void fuzz_tmpdir(char *dir, size_t size, const char *name)
{
	snprintf(dir, size, "/tmp/ps-fuzz-%s-XXXXXX", name);
	if (!mkdtemp(dir))
		abort();
}

/* Write @n bytes at @p to @path, replacing it. */
static inline void fuzz_put_file(const char *path, const uint8_t *p, size_t n)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	if (fd < 0)
		abort();
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w <= 0)
			abort();
		p += w;
		n -= (size_t)w;
	}
	close(fd);
}

/* A new session in *@s and an empty symbol table for it, by @o. */
static inline struct ps_symbols *fuzz_symbols(struct ps_session **s,
                                              const struct ps_symbols_opts *o)
{
	struct ps_error err = { 0 };
	struct ps_symbols *st;

	*s = ps_session__new(false);
	if (!*s)
		abort();
	st = ps_symbols__new(*s, o, &err);
	if (!st)
		abort();
	return st;
}

/*
 * An MMAP2 record given to @st: @name mapped at @start for @len bytes in process @pid,
 * offset 0, readable and executable, private.
 */
static inline void fuzz_mmap2(struct ps_symbols *st, uint32_t pid, const char *name, uint64_t start,
                              uint64_t len)
{
	unsigned char rec[8 + 64 + 128] = { 0 };
	size_t n = strlen(name), rlen = (8 + 64 + n + 1 + 7) & ~(size_t)7;
	struct ps_record r = { .data = rec, .len = rlen, .size = (uint16_t)rlen };

	if (rlen > sizeof(rec))
		abort();
	r.type = PERF_RECORD_MMAP2;
	r.misc = PERF_RECORD_MISC_USER;
	ps_put32(rec, PERF_RECORD_MMAP2, false);
	ps_put16(rec + 4, PERF_RECORD_MISC_USER, false);
	ps_put16(rec + 6, (uint16_t)rlen, false);
	ps_put32(rec + 8, pid, false);
	ps_put32(rec + 12, pid, false);
	ps_put64(rec + 16, start, false);
	ps_put64(rec + 24, len, false);
	ps_put64(rec + 32, 0, false);     /* pgoff */
	ps_put32(rec + 8 + 56, 5, false); /* PROT_READ | PROT_EXEC */
	ps_put32(rec + 8 + 60, 2, false); /* MAP_PRIVATE */
	memcpy(rec + 8 + 64, name, n);
	ps_symbols__process(st, &r);
}

#endif
