// SPDX-License-Identifier: GPL-2.0-only
/*
 * schema.c - the table a stream's samples load into (pheader --schema, pstream-clickhouse):
 * columns from the attrs' sample_type and the tracepoint formats, typed the way ptojson
 * writes the values, widened across events.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/perf_event.h>
#include <traceevent/event-parse.h>

#include "durations.h"
#include "json.h"
#include "schema.h"
#include "xalloc.h"
#include "session.h"
#include "symbolic.h"

#define MAX_COLUMNS 4096

enum kind {
	K_INT,  /* a JSON number: @sign, @bytes */
	K_TEXT, /* a JSON string */
	K_AINT, /* an array of numbers */
	K_ATEXT /* an array of strings */
};

struct col {
	char *name; /* as ptojson's key: valid UTF-8, any other byte */
	enum kind kind;
	bool sign;
	unsigned int bytes; /* 1, 2, 4, 8, or 16: a u64 widened with a signed integer */
	bool dropped;       /* events disagree beyond widening */
	enum kind other;    /* dropped: the kind in @event */
	const char *event;  /* dropped: the event (the session's name, any bytes), or NULL */
};

struct cols {
	struct col *v;
	size_t n, cap;
	bool failed;
};

static struct col *find(struct cols *c, const char *name)
{
	for (size_t i = 0; i < c->n; i++)
		if (strcmp(c->v[i].name, name) == 0)
			return &c->v[i];
	return NULL;
}

static unsigned int widen_int(bool *sign, unsigned int b1, bool s2, unsigned int b2)
{
	if (*sign == s2)
		return b1 > b2 ? b1 : b2;
	/* one signed, one unsigned: a signed type twice as wide as the unsigned one, so a
	 * u64 with a signed field is 16 bytes: no 64-bit type holds both 2^64-1 and -1 */
	unsigned int bs = *sign ? b1 : b2, bu = *sign ? b2 : b1;

	*sign = true;
	return bu * 2 > bs ? bu * 2 : bs;
}

static const char *kind_name(enum kind k)
{
	return k == K_INT ? "a number" : k == K_TEXT ? "text" : "an array";
}

/*
 * @s as ptojson writes it in a key (json.c): every byte that does not start a valid UTF-8
 * sequence becomes U+FFFD, so that two names ptojson writes alike are one column.
 * Return: a new string, or NULL when out of memory.
 */
static char *key_text(const char *s)
{
	size_t len = strlen(s);
	char *k = malloc(3 * len + 1);

	if (k)
		k[ps_json__valid_utf8(k, s, len)] = 0;
	return k;
}

/* Add a column, or widen the one of the same name (@raw: any bytes, made a key_text()). */
static void add(struct cols *c, const char *raw, enum kind kind, bool sign, unsigned int bytes,
                const char *event)
{
	struct col *o;
	char *name;

	if (c->failed)
		return;
	name = key_text(raw);
	if (!name) {
		c->failed = true;
		return;
	}
	o = find(c, name);
	if (o) {
		free(name);
		if (o->dropped)
			return;
		if (o->kind == kind) {
			if (kind == K_INT || kind == K_AINT)
				o->bytes = widen_int(&o->sign, o->bytes, sign, bytes);
			return;
		}
		o->dropped = true;
		o->other = kind;
		o->event = event;
		return;
	}
	if (c->n >= MAX_COLUMNS) {
		free(name);
		return;
	}
	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 64;
		struct col *nv = realloc(c->v, cap * sizeof(*nv));

		if (!nv) {
			free(name);
			c->failed = true;
			return;
		}
		c->v = nv;
		c->cap = cap;
	}
	o = &c->v[c->n];
	memset(o, 0, sizeof(*o));
	o->name = name;
	o->kind = kind;
	o->sign = sign;
	o->bytes = bytes;
	c->n++;
}

static bool is_char_type(const char *type)
{
	return strstr(type, "char") != NULL;
}

static unsigned int int_bytes(unsigned int size)
{
	return size == 1 || size == 2 || size == 4 ? size : 8;
}

