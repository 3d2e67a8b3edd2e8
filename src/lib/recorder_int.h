/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * recorder_int.h - what the recorder's files share: the recorder itself, its events and
 * rings, and the helpers of each part (tracefs, header synthesis, self-exclusion,
 * build-ids).  Not for programs: they use recorder.h.
 *
 * The files form layers, each calling only those below it: recorder_util.c; then
 * recorder_tracefs.c, recorder_self.c and recorder_buildid.c; then recorder_synth.c; then
 * recorder.c.
 */
#ifndef PS_RECORDER_INT_H
#define PS_RECORDER_INT_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "error.h"
#include "output.h"
#include "recorder.h"
#include "xalloc.h"

#define REC_ATTR_SIZE 128 /* PERF_ATTR_SIZE_VER7: what perf 6.1 writes and reads */
#define REC_MAX_RECORD 0xffff

/* one instance of an event: one file descriptor */
struct rec_inst {
	int fd;
	int cpu;
	pid_t tid; /* -1 system-wide */
	uint64_t id;
};

struct rec_event {
	char *name;                  /* "sched:sched_switch", "cpu-clock", "page-faults:u" */
	char *sys, *tp;              /* tracepoint system and name; NULL for a software event */
	uint32_t type;               /* PERF_TYPE_SOFTWARE or PERF_TYPE_TRACEPOINT */
	uint64_t config;             /* software event number, or the tracepoint's id */
	bool exclude_user;           /* ":k" */
	bool exclude_kernel;         /* ":u" */
	char *filter;                /* --filter, owned */
	int group;                   /* which add_event() call it came from */
	struct perf_event_attr attr; /* as opened; its first REC_ATTR_SIZE bytes are written */
	struct rec_inst *inst;
	size_t nr_inst;
};

struct rec_ring {
	int fd;
	int cpu;
	bool hup;
	struct perf_event_mmap_page *meta;
	unsigned char *data;
	size_t size; /* data bytes, a power of two */
	size_t map_len;
};

struct rec_self;
struct rec_bids;

struct ps_recorder {
	struct ps_recorder_config cfg;
	struct rec_event *ev;
	size_t nr_ev, ev_cap;
	int groups; /* add_event() calls so far */
	char tracefs[64];
	int *cpus;
	int nr_cpus;
	pid_t *threads;
	int nr_threads;
	struct rec_ring *rings;
	int nr_rings;
	struct pollfd *pfd;
	uint64_t sample_type;
	size_t pid_off;        /* offset of a SAMPLE's pid, header included */
	size_t trailer_size;   /* sample_id trailer of the other kernel records */
	unsigned char *copy;   /* a record that wraps around the ring's end */
	struct rec_self *self; /* NULL when the pipeline is not left out */
	struct rec_bids *bids;
	struct ps_recorder_stats st;
	uint64_t lost_in_records;          /* sum of the LOST records' counts */
	uint64_t lost_samples;             /* sum of the LOST_SAMPLES records' counts */
	uint64_t kernel_start, kernel_end; /* _text, _etext; 0 when unknown */
	bool opened;
	size_t nr_user_only; /* events that fell back to user space only (paranoid) */
};

/* ---- recorder_util.c: below every other recorder file ---- */

struct rec_sw {
	const char *name;
	uint64_t config;
	bool alias; /* another name of the entry before */
};
extern const struct rec_sw ps_rec_sw_events[]; /* the software events, by name and alias */
extern const size_t ps_rec_nr_sw;
extern const struct rec_sw ps_rec_hw_events[]; /* the generic hardware events */
extern const size_t ps_rec_nr_hw;

/**
 * ps_rec_event__add() - append an event named @name (copied) to the recorder, in the current
 * add_event() group.  Return: the event, valid until the next add, or NULL (no memory,
 * or PS_MAX_ATTRS reached).
 */
struct rec_event *ps_rec_event__add(struct ps_recorder *r, const char *name);

/**
 * ps_rec_read_file() - read a whole (proc, sys or trace) file of at most @max bytes.
 * @buf: set to a malloc'ed, NUL-terminated copy the caller frees; @len to its length
 * Return: 0, or -1 with errno set.
 */
int ps_rec_read_file(const char *path, char **buf, size_t *len, size_t max);

/** ps_rec_read_line() - the first line of a small file, without its newline.  Return: 0 or -1. */
int ps_rec_read_line(const char *path, char *out, size_t outlen);

/** ps_rec_read_long() - the number a small file starts with, or @dflt. */
long ps_rec_read_long(const char *path, long dflt);

/**
 * ps_rec_parse_cpu_list() - parse "0-3,6" into a sorted array without duplicates.
 * @cpus: set to a malloc'ed array the caller frees
 * Return: the count, or -1 when @s is not a list.
 */
int ps_rec_parse_cpu_list(const char *s, int **cpus);

/** ps_rec_put_string() - append a feature string: u32 len, text, zeros up to 64-byte steps. */
void ps_rec_put_string(struct ps_bytes *b, const char *s);

/**
 * ps_rec_put_record() - write a record made of an 8-byte header and @len bytes of @body.
 * Return: 0, or -1 (PS_ECAP when it would exceed 64 KiB, or the output's error).
 */
int ps_rec_put_record(struct ps_output *out, uint32_t type, uint16_t misc, const void *body,
                      size_t len, struct ps_error *err);

