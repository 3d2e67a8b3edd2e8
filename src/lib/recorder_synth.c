// SPDX-License-Identifier: GPL-2.0-only
/*
 * recorder_synth.c - the records a recording starts with, made the way perf record makes
 * them: ATTR, the FEATURE set and its end marker (STREAM-FORMAT §6), TRACING_DATA,
 * ID_INDEX, the kernel's MMAP, EVENT_UPDATE, then COMM and MMAP2 for the tasks that exist
 * already (from /proc), and FINISHED_INIT.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "abi.h"
#include "io.h"
#include "recorder_int.h"
#include "version.h" /* PS_VERSION, generated */
#include "xalloc.h"

#define MAX_PROC_FILE (64u << 20)
#define ID_INDEX_MAX 2000 /* entries per ID_INDEX record: 16 + 32 * n stays below 64 KiB */

void ps_rec_synth__trailer(const struct ps_recorder *r, unsigned char *p, pid_t pid, pid_t tid)
{
	uint64_t st = r->sample_type;

	memset(p, 0, r->trailer_size);
	if (st & PERF_SAMPLE_TID) {
		ps_put32(p, (uint32_t)pid, false);
		ps_put32(p + 4, (uint32_t)tid, false);
	}
	/* time, id, cpu: 0, as perf's synthesized records have (id 0 is the first attr) */
}

static int put_buf(struct ps_output *out, uint32_t type, uint16_t misc, struct ps_bytes *b,
                   struct ps_error *err)
{
	if (b->failed)
		return ps_error__set(err, PS_ENOMEM, NULL, PS_NO_OFFSET, "out of memory");
	return ps_rec_put_record(out, type, misc, b->p, b->len, err);
}

/* ---- features ---- */

static void squash_spaces(char *s)
{
	char *w = s;
	bool space = false;

	for (; *s; s++) {
		if (isspace((unsigned char)*s)) {
			space = true;
			continue;
		}
		if (space)
			*w++ = ' ';
		space = false;
		*w++ = *s;
	}
	*w = 0;
}

/* the value of the first "key : value" line of /proc/cpuinfo whose key is @key */
static int cpuinfo(const char *key, char *out, size_t outlen)
{
	char *buf, *line, *next, *colon;
	size_t len, klen = strlen(key);
	int ret = -1;

	if (ps_rec_read_file("/proc/cpuinfo", &buf, &len, 16u << 20) < 0)
		return -1;
	for (line = buf; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		if (strncmp(line, key, klen) != 0)
			continue;
		colon = strchr(line, ':');
		if (!colon)
			continue;
		if (line[klen] != ' ' && line[klen] != '\t' && line[klen] != ':')
			continue;
		colon++;
		while (*colon == ' ')
			colon++;
		snprintf(out, outlen, "%s", colon);
		ret = 0;
		break;
	}
	free(buf);
	return ret;
}

static int feat_cpudesc(struct ps_bytes *b)
{
	static const char *const keys[] = { "model name", "cpu model", "Processor", "cpu" };
	char desc[256];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(keys); i++) {
		if (cpuinfo(keys[i], desc, sizeof(desc)) == 0) {
			squash_spaces(desc);
			ps_rec_put_string(b, desc);
			return 0;
		}
	}
	return -1;
}

static int feat_cpuid(struct ps_bytes *b)
{
#if defined(__x86_64__) || defined(__i386__)
	char vendor[64], fam[16], model[16], step[16], id[128];

	if (cpuinfo("vendor_id", vendor, sizeof(vendor)) < 0 ||
	    cpuinfo("cpu family", fam, sizeof(fam)) < 0 ||
	    cpuinfo("model", model, sizeof(model)) < 0 ||
	    cpuinfo("stepping", step, sizeof(step)) < 0)
		return -1;
	snprintf(id, sizeof(id), "%s,%s,%s,%s", vendor, fam, model, step);
	ps_rec_put_string(b, id);
	return 0;
#else
	(void)b;
	return -1; /* perf's cpuid string is arch specific; left out elsewhere */
#endif
}

