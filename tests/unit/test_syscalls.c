// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_syscalls.c - the generated syscall tables agree with the numbers every libc knows.
 */
#include <string.h>
#include <sys/syscall.h>

#include "lib/syscalls.h"
#include "unit.h"

static int same(const char *a, const char *b)
{
	return a && b && strcmp(a, b) == 0;
}

int main(void)
{
	/* the host's own numbers come from <sys/syscall.h>, independently of our tables */
	CHECK(same(ps_syscall_name("x86_64", SYS_write), "write"));
	CHECK(same(ps_syscall_name(NULL, SYS_openat), "openat"));
	CHECK(same(ps_syscall_name("x86_64", SYS_exit_group), "exit_group"));
	CHECK(same(ps_syscall_name("x86_64", 0), "read"));
	CHECK(same(ps_syscall_name("i686", 4), "write"));
	CHECK(same(ps_syscall_name("i386", 1), "exit"));
	CHECK(same(ps_syscall_name("aarch64", 64), "write"));
	CHECK(same(ps_syscall_name("aarch64", 56), "openat"));
	CHECK(ps_syscall_name("x86_64", -1) == NULL);
	CHECK(ps_syscall_name("x86_64", 100000) == NULL);
	CHECK_EQ_U64(ps_syscall_number("x86_64", "write"), SYS_write);
	CHECK_EQ_U64(ps_syscall_number("aarch64", "openat"), 56);
	CHECK(ps_syscall_number("x86_64", "no_such_call") == -1);
	return UNIT_DONE("syscalls");
}
