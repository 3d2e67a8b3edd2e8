// SPDX-License-Identifier: GPL-2.0-only
/*
 * input.c - the record reader: sniff the header, frame records, fetch the out-of-band
 * payloads of TRACING_DATA and AUXTRACE, decompress COMPRESSED records, and show a
 * perf.data file as the pipe stream it is equivalent to.
 *
 * Bytes are read with read(2) into one buffer that grows only as far as the largest record
 * (plus a capped payload) needs.  A record handed out points into that buffer and stays
 * valid until the next call, which is when it is consumed.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "input.h"
#include "io.h"
#include "readahead.h"
#include "session.h"
#include "signals.h"
#include "xalloc.h"

#define BUF_INITIAL (256u << 10)
#define PIPE_WANT (1 << 20)
#define READAHEAD_SIZE (1u << 20)
/* read in place: the window grows this much at a time, for needs up to the max */
#define IN_PLACE_STEP (256u << 10)
#define IN_PLACE_MAX (READAHEAD_SIZE / 2)
#define ZBUF_SIZE (512u << 10)
#define ZOUT_MIN (128u << 10) /* free room kept for each decompression step */

struct synth {
	unsigned char *buf; /* records made from a perf.data file's header, back to back */
	size_t len, cap, pos;
	uint64_t *offsets; /* file offset of what each synthesized record stands for */
	size_t nr, nr_cap, next;
};

struct ps_input {
	int fd;
	bool own_fd;
	char *name;
	unsigned int flags;
	enum ps_format format;
	bool swap;
	bool failed;
	bool at_eof;
	struct ps_error saved;    /* the error that finished the input */
	struct ps_error deferred; /* damage found early, reported at the end */

	unsigned char *buf;
	size_t cap, start, end; /* buffered bytes are buf[start, end) */
	uint64_t pos;           /* input offset of buf[start] */
	uint64_t limit;         /* offset where the records end (perf.data: data section end) */
	size_t consume;         /* bytes of the record handed out last, dropped on the next call */
	uint64_t skip;          /* then these bytes: a payload not delivered (PS_INPUT_SKIP_AUX) */
	uint64_t skip_off;      /* offset of the record they belong to */
	uint64_t seq;

	/* decompression */
	ZSTD_DStream *zd;
	unsigned char *zbuf;
	size_t zstart, zend;
	const unsigned char *zin; /* the COMPRESSED payload being decompressed */
	size_t zin_len, zin_pos;
	size_t zconsume;
	uint64_t zoffset; /* offset of that COMPRESSED record */
	uint64_t zout;    /* bytes decompressed so far, all records together */
	uint64_t zbase;   /* zout when the COMPRESSED record being drained began */
	bool zactive;

	struct synth synth;
	struct ps_session *session;

	void (*wait_hook)(void *);
	void *wait_arg;
	int idle_ms;
	bool live;               /* a pipe, socket or terminal: drained after a first SIGINT */
	uint64_t drain_seen;     /* bytes come in when the drain last looked */
	struct ps_readahead *ra; /* a pipe or socket read by a thread of its own, or NULL */
	unsigned char *ring;     /* its ring mapped twice, when records are read in place */
	size_t ring_cap;         /* in place when buf is ring: buf[start] is stream byte pos */
	unsigned char *heap;     /* the buffer of our own, buf when not in place */
	size_t heap_cap;
};

static int fail(struct ps_input *in, struct ps_error *err, int code, uint64_t off, const char *fmt,
                ...) PS_PRINTF(5, 6);

static int fail(struct ps_input *in, struct ps_error *err, int code, uint64_t off, const char *fmt,
                ...)
{
	va_list ap;

	in->failed = true;
	in->saved.code = code;
	in->saved.input = in->name;
	in->saved.sys_errno = 0;
	in->saved.has_offset = off != PS_NO_OFFSET;
	in->saved.offset = in->saved.has_offset ? off : 0;
	va_start(ap, fmt);
	vsnprintf(in->saved.detail, sizeof(in->saved.detail), fmt, ap);
	va_end(ap);
	if (code == PS_ESYS)
		in->saved.sys_errno = errno;
	if (err)
		*err = in->saved;
	return -1;
}

static const char *type_name(uint32_t type, char *tmp, size_t len)
{
	const char *n = ps_record_type_name(type);

	if (n)
		return n;
	snprintf(tmp, len, "type %" PRIu32, type);
	return tmp;
}

/*
 * After a first SIGINT (signals.h): -1 when none came, 0 when the input is to end now (a
 * file, or a live input quiet for too long, or the drain's time is up), else how many ms
 * a wait for bytes may last.
 */
static int drain(struct ps_input *in)
{
	uint64_t seen = in->pos + (in->end - in->start);
	bool progress = seen != in->drain_seen;

	in->drain_seen = seen;
	return ps_signals__drain_wait(in->live, progress);
}

/* How long a wait for bytes lasts: the idle timeout, or less in a drain (*@drained set). */
static int wait_ms(const struct ps_input *in, int d, bool *drained)
{
	int ms = in->idle_ms > 0 ? in->idle_ms : -1;

	*drained = d > 0 && (ms < 0 || d <= ms);
	return *drained ? d : ms;
}

/* Before waiting for the read-ahead thread: the hook (a flush), then the idle timeout.
 * 1 to look again, 0 when stopped, PS_INPUT_IDLE. */
static int await(struct ps_input *in)
{
	bool drained;
	int w, d, ms;

	if (in->wait_hook)
		in->wait_hook(in->wait_arg);
	d = drain(in);
	if (d == 0)
		return 0;
	ms = wait_ms(in, d, &drained);
	w = ps_readahead__wait(in->ra, ms);
	if (w == 0)
		return drained ? 1 : PS_INPUT_IDLE; /* drained: the next look ends it */
	if (w < 0 && errno == EINTR && ps_stop)
		return 0;
	return 1;
}

/* fill() in the read-ahead ring: the window grows over the bytes the thread has read,
 * IN_PLACE_STEP at a time so that the thread keeps room to read into. */
static int fill_in_place(struct ps_input *in, size_t need, struct ps_error *err)
{
	for (;;) {
		size_t have = in->end - in->start, grow;
		ssize_t n;
		int r;

		if (have >= need)
			return 1;
		if (in->at_eof)
			return 0;
		/* the same bytes a ring's length lower: buf[start] stays in the first mapping */
		if (in->start >= in->ring_cap) {
			in->start -= in->ring_cap;
			in->end -= in->ring_cap;
		}
		n = ps_readahead__advance(in->ra, in->pos, in->pos + have);
		if (n > 0) {
			grow = need - have > IN_PLACE_STEP ? need - have : IN_PLACE_STEP;
			if ((size_t)n < grow)
				grow = (size_t)n;
			in->end += grow;
			continue;
		}
		if (n == 0) {
			in->at_eof = true;
			return 0;
		}
		if (errno != EAGAIN)
			return fail(in, err, PS_ESYS, PS_NO_OFFSET, "read error");
		r = await(in);
		if (r != 1)
			return r;
	}
}

