// SPDX-License-Identifier: GPL-2.0-only
/*
 * reader.c - the reading driver (reader.h): input, time-order view, arrival queue, symbol
 * tables and progress behind one pull iterator.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arrival.h"
#include "durations.h"
#include "input.h"
#include "order.h"
#include "progress.h"
#include "reader.h"
#include "record.h"
#include "session.h"
#include "signals.h"
#include "symbols.h"

/* ARRIVAL: bytes of records the arrival queue may hold before the time order is forced */
#define QUEUE_CAP (64u << 20)
/* ARRIVAL: a record this large that must wait is taken over from the input, not copied */
#define DETACH_MIN (1u << 20)

enum verdict {
	V_NONE,
	V_ORDERED, /* a sample from the view: its queued entry gets its fate */
	V_DIRECT,  /* a sample as read (unordered): rd->cur, still in the input's buffer */
};

struct ps_reader {
	struct ps_reader_opts o;
	struct ps_input *in;
	struct ps_session *s;
	struct ps_order *ord;
	struct ps_arrival *q; /* ARRIVAL with write */
	struct ps_symbols *syms;
	struct ps_progress *prog;
	struct ps_durations *dur;
	uint64_t nr_samples;
	const char *line; /* a progress line due */
	bool erased;      /* the progress line was erased at the end */
	bool header;      /* HEADER given (and not refused) */
	bool have_cur;    /* cur is read, waiting for the HEADER given before it */
	struct ps_record cur;
	int end; /* 0 reading, 1 the input ended, -1 it failed (err) */
	struct ps_error err;
	struct ps_error scratch; /* filled by a failing call: 1 KiB not cleared per record */
	bool idle, tick;         /* an IDLE, a TICK to give once what was released is out */
	bool tentative;          /* a HEADER on idle to give (ARRIVAL) */
	enum verdict verdict;
	bool dropped;
	uint64_t vseq;
	bool pop_write; /* the last WRITE was the queue's first entry */
	uint64_t stop_seq;
	char note[512];
	bool have_note;
	bool plain_time; /* time order with no meter and no ticks: see the read loop */
};

/* The duration fields (durations.h) of a sample handed out. */
static void enrich(struct ps_reader *rd, struct ps_reader_event *ev)
{
	if (!rd->o.no_durations)
		ps_durations__sample(rd->dur, rd->s, &ev->smp);
}

static int nomem(struct ps_error *err)
{
	return ps_error__set(err, PS_ENOMEM, NULL, PS_NO_OFFSET, "out of memory");
}

struct ps_reader *ps_reader__open(const struct ps_reader_opts *o, struct ps_error *err)
{
	struct ps_reader *rd = calloc(1, sizeof(*rd));

	if (!rd) {
		nomem(err);
		return NULL;
	}
	rd->o = *o;
	rd->stop_seq = UINT64_MAX;
	rd->in = o->fd_name ? ps_input__open_fd(o->fd, o->fd_name, o->input_flags, err) :
	                      ps_input__open(o->path, o->input_flags, err);
	if (!rd->in) {
		free(rd);
		return NULL;
	}
	rd->s = ps_input__session(rd->in);
	rd->dur = ps_durations__new(o->pairs, o->npairs, err);
	if (!rd->dur) {
		ps_input__close(rd->in);
		free(rd);
		return NULL;
	}
	ps_session__set_durations(rd->s, rd->dur);
	if (o->idle_ms)
		ps_input__set_idle(rd->in, o->idle_ms);
	if (o->symbols && !(rd->syms = ps_symbols__new(rd->s, o->sym, err)))
		goto fail;
	if (o->mode == PS_READER_TIME || (o->mode == PS_READER_ARRIVAL && !o->unordered)) {
		rd->ord = ps_order__new(rd->s, o->order_cap);
		if (!rd->ord)
			goto fail_nomem;
	}
	if (o->mode == PS_READER_ARRIVAL && o->write && !(rd->q = ps_arrival__new(rd->ord)))
		goto fail_nomem;
	if (o->progress)
		rd->prog = ps_progress__new(o->path, o->stdout_busy);
	rd->plain_time = o->mode == PS_READER_TIME && !rd->prog && !o->ticks;
	return rd;
fail_nomem:
	nomem(err);
fail:
	ps_reader__close(rd);
	return NULL;
}

void ps_reader__close(struct ps_reader *rd)
{
	if (!rd)
		return;
	ps_arrival__delete(rd->q); /* before the view: it unpins there */
	ps_order__delete(rd->ord);
	ps_symbols__delete(rd->syms);
	ps_progress__delete(rd->prog);
	ps_input__close(rd->in);
	ps_durations__delete(rd->dur);
	free(rd);
}

struct ps_session *ps_reader__session(struct ps_reader *rd)
{
	return rd->s;
}

