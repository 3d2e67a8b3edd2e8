// SPDX-License-Identifier: GPL-2.0-only
/*
 * recorder.c - the events and their rings: software events by name, perf_event_open per
 * event and CPU (and thread), one ring per CPU with the CPU's other events redirected into
 * it (PERF_EVENT_IOC_SET_OUTPUT), kernel filters, and the drain loop that copies each
 * record out of the rings byte for byte.  Header synthesis is in recorder_synth.c,
 * tracefs in recorder_tracefs.c, the pipeline's own samples in recorder_self.c and
 * build-ids in recorder_buildid.c.
 */
#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "abi.h"
#include "recorder_int.h"
#include "xalloc.h"

#define COPY_BUF (REC_MAX_RECORD + 1)
#define MAX_FILTER 4096 /* the kernel copies at most a page */

struct ps_recorder *ps_recorder__new(struct ps_error *err)
{
	struct ps_recorder *r = calloc(1, sizeof(*r));

	if (r)
		r->copy = malloc(COPY_BUF);
	if (!r || !r->copy) {
		free(r);
		ps_error__set(err, PS_ENOMEM, NULL, PS_NO_OFFSET, "out of memory");
		return NULL;
	}
	return r;
}

void ps_recorder__delete(struct ps_recorder *r)
{
	size_t i, j;
	int k;

	if (!r)
		return;
	for (k = 0; k < r->nr_rings; k++)
		if (r->rings[k].meta)
			munmap(r->rings[k].meta, r->rings[k].map_len);
	for (i = 0; i < r->nr_ev; i++) {
		for (j = 0; j < r->ev[i].nr_inst; j++)
			close(r->ev[i].inst[j].fd);
		free(r->ev[i].inst);
		free(r->ev[i].name);
		free(r->ev[i].sys);
		free(r->ev[i].tp);
		free(r->ev[i].filter);
	}
	free(r->ev);
	free(r->rings);
	free(r->pfd);
	free(r->cpus);
	free(r->threads);
	free(r->copy);
	ps_rec_self__delete(r->self);
	ps_rec_bids__delete(r->bids);
	free(r);
}

/*
 * "cpu-clock", "page-faults:u", "cycles:k": an event of @table (of perf @type), with an
 * optional u/k modifier.  Return: 1 when added, 0 when @spec is not in @table, -1.
 */
static int add_counter(struct ps_recorder *r, const char *spec, const struct rec_sw *table,
                       size_t nr, uint32_t type, struct ps_error *err)
{
	const char *colon = strchr(spec, ':'), *mod = colon ? colon + 1 : "";
	size_t len = colon ? (size_t)(colon - spec) : strlen(spec), i;
	bool u = false, k = false;
	struct rec_event *e;
	char name[64];

	for (i = 0; i < nr; i++)
		if (strlen(table[i].name) == len && strncmp(table[i].name, spec, len) == 0)
			break;
	if (i == nr)
		return 0;
	for (; *mod; mod++) {
		if (*mod == 'u')
			u = true;
		else if (*mod == 'k')
			k = true;
		else
			return ps_error__set(
			        err, PS_EUSAGE, NULL, PS_NO_OFFSET,
			        "unknown modifier '%s' in '%s' (u: user space, k: kernel)",
			        colon + 1, spec);
	}
	while (i > 0 && table[i].alias)
		i--;
	snprintf(name, sizeof(name), "%s%s%s", table[i].name, colon ? ":" : "",
	         colon ? colon + 1 : "");
	e = ps_rec_event__add(r, name);
	if (!e)
		return ps_error__set(err, PS_ENOMEM, NULL, PS_NO_OFFSET, "out of memory");
	e->type = type;
	e->config = table[i].config;
	e->exclude_user = k && !u;
	e->exclude_kernel = u && !k;
	return 1;
}

static int add_one(struct ps_recorder *r, const char *spec, struct ps_error *err)
{
	int n;

	if (!*spec)
		return ps_error__set(err, PS_EUSAGE, NULL, PS_NO_OFFSET, "empty event name");
	n = add_counter(r, spec, ps_rec_sw_events, ps_rec_nr_sw, PERF_TYPE_SOFTWARE, err);
	if (n == 0)
		n = add_counter(r, spec, ps_rec_hw_events, ps_rec_nr_hw, PERF_TYPE_HARDWARE, err);
	if (n != 0)
		return n;
	if (strchr(spec, ':'))
		return ps_rec_tracefs__add(r, spec, err);
	return ps_rec_tracefs__unknown(r, spec, err);
}

int ps_recorder__add_event(struct ps_recorder *r, const char *spec, struct ps_error *err)
{
	char *copy, *tok, *save = NULL;
	int n, total = 0;

	if (r->opened)
		return ps_error__set(err, PS_EUSAGE, NULL, PS_NO_OFFSET,
		                     "events must be added before the recorder is opened");
	r->groups++;
	/* "cpu-clock,page-faults": several events, as perf record takes them */
	copy = strdup(spec);
	if (!copy)
		return ps_error__set(err, PS_ENOMEM, NULL, PS_NO_OFFSET, "out of memory");
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		n = add_one(r, tok, err);
		if (n < 0) {
			free(copy);
			return -1;
		}
		total += n;
	}
	free(copy);
	if (!total)
		return ps_error__set(err, PS_EUSAGE, NULL, PS_NO_OFFSET, "empty event name");
	return total;
}