/* One tracepoint field, classified as ptojson writes it (sample_writer.c). */
static void add_field(struct cols *c, const struct tep_format_field *f, const char *event)
{
	char name[300];
	bool arr = f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC);
	bool ptr = f->flags & TEP_FIELD_IS_POINTER;
	bool sign = f->flags & TEP_FIELD_IS_SIGNED;

	if (snprintf(name, sizeof(name), "fields.%s", f->name) >= (int)sizeof(name))
		return;
	if ((f->flags & TEP_FIELD_IS_STRING) || (arr && is_char_type(f->type))) {
		add(c, name, K_TEXT, false, 0, event);
	} else if (!arr) {
		if (ptr)
			add(c, name, K_TEXT, false, 0, event);
		else
			add(c, name, K_INT, sign, int_bytes((unsigned int)f->size), event);
	} else {
		unsigned int elem = f->elementsize ? (unsigned int)f->elementsize : 1;

		if (elem != 1 && elem != 2 && elem != 4 && elem != 8)
			elem = 1;
		if (ptr)
			add(c, name, K_ATEXT, false, 0, event);
		else
			add(c, name, K_AINT, sign, elem, event);
	}
}

/* The "fields.NAME_sym" text column ptojson --symbolic writes after field @f, if any. */
static void add_symbolic(struct cols *c, const struct tep_event *ev,
                         const struct tep_format_field *f, const char *event)
{
	char name[300];
	char *key;

	if (!ps_symbolic__json_field(ev, f))
		return;
	key = ps_symbolic__key(f->name);
	if (!key) {
		c->failed = true;
		return;
	}
	if (snprintf(name, sizeof(name), "fields.%s", key) < (int)sizeof(name))
		add(c, name, K_TEXT, false, 0, event);
	free(key);
}

static void collect(const struct ps_session *s, struct cols *c, bool symbolic, uint64_t *st_all,
                    bool *tp_any, bool *raw_other)
{
	struct ps_attr *a;
	size_t i;

	*st_all = 0;
	*tp_any = *raw_other = false;
	ps_session__for_each_attr(s, a, i) {
		*st_all |= a->sample_type;
		if (!(a->sample_type & PERF_SAMPLE_RAW))
			continue;
		if (!a->tp) {
			*raw_other = true;
			continue;
		}
		*tp_any = true;
		for (struct tep_format_field *f = a->tp->format.fields; f; f = f->next) {
			add_field(c, f, a->name);
			if (symbolic)
				add_symbolic(c, a->tp, f, a->name);
		}
	}
}

/*
 * The column types of a dialect.  An integer by sign and width: 1, 2, 4, 8 bytes, then 16
 * (a u64 widened with a signed integer; unsigned integers stop at 8).  An array of a type
 * is @array_open, the type, @array_close.
 */
struct dialect_types {
	const char *uint[4], *sint[5];
	const char *text;
	const char *array_open, *array_close;
};

static const struct dialect_types types_of[] = {
	/* Decimal128(0): a 38-digit decimal, which ClickHouse 18.16 has and reads exactly from
	 * a JSON number; Int128 came later */
	[PS_SCHEMA_CLICKHOUSE] = { { "UInt8", "UInt16", "UInt32", "UInt64" },
	                           { "Int8", "Int16", "Int32", "Int64", "Decimal128(0)" },
	                           "String",
	                           "Array(",
	                           ")" },
	/* NUMERIC(20) holds every u64 and every s64 exactly (PostgreSQL; SQLite holds every
	 * integer up to 2^63-1 exactly, in any column) */
	[PS_SCHEMA_SQL] = { { "SMALLINT", "INTEGER", "BIGINT", "NUMERIC(20)" },
	                    { "SMALLINT", "SMALLINT", "INTEGER", "BIGINT", "NUMERIC(20)" },
	                    "VARCHAR",
	                    "",
	                    "[]" },
};

static void put_type(struct ps_bytes *t, enum ps_schema_dialect d, const struct col *c)
{
	const struct dialect_types *ty = &types_of[d];
	int k = c->bytes == 1 ? 0 : c->bytes == 2 ? 1 : c->bytes == 4 ? 2 : c->bytes == 8 ? 3 : 4;
	const char *elem = c->sign ? ty->sint[k] : ty->uint[k > 3 ? 3 : k];
	bool array = c->kind == K_AINT || c->kind == K_ATEXT;

	if (c->kind == K_TEXT || c->kind == K_ATEXT)
		elem = ty->text;
	ps_bytes__printf(t, "%s%s%s", array ? ty->array_open : "", elem,
	                 array ? ty->array_close : "");
}

