// SPDX-License-Identifier: GPL-2.0-only
/*
 * pheader - show what the header records of a perf event stream say: its events and their
 * attrs, its features, its tracepoint formats and its build-ids, as text or as one JSON
 * document; with --all, also how many records of each type it holds.  See pheader(1).
 *
 * The information is gathered as jansson objects (lib/header_json.h); the text dump is
 * rendered from the same objects as the JSON, so both always say the same thing.
 */
#include <inttypes.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/diag.h"
#include "lib/files.h"
#include "lib/progress.h"
#include "lib/header_json.h"
#include "lib/input.h"
#include "lib/opts.h"
#include "lib/sample_json.h"
#include "lib/schema.h"
#include "lib/session.h"
#include "lib/signals.h"
#include "lib/text.h"
#include "lib/xalloc.h"

/* BUILD_ID records kept for the report; later ones are only counted */
#define MAX_BUILD_IDS 100000
#define NR_TYPES (PS_RECORD_TYPE_MAX + 1)

enum {
	OPT_STATS = PS_OPT_LONG,
	OPT_SCHEMA,
	OPT_TABLE,
	OPT_SYMBOLIC,
};

struct opts {
	const char *input; /* the operand; "-" is standard input */
	bool all;          /* -a: read to the end, count the records */
	bool json;         /* -j: one JSON document instead of text */
	bool stats;        /* --stats: only the record counts (implies -a) */
	int schema;        /* --schema: 1 + enum ps_schema_dialect, 0 without */
	const char *table; /* --table NAME */
	bool symbolic;     /* --symbolic: the NAME_sym columns of ptojson --symbolic */
	bool quiet;        /* -q: no progress line */
};

/* What the records read so far said, besides what the session keeps. */
struct state {
	json_t *build_ids;
	uint64_t nr_build_ids;
	uint64_t *counts; /* per record type, with -a */
	uint64_t total;
	uint64_t samples[PS_MAX_ATTRS];
	uint64_t unattributed;
	bool to_end; /* the whole input was read */
};

static const struct ps_cmdline cmdline = {
	.usage = "usage: pheader [-adjq] [--stats] [--schema [clickhouse | sql]] [--table name] "
        "[--symbolic] [file]\n",
	.about = "Show what the header records of a perf event stream say: events, features,\n"
	         "tracepoint formats, build-ids.  Reads up to FINISHED_INIT or the first sample\n"
	         "unless --all.\n",
	.opts = {
		PS_OPT("all", 'a', PS_ARG_NONE, NULL,
		       "read to the end: late build-ids and features, record counts"),
		PS_OPT("dump", 'd', PS_ARG_NONE, NULL, "print the header as text (the default)"),
		PS_OPT_FLAG("json", 'j', "print one JSON document instead", struct opts, json),
		{ "quiet", 'q', PS_ARG_NONE, NULL, "no progress line while -a reads a large file",
		  PS_OPTG_QUIET, 0 },
		PS_OPT("stats", OPT_STATS, PS_ARG_NONE, NULL,
		       "read to the end and print only the record counts"),
		PS_OPT("schema", OPT_SCHEMA, PS_ARG_OPTIONAL, "[clickhouse | sql]",
		       "print the table the samples load into (ClickHouse CREATE TABLE,\n"
		       "or a plain SQL column list, the default)"),
		PS_OPT("table", OPT_TABLE, PS_ARG_REQUIRED, "NAME",
		       "the table name for --schema clickhouse (default pstream)"),
		PS_OPT_FLAG("symbolic", OPT_SYMBOLIC,
		            "with --schema: a text column for each NAME_sym key that\n"
		            "ptojson --symbolic writes",
		            struct opts, symbolic),
	},
};

