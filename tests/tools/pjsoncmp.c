// SPDX-License-Identifier: GPL-2.0-only
/*
 * pjsoncmp - hold ptojson's output to the jansson encoders: a test program for
 * tests/ptojson.bats.
 *
 *   pjsoncmp [-anpy] [-t ns|s|iso] STREAM JSONL
 *
 * Reads STREAM in time order as ptojson does and, for every record ptojson writes a line
 * for, builds the jansson object (ps_sample_json(), ps_record_json() with -a) and checks the
 * line of JSONL against it twice: as text, byte for byte the compact dump jansson writes
 * (a decimal string above INT64_MAX there stands for the exact number ptojson writes, the one
 * deliberate difference), and parsed back by jansson, equal to the object (where jansson can
 * hold every number of the line).  Prints "compared N lines, M mismatches"; exit 1 on any
 * mismatch or a line count that differs.  With -p the objects are the indented ones of
 * ptojson -p, compared as text only.  With -y the objects have the "NAME_sym" texts of
 * ptojson --symbolic.
 */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/diag.h"
#include "lib/durations.h"
#include "lib/input.h"
#include "lib/order.h"
#include "lib/record_json.h"
#include "lib/sample.h"
#include "lib/sample_json.h"
#include "json_oracle.h"
#include "lib/session.h"
#include "lib/symbols.h"

/* jansson's dump with each "DIGITS" above INT64_MAX written as the bare number */
static char *bare_big_numbers(const char *s)
{
	size_t n = strlen(s), i = 0, o = 0;
	char *out = malloc(n + 1);

	if (!out)
		return NULL;
	while (i < n) {
		size_t j = i + 1;

		if (s[i] == '"') {
			while (j < n && s[j] >= '0' && s[j] <= '9')
				j++;
			if (j < n && s[j] == '"' && j - i - 1 >= 19 && j - i - 1 <= 20) {
				char digits[24];

				memcpy(digits, s + i + 1, j - i - 1);
				digits[j - i - 1] = 0;
				if (strtoull(digits, NULL, 10) > (unsigned long long)INT64_MAX &&
				    (j - i - 1 == 19 ||
				     strcmp(digits, "18446744073709551615") <= 0)) {
					memcpy(out + o, digits, j - i - 1);
					o += j - i - 1;
					i = j + 1;
					continue;
				}
			}
			/* copy the whole string, escapes included */
			j = i + 1;
			while (j < n && s[j] != '"')
				j += s[j] == '\\' ? 2 : 1;
			j = j < n ? j + 1 : n;
		}
		memcpy(out + o, s + i, j - i);
		o += j - i;
		i = j;
	}
	out[o] = 0;
	return out;
}

