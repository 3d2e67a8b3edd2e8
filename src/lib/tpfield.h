/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * tpfield.h - how a tracepoint field's value is read from a sample's RAW data, as ptojson
 * writes it: a number (ps_get_num(), as tep_read_number() reads it), a string or an array,
 * at a fixed place or through a __data_loc or __rel_loc word.  Prepared once per event
 * (ps_tp_field__init), read per sample (the writers' hot path: static inline):
 * sample_writer.c and rowbinary.c.
 */
#ifndef PS_TPFIELD_H
#define PS_TPFIELD_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <traceevent/event-parse.h>

#include "compat.h"
#include "session.h"

enum ps_tp_kind {
	PS_TP_NUMBER,
	PS_TP_STRING, /* text up to its first NUL */
	PS_TP_ARRAY,  /* of numbers of @elem bytes */
};

struct ps_tp_field {
	enum ps_tp_kind kind;
	unsigned int off, len, elem;
	bool dynamic, relative, sign, pointer;
};

/* @t as @f's format says: char arrays are strings, elements of 1, 2, 4 or 8 bytes */
static inline void ps_tp_field__init(struct ps_tp_field *t, const struct tep_format_field *f)
{
	t->off = (unsigned int)f->offset;
	t->len = (unsigned int)f->size;
	t->dynamic = f->flags & TEP_FIELD_IS_DYNAMIC;
	t->relative = f->flags & TEP_FIELD_IS_RELATIVE;
	t->sign = f->flags & TEP_FIELD_IS_SIGNED;
	t->pointer = f->flags & TEP_FIELD_IS_POINTER;
	if ((f->flags & TEP_FIELD_IS_STRING) ||
	    ((f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC)) && strstr(f->type, "char")))
		t->kind = PS_TP_STRING;
	else if (!(f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC)))
		t->kind = PS_TP_NUMBER;
	else
		t->kind = PS_TP_ARRAY;
	t->elem = f->elementsize ? (unsigned int)f->elementsize : 1;
	if (t->elem != 1 && t->elem != 2 && t->elem != 4 && t->elem != 8)
		t->elem = 1;
}

/*
 * ps_tp_field__locate() - where @t's value is in @raw of @size bytes: @*off and @*len.
 * Return: false when it (or, for a dynamic field, its location word) lies outside.
 */
static inline bool ps_tp_field__locate(const struct ps_tp_field *t, const unsigned char *raw,
                                       uint32_t size, bool swap, unsigned int *off,
                                       unsigned int *len)
{
	uint32_t loc;

	*off = t->off;
	*len = t->len;
	if ((uint64_t)*off + *len > size)
		return false;
	if (!t->dynamic)
		return true;
	loc = (uint32_t)ps_get_num(raw + *off, 4, swap);
	if (*len < 4) /* tep_read_number reads 4 bytes whatever the size */
		loc = 0;
	if (t->relative)
		*off = *off + *len + (loc & 0xffff);
	else
		*off = loc & 0xffff;
	*len = loc >> 16;
	return (uint64_t)*off + *len <= size;
}

/*
 * struct ps_tp_event - the head of what a writer prepares once for an event's samples: good
 * while the attr keeps the name and the format it was prepared for.
 */
struct ps_tp_event {
	bool ready;
	char *name; /* the attr's name it was built for */
	const struct tep_event *tp;
};

/* whether @h, prepared before, still serves the samples of @a */
static inline bool ps_tp_event__serves(const struct ps_tp_event *h, const struct ps_attr *a)
{
	return h->ready && h->tp == a->tp && strcmp(h->name, a->name) == 0;
}

#endif
