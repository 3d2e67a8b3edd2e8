// SPDX-License-Identifier: GPL-2.0-only
/*
 * files.c - every output file by one set of rules (files.h): devices and FIFOs written as
 * they are, regular files through an exclusive temporary name beside the final one, trusted
 * symbolic links followed, never over an input; a terminal on standard input refused.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "files.h"

#define MAX_LINKS 40 /* symbolic links followed in a row, as the kernel's limit */

struct ps_outfile {
	struct ps_outfile *next; /* in the list of pending temporary files */
	const char *name;        /* the name as given, for messages (the caller's) */
	char *final;             /* the file replaced: the name, or where its links lead */
	char *tmp;               /* the temporary name, NULL when writing to @final as it is */
	int fd;                  /* -1 once standard output or a stdio stream */
	FILE *fp;                /* ps_outfile__stream() */
	pid_t pid;               /* the process that made @tmp */
	bool all_regular;        /* every input is a regular file (not a live stream) */
};

/* what an output name leads to, its trusted symbolic links followed */
struct target {
	char *path;     /* malloc'ed: the file to write or replace */
	bool exists;    /* something is there ... */
	struct stat st; /* ... and this is its lstat(2): never a symbolic link ... */
	bool magic;     /* ... but when @path is a link only the kernel follows (a /proc/PID/fd
	                 * link to a pipe), its stat(2) */
};

/* the temporary files not yet renamed nor removed, removed at exit */
static struct ps_outfile *pending;

static void remove_pending(void)
{
	struct ps_outfile *of;

	for (of = pending; of; of = of->next)
		if (of->tmp && of->pid == getpid())
			unlink(of->tmp);
	pending = NULL;
}

static void pending_add(struct ps_outfile *of)
{
	static bool registered;

	if (!registered)
		registered = atexit(remove_pending) == 0;
	of->pid = getpid();
	of->next = pending;
	pending = of;
}

static void pending_del(struct ps_outfile *of)
{
	struct ps_outfile **pp;

	for (pp = &pending; *pp; pp = &(*pp)->next)
		if (*pp == of) {
			*pp = of->next;
			break;
		}
}

static bool is_stdin(const char *path)
{
	return !path || strcmp(path, "-") == 0;
}

