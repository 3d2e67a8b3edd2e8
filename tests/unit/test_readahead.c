// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_readahead.c - the read-ahead thread gives back the pipe's bytes in order, tells the
 * end and a read error, times out and wakes as a wait on the pipe would, and stops while
 * it sits in read(2).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "lib/readahead.h"
#include "unit.h"

static unsigned char byte_at(size_t i)
{
	return (unsigned char)(i * 131u + (i >> 9));
}

struct writer {
	int fd;
	size_t total;
};

/* writes @total bytes in pieces of odd sizes, then closes */
static void *write_pattern(void *arg)
{
	struct writer *w = arg;
	unsigned char buf[70000];
	size_t done = 0, piece = 1;

	while (done < w->total) {
		size_t n = piece < w->total - done ? piece : w->total - done, i;

		for (i = 0; i < n; i++)
			buf[i] = byte_at(done + i);
		if (write(w->fd, buf, n) != (ssize_t)n)
			break;
		done += n;
		piece = (piece * 7 + 13) % sizeof(buf) + 1;
	}
	close(w->fd);
	return NULL;
}

/*
 * What a read of @ra that returned @n says: true, nothing there yet (EAGAIN): wait for more
 * and read again; else false, with @n bytes to look at, or the end (@n 0; an error fails).
 */
static bool retry(struct ps_readahead *ra, ssize_t n)
{
	if (n < 0 && errno == EAGAIN) {
		CHECK(ps_readahead__wait(ra, -1) == 1);
		return true;
	}
	if (n <= 0)
		CHECK(n == 0);
	return false;
}

/* Read @fd (written by write_pattern() from another thread) through a ring of @ring bytes,
 * @take bytes at a time; every byte must come out, in order, then the end. */
static void drain_pattern(int fd, struct writer *w, size_t ring, size_t take)
{
	struct ps_readahead *ra = ps_readahead__new(fd, ring);
	unsigned char *buf = malloc(take);
	size_t got = 0, bad = 0, i;
	pthread_t th;

	CHECK(ra != NULL && buf != NULL);
	if (!ra || !buf)
		return;
	pthread_create(&th, NULL, write_pattern, w);
	for (;;) {
		ssize_t n = ps_readahead__take(ra, buf, take);

		if (retry(ra, n))
			continue;
		if (n <= 0)
			break;
		for (i = 0; i < (size_t)n; i++)
			bad += buf[i] != byte_at(got + i);
		got += (size_t)n;
	}
	CHECK_EQ_U64(got, w->total);
	CHECK_EQ_U64(bad, 0);
	/* the end stays the end */
	CHECK(ps_readahead__take(ra, buf, take) == 0);
	CHECK(ps_readahead__wait(ra, 0) == 1);
	pthread_join(th, NULL);
	ps_readahead__delete(ra);
	free(buf);
}

/* Everything written comes out, in order, through a ring smaller than the stream. */
static void test_bytes_in_order(size_t ring, size_t take, size_t total)
{
	struct writer w = { .total = total };
	int p[2];

	CHECK(pipe(p) == 0);
	w.fd = p[1];
	drain_pattern(p[0], &w, ring, take);
	close(p[0]);
}

/* Read in place: the ring is one contiguous run from any point; bytes given back are read
 * over, the ones kept stay put until given back. */
static void test_in_place(void)
{
	struct writer w = { .total = 3u << 20 };
	struct ps_readahead *ra;
	const unsigned char *ring;
	uint64_t done = 0, have = 0;
	size_t cap, bad = 0, step = 1;
	pthread_t th;
	int p[2];

	CHECK(pipe(p) == 0);
	w.fd = p[1];
	ra = ps_readahead__new(p[0], 64u << 10);
	CHECK(ra != NULL);
	ring = ps_readahead__map(ra, &cap);
	CHECK(ring != NULL && cap == 64u << 10);
	if (!ring)
		return;
	pthread_create(&th, NULL, write_pattern, &w);
	for (;;) {
		ssize_t n = ps_readahead__advance(ra, done, have);
		uint64_t i;

		if (retry(ra, n))
			continue;
		if (n <= 0)
			break;
		/* everything from done to the end of what is there, in one run */
		have += (uint64_t)n;
		CHECK(have - done <= cap);
		for (i = done; i < have; i++)
			bad += ring[i % cap] != byte_at(i) ||
			       ring[done % cap + (i - done)] != byte_at(i);
		/* keep a tail of odd length, as a record cut by the read would be */
		step = (step * 5 + 7) % 9000;
		done = have - (have - done < step ? have - done : step);
	}
	CHECK_EQ_U64(have, w.total);
	CHECK_EQ_U64(bad, 0);
	pthread_join(th, NULL);
	ps_readahead__delete(ra);
	close(p[0]);
}

