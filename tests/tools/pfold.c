// SPDX-License-Identifier: GPL-2.0-only
/*
 * pfold - print every sample of a stream as its folded stack (ps_symbols__fold()), one
 * line per sample, in time order: a test program for the symbol module, whose lines, once
 * counted, tests/symbols.bats compares with perf's stackcollapse script.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/diag.h"
#include "lib/input.h"
#include "lib/order.h"
#include "lib/sample.h"
#include "lib/session.h"
#include "lib/symbols.h"

static int drain(struct ps_order *ord, struct ps_session *s, struct ps_symbols *st,
                 struct ps_fold_buf *fb, const char *name, struct ps_error *err)
{
	struct ps_record rec;
	struct ps_sample smp;

	while (ps_order__pop(ord, &rec) > 0) {
		ps_symbols__process(st, &rec);
		if (rec.type != PERF_RECORD_SAMPLE)
			continue;
		if (ps_sample__parse(s, &rec, &smp, name, err) < 0)
			return -1;
		if (ps_symbols__fold(st, &smp, rec.misc,
		                     (smp.type & PERF_SAMPLE_TID) ? ps_session__comm(s, smp.tid) :
		                                                    NULL,
		                     fb, err) < 0)
			return -1;
		puts(fb->buf);
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct ps_error err = { 0 };
	struct ps_fold_buf fb = { 0 };
	struct ps_symbols *st;
	struct ps_session *s;
	struct ps_order *ord;
	struct ps_record rec;
	struct ps_input *in;
	int r;

	ps_progname = "pfold";
	in = ps_input__open(argc > 1 ? argv[1] : "-", PS_INPUT_DECOMPRESS, &err);
	if (!in)
		ps_die(&err);
	s = ps_input__session(in);
	st = ps_symbols__new(s, NULL, &err);
	ord = ps_order__new(s, 0);
	if (!st || !ord)
		ps_die(&err);
	while ((r = ps_input__next(in, &rec, &err)) > 0) {
		if (ps_order__push(ord, &rec, &err) < 0 ||
		    drain(ord, s, st, &fb, ps_input__name(in), &err) < 0)
			ps_die(&err);
	}
	ps_order__end(ord);
	if (r < 0 || drain(ord, s, st, &fb, ps_input__name(in), &err) < 0)
		ps_die(&err);
	ps_order__delete(ord);
	ps_symbols__delete(st);
	ps_input__close(in);
	free(fb.buf);
	return 0;
}
