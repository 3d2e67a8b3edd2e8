/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * duration.h - one way to write a length of time on every command line: "5" or "5s"
 * (seconds), "500ms", "2m", "1.5h", "100us", "250ns"; decimals allowed.
 */
#ifndef PS_DURATION_H
#define PS_DURATION_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"

#define PS_NS_PER_SEC 1000000000ULL

/**
 * ps_duration__parse() - parse a duration into nanoseconds.
 * @arg: the text: a decimal number and an optional unit (ns, us, ms, s, m, h; none means
 *       seconds), no sign, no spaces
 * @min_ns, @max_ns: the range allowed, inclusive
 * @ns: set to the value on success
 * @err: PS_EUSAGE with "'ARG' is not a number of seconds or a duration ..." or
 *       "'ARG' is out of range: from MIN to MAX", without the option's name
 * Return: 0, or -1.
 */
int ps_duration__parse(const char *arg, uint64_t min_ns, uint64_t max_ns, uint64_t *ns,
                       struct ps_error *err);

/**
 * ps_duration__unit() - the length of a time unit, the one table every command line uses.
 * @s, @len: the unit's name ("h", "m", "s", "ms", "us", "ns"), not NUL-terminated
 * Return: the unit in nanoseconds, or 0 when @s is not a unit.
 */
uint64_t ps_duration__unit(const char *s, size_t len);

/**
 * ps_duration__format() - write @ns in the largest unit that states it exactly
 * ("24h", "1ms", "1500ms", "0s"), as ps_duration__parse() reads it back.
 * @buf, @len: where the text goes, NUL-terminated
 * Return: @buf.
 */
char *ps_duration__format(uint64_t ns, char *buf, size_t len);

#endif
