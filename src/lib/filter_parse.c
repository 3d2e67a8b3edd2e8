// SPDX-License-Identifier: GPL-2.0-only
/*
 * filter_parse.c - build the tree of an expression by recursive descent, one operand at a
 * time, and join the operands with "and".
 *
 * The fields of the sample itself have a type known here, so "comm < 5" and "pid = dd" are
 * refused before any input is read; tracepoint fields are typed by filter_check.c once the
 * stream's formats are known.  Every error names the byte it is about.
 */
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "duration.h"
#include "durations.h"
#include "filter_int.h"

const struct fsample_field ps_filter_sample_fields[] = {
	{ "event", FF_EVENT, FT_STR, false, 0 },
	{ "comm", FF_COMM, FT_STR, false, PERF_SAMPLE_TID },
	{ "pid", FF_PID, FT_NUM, true, PERF_SAMPLE_TID },
	{ "tid", FF_TID, FT_NUM, true, PERF_SAMPLE_TID },
	{ "cpu", FF_CPU, FT_NUM, false, PERF_SAMPLE_CPU },
	{ "time", FF_TIME, FT_NUM, false, PERF_SAMPLE_TIME },
	{ "period", FF_PERIOD, FT_NUM, false, 0 },
	{ "ip", FF_IP, FT_NUM, false, PERF_SAMPLE_IP },
	{ "addr", FF_ADDR, FT_NUM, false, PERF_SAMPLE_ADDR },
	{ "stream_id", FF_STREAM_ID, FT_NUM, false, PERF_SAMPLE_STREAM_ID },
	{ "syscall", FF_SYSCALL, FT_SYSCALL, false, 0 },
	{ "errno", FF_ERRNO, FT_ERRNO, false, 0 },
	{ "sym", FF_SYM, FT_STR, false, PERF_SAMPLE_IP },
	{ "dso", FF_DSO, FT_STR, false, PERF_SAMPLE_IP },
	{ "stack", FF_STACK, FT_STR, false, PERF_SAMPLE_IP },
	{ "input", FF_INPUT, FT_STR, false, 0 },
};

const size_t ps_filter_nr_sample_fields = ARRAY_SIZE(ps_filter_sample_fields);

const char *ps_filter_op_name(enum fop op)
{
	static const char *const names[] = {
		[OP_EQ] = "=",
		[OP_NE] = "!=",
		[OP_LT] = "<",
		[OP_LE] = "<=",
		[OP_GT] = ">",
		[OP_GE] = ">=",
		[OP_BITAND] = "&",
		[OP_CONTAINS] = "contains",
		[OP_STARTSWITH] = "startswith",
		[OP_ENDSWITH] = "endswith",
		[OP_GLOB] = "glob",
		[OP_IN] = "in",
		[OP_EXISTS] = "exists",
	};

	return names[op];
}

/* ---- numbers ---- */

static bool add_ok(uint64_t *v, uint64_t a)
{
	return !__builtin_add_overflow(*v, a, v);
}

static bool mul_ok(uint64_t *v, uint64_t m)
{
	return !__builtin_mul_overflow(*v, m, v);
}

