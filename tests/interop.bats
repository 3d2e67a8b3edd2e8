#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# Interop with the real perf: what pcat writes, perf reads exactly as it reads the original.

bats_require_minimum_version 1.5.0

setup() {
	load helpers
	need_perf
}

# perf script over the original ($1, read as a file) and over pcat's stream ($2, on stdin),
# with the options that follow; both outputs and stderr must agree
same_script() {
	local orig="$1" ours="$2"
	shift 2
	perf script -i "$orig" "$@" >"$BATS_TEST_TMPDIR/a.txt" 2>"$BATS_TEST_TMPDIR/a.err" || true
	perf script -i - "$@" <"$ours" >"$BATS_TEST_TMPDIR/b.txt" 2>"$BATS_TEST_TMPDIR/b.err" || true
	[ -s "$BATS_TEST_TMPDIR/a.txt" ] || { echo "perf printed nothing for $orig $*"; return 1; }
	if ! cmp -s "$BATS_TEST_TMPDIR/a.txt" "$BATS_TEST_TMPDIR/b.txt"; then
		echo "perf script $* differs for $orig:"
		diff "$BATS_TEST_TMPDIR/a.txt" "$BATS_TEST_TMPDIR/b.txt" | head -n 20
		return 1
	fi
}

@test "interop: pcat F | perf script -i - equals perf script on every pipe fixture" {
	local f
	for f in $(good_pipes); do
		"$BIN/pcat" <"$f" >"$BATS_TEST_TMPDIR/ours"
		same_script "$f" "$BATS_TEST_TMPDIR/ours"
		same_script "$f" "$BATS_TEST_TMPDIR/ours" --ns -F comm,pid,tid,time,event,ip
	done
}

@test "interop: pcat x.data | perf script -i - equals perf script -i x.data" {
	local f n=0
	for f in $(good_files); do
		"$BIN/pcat" "$f" >"$BATS_TEST_TMPDIR/ours"
		same_script "$f" "$BATS_TEST_TMPDIR/ours"
		same_script "$f" "$BATS_TEST_TMPDIR/ours" --ns -F comm,pid,tid,time,event,ip,sym,dso
		same_script "$f" "$BATS_TEST_TMPDIR/ours" --show-task-events --show-mmap-events
		same_script "$f" "$BATS_TEST_TMPDIR/ours" -G -F event,comm
		n=$((n + 1))
	done
	[ "$n" -gt 0 ]
}

@test "interop: the stream made from a perf.data file keeps its features for perf report --header-only" {
	local f
	for f in $(good_files); do
		"$BIN/pcat" "$f" >"$BATS_TEST_TMPDIR/ours"
		for key in hostname "os release" "perf version" arch nrcpus "cpu description" "total memory" cmdline; do
			a=$(perf report --header-only -i "$f" 2>/dev/null | grep "^# $key" | head -n 1)
			b=$(perf report --header-only -i - <"$BATS_TEST_TMPDIR/ours" 2>/dev/null | grep "^# $key" | head -n 1)
			[ -n "$a" ] || continue
			[ "$a" = "$b" ] || { echo "$f: '$a' != '$b'"; return 1; }
		done
	done
}

@test "interop: perf report reads pcat's stream of a pipe fixture as it reads the original" {
	local f
	for f in $(good_pipes); do
		"$BIN/pcat" <"$f" >"$BATS_TEST_TMPDIR/ours"
		perf report -i - --stdio --sort comm,dso <"$f" 2>&1 | grep -v '^#' >"$BATS_TEST_TMPDIR/a.txt"
		perf report -i - --stdio --sort comm,dso <"$BATS_TEST_TMPDIR/ours" 2>&1 | grep -v '^#' >"$BATS_TEST_TMPDIR/b.txt"
		cmp_or_show "$BATS_TEST_TMPDIR/a.txt" "$BATS_TEST_TMPDIR/b.txt"
	done
}

