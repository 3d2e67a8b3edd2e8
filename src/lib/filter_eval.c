// SPDX-License-Identifier: GPL-2.0-only
/*
 * filter_eval.c - evaluate a bound filter on one sample.
 *
 * Nothing here allocates: a field is read straight from the decoded sample or its raw
 * tracepoint data, strings are compared in place, globs are matched by a loop with one
 * backtracking point.  A field the sample's event lacks makes its comparison false.
 */
#include <stdio.h>
#include <string.h>

#include "durations.h"
#include "filter_int.h"
#include "sample.h"
#include "session.h"
#include "symbolic.h"
#include "symbols.h"
#include "syscalls.h"

/* ---- glob: * ? [set] [!set] [^set] and \ escapes ---- */

/* Match @c against the class at @p[*pi] ('['); false when the class is not closed. */
static bool class_at(const char *p, size_t pn, size_t start, char c, size_t *end, bool *hit)
{
	size_t i = start + 1;
	bool neg = false, first = true;

	*hit = false;
	if (i < pn && (p[i] == '!' || p[i] == '^')) {
		neg = true;
		i++;
	}
	for (; i < pn; i++, first = false) {
		unsigned char lo = (unsigned char)p[i], hi;

		if (p[i] == ']' && !first) {
			*end = i + 1;
			*hit = *hit != neg;
			return true;
		}
		if (p[i] == '\\' && i + 1 < pn)
			lo = (unsigned char)p[++i];
		hi = lo;
		if (i + 2 < pn && p[i + 1] == '-' && p[i + 2] != ']') {
			hi = (unsigned char)p[i + 2];
			i += 2;
		}
		if ((unsigned char)c >= lo && (unsigned char)c <= hi)
			*hit = true;
	}
	return false;
}

bool ps_filter_glob(const char *p, size_t pn, const char *s, size_t sn)
{
	size_t pi = 0, si = 0, star_p = SIZE_MAX, star_s = 0;

	while (si < sn) {
		if (pi < pn) {
			char c = p[pi];
			size_t end;
			bool hit;

			if (c == '*') {
				star_p = ++pi;
				star_s = si;
				continue;
			}
			if (c == '?') {
				pi++;
				si++;
				continue;
			}
			if (c == '[' && class_at(p, pn, pi, s[si], &end, &hit)) {
				if (hit) {
					pi = end;
					si++;
					continue;
				}
			} else if (c == '\\' && pi + 1 < pn) {
				if (p[pi + 1] == s[si]) {
					pi += 2;
					si++;
					continue;
				}
			} else if (c == s[si]) {
				pi++;
				si++;
				continue;
			}
		}
		if (star_p == SIZE_MAX)
			return false;
		pi = star_p;
		si = ++star_s;
	}
	while (pi < pn && p[pi] == '*')
		pi++;
	return pi == pn;
}

/* ---- comparisons ---- */

/* -1, 0, 1 as the numbers compare mathematically; @x is signed when @xs. */
static int cmp_math(uint64_t x, bool xs, uint64_t y, bool yneg)
{
	bool xneg = xs && (int64_t)x < 0;

	if (xneg != yneg)
		return xneg ? -1 : 1;
	if (xneg)
		return (int64_t)x < (int64_t)y ? -1 : (int64_t)x > (int64_t)y;
	return x < y ? -1 : x > y;
}

static bool num_is(enum fop op, uint64_t x, bool xs, const struct fvalue *v)
{
	int r;

	if (op == OP_BITAND)
		return (x & v->num) != 0;
	r = cmp_math(x, xs, v->num, v->neg);
	switch (op) {
	case OP_EQ:
	case OP_IN:
		return r == 0;
	case OP_NE:
		return r != 0;
	case OP_LT:
		return r < 0;
	case OP_LE:
		return r <= 0;
	case OP_GT:
		return r > 0;
	case OP_GE:
		return r >= 0;
	default:
		return false;
	}
}

static bool str_is(enum fop op, const char *s, size_t n, const struct fvalue *v)
{
	switch (op) {
	case OP_EQ:
	case OP_IN:
		return n == v->len && memcmp(s, v->text, n) == 0;
	case OP_NE:
		return !(n == v->len && memcmp(s, v->text, n) == 0);
	case OP_CONTAINS:
		return v->len == 0 || memmem(s, n, v->text, v->len) != NULL;
	case OP_STARTSWITH:
		return n >= v->len && memcmp(s, v->text, v->len) == 0;
	case OP_ENDSWITH:
		return n >= v->len && memcmp(s + n - v->len, v->text, v->len) == 0;
	case OP_GLOB:
		return ps_filter_glob(v->text, v->len, s, n);
	default:
		return false;
	}
}