int ps_filter__parse_number(const char *s, size_t len, uint64_t *val, bool *neg)
{
	uint64_t v = 0, mult = 1, scale;
	size_t i = 0, fstart = 0, fend = 0, k;
	bool minus = false, digits = false;

	if (i < len && (s[i] == '-' || s[i] == '+'))
		minus = s[i++] == '-';
	if (len - i > 2 && s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X')) {
		for (i += 2; i < len; i++) {
			int d;

			if (s[i] >= '0' && s[i] <= '9')
				d = s[i] - '0';
			else if (s[i] >= 'a' && s[i] <= 'f')
				d = s[i] - 'a' + 10;
			else if (s[i] >= 'A' && s[i] <= 'F')
				d = s[i] - 'A' + 10;
			else
				return -1;
			if (v >> 60)
				return -1;
			v = v * 16 + (uint64_t)d;
		}
		goto sign;
	}
	for (; i < len && s[i] >= '0' && s[i] <= '9'; i++) {
		digits = true;
		if (!mul_ok(&v, 10) || !add_ok(&v, (uint64_t)(s[i] - '0')))
			return -1;
	}
	if (!digits)
		return -1;
	if (i < len && s[i] == '.') {
		fstart = ++i;
		while (i < len && s[i] >= '0' && s[i] <= '9')
			i++;
		fend = i;
		if (fend == fstart)
			return -1;
	}
	if (i == len)
		mult = fend ? PS_NS_PER_SEC : 1;
	else if (!(mult = ps_duration__unit(s + i, len - i)))
		return -1;
	if (!mul_ok(&v, mult))
		return -1;
	/* the fraction, digit by digit, down to nanoseconds */
	scale = mult;
	for (k = fstart; k < fend && scale >= 10; k++) {
		scale /= 10;
		if (!add_ok(&v, (uint64_t)(s[k] - '0') * scale))
			return -1;
	}
sign:
	if (minus) {
		if (v > (1ULL << 63))
			return -1;
		v = (uint64_t)0 - v;
	}
	*val = v;
	*neg = minus && v != 0;
	return 0;
}

/* ---- the parser ---- */

struct parser {
	struct flexer lx;
	struct ftoken tok;
	struct ps_filter *f;
	struct ps_filter_error *err;
	const char *src;
	int depth;
};

static int advance(struct parser *p, enum fmode mode)
{
	free(p->tok.text);
	p->tok.text = NULL;
	return ps_flex_next(&p->lx, mode, &p->tok, p->err);
}

static char *take_text(struct parser *p)
{
	char *t = p->tok.text;

	p->tok.text = NULL;
	return t;
}

static int fail_at(struct parser *p, size_t pos, const char *fmt, ...) PS_PRINTF(3, 4);

static int fail_at(struct parser *p, size_t pos, const char *fmt, ...)
{
	va_list ap;

	if (!p->err)
		return -1;
	p->err->text = p->src;
	p->err->pos = pos;
	va_start(ap, fmt);
	vsnprintf(p->err->msg, sizeof(p->err->msg), fmt, ap);
	va_end(ap);
	return -1;
}

/* How the current token reads in a message: its source text, or what kind it is. */
static const char *tok_desc(struct parser *p, char *buf, size_t len)
{
	if (p->tok.kind == TK_END)
		return "the end of the expression";
	snprintf(buf, len, "'%.*s'", (int)(p->tok.len > 40 ? 40 : p->tok.len), p->src + p->tok.pos);
	return buf;
}

static void free_cond(struct fcond *c)
{
	size_t i;

	if (!c)
		return;
	free(c->name);
	free(c->sys);
	free(c->event);
	for (i = 0; i < c->nvalues; i++)
		free(c->values[i].text);
	free(c->values);
	free(c->bind);
	free(c);
}

static void free_node(struct fnode *n)
{
	if (!n)
		return;
	free_node(n->a);
	free_node(n->b);
	free(n);
}

static struct fnode *new_node(struct parser *p, enum fnode_kind kind, struct fnode *a,
                              struct fnode *b)
{
	struct fnode *n = calloc(1, sizeof(*n));

	if (!n) {
		free_node(a);
		free_node(b);
		ps_filter_seterr(p->err, NULL, 0, "out of memory");
		return NULL;
	}
	n->kind = kind;
	n->a = a;
	n->b = b;
	return n;
}

static const struct fsample_field *sample_field(const char *name)
{
	size_t i;

	for (i = 0; i < ps_filter_nr_sample_fields; i++)
		if (strcmp(ps_filter_sample_fields[i].name, name) == 0)
			return &ps_filter_sample_fields[i];
	return NULL;
}

static bool ident_ok(const char *s, size_t n)
{
	size_t i;

	if (!n)
		return false;
	for (i = 0; i < n; i++) {
		char c = s[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
		      (i && c >= '0' && c <= '9')))
			return false;
	}
	return true;
}