int ps_recorder__set_filter(struct ps_recorder *r, const char *expr, struct ps_error *err)
{
	size_t i;
	int n = 0;

	if (strlen(expr) >= MAX_FILTER / 2)
		return ps_error__set(err, PS_EUSAGE, NULL, PS_NO_OFFSET, "the filter is too long");
	for (i = 0; i < r->nr_ev; i++) {
		if (r->ev[i].group != r->groups || !r->groups)
			continue;
		if (r->ev[i].type != PERF_TYPE_TRACEPOINT)
			return ps_error__set(err, PS_EUSAGE, NULL, PS_NO_OFFSET,
			                     "--filter applies to tracepoints, and %s is not one",
			                     r->ev[i].name);
		free(r->ev[i].filter);
		r->ev[i].filter = strdup(expr);
		if (!r->ev[i].filter)
			return ps_error__set(err, PS_ENOMEM, NULL, PS_NO_OFFSET, "out of memory");
		n++;
	}
	if (!n)
		return ps_error__set(err, PS_EUSAGE, NULL, PS_NO_OFFSET,
		                     "--filter must follow the -e it applies to");
	return 0;
}

/* ---- opening ---- */

static int event_open(struct perf_event_attr *attr, pid_t pid, int cpu)
{
	int fd = (int)syscall(SYS_perf_event_open, attr, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);

	if (fd < 0 && errno == EINVAL && (attr->read_format & PERF_FORMAT_LOST)) {
		/* kernels before 6.0 do not count lost samples per event */
		attr->read_format &= ~(uint64_t)PERF_FORMAT_LOST;
		fd = (int)syscall(SYS_perf_event_open, attr, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	}
	return fd;
}

static bool pid_alive(pid_t pid)
{
	char path[64], *buf, *p;
	size_t len;
	bool alive;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (ps_rec_read_file(path, &buf, &len, 4096) < 0)
		return false;
	p = strrchr(buf, ')');
	alive = p && p[1] == ' ' && p[2] != 'Z' && p[2] != 'X' && p[2] != 'x';
	free(buf);
	return alive;
}

/* perf record -k's name of a clock */
static const char *clock_name(int32_t clockid)
{
	switch (clockid) {
	case CLOCK_REALTIME:
		return "realtime";
	case CLOCK_BOOTTIME:
		return "boottime";
	case CLOCK_TAI:
		return "tai";
	default:
		return "that clock";
	}
}

static int open_error(struct ps_recorder *r, const struct rec_event *e, int cpu, pid_t tid,
                      int e_no, struct ps_error *err)
{
	long paranoid, max_rate;

	switch (e_no) {
	case EACCES:
	case EPERM:
		paranoid = ps_rec_read_long("/proc/sys/kernel/perf_event_paranoid", 2);
		if (e->type == PERF_TYPE_SOFTWARE && !r->cfg.system_wide && !e->exclude_kernel)
			return ps_error__set(
			        err, PS_ESYS, NULL, PS_NO_OFFSET,
			        "cannot open %s: %s (kernel.perf_event_paranoid is %ld); run as root, allow it with sysctl kernel.perf_event_paranoid=1, or record user space only: -e %s:u",
			        e->name, strerror(e_no), paranoid, e->name);
		return ps_error__set(
		        err, PS_ESYS, NULL, PS_NO_OFFSET,
		        "cannot open %s: %s (kernel.perf_event_paranoid is %ld); run as root, or allow it: sysctl kernel.perf_event_paranoid=-1",
		        e->name, strerror(e_no), paranoid);
	case ESRCH:
		return ps_error__set(err, PS_ESYS, NULL, PS_NO_OFFSET, "no such process: %d",
		                     (int)tid);
	case EMFILE:
	case ENFILE:
		return ps_error__set(
		        err, PS_ESYS, NULL, PS_NO_OFFSET,
		        "cannot open %s: too many open files (%zu events on %d CPUs); raise the limit: ulimit -n",
		        e->name, r->nr_ev, r->nr_cpus);
	case ENOENT:
	case ENODEV:
	case EOPNOTSUPP:
		if (e->type == PERF_TYPE_HARDWARE)
			return ps_error__set(
			        err, PS_ESYS, NULL, PS_NO_OFFSET,
			        "cannot open %s: hardware events are not available on this machine (no CPU performance counters: a virtual machine?); software events such as cpu-clock and tracepoints work",
			        e->name);
		return ps_error__set(
		        err, PS_ESYS, NULL, PS_NO_OFFSET,
		        "cannot open %s: this kernel or machine does not support it (%s)", e->name,
		        strerror(e_no));
	case EINVAL:
		max_rate = ps_rec_read_long("/proc/sys/kernel/perf_event_max_sample_rate", -1);
		if (e->attr.freq && max_rate > 0 && e->attr.sample_freq > (uint64_t)max_rate)
			return ps_error__set(
			        err, PS_ESYS, NULL, PS_NO_OFFSET,
			        "cannot open %s: -F %llu is above kernel.perf_event_max_sample_rate (%ld); use a lower frequency",
			        e->name, (unsigned long long)e->attr.sample_freq, max_rate);
		/* the kernel times an event that may fire in NMI context (a tracepoint, a
		 * hardware counter) only with a clock that is safe there */
		if (e->attr.use_clockid && e->type != PERF_TYPE_SOFTWARE &&
		    e->attr.clockid != CLOCK_MONOTONIC && e->attr.clockid != CLOCK_MONOTONIC_RAW)
			return ps_error__set(
			        err, PS_EUSAGE, NULL, PS_NO_OFFSET,
			        "cannot open %s with -k %s: the kernel times tracepoints and hardware events only with monotonic or monotonic_raw; software events such as cpu-clock take any clock",
			        e->name, clock_name(e->attr.clockid));
		break;
	default:
		break;
	}
	if (tid > 0)
		return ps_error__set(err, PS_ESYS, NULL, PS_NO_OFFSET,
		                     "cannot open %s for thread %d on CPU %d: %s", e->name,
		                     (int)tid, cpu, strerror(e_no));
	return ps_error__set(err, PS_ESYS, NULL, PS_NO_OFFSET, "cannot open %s on CPU %d: %s",
	                     e->name, cpu, strerror(e_no));
}

/*
 * Kernel events are forbidden (kernel.perf_event_paranoid 2 or more, no capability): count
 * user space only, as perf record falls back to ":u".  Not for tracepoints, which are kernel
 * events, nor system-wide, which needs more than that.  Return: 0 when @e changed, -1.
 */
static int user_only(struct ps_recorder *r, struct rec_event *e)
{
	int e_no = errno;
	size_t len;
	char *name;

	if (e->type == PERF_TYPE_TRACEPOINT || e->exclude_kernel || e->exclude_user || e->nr_inst ||
	    r->cfg.system_wide || ps_rec_read_long("/proc/sys/kernel/perf_event_paranoid", 2) < 2)
		goto no;
	len = strlen(e->name);
	name = malloc(len + 3);
	if (!name)
		goto no;
	/* "cpu-clock:u", as perf names it */
	snprintf(name, len + 3, "%.*s:u", (int)strcspn(e->name, ":"), e->name);
	free(e->name);
	e->name = name;
	e->exclude_kernel = true;
	e->attr.exclude_kernel = 1;
	e->attr.exclude_hv = 1;
	r->nr_user_only++;
	return 0;
no:
	errno = e_no;
	return -1;
}

static int setup_cpus(struct ps_recorder *r, struct ps_error *err)
{
	char line[4096] = "", *buf;
	int *online = NULL, n = -1, i, j;
	size_t len;

	if (ps_rec_read_file("/sys/devices/system/cpu/online", &buf, &len, sizeof(line)) == 0) {
		snprintf(line, sizeof(line), "%s", buf);
		line[strcspn(line, "\n")] = 0;
		free(buf);
		n = ps_rec_parse_cpu_list(line, &online);
	}
	if (n < 0) {
		/* no sysfs: CPUs 0..n-1 */
		n = (int)sysconf(_SC_NPROCESSORS_ONLN);
		if (n < 1)
			n = 1;
		online = malloc((size_t)n * sizeof(*online));
		if (!online)
			return ps_error__set(err, PS_ENOMEM, NULL, PS_NO_OFFSET, "out of memory");
		for (i = 0; i < n; i++)
			online[i] = i;
		snprintf(line, sizeof(line), "0-%d", n - 1);
	}
	if (!r->cfg.cpu_list) {
		r->cpus = online;
		r->nr_cpus = n;
		return 0;
	}
	r->nr_cpus = ps_rec_parse_cpu_list(r->cfg.cpu_list, &r->cpus);
	if (r->nr_cpus < 0) {
		free(online);
		r->nr_cpus = 0;
		return ps_error__set(err, PS_EUSAGE, NULL, PS_NO_OFFSET,
		                     "-C: '%s' is not a CPU list (like 0-3,6)", r->cfg.cpu_list);
	}
	for (i = 0; i < r->nr_cpus; i++) {
		for (j = 0; j < n && online[j] != r->cpus[i]; j++)
			;
		if (j == n) {
			ps_error__set(err, PS_EUSAGE, NULL, PS_NO_OFFSET,
			              "-C: CPU %d is not online (online: %s)", r->cpus[i], line);
			free(online);
			return -1;
		}
	}
	free(online);
	return 0;
}

static int add_thread(struct ps_recorder *r, pid_t tid)
{
	pid_t *v = ps_realloc_array(r->threads, (size_t)r->nr_threads + 1, sizeof(*v));

	if (!v)
		return -1;
	r->threads = v;
	r->threads[r->nr_threads++] = tid;
	return 0;
}

static int setup_threads(struct ps_recorder *r, struct ps_error *err)
{
	const struct ps_recorder_config *c = &r->cfg;
	char path[64];
	struct dirent *d;
	DIR *dp;

	if (c->system_wide)
		return add_thread(r, -1) < 0 ?
		               ps_error__set(err, PS_ENOMEM, NULL, PS_NO_OFFSET, "out of memory") :
		               0;
	if (c->workload)
		return add_thread(r, c->workload) < 0 ?
		               ps_error__set(err, PS_ENOMEM, NULL, PS_NO_OFFSET, "out of memory") :
		               0;
	if (c->tid) {
		if (!pid_alive(c->tid))
			return ps_error__set(err, PS_ESYS, NULL, PS_NO_OFFSET, "no such thread: %d",
			                     (int)c->tid);
		return add_thread(r, c->tid) < 0 ?
		               ps_error__set(err, PS_ENOMEM, NULL, PS_NO_OFFSET, "out of memory") :
		               0;
	}
	if (!pid_alive(c->pid))
		return ps_error__set(err, PS_ESYS, NULL, PS_NO_OFFSET, "no such process: %d",
		                     (int)c->pid);
	snprintf(path, sizeof(path), "/proc/%d/task", (int)c->pid);
	dp = opendir(path);
	if (!dp)
		return ps_error__set(err, PS_ESYS, NULL, PS_NO_OFFSET, "no such process: %d",
		                     (int)c->pid);
	while ((d = readdir(dp)) != NULL) {
		pid_t tid = (pid_t)atoi(d->d_name);

		if (tid > 0 && add_thread(r, tid) < 0) {
			closedir(dp);
			return ps_error__set(err, PS_ENOMEM, NULL, PS_NO_OFFSET, "out of memory");
		}
	}
	closedir(dp);
	if (!r->nr_threads)
		return ps_error__set(err, PS_ESYS, NULL, PS_NO_OFFSET, "no such process: %d",
		                     (int)c->pid);
	return 0;
}

static void raise_nofile(size_t need)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur >= need + 64)
		return;
	rl.rlim_cur =
	        rl.rlim_max == RLIM_INFINITY || rl.rlim_max > need + 64 ? need + 64 : rl.rlim_max;
	setrlimit(RLIMIT_NOFILE, &rl);
}