static int feat_total_mem(struct ps_bytes *b)
{
	unsigned long long kb;
	char *buf, *p;
	size_t len;

	if (ps_rec_read_file("/proc/meminfo", &buf, &len, 1u << 20) < 0)
		return -1;
	p = strstr(buf, "MemTotal:");
	if (!p || sscanf(p, "MemTotal: %llu", &kb) != 1) {
		free(buf);
		return -1;
	}
	free(buf);
	ps_bytes__u64(b, kb);
	return 0;
}

static int max_present_cpu(void)
{
	char line[4096];
	int *cpus, n, max;

	if (ps_rec_read_line("/sys/devices/system/cpu/present", line, sizeof(line)) < 0)
		return (int)sysconf(_SC_NPROCESSORS_CONF);
	n = ps_rec_parse_cpu_list(line, &cpus);
	if (n < 0)
		return (int)sysconf(_SC_NPROCESSORS_CONF);
	max = cpus[n - 1] + 1;
	free(cpus);
	return max;
}

static int feat_nrcpus(struct ps_bytes *b)
{
	ps_bytes__u32(b, (uint32_t)max_present_cpu());
	ps_bytes__u32(b, (uint32_t)sysconf(_SC_NPROCESSORS_ONLN));
	return 0;
}

static int feat_cmdline(struct ps_recorder *r, struct ps_bytes *b)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	int i;

	if (n < 0)
		snprintf(exe, sizeof(exe), "%s", r->cfg.argc ? r->cfg.argv[0] : "precord");
	else
		exe[n] = 0;
	ps_bytes__u32(b, (uint32_t)(r->cfg.argc ? r->cfg.argc : 1));
	ps_rec_put_string(b, exe);
	for (i = 1; i < r->cfg.argc; i++)
		ps_rec_put_string(b, r->cfg.argv[i]);
	return 0;
}

static int feat_event_desc(struct ps_recorder *r, struct ps_bytes *b)
{
	size_t i, j;

	ps_bytes__u32(b, (uint32_t)r->nr_ev);
	ps_bytes__u32(b, REC_ATTR_SIZE);
	for (i = 0; i < r->nr_ev; i++) {
		struct rec_event *e = &r->ev[i];

		ps_bytes__put(b, &e->attr, REC_ATTR_SIZE);
		ps_bytes__u32(b, (uint32_t)e->nr_inst);
		ps_rec_put_string(b, e->name);
		for (j = 0; j < e->nr_inst; j++)
			ps_bytes__u64(b, e->inst[j].id);
	}
	return 0;
}

/* a string list that keeps each distinct value once, in order of first appearance */
struct strset {
	char **v;
	uint32_t n;
};

static void strset_add(struct strset *s, const char *str)
{
	char **nv;
	uint32_t i;

	for (i = 0; i < s->n; i++)
		if (strcmp(s->v[i], str) == 0)
			return;
	nv = ps_realloc_array(s->v, s->n + 1, sizeof(*nv));
	if (!nv)
		return;
	s->v = nv;
	s->v[s->n] = strdup(str);
	if (s->v[s->n])
		s->n++;
}

static void strset_put(struct ps_bytes *b, struct strset *s)
{
	uint32_t i;

	ps_bytes__u32(b, s->n);
	for (i = 0; i < s->n; i++) {
		ps_rec_put_string(b, s->v[i]);
		free(s->v[i]);
	}
	free(s->v);
	s->v = NULL;
	s->n = 0;
}

static int topo_line(int cpu, const char *file, const char *alt, char *out, size_t outlen)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/topology/%s", cpu, file);
	if (ps_rec_read_line(path, out, outlen) == 0)
		return 0;
	if (!alt)
		return -1;
	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/topology/%s", cpu, alt);
	return ps_rec_read_line(path, out, outlen);
}

static int topo_id(int cpu, const char *file)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/topology/%s", cpu, file);
	return (int)ps_rec_read_long(path, -1);
}

