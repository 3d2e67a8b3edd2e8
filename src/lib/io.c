// SPDX-License-Identifier: GPL-2.0-only
/*
 * io.c - read and write loops: EINTR, short reads, short writes.
 */
#include <errno.h>
#include <poll.h>
#include <unistd.h>

#include "io.h"
#include "signals.h"

ssize_t ps_read_some(int fd, void *buf, size_t len)
{
	ssize_t n;

	for (;;) {
		n = read(fd, buf, len);
		/* a first SIGINT too: the caller reads on with the drain's timeout (signals.h) */
		if (n >= 0 || errno != EINTR || ps_stop || ps_interrupted)
			return n;
	}
}

int ps_write_upto(int fd, const void *buf, size_t len, size_t *done)
{
	const char *p = buf;
	ssize_t n;

	*done = 0;
	while (len) {
		/* after a short write, the signal that cut it may be the stop request */
		if (*done && ps_stop) {
			errno = EINTR;
			return -1;
		}
		n = write(fd, p, len);
		if (n < 0) {
			/* a stop request ends a write blocked on a stalled reader */
			if (errno == EINTR && !ps_stop)
				continue;
			return -1;
		}
		p += n;
		len -= (size_t)n;
		*done += (size_t)n;
	}
	return 0;
}

int ps_write_full(int fd, const void *buf, size_t len)
{
	size_t done;

	return ps_write_upto(fd, buf, len, &done);
}

ssize_t ps_pread_full(int fd, void *buf, size_t len, off_t off)
{
	char *p = buf;
	size_t done = 0;
	ssize_t n;

	while (done < len) {
		n = pread(fd, p + done, len - done, off + (off_t)done);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (n == 0)
			break;
		done += (size_t)n;
	}
	return (ssize_t)done;
}

int ps_fd_wait(int fd, int timeout_ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int n;

	n = poll(&p, 1, timeout_ms);
	if (n < 0)
		return -1;
	return n > 0;
}
