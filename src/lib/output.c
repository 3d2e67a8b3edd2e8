// SPDX-License-Identifier: GPL-2.0-only
/*
 * output.c - buffered, EPIPE-aware writing of the pipe stream.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "abi.h"
#include "files.h"
#include "io.h"
#include "output.h"
#include "signals.h"
#include "xalloc.h"

#define OUT_BUF (256u << 10)
#define PIPE_WANT (1 << 20)
#define STOP_GRACE_MS 400 /* after a stop request, how long a slow reader is waited for */

struct ps_output {
	int fd;
	struct ps_outfile *of; /* a named output (files.h), which owns @fd */
	const char *name;
	unsigned char *buf;
	size_t len;
	unsigned long long bytes;
	struct ps_error saved; /* a failure from the flush hook */
	bool failed;
	size_t *ends; /* where each unit (record, line) held in @buf ends */
	size_t nr_ends, cap_ends;
	bool is_pipe;
};

struct ps_output *ps_output__open(const char *path, bool force, struct ps_error *err)
{
	struct ps_output *out;
	bool is_std = !path || strcmp(path, "-") == 0;
	const char *name = is_std ? "<stdout>" : path;
	struct stat st;
	int fd = 1;

	if (is_std && !force && isatty(1)) {
		ps_error__set(err, PS_EUSAGE, NULL, PS_NO_OFFSET,
		              "refusing to write a binary stream to a terminal (use -f to force)");
		return NULL;
	}
	out = calloc(1, sizeof(*out));
	if (out)
		out->buf = malloc(OUT_BUF);
	if (!out || !out->buf) {
		if (out)
			free(out->buf);
		free(out);
		ps_error__set(err, PS_ENOMEM, name, PS_NO_OFFSET, "out of memory");
		return NULL;
	}
	/* a file by the rules of every output (files.h): a device or FIFO as it is, a
	 * regular file under a temporary name until ps_output__close() */
	if (!is_std) {
		out->of = ps_outfile__create(path, NULL, 0, err);
		if (!out->of) {
			free(out->buf);
			free(out);
			return NULL;
		}
		fd = ps_outfile__fd(out->of);
		if (!force && isatty(fd)) {
			ps_outfile__close(out->of, false, false, NULL);
			free(out->buf);
			free(out);
			ps_error__set(
			        err, PS_EUSAGE, path, PS_NO_OFFSET,
			        "is a terminal: refusing to write a binary stream to it (use -f to force)");
			return NULL;
		}
	}
	out->fd = fd;
	out->is_pipe = fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode);
	/* a pipe of 1 MiB (the unprivileged limit) instead of 64 KiB, as on the input side:
	 * whole OUT_BUF writes, and the reader and we wake each other sixteen times less
	 * often; where refused, the pipe stays as it is */
	if (out->is_pipe && fcntl(fd, F_GETPIPE_SZ) < PIPE_WANT)
		(void)fcntl(fd, F_SETPIPE_SZ, PIPE_WANT);
	out->name = name;
	return out;
}

/* Milliseconds left until @end, 0 when past. */
static int ms_left(const struct timespec *end)
{
	struct timespec now;
	long long ms;

	clock_gettime(CLOCK_MONOTONIC, &now);
	ms = (long long)(end->tv_sec - now.tv_sec) * 1000 + (end->tv_nsec - now.tv_nsec) / 1000000;
	return ms > 0 ? (int)ms : 0;
}

/* Can @need bytes go into @fd without a partial write?  Only a pipe can tell; a pipe
 * holds pages, so a page is kept in hand for the one its reader is half way through. */
static bool has_room(int fd, size_t need)
{
	struct stat st;
	int cap, used;

	if (fstat(fd, &st) < 0 || !S_ISFIFO(st.st_mode))
		return true;
	cap = fcntl(fd, F_GETPIPE_SZ);
	if (cap <= 0 || ioctl(fd, FIONREAD, &used) < 0)
		return true;
	if (need + 8192 > (size_t)cap) /* never fits whole: start it into an empty pipe */
		return used == 0;
	return (size_t)(cap - used) >= need + 8192;
}

/*
 * After a stop request (ps_stop): write @buf[@pos, @len) unit by unit (@ends: where each
 * ends) without ever blocking, for at most STOP_GRACE_MS.  A unit is begun only when the
 * reader has room for all of it, so a reader that stalled sees no cut record or line; a
 * unit the interrupt cut is finished first, if the reader takes it in time.
 * Return: true when everything was written.
 */