/* The field of a condition: a sample field, a tracepoint field, or sys:event.field. */
static int parse_field(struct parser *p, struct fcond *c)
{
	const char *colon, *dot, *name = p->tok.text;
	const struct fsample_field *sf;

	c->fpos = p->tok.pos;
	c->flen = p->tok.len;
	colon = strchr(name, ':');
	dot = strrchr(name, '.');
	if (colon) {
		if (!dot || dot < colon)
			return fail_at(
			        p, c->fpos,
			        "'%s' is an event, not a field: a field of it is written %s.FIELD",
			        name, name);
		if (!ident_ok(name, (size_t)(colon - name)) ||
		    !ident_ok(colon + 1, (size_t)(dot - colon - 1)) ||
		    !ident_ok(dot + 1, strlen(dot + 1)))
			return fail_at(
			        p, c->fpos,
			        "'%s' is not a field: a tracepoint's field is written system:event.field",
			        name);
		c->field = FF_TP;
		c->sys = strndup(name, (size_t)(colon - name));
		c->event = strndup(colon + 1, (size_t)(dot - colon - 1));
		c->name = strdup(dot + 1);
		if (!c->sys || !c->event || !c->name)
			return ps_filter_seterr(p->err, NULL, 0, "out of memory");
		return 0;
	}
	if (dot)
		return fail_at(
		        p, c->fpos,
		        "'%s' is not a field: a tracepoint's field is written system:event.field",
		        name);
	sf = sample_field(name);
	c->field = sf ? sf->id : FF_TP;
	c->name = take_text(p);
	if (c->field == FF_COMM)
		p->f->uses_comm = true;
	if (c->field == FF_SYM || c->field == FF_DSO || c->field == FF_STACK)
		p->f->uses_symbols = true;
	return 0;
}

static int parse_index(struct parser *p, struct fcond *c)
{
	size_t lpos = p->tok.pos;
	uint64_t v;
	bool neg;

	if (c->field != FF_TP)
		return fail_at(p, lpos, "%s is not an array", c->name);
	if (advance(p, LEX_NORMAL))
		return -1;
	if (p->tok.kind != TK_NUMBER ||
	    ps_filter__parse_number(p->tok.text, p->tok.text_len, &v, &neg) || neg ||
	    v > UINT32_MAX || strchr(p->tok.text, 's'))
		return fail_at(p, p->tok.pos, "an array index (a number) is expected here");
	c->has_index = true;
	c->index = (uint32_t)v;
	if (advance(p, LEX_NORMAL))
		return -1;
	if (p->tok.kind != TK_RBRACK)
		return fail_at(p, p->tok.pos,
		               "']' is expected here, to close the '[' of the index");
	c->flen = p->tok.pos + 1 - c->fpos;
	return advance(p, LEX_NORMAL);
}

static int op_of(enum ftok kind, enum fop *op)
{
	switch (kind) {
	case TK_EQ:
		*op = OP_EQ;
		break;
	case TK_NE:
		*op = OP_NE;
		break;
	case TK_LT:
		*op = OP_LT;
		break;
	case TK_LE:
		*op = OP_LE;
		break;
	case TK_GT:
		*op = OP_GT;
		break;
	case TK_GE:
		*op = OP_GE;
		break;
	case TK_BITAND:
		*op = OP_BITAND;
		break;
	case TK_CONTAINS:
		*op = OP_CONTAINS;
		break;
	case TK_STARTSWITH:
		*op = OP_STARTSWITH;
		break;
	case TK_ENDSWITH:
		*op = OP_ENDSWITH;
		break;
	case TK_GLOB:
		*op = OP_GLOB;
		break;
	case TK_IN:
		*op = OP_IN;
		break;
	case TK_EXISTS:
		*op = OP_EXISTS;
		break;
	default:
		return -1;
	}
	return 0;
}

