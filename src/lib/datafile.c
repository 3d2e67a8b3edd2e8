// SPDX-License-Identifier: GPL-2.0-only
/*
 * datafile.c - the perf.data writer: data section streamed, the other sections and the
 * file header written at the end.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "abi.h"
#include "compat.h"
#include "datafile.h"
#include "io.h"
#include "session.h"
#include "xalloc.h"

#define BUF (256u << 10)
#define ATTR_SIZE_61 128 /* perf 6.1's struct perf_event_attr */
#define MAX_KEPT (256u << 20)

struct ps_datafile {
	int fd;
	const char *name;
	bool swap;
	unsigned char *buf;
	size_t blen;
	uint64_t data_size;
	struct ps_bytes attrs; /* ATTR records, back to back */
	struct ps_bytes feat[PS_FEAT_BITS];
	bool have[PS_FEAT_BITS];
	struct ps_bytes buildids;
	uint64_t first_time, last_time;
	bool have_time;
	size_t kept;
};

struct ps_datafile *ps_datafile__open(const char *path, bool swap, struct ps_error *err)
{
	int fd;

	if (!path || strcmp(path, "-") == 0) {
		ps_error__set(err, PS_EUSAGE, NULL, PS_NO_OFFSET,
		              "a perf.data file is written with -o FILE: its header is rewritten "
		              "at the end, which a pipe cannot do");
		return NULL;
	}
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		ps_error__sys(err, PS_ESYS, path, "cannot create");
		return NULL;
	}
	return ps_datafile__open_fd(fd, path, swap, err);
}

struct ps_datafile *ps_datafile__open_fd(int fd, const char *name, bool swap, struct ps_error *err)
{
	unsigned char blank[PS_FILE_HEADER_SIZE] = { 0 };
	const char *path = name; /* for messages only */
	struct ps_datafile *df;
	struct stat st;

	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		ps_error__set(err, PS_EUSAGE, path, PS_NO_OFFSET,
		              "not a regular file: a perf.data file needs one it can seek in");
		return NULL;
	}
	df = calloc(1, sizeof(*df));
	if (df)
		df->buf = malloc(BUF);
	if (!df || !df->buf || ps_write_full(fd, blank, sizeof(blank)) < 0) {
		if (df)
			free(df->buf);
		free(df);
		close(fd);
		ps_error__set(err, PS_ENOMEM, path, PS_NO_OFFSET, "out of memory or write error");
		return NULL;
	}
	df->fd = fd;
	df->name = path;
	df->swap = swap;
	return df;
}

static int flush(struct ps_datafile *df, struct ps_error *err)
{
	if (df->blen && ps_write_full(df->fd, df->buf, df->blen) < 0)
		return ps_error__sys(err, PS_EWRITE, df->name, "write error");
	df->blen = 0;
	return 0;
}

static int out(struct ps_datafile *df, const void *p, size_t len, struct ps_error *err)
{
	if (!len)
		return 0; /* an empty section may have no bytes at all: @p is then NULL */
	if (df->blen + len > BUF && flush(df, err) < 0)
		return -1;
	if (len > BUF)
		return ps_write_full(df->fd, p, len) < 0 ?
		               ps_error__sys(err, PS_EWRITE, df->name, "write error") :
		               0;
	memcpy(df->buf + df->blen, p, len);
	df->blen += len;
	return 0;
}

static int keep(struct ps_datafile *df, struct ps_bytes *b, const void *p, size_t len,
                const struct ps_record *rec, struct ps_error *err)
{
	if (df->kept + len > MAX_KEPT)
		return ps_error__set(err, PS_ECAP, NULL, rec->offset,
		                     "more than %u MiB of header records", MAX_KEPT >> 20);
	if (ps_bytes__add(b, p, len, SIZE_MAX) < 0)
		return ps_error__set(err, PS_ENOMEM, NULL, rec->offset, "out of memory");
	df->kept += len;
	return 0;
}

int ps_datafile__put(struct ps_datafile *df, const struct ps_session *s,
                     const struct ps_record *rec, struct ps_error *err)
{
	switch (rec->type) {
	case PS_RECORD_HEADER_ATTR:
		return keep(df, &df->attrs, rec->data, rec->size, rec, err);
	case PS_RECORD_HEADER_EVENT_TYPE:
	case PS_RECORD_COMPRESSED:
	case PS_RECORD_COMPRESSED2:
		return 0; /* ignored by perf; decompressed records are delivered */
	case PS_RECORD_HEADER_TRACING_DATA:
		if (rec->len <= rec->size)
			return 0;
		df->feat[PS_FEAT_TRACING_DATA].len = 0;
		df->have[PS_FEAT_TRACING_DATA] = true;
		return keep(df, &df->feat[PS_FEAT_TRACING_DATA], rec->data + rec->size,
		            rec->len - rec->size, rec, err);
	case PS_RECORD_HEADER_BUILD_ID:
		df->have[PS_FEAT_BUILD_ID] = true;
		return keep(df, &df->buildids, rec->data, rec->size, rec, err);
	case PS_RECORD_HEADER_FEATURE: {
		uint64_t id;

		if (rec->size < 16)
			return 0;
		id = ps_get64(rec->data + 8, df->swap);
		/* the end marker and ids perf 6.1 does not know have no section; the records
		 * are written decompressed, but perf reads COMPRESSED as a plain description */
		if (id == 0 || id >= PS_FEAT_LAST_61 || id == PS_FEAT_TRACING_DATA ||
		    id == PS_FEAT_BUILD_ID)
			return 0;
		df->feat[id].len = 0;
		df->have[id] = true;
		return keep(df, &df->feat[id], rec->data + 16, rec->size - 16u, rec, err);
	}
	default:
		break;
	}
	if (rec->type == PERF_RECORD_SAMPLE && s) {
		uint64_t t;

		if (ps_session__record_time(s, rec, &t) && t) {
			if (!df->have_time || t < df->first_time)
				df->first_time = t;
			if (!df->have_time || t > df->last_time)
				df->last_time = t;
			df->have_time = true;
		}
	}
	df->data_size += rec->len;
	return out(df, rec->data, rec->len, err);
}

