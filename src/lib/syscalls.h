/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * syscalls.h - syscall numbers to names for the architecture a stream was recorded on.
 * The tables are generated at build time from the kernel's UAPI headers.
 */
#ifndef PS_SYSCALLS_H
#define PS_SYSCALLS_H

#include <stddef.h>

/**
 * ps_syscall_name() - the name of syscall @nr on @arch (uname -m of the recording machine,
 * as the arch feature gives it: "x86_64", "i686", "aarch64"...; NULL means x86_64).
 * Return: a static string, or NULL when the number is unknown there.
 */
const char *ps_syscall_name(const char *arch, long nr);

/**
 * ps_syscall_number() - the number of syscall @name on @arch.
 * Return: the number, or -1 when @arch has no such syscall.
 */
long ps_syscall_number(const char *arch, const char *name);

/**
 * ps_syscall_names() - the table ps_syscall_name() reads for @arch: the name of syscall N is
 * the Nth entry (NULL where it has none), *@nr entries; for a lookup per sample.
 */
const char *const *ps_syscall_names(const char *arch, size_t *nr);

#endif