/* One value, the current token (lexed in value mode). */
static int take_value(struct parser *p, struct fcond *c)
{
	struct fvalue *v, *nv;
	char buf[64];

	if (p->tok.kind != TK_VALUE)
		return fail_at(p, p->tok.pos, "a value is expected here, not %s",
		               tok_desc(p, buf, sizeof(buf)));
	nv = realloc(c->values, (c->nvalues + 1) * sizeof(*nv));
	if (!nv)
		return ps_filter_seterr(p->err, NULL, 0, "out of memory");
	c->values = nv;
	v = &c->values[c->nvalues++];
	memset(v, 0, sizeof(*v));
	v->len = p->tok.text_len;
	v->pos = p->tok.pos;
	v->quoted = p->tok.quoted;
	v->sysnr = -1;
	v->text = take_text(p);
	v->is_num = ps_filter__parse_number(v->text, v->len, &v->num, &v->neg) == 0;
	return 0;
}

static bool op_is_numeric(enum fop op)
{
	return op == OP_LT || op == OP_LE || op == OP_GT || op == OP_GE || op == OP_BITAND;
}

static bool op_is_string(enum fop op)
{
	return op == OP_CONTAINS || op == OP_STARTSWITH || op == OP_ENDSWITH || op == OP_GLOB;
}

int ps_filter_type_error(const struct fcond *c, enum ftype type, struct ps_filter_error *err)
{
	size_t i;

	if (c->op == OP_EXISTS)
		return 0;
	if (type == FT_STR && op_is_numeric(c->op))
		return ps_filter_seterr(err, c->src, c->oppos,
		                        "%s is a string: '%s' compares numbers", c->name,
		                        ps_filter_op_name(c->op));
	if (type == FT_NUM && op_is_string(c->op))
		return ps_filter_seterr(err, c->src, c->oppos,
		                        "%s is a number: '%s' compares strings", c->name,
		                        ps_filter_op_name(c->op));
	if (type == FT_STR)
		return 0;
	for (i = 0; i < c->nvalues; i++) {
		const struct fvalue *v = &c->values[i];

		if (v->is_num)
			continue;
		if ((type == FT_SYSCALL || type == FT_ERRNO) && !op_is_numeric(c->op))
			continue;
		return ps_filter_seterr(err, c->src, v->pos, "%s is a number, and '%s' is not one",
		                        c->name, v->text);
	}
	return 0;
}

