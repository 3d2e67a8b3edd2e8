// SPDX-License-Identifier: GPL-2.0-only
/*
 * precord - record kernel events (tracepoints, software events) straight into a perf pipe
 * stream that perf script and perf report read.  See precord(1).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib/diag.h"
#include "lib/duration.h"
#include "lib/opts.h"
#include "lib/output.h"
#include "lib/recorder.h"
#include "lib/signals.h"

#define DRAIN_MS 10    /* the longest an event waits in a ring: the stream stays live */
#define MANY_EVENTS 50 /* from this many events, say what takes the time on a terminal */

enum {
	OPT_FILTER = PS_OPT_LONG,
	OPT_DURATION,
	OPT_NO_EXCLUDE_SELF,
	OPT_CALL_GRAPH,
};

struct event_opt {
	const char *spec;   /* -e */
	const char *filter; /* --filter after it, or NULL */
};

struct opts {
	struct ps_recorder_config cfg;
	const char *output; /* -o FILE; NULL or "-" is standard output */
	bool all_cpus;      /* -a */
	bool force;         /* -f */
	bool list;          /* -l */
	bool quiet;         /* -q */
	double duration;    /* --duration; 0: until the end */
	struct event_opt *events;
	int nr_events;
	char **cmd; /* operands: the workload */
};

struct workload {
	pid_t pid;
	int go_fd;  /* a byte written here lets it exec */
	int err_fd; /* the errno of a failed exec comes back here */
	int pidfd;  /* readable when it exits; -1 when the kernel has no pidfd */
	bool exited;
	int status;
};

static const struct ps_cmdline cmdline = {
	.usage = "usage: precord [-afglq] [-e event] ... [option ...] [command [argument ...]]\n",
	.about = "Record kernel events into a perf pipe stream that perf script and perf report\n"
	         "read.  With a command, record it (and its children) while it runs.\n",
	.opts = {
		PS_OPT_FLAG("all-cpus", 'a', "record every task on every CPU", struct opts, all_cpus),
		PS_OPT("cpu", 'C', PS_ARG_REQUIRED, "CPUS", "record every task on these CPUs (0-3,6)"),
		PS_OPT("count", 'c', PS_ARG_REQUIRED, "PERIOD", "sample every PERIOD events"),
		PS_OPT("event", 'e', PS_ARG_REQUIRED, "EVENT",
		       "event to record (repeatable): cpu-clock, page-faults,\n"
		       "cycles, sched:sched_switch, 'syscalls:sys_enter_*'..."),
		PS_OPT("filter", OPT_FILTER, PS_ARG_REQUIRED, "EXPR",
		       "kernel filter for the tracepoints of the -e before it"),
		PS_OPT("freq", 'F', PS_ARG_REQUIRED, "HZ",
		       "sample software events HZ times a second (4000)"),
		PS_OPT_FORCE_ROW,
		PS_OPT(NULL, 'g', PS_ARG_NONE, NULL, "record call chains from frame pointers"),
		PS_OPT("call-graph", OPT_CALL_GRAPH, PS_ARG_REQUIRED, "MODE",
		       "fp: frame pointers; dwarf[,SIZE]: the user registers and\n"
		       "SIZE bytes of user stack (8192), unwound when read"),
		PS_OPT("clockid", 'k', PS_ARG_REQUIRED, "CLOCK",
		       "time samples with CLOCK: monotonic (the default),\n"
		       "monotonic_raw, realtime, boottime, tai"),
		PS_OPT_FLAG("list", 'l', "list the events that can be recorded", struct opts, list),
		PS_OPT("mmap-pages", 'm', PS_ARG_REQUIRED, "PAGES",
		       "ring size per CPU, a power of two (16 MiB, 64 MiB\n"
		       "over all CPUs at most)"),
		{ "output", 'o', PS_ARG_REQUIRED, "FILE",
		  "write to FILE instead of standard output (the command\n"
		  "then keeps its own standard output)",
		  PS_OPTG_OUTPUT, 0 },
		PS_OPT("pid", 'p', PS_ARG_REQUIRED, "PID",
		       "record this process (and the children it starts)"),
		{ "quiet", 'q', PS_ARG_NONE, NULL, "no summary line at the end, nor what it opens/closes",
		  PS_OPTG_QUIET, 0 },
		PS_OPT("tid", 't', PS_ARG_REQUIRED, "TID",
		       "record this thread (and the children it starts)"),
		PS_OPT("duration", OPT_DURATION, PS_ARG_REQUIRED, "TIME",
		       "stop after TIME (10, 10s, 500ms, 2m, 1h)"),
		PS_OPT("no-exclude-self", OPT_NO_EXCLUDE_SELF, PS_ARG_NONE, NULL,
		       "also record precord's own pipeline (-a, -C)"),
	},
	.in_order = true, /* the first operand starts the command, whose options are its own */
};