static void parse_args(int argc, char **argv, struct opts *o)
{
	struct ps_common_opts co;
	struct ps_args a;
	const char *arg;
	int c;

	memset(o, 0, sizeof(*o));
	ps_args__init(&a, &cmdline, argc, argv, &co);
	a.flags = o;
	while ((c = ps_args__next(&a)) != -1) {
		arg = a.arg;
		switch (c) {
		case 'a':
			o->all = true;
			break;
		case 'd':
			break;
		case OPT_STATS:
			o->stats = o->all = true;
			break;
		case OPT_SCHEMA:
			/* "--schema clickhouse" as well as "--schema=clickhouse" */
			if (!arg && optind < argc &&
			    (strcmp(argv[optind], "clickhouse") == 0 ||
			     strcmp(argv[optind], "sql") == 0))
				arg = argv[optind++];
			if (!arg || strcmp(arg, "sql") == 0)
				o->schema = 1 + PS_SCHEMA_SQL;
			else if (strcmp(arg, "clickhouse") == 0)
				o->schema = 1 + PS_SCHEMA_CLICKHOUSE;
			else
				ps_usage_error("--schema: '%s' is not clickhouse or sql", arg);
			break;
		case OPT_TABLE:
			if (!ps_schema__valid_table(arg))
				ps_usage_error("--table: '%s' is not NAME or DATABASE.NAME", arg);
			o->table = arg;
			break;
		}
	}
	o->quiet = co.quiet;
	if (argc - a.optind > 1)
		ps_usage_error("only one input at a time");
	if (o->table && o->schema != 1 + PS_SCHEMA_CLICKHOUSE)
		ps_usage_error("--table goes with --schema clickhouse");
	if (o->symbolic && !o->schema)
		ps_usage_error("--symbolic goes with --schema");
	if (o->schema && (o->all || o->json))
		ps_usage_error("--schema reads the header only: no --all, --json or --stats");
	o->input = a.optind < argc ? argv[a.optind] : "-";
}

/*
 * A JSON value could not be made or kept (out of memory): the document is not whole.
 * The builders below go on (jansson takes NULL everywhere) and main says it at the end.
 */
static bool nomem;

/* @v appended to @arr (a reference taken over), or nomem */
static void append(json_t *arr, json_t *v)
{
	if (json_array_append_new(arr, v) < 0)
		nomem = true;
}

/* @v (a reference taken over) under @key in @o, or nomem */
static void put(json_t *o, const char *key, json_t *v)
{
	if (!v || json_object_set_new(o, key, v) < 0)
		nomem = true;
}

/* ---- reading ---- */

static void add_build_id(struct state *st, const struct ps_record *rec, bool swap)
{
	if (st->nr_build_ids++ >= MAX_BUILD_IDS)
		return;
	append(st->build_ids, ps_header_json__build_id(rec, swap));
}

static void count(struct state *st, struct ps_session *s, const struct ps_record *rec)
{
	/* a perf.data file's header is not made of records: perf does not count it */
	if (rec->flags & PS_RECORD_SYNTH)
		return;
	st->counts[rec->type]++;
	st->total++;
	if (rec->type == PERF_RECORD_SAMPLE) {
		const struct ps_attr *a = ps_session__attr_of(s, rec);

		if (a && a->idx >= 0 && a->idx < PS_MAX_ATTRS)
			st->samples[a->idx]++;
		else
			st->unattributed++;
	}
}

/*
 * Read the header records (to the first SAMPLE or COMPRESSED record), or everything with
 * -a.  Returns 0, or -1 with @err set; what was read before an error is kept.
 */
static int read_input(struct ps_input *in, const struct opts *o, struct state *st,
                      struct ps_error *err)
{
	struct ps_progress *prog = o->all && !o->quiet ? ps_progress__new(o->input, false) : NULL;
	struct ps_session *s = ps_input__session(in);
	bool swap = ps_input__swapped(in);
	struct ps_record rec;
	const char *line;
	int r = 0;

	while (!ps_stop && (r = ps_input__next(in, &rec, err)) > 0) {
		if ((line = ps_progress__update(prog, rec.offset,
		                                st->counts ? st->counts[PERF_RECORD_SAMPLE] : 0)))
			ps_status("%s", line);
		if (!o->all &&
		    (rec.type == PERF_RECORD_SAMPLE || rec.type == PS_RECORD_COMPRESSED ||
		     rec.type == PS_RECORD_COMPRESSED2))
			return 0;
		if (rec.type == PS_RECORD_HEADER_BUILD_ID)
			add_build_id(st, &rec, swap);
		if (o->all && rec.type < NR_TYPES)
			count(st, s, &rec);
		/* the header is complete: a quiet live stream may send nothing more for long */
		if (!o->all && rec.type == PS_RECORD_FINISHED_INIT)
			return 0;
	}
	if (prog)
		ps_status(NULL);
	ps_progress__delete(prog);
	if (ps_stop)
		return 0;
	st->to_end = r == 0;
	return r < 0 ? -1 : 0;
}

/* ---- the document ---- */