static int parse_condition(struct parser *p, struct fnode **out)
{
	struct fcond *c, **nc;
	struct fnode *n;
	char buf[64];
	size_t i;

	if (p->f->nconds >= PS_FILTER_MAX_CONDS)
		return fail_at(p, p->tok.pos, "more than %d conditions in one filter",
		               PS_FILTER_MAX_CONDS);
	c = calloc(1, sizeof(*c));
	if (!c)
		return ps_filter_seterr(p->err, NULL, 0, "out of memory");
	c->src = p->src;
	if (parse_field(p, c))
		goto fail;
	if (advance(p, LEX_NORMAL))
		goto fail;
	if (p->tok.kind == TK_LBRACK && parse_index(p, c))
		goto fail;
	if (op_of(p->tok.kind, &c->op)) {
		fail_at(p, p->tok.pos,
		        "an operator (=, !=, <, >, contains, glob, in, exists...) is expected after %.*s, not %s",
		        (int)c->flen, p->src + c->fpos, tok_desc(p, buf, sizeof(buf)));
		goto fail;
	}
	c->oppos = p->tok.pos;
	c->oplen = p->tok.len;
	if (c->op == OP_EXISTS) {
		if (advance(p, LEX_NORMAL))
			goto fail;
	} else if (c->op == OP_IN) {
		size_t lparen;

		if (advance(p, LEX_NORMAL))
			goto fail;
		if (p->tok.kind != TK_LPAREN) {
			fail_at(p, p->tok.pos, "'in' takes a list in parentheses: in (a, b, c)");
			goto fail;
		}
		lparen = p->tok.pos;
		for (;;) {
			if (advance(p, LEX_VALUE) || take_value(p, c) || advance(p, LEX_NORMAL))
				goto fail;
			if (p->tok.kind == TK_RPAREN)
				break;
			if (p->tok.kind != TK_COMMA) {
				if (p->tok.kind == TK_END)
					fail_at(p, lparen, "this '(' is never closed");
				else
					fail_at(p, p->tok.pos,
					        "',' or ')' is expected in the list of 'in', not %s",
					        tok_desc(p, buf, sizeof(buf)));
				goto fail;
			}
		}
		if (advance(p, LEX_NORMAL))
			goto fail;
	} else {
		if (advance(p, LEX_VALUE) || take_value(p, c) || advance(p, LEX_NORMAL))
			goto fail;
	}
	if (c->field != FF_TP) {
		for (i = 0; i < ps_filter_nr_sample_fields; i++)
			if (ps_filter_sample_fields[i].id == c->field)
				break;
		if (ps_filter_type_error(c, ps_filter_sample_fields[i].type, p->err))
			goto fail;
	}
	if (p->f->nconds == p->f->cap_conds) {
		size_t cap = p->f->cap_conds ? 2 * p->f->cap_conds : 16;

		nc = realloc(p->f->conds, cap * sizeof(*nc));
		if (!nc) {
			ps_filter_seterr(p->err, NULL, 0, "out of memory");
			goto fail;
		}
		p->f->conds = nc;
		p->f->cap_conds = cap;
	}
	n = new_node(p, FN_COND, NULL, NULL);
	if (!n)
		goto fail;
	n->cond = c;
	p->f->conds[p->f->nconds++] = c;
	*out = n;
	return 0;
fail:
	free_cond(c);
	return -1;
}

static int parse_or(struct parser *p, struct fnode **out);

static int parse_not(struct parser *p, struct fnode **out)
{
	char buf[64];

	switch (p->tok.kind) {
	case TK_NOT: {
		struct fnode *a = NULL;

		if (++p->depth > PS_FILTER_MAX_DEPTH)
			return fail_at(p, p->tok.pos, "the expression is nested too deeply");
		if (advance(p, LEX_NORMAL) || parse_not(p, &a))
			return -1;
		p->depth--;
		*out = new_node(p, FN_NOT, a, NULL);
		return *out ? 0 : -1;
	}
	case TK_LPAREN: {
		size_t lparen = p->tok.pos;
		struct fnode *a = NULL;

		if (++p->depth > PS_FILTER_MAX_DEPTH)
			return fail_at(p, lparen, "the expression is nested too deeply");
		if (advance(p, LEX_NORMAL) || parse_or(p, &a))
			return -1;
		if (p->tok.kind != TK_RPAREN) {
			free_node(a);
			if (p->tok.kind == TK_END)
				return fail_at(p, lparen, "this '(' is never closed");
			return fail_at(p, p->tok.pos, "')' is expected here, not %s",
			               tok_desc(p, buf, sizeof(buf)));
		}
		p->depth--;
		if (advance(p, LEX_NORMAL)) {
			free_node(a);
			return -1;
		}
		*out = a;
		return 0;
	}
	case TK_NAME:
		return parse_condition(p, out);
	case TK_END:
		return fail_at(p, p->tok.pos, "a condition is expected here, as in comm=NAME");
	case TK_VALUE:
		return fail_at(p, p->tok.pos, "a field name is expected here, not the string %s",
		               tok_desc(p, buf, sizeof(buf)));
	case TK_NUMBER:
		return fail_at(p, p->tok.pos, "a field name is expected here, not the number %s",
		               tok_desc(p, buf, sizeof(buf)));
	case TK_RPAREN:
		if (p->depth > 0)
			return fail_at(p, p->tok.pos, "a condition is expected here, not ')'");
		return fail_at(p, p->tok.pos, "this ')' closes no '(' (or a condition is missing)");
	default:
		return fail_at(p, p->tok.pos, "a field name or '(' is expected here, not %s",
		               tok_desc(p, buf, sizeof(buf)));
	}
}