/* --call-graph fp | dwarf[,SIZE], as perf record takes it */
static void parse_call_graph(const char *arg, struct ps_recorder_config *cfg)
{
	cfg->callchain = true;
	cfg->stack_dump = 0;
	if (strcmp(arg, "fp") == 0)
		return;
	if (strncmp(arg, "dwarf", 5) != 0 || (arg[5] && arg[5] != ','))
		ps_usage_error("--call-graph: unknown mode '%s'; the modes are fp and dwarf[,SIZE]",
		               arg);
	cfg->stack_dump = PS_RECORDER_STACK_DUMP;
	if (arg[5] == ',')
		/* the kernel takes at most 65528 bytes, a multiple of 8 */
		cfg->stack_dump =
		        (uint32_t)((ps_parse_u64(arg + 6, 8, 65528, "--call-graph dwarf,SIZE") +
		                    7) &
		                   ~7ull);
}

/* -k: perf record's clock names (and aliases), a CLOCK_ prefix, or a number */
static int parse_clockid(const char *arg)
{
	static const struct {
		const char *name;
		int id;
	} clocks[] = {
		{ "monotonic", CLOCK_MONOTONIC },
		{ "mono", CLOCK_MONOTONIC },
		{ "monotonic_raw", CLOCK_MONOTONIC_RAW },
		{ "raw", CLOCK_MONOTONIC_RAW },
		{ "realtime", CLOCK_REALTIME },
		{ "real", CLOCK_REALTIME },
		{ "boottime", CLOCK_BOOTTIME },
		{ "boot", CLOCK_BOOTTIME },
		{ "tai", CLOCK_TAI },
	};
	const char *name = strncasecmp(arg, "CLOCK_", 6) == 0 ? arg + 6 : arg;
	size_t i;

	for (i = 0; i < sizeof(clocks) / sizeof(clocks[0]); i++)
		if (strcasecmp(name, clocks[i].name) == 0)
			return clocks[i].id;
	if (*arg >= '0' && *arg <= '9')
		return (int)ps_parse_u64(arg, 0, 15, "-k");
	ps_usage_error("-k: unknown clock '%s'; the clocks are monotonic (mono), monotonic_raw "
	               "(raw), realtime (real), boottime (boot), tai",
	               arg);
}

static void add_event(struct opts *o, const char *spec)
{
	struct event_opt *v = realloc(o->events, (size_t)(o->nr_events + 1) * sizeof(*v));

	if (!v)
		ps_die_nomem();
	o->events = v;
	o->events[o->nr_events].spec = spec;
	o->events[o->nr_events].filter = NULL;
	o->nr_events++;
}