/* Our own buffer made room for at least @need bytes (its contents kept); -1 out of memory. */
static int grow_heap(struct ps_input *in, size_t need, struct ps_error *err)
{
	size_t ncap = in->heap_cap;
	unsigned char *nb;

	if (ncap >= need)
		return 0;
	while (ncap < need)
		ncap *= 2;
	nb = realloc(in->heap, ncap);
	if (!nb)
		return fail(in, err, PS_ENOMEM, in->pos, "out of memory");
	in->heap = nb;
	in->heap_cap = ncap;
	return 0;
}

/*
 * Read in place when the ring allows it and the need is small; a larger need (a big
 * TRACING_DATA) takes the window into the buffer of our own and copies from the ring,
 * only what it needs, so that the window empties at the end of that record and the reading
 * goes back in place.  0 to go on in place, 1 to go on in our buffer, -1 out of memory.
 */
static int choose_place(struct ps_input *in, size_t need, struct ps_error *err)
{
	size_t have = in->end - in->start;

	if (!in->ring)
		return 1;
	if (in->buf != in->ring) {
		if (have || need > IN_PLACE_MAX)
			return 1;
		in->buf = in->ring;
		in->cap = 2 * in->ring_cap;
		in->start = in->end = (size_t)(in->pos % in->ring_cap);
		return 0;
	}
	if (need <= IN_PLACE_MAX)
		return 0;
	if (grow_heap(in, need, err) < 0)
		return -1;
	memcpy(in->heap, in->buf + in->start, have);
	/* the window is ours now: the ring may read over it */
	(void)ps_readahead__advance(in->ra, in->pos + have, in->pos + have);
	in->buf = in->heap;
	in->cap = in->heap_cap;
	in->start = 0;
	in->end = have;
	return 1;
}

/*
 * Make at least @need bytes available from buf[start].  Returns 1 when they are, 0 when the
 * input (or the data section) ends first, PS_INPUT_IDLE on an idle timeout, -1 on a read
 * error.
 */
static int fill(struct ps_input *in, size_t need, struct ps_error *err)
{
	if (in->ring) {
		int r = choose_place(in, need, err);

		if (r <= 0)
			return r < 0 ? -1 : fill_in_place(in, need, err);
	}
	while (in->end - in->start < need) {
		uint64_t have_to = in->pos + (in->end - in->start);
		size_t want;
		ssize_t n;

		if (in->at_eof || have_to >= in->limit)
			return 0;
		if (need > in->cap - in->start) {
			if (in->start) {
				memmove(in->buf, in->buf + in->start, in->end - in->start);
				in->end -= in->start;
				in->start = 0;
			}
			if (need > in->cap) {
				if (grow_heap(in, need, err) < 0)
					return -1;
				in->buf = in->heap;
				in->cap = in->heap_cap;
			}
		}
		want = in->cap - in->end;
		if (in->limit - have_to < want)
			want = (size_t)(in->limit - have_to);
		if (in->format == PS_FORMAT_FILE) {
			n = ps_pread_full(in->fd, in->buf + in->end, want, (off_t)have_to);
			if (n == 0)
				in->at_eof = true;
		} else if (in->ra) {
			/* from a ring read in place otherwise: no more than this record */
			if (in->ring && want > need - (in->end - in->start))
				want = need - (in->end - in->start);
			n = ps_readahead__take(in->ra, in->buf + in->end, want);
			if (n < 0 && errno == EAGAIN) {
				/* only before waiting does the hook run (flush) and the idle
				 * timeout apply */
				int r = await(in);

				if (r != 1)
					return r;
				continue;
			}
			if (n == 0)
				in->at_eof = true;
		} else {
			int d = in->live ? drain(in) : -1;

			if (d == 0)
				return 0;
			/* one poll when bytes are waiting, as they mostly are; only before
			 * blocking does the hook run (flush) and the idle timeout apply */
			if ((in->wait_hook || in->idle_ms > 0 || d > 0) &&
			    ps_fd_wait(in->fd, 0) == 0) {
				bool drained;
				int ms = wait_ms(in, d, &drained);

				if (in->wait_hook)
					in->wait_hook(in->wait_arg);
				if (ms >= 0) {
					int w = ps_fd_wait(in->fd, ms);

					if (w == 0 && !drained)
						return PS_INPUT_IDLE;
					if (w == 0 || (w < 0 && errno == EINTR && !ps_stop))
						continue; /* drained, or a first SIGINT: look again */
					if (w < 0 && errno == EINTR)
						return 0;
				}
			}
			n = ps_read_some(in->fd, in->buf + in->end, want);
			if (n == 0)
				in->at_eof = true;
		}
		if (n < 0) {
			if (errno == EINTR && ps_stop)
				return 0; /* interrupted: end quietly at a record boundary */
			if (errno == EINTR && ps_interrupted)
				continue; /* a first SIGINT: read on, with the drain's timeout */
			return fail(in, err, PS_ESYS, PS_NO_OFFSET, "read error");
		}
		in->end += (size_t)n;
	}
	return 1;
}

/* the common case, bytes already in the buffer, without a call */
static inline int ensure(struct ps_input *in, size_t need, struct ps_error *err)
{
	if (in->end - in->start >= need)
		return 1;
	return fill(in, need, err);
}

static void put_header(unsigned char *p, uint32_t type, uint16_t misc, uint16_t size, bool swap)
{
	ps_put32(p, type, swap);
	ps_put16(p + 4, misc, swap);
	ps_put16(p + 6, size, swap);
}

/* ---- perf.data files: the header shown as pipe records ---- */

/* An error to report once everything before it has been delivered. */
static void defer(struct ps_input *in, uint64_t off, const char *fmt, ...) PS_PRINTF(3, 4);

static void defer(struct ps_input *in, uint64_t off, const char *fmt, ...)
{
	va_list ap;

	if (in->deferred.code)
		return;
	in->deferred.code = PS_ETRUNC;
	in->deferred.input = in->name;
	in->deferred.has_offset = true;
	in->deferred.offset = off;
	va_start(ap, fmt);
	vsnprintf(in->deferred.detail, sizeof(in->deferred.detail), fmt, ap);
	va_end(ap);
}