@test "interop: perf script on pcat's output of a truncated stream prints the samples perf prints on the cut input" {
	local f
	f=$(fixture BAD-truncated-midrecord.pipe)
	run -1 --separate-stderr bash -c "'$BIN/pcat' < '$f' > '$BATS_TEST_TMPDIR/ours'"
	[[ "$stderr" == "pcat: <stdin>: offset 0x"* ]]
	perf script -i - <"$f" >"$BATS_TEST_TMPDIR/a.txt" 2>/dev/null || true
	perf script -i - <"$BATS_TEST_TMPDIR/ours" >"$BATS_TEST_TMPDIR/b.txt" 2>/dev/null
	[ -s "$BATS_TEST_TMPDIR/a.txt" ]
	cmp_or_show "$BATS_TEST_TMPDIR/a.txt" "$BATS_TEST_TMPDIR/b.txt"
}

# record a short workload with perf into a perf.data file; skip when this machine
# cannot record (no perf_event_open for us)
record_data() {
	local out="$1"
	shift
	perf record -q -o "$out" "$@" -- sh -c 'i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done; ls / >/dev/null; sleep 0.01' \
		>/dev/null 2>"$out.err" || skip "perf record failed here: $(tail -n 1 "$out.err")"
}

@test "interop: perf.data files recorded now with many options convert to streams perf reads the same" {
	local t="$BATS_TEST_TMPDIR" name
	record_data "$t/z.data" -z -e cpu-clock -g
	record_data "$t/dwarf.data" --call-graph dwarf,4096 -e cpu-clock
	record_data "$t/grp.data" -e '{cpu-clock,context-switches}:S'
	record_data "$t/sw.data" --switch-events -e page-faults -c 1
	record_data "$t/mono.data" -k mono -e cpu-clock
	record_data "$t/regs.data" --user-regs=ax,bx -e cpu-clock --sample-cpu -d --phys-data
	for name in z dwarf grp sw mono regs; do
		"$BIN/pcat" "$t/$name.data" >"$t/$name.pipe"
		same_script "$t/$name.data" "$t/$name.pipe"
		same_script "$t/$name.data" "$t/$name.pipe" --ns -F comm,pid,tid,time,event,ip,sym,dso
		same_script "$t/$name.data" "$t/$name.pipe" --show-task-events --show-mmap-events --show-switch-events
	done
}

@test "interop: a system-wide tracepoint perf.data recorded now converts to a stream perf reads the same" {
	[ -e /sys/kernel/tracing/events ] || skip "tracefs not mounted"
	local t="$BATS_TEST_TMPDIR"
	record_data "$t/tp.data" -a -e sched:sched_switch -e sched:sched_process_exec
	"$BIN/pcat" "$t/tp.data" >"$t/tp.pipe"
	same_script "$t/tp.data" "$t/tp.pipe"
	same_script "$t/tp.data" "$t/tp.pipe" -G -F event,comm,trace
}

@test "interop: a perf.data file whose perf record was killed (data size 0) still gives its samples" {
	local t="$BATS_TEST_TMPDIR" pid loop i
	# a small ring and a high rate make perf write data before it is killed; the workload
	# spins until it is killed itself, by its pid (never by a pattern: other tests and
	# other users' processes may match one)
	perf record -m 4 -F 10000 -q -o "$t/killed.data" -e cpu-clock -- \
		sh -c 'echo $$ >"$1"; while :; do :; done' sh "$t/loop.pid" >/dev/null 2>&1 &
	pid=$!
	# killed once it has written samples, however long a loaded machine takes to get there
	for i in $(seq 300); do
		[ "$(stat -c %s "$t/killed.data" 2>/dev/null || echo 0)" -gt 65536 ] && break
		sleep 0.1
	done
	kill -9 "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
	loop=$(cat "$t/loop.pid" 2>/dev/null || true)
	[ -z "$loop" ] || kill -9 "$loop" 2>/dev/null || true
	[ "$(stat -c %s "$t/killed.data")" -gt 65536 ]
	# perf itself warns that the data size is 0 and shows nothing; pcat takes the
	# records to the end of the file
	run -0 --separate-stderr bash -c "'$BIN/pcat' '$t/killed.data' > '$t/killed.pipe'"
	perf script -i - <"$t/killed.pipe" >"$t/b.txt" 2>"$t/b.err"
	[ ! -s "$t/b.err" ]
	[ "$(grep -c cpu-clock "$t/b.txt")" -gt 10 ]
}