struct ps_symbols *ps_reader__symbols(struct ps_reader *rd)
{
	return rd->syms;
}

const char *ps_reader__name(const struct ps_reader *rd)
{
	return ps_input__name(rd->in);
}

bool ps_reader__swapped(const struct ps_reader *rd)
{
	return ps_input__swapped(rd->in);
}

uint64_t ps_reader__done_offset(const struct ps_reader *rd)
{
	/* cur is the record read last: whatever came before it is out or still held */
	uint64_t done = rd->cur.offset; /* 0 before the first */
	uint64_t held;

	if (rd->ord && (held = ps_order__oldest_offset(rd->ord)) < done)
		done = held;
	return done;
}

void ps_reader__set_wait_hook(struct ps_reader *rd, void (*fn)(void *), void *arg)
{
	ps_input__set_wait_hook(rd->in, fn, arg);
}

const char *ps_reader__progress_waiting(struct ps_reader *rd)
{
	return rd->prog ? ps_progress__waiting(rd->prog) : NULL;
}

void ps_reader__drop(struct ps_reader *rd)
{
	rd->dropped = true;
}

void ps_reader__not_yet(struct ps_reader *rd)
{
	rd->header = false;
}

/* The input ended (@e NULL) or failed: everything held is released, nothing more read. */
static void finish(struct ps_reader *rd, const struct ps_error *e)
{
	if (e && rd->end >= 0) {
		rd->err = *e;
		rd->end = -1;
	} else if (!rd->end) {
		rd->end = 1;
	}
	rd->have_cur = false;
	if (rd->ord)
		ps_order__end(rd->ord);
}

/* The header is complete once this record has come: given before it is handled. */
static bool header_moment(const struct ps_record *rec)
{
	return rec->type == PERF_RECORD_SAMPLE || rec->type == PS_RECORD_FINISHED_INIT ||
	       rec->type == PS_RECORD_COMPRESSED;
}

/* Decode a SAMPLE into @ev; -1 when it cannot be (the reading ends). */
static int sample_event(struct ps_reader *rd, const struct ps_record *rec,
                        const struct ps_attr *attr, struct ps_reader_event *ev)
{
	struct ps_error *e = &rd->scratch;

	if (ps_sample__parse_attr(rd->s, rec, attr, &ev->smp, ps_input__name(rd->in), e) < 0) {
		/* ARRIVAL: nothing from this sample on is written */
		if (rec->seq < rd->stop_seq)
			rd->stop_seq = rec->seq;
		finish(rd, e);
		return -1;
	}
	/* the test in front spares a call per sample: only undecoded tracepoints say more */
	if (ev->smp.attr->type == PERF_TYPE_TRACEPOINT && !ev->smp.attr->tp) {
		char note[400];

		if (ps_session__tracing_notice(rd->s, ev->smp.attr, note, sizeof(note))) {
			snprintf(rd->note, sizeof(rd->note), "%s: %s", ps_input__name(rd->in),
			         note);
			rd->have_note = true;
		}
	}
	ev->kind = PS_READER_SAMPLE;
	ev->rec = *rec;
	enrich(rd, ev);
	return 0;
}

/* The fate of the sample handed out last (ARRIVAL); 1 when it is to be written now. */
static int settle(struct ps_reader *rd, struct ps_reader_event *ev)
{
	enum verdict v = rd->verdict;
	bool keep = !rd->dropped;

	rd->verdict = V_NONE;
	rd->dropped = false;
	if (v == V_ORDERED) {
		if (rd->q)
			ps_arrival__decide(rd->q, rd->vseq, keep);
		return 0;
	}
	if (!rd->q)
		return 0;
	if (rd->header && !ps_arrival__len(rd->q)) {
		if (!keep)
			return 0;
		ev->kind = PS_READER_WRITE;
		ev->rec = rd->cur;
		return 1;
	}
	if (ps_arrival__push(rd->q, &rd->cur, NULL, NULL,
	                     keep ? PS_ARRIVAL_KEEP : PS_ARRIVAL_DROP) < 0) {
		struct ps_error *e = &rd->scratch;

		nomem(e);
		finish(rd, e);
	}
	return 0;
}

/*
 * ARRIVAL: take one record read.  Return 1 with an event in @ev (a sample to decide or a
 * record to write now), 0 when it was queued, -1 on error (the reading ends).
 */
