// SPDX-License-Identifier: GPL-2.0-only
/*
 * record.c - the record type table: names, classes, smallest sizes and body layouts;
 * the feature names.
 */
#include <stdlib.h>
#include <string.h>

#include "compat.h"
#include "record.h"
#include "xalloc.h"

#define F(name, off, kind, width)                 \
	{                                         \
		name, off, PS_FIELD_##kind, width \
	}
#define PID_TID F("pid", 0, I32, 4), F("tid", 4, I32, 4)
#define MAP_RANGE F("start", 8, HEX, 8), F("len", 16, HEX, 8), F("pgoff", 24, HEX, 8)

/* ---- the bodies of the kernel's records (perf_event.h), fields in perf's order ---- */

static const struct ps_record_field mmap_fields[] = {
	PID_TID,
	MAP_RANGE,
	F("filename", 32, STR, 0),
};
/* MMAP2 names the object by device and inode, or (misc MMAP_BUILD_ID) by build-id */
#define MMAP2_PROT_FILE F("prot", 56, U32, 4), F("flags", 60, U32, 4), F("filename", 64, STR, 0)
static const struct ps_record_field mmap2_fields[] = {
	PID_TID,
	MAP_RANGE,
	F("maj", 32, U32, 4),
	F("min", 36, U32, 4),
	F("ino", 40, U64, 8),
	F("ino_generation", 48, U64, 8),
	MMAP2_PROT_FILE,
};
static const struct ps_record_field mmap2_build_id_fields[] = {
	PID_TID,
	MAP_RANGE,
	F("build_id", 32, BUILD_ID, 24),
	MMAP2_PROT_FILE,
};
static const struct ps_record_field comm_fields[] = {
	PID_TID,
	F("comm", 8, STR, 0),
	F("exec", PERF_RECORD_MISC_COMM_EXEC, MISC, 0),
};
static const struct ps_record_field fork_fields[] = {
	F("pid", 0, I32, 4),   F("ppid", 4, I32, 4),  F("tid", 8, I32, 4),
	F("ptid", 12, I32, 4), F("time", 16, U64, 8),
};
static const struct ps_record_field lost_fields[] = { F("id", 0, U64, 8), F("lost", 8, U64, 8) };
static const struct ps_record_field lost_samples_fields[] = { F("lost", 0, U64, 8) };
static const struct ps_record_field throttle_fields[] = {
	F("time", 0, U64, 8),
	F("id", 8, U64, 8),
	F("stream_id", 16, U64, 8),
};
static const struct ps_record_field aux_fields[] = {
	F("aux_offset", 0, HEX, 8),
	F("aux_size", 8, HEX, 8),
	F("flags", 16, U64, 8),
};
static const struct ps_record_field switch_fields[] = {
	F("out", PERF_RECORD_MISC_SWITCH_OUT, MISC, 0),
};
static const struct ps_record_field switch_cpu_wide_fields[] = {
	F("out", PERF_RECORD_MISC_SWITCH_OUT, MISC, 0),
	F("next_prev_pid", 0, I32, 4),
	F("next_prev_tid", 4, I32, 4),
};
static const struct ps_record_field pid_tid_fields[] = { PID_TID };
static const struct ps_record_field namespaces_fields[] = {
	PID_TID,
	F("nr_namespaces", 8, COUNT, 8),
};
static const struct ps_record_field ksymbol_fields[] = {
	F("addr", 0, HEX, 8),   F("len", 8, U32, 4),   F("ksym_type", 12, U16, 2),
	F("flags", 14, U16, 2), F("name", 16, STR, 0),
};
static const struct ps_record_field bpf_event_fields[] = {
	F("type", 0, U16, 2), F("flags", 2, U16, 2), F("id", 4, U32, 4), F("tag", 8, BYTES, 8)
};
static const struct ps_record_field cgroup_fields[] = { F("id", 0, U64, 8), F("path", 8, STR, 0) };
static const struct ps_record_field text_poke_fields[] = {
	F("addr", 0, HEX, 8),
	F("old_len", 8, U16, 2),
	F("new_len", 10, U16, 2),
};
static const struct ps_record_field hw_id_fields[] = { F("hw_id", 0, U64, 8) };