static void build_attr(struct ps_recorder *r, struct rec_event *e, bool first, size_t mark)
{
	struct perf_event_attr *a = &e->attr;
	const struct ps_recorder_config *c = &r->cfg;

	memset(a, 0, sizeof(*a));
	a->type = e->type;
	a->size = REC_ATTR_SIZE;
	a->config = e->config;
	a->sample_type = r->sample_type;
	if (e->type == PERF_TYPE_TRACEPOINT) {
		a->sample_type |= PERF_SAMPLE_RAW;
		a->sample_period = c->period ? c->period : 1;
	} else if (c->period) {
		a->sample_period = c->period;
	} else {
		a->freq = 1;
		a->sample_freq = c->freq ? c->freq : PS_RECORDER_DEFAULT_FREQ;
	}
	a->read_format = PERF_FORMAT_ID | PERF_FORMAT_LOST;
	a->disabled = 1;
	a->inherit = !c->system_wide;
	a->enable_on_exec = c->workload && !c->system_wide;
	a->sample_id_all = 1;
	a->exclude_user = e->exclude_user;
	a->exclude_kernel = e->exclude_kernel;
	a->watermark = 1;
	a->wakeup_watermark = (uint32_t)mark;
	if (c->use_clockid) {
		a->use_clockid = 1;
		a->clockid = c->clockid;
	}
	if (c->callchain && c->stack_dump) {
		/* what perf record --call-graph dwarf asks: the user part is unwound later */
		a->sample_regs_user = PS_RECORDER_REGS_USER;
		a->sample_stack_user = c->stack_dump;
		a->exclude_callchain_user = 1;
	}
	if (first) {
		/* the side-band: one event carries it for all */
		a->mmap = 1;
		a->mmap2 = 1;
		/* unwinding needs every map of the stack's objects, data ones too */
		a->mmap_data = c->callchain && c->stack_dump;
		a->comm = 1;
		a->comm_exec = 1;
		a->task = 1;
	}
}