static int arrive(struct ps_reader *rd, const struct ps_record *rec, struct ps_reader_event *ev)
{
	enum ps_record_class cls = ps_record_type_class(rec->type);
	enum ps_arrival_state st = PS_ARRIVAL_KEEP;
	const unsigned char *pinned = NULL;
	struct ps_error *e = &rd->scratch;
	void *owned = NULL;
	bool queue;

	if (rec->type == PERF_RECORD_SAMPLE) {
		if (!rd->ord) {
			if (sample_event(rd, rec, NULL, ev) < 0)
				return -1;
			rd->cur = *rec;
			rd->verdict = V_DIRECT;
			return 1;
		}
		st = PS_ARRIVAL_PENDING;
	} else if (rd->o.drop_sideband && cls == PS_CLASS_SIDEBAND) {
		st = PS_ARRIVAL_DROP;
	}
	/* written at once when nothing waits before it and its fate is known; else queued */
	queue = rd->q && (!rd->header || ps_arrival__len(rd->q) || st == PS_ARRIVAL_PENDING);
	/* an AUXTRACE record has no time and nothing to decide: the view is not given its
	 * payload (up to 256 MiB) to copy */
	if (rd->ord && cls != PS_CLASS_HEADER && rec->type != PS_RECORD_AUXTRACE) {
		if (queue) {
			pinned = ps_order__push_pinned(rd->ord, rec, e);
			if (!pinned)
				goto fail;
		} else if (ps_order__push(rd->ord, rec, e) < 0) {
			goto fail;
		}
	}
	if (rd->syms && (!rd->ord || rec->type == PS_RECORD_HEADER_BUILD_ID))
		ps_symbols__process(rd->syms, rec); /* which files name the samples */
	if (rd->q) {
		if (!queue) {
			if (st != PS_ARRIVAL_KEEP)
				return 0;
			ev->kind = PS_READER_WRITE;
			ev->rec = *rec;
			return 1;
		}
		/* a large record waits where the input read it: taken over, not copied */
		if (!pinned && rec->len >= DETACH_MIN)
			owned = ps_input__detach(rd->in, rec);
		if (ps_arrival__push(rd->q, rec, pinned, owned, st) < 0) {
			if (pinned)
				ps_order__unpin(rd->ord, pinned);
			free(owned);
			nomem(e);
			goto fail;
		}
		if (rd->ord && ps_arrival__bytes(rd->q) > QUEUE_CAP)
			ps_order__flush_all(rd->ord);
	}
	return 0;
fail:
	finish(rd, e);
	return -1;
}

/* A record from the view: 1 with an event in @ev, 0 when it makes none. */
static int released(struct ps_reader *rd, const struct ps_record *rec, struct ps_reader_event *ev)
{
	if (rd->syms)
		ps_symbols__process(rd->syms, rec);
	if (rec->type != PERF_RECORD_SAMPLE) {
		if (!rd->o.no_durations)
			ps_durations__record(rd->dur, rd->s, rec);
		if (rd->o.mode == PS_READER_ARRIVAL)
			return 0;
		ev->kind = PS_READER_RECORD;
		ev->rec = *rec;
		return 1;
	}
	if (rec->seq >= rd->stop_seq)
		return 0;
	if (sample_event(rd, rec, ps_order__attr(rd->ord), ev) < 0)
		return 0; /* not handed out; the rest still is */
	if (rd->o.mode == PS_READER_ARRIVAL) {
		rd->verdict = V_ORDERED;
		rd->vseq = rec->seq;
	}
	return 1;
}

/* The notices of the records handed out: after them, as the mains printed them. */
static const char *take_notice(struct ps_reader *rd)
{
	const char *n;

	if (rd->syms && (n = ps_symbols__take_notice(rd->syms)))
		return n; /* a file refused, a table not kept: once each */
	if (rd->ord && ps_order__take_overflow_notice(rd->ord)) {
		snprintf(rd->note, sizeof(rd->note),
		         "more than %zu MiB of records held for time order: released early",
		         (rd->o.order_cap ? rd->o.order_cap : PS_ORDER_DEFAULT_CAP) >> 20);
		return rd->note;
	}
	return NULL;
}