static int feat_cpu_topology(struct ps_bytes *b)
{
	struct strset cores = { 0 }, threads = { 0 }, dies = { 0 };
	char line[4096];
	int *online, n, i, avail = max_present_cpu();
	bool has_dies;
	struct utsname u;

	if (ps_rec_read_line("/sys/devices/system/cpu/online", line, sizeof(line)) < 0)
		return -1;
	n = ps_rec_parse_cpu_list(line, &online);
	if (n < 0)
		return -1;
	has_dies = uname(&u) == 0 &&
	           (strncmp(u.machine, "x86_64", 6) == 0 || strncmp(u.machine, "s390x", 5) == 0) &&
	           access("/sys/devices/system/cpu/cpu0/topology/die_cpus_list", F_OK) == 0;
	for (i = 0; i < n; i++) {
		if (topo_line(online[i], "package_cpus_list", "core_siblings_list", line,
		              sizeof(line)) == 0)
			strset_add(&cores, line);
		if (has_dies &&
		    topo_line(online[i], "die_cpus_list", NULL, line, sizeof(line)) == 0)
			strset_add(&dies, line);
		if (topo_line(online[i], "core_cpus_list", "thread_siblings_list", line,
		              sizeof(line)) == 0)
			strset_add(&threads, line);
	}
	free(online);
	strset_put(b, &cores);
	strset_put(b, &threads);
	for (i = 0; i < avail; i++) {
		ps_bytes__u32(b, (uint32_t)topo_id(i, "core_id"));
		ps_bytes__u32(b, (uint32_t)topo_id(i, "physical_package_id"));
	}
	if (has_dies && dies.n) {
		strset_put(b, &dies);
		for (i = 0; i < avail; i++)
			ps_bytes__u32(b, (uint32_t)topo_id(i, "die_id"));
	}
	return 0;
}

static int node_list(int **nodes)
{
	char line[4096];

	if (ps_rec_read_line("/sys/devices/system/node/online", line, sizeof(line)) < 0)
		return -1;
	return ps_rec_parse_cpu_list(line, nodes);
}

static int feat_numa_topology(struct ps_bytes *b)
{
	char path[PATH_MAX], cpus[4096], *buf, *p;
	unsigned long long total, freemem;
	int *nodes, n, i;
	size_t len;

	n = node_list(&nodes);
	if (n < 0)
		return -1;
	ps_bytes__u32(b, (uint32_t)n);
	for (i = 0; i < n; i++) {
		total = freemem = 0;
		snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/meminfo", nodes[i]);
		if (ps_rec_read_file(path, &buf, &len, 1u << 20) == 0) {
			p = strstr(buf, "MemTotal:");
			if (p)
				sscanf(p, "MemTotal: %llu", &total);
			p = strstr(buf, "MemFree:");
			if (p)
				sscanf(p, "MemFree: %llu", &freemem);
			free(buf);
		}
		snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/cpulist", nodes[i]);
		if (ps_rec_read_line(path, cpus, sizeof(cpus)) < 0)
			cpus[0] = 0;
		ps_bytes__u32(b, (uint32_t)nodes[i]);
		ps_bytes__u64(b, total);
		ps_bytes__u64(b, freemem);
		ps_rec_put_string(b, cpus);
	}
	free(nodes);
	return 0;
}