static json_t *records_json(const struct state *st)
{
	json_t *o = json_object();
	unsigned int t;

	put(o, "TOTAL", ps_json_u64(st->total));
	for (t = 0; t < NR_TYPES; t++) {
		const char *name = ps_record_type_name(t);
		char key[32];

		if (!st->counts[t])
			continue;
		if (!name) {
			snprintf(key, sizeof(key), "type_%u", t);
			name = key;
		}
		put(o, name, ps_json_u64(st->counts[t]));
	}
	return o;
}

static json_t *samples_json(struct ps_session *s, const struct state *st)
{
	json_t *arr = json_array();
	struct ps_attr *a;
	size_t i;

	ps_session__for_each_attr(s, a, i) {
		json_t *e = json_object();

		put(e, "name", ps_json_string(a->name, strlen(a->name)));
		put(e, "index", json_integer(a->idx));
		put(e, "samples", ps_json_u64(i < PS_MAX_ATTRS ? st->samples[i] : 0));
		append(arr, e);
	}
	if (st->unattributed) {
		json_t *e = json_object();

		put(e, "name", json_null());
		put(e, "samples", ps_json_u64(st->unattributed));
		append(arr, e);
	}
	return arr;
}

static json_t *error_json(const struct ps_error *err)
{
	char buf[sizeof(err->detail) + 64];
	int n = 0;

	if (err->has_offset)
		n = snprintf(buf, sizeof(buf), "offset 0x%" PRIx64 ": ", err->offset);
	snprintf(buf + n, sizeof(buf) - (size_t)n, "%s%s%s",
	         err->detail[0] ? err->detail : ps_strerror(err->code), err->sys_errno ? ": " : "",
	         err->sys_errno ? strerror(err->sys_errno) : "");
	return ps_json_string(buf, strlen(buf));
}

static json_t *build_doc(struct ps_input *in, const struct opts *o, struct state *st,
                         const struct ps_error *err)
{
	struct ps_session *s = ps_input__session(in);
	bool big = ps_host_is_big_endian() != ps_input__swapped(in);
	const char *name = ps_input__name(in);
	json_t *doc = json_object(), *events;
	const char *terr;
	struct ps_attr *a;
	size_t i;

	put(doc, "input", ps_json_string(name, strlen(name)));
	put(doc, "format",
	    json_string(ps_input__format(in) == PS_FORMAT_FILE ? "perf.data" : "pipe"));
	put(doc, "byte_order", json_string(big ? "big-endian" : "little-endian"));
	put(doc, "read_to_end", json_boolean(st->to_end));
	if (!o->stats) {
		events = json_array();
		ps_session__for_each_attr(s, a, i)
			append(events, ps_header_json__attr(a));
		put(doc, "events", events);
		put(doc, "features", ps_header_json__features(s));
		put(doc, "tracepoints", ps_header_json__tracepoints(s));
		terr = ps_session__tracing_error(s);
		if (terr)
			put(doc, "tracing_error", ps_json_string(terr, strlen(terr)));
		put(doc, "build_ids", json_incref(st->build_ids));
		if (st->nr_build_ids > MAX_BUILD_IDS)
			put(doc, "build_ids_not_shown",
			    ps_json_u64(st->nr_build_ids - MAX_BUILD_IDS));
	}
	if (o->all) {
		put(doc, "records", records_json(st));
		if (!o->stats)
			put(doc, "samples_per_event", samples_json(s, st));
	}
	if (err->code)
		put(doc, "error", error_json(err));
	return doc;
}

/* ---- text ---- */

/* @n bytes of a string from the stream (valid UTF-8), control characters escaped so they
 * cannot reach a tty: C0, DEL and C1 (U+0080 to U+009F, such as the one-byte CSI) */
static void put_textn(const char *s, size_t n)
{
	ps_text__put_line(stdout, s, n);
}

static void put_text(const char *s)
{
	put_textn(s, strlen(s));
}

static uint64_t u64_of(const json_t *v)
{
	if (json_is_integer(v))
		return (uint64_t)json_integer_value(v);
	if (json_is_string(v))
		return strtoull(json_string_value(v), NULL, 10);
	return 0;
}

static bool is_scalar(const json_t *v)
{
	return !json_is_object(v) && !json_is_array(v);
}