/* Any of the values (for "in"), else the one value. */
static bool num_cond(const struct fcond *c, uint64_t x, bool xs)
{
	size_t i;

	for (i = 0; i < c->nvalues; i++)
		if (num_is(c->op, x, xs, &c->values[i]))
			return true;
	return false;
}

static bool str_cond(const struct fcond *c, const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < c->nvalues; i++)
		if (str_is(c->op, s, n, &c->values[i]))
			return true;
	return false;
}

/*
 * An event's name as perf prints it may carry modifiers ("cpu-clock/call-graph=fp/",
 * "dummy:HG"); "=" and "in" also accept the name without them.
 */
static bool event_cond(const struct fcond *c, const struct ps_attr *a)
{
	const char *name = a->name;
	size_t n = strlen(name), base = n, i;

	if (c->op != OP_EQ && c->op != OP_NE && c->op != OP_IN)
		return str_cond(c, name, n);
	for (i = 0; i < n; i++) {
		if (name[i] == '/' || (name[i] == ':' && a->type != PERF_TYPE_TRACEPOINT)) {
			base = i;
			break;
		}
	}
	for (i = 0; i < c->nvalues; i++) {
		const struct fvalue *v = &c->values[i];
		bool eq = (v->len == n && memcmp(name, v->text, n) == 0) ||
		          (v->len == base && memcmp(name, v->text, base) == 0);

		if (c->op == OP_NE)
			return !eq;
		if (eq)
			return true;
	}
	return false;
}

/* A merged stream's input: "=", "!=" and "in" take its name or its number (from 1). */
static bool input_cond(const struct fcond *c, const struct ps_attr *a, uint32_t number)
{
	size_t n = strlen(a->input), i;

	if (c->op != OP_EQ && c->op != OP_NE && c->op != OP_IN)
		return str_cond(c, a->input, n);
	for (i = 0; i < c->nvalues; i++) {
		const struct fvalue *v = &c->values[i];
		bool eq = (v->len == n && memcmp(a->input, v->text, n) == 0) ||
		          (v->is_num && !v->neg && v->num == number);

		if (c->op == OP_NE)
			return !eq;
		if (eq)
			return true;
	}
	return false;
}

/* A number of @size bytes at @off in the raw data, sign-extended when @sgn. */
static bool raw_num(const struct ps_sample *smp, uint32_t off, uint32_t size, bool sgn, uint64_t *v)
{
	const unsigned char *p;

	if (!smp->raw || (uint64_t)off + size > smp->raw_size)
		return false;
	p = smp->raw + off;
	switch (size) {
	case 1:
		*v = sgn ? (uint64_t)ps_sign_extend(p[0], 1) : p[0];
		return true;
	case 2:
		*v = ps_get16(p, smp->swap);
		*v = sgn ? (uint64_t)ps_sign_extend(*v, 2) : *v;
		return true;
	case 4:
		*v = ps_get32(p, smp->swap);
		*v = sgn ? (uint64_t)ps_sign_extend(*v, 4) : *v;
		return true;
	case 8:
		*v = ps_get64(p, smp->swap);
		return true;
	default:
		return false;
	}
}

/* The string of a tracepoint field, in place. */
static bool raw_str(const struct ps_sample *smp, const struct fbind *b, const char **s, size_t *n)
{
	uint64_t loc;
	uint32_t off, len;

	if (!smp->raw || (uint64_t)b->offset + b->size > smp->raw_size)
		return false;
	if (b->kind == BK_TP_STR) {
		*s = (const char *)smp->raw + b->offset;
		*n = strnlen(*s, b->size);
		return true;
	}
	if (!raw_num(smp, b->offset, 4, false, &loc))
		return false;
	off = (uint32_t)loc & 0xffff;
	len = (uint32_t)loc >> 16;
	if (b->kind == BK_TP_REL)
		off += b->offset + 4;
	if ((uint64_t)off + len > smp->raw_size)
		return false;
	*s = (const char *)smp->raw + off;
	*n = strnlen(*s, len);
	return true;
}