static int feat_pmu_mappings(struct ps_bytes *b)
{
	const char *dir = "/sys/bus/event_source/devices";
	struct dirent *d;
	char path[PATH_MAX];
	uint32_t n = 0;
	long type;
	int pass;
	DIR *dp;

	for (pass = 0; pass < 2; pass++) {
		dp = opendir(dir);
		if (!dp)
			return -1;
		if (pass == 1)
			ps_bytes__u32(b, n);
		while ((d = readdir(dp)) != NULL) {
			if (d->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/%s/type", dir, d->d_name);
			type = ps_rec_read_long(path, -1);
			if (type < 0)
				continue;
			if (pass == 0) {
				n++;
			} else {
				ps_bytes__u32(b, (uint32_t)type);
				ps_rec_put_string(b, d->d_name);
			}
		}
		closedir(dp);
	}
	return 0;
}

static int feat_mem_topology(struct ps_bytes *b)
{
	char line[64], path[PATH_MAX];
	unsigned long long bsize;
	int *nodes, n, i;
	unsigned int idx;

	if (ps_rec_read_line("/sys/devices/system/memory/block_size_bytes", line, sizeof(line)) <
	            0 ||
	    sscanf(line, "%llx", &bsize) != 1)
		return -1;
	n = node_list(&nodes);
	if (n < 0)
		return -1;
	ps_bytes__u64(b, 1);
	ps_bytes__u64(b, bsize);
	ps_bytes__u64(b, (uint64_t)n);
	for (i = 0; i < n; i++) {
		uint64_t *bits = NULL, size = 0, words, w;
		struct dirent *d;
		DIR *dp;

		snprintf(path, sizeof(path), "/sys/devices/system/node/node%d", nodes[i]);
		dp = opendir(path);
		if (dp) {
			while ((d = readdir(dp)) != NULL)
				if (sscanf(d->d_name, "memory%u", &idx) == 1 && idx + 1ULL > size)
					size = idx + 1ULL;
			rewinddir(dp);
			words = (size + 63) / 64;
			bits = calloc(words ? words : 1, sizeof(*bits));
			while (bits && (d = readdir(dp)) != NULL)
				if (sscanf(d->d_name, "memory%u", &idx) == 1)
					bits[idx / 64] |= 1ULL << (idx % 64);
			closedir(dp);
		}
		if (!bits)
			size = 0;
		words = (size + 63) / 64;
		ps_bytes__u64(b, (uint64_t)nodes[i]);
		ps_bytes__u64(b, size);
		ps_bytes__u64(b, size);
		for (w = 0; w < words; w++)
			ps_bytes__u64(b, bits[w]);
		free(bits);
	}
	free(nodes);
	return 0;
}

static int put_string_feat(struct ps_bytes *b, const char *s)
{
	ps_rec_put_string(b, s);
	return 0;
}

/* the resolution of the samples' clock, as perf writes it (its "clockid frequency") */
static int feat_clockid(const struct ps_recorder *r, struct ps_bytes *b)
{
	struct timespec res;

	if (!r->cfg.use_clockid || clock_getres(r->cfg.clockid, &res) < 0)
		return -1;
	ps_bytes__u64(b, (uint64_t)res.tv_sec * 1000000000u + (uint64_t)res.tv_nsec);
	return 0;
}

/*
 * One reading of the samples' clock and of the wall clock, taken together: what maps a
 * sample's time to the time of day (version 1: clockid, then the two readings in ns).
 */
static int feat_clock_data(const struct ps_recorder *r, struct ps_bytes *b)
{
	struct timespec clk, tod;

	if (!r->cfg.use_clockid || clock_gettime(CLOCK_REALTIME, &tod) < 0 ||
	    clock_gettime(r->cfg.clockid, &clk) < 0)
		return -1;
	ps_bytes__u32(b, 1);
	ps_bytes__u32(b, (uint32_t)r->cfg.clockid);
	ps_bytes__u64(b, (uint64_t)tod.tv_sec * 1000000000u + (uint64_t)tod.tv_nsec);
	ps_bytes__u64(b, (uint64_t)clk.tv_sec * 1000000000u + (uint64_t)clk.tv_nsec);
	return 0;
}

static int write_features(struct ps_recorder *r, struct ps_output *out, struct ps_error *err)
{
	static const unsigned int feats[] = {
		PS_FEAT_HOSTNAME,     PS_FEAT_OSRELEASE,     PS_FEAT_VERSION,
		PS_FEAT_ARCH,         PS_FEAT_NRCPUS,        PS_FEAT_CPUDESC,
		PS_FEAT_CPUID,        PS_FEAT_TOTAL_MEM,     PS_FEAT_CMDLINE,
		PS_FEAT_EVENT_DESC,   PS_FEAT_CPU_TOPOLOGY,  PS_FEAT_NUMA_TOPOLOGY,
		PS_FEAT_PMU_MAPPINGS, PS_FEAT_SAMPLE_TIME,   PS_FEAT_MEM_TOPOLOGY,
		PS_FEAT_CLOCKID,      PS_FEAT_BPF_PROG_INFO, PS_FEAT_BPF_BTF,
		PS_FEAT_CLOCK_DATA,   PS_FEAT_PMU_CAPS,      PS_FEAT_LAST_61,
	};
	struct utsname u;
	struct ps_bytes b;
	size_t i;
	int ok;

	if (uname(&u) < 0)
		memset(&u, 0, sizeof(u));
	for (i = 0; i < ARRAY_SIZE(feats); i++) {
		b = (struct ps_bytes){ .max = REC_MAX_RECORD };
		ps_bytes__u64(&b, feats[i]);
		switch (feats[i]) {
		case PS_FEAT_HOSTNAME:
			ok = put_string_feat(&b, u.nodename);
			break;
		case PS_FEAT_OSRELEASE:
			ok = put_string_feat(&b, u.release);
			break;
		case PS_FEAT_VERSION:
			ok = put_string_feat(&b, "precord (pstream) " PS_VERSION);
			break;
		case PS_FEAT_ARCH:
			ok = put_string_feat(&b, u.machine);
			break;
		case PS_FEAT_NRCPUS:
			ok = feat_nrcpus(&b);
			break;
		case PS_FEAT_CPUDESC:
			ok = feat_cpudesc(&b);
			break;
		case PS_FEAT_CPUID:
			ok = feat_cpuid(&b);
			break;
		case PS_FEAT_TOTAL_MEM:
			ok = feat_total_mem(&b);
			break;
		case PS_FEAT_CMDLINE:
			ok = feat_cmdline(r, &b);
			break;
		case PS_FEAT_EVENT_DESC:
			ok = feat_event_desc(r, &b);
			break;
		case PS_FEAT_CPU_TOPOLOGY:
			ok = feat_cpu_topology(&b);
			break;
		case PS_FEAT_NUMA_TOPOLOGY:
			ok = feat_numa_topology(&b);
			break;
		case PS_FEAT_PMU_MAPPINGS:
			ok = feat_pmu_mappings(&b);
			break;
		case PS_FEAT_SAMPLE_TIME:
			/* first and last sample time: unknown when the header is written */
			ps_bytes__u64(&b, 0);
			ps_bytes__u64(&b, 0);
			ok = 0;
			break;
		case PS_FEAT_MEM_TOPOLOGY:
			ok = feat_mem_topology(&b);
			break;
		case PS_FEAT_CLOCKID:
			ok = feat_clockid(r, &b);
			break;
		case PS_FEAT_CLOCK_DATA:
			ok = feat_clock_data(r, &b);
			break;
		case PS_FEAT_BPF_PROG_INFO:
		case PS_FEAT_BPF_BTF:
		case PS_FEAT_PMU_CAPS:
			ps_bytes__u32(&b, 0);
			ok = 0;
			break;
		default:
			ok = 0; /* the end marker: no payload */
			break;
		}
		/* a feature that cannot be read or does not fit is left out, as perf does */
		if (ok == 0 && !b.failed && b.len + 8 <= REC_MAX_RECORD &&
		    ps_rec_put_record(out, PS_RECORD_HEADER_FEATURE, 0, b.p, b.len, err) < 0) {
			ps_bytes__release(&b);
			return -1;
		}
		ps_bytes__release(&b);
	}
	return 0;
}

/* ---- ATTR, TRACING_DATA, ID_INDEX, EVENT_UPDATE ---- */

static int write_attrs(struct ps_recorder *r, struct ps_output *out, struct ps_error *err)
{
	struct ps_bytes b;
	size_t i, j;
	int ret = 0;

	for (i = 0; i < r->nr_ev && ret == 0; i++) {
		struct rec_event *e = &r->ev[i];

		b = (struct ps_bytes){ .max = REC_MAX_RECORD };
		ps_bytes__put(&b, &e->attr, REC_ATTR_SIZE);
		for (j = 0; j < e->nr_inst; j++)
			ps_bytes__u64(&b, e->inst[j].id);
		if (b.failed)
			ret = ps_error__set(err, PS_ECAP, NULL, PS_NO_OFFSET,
			                    "%s has too many instances (%zu) for one ATTR record",
			                    e->name, e->nr_inst);
		else
			ret = put_buf(out, PS_RECORD_HEADER_ATTR, 0, &b, err);
		ps_bytes__release(&b);
	}
	return ret;
}

static int write_tracing_data(struct ps_recorder *r, struct ps_output *out, struct ps_error *err)
{
	unsigned char body[8];
	struct ps_bytes b;
	size_t i;
	int ret;

	for (i = 0; i < r->nr_ev; i++)
		if (r->ev[i].type == PERF_TYPE_TRACEPOINT)
			break;
	if (i == r->nr_ev)
		return 0;
	b = (struct ps_bytes){ .max = PS_MAX_TRACING_DATA };
	ret = ps_rec_tracefs__blob(r, &b, err);
	if (ret == 0) {
		ps_put32(body, (uint32_t)b.len, false);
		ps_put32(body + 4, 0, false);
		ret = ps_rec_put_record(out, PS_RECORD_HEADER_TRACING_DATA, 0, body, sizeof(body),
		                        err);
		if (ret == 0)
			ret = ps_output__write(out, b.p, b.len, err);
	}
	ps_bytes__release(&b);
	return ret;
}

static int write_id_index(struct ps_recorder *r, struct ps_output *out, struct ps_error *err)
{
	struct ps_bytes b;
	size_t i, j, n = 0, total = 0, k = 0;
	int ret = 0, idx;

	for (i = 0; i < r->nr_ev; i++)
		total += r->ev[i].nr_inst;
	b = (struct ps_bytes){ .max = REC_MAX_RECORD };
	for (i = 0; i < r->nr_ev && ret == 0; i++) {
		for (j = 0; j < r->ev[i].nr_inst && ret == 0; j++) {
			struct rec_inst *in = &r->ev[i].inst[j];

			if (n == 0) {
				size_t left = total - k;

				ps_bytes__u64(&b, left < ID_INDEX_MAX ? left : ID_INDEX_MAX);
			}
			for (idx = 0; idx < r->nr_cpus && r->cpus[idx] != in->cpu; idx++)
				;
			ps_bytes__u64(&b, in->id);
			ps_bytes__u64(&b, (uint64_t)idx);
			ps_bytes__u64(&b, (uint64_t)(int64_t)in->cpu);
			ps_bytes__u64(&b, (uint64_t)(int64_t)in->tid);
			n++;
			k++;
			if (n == ID_INDEX_MAX || k == total) {
				ret = put_buf(out, PS_RECORD_ID_INDEX, 0, &b, err);
				b.len = 0;
				n = 0;
			}
		}
	}
	ps_bytes__release(&b);
	return ret;
}

static int event_update(struct ps_output *out, uint64_t type, uint64_t id, const void *payload,
                        size_t len, struct ps_error *err)
{
	struct ps_bytes b;
	int ret;

	/* perf 6.1 sizes these 40 + payload rounded to 8: 16 bytes of zeros follow */
	b = (struct ps_bytes){ .max = REC_MAX_RECORD };
	ps_bytes__u64(&b, type);
	ps_bytes__u64(&b, id);
	ps_bytes__put(&b, payload, len);
	ps_bytes__pad(&b, 8);
	ps_bytes__zero(&b, 16);
	ret = put_buf(out, PS_RECORD_EVENT_UPDATE, 0, &b, err);
	ps_bytes__release(&b);
	return ret;
}

static int write_event_updates(struct ps_recorder *r, struct ps_output *out, struct ps_error *err)
{
	size_t i;

	for (i = 0; i < r->nr_ev; i++) {
		struct rec_event *e = &r->ev[i];
		uint64_t id = e->nr_inst ? e->inst[0].id : 0;

		if (!e->nr_inst)
			continue;
		if (e->type == PERF_TYPE_SOFTWARE && (e->config == PERF_COUNT_SW_CPU_CLOCK ||
		                                      e->config == PERF_COUNT_SW_TASK_CLOCK)) {
			double scale = 1e-6;

			if (event_update(out, PS_EVENT_UPDATE_UNIT, id, "msec", 5, err) < 0 ||
			    event_update(out, PS_EVENT_UPDATE_SCALE, id, &scale, sizeof(scale),
			                 err) < 0)
				return -1;
		}
		if (event_update(out, PS_EVENT_UPDATE_NAME, id, e->name, strlen(e->name) + 1, err) <
		    0)
			return -1;
	}
	return 0;
}

/* ---- the kernel and the tasks that exist ---- */

static void kernel_range(struct ps_recorder *r)
{
	unsigned long long addr;
	char line[512], type, name[256];
	FILE *fp = fopen("/proc/kallsyms", "re");

	if (!fp)
		return;
	while (fgets(line, sizeof(line), fp)) {
		if (sscanf(line, "%llx %c %255s", &addr, &type, name) != 3)
			continue;
		if (strcmp(name, "_text") == 0)
			r->kernel_start = addr;
		else if (strcmp(name, "_etext") == 0)
			r->kernel_end = addr;
		if (r->kernel_start && r->kernel_end)
			break;
	}
	fclose(fp);
	if (r->kernel_end <= r->kernel_start)
		r->kernel_start = r->kernel_end = 0; /* addresses hidden (kptr_restrict) */
}

static int write_kernel_mmap(struct ps_recorder *r, struct ps_output *out, struct ps_error *err)
{
	static const char name[] = "[kernel.kallsyms]_text";
	unsigned char body[8 + 24 + sizeof(name) + 8 + 64];
	size_t off = 0, nlen = PS_ALIGN8(sizeof(name));

	kernel_range(r);
	if (!r->kernel_start)
		return 0;
	memset(body, 0, sizeof(body));
	ps_put32(body, (uint32_t)-1, false);
	ps_put32(body + 4, 0, false);
	ps_put64(body + 8, r->kernel_start, false);
	ps_put64(body + 16, r->kernel_end - r->kernel_start, false);
	ps_put64(body + 24, r->kernel_start, false);
	memcpy(body + 32, name, sizeof(name));
	off = 32 + nlen;
	ps_rec_synth__trailer(r, body + off, 0, 0);
	off += r->trailer_size;
	return ps_rec_put_record(out, PERF_RECORD_MMAP, PERF_RECORD_MISC_KERNEL, body, off, err);
}

static int write_comm(struct ps_recorder *r, struct ps_output *out, pid_t pid, pid_t tid,
                      const char *comm, struct ps_error *err)
{
	unsigned char body[8 + 24 + 64];
	size_t len = strnlen(comm, 15) + 1, off;

	memset(body, 0, sizeof(body));
	ps_put32(body, (uint32_t)pid, false);
	ps_put32(body + 4, (uint32_t)tid, false);
	memcpy(body + 8, comm, len - 1);
	off = 8 + PS_ALIGN8(len);
	ps_rec_synth__trailer(r, body + off, pid, tid);
	off += r->trailer_size;
	return ps_rec_put_record(out, PERF_RECORD_COMM, 0, body, off, err);
}

static int write_mmap2(struct ps_recorder *r, struct ps_output *out, pid_t pid, const char *line,
                       struct ps_error *err)
{
	unsigned long long start, end, pgoff, ino;
	unsigned int maj, min;
	char perms[8], name[PATH_MAX];
	unsigned char *body;
	size_t nlen, off;
	uint32_t prot = 0, flags;
	int pos = 0, ret;

	if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &start, &end, perms, &pgoff, &maj,
	           &min, &ino, &pos) < 7)
		return 0;
	if (strlen(perms) < 4 || perms[2] != 'x')
		return 0; /* only code, as perf record without --data */
	snprintf(name, sizeof(name), "%s", line + pos);
	name[strcspn(name, "\n")] = 0;
	if (!name[0])
		snprintf(name, sizeof(name), "//anon");
	if (perms[0] == 'r')
		prot |= PROT_READ;
	if (perms[1] == 'w')
		prot |= PROT_WRITE;
	prot |= PROT_EXEC;
	flags = perms[3] == 's' ? MAP_SHARED : MAP_PRIVATE;

	nlen = PS_ALIGN8(strlen(name) + 1);
	body = calloc(1, 64 + nlen + r->trailer_size);
	if (!body)
		return ps_error__set(err, PS_ENOMEM, NULL, PS_NO_OFFSET, "out of memory");
	ps_put32(body, (uint32_t)pid, false);
	ps_put32(body + 4, (uint32_t)pid, false);
	ps_put64(body + 8, start, false);
	ps_put64(body + 16, end - start, false);
	ps_put64(body + 24, pgoff, false);
	ps_put32(body + 32, maj, false);
	ps_put32(body + 36, min, false);
	ps_put64(body + 40, ino, false);
	ps_put64(body + 48, 0, false); /* ino_generation */
	ps_put32(body + 56, prot, false);
	ps_put32(body + 60, flags, false);
	off = 64;
	memcpy(body + off, name, strlen(name));
	off += nlen;
	ps_rec_synth__trailer(r, body + off, pid, pid);
	off += r->trailer_size;
	if (r->bids)
		ps_rec_bids__mmap(r->bids, pid, start, end - start, ino, name);
	ret = ps_rec_put_record(out, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER, body, off, err);
	free(body);
	return ret;
}

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