#define FIELDS(f) .fields = f, .nfields = ARRAY_SIZE(f)
#define KERNEL(n, min, ...)                                                       \
	{                                                                         \
		.name = n, .cls = PS_CLASS_SIDEBAND, .min_size = min, __VA_ARGS__ \
	}
#define OWN(n, c, min)                                          \
	{                                                       \
		.name = n, .cls = PS_CLASS_##c, .min_size = min \
	}

/*
 * Every record type perf 6.1 writes (and CALLCHAIN_DEFERRED): teaching the library a new
 * one is a row here.  A record shorter than its min_size is corrupt.
 */
static const struct ps_record_layout layouts[] = {
	[PERF_RECORD_MMAP] = KERNEL("MMAP", 40, FIELDS(mmap_fields), .json = true),
	[PERF_RECORD_LOST] =
	        KERNEL("LOST", 24, FIELDS(lost_fields), .tail = PS_TAIL_U64, .json = true),
	[PERF_RECORD_COMM] = KERNEL("COMM", 16, FIELDS(comm_fields), .json = true),
	[PERF_RECORD_EXIT] = KERNEL("EXIT", 32, FIELDS(fork_fields), .json = true),
	[PERF_RECORD_THROTTLE] =
	        KERNEL("THROTTLE", 32, FIELDS(throttle_fields), .tail = PS_TAIL_U64, .json = true),
	[PERF_RECORD_UNTHROTTLE] = KERNEL("UNTHROTTLE", 32, FIELDS(throttle_fields),
	                                  .tail = PS_TAIL_U64, .json = true),
	[PERF_RECORD_FORK] = KERNEL("FORK", 32, FIELDS(fork_fields), .json = true),
	/* pid, tid, then the read_format values: at least one */
	[PERF_RECORD_READ] = KERNEL("READ", 24, FIELDS(pid_tid_fields), .tail = PS_TAIL_U64),
	[PERF_RECORD_SAMPLE] = { .name = "SAMPLE", .cls = PS_CLASS_SAMPLE, .min_size = 8 },
	[PERF_RECORD_MMAP2] = KERNEL(
	        "MMAP2", 72, FIELDS(mmap2_fields), .alt_misc = PERF_RECORD_MISC_MMAP_BUILD_ID,
	        .alt_fields = mmap2_build_id_fields,
	        .alt_nfields = ARRAY_SIZE(mmap2_build_id_fields), .json = true),
	[PERF_RECORD_AUX] = KERNEL("AUX", 32, FIELDS(aux_fields), .tail = PS_TAIL_U64),
	[PERF_RECORD_ITRACE_START] = KERNEL("ITRACE_START", 16, FIELDS(pid_tid_fields)),
	[PERF_RECORD_LOST_SAMPLES] = KERNEL("LOST_SAMPLES", 16, FIELDS(lost_samples_fields),
	                                    .tail = PS_TAIL_U64, .json = true),
	[PERF_RECORD_SWITCH] = KERNEL("SWITCH", 8, FIELDS(switch_fields), .json = true),
	[PERF_RECORD_SWITCH_CPU_WIDE] =
	        KERNEL("SWITCH_CPU_WIDE", 16, FIELDS(switch_cpu_wide_fields), .json = true),
	[PERF_RECORD_NAMESPACES] = KERNEL("NAMESPACES", 24, FIELDS(namespaces_fields),
	                                  .tail = PS_TAIL_COUNTED, .tail_words = 2),
	[PERF_RECORD_KSYMBOL] = KERNEL("KSYMBOL", 24, FIELDS(ksymbol_fields), .json = true),
	[PERF_RECORD_BPF_EVENT] = KERNEL("BPF_EVENT", 24, FIELDS(bpf_event_fields)),
	[PERF_RECORD_CGROUP] = KERNEL("CGROUP", 16, FIELDS(cgroup_fields), .json = true),
	[PERF_RECORD_TEXT_POKE] = KERNEL("TEXT_POKE", 20, FIELDS(text_poke_fields)),
	[PERF_RECORD_AUX_OUTPUT_HW_ID] =
	        KERNEL("AUX_OUTPUT_HW_ID", 16, FIELDS(hw_id_fields), .tail = PS_TAIL_U64),
	[PS_RECORD_CALLCHAIN_DEFERRED] = KERNEL("CALLCHAIN_DEFERRED", 8, .tail = PS_TAIL_U64),
	[PS_RECORD_HEADER_ATTR] = OWN("ATTR", HEADER, 8),
	[PS_RECORD_HEADER_EVENT_TYPE] = OWN("EVENT_TYPE", HEADER, 8),
	[PS_RECORD_HEADER_TRACING_DATA] = OWN("TRACING_DATA", HEADER, 12),
	[PS_RECORD_HEADER_BUILD_ID] = OWN("BUILD_ID", HEADER, 36),
	[PS_RECORD_FINISHED_ROUND] = OWN("FINISHED_ROUND", CONTROL, 8),
	[PS_RECORD_ID_INDEX] = OWN("ID_INDEX", HEADER, 16),
	[PS_RECORD_AUXTRACE_INFO] = OWN("AUXTRACE_INFO", HEADER, 16),
	[PS_RECORD_AUXTRACE] = OWN("AUXTRACE", SIDEBAND, 16),
	[PS_RECORD_AUXTRACE_ERROR] = OWN("AUXTRACE_ERROR", SIDEBAND, 8),
	[PS_RECORD_THREAD_MAP] = OWN("THREAD_MAP", HEADER, 16),
	[PS_RECORD_CPU_MAP] = OWN("CPU_MAP", HEADER, 8),
	[PS_RECORD_STAT_CONFIG] = OWN("STAT_CONFIG", HEADER, 16),
	[PS_RECORD_STAT] = OWN("STAT", SIDEBAND, 8),
	[PS_RECORD_STAT_ROUND] = OWN("STAT_ROUND", SIDEBAND, 24),
	[PS_RECORD_EVENT_UPDATE] = OWN("EVENT_UPDATE", HEADER, 24),
	[PS_RECORD_TIME_CONV] = OWN("TIME_CONV", HEADER, 32),
	[PS_RECORD_HEADER_FEATURE] = OWN("FEATURE", HEADER, 16),
	[PS_RECORD_COMPRESSED] = OWN("COMPRESSED", CONTROL, 8),
	[PS_RECORD_FINISHED_INIT] = OWN("FINISHED_INIT", CONTROL, 8),
	[PS_RECORD_COMPRESSED2] = OWN("COMPRESSED2", CONTROL, 16),
	[PS_RECORD_BPF_METADATA] = OWN("BPF_METADATA", HEADER, 8),
	[PS_RECORD_SCHEDSTAT_CPU] = OWN("SCHEDSTAT_CPU", SIDEBAND, 8),
	[PS_RECORD_SCHEDSTAT_DOMAIN] = OWN("SCHEDSTAT_DOMAIN", SIDEBAND, 8),
};