static unsigned char *synth_add(struct synth *s, size_t len, uint64_t offset)
{
	unsigned char *p;

	if (ps_grow((void **)&s->buf, &s->cap, s->len + len, 1, 4096) ||
	    ps_grow((void **)&s->offsets, &s->nr_cap, s->nr + 1, sizeof(*s->offsets), 64))
		return NULL;
	s->offsets[s->nr++] = offset;
	p = s->buf + s->len;
	memset(p, 0, len);
	s->len += len;
	return p;
}

static int read_at(struct ps_input *in, void *buf, size_t len, uint64_t off, uint64_t fsize,
                   const char *what, struct ps_error *err)
{
	ssize_t n;

	if (off > fsize || len > fsize - off)
		return fail(in, err, PS_ECORRUPT, off,
		            "%s of %zu bytes runs past the end of the file (%" PRIu64 " bytes)",
		            what, len, fsize);
	n = ps_pread_full(in->fd, buf, len, (off_t)off);
	if (n < 0)
		return fail(in, err, PS_ESYS, off, "read error");
	if ((size_t)n < len)
		return fail(in, err, PS_ETRUNC, off, "%s is cut short", what);
	return 0;
}

static int synth_attrs(struct ps_input *in, const unsigned char *fh, uint64_t fsize,
                       struct ps_error *err)
{
	uint64_t attr_size = ps_get64(fh + PS_FH_ATTR_SIZE, in->swap);
	uint64_t off = ps_get64(fh + PS_FH_ATTRS, in->swap);
	uint64_t size = ps_get64(fh + PS_FH_ATTRS + 8, in->swap);
	unsigned char entry[PS_ATTR_SIZE_MAX + 1024];
	uint64_t nr, i;

	if (attr_size < PS_ATTR_SIZE_VER0 + 16 || attr_size > sizeof(entry))
		return fail(in, err, PS_ECORRUPT, PS_FH_ATTR_SIZE,
		            "attr size %" PRIu64 " is not possible", attr_size);
	if (size % attr_size)
		return fail(in, err, PS_ECORRUPT, PS_FH_ATTRS,
		            "attrs section of %" PRIu64
		            " bytes is not a multiple of the attr size %" PRIu64,
		            size, attr_size);
	nr = size / attr_size;
	if (nr > PS_MAX_ATTRS)
		return fail(in, err, PS_ECAP, PS_FH_ATTRS,
		            "%" PRIu64 " attrs is more than the limit of %u", nr, PS_MAX_ATTRS);
	for (i = 0; i < nr; i++) {
		uint64_t eoff = off + i * attr_size;
		uint32_t asz = (uint32_t)(attr_size - 16);
		uint64_t ids_off, ids_size, rsize;
		unsigned char *rec;

		if (read_at(in, entry, attr_size, eoff, fsize, "attr", err))
			return -1;
		ids_off = ps_get64(entry + asz, in->swap);
		ids_size = ps_get64(entry + asz + 8, in->swap);
		if (ids_size % 8)
			return fail(in, err, PS_ECORRUPT, eoff,
			            "attr ids of %" PRIu64 " bytes is not a multiple of 8",
			            ids_size);
		rsize = 8 + asz + ids_size;
		if (ids_size > UINT16_MAX || rsize > UINT16_MAX)
			return fail(in, err, PS_ECAP, eoff,
			            "attr with %" PRIu64 " ids does not fit in one ATTR record",
			            ids_size / 8);
		rec = synth_add(&in->synth, rsize, eoff);
		if (!rec)
			return fail(in, err, PS_ENOMEM, eoff, "out of memory");
		put_header(rec, PS_RECORD_HEADER_ATTR, 0, (uint16_t)rsize, in->swap);
		memcpy(rec + 8, entry, asz);
		ps_put32(rec + 8 + PS_ATTR_SIZE, asz, in->swap);
		if (ids_size &&
		    read_at(in, rec + 8 + asz, ids_size, ids_off, fsize, "attr ids", err))
			return -1;
	}
	return 0;
}

static int synth_tracing(struct ps_input *in, uint64_t off, uint64_t size, uint64_t fsize,
                         struct ps_error *err)
{
	uint64_t padded = PS_ALIGN8(size);
	unsigned char *rec;

	if (padded > PS_MAX_TRACING_DATA)
		return fail(in, err, PS_ECAP, off,
		            "tracing data of %" PRIu64 " bytes is over the limit of %u", size,
		            PS_MAX_TRACING_DATA);
	rec = synth_add(&in->synth, 16 + padded, off);
	if (!rec)
		return fail(in, err, PS_ENOMEM, off, "out of memory");
	put_header(rec, PS_RECORD_HEADER_TRACING_DATA, 0, 16, in->swap);
	ps_put32(rec + 8, (uint32_t)padded, in->swap);
	return read_at(in, rec + 16, size, off, fsize, "tracing data", err);
}

static int synth_build_ids(struct ps_input *in, uint64_t off, uint64_t size, uint64_t fsize,
                           struct ps_error *err)
{
	unsigned char *sec;
	uint64_t p = 0;

	if (size > PS_MAX_FEATURE_SECTION)
		return fail(in, err, PS_ECAP, off,
		            "build-id section of %" PRIu64 " bytes is over the limit", size);
	sec = malloc(size ? size : 1);
	if (!sec)
		return fail(in, err, PS_ENOMEM, off, "out of memory");
	if (read_at(in, sec, size, off, fsize, "build-id section", err)) {
		free(sec);
		return -1;
	}
	while (size - p >= 8) {
		uint16_t rsz = ps_get16(sec + p + 6, in->swap);
		unsigned char *rec;

		if (rsz < 8 || rsz > size - p) {
			free(sec);
			return fail(in, err, PS_ECORRUPT, off + p,
			            "build-id entry of %u bytes does not fit its section", rsz);
		}
		rec = synth_add(&in->synth, rsz, off + p);
		if (!rec) {
			free(sec);
			return fail(in, err, PS_ENOMEM, off, "out of memory");
		}
		memcpy(rec, sec + p, rsz);
		/* perf stores these with a zero type in the file; the stream names it */
		ps_put32(rec, PS_RECORD_HEADER_BUILD_ID, in->swap);
		p += rsz;
	}
	free(sec);
	return 0;
}

static int synth_features(struct ps_input *in, const unsigned char *fh, uint64_t fsize,
                          struct ps_error *err)
{
	uint64_t data_off = ps_get64(fh + PS_FH_DATA, in->swap);
	uint64_t data_size = ps_get64(fh + PS_FH_DATA + 8, in->swap);
	uint64_t idx_off = data_off + data_size, tr_off = 0, tr_size = 0, bi_off = 0, bi_size = 0;
	unsigned int feat, nr = 0, highest = 0;
	bool have_tr = false, have_bi = false;

