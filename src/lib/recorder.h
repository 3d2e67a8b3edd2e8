/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * recorder.h - record kernel events straight into a pipe stream that perf reads.
 *
 * One perf_event_open per event and CPU (per thread and CPU for a task), one ring buffer
 * per CPU that the other events of that CPU are redirected into, the header records perf
 * needs (ATTR, FEATURE, TRACING_DATA, ID_INDEX, EVENT_UPDATE), synthesized COMM and MMAP2
 * records for the tasks that already exist, the kernel's records drained round by round,
 * and BUILD_ID records for the binaries that were hit.
 *
 * Use: ps_recorder__new(), ps_recorder__add_event() (and ps_recorder__set_filter()) for
 * each event, ps_recorder__open(), ps_recorder__enable(), ps_recorder__write_header(), then
 * ps_recorder__wait() and ps_recorder__drain() until done, then ps_recorder__disable(),
 * ps_recorder__finish() and ps_recorder__delete().  Nothing here prints or exits.
 */
#ifndef PS_RECORDER_H
#define PS_RECORDER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "error.h"
#include "output.h"

struct ps_recorder;

/*
 * The ring of each CPU without -m: PS_RECORDER_RING_MAX bytes, halved until all CPUs'
 * rings take PS_RECORDER_RING_TOTAL at most, never below PS_RECORDER_RING_MIN (perf
 * record's 512 KiB), which is also the size a ring falls back to when the kernel will not
 * lock a larger one (no CAP_IPC_LOCK, past kernel.perf_event_mlock_kb).
 */
#define PS_RECORDER_RING_MAX ((size_t)16 << 20)
#define PS_RECORDER_RING_TOTAL ((size_t)64 << 20)
#define PS_RECORDER_RING_MIN ((size_t)512 << 10)
#define PS_RECORDER_DEFAULT_FREQ 4000 /* Hz, perf record's default for software events */

/**
 * struct ps_recorder_config - what to record, from the command line.
 * @system_wide: count on CPUs, for every task (-a, -C, or no target at all)
 * @cpu_list: the CPUs ("0-3,6"); NULL means every online CPU
 * @pid: a process and the children it starts (-p); 0 when none
 * @tid: one thread and the children it starts (-t); 0 when none
 * @workload: the forked command, waiting to exec; 0 when none.  Without @system_wide its
 *            events start at its exec (enable_on_exec)
 * @period: sample every @period events (-c); 0: tracepoints every event, software events
 *          by frequency
 * @freq: samples per second for software events (-F); 0: PS_RECORDER_DEFAULT_FREQ
 * @callchain: sample call chains (-g)
 * @stack_dump: with @callchain, --call-graph dwarf: the user registers and this many bytes
 *              of user stack in each sample, the kernel's chain only (as perf record
 *              --call-graph dwarf); 0: frame pointers
 * @mmap_pages: ring data pages per CPU, a power of two; 0: PS_RECORDER_RING_MAX bytes or
 *              less, as described above
 * @exclude_self: in system-wide mode, leave out the samples of the recorder's own
 *                pipeline: itself and the processes that read the pipe @out_dev/@out_ino
 *                and, downstream, the pipes they write (each one's standard input on the
 *                pipe before), and what they start; the workload and its children are kept
 * @out_pipe: the stream goes into a pipe or FIFO, @out_dev and @out_ino (its fstat())
 * @argc, @argv: the command line, for the cmdline feature; not copied, must outlive the
 *               recorder
 * @use_clockid: time samples with @clockid (CLOCK_MONOTONIC...) instead of the kernel's perf
 *               clock, and write the CLOCKID and CLOCK_DATA features that map it to wall time
 * @clockid: the POSIX clock, when @use_clockid
 */
/* --call-graph dwarf's stack copy by default, and its registers (x86_64: perf's mask) */
#define PS_RECORDER_STACK_DUMP 8192
#define PS_RECORDER_REGS_USER 0xff0fffull

struct ps_recorder_config {
	bool system_wide;
	const char *cpu_list;
	pid_t pid;
	pid_t tid;
	pid_t workload;
	uint64_t period;
	uint64_t freq;
	bool callchain;
	uint32_t stack_dump;
	unsigned int mmap_pages;
	bool exclude_self;
	bool out_pipe;
	dev_t out_dev;
	ino_t out_ino;
	int argc;
	char **argv;
	bool use_clockid;
	int clockid;
};

/**
 * struct ps_recorder_stats - what happened so far.
 * @samples: SAMPLE records written
 * @lost: events the kernel said it lost (sum of the LOST and LOST_SAMPLES records)
 * @lost_records: LOST records seen (each one written too)
 * @dropped_self: samples of the recorder's own pipeline left out
 * @rounds: drain rounds that wrote data (one FINISHED_ROUND each)
 */
struct ps_recorder_stats {
	uint64_t samples;
	uint64_t lost;
	uint64_t lost_records;
	uint64_t dropped_self;
	uint64_t rounds;
};

/**
 * ps_recorder__new() - an empty recorder.
 * Return: the recorder (free it with ps_recorder__delete()), or NULL with @err filled.
 */
struct ps_recorder *ps_recorder__new(struct ps_error *err);

/** ps_recorder__delete() - close every event, unmap the rings, free; NULL is allowed. */
void ps_recorder__delete(struct ps_recorder *r);

/**
 * ps_recorder__add_event() - add the events that @spec names.
 * @spec: a software event ("cpu-clock", "page-faults:u"...), a tracepoint ("sched:sched_switch")
 *        or a tracepoint glob ("syscalls:sys_enter_*"); copied
 *
 * Tracepoints need tracefs, which is mounted at /sys/kernel/tracing when it is not and the
 * caller is root.
 * Return: the number of events added (at least 1), or -1 with @err filled: PS_EUSAGE for an
 * unknown event (the detail suggests close names), PS_ESYS when tracefs is missing or
 * unreadable.
 */
