#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# precord: real recordings, read back by perf script and perf report (the judges).

bats_require_minimum_version 1.5.0

setup_file() {
	# small workloads, compiled at test time: a named hot function, a steady syscall loop
	local cc
	cc=$(command -v cc || command -v gcc || command -v clang) || return 0
	cat >"$BATS_FILE_TMPDIR/hot.c" <<-'EOF'
		#include <stdio.h>
		#include <stdlib.h>
		static volatile unsigned long sink;
		__attribute__((noinline)) void precord_hot_spin(unsigned long n)
		{
			for (unsigned long i = 0; i < n; i++)
				sink += i * i;
		}
		int main(int argc, char **argv)
		{
			precord_hot_spin(argc > 1 ? strtoul(argv[1], NULL, 0) : 100000000UL);
			printf("%lu\n", sink);
			return 0;
		}
	EOF
	cat >"$BATS_FILE_TMPDIR/sysloop.c" <<-'EOF'
		#include <stdlib.h>
		#include <time.h>
		#include <unistd.h>
		/* about 100000 system calls a second for argv[1] seconds */
		int main(int argc, char **argv)
		{
			double secs = argc > 1 ? atof(argv[1]) : 1;
			struct timespec t0, t, nap = { 0, 2000000 };
			clock_gettime(CLOCK_MONOTONIC, &t0);
			do {
				for (int i = 0; i < 200; i++)
					getppid();
				nanosleep(&nap, NULL);
				clock_gettime(CLOCK_MONOTONIC, &t);
			} while (t.tv_sec - t0.tv_sec + (t.tv_nsec - t0.tv_nsec) / 1e9 < secs);
			return 0;
		}
	EOF
	"$cc" -O1 -g -fno-omit-frame-pointer -o "$BATS_FILE_TMPDIR/hot" "$BATS_FILE_TMPDIR/hot.c"
	"$cc" -O1 -o "$BATS_FILE_TMPDIR/sysloop" "$BATS_FILE_TMPDIR/sysloop.c"
}

setup() {
	load helpers
	HOT="$BATS_FILE_TMPDIR/hot"
	SYSLOOP="$BATS_FILE_TMPDIR/sysloop"
	OUT="$BATS_TEST_TMPDIR/out.pipe"
}

# perf_event_open must work here: asked of perf itself, so that a broken precord fails
# its tests rather than skipping them
need_events() {
	need_perf
	perf stat -e cpu-clock -x, true >/dev/null 2>&1 ||
		skip "perf_event_open is not available here (container, or perf_event_paranoid)"
}

need_tracepoints() {
	need_events
	if [ ! -e /sys/kernel/tracing/events ] && [ "$(id -u)" = 0 ]; then
		mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null || true
	fi
	[ -r /sys/kernel/tracing/events/raw_syscalls/sys_enter/id ] ||
		[ -r /sys/kernel/debug/tracing/events/raw_syscalls/sys_enter/id ] ||
		skip "tracefs is not available (not mounted, or not readable by $(id -un))"
}

# need_nobody: setpriv, and root to become another user; $as_nobody runs a command as nobody
need_nobody() {
	command -v setpriv >/dev/null || skip "setpriv not installed"
	[ "$(id -u)" = 0 ] || skip "needs root to become another user"
	as_nobody="setpriv --reuid=65534 --regid=65534 --clear-groups"
}

# need_paranoid LEVEL WHY: kernel.perf_event_paranoid is LEVEL or more (else skip, saying WHY)
need_paranoid() {
	[ "$(cat /proc/sys/kernel/perf_event_paranoid)" -ge "$1" ] || skip "$2"
}

need_workloads() {
	[ -x "$HOT" ] && [ -x "$SYSLOOP" ] || skip "no C compiler to build the test workloads"
}

# perf must read the stream in file $1 without a word on stderr
perf_reads_cleanly() {
	perf script -i - <"$1" >"$BATS_TEST_TMPDIR/script.txt" 2>"$BATS_TEST_TMPDIR/script.err"
	[ ! -s "$BATS_TEST_TMPDIR/script.err" ] || { cat "$BATS_TEST_TMPDIR/script.err"; false; }
	perf report -i - --stdio <"$1" >"$BATS_TEST_TMPDIR/report.txt" 2>"$BATS_TEST_TMPDIR/report.err"
	[ ! -s "$BATS_TEST_TMPDIR/report.err" ] || { cat "$BATS_TEST_TMPDIR/report.err"; false; }
}

# the numbers of precord's summary line in $1: "written lost bytes"
summary_of() {
	grep '^precord: [0-9]* events written' <<<"$1" | tail -n 1 |
		sed 's/^precord: \([0-9]*\) events written, \([0-9]*\) lost, \([0-9]*\) bytes.*/\1 \2 \3/'
}

