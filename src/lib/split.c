// SPDX-License-Identifier: GPL-2.0-only
/*
 * split.c - the pieces of psplit: naming, opening and reopening, headers, side-band routing.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "abi.h"
#include "compat.h"
#include "files.h"
#include "io.h"
#include "key.h"
#include "session.h"
#include "sideband.h"
#include "split.h"

#define PIECE_BUF (256u << 10)
#define WRITES_QUEUED 4   /* full buffers waiting for the writer thread */
#define KNOWN_SLOTS 16384 /* per open piece; forgotten (and replayed again) when full */
#define MAX_HEADER_BYTES (64u << 20)
#define MAX_SAFE_KEY 200
#define KNOWN_TID (1ULL << 32)
#define KNOWN_PID (2ULL << 32)

struct piece {
	struct ps_split *sp;
	char *key, *name;
	char *tmp; /* the name it is written under until ps_split__finish() renames it */
	uint64_t number, samples, bytes;
	int fd; /* -1 when closed */
	bool created, dirty;
	bool full;   /* side-band would take it past max_bytes: its samples are done */
	bool queued; /* records that perf may still hold in its queue were written */
	unsigned char *buf;
	size_t blen;
	size_t nhdr;     /* header records written */
	uint64_t *known; /* open addressing; 0 is empty */
	size_t nknown;
	uint32_t last_tid, last_pid; /* known both, while @last_tid is not NO_PID */
	uint64_t last_use;
};

/*
 * Full piece buffers are written by a thread of their own, so that copying them into the
 * files (a fifth of psplit's time) overlaps reading and routing the records that follow.
 * At most WRITES_QUEUED buffers wait for it, one after the other in a FIFO; a piece is
 * closed, or written to directly, only once the writer is idle, so the bytes of every
 * piece keep their order.  The thread is started when a first buffer fills up (small
 * streams never need it); when it cannot be, buffers are written at once.
 */
struct job {
	int fd;
	size_t piece;
	unsigned char *buf;
	size_t len;
};

struct writer {
	pthread_mutex_t mu;
	pthread_cond_t more; /* for the thread: a job, or the end */
	pthread_cond_t done; /* for the caller: a job was written */
	pthread_t th;
	bool ready, tried, running, quit;
	struct job q[WRITES_QUEUED];
	size_t head, n;                          /* waiting: q[head], q[head + 1]... n of them */
	bool busy;                               /* one job taken and being written */
	unsigned char *spare[WRITES_QUEUED + 1]; /* written buffers, for reuse */
	size_t nspare;
	bool failed; /* a write failed: @err_errno, in piece @err_piece; later jobs skipped */
	int err_errno;
	size_t err_piece;
};

/* a string -> index table (open addressing, index + 1 stored, 0 empty) */
struct strtab {
	size_t *slot;
	size_t nslots, n;
};

struct ps_split {
	struct ps_split_config cfg;
	const struct ps_session *s;
	struct ps_sideband *sb;
	struct ps_record_copies hdr;
	struct piece *pieces;
	size_t npieces, pieces_cap;
	struct strtab by_key, by_name;
	size_t *open; /* indexes of the open pieces */
	size_t nopen;
	uint64_t clock, next_number;
	struct writer w;
};

/* ---- names ---- */

const char *ps_split__pattern_ok(const char *pattern, bool needs_unique)
{
	bool unique = false;
	const char *p;

	if (!*pattern)
		return "the name pattern is empty";
	if (strchr(pattern, '/'))
		return "the name pattern contains '/' (use -d DIR for a directory)";
	for (p = pattern; *p; p++) {
		if (*p != '%')
			continue;
		p++;
		if (*p == 'k' || *p == 'n')
			unique = true;
		else if (*p != '%')
			return "the name pattern has an escape other than %k, %n and %%";
	}
	if (needs_unique && !unique)
		return "the name pattern needs %k or %n to give each piece its own name";
	return NULL;
}

