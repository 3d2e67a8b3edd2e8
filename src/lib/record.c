// SPDX-License-Identifier: GPL-2.0-only
/*
 * record.c - the record type table: names and classes.
 */
#include "compat.h"
#include "record.h"

struct type_info {
	const char *name;
	enum ps_record_class cls;
};

static const struct type_info types[] = {
	[PERF_RECORD_MMAP] = { "MMAP", PS_CLASS_SIDEBAND },
	[PERF_RECORD_LOST] = { "LOST", PS_CLASS_SIDEBAND },
	[PERF_RECORD_COMM] = { "COMM", PS_CLASS_SIDEBAND },
	[PERF_RECORD_EXIT] = { "EXIT", PS_CLASS_SIDEBAND },
	[PERF_RECORD_THROTTLE] = { "THROTTLE", PS_CLASS_SIDEBAND },
	[PERF_RECORD_UNTHROTTLE] = { "UNTHROTTLE", PS_CLASS_SIDEBAND },
	[PERF_RECORD_FORK] = { "FORK", PS_CLASS_SIDEBAND },
	[PERF_RECORD_READ] = { "READ", PS_CLASS_SIDEBAND },
	[PERF_RECORD_SAMPLE] = { "SAMPLE", PS_CLASS_SAMPLE },
	[PERF_RECORD_MMAP2] = { "MMAP2", PS_CLASS_SIDEBAND },
	[PERF_RECORD_AUX] = { "AUX", PS_CLASS_SIDEBAND },
	[PERF_RECORD_ITRACE_START] = { "ITRACE_START", PS_CLASS_SIDEBAND },
	[PERF_RECORD_LOST_SAMPLES] = { "LOST_SAMPLES", PS_CLASS_SIDEBAND },
	[PERF_RECORD_SWITCH] = { "SWITCH", PS_CLASS_SIDEBAND },
	[PERF_RECORD_SWITCH_CPU_WIDE] = { "SWITCH_CPU_WIDE", PS_CLASS_SIDEBAND },
	[PERF_RECORD_NAMESPACES] = { "NAMESPACES", PS_CLASS_SIDEBAND },
	[PERF_RECORD_KSYMBOL] = { "KSYMBOL", PS_CLASS_SIDEBAND },
	[PERF_RECORD_BPF_EVENT] = { "BPF_EVENT", PS_CLASS_SIDEBAND },
	[PERF_RECORD_CGROUP] = { "CGROUP", PS_CLASS_SIDEBAND },
	[PERF_RECORD_TEXT_POKE] = { "TEXT_POKE", PS_CLASS_SIDEBAND },
	[PERF_RECORD_AUX_OUTPUT_HW_ID] = { "AUX_OUTPUT_HW_ID", PS_CLASS_SIDEBAND },
	[PS_RECORD_CALLCHAIN_DEFERRED] = { "CALLCHAIN_DEFERRED", PS_CLASS_SIDEBAND },
	[PS_RECORD_HEADER_ATTR] = { "ATTR", PS_CLASS_HEADER },
	[PS_RECORD_HEADER_EVENT_TYPE] = { "EVENT_TYPE", PS_CLASS_HEADER },
	[PS_RECORD_HEADER_TRACING_DATA] = { "TRACING_DATA", PS_CLASS_HEADER },
	[PS_RECORD_HEADER_BUILD_ID] = { "BUILD_ID", PS_CLASS_HEADER },
	[PS_RECORD_FINISHED_ROUND] = { "FINISHED_ROUND", PS_CLASS_CONTROL },
	[PS_RECORD_ID_INDEX] = { "ID_INDEX", PS_CLASS_HEADER },
	[PS_RECORD_AUXTRACE_INFO] = { "AUXTRACE_INFO", PS_CLASS_HEADER },
	[PS_RECORD_AUXTRACE] = { "AUXTRACE", PS_CLASS_SIDEBAND },
	[PS_RECORD_AUXTRACE_ERROR] = { "AUXTRACE_ERROR", PS_CLASS_SIDEBAND },
	[PS_RECORD_THREAD_MAP] = { "THREAD_MAP", PS_CLASS_HEADER },
	[PS_RECORD_CPU_MAP] = { "CPU_MAP", PS_CLASS_HEADER },
	[PS_RECORD_STAT_CONFIG] = { "STAT_CONFIG", PS_CLASS_HEADER },
	[PS_RECORD_STAT] = { "STAT", PS_CLASS_SIDEBAND },
	[PS_RECORD_STAT_ROUND] = { "STAT_ROUND", PS_CLASS_SIDEBAND },
	[PS_RECORD_EVENT_UPDATE] = { "EVENT_UPDATE", PS_CLASS_HEADER },
	[PS_RECORD_TIME_CONV] = { "TIME_CONV", PS_CLASS_HEADER },
	[PS_RECORD_HEADER_FEATURE] = { "FEATURE", PS_CLASS_HEADER },
	[PS_RECORD_COMPRESSED] = { "COMPRESSED", PS_CLASS_CONTROL },
	[PS_RECORD_FINISHED_INIT] = { "FINISHED_INIT", PS_CLASS_CONTROL },
	[PS_RECORD_COMPRESSED2] = { "COMPRESSED2", PS_CLASS_CONTROL },
	[PS_RECORD_BPF_METADATA] = { "BPF_METADATA", PS_CLASS_HEADER },
	[PS_RECORD_SCHEDSTAT_CPU] = { "SCHEDSTAT_CPU", PS_CLASS_SIDEBAND },
	[PS_RECORD_SCHEDSTAT_DOMAIN] = { "SCHEDSTAT_DOMAIN", PS_CLASS_SIDEBAND },
};