static bool sample_num(const struct fcond *c, const struct ps_sample *smp, uint64_t *v)
{
	switch (c->field) {
	case FF_PID:
		*v = (uint64_t)(int64_t)(int32_t)smp->pid;
		return true;
	case FF_TID:
		*v = (uint64_t)(int64_t)(int32_t)smp->tid;
		return true;
	case FF_CPU:
		*v = smp->cpu;
		return true;
	case FF_TIME:
		*v = smp->time;
		return true;
	case FF_PERIOD:
		*v = (smp->type & PERF_SAMPLE_PERIOD) ? smp->period : smp->attr->sample_period;
		return true;
	case FF_IP:
		*v = smp->ip;
		return true;
	case FF_ADDR:
		*v = smp->addr;
		return true;
	case FF_STREAM_ID:
		*v = smp->stream_id;
		return true;
	default:
		return false;
	}
}

/*
 * The thread's name as perf script shows it: the name the side-band gave, "swapper" for
 * the idle thread, ":TID" for a thread never named.
 */
static const char *comm_of(const struct ps_session *s, const struct ps_sample *smp, char *buf,
                           size_t len)
{
	const char *comm = ps_session__comm(s, smp->tid);

	if (comm)
		return comm;
	if (smp->tid == 0)
		return "swapper";
	snprintf(buf, len, ":%d", (int)smp->tid);
	return buf;
}

/* sym, dso: "[unknown]" when unknown, as perf script prints them; stack: any frame */
static bool symbol_cond(const struct ps_filter *f, const struct fcond *c,
                        const struct ps_sample *smp)
{
	struct ps_frame fr[PS_SYMBOLS_MAX_STACK];
	struct ps_symbol sym = { 0 };
	const char *v;
	size_t n, i;

	if (c->field == FF_STACK && f->syms && (smp->type & PERF_SAMPLE_CALLCHAIN)) {
		n = ps_symbols__frames(f->syms, smp, fr, ARRAY_SIZE(fr));
		for (i = 0; i < n; i++) {
			v = fr[i].sym.name ? fr[i].sym.name : "[unknown]";
			if (str_cond(c, v, strlen(v)))
				return true;
		}
		return false;
	}
	if (f->syms)
		ps_symbols__sample(f->syms, smp, smp->misc, &sym);
	v = c->field == FF_DSO ? sym.dso : sym.name;
	if (!v)
		v = "[unknown]";
	return str_cond(c, v, strlen(v));
}

static bool text_op(enum fop op)
{
	return op == OP_CONTAINS || op == OP_STARTSWITH || op == OP_ENDSWITH || op == OP_GLOB;
}

static bool syscall_cond(const struct ps_filter *f, const struct fcond *c, const struct fbind *b,
                         const struct ps_sample *smp)
{
	const char *name = NULL;
	bool have_nr, name_ok = false;
	uint64_t nr = 0;
	size_t i;

	have_nr = b->size && raw_num(smp, b->offset, b->size, true, &nr);
	if (b->kind == BK_SYS_NAMED) {
		name = b->sysname;
		name_ok = true;
	}
	for (i = 0; i < c->nvalues; i++) {
		const struct fvalue *v = &c->values[i];
		bool r;

		if (v->is_num && !text_op(c->op)) {
			if (!have_nr)
				continue;
			r = num_is(c->op, nr, true, v);
		} else if (b->kind == BK_SYS_RAW &&
		           (c->op == OP_EQ || c->op == OP_NE || c->op == OP_IN)) {
			if (!have_nr)
				continue;
			r = (v->sysnr >= 0 && nr == (uint64_t)v->sysnr) != (c->op == OP_NE);
		} else {
			if (!name_ok && have_nr) {
				name = ps_syscall_name(f->arch[0] ? f->arch : NULL, (long)nr);
				name_ok = name != NULL;
			}
			if (!name_ok)
				continue;
			r = str_is(c->op, name, strlen(name), v);
		}
		if (r)
			return true;
	}
	return false;
}

/* errno: the error of a syscall exit that failed (ret in [-4095, -1]); absent otherwise. */
static bool errno_cond(const struct fcond *c, const struct fbind *b, const struct ps_sample *smp)
{
	const char *name;
	uint64_t raw;
	int64_t ret;
	size_t i;

	if (!raw_num(smp, b->offset, b->size, true, &raw))
		return false;
	ret = (int64_t)raw;
	if (ret >= 0 || ret < -4095)
		return false;
	if (c->op == OP_EXISTS)
		return true;
	name = strerrorname_np((int)-ret);
	for (i = 0; i < c->nvalues; i++) {
		const struct fvalue *v = &c->values[i];
		bool r;

		if (v->is_num && !text_op(c->op))
			r = num_is(c->op, (uint64_t)-ret, true, v);
		else if (c->op == OP_EQ || c->op == OP_NE || c->op == OP_IN)
			r = (v->sysnr == -ret) != (c->op == OP_NE);
		else if (name)
			r = str_is(c->op, name, strlen(name), v);
		else
			continue;
		if (r)
			return true;
	}
	return false;
}