/* operands joined by @op into left-leaning @kind nodes: "a and b and c" is "(a and b) and c" */
static int parse_chain(struct parser *p, struct fnode **out, enum ftok op, enum fnode_kind kind,
                       int (*operand)(struct parser *, struct fnode **))
{
	struct fnode *a = NULL, *b = NULL;

	if (operand(p, &a))
		return -1;
	while (p->tok.kind == op) {
		if (advance(p, LEX_NORMAL) || operand(p, &b)) {
			free_node(a);
			return -1;
		}
		a = new_node(p, kind, a, b);
		if (!a)
			return -1;
	}
	*out = a;
	return 0;
}

static int parse_and(struct parser *p, struct fnode **out)
{
	return parse_chain(p, out, TK_AND, FN_AND, parse_not);
}

static int parse_or(struct parser *p, struct fnode **out)
{
	return parse_chain(p, out, TK_OR, FN_OR, parse_and);
}

static int parse_operand(struct ps_filter *f, const char *src, struct fnode **out,
                         struct ps_filter_error *err)
{
	struct parser p = { .f = f, .err = err, .src = src };
	char buf[64];
	int r;

	p.lx.src = src;
	p.lx.len = strlen(src);
	*out = NULL;
	if (advance(&p, LEX_NORMAL))
		return -1;
	r = parse_or(&p, out);
	if (!r && p.tok.kind != TK_END) {
		if (p.tok.kind == TK_RPAREN)
			fail_at(&p, p.tok.pos, "this ')' closes no '('");
		else
			fail_at(&p, p.tok.pos,
			        "'and', 'or' or the end of the expression is expected here, not %s",
			        tok_desc(&p, buf, sizeof(buf)));
		free_node(*out);
		*out = NULL;
		r = -1;
	}
	free(p.tok.text);
	return r;
}

struct ps_filter *ps_filter__parse(int n, const char *const *exprs, struct ps_filter_error *err)
{
	struct ps_filter *f = calloc(1, sizeof(*f));
	int i;

	if (!f) {
		ps_filter_seterr(err, NULL, 0, "out of memory");
		return NULL;
	}
	for (i = 0; i < n; i++) {
		struct fnode *t, *top;

		if (parse_operand(f, exprs[i], &t, err)) {
			ps_filter__delete(f);
			return NULL;
		}
		if (!f->root) {
			f->root = t;
			continue;
		}
		top = calloc(1, sizeof(*top));
		if (!top) {
			free_node(t);
			ps_filter__delete(f);
			ps_filter_seterr(err, NULL, 0, "out of memory");
			return NULL;
		}
		top->kind = FN_AND;
		top->a = f->root;
		top->b = t;
		f->root = top;
	}
	return f;
}

int ps_filter__invert(struct ps_filter *f)
{
	struct fnode *n;

	if (!f->root)
		return -1;
	n = calloc(1, sizeof(*n));
	if (!n)
		return -1;
	n->kind = FN_NOT;
	n->a = f->root;
	f->root = n;
	return 0;
}

void ps_filter__delete(struct ps_filter *f)
{
	size_t i;

	if (!f)
		return;
	free_node(f->root);
	for (i = 0; i < f->nconds; i++)
		free_cond(f->conds[i]);
	free(f->conds);
	free(f);
}

bool ps_filter__uses_comm(const struct ps_filter *f)
{
	return f->uses_comm;
}

bool ps_filter__uses_durations(const struct ps_filter *f)
{
	size_t i;

	for (i = 0; i < f->nconds; i++)
		if (f->conds[i]->field == FF_TP &&
		    ps_durations__field(NULL, f->conds[i]->name) >= 0)
			return true;
	return false;
}

bool ps_filter__uses_symbols(const struct ps_filter *f)
{
	return f->uses_symbols;
}

void ps_filter__set_symbols(struct ps_filter *f, struct ps_symbols *st)
{
	f->syms = st;
}
