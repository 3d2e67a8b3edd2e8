/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * reader.h - the reading driver: one pull iterator over a stream for every analysing
 * program, the layer perf has in perf_session__process_events() and trace-cmd in
 * tracecmd_iterate_events().
 *
 * The reader owns the input, the time-order view (order.h), the arrival queue
 * (arrival.h), the symbol tables and the progress meter.  It hands out:
 *
 * - records in time order (PS_READER_TIME), as read (PS_READER_AS_READ), or, for a
 *   program that writes the stream in its original order once each sample is decided
 *   (PS_READER_ARRIVAL), samples in time order and the records to write in arrival order;
 * - samples already decoded, with the attr the view found at push, and their duration
 *   fields (durations.h: latency, the sched times, off_cpu, the user's pairs) worked out
 *   in the order handed out;
 * - side-band applied to the session and the symbol tables before the samples that follow;
 * - one "header complete" moment: FINISHED_INIT, the first SAMPLE or COMPRESSED record, or
 *   the end of the stream; given before the record that makes it;
 * - idle (the input was quiet for the idle time; what was held is released first);
 * - one-time notices as text (the durations' dropped starts at the end) (the library prints nothing: ps_show_event() in diag.h does);
 * - the progress line;
 * - the contract's ending: everything read is handed out, then the error.
 *
 * The canonical loop:
 *
 *	while ((n = ps_reader__next(rd, &ev, &err)) > 0)
 *		switch (ev.kind) {
 *		case PS_READER_HEADER: ...check options against the stream...; break;
 *		case PS_READER_SAMPLE: ...ev.smp...; break;
 *		default: ps_show_event(&ev);
 *		}
 */
#ifndef PS_READER_H
#define PS_READER_H

#include <stdbool.h>
#include <stddef.h>

#include "error.h"
#include "record.h"
#include "sample.h"

struct ps_reader;
struct ps_session;
struct ps_symbols;
struct ps_symbols_opts;

enum ps_reader_mode {
	PS_READER_TIME,    /* every record in time order (order.h) */
	PS_READER_ARRIVAL, /* samples decided in time order, records written in arrival order */
	PS_READER_AS_READ, /* every record as it is read */
};

enum ps_reader_kind {
	PS_READER_RECORD = 1, /* a record other than SAMPLE (TIME, AS_READ): ev.rec */
	PS_READER_SAMPLE,     /* ev.rec, decoded in ev.smp; ARRIVAL: kept unless dropped */
	PS_READER_HEADER,     /* once: the header records are in (ev.final, ev.at_end) */
	PS_READER_IDLE,       /* nothing arrived for the idle time; what was held is out */
	PS_READER_TICK,       /* (opts.ticks) a record was read and what it released is out */
	PS_READER_WRITE,      /* ARRIVAL with opts.write: ev.rec, to write now */
	PS_READER_NOTICE,     /* ev.text: a one-time notice for the user */
	PS_READER_PROGRESS,   /* ev.text: the progress line to show; NULL: erase it */
};

struct ps_reader_opts {
	const char *path;    /* "-" or NULL: standard input */
	const char *fd_name; /* set: read descriptor fd (not closed) as fd_name */
	int fd;
	enum ps_reader_mode mode;          /* PS_READER_TIME when 0 */
	unsigned int input_flags;          /* PS_INPUT_* */
	int idle_ms;                       /* PS_READER_IDLE after this many quiet ms; 0: never */
	size_t order_cap;                  /* the view's memory cap; 0: PS_ORDER_DEFAULT_CAP */
	bool symbols;                      /* keep symbol tables (ps_reader__symbols()) */
	const struct ps_symbols_opts *sym; /* their options, or NULL */
	bool progress;                     /* a progress line for a large file */
	bool stdout_busy;         /* ps_progress__new()'s: output goes to standard output */
	bool ticks;               /* PS_READER_TICK after every record read */
	const char *const *pairs; /* --pair specs of durations.h, or NULL */
	size_t npairs;
	bool no_durations; /* no duration values worked out: the program reads none
	                    * (ps_durations__named() tells) */
	/* ARRIVAL only: */
	bool unordered;     /* samples decided as they are read, no time-order view */
	bool write;         /* PS_READER_WRITE events: the records to write */
	bool drop_sideband; /* side-band records are not written */
};

struct ps_reader_event {
	enum ps_reader_kind kind;
	struct ps_record rec; /* RECORD, SAMPLE, WRITE: valid until the next call */
	struct ps_sample smp; /* SAMPLE */
	const char *text;     /* NOTICE, PROGRESS */
	bool final;           /* HEADER: false when given on idle (ARRIVAL): may be refused */
	bool at_end;          /* HEADER: given at the end, no FINISHED_INIT nor sample came */
};

/**
 * ps_reader__open() - open @o->path and everything reading it takes.
 * @err: filled on failure (as ps_input__open(), or out of memory, or the symbol tables')
 * Return: the reader, or NULL.
 */
struct ps_reader *ps_reader__open(const struct ps_reader_opts *o, struct ps_error *err);

/**
 * ps_reader__next() - the next event.
 * Return: 1 with an event in @ev, 0 at the end (everything read was handed out), -1 on
 * error (@err says what and where), after everything read before it was handed out.  A
 * stop request (signals.h) ends the reading as the end of the input does.
 */
int ps_reader__next(struct ps_reader *rd, struct ps_reader_event *ev, struct ps_error *err);

/**
 * ps_reader__drop() - ARRIVAL: the sample handed out last is not written.
 */
void ps_reader__drop(struct ps_reader *rd);

/**
 * ps_reader__not_yet() - a HEADER given with ev.final false is refused: the header may not
 * be complete; it is given again later.
 */
void ps_reader__not_yet(struct ps_reader *rd);

/** ps_reader__close() - release everything; NULL is allowed. */
void ps_reader__close(struct ps_reader *rd);

/** ps_reader__session() - what the header records read so far said. */
struct ps_session *ps_reader__session(struct ps_reader *rd);

/** ps_reader__symbols() - the symbol tables, or NULL without opts.symbols. */
struct ps_symbols *ps_reader__symbols(struct ps_reader *rd);

/** ps_reader__name() - the input's name as used in messages. */
const char *ps_reader__name(const struct ps_reader *rd);

/** ps_reader__swapped() - true when the input's byte order is not the host's. */
bool ps_reader__swapped(const struct ps_reader *rd);

/**
 * ps_reader__done_offset() - every record the input holds below this offset was handed
 * out (a record made of a COMPRESSED record's bytes counts at that record's offset): what
 * a program that acknowledges its input upstream may acknowledge once it has dealt with
 * the events it was given.  Conservative: records above it may have been handed out too.
 */
uint64_t ps_reader__done_offset(const struct ps_reader *rd);

/** ps_reader__set_wait_hook() - ps_input__set_wait_hook() of the input. */
void ps_reader__set_wait_hook(struct ps_reader *rd, void (*fn)(void *), void *arg);

/**
 * ps_reader__progress_waiting() - ps_progress__waiting(): the program waits rather than
 * reads.  Return: the line to show, or NULL.
 */
const char *ps_reader__progress_waiting(struct ps_reader *rd);

#endif
