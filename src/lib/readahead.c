// SPDX-License-Identifier: GPL-2.0-only
/*
 * readahead.c - a thread that reads a pipe or socket ahead of its consumer, into a ring.
 *
 * One producer (the thread), one consumer.  The ring's bytes [head, tail) are the
 * consumer's, the rest the producer's; each side moves only its own end, under the mutex,
 * and copies outside it.  The producer sleeps on a condition variable when the ring is
 * full; the consumer sleeps in poll(2) on an eventfd, so that a signal or a timeout ends
 * its wait as it would end a wait on the pipe itself.  The thread is cancelled only while
 * it sits in read(2) (or in poll(2), on a descriptor left non-blocking), where it holds
 * nothing.
 *
 * Where the system allows, the ring is mapped twice, back to back (a memfd), so that any
 * cap bytes from any point of the first mapping are one contiguous run: the consumer can
 * then parse records where they lie (ps_readahead__advance()) instead of copying them out.
 */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <unistd.h>

#include "readahead.h"

struct ps_readahead {
	int fd;
	int evfd; /* the consumer's wake-up */
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t room; /* the producer's wake-up */
	unsigned char *ring;
	size_t cap;
	bool mirrored;       /* ring[cap, 2 cap) is ring[0, cap) again */
	uint64_t head, tail; /* bytes given back, bytes read; tail - head <= cap */
	uint64_t seen;       /* bytes the consumer knows of: what a wait waits beyond */
	bool eof;
	int error;            /* errno of the read that failed, or 0 */
	bool stop;            /* ps_readahead__delete() */
	bool producer_asleep; /* waits for room */
	bool consumer_asleep; /* waits in ps_readahead__wait() */
	struct pollfd *pfd;   /* the producer's, on a non-blocking descriptor */
};

static void wake_consumer(struct ps_readahead *ra)
{
	uint64_t one = 1;

	/* a full counter is a pending wake-up already */
	while (write(ra->evfd, &one, sizeof(one)) < 0 && errno == EINTR)
		;
}

static void *producer(void *arg)
{
	struct ps_readahead *ra = arg;
	bool done = false;

	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
	while (!done) {
		size_t off, len;
		ssize_t n;
		bool wake;

		pthread_mutex_lock(&ra->mu);
		while (!ra->stop && ra->tail - ra->head == ra->cap) {
			ra->producer_asleep = true;
			pthread_cond_wait(&ra->room, &ra->mu);
		}
		if (ra->stop) {
			pthread_mutex_unlock(&ra->mu);
			break;
		}
		off = (size_t)(ra->tail % ra->cap);
		len = ra->cap - (size_t)(ra->tail - ra->head);
		if (!ra->mirrored && len > ra->cap - off)
			len = ra->cap - off;
		pthread_mutex_unlock(&ra->mu);

		pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, NULL);
		n = read(ra->fd, ra->ring + off, len);
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			/* a descriptor left non-blocking by whoever gave it: wait here (the
			 * pollfd is not on this stack, which a cancel would leave behind) */
			ra->pfd->fd = ra->fd;
			ra->pfd->events = POLLIN;
			(void)poll(ra->pfd, 1, -1);
			errno = EINTR;
		}
		pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
		if (n < 0 && errno == EINTR)
			continue;

		pthread_mutex_lock(&ra->mu);
		if (n > 0) {
			ra->tail += (size_t)n;
		} else {
			if (n == 0)
				ra->eof = true;
			else
				ra->error = errno ? errno : EIO;
			done = true;
		}
		wake = ra->consumer_asleep;
		ra->consumer_asleep = false;
		pthread_mutex_unlock(&ra->mu);
		if (wake)
			wake_consumer(ra);
	}
	return NULL;
}

