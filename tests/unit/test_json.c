// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_json.c - the JSON encoders: strings stay valid UTF-8 whatever the bytes, 64-bit
 * values stay exact, and the buffer writers of json.h write what jansson writes, byte for
 * byte (the one deliberate difference: a u64 above INT64_MAX is a number); keys from the
 * stream made valid UTF-8 for jansson as the writers make them.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/json.h"
#include "lib/sample_json.h"
#include "unit.h"

/* the buffer's text equals jansson's compact dump of @j (which is consumed) */
static int same_as_jansson(struct ps_json_buf *b, json_t *j)
{
	char *s = json_dumps(j, JSON_ENCODE_ANY | JSON_COMPACT | JSON_PRESERVE_ORDER);
	int ok = s && !b->failed && b->len == strlen(s) && memcmp(b->p, s, b->len) == 0;

	if (!ok)
		fprintf(stderr, "buffer %.*s, jansson %s\n", (int)b->len, b->p, s ? s : "(null)");
	free(s);
	json_decref(j);
	b->len = 0;
	return ok;
}

static uint64_t rnd_state = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	return unit_xorshift(&rnd_state);
}

static void test_strings(void)
{
	static const char *const pieces[] = { "a",        "\"",           "\\",
		                              "\n",       "\x01",         "\x1f",
		                              "\x7f",     "\xe2\x98\x83", "\xf0\x9f\x98\x80",
		                              "\xc3\xa9", "\xff",         "\xe2\x98",
		                              "\xc0\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80",
		                              "/",        "\0",           "\t",
		                              "\b\f\r" };
	struct ps_json_buf b = { 0 };
	int i, ok = 1;

	/* every single byte, escaped or replaced as jansson would */
	for (i = 0; i < 256; i++) {
		char c = (char)i;

		ps_json__string(&b, &c, 1);
		ok &= same_as_jansson(&b, ps_json_string(&c, 1));
	}
	CHECK(ok);
	/* random strings of the awkward pieces */
	for (i = 0; i < 2000; i++) {
		char s[128];
		size_t n = 0;
		int k = (int)(rnd() % 12);

		while (k-- > 0) {
			const char *p = pieces[rnd() % (sizeof(pieces) / sizeof(pieces[0]))];
			size_t len = *p ? strlen(p) : 1;

			memcpy(s + n, p, len);
			n += len;
		}
		ps_json__string(&b, s, n);
		ok &= same_as_jansson(&b, ps_json_string(s, n));
	}
	CHECK(ok);
	/* a key is a string with a comma before and a colon after */
	ps_json__key(&b, "a\"b");
	CHECK(b.len == 8 && memcmp(b.p, ",\"a\\\"b\":", 8) == 0);
	ps_json_buf__release(&b);
}

static void test_numbers(void)
{
	static const uint64_t u[] = { 0,        1,   9,    10,          99,
		                      100,      999, 1000, 4294967295u, 9007199254740993ull,
		                      INT64_MAX };
	static const int64_t s[] = { 0, -1, -9, -10, -100, INT32_MIN, INT64_MIN + 1, INT64_MIN };
	struct ps_json_buf b = { 0 };
	char want[32];
	uint64_t p10;
	size_t i;
	int ok = 1;

	for (i = 0; i < sizeof(u) / sizeof(u[0]); i++) {
		ps_json__u64(&b, u[i]);
		ok &= same_as_jansson(&b, ps_json_u64(u[i]));
	}
	for (i = 0; i < sizeof(s) / sizeof(s[0]); i++) {
		ps_json__i64(&b, s[i]);
		ok &= same_as_jansson(&b, json_integer(s[i]));
	}
	/* every digit count at its edges: 10^k - 1 and 10^k */
	for (i = 0, p10 = 1; i < 20; i++, p10 *= 10) {
		uint64_t edge[2] = { p10 - 1, p10 };
		int k;

		for (k = 0; k < 2; k++) {
			ps_json__u64(&b, edge[k]);
			snprintf(want, sizeof(want), "%" PRIu64, edge[k]);
			ok &= b.len == strlen(want) && memcmp(b.p, want, b.len) == 0;
			b.len = 0;
		}
	}
	for (i = 0; i < 5000; i++) {
		uint64_t v = rnd() >> (rnd() % 64);

		ps_json__u64(&b, v);
		snprintf(want, sizeof(want), "%" PRIu64, v);
		ok &= b.len == strlen(want) && memcmp(b.p, want, b.len) == 0;
		b.len = 0;
		ps_json__hex(&b, v);
		ok &= same_as_jansson(&b, ps_json_hex(v));
		ps_json__i64(&b, (int64_t)v);
		ok &= same_as_jansson(&b, json_integer((json_int_t)v));
	}
	CHECK(ok);
	/* the deliberate difference: above INT64_MAX an exact number, never a string */
	ps_json__u64(&b, 9223372036854775808ull);
	CHECK(b.len == 19 && memcmp(b.p, "9223372036854775808", 19) == 0);
	b.len = 0;
	ps_json__u64(&b, UINT64_MAX);
	CHECK(b.len == 20 && memcmp(b.p, "18446744073709551615", 20) == 0);
	b.len = 0;
	ps_json__hex(&b, 0);
	CHECK(b.len == 5 && memcmp(b.p, "\"0x0\"", 5) == 0);
	ps_json_buf__release(&b);
}