	for (feat = 1; feat < PS_FEAT_BITS; feat++) {
		uint64_t word = ps_get64(fh + PS_FH_FEATURES + 8 * (feat / 64), in->swap);
		unsigned char sec[16], *rec;
		uint64_t off, size;

		if (!(word & (1ULL << (feat % 64))))
			continue;
		if (idx_off + 16ULL * nr + 16 > fsize) {
			defer(in, idx_off + 16ULL * nr, "the feature index is cut short");
			break;
		}
		if (read_at(in, sec, 16, idx_off + 16ULL * nr, fsize, "feature index", err))
			return -1;
		nr++;
		off = ps_get64(sec, in->swap);
		size = ps_get64(sec + 8, in->swap);
		if (off > fsize || size > fsize - off) {
			/* a file cut short: what is before the cut is still delivered */
			defer(in, idx_off + 16ULL * (nr - 1),
			      "feature %u section runs past the end of the file", feat);
			break;
		}
		highest = feat;
		if (feat == PS_FEAT_TRACING_DATA) {
			have_tr = true;
			tr_off = off;
			tr_size = size;
			continue;
		}
		if (feat == PS_FEAT_BUILD_ID) {
			have_bi = true;
			bi_off = off;
			bi_size = size;
			continue;
		}
		if (feat == PS_FEAT_AUXTRACE)
			continue; /* file offsets of AUXTRACE records: meaningless in a stream */
		if (16 + size > UINT16_MAX)
			continue; /* does not fit a record: perf drops it in pipe mode too */
		rec = synth_add(&in->synth, 16 + size, off);
		if (!rec)
			return fail(in, err, PS_ENOMEM, off, "out of memory");
		put_header(rec, PS_RECORD_HEADER_FEATURE, 0, (uint16_t)(16 + size), in->swap);
		ps_put64(rec + 8, feat, in->swap);
		if (read_at(in, rec + 16, size, off, fsize, "feature section", err))
			return -1;
	}
	if (nr) {
		/* the end marker a pipe stream carries after its features */
		unsigned int last = highest >= PS_FEAT_LAST_61 ? highest + 1 : PS_FEAT_LAST_61;
		unsigned char *rec = synth_add(&in->synth, 16, idx_off);

		if (!rec)
			return fail(in, err, PS_ENOMEM, idx_off, "out of memory");
		put_header(rec, PS_RECORD_HEADER_FEATURE, 0, 16, in->swap);
		ps_put64(rec + 8, last, in->swap);
	}
	if (have_tr && synth_tracing(in, tr_off, tr_size, fsize, err))
		return -1;
	if (have_bi && synth_build_ids(in, bi_off, bi_size, fsize, err))
		return -1;
	return 0;
}

/* ---- perf.data files: the section table checked before anything is read through it ---- */

struct section {
	uint64_t off, size;
	uint64_t where; /* offset of the header field that points at it */
	char name[40];
};

struct sections {
	struct section *v;
	size_t nr, cap;
};

static int section_add(struct sections *t, uint64_t where, uint64_t off, uint64_t size,
                       const char *fmt, ...) PS_PRINTF(5, 6);

static int section_add(struct sections *t, uint64_t where, uint64_t off, uint64_t size,
                       const char *fmt, ...)
{
	va_list ap;

	if (!size)
		return 0; /* an empty section overlaps nothing */
	if (t->nr == t->cap) {
		size_t n = t->cap ? t->cap * 2 : 32;
		struct section *v = ps_realloc_array(t->v, n, sizeof(*v));

		if (!v)
			return -1;
		t->v = v;
		t->cap = n;
	}
	t->v[t->nr].off = off;
	t->v[t->nr].size = size;
	t->v[t->nr].where = where;
	va_start(ap, fmt);
	vsnprintf(t->v[t->nr].name, sizeof(t->v[t->nr].name), fmt, ap);
	va_end(ap);
	t->nr++;
	return 0;
}

static int section_cmp(const void *a, const void *b)
{
	const struct section *x = a, *y = b;

	return x->off < y->off ? -1 : x->off > y->off;
}

/* One offset/size pair: -1 with @err filled when it wraps around 2^64. */
static int section_wraps(struct ps_input *in, uint64_t where, const char *what, uint64_t off,
                         uint64_t size, struct ps_error *err)
{
	if (off + size >= off)
		return 0;
	return fail(in, err, PS_ECORRUPT, where,
	            "%s [0x%" PRIx64 ", +0x%" PRIx64 "] wraps around the end of the address space",
	            what, off, size);
}

/*
 * Every section the header points at: no offset + size that wraps, none past the end of the
 * file (the data section excepted: a file cut short keeps its complete records, and the
 * feature sections: the cut is reported after them), none overlapping the file header or
 * another section.  A section that overlaps another would make its bytes be read twice, as
 * two kinds of thing (a build-id section over the data section turns samples into build-ids).
 */