/* COMM for each thread of process @pid, then MMAP2 for each code mapping */
static int synth_process(struct ps_recorder *r, struct ps_output *out, pid_t pid, pid_t only_tid,
                         struct ps_error *err)
{
	char path[PATH_MAX], comm[64], *maps, *line, *next;
	struct dirent *d;
	size_t len;
	DIR *dp;
	int ret = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	dp = opendir(path);
	if (!dp)
		return 0; /* gone meanwhile */
	while (ret == 0 && (d = readdir(dp)) != NULL) {
		pid_t tid;

		if (!all_digits(d->d_name))
			continue;
		tid = (pid_t)atoi(d->d_name);
		if (only_tid && tid != only_tid)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", (int)pid, (int)tid);
		if (ps_rec_read_line(path, comm, sizeof(comm)) < 0)
			continue;
		ret = write_comm(r, out, pid, tid, comm, err);
	}
	closedir(dp);
	if (ret)
		return ret;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	if (ps_rec_read_file(path, &maps, &len, MAX_PROC_FILE) < 0)
		return 0; /* a kernel thread, or gone */
	for (line = maps; ret == 0 && line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		ret = write_mmap2(r, out, pid, line, err);
	}
	free(maps);
	return ret;
}

static pid_t tgid_of(pid_t tid)
{
	char path[64], *buf, *p;
	size_t len;
	long v = tid;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	if (ps_rec_read_file(path, &buf, &len, 1u << 20) < 0)
		return tid;
	p = strstr(buf, "\nTgid:");
	if (p)
		v = strtol(p + 6, NULL, 10);
	free(buf);
	return (pid_t)v;
}