/* The ring mapped twice, back to back, or NULL where the system refuses. */
static unsigned char *map_mirrored(size_t cap)
{
	const int prot = PROT_READ | PROT_WRITE, flags = MAP_SHARED | MAP_FIXED;
	unsigned char *base = NULL;
	void *m;
	int mfd;

	if (cap % (size_t)sysconf(_SC_PAGESIZE))
		return NULL;
	mfd = memfd_create("pstream-readahead", MFD_CLOEXEC);
	if (mfd < 0)
		return NULL;
	if (ftruncate(mfd, (off_t)cap) < 0)
		goto out;
	/* room for both first, then the file over each half */
	m = mmap(NULL, 2 * cap, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		goto out;
	base = m;
	if (mmap(base, cap, prot, flags, mfd, 0) == MAP_FAILED ||
	    mmap(base + cap, cap, prot, flags, mfd, 0) == MAP_FAILED) {
		munmap(base, 2 * cap);
		base = NULL;
	}
out:
	close(mfd);
	return base;
}

static void ring_free(struct ps_readahead *ra)
{
	if (ra->mirrored)
		munmap(ra->ring, 2 * ra->cap);
	else
		free(ra->ring);
}

struct ps_readahead *ps_readahead__new(int fd, size_t cap)
{
	struct ps_readahead *ra;
	sigset_t all, old;
	int e;

	if (cap == 0) {
		errno = EINVAL;
		return NULL;
	}
	ra = calloc(1, sizeof(*ra));
	if (!ra)
		return NULL;
	ra->fd = fd;
	ra->cap = cap;
	ra->ring = map_mirrored(cap);
	ra->mirrored = ra->ring != NULL;
	if (!ra->ring)
		ra->ring = malloc(cap);
	ra->evfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	ra->pfd = malloc(sizeof(*ra->pfd));
	if (!ra->ring || ra->evfd < 0 || !ra->pfd)
		goto fail;
	if ((e = pthread_mutex_init(&ra->mu, NULL)) != 0)
		goto fail_errno;
	if ((e = pthread_cond_init(&ra->room, NULL)) != 0) {
		pthread_mutex_destroy(&ra->mu);
		goto fail_errno;
	}
	/* signals are for the consumer: its waits are what they must end */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	e = pthread_create(&ra->thread, NULL, producer, ra);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (e == 0)
		return ra;
	pthread_cond_destroy(&ra->room);
	pthread_mutex_destroy(&ra->mu);
fail_errno:
	errno = e;
fail:
	e = errno;
	if (ra->evfd >= 0)
		close(ra->evfd);
	if (ra->ring)
		ring_free(ra);
	free(ra->pfd);
	free(ra);
	errno = e;
	return NULL;
}

void ps_readahead__delete(struct ps_readahead *ra)
{
	if (!ra)
		return;
	pthread_mutex_lock(&ra->mu);
	ra->stop = true;
	pthread_cond_signal(&ra->room);
	pthread_mutex_unlock(&ra->mu);
	pthread_cancel(ra->thread); /* acts only in read(2) or poll(2) */
	pthread_join(ra->thread, NULL);
	pthread_cond_destroy(&ra->room);
	pthread_mutex_destroy(&ra->mu);
	close(ra->evfd);
	ring_free(ra);
	free(ra->pfd);
	free(ra);
}

ssize_t ps_readahead__take(struct ps_readahead *ra, void *buf, size_t len)
{
	uint64_t head, avail;
	size_t n, off, first;
	bool wake;

	pthread_mutex_lock(&ra->mu);
	head = ra->head;
	ra->seen = head;
	avail = ra->tail - head;
	if (!avail) {
		int e = ra->error;
		bool eof = ra->eof;

		pthread_mutex_unlock(&ra->mu);
		if (eof)
			return 0;
		errno = e ? e : EAGAIN;
		return -1;
	}
	pthread_mutex_unlock(&ra->mu);

	/* [head, head + avail) is ours until head moves: copy it without the lock */
	n = avail < len ? (size_t)avail : len;
	off = (size_t)(head % ra->cap);
	first = ra->cap - off < n ? ra->cap - off : n;
	memcpy(buf, ra->ring + off, first);
	memcpy((unsigned char *)buf + first, ra->ring, n - first);

	pthread_mutex_lock(&ra->mu);
	ra->head = head + n;
	ra->seen = ra->head;
	wake = ra->producer_asleep;
	ra->producer_asleep = false;
	if (wake)
		pthread_cond_signal(&ra->room);
	pthread_mutex_unlock(&ra->mu);
	return (ssize_t)n;
}

unsigned char *ps_readahead__map(const struct ps_readahead *ra, size_t *cap)
{
	*cap = ra->cap;
	return ra->mirrored ? ra->ring : NULL;
}

ssize_t ps_readahead__advance(struct ps_readahead *ra, uint64_t done, uint64_t have)
{
	uint64_t tail;
	bool wake;
	int e;

	pthread_mutex_lock(&ra->mu);
	if (done > ra->head && done <= ra->tail)
		ra->head = done;
	ra->seen = have;
	tail = ra->tail;
	e = ra->error;
	wake = ra->producer_asleep && ra->tail - ra->head < ra->cap;
	if (wake) {
		ra->producer_asleep = false;
		pthread_cond_signal(&ra->room);
	}
	if (tail > have) {
		pthread_mutex_unlock(&ra->mu);
		return tail - have > SSIZE_MAX ? SSIZE_MAX : (ssize_t)(tail - have);
	}
	if (ra->eof) {
		pthread_mutex_unlock(&ra->mu);
		return 0;
	}
	pthread_mutex_unlock(&ra->mu);
	errno = e ? e : EAGAIN;
	return -1;
}

int ps_readahead__wait(struct ps_readahead *ra, int timeout_ms)
{
	struct pollfd p = { .fd = ra->evfd, .events = POLLIN };
	uint64_t count;
	int n;

	pthread_mutex_lock(&ra->mu);
	if (ra->tail > ra->seen || ra->eof || ra->error) {
		pthread_mutex_unlock(&ra->mu);
		return 1;
	}
	ra->consumer_asleep = true;
	pthread_mutex_unlock(&ra->mu);

	n = poll(&p, 1, timeout_ms);
	if (n > 0) /* the counter back to 0: the wake-up is taken */
		(void)!read(ra->evfd, &count, sizeof(count));
	pthread_mutex_lock(&ra->mu);
	ra->consumer_asleep = false;
	pthread_mutex_unlock(&ra->mu);
	if (n < 0)
		return -1;
	return n > 0;
}