/* The attrs section: every attr at perf 6.1's size and its ids, which go before it. */
static int write_attrs(struct ps_datafile *df, uint64_t *off, uint64_t *attrs_off,
                       uint64_t *attrs_size, struct ps_error *err)
{
	struct ps_bytes entries = { 0 };
	size_t pos = 0;
	uint64_t ids_at = *off;
	int r = 0;

	/* the ids of every attr, back to back */
	while (pos + 8 + PS_ATTR_SIZE_VER0 <= df->attrs.len) {
		const unsigned char *rec = df->attrs.p + pos;
		uint16_t size = ps_get16(rec + 6, df->swap);
		uint32_t asize = ps_get32(rec + 8 + PS_ATTR_SIZE, df->swap);
		unsigned char entry[ATTR_SIZE_61 + 16] = { 0 };
		size_t nids;

		if (!asize)
			asize = PS_ATTR_SIZE_VER0;
		if (size < 8 + asize || pos + size > df->attrs.len)
			break;
		nids = (size - 8 - asize) / 8;
		if (out(df, rec + 8 + asize, nids * 8, err) < 0) {
			r = -1;
			break;
		}
		memcpy(entry, rec + 8, asize < ATTR_SIZE_61 ? asize : ATTR_SIZE_61);
		ps_put32(entry + PS_ATTR_SIZE, ATTR_SIZE_61, df->swap);
		ps_put64(entry + ATTR_SIZE_61, ids_at, df->swap);
		ps_put64(entry + ATTR_SIZE_61 + 8, nids * 8, df->swap);
		ids_at += nids * 8;
		if (ps_bytes__add(&entries, entry, sizeof(entry), SIZE_MAX) < 0) {
			r = ps_error__set(err, PS_ENOMEM, df->name, PS_NO_OFFSET, "out of memory");
			break;
		}
		pos += size;
	}
	if (!r) {
		*attrs_off = ids_at;
		*attrs_size = entries.len;
		r = out(df, entries.p, entries.len, err);
		*off = ids_at + entries.len;
	}
	free(entries.p);
	return r;
}

int ps_datafile__close(struct ps_datafile *df, struct ps_error *err)
{
	unsigned char h[PS_FILE_HEADER_SIZE] = { 0 };
	uint64_t off, attrs_off = 0, attrs_size = 0, bits[4] = { 0 };
	size_t i, nfeat = 0;
	int r = 0;

	if (!df)
		return 0;
	if (df->have_time) {
		unsigned char st[16];

		ps_put64(st, df->first_time, df->swap);
		ps_put64(st + 8, df->last_time, df->swap);
		df->feat[PS_FEAT_SAMPLE_TIME].len = 0;
		if (ps_bytes__add(&df->feat[PS_FEAT_SAMPLE_TIME], st, sizeof(st), SIZE_MAX) == 0)
			df->have[PS_FEAT_SAMPLE_TIME] = true;
	}
	if (df->have[PS_FEAT_BUILD_ID]) {
		df->feat[PS_FEAT_BUILD_ID] = df->buildids;
		df->buildids.p = NULL;
	}
	for (i = 1; i < PS_FEAT_LAST_61; i++)
		if (df->have[i]) {
			bits[i / 64] |= 1ULL << (i % 64);
			nfeat++;
		}
	/* the feature table sits right after the data, the payloads after it */
	off = PS_FILE_HEADER_SIZE + df->data_size + nfeat * 16;
	for (i = 1; i < PS_FEAT_LAST_61 && !r; i++) {
		unsigned char sec[16];

		if (!df->have[i])
			continue;
		ps_put64(sec, off, df->swap);
		ps_put64(sec + 8, df->feat[i].len, df->swap);
		off += df->feat[i].len;
		r = out(df, sec, sizeof(sec), err);
	}
	for (i = 1; i < PS_FEAT_LAST_61 && !r; i++)
		if (df->have[i])
			r = out(df, df->feat[i].p, df->feat[i].len, err);
	if (!r)
		r = write_attrs(df, &off, &attrs_off, &attrs_size, err);
	if (!r)
		r = flush(df, err);
	if (!r) {
		ps_put64(h, PS_MAGIC, df->swap);
		ps_put64(h + 8, PS_FILE_HEADER_SIZE, df->swap);
		ps_put64(h + 16, ATTR_SIZE_61 + 16, df->swap);
		ps_put64(h + 24, attrs_off, df->swap);
		ps_put64(h + 32, attrs_size, df->swap);
		ps_put64(h + 40, PS_FILE_HEADER_SIZE, df->swap);
		ps_put64(h + 48, df->data_size, df->swap);
		for (i = 0; i < 4; i++)
			ps_put64(h + 72 + 8 * i, bits[i], df->swap);
		if (lseek(df->fd, 0, SEEK_SET) != 0 || ps_write_full(df->fd, h, sizeof(h)) < 0)
			r = ps_error__sys(err, PS_EWRITE, df->name, "cannot write the file header");
	}
	if (close(df->fd) < 0 && !r)
		r = ps_error__sys(err, PS_EWRITE, df->name, "write error");
	for (i = 0; i < PS_FEAT_BITS; i++)
		free(df->feat[i].p);
	free(df->attrs.p);
	free(df->buildids.p);
	free(df->buf);
	free(df);
	return r;
}