int main(int argc, char **argv)
{
	enum ps_time_format tf = PS_TIME_NS;
	unsigned long long lines = 0, bad = 0;
	struct ps_json_clock clock = { 0 };
	struct ps_error err = { 0 };
	struct ps_record rec;
	struct ps_order *ord;
	struct ps_durations *dur;
	struct ps_input *in;
	struct ps_session *s;
	char *line = NULL;
	size_t cap = 0;
	bool all = false, pretty = false, nosym = false, symbolic = false;
	struct ps_symbols *syms = NULL;
	FILE *jl;
	int c, r;

	ps_progname = "pjsoncmp";
	while ((c = getopt(argc, argv, "anpt:y")) != -1) {
		if (c == 'a')
			all = true;
		else if (c == 'n')
			nosym = true;
		else if (c == 'p')
			pretty = true;
		else if (c == 'y')
			symbolic = true;
		else if (c == 't')
			tf = strcmp(optarg, "s") == 0   ? PS_TIME_SEC :
			     strcmp(optarg, "iso") == 0 ? PS_TIME_ISO :
			                                  PS_TIME_NS;
		else
			return 2;
	}
	if (argc - optind != 2) {
		fprintf(stderr, "usage: pjsoncmp [-anpy] [-t ns|s|iso] STREAM JSONL\n");
		return 2;
	}
	in = ps_input__open(argv[optind], PS_INPUT_DECOMPRESS, &err);
	if (!in)
		ps_die(&err);
	jl = fopen(argv[optind + 1], "r");
	if (!jl) {
		perror(argv[optind + 1]);
		return 2;
	}
	s = ps_input__session(in);
	ord = ps_order__new(s, 0);
	/* the duration fields, as the reader works them out for ptojson */
	dur = ps_durations__new(NULL, 0, &err);
	if (!ord || !dur)
		return 2;
	ps_session__set_durations(s, dur);
	/* as ptojson: names unless -n (ptojson --no-symbols) */
	if (!nosym && !(syms = ps_symbols__new(s, NULL, &err)))
		ps_die(&err);
	for (;;) {
		r = ps_input__next(in, &rec, &err);
		if (r > 0 && ps_order__push(ord, &rec, &err) < 0)
			ps_die(&err);
		if (r <= 0)
			ps_order__end(ord);
		while (ps_order__pop(ord, &rec) > 0) {
			struct ps_sample smp;
			char unnamed[16];
			json_t *want = NULL, *got;
			char *dump, *text;
			ssize_t len;

			if (syms)
				ps_symbols__process(syms, &rec);
			if (rec.type != PERF_RECORD_SAMPLE)
				ps_durations__record(dur, s, &rec);
			if (rec.type == PERF_RECORD_SAMPLE) {
				if (ps_sample__parse(s, &rec, &smp, "stream", &err) < 0)
					continue;
				ps_durations__sample(dur, s, &smp);
				if (!lines)
					ps_json_clock__from_session(s, &clock);
				want = ps_sample_json(
				        s, &smp,
				        smp.type & PERF_SAMPLE_TID ?
				                ps_session__comm_text(s, smp.tid, unnamed,
				                                      sizeof(unnamed)) :
				                NULL,
				        tf, &clock);
				if (want && symbolic &&
				    ps_sample_json__add_symbolic(want, &smp) < 0) {
					json_decref(want);
					want = NULL;
				}
				if (want && ps_symbols__json(syms, want, &smp, rec.misc) < 0) {
					json_decref(want);
					want = NULL;
				}
				if (want && all)
					json_object_set_new(want, "type", json_string("SAMPLE"));
			} else if (all) {
				want = ps_record_json(s, &rec);
			} else {
				continue;
			}
			if (!want)
				return fprintf(stderr, "pjsoncmp: out of memory\n"), 2;
			lines++;
			dump = json_dumps(want, (pretty ? JSON_INDENT(2) : JSON_COMPACT) |
			                                JSON_PRESERVE_ORDER);
			text = dump ? bare_big_numbers(dump) : NULL;
			if (pretty && text) {
				/* the object's text, then the newline that ends it */
				size_t n = strlen(text) + 1;

				if (cap < n + 1) {
					free(line);
					cap = n + 1;
					line = malloc(cap);
					if (!line)
						return 2;
				}
				len = (ssize_t)fread(line, 1, n, jl);
				line[len] = 0;
			} else {
				len = getline(&line, &cap, jl);
			}
			if (len <= 0) {
				printf("line %llu: missing\n", lines);
				bad++;
				free(text);
				free(dump);
				json_decref(want);
				continue;
			}
			if (line[len - 1] == '\n')
				line[--len] = 0;
			if (!text || strcmp(text, line) != 0) {
				if (++bad <= 5)
					printf("line %llu differs:\n got  %s\n want %s\n", lines,
					       line, text ? text : "(null)");
			} else if (!pretty) {
				/* parsed back, where jansson can hold the numbers */
				got = json_loads(line, 0, NULL);
				if (got && !json_equal(got, want) && ++bad <= 5)
					printf("line %llu parses to another value\n", lines);
				json_decref(got);
			}
			free(text);
			free(dump);
			json_decref(want);
		}
		if (r <= 0)
			break;
	}
	if (getline(&line, &cap, jl) > 0) {
		printf("more lines than records\n");
		bad++;
	}
	printf("compared %llu lines, %llu mismatches\n", lines, bad);
	free(line);
	fclose(jl);
	ps_symbols__delete(syms);
	ps_order__delete(ord);
	ps_input__close(in);
	return bad ? 1 : 0;
}