/* "(user) && common_pid != A && ..." for the pipeline's own pids, system-wide */
static void make_filter(struct ps_recorder *r, const struct rec_event *e, bool with_self, char *out,
                        size_t outlen)
{
	const pid_t *pids;
	size_t n = 0, i, used = 0;

	out[0] = 0;
	if (with_self && r->self && e->type == PERF_TYPE_TRACEPOINT)
		n = ps_rec_self__initial(r->self, &pids);
	if (e->filter)
		used += (size_t)snprintf(out, outlen, n ? "(%s)" : "%s", e->filter);
	for (i = 0; i < n && used + 32 < outlen; i++)
		used += (size_t)snprintf(out + used, outlen - used, "%scommon_pid != %d",
		                         used ? " && " : "", (int)pids[i]);
}

static int set_filter(struct ps_recorder *r, struct rec_event *e, int fd, struct ps_error *err)
{
	char filter[MAX_FILTER];

	if (e->type != PERF_TYPE_TRACEPOINT)
		return 0;
	make_filter(r, e, true, filter, sizeof(filter));
	if (!filter[0] || ioctl(fd, PERF_EVENT_IOC_SET_FILTER, filter) == 0)
		return 0;
	/* the pipeline is left out in user space anyway; only the user's filter must hold */
	make_filter(r, e, false, filter, sizeof(filter));
	if (!filter[0] || ioctl(fd, PERF_EVENT_IOC_SET_FILTER, filter) == 0)
		return 0;
	return ps_error__set(
	        err, PS_EUSAGE, NULL, PS_NO_OFFSET,
	        "the kernel rejects the filter '%s' for %s: %s (see the event's fields in %s/events/%s/%s/format)",
	        e->filter, e->name, strerror(errno), r->tracefs, e->sys, e->tp);
}