int ps_recorder__add_event(struct ps_recorder *r, const char *spec, struct ps_error *err);

/**
 * ps_recorder__set_filter() - a kernel tracepoint filter for the events of the last
 * ps_recorder__add_event() call (perf record's --filter).
 * @expr: the filter in the kernel's syntax ("fd == 1 && count > 10"); copied
 * Return: 0, or -1 (PS_EUSAGE) when there is no preceding event or it is not a tracepoint.
 * A filter the kernel rejects is reported by ps_recorder__open().
 */
int ps_recorder__set_filter(struct ps_recorder *r, const char *expr, struct ps_error *err);

/**
 * ps_recorder__open() - open every event on every CPU (and thread), map the rings.
 * @cfg: copied; its @argv must stay valid
 *
 * The events stay disabled until ps_recorder__enable(), or, for a workload, its exec.
 * Return: 0, or -1 with @err saying what failed and what to do about it (permissions and
 * perf_event_paranoid, a missing process, too many open files, a rejected filter...).
 */
int ps_recorder__open(struct ps_recorder *r, const struct ps_recorder_config *cfg,
                      struct ps_error *err);

/**
 * ps_recorder__write_header() - write the pipe header, the ATTR, FEATURE, TRACING_DATA,
 * ID_INDEX and EVENT_UPDATE records, the kernel's MMAP, COMM and MMAP2 records for the
 * tasks that exist (all of them system-wide), and FINISHED_INIT.
 * Return: 0, or -1 with @err filled (an output error, or tracefs unreadable).
 */
int ps_recorder__write_header(struct ps_recorder *r, struct ps_output *out, struct ps_error *err);

/**
 * ps_recorder__enable() - start counting; a workload's own events start at its exec instead.
 * Enabling before ps_recorder__write_header() misses no task started meanwhile: the rings
 * keep the kernel's records until the first drain, after the header.
 */
int ps_recorder__enable(struct ps_recorder *r, struct ps_error *err);

/** ps_recorder__disable() - stop counting; what is in the rings stays to be drained. */
void ps_recorder__disable(struct ps_recorder *r);

#define PS_RECORDER_DATA 0x1  /* a ring has reached its wake-up mark */
#define PS_RECORDER_EXTRA 0x2 /* @extra_fd is readable */

/**
 * ps_recorder__wait() - wait until a ring fills to its wake-up mark, @extra_fd becomes
 * readable, or @timeout_ms passes.
 * @extra_fd: one more descriptor to wait on (a workload's pidfd), or -1
 * Return: PS_RECORDER_* bits, 0 on timeout, -1 with errno set (EINTR on a signal).
 */
int ps_recorder__wait(struct ps_recorder *r, int timeout_ms, int extra_fd);

/**
 * ps_recorder__targets_gone() - true when every task recorded (per-task mode) has gone:
 * all the rings hung up.
 */
bool ps_recorder__targets_gone(const struct ps_recorder *r);

/**
 * ps_recorder__drain() - copy every complete record from every ring to @out, each byte as
 * the kernel wrote it (the pipeline's own samples left out), then a FINISHED_ROUND if
 * anything was written.
 * Return: records written, or -1 with @err filled by the output (PS_EPIPE when the reader
 * went away).
 */
long ps_recorder__drain(struct ps_recorder *r, struct ps_output *out, struct ps_error *err);

/**
 * ps_recorder__finish() - after the last drain: write a BUILD_ID record for each binary
 * (and the kernel) that samples hit, read with libelf from the file, then flush.
 * Return: 0, or -1 with @err filled by the output.
 */
int ps_recorder__finish(struct ps_recorder *r, struct ps_output *out, struct ps_error *err);

/** ps_recorder__nr_events() - the events added so far (a glob counts each tracepoint). */
size_t ps_recorder__nr_events(const struct ps_recorder *r);

/**
 * ps_recorder__nr_user_only() - events opened for user space only because the kernel
 * forbade kernel events (kernel.perf_event_paranoid), as perf falls back to :u.
 */
size_t ps_recorder__nr_user_only(const struct ps_recorder *r);

/** ps_recorder__stats() - counts so far. */
void ps_recorder__stats(const struct ps_recorder *r, struct ps_recorder_stats *st);

#define PS_RECORDER_MAX_SELF 16 /* processes of the pipeline named */

/** struct ps_recorder_proc - a process of the recorder's own pipeline, left out. */
struct ps_recorder_proc {
	pid_t pid;
	char comm[16];
};

/**
 * ps_recorder__left_out() - the processes of the recorder's own pipeline that are left out
 * (ps_recorder_config.exclude_self): those found when recording started, the recorder
 * first, at most PS_RECORDER_MAX_SELF of them.
 * @more: set to how many more were found
 * @later: set to how many processes they started since, left out too
 * Return: how many are in *@procs (owned by @r); 0 when nothing is left out.
 */
size_t ps_recorder__left_out(const struct ps_recorder *r, const struct ps_recorder_proc **procs,
                             size_t *more, size_t *later);

/**
 * ps_recorder__list_events() - call @fn for every event that can be recorded: the software
 * events, then the tracepoints tracefs offers (sorted).
 * @fn: called with the event's name ("sched:sched_switch") and kind ("Tracepoint event")
 * Return: 0, or -1 with @err filled when tracefs cannot be read (the software events have
 * been listed by then).
 */
int ps_recorder__list_events(void (*fn)(const char *name, const char *kind, void *arg), void *arg,
                             struct ps_error *err);

#endif