@test "precord: --help prints the usage on stdout and exits 0" {
	help_starts precord "usage: precord "
	[[ "$output" == *"--no-exclude-self"* ]]
}

@test "precord: --version names the program and pstream" {
	version_names precord
}

@test "precord: command line mistakes exit 2 with a message" {
	usage_refused precord --no-such-option
	run -2 --separate-stderr "$BIN/precord" -c 10 -F 99 true
	[[ "$stderr" == "precord: -c and -F exclude each other"* ]]
	run -2 --separate-stderr "$BIN/precord" --filter 'fd == 1' -e sched:sched_switch true
	[[ "$stderr" == "precord: --filter must follow the -e it applies to"* ]]
	run -2 --separate-stderr "$BIN/precord" -m 3 -o /dev/null true
	[[ "$stderr" == "precord: -m: 3 pages is not a power of two"* ]]
	run -2 --separate-stderr "$BIN/precord" --duration 86400000000 -o /dev/null true
	[ "${stderr_lines[0]}" = "precord: --duration: '86400000000' is out of range: from 1ms to 10000000s" ]
	run -2 --separate-stderr "$BIN/precord" --duration 5x -o /dev/null true
	[[ "${stderr_lines[0]}" == "precord: --duration: '5x' is not a number of seconds or a duration"* ]]
	run -2 --separate-stderr "$BIN/precord" -p 1 -a
	[[ "$stderr" == "precord: -p and -t record tasks; -a and -C record CPUs"* ]]
	run -2 --separate-stderr "$BIN/precord" -e cpu-clock --filter 'x == 1' -o /dev/null true
	[[ "$stderr" == "precord: --filter applies to tracepoints, and cpu-clock is not one" ]]
}

@test "precord: -l lists the software events and the tracepoints" {
	need_tracepoints
	run -0 --separate-stderr "$BIN/precord" -l
	[[ "$output" == *"cpu-clock"*"[Software event]"* ]]
	[[ "$output" == *"sched:sched_switch"*"[Tracepoint event]"* ]]
	[[ "$output" == *"raw_syscalls:sys_enter"* ]]
}

@test "precord: an unknown event is refused with the names closest to it" {
	need_tracepoints
	run -2 --separate-stderr "$BIN/precord" -e sched:sched_swich -o /dev/null true
	[ "$stderr" = "precord: unknown event 'sched:sched_swich'; did you mean sched:sched_switch? ('precord -l' lists the events)" ]
	run -2 --separate-stderr "$BIN/precord" -e cpu-clok -o /dev/null true
	[[ "$stderr" == "precord: unknown event 'cpu-clok'; did you mean cpu-clock?"* ]]
	run -2 --separate-stderr "$BIN/precord" -e 'nosuchsystem:*' -o /dev/null true
	[[ "$stderr" == "precord: no tracepoint matches 'nosuchsystem:*'"* ]]
}

@test "precord: a process that does not exist is named in the message" {
	need_events
	local pid=4194304
	while kill -0 "$pid" 2>/dev/null; do pid=$((pid - 1)); done
	run -1 --separate-stderr "$BIN/precord" -p "$pid" -o /dev/null
	[ "$stderr" = "precord: no such process: $pid" ]
}

@test "precord: a command that cannot be run exits 127, with a message" {
	need_events
	run -127 --separate-stderr "$BIN/precord" -o /dev/null -- /nonexistent/command
	[[ "$stderr" == "precord: cannot run '/nonexistent/command': No such file or directory"* ]]
}

@test "precord: not root, perf_event_paranoid and tracefs are explained with a hint" {
	need_events
	need_nobody
	need_paranoid 1 "perf_event_paranoid lets every user record system-wide here"
	run -1 --separate-stderr $as_nobody "$BIN/precord" -a -o /dev/null --duration 0.1
	[[ "$stderr" == "precord: cannot open cpu-clock: Permission denied (kernel.perf_event_paranoid is "*"); run as root, or allow it: sysctl kernel.perf_event_paranoid=-1" ]]
	if [ ! -r /sys/kernel/tracing/events/header_page ] ||
		$as_nobody test -r /sys/kernel/tracing/events/header_page; then
		return 0 # tracefs is readable by everyone here
	fi
	run -1 --separate-stderr $as_nobody "$BIN/precord" -e sched:sched_switch -o /dev/null true
	[[ "$stderr" == "precord: cannot read tracefs at /sys/kernel/tracing: permission denied; tracepoints need root"* ]]
}

