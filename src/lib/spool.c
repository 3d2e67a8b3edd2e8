// SPDX-License-Identifier: GPL-2.0-only
/*
 * spool.c - the batch spool's files (spool.h): names, the directory check, counting and
 * cutting rows, the queue.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rowbinary.h"
#include "spool.h"

/*
 * A spool that someone else can write is one where they can put a symbolic link at the
 * name of a batch or of the lock, and have this run (often root's) write or truncate any
 * file through it, or remove batches unloaded.  Refused: the spool must be a directory of
 * ours, not a link, that nobody else can write.
 */
int ps_spool__check_dir(const char *dir, struct ps_error *err)
{
	struct stat st;

	if (lstat(dir, &st) < 0)
		return ps_error__sys(err, PS_ESYS, dir, "cannot use the spool directory");
	if (!S_ISDIR(st.st_mode))
		return ps_error__set(
		        err, PS_EUSAGE, dir, PS_NO_OFFSET,
		        "the spool is not a directory (a symbolic link is not followed)");
	if (st.st_uid != geteuid())
		return ps_error__set(
		        err, PS_EUSAGE, dir, PS_NO_OFFSET,
		        "the spool directory belongs to another user: give a directory of yours");
	if (st.st_mode & (S_IWGRP | S_IWOTH))
		return ps_error__set(
		        err, PS_EUSAGE, dir, PS_NO_OFFSET,
		        "others can write the spool directory: chmod go-w it, or give another");
	return 0;
}

int ps_spool_queue__push(struct ps_spool_queue *q, const struct ps_batch *b)
{
	if (q->head + q->n == q->cap) {
		if (q->head) {
			memmove(q->q, q->q + q->head, q->n * sizeof(*q->q));
			q->head = 0;
		} else {
			size_t cap = q->cap ? q->cap * 2 : 64;
			struct ps_batch *nq =
			        cap <= PS_SPOOL_MAX_QUEUE ? realloc(q->q, cap * sizeof(*nq)) : NULL;

			if (!nq)
				return -1;
			q->q = nq;
			q->cap = cap;
		}
	}
	q->q[q->head + q->n++] = *b;
	return 0;
}

void ps_spool_queue__release(struct ps_spool_queue *q)
{
	free(q->q);
	memset(q, 0, sizeof(*q));
}

/*
 * A batch file's name is the loader's own pattern and nothing else: b-SEQ-RUN-N.json (JSON
 * rows) or .rb (RowBinary), .part or .rb.part while it is written; SEQ is N in twelve digits, RUN sixteen hex digits.  Its id,
 * RUN-N, goes into the batch check: a name that is not exactly that is no batch of ours.
 */
bool ps_spool__batch_name(const char *name, char *id, size_t idlen, uint64_t *seq, bool *part,
                          bool *bin)
{
	const char *p = name + 2, *run, *n;
	uint64_t s = 0, s2 = 0;
	size_t i;

	if (strncmp(name, "b-", 2) != 0)
		return false;
	for (i = 0; i < 12; i++, p++) {
		if (*p < '0' || *p > '9')
			return false;
		s = s * 10 + (uint64_t)(*p - '0');
	}
	if (*p++ != '-')
		return false;
	run = p;
	for (i = 0; i < PS_SPOOL_RUN_ID_LEN; i++, p++)
		if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f')))
			return false;
	if (*p++ != '-')
		return false;
	for (n = p; *p >= '0' && *p <= '9'; p++) {
		if (p - n == 12)
			return false;
		s2 = s2 * 10 + (uint64_t)(*p - '0');
	}
	if (p == n || *n == '0' || s2 != s)
		return false;
	*bin = strncmp(p, ".rb", 3) == 0;
	if (strcmp(p, ".json") == 0 || strcmp(p, ".rb") == 0)
		*part = false;
	else if (strcmp(p, ".part") == 0 || strcmp(p, ".rb.part") == 0)
		*part = true;
	else
		return false;
	snprintf(id, idlen, "%.*s", (int)(p - run), run);
	*seq = s;
	return true;
}

static uint64_t count_lines(const char *path, uint64_t *bytes)
{
	char buf[65536];
	uint64_t n = 0;
	ssize_t r;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);

	*bytes = 0;
	if (fd < 0)
		return 0;
	while ((r = read(fd, buf, sizeof(buf))) > 0) {
		*bytes += (uint64_t)r;
		for (char *p = buf; (p = memchr(p, '\n', (size_t)(buf + r - p))); p++)
			n++;
	}
	close(fd);
	return n;
}

/*
 * The RowBinary rows of the batch file @fd (@size bytes): how many are whole, where the
 * last whole one ends (@keep) and where the first starts (@data_off).  Return -1 when the
 * file does not start with a header of ours.
 */
static int count_rows(int fd, uint64_t size, uint64_t *rows, uint64_t *keep, uint64_t *data_off)
{
	struct ps_rowbinary_types types;
	const unsigned char *m;
	long h, r;
	uint64_t at;

	*rows = *keep = *data_off = 0;
	if (!size)
		return -1;
	m = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (m == MAP_FAILED)
		return -1;
	h = ps_rowbinary__parse_header((const char *)m, size, &types);
	if (h <= 0) {
		munmap((void *)m, size);
		return -1;
	}
	at = *keep = *data_off = (uint64_t)h;
	while (at < size && (r = ps_rowbinary__row(&types, m + at, size - at, NULL)) > 0) {
		at += (uint64_t)r;
		*keep = at;
		++*rows;
	}
	free(types.t);
	munmap((void *)m, size);
	return 0;
}

uint64_t ps_spool__file_size(int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 && st.st_size > 0 ? (uint64_t)st.st_size : 0;
}

/* A sealed batch's rows and bytes (and for RowBinary, where they start). */
void ps_spool__count(struct ps_batch *b)
{
	uint64_t keep;
	int fd;

	if (!b->bin) {
		b->rows = count_lines(b->path, &b->bytes);
		return;
	}
	fd = open(b->path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	b->rows = b->bytes = 0;
	if (fd < 0)
		return;
	b->bytes = ps_spool__file_size(fd);
	if (count_rows(fd, b->bytes, &b->rows, &keep, &b->data_off) < 0)
		b->rows = 0;
	close(fd);
}

int ps_spool__cut(const char *part, struct ps_batch *b, uint64_t *size, struct ps_error *err)
{
	char buf[65536];
	int fd = open(part, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
	uint64_t off = 0, keep = 0, rows = 0;
	ssize_t r = 0;

	if (fd < 0)
		return ps_error__sys(err, PS_ESYS, part, "cannot open");
	if (b->bin) {
		off = ps_spool__file_size(fd);
		if (count_rows(fd, off, &rows, &keep, &b->data_off) < 0)
			rows = 0;
	} else {
		while ((r = read(fd, buf, sizeof(buf))) > 0) {
			for (char *p = buf; (p = memchr(p, '\n', (size_t)(buf + r - p))); p++) {
				rows++;
				keep = off + (uint64_t)(p - buf) + 1;
			}
			off += (uint64_t)r;
		}
	}
	if (rows && (r < 0 || (keep < off && ftruncate(fd, (off_t)keep) < 0))) {
		ps_error__sys(err, PS_ESYS, part, "cannot read or cut");
		close(fd);
		return -1;
	}
	close(fd);
	b->rows = rows;
	b->bytes = keep;
	*size = off;
	return 0;
}
