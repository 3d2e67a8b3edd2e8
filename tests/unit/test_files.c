// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_files.c - the output rules of files.h at the level of calls: the temporary file's
 * name, mode and exclusive creation, set-id bits dropped, a symbolic link's target put in
 * place, a device written as it is, the reopening of a temporary file that someone
 * replaced refused, and the pending temporary file removed when nothing is committed.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/files.h"
#include "unit.h"

static const char *dir; /* the scratch directory */

static char *at(const char *name)
{
	static char buf[4][PATH_MAX];
	static int i;

	i = (i + 1) % 4;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", dir, name);
	return buf[i];
}

static void put(const char *path, const char *text, mode_t mode)
{
	FILE *fp = fopen(path, "w");

	if (fp) {
		fputs(text, fp);
		fclose(fp);
	}
	chmod(path, mode);
}

static bool holds(const char *path, const char *text)
{
	char buf[256] = "";
	FILE *fp = fopen(path, "r");
	size_t n;

	if (!fp)
		return false;
	n = fread(buf, 1, sizeof(buf) - 1, fp);
	buf[n] = 0;
	fclose(fp);
	return strcmp(buf, text) == 0;
}

/* how many entries of the directory start with @prefix */
static int count(const char *prefix)
{
	char cmd[PATH_MAX + 64];
	int n = -1;
	FILE *fp;

	snprintf(cmd, sizeof(cmd), "ls -A '%s' | grep -c '^%s'", dir, prefix);
	fp = popen(cmd, "r");
	if (fp) {
		if (fscanf(fp, "%d", &n) != 1)
			n = -1;
		pclose(fp);
	}
	return n;
}

static void test_tmp(void)
{
	struct ps_error err = { 0 };
	char *tmp = NULL, name[NAME_MAX + 1];
	struct stat st;
	int fd;

	put(at("old"), "old", 06750);
	fd = ps_outpath__create_tmp(at("old"), &tmp, &err);
	CHECK(fd >= 0);
	CHECK(tmp && strncmp(tmp, at(".old."), strlen(at(".old."))) == 0);
	CHECK(tmp && strlen(tmp) == strlen(at(".old.XXXXXX")));
	CHECK(fstat(fd, &st) == 0 && (st.st_mode & 07777) == 0750);
	CHECK(holds(at("old"), "old"));
	CHECK(write(fd, "new", 3) == 3);
	close(fd);
	CHECK(ps_outpath__commit(tmp, at("old"), &err) == 0);
	CHECK(holds(at("old"), "new"));
	CHECK(stat(at("old"), &st) == 0 && (st.st_mode & 07777) == 0750);
	free(tmp);

	/* a name as long as a name may be: the temporary one is cut to fit */
	memset(name, 'n', NAME_MAX);
	name[NAME_MAX] = 0;
	fd = ps_outpath__create_tmp(at(name), &tmp, &err);
	CHECK(fd >= 0);
	close(fd);
	CHECK(tmp && ps_outpath__commit(tmp, at(name), &err) == 0);
	CHECK(access(at(name), F_OK) == 0);
	unlink(at(name));
	free(tmp);

	/* a device is not a piece's file */
	fd = ps_outpath__create_tmp("/dev/null", &tmp, &err);
	CHECK(fd < 0 && err.code == PS_EUSAGE && !tmp);
}

static void test_link(void)
{
	struct ps_error err = { 0 };
	struct ps_outfile *of;
	struct stat st;
	FILE *fp;

	put(at("target"), "old", 04755);
	CHECK(symlink("target", at("link")) == 0);
	of = ps_outfile__create(at("link"), NULL, 0, &err);
	CHECK(of != NULL);
	fp = of ? ps_outfile__stream(of, &err) : NULL;
	CHECK(fp != NULL);
	if (fp)
		fputs("new", fp);
	CHECK(count(".target.") == 1);
	CHECK(ps_outfile__close(of, true, false, &err) == 1);
	CHECK(lstat(at("link"), &st) == 0 && S_ISLNK(st.st_mode));
	CHECK(holds(at("target"), "new"));
	CHECK(stat(at("target"), &st) == 0 && (st.st_mode & 07777) == 0755);
	CHECK(count(".target.") == 0);

	/* not complete: the old file stays, the temporary one goes */
	of = ps_outfile__create(at("link"), NULL, 0, &err);
	CHECK(of && write(ps_outfile__fd(of), "x", 1) == 1);
	CHECK(ps_outfile__close(of, false, false, &err) == 0);
	CHECK(holds(at("target"), "new"));
	CHECK(count(".target.") == 0);

	/* an input under another name */
	CHECK(link(at("target"), at("hard")) == 0);
	{
		const char *in[] = { at("hard") };

		CHECK(ps_outfile__create(at("link"), in, 1, &err) == NULL);
		CHECK(err.code == PS_EUSAGE);
		CHECK(strstr(err.detail, "is also the input") != NULL);
	}
	unlink(at("hard"));
}