static int no_memory(struct ps_error *err)
{
	return ps_error__set(err, PS_ENOMEM, NULL, PS_NO_OFFSET, "out of memory");
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

/* the length of @path's directory part, its last slash included (0: the current one) */
static size_t dir_len(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? (size_t)(slash - path) + 1 : 0;
}

/*
 * May the symbolic link @link (lstat'ed as @lst) be followed?  Only when it is ours or its
 * directory owner's: a link that someone else planted in a directory they can write must not
 * turn our output onto a file of our choosing (fs.protected_symlinks' rule).
 */
static int link_trusted(const char *shown, const char *link, const struct stat *lst,
                        struct ps_error *err)
{
	size_t dl = dir_len(link);
	struct stat dst;
	char *dir;
	int r;

	if (lst->st_uid == geteuid())
		return 0;
	dir = dl ? strndup(link, dl) : strdup(".");
	if (!dir)
		return no_memory(err);
	r = stat(dir, &dst);
	free(dir);
	if (r == 0 && dst.st_uid == lst->st_uid)
		return 0;
	return ps_error__set(
	        err, PS_EUSAGE, shown, PS_NO_OFFSET,
	        "is a symbolic link owned by user %u, who does not own its directory: not followed; name the file it points to",
	        (unsigned int)lst->st_uid);
}

/* the target of the symbolic link @link, as a path from where we are (malloc'ed) */
static char *link_target(const char *shown, const char *link, struct ps_error *err)
{
	char buf[PATH_MAX];
	size_t dl = 0;
	ssize_t n = readlink(link, buf, sizeof(buf));
	char *t;

	if (n < 0) {
		ps_error__sys(err, PS_ESYS, shown, "cannot read the symbolic link");
		return NULL;
	}
	if ((size_t)n >= sizeof(buf)) {
		ps_error__set(err, PS_ESYS, shown, PS_NO_OFFSET, "symbolic link too long");
		return NULL;
	}
	if (buf[0] != '/')
		dl = dir_len(link);
	t = malloc(dl + (size_t)n + 1);
	if (!t) {
		no_memory(err);
		return NULL;
	}
	memcpy(t, link, dl);
	memcpy(t + dl, buf, (size_t)n);
	t[dl + (size_t)n] = 0;
	return t;
}

/* Follow @path's trusted symbolic links to the file that is written or replaced. */
static int follow(const char *path, struct target *t, struct ps_error *err)
{
	char *cur = strdup(path), *next;
	int hops;

	memset(t, 0, sizeof(*t));
	if (!cur)
		return no_memory(err);
	for (hops = 0;; hops++) {
		if (lstat(cur, &t->st) < 0) {
			if (errno != ENOENT) {
				ps_error__sys(err, PS_ESYS, path, "cannot look it up");
				break;
			}
			t->path = cur; /* a new file (also where a link leads nowhere yet) */
			return 0;
		}
		if (!S_ISLNK(t->st.st_mode)) {
			t->exists = true;
			t->path = cur;
			return 0;
		}
		if (hops == MAX_LINKS) {
			errno = ELOOP;
			ps_error__sys(err, PS_ESYS, path, "cannot look it up");
			break;
		}
		if (link_trusted(path, cur, &t->st, err) < 0)
			break;
		next = link_target(path, cur, err);
		if (!next)
			break;
		if (lstat(next, &t->st) < 0 && errno == ENOENT && stat(cur, &t->st) == 0) {
			/* /dev/stdout, say: /proc/self/fd/1 names "pipe:[1234]" */
			free(next);
			t->exists = t->magic = true;
			t->path = cur;
			return 0;
		}
		free(cur);
		cur = next;
	}
	free(cur);
	return -1;
}

/* ".NAME.XXXXXX" in the directory of @final, within NAME_MAX */
static char *tmp_template(const char *final, struct ps_error *err)
{
	size_t dl = dir_len(final), len = strlen(final) + sizeof(".XXXXXX") + 1;
	char *t = malloc(len);

	if (!t) {
		no_memory(err);
		return NULL;
	}
	snprintf(t, len, "%.*s.%.*s.XXXXXX", (int)dl, final, NAME_MAX - 8, final + dl);
	return t;
}

/*
 * The temporary file for @t (a regular file or none), with the owner and the permission
 * bits of the file it replaces, as far as allowed, and never its set-id or sticky bits.
 */
static int make_tmp(const char *shown, const struct target *t, char **tmp, struct ps_error *err)
{
	mode_t mask;
	int fd;

	*tmp = tmp_template(t->path, err);
	if (!*tmp)
		return -1;
	fd = mkostemp(*tmp, O_CLOEXEC);
	if (fd < 0) {
		ps_error__sys(err, PS_ESYS, shown, "cannot create a file in its directory");
		free(*tmp);
		*tmp = NULL;
		return -1;
	}
	if (t->exists) {
		/* someone else's file, where we may not give it away: the new one is ours */
		if (fchown(fd, t->st.st_uid, t->st.st_gid) < 0)
			(void)!fchown(fd, (uid_t)-1, t->st.st_gid);
		(void)fchmod(fd, t->st.st_mode & 0777);
	} else {
		mask = umask(0);
		umask(mask);
		(void)fchmod(fd, 0666 & ~mask);
	}
	return fd;
}

/* A device or a FIFO (@t): opened as it is, and checked to be the file looked at. */
static int open_as_is(const char *shown, const struct target *t, struct ps_error *err)
{
	struct stat st;
	int fd = open(t->path, O_WRONLY | O_CLOEXEC | O_NOCTTY | (t->magic ? 0 : O_NOFOLLOW));

	if (fd < 0)
		return ps_error__sys(err, PS_ESYS, shown, "cannot open");
	if (fstat(fd, &st) < 0 || st.st_dev != t->st.st_dev || st.st_ino != t->st.st_ino) {
		close(fd);
		return ps_error__set(err, PS_ESYS, shown, PS_NO_OFFSET,
		                     "changed while it was being opened");
	}
	return fd;
}

struct ps_outfile *ps_outfile__create(const char *path, const char *const *inputs, int nr_inputs,
                                      struct ps_error *err)
{
	struct ps_outfile *of;
	struct target t;

	if (follow(path, &t, err) < 0)
		return NULL;
	of = calloc(1, sizeof(*of));
	if (!of) {
		no_memory(err);
		goto fail;
	}
	of->fd = -1;
	of->name = path;
	of->final = t.path;
	if (check_inputs(path, t.exists ? &t.st : NULL, inputs, nr_inputs, &of->all_regular, err) <
	    0)
		goto fail;
	if (t.magic && S_ISREG(t.st.st_mode)) {
		ps_error__set(err, PS_EUSAGE, path, PS_NO_OFFSET,
		              "leads to a file that has no name any more: not replaced");
		goto fail;
	}
	if (t.exists && !S_ISREG(t.st.st_mode)) {
		/* a FIFO or a device: nothing to replace, written as it is */
		of->fd = open_as_is(path, &t, err);
		if (of->fd < 0)
			goto fail;
		return of;
	}
	of->fd = make_tmp(path, &t, &of->tmp, err);
	if (of->fd < 0)
		goto fail;
	pending_add(of);
	return of;
fail:
	free(t.path);
	free(of);
	return NULL;
}

struct ps_outfile *ps_outfile__open(const char *path, const char *const *inputs, int nr_inputs,
                                    struct ps_error *err)
{
	struct ps_outfile *of = ps_outfile__create(path, inputs, nr_inputs, err);
	struct ps_error spare = { 0 };

	if (!of)
		return NULL;
	fflush(stdout);
	if (of->fd != 1 && dup2(of->fd, 1) < 0) {
		ps_error__sys(err, PS_ESYS, path, "cannot make it standard output");
		ps_outfile__close(of, false, false, &spare);
		return NULL;
	}
	if (of->fd != 1)
		close(of->fd);
	of->fd = -1;
	return of;
}

int ps_outfile__fd(const struct ps_outfile *of)
{
	return of->fd;
}

FILE *ps_outfile__stream(struct ps_outfile *of, struct ps_error *err)
{
	if (!of->fp && of->fd >= 0) {
		of->fp = fdopen(of->fd, "w");
		if (!of->fp) {
			ps_error__sys(err, PS_ESYS, of->name, "cannot write");
			return NULL;
		}
		of->fd = -1;
	}
	if (!of->fp)
		ps_error__set(err, PS_ESYS, of->name, PS_NO_OFFSET, "is standard output");
	return of->fp;
}

int ps_outfile__close(struct ps_outfile *of, bool complete, bool interrupted, struct ps_error *err)
{
	int r = 0;

	if (!of)
		return 0;
	if (of->fp) {
		bool bad = fflush(of->fp) != 0 || ferror(of->fp);
		int e = errno;

		if (fclose(of->fp) != 0 && !bad) {
			bad = true;
			e = errno;
		}
		if (bad && complete) {
			errno = e;
			r = ps_error__sys(err, e == EPIPE ? PS_EPIPE : PS_EWRITE, of->name,
			                  "write");
		}
	} else if (of->fd >= 0 && close(of->fd) < 0 && complete && of->tmp) {
		r = ps_error__sys(err, PS_EWRITE, of->name, "write");
	}
	if (r == 0 && !of->tmp) {
		r = 1;
	} else if (r == 0 && complete && !(interrupted && of->all_regular)) {
		if (rename(of->tmp, of->final) < 0)
			r = ps_error__sys(err, PS_EWRITE, of->name,
			                  "cannot put the output in place");
		else
			r = 1;
	}
	if (of->tmp) {
		if (r != 1)
			unlink(of->tmp);
		pending_del(of);
	}
	free(of->final);
	free(of->tmp);
	free(of);
	return r;
}

int ps_outpath__refuse_input(const char *path, const char *const *inputs, int nr_inputs,
                             struct ps_error *err)
{
	struct stat st;
	bool all_regular;

	return check_inputs(path, stat(path, &st) == 0 ? &st : NULL, inputs, nr_inputs,
	                    &all_regular, err);
}

/* @final's target for a temporary file: a regular file or none */
static int regular_target(const char *final, struct target *t, struct ps_error *err)
{
	if (follow(final, t, err) < 0)
		return -1;
	if (t->exists && !S_ISREG(t->st.st_mode)) {
		free(t->path);
		return ps_error__set(
		        err, PS_EUSAGE, final, PS_NO_OFFSET,
		        "is not a regular file (a device, a FIFO, a directory): not replaced");
	}
	return 0;
}

int ps_outpath__create_tmp(const char *final, char **tmp, struct ps_error *err)
{
	struct target t;
	int fd;

	*tmp = NULL;
	if (regular_target(final, &t, err) < 0)
		return -1;
	fd = make_tmp(final, &t, tmp, err);
	free(t.path);
	return fd;
}

int ps_outpath__reopen_tmp(const char *tmp)
{
	int fd = open(tmp, O_WRONLY | O_APPEND | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW | O_NONBLOCK);
	struct stat st;

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_nlink != 1) {
		close(fd);
		errno = ESTALE;
		return -1;
	}
	return fd;
}