static int check_sections(struct ps_input *in, const unsigned char *fh, uint64_t hsize,
                          uint64_t fsize, struct ps_error *err)
{
	uint64_t attr_size = ps_get64(fh + PS_FH_ATTR_SIZE, in->swap);
	uint64_t aoff = ps_get64(fh + PS_FH_ATTRS, in->swap);
	uint64_t asize = ps_get64(fh + PS_FH_ATTRS + 8, in->swap);
	uint64_t doff = ps_get64(fh + PS_FH_DATA, in->swap);
	uint64_t dsize = ps_get64(fh + PS_FH_DATA + 8, in->swap);
	struct sections t = { 0 };
	unsigned char e[16];
	unsigned int feat, nr = 0;
	uint64_t i, idx_off;
	int r = -1;

	if (section_wraps(in, PS_FH_ATTRS, "attrs section", aoff, asize, err) ||
	    section_wraps(in, PS_FH_DATA, "data section", doff, dsize, err))
		return -1;
	if (aoff > fsize || asize > fsize - aoff)
		return fail(in, err, PS_ECORRUPT, PS_FH_ATTRS,
		            "attrs section [0x%" PRIx64 ", +0x%" PRIx64
		            "] runs past the end of the file (%" PRIu64 " bytes)",
		            aoff, asize, fsize);
	if (section_add(&t, 0, 0, hsize, "file header") ||
	    section_add(&t, PS_FH_ATTRS, aoff, asize, "attrs section") ||
	    section_add(&t, PS_FH_DATA, doff,
	                dsize && doff <= fsize && dsize <= fsize - doff ? dsize : 1,
	                "data section"))
		goto nomem;
	/* the ids of each attr: a section of their own */
	if (attr_size >= PS_ATTR_SIZE_VER0 + 16 && attr_size <= PS_ATTR_SIZE_MAX + 1024 &&
	    asize % attr_size == 0 && asize / attr_size <= PS_MAX_ATTRS) {
		for (i = 0; i < asize / attr_size; i++) {
			uint64_t eoff = aoff + i * attr_size + attr_size - 16, ioff, isize;

			if (read_at(in, e, 16, eoff, fsize, "attr", err))
				goto out;
			ioff = ps_get64(e, in->swap);
			isize = ps_get64(e + 8, in->swap);
			if (section_wraps(in, eoff, "attr ids section", ioff, isize, err))
				goto out;
			if (section_add(&t, eoff, ioff, isize, "ids section of attr %" PRIu64, i))
				goto nomem;
		}
	}
	/* the feature sections, through the index after the data section */
	idx_off = doff + dsize;
	for (feat = 1; dsize && feat < PS_FEAT_BITS; feat++) {
		uint64_t word = ps_get64(fh + PS_FH_FEATURES + 8 * (feat / 64), in->swap);
		const char *fname = ps_feature_name(feat);
		uint64_t off, size;

		if (!(word & (1ULL << (feat % 64))))
			continue;
		if (idx_off > fsize || 16ULL * nr + 16 > fsize - idx_off)
			break; /* cut short: reported while the features are read */
		if (read_at(in, e, 16, idx_off + 16ULL * nr, fsize, "feature index", err))
			goto out;
		nr++;
		off = ps_get64(e, in->swap);
		size = ps_get64(e + 8, in->swap);
		if (section_wraps(in, idx_off + 16ULL * (nr - 1), "feature section", off, size,
		                  err))
			goto out;
		if (off > fsize || size > fsize - off)
			break; /* cut short, likewise */
		if (fname ? section_add(&t, idx_off + 16ULL * (nr - 1), off, size,
		                        "%s feature section", fname) :
		            section_add(&t, idx_off + 16ULL * (nr - 1), off, size,
		                        "feature %u section", feat))
			goto nomem;
	}
	if (nr && section_add(&t, PS_FH_DATA, idx_off, 16ULL * nr, "feature index"))
		goto nomem;
	qsort(t.v, t.nr, sizeof(*t.v), section_cmp);
	for (i = 1; i < t.nr; i++) {
		const struct section *a = &t.v[i - 1], *b = &t.v[i];

		if (b->off < a->off + a->size) {
			fail(in, err, PS_ECORRUPT, b->where,
			     "%s [0x%" PRIx64 ", +0x%" PRIx64 "] overlaps the %s [0x%" PRIx64
			     ", +0x%" PRIx64 "]",
			     b->name, b->off, b->size, a->name, a->off, a->size);
			goto out;
		}
	}
	r = 0;
	goto out;
nomem:
	fail(in, err, PS_ENOMEM, PS_NO_OFFSET, "out of memory");
out:
	free(t.v);
	return r;
}

static int open_file(struct ps_input *in, const unsigned char *first16, struct ps_error *err)
{
	unsigned char fh[PS_FILE_HEADER_SIZE];
	uint64_t hsize = ps_get64(first16 + 8, in->swap), data_off, data_size, fsize;
	bool killed = false;
	struct stat st;

	/* perf 6.1 also reads the header of an older perf: the 72 bytes before the feature
	 * bitmap, and no features */
	if ((hsize < PS_FILE_HEADER_SIZE && hsize != PS_FH_FEATURES) || hsize > 4096)
		return fail(in, err, PS_EMAGIC, 8,
		            "header size %" PRIu64
		            " is neither a pipe stream's (16) nor a perf.data file's (104, or 72)",
		            hsize);
	if (fstat(in->fd, &st) < 0 || !S_ISREG(st.st_mode) || lseek(in->fd, 0, SEEK_CUR) < 0)
		return fail(
		        in, err, PS_EUNSUP, 0,
		        "a perf.data file must be a regular file, not a pipe (give its name as an operand)");
	fsize = (uint64_t)st.st_size;
	in->format = PS_FORMAT_FILE;
	memset(fh, 0, sizeof(fh));
	if (read_at(in, fh, hsize < sizeof(fh) ? hsize : sizeof(fh), 0, fsize, "file header",
	            err) ||
	    check_sections(in, fh, hsize, fsize, err))
		return -1;
	data_off = ps_get64(fh + PS_FH_DATA, in->swap);
	data_size = ps_get64(fh + PS_FH_DATA + 8, in->swap);
	if (data_size == 0 && data_off < fsize) {
		/* perf record did not finish (killed): its header still says 0, the
		 * records run to the end of the file, as perf itself assumes, and the
		 * feature sections were never written */
		data_size = fsize - data_off;
		killed = true;
	}
	if (data_off <= fsize && data_size > fsize - data_off) {
		/* cut short: deliver the attrs and every complete record, then say so */
		killed = true;
	}
	if (data_off > fsize)
		return fail(in, err, PS_ECORRUPT, PS_FH_DATA,
		            "data section [0x%" PRIx64 ", +0x%" PRIx64
		            "] runs past the end of the file (%" PRIu64 " bytes)",
		            data_off, data_size, fsize);
	if (synth_attrs(in, fh, fsize, err) || (!killed && synth_features(in, fh, fsize, err)))
		return -1;
	in->pos = data_off;
	in->limit = data_off + data_size;
	in->start = in->end = 0;
	return 0;
}

/*
 * The version 1 magic ("PERFFILE") says nothing of the byte order: perf 6.1 guesses it
 * from a size (check_magic_endian): a pipe header's size is 16, a file header's attr_size
 * is one of the attr sizes of that time plus 16.  Everything after the magic is read as
 * in version 2.
 */
static int v1_byte_order(struct ps_input *in, struct ps_error *err)
{
	static const uint64_t abi[] = { 64, 72, 80, 96, 104 };
	uint64_t v, attr_size;
	unsigned char fh[24];
	size_t i;
	int r;

	v = ps_get64(in->buf + 8, false);
	if (v == PS_PIPE_HEADER_SIZE || __builtin_bswap64(v) == PS_PIPE_HEADER_SIZE) {
		in->swap = v != PS_PIPE_HEADER_SIZE;
		return 0;
	}
	r = ensure(in, sizeof(fh), err);
	if (r < 0)
		return -1;
	if (in->end < sizeof(fh))
		return fail(in, err, PS_ETRUNC, 0, "the file header is cut short");
	memcpy(fh, in->buf, sizeof(fh));
	attr_size = ps_get64(fh + 16, false);
	for (i = 0; i < ARRAY_SIZE(abi); i++) {
		if (attr_size == abi[i] + 16 || __builtin_bswap64(attr_size) == abi[i] + 16) {
			in->swap = attr_size != abi[i] + 16;
			return 0;
		}
	}
	return fail(in, err, PS_EUNSUP, 16,
	            "a version 1 perf.data file (PERFFILE) whose attr size %" PRIu64
	            " is none perf knows: its byte order cannot be told",
	            attr_size);
}

