// SPDX-License-Identifier: GPL-2.0-only
/*
 * files.c - -o through a temporary name beside the final one, never over an input; a
 * terminal on standard input refused.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "files.h"

struct ps_outfile {
	char *final;      /* where the output goes */
	char *tmp;        /* the temporary name, NULL when writing straight to @final */
	bool all_regular; /* every input is a regular file (not a live stream) */
};

/* the one temporary file of this process, removed at exit unless renamed */
static char *pending_tmp;

static void remove_pending(void)
{
	if (pending_tmp) {
		unlink(pending_tmp);
		free(pending_tmp);
		pending_tmp = NULL;
	}
}

static bool is_stdin(const char *path)
{
	return !path || strcmp(path, "-") == 0;
}

/* Refuse @st (the output, as it exists) when an input is that same file. */
static int check_inputs(const char *path, const struct stat *st, const char *const *inputs,
                        int nr_inputs, bool *all_regular, struct ps_error *err)
{
	int i, n = nr_inputs > 0 ? nr_inputs : 1;

	*all_regular = true;
	for (i = 0; i < n; i++) {
		const char *in = nr_inputs > 0 && inputs[i] ? inputs[i] : "-";
		struct stat ist;
		int r = is_stdin(in) ? fstat(0, &ist) : stat(in, &ist);

		if (r < 0)
			continue; /* opening it will say what is wrong */
		if (!S_ISREG(ist.st_mode))
			*all_regular = false;
		if (st && S_ISREG(st->st_mode) && ist.st_dev == st->st_dev &&
		    ist.st_ino == st->st_ino)
			return ps_error__set(
			        err, PS_EUSAGE, path, PS_NO_OFFSET,
			        "is also the input%s%s%s: writing it would destroy it; name another output",
			        strcmp(in, path) ? " (" : "",
			        strcmp(in, path) ? (is_stdin(in) ? "on standard input" : in) : "",
			        strcmp(in, path) ? ")" : "");
	}
	return 0;
}

static char *dup_str(const char *s, struct ps_error *err)
{
	char *d = strdup(s);

	if (!d)
		ps_error__set(err, PS_ENOMEM, NULL, PS_NO_OFFSET, "out of memory");
	return d;
}

/* ".NAME.XXXXXX" in the directory of @final */
static char *tmp_template(const char *final, struct ps_error *err)
{
	const char *slash = strrchr(final, '/');
	size_t dirlen = slash ? (size_t)(slash - final) + 1 : 0;
	size_t len = strlen(final) + sizeof(".XXXXXX") + 1;
	char *t = malloc(len);

	if (!t) {
		ps_error__set(err, PS_ENOMEM, NULL, PS_NO_OFFSET, "out of memory");
		return NULL;
	}
	snprintf(t, len, "%.*s.%s.XXXXXX", (int)dirlen, final, final + dirlen);
	return t;
}

static int onto_stdout(int fd, const char *path, struct ps_error *err)
{
	fflush(stdout);
	if (fd != 1 && dup2(fd, 1) < 0) {
		ps_error__sys(err, PS_ESYS, path, "cannot make it standard output");
		close(fd);
		return -1;
	}
	if (fd != 1)
		close(fd);
	return 0;
}

int ps_outpath__create_tmp(const char *final, char **tmp, struct ps_error *err)
{
	struct stat st;
	bool exists = stat(final, &st) == 0 && S_ISREG(st.st_mode);
	mode_t mask;
	int fd;

	*tmp = tmp_template(final, err);
	if (!*tmp)
		return -1;
	fd = mkostemp(*tmp, O_CLOEXEC);
	if (fd < 0) {
		ps_error__sys(err, PS_ESYS, final, "cannot create a file in its directory");
		free(*tmp);
		*tmp = NULL;
		return -1;
	}
	if (exists) {
		/* the file it replaces keeps its owner and permissions, as far as allowed */
		if (fchown(fd, st.st_uid, st.st_gid) < 0)
			errno = 0;
		fchmod(fd, st.st_mode & 07777);
	} else {
		mask = umask(0);
		umask(mask);
		fchmod(fd, 0666 & ~mask);
	}
	return fd;
}

int ps_outpath__refuse_input(const char *path, const char *const *inputs, int nr_inputs,
                             struct ps_error *err)
{
	struct stat st;
	bool all_regular;

	return check_inputs(path, stat(path, &st) == 0 ? &st : NULL, inputs, nr_inputs,
	                    &all_regular, err);
}

struct ps_outfile *ps_outfile__open(const char *path, const char *const *inputs, int nr_inputs,
                                    struct ps_error *err)
{
	struct ps_outfile *of;
	struct stat st;
	bool exists;
	int fd;

	exists = stat(path, &st) == 0;
	of = calloc(1, sizeof(*of));
	if (!of) {
		ps_error__set(err, PS_ENOMEM, NULL, PS_NO_OFFSET, "out of memory");
		return NULL;
	}
	if (check_inputs(path, exists ? &st : NULL, inputs, nr_inputs, &of->all_regular, err) < 0)
		goto fail;

	if (exists && !S_ISREG(st.st_mode)) {
		/* a FIFO or a device: nothing to replace, write to it as it is */
		of->final = dup_str(path, err);
		if (!of->final)
			goto fail;
		fd = open(path, O_WRONLY | O_CLOEXEC);
		if (fd < 0) {
			ps_error__sys(err, PS_ESYS, path, "cannot open");
			goto fail;
		}
		if (onto_stdout(fd, path, err) < 0)
			goto fail;
		return of;
	}

	/* a symbolic link keeps pointing at the file it names: replace that file */
	of->final = exists ? realpath(path, NULL) : NULL;
	if (!of->final)
		of->final = dup_str(path, err);
	if (!of->final)
		goto fail;
	fd = ps_outpath__create_tmp(of->final, &of->tmp, err);
	if (fd < 0)
		goto fail;
	pending_tmp = strdup(of->tmp);
	if (!pending_tmp) {
		unlink(of->tmp);
		close(fd);
		ps_error__set(err, PS_ENOMEM, NULL, PS_NO_OFFSET, "out of memory");
		goto fail;
	}
	atexit(remove_pending);
	if (onto_stdout(fd, path, err) < 0) {
		remove_pending();
		goto fail;
	}
	return of;
fail:
	free(of->final);
	free(of->tmp);
	free(of);
	return NULL;
}

int ps_outfile__close(struct ps_outfile *of, bool complete, bool interrupted, struct ps_error *err)
{
	int r = 0;

	if (!of)
		return 0;
	if (!of->tmp) {
		r = 1;
	} else if (complete && !(interrupted && of->all_regular)) {
		if (rename(of->tmp, of->final) < 0)
			r = ps_error__sys(err, PS_EWRITE, of->final,
			                  "cannot put the output in place");
		else
			r = 1;
	}
	if (of->tmp && r != 1)
		unlink(of->tmp);
	if (of->tmp) {
		free(pending_tmp);
		pending_tmp = NULL;
	}
	free(of->final);
	free(of->tmp);
	free(of);
	return r;
}

int ps_stdin__refuse_tty(const char *const *inputs, int nr_inputs, struct ps_error *err)
{
	bool reads_stdin = nr_inputs <= 0;
	int i;

	for (i = 0; i < nr_inputs; i++)
		reads_stdin = reads_stdin || is_stdin(inputs[i]);
	if (reads_stdin && isatty(0))
		return ps_error__set(
		        err, PS_EUSAGE, "<stdin>", PS_NO_OFFSET,
		        "reading a stream from the terminal; pipe one in or name a file");
	return 0;
}