static void parse_args(int argc, char **argv, struct opts *o)
{
	struct ps_common_opts co;
	struct ps_args a;
	bool have_c = false, have_f = false;
	int c;

	memset(o, 0, sizeof(*o));
	o->cfg.exclude_self = true;
	/* sample times that map to the time of day (CLOCK_DATA), as perf record -k mono */
	o->cfg.use_clockid = true;
	o->cfg.clockid = CLOCK_MONOTONIC;
	ps_args__init(&a, &cmdline, argc, argv, &co);
	a.flags = o;
	while ((c = ps_args__next(&a)) != -1) {
		switch (c) {
		case 'C':
			o->cfg.cpu_list = a.arg;
			break;
		case 'F':
			o->cfg.freq = ps_parse_u64(a.arg, 1, 1000000, "-F");
			have_f = true;
			break;
		case 'c':
			o->cfg.period = ps_parse_u64(a.arg, 1, UINT64_MAX >> 1, "-c");
			have_c = true;
			break;
		case 'e':
			add_event(o, a.arg);
			break;
		case 'g':
			o->cfg.callchain = true;
			o->cfg.stack_dump = 0;
			break;
		case OPT_CALL_GRAPH:
			parse_call_graph(a.arg, &o->cfg);
			break;
		case 'k':
			o->cfg.clockid = parse_clockid(a.arg);
			break;
		case 'm':
			o->cfg.mmap_pages = (unsigned int)ps_parse_u64(a.arg, 1, 1u << 20, "-m");
			break;
		case 'p':
			o->cfg.pid = (pid_t)ps_parse_u64(a.arg, 1, INT_MAX, "-p");
			break;
		case 't':
			o->cfg.tid = (pid_t)ps_parse_u64(a.arg, 1, INT_MAX, "-t");
			break;
		case OPT_DURATION:
			/* up to 115 days, the longest poll() timeout in milliseconds */
			o->duration =
			        (double)ps_parse_duration(a.arg, 1000000, 10000000 * PS_NS_PER_SEC,
			                                  "--duration") /
			        1e9;
			break;
		case OPT_FILTER:
			if (!o->nr_events)
				ps_usage_error("--filter must follow the -e it applies to");
			o->events[o->nr_events - 1].filter = a.arg;
			break;
		case OPT_NO_EXCLUDE_SELF:
			o->cfg.exclude_self = false;
			break;
		}
	}
	o->output = co.output;
	o->force = co.force;
	o->quiet = co.quiet;
	o->cmd = argv + a.optind;
	if (have_c && have_f)
		ps_usage_error("-c and -F exclude each other");
	if (o->cfg.pid && o->cfg.tid)
		ps_usage_error("-p and -t exclude each other");
	if ((o->cfg.pid || o->cfg.tid) && (o->all_cpus || o->cfg.cpu_list))
		ps_usage_error("-p and -t record tasks; -a and -C record CPUs: choose one");
	if ((o->cfg.pid || o->cfg.tid) && o->cmd[0])
		ps_usage_error("-p and -t record running tasks; a command cannot be given too");
	if (o->list && (o->nr_events || o->cmd[0]))
		ps_usage_error("-l lists the events and records nothing");
	o->cfg.system_wide =
	        o->all_cpus || o->cfg.cpu_list || (!o->cfg.pid && !o->cfg.tid && !o->cmd[0]);
	o->cfg.argc = argc;
	o->cfg.argv = argv;
}

static void print_event(const char *name, const char *kind, void *arg)
{
	(void)arg;
	printf("  %-52s [%s]\n", name, kind);
}

static int list_events(void)
{
	struct ps_error err = { 0 };
	int r = ps_recorder__list_events(print_event, NULL, &err);

	if (ps_finish_stdout() < 0)
		return 1;
	if (r < 0) {
		ps_warn(&err);
		return 1;
	}
	return 0;
}

/* ---- the workload ---- */

static void read_full(int fd, void *buf, size_t len, ssize_t *got)
{
	ssize_t n;

	do
		n = read(fd, buf, len);
	while (n < 0 && errno == EINTR);
	*got = n;
}

/* @stdout_is_stream: the stream goes to standard output, which the workload must not share */
static int workload_fork(char **cmd, bool stdout_is_stream, struct workload *w,
                         struct ps_error *err)
{
	int go[2], ef[2];
	ssize_t n;
	char c;

