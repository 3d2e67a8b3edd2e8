/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * symbolic.h - tracepoint values as perf prints them: a field whose print format goes
 * through __print_symbolic or __print_flags (sched_switch's prev_state: S, D, R+...) has a
 * text besides its number, the text of its place in the event's printed line.
 */
#ifndef PS_SYMBOLIC_H
#define PS_SYMBOLIC_H

#include <stdbool.h>
#include <stddef.h>

struct tep_event;
struct tep_format_field;
struct ps_sample;

/* the suffix of the key that holds a field's text next to its number: "prev_state_sym" */
#define PS_SYMBOLIC_SUFFIX "_sym"
/* the longest text written there (a longer one is cut): gfp_flags spell out many flags */
#define PS_SYMBOLIC_MAX 512

/**
 * ps_symbolic__has() - does @event print its field @field through __print_symbolic or
 * __print_flags?
 * Return: true when it does (ps_symbolic__text() gives the text), false otherwise.
 */
bool ps_symbolic__has(const struct tep_event *event, const char *field);

/**
 * ps_symbolic__text() - the text @event's print format gives @field in @smp, as perf
 * script prints it ("S", "R+", "GFP_KERNEL|__GFP_ZERO").
 * @event: the sample's tracepoint format (its libtraceevent handle renders the line)
 * @smp: a sample of @event, with its RAW data
 * @buf, @len: where the text goes, NUL-terminated (cut to fit)
 * Return: 0, or -1 when @field is not symbolic in @event or the line cannot be rendered.
 */
int ps_symbolic__text(struct tep_event *event, const char *field, const struct ps_sample *smp,
                      char *buf, size_t len);

/**
 * ps_symbolic__json_field() - does field @f of @event get a "NAME_sym" key next to its number
 * in a sample's JSON (ptojson --symbolic)?  It does when it is a plain number (no array, no
 * string) that the format prints through __print_symbolic or __print_flags, and no field
 * of @event is already called NAME_sym.
 * Return: true when it does.
 */
bool ps_symbolic__json_field(const struct tep_event *event, const struct tep_format_field *f);

/** ps_symbolic__key() - "@field" PS_SYMBOLIC_SUFFIX, malloc'ed; NULL when out of memory. */
char *ps_symbolic__key(const char *field);

#endif
