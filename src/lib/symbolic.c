// SPDX-License-Identifier: GPL-2.0-only
/*
 * symbolic.c - a field's value as perf prints it, for fields printed through
 * __print_symbolic or __print_flags.
 *
 * The i-th argument of an event's print format fills its i-th conversion.  A field is
 * symbolic when an argument that maps it through symbols or flags names it; its text is
 * what libtraceevent prints for the run of conversions that argument belongs to, cut out
 * of the rendered line between the literal texts of the format around that run.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>

#include "sample.h"
#include "symbolic.h"

#define MAX_DEPTH 32
#define MAX_PIECES 64

/*
 * Does @a use field @name: anywhere (@mapped false), or (@mapped true) as the field a flags
 * or symbol mapping maps?
 */
static bool has_field(const struct tep_print_arg *a, const char *name, bool mapped, int depth)
{
	if (!a || depth > MAX_DEPTH)
		return false;
	switch (a->type) {
	case TEP_PRINT_FIELD:
		return !mapped && a->field.name && strcmp(a->field.name, name) == 0;
	case TEP_PRINT_FLAGS:
		return mapped && has_field(a->flags.field, name, false, 0);
	case TEP_PRINT_SYMBOL:
		return mapped && has_field(a->symbol.field, name, false, 0);
	case TEP_PRINT_OP:
		return has_field(a->op.left, name, mapped, depth + 1) ||
		       has_field(a->op.right, name, mapped, depth + 1);
	case TEP_PRINT_TYPE:
		return has_field(a->typecast.item, name, mapped, depth + 1);
	default:
		return false;
	}
}

/* The index of the first print argument that maps @name, or -1. */
static int arg_index(const struct tep_event *ev, const char *name)
{
	const struct tep_print_arg *a;
	int i = 0;

	if (!ev || !name)
		return -1;
	for (a = ev->print_fmt.args; a && i < 256; a = a->next, i++)
		if (has_field(a, name, true, 0))
			return i;
	return -1;
}

bool ps_symbolic__has(const struct tep_event *event, const char *field)
{
	return arg_index(event, field) >= 0;
}

char *ps_symbolic__key(const char *field)
{
	size_t n = strlen(field);
	char *k = malloc(n + sizeof(PS_SYMBOLIC_SUFFIX));

	if (k) {
		memcpy(k, field, n);
		memcpy(k + n, PS_SYMBOLIC_SUFFIX, sizeof(PS_SYMBOLIC_SUFFIX));
	}
	return k;
}

bool ps_symbolic__json_field(const struct tep_event *event, const struct tep_format_field *f)
{
	const struct tep_format_field *g;
	size_t n = strlen(f->name), sl = strlen(PS_SYMBOLIC_SUFFIX);

	if (f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC | TEP_FIELD_IS_STRING))
		return false;
	if (!ps_symbolic__has(event, f->name))
		return false;
	for (g = event->format.fields; g; g = g->next)
		if (strlen(g->name) == n + sl && strncmp(g->name, f->name, n) == 0 &&
		    strcmp(g->name + n, PS_SYMBOLIC_SUFFIX) == 0)
			return false;
	return true;
}

/*
 * The format as literal pieces and runs of conversions: lit[0] run[0] lit[1] ... run[n-1]
 * lit[n].  @conv_run gets, for conversion i, its run.  Return: the number of runs, or -1.
 */
struct pieces {
	const char *lit[MAX_PIECES + 1];
	size_t litlen[MAX_PIECES + 1];
	int conv_run[256];
	int nconv;
	int nruns;
};

static int split_format(const char *f, struct pieces *p)
{
	const char *lit = f;
	bool in_run = false;

	memset(p, 0, sizeof(*p));
	while (*f) {
		if (f[0] == '%' && f[1] == '%') {
			f += 2;
			in_run = false;
			continue;
		}
		if (f[0] != '%') {
			f++;
			in_run = false;
			continue;
		}
		/* a conversion: ends at its conversion letter; %p takes the letters after it */
		if (!in_run) {
			if (p->nruns >= MAX_PIECES)
				return -1;
			p->lit[p->nruns] = lit;
			p->litlen[p->nruns] = (size_t)(f - lit);
			p->nruns++;
			in_run = true;
		}
		f++;
		while (*f && strchr("-+ #0123456789.*hlLzjt", *f))
			f++;
		if (!*f)
			return -1;
		if (*f == 'p')
			while (f[1] &&
			       ((f[1] >= 'a' && f[1] <= 'z') || (f[1] >= 'A' && f[1] <= 'Z') ||
			        (f[1] >= '0' && f[1] <= '9')))
				f++;
		f++;
		if (p->nconv >= 256)
			return -1;
		p->conv_run[p->nconv++] = p->nruns - 1;
		lit = f;
	}
	p->lit[p->nruns] = lit;
	p->litlen[p->nruns] = strlen(lit);
	return p->nruns;
}

/* The text of run @run in the rendered line @out, by the literals around the runs. */
static int cut_run(const char *out, const struct pieces *p, int run, char *buf, size_t len)
{
	const char *pos = out, *end;
	int i;

	if (strncmp(pos, p->lit[0], p->litlen[0]) != 0)
		return -1;
	pos += p->litlen[0];
	for (i = 0; i <= run; i++) {
		const char *next = p->lit[i + 1];
		size_t nlen = p->litlen[i + 1];

		if (!nlen)
			end = i + 1 == p->nruns ? pos + strlen(pos) : NULL;
		else if (i + 1 == p->nruns) /* the last literal ends the line */
			end = strlen(pos) >= nlen &&
			                      strncmp(pos + strlen(pos) - nlen, next, nlen) == 0 ?
			              pos + strlen(pos) - nlen :
			              NULL;
		else
			end = memmem(pos, strlen(pos), next, nlen);
		if (!end)
			return -1;
		if (i == run) {
			size_t n = (size_t)(end - pos) < len - 1 ? (size_t)(end - pos) : len - 1;

			memcpy(buf, pos, n);
			buf[n] = 0;
			return 0;
		}
		pos = end + nlen;
	}
	return -1;
}

int ps_symbolic__text(struct tep_event *event, const char *field, const struct ps_sample *smp,
                      char *buf, size_t len)
{
	int idx = arg_index(event, field), r = -1;
	struct tep_record rec;
	struct trace_seq seq;
	struct pieces *p;

	if (idx < 0 || !len || !smp->raw || !smp->raw_size || !event->print_fmt.format)
		return -1;
	p = malloc(sizeof(*p));
	if (!p)
		return -1;
	if (split_format(event->print_fmt.format, p) < 0 || idx >= p->nconv) {
		free(p);
		return -1;
	}
	memset(&rec, 0, sizeof(rec));
	rec.ts = smp->time;
	rec.size = (int)smp->raw_size;
	rec.record_size = (int)smp->raw_size;
	rec.data = (void *)smp->raw;
	rec.cpu = (int)smp->cpu;
	trace_seq_init(&seq);
	tep_print_event(event->tep, &seq, &rec, "%s", TEP_PRINT_INFO);
	trace_seq_terminate(&seq);
	if (seq.state == TRACE_SEQ__GOOD && seq.buffer)
		r = cut_run(seq.buffer, p, p->conv_run[idx], buf, len);
	trace_seq_destroy(&seq);
	free(p);
	return r;
}
