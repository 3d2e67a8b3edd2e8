// SPDX-License-Identifier: GPL-2.0-only
/*
 * output.c - buffered, EPIPE-aware writing of the pipe stream.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "abi.h"
#include "io.h"
#include "output.h"

#define OUT_BUF (256u << 10)

struct ps_output {
	int fd;
	bool own_fd;
	const char *name;
	unsigned char *buf;
	size_t len;
	unsigned long long bytes;
	struct ps_error saved; /* a failure from the flush hook */
	bool failed;
};

struct ps_output *ps_output__open(const char *path, bool force, struct ps_error *err)
{
	struct ps_output *out;
	bool is_std = !path || strcmp(path, "-") == 0;
	const char *name = is_std ? "<stdout>" : path;
	int fd = 1;

	if (is_std && !force && isatty(1)) {
		ps_error__set(err, PS_EUSAGE, NULL, PS_NO_OFFSET,
		              "refusing to write a binary stream to a terminal (use -f to force)");
		return NULL;
	}
	if (!is_std) {
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0) {
			ps_error__sys(err, PS_ESYS, path, "cannot create");
			return NULL;
		}
	}
	out = calloc(1, sizeof(*out));
	if (out)
		out->buf = malloc(OUT_BUF);
	if (!out || !out->buf) {
		free(out);
		if (!is_std)
			close(fd);
		ps_error__set(err, PS_ENOMEM, name, PS_NO_OFFSET, "out of memory");
		return NULL;
	}
	out->fd = fd;
	out->own_fd = !is_std;
	out->name = name;
	return out;
}

static int drain(struct ps_output *out, struct ps_error *err)
{
	if (out->failed) {
		if (err)
			*err = out->saved;
		return -1;
	}
	if (out->len && ps_write_full(out->fd, out->buf, out->len) < 0) {
		out->failed = true;
		if (errno == EPIPE)
			ps_error__set(&out->saved, PS_EPIPE, out->name, PS_NO_OFFSET, NULL);
		else
			ps_error__sys(&out->saved, PS_EWRITE, out->name, "write error");
		if (err)
			*err = out->saved;
		return -1;
	}
	out->len = 0;
	return 0;
}

int ps_output__write(struct ps_output *out, const void *buf, size_t len, struct ps_error *err)
{
	if (out->failed)
		return drain(out, err);
	if (out->len + len > OUT_BUF && drain(out, err))
		return -1;
	if (len >= OUT_BUF) {
		if (ps_write_full(out->fd, buf, len) < 0) {
			out->failed = true;
			if (errno == EPIPE)
				ps_error__set(&out->saved, PS_EPIPE, out->name, PS_NO_OFFSET, NULL);
			else
				ps_error__sys(&out->saved, PS_EWRITE, out->name, "write error");
			if (err)
				*err = out->saved;
			return -1;
		}
	} else {
		memcpy(out->buf + out->len, buf, len);
		out->len += len;
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
	if (out->own_fd && close(out->fd) < 0 && !r) {
		r = ps_error__sys(err, PS_EWRITE, out->name, "close");
	}
	free(out->buf);
	free(out);
	return r;
}

unsigned long long ps_output__bytes(const struct ps_output *out)
{
	return out->bytes;
}