static int open_common(struct ps_input *in, struct ps_error *err)
{
	unsigned char hdr[16];
	uint64_t magic, size;
	int r;

	/* a pipe of 1 MiB (the unprivileged limit) instead of 64 KiB: the writer and we
	 * wake each other sixteen times less often; where refused, the pipe stays as it is */
	{
		struct stat st;
		bool known = fstat(in->fd, &st) == 0;
		bool fifo = known && S_ISFIFO(st.st_mode);

		if (fifo && fcntl(in->fd, F_GETPIPE_SZ) < PIPE_WANT)
			(void)fcntl(in->fd, F_SETPIPE_SZ, PIPE_WANT);
		/* the copy out of the kernel done by a thread, on another CPU than the work on
		 * the bytes read before; without a thread, the reads are done here */
		if (fifo || (known && S_ISSOCK(st.st_mode)))
			in->ra = ps_readahead__new(in->fd, READAHEAD_SIZE);
		/* what a writer may still be writing to: read on briefly after a first SIGINT */
		in->live = known && !S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode);
		if (in->live)
			ps_signals__live_input(true);
		if (in->ra)
			in->ring = ps_readahead__map(in->ra, &in->ring_cap);
	}
	in->cap = in->heap_cap = BUF_INITIAL;
	in->buf = in->heap = malloc(in->cap);
	if (!in->buf)
		return fail(in, err, PS_ENOMEM, PS_NO_OFFSET, "out of memory");
	in->limit = UINT64_MAX;
	r = ensure(in, 16, err);
	if (r < 0)
		return -1;
	if (r == PS_INPUT_IDLE) /* no idle timeout is set yet: cannot happen */
		return fail(in, err, PS_ESYS, 0, "unexpected idle");
	if (in->end == 0)
		return fail(in, err, PS_EEMPTY, 0, "empty input");
	if (in->end < 8)
		return fail(in, err, PS_EMAGIC, 0, "not a perf stream (%zu bytes)", in->end);
	memcpy(hdr, in->buf, 8);
	magic = ps_get64(hdr, false);
	if (in->end < 16 &&
	    (magic == PS_MAGIC || magic == PS_MAGIC_SWAPPED || memcmp(hdr, "PERFFILE", 8) == 0))
		return fail(in, err, PS_ETRUNC, 0, "the stream header is cut short");
	if (magic == PS_MAGIC) {
		in->swap = false;
	} else if (magic == PS_MAGIC_SWAPPED) {
		in->swap = true;
	} else if (memcmp(hdr, "PERFFILE", 8) == 0) {
		if (v1_byte_order(in, err) < 0)
			return -1;
	} else {
		return fail(in, err, PS_EMAGIC, 0, "not a perf stream (no PERFILE2 magic)");
	}
	memcpy(hdr + 8, in->buf + 8, 8);
	size = ps_get64(hdr + 8, in->swap);
	in->session = ps_session__new(in->swap);
	if (!in->session)
		return fail(in, err, PS_ENOMEM, PS_NO_OFFSET, "out of memory");
	if (size == PS_PIPE_HEADER_SIZE) {
		in->format = PS_FORMAT_PIPE;
		in->start = 16;
		in->pos = 16;
		return 0;
	}
	return open_file(in, hdr, err);
}

struct ps_input *ps_input__open_fd(int fd, const char *name, unsigned int flags,
                                   struct ps_error *err)
{
	struct ps_input *in = calloc(1, sizeof(*in));

	if (!in) {
		ps_error__set(err, PS_ENOMEM, name, PS_NO_OFFSET, "out of memory");
		return NULL;
	}
	in->fd = fd;
	in->flags = flags;
	in->name = strdup(name);
	if (!in->name) {
		free(in);
		ps_error__set(err, PS_ENOMEM, name, PS_NO_OFFSET, "out of memory");
		return NULL;
	}
	if (open_common(in, err)) {
		/* keep the message's input name alive for the caller */
		if (err)
			err->input = name;
		ps_input__close(in);
		return NULL;
	}
	return in;
}

struct ps_input *ps_input__open(const char *path, unsigned int flags, struct ps_error *err)
{
	struct ps_input *in;
	int fd;

	if (!path || strcmp(path, "-") == 0)
		return ps_input__open_fd(0, "<stdin>", flags, err);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ps_error__sys(err, PS_ESYS, path, "cannot open");
		return NULL;
	}
	in = ps_input__open_fd(fd, path, flags, err);
	if (!in) {
		close(fd);
		return NULL;
	}
	in->own_fd = true;
	return in;
}

void ps_input__close(struct ps_input *in)
{
	if (!in)
		return;
	if (in->live)
		ps_signals__live_input(false);
	ps_readahead__delete(in->ra);
	if (in->own_fd)
		close(in->fd);
	if (in->zd)
		ZSTD_freeDStream(in->zd);
	ps_session__delete(in->session);
	free(in->zbuf);
	free(in->synth.buf);
	free(in->synth.offsets);
	free(in->heap);
	free(in->name);
	free(in);
}

/* ---- records ---- */

/* Where the inner record at zbuf[zstart] begins in its COMPRESSED record's decompressed data. */
static uint64_t inner_offset(const struct ps_input *in)
{
	uint64_t at = in->zout - (in->zend - in->zstart);

	/* a record begun by the previous COMPRESSED record: count from there */
	return at >= in->zbase ? at - in->zbase : 0;
}