/* a random document: nested objects and arrays of numbers, strings, empties */
static json_t *random_doc(int depth)
{
	int n = (int)(rnd() % 4), i;
	json_t *j = rnd() & 1 ? json_object() : json_array();

	for (i = 0; i < n; i++) {
		json_t *v;
		char k[16];

		switch (rnd() % (depth < 4 ? 4 : 2)) {
		case 0:
			v = json_integer((json_int_t)(rnd() >> 20) - (1ll << 42));
			break;
		case 1:
			v = ps_json_string(",:{}[]\"\\ x", rnd() % 12);
			break;
		default:
			v = random_doc(depth + 1);
			break;
		}
		snprintf(k, sizeof(k), "k%d:", i);
		if (json_is_object(j))
			json_object_set_new(j, k, v);
		else
			json_array_append_new(j, v);
	}
	return j;
}

static void test_indent_and_close(void)
{
	struct ps_json_buf b = { 0 };
	size_t at;
	int i, ok = 1;

	for (i = 0; i < 500; i++) {
		json_t *j = random_doc(0);
		char *c = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER);
		char *p = json_dumps(j, JSON_INDENT(2) | JSON_PRESERVE_ORDER);

		ps_json__indent(&b, c, strlen(c), 2);
		ok &= b.len == strlen(p) && memcmp(b.p, p, b.len) == 0;
		if (b.len != strlen(p) || memcmp(b.p, p, b.len) != 0)
			fprintf(stderr, "indent: %s\ngot %.*s\nwant %s\n", c, (int)b.len, b.p, p);
		b.len = 0;
		free(c);
		free(p);
		json_decref(j);
	}
	CHECK(ok);
	/* members with a leading comma: the first becomes the brace */
	at = ps_json__open(&b);
	ps_json__close(&b, at, '{', '}');
	CHECK(b.len == 2 && memcmp(b.p, "{}", 2) == 0);
	b.len = 0;
	at = ps_json__open(&b);
	ps_json__key(&b, "a");
	ps_json__u64(&b, 1);
	ps_json__char(&b, ',');
	ps_json__raw(&b, "\"b\":[]", 6);
	ps_json__close(&b, at, '{', '}');
	CHECK(b.len == 14 && memcmp(b.p, "{\"a\":1,\"b\":[]}", 14) == 0);
	ps_json_buf__release(&b);
}

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
	/* a key from the stream that is not UTF-8 (jansson refuses it): U+FFFD, as the writer's */
	{
		json_t *o = json_object();
		struct ps_json_buf b = { 0 };

		CHECK(ps_json_object_set(o, "f\xff\n", json_integer(1)) == 0);
		CHECK(ps_json_object_set(o, "g", NULL) == -1);
		ps_json__char(&b, '{');
		ps_json__string(&b, "f\xff\n", 3);
		ps_json__raw(&b, ":1}", 3);
		CHECK(same_as_jansson(&b, o));
		ps_json_buf__release(&b);
	}
	test_strings();
	test_numbers();
	test_indent_and_close();
	return UNIT_DONE("json");
}
