// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_json.c - libFuzzer target for the JSON writer every encoder shares (json.h): the
 * input, any bytes, is written as a string, as an object key (up to its first NUL), as
 * array elements (its pieces between 0xff bytes), next to numbers made of its first
 * bytes; what is written must be valid JSON, checked by parsing it with jansson, and the
 * same text, byte for byte, as jansson writes for the same values (compact, and indented
 * by ps_json__indent() as JSON_INDENT writes it).
 */
#include <inttypes.h>
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/json.h"
#include "replay.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define LOAD_FLAGS (JSON_DECODE_ANY | JSON_ALLOW_NUL)

/* @b's text must be what jansson dumps for @want with @flags */
static void same_as_jansson(const struct ps_json_buf *b, const json_t *want, size_t flags)
{
	char *dump = json_dumps(want, flags | JSON_ENCODE_ANY);

	if (!dump)
		abort();
	if (b->failed || strlen(dump) != b->len || memcmp(dump, b->p, b->len) != 0) {
		fprintf(stderr, "ours:    %.*s\njansson: %s\n", (int)b->len, b->p, dump);
		abort();
	}
	free(dump);
}

/* @b's text must parse, to a value equal to @want when @want is given */
static json_t *parses(const struct ps_json_buf *b, const json_t *want)
{
	json_error_t jerr;
	json_t *j = json_loadb(b->p, b->len, LOAD_FLAGS, &jerr);

	if (!j) {
		fprintf(stderr, "not JSON: %s at %d: %.*s\n", jerr.text, jerr.position, (int)b->len,
		        b->p);
		abort();
	}
	if (want && !json_equal(j, want))
		abort();
	return j;
}

static void numbers(uint64_t u)
{
	struct ps_json_buf b = { 0 };
	char want[64];
	size_t n;

	n = ps_json__fmt_u64(want + 8, u);
	snprintf(want, sizeof(want), "%" PRIu64, u);
	if (n != strlen(want))
		abort();
	ps_json__u64(&b, u);
	ps_json__char(&b, ' ');
	ps_json__i64(&b, (int64_t)u);
	ps_json__char(&b, ' ');
	ps_json__hex(&b, u);
	snprintf(want, sizeof(want), "%" PRIu64 " ", u);
	n = strlen(want);
	if (b.failed || b.len < n || memcmp(b.p, want, n) != 0)
		abort();
	snprintf(want + n, sizeof(want) - n, "%" PRId64 " ", (int64_t)u);
	n = strlen(want);
	if (b.len < n || memcmp(b.p, want, n) != 0)
		abort();
	if (b.len - n < 4 || strncmp(b.p + n, "\"0x", 3) != 0 || b.p[b.len - 1] != '"' ||
	    strtoull(b.p + n + 3, NULL, 16) != u)
		abort();
	ps_json_buf__release(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data;
	struct ps_json_buf b = { 0 }, ind = { 0 };
	json_t *want, *arr, *got;
	uint64_t u = 0;
	unsigned int indent;
	size_t at, at2, i, start;
	char *key;

	if (size > 16384)
		return 0;
	memcpy(&u, data, size < 8 ? size : 8);
	indent = 1 + (size ? data[0] % 8 : 0);
	key = strndup(s, size);
	if (!key)
		abort();
	numbers(u);

	/* the string alone */
	want = ps_json_string(s, size);
	if (!want)
		abort();
	ps_json__string(&b, s, size);
	same_as_jansson(&b, want, JSON_COMPACT);
	json_decref(parses(&b, want));
	ps_json_buf__release(&b);

	/* a document of every writer: [STRING, {KEY: STRING}, {"u":..., "i":..., "h":...},
	 * [PIECE, ...], {}, []] */
	arr = json_array();
	if (!arr)
		abort();
	at = ps_json__open(&b);
	ps_json__char(&b, ',');
	ps_json__string(&b, s, size);

	ps_json__char(&b, ',');
	at2 = ps_json__open(&b);
	ps_json__key(&b, key);
	ps_json__string(&b, s, size);
	ps_json__close(&b, at2, '{', '}');

	ps_json__char(&b, ',');
	at2 = ps_json__open(&b);
	ps_json__key(&b, "u");
	ps_json__u64(&b, u & INT64_MAX); /* jansson holds no integer above INT64_MAX */
	ps_json__key(&b, "i");
	ps_json__i64(&b, (int64_t)u);
	ps_json__key(&b, "h");
	ps_json__hex(&b, u);
	ps_json__close(&b, at2, '{', '}');

	ps_json__char(&b, ',');
	at2 = ps_json__open(&b);
	for (i = 0, start = 0; i <= size; i++) {
		if (i < size && data[i] != 0xff)
			continue;
		ps_json__char(&b, ',');
		ps_json__string(&b, s + start, i - start);
		json_array_append_new(arr, ps_json_string(s + start, i - start));
		start = i + 1;
	}
	ps_json__close(&b, at2, '[', ']');

	ps_json__char(&b, ',');
	at2 = ps_json__open(&b);
	ps_json__close(&b, at2, '{', '}');
	ps_json__char(&b, ',');
	at2 = ps_json__open(&b);
	ps_json__close(&b, at2, '[', ']');
	ps_json__close(&b, at, '[', ']');

	got = parses(&b, NULL);
	if (!json_is_array(got) || json_array_size(got) != 6 ||
	    !json_equal(json_array_get(got, 0), want) || !json_equal(json_array_get(got, 3), arr) ||
	    json_integer_value(json_object_get(json_array_get(got, 2), "u")) !=
	            (json_int_t)(u & INT64_MAX) ||
	    json_integer_value(json_object_get(json_array_get(got, 2), "i")) != (json_int_t)u)
		abort();
	same_as_jansson(&b, got, JSON_COMPACT | JSON_PRESERVE_ORDER);

	/* indented as jansson indents */
	ps_json__indent(&ind, b.p, b.len, indent);
	same_as_jansson(&ind, got, JSON_INDENT(indent) | JSON_PRESERVE_ORDER);
	json_decref(parses(&ind, got));

	json_decref(got);
	json_decref(arr);
	json_decref(want);
	ps_json_buf__release(&b);
	ps_json_buf__release(&ind);
	free(key);
	return 0;
}
