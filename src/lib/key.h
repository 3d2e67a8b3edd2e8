/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * key.h - the key language of pcount --by and psplit --by, and the field sums of
 * pcount --sum.
 *
 * A key list is a comma-separated list of keys.  Each key is a property of a sample
 * (event, comm, pid, tid, cpu, syscall, errno, sym, dso, ip), a tracepoint field (FIELD, or
 * system:event.FIELD for one event's), a duration field in nanoseconds (durations.h:
 * latency, run_time, wait_time, sch_delay, off_cpu, a --pair's NAME), or a numeric field
 * cut into buckets (FIELD/SIZE).
 * A sample's key text is its keys' values joined by PS_KEY_SEP, a PS_KEY_SEP or PS_KEY_ESC
 * inside a value preceded by PS_KEY_ESC: two samples have the same text exactly when their
 * values are the same, whatever bytes a name from the stream holds (a comm may hold any
 * byte but NUL).  A sample that lacks one of the keys has none.  Names are checked against a stream once its header records are
 * in (ps_key__check), so a misspelt key is an error with the names that exist.
 */
#ifndef PS_KEY_H
#define PS_KEY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

struct ps_session;
struct ps_sample;
struct ps_symbols;
struct ps_frame;

#define PS_KEY_MAX 8         /* keys in one list */
#define PS_KEY_SEP '\x1f'    /* between the values of a key text */
#define PS_KEY_ESC '\x1e'    /* before a PS_KEY_SEP or PS_KEY_ESC that is part of a value */
#define PS_KEY_VALUE_MAX 256 /* bytes of one value, with its NUL */
/* room for any key text: every byte of every value escaped, the separators, the NUL */
#define PS_KEY_TEXT_MAX (PS_KEY_MAX * 2 * PS_KEY_VALUE_MAX)
/* room for any value as ps_key__shown() writes it (4 bytes for each byte), with its NUL */
#define PS_KEY_SHOWN_MAX (4 * PS_KEY_VALUE_MAX)

/* A parsed key list; opaque. */
struct ps_key;

/**
 * ps_key__parse() - parse a comma-separated key list ("comm,pid", "syscall",
 * "sched:sched_switch.prev_state", "bytes/1024").
 * @list: the list as the user wrote it; not kept
 * @err: on failure, PS_EUSAGE (a bad list) or PS_ENOMEM, with a detail that does not name
 *       the option (the main adds "--by: ")
 * Return: a new key list (free with ps_key__delete()), or NULL.
 */
struct ps_key *ps_key__parse(const char *list, struct ps_error *err);

/**
 * ps_key__delete() - free a key list; NULL is allowed.
 */
void ps_key__delete(struct ps_key *k);

/**
 * ps_key__nr() - the number of keys in @k (1 to PS_KEY_MAX).
 */
size_t ps_key__nr(const struct ps_key *k);

/**
 * ps_key__name() - the key @i as the user wrote it ("comm", "prev_state/10"); owned by
 * @k, valid until ps_key__delete().
 */
const char *ps_key__name(const struct ps_key *k, size_t i);

/**
 * ps_key__check() - check every key against the events of a stream.
 * @k: the key list
 * @s: the stream's session, its header records applied; a session without attrs passes
 *     (nothing to check against yet: call again once the header has arrived)
 * @err: on failure, PS_EUSAGE with what is wrong, a "did you mean" where a known name is
 *       near, and the names that exist (cut with "..." when long)
 *
 * An unknown key, a system:event that is not in the stream, a property no event carries
 * (cpu without PERF_SAMPLE_CPU, syscall without a syscall event), and buckets of a field
 * that is not a number are errors.  Also resets what @k learnt of an earlier stream.
 * Return: 0, or -1.
 */
int ps_key__check(struct ps_key *k, const struct ps_session *s, struct ps_error *err);

/**
 * ps_key__text() - the key text of a sample: its keys' values joined by PS_KEY_SEP (a
 * PS_KEY_SEP or PS_KEY_ESC inside a value escaped by a PS_KEY_ESC before it).
 * @k: the key list (caches what it learns of @s: use one list with one stream)
 * @s: the session @smp was parsed with
 * @smp: the sample
 * @buf, @len: where the text goes, NUL-terminated (PS_KEY_TEXT_MAX holds every text
 *             whose values are shorter than PS_KEY_VALUE_MAX)
 *
 * Values: event name; thread name (":TID" when never named, as perf shows it); pid, tid, cpu in decimal; the
 * syscall's name (number when unnamed; an exit has none when the stream records the
 * entries too, unless an errno key is asked for); errno's name for a syscall exit that
 * failed; sym and dso: the function and object of the sample's ip as perf script names
 * them ("[unknown]" when unknown; see ps_key__set_view() for perf report's names); ip:
 * the sample's ip as "0x%016x"; a field's value (signed as its format says; strings
 * up to their NUL), as perf prints it where its format maps it through symbols or flags
 * (prev_state: S, D, R+); a bucket as "LO-HI".
 * Return: the length of the text, or -1 when the sample lacks a key or the text does not
 * fit in @len.
 */
int ps_key__text(struct ps_key *k, const struct ps_session *s, const struct ps_sample *smp,
                 char *buf, size_t len);

/**
 * ps_key__thread_only() - whether every key is comm, pid or tid: then the text of a
 * sample's key depends on its pid and tid and on the session's thread names alone, and
 * stays the same while ps_session__comm_gen() does.
 */
bool ps_key__thread_only(const struct ps_key *k);

/**
 * ps_key__needs_symbols() - whether a key names the sample's function or object (sym,
 * dso): then the caller feeds a symbol table (symbols.h) and hands it over with
 * ps_key__set_symbols().
 */
bool ps_key__needs_symbols(const struct ps_key *k);

/**
 * ps_key__by_frame() - whether a key is a property of a frame of the call chain (sym, dso,
 * ip): then ps_key__text_frame() gives a frame's key text.
 */
bool ps_key__by_frame(const struct ps_key *k);

/* ps_key__set_view(): sym as perf report and perf top show it */
#define PS_KEY_VIEW_ADDR 1u /* an unnamed address as "0x%016x" within its object */
#define PS_KEY_VIEW_MARK 2u /* "[k] " (kernel), "[.] " (user), "[g] ", "[u] ", "[H] " */

/**
 * ps_key__set_view() - how sym names what perf script calls "[unknown]" and whether it
 * carries perf report's mark of the mode: PS_KEY_VIEW_* or'ed, 0 (the default) for
 * perf script's names.
 */
void ps_key__set_view(struct ps_key *k, unsigned int view);

/**
 * ps_key__text_frame() - ps_key__text() with sym, dso and ip taken from the frame @f of
 * the sample's call chain (ps_symbols__frames()) rather than from its own ip.
 * Return: as ps_key__text().
 */
int ps_key__text_frame(struct ps_key *k, const struct ps_session *s, const struct ps_sample *smp,
                       const struct ps_frame *f, char *buf, size_t len);

/**
 * ps_key__set_symbols() - the symbol table sym and dso are named from (not owned; NULL
 * names everything "[unknown]").  The caller applies every record to it in time order.
 */
void ps_key__set_symbols(struct ps_key *k, struct ps_symbols *st);

/**
 * ps_key__set_exits() - whether the syscall key names a syscall exit also when the stream
 * records the entries: set it when only samples that carry some field are counted
 * (pcount --stats latency: the value is on the exit), so a call is still counted once.
 */
void ps_key__set_exits(struct ps_key *k, bool exits);

/**
 * ps_key__column() - value @idx of a key text made by ps_key__text(), as it was (its
 * escapes undone): the true value, for JSON and for comparing.
 * @text: the key text
 * @buf, @len: where the value goes (cut to fit), NUL-terminated; PS_KEY_VALUE_MAX suffices
 * Return: @buf ("" when @text has fewer values).
 */
const char *ps_key__column(const char *text, size_t idx, char *buf, size_t len);

/**
 * ps_key__shown() - a value as a table prints it, on one line and unmistakable: a
 * backslash as \\, newline, tab and carriage return as \n, \t, \r, other control
 * bytes (below 0x20, 0x7f, and the C1 controls U+0080 to U+009F) and bytes that are not
 * part of valid UTF-8 as \xNN; everything else as it is.  pfilter's quoted strings
 * take the same escapes.
 * @value: the value (ps_key__column())
 * @buf, @len: where the text goes (cut at a whole escape to fit), NUL-terminated;
 *             PS_KEY_SHOWN_MAX suffices for any value
 * Return: @buf.
 */
const char *ps_key__shown(const char *value, char *buf, size_t len);

/**
 * ps_key__suggest() - the name of @names nearest to @name for a "did you mean", or NULL.
 * @names: NULL-terminated array of candidates
 * Return: one of @names (not copied), or NULL when none is near enough.
 */
const char *ps_key__suggest(const char *name, const char *const *names);

/* What a field's numbers are: plain numbers, or nanoseconds (shown with a unit). */
enum ps_key_unit {
	PS_KEY_UNIT_NONE,
	PS_KEY_UNIT_NS,
};

/* One summed column of pcount --sum (also the field of --stats and --hist); opaque. */
struct ps_key_sum;

/**
 * ps_key_sum__parse() - parse "[NAME=]FIELD", "[NAME=]system:event.FIELD" (add up a
 * numeric field) or "[NAME=]system:event" (count that event's samples).  FIELD is a
 * tracepoint field, or the sample's period where no tracepoint field has that name.
 * @err: on failure, PS_EUSAGE or PS_ENOMEM, without the option's name
 * Return: a new sum (free with ps_key_sum__delete()), or NULL.
 */
struct ps_key_sum *ps_key_sum__parse(const char *spec, struct ps_error *err);

/**
 * ps_key_sum__delete() - free a sum; NULL is allowed.
 */
void ps_key_sum__delete(struct ps_key_sum *sm);

/**
 * ps_key_sum__name() - the column's title: NAME, or the spec; owned by @sm.
 */
const char *ps_key_sum__name(const struct ps_key_sum *sm);

/**
 * ps_key_sum__field() - the field a sum adds up, or NULL for an event count; owned by @sm.
 */
const char *ps_key_sum__field(const struct ps_key_sum *sm);

/**
 * ps_key_sum__unit() - the unit of the field's values in the events of @s that have it:
 * PS_KEY_UNIT_NS for a duration (the period of cpu-clock and task-clock, which count
 * nanoseconds, and the durations of pairs of events), else PS_KEY_UNIT_NONE.
 */
enum ps_key_unit ps_key_sum__unit(const struct ps_key_sum *sm, const struct ps_session *s);

/**
 * ps_key_sum__check() - check a sum against the events of a stream: the event must
 * exist, and the field be a number in at least one event that has it.
 * @err: PS_EUSAGE with the names that exist and a "did you mean"
 * Return: 0 (also for a session without attrs yet), or -1.
 */
int ps_key_sum__check(const struct ps_key_sum *sm, const struct ps_session *s,
                      struct ps_error *err);

/**
 * ps_key_sum__value() - what a sample adds to the sum.
 * @val: set to the field's value (signed as its format says), or 1 for an event count
 * Return: true when the sample has it, false when the sum does not apply to the sample.
 */
bool ps_key_sum__value(const struct ps_key_sum *sm, const struct ps_sample *smp, int64_t *val);

/**
 * ps_key_sum__is_duration() - whether the sum's field is a duration (durations.h:
 * latency, run_time, wait_time, sch_delay, off_cpu, a --pair's NAME): its values are
 * nanoseconds, to be shown with units.
 * @s: the stream's session (it knows the pairs' names)
 */
bool ps_key_sum__is_duration(const struct ps_key_sum *sm, const struct ps_session *s);

/**
 * ps_key__is_duration() - the same for a field as the user names it ("latency",
 * "raw_syscalls:sys_exit.latency").
 */
bool ps_key__is_duration(const struct ps_session *s, const char *field);

#endif