static void print_scalar(const json_t *v)
{
	if (json_is_string(v))
		put_text(json_string_value(v));
	else if (json_is_integer(v))
		printf("%" JSON_INTEGER_FORMAT, json_integer_value(v));
	else if (json_is_real(v))
		printf("%g", json_real_value(v));
	else if (json_is_true(v))
		fputs("yes", stdout);
	else if (json_is_false(v))
		fputs("no", stdout);
	else
		fputs("-", stdout);
}

static bool is_flat_array(const json_t *v)
{
	size_t i;
	json_t *e;

	if (!json_is_array(v))
		return false;
	json_array_foreach(v, i, e)
	{
		if (!is_scalar(e))
			return false;
	}
	return true;
}

static void print_joined(const json_t *arr, const char *sep)
{
	size_t i;
	json_t *e;

	json_array_foreach(arr, i, e)
	{
		if (i)
			fputs(sep, stdout);
		print_scalar(e);
	}
}

static bool is_flat_object(const json_t *v)
{
	const char *k;
	json_t *e;

	if (!json_is_object(v))
		return false;
	json_object_foreach((json_t *)v, k, e)
	{
		if (!is_scalar(e) && !is_flat_array(e))
			return false;
	}
	return true;
}

/* "k=v k=v", arrays joined by commas */
static void print_kv_line(const json_t *o)
{
	bool first = true;
	const char *k;
	json_t *e;

	json_object_foreach((json_t *)o, k, e)
	{
		fputs(first ? "" : " ", stdout);
		put_text(k); /* a key can be a name from the stream (PMU capabilities) */
		putchar('=');
		if (json_is_array(e))
			print_joined(e, ",");
		else
			print_scalar(e);
		first = false;
	}
}

static void render(int indent, const char *key, const json_t *v)
{
	const char *k;
	json_t *e, *m;
	size_t i;

	printf("%*s", indent, "");
	put_text(key);
	putchar(':');
	if (is_scalar(v)) {
		putchar(' ');
		print_scalar(v);
		putchar('\n');
	} else if ((json_is_array(v) && json_array_size(v) == 0) ||
	           (json_is_object(v) && json_object_size(v) == 0)) {
		fputs(" none\n", stdout);
	} else if (is_flat_array(v)) {
		putchar(' ');
		print_joined(v, " ");
		putchar('\n');
	} else if (is_flat_object(v)) {
		putchar(' ');
		print_kv_line(v);
		putchar('\n');
	} else if (json_is_array(v)) {
		putchar('\n');
		json_array_foreach(v, i, e)
		{
			if (is_flat_object(e)) {
				printf("%*s", indent + 2, "");
				print_kv_line(e);
				putchar('\n');
			} else if (json_is_object(e)) {
				printf("%*s-\n", indent + 2, "");
				json_object_foreach(e, k, m)
				{
					render(indent + 4, k, m);
				}
			} else {
				render(indent + 2, "-", e);
			}
		}
	} else {
		putchar('\n');
		json_object_foreach((json_t *)v, k, e)
		{
			render(indent + 2, k, e);
		}
	}
}

static void print_event(const json_t *ev)
{
	const char *name = json_string_value(json_object_get(ev, "name"));
	const char *tn = json_string_value(json_object_get(ev, "type_name"));
	const char *k;
	json_t *v;

	fputs("  ", stdout);
	put_text(name);
	putchar('\n');
	json_object_foreach((json_t *)ev, k, v)
	{
		if (!strcmp(k, "index") || !strcmp(k, "name") || !strcmp(k, "type_name"))
			continue;
		if (!strcmp(k, "type")) {
			printf("    type: %" JSON_INTEGER_FORMAT "%s%s%s\n", json_integer_value(v),
			       tn ? " (" : "", tn ? tn : "", tn ? ")" : "");
		} else if (!strcmp(k, "config")) {
			printf("    config: %#" PRIx64 "\n", u64_of(v));
		} else if (!strcmp(k, "sample_period")) {
			printf("    period: %" PRIu64 "\n", u64_of(v));
		} else if (!strcmp(k, "sample_freq")) {
			printf("    frequency: %" PRIu64 " Hz\n", u64_of(v));
		} else if (!strcmp(k, "sample_type") || !strcmp(k, "read_format") ||
		           !strcmp(k, "branch_sample_type")) {
			printf("    %s: ", k);
			if (json_array_size(v))
				print_joined(v, "|");
			else
				fputs("0", stdout);
			putchar('\n');
		} else if (!strcmp(k, "perf_evlist")) {
			fputs("    perf evlist -v: ", stdout);
			put_text(name);
			fputs(": ", stdout);
			put_text(json_string_value(v));
			putchar('\n');
		} else {
			render(4, k, v);
		}
	}
}