/* -1 with errno when the kernel refuses; @err is filled only when @err is not NULL */
static int map_ring(struct rec_ring *ring, int fd, int cpu, size_t pages, struct ps_error *err)
{
	size_t psz = (size_t)sysconf(_SC_PAGESIZE), len = (pages + 1) * psz;
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);

	if (p == MAP_FAILED) {
		if (!err)
			return -1;
		if (errno == EPERM)
			return ps_error__set(
			        err, PS_ESYS, NULL, PS_NO_OFFSET,
			        "cannot map a ring of %zu pages on CPU %d: %s; use a smaller -m, or raise kernel.perf_event_mlock_kb",
			        pages, cpu, strerror(errno));
		return ps_error__set(err, PS_ESYS, NULL, PS_NO_OFFSET,
		                     "cannot map a ring of %zu pages on CPU %d: %s", pages, cpu,
		                     strerror(errno));
	}
	ring->fd = fd;
	ring->cpu = cpu;
	ring->meta = p;
	ring->data = (unsigned char *)p + psz;
	ring->size = pages * psz;
	ring->map_len = len;
	return 0;
}

int ps_recorder__open(struct ps_recorder *r, const struct ps_recorder_config *cfg,
                      struct ps_error *err)
{
	size_t pages = cfg->mmap_pages, i, per_event, mark, min_pages;
	size_t psz = (size_t)sysconf(_SC_PAGESIZE);
	int ci, t;

	if (r->opened)
		return ps_error__set(err, PS_EUSAGE, NULL, PS_NO_OFFSET, "already open");
	r->cfg = *cfg;
	if (pages & (pages - 1))
		return ps_error__set(err, PS_EUSAGE, NULL, PS_NO_OFFSET,
		                     "-m: %zu pages is not a power of two", pages);
	if (!r->nr_ev && ps_recorder__add_event(r, "cpu-clock", err) < 0)
		return -1;
	if (setup_cpus(r, err) < 0 || setup_threads(r, err) < 0)
		return -1;
	/*
	 * Without -m: large rings, which a storm of events needs to get through the moments
	 * the recorder is not running (perf record's 512 KiB per CPU fill in a few ms and
	 * lose events); they fall back to that size where the kernel will not lock so much.
	 * The wake-up mark is that of the smallest ring, so it holds after a fallback too.
	 */
	min_pages = PS_RECORDER_RING_MIN / psz ? PS_RECORDER_RING_MIN / psz : 1;
	if (!pages) {
		pages = PS_RECORDER_RING_MAX / psz ? PS_RECORDER_RING_MAX / psz : 1;
		while (pages > min_pages &&
		       pages * psz * (size_t)(r->nr_cpus > 0 ? r->nr_cpus : 1) >
		               PS_RECORDER_RING_TOTAL)
			pages /= 2;
		mark = min_pages * psz / 2;
	} else {
		mark = pages * psz / 2;
	}
	if (cfg->system_wide && cfg->exclude_self) {
		r->self = ps_rec_self__new(cfg->workload, cfg);
		if (!r->self)
			return ps_error__set(err, PS_ENOMEM, NULL, PS_NO_OFFSET, "out of memory");
	}
	r->bids = ps_rec_bids__new();
	if (!r->bids)
		return ps_error__set(err, PS_ENOMEM, NULL, PS_NO_OFFSET, "out of memory");

	/* every attr agrees on where a record's id and pid are: perf needs it */
	r->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
	                 PERF_SAMPLE_PERIOD;
	r->sample_type |= r->nr_ev > 1 ? PERF_SAMPLE_IDENTIFIER : PERF_SAMPLE_ID;
	if (cfg->callchain)
		r->sample_type |= PERF_SAMPLE_CALLCHAIN;
	if (cfg->callchain && cfg->stack_dump)
		r->sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
	r->pid_off = 8 + (r->nr_ev > 1 ? 8 : 0) + 8;
	r->trailer_size = 32; /* TID, TIME, ID or IDENTIFIER, CPU */
	for (i = 0; i < r->nr_ev; i++)
		build_attr(r, &r->ev[i], i == 0, mark);

