// SPDX-License-Identifier: GPL-2.0-only
/*
 * ptojson - a perf event stream as JSON Lines: one object per sample, in time order, every
 * field decoded and typed.  See ptojson(1).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/abi.h"
#include "lib/diag.h"
#include "lib/durations.h"
#include "lib/files.h"
#include "lib/input.h"
#include "lib/reader.h"
#include "lib/opts.h"
#include "lib/output.h"
#include "lib/record_json.h"
#include "lib/sample.h"
#include "lib/sample_json.h"
#include "lib/session.h"
#include "lib/signals.h"
#include "lib/symbols.h"
#include "lib/text.h"

#define IDLE_MS 30
#define ORDER_CAP (64u << 20)

struct opts {
	bool all;               /* -a: every record, not only samples */
	bool pretty;            /* -p: indented, for people */
	bool host;              /* --host: a "host" key in each sample */
	bool symbolic;          /* --symbolic: NAME_sym texts next to symbolic fields */
	bool quiet;             /* -q: no progress line */
	const char *fields;     /* -F: the keys to keep, comma separated */
	const char *output;     /* -o FILE */
	enum ps_time_format tf; /* -t */
	const char *input;      /* operand; "-" or none is standard input */
	bool no_symbols;        /* --no-symbols */
	struct ps_symbols_opts sym;
	const char *pairs[PS_DUR_MAX_PAIRS]; /* --pair */
	size_t npairs;
};

enum {
	OPT_HOST = PS_OPT_LONG,
	OPT_SYMBOLIC,
};

static const char *const known_fields[] = {
	"event",
	"time",
	"pid",
	"tid",
	"cpu",
	"comm",
	"period",
	"ip",
	"sym",
	"symoff",
	"dso",
	"addr",
	"id",
	"stream_id",
	"read",
	"callchain",
	"fields",
	"raw_size",
	"branch_stack",
	"branch_hw_idx",
	"regs_user",
	"stack_user",
	"weight",
	"ins_lat",
	"p_stage_cyc",
	"data_src",
	"transaction",
	"regs_intr",
	"phys_addr",
	"cgroup",
	"data_page_size",
	"code_page_size",
	"aux_size",
	"latency",
	"run_time",
	"wait_time",
	"sch_delay",
	"off_cpu",
	"pairs",
	"type",
	"size",
	"misc",
	"sample_id",
	"host",
	"input",
};

static const struct ps_cmdline cmdline = {
	.usage = "usage: ptojson [-apq] [-F fields] [-o file] [-t ns | s | iso] [--host] [--symbolic] [--no-symbols] [--pair spec] [--symfs dir] [--kallsyms file] [file]\n",
	.about = "Write a perf event stream as JSON Lines: one object per sample, in time\n"
	         "order, tracepoint fields decoded and typed.\n",
	.opts = {
		PS_OPT_FLAG("all", 'a', "every record, each with its \"type\"", struct opts, all),
		PS_OPT("fields", 'F', PS_ARG_REQUIRED, "LIST", "keep only these keys (comma separated)"),
		PS_OPT_OUTPUT_ROW,
		PS_OPT_FLAG("pretty", 'p', "indent the objects, for people", struct opts, pretty),
		PS_OPT_QUIET_ROW,
		PS_OPT("time-format", 't', PS_ARG_REQUIRED, "FMT", "time as ns (default), s or iso"),
		PS_OPT_FLAG("host", OPT_HOST, "a \"host\" key in each sample: the stream's hostname",
		            struct opts, host),
		PS_OPT_FLAG("symbolic", OPT_SYMBOLIC,
		            "next to a field perf prints as a symbol or flags,\n"
		            "its text: \"prev_state\":1,\"prev_state_sym\":\"S\"",
		            struct opts, symbolic),
		{ "no-symbols", PS_OPT_NO_SYMBOLS, PS_ARG_NONE, NULL,
		  "addresses only: no sym, symoff, dso keys", PS_OPTG_NO_SYMBOLS, 0 },
		PS_OPT_PAIR_ROW,
		PS_OPT_SYMBOL_FILES_ROWS,
	},
};

