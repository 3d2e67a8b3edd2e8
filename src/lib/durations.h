/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * durations.h - how long things took, from pairs of events: the duration fields every
 * analysing program sees on a sample (the reader fills them, key.h and filter.h read
 * them by name).
 *
 * - latency, on a syscall exit (raw_syscalls:sys_exit, syscalls:sys_exit_NAME): the
 *   nanoseconds since the same thread entered the same syscall;
 * - run_time, wait_time, sch_delay, on a sched:sched_switch, for the task switched out,
 *   by perf sched timehist's rules: the previous sched_switch of the same cpu is when the
 *   task got the cpu; run_time is from then to now, wait_time from the task's own last
 *   switch-out to then, sch_delay from its first wakeup (sched_waking, sched_wakeup,
 *   sched_wakeup_new) after that switch-out to then.  The first switch seen on a cpu
 *   gives none of the three; a task never seen before gives no wait_time;
 * - off_cpu, on a sched:sched_switch, for the task switched in (next_pid): the
 *   nanoseconds since it was switched out, with the call chain it left with
 *   (ps_dur_values.off_*), bcc's offcputime;
 * - a user pair (--pair [NAME=]START,END[:KEYS]): on an END sample, the nanoseconds since
 *   the last START with the same KEYS values (the thread when no KEYS are given).
 *
 * A value exists only when its start was seen: never a made-up 0.  Memory is bounded:
 * at most PS_DUR_MAX_PENDING threads and pending pair starts are kept, the oldest let go
 * (counted, and said once at the end as a notice); a thread's state goes with its EXIT.
 * Values are right only in time order (the reader's PS_READER_TIME, or ARRIVAL with the
 * time-order view).
 */
#ifndef PS_DURATIONS_H
#define PS_DURATIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "record.h"

struct ps_attr;
struct ps_sample;
struct ps_session;

#define PS_DUR_MAX_PAIRS 4            /* --pair options of one program */
#define PS_DUR_MAX_KEYS 4             /* KEYS of one pair */
#define PS_DUR_MAX_PENDING (1u << 16) /* threads, and pair starts, kept at once */
/* call-chain words kept of a switch-out: perf's 127 frames (perf_event_max_stack) and the
 * context words among them (at most 8, perf_event_max_contexts_per_stack) */
#define PS_DUR_MAX_CHAIN (127 + 8)

/* the duration fields; a pair's is PS_DUR_PAIR + its place among the pairs */
enum ps_dur_field {
	PS_DUR_LATENCY,
	PS_DUR_RUN_TIME,
	PS_DUR_WAIT_TIME,
	PS_DUR_SCH_DELAY,
	PS_DUR_OFF_CPU,
	PS_DUR_PAIR,
	PS_DUR_NR = PS_DUR_PAIR + PS_DUR_MAX_PAIRS,
};

struct ps_durations;

/**
 * struct ps_dur_values - the duration values of one sample (ps_sample.dur).
 * @mask: bit (1 << field) set for each field with a value
 * @v: the values in nanoseconds, by enum ps_dur_field
 * @off_pid, @off_tid: off_cpu: the process and thread switched in
 * @off_chain, @off_nr: off_cpu: the call chain of its switch-out, @off_nr u64 words in
 *                      the stream's byte order (NULL, 0 when it had none)
 * @d: the module that made them (the pairs' names)
 *
 * Owned by the module; valid until its next ps_durations__sample().
 */
struct ps_dur_values {
	uint32_t mask;
	uint64_t v[PS_DUR_NR];
	uint32_t off_pid, off_tid;
	const unsigned char *off_chain;
	uint64_t off_nr;
	const struct ps_durations *d;
};

/**
 * ps_durations__new() - a durations state.
 * @pairs: @npairs specs "[NAME=]START,END[:KEY,...]" (not kept)
 * @err: PS_EUSAGE for a bad spec (without the option's name), or PS_ENOMEM
 * Return: the state (free with ps_durations__delete()), or NULL.
 */