const char *ps_record_type_name(uint32_t type)
{
	return type < ARRAY_SIZE(types) ? types[type].name : NULL;
}

enum ps_record_class ps_record_type_class(uint32_t type)
{
	return type < ARRAY_SIZE(types) && types[type].name ? types[type].cls : PS_CLASS_UNKNOWN;
}

bool ps_record_type_repeats_per_piece(uint32_t type)
{
	if (type == PS_RECORD_FINISHED_INIT)
		return true;
	return ps_record_type_class(type) == PS_CLASS_HEADER && type != PS_RECORD_HEADER_BUILD_ID;
}

/*
 * The fixed fields of each type, header included: a record shorter than this is corrupt
 * (perf refuses it too).  Variable parts (names, paths, read values) count as empty here.
 */
static const uint16_t min_sizes[] = {
	[PERF_RECORD_MMAP] = 40,
	[PERF_RECORD_LOST] = 24,
	[PERF_RECORD_COMM] = 16,
	[PERF_RECORD_EXIT] = 32,
	[PERF_RECORD_THROTTLE] = 32,
	[PERF_RECORD_UNTHROTTLE] = 32,
	[PERF_RECORD_FORK] = 32,
	[PERF_RECORD_READ] = 24,
	[PERF_RECORD_MMAP2] = 72,
	[PERF_RECORD_AUX] = 32,
	[PERF_RECORD_ITRACE_START] = 16,
	[PERF_RECORD_LOST_SAMPLES] = 16,
	[PERF_RECORD_SWITCH_CPU_WIDE] = 16,
	[PERF_RECORD_NAMESPACES] = 24,
	[PERF_RECORD_KSYMBOL] = 24,
	[PERF_RECORD_BPF_EVENT] = 24,
	[PERF_RECORD_CGROUP] = 16,
	[PERF_RECORD_TEXT_POKE] = 20,
	[PERF_RECORD_AUX_OUTPUT_HW_ID] = 16,
	[PS_RECORD_HEADER_TRACING_DATA] = 12,
	[PS_RECORD_HEADER_BUILD_ID] = 36,
	[PS_RECORD_ID_INDEX] = 16,
	[PS_RECORD_AUXTRACE_INFO] = 16,
	[PS_RECORD_AUXTRACE] = 16,
	[PS_RECORD_THREAD_MAP] = 16,
	[PS_RECORD_STAT_CONFIG] = 16,
	[PS_RECORD_STAT_ROUND] = 24,
	[PS_RECORD_EVENT_UPDATE] = 24,
	[PS_RECORD_TIME_CONV] = 32,
	[PS_RECORD_HEADER_FEATURE] = 16,
	[PS_RECORD_COMPRESSED2] = 16,
};

unsigned int ps_record_type_min_size(uint32_t type)
{
	return type < ARRAY_SIZE(min_sizes) && min_sizes[type] ? min_sizes[type] :
	                                                         PS_RECORD_HEADER_SIZE;
}

bool ps_record_type_has_trailer(uint32_t type)
{
	return type >= 1 && type < PS_RECORD_USER_START && type != PERF_RECORD_SAMPLE;
}

static const char *const features[] = {
	[PS_FEAT_RESERVED] = "reserved",
	[PS_FEAT_TRACING_DATA] = "tracing_data",
	[PS_FEAT_BUILD_ID] = "build_id",
	[PS_FEAT_HOSTNAME] = "hostname",
	[PS_FEAT_OSRELEASE] = "osrelease",
	[PS_FEAT_VERSION] = "version",
	[PS_FEAT_ARCH] = "arch",
	[PS_FEAT_NRCPUS] = "nrcpus",
	[PS_FEAT_CPUDESC] = "cpudesc",
	[PS_FEAT_CPUID] = "cpuid",
	[PS_FEAT_TOTAL_MEM] = "total_mem",
	[PS_FEAT_CMDLINE] = "cmdline",
	[PS_FEAT_EVENT_DESC] = "event_desc",
	[PS_FEAT_CPU_TOPOLOGY] = "cpu_topology",
	[PS_FEAT_NUMA_TOPOLOGY] = "numa_topology",
	[PS_FEAT_BRANCH_STACK] = "branch_stack",
	[PS_FEAT_PMU_MAPPINGS] = "pmu_mappings",
	[PS_FEAT_GROUP_DESC] = "group_desc",
	[PS_FEAT_AUXTRACE] = "auxtrace",
	[PS_FEAT_STAT] = "stat",
	[PS_FEAT_CACHE] = "cache",
	[PS_FEAT_SAMPLE_TIME] = "sample_time",
	[PS_FEAT_MEM_TOPOLOGY] = "mem_topology",
	[PS_FEAT_CLOCKID] = "clockid",
	[PS_FEAT_DIR_FORMAT] = "dir_format",
	[PS_FEAT_BPF_PROG_INFO] = "bpf_prog_info",
	[PS_FEAT_BPF_BTF] = "bpf_btf",
	[PS_FEAT_COMPRESSED] = "compressed",
	[PS_FEAT_CPU_PMU_CAPS] = "cpu_pmu_caps",
	[PS_FEAT_CLOCK_DATA] = "clock_data",
	[PS_FEAT_HYBRID_TOPOLOGY] = "hybrid_topology",
	[PS_FEAT_PMU_CAPS] = "pmu_caps",
	[PS_FEAT_LAST_61] = "last_feature",
};

const char *ps_feature_name(uint64_t feat)
{
	return feat < ARRAY_SIZE(features) ? features[feat] : NULL;
}