/*
 * A column name quoted, whatever its bytes (a name is valid UTF-8, key_text()): `name` for
 * ClickHouse, with ` and \ escaped by a backslash and control bytes as \xNN; "name" in SQL,
 * with " doubled (SQL has no escapes in a quoted name: the other bytes stay as they are,
 * inside the quotes).
 */
static void put_name(struct ps_bytes *t, enum ps_schema_dialect d, const char *name)
{
	if (d == PS_SCHEMA_SQL) {
		ps_bytes__printf(t, "\"");
		for (const char *p = name; *p; p++) {
			if (*p == '"')
				ps_bytes__printf(t, "\"");
			ps_bytes__printf(t, "%c", *p);
		}
		ps_bytes__printf(t, "\"");
		return;
	}
	ps_bytes__printf(t, "`");
	for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
		if (*p == '`' || *p == '\\')
			ps_bytes__printf(t, "\\%c", *p);
		else if (*p < 0x20 || *p == 0x7f)
			ps_bytes__printf(t, "\\x%02x", *p);
		else
			ps_bytes__printf(t, "%c", *p);
	}
	ps_bytes__printf(t, "`");
}

/*
 * Text from the stream in a "--" comment: it must neither end the comment nor upset what
 * reads it, so bytes below 0x20, 0x7f, C1 controls, \ and every byte of an invalid UTF-8
 * sequence are written \xNN, and the / of a * / pair is too (a comment the output is pasted
 * into cannot end).  Valid UTF-8 stays as it is.
 */
static void put_comment_text(struct ps_bytes *t, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t len = strlen(s), i = 0;

	while (i < len) {
		size_t n = ps_json__utf8_seq(p + i, len - i);
		bool c1 = n == 2 && p[i] == 0xc2 && p[i + 1] < 0xa0;

		if (n > 1 && !c1) {
			ps_bytes__printf(t, "%.*s", (int)n, s + i);
			i += n;
			continue;
		}
		for (size_t k = 0; k < (n ? n : 1); k++, i++) {
			if (p[i] < 0x20 || p[i] >= 0x7f || p[i] == '\\' ||
			    (p[i] == '/' && i && p[i - 1] == '*'))
				ps_bytes__printf(t, "\\x%02x", p[i]);
			else
				ps_bytes__printf(t, "%c", p[i]);
		}
	}
}

bool ps_schema__valid_table(const char *table)
{
	size_t part = 0;
	int dots = 0;

	if (!table || !*table)
		return false;
	for (const char *p = table; *p; p++) {
		if (*p == '.') {
			if (part == 0 || ++dots > 1)
				return false;
			part = 0;
			continue;
		}
		if (!isalnum((unsigned char)*p) && *p != '_')
			return false;
		if (part == 0 && isdigit((unsigned char)*p))
			return false;
		part++;
	}
	return part > 0 && strlen(table) < 256;
}

/* The columns of @s's samples: @base, the keys ptojson writes for a sample in its order,
 * then @tp, the tracepoint fields (and "stack", "batch" for ClickHouse). */
static int build(const struct ps_session *s, enum ps_schema_dialect d, unsigned int flags,
                 struct cols *base, struct cols *tp)
{
	uint64_t st;
	bool tp_any, raw_other;

	collect(s, tp, flags & PS_SCHEMA_SYMBOLIC, &st, &tp_any, &raw_other);