static void test_device(void)
{
	struct ps_error err = { 0 };
	struct ps_outfile *of = ps_outfile__create("/dev/null", NULL, 0, &err);
	struct stat st;

	CHECK(of != NULL);
	CHECK(of && write(ps_outfile__fd(of), "x", 1) == 1);
	CHECK(ps_outfile__close(of, true, false, &err) == 1);
	CHECK(stat("/dev/null", &st) == 0 && S_ISCHR(st.st_mode));
}

static void test_reopen(void)
{
	struct ps_error err = { 0 };
	char *tmp = NULL;
	int fd = ps_outpath__create_tmp(at("piece"), &tmp, &err);

	CHECK(fd >= 0);
	close(fd);
	fd = ps_outpath__reopen_tmp(tmp);
	CHECK(fd >= 0);
	close(fd);
	/* swapped for a hard link to another file, then for a symbolic link */
	put(at("victim"), "victim", 0644);
	unlink(tmp);
	CHECK(link(at("victim"), tmp) == 0);
	errno = 0;
	CHECK(ps_outpath__reopen_tmp(tmp) < 0 && errno == ESTALE);
	unlink(tmp);
	CHECK(symlink(at("victim"), tmp) == 0);
	CHECK(ps_outpath__reopen_tmp(tmp) < 0);
	CHECK(holds(at("victim"), "victim"));
	unlink(tmp);
	free(tmp);
}

/* a temporary file not committed is removed at exit: the child's own, not the parent's */
static void test_exit(void)
{
	struct ps_error err = { 0 };
	struct ps_outfile *of = ps_outfile__create(at("atexit"), NULL, 0, &err);
	pid_t pid;

	CHECK(of != NULL);
	CHECK(count(".atexit.") == 1);
	pid = fork();
	if (pid == 0)
		exit(0);
	waitpid(pid, NULL, 0);
	CHECK(count(".atexit.") == 1);
	pid = fork();
	if (pid == 0) {
		struct ps_outfile *mine = ps_outfile__create(at("child"), NULL, 0, &err);

		exit(mine ? 0 : 1);
	}
	waitpid(pid, NULL, 0);
	CHECK(count(".child.") == 0);
	CHECK(ps_outfile__close(of, true, false, &err) == 1);
	CHECK(count(".atexit.") == 0);
}

/* the names psplit and pflame make from their patterns */
static void expect_name(const char *in, const char *pattern, uint64_t n, int width, const char *key,
                        const char *want)
{
	char *got = ps_outpath__expand(in, pattern, n, width, key);

	CHECK(got && strcmp(got, want) == 0);
	if (got && strcmp(got, want) != 0)
		fprintf(stderr, "  '%s' gave '%s', not '%s'\n", pattern, got, want);
	free(got);
}

static void test_expand(void)
{
	expect_name(NULL, "cpu-%n.svg", 7, 0, NULL, "cpu-7.svg");
	expect_name(NULL, "x%n-%k.pipe", 7, 4, "sh", "x0007-sh.pipe");
	expect_name("out", "x%n.pipe", 12345, 4, NULL, "out/x12345.pipe");
	expect_name(NULL, "100%%-%n%n", 3, 2, NULL, "100%-0303");
	expect_name(NULL, "%k%k", 1, 0, "", "");
	expect_name(NULL, "a%", 1, 0, NULL, "a%");
}

int main(void)
{
	dir = scratch_dir();
	test_tmp();
	test_link();
	test_device();
	test_reopen();
	test_exit();
	test_expand();
	scratch_remove(dir);
	return UNIT_DONE("files");
}
