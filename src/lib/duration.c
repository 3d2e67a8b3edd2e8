// SPDX-License-Identifier: GPL-2.0-only
/*
 * duration.c - durations on the command line: "5", "5s", "500ms", "2m", exact to the
 * nanosecond (no floating point), with range errors that say the range.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "compat.h"
#include "duration.h"

static const struct unit {
	const char *name;
	uint64_t ns;
} units[] = {
	/* largest first, for ps_duration__format() */
	{ "h", 3600 * PS_NS_PER_SEC },
	{ "m", 60 * PS_NS_PER_SEC },
	{ "s", PS_NS_PER_SEC },
	{ "ms", 1000000 },
	{ "us", 1000 },
	{ "ns", 1 },
};

uint64_t ps_duration__unit(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(units); i++)
		if (strlen(units[i].name) == len && memcmp(s, units[i].name, len) == 0)
			return units[i].ns;
	return 0;
}

static int not_duration(const char *arg, struct ps_error *err)
{
	return ps_error__set(err, PS_EUSAGE, NULL, PS_NO_OFFSET,
	                     "'%s' is not a number of seconds or a duration (5, 5s, 500ms, 2m)",
	                     arg);
}

int ps_duration__parse(const char *arg, uint64_t min_ns, uint64_t max_ns, uint64_t *ns,
                       struct ps_error *err)
{
	uint64_t whole = 0, frac = 0, scale = 1, unit = PS_NS_PER_SEC, v;
	const char *p = arg;
	bool digits = false, big = false;
	char lo[32], hi[32];

	for (; *p >= '0' && *p <= '9'; p++, digits = true) {
		if (whole > UINT64_MAX / 10 - 1)
			big = true;
		else
			whole = whole * 10 + (uint64_t)(*p - '0');
	}
	if (*p == '.') {
		for (p++; *p >= '0' && *p <= '9'; p++, digits = true) {
			if (scale < PS_NS_PER_SEC) { /* finer than 1 ns is dropped */
				frac = frac * 10 + (uint64_t)(*p - '0');
				scale *= 10;
			}
		}
	}
	if (!digits)
		return not_duration(arg, err);
	if (*p) {
		unit = ps_duration__unit(p, strlen(p));
		if (!unit)
			return not_duration(arg, err);
	}
	if (big || whole > UINT64_MAX / unit) {
		v = UINT64_MAX;
	} else {
		v = whole * unit;
		/* frac < scale <= 1e9 and unit <= 3.6e12: split to stay within 64 bits */
		v += frac * (unit / scale) + frac * (unit % scale) / scale;
		if (v < whole * unit)
			v = UINT64_MAX;
	}
	if (v < min_ns || v > max_ns)
		return ps_error__set(err, PS_EUSAGE, NULL, PS_NO_OFFSET,
		                     "'%s' is out of range: from %s to %s", arg,
		                     ps_duration__format(min_ns, lo, sizeof(lo)),
		                     ps_duration__format(max_ns, hi, sizeof(hi)));
	*ns = v;
	return 0;
}

char *ps_duration__format(uint64_t ns, char *buf, size_t len)
{
	size_t i;

	if (!ns) {
		snprintf(buf, len, "0s");
		return buf;
	}
	for (i = 0; i < ARRAY_SIZE(units); i++)
		if (ns % units[i].ns == 0)
			break;
	snprintf(buf, len, "%" PRIu64 "%s", ns / units[i].ns, units[i].name);
	return buf;
}
