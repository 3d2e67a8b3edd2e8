// SPDX-License-Identifier: GPL-2.0-only
/*
 * filter_explain.c - print a filter back: the parsed expression with its precedence made
 * visible, the part of it the kernel's tracepoint filter could evaluate, and the caret under
 * an error.
 *
 * The kernel part follows the kernel's filter syntax (trace_events_filter.c): "==", "!=",
 * "<", "<=", ">", ">=", "&", "~" for globs, "&&", "||", "!", strings in quotes without
 * escapes.  What the kernel cannot say (sample fields such as comm or cpu, "exists", array
 * elements, strings with control bytes) stays in pfilter.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "filter_int.h"

/* the text written into @b, for the caller to free; NULL (and @b freed) when out of memory */
static char *sb_take(struct ps_bytes *b)
{
	ps_bytes__text(b);
	if (b->failed) {
		ps_bytes__release(b);
		return NULL;
	}
	return (char *)b->p;
}

/* ---- the expression ---- */

static void add_field(struct ps_bytes *b, const struct fcond *c, bool plain)
{
	char idx[16];

	if (c->sys && !plain) {
		ps_bytes__puts(b, c->sys);
		ps_bytes__puts(b, ":");
		ps_bytes__puts(b, c->event);
		ps_bytes__puts(b, ".");
	}
	ps_bytes__puts(b, c->name);
	if (c->has_index) {
		snprintf(idx, sizeof(idx), "[%u]", c->index);
		ps_bytes__puts(b, idx);
	}
}

static bool needs_quotes(const struct fvalue *v)
{
	size_t i;

	if (v->quoted || v->len == 0)
		return true;
	for (i = 0; i < v->len; i++) {
		unsigned char c = (unsigned char)v->text[i];

		if (c <= ' ' || c == 0x7f || strchr("()&|,\"'\\", c))
			return true;
	}
	return false;
}

static void add_value(struct ps_bytes *b, const struct fvalue *v)
{
	char esc[8];
	size_t i;

	if (!needs_quotes(v)) {
		ps_bytes__put(b, v->text, v->len);
		return;
	}
	ps_bytes__puts(b, "\"");
	for (i = 0; i < v->len; i++) {
		unsigned char c = (unsigned char)v->text[i];

		if (c == '"' || c == '\\') {
			esc[0] = '\\';
			esc[1] = (char)c;
			ps_bytes__put(b, esc, 2);
		} else if (c == '\n') {
			ps_bytes__puts(b, "\\n");
		} else if (c == '\t') {
			ps_bytes__puts(b, "\\t");
		} else if (c < ' ' || c == 0x7f) {
			snprintf(esc, sizeof(esc), "\\x%02x", c);
			ps_bytes__puts(b, esc);
		} else {
			ps_bytes__put(b, (const char *)&c, 1);
		}
	}
	ps_bytes__puts(b, "\"");
}

static void add_cond(struct ps_bytes *b, const struct fcond *c)
{
	size_t i;

	add_field(b, c, false);
	ps_bytes__puts(b, " ");
	ps_bytes__puts(b, ps_filter_op_name(c->op));
	if (c->op == OP_EXISTS)
		return;
	if (c->op != OP_IN) {
		ps_bytes__puts(b, " ");
		add_value(b, &c->values[0]);
		return;
	}
	ps_bytes__puts(b, " (");
	for (i = 0; i < c->nvalues; i++) {
		if (i)
			ps_bytes__puts(b, ", ");
		add_value(b, &c->values[i]);
	}
	ps_bytes__puts(b, ")");
}

static void add_node(struct ps_bytes *b, const struct fnode *n);

/* A child of an and/or/not: in parentheses when it is an and/or of another kind. */
static void add_child(struct ps_bytes *b, const struct fnode *parent, const struct fnode *child)
{
	bool paren = (child->kind == FN_AND || child->kind == FN_OR) &&
	             (parent->kind == FN_NOT || child->kind != parent->kind);

	if (paren)
		ps_bytes__puts(b, "(");
	add_node(b, child);
	if (paren)
		ps_bytes__puts(b, ")");
}

static void add_node(struct ps_bytes *b, const struct fnode *n)
{
	switch (n->kind) {
	case FN_AND:
	case FN_OR:
		add_child(b, n, n->a);
		ps_bytes__puts(b, n->kind == FN_AND ? " and " : " or ");
		add_child(b, n, n->b);
		break;
	case FN_NOT:
		ps_bytes__puts(b, "not ");
		add_child(b, n, n->a);
		break;
	case FN_COND:
		add_cond(b, n->cond);
		break;
	}
}