	per_event = (size_t)r->nr_cpus * (size_t)r->nr_threads;
	raise_nofile(r->nr_ev * per_event);
	r->rings = calloc((size_t)r->nr_cpus, sizeof(*r->rings));
	r->pfd = calloc((size_t)r->nr_cpus + 1, sizeof(*r->pfd));
	if (!r->rings || !r->pfd)
		return ps_error__set(err, PS_ENOMEM, NULL, PS_NO_OFFSET, "out of memory");
	for (i = 0; i < r->nr_ev; i++) {
		r->ev[i].inst = calloc(per_event, sizeof(*r->ev[i].inst));
		if (!r->ev[i].inst)
			return ps_error__set(err, PS_ENOMEM, NULL, PS_NO_OFFSET, "out of memory");
	}
	r->opened = true;

	for (ci = 0; ci < r->nr_cpus; ci++) {
		struct rec_ring *ring = &r->rings[r->nr_rings];
		int cpu = r->cpus[ci], ring_fd = -1;

		for (i = 0; i < r->nr_ev; i++) {
			struct rec_event *e = &r->ev[i];

			for (t = 0; t < r->nr_threads; t++) {
				pid_t tid = r->threads[t];
				struct rec_inst *in;
				uint64_t id;
				int fd;

				fd = event_open(&e->attr, tid, cpu);
				if (fd < 0 && (errno == EACCES || errno == EPERM) &&
				    user_only(r, e) == 0)
					fd = event_open(&e->attr, tid, cpu);
				if (fd < 0 && errno == ESRCH && cfg->pid && tid != cfg->pid)
					continue; /* a thread that ended meanwhile */
				if (fd < 0)
					return open_error(r, e, cpu, tid, errno, err);
				in = &e->inst[e->nr_inst++];
				in->fd = fd;
				in->cpu = cpu;
				in->tid = tid;
				if (ioctl(fd, PERF_EVENT_IOC_ID, &id) < 0)
					return ps_error__sys(err, PS_ESYS, NULL,
					                     "cannot read the id of %s", e->name);
				in->id = id;
				if (ring_fd < 0) {
					/* without -m, a refused large ring falls back to perf's */
					while (map_ring(ring, fd, cpu, pages,
					                cfg->mmap_pages || pages <= min_pages ?
					                        err :
					                        NULL) < 0) {
						if (cfg->mmap_pages || pages <= min_pages)
							return -1;
						pages = min_pages;
					}
					ring_fd = fd;
					r->nr_rings++;
				} else if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, ring_fd) < 0) {
					return ps_error__sys(
					        err, PS_ESYS, NULL,
					        "cannot share the ring of CPU %d with %s", cpu,
					        e->name);
				}
				if (set_filter(r, e, fd, err) < 0)
					return -1;
			}
		}
	}
	return 0;
}

int ps_recorder__write_header(struct ps_recorder *r, struct ps_output *out, struct ps_error *err)
{
	return ps_rec_synth__header(r, out, err);
}

static void ioctl_all(struct ps_recorder *r, unsigned long req)
{
	size_t i, j;

	for (i = 0; i < r->nr_ev; i++)
		for (j = 0; j < r->ev[i].nr_inst; j++)
			ioctl(r->ev[i].inst[j].fd, req, 0);
}

int ps_recorder__enable(struct ps_recorder *r, struct ps_error *err)
{
	size_t i, j;

	if (r->cfg.workload && !r->cfg.system_wide)
		return 0; /* enable_on_exec */
	for (i = 0; i < r->nr_ev; i++)
		for (j = 0; j < r->ev[i].nr_inst; j++)
			if (ioctl(r->ev[i].inst[j].fd, PERF_EVENT_IOC_ENABLE, 0) < 0)
				return ps_error__sys(err, PS_ESYS, NULL, "cannot enable %s",
				                     r->ev[i].name);
	return 0;
}

void ps_recorder__disable(struct ps_recorder *r)
{
	ioctl_all(r, PERF_EVENT_IOC_DISABLE);
}

int ps_recorder__wait(struct ps_recorder *r, int timeout_ms, int extra_fd)
{
	int i, n = 0, ret = 0, got;

	for (i = 0; i < r->nr_rings; i++) {
		if (r->rings[i].hup)
			continue;
		r->pfd[n].fd = r->rings[i].fd;
		r->pfd[n].events = POLLIN;
		r->pfd[n].revents = 0;
		n++;
	}
	if (extra_fd >= 0) {
		r->pfd[n].fd = extra_fd;
		r->pfd[n].events = POLLIN;
		r->pfd[n].revents = 0;
		n++;
	}
	got = poll(r->pfd, (nfds_t)n, timeout_ms);
	if (got <= 0)
		return got;
	for (i = 0; i < n; i++) {
		int k;

		if (!r->pfd[i].revents)
			continue;
		if (extra_fd >= 0 && i == n - 1) {
			ret |= PS_RECORDER_EXTRA;
			continue;
		}
		ret |= PS_RECORDER_DATA;
		if (!(r->pfd[i].revents & (POLLHUP | POLLERR)))
			continue;
		/* its task is gone: stop waiting on it (it is still drained) */
		for (k = 0; k < r->nr_rings; k++)
			if (r->rings[k].fd == r->pfd[i].fd)
				r->rings[k].hup = true;
	}
	return ret;
}

