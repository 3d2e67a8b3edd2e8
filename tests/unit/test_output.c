// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_output.c - the stream writer: the pipe header in both byte orders, records and
 * large writes reaching the file intact, EPIPE turned into PS_EPIPE (SIGPIPE ignored),
 * other write errors into PS_EWRITE, and the refusal to write binary to a terminal.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/output.h"
#include "lib/signals.h"
#include "unit.h"

static const char *tmpdir; /* the scratch directory */

/* Read back the whole file @path into @buf (at most @cap bytes); returns its length. */
static size_t slurp(const char *path, unsigned char *buf, size_t cap)
{
	size_t len = 0;
	ssize_t n;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return 0;
	while (len < cap && (n = read(fd, buf + len, cap - len)) > 0)
		len += (size_t)n;
	close(fd);
	return len;
}

static void test_header(void)
{
	static const unsigned char le[16] = { 'P', 'E', 'R', 'F', 'I', 'L', 'E', '2',
		                              16,  0,   0,   0,   0,   0,   0,   0 };
	static const unsigned char be[16] = { '2', 'E', 'L', 'I', 'F', 'R', 'E', 'P',
		                              0,   0,   0,   0,   0,   0,   0,   16 };
	bool big = ps_host_is_big_endian();
	struct ps_error err = { 0 };
	unsigned char got[64];
	struct ps_output *out;
	char path[64];
	int swap;

	for (swap = 0; swap < 2; swap++) {
		bool want_be = big != (swap != 0);

		snprintf(path, sizeof(path), "%s/hdr%d", tmpdir, swap);
		out = ps_output__open(path, false, &err);
		CHECK(out != NULL);
		if (!out)
			continue;
		CHECK_EQ_U64(ps_output__begin(out, swap, &err), 0);
		CHECK_EQ_U64(ps_output__bytes(out), 16);
		/* buffered: nothing reaches the file before a flush or close */
		CHECK_EQ_U64(slurp(path, got, sizeof(got)), 0);
		CHECK_EQ_U64(ps_output__close(out, &err), 0);
		CHECK_EQ_U64(slurp(path, got, sizeof(got)), 16);
		CHECK(memcmp(got, want_be ? be : le, 16) == 0);
	}
}

static void test_records(void)
{
	static unsigned char big[(256u << 10) + 3]; /* larger than the writer's buffer */
	unsigned char rec[24], *got;
	struct ps_error err = { 0 };
	struct ps_record r = { 0 };
	struct ps_output *out;
	char path[64];
	size_t i, len, want, fails;

	for (i = 0; i < sizeof(big); i++)
		big[i] = (unsigned char)(i * 7 + 1);
	memset(rec, 0, sizeof(rec));
	ps_put32(rec, 100, false);
	ps_put16(rec + 6, 21, false);
	memcpy(rec + 8, "thirteen byte", 13);
	r.data = rec;
	r.len = 21; /* records need not be multiples of 8 */
	r.size = 21;
	r.type = 100;

	snprintf(path, sizeof(path), "%s/recs", tmpdir);
	out = ps_output__open(path, true, &err);
	CHECK(out != NULL);
	if (!out)
		return;
	CHECK_EQ_U64(ps_output__begin(out, false, &err), 0);
	CHECK_EQ_U64(ps_output__put(out, &r, &err), 0);
	CHECK_EQ_U64(ps_output__flush(out, &err), 0);
	CHECK_EQ_U64(ps_output__write(out, big, sizeof(big), &err), 0);
	CHECK_EQ_U64(ps_output__put(out, &r, &err), 0);
	for (i = 0, fails = 0; i < 20000; i++) /* many small writes across the buffer's edge */
		fails += ps_output__write(out, big + i % 97, 17, &err) != 0;
	CHECK_EQ_U64(fails, 0);
	want = 16 + 21 + sizeof(big) + 21 + 20000 * 17;
	CHECK_EQ_U64(ps_output__bytes(out), want);
	ps_output__flush_hook(out);
	CHECK_EQ_U64(ps_output__close(out, &err), 0);

	got = malloc(want + 1);
	if (!got)
		return;
	len = slurp(path, got, want + 1);
	CHECK_EQ_U64(len, want);
	CHECK(memcmp(got + 16, rec, 21) == 0);
	CHECK(memcmp(got + 37, big, sizeof(big)) == 0);
	CHECK(memcmp(got + 37 + sizeof(big), rec, 21) == 0);
	CHECK(memcmp(got + 58 + sizeof(big), big, 17) == 0);
	CHECK(memcmp(got + want - 17, big + 19999 % 97, 17) == 0);
	free(got);
}

/* Point standard output at @fd for a while; returns the saved descriptor. */
static int stdout_to(int fd)
{
	int saved;

	fflush(stdout);
	saved = dup(1);
	if (saved >= 0 && dup2(fd, 1) < 0) {
		close(saved);
		return -1;
	}
	return saved;
}

static void stdout_back(int saved)
{
	if (saved < 0)
		return;
	dup2(saved, 1);
	close(saved);
}