static uint64_t fnv(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 0x100000001b3ULL;
	return h;
}

/*
 * The key as a file name part: safe bytes kept, others as %XX, so different keys differ;
 * the values of several keys joined by ','.  A leading '-' is encoded too, so that no
 * piece name can be taken for an option (pcat --merge *.pipe), nor a leading '.' hide it.
 */
static void safe_key(const char *key, char *out, size_t size)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t o = 0;
	const char *k;

	if (!*key) {
		snprintf(out, size, "%%");
		return;
	}
	for (k = key; *k && o + 4 < size; k++) {
		unsigned char c = (unsigned char)*k;
		bool ok;

		if (c == (unsigned char)PS_KEY_SEP) { /* between the values of several keys */
			out[o++] = ',';
			continue;
		}
		if (c == (unsigned char)PS_KEY_ESC && k[1]) /* a SEP or ESC inside a value */
			c = (unsigned char)*++k;
		ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		     c == '_' || c == '+' || c == '=' || ((c == '.' || c == '-') && o != 0);
		if (ok) {
			out[o++] = (char)c;
		} else {
			out[o++] = '%';
			out[o++] = hex[c >> 4];
			out[o++] = hex[c & 15];
		}
	}
	out[o] = 0;
	if (o > MAX_SAFE_KEY) /* long keys: cut, and keep them apart by a hash */
		snprintf(out + MAX_SAFE_KEY - 20, size - (MAX_SAFE_KEY - 20), "~%016llx",
		         (unsigned long long)fnv(key));
}

static char *piece_name(const struct ps_split *sp, const char *key, uint64_t number)
{
	char safe[4 * MAX_SAFE_KEY + 8];

	safe_key(key, safe, sizeof(safe));
	return ps_outpath__expand(sp->cfg.dir, sp->cfg.pattern, number, 4, safe);
}

/* ---- string tables ---- */

static size_t *strtab_find(struct strtab *t, const struct ps_split *sp, const char *s, bool by_name)
{
	size_t i;

	if (!t->nslots)
		return NULL;
	for (i = fnv(s) & (t->nslots - 1);; i = (i + 1) & (t->nslots - 1)) {
		const struct piece *p;

		if (!t->slot[i])
			return &t->slot[i];
		p = &sp->pieces[t->slot[i] - 1];
		if (strcmp(by_name ? p->name : p->key, s) == 0)
			return &t->slot[i];
	}
}

static int strtab_grow(struct strtab *t, const struct ps_split *sp, bool by_name)
{
	size_t nslots = t->nslots ? 2 * t->nslots : 256, i, *old = t->slot, n = t->nslots;

	t->slot = calloc(nslots, sizeof(*t->slot));
	if (!t->slot) {
		t->slot = old;
		return -1;
	}
	t->nslots = nslots;
	for (i = 0; i < n; i++) {
		const struct piece *p;
		size_t j;

		if (!old[i])
			continue;
		p = &sp->pieces[old[i] - 1];
		for (j = fnv(by_name ? p->name : p->key) & (nslots - 1); t->slot[j];
		     j = (j + 1) & (nslots - 1))
			;
		t->slot[j] = old[i];
	}
	free(old);
	return 0;
}

/* ---- known threads and processes of an open piece ---- */

static bool known(const struct piece *p, uint64_t k)
{
	size_t i;

	for (i = (size_t)((k * 0x9e3779b97f4a7c15ULL) >> 40) & (KNOWN_SLOTS - 1); p->known[i];
	     i = (i + 1) & (KNOWN_SLOTS - 1))
		if (p->known[i] == k)
			return true;
	return false;
}