bool ps_recorder__targets_gone(const struct ps_recorder *r)
{
	if (r->cfg.system_wide || r->cfg.workload)
		return false;
	return !pid_alive(r->cfg.pid ? r->cfg.pid : r->cfg.tid);
}

/*
 * The lost count: LOST records report what the kernel could not write into a ring when it
 * could write again; LOST_SAMPLES (from the events' own counts, at the end) report every
 * lost sample, those included.  The larger of the two is what was lost.
 */
static void update_lost(struct ps_recorder *r)
{
	r->st.lost = r->lost_samples > r->lost_in_records ? r->lost_samples : r->lost_in_records;
}

/* ---- draining ---- */

static void sample_ips(struct ps_recorder *r, const unsigned char *rec, uint16_t size)
{
	pid_t pid = (pid_t)ps_get32(rec + r->pid_off, false);
	unsigned int mode = ps_get16(rec + 4, false) & PERF_RECORD_MISC_CPUMODE_MASK;
	size_t off = r->pid_off - 8;
	uint64_t nr, i, ip;

	ps_rec_bids__sample(r->bids, pid, mode, ps_get64(rec + off, false));
	if (!(r->sample_type & PERF_SAMPLE_CALLCHAIN))
		return;
	/* IP TID TIME [ID] CPU PERIOD, then the chain */
	off = r->pid_off + 8 + 8 + (r->sample_type & PERF_SAMPLE_ID ? 8 : 0) + 8 + 8;
	if (off + 8 > size)
		return;
	nr = ps_get64(rec + off, false);
	off += 8;
	if (nr > (size - off) / 8)
		return;
	for (i = 0; i < nr; i++, off += 8) {
		ip = ps_get64(rec + off, false);
		if (ip >= (uint64_t)PERF_CONTEXT_MAX) {
			if (ip == (uint64_t)PERF_CONTEXT_KERNEL)
				mode = PERF_RECORD_MISC_KERNEL;
			else if (ip == (uint64_t)PERF_CONTEXT_USER)
				mode = PERF_RECORD_MISC_USER;
			else
				mode = PERF_RECORD_MISC_CPUMODE_UNKNOWN;
			continue;
		}
		ps_rec_bids__sample(r->bids, pid, mode, ip);
	}
}

/* the filename of an MMAP (@off 40) or MMAP2 (@off 72) record, bounded by its trailer */
static void note_mmap(struct ps_recorder *r, const unsigned char *rec, uint16_t size,
                      size_t name_off)
{
	uint64_t ino = 0;
	char name[4096];
	size_t max;

	if (size < name_off + r->trailer_size + 1)
		return;
	max = size - name_off - r->trailer_size;
	if (max >= sizeof(name))
		max = sizeof(name) - 1;
	memcpy(name, rec + name_off, max);
	name[max] = 0;
	if (name_off == 72 && !(ps_get16(rec + 4, false) & PERF_RECORD_MISC_MMAP_BUILD_ID))
		ino = ps_get64(rec + 48, false);
	ps_rec_bids__mmap(r->bids, (pid_t)ps_get32(rec + 8, false), ps_get64(rec + 16, false),
	                  ps_get64(rec + 24, false), ino, name);
}

/* Return: 1 written, 0 left out, -1 output error */
static int handle(struct ps_recorder *r, const unsigned char *rec, uint16_t size,
                  struct ps_output *out, struct ps_error *err)
{
	uint32_t type = ps_get32(rec, false);
	uint16_t misc = ps_get16(rec + 4, false);

