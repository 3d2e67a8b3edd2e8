#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# The live scripts: report halves against perf's own scripts, live runs, and the two
# halves over a real TCP connection on loopback.

bats_require_minimum_version 1.5.0

setup() {
	load helpers
}

PERF_SCRIPTS=/usr/lib/perf-core/scripts

need_perf_script() {
	need_perf
	[ -f "$PERF_SCRIPTS/$1" ] || PERF_SCRIPTS=/usr/libexec/perf-core/scripts
	[ -f "$PERF_SCRIPTS/$1" ] || skip "perf's $1 is not installed"
}

# can this machine record system-wide tracepoints?
need_recording() {
	[ -e /sys/kernel/tracing/events/raw_syscalls ] || skip "tracefs not mounted"
	"$BIN/precord" -q -a -e raw_syscalls:sys_enter --duration 0.1 >/dev/null 2>&1 ||
		skip "perf_event_open is not available here"
}

@test "scripts: pstream-scripts -l lists every script, and each one runs" {
	local s list
	list=$("$BIN/pstream-scripts" -l)
	for s in sctop rwtop syscall-counts syscall-counts-by-pid failed-syscalls ptop; do
		[[ "$list" == *"$s "* ]]
		[ -x "$BIN/$s" ]
		if [ "$s" = rwtop ]; then
			# rwtop needs syscalls:*_read/_write: pcount names what this stream lacks
			run -2 --separate-stderr "$BIN/$s" --report <"$DATA/rawsys-dd.pipe"
			[[ "$stderr" == "pcount: --sum: no event syscalls:sys_exit_read in this stream"* ]]
			continue
		fi
		run -0 "$BIN/$s" --report <"$DATA/rawsys-dd.pipe"
	done
}

@test "scripts: a wrong argument is a usage error" {
	run -2 --separate-stderr "$BIN/sctop" --report a b c
	[[ "$stderr" == "sctop: at most two arguments"* ]]
	run -2 --separate-stderr "$BIN/pstream-scripts" nosuch
	[[ "$stderr" == "pstream-scripts: no script 'nosuch'"* ]]
}

@test "scripts: --help and --version answer without recording; unknown options and bad arguments are usage errors" {
	local s
	for s in sctop rwtop syscall-counts syscall-counts-by-pid failed-syscalls ptop syscall-latency; do
		# a script that records instead of answering is stopped by timeout: status 124
		run -0 --separate-stderr timeout 10 "$BIN/$s" --help </dev/null
		[[ "${lines[0]}" == "usage: $s [--record | --report] "* ]]
		[[ "$output" == *"--record"* && "$output" == *"--report"* && "$output" == *"--version"* ]]
		run -0 --separate-stderr timeout 10 "$BIN/$s" --version </dev/null
		[ "$output" = "$s (pstream) $(sed -n 's/^VERSION := //p' "$TOP/GNUmakefile")" ]
		run -0 timeout 10 "$BIN/$s" -h </dev/null
		run -0 timeout 10 "$BIN/$s" -V </dev/null
		run -2 --separate-stderr timeout 10 "$BIN/$s" -x </dev/null
		[ "${stderr_lines[0]}" = "$s: unknown option '-x'" ]
		run -2 --separate-stderr timeout 10 "$BIN/$s" -1 </dev/null
		[ "${stderr_lines[0]}" = "$s: unknown option '-1'" ]
		run -2 --separate-stderr timeout 10 "$BIN/$s" --record x </dev/null
		[[ "${stderr_lines[0]}" == "$s: --record takes no argument"* ]]
		run -2 --separate-stderr timeout 10 "$BIN/$s" --record --report </dev/null
	done
	run -2 --separate-stderr timeout 10 "$BIN/rwtop" --report abc </dev/null
	[ "${stderr_lines[0]}" = "rwtop: 'abc' is not an interval: a number of seconds or a duration (5, 5s, 500ms, 2m), from 1ms to 24h (rwtop takes no comm)" ]
	run -2 --separate-stderr timeout 10 "$BIN/sctop" --report dd 0 </dev/null
	[ "${stderr_lines[0]}" = "sctop: '0' is not an interval: a number of seconds or a duration (5, 5s, 500ms, 2m), from 1ms to 24h" ]
	run -2 --separate-stderr timeout 10 "$BIN/sctop" 86400000 </dev/null
	[[ "${stderr_lines[0]}" == *"from 1ms to 24h" ]]
	# durations as pcount takes them
	run -0 timeout 10 "$BIN/sctop" --report 500ms <"$DATA/rawsys-dd.pipe"
	run -0 timeout 10 "$BIN/rwtop" --report 1m <"$DATA/rwsys-dd.pipe"
	run -2 --separate-stderr timeout 10 "$BIN/syscall-counts" a b </dev/null
	[ "${stderr_lines[0]}" = "syscall-counts: at most one argument: [comm]" ]
	run -0 --separate-stderr timeout 10 "$BIN/pstream-scripts" --version
	run -2 --separate-stderr timeout 10 "$BIN/pstream-scripts" --bogus
	[ "${stderr_lines[0]}" = "pstream-scripts: unknown option '--bogus'" ]
	# after '--' a comm may start with a dash
	run -0 timeout 10 "$BIN/syscall-counts" --report -- -dd <"$DATA/rawsys-dd.pipe"
}