static void learn(struct piece *p, uint64_t k)
{
	size_t i;

	if (known(p, k))
		return;
	if (p->nknown >= KNOWN_SLOTS / 2) {
		memset(p->known, 0, KNOWN_SLOTS * sizeof(*p->known));
		p->nknown = 0;
		p->last_tid = PS_SIDEBAND_NO_PID;
	}
	for (i = (size_t)((k * 0x9e3779b97f4a7c15ULL) >> 40) & (KNOWN_SLOTS - 1); p->known[i];
	     i = (i + 1) & (KNOWN_SLOTS - 1))
		;
	p->known[i] = k;
	p->nknown++;
}

/* ---- the writer thread ---- */

static void *writer_main(void *arg)
{
	struct writer *w = arg;

	pthread_mutex_lock(&w->mu);
	for (;;) {
		struct job j;
		int e = 0;

		while (!w->n && !w->quit)
			pthread_cond_wait(&w->more, &w->mu);
		if (!w->n)
			break;
		j = w->q[w->head];
		w->head = (w->head + 1) % WRITES_QUEUED;
		w->n--;
		w->busy = true;
		if (!w->failed) {
			pthread_mutex_unlock(&w->mu);
			if (ps_write_full(j.fd, j.buf, j.len) < 0)
				e = errno;
			pthread_mutex_lock(&w->mu);
		}
		if (e && !w->failed) {
			w->failed = true;
			w->err_errno = e;
			w->err_piece = j.piece;
		}
		w->busy = false;
		if (w->nspare < ARRAY_SIZE(w->spare))
			w->spare[w->nspare++] = j.buf;
		else
			free(j.buf);
		pthread_cond_signal(&w->done);
	}
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

/* Start the thread, once; signals stay with the main thread.  Whether it runs. */
static bool writer_start(struct writer *w)
{
	sigset_t all, old;

	if (w->tried || !w->ready)
		return w->running;
	w->tried = true;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	w->running = pthread_create(&w->th, NULL, writer_main, w) == 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return w->running;
}

/* The first failed write, as an error naming its piece.  Call with the lock not held. */
static int writer_error(struct ps_split *sp, struct ps_error *err)
{
	errno = sp->w.err_errno;
	return ps_error__sys(err, PS_EWRITE, sp->pieces[sp->w.err_piece].name, "write error");
}

/* Wait until every buffer handed over is written.  Return: 0, or -1 after a failed write. */
static int writer_wait(struct ps_split *sp, struct ps_error *err)
{
	struct writer *w = &sp->w;
	bool failed;

	if (!w->running)
		return 0;
	pthread_mutex_lock(&w->mu);
	while (w->n || w->busy)
		pthread_cond_wait(&w->done, &w->mu);
	failed = w->failed;
	pthread_mutex_unlock(&w->mu);
	return failed ? writer_error(sp, err) : 0;
}

/* Write what was handed over and end the thread. */
static void writer_stop(struct writer *w)
{
	if (!w->running)
		return;
	pthread_mutex_lock(&w->mu);
	w->quit = true;
	pthread_cond_signal(&w->more);
	pthread_mutex_unlock(&w->mu);
	pthread_join(w->th, NULL);
	w->running = false;
	w->quit = false;
}

/* Hand @p's buffer to the writer thread and give @p an empty one. */
static int writer_submit(struct piece *p, struct ps_error *err)
{
	struct ps_split *sp = p->sp;
	struct writer *w = &sp->w;
	unsigned char *fresh = NULL;

	pthread_mutex_lock(&w->mu);
	while (w->n == WRITES_QUEUED && !w->failed)
		pthread_cond_wait(&w->done, &w->mu);
	if (w->failed) {
		pthread_mutex_unlock(&w->mu);
		return writer_error(sp, err);
	}
	w->q[(w->head + w->n) % WRITES_QUEUED] =
	        (struct job){ p->fd, (size_t)(p - sp->pieces), p->buf, p->blen };
	w->n++;
	if (w->nspare)
		fresh = w->spare[--w->nspare];
	pthread_cond_signal(&w->more);
	pthread_mutex_unlock(&w->mu);
	p->blen = 0;
	p->buf = fresh ? fresh : malloc(PIECE_BUF);
	if (!p->buf)
		return ps_error__set(err, PS_ENOMEM, p->name, PS_NO_OFFSET, "out of memory");
	return 0;
}

static void writer_delete(struct writer *w)
{
	writer_stop(w);
	while (w->nspare)
		free(w->spare[--w->nspare]);
	if (w->ready) {
		pthread_cond_destroy(&w->done);
		pthread_cond_destroy(&w->more);
		pthread_mutex_destroy(&w->mu);
	}
}

/* ---- writing ---- */

/*
 * Write out @p's buffer: through the writer thread when it runs (started when @full, a
 * buffer that filled up), else at once.
 */
static int piece_flush(struct piece *p, bool full, struct ps_error *err)
{
	if (!p->blen)
		return 0;
	if (p->sp->w.running || (full && writer_start(&p->sp->w)))
		return writer_submit(p, err);
	if (ps_write_full(p->fd, p->buf, p->blen) < 0)
		return ps_error__sys(err, PS_EWRITE, p->name, "write error");
	p->blen = 0;
	return 0;
}

/* piece_write() when @data does not fit in @p's buffer: through a flush */
static int piece_write_flush(struct piece *p, const void *data, size_t len, struct ps_error *err)
{
	if (piece_flush(p, true, err) < 0)
		return -1;
	if (!p->buf)
		return ps_error__set(err, PS_ENOMEM, p->name, PS_NO_OFFSET, "out of memory");
	if (len > PIECE_BUF) {
		/* after what the writer holds, for the bytes' order */
		if (writer_wait(p->sp, err) < 0)
			return -1;
		if (ps_write_full(p->fd, data, len) < 0)
			return ps_error__sys(err, PS_EWRITE, p->name, "write error");
		return 0;
	}
	memcpy(p->buf + p->blen, data, len);
	p->blen += len;
	return 0;
}

static inline int piece_write(struct piece *p, const void *data, size_t len, struct ps_error *err)
{
	p->bytes += len;
	if (p->blen + len > PIECE_BUF || !p->buf)
		return piece_write_flush(p, data, len, err);
	memcpy(p->buf + p->blen, data, len);
	p->blen += len;
	return 0;
}

struct emit_ctx {
	struct piece *p;
	struct ps_error *err;
};

static int emit(void *arg, const void *data, size_t len)
{
	struct emit_ctx *c = arg;

	c->p->dirty = true;
	return piece_write(c->p, data, len, c->err);
}

static int piece_close(struct ps_split *sp, size_t idx, struct ps_error *err)
{
	struct piece *p = &sp->pieces[idx];
	int r = piece_flush(p, false, err);
	size_t i;

	/* the writer may still hold bytes for this descriptor */
	if (writer_wait(sp, r ? NULL : err) < 0)
		r = -1;
	if (close(p->fd) < 0 && r == 0)
		r = ps_error__sys(err, PS_EWRITE, p->name, "write error");
	p->fd = -1;
	free(p->buf);
	free(p->known);
	p->buf = NULL;
	p->known = NULL;
	p->nknown = 0;
	p->last_tid = PS_SIDEBAND_NO_PID;
	for (i = 0; i < sp->nopen; i++) {
		if (sp->open[i] == idx) {
			sp->open[i] = sp->open[--sp->nopen];
			break;
		}
	}
	return r;
}

static int piece_reopen(struct ps_split *sp, size_t idx, struct ps_error *err);

/* Make piece @idx the one written last, opened if it is not. */
static inline int piece_open(struct ps_split *sp, size_t idx, struct ps_error *err)
{
	sp->pieces[idx].last_use = ++sp->clock;
	return sp->pieces[idx].fd >= 0 ? 0 : piece_reopen(sp, idx, err);
}

/* piece_open() of a piece that is not open: made, or reopened for appending */
static int piece_reopen(struct ps_split *sp, size_t idx, struct ps_error *err)
{
	struct piece *p = &sp->pieces[idx];
	struct emit_ctx c = { p, err };
	size_t i;

	if (sp->nopen >= sp->cfg.max_open) {
		size_t lru = 0;

		for (i = 1; i < sp->nopen; i++)
			if (sp->pieces[sp->open[i]].last_use < sp->pieces[sp->open[lru]].last_use)
				lru = i;
		if (piece_close(sp, sp->open[lru], err) < 0)
			return -1;
	}
	p->buf = malloc(PIECE_BUF);
	p->known = calloc(KNOWN_SLOTS, sizeof(*p->known));
	if (!p->buf || !p->known) {
		free(p->buf);
		free(p->known);
		p->buf = NULL;
		p->known = NULL;
		return ps_error__set(err, PS_ENOMEM, p->name, PS_NO_OFFSET, "out of memory");
	}
	if (p->created)
		p->fd = ps_outpath__reopen_tmp(p->tmp);
	else if (ps_outpath__refuse_input(p->name, &sp->cfg.input, 1, err) == 0)
		p->fd = ps_outpath__create_tmp(p->name, &p->tmp, err);
	if (p->fd < 0 && !p->created) {
		free(p->buf);
		free(p->known);
		p->buf = NULL;
		p->known = NULL;
		return -1;
	}
	if (p->fd < 0) {
		int e = errno;

		free(p->buf);
		free(p->known);
		p->buf = NULL;
		p->known = NULL;
		errno = e;
		return ps_error__sys(err, PS_ESYS, p->name, "cannot reopen");
	}
	sp->open[sp->nopen++] = idx;
	p->blen = 0;
	if (!p->created) {
		unsigned char h[16];

		p->created = true;
		ps_put64(h, PS_MAGIC, sp->cfg.swap);
		ps_put64(h + 8, 16, sp->cfg.swap);
		if (piece_write(p, h, sizeof(h), err) < 0)
			return -1;
	}
	for (i = p->nhdr; i < sp->hdr.n; i++)
		if (piece_write(p, sp->hdr.v[i].data, sp->hdr.v[i].len, err) < 0)
			return -1;
	p->nhdr = sp->hdr.n;
	return ps_sideband__replay_global(sp->sb, emit, &c);
}

/* ---- the splitter ---- */

struct ps_split *ps_split__new(const struct ps_split_config *cfg, const struct ps_session *s,
                               struct ps_error *err)
{
	struct ps_split *sp = calloc(1, sizeof(*sp));

	if (sp) {
		sp->cfg = *cfg;
		if (!sp->cfg.max_open)
			sp->cfg.max_open = 1;
		sp->s = s;
		sp->sb = ps_sideband__new(s);
		sp->open = calloc(sp->cfg.max_open, sizeof(*sp->open));
		/* (these do not fail on Linux; if they did, buffers are written at once) */
		sp->w.ready = pthread_mutex_init(&sp->w.mu, NULL) == 0 &&
		              pthread_cond_init(&sp->w.more, NULL) == 0 &&
		              pthread_cond_init(&sp->w.done, NULL) == 0;
	}
	if (!sp || !sp->sb || !sp->open) {
		ps_split__delete(sp);
		ps_error__set(err, PS_ENOMEM, NULL, PS_NO_OFFSET, "out of memory");
		return NULL;
	}
	return sp;
}

static bool is_header(uint32_t type)
{
	return ps_record_type_class(type) == PS_CLASS_HEADER || type == PS_RECORD_FINISHED_INIT;
}

static int keep_header(struct ps_split *sp, const struct ps_record *rec, struct ps_error *err)
{
	size_t i;

	if (sp->hdr.bytes + rec->len > MAX_HEADER_BYTES)
		return ps_error__set(err, PS_ECAP, NULL, rec->offset,
		                     "more than %u MiB of header records", MAX_HEADER_BYTES >> 20);
	if (ps_record_copies__add(&sp->hdr, rec) < 0)
		return ps_error__set(err, PS_ENOMEM, NULL, rec->offset, "out of memory");
	for (i = 0; i < sp->nopen; i++) {
		struct piece *p = &sp->pieces[sp->open[i]];

		if (piece_write(p, rec->data, rec->len, err) < 0)
			return -1;
		p->nhdr = sp->hdr.n;
	}
	return 0;
}

int ps_split__record(struct ps_split *sp, const struct ps_record *rec, struct ps_error *err)
{
	struct ps_sideband_info info;
	size_t i;

	if (is_header(rec->type))
		return keep_header(sp, rec, err);
	if (rec->type == PS_RECORD_FINISHED_ROUND) {
		for (i = 0; i < sp->nopen; i++) {
			struct piece *p = &sp->pieces[sp->open[i]];

			if (!p->dirty)
				continue;
			p->dirty = false;
			if (piece_write(p, rec->data, rec->len, err) < 0)
				return -1;
		}
		return 0;
	}
	if (rec->type == PS_RECORD_COMPRESSED || rec->type == PS_RECORD_COMPRESSED2)
		return 0; /* their records are delivered decompressed */
	if (ps_sideband__apply(sp->sb, rec, &info) < 0)
		return ps_error__set(err, PS_ENOMEM, NULL, rec->offset, "out of memory");
	for (i = 0; i < sp->nopen; i++) {
		struct piece *p = &sp->pieces[sp->open[i]];
		bool send;

		switch (info.scope) {
		case PS_SB_PROCESS:
			send = known(p, KNOWN_PID | info.pid);
			break;
		case PS_SB_THREAD:
			send = known(p, KNOWN_TID | info.tid);
			break;
		case PS_SB_FORK:
			send = known(p, KNOWN_TID | info.ptid);
			if (send) {
				learn(p, KNOWN_TID | info.tid);
				if (known(p, KNOWN_PID | info.ppid))
					learn(p, KNOWN_PID | info.pid);
			}
			break;
		default:
			send = true;
		}
		if (!send || p->full)
			continue;
		if (sp->cfg.max_bytes && p->samples && p->bytes + rec->len > sp->cfg.max_bytes) {
			/* the next piece starts with this process's state, this record included */
			p->full = true;
			continue;
		}
		p->dirty = true;
		p->queued = true;
		if (piece_write(p, rec->data, rec->len, err) < 0)
			return -1;
	}
	return 0;
}

static int new_piece(struct ps_split *sp, const char *key, uint64_t number, size_t *idx,
                     struct ps_error *err)
{
	struct piece *p;
	size_t *slot;

	if (sp->npieces >= sp->cfg.max_pieces)
		return ps_error__set(err, PS_ECAP, NULL, PS_NO_OFFSET,
		                     "more than %zu pieces (the next one is for key '%s'): "
		                     "raise --max-pieces, or split by fewer values",
		                     sp->cfg.max_pieces, key);
	if (sp->npieces == sp->pieces_cap) {
		size_t cap = sp->pieces_cap ? 2 * sp->pieces_cap : 64;

		p = realloc(sp->pieces, cap * sizeof(*p));
		if (!p)
			return ps_error__set(err, PS_ENOMEM, NULL, PS_NO_OFFSET, "out of memory");
		sp->pieces = p;
		sp->pieces_cap = cap;
	}
	if ((2 * (sp->npieces + 1) > sp->by_key.nslots && strtab_grow(&sp->by_key, sp, false)) ||
	    (2 * (sp->npieces + 1) > sp->by_name.nslots && strtab_grow(&sp->by_name, sp, true)))
		return ps_error__set(err, PS_ENOMEM, NULL, PS_NO_OFFSET, "out of memory");
	p = &sp->pieces[sp->npieces];
	memset(p, 0, sizeof(*p));
	p->sp = sp;
	p->fd = -1;
	p->last_tid = PS_SIDEBAND_NO_PID;
	p->number = number == UINT64_MAX ? sp->next_number : number;
	if (p->number >= sp->next_number)
		sp->next_number = p->number + 1;
	p->key = strdup(key);
	p->name = p->key ? piece_name(sp, key, p->number) : NULL;
	if (!p->key || !p->name) {
		free(p->key);
		free(p->name);
		return ps_error__set(err, PS_ENOMEM, NULL, PS_NO_OFFSET, "out of memory");
	}
	slot = strtab_find(&sp->by_name, sp, p->name, true);
	if (*slot) {
		ps_error__set(err, PS_EUSAGE, NULL, PS_NO_OFFSET,
		              "the pieces for keys '%s' and '%s' would both be named %s",
		              sp->pieces[*slot - 1].key, key, p->name);
		free(p->key);
		free(p->name);
		return -1;
	}
	sp->npieces++;
	*slot = sp->npieces;
	*strtab_find(&sp->by_key, sp, key, false) = sp->npieces;
	*idx = sp->npieces - 1;
	return 0;
}

int ps_split__sample(struct ps_split *sp, const struct ps_record *rec, const char *key,
                     uint64_t number, uint32_t tid, size_t *piece, struct ps_error *err)
{
	size_t *slot = strtab_find(&sp->by_key, sp, key, false);
	size_t idx = 0;

	if (slot && *slot) {
		idx = *slot - 1;
	} else if (new_piece(sp, key, number, &idx, err) < 0) {
		return -1;
	}
	*piece = idx;
	return ps_split__sample_to(sp, rec, idx, tid, err);
}

/*
 * Before the first sample of thread @tid of process @pid in @p: the side-band @p misses
 * about them, replayed.
 */
static int sample_sideband(struct ps_split *sp, struct piece *p, uint32_t tid, uint32_t pid,
                           struct ps_error *err)
{
	struct emit_ctx c = { p, err };
	bool replay = (pid != PS_SIDEBAND_NO_PID && !known(p, KNOWN_PID | pid)) ||
	              !known(p, KNOWN_TID | tid);

	/*
	 * perf applies a replayed (time 0) record when it reads it, before the samples
	 * it still holds for time order: have it handle those first.  The piece is in
	 * time order, so two rounds may release everything.
	 */
	if (replay && p->queued) {
		unsigned char fr[8] = { 0 };

		ps_put32(fr, PS_RECORD_FINISHED_ROUND, sp->cfg.swap);
		ps_put16(fr + 6, 8, sp->cfg.swap);
		if (piece_write(p, fr, 8, err) < 0 || piece_write(p, fr, 8, err) < 0)
			return -1;
		p->queued = false;
		p->dirty = false;
	}

	if (pid != PS_SIDEBAND_NO_PID && !known(p, KNOWN_PID | pid)) {
		if (ps_sideband__replay_process(sp->sb, pid, emit, &c) < 0)
			return -1;
		learn(p, KNOWN_PID | pid);
	}
	if (!known(p, KNOWN_TID | tid)) {
		if (ps_sideband__replay_thread(sp->sb, tid, emit, &c) < 0)
			return -1;
		learn(p, KNOWN_TID | tid);
	}
	/* learning one may have forgotten the other (a full table starts again) */
	if (pid == PS_SIDEBAND_NO_PID || known(p, KNOWN_PID | pid)) {
		p->last_tid = tid;
		p->last_pid = pid;
	}
	return 0;
}

static int count(void *arg, const void *data, size_t len)
{
	(void)data;
	*(uint64_t *)arg += len;
	return 0;
}

uint64_t ps_split__cost(const struct ps_split *sp, size_t idx, uint32_t tid, size_t len)
{
	const struct piece *p = &sp->pieces[idx];
	uint64_t n = len;
	uint32_t pid;
	bool pid_new, tid_new;

	if (tid == PS_SIDEBAND_NO_PID)
		return n;
	pid = ps_sideband__pid_of(sp->sb, tid);
	if (tid == p->last_tid && pid == p->last_pid)
		return n;
	pid_new = pid != PS_SIDEBAND_NO_PID && !known(p, KNOWN_PID | pid);
	tid_new = !known(p, KNOWN_TID | tid);
	if ((pid_new || tid_new) && p->queued)
		n += 16; /* two FINISHED_ROUNDs */
	if (pid_new)
		ps_sideband__replay_process(sp->sb, pid, count, &n);
	if (tid_new)
		ps_sideband__replay_thread(sp->sb, tid, count, &n);
	return n;
}

int ps_split__sample_to(struct ps_split *sp, const struct ps_record *rec, size_t idx, uint32_t tid,
                        struct ps_error *err)
{
	struct piece *p;

	if (piece_open(sp, idx, err) < 0)
		return -1;
	p = &sp->pieces[idx];
	if (tid != PS_SIDEBAND_NO_PID) {
		uint32_t pid = ps_sideband__pid_of(sp->sb, tid);

		/* most samples are of the thread before, known with its process */
		if (tid != p->last_tid || pid != p->last_pid) {
			if (sample_sideband(sp, p, tid, pid, err) < 0)
				return -1;
		}
	}
	p->samples++;
	p->dirty = true;
	p->queued = true;
	return piece_write(p, rec->data, rec->len, err);
}

size_t ps_split__nr_pieces(const struct ps_split *sp)
{
	return sp->npieces;
}

void ps_split__piece(const struct ps_split *sp, size_t idx, struct ps_piece_info *info)
{
	const struct piece *p = &sp->pieces[idx];

	info->name = p->name;
	info->key = p->key;
	info->number = p->number;
	info->samples = p->samples;
	info->bytes = p->bytes;
	info->full = p->full;
}

int ps_split__finish(struct ps_split *sp, struct ps_error *err)
{
	struct ps_error spare = { 0 };
	int r = 0;
	size_t i;

	/* every piece that can be completed is put in place, even after one that cannot */
	for (i = 0; i < sp->npieces; i++) {
		struct piece *p = &sp->pieces[i];
		struct ps_error *e = r ? &spare : err;

		if ((p->fd >= 0 || p->nhdr != sp->hdr.n) &&
		    (piece_open(sp, i, e) < 0 || piece_close(sp, i, e) < 0)) {
			r = -1;
			continue;
		}
		if (!p->tmp)
			continue;
		if (ps_outpath__commit(p->tmp, p->name, e) < 0) {
			r = -1;
			continue;
		}
		free(p->tmp);
		p->tmp = NULL;
	}
	writer_stop(&sp->w); /* every piece is closed: nothing is left for it */
	return r;
}

void ps_split__delete(struct ps_split *sp)
{
	size_t i;

	if (!sp)
		return;
	writer_stop(&sp->w); /* what it holds is written before the rest */
	for (i = 0; i < sp->npieces; i++) {
		struct piece *p = &sp->pieces[i];

		if (p->fd >= 0) {
			if (p->blen)
				ps_write_full(p->fd, p->buf, p->blen);
			close(p->fd);
		}
		free(p->buf);
		free(p->known);
		if (p->tmp) /* not finished: no half piece under its name */
			unlink(p->tmp);
		free(p->tmp);
		free(p->key);
		free(p->name);
	}
	ps_record_copies__release(&sp->hdr);
	free(sp->pieces);
	free(sp->by_key.slot);
	free(sp->by_name.slot);
	free(sp->open);
	writer_delete(&sp->w);
	ps_sideband__delete(sp->sb);
	free(sp);
}

uint64_t ps_split__dropped(const struct ps_split *sp)
{
	return ps_sideband__dropped(sp->sb);
}