static int deliver(struct ps_input *in, struct ps_record *rec, const unsigned char *p, size_t len,
                   uint64_t off, unsigned int flags, struct ps_error *err)
{
	struct ps_error e;
	unsigned int min;
	char tmp[32];

	e.code = 0; /* not the whole struct: this runs for every record */
	rec->data = p;
	rec->len = len;
	rec->type = ps_get32(p, in->swap);
	rec->misc = ps_get16(p + 4, in->swap);
	rec->size = ps_get16(p + 6, in->swap);
	rec->offset = off;
	rec->seq = in->seq++;
	rec->flags = flags;
	min = ps_record_type_min_size(rec->type);
	if (rec->size < min)
		ps_error__set(&e, PS_ECORRUPT, in->name, off,
		              "%s record of %u bytes is shorter than its fixed fields (%u bytes)",
		              type_name(rec->type, tmp, sizeof(tmp)), rec->size, min);
	else if (rec->type >= PS_RECORD_USER_START) /* the session learns from these only */
		ps_session__process(in->session, rec, in->name, &e);
	if (e.code) {
		if (flags & PS_RECORD_INNER) {
			size_t n = strlen(e.detail);

			snprintf(e.detail + n, sizeof(e.detail) - n,
			         " (at 0x%" PRIx64 " in its decompressed data)", inner_offset(in));
		}
		in->failed = true;
		in->saved = e;
		if (err)
			*err = e;
		return -1;
	}
	return 1;
}

static int next_synth(struct ps_input *in, struct ps_record *rec, struct ps_error *err)
{
	struct synth *s = &in->synth;
	const unsigned char *p = s->buf + s->pos;
	uint32_t type = ps_get32(p, in->swap);
	size_t len = ps_get16(p + 6, in->swap);
	uint64_t off = s->offsets[s->next++];

	if (type == PS_RECORD_HEADER_TRACING_DATA)
		len += ps_get32(p + 8, in->swap);
	s->pos += len;
	return deliver(in, rec, p, len, off, PS_RECORD_SYNTH, err);
}

static int start_zstd(struct ps_input *in, struct ps_error *err, uint64_t off)
{
	if (in->zd)
		return 0;
	in->zd = ZSTD_createDStream();
	in->zbuf = malloc(ZBUF_SIZE);
	if (!in->zd || !in->zbuf)
		return fail(in, err, PS_ENOMEM, off, "out of memory");
	ZSTD_initDStream(in->zd);
	return 0;
}

/* The next record decompressed from the COMPRESSED record being drained: 1, 0 when it needs
 * more compressed input, -1 on error. */
static int next_inner(struct ps_input *in, struct ps_record *rec, struct ps_error *err)
{
	char tmp[32];

	in->zstart += in->zconsume;
	in->zconsume = 0;
	for (;;) {
		size_t avail = in->zend - in->zstart;

		if (avail >= 8) {
			const unsigned char *p = in->zbuf + in->zstart;
			uint16_t size = ps_get16(p + 6, in->swap);
			uint32_t type = ps_get32(p, in->swap);

			if (size < 8)
				return fail(
				        in, err, PS_ECORRUPT, in->zoffset,
				        "compressed data: %s record size %u is smaller than its header"
				        " (at 0x%" PRIx64 " in its decompressed data)",
				        type_name(type, tmp, sizeof(tmp)), size, inner_offset(in));
			if (avail >= size) {
				in->zconsume = size;
				return deliver(in, rec, p, size, in->zoffset, PS_RECORD_INNER, err);
			}
		}
		if (in->zin_pos >= in->zin_len)
			return 0;
		/* decompress more: keep room after the partial record */
		if (ZBUF_SIZE - in->zend < ZOUT_MIN) {
			memmove(in->zbuf, in->zbuf + in->zstart, avail);
			in->zend = avail;
			in->zstart = 0;
		}
		{
			ZSTD_inBuffer zi = { in->zin, in->zin_len, in->zin_pos };
			ZSTD_outBuffer zo = { in->zbuf, ZBUF_SIZE, in->zend };
			size_t r = ZSTD_decompressStream(in->zd, &zo, &zi);

			if (ZSTD_isError(r))
				return fail(in, err, PS_ECORRUPT, in->zoffset,
				            "compressed data: %s", ZSTD_getErrorName(r));
			if (zo.pos == in->zend && zi.pos == in->zin_pos)
				return fail(in, err, PS_ECORRUPT, in->zoffset,
				            "compressed data: the decompressor makes no progress");
			in->zout += zo.pos - in->zend;
			in->zend = zo.pos;
			in->zin_pos = zi.pos;
		}
	}
}

/* Drop in->skip bytes of payload after the record handed out last: from the buffer, then
 * by moving on in a file or reading and dropping from a pipe.  1, 0 when stopped, -1. */
static int skip_payload(struct ps_input *in, struct ps_error *err)
{
	while (in->skip) {
		size_t have = in->end - in->start;
		uint64_t n = in->skip < have ? in->skip : have;
		int r;

		in->start += (size_t)n;
		in->pos += n;
		in->skip -= n;
		if (!in->skip)
			break;
		if (in->format == PS_FORMAT_FILE) {
			if (in->skip > in->limit - in->pos)
				break; /* past the data section: reported below */
			in->pos += in->skip;
			in->skip = 0;
			break;
		}
		in->start = in->end; /* empty: in a ring, start stays where the stream is */
		r = ensure(in, 1, err);
		if (r < 0)
			return -1;
		if (r == PS_INPUT_IDLE)
			return r; /* the caller comes back for the rest */
		if (r == 0)
			break;
	}
	if (in->skip) {
		if (ps_stop)
			return 0;
		return fail(in, err, PS_ETRUNC, in->skip_off,
		            "AUXTRACE payload runs past the end of the input (%" PRIu64
		            " bytes missing)",
		            in->skip);
	}
	return 1;
}

/*
 * The @what ("record", "payload") of @len bytes of a @type record: @need bytes from
 * buf[start], the part before it @before.  As ensure(), but an input that ends first (and
 * was not stopped) fails: the record runs past its end.
 */
static inline int whole(struct ps_input *in, size_t need, uint32_t type, const char *what,
                        uint64_t len, size_t before, struct ps_error *err)
{
	char tmp[32];
	int r = ensure(in, need, err);

	if (r != 0 || ps_stop)
		return r;
	return fail(in, err, PS_ETRUNC, in->pos,
	            "%s %s of %" PRIu64 " bytes runs past the end of the input (%zu bytes left)",
	            type_name(type, tmp, sizeof(tmp)), what, len, in->end - in->start - before);
}