static bool stop_write(int fd, const unsigned char *buf, size_t len, const size_t *ends,
                       size_t nr_ends, size_t pos)
{
	int flags = fcntl(fd, F_GETFL);
	struct timespec end;
	size_t u = 0;

	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_nsec += STOP_GRACE_MS * 1000000L;
	end.tv_sec += end.tv_nsec / 1000000000L;
	end.tv_nsec %= 1000000000L;
	if (flags >= 0 && !(flags & O_NONBLOCK))
		fcntl(fd, F_SETFL, flags | O_NONBLOCK);
	while (pos < len) {
		struct pollfd p = { .fd = fd, .events = POLLOUT };
		size_t uend, ustart;
		int left = ms_left(&end);
		ssize_t n;

		while (u < nr_ends && ends[u] <= pos)
			u++;
		uend = u < nr_ends ? ends[u] : len;
		ustart = u ? ends[u - 1] : 0;
		if (pos == ustart && !has_room(fd, uend - pos)) {
			if (!left)
				break;
			poll(NULL, 0, left < 5 ? left : 5);
			continue;
		}
		n = write(fd, buf + pos, uend - pos);
		if (n > 0) {
			pos += (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno != EAGAIN)
			break;
		if (!left || poll(&p, 1, left) <= 0)
			break;
	}
	if (flags >= 0 && !(flags & O_NONBLOCK))
		fcntl(fd, F_SETFL, flags);
	return pos >= len;
}

/* Bytes a pipe takes now without blocking, kept a page short (a pipe holds pages, and its
 * reader may be half way through one); 0 when it cannot tell. */
static size_t pipe_room(int fd)
{
	int cap = fcntl(fd, F_GETPIPE_SZ), used;

	if (cap <= 0 || ioctl(fd, FIONREAD, &used) < 0 || used < 0 || cap - used <= 8192)
		return 0;
	return (size_t)(cap - used - 8192);
}

/*
 * Into a pipe, whole units only: as many as the pipe has room for now, or, when it is
 * full, at most PIPE_BUF bytes of them, a write the kernel makes atomic.  So a stop
 * request that interrupts a write blocked on a stalled reader leaves no cut record or line
 * in the pipe.  A unit longer than PIPE_BUF that does not fit goes alone.
 * Return: 0, or -1 with errno and *@done set.
 */
static int pipe_write(int fd, const unsigned char *buf, size_t len, const size_t *ends,
                      size_t nr_ends, size_t *done)
{
	size_t pos = 0, u = 0, d;

	*done = 0;
	while (pos < len) {
		size_t to = pos, room = pipe_room(fd);

		while (u < nr_ends && ends[u] - pos <= room)
			to = ends[u++];
		if (to == pos) {
			while (u < nr_ends && ends[u] - pos <= PIPE_BUF)
				to = ends[u++];
			if (to == pos) /* one long unit, or the tail without a noted end */
				to = u < nr_ends ? ends[u++] : len;
		}
		if (ps_stop) {
			errno = EINTR;
			return -1;
		}
		if (ps_write_upto(fd, buf + pos, to - pos, &d) < 0) {
			*done = pos + d;
			return -1;
		}
		pos = to;
		*done = pos;
	}
	return 0;
}

/* Write @buf (its units end at @ends); 0, or -1 with out->saved filled. */
static int write_units(struct ps_output *out, const unsigned char *buf, size_t len,
                       const size_t *ends, size_t nr_ends)
{
	size_t done = 0;

	if (!ps_stop && (out->is_pipe ? pipe_write(out->fd, buf, len, ends, nr_ends, &done) :
	                                ps_write_upto(out->fd, buf, len, &done)) == 0)
		return 0;
	if (ps_stop && (done < len || errno == EINTR)) {
		if (stop_write(out->fd, buf, len, ends, nr_ends, done))
			return 0;
		/* stopped with a reader that does not read: a quiet end, like a reader gone */
		ps_error__set(&out->saved, PS_EPIPE, out->name, PS_NO_OFFSET,
		              "stopped while the reader was not reading");
	} else if (errno == EPIPE) {
		ps_error__set(&out->saved, PS_EPIPE, out->name, PS_NO_OFFSET, NULL);
	} else {
		ps_error__sys(&out->saved, PS_EWRITE, out->name, "write error");
	}
	out->failed = true;
	return -1;
}

static int drain(struct ps_output *out, struct ps_error *err)
{
	if (!out->failed && out->len &&
	    write_units(out, out->buf, out->len, out->ends, out->nr_ends) == 0) {
		out->len = 0;
		out->nr_ends = 0;
	}
	if (out->failed) {
		if (err)
			*err = out->saved;
		return -1;
	}
	out->len = 0;
	out->nr_ends = 0;
	return 0;
}

int ps_output__write(struct ps_output *out, const void *buf, size_t len, struct ps_error *err)
{
	if (out->failed)
		return drain(out, err);
	if (out->len + len > OUT_BUF && drain(out, err))
		return -1;
	if (len >= OUT_BUF) {
		if (write_units(out, buf, len, &len, 1) < 0) {
			if (err)
				*err = out->saved;
			return -1;
		}
	} else {
		memcpy(out->buf + out->len, buf, len);
		out->len += len;
		if (out->nr_ends == out->cap_ends) {
			size_t n = out->cap_ends ? out->cap_ends * 2 : 256;
			size_t *e = ps_realloc_array(out->ends, n, sizeof(*e));

			if (e) {
				out->ends = e;
				out->cap_ends = n;
			}
		}
		/* without room to note it, the unit joins the next: merely less careful */
		if (out->nr_ends < out->cap_ends)
			out->ends[out->nr_ends++] = out->len;
	}
	out->bytes += len;
	return 0;
}

int ps_output__begin(struct ps_output *out, bool swap, struct ps_error *err)
{
	unsigned char hdr[PS_PIPE_HEADER_SIZE];

	/* perf writes the magic as a native u64, so its bytes also tell the byte order */
	ps_put64(hdr, PS_MAGIC, swap);
	ps_put64(hdr + 8, PS_PIPE_HEADER_SIZE, swap);
	return ps_output__write(out, hdr, sizeof(hdr), err);
}

int ps_output__put(struct ps_output *out, const struct ps_record *rec, struct ps_error *err)
{
	return ps_output__write(out, rec->data, rec->len, err);
}

int ps_output__flush(struct ps_output *out, struct ps_error *err)
{
	return drain(out, err);
}

void ps_output__flush_hook(void *out)
{
	drain(out, NULL);
}

int ps_output__close(struct ps_output *out, struct ps_error *err)
{
	int r;

	if (!out)
		return 0;
	r = drain(out, err);
	/* the file is put in place when everything was written */
	if (out->of && ps_outfile__close(out->of, !r, false, r ? NULL : err) < 0)
		r = -1;
	free(out->ends);
	free(out->buf);
	free(out);
	return r;
}

unsigned long long ps_output__bytes(const struct ps_output *out)
{
	return out->bytes;
}