	/* the keys ptojson writes for a sample, in its order; nested objects are left out but
	 * for the callchain */
	add(base, "host", K_TEXT, false, 0, NULL);
	add(base, "event", K_TEXT, false, 0, NULL);
	add(base, "time", K_INT, false, 8, NULL);
	add(base, "pid", K_INT, true, 4, NULL);
	add(base, "tid", K_INT, true, 4, NULL);
	add(base, "cpu", K_INT, false, 4, NULL);
	add(base, "comm", K_TEXT, false, 0, NULL);
	if (st & PERF_SAMPLE_PERIOD)
		add(base, "period", K_INT, false, 8, NULL);
	if (st & PERF_SAMPLE_IP) {
		add(base, "ip", K_TEXT, false, 0, NULL);
		add(base, "sym", K_TEXT, false, 0, NULL);
		add(base, "symoff", K_INT, false, 8, NULL);
		add(base, "dso", K_TEXT, false, 0, NULL);
	}
	if (st & PERF_SAMPLE_ADDR)
		add(base, "addr", K_TEXT, false, 0, NULL);
	if (st & (PERF_SAMPLE_ID | PERF_SAMPLE_IDENTIFIER))
		add(base, "id", K_INT, false, 8, NULL);
	if (st & PERF_SAMPLE_STREAM_ID)
		add(base, "stream_id", K_INT, false, 8, NULL);
	if (st & PERF_SAMPLE_CALLCHAIN) {
		/* the frames as pstream-clickhouse writes them: one array per member */
		add(base, "callchain.ip", K_ATEXT, false, 0, NULL);
		add(base, "callchain.sym", K_ATEXT, false, 0, NULL);
		add(base, "callchain.symoff", K_AINT, false, 8, NULL);
		add(base, "callchain.dso", K_ATEXT, false, 0, NULL);
	}
	if (raw_other)
		add(base, "raw_size", K_INT, false, 4, NULL);
	if (st & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT))
		add(base, "weight", K_INT, false, 8, NULL);
	if (st & PERF_SAMPLE_WEIGHT_STRUCT) {
		add(base, "ins_lat", K_INT, false, 2, NULL);
		add(base, "p_stage_cyc", K_INT, false, 2, NULL);
	}
	if (st & PERF_SAMPLE_DATA_SRC)
		add(base, "data_src", K_TEXT, false, 0, NULL);
	if (st & PERF_SAMPLE_TRANSACTION)
		add(base, "transaction", K_INT, false, 8, NULL);
	if (st & PERF_SAMPLE_PHYS_ADDR)
		add(base, "phys_addr", K_TEXT, false, 0, NULL);
	if (st & PERF_SAMPLE_CGROUP)
		add(base, "cgroup", K_INT, false, 8, NULL);
	if (st & PERF_SAMPLE_DATA_PAGE_SIZE)
		add(base, "data_page_size", K_INT, false, 8, NULL);
	if (st & PERF_SAMPLE_CODE_PAGE_SIZE)
		add(base, "code_page_size", K_INT, false, 8, NULL);
	if (st & PERF_SAMPLE_AUX)
		add(base, "aux_size", K_INT, false, 8, NULL);
	/* the duration fields (durations.h) ptojson writes where the stream's events can
	 * carry them: a sample without a value leaves its column at the default */
	{
		const char *dur[PS_DUR_PAIR];
		size_t nd = ps_durations__available(NULL, s, dur, PS_DUR_PAIR);

		for (size_t i = 0; i < nd; i++)
			add(base, dur[i], K_INT, false, 8, NULL);
	}
	if (d == PS_SCHEMA_CLICKHOUSE) {
		/* the loader's own, last, after the fields: the folded stack, where the row
		 * was in NATS, the batch id (last: the spool finds it there) */
		add(tp, "stack", K_TEXT, false, 0, NULL);
		if (flags & PS_SCHEMA_NATS) {
			add(tp, "nats_subject", K_TEXT, false, 0, NULL);
			add(tp, "nats_seq", K_INT, false, 8, NULL);
			add(tp, "nats_offset", K_INT, false, 4, NULL);
		}
		add(tp, "batch", K_TEXT, false, 0, NULL);
	}
	return base->failed || tp->failed ? -1 : 0;
}

static void cols_release(struct cols *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->v[i].name);
	free(c->v);
	memset(c, 0, sizeof(*c));
}

