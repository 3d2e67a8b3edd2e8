// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_json.c - the JSON encoders: strings stay valid UTF-8 whatever the bytes, 64-bit
 * values stay exact.
 */
#include <stdlib.h>
#include <string.h>

#include "lib/sample_json.h"
#include "unit.h"

static int dumps_to(json_t *j, const char *want)
{
	char *s = json_dumps(j, JSON_ENCODE_ANY | JSON_COMPACT);
	int ok = s && strcmp(s, want) == 0;

	if (!ok)
		fprintf(stderr, "got %s, want %s\n", s ? s : "(null)", want);
	free(s);
	json_decref(j);
	return ok;
}

int main(void)
{
	/* quote, backslash, newline, control byte and a snowman are kept and escaped */
	CHECK(dumps_to(ps_json_string("a \"b\"\t\\\xe2\x98\x83\n\x01", 12),
	               "\"a \\\"b\\\"\\t\\\\\xe2\x98\x83\\n\\u0001\""));
	/* invalid bytes become U+FFFD, one each */
	CHECK(dumps_to(ps_json_string("x\xff\xfey", 4), "\"x\xef\xbf\xbd\xef\xbf\xbdy\""));
	/* a truncated sequence, an overlong encoding and a surrogate are invalid too */
	CHECK(dumps_to(ps_json_string("\xe2\x98", 2), "\"\xef\xbf\xbd\xef\xbf\xbd\""));
	CHECK(dumps_to(ps_json_string("\xc0\xaf", 2), "\"\xef\xbf\xbd\xef\xbf\xbd\""));
	CHECK(dumps_to(ps_json_string("\xed\xa0\x80", 3),
	               "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\""));
	/* an embedded NUL is escaped, not a terminator */
	CHECK(dumps_to(ps_json_string("a\0b", 3), "\"a\\u0000b\""));
	/* 64-bit values are exact */
	CHECK(dumps_to(ps_json_u64(9007199254740993ULL), "9007199254740993"));
	CHECK(dumps_to(ps_json_u64(18446744073709551615ULL), "\"18446744073709551615\""));
	CHECK(dumps_to(ps_json_hex(0xffffffff81000000ULL), "\"0xffffffff81000000\""));
	return UNIT_DONE("json");
}
