// SPDX-License-Identifier: GPL-2.0-only
/*
 * error.c - error codes and the filling of struct ps_error.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

#include "error.h"

static const char *const texts[] = {
#define PS_E(code, text) [code - PS_ERR_BASE - 1] = text,
	PS_ERRORS
#undef PS_E
};

const char *ps_strerror(int code)
{
	if (code == PS_OK)
		return "success";
	if (code > PS_ERR_BASE && code < PS_ERR_END)
		return texts[code - PS_ERR_BASE - 1];
	return "unknown error";
}

/* @err (when not NULL) filled */
static void fill(struct ps_error *err, int code, const char *input, uint64_t offset,
                 const char *fmt, va_list ap)
{
	if (!err)
		return;
	err->code = code;
	err->sys_errno = 0;
	err->input = input;
	err->has_offset = offset != PS_NO_OFFSET;
	err->offset = err->has_offset ? offset : 0;
	if (fmt)
		vsnprintf(err->detail, sizeof(err->detail), fmt, ap);
	else
		snprintf(err->detail, sizeof(err->detail), "%s", ps_strerror(code));
}

int ps_error__set(struct ps_error *err, int code, const char *input, uint64_t offset,
                  const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fill(err, code, input, offset, fmt, ap);
	va_end(ap);
	return -1;
}

int ps_error__sys(struct ps_error *err, int code, const char *input, const char *fmt, ...)
{
	int saved = errno;
	va_list ap;

	va_start(ap, fmt);
	fill(err, code, input, PS_NO_OFFSET, fmt, ap);
	va_end(ap);
	if (err)
		err->sys_errno = saved;
	return -1;
}