@test "scripts: a symbolic link to a script works from another directory" {
	local t="$BATS_TEST_TMPDIR"
	ln -s "$BIN/sctop" "$t/my-sctop"
	ln -s "$BIN/pstream-scripts" "$t/ps"
	run -0 env PATH=/usr/bin:/bin "$t/my-sctop" --version
	[ "$output" = "sctop (pstream) $(sed -n 's/^VERSION := //p' "$TOP/GNUmakefile")" ]
	run -0 env PATH=/usr/bin:/bin "$t/my-sctop" --report <"$DATA/rawsys-dd.pipe"
	[[ "$output" == *" write"* ]]
	run -0 env PATH=/usr/bin:/bin "$t/ps" syscall-counts --report <"$DATA/rawsys-dd.pipe"
}

@test "scripts: make install gives every script a man page (man sctop finds pstream-scripts(1))" {
	local t="$BATS_TEST_TMPDIR/root" s
	make -s -C "$TOP" install DESTDIR="$t" PREFIX=/usr >/dev/null
	for s in sctop rwtop syscall-counts syscall-counts-by-pid failed-syscalls ptop syscall-latency; do
		[ -x "$t/usr/bin/$s" ]
		[ "$(readlink -f "$t/usr/share/man/man1/$s.1")" = "$(readlink -f "$t/usr/share/man/man1/pstream-scripts.1")" ]
		if command -v man >/dev/null; then
			MANPATH="$t/usr/share/man" man -w "$s" >/dev/null
		fi
	done
	make -s -C "$TOP" uninstall DESTDIR="$t" PREFIX=/usr >/dev/null
	[ -z "$(find "$t" -type f -o -type l)" ]
}

@test "scripts: syscall-counts agrees with perf's syscall-counts.py, names for numbers" {
	need_perf_script python/syscall-counts.py
	local f="$DATA/rawsys-dd.pipe"
	perf script -s "$PERF_SCRIPTS/python/syscall-counts.py" -i - <"$f" 2>/dev/null |
		awk '$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ {print $1, $2}' | sort >"$BATS_TEST_TMPDIR/perf"
	[ -s "$BATS_TEST_TMPDIR/perf" ]
	"$BIN/syscall-counts" --report <"$f" | tail -n +2 >"$BATS_TEST_TMPDIR/ours"
	# turn our names into numbers with the C library's own <sys/syscall.h>
	while read -r count name; do
		echo "$(printf '#include <sys/syscall.h>\nSYS_%s\n' "$name" | cc -E -P - | tail -n 1) $count"
	done <"$BATS_TEST_TMPDIR/ours" | sort >"$BATS_TEST_TMPDIR/ours.nr"
	diff "$BATS_TEST_TMPDIR/perf" "$BATS_TEST_TMPDIR/ours.nr"
}

