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
struct ps_sample;

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

#endif