static void check_fields(const char *list)
{
	char *copy = strdup(list), *tok, *save = NULL;
	size_t i;

	if (!copy)
		ps_die_nomem();
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < ARRAY_SIZE(known_fields); i++)
			if (strcmp(tok, known_fields[i]) == 0)
				break;
		if (i == ARRAY_SIZE(known_fields)) {
			/* the closest key, as pfilter and pcount guess a field's name */
			size_t best = SIZE_MAX, limit = strlen(tok) < 5 ? 1 : 2, d;
			const char *guess = NULL;

			for (i = 0; i < ARRAY_SIZE(known_fields); i++) {
				d = ps_edit_distance(tok, known_fields[i]);
				if (d <= limit && d < best) {
					best = d;
					guess = known_fields[i];
				}
			}
			if (guess)
				ps_usage_error("--fields: unknown key '%s' (did you mean %s?)", tok,
				               guess);
			ps_usage_error("--fields: unknown key '%s'", tok);
		}
	}
	free(copy);
}

static void parse_args(int argc, char **argv, struct opts *o)
{
	struct ps_common_opts co;
	struct ps_args a;
	int c;

	memset(o, 0, sizeof(*o));
	ps_args__init(&a, &cmdline, argc, argv, &co);
	a.flags = o;
	while ((c = ps_args__next(&a)) != -1) {
		switch (c) {
		case 'F':
			check_fields(a.arg);
			o->fields = a.arg;
			break;
		case 't':
			if (strcmp(a.arg, "ns") == 0)
				o->tf = PS_TIME_NS;
			else if (strcmp(a.arg, "s") == 0)
				o->tf = PS_TIME_SEC;
			else if (strcmp(a.arg, "iso") == 0)
				o->tf = PS_TIME_ISO;
			else
				ps_usage_error("--time-format: '%s' is not ns, s or iso", a.arg);
			break;
		}
	}
	o->output = co.output;
	o->quiet = co.quiet;
	o->sym = co.sym;
	memcpy(o->pairs, co.pairs, sizeof(o->pairs));
	o->npairs = co.npairs;
	o->no_symbols = co.sym.off;
	if (argc - a.optind > 1)
		ps_usage_error("one input at most");
	o->input = a.optind < argc ? argv[a.optind] : "-";
}
/* Drop the keys that --fields did not ask for. */
static void keep_fields(json_t *obj, const char *list)
{
	const char *key;
	json_t *val;
	void *tmp;

	json_object_foreach_safe(obj, tmp, key, val)
	{
		size_t n = strlen(key);
		const char *p = list;
		bool keep = false;

		while (*p) {
			const char *end = strchr(p, ',');
			size_t len = end ? (size_t)(end - p) : strlen(p);

			if (len == n && strncmp(p, key, n) == 0) {
				keep = true;
				break;
			}
			p += len + (end ? 1 : 0);
		}
		if (!keep)
			json_object_del(obj, key);
	}
}

struct ctx {
	const struct opts *o;
	struct ps_reader *rd;
	struct ps_session *s;
	struct ps_json_clock clock;
	bool no_clock; /* -t iso and no clock data: an error at the first sample */
	struct ps_sample_writer *w;
	struct ps_output *out;
	char host[256];            /* the hostname feature, for --host; "" when absent */
	char row_host[256];        /* --host: the writer's host now */
	struct ps_json_buf line;   /* the line being written */
	struct ps_json_buf pretty; /* a sample's compact object, for -p */
	unsigned long long lines;
};

static uint64_t key_mask(const struct opts *o)
{
	uint64_t mask = 0,
	         ask = (o->all ? 0 : 1ull << PS_KEY_TYPE) | (o->host ? 0 : 1ull << PS_KEY_HOST);
	const char *p;

	if (!o->fields)
		return ((1ull << PS_NR_SAMPLE_KEYS) - 1) & ~ask;
	for (p = o->fields; *p;) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		int k = ps_sample_key_of(p, len);

		if (k >= 0)
			mask |= 1ull << k;
		p += len + (end ? 1 : 0);
	}
	return mask & ~ask;
}