static long ms_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1000 + (t.tv_nsec - t0->tv_nsec) / 1000000;
}

/* Nothing written: the wait times out; a byte written later wakes it. */
static void test_wait(void)
{
	struct ps_readahead *ra;
	struct timespec t0;
	char c = 0;
	int p[2];

	CHECK(pipe(p) == 0);
	ra = ps_readahead__new(p[0], 4096);
	CHECK(ra != NULL);
	errno = 0;
	CHECK(ps_readahead__take(ra, &c, 1) == -1 && errno == EAGAIN);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	CHECK(ps_readahead__wait(ra, 50) == 0);
	CHECK(ms_since(&t0) >= 45);
	CHECK(write(p[1], "x", 1) == 1);
	CHECK(ps_readahead__wait(ra, 5000) == 1);
	CHECK(ps_readahead__take(ra, &c, 1) == 1 && c == 'x');
	/* stopped while the thread sits in read(2), the writer still open: no hang */
	ps_readahead__delete(ra);
	close(p[0]);
	close(p[1]);
}

static volatile sig_atomic_t got_signal;

static void on_alarm(int sig)
{
	(void)sig;
	got_signal = 1;
}

/* A signal ends the wait with EINTR, as it ends a wait on the pipe: the thread blocks
 * signals, so the process's signal reaches the waiting thread. */
static void test_signal(void)
{
	struct sigaction sa = { 0 };
	struct ps_readahead *ra;
	int p[2], r;

	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, NULL);
	CHECK(pipe(p) == 0);
	ra = ps_readahead__new(p[0], 4096);
	CHECK(ra != NULL);
	alarm(1);
	r = ps_readahead__wait(ra, 10000);
	CHECK(r == -1 && errno == EINTR);
	CHECK(got_signal == 1);
	alarm(0);
	ps_readahead__delete(ra);
	close(p[0]);
	close(p[1]);
}

/* A read that fails is told with its errno, after the bytes before it. */
static void test_error(void)
{
	struct ps_readahead *ra;
	char buf[8];
	int fd = open("/", O_RDONLY | O_DIRECTORY);
	ssize_t n;

	CHECK(fd >= 0);
	ra = ps_readahead__new(fd, 4096);
	CHECK(ra != NULL);
	CHECK(ps_readahead__wait(ra, 5000) == 1);
	n = ps_readahead__take(ra, buf, sizeof(buf));
	CHECK(n == -1 && errno == EISDIR);
	ps_readahead__delete(ra);
	close(fd);
}

/* A pipe left non-blocking by whoever gave it reads the same way: no EAGAIN comes out. */
static void test_nonblocking(void)
{
	struct writer w = { .total = 2u << 20 };
	int p[2];

	CHECK(pipe(p) == 0);
	CHECK(fcntl(p[0], F_SETFL, fcntl(p[0], F_GETFL) | O_NONBLOCK) == 0);
	w.fd = p[1];
	drain_pattern(p[0], &w, 65536, 4096);
	close(p[0]);
}

/* A socket, as nc gives one, reads the same way. */
static void test_socket(void)
{
	struct writer w = { .total = 300000 };
	int sv[2];

	CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
	w.fd = sv[1];
	drain_pattern(sv[0], &w, 8192, 4096);
	close(sv[0]);
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	test_bytes_in_order(1u << 20, 256u << 10, 5u << 20);
	test_bytes_in_order(4096, 1000, 1u << 20); /* the ring wraps inside most takes */
	test_bytes_in_order(65536, 1, 100000);
	test_in_place();
	test_wait();
	test_signal();
	test_error();
	test_socket();
	test_nonblocking();
	CHECK(ps_readahead__new(0, 0) == NULL && errno == EINVAL);
	return UNIT_DONE("readahead");
}