@test "scripts: syscall-counts with a comm keeps that comm's calls only" {
	local f="$DATA/compressed-z.pipe"
	"$BIN/syscall-counts" --report ls <"$f" | tail -n +2 | awk '{s += $1} END {print s}' >"$BATS_TEST_TMPDIR/n"
	[ "$(cat "$BATS_TEST_TMPDIR/n")" -eq "$("$BIN/pcount" -j --by comm -w 'event = "raw_syscalls:sys_enter"' "$f" | jq '.rows[] | select(.comm == "ls") | .count')" ]
}

@test "scripts: failed-syscalls counts the errors perf's failed-syscalls-by-pid.py counts" {
	need_perf_script python/failed-syscalls-by-pid.py
	local f="$DATA/compressed-z.pipe"
	perf script -s "$PERF_SCRIPTS/python/failed-syscalls-by-pid.py" -i - <"$f" 2>/dev/null |
		awk '$1 == "err" {n[$3] += $4} END {for (e in n) print e, n[e]}' | sort >"$BATS_TEST_TMPDIR/perf"
	[ -s "$BATS_TEST_TMPDIR/perf" ]
	"$BIN/failed-syscalls" --report <"$f" | tail -n +2 |
		awk '{n[$NF] += $1} END {for (e in n) print e, n[e]}' | sort >"$BATS_TEST_TMPDIR/ours"
	diff "$BATS_TEST_TMPDIR/perf" "$BATS_TEST_TMPDIR/ours"
}

@test "scripts: rwtop's columns equal perf's rw-by-pid.pl" {
	need_perf_script perl/rw-by-pid.pl
	local f
	f=$(fixture rwsys-dd-file.pipe)
	perf script -s "$PERF_SCRIPTS/perl/rw-by-pid.pl" -i - <"$f" >"$BATS_TEST_TMPDIR/perf.txt" 2>/dev/null
	awk '/^read counts/ {m = "r"} /^failed reads/ {m = ""} /^write counts/ {m = "w"} /^failed writes/ {m = ""}
		m == "r" && $1 ~ /^[0-9]+$/ {r[$1] = $3 " " $4 " " $5}
		m == "w" && $1 ~ /^[0-9]+$/ {w[$1] = $3 " " $4}
		END {for (p in r) print p, r[p], (p in w ? w[p] : "0 0")}' "$BATS_TEST_TMPDIR/perf.txt" | sort >"$BATS_TEST_TMPDIR/perf"
	[ -s "$BATS_TEST_TMPDIR/perf" ]
	# ours: COUNT bytes_read reads bytes_req writes bytes_written pid comm
	"$BIN/rwtop" --report 10 <"$f" | awk '$1 ~ /^[0-9]+$/ {print $7, $3, $4, $2, $5, $6}' | sort >"$BATS_TEST_TMPDIR/ours"
	diff "$BATS_TEST_TMPDIR/perf" "$BATS_TEST_TMPDIR/ours"
}

@test "scripts: sctop shows a workload's syscalls by name within 2 intervals; Ctrl-C prints the last and exits 0" {
	need_recording
	local t="$BATS_TEST_TMPDIR"
	# its own session, so that sctop's pipeline does not leave the workload out
	setsid sh -c 'while :; do dd if=/dev/zero of=/dev/null bs=1 count=2000 status=none; done' &
	local load=$!
	# a shell started in the background ignores SIGINT, and its children with it: give
	# the script the default action a terminal's foreground job has
	env --default-signal=INT true 2>/dev/null || skip "env --default-signal needs coreutils 9"
	setsid env --default-signal=INT "$BIN/sctop" dd 1 >"$t/out" 2>"$t/err" &
	local pid=$!
	local i
	for i in $(seq 1 40); do
		grep -q ' write$' "$t/out" && grep -q ' read$' "$t/out" && break
		sleep 0.1
	done
	kill -INT -- -"$pid" 2>/dev/null || kill -INT "$pid"
	local st=0
	wait "$pid" || st=$?
	kill -- -"$load" 2>/dev/null || kill "$load" 2>/dev/null || true
	[ "$st" -eq 0 ] || { cat "$t/err"; return 1; }
	grep -q ' write$' "$t/out"
	grep -q ' read$' "$t/out"
	grep -q '(last, partial)' "$t/out"
}

