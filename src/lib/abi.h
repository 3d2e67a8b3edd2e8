/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * abi.h - on-wire facts of the perf stream that <linux/perf_event.h> lacks:
 * the pipe and file headers, perf's own record types (64 and up) and the
 * feature ids.  Kernel record types and perf_event_attr come from the UAPI
 * header.  Layouts are given as offsets, not structs: see compat.h.
 */
#ifndef PS_ABI_H
#define PS_ABI_H

#include <linux/perf_event.h>

#define PS_MAGIC 0x32454c4946524550ULL /* "PERFILE2" read as a little-endian u64 */
#define PS_MAGIC_SWAPPED 0x50455246494c4532ULL
#define PS_PIPE_HEADER_SIZE 16
#define PS_FILE_HEADER_SIZE 104
#define PS_RECORD_HEADER_SIZE 8

/* file header offsets */
#define PS_FH_ATTR_SIZE 16
#define PS_FH_ATTRS 24
#define PS_FH_DATA 40
#define PS_FH_EVENT_TYPES 56
#define PS_FH_FEATURES 72

/* perf's user record types */
enum {
	PS_RECORD_USER_START = 64,
	PS_RECORD_HEADER_ATTR = 64,
	PS_RECORD_HEADER_EVENT_TYPE = 65,
	PS_RECORD_HEADER_TRACING_DATA = 66,
	PS_RECORD_HEADER_BUILD_ID = 67,
	PS_RECORD_FINISHED_ROUND = 68,
	PS_RECORD_ID_INDEX = 69,
	PS_RECORD_AUXTRACE_INFO = 70,
	PS_RECORD_AUXTRACE = 71,
	PS_RECORD_AUXTRACE_ERROR = 72,
	PS_RECORD_THREAD_MAP = 73,
	PS_RECORD_CPU_MAP = 74,
	PS_RECORD_STAT_CONFIG = 75,
	PS_RECORD_STAT = 76,
	PS_RECORD_STAT_ROUND = 77,
	PS_RECORD_EVENT_UPDATE = 78,
	PS_RECORD_TIME_CONV = 79,
	PS_RECORD_HEADER_FEATURE = 80,
	PS_RECORD_COMPRESSED = 81,
	PS_RECORD_FINISHED_INIT = 82,
	PS_RECORD_COMPRESSED2 = 83,
	PS_RECORD_BPF_METADATA = 84,
	PS_RECORD_SCHEDSTAT_CPU = 85,
	PS_RECORD_SCHEDSTAT_DOMAIN = 86,
};

/* Types above this are taken as corruption, not as unknown records to forward. */
#define PS_RECORD_TYPE_MAX 0xffff

/* kernel record types newer than the 6.1 UAPI header */
#define PS_RECORD_CALLCHAIN_DEFERRED 22

/* feature ids (HEADER_* in perf) */
enum {
	PS_FEAT_RESERVED = 0,
	PS_FEAT_TRACING_DATA = 1,
	PS_FEAT_BUILD_ID,
	PS_FEAT_HOSTNAME,
	PS_FEAT_OSRELEASE,
	PS_FEAT_VERSION,
	PS_FEAT_ARCH,
	PS_FEAT_NRCPUS,
	PS_FEAT_CPUDESC,
	PS_FEAT_CPUID,
	PS_FEAT_TOTAL_MEM,
	PS_FEAT_CMDLINE,
	PS_FEAT_EVENT_DESC,
	PS_FEAT_CPU_TOPOLOGY,
	PS_FEAT_NUMA_TOPOLOGY,
	PS_FEAT_BRANCH_STACK,
	PS_FEAT_PMU_MAPPINGS,
	PS_FEAT_GROUP_DESC,
	PS_FEAT_AUXTRACE,
	PS_FEAT_STAT,
	PS_FEAT_CACHE,
	PS_FEAT_SAMPLE_TIME,
	PS_FEAT_MEM_TOPOLOGY,
	PS_FEAT_CLOCKID,
	PS_FEAT_DIR_FORMAT,
	PS_FEAT_BPF_PROG_INFO,
	PS_FEAT_BPF_BTF,
	PS_FEAT_COMPRESSED,
	PS_FEAT_CPU_PMU_CAPS,
	PS_FEAT_CLOCK_DATA,
	PS_FEAT_HYBRID_TOPOLOGY,
	PS_FEAT_PMU_CAPS,
	PS_FEAT_LAST_61 = 32, /* end marker written by perf 6.1 */
	PS_FEAT_BITS = 256,
};

/* EVENT_UPDATE types */
enum {
	PS_EVENT_UPDATE_UNIT = 0,
	PS_EVENT_UPDATE_SCALE = 1,
	PS_EVENT_UPDATE_NAME = 2,
	PS_EVENT_UPDATE_CPUS = 3,
	/* pstream's own: the input an event came from (pcat --merge); perf ignores it */
	PS_EVENT_UPDATE_INPUT = 0x7073,
};

/* perf_event_attr field offsets (UAPI struct, read with ps_get*) */
#define PS_ATTR_TYPE 0
#define PS_ATTR_SIZE 4
#define PS_ATTR_CONFIG 8
#define PS_ATTR_PERIOD 16
#define PS_ATTR_SAMPLE_TYPE 24
#define PS_ATTR_READ_FORMAT 32
#define PS_ATTR_FLAGS 40
#define PS_ATTR_WAKEUP 48
#define PS_ATTR_BP_TYPE 52
#define PS_ATTR_CONFIG1 56
#define PS_ATTR_CONFIG2 64
#define PS_ATTR_BRANCH_SAMPLE_TYPE 72
#define PS_ATTR_SAMPLE_REGS_USER 80
#define PS_ATTR_SAMPLE_STACK_USER 88
#define PS_ATTR_CLOCKID 92
#define PS_ATTR_SAMPLE_REGS_INTR 96
#define PS_ATTR_AUX_WATERMARK 104
#define PS_ATTR_SAMPLE_MAX_STACK 108
#define PS_ATTR_AUX_SAMPLE_SIZE 112
#define PS_ATTR_SIG_DATA 120
#define PS_ATTR_CONFIG3 128
#define PS_ATTR_SIZE_MAX 136 /* largest layout we know; larger attrs are accepted */
#define PS_ATTR_SIZE_VER0 64

/* attr flag bits at PS_ATTR_FLAGS */
#define PS_ATTR_FLAG_FREQ (1ULL << 10)
#define PS_ATTR_FLAG_SAMPLE_ID_ALL (1ULL << 18)

#define PS_BRANCH_HW_INDEX (1ULL << 17)

#endif