static void test_epipe(void)
{
	static unsigned char chunk[4096];
	struct ps_error err = { 0 }, err2 = { 0 };
	struct ps_output *out;
	int p[2], saved, i, r = 0;

	if (pipe(p) < 0) {
		CHECK(!"pipe");
		return;
	}
	close(p[0]); /* nobody will read */
	saved = stdout_to(p[1]);
	close(p[1]);
	CHECK(saved >= 0);
	if (saved < 0)
		return;
	out = ps_output__open(NULL, false, &err); /* a pipe is not a terminal */
	CHECK(out != NULL);
	if (out) {
		CHECK_EQ_U64(ps_output__begin(out, false, &err), 0); /* only buffered */
		for (i = 0; i < 200 && r == 0; i++)
			r = ps_output__write(out, chunk, sizeof(chunk), &err);
		if (r == 0)
			r = ps_output__flush(out, &err);
		CHECK_EQ_U64(r, -1);
		CHECK_EQ_U64(err.code, PS_EPIPE);
		CHECK(err.input && strcmp(err.input, "<stdout>") == 0);
		CHECK(err.detail[0] != 0);
		/* and from then on */
		CHECK_EQ_U64(ps_output__write(out, chunk, 8, &err2), -1);
		CHECK_EQ_U64(err2.code, PS_EPIPE);
		memset(&err2, 0, sizeof(err2));
		CHECK_EQ_U64(ps_output__flush(out, &err2), -1);
		CHECK_EQ_U64(err2.code, PS_EPIPE);
		memset(&err2, 0, sizeof(err2));
		CHECK_EQ_U64(ps_output__close(out, &err2), -1);
		CHECK_EQ_U64(err2.code, PS_EPIPE);
	}
	stdout_back(saved);
}

/* A failure inside the flush hook is kept and given by the next call. */
static void test_hook_failure(void)
{
	struct ps_error err = { 0 };
	struct ps_output *out;
	int p[2], saved;

	if (pipe(p) < 0)
		return;
	close(p[0]);
	saved = stdout_to(p[1]);
	close(p[1]);
	if (saved < 0)
		return;
	out = ps_output__open("-", false, &err);
	CHECK(out != NULL);
	if (out) {
		CHECK_EQ_U64(ps_output__begin(out, true, &err), 0);
		ps_output__flush_hook(out);
		CHECK_EQ_U64(ps_output__write(out, "x", 1, &err), -1);
		CHECK_EQ_U64(err.code, PS_EPIPE);
		ps_output__close(out, NULL);
	}
	stdout_back(saved);
}

static void test_write_errors(void)
{
	struct ps_error err = { 0 };
	struct ps_output *out;
	char path[128];

	/* a full device: a write error, with its errno */
	if (access("/dev/full", W_OK) == 0) {
		out = ps_output__open("/dev/full", false, &err);
		CHECK(out != NULL);
		if (out) {
			CHECK_EQ_U64(ps_output__begin(out, false, &err), 0);
			CHECK_EQ_U64(ps_output__close(out, &err), -1);
			CHECK_EQ_U64(err.code, PS_EWRITE);
			CHECK_EQ_U64(err.sys_errno, ENOSPC);
			CHECK(err.input && strcmp(err.input, "/dev/full") == 0);
		}
	}
	/* a file that cannot be created */
	snprintf(path, sizeof(path), "%s/no/such/dir/out", tmpdir);
	memset(&err, 0, sizeof(err));
	out = ps_output__open(path, false, &err);
	CHECK(out == NULL);
	CHECK_EQ_U64(err.code, PS_ESYS);
	CHECK_EQ_U64(err.sys_errno, ENOENT);
	CHECK_EQ_U64(ps_output__close(NULL, &err), 0);
}

static void test_terminal(void)
{
	struct ps_error err = { 0 };
	struct ps_output *out;
	int m, s, saved;
	char *name;

	m = posix_openpt(O_RDWR | O_NOCTTY);
	if (m < 0 || grantpt(m) < 0 || unlockpt(m) < 0 || !(name = ptsname(m))) {
		fprintf(stderr, "test_output: no pseudo-terminal, terminal refusal not tested\n");
		if (m >= 0)
			close(m);
		return;
	}
	s = open(name, O_RDWR | O_NOCTTY);
	if (s < 0) {
		fprintf(stderr, "test_output: cannot open %s, terminal refusal not tested\n", name);
		close(m);
		return;
	}
	saved = stdout_to(s);
	close(s);
	if (saved < 0) {
		close(m);
		return;
	}
	out = ps_output__open(NULL, false, &err);
	CHECK(out == NULL);
	CHECK_EQ_U64(err.code, PS_EUSAGE);
	CHECK(strstr(err.detail, "terminal") != NULL);
	memset(&err, 0, sizeof(err));
	out = ps_output__open("-", false, &err);
	CHECK(out == NULL);
	CHECK_EQ_U64(err.code, PS_EUSAGE);
	/* forced: accepted (nothing is written) */
	out = ps_output__open(NULL, true, &err);
	CHECK(out != NULL);
	CHECK_EQ_U64(ps_output__close(out, &err), 0);
	stdout_back(saved);
	close(m);
}

int main(void)
{
	ps_signals__init(); /* SIGPIPE ignored: writes fail with EPIPE instead */
	tmpdir = scratch_dir();
	test_header();
	test_records();
	test_epipe();
	test_hook_failure();
	test_write_errors();
	test_terminal();
	scratch_remove(tmpdir);
	return UNIT_DONE("output");
}