@test "scripts: precord and pcount over TCP on loopback count what a local run counts" {
	need_recording
	command -v socat >/dev/null || skip "socat not installed"
	local t="$BATS_TEST_TMPDIR" port=$((20000 + RANDOM % 20000))
	local work="dd if=/dev/zero of=/dev/null bs=512 count=3000 status=none"
	# the reporting side listens; the recording side connects and sends the stream
	socat -u "TCP-LISTEN:$port,bind=127.0.0.1,reuseaddr" - | "$BIN/pcount" -j --by syscall >"$t/net" &
	local rd=$!
	sleep 0.5
	"$BIN/precord" -q -e raw_syscalls:sys_enter -- sh -c "$work" 2>"$t/rec.err" |
		socat -u - "TCP:127.0.0.1:$port"
	wait "$rd"
	"$BIN/precord" -q -e raw_syscalls:sys_enter -- sh -c "$work" 2>/dev/null |
		"$BIN/pcount" -j --by syscall >"$t/local"
	# every syscall is either counted or among the events LOST says the kernel dropped
	local net local_
	net=$(jq '.total + (.lost // 0)' "$t/net")
	local_=$(jq '.total + (.lost // 0)' "$t/local")
	[ "$(jq '.total' "$t/net")" -gt 1000 ]
	[ $((net - local_)) -le 5 ] && [ $((local_ - net)) -le 5 ] ||
		{ echo "net $(cat "$t/net" | cut -c1-300) local $(cut -c1-300 "$t/local")"; return 1; }
	# and where nothing was lost, dd's reads and writes are exactly its 3000
	if [ "$(jq '.lost // 0' "$t/net")" -eq 0 ]; then
		[ "$(jq '.rows[] | select(.syscall == "write") | .count' "$t/net")" -eq 3000 ]
	fi
}

@test "scripts: syscall-latency --report is pcount --by syscall --stats latency per interval" {
	local f="$DATA/rawsys-dd.pipe"
	run -0 --separate-stderr "$BIN/syscall-latency" --report 1m <"$f"
	[ "$output" = "$("$BIN/pcount" --by syscall --stats latency -i 1m -n 25 "$f")" ]
	[[ "${lines[1]}" == *COUNT*MIN*AVG*MAX*TOTAL*STDDEV*syscall* ]]
	run -2 --separate-stderr "$BIN/syscall-latency" --report a b c </dev/null
	[ "${stderr_lines[0]}" = "syscall-latency: at most two arguments: [comm] [interval]" ]
}

@test "scripts: each --help offers only the arguments its script takes" {
	local s a
	for s in sctop rwtop syscall-counts syscall-counts-by-pid failed-syscalls ptop; do
		run -0 --separate-stderr timeout 10 "$BIN/$s" --help </dev/null
		for a in comm interval; do
			if [[ "${lines[0]}" == *"[$a]"* ]]; then
				[[ "$output" == *$'\n'"  $a "* ]]
			else
				[[ "$output" != *$'\n'"  $a "* ]]
			fi
		done
	done
	run -2 --separate-stderr timeout 10 "$BIN/ptop" --report bash </dev/null
	[[ "${stderr_lines[0]}" == "ptop: 'bash' is not an interval: "*" (ptop takes no comm)" ]]
}

@test "scripts: ptop --report shows perf top's columns: overhead, [k]/[.] function, object" {
	"$BIN/pcat" "$DATA/cpuclock-g-sh.data" >"$BATS_TEST_TMPDIR/sh.pipe"
	run -0 --separate-stderr timeout 20 "$BIN/ptop" --report 1m <"$BATS_TEST_TMPDIR/sh.pipe"
	[[ "${lines[1]}" =~ ^\ OVERHEAD\ +COUNT\ +sym\ +dso$ ]]
	[[ "${lines[2]}" =~ ^\ +[0-9]+\.[0-9][0-9]%\ +[0-9]+\ +\[[k.]\]\ [^\ ]+\ +[^\ ]+$ ]]
}