/* A number printed through symbols or flags: numbers compare the number, words the text
 * perf prints (prev_state = D). */
static bool symbolic_cond(const struct fcond *c, const struct ps_sample *smp, uint64_t x, bool xs)
{
	char text[128];
	bool have_text = false, tried = false;
	size_t i;

	for (i = 0; i < c->nvalues; i++) {
		const struct fvalue *v = &c->values[i];

		if (v->is_num && !text_op(c->op)) {
			if (num_is(c->op, x, xs, v))
				return true;
			continue;
		}
		if (!tried) {
			tried = true;
			have_text = smp->attr->tp && ps_symbolic__text(smp->attr->tp, c->name, smp,
			                                               text, sizeof(text)) == 0;
		}
		if (have_text && str_is(c->op, text, strlen(text), v))
			return true;
	}
	return false;
}

/* comm: its answer depends on the tid and the names alone, so it is kept until either changes */
static bool comm_cond(struct fcond *c, const struct ps_session *s, const struct ps_sample *smp)
{
	uint64_t gen = ps_session__comm_gen(s);
	const char *str;
	char buf[24];

	if (c->memo_valid && c->memo_tid == smp->tid && c->memo_gen == gen)
		return c->memo_result;
	str = comm_of(s, smp, buf, sizeof(buf));
	c->memo_result = str_cond(c, str, strlen(str));
	c->memo_tid = smp->tid;
	c->memo_gen = gen;
	c->memo_valid = true;
	return c->memo_result;
}

static bool eval_cond(const struct ps_filter *f, struct fcond *c, const struct ps_session *s,
                      const struct ps_sample *smp)
{
	const struct fbind *b = &c->bind[smp->attr->idx];
	const char *str;
	uint64_t v;
	size_t n;

	if (b->kind == BK_ABSENT)
		return false;
	switch (b->kind) {
	case BK_EVENT:
		return c->op == OP_EXISTS || event_cond(c, smp->attr);
	case BK_INPUT:
		return c->op == OP_EXISTS || input_cond(c, smp->attr, b->offset);
	case BK_COMM:
		return c->op == OP_EXISTS || comm_cond(c, s, smp);
	case BK_SYMBOL:
		return c->op == OP_EXISTS || symbol_cond(f, c, smp);
	case BK_SAMPLE:
		if (c->op == OP_EXISTS)
			return true;
		return sample_num(c, smp, &v) && num_cond(c, v, b->is_signed);
	case BK_TP_NUM:
		if (!raw_num(smp, b->offset, b->size, b->is_signed, &v))
			return false;
		if (b->symbolic && c->op != OP_EXISTS)
			return symbolic_cond(c, smp, v, b->is_signed);
		return c->op == OP_EXISTS || num_cond(c, v, b->is_signed);
	case BK_TP_STR:
	case BK_TP_DYN:
	case BK_TP_REL:
		if (!raw_str(smp, b, &str, &n))
			return false;
		return c->op == OP_EXISTS || str_cond(c, str, n);
	case BK_SYS_RAW:
	case BK_SYS_NAMED:
		return c->op == OP_EXISTS || syscall_cond(f, c, b, smp);
	case BK_ERRNO:
		return errno_cond(c, b, smp);
	case BK_DUR:
		if (!ps_durations__value(smp, (int)b->offset, &v))
			return false;
		return c->op == OP_EXISTS || num_cond(c, v, false);
	default:
		return false;
	}
}

static bool eval(const struct ps_filter *f, const struct fnode *n, const struct ps_session *s,
                 const struct ps_sample *smp)
{
	switch (n->kind) {
	case FN_AND:
		return eval(f, n->a, s, smp) && eval(f, n->b, s, smp);
	case FN_OR:
		return eval(f, n->a, s, smp) || eval(f, n->b, s, smp);
	case FN_NOT:
		return !eval(f, n->a, s, smp);
	case FN_COND:
		return eval_cond(f, n->cond, s, smp);
	}
	return false;
}

int ps_filter__match(struct ps_filter *f, const struct ps_session *s, const struct ps_sample *smp)
{
	if (!f->root)
		return 1;
	if (!smp->attr)
		return 0;
	if (f->session != s || (size_t)smp->attr->idx >= f->nbound) {
		if (ps_filter_bind(f, s))
			return -1;
		if ((size_t)smp->attr->idx >= f->nbound)
			return 0;
	}
	return eval(f, f->root, s, smp);
}