char *ps_filter__describe(const struct ps_filter *f)
{
	struct ps_bytes b = { 0 };

	if (f->root)
		add_node(&b, f->root);
	return sb_take(&b);
}

/* ---- the kernel's part ---- */

static bool has_glob_chars(const struct fvalue *v)
{
	return memchr(v->text, '*', v->len) || memchr(v->text, '?', v->len) ||
	       memchr(v->text, '[', v->len) || memchr(v->text, '\\', v->len);
}

/* A constant as the kernel reads it; false when it cannot be written for the kernel. */
static bool kernel_value(struct ps_bytes *b, const struct fvalue *v, const char *pre,
                         const char *post)
{
	char num[32];
	char q = '"';
	size_t i;

	if (v->is_num && !v->quoted && !pre[0] && !post[0]) {
		if (v->neg)
			snprintf(num, sizeof(num), "%lld", (long long)(int64_t)v->num);
		else
			snprintf(num, sizeof(num), "%llu", (unsigned long long)v->num);
		ps_bytes__puts(b, num);
		return true;
	}
	for (i = 0; i < v->len; i++)
		if ((unsigned char)v->text[i] < ' ' || v->text[i] == 0x7f)
			return false;
	if (memchr(v->text, '"', v->len)) {
		if (memchr(v->text, '\'', v->len))
			return false;
		q = '\'';
	}
	ps_bytes__put(b, &q, 1);
	ps_bytes__puts(b, pre);
	ps_bytes__put(b, v->text, v->len);
	ps_bytes__puts(b, post);
	ps_bytes__put(b, &q, 1);
	return true;
}

/* One comparison of @c with value @v in the kernel's syntax, or false. */
static bool kernel_cmp(struct ps_bytes *b, const struct fcond *c, const struct fvalue *v)
{
	const char *op, *pre = "", *post = "";

	switch (c->op) {
	case OP_EQ:
	case OP_IN:
		op = " == ";
		break;
	case OP_NE:
		op = " != ";
		break;
	case OP_LT:
		op = " < ";
		break;
	case OP_LE:
		op = " <= ";
		break;
	case OP_GT:
		op = " > ";
		break;
	case OP_GE:
		op = " >= ";
		break;
	case OP_BITAND:
		op = " & ";
		break;
	case OP_CONTAINS:
		op = " ~ ";
		pre = "*";
		post = "*";
		break;
	case OP_STARTSWITH:
		op = " ~ ";
		post = "*";
		break;
	case OP_ENDSWITH:
		op = " ~ ";
		pre = "*";
		break;
	case OP_GLOB:
		/* the kernel's glob has no escapes */
		if (memchr(v->text, '\\', v->len))
			return false;
		op = " ~ ";
		break;
	default:
		return false;
	}
	if ((pre[0] || post[0]) && has_glob_chars(v))
		return false;
	add_field(b, c, true);
	ps_bytes__puts(b, op);
	return kernel_value(b, v, pre, post);
}

static char *kernel_cond(const struct fcond *c)
{
	struct ps_bytes b = { 0 };
	size_t i;

	if (c->field != FF_TP || c->has_index || c->op == OP_EXISTS)
		return NULL;
	if (c->op == OP_IN && c->nvalues > 1)
		ps_bytes__puts(&b, "(");
	for (i = 0; i < c->nvalues; i++) {
		if (i)
			ps_bytes__puts(&b, " || ");
		if (!kernel_cmp(&b, c, &c->values[i])) {
			ps_bytes__release(&b);
			return NULL;
		}
	}
	if (c->op == OP_IN && c->nvalues > 1)
		ps_bytes__puts(&b, ")");
	return sb_take(&b);
}

/*
 * The kernel filter for @n: exactly @n (*exact), or a weaker filter that keeps every sample
 * @n keeps; NULL when the kernel can filter nothing out.  *oom on failure.
 */