const struct ps_record_layout *ps_record_layout(uint32_t type)
{
	return type < ARRAY_SIZE(layouts) && layouts[type].name ? &layouts[type] : NULL;
}

const struct ps_record_field *ps_record_layout__fields(const struct ps_record_layout *l,
                                                       uint16_t misc, size_t *n)
{
	if (l->alt_misc && (misc & l->alt_misc)) {
		*n = l->alt_nfields;
		return l->alt_fields;
	}
	*n = l->nfields;
	return l->fields;
}

int ps_record__get(const struct ps_record *rec, bool swap, const char *name, uint64_t *v)
{
	const struct ps_record_layout *l = ps_record_layout(rec->type);
	const struct ps_record_field *f;
	size_t i, n;

	if (!l)
		return -1;
	f = ps_record_layout__fields(l, rec->misc, &n);
	for (i = 0; i < n; i++, f++) {
		const unsigned char *p = rec->data + 8 + f->off;

		if (strcmp(f->name, name) != 0)
			continue;
		if (f->kind > PS_FIELD_COUNT || rec->size < 8u + f->off + f->width)
			return -1;
		*v = f->width == 8 ? ps_get64(p, swap) :
		     f->width == 4 ? ps_get32(p, swap) :
		                     ps_get16(p, swap);
		if (f->kind == PS_FIELD_I32)
			*v = (uint64_t)(int64_t)(int32_t)*v;
		return 0;
	}
	return -1;
}

const char *ps_record_type_name(uint32_t type)
{
	const struct ps_record_layout *l = ps_record_layout(type);

	return l ? l->name : NULL;
}

