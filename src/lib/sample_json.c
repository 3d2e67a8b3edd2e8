// SPDX-License-Identifier: GPL-2.0-only
/*
 * sample_json.c - what ptojson's JSON needs besides the writer: stream time as text.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <traceevent/event-parse.h>

#include "abi.h"
#include "sample_json.h"
#include "session.h"
#include "symbolic.h"

int ps_json_clock__from_session(const struct ps_session *s, struct ps_json_clock *c)
{
	const unsigned char *p;
	size_t len = 0;
	bool swap = ps_session__swapped(s);

	memset(c, 0, sizeof(*c));
	p = ps_session__feature(s, PS_FEAT_CLOCK_DATA, &len);
	if (!p || len < 24)
		return -1;
	c->valid = 1;
	c->tod_ns = ps_get64(p + 8, swap);
	c->clock_ns = ps_get64(p + 16, swap);
	return 0;
}

const char *ps_json_time_string(uint64_t t, enum ps_time_format tf,
                                const struct ps_json_clock *clock, char *buf, size_t len)
{
	if (tf == PS_TIME_ISO && clock && clock->valid) {
		int64_t wall = (int64_t)clock->tod_ns + ((int64_t)t - (int64_t)clock->clock_ns);
		time_t sec = (time_t)(wall / 1000000000);
		long ns = (long)(wall % 1000000000);
		struct tm tm;
		char date[40];

		if (ns < 0) {
			ns += 1000000000;
			sec--;
		}
		gmtime_r(&sec, &tm);
		strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%S", &tm);
		snprintf(buf, len, "%s.%09ldZ", date, ns);
		return buf;
	}
	snprintf(buf, len, "%" PRIu64 ".%09" PRIu64, t / 1000000000, t % 1000000000);
	return buf;
}
