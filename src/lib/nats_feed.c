// SPDX-License-Identifier: GPL-2.0-only
/*
 * nats_feed.c - a NATS subscription as a pipe stream, with where each message lies in it
 * (nats_feed.h).
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io.h"
#include "nats.h"
#include "nats_feed.h"
#include "signals.h"

#define READ_MS 100           /* a read waits this long, then acknowledgements are sent */
#define MAX_PLACES (1u << 20) /* messages written and not complete (JetStream's pending) */

struct place {
	uint64_t start, end; /* the payload's input offsets */
	uint64_t seq;
};

struct ps_nats_feed {
	struct ps_nats_sub *sub;
	pthread_t th;
	bool started;
	int rfd, wfd;
	_Atomic bool quit;
	_Atomic uint64_t ack_seq; /* to acknowledge, up to this stream sequence */
	uint64_t acked;           /* the thread's: acknowledged up to this */
	struct ps_error err;      /* the thread's, read after it ended */
	int failed;

	/* written by the thread, taken by the reader: the mutex guards only these */
	pthread_mutex_t mu;
	struct place *in;
	size_t nin, in_cap;
	/* the reader's own: the places not complete yet, oldest first */
	struct place *p;
	size_t head, n, cap;
	uint64_t completed; /* the highest sequence made complete */
};

static int add_place(struct ps_nats_feed *f, uint64_t start, uint64_t end, uint64_t seq)
{
	int r = 0;

	pthread_mutex_lock(&f->mu);
	if (f->nin == f->in_cap) {
		size_t cap = f->in_cap ? 2 * f->in_cap : 64;
		struct place *np = cap <= MAX_PLACES ? realloc(f->in, cap * sizeof(*np)) : NULL;

		if (!np)
			r = -1;
		else {
			f->in = np;
			f->in_cap = cap;
		}
	}
	if (!r)
		f->in[f->nin++] = (struct place){ start, end, seq };
	pthread_mutex_unlock(&f->mu);
	return r;
}

static void *feed_thread(void *arg)
{
	struct ps_nats_feed *f = arg;
	const unsigned char *d;
	uint64_t pos = 0;
	size_t len, at;
	int r;

	while (!ps_stop && !f->quit) {
		uint64_t want = f->ack_seq;

		if (want > f->acked) {
			if (ps_nats_sub__ack_upto(f->sub, want, &f->err) < 0)
				goto fail;
			f->acked = want;
		}
		r = ps_nats_sub__read(f->sub, &d, &len, READ_MS, &f->err);
		if (r == 0)
			break;
		if (r < 0)
			goto fail;
		if (r != 1)
			continue;
		uint64_t seq = ps_nats_sub__position(f->sub, &at);

		if (seq && add_place(f, pos + at, pos + len, seq) < 0) {
			ps_error__set(&f->err, PS_ENOMEM, NULL, PS_NO_OFFSET,
			              "more than %u messages not stored yet", MAX_PLACES);
			goto fail;
		}
		if (ps_write_full(f->wfd, d, len) < 0)
			break; /* the reader went away, or a stop */
		pos += len;
	}
	close(f->wfd);
	f->wfd = -1;
	return NULL;
fail:
	f->failed = 1;
	close(f->wfd);
	f->wfd = -1;
	return NULL;
}

struct ps_nats_feed *ps_nats_feed__start(struct ps_nats_sub *sub, struct ps_error *err)
{
	struct ps_nats_feed *f = calloc(1, sizeof(*f));
	int fds[2];

	if (!f) {
		ps_error__set(err, PS_ENOMEM, NULL, PS_NO_OFFSET, "out of memory");
		return NULL;
	}
	f->sub = sub;
	pthread_mutex_init(&f->mu, NULL);
	if (pipe2(fds, O_CLOEXEC) < 0) {
		ps_error__set(err, PS_ESYS, NULL, PS_NO_OFFSET, "cannot make a pipe");
		free(f);
		return NULL;
	}
	f->rfd = fds[0];
	f->wfd = fds[1];
	if (pthread_create(&f->th, NULL, feed_thread, f) != 0) {
		ps_error__set(err, PS_ESYS, NULL, PS_NO_OFFSET, "cannot start a thread");
		close(fds[0]);
		close(fds[1]);
		free(f);
		return NULL;
	}
	f->started = true;
	return f;
}

int ps_nats_feed__fd(const struct ps_nats_feed *f)
{
	return f->rfd;
}

/* The places the thread wrote since, into the reader's own queue. */
static void take(struct ps_nats_feed *f)
{
	pthread_mutex_lock(&f->mu);
	for (size_t i = 0; i < f->nin; i++) {
		if (f->head + f->n == f->cap) {
			if (f->head) {
				memmove(f->p, f->p + f->head, f->n * sizeof(*f->p));
				f->head = 0;
			}
			if (f->n == f->cap) {
				size_t cap = f->cap ? 2 * f->cap : 64;
				struct place *np = realloc(f->p, cap * sizeof(*np));

				if (!np)
					break; /* located nowhere: no key, the row still goes in */
				f->p = np;
				f->cap = cap;
			}
		}
		f->p[f->head + f->n++] = f->in[i];
	}
	f->nin = 0;
	pthread_mutex_unlock(&f->mu);
}

static const struct place *find(const struct ps_nats_feed *f, uint64_t off)
{
	size_t lo = 0, hi = f->n;

	/* the first place whose payload ends after @off */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (f->p[f->head + mid].end <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < f->n && f->p[f->head + lo].start <= off)
		return &f->p[f->head + lo];
	return NULL;
}

bool ps_nats_feed__locate(struct ps_nats_feed *f, uint64_t off, uint64_t *seq, uint32_t *moff)
{
	const struct place *p = find(f, off);

	if (!p && (!f->n || f->p[f->head + f->n - 1].end <= off)) {
		take(f);
		p = find(f, off);
	}
	if (!p)
		return false;
	*seq = p->seq;
	*moff = (uint32_t)(off - p->start);
	return true;
}

uint64_t ps_nats_feed__complete(struct ps_nats_feed *f, uint64_t done)
{
	take(f);
	while (f->n && f->p[f->head].end <= done) {
		if (f->p[f->head].seq > f->completed)
			f->completed = f->p[f->head].seq;
		f->head++;
		f->n--;
	}
	if (!f->n)
		f->head = 0;
	return f->completed;
}

void ps_nats_feed__ack(struct ps_nats_feed *f, uint64_t seq)
{
	if (seq > f->ack_seq)
		f->ack_seq = seq;
}

void ps_nats_feed__stop(struct ps_nats_feed *f)
{
	f->quit = true;
}

int ps_nats_feed__finish(struct ps_nats_feed *f, struct ps_error *err)
{
	int r = 0;

	if (!f)
		return 0;
	f->quit = true;
	close(f->rfd); /* a thread blocked writing gets EPIPE */
	if (f->started)
		pthread_join(f->th, NULL);
	if (f->failed) {
		*err = f->err;
		r = -1;
	} else if (f->ack_seq > f->acked &&
	           ps_nats_sub__ack_upto(f->sub, f->ack_seq, &f->err) < 0) {
		/* asked for after the thread's last read */
		*err = f->err;
		r = -1;
	}
	pthread_mutex_destroy(&f->mu);
	free(f->in);
	free(f->p);
	free(f);
	return r;
}