@test "precord: every write(2) of dd, fields decoded by perf script; perf report has no warning" {
	need_tracepoints
	run -0 --separate-stderr bash -c "'$BIN/precord' -e syscalls:sys_enter_write -- dd if=/dev/zero of=/dev/null bs=1 count=5000 >'$OUT'"
	perf_reads_cleanly "$OUT"
	local n
	n=$(grep -cE '^ *dd +[0-9]+ .*syscalls:sys_enter_write: fd: 0x[0-9a-f]+, buf: 0x[0-9a-f]+, count: 0x[0-9a-f]+$' "$BATS_TEST_TMPDIR/script.txt")
	[ "$n" -ge 5000 ] || { echo "only $n decoded sys_enter_write samples of dd"; false; }
	grep -q "of event 'syscalls:sys_enter_write'" "$BATS_TEST_TMPDIR/report.txt"
	# the summary counts what was written
	read -r written lost bytes <<<"$(summary_of "$stderr")"
	[ "$written" -eq "$(wc -l <"$BATS_TEST_TMPDIR/script.txt")" ]
	[ "$lost" -eq 0 ]
	[ "$bytes" -eq "$(wc -c <"$OUT")" ]
}

@test "precord: the stream has the records and features perf record writes for the same command" {
	need_tracepoints
	local cmd="-e syscalls:sys_enter_write -- dd if=/dev/zero of=/dev/null bs=1 count=20"
	"$BIN/precord" $cmd >"$OUT" 2>/dev/null
	# precord times samples with CLOCK_MONOTONIC by default: perf record -k mono does that
	perf record -k mono -o - $cmd >"$BATS_TEST_TMPDIR/perf.pipe" 2>/dev/null
	types() { perf script -D -i - <"$1" 2>/dev/null | grep -o 'PERF_RECORD_[A-Z0-9_]*' | sort -u; }
	types "$OUT" >"$BATS_TEST_TMPDIR/ours"
	types "$BATS_TEST_TMPDIR/perf.pipe" >"$BATS_TEST_TMPDIR/theirs"
	# everything perf writes but its thread and CPU maps (which perf does not need); and more
	run -0 comm -13 "$BATS_TEST_TMPDIR/ours" "$BATS_TEST_TMPDIR/theirs"
	[ "$output" = "$(printf 'PERF_RECORD_CPU_MAP\nPERF_RECORD_THREAD_MAP')" ]
	grep -qx PERF_RECORD_BUILD_ID "$BATS_TEST_TMPDIR/ours"
	grep -qx PERF_RECORD_FINISHED_ROUND "$BATS_TEST_TMPDIR/ours"
	grep -qx PERF_RECORD_FINISHED_INIT "$BATS_TEST_TMPDIR/ours"
	# the same header lines (features), whatever their values
	keys() { perf report -i - --header-only <"$1" 2>/dev/null | sed -n 's/^# \([a-z][a-z ]*[a-z]\) *:.*/\1/p' | sort -u; }
	diff <(keys "$OUT") <(keys "$BATS_TEST_TMPDIR/perf.pipe")
	perf report -i - --header-only <"$OUT" | grep -q '^# event : name = syscalls:sys_enter_write, '
}

@test "precord: samples timed by CLOCK_MONOTONIC with the clock data perf record -k mono writes; ptojson -t iso is perf script's tod" {
	need_events
	run -0 "$BIN/precord" -q -e cpu-clock -o "$OUT" -- sh -c 'i=0; while [ $i -lt 30000 ]; do i=$((i + 1)); done'
	perf record -q -k mono -e cpu-clock -o - -- true >"$BATS_TEST_TMPDIR/perf.pipe" 2>/dev/null
	clock_lines() { perf report -i - --header-only <"$1" 2>/dev/null | grep -E '^# clockid( frequency)?:'; }
	[ -n "$(clock_lines "$OUT")" ]
	diff <(clock_lines "$OUT") <(clock_lines "$BATS_TEST_TMPDIR/perf.pipe")
	perf report -i - --header-only <"$OUT" 2>/dev/null | grep -q 'use_clockid = 1.*clockid = 1'
	# the same wall-clock time for every sample, to the nanosecond, as perf script -F tod
	TZ=UTC perf script --ns -F tod -i - <"$OUT" 2>/dev/null | sed 's/ *$//; s/ /T/; s/$/Z/' >"$BATS_TEST_TMPDIR/perf.tod"
	"$BIN/ptojson" -t iso -F time "$OUT" | jq -r .time >"$BATS_TEST_TMPDIR/ours.tod"
	[ -s "$BATS_TEST_TMPDIR/ours.tod" ]
	diff "$BATS_TEST_TMPDIR/perf.tod" "$BATS_TEST_TMPDIR/ours.tod" | head -n 5
	cmp -s "$BATS_TEST_TMPDIR/perf.tod" "$BATS_TEST_TMPDIR/ours.tod"
	# and this machine's time of day, within a minute
	local t now
	t=$(date -d "$(head -n 1 "$BATS_TEST_TMPDIR/ours.tod")" +%s)
	now=$(date +%s)
	[ $((now - t)) -ge 0 ] && [ $((now - t)) -lt 60 ]
}