enum ps_record_class ps_record_type_class(uint32_t type)
{
	const struct ps_record_layout *l = ps_record_layout(type);

	return l ? l->cls : PS_CLASS_UNKNOWN;
}

bool ps_record_type_repeats_per_piece(uint32_t type)
{
	if (type == PS_RECORD_FINISHED_INIT)
		return true;
	return ps_record_type_class(type) == PS_CLASS_HEADER && type != PS_RECORD_HEADER_BUILD_ID;
}

unsigned int ps_record_type_min_size(uint32_t type)
{
	const struct ps_record_layout *l = ps_record_layout(type);

	return l ? l->min_size : PS_RECORD_HEADER_SIZE;
}

bool ps_record_type_has_trailer(uint32_t type)
{
	return type >= 1 && type < PS_RECORD_USER_START && type != PERF_RECORD_SAMPLE;
}

/* ---- the feature payloads that are a fixed set of numbers ---- */

static const struct ps_record_field nrcpus_fields[] = { F("avail", 0, U32, 4),
	                                                F("online", 4, U32, 4) };
static const struct ps_record_field sample_time_fields[] = { F("first", 0, U64, 8),
	                                                     F("last", 8, U64, 8) };
static const struct ps_record_field compressed_fields[] = {
	F("version", 0, U32, 4), F("type", 4, U32, 4),      F("level", 8, U32, 4),
	F("ratio", 12, U32, 4),  F("mmap_len", 16, U32, 4),
};
static const struct ps_record_field clock_data_fields[] = { F("version", 0, U32, 4),
	                                                    F("clockid", 4, U32, 4),
	                                                    F("tod_ns", 8, U64, 8),
	                                                    F("clockid_ns", 16, U64, 8) };
static const struct ps_record_field clockid_fields[] = { F("resolution_ns", 0, U64, 8) };
static const struct ps_record_field dir_format_fields[] = { F("version", 0, U64, 8) };

static const struct {
	const struct ps_record_field *fields;
	size_t n;
} feature_fields[] = {
	[PS_FEAT_NRCPUS] = { nrcpus_fields, ARRAY_SIZE(nrcpus_fields) },
	[PS_FEAT_SAMPLE_TIME] = { sample_time_fields, ARRAY_SIZE(sample_time_fields) },
	[PS_FEAT_COMPRESSED] = { compressed_fields, ARRAY_SIZE(compressed_fields) },
	[PS_FEAT_CLOCK_DATA] = { clock_data_fields, ARRAY_SIZE(clock_data_fields) },
	[PS_FEAT_CLOCKID] = { clockid_fields, ARRAY_SIZE(clockid_fields) },
	[PS_FEAT_DIR_FORMAT] = { dir_format_fields, ARRAY_SIZE(dir_format_fields) },
};

const struct ps_record_field *ps_feature_fields(uint64_t feat, size_t *n)
{
	if (feat >= ARRAY_SIZE(feature_fields) || !feature_fields[feat].fields)
		return NULL;
	*n = feature_fields[feat].n;
	return feature_fields[feat].fields;
}

bool ps_feature_is_string(uint64_t feat)
{
	switch (feat) {
	case PS_FEAT_HOSTNAME:
	case PS_FEAT_OSRELEASE:
	case PS_FEAT_VERSION:
	case PS_FEAT_ARCH:
	case PS_FEAT_CPUDESC:
	case PS_FEAT_CPUID:
		return true;
	default:
		return false;
	}
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

int ps_record_copies__add(struct ps_record_copies *l, const struct ps_record *rec)
{
	struct ps_record_copy *c;

	if (ps_grow((void **)&l->v, &l->cap, l->n + 1, sizeof(*l->v), 16))
		return -1;
	c = &l->v[l->n];
	c->data = malloc(rec->len ? rec->len : 1);
	if (!c->data)
		return -1;
	memcpy(c->data, rec->data, rec->len);
	c->len = rec->len;
	c->type = rec->type;
	c->offset = rec->offset;
	l->n++;
	l->bytes += rec->len;
	return 0;
}

void ps_record_copies__release(struct ps_record_copies *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		free(l->v[i].data);
	free(l->v);
	*l = (struct ps_record_copies){ 0 };
}
