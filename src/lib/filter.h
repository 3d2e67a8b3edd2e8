/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * filter.h - pfilter's expression language: the sysdig/falco condition language over the
 * fields of a sample, with the kernel tracepoint filter's spellings accepted too.
 *
 *	expr      := or
 *	or        := and { ("or" | "||") and }
 *	and       := not { ("and" | "&&") not }
 *	not       := ("not" | "!") not | "(" expr ")" | condition
 *	condition := field "exists"
 *	           | field ("=" | "==" | "!=" | "<" | "<=" | ">" | ">=" | "&"
 *	                    | "contains" | "startswith" | "endswith" | "glob" | "~") value
 *	           | field "in" "(" value { "," value } ")"
 *	field     := name [ "[" index "]" ] | system ":" event "." name [ "[" index "]" ]
 *	value     := "quoted" | 'quoted' | bare-word
 *
 * The work is split as jq splits it: filter_lex.c cuts the text into tokens, filter_parse.c
 * builds the tree, filter_check.c binds it to the events of a stream (and reports fields
 * no event has), filter_eval.c evaluates it on samples without allocating.
 *
 * Nothing here prints or exits: errors come back in a struct ps_filter_error that says which
 * operand and which byte of it is wrong, and ps_filter_error__caret() draws the caret.
 */
#ifndef PS_FILTER_H
#define PS_FILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ps_filter;
struct ps_session;
struct ps_sample;
struct ps_symbols;

/**
 * struct ps_filter_error - what is wrong with an expression, and where.
 * @text: the operand the error is in (a pointer to the caller's string), or NULL when the
 *        error has no position (out of memory)
 * @pos: byte offset of the offending token in @text
 * @msg: one line, lowercase, no final period
 */
struct ps_filter_error {
	const char *text;
	size_t pos;
	char msg[768];
};

/**
 * ps_filter__parse() - compile the operands @exprs[0..@n) joined by "and".
 * @n: how many operands; 0 gives a filter that matches every sample
 * @exprs: the operands; the filter keeps pointers to them, so they must outlive it
 * @err: filled on failure (syntax errors, operators that do not fit a sample field's type)
 * Return: a new filter, or NULL.
 */
struct ps_filter *ps_filter__parse(int n, const char *const *exprs, struct ps_filter_error *err);

/**
 * ps_filter__invert() - make the filter match what it did not (pfilter -v): the expression
 * becomes "not (expression)", so a sample whose event lacks a field now matches.
 * Return: 0, or -1 when out of memory or the filter has no expression.
 */
int ps_filter__invert(struct ps_filter *f);

/**
 * ps_filter__check() - bind the filter to the events @s declares, and refuse a field that
 * none of them has, a qualified field whose event is not in the stream, and a comparison
 * that fits the type of the field in no event.  Call it once the stream's header records
 * have been read.  A stream without any event is not checked.
 * @err: filled on failure; its message lists the fields that do exist
 * Return: 0, or -1.
 */
int ps_filter__check(struct ps_filter *f, const struct ps_session *s, struct ps_filter_error *err);

/**
 * ps_filter__match() - evaluate the filter on one sample.  A comparison on a field the
 * sample's event does not have is false ("!=" included).  Events declared after
 * ps_filter__check() are bound on their first sample; nothing else allocates.
 * @s: the session that decoded @smp; ps_session__comm() must give the thread names at the
 *     sample's time (see order.h) when the filter uses "comm"
 * Return: 1 when it matches, 0 when not, -1 when out of memory binding a new event.
 */
int ps_filter__match(struct ps_filter *f, const struct ps_session *s, const struct ps_sample *smp);

/** ps_filter__uses_comm() - the filter reads thread names (so it needs the time-ordered view). */
bool ps_filter__uses_comm(const struct ps_filter *f);

/**
 * ps_filter__uses_durations() - the filter reads a built-in duration field (latency,
 * run_time, wait_time, sch_delay, off_cpu: durations.h), whose values need the samples in
 * time order.
 */
bool ps_filter__uses_durations(const struct ps_filter *f);

/**
 * ps_filter__uses_symbols() - the filter reads sym, dso or stack: the caller feeds a symbol
 * table (symbols.h) every record in time order and hands it over with
 * ps_filter__set_symbols().
 */
bool ps_filter__uses_symbols(const struct ps_filter *f);

/**
 * ps_filter__set_symbols() - the table that names sym, dso and stack (not owned; without
 * one every function and object is "[unknown]").
 */
void ps_filter__set_symbols(struct ps_filter *f, struct ps_symbols *st);

/**
 * ps_filter__describe() - the parsed expression, printed back with the precedence made
 * visible by parentheses.
 * Return: a malloc'ed string the caller frees, or NULL when out of memory.
 */
char *ps_filter__describe(const struct ps_filter *f);

/**
 * ps_filter__pushdown() - split the filter into what the kernel's tracepoint filter could
 * evaluate (comparisons of tracepoint fields with constants joined by && || !, written in the
 * kernel's syntax) and what is left for pfilter.  The kernel part keeps a superset of the
 * matching samples; the two parts joined by && are the filter.
 * @kernel: set to a malloc'ed string, "" when nothing can be pushed down
 * @rest: set to a malloc'ed string, "" when the kernel part is exact
 * Return: 0, or -1 when out of memory.
 */
int ps_filter__pushdown(const struct ps_filter *f, char **kernel, char **rest);

/** ps_filter__delete() - free the filter; NULL is allowed. */
void ps_filter__delete(struct ps_filter *f);

/**
 * ps_filter_error__caret() - the two lines that show where @err is: the operand (control
 * characters shown as spaces) and a caret under the offending byte, each ending in "\n".
 * Return: a malloc'ed string, or NULL when @err has no position or memory runs out.
 */
char *ps_filter_error__caret(const struct ps_filter_error *err);

/**
 * ps_filter__parse_number() - a number as the language reads it: decimal or 0x hex, an
 * optional sign, and an optional time unit (h, m, s, ms, us, ns, duration.h's; the value is
 * then in ns).  A
 * decimal fraction needs a unit, or is taken as seconds, the way perf script prints times.
 * @neg: set when the number is negative (*@val then holds its two's complement)
 * Return: 0, or -1 when @s (@len bytes) is not such a number or does not fit in 64 bits.
 */
int ps_filter__parse_number(const char *s, size_t len, uint64_t *val, bool *neg);

#endif
