// SPDX-License-Identifier: GPL-2.0-only
/*
 * syscalls.c - lookups in the generated syscall tables (see gen-syscalls.sh).
 */
#include <stddef.h>
#include <string.h>

#include "compat.h"
#include "syscalls.h"
#include "syscalls_gen.c"

struct table {
	const char *const *names;
	size_t nr;
};

static struct table table_for(const char *arch)
{
	struct table t = { x86_64_names, ARRAY_SIZE(x86_64_names) };

	if (!arch || strcmp(arch, "x86_64") == 0)
		return t;
	if (strcmp(arch, "i386") == 0 || strcmp(arch, "i486") == 0 || strcmp(arch, "i586") == 0 ||
	    strcmp(arch, "i686") == 0 || strcmp(arch, "x86") == 0) {
		t.names = i386_names;
		t.nr = ARRAY_SIZE(i386_names);
	} else if (strcmp(arch, "aarch64") == 0 || strcmp(arch, "arm64") == 0 ||
	           strcmp(arch, "riscv64") == 0 || strcmp(arch, "loongarch64") == 0) {
		t.names = generic_names;
		t.nr = ARRAY_SIZE(generic_names);
	}
	return t;
}

const char *ps_syscall_name(const char *arch, long nr)
{
	struct table t = table_for(arch);

	if (nr < 0 || (size_t)nr >= t.nr)
		return NULL;
	return t.names[nr];
}

const char *const *ps_syscall_names(const char *arch, size_t *nr)
{
	struct table t = table_for(arch);

	*nr = t.nr;
	return t.names;
}

long ps_syscall_number(const char *arch, const char *name)
{
	struct table t = table_for(arch);
	size_t i;

	for (i = 0; i < t.nr; i++)
		if (t.names[i] && strcmp(t.names[i], name) == 0)
			return (long)i;
	return -1;
}