	switch (type) {
	case PERF_RECORD_SAMPLE:
		if (size < r->pid_off + 8)
			break;
		if (r->self &&
		    ps_rec_self__drop(r->self, (pid_t)ps_get32(rec + r->pid_off, false))) {
			r->st.dropped_self++;
			return 0;
		}
		sample_ips(r, rec, size);
		r->st.samples++;
		break;
	case PERF_RECORD_MMAP:
		if ((misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_USER)
			note_mmap(r, rec, size, 40);
		break;
	case PERF_RECORD_MMAP2:
		note_mmap(r, rec, size, 72);
		break;
	case PERF_RECORD_COMM:
		if (size >= 16 && (misc & PERF_RECORD_MISC_COMM_EXEC))
			ps_rec_bids__exec(r->bids, (pid_t)ps_get32(rec + 8, false));
		break;
	case PERF_RECORD_FORK:
		if (size >= 16) {
			pid_t pid = (pid_t)ps_get32(rec + 8, false);
			pid_t ppid = (pid_t)ps_get32(rec + 12, false);

			if (r->self)
				ps_rec_self__fork(r->self, pid, ppid);
			ps_rec_bids__fork(r->bids, pid, ppid);
		}
		break;
	case PERF_RECORD_EXIT:
		if (size >= 24 && ps_get32(rec + 8, false) == ps_get32(rec + 16, false))
			ps_rec_bids__exit(r->bids, (pid_t)ps_get32(rec + 8, false));
		break;
	case PERF_RECORD_LOST:
		if (size >= 24) {
			r->lost_in_records += ps_get64(rec + 16, false);
			r->st.lost_records++;
			update_lost(r);
		}
		break;
	case PERF_RECORD_LOST_SAMPLES:
		if (size >= 16) {
			r->lost_samples += ps_get64(rec + 8, false);
			update_lost(r);
		}
		break;
	default:
		break;
	}
	return ps_output__write(out, rec, size, err) < 0 ? -1 : 1;
}

/*
 * A ring that overflowed just before its task went quiet never gets the LOST record the
 * kernel writes with the next event; the event's own count (read_format LOST) still has
 * it.  Write one LOST_SAMPLES record per instance that lost samples, as perf record does.
 */
static int write_lost_samples(struct ps_recorder *r, struct ps_output *out, struct ps_error *err)
{
	unsigned char body[8 + 64];
	size_t i, k;

	for (i = 0; i < r->nr_ev; i++) {
		struct rec_event *e = &r->ev[i];

		if (!(e->attr.read_format & PERF_FORMAT_LOST))
			continue;
		for (k = 0; k < e->nr_inst; k++) {
			uint64_t v[4] = { 0 }; /* value, id, lost */
			unsigned char *t = body + 8;
			size_t pos = 8; /* TID */

			if (e->inst[k].fd < 0 || read(e->inst[k].fd, v, sizeof(v)) < 24 || !v[2])
				continue;
			ps_put64(body, v[2], false);
			ps_rec_synth__trailer(r, t, 0, 0);
			if (r->sample_type & PERF_SAMPLE_TIME)
				pos += 8;
			if (r->sample_type & PERF_SAMPLE_ID)
				ps_put64(t + pos, v[1], false);
			else if (r->sample_type & PERF_SAMPLE_IDENTIFIER)
				ps_put64(t + r->trailer_size - 8, v[1], false);
			if (ps_rec_put_record(out, PERF_RECORD_LOST_SAMPLES, 0, body,
			                      8 + r->trailer_size, err) < 0)
				return -1;
			r->lost_samples += v[2];
		}
	}
	update_lost(r);
	return 0;
}

/* Return: records written from this ring, or -1 on an output error */
static long drain_ring(struct ps_recorder *r, struct rec_ring *ring, struct ps_output *out,
                       struct ps_error *err)
{
	uint64_t head = __atomic_load_n(&ring->meta->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = ring->meta->data_tail;
	size_t mask = ring->size - 1;
	long written = 0;
	int ret = 0;

	while (tail < head) {
		size_t off = (size_t)(tail & mask);
		const unsigned char *rec = ring->data + off;
		uint16_t size = ps_get16(rec + 6, false);

		if (size < sizeof(struct perf_event_header) || size > head - tail) {
			tail = head; /* cannot happen; never loop on it */
			break;
		}
		if (off + size > ring->size) {
			size_t first = ring->size - off;

			memcpy(r->copy, rec, first);
			memcpy(r->copy + first, ring->data, size - first);
			rec = r->copy;
		}
		ret = handle(r, rec, size, out, err);
		if (ret < 0)
			break;
		written += ret;
		tail += size;
	}
	if (ret < 0)
		tail = head; /* nobody reads: let the kernel go on */
	__atomic_store_n(&ring->meta->data_tail, tail, __ATOMIC_RELEASE);
	return ret < 0 ? -1 : written;
}

long ps_recorder__drain(struct ps_recorder *r, struct ps_output *out, struct ps_error *err)
{
	long total = 0, n;
	int i;

	for (i = 0; i < r->nr_rings; i++) {
		n = drain_ring(r, &r->rings[i], out, err);
		if (n < 0)
			return -1;
		total += n;
	}
	if (total) {
		if (ps_rec_put_record(out, PS_RECORD_FINISHED_ROUND, 0, NULL, 0, err) < 0)
			return -1;
		r->st.rounds++;
		ps_rec_bids__round(r->bids);
	}
	return total;
}

int ps_recorder__finish(struct ps_recorder *r, struct ps_output *out, struct ps_error *err)
{
	if (write_lost_samples(r, out, err) < 0)
		return -1;
	if (r->bids && ps_rec_bids__write(r->bids, out, err) < 0)
		return -1;
	return ps_output__flush(out, err);
}

size_t ps_recorder__nr_events(const struct ps_recorder *r)
{
	return r->nr_ev;
}

size_t ps_recorder__nr_user_only(const struct ps_recorder *r)
{
	return r->nr_user_only;
}

void ps_recorder__stats(const struct ps_recorder *r, struct ps_recorder_stats *st)
{
	*st = r->st;
}

size_t ps_recorder__left_out(const struct ps_recorder *r, const struct ps_recorder_proc **procs,
                             size_t *more, size_t *later)
{
	*more = *later = 0;
	*procs = NULL;
	return r->self ? ps_rec_self__found(r->self, procs, more, later) : 0;
}

int ps_recorder__list_events(void (*fn)(const char *name, const char *kind, void *arg), void *arg,
                             struct ps_error *err)
{
	size_t i;

	for (i = 0; i < ps_rec_nr_sw; i++)
		if (!ps_rec_sw_events[i].alias)
			fn(ps_rec_sw_events[i].name, "Software event", arg);
	return ps_rec_tracefs__list(NULL, fn, arg, err);
}