	memset(w, 0, sizeof(*w));
	w->pidfd = w->go_fd = w->err_fd = -1;
	if (pipe2(go, O_CLOEXEC) < 0)
		return ps_error__sys(err, PS_ESYS, NULL, "cannot make a pipe");
	if (pipe2(ef, O_CLOEXEC) < 0) {
		close(go[0]);
		close(go[1]);
		return ps_error__sys(err, PS_ESYS, NULL, "cannot make a pipe");
	}
	w->pid = fork();
	if (w->pid < 0) {
		close(go[0]);
		close(go[1]);
		close(ef[0]);
		close(ef[1]);
		return ps_error__sys(err, PS_ESYS, NULL, "cannot fork");
	}
	if (w->pid == 0) {
		int e;

		close(go[1]);
		close(ef[0]);
		ps_signals__child_reset();
		/* its output must never mix into the stream */
		if (stdout_is_stream && dup2(2, 1) < 0)
			_exit(127);
		/* wait until the events are on */
		read_full(go[0], &c, 1, &n);
		if (n != 1)
			_exit(127);
		execvp(cmd[0], cmd);
		e = errno;
		if (write(ef[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(e == ENOENT ? 127 : 126);
	}
	close(go[0]);
	close(ef[1]);
	w->go_fd = go[1];
	w->err_fd = ef[0];
	return 0;
}

/* let it exec; Return: 0, or the errno of a failed exec */
static int workload_start(struct workload *w)
{
	ssize_t n;
	int e = 0;

	if (write(w->go_fd, "g", 1) != 1)
		e = errno;
	close(w->go_fd);
	w->go_fd = -1;
	if (!e) {
		read_full(w->err_fd, &e, sizeof(e), &n);
		if (n != (ssize_t)sizeof(e))
			e = 0; /* closed by a successful exec */
	}
	close(w->err_fd);
	w->err_fd = -1;
#ifdef SYS_pidfd_open
	w->pidfd = (int)syscall(SYS_pidfd_open, w->pid, 0);
#endif
	return e;
}

static void workload_reap(struct workload *w, bool block)
{
	if (!w->pid || w->exited)
		return;
	if (waitpid(w->pid, &w->status, block ? 0 : WNOHANG) == w->pid)
		w->exited = true;
}

/* the recording ended before it did: ask it to stop, then insist */
static void workload_stop(struct workload *w)
{
	int i;

	if (!w->pid || w->exited)
		return;
	if (w->go_fd >= 0) {
		close(w->go_fd); /* never started: it exits by itself */
		w->go_fd = -1;
	} else {
		kill(w->pid, SIGTERM);
	}
	for (i = 0; i < 40 && !w->exited; i++) {
		workload_reap(w, false);
		if (!w->exited)
			poll(NULL, 0, 50);
	}
	if (!w->exited)
		kill(w->pid, SIGKILL);
	workload_reap(w, true);
}

static void workload_close(struct workload *w)
{
	if (w->go_fd >= 0)
		close(w->go_fd);
	if (w->err_fd >= 0)
		close(w->err_fd);
	if (w->pidfd >= 0)
		close(w->pidfd);
}

static int exit_status_of(const struct workload *w)
{
	if (WIFEXITED(w->status))
		return WEXITSTATUS(w->status);
	if (WIFSIGNALED(w->status))
		return 128 + WTERMSIG(w->status);
	return 1;
}

/* ---- the recording ---- */

/* The pipe or FIFO the stream goes into: its readers are the pipeline left out. */
static void out_pipe(struct opts *o)
{
	bool std = !o->output || strcmp(o->output, "-") == 0;
	struct stat st;

	if ((std ? fstat(1, &st) : stat(o->output, &st)) == 0 && S_ISFIFO(st.st_mode)) {
		o->cfg.out_pipe = true;
		o->cfg.out_dev = st.st_dev;
		o->cfg.out_ino = st.st_ino;
	}
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * @pid's name now, into @comm (16 bytes, NUL-padded); unchanged when it cannot be read.  A
 * reader found while still the shell that execs it (sh -c 'exec pcount') is named by what
 * it became.  /proc/PID/comm is a regular file of the kernel's: it neither blocks nor runs on.
 */
static void comm_now(int pid, char *comm, size_t size)
{
	char path[32], now[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, now, sizeof(now) - 1);
	close(fd);
	if (n <= 0)
		return;
	if (now[n - 1] == '\n')
		n--;
	if ((size_t)n > size)
		n = (ssize_t)size;
	memset(comm, 0, size);
	memcpy(comm, now, (size_t)n);
}

/* "PID COMM, PID COMM and 2 more, and 3 processes they started" */
static void left_out(struct ps_recorder *rec, char *buf, size_t len)
{
	const struct ps_recorder_proc *p;
	size_t more, later, i, used = 0;
	size_t n = ps_recorder__left_out(rec, &p, &more, &later);

	buf[0] = 0;
	for (i = 0; i < n && used < len; i++) {
		char comm[4 * sizeof(p[i].comm)], name[sizeof(p[i].comm)];
		size_t k, c = 0;

		memcpy(name, p[i].comm, sizeof(name));
		comm_now((int)p[i].pid, name, sizeof(name));
		/* a comm is any bytes (prctl): the unprintable ones as \ooo */
		for (k = 0; k < sizeof(name) && name[k]; k++) {
			unsigned char ch = (unsigned char)name[k];

			if (ch < 0x20 || ch >= 0x7f || ch == '\\')
				c += (size_t)snprintf(comm + c, sizeof(comm) - c, "\\%03o", ch);
			else
				comm[c++] = (char)ch;
		}
		comm[c] = 0;
		used += (size_t)snprintf(buf + used, len - used, "%s%d %s", i ? ", " : "",
		                         (int)p[i].pid, comm);
	}
	if (more && used < len)
		used += (size_t)snprintf(buf + used, len - used, " and %zu more", more);
	if (later && used < len)
		snprintf(buf + used, len - used, ", and %zu process%s they started", later,
		         later == 1 ? "" : "es");
}

static void summary(struct ps_recorder *rec, unsigned long long bytes)
{
	struct ps_recorder_stats st;
	char self[1024];

	ps_recorder__stats(rec, &st);
	left_out(rec, self, sizeof(self));
	if (self[0])
		ps_msg("%llu events written, %llu lost, %llu bytes (%llu of its own pipeline left "
		       "out: %s)",
		       (unsigned long long)st.samples, (unsigned long long)st.lost, bytes,
		       (unsigned long long)st.dropped_self, self);
	else
		ps_msg("%llu events written, %llu lost, %llu bytes", (unsigned long long)st.samples,
		       (unsigned long long)st.lost, bytes);
}

/*
 * Drain the rings every DRAIN_MS at least, and whenever one fills to its mark, until the
 * workload or the tasks end, the time is up, a signal comes, or the output fails.
 * Return: true when it ended early (signal, duration), false otherwise.
 */
static bool record_loop(struct ps_recorder *rec, struct ps_output *out, struct workload *w,
                        double duration, struct ps_error *err, struct ps_error *oerr)
{
	double deadline = duration > 0 ? now() + duration : 0, left;
	int timeout, r;

	for (;;) {
		timeout = DRAIN_MS;
		if (deadline) {
			left = deadline - now();
			if (left < (double)DRAIN_MS / 1000)
				timeout = left > 0 ? (int)(left * 1000) + 1 : 0;
		}
		r = ps_recorder__wait(rec, timeout, w->pid ? w->pidfd : -1);
		if (r < 0 && errno != EINTR) {
			ps_error__sys(err, PS_ESYS, NULL, "poll");
			return false;
		}
		if (ps_recorder__drain(rec, out, oerr) < 0 || ps_output__flush(out, oerr) < 0)
			return false;
		if (ps_stop || (deadline && now() >= deadline))
			return true;
		workload_reap(w, false);
		if (w->exited || ps_recorder__targets_gone(rec))
			return false;
	}
}

int main(int argc, char **argv)
{
	struct ps_error err = { 0 }, oerr = { 0 }, spare = { 0 };
	struct workload w = { .go_fd = -1, .err_fd = -1, .pidfd = -1 };
	struct ps_recorder *rec;
	struct ps_output *out;
	unsigned long long bytes;
	bool early = false, tell;
	int exec_errno = 0, i, r, status = 0;
	struct opts o;

	ps_progname = "precord";
	ps_signals__init();
	parse_args(argc, argv, &o);
	if (o.list)
		return list_events();

	rec = ps_recorder__new(&err);
	if (!rec)
		ps_die(&err);
	for (i = 0; i < o.nr_events; i++) {
		if (ps_recorder__add_event(rec, o.events[i].spec, &err) < 0 ||
		    (o.events[i].filter &&
		     ps_recorder__set_filter(rec, o.events[i].filter, &err) < 0))
			ps_die(&err);
	}
	free(o.events);
	/* hundreds of tracepoints take the kernel a while to open and to close: say so */
	tell = !o.quiet && ps_recorder__nr_events(rec) >= MANY_EVENTS;
	out = ps_output__open(o.output, o.force, &err);
	if (!out)
		ps_die(&err);
	out_pipe(&o);
	if (o.cmd[0]) {
		if (workload_fork(o.cmd, !o.output || strcmp(o.output, "-") == 0, &w, &err) < 0)
			ps_die(&err);
		o.cfg.workload = w.pid;
	}
	/* counting starts before the tasks are listed: none is missed in between */
	if (tell)
		ps_status("opening %zu events...", ps_recorder__nr_events(rec));
	r = ps_recorder__open(rec, &o.cfg, &err);
	if (r == 0)
		r = ps_recorder__enable(rec, &err);
	if (tell)
		ps_status(NULL);
	if (r == 0 && ps_recorder__nr_user_only(rec))
		ps_msg("kernel.perf_event_paranoid forbids kernel events here: recording user space only (:u), as perf record does");
	if (r < 0 || ps_recorder__write_header(rec, out, &oerr) < 0 ||
	    ps_output__flush(out, &oerr) < 0)
		goto out;
	if (w.pid) {
		exec_errno = workload_start(&w);
		if (exec_errno) {
			ps_msg("cannot run '%s': %s", o.cmd[0], strerror(exec_errno));
			status = exec_errno == ENOENT ? 127 : 126;
		}
	}
	if (!exec_errno)
		early = record_loop(rec, out, &w, o.duration, &err, &oerr);

	/* the closing records: what is left in the rings, then the build-ids */
	ps_recorder__disable(rec);
	if (!oerr.code && ps_recorder__drain(rec, out, &oerr) >= 0)
		ps_recorder__finish(rec, out, &oerr);
out:
	/*
	 * The summary comes before the end of the stream: a pcount downstream prints its last
	 * table at the end, and the line would land inside it on a shared terminal.
	 */
	if (!oerr.code)
		ps_output__flush(out, &oerr);
	bytes = ps_output__bytes(out);
	if (!o.quiet && !err.code && !exec_errno)
		summary(rec, bytes);
	ps_output__close(out, oerr.code ? &spare : &oerr);
	if (err.code)
		ps_warn(&err);
	if (oerr.code && oerr.code != PS_EPIPE)
		ps_warn(&oerr);
	workload_stop(&w);
	workload_close(&w);
	if (tell)
		ps_status("closing %zu events...", ps_recorder__nr_events(rec));
	ps_recorder__delete(rec);
	if (tell)
		ps_status(NULL);
	if (err.code)
		return err.code == PS_EUSAGE ? 2 : 1;
	if (oerr.code && oerr.code != PS_EPIPE)
		return 1;
	if (status)
		return status;
	if (w.pid && w.exited && !early && oerr.code != PS_EPIPE)
		return exit_status_of(&w);
	return 0;
}