int ps_reader__next(struct ps_reader *rd, struct ps_reader_event *ev, struct ps_error *err)
{
	struct ps_error *e = &rd->scratch;
	const char *n;
	int r;

	/* only what each kind of event says is set: a sample is 320 bytes not cleared;
	 * what only arrival order has is tested behind one test of the mode */
	if (rd->o.mode == PS_READER_ARRIVAL) {
		if (rd->pop_write) {
			rd->pop_write = false;
			ps_arrival__pop(rd->q);
		}
		if (rd->verdict != V_NONE && settle(rd, ev))
			return 1;
	}
	for (;;) {
		/* a sample's own notice (its fields cannot be decoded) right after it */
		if (rd->have_note) {
			rd->have_note = false;
			ev->kind = PS_READER_NOTICE;
			ev->text = rd->note;
			return 1;
		}
		if (rd->o.mode == PS_READER_ARRIVAL) {
			/* the records whose fate is known, in arrival order */
			while (rd->q && rd->header &&
			       (r = ps_arrival__first(rd->q, &ev->rec)) > 0) {
				if (r == 1 && ev->rec.seq < rd->stop_seq) {
					ev->kind = PS_READER_WRITE;
					rd->pop_write = true;
					return 1;
				}
				ps_arrival__pop(rd->q);
			}
			if (rd->tentative) {
				rd->tentative = false;
				if (!rd->header && ps_session__nr_attrs(rd->s)) {
					rd->header = true;
					ev->kind = PS_READER_HEADER;
					ev->final = ev->at_end = false;
					return 1;
				}
			}
		}
		if (rd->ord) {
			struct ps_record rec;

			while (ps_order__pop(rd->ord, &rec) > 0)
				if (released(rd, &rec, ev))
					return 1;
		}
		if ((n = take_notice(rd))) {
			ev->kind = PS_READER_NOTICE;
			ev->text = n;
			return 1;
		}
		if (rd->line) {
			ev->kind = PS_READER_PROGRESS;
			ev->text = rd->line;
			rd->line = NULL;
			return 1;
		}
		if (rd->idle || rd->tick) {
			ev->kind = rd->idle ? PS_READER_IDLE : PS_READER_TICK;
			rd->idle = rd->tick = false;
			return 1;
		}
		if (rd->end) {
			if (rd->prog && !rd->erased) {
				rd->erased = true;
				ev->kind = PS_READER_PROGRESS;
				ev->text = NULL;
				return 1;
			}
			/* a program that writes the stream writes what was read even after an
			 * error: it must have begun */
			if (!rd->header && (rd->end > 0 || rd->o.mode == PS_READER_ARRIVAL)) {
				rd->header = true;
				ev->kind = PS_READER_HEADER;
				ev->final = ev->at_end = true;
				return 1;
			}
			if ((n = ps_durations__take_notice(rd->dur))) {
				ev->kind = PS_READER_NOTICE;
				ev->text = n;
				return 1;
			}
			if (rd->end < 0) {
				*err = rd->err;
				return -1;
			}
			return 0;
		}
read:
		if (!rd->have_cur) {
			if (ps_stop) {
				finish(rd, NULL);
				continue;
			}
			r = ps_input__next(rd->in, &rd->cur, e);
			/* time order once the header is out, no meter and no ticks: a record
			 * goes to the view at once, and when it released nothing (most wait
			 * for their round) the next is read */
			if (r == 1 && rd->plain_time && rd->header) {
				r = ps_order__push(rd->ord, &rd->cur, e);
				if (r < 0)
					finish(rd, e);
				else if (!r)
					goto read;
				continue;
			}
			if (r <= 0) {
				finish(rd, r < 0 ? e : NULL);
				continue;
			}
			if (r == PS_INPUT_IDLE) {
				if (rd->ord)
					ps_order__flush_all(rd->ord);
				rd->idle = true;
				rd->tentative = rd->o.mode == PS_READER_ARRIVAL && !rd->header;
				continue;
			}
			rd->have_cur = true;
			if (rd->prog) {
				rd->nr_samples += rd->cur.type == PERF_RECORD_SAMPLE;
				rd->line =
				        ps_progress__tick(rd->prog, rd->cur.offset, rd->nr_samples);
			}
		}
		if (!rd->header && header_moment(&rd->cur)) {
			rd->header = true;
			ev->kind = PS_READER_HEADER;
			ev->final = true;
			ev->at_end = false;
			return 1;
		}
		rd->have_cur = false;
		rd->tick = rd->o.ticks;
		if (rd->o.mode == PS_READER_ARRIVAL) {
			r = arrive(rd, &rd->cur, ev);
			if (r > 0)
				return 1;
			/* queued behind what waits, nothing released: as in time order below */
			if (!r && rd->ord && !ps_order__ready(rd->ord) && !rd->line && !rd->tick)
				goto read;
			continue;
		}
		if (rd->ord) {
			r = ps_order__push(rd->ord, &rd->cur, e);
			if (r < 0)
				finish(rd, e);
			/* most records wait for their round: when this one released nothing,
			 * nothing above has changed but what is checked here, and the next
			 * record is read at once */
			else if (!r && !rd->line && !rd->tick)
				goto read;
			continue;
		}
		/* AS_READ */
		if (rd->syms)
			ps_symbols__process(rd->syms, &rd->cur);
		if (rd->cur.type != PERF_RECORD_SAMPLE) {
			if (!rd->o.no_durations)
				ps_durations__record(rd->dur, rd->s, &rd->cur);
			ev->kind = PS_READER_RECORD;
			ev->rec = rd->cur;
			return 1;
		}
		if (sample_event(rd, &rd->cur, NULL, ev) == 0)
			return 1;
	}
}