struct ps_durations *ps_durations__new(const char *const *pairs, size_t npairs,
                                       struct ps_error *err);

/** ps_durations__delete() - free everything; NULL is allowed. */
void ps_durations__delete(struct ps_durations *d);

/**
 * ps_durations__sample() - take one sample, in time order: its values go into
 * @smp->dur (or it stays NULL), and what it starts is remembered.
 * @s: the session @smp was decoded with
 */
void ps_durations__sample(struct ps_durations *d, const struct ps_session *s,
                          struct ps_sample *smp);

/**
 * ps_durations__record() - take a side-band record in time order: an EXIT lets go of
 * its thread's state (after its last switch-out).
 */
void ps_durations__record(struct ps_durations *d, const struct ps_session *s,
                          const struct ps_record *rec);

/**
 * ps_durations__take_notice() - once, at the end: how many pending starts were let go.
 * Return: the text (owned by @d), or NULL.
 */
const char *ps_durations__take_notice(struct ps_durations *d);

/**
 * ps_durations__field() - the duration field named @name: one of the built-in names, or
 * the name of one of @d's pairs (@d may be NULL).
 * Return: its enum ps_dur_field, or -1.
 */
int ps_durations__field(const struct ps_durations *d, const char *name);

/**
 * ps_durations__named() - whether @text holds a built-in duration field's name anywhere
 * ("latency > 1ms", "--stats=run_time"): a program whose command line names none and has
 * no --pair need not work the values out (ps_reader_opts.no_durations).
 */
bool ps_durations__named(const char *text);

/** ps_durations__name() - the name of @field ("latency", a pair's NAME). */
const char *ps_durations__name(const struct ps_durations *d, int field);

/**
 * ps_durations__attr_has() - whether samples of @a can carry @field (an exit for
 * latency, sched_switch for the sched times and off_cpu, the pair's END), given the
 * stream's other events (@s): latency needs the entries recorded too.
 */
bool ps_durations__attr_has(const struct ps_durations *d, const struct ps_session *s,
                            const struct ps_attr *a, int field);

/**
 * ps_durations__why_not() - why no event of @s carries @field: the events to record.
 * @buf, @len: where the text goes ("latency needs syscall entries and exits: record
 *             raw_syscalls:sys_enter and raw_syscalls:sys_exit ...")
 * Return: @buf.
 */
const char *ps_durations__why_not(const struct ps_durations *d, int field, char *buf, size_t len);

/**
 * ps_durations__available() - the duration fields @s can give, by name, in @names (up to
 * @max, not owned).  Return: their number.
 */
size_t ps_durations__available(const struct ps_durations *d, const struct ps_session *s,
                               const char **names, size_t max);

/**
 * ps_durations__check() - whether some event of @s can carry @field (with the session's
 * durations state, ps_session__durations(), for the pairs' names); a session without
 * attrs passes.
 * @err: PS_EUSAGE "no FIELD in this stream: FIELD needs ... record ..."
 * Return: 0, or -1.
 */
int ps_durations__check(const struct ps_session *s, int field, struct ps_error *err);

/**
 * ps_durations__value() - the value of @field on @smp.
 * Return: true with @ns set, false when it has none.
 */
bool ps_durations__value(const struct ps_sample *smp, int field, uint64_t *ns);

/**
 * ps_durations__off_cpu_sample() - the off-CPU view of a sched_switch sample: a copy of
 * @smp that is the thread switched in (its pid and tid), with the call chain it left the
 * cpu with, for a folded stack weighted by its off_cpu value.
 * @view: filled; its chain belongs to the module (valid as @smp->dur)
 * Return: true, or false (@view untouched) when @smp has no off_cpu value.
 */
bool ps_durations__off_cpu_sample(const struct ps_sample *smp, struct ps_sample *view);

#endif