char *ps_schema__text(const struct ps_session *s, enum ps_schema_dialect d, const char *table,
                      unsigned int flags, struct ps_error *err)
{
	struct cols tp = { 0 }, base = { 0 };
	struct ps_bytes t = { 0 };
	size_t i, n = 0;

	if (!table)
		table = "pstream";
	if (!ps_schema__valid_table(table)) {
		ps_error__set(err, PS_EUSAGE, NULL, PS_NO_OFFSET,
		              "table name '%s' is not NAME or DATABASE.NAME (letters, digits, _)",
		              table);
		return NULL;
	}
	if (build(s, d, flags, &base, &tp) < 0)
		goto nomem;

	if (d == PS_SCHEMA_CLICKHOUSE) {
		const char *dot = strchr(table, '.');

		ps_bytes__printf(&t, "CREATE TABLE IF NOT EXISTS ");
		if (dot)
			ps_bytes__printf(&t, "`%.*s`.`%s`", (int)(dot - table), table, dot + 1);
		else
			ps_bytes__printf(&t, "`%s`", table);
		ps_bytes__printf(&t, "\n(\n");
	}
	for (i = 0; i < base.n + tp.n; i++) {
		const struct col *c = i < base.n ? &base.v[i] : &tp.v[i - base.n];

		if (c->dropped)
			continue;
		ps_bytes__printf(&t, "%s    ", n++ ? ",\n" : "");
		put_name(&t, d, c->name);
		ps_bytes__printf(&t, " ");
		put_type(&t, d, c);
	}
	ps_bytes__printf(&t, "\n");
	for (i = 0; i < tp.n; i++) {
		const struct col *c = &tp.v[i];

		if (!c->dropped)
			continue;
		ps_bytes__printf(&t, "    -- no column ");
		put_comment_text(&t, c->name);
		ps_bytes__printf(&t, ": %s in one event, %s in ", kind_name(c->kind),
		                 kind_name(c->other));
		put_comment_text(&t, c->event ? c->event : "another");
		ps_bytes__printf(&t, "\n");
	}
	if (d == PS_SCHEMA_CLICKHOUSE)
		ps_bytes__printf(&t, ")\nENGINE = MergeTree\nORDER BY (host, event, time);\n");
	ps_bytes__text(&t);
	if (t.failed)
		goto nomem;
	cols_release(&base);
	cols_release(&tp);
	return (char *)t.p;
nomem:
	cols_release(&base);
	cols_release(&tp);
	ps_bytes__release(&t);
	ps_error__set(err, PS_ENOMEM, NULL, PS_NO_OFFSET, "out of memory");
	return NULL;
}

struct ps_schema_column *ps_schema__columns(const struct ps_session *s, unsigned int flags,
                                            size_t *nr, struct ps_error *err)
{
	struct cols tp = { 0 }, base = { 0 };
	struct ps_schema_column *out = NULL;
	size_t i, n = 0;

	if (build(s, PS_SCHEMA_CLICKHOUSE, flags & PS_SCHEMA_NATS, &base, &tp) < 0)
		goto nomem;
	out = calloc(base.n + tp.n + 1, sizeof(*out));
	if (!out)
		goto nomem;
	for (i = 0; i < base.n + tp.n; i++) {
		struct col *c = i < base.n ? &base.v[i] : &tp.v[i - base.n];
		struct ps_schema_column *o = &out[n];
		struct ps_bytes q = { 0 };

		if (c->dropped)
			continue;
		put_name(&q, PS_SCHEMA_CLICKHOUSE, c->name);
		ps_bytes__text(&q);
		if (q.failed) {
			ps_bytes__release(&q);
			goto nomem;
		}
		o->quoted = (char *)q.p;
		o->name = c->name;
		c->name = NULL;
		o->kind = c->kind == K_INT  ? PS_COL_INT :
		          c->kind == K_TEXT ? PS_COL_TEXT :
		          c->kind == K_AINT ? PS_COL_AINT :
		                              PS_COL_ATEXT;
		o->sign = c->sign;
		o->bytes = c->kind == K_INT || c->kind == K_AINT ?
		                   (c->sign || c->bytes < 16 ? c->bytes : 8) :
		                   0;
		n++;
	}
	cols_release(&base);
	cols_release(&tp);
	*nr = n;
	return out;
nomem:
	cols_release(&base);
	cols_release(&tp);
	ps_schema__columns_free(out, n);
	ps_error__set(err, PS_ENOMEM, NULL, PS_NO_OFFSET, "out of memory");
	return NULL;
}

void ps_schema__columns_free(struct ps_schema_column *c, size_t n)
{
	if (!c)
		return;
	for (size_t i = 0; i < n; i++) {
		free(c[i].name);
		free(c[i].quoted);
	}
	free(c);
}