/* ---- recorder_synth.c ---- */

/**
 * ps_rec_synth__header() - write everything before the kernel's records: the pipe header,
 * ATTR, FEATURE, TRACING_DATA, ID_INDEX, kernel MMAP, EVENT_UPDATE, COMM and MMAP2 of the
 * existing tasks, FINISHED_INIT.  Return: 0, or -1 with @err filled.
 */
int ps_rec_synth__header(struct ps_recorder *r, struct ps_output *out, struct ps_error *err);

/**
 * ps_rec_synth__trailer() - fill @r->trailer_size bytes at @p with a synthesized record's
 * sample_id trailer: the pid and tid, the rest zero (id 0 stands for the first attr).
 */
void ps_rec_synth__trailer(const struct ps_recorder *r, unsigned char *p, pid_t pid, pid_t tid);

/* ---- recorder_tracefs.c ---- */

/**
 * ps_rec_tracefs__add() - add the tracepoints @spec ("sys:name", or a glob) names.
 * Return: how many, or -1 (PS_EUSAGE for a name that does not exist, with suggestions).
 */
int ps_rec_tracefs__add(struct ps_recorder *r, const char *spec, struct ps_error *err);

/* ps_rec_tracefs__unknown() - the usage error for an event that does not exist, with the
 * closest names when there are some.  Return: -1. */
int ps_rec_tracefs__unknown(struct ps_recorder *r, const char *spec, struct ps_error *err);

/**
 * ps_rec_tracefs__blob() - append the TRACING_DATA blob of the recorder's tracepoints to @b,
 * padded to 8 bytes.  Return: 0, or -1 with @err filled.
 */
int ps_rec_tracefs__blob(struct ps_recorder *r, struct ps_bytes *b, struct ps_error *err);

/**
 * ps_rec_tracefs__list() - call @fn(name, "Tracepoint event", @arg) for each tracepoint, sorted.
 * @root: the tracefs directory, or NULL to find it.  Return: 0, or -1 with @err filled.
 */
int ps_rec_tracefs__list(const char *root, void (*fn)(const char *, const char *, void *),
                         void *arg, struct ps_error *err);

/* ---- recorder_self.c ---- */

/**
 * ps_rec_self__new() - the verdicts for the recorder's pipeline, found on the pipe @cfg names
 * (recorder_self.c); @workload (or 0) is kept.
 */
struct rec_self *ps_rec_self__new(pid_t workload, const struct ps_recorder_config *cfg);
/** ps_rec_self__delete() - free; NULL is allowed. */
void ps_rec_self__delete(struct rec_self *s);
/** ps_rec_self__drop() - true when the samples of process @pid are the pipeline's own. */
bool ps_rec_self__drop(struct rec_self *s, pid_t pid);
/** ps_rec_self__fork() - a FORK record: process @pid inherits the verdict of @ppid. */
void ps_rec_self__fork(struct rec_self *s, pid_t pid, pid_t ppid);
/**
 * ps_rec_self__initial() - the threads of the pipeline when recording started (at most 64),
 * for the kernel filter.  Owned by @s.  Return: how many.
 */
size_t ps_rec_self__initial(struct rec_self *s, const pid_t **pids);
/**
 * ps_rec_self__found() - the processes of the pipeline found when recording started, the
 * recorder first (owned by @s); *@more: how many more were found; *@later: processes they
 * started since, left out too.  Return: how many are in *@procs.
 */
size_t ps_rec_self__found(const struct rec_self *s, const struct ps_recorder_proc **procs,
                          size_t *more, size_t *later);

/* ---- recorder_buildid.c ---- */

/** ps_rec_bids__new() - empty tables; NULL when out of memory. */
struct rec_bids *ps_rec_bids__new(void);
/** ps_rec_bids__delete() - free; NULL is allowed. */
void ps_rec_bids__delete(struct rec_bids *b);
/** ps_rec_bids__mmap() - process @pid maps @filename (inode @ino, 0 unknown) at @start. */
void ps_rec_bids__mmap(struct rec_bids *b, pid_t pid, uint64_t start, uint64_t len, uint64_t ino,
                       const char *filename);
/** ps_rec_bids__fork() - process @pid starts with a copy of @ppid's mappings. */
void ps_rec_bids__fork(struct rec_bids *b, pid_t pid, pid_t ppid);
/** ps_rec_bids__exec() - process @pid exec'ed: its mappings are gone. */
void ps_rec_bids__exec(struct rec_bids *b, pid_t pid);
/** ps_rec_bids__exit() - process @pid exited: forget it two rounds later. */
void ps_rec_bids__exit(struct rec_bids *b, pid_t pid);
/** ps_rec_bids__sample() - mark the file (or the kernel) at @ip in @pid as hit. */
void ps_rec_bids__sample(struct rec_bids *b, pid_t pid, unsigned int cpumode, uint64_t ip);
/** ps_rec_bids__round() - a drain round ended. */
void ps_rec_bids__round(struct rec_bids *b);
/**
 * ps_rec_bids__write() - write a BUILD_ID record for each file hit that is still the one mapped
 * (same inode) and has a build-id note, and for the kernel when hit.
 * Return: 0, or -1 with @err filled by the output.
 */
int ps_rec_bids__write(struct rec_bids *b, struct ps_output *out, struct ps_error *err);

#endif