/* A record other than SAMPLE (--all), through its jansson object; 0, or -1 when out of memory. */
static int record_line(struct ctx *c, const struct ps_record *rec)
{
	size_t flags = (c->o->pretty ? JSON_INDENT(2) : JSON_COMPACT) | JSON_PRESERVE_ORDER, n;
	json_t *obj = ps_record_json(c->s, rec);
	char *room;

	if (!obj)
		return -1;
	if (c->o->fields)
		keep_fields(obj, c->o->fields);
	n = json_dumpb(obj, NULL, 0, flags);
	room = n ? ps_json_buf__room(&c->line, n) : NULL;
	if (room)
		c->line.len += json_dumpb(obj, room, n, flags);
	json_decref(obj);
	return room ? 0 : -1;
}

/* The header is in: the clock data and the host name are header features. */
static int header(struct ctx *c, struct ps_error *err)
{
	ps_session__feature_string(c->s, PS_FEAT_HOSTNAME, c->host, sizeof(c->host));
	c->no_clock = ps_json_clock__from_session(c->s, &c->clock) < 0 && c->o->tf == PS_TIME_ISO;
	c->w = ps_sample_writer__new(c->s, c->o->tf, &c->clock);
	if (!c->w || (c->host[0] && ps_sample_writer__set_host(c->w, c->host) < 0))
		return ps_error__set(err, PS_ENOMEM, NULL, PS_NO_OFFSET, "out of memory");
	snprintf(c->row_host, sizeof(c->row_host), "%s", c->host);
	ps_sample_writer__keep(c->w, key_mask(c->o));
	ps_sample_writer__set_symbols(c->w, ps_reader__symbols(c->rd));
	ps_sample_writer__set_symbolic(c->w, c->o->symbolic);
	return 0;
}

/*
 * --host of a merged stream's sample (pcat --merge, pstream-nats sub of several subjects):
 * its input's name, as pstream-clickhouse's host column has it (the recording's hostname,
 * or the file or subject name when the hostnames do not tell the inputs apart).
 * Return: 0, or -1 when out of memory.
 */
static int sample_host(struct ctx *c, const struct ps_sample *smp)
{
	const char *want = smp->attr && smp->attr->input ? smp->attr->input : c->host;

	if (!c->o->host || !want[0] || strncmp(want, c->row_host, sizeof(c->row_host)) == 0)
		return 0;
	snprintf(c->row_host, sizeof(c->row_host), "%s", want);
	return ps_sample_writer__set_host(c->w, want);
}

/* Write one record or sample; 0, or -1 with @err set. */
static int emit(struct ctx *c, const struct ps_reader_event *ev, struct ps_error *err)
{
	const struct ps_record *rec = &ev->rec;
	struct ps_json_buf *b = &c->line;

	b->len = 0;
	if (ev->kind == PS_READER_SAMPLE) {
		const struct ps_sample *smp = &ev->smp;
		const char *comm = NULL;
		char unnamed[16];

		if (c->no_clock)
			return ps_error__set(
			        err, PS_EUSAGE, ps_reader__name(c->rd), PS_NO_OFFSET,
			        "--time-format iso needs the clock data that 'perf record -k CLOCK' writes; this stream has none");
		if (smp->type & PERF_SAMPLE_TID)
			comm = ps_session__comm_text(c->s, smp->tid, unnamed, sizeof(unnamed));
		if (sample_host(c, smp) < 0)
			goto nomem;
		if (c->o->pretty) {
			c->pretty.len = 0;
			if (ps_sample_writer__write(c->w, &c->pretty, smp, comm, rec->misc) < 0)
				goto nomem;
			ps_json__indent(b, c->pretty.p, c->pretty.len, 2);
		} else if (ps_sample_writer__write(c->w, b, smp, comm, rec->misc) < 0) {
			goto nomem;
		}
	} else if (c->o->all) {
		/* kernel records straight into the line; perf's header records through jansson */
		int r = c->o->pretty || c->o->fields ? 0 :
		                                       ps_record_json__write(c->s, &c->line, rec);

		if (r < 0 || (r == 0 && record_line(c, rec) < 0))
			goto nomem;
	} else {
		return 0;
	}
	ps_json__char(b, '\n');
	if (b->failed)
		goto nomem;
	/* one unit per line: a stop request never leaves a cut line behind */
	if (ps_output__write(c->out, b->p, b->len, err) < 0)
		return -1;
	c->lines++;
	return 0;
nomem:
	return ps_error__set(err, PS_ENOMEM, NULL, PS_NO_OFFSET, "out of memory");
}