@test "precord: -k chooses the clock by perf's names; an unknown one is a usage error" {
	need_events
	run -0 "$BIN/precord" -q -k raw -e cpu-clock -o "$OUT" -- true
	perf report -i - --header-only <"$OUT" 2>/dev/null | grep -qx '# clockid: monotonic_raw (4)'
	run -0 "$BIN/precord" -q --clockid CLOCK_BOOTTIME -e cpu-clock -o "$OUT" -- true
	perf report -i - --header-only <"$OUT" 2>/dev/null | grep -qx '# clockid: boottime (7)'
	run -2 --separate-stderr "$BIN/precord" -k bogus -e cpu-clock -o "$OUT" -- true
	[[ "$stderr" == "precord: -k: unknown clock 'bogus'; the clocks are monotonic (mono)"* ]]
}

@test "precord: -k realtime, boottime or tai with a tracepoint: one clear message, exit 2; monotonic_raw records" {
	need_tracepoints
	local k
	# perf record -k realtime -e sched:sched_switch fails too: the kernel refuses the clock
	! perf record -q -k realtime -e sched:sched_switch -a -o "$BATS_TEST_TMPDIR/p.data" -- true 2>/dev/null
	for k in realtime boottime tai; do
		run -2 --separate-stderr "$BIN/precord" -k "$k" -e sched:sched_switch -a --duration 0.1 -o "$OUT"
		[ "$stderr" = "precord: cannot open sched:sched_switch with -k $k: the kernel times tracepoints and hardware events only with monotonic or monotonic_raw; software events such as cpu-clock take any clock" ]
	done
	run -0 "$BIN/precord" -q -k monotonic_raw -e sched:sched_switch -a --duration 0.1 -o "$OUT"
	perf report -i - --header-only <"$OUT" 2>/dev/null | grep -qx '# clockid: monotonic_raw (4)'
}

@test "precord: hardware events where the machine has no PMU: said so, exit 1" {
	need_events
	perf stat -e cycles -x, true 2>&1 | grep -q '<not supported>' ||
		skip "this machine counts cycles (perf stat -e cycles works)"
	local ev
	for ev in cycles instructions:u branch-misses; do
		run -1 --separate-stderr "$BIN/precord" -e "$ev" -o "$OUT" -- true
		[[ "$stderr" == "precord: cannot open "*": hardware events are not available on this machine"* ]]
	done
	run -2 --separate-stderr "$BIN/precord" -e cyclez -o "$OUT" -- true
	[[ "$stderr" == "precord: unknown event 'cyclez'"* ]]
}

@test "precord: where kernel.perf_event_paranoid forbids kernel events, user space only, as perf record falls back" {
	need_events
	need_nobody
	need_paranoid 2 "perf_event_paranoid lets users record the kernel here"
	event_line() { perf report -i - --header-only <"$1" 2>/dev/null | grep '^# event : ' | grep -oE 'name = [^,]*|exclude_(kernel|hv|user) = 1' | tr '\n' ' '; }
	$as_nobody perf record -e cpu-clock -o - -- true >"$BATS_TEST_TMPDIR/perf.pipe" 2>/dev/null
	run -0 --separate-stderr bash -c "$as_nobody '$BIN/precord' -e cpu-clock -o - -- true >'$OUT'"
	[ "${stderr_lines[0]}" = "precord: kernel.perf_event_paranoid forbids kernel events here: recording user space only (:u), as perf record does" ]
	[ "$(event_line "$OUT")" = "$(event_line "$BATS_TEST_TMPDIR/perf.pipe")" ]
	[[ "$(event_line "$OUT")" == "name = cpu-clock:u exclude_kernel = 1 exclude_hv = 1 "* ]]
	perf_reads_cleanly "$OUT"
}

@test "precord: on a terminal, says that it opens and closes many tracepoints; -q says nothing" {
	need_tracepoints
	command -v script >/dev/null || skip "script(1) not installed"
	local n
	n=$(ls -d /sys/kernel/tracing/events/syscalls/sys_enter_[a-f]* 2>/dev/null | wc -l)
	[ "$n" -ge 50 ] || skip "fewer than 50 syscalls:sys_enter_[a-f]* tracepoints"
	run -0 script -qec "'$BIN/precord' -a -e 'syscalls:sys_enter_[a-f]*' --duration 0.2 -o /dev/null" /dev/null
	[[ "$output" == *"precord: opening $n events..."* ]]
	[[ "$output" == *"precord: closing $n events..."* ]]
	run -0 script -qec "'$BIN/precord' -q -a -e 'syscalls:sys_enter_[a-f]*' --duration 0.2 -o /dev/null" /dev/null
	[ -z "$output" ]
	# never on a pipe
	run -0 --separate-stderr "$BIN/precord" -a -e 'syscalls:sys_enter_[a-f]*' --duration 0.2 -o /dev/null
	[[ "$stderr" != *"opening"* ]]
}