int ps_input__next(struct ps_input *in, struct ps_record *rec, struct ps_error *err)
{
	char tmp[32];
	size_t total;
	uint32_t type;
	uint16_t size;
	int r;

	if (in->failed) {
		if (err)
			*err = in->saved;
		return -1;
	}
	/* after a first SIGINT: a file ends here, a live input when its drain is over */
	if (ps_interrupted && !ps_stop && drain(in) == 0)
		return 0;
	if (in->synth.pos < in->synth.len)
		return next_synth(in, rec, err);
again:
	if (in->zactive) {
		r = next_inner(in, rec, err);
		if (r)
			return r;
		in->zactive = false;
	}

	in->start += in->consume;
	in->pos += in->consume;
	in->consume = 0;
	if (in->skip) {
		r = skip_payload(in, err);
		if (r != 1)
			return r;
	}

	r = ensure(in, 8, err);
	if (r < 0 || r == PS_INPUT_IDLE)
		return r;
	if (r == 0) {
		if (in->end == in->start) {
			if (in->zd && in->zend > in->zstart)
				return fail(in, err, PS_ETRUNC, in->zoffset,
				            "compressed data ends inside a record");
			if (in->deferred.code && !ps_stop) {
				in->failed = true;
				in->saved = in->deferred;
				if (err)
					*err = in->saved;
				return -1;
			}
			if (in->format == PS_FORMAT_FILE && in->pos < in->limit && !ps_stop)
				return fail(in, err, PS_ETRUNC, in->pos,
				            "the data section is cut short: it ends at 0x%" PRIx64
				            ", past the end of the file",
				            in->limit);
			return 0;
		}
		if (ps_stop)
			return 0;
		return fail(in, err, PS_ETRUNC, in->pos,
		            "input ends inside a record header (%zu of 8 bytes)",
		            in->end - in->start);
	}
	type = ps_get32(in->buf + in->start, in->swap);
	size = ps_get16(in->buf + in->start + 6, in->swap);
	if (size < 8)
		return fail(in, err, PS_ECORRUPT, in->pos,
		            "%s record size %u is smaller than its header",
		            type_name(type, tmp, sizeof(tmp)), size);
	if (type == 0 || type > PS_RECORD_TYPE_MAX)
		return fail(in, err, PS_ECORRUPT, in->pos,
		            "record type %" PRIu32 " (0x%" PRIx32
		            ") is not a record type: the stream is corrupt here",
		            type, type);
	r = whole(in, size, type, "record", size, 0, err);
	if (r <= 0 || r == PS_INPUT_IDLE)
		return r;
	total = size;
	if (type == PS_RECORD_HEADER_TRACING_DATA || type == PS_RECORD_AUXTRACE) {
		uint64_t extra, cap;

		/* the payload size: u32 at 8 (TRACING_DATA, header.size 12 or 16), u64 at 8 */
		if (size < (type == PS_RECORD_HEADER_TRACING_DATA ? 12 : 16))
			return fail(in, err, PS_ECORRUPT, in->pos,
			            "%s record of %u bytes is too small to hold its payload size",
			            type_name(type, tmp, sizeof(tmp)), size);
		if (type == PS_RECORD_HEADER_TRACING_DATA) {
			extra = ps_get32(in->buf + in->start + 8, in->swap);
			cap = PS_MAX_TRACING_DATA;
		} else {
			extra = ps_get64(in->buf + in->start + 8, in->swap);
			cap = PS_MAX_AUXTRACE;
		}
		if (extra > cap)
			return fail(in, err, PS_ECAP, in->pos,
			            "%s payload of %" PRIu64 " bytes is over the limit of %" PRIu64,
			            type_name(type, tmp, sizeof(tmp)), extra, cap);
		if (type == PS_RECORD_AUXTRACE && (in->flags & PS_INPUT_SKIP_AUX)) {
			/* delivered without its payload, which is dropped on the next call */
			in->consume = size;
			in->skip = extra;
			in->skip_off = in->pos;
			return deliver(in, rec, in->buf + in->start, size, in->pos, 0, err);
		}
		total += extra;
		r = whole(in, total, type, "payload", extra, size, err);
		if (r <= 0 || r == PS_INPUT_IDLE)
			return r;
	}
	in->consume = total;
	if ((type == PS_RECORD_COMPRESSED || type == PS_RECORD_COMPRESSED2) &&
	    (in->flags & PS_INPUT_DECOMPRESS)) {
		size_t zhead = 8, zlen = size - 8u;

		if (type == PS_RECORD_COMPRESSED2) {
			/* header, u64 data_size, the zstd data padded to 8 bytes */
			uint64_t dsize;

			if (size < 16)
				return fail(
				        in, err, PS_ECORRUPT, in->pos,
				        "COMPRESSED2 record of %u bytes is too small for its data size",
				        size);
			dsize = ps_get64(in->buf + in->start + 8, in->swap);
			if (dsize > size - 16u)
				return fail(in, err, PS_ECORRUPT, in->pos,
				            "COMPRESSED2 data size %" PRIu64
				            " is larger than the record (%u bytes)",
				            dsize, size);
			zhead = 16;
			zlen = (size_t)dsize;
		}
		if (start_zstd(in, err, in->pos))
			return -1;
		in->zin = in->buf + in->start + zhead;
		in->zin_len = zlen;
		in->zin_pos = 0;
		in->zbase = in->zout;
		in->zoffset = in->pos;
		in->zactive = true;
		if (in->flags & PS_INPUT_CONTAINERS)
			return deliver(in, rec, in->buf + in->start, total, in->pos,
			               PS_RECORD_CONTAINER, err);
		r = next_inner(in, rec, err);
		if (r)
			return r;
		goto again; /* nothing came out of it: go on with the next record */
	}
	return deliver(in, rec, in->buf + in->start, total, in->pos, 0, err);
}

struct ps_session *ps_input__session(struct ps_input *in)
{
	return in->session;
}

const char *ps_input__name(const struct ps_input *in)
{
	return in->name;
}

enum ps_format ps_input__format(const struct ps_input *in)
{
	return in->format;
}

bool ps_input__swapped(const struct ps_input *in)
{
	return in->swap;
}

void *ps_input__detach(struct ps_input *in, const struct ps_record *rec)
{
	size_t tail, cap = BUF_INITIAL;
	unsigned char *old = in->heap, *nb;

	if (in->failed || in->zactive || in->skip || in->synth.pos < in->synth.len ||
	    in->buf != in->heap || rec->data != in->heap + in->start || in->consume != rec->len)
		return NULL;
	/* the bytes read after the record go on in the new buffer */
	tail = in->end - in->start - in->consume;
	while (cap < tail)
		cap *= 2;
	nb = malloc(cap);
	if (!nb)
		return NULL;
	memcpy(nb, in->heap + in->start + in->consume, tail);
	in->pos += in->consume;
	in->consume = 0;
	in->buf = in->heap = nb;
	in->cap = in->heap_cap = cap;
	in->start = 0;
	in->end = tail;
	return old;
}

void ps_input__set_wait_hook(struct ps_input *in, void (*fn)(void *), void *arg)
{
	in->wait_hook = fn;
	in->wait_arg = arg;
}

void ps_input__set_idle(struct ps_input *in, int ms)
{
	in->idle_ms = ms;
}
