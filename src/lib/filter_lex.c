// SPDX-License-Identifier: GPL-2.0-only
/*
 * filter_lex.c - cut an expression into tokens, on demand.
 *
 * The parser says what it expects.  Where an operator or a field name may come (LEX_NORMAL),
 * "and", "contains" and the other keywords are operators and "&&", "==", "~" the kernel
 * filter's spellings of them.  Where a value comes (LEX_VALUE), anything up to a space, a
 * parenthesis, a comma, '&', '|' or a quote is one bare word, so comm=kworker/0:1 and
 * event glob sched:* need no quotes.  Quoted strings take the escapes \" \' \\ \n \t \r
 * and \xHH; any other backslash is kept, for glob patterns.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "filter_int.h"

static const struct {
	const char *word;
	enum ftok kind;
} keywords[] = {
	{ "and", TK_AND },
	{ "or", TK_OR },
	{ "not", TK_NOT },
	{ "in", TK_IN },
	{ "exists", TK_EXISTS },
	{ "contains", TK_CONTAINS },
	{ "startswith", TK_STARTSWITH },
	{ "endswith", TK_ENDSWITH },
	{ "glob", TK_GLOB },
};

/* The error setter every part of the filter uses: the lexer is the lowest of them. */
int ps_filter_seterr(struct ps_filter_error *err, const char *text, size_t pos, const char *fmt,
                     ...)
{
	va_list ap;

	if (!err)
		return -1;
	err->text = text;
	err->pos = pos;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return -1;
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

static bool is_ident_start(char c)
{
	return isalpha((unsigned char)c) || c == '_';
}

static bool is_ident(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* A bare word ends at these (and at white space). */
static bool ends_word(char c)
{
	return is_space(c) || strchr("()&|,\"'", c) != NULL;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static int set_text(struct ftoken *t, const char *s, size_t n, struct ps_filter_error *err)
{
	t->text = malloc(n + 1);
	if (!t->text)
		return ps_filter_seterr(err, NULL, 0, "out of memory");
	memcpy(t->text, s, n);
	t->text[n] = 0;
	t->text_len = n;
	return 0;
}

static int lex_quoted(struct flexer *lx, struct ftoken *t, struct ps_filter_error *err)
{
	char q = lx->src[lx->pos];
	size_t i = lx->pos + 1, n = 0;
	char *out;

	/* the decoded text is never longer than the source */
	out = malloc(lx->len - lx->pos + 1);
	if (!out)
		return ps_filter_seterr(err, NULL, 0, "out of memory");
	for (;;) {
		char c;

		if (i >= lx->len) {
			free(out);
			return ps_filter_seterr(err, lx->src, t->pos,
			                        "this string has no closing %c", q);
		}
		c = lx->src[i];
		if (c == q) {
			i++;
			break;
		}
		if (c == 0) {
			free(out);
			return ps_filter_seterr(err, lx->src, i,
			                        "a NUL byte cannot be in a string");
		}
		if (c != '\\' || i + 1 >= lx->len) {
			out[n++] = c;
			i++;
			continue;
		}
		c = lx->src[i + 1];
		switch (c) {
		case '"':
		case '\'':
		case '\\':
		case 'n':
		case 't':
		case 'r':
			out[n++] = c == 'n' ? '\n' : c == 't' ? '\t' : c == 'r' ? '\r' : c;
			i += 2;
			break;
		case 'x': {
			int h = i + 2 < lx->len ? hexval(lx->src[i + 2]) : -1;
			int l = i + 3 < lx->len ? hexval(lx->src[i + 3]) : -1;

			if (h < 0 || l < 0) {
				free(out);
				return ps_filter_seterr(err, lx->src, i,
				                        "\\x needs two hex digits, as in \\x09");
			}
			if (h == 0 && l == 0) {
				free(out);
				return ps_filter_seterr(err, lx->src, i,
				                        "a NUL byte cannot be in a string");
			}
			out[n++] = (char)(h * 16 + l);
			i += 4;
			break;
		}
		default:
			/* kept as written: a glob pattern's \* stays an escaped star */
			out[n++] = '\\';
			i++;
			break;
		}
	}
	out[n] = 0;
	t->kind = TK_VALUE;
	t->text = out;
	t->text_len = n;
	t->quoted = true;
	t->len = i - t->pos;
	lx->pos = i;
	return 0;
}

static int lex_word(struct flexer *lx, struct ftoken *t, struct ps_filter_error *err)
{
	size_t i = lx->pos;

	while (i < lx->len && lx->src[i] && !ends_word(lx->src[i]))
		i++;
	t->kind = TK_VALUE;
	t->len = i - lx->pos;
	if (set_text(t, lx->src + lx->pos, t->len, err))
		return -1;
	lx->pos = i;
	return 0;
}

static int lex_name(struct flexer *lx, struct ftoken *t, struct ps_filter_error *err)
{
	size_t i = lx->pos, k;

	/* sys:event.field is one token; the parser splits it */
	while (i < lx->len && (is_ident(lx->src[i]) || lx->src[i] == ':' || lx->src[i] == '.'))
		i++;
	t->len = i - lx->pos;
	lx->pos = i;
	for (k = 0; k < ARRAY_SIZE(keywords); k++) {
		if (strlen(keywords[k].word) == t->len &&
		    memcmp(keywords[k].word, lx->src + t->pos, t->len) == 0) {
			t->kind = keywords[k].kind;
			return 0;
		}
	}
	t->kind = TK_NAME;
	return set_text(t, lx->src + t->pos, t->len, err);
}

/* Two-character operators first, then one-character ones. */
static int lex_op(struct flexer *lx, struct ftoken *t, struct ps_filter_error *err)
{
	static const struct {
		const char *op;
		enum ftok kind;
	} ops[] = {
		{ "&&", TK_AND },   { "||", TK_OR },    { "==", TK_EQ },    { "!=", TK_NE },
		{ "<=", TK_LE },    { ">=", TK_GE },    { "(", TK_LPAREN }, { ")", TK_RPAREN },
		{ "[", TK_LBRACK }, { "]", TK_RBRACK }, { ",", TK_COMMA },  { "!", TK_NOT },
		{ "=", TK_EQ },     { "<", TK_LT },     { ">", TK_GT },     { "&", TK_BITAND },
		{ "~", TK_GLOB },
	};
	size_t k, left = lx->len - lx->pos;
	unsigned char c = (unsigned char)lx->src[lx->pos];

	for (k = 0; k < ARRAY_SIZE(ops); k++) {
		size_t n = strlen(ops[k].op);

		if (n <= left && memcmp(ops[k].op, lx->src + lx->pos, n) == 0) {
			t->kind = ops[k].kind;
			t->len = n;
			lx->pos += n;
			return 0;
		}
	}
	if (c == '|')
		return ps_filter_seterr(err, lx->src, lx->pos,
		                        "'|' is not an operator: 'or' is written '||' or 'or'");
	if (isprint(c))
		return ps_filter_seterr(err, lx->src, lx->pos, "unexpected character '%c'", c);
	return ps_filter_seterr(err, lx->src, lx->pos, "unexpected byte 0x%02x", c);
}

int ps_flex_next(struct flexer *lx, enum fmode mode, struct ftoken *t, struct ps_filter_error *err)
{
	char c;

	memset(t, 0, sizeof(*t));
	while (lx->pos < lx->len && is_space(lx->src[lx->pos]))
		lx->pos++;
	t->pos = lx->pos;
	if (lx->pos >= lx->len || lx->src[lx->pos] == 0) {
		t->kind = TK_END;
		return 0;
	}
	c = lx->src[lx->pos];
	if (c == '"' || c == '\'')
		return lex_quoted(lx, t, err);
	if (mode == LEX_VALUE) {
		if (c == '(' || c == ')' || c == ',')
			return lex_op(lx, t, err);
		if (c == '&' || c == '|')
			return ps_filter_seterr(err, lx->src, lx->pos, "a value is expected here");
		return lex_word(lx, t, err);
	}
	if (is_ident_start(c))
		return lex_name(lx, t, err);
	if (isdigit((unsigned char)c)) {
		size_t i = lx->pos;

		while (i < lx->len && isalnum((unsigned char)lx->src[i]))
			i++;
		t->kind = TK_NUMBER;
		t->len = i - lx->pos;
		lx->pos = i;
		return set_text(t, lx->src + t->pos, t->len, err);
	}
	return lex_op(lx, t, err);
}