static char *push(const struct fnode *n, bool *exact, bool *oom)
{
	struct ps_bytes b = { 0 };
	char *l, *r;
	bool el, er;

	*exact = false;
	switch (n->kind) {
	case FN_COND:
		l = kernel_cond(n->cond);
		*exact = l != NULL;
		return l;
	case FN_NOT:
		l = push(n->a, &el, oom);
		if (!l || el) {
			if (!l)
				return NULL;
			ps_bytes__puts(&b, n->a->kind == FN_COND ? "!(" : "!");
			ps_bytes__puts(&b, l);
			ps_bytes__puts(&b, n->a->kind == FN_COND ? ")" : "");
			free(l);
			*exact = true;
			l = sb_take(&b);
			*oom = *oom || !l;
			return l;
		}
		free(l);
		return NULL;
	case FN_AND:
	case FN_OR:
		l = push(n->a, &el, oom);
		r = push(n->b, &er, oom);
		if (n->kind == FN_OR && (!l || !r)) {
			free(l);
			free(r);
			return NULL;
		}
		if (!l || !r) {
			/* a weaker "and": the side the kernel can do */
			return l ? l : r;
		}
		ps_bytes__puts(&b, "(");
		ps_bytes__puts(&b, l);
		ps_bytes__puts(&b, n->kind == FN_AND ? " && " : " || ");
		ps_bytes__puts(&b, r);
		ps_bytes__puts(&b, ")");
		free(l);
		free(r);
		*exact = el && er;
		l = sb_take(&b);
		*oom = *oom || !l;
		return l;
	}
	return NULL;
}

/* Drop the outer parentheses push() puts around every and/or. */
static void strip_outer(char *s)
{
	size_t n = strlen(s), i;
	int depth = 0;

	if (n < 2 || s[0] != '(' || s[n - 1] != ')')
		return;
	for (i = 0; i < n; i++) {
		if (s[i] == '"' || s[i] == '\'') {
			char q = s[i];

			while (++i < n && s[i] != q)
				;
			continue;
		}
		if (s[i] == '(')
			depth++;
		else if (s[i] == ')' && --depth == 0 && i != n - 1)
			return;
	}
	memmove(s, s + 1, n - 2);
	s[n - 2] = 0;
}

static void conjuncts(const struct fnode *n, const struct fnode **out, size_t *nr, size_t max)
{
	if (n->kind == FN_AND) {
		conjuncts(n->a, out, nr, max);
		conjuncts(n->b, out, nr, max);
	} else if (*nr < max) {
		out[(*nr)++] = n;
	}
}

int ps_filter__pushdown(const struct ps_filter *f, char **kernel, char **rest)
{
	struct ps_bytes k = { 0 }, u = { 0 };
	const struct fnode **parts, **left;
	size_t nparts = 0, nleft = 0, i, nk = 0;
	bool oom = false;

	*kernel = *rest = NULL;
	parts = calloc(2 * (f->nconds + 1), sizeof(*parts));
	if (!parts)
		return -1;
	left = parts + f->nconds + 1;
	if (f->root)
		conjuncts(f->root, parts, &nparts, f->nconds + 1);
	for (i = 0; i < nparts; i++) {
		bool exact;
		char *s = push(parts[i], &exact, &oom);

		if (s) {
			if (nk++)
				ps_bytes__puts(&k, " && ");
			ps_bytes__puts(&k, s);
			free(s);
		}
		if (!exact)
			left[nleft++] = parts[i];
	}
	/* what pfilter still evaluates: the conditions the kernel did not do exactly */
	for (i = 0; i < nleft; i++) {
		bool paren = nleft > 1 && left[i]->kind == FN_OR;

		if (i)
			ps_bytes__puts(&u, " and ");
		if (paren)
			ps_bytes__puts(&u, "(");
		add_node(&u, left[i]);
		if (paren)
			ps_bytes__puts(&u, ")");
	}
	free(parts);
	*kernel = sb_take(&k);
	*rest = sb_take(&u);
	if (oom || !*kernel || !*rest) {
		free(*kernel);
		free(*rest);
		*kernel = *rest = NULL;
		return -1;
	}
	if (nk == 1)
		strip_outer(*kernel);
	return 0;
}

/* ---- the caret ---- */

char *ps_filter_error__caret(const struct ps_filter_error *err)
{
	size_t n, i, pos;
	char *out, *q;

	if (!err || !err->text)
		return NULL;
	n = strlen(err->text);
	pos = err->pos > n ? n : err->pos;
	out = malloc(2 * n + 4);
	if (!out)
		return NULL;
	q = out;
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)err->text[i];

		*q++ = (c < ' ' && c != '\t') || c == 0x7f ? ' ' : (char)c;
	}
	*q++ = '\n';
	/* one column per character: UTF-8 continuation bytes take none */
	for (i = 0; i < pos; i++) {
		unsigned char c = (unsigned char)err->text[i];

		if (c == '\t')
			*q++ = '\t';
		else if ((c & 0xc0) != 0x80)
			*q++ = ' ';
	}
	*q++ = '^';
	*q++ = '\n';
	*q = 0;
	return out;
}