@test "precord: the summary comes before pcount's last table, not inside it" {
	need_tracepoints
	local t="$BATS_TEST_TMPDIR"
	# one file for both, as a terminal would show them
	{ "$BIN/precord" -a -e raw_syscalls:sys_enter --duration 0.5 2>&3 | "$BIN/pcount" >&3; } 3>"$t/screen"
	cat "$t/screen"
	[ "$(grep -n '^precord: [0-9]* events written' "$t/screen" | cut -d: -f1)" -eq 1 ]
	grep -q '^ *COUNT' "$t/screen"
	# the line is out by the time the reader sees the end of the stream
	"$BIN/precord" -a -e raw_syscalls:sys_enter --duration 0.5 2>"$t/err" |
		awk -v f="$t/err" 'END { while ((getline l < f) > 0) if (l ~ /events written/) n++; print n + 0 }' >"$t/seen"
	[ "$(cat "$t/seen")" = 1 ]
}

@test "precord: -g call chains resolve the workload's own functions (MMAP2, BUILD_ID)" {
	need_events
	need_workloads
	run -0 --separate-stderr bash -c "'$BIN/precord' -g -F 999 -e cpu-clock -- '$HOT' 300000000 >'$OUT'"
	perf_reads_cleanly "$OUT"
	grep -E '^ +[0-9.]+% +hot +hot +\[\.\] precord_hot_spin$' "$BATS_TEST_TMPDIR/report.txt"
	grep -q -- '---__libc_start_call_main\|main$' "$BATS_TEST_TMPDIR/report.txt"
	# the build-id written is the binary's
	local id
	id=$(perf buildid-list -i - <"$OUT" 2>/dev/null | awk -v f="$HOT" '$2 == f {print $1}')
	[ -n "$id" ]
	[ "$id" = "$(perf buildid-list -i "$HOT" 2>/dev/null)" ]
}

@test "precord: the workload's output goes to stderr, and its exit status is precord's" {
	need_events
	# the marker is made at run time: the command line (in the stream's header) lacks it
	cat >"$BATS_TEST_TMPDIR/w.sh" <<-'EOF'
		printf '%s-%s\n' marker stdout
		printf '%s-%s\n' marker stderr >&2
		exit 7
	EOF
	run -7 --separate-stderr bash -c "'$BIN/precord' -e cpu-clock -- sh '$BATS_TEST_TMPDIR/w.sh' >'$OUT'"
	[[ "$stderr" == *"marker-stdout"* ]]
	[[ "$stderr" == *"marker-stderr"* ]]
	[ "$(grep -c marker- "$OUT")" -eq 0 ]
	perf_reads_cleanly "$OUT"
}

@test "precord: system-wide, its own pipeline makes under 1% of the samples" {
	need_tracepoints
	need_workloads
	# a busy loop of system calls in a process group of its own, for longer than the recording
	setsid "$SYSLOOP" 3 >/dev/null 2>&1 3>&- &
	sleep 0.3
	# (other precords may run on this machine: ours are known by their pids)
	local t="$BATS_TEST_TMPDIR"
	run -0 --separate-stderr run_pipe "sh -c 'echo \$\$ >$t/rec.pid; exec $BIN/precord -a -e raw_syscalls:sys_enter --duration 2'" \
		"sh -c 'echo \$\$ >$t/cat.pid; exec $BIN/pcat >$OUT'"
	perf script -F comm -i - <"$OUT" 2>/dev/null | awk '{print $1}' | sort | uniq -c | sort -rn >"$BATS_TEST_TMPDIR/counts"
	local total own loop
	total=$(awk '{s += $1} END {print s + 0}' "$BATS_TEST_TMPDIR/counts")
	own=$(perf script -F pid -i - <"$OUT" 2>/dev/null |
		awk -v a="$(cat "$t/rec.pid")" -v b="$(cat "$t/cat.pid")" '$1 == a || $1 == b {n++} END {print n + 0}')
	loop=$(awk '$2 == "sysloop" {s += $1} END {print s + 0}' "$BATS_TEST_TMPDIR/counts")
	head "$BATS_TEST_TMPDIR/counts"
	[ "$loop" -gt 10000 ]
	[ $((own * 100)) -lt "$total" ]
	read -r written lost bytes <<<"$(summary_of "$stderr")"
	[ "$written" -eq "$total" ]
}

@test "precord: --no-exclude-self records its own pipeline too" {
	need_tracepoints
	run -0 run_pipe "'$BIN/precord' -q --no-exclude-self -a -e raw_syscalls:sys_enter --duration 0.5" "'$BIN/pcat' >'$OUT'"
	perf script -F comm -i - <"$OUT" 2>/dev/null | grep -qw precord
}