static int synth_tasks(struct ps_recorder *r, struct ps_output *out, struct ps_error *err)
{
	struct dirent *d;
	char path[64], comm[64];
	DIR *dp;
	int ret = 0;

	if (r->cfg.workload && !r->cfg.system_wide) {
		/* not exec'ed yet: its exec will bring COMM and MMAP2 */
		snprintf(path, sizeof(path), "/proc/%d/comm", (int)r->cfg.workload);
		if (ps_rec_read_line(path, comm, sizeof(comm)) < 0)
			snprintf(comm, sizeof(comm), "precord");
		return write_comm(r, out, r->cfg.workload, r->cfg.workload, comm, err);
	}
	if (r->cfg.pid)
		return synth_process(r, out, r->cfg.pid, 0, err);
	if (r->cfg.tid)
		return synth_process(r, out, tgid_of(r->cfg.tid), r->cfg.tid, err);

	dp = opendir("/proc");
	if (!dp)
		return ps_error__sys(err, PS_ESYS, NULL, "cannot read /proc");
	while (ret == 0 && (d = readdir(dp)) != NULL) {
		if (all_digits(d->d_name))
			ret = synth_process(r, out, (pid_t)atoi(d->d_name), 0, err);
	}
	closedir(dp);
	return ret;
}

int ps_rec_synth__header(struct ps_recorder *r, struct ps_output *out, struct ps_error *err)
{
	if (ps_output__begin(out, false, err) < 0 || write_attrs(r, out, err) < 0 ||
	    write_features(r, out, err) < 0 || write_tracing_data(r, out, err) < 0 ||
	    write_id_index(r, out, err) < 0 || write_kernel_mmap(r, out, err) < 0 ||
	    write_event_updates(r, out, err) < 0 || synth_tasks(r, out, err) < 0)
		return -1;
	return ps_rec_put_record(out, PS_RECORD_FINISHED_INIT, 0, NULL, 0, err);
}
