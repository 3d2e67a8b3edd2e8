/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * error.h - how the library reports a failure to its caller.
 *
 * Library functions never print and never exit: they fill a caller's
 * struct ps_error and return a negative value or NULL.  Mains turn it into
 * one line with ps_warn() (diag.h).
 */
#ifndef PS_ERROR_H
#define PS_ERROR_H

#include <stdbool.h>
#include <stdint.h>

#include "compat.h"

/* Codes start far above errno values so the two are never confused. */
#define PS_ERRORS                                         \
	PS_E(PS_ENOMEM, "out of memory")                  \
	PS_E(PS_ESYS, "system error")                     \
	PS_E(PS_EEMPTY, "empty input")                    \
	PS_E(PS_EMAGIC, "not a perf stream")              \
	PS_E(PS_ETRUNC, "input ends inside a record")     \
	PS_E(PS_ECORRUPT, "corrupt record")               \
	PS_E(PS_ECAP, "size limit exceeded")              \
	PS_E(PS_EUNSUP, "unsupported input")              \
	PS_E(PS_EPIPE, "the reader downstream went away") \
	PS_E(PS_EWRITE, "write error")                    \
	PS_E(PS_EUSAGE, "usage error")                    \
	PS_E(PS_EMISMATCH, "inputs do not belong together")

enum ps_errcode {
	PS_OK = 0,
	PS_ERR_BASE = 10000,
#define PS_E(code, text) code,
	PS_ERRORS
#undef PS_E
	        PS_ERR_END
};

/**
 * struct ps_error - one failure, as the library saw it.
 * @code: enum ps_errcode, 0 when nothing failed
 * @sys_errno: errno of a failed system call (PS_ESYS, PS_EWRITE), else 0
 * @has_offset: @offset is meaningful
 * @offset: byte offset of the start of the offending record in @input
 * @input: the input's name as the user typed it ("<stdin>" for -); not owned
 * @detail: what is wrong, lowercase, no final period
 */
struct ps_error {
	int code;
	int sys_errno;
	bool has_offset;
	uint64_t offset;
	const char *input;
	char detail[1024];
};

/**
 * ps_strerror() - the fixed text of an error code.
 * @code: enum ps_errcode value
 * Return: a static string, never NULL.
 */
const char *ps_strerror(int code);

/**
 * ps_error__set() - fill @err (when not NULL) with a code and a formatted detail.
 * @err: where to report; may be NULL
 * @code: enum ps_errcode
 * @input: input name, or NULL; the pointer is kept, not copied
 * @offset: byte offset, or PS_NO_OFFSET
 * @fmt: printf format of the detail
 * Return: -1, so callers can write "return ps_error__set(...)".
 */
#define PS_NO_OFFSET UINT64_MAX
int ps_error__set(struct ps_error *err, int code, const char *input, uint64_t offset,
                  const char *fmt, ...) PS_PRINTF(5, 6);

/**
 * ps_error__sys() - like ps_error__set() for a failed system call; records errno.
 * Return: -1.
 */
int ps_error__sys(struct ps_error *err, int code, const char *input, const char *fmt, ...)
        PS_PRINTF(4, 5);

#endif