static void print_event_desc(const json_t *descs)
{
	size_t i;
	json_t *d;

	printf("  event_desc:%s\n", json_array_size(descs) ? "" : " none");
	json_array_foreach(descs, i, d)
	{
		fputs("    ", stdout);
		put_text(json_string_value(json_object_get(d, "name")));
		fputs(" (ids ", stdout);
		print_joined(json_object_get(d, "ids"), " ");
		fputs("): ", stdout);
		put_text(json_string_value(json_object_get(d, "perf_evlist")));
		putchar('\n');
	}
}

static void print_features(const json_t *features)
{
	const char *k;
	json_t *v;

	printf("features (%zu):\n", json_object_size(features));
	json_object_foreach((json_t *)features, k, v)
	{
		if (!strcmp(k, "event_desc") && json_is_array(v))
			print_event_desc(v);
		else if (!strcmp(k, "total_mem") && is_scalar(v))
			printf("  total_mem: %" PRIu64 " kB\n", u64_of(v));
		else
			render(2, k, v);
	}
}

static void print_tracepoints(const json_t *tps)
{
	size_t i, j;
	json_t *t, *f;

	printf("tracepoints (%zu):\n", json_array_size(tps));
	json_array_foreach(tps, i, t)
	{
		fputs("  ", stdout);
		put_text(json_string_value(json_object_get(t, "system")));
		putchar(':');
		put_text(json_string_value(json_object_get(t, "name")));
		printf(" (id %" JSON_INTEGER_FORMAT "):",
		       json_integer_value(json_object_get(t, "id")));
		json_array_foreach(json_object_get(t, "fields"), j, f)
		{
			const char *type = json_string_value(json_object_get(f, "type"));
			const char *bracket = strchr(type, '[');

			/* an array's type is "char[16]": show it as C does, "char comm[16]" */
			printf("%s ", j ? ";" : "");
			if (bracket) {
				put_textn(type, (size_t)(bracket - type));
				putchar(' ');
				put_text(json_string_value(json_object_get(f, "name")));
				put_text(bracket);
			} else {
				put_text(type);
				putchar(' ');
				put_text(json_string_value(json_object_get(f, "name")));
			}
		}
		putchar('\n');
	}
}

static void print_build_ids(const json_t *doc)
{
	const json_t *ids = json_object_get(doc, "build_ids");
	size_t i;
	json_t *b;

	printf("build-ids (%zu):\n", json_array_size(ids));
	json_array_foreach(ids, i, b)
	{
		if (json_object_get(b, "malformed")) {
			printf("  malformed record of %" JSON_INTEGER_FORMAT " bytes\n",
			       json_integer_value(json_object_get(b, "size")));
			continue;
		}
		printf("  pid %" JSON_INTEGER_FORMAT " ",
		       json_integer_value(json_object_get(b, "pid")));
		print_scalar(json_object_get(b, "cpumode"));
		printf(" %s ", json_string_value(json_object_get(b, "build_id")));
		put_text(json_string_value(json_object_get(b, "filename")));
		putchar('\n');
	}
	if (json_object_get(doc, "build_ids_not_shown"))
		printf("  ... and %" PRIu64 " more\n",
		       u64_of(json_object_get(doc, "build_ids_not_shown")));
}

/* the layout of perf report -D's "Aggregated stats", so the two can be compared */
static void print_records(const json_t *records)
{
	uint64_t total = u64_of(json_object_get(records, "TOTAL"));
	const char *k;
	json_t *v;

	printf("records:\n");
	json_object_foreach((json_t *)records, k, v)
	{
		if (!strcmp(k, "TOTAL") || !total)
			printf("%16s events: %10" PRIu64 "\n", k, u64_of(v));
		else
			printf("%16s events: %10" PRIu64 "  (%4.1f%%)\n", k, u64_of(v),
			       100.0 * (double)u64_of(v) / (double)total);
	}
}