int main(int argc, char **argv)
{
	struct ps_error err = { 0 }, oerr = { 0 };
	struct ps_outfile *of = NULL;
	struct ps_reader_opts ro = { 0 };
	struct ps_reader_event ev;
	bool bad_out;
	struct ctx c = { 0 };
	struct opts o;
	int r = 0;

	ps_progname = "ptojson";
	ps_signals__init();
	parse_args(argc, argv, &o);
	c.o = &o;
	if (ps_stdin__refuse_tty(&o.input, 1, &err) < 0)
		ps_die(&err);
	/* -o FILE: standard output, through a temporary name, never over the input */
	if (o.output && strcmp(o.output, "-") != 0 &&
	    !(of = ps_outfile__open(o.output, &o.input, 1, &err)))
		ps_die(&err);
	/* text, so a terminal is fine; written by the stream writer for its stop handling */
	c.out = ps_output__open(NULL, true, &err);
	if (!c.out)
		ps_die(&err);
	ro.path = o.input;
	ro.input_flags = PS_INPUT_DECOMPRESS | PS_INPUT_SKIP_AUX;
	ro.idle_ms = IDLE_MS;
	ro.order_cap = ORDER_CAP;
	ro.symbols = !o.no_symbols;
	ro.sym = &o.sym;
	ro.pairs = o.pairs;
	ro.npairs = o.npairs;
	ro.progress = !o.quiet;
	ro.stdout_busy = true;
	c.rd = ps_reader__open(&ro, &err);
	if (!c.rd)
		ps_die(&err);
	c.s = ps_reader__session(c.rd);
	ps_reader__set_wait_hook(c.rd, ps_output__flush_hook, c.out);
	/* everything read is written, even after an error further on */
	while ((r = ps_reader__next(c.rd, &ev, &err)) > 0) {
		if (ev.kind == PS_READER_HEADER) {
			if (!ev.at_end && header(&c, &err) < 0)
				break;
		} else if (ev.kind == PS_READER_SAMPLE || ev.kind == PS_READER_RECORD) {
			if (emit(&c, &ev, &err) < 0)
				break;
		} else {
			ps_show_event(&ev);
		}
	}
	ps_sample_writer__delete(c.w);
	ps_json_buf__release(&c.line);
	ps_json_buf__release(&c.pretty);
	/* one failed write is one message: the first error wins */
	ps_output__close(c.out, err.code ? &(struct ps_error){ 0 } : &err);
	bad_out = ps_finish_stdout() < 0;
	if (bad_out && !err.code)
		err.code = PS_EWRITE; /* already reported */
	/* kept after a damaged input (what was read is written), not after a refusal */
	if (ps_outfile__close(of, !bad_out && err.code != PS_EWRITE && err.code != PS_EUSAGE,
	                      ps_stop, &oerr) < 0) {
		ps_warn(&oerr);
		if (!err.code)
			err.code = PS_EWRITE;
	}
	if (err.code == PS_EPIPE) {
		ps_reader__close(c.rd);
		return 0; /* the reader went away: not an error */
	}
	if (err.code && err.detail[0])
		ps_warn(&err);
	ps_reader__close(c.rd);
	if (err.code == PS_EUSAGE)
		return 2;
	return err.code ? 1 : 0;
}