# the bytes of precord's first ring, from its /proc/PID/maps (the data pages and the page
# before them), once it is mapped; empty when it never is
ring_bytes() {
	local i start end
	for i in $(seq 100); do
		IFS=- read -r start end < <(awk '/perf_event/ {print $1; exit}' "/proc/$1/maps" 2>/dev/null) || true
		if [ -n "$end" ]; then
			echo $((16#${end%% *} - 16#$start))
			return
		fi
		sleep 0.1
	done
}

@test "precord: rings of 16 MiB per CPU without -m; perf's 512 KiB where the kernel will not lock more" {
	need_events
	[ "$(nproc)" -le 4 ] || skip "fewer than 16 MiB per CPU on more than 4 CPUs"
	page=$(getconf PAGESIZE)
	"$BIN/precord" -q -o /dev/null -- sleep 3 &
	pid=$!
	bytes=$(ring_bytes "$pid")
	kill -INT "$pid"
	wait "$pid" || true
	[ "$bytes" -eq $((16 * 1024 * 1024 + page)) ]
	"$BIN/precord" -q -m 8 -o /dev/null -- sleep 3 &
	pid=$!
	bytes=$(ring_bytes "$pid")
	kill -INT "$pid"
	wait "$pid" || true
	[ "$bytes" -eq $((9 * page)) ]
	# a user without CAP_IPC_LOCK may lock kernel.perf_event_mlock_kb (516 KiB) per CPU
	command -v setpriv >/dev/null || skip "needs setpriv"
	nobody=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
	"${nobody[@]}" "$BIN/precord" -q -m 128 -o /dev/null -- true 2>/dev/null ||
		skip "an unprivileged user cannot record here"
	"${nobody[@]}" "$BIN/precord" -q -o /dev/null -- sleep 3 &
	pid=$!
	bytes=$(ring_bytes "$pid")
	kill -INT "$pid"
	wait "$pid" || true
	[ "$bytes" -eq $((512 * 1024 + page)) ]
}

@test "precord: a ring that overflows writes LOST records, and the summary agrees" {
	need_tracepoints
	run -0 --separate-stderr "$BIN/precord" -m 1 -e raw_syscalls:sys_enter -o "$OUT" -- dd if=/dev/zero of=/dev/null bs=1 count=200000
	read -r written lost bytes <<<"$(summary_of "$stderr")"
	[ "$lost" -gt 0 ]
	perf script --show-lost-events -F comm -i - <"$OUT" >"$BATS_TEST_TMPDIR/lost.txt" 2>/dev/null
	# LOST records give what a ring dropped; the LOST_SAMPLES written at the end give
	# every sample an event lost, those included: the summary says the larger
	chunks=$(awk '/PERF_RECORD_LOST lost/ {s += $NF} END {print s + 0}' "$BATS_TEST_TMPDIR/lost.txt")
	samples=$(perf script -D -i - <"$OUT" 2>/dev/null | sed -n 's/.*PERF_RECORD_LOST_SAMPLES: .*lost samples :\([0-9]*\)/\1/p' | awk '{s += $1} END {print s + 0}')
	[ "$(( chunks > samples ? chunks : samples ))" -eq "$lost" ]
	[ "$(grep -vc PERF_RECORD_LOST "$BATS_TEST_TMPDIR/lost.txt")" -eq "$written" ]
}

@test "precord: --filter is applied by the kernel to the -e before it" {
	need_tracepoints
	run -0 --separate-stderr "$BIN/precord" -o "$OUT" -e syscalls:sys_enter_write --filter 'count == 7' -e sched:sched_process_exec -- dd if=/dev/zero of=/dev/null bs=7 count=3
	perf_reads_cleanly "$OUT"
	[ "$(grep -c 'sys_enter_write: fd: 0x00000001, buf: 0x[0-9a-f]*, count: 0x00000007$' "$BATS_TEST_TMPDIR/script.txt")" -eq 3 ]
	[ "$(grep -c 'sys_enter_write:' "$BATS_TEST_TMPDIR/script.txt")" -eq 3 ]
	grep -q 'sched:sched_process_exec: filename=' "$BATS_TEST_TMPDIR/script.txt"
}

@test "precord: a tracepoint glob records every event it matches" {
	need_tracepoints
	run -0 --separate-stderr "$BIN/precord" -o "$OUT" -e 'syscalls:sys_enter_write*' -- dd if=/dev/zero of=/dev/null count=10
	perf_reads_cleanly "$OUT"
	perf report -i - --header-only <"$OUT" | grep -q '^# event : name = syscalls:sys_enter_write, '
	perf report -i - --header-only <"$OUT" | grep -q '^# event : name = syscalls:sys_enter_writev, '
	grep -q 'syscalls:sys_enter_write:' "$BATS_TEST_TMPDIR/script.txt"
}

@test "precord: several events in one stream, each sample under its own name" {
	need_events
	run -0 --separate-stderr "$BIN/precord" -o "$OUT" -e cpu-clock -e page-faults,context-switches -- ls -R /usr/share/doc
	perf_reads_cleanly "$OUT"
	grep -q "of event 'cpu-clock'" "$BATS_TEST_TMPDIR/report.txt"
	grep -q "of event 'page-faults'" "$BATS_TEST_TMPDIR/report.txt"
}

@test "precord: with -o FILE the workload's stdout stays its own" {
	need_events
	run -0 --separate-stderr "$BIN/precord" -q -o "$OUT" -e cpu-clock -- sh -c 'echo to-stdout; echo to-stderr >&2'
	[ "$output" = to-stdout ]
	[ "$stderr" = to-stderr ]
	perf_reads_cleanly "$OUT"
	# -o - is standard output: the workload's goes to stderr again
	run -0 --separate-stderr bash -c "'$BIN/precord' -q -o - -e cpu-clock -- echo to-stdout >'$OUT'"
	[ "$stderr" = to-stdout ]
	perf_reads_cleanly "$OUT"
}

@test "precord: -o writes a pipe stream to a file, and nothing to stdout" {
	need_events
	run -0 --separate-stderr "$BIN/precord" -o "$OUT" -e cpu-clock -- true
	[ -z "$output" ]
	[ "$(head -c 8 "$OUT")" = "PERFILE2" ]
	run -0 perf script -i "$OUT"
}

@test "precord: refuses to write a binary stream to a terminal unless -f" {
	need_events
	terminal_refused "'$BIN/precord' -e cpu-clock -- true" "'$BIN/precord' -q -f -e cpu-clock -- true"
}

@test "precord: -C records only the CPUs listed" {
	need_events
	run -0 --separate-stderr "$BIN/precord" -C 0 -e cpu-clock --duration 300ms -o "$OUT"
	perf_reads_cleanly "$OUT"
	[ -s "$BATS_TEST_TMPDIR/script.txt" ]
	[ "$(perf script -F cpu -i - <"$OUT" 2>/dev/null | sort -u | tr -d ' ')" = "[000]" ]
}

@test "precord: -p records a running process until it exits" {
	need_tracepoints
	need_workloads
	"$SYSLOOP" 1 3>&- &
	local pid=$!
	run -0 --separate-stderr "$BIN/precord" -p "$pid" -e raw_syscalls:sys_enter -o "$OUT"
	wait "$pid" || true
	# (a loaded machine may make a ring overflow: perf then warns, rightly)
	perf script -F comm,pid -i - <"$OUT" >"$BATS_TEST_TMPDIR/script.txt" 2>/dev/null
	[ "$(awk '{print $2}' "$BATS_TEST_TMPDIR/script.txt" | sort -u)" = "$pid" ]
	[ "$(grep -c sysloop "$BATS_TEST_TMPDIR/script.txt")" -gt 1000 ]
}

@test "precord: SIGINT ends the recording cleanly, with the closing records" {
	need_tracepoints
	"$BIN/precord" -a -m 1024 -e sched:sched_switch -o "$OUT" 2>"$BATS_TEST_TMPDIR/err" 3>&- &
	local pid=$! rc=0
	sleep 1
	kill -INT "$pid"
	wait "$pid" || rc=$?
	[ "$rc" -eq 0 ]
	perf script -i - <"$OUT" >"$BATS_TEST_TMPDIR/script.txt" 2>"$BATS_TEST_TMPDIR/script.err"
	# a loaded machine may make the ring overflow: perf then warns of the loss, rightly;
	# nothing else may be said
	if grep -vE '^(Warning:|Processed [0-9]+ (events|samples) and lost .*|Check IO/CPU overload!|)$' \
		"$BATS_TEST_TMPDIR/script.err"; then
		return 1
	fi
	grep -q 'sched:sched_switch' "$BATS_TEST_TMPDIR/script.txt"
	grep -q '^precord: [0-9]* events written, [0-9]* lost' "$BATS_TEST_TMPDIR/err"
	perf script -D -i - <"$OUT" 2>/dev/null | grep -q PERF_RECORD_FINISHED_ROUND
}

@test "precord: a reader that goes away ends it quietly, status 0" {
	need_tracepoints
	run -0 --separate-stderr run_pipe "'$BIN/precord' -a -e sched:sched_switch" "head -c 100 >/dev/null"
	[ -z "$(grep -v '^precord: [0-9]* events written' <<<"$stderr")" ]
}

# ---- Ctrl-C on a whole pipeline, and what is left out as its own (issue 21, item 21) ----

# run "precord ARGS | READER" in a session of its own, send SIGINT to its whole process
# group, as a terminal's Ctrl-C does, and wait for it; precord's stderr in $t/err, the
# reader's stdout in $t/out
pipeline_ctrl_c() {
	local t="$BATS_TEST_TMPDIR" reader=$1 pg
	shift
	setsid bash -c "'$BIN/precord' $* 2>'$t/err' | $reader >'$t/out'" 3>&- &
	local pid=$!
	sleep 1.5 # recording
	pg=$(ps -o pgid= -p "$pid" | tr -d ' ')
	[ "$pg" = "$pid" ] # its own group: the signal reaches no one else
	kill -INT -- "-$pg"
	wait "$pid"
}

@test "precord: Ctrl-C on the whole pipeline: pcount counts every event precord wrote" {
	need_tracepoints
	local t="$BATS_TEST_TMPDIR" n
	for n in 1 2 3; do
		pipeline_ctrl_c "'$BIN/pcount' --by event" -a -e raw_syscalls:sys_enter
		cat "$t/err" "$t/out"
		read -r written lost bytes <<<"$(summary_of "$(cat "$t/err")")"
		[ "$written" -gt 0 ]
		[ "$(awk '$2 == "raw_syscalls:sys_enter" {print $1}' "$t/out")" -eq "$written" ]
	done
}

@test "precord: Ctrl-C on the whole pipeline: ptojson writes every event precord wrote" {
	need_tracepoints
	local t="$BATS_TEST_TMPDIR" n
	for n in 1 2 3; do
		pipeline_ctrl_c "'$BIN/ptojson' --no-symbols -F event" -a -e raw_syscalls:sys_enter
		read -r written lost bytes <<<"$(summary_of "$(cat "$t/err")")"
		echo "written $written, ptojson $(wc -l <"$t/out")"
		[ "$written" -gt 0 ]
		[ "$(wc -l <"$t/out")" -eq "$written" ]
	done
}

@test "precord: a reader started after precord is still its pipeline's, not recorded" {
	need_tracepoints
	local t="$BATS_TEST_TMPDIR" rec cnt
	# a shell on a busy machine may start the reading side late: here 200 ms late
	cat >"$t/late.py" <<-'EOF'
		import os, subprocess, sys, time
		b, t = sys.argv[1], sys.argv[2]
		r, w = os.pipe()
		rec = subprocess.Popen([b + "/precord", "-a", "-e", "raw_syscalls:sys_enter",
		                        "--duration", "2"], stdout=w, stderr=open(t + "/err", "w"))
		os.close(w)
		time.sleep(0.2)
		cnt = subprocess.Popen([b + "/pcount", "--by", "comm,pid"], stdin=r,
		                       stdout=open(t + "/out", "w"))
		os.close(r)
		rec.wait()
		cnt.wait()
		print(rec.pid, cnt.pid)
	EOF
	read -r rec cnt <<<"$(python3 "$t/late.py" "$BIN" "$t")"
	cat "$t/err"
	head -n 5 "$t/out"
	[ -n "$cnt" ]
	[ -z "$(awk -v a="$rec" -v b="$cnt" '$3 == a || $3 == b' "$t/out")" ]
	grep -q " $cnt pcount" "$t/err"
}

@test "precord: a script's own background workload is recorded; only precord and its readers are left out" {
	need_tracepoints
	local t="$BATS_TEST_TMPDIR" rec cnt
	# one process group, as in any script without job control: the script, its workload
	# started in the background, the pipeline
	cat >"$t/script.sh" <<-EOF
		( while :; do dd if=/dev/zero of=/dev/null bs=1 count=5000 status=none; done ) &
		w=\$!
		sh -c 'echo \$\$ >"$t/rec.pid"; exec "$BIN/precord" -a -e raw_syscalls:sys_enter --duration 2' 2>"$t/err" |
			sh -c 'echo \$\$ >"$t/cnt.pid"; exec "$BIN/pcount" --by comm,pid' >"$t/out"
		kill \$w
		wait
	EOF
	bash "$t/script.sh"
	cat "$t/err"
	head -n 20 "$t/out"
	rec=$(cat "$t/rec.pid")
	cnt=$(cat "$t/cnt.pid")
	# the workload is counted
	[ "$(awk '$2 == "dd" {n += $1} END {print n + 0}' "$t/out")" -gt 1000 ]
	# the pipeline is not (other precords may run on this machine: ours are known by pid)
	[ -z "$(awk -v a="$rec" -v b="$cnt" '$3 == a || $3 == b' "$t/out")" ]
	# and precord says what it left out
	# (pcount parses the tracepoint formats in a child of its own: a process they started)
	grep -Eq "^precord: [0-9]+ events written, [0-9]+ lost, [0-9]+ bytes \\([0-9]+ of its own pipeline left out: $rec precord, $cnt pcount(, and [0-9]+ process(es)? they started)?\\)$" "$t/err"
}