static void print_samples(const json_t *samples)
{
	size_t i;
	json_t *e;

	printf("samples per event:\n");
	json_array_foreach(samples, i, e)
	{
		const json_t *n = json_object_get(e, "name");

		fputs("  ", stdout);
		if (json_is_string(n))
			put_text(json_string_value(n));
		else
			fputs("(no event)", stdout);
		printf(": %" PRIu64 "\n", u64_of(json_object_get(e, "samples")));
	}
}

static void print_text(const json_t *doc, const struct opts *o)
{
	const json_t *events = json_object_get(doc, "events"), *v;
	const char *what;
	size_t i;
	json_t *ev;

	if (o->stats) {
		print_records(json_object_get(doc, "records"));
		return;
	}
	fputs("input: ", stdout);
	put_text(json_string_value(json_object_get(doc, "input")));
	printf("\nformat: %s, %s\n",
	       !strcmp(json_string_value(json_object_get(doc, "format")), "pipe") ?
	               "pipe stream" :
	               "perf.data file",
	       json_string_value(json_object_get(doc, "byte_order")));
	if (json_is_true(json_object_get(doc, "read_to_end")))
		what = "to the end";
	else if (json_object_get(doc, "error"))
		what = "up to the damage reported on standard error";
	else if (o->all)
		what = "up to an interruption";
	else
		what = "the header, up to FINISHED_INIT or the first sample";
	printf("read: %s\n", what);
	printf("\nevents (%zu):\n", json_array_size(events));
	json_array_foreach(events, i, ev)
	{
		print_event(ev);
	}
	putchar('\n');
	print_features(json_object_get(doc, "features"));
	putchar('\n');
	print_tracepoints(json_object_get(doc, "tracepoints"));
	v = json_object_get(doc, "tracing_error");
	if (v) {
		fputs("  unreadable tracing data: ", stdout);
		put_text(json_string_value(v));
		putchar('\n');
	}
	putchar('\n');
	print_build_ids(doc);
	if (o->all) {
		putchar('\n');
		print_records(json_object_get(doc, "records"));
		putchar('\n');
		print_samples(json_object_get(doc, "samples_per_event"));
	}
}

/* --schema: the table of the samples, from the header read */
static int print_schema(struct ps_input *in, const struct opts *o, struct state *st,
                        struct ps_error *err)
{
	struct ps_error serr = { 0 };
	char *text = NULL;
	int bad_out;

	if (!err->code) {
		text = ps_schema__text(ps_input__session(in),
		                       (enum ps_schema_dialect)(o->schema - 1), o->table,
		                       o->symbolic ? PS_SCHEMA_SYMBOLIC : 0, &serr);
		if (!text)
			*err = serr;
		else
			fputs(text, stdout);
	}
	free(text);
	bad_out = ps_finish_stdout();
	ps_warn(err);
	json_decref(st->build_ids);
	free(st->counts);
	free(st);
	ps_input__close(in);
	return err->code || bad_out ? 1 : 0;
}

int main(int argc, char **argv)
{
	struct ps_error err = { 0 };
	struct state *st;
	struct ps_input *in;
	struct opts o;
	json_t *doc;
	int bad_out;

	ps_progname = "pheader";
	ps_signals__init();
	parse_args(argc, argv, &o);
	if (ps_stdin__refuse_tty(&o.input, 1, &err) < 0)
		ps_die(&err);

	in = ps_input__open(o.input, o.all ? PS_INPUT_DECOMPRESS | PS_INPUT_CONTAINERS : 0, &err);
	if (!in)
		ps_die(&err);
	st = calloc(1, sizeof(*st));
	if (!st || !(st->build_ids = json_array()))
		ps_die_nomem();
	if (o.all && !(st->counts = calloc(NR_TYPES, sizeof(*st->counts))))
		ps_die_nomem();

	/* Show what was read before saying what went wrong. */
	read_input(in, &o, st, &err);
	if (o.schema)
		return print_schema(in, &o, st, &err);
	doc = build_doc(in, &o, st, &err);
	if (nomem)
		ps_die_nomem();
	if (o.json) {
		/* a write error (a full disk) is said below, as standard output's */
		if (json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(17)) < 0 &&
		    !ferror(stdout))
			ps_die_nomem();
		putchar('\n');
	} else {
		print_text(doc, &o);
	}
	bad_out = ps_finish_stdout();
	ps_warn(&err);

	json_decref(doc);
	json_decref(st->build_ids);
	free(st->counts);
	free(st);
	ps_input__close(in);
	return err.code || bad_out ? 1 : 0;
}
