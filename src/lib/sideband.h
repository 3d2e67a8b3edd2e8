/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sideband.h - what the side-band records said about each thread and process so far (its
 * name, its process, its mappings), kept bounded, and replayed as records so that a stream
 * that starts in the middle of a recording (a piece of psplit) still names its threads and
 * resolves their addresses.
 *
 * Records are applied in time order (order.h).  Replayed records carry a time of 0, like the
 * records perf synthesizes at the start of a recording: perf applies them as soon as it
 * reads them, before the samples that follow them.
 *
 * Memory is capped: at most PS_SIDEBAND_MAX_THREADS threads and processes, and
 * PS_SIDEBAND_MAX_BYTES bytes of mappings; when full, what belongs to exited threads is
 * dropped first, then new state is not kept (and counted).
 */
#ifndef PS_SIDEBAND_H
#define PS_SIDEBAND_H

#include <stddef.h>
#include <stdint.h>

#include "record.h"

struct ps_session;
struct ps_sideband;

#define PS_SIDEBAND_MAX_THREADS (1u << 16)
#define PS_SIDEBAND_MAX_BYTES (16u << 20)
#define PS_SIDEBAND_NO_PID UINT32_MAX

/* what a side-band record is about, for routing it to the streams that need it */
enum ps_sideband_scope {
	PS_SB_EVERYONE, /* kernel-wide (kernel maps, BPF, ksymbols) or of no known thread */
	PS_SB_THREAD,   /* of thread @tid (COMM, EXIT, records with a sample_id trailer) */
	PS_SB_PROCESS,  /* of process @pid (MMAP, MMAP2) */
	PS_SB_FORK,     /* FORK: thread @tid of @pid from @ptid of @ppid */
};

/**
 * struct ps_sideband_info - what ps_sideband__apply() found in a record.
 */
struct ps_sideband_info {
	enum ps_sideband_scope scope;
	uint32_t pid, tid, ppid, ptid;
};

/**
 * typedef ps_sideband_emit - receives replayed record bytes (one or several whole records,
 * in the stream's byte order).
 * Return: 0, or -1 to stop the replay (the error is the callee's).
 */
typedef int (*ps_sideband_emit)(void *arg, const void *data, size_t len);

/**
 * ps_sideband__new() - empty state for the stream of session @s (kept, not owned).
 * Return: the state, or NULL when out of memory.
 */
struct ps_sideband *ps_sideband__new(const struct ps_session *s);

/** ps_sideband__delete() - free everything; NULL is allowed. */
void ps_sideband__delete(struct ps_sideband *sb);

/**
 * ps_sideband__apply() - take in a side-band record (COMM, FORK, EXIT, MMAP, MMAP2, KSYMBOL
 * and the other kernel records), in time order, and say what it is about.
 * Return: 0; -1 only when out of memory (the state then misses the record).
 */
int ps_sideband__apply(struct ps_sideband *sb, const struct ps_record *rec,
                       struct ps_sideband_info *info);

/**
 * ps_sideband__replay_global() - emit the kernel-wide records (kernel and module maps,
 * ksymbols) seen so far.
 * Return: 0, or the emitter's -1.
 */
int ps_sideband__replay_global(const struct ps_sideband *sb, ps_sideband_emit emit, void *arg);

/**
 * ps_sideband__replay_process() - emit the MMAP/MMAP2 records of process @pid (those it
 * inherited from its parent at FORK included).
 * Return: 0, or the emitter's -1.
 */
int ps_sideband__replay_process(const struct ps_sideband *sb, uint32_t pid, ps_sideband_emit emit,
                                void *arg);

/**
 * ps_sideband__replay_thread() - emit a COMM record that names thread @tid as the state
 * says (nothing when the thread was never named).
 * Return: 0, or the emitter's -1.
 */
int ps_sideband__replay_thread(const struct ps_sideband *sb, uint32_t tid, ps_sideband_emit emit,
                               void *arg);

/**
 * ps_sideband__replay_all() - emit everything the state knows, as of now: the kernel-wide
 * records, the maps of every process that has not exited, a COMM for every named thread
 * that has not exited (a stream that starts here names every live thread).
 * Return: 0, or the emitter's -1.
 */
int ps_sideband__replay_all(const struct ps_sideband *sb, ps_sideband_emit emit, void *arg);

/** ps_sideband__pid_of() - the process of thread @tid, or PS_SIDEBAND_NO_PID. */
uint32_t ps_sideband__pid_of(const struct ps_sideband *sb, uint32_t tid);

/** ps_sideband__dropped() - records not kept because a cap was reached. */
uint64_t ps_sideband__dropped(const struct ps_sideband *sb);

#endif