int ps_outpath__commit(const char *tmp, const char *final, struct ps_error *err)
{
	struct target t;
	int r = 0;

	if (regular_target(final, &t, err) < 0)
		return -1;
	/* the links were changed since: the file is in another directory than theirs now */
	if (dir_len(t.path) != dir_len(tmp) || memcmp(t.path, tmp, dir_len(tmp)) != 0)
		r = ps_error__set(
		        err, PS_EWRITE, final, PS_NO_OFFSET,
		        "its symbolic link changed while it was written: not put in place");
	else if (rename(tmp, t.path) < 0)
		r = ps_error__sys(err, PS_EWRITE, final, "cannot put the output in place");
	free(t.path);
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

int ps_file__open_named(const char *path, uint64_t max, const char **why)
{
	struct stat st, again;
	char self[64];
	int pfd, fd;

	*why = NULL;
	/* O_PATH opens nothing: no FIFO waits for a writer, no device's open runs */
	pfd = open(path, O_PATH | O_CLOEXEC);
	if (pfd < 0)
		return -1;
	if (fstat(pfd, &st) < 0) {
		close(pfd);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		close(pfd);
		*why = S_ISDIR(st.st_mode) ? NULL : "not a regular file, not read";
		return -1;
	}
	/* the same file, whatever happens to the name meanwhile (without /proc, the name
	 * again, checked to be the same file below) */
	snprintf(self, sizeof(self), "/proc/self/fd/%d", pfd);
	fd = open(self, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT)
		fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	close(pfd);
	if (fd < 0)
		return -1;
	if (fstat(fd, &again) < 0 || !S_ISREG(again.st_mode) || again.st_dev != st.st_dev ||
	    again.st_ino != st.st_ino) {
		close(fd);
		*why = "not a regular file, not read";
		return -1;
	}
	if ((uint64_t)again.st_size > max) {
		close(fd);
		*why = "too big, not read";
		return -1;
	}
	return fd;
}

char *ps_outpath__expand(const char *dir, const char *pattern, uint64_t number, int width,
                         const char *key)
{
	size_t klen = key ? strlen(key) : 0, len = 1, o = 0;
	char num[32];
	const char *p;
	char *name;
	int nlen;

	nlen = snprintf(num, sizeof(num), "%0*llu", width, (unsigned long long)number);
	if (nlen < 0 || (size_t)nlen >= sizeof(num))
		return NULL;
	if (dir)
		len += strlen(dir) + 1;
	for (p = pattern; *p; p++)
		len += *p == '%' ? klen + (size_t)nlen : 1;
	name = malloc(len);
	if (!name)
		return NULL;
	if (dir)
		o = (size_t)sprintf(name, "%s/", dir);
	for (p = pattern; *p; p++) {
		if (*p != '%' || !p[1]) {
			name[o++] = *p;
			continue;
		}
		p++;
		if (*p == 'k' && key)
			o += (size_t)sprintf(name + o, "%s", key);
		else if (*p == 'n')
			o += (size_t)sprintf(name + o, "%s", num);
		else if (*p == '%')
			name[o++] = '%';
		else if (*p != 'k')
			o += (size_t)sprintf(name + o, "%%%c", *p);
	}
	name[o] = 0;
	return name;
}
