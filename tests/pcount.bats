#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# pcount: counts checked against perf's own view of the same streams.

bats_require_minimum_version 1.5.0

setup() {
	load helpers
}

all_inputs() {
	good_pipes
	good_files
}

# perf's counts of the samples of $1 by $2, as sorted compact JSON {key: count}
perf_counts() {
	if [[ "$1" == *.data ]]; then
		PCOUNT_BY="$2" perf script -s "$TOP/tests/tools/count_by.py" -i "$1" 2>/dev/null | tail -n 1 | jq -cS .
	else
		PCOUNT_BY="$2" perf script -s "$TOP/tests/tools/count_by.py" -i - <"$1" 2>/dev/null | tail -n 1 | jq -cS .
	fi
}

our_counts() {
	"$BIN/pcount" -j --by "$2" "$1" | jq -cS "[.rows[] | {key: .$2, value: .count}] | from_entries"
}

@test "pcount: --help prints the usage on stdout and exits 0" {
	run -0 --separate-stderr "$BIN/pcount" --help
	[[ "$output" == "usage: pcount "* ]]
}

@test "pcount: a bad --interval is a usage error" {
	run -2 --separate-stderr "$BIN/pcount" -i abc "$DATA/rawsys-dd.pipe"
	[[ "$stderr" == "pcount: --interval: 'abc' is not a number of seconds"* ]]
}

@test "pcount: --interval takes durations; out of range says the range" {
	run -2 --separate-stderr "$BIN/pcount" -i 86400000 "$DATA/rawsys-dd.pipe"
	[ "${stderr_lines[0]}" = "pcount: --interval: '86400000' is out of range: from 1ms to 24h" ]
	run -2 --separate-stderr "$BIN/pcount" -i 0.0001 "$DATA/rawsys-dd.pipe"
	[[ "${stderr_lines[0]}" == *"out of range: from 1ms to 24h" ]]
	"$BIN/pcount" -j -i 50ms "$DATA/sched-switch-wakeup-a.pipe" >"$BATS_TEST_TMPDIR/ms"
	"$BIN/pcount" -j -i 0.05 "$DATA/sched-switch-wakeup-a.pipe" >"$BATS_TEST_TMPDIR/s"
	cmp_or_show "$BATS_TEST_TMPDIR/ms" "$BATS_TEST_TMPDIR/s"
	[ "$(head -n 1 "$BATS_TEST_TMPDIR/ms" | jq '.end - .start')" -eq 50000000 ]
}

@test "pcount: unknown keys, events and sums of non-numbers are exit 2 with the names that exist" {
	local f="$DATA/rawsys-dd.pipe" s="$DATA/sched-switch-wakeup-a.pipe"
	run -2 --separate-stderr "$BIN/pcount" --by sycall "$f"
	[ -z "$output" ]
	[[ "$stderr" == "pcount: --by: unknown key 'sycall' (did you mean syscall?); the keys of this stream are: event, comm, pid, tid, cpu, syscall, errno, id, args, ret, common_type"* ]]
	run -2 --separate-stderr "$BIN/pcount" -b bogus "$s"
	[[ "$stderr" == "pcount: --by: unknown key 'bogus'; the keys of this stream are: event, comm, pid, tid, cpu, prev_comm, "* ]]
	# issue 9: a field no event has is refused as pfilter refuses it
	run -2 --separate-stderr "$BIN/pcount" --by nosuchfield "$s"
	[[ "$stderr" == *"unknown key 'nosuchfield'; the keys of this stream are: "*"prev_state"* ]]
	run -2 --separate-stderr "$BIN/pcount" --sum bogus "$s"
	[[ "$stderr" == "pcount: --sum: unknown field 'bogus'; the numeric fields of this stream are: prev_pid, "* ]]
	run -2 --separate-stderr "$BIN/pcount" -s prev_comm "$s"
	[ "$stderr" = "pcount: --sum: 'prev_comm' is a string (in sched:sched_switch), and only numbers can be summed or cut into buckets" ]
	run -2 --separate-stderr "$BIN/pcount" -s n=sched:sched_wakup "$s"
	[[ "$stderr" == "pcount: --sum: no event sched:sched_wakup in this stream (did you mean sched:sched_wakeup?); its events are: sched:sched_switch, sched:sched_wakeup"* ]]
	run -2 --separate-stderr "$BIN/pcount" -b raw_syscalls:sys_exitt.ret "$f"
	[[ "$stderr" == "pcount: --by: no event raw_syscalls:sys_exitt in this stream (did you mean raw_syscalls:sys_exit?)"* ]]
	run -2 --separate-stderr "$BIN/pcount" -b raw_syscalls:sys_exit.rett "$f"
	[[ "$stderr" == "pcount: --by: raw_syscalls:sys_exit has no field 'rett' (did you mean ret?); its fields are: id, ret, common_type"* ]]
	run -2 --separate-stderr "$BIN/pcount" -b syscall "$s"
	[[ "$stderr" == "pcount: --by: no key syscall: no event of this stream is a syscall event"* ]]
	run -2 --separate-stderr "$BIN/pcount" -b prev_comm/10 "$s"
	[[ "$stderr" == "pcount: --by: 'prev_comm/10' is a string (in sched:sched_switch)"* ]]
	run -2 --separate-stderr "$BIN/pcount" -b 'id/0' "$f"
	[[ "$stderr" == "pcount: --by: '0' in 'id/0' is not a bucket size"* ]]
	# a live stream: the names are checked when the header arrives
	run -2 --separate-stderr bash -c "{ sleep 0.5; cat '$f'; } | '$BIN/pcount' -i 1 --by sycall"
	[[ "$stderr" == "pcount: --by: unknown key 'sycall' (did you mean syscall?)"* ]]
	# the names that exist still work, string fields too (perf script prints the same names)
	run -0 "$BIN/pcount" -j -b next_comm "$s"
}

@test "pcount: --by comm, pid, tid, event equal perf's counts on every fixture" {
	need_perf
	local f k
	for f in $(all_inputs); do
		case "$f" in *group-read*) continue ;; esac # perf adds derived member samples
		for k in comm pid tid event; do
			[ "$(our_counts "$f" "$k")" = "$(perf_counts "$f" "$k")" ] ||
				{ echo "$f --by $k: $(our_counts "$f" "$k") != $(perf_counts "$f" "$k")"; return 1; }
		done
	done
}

@test "pcount: --by comm equals perf script -F comm | sort | uniq -c" {
	need_perf
	local f
	for f in $(good_pipes); do
		case "$f" in *group-read* | *oddcomm*) continue ;; esac # derived samples; comms with newlines
		perf script -G -F comm -i - <"$f" 2>/dev/null | sed 's/^ *//; s/ *$//' | sort | uniq -c |
			awk '{c=$1; $1=""; sub(/^ /, ""); print c, $0}' | sort >"$BATS_TEST_TMPDIR/perf"
		"$BIN/pcount" -j --by comm "$f" | jq -r '.rows[] | "\(.count) \(.comm)"' | sort >"$BATS_TEST_TMPDIR/ours"
		diff "$BATS_TEST_TMPDIR/perf" "$BATS_TEST_TMPDIR/ours" || { echo "$f"; return 1; }
	done
}

@test "pcount: --by cpu equals perf's counts where the samples carry the CPU" {
	need_perf
	local f
	for f in $(good_pipes); do
		perf script -F cpu -i - <"$f" >/dev/null 2>&1 || continue # no PERF_SAMPLE_CPU
		case "$f" in *group-read*) continue ;; esac
		[ "$(our_counts "$f" cpu)" = "$(perf_counts "$f" cpu)" ]
	done
}

@test "pcount: syscall counts agree with perf's syscall-counts script, by number and by name" {
	need_perf
	local script=/usr/lib/perf-core/scripts/python/syscall-counts.py
	[ -f "$script" ] || script=/usr/libexec/perf-core/scripts/python/syscall-counts.py
	[ -f "$script" ] || skip "perf's syscall-counts script is not installed"
	local f="$DATA/rawsys-dd.pipe"
	perf script -s "$script" -i - <"$f" 2>/dev/null | awk '$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ {print $1, $2}' | sort >"$BATS_TEST_TMPDIR/perf"
	[ -s "$BATS_TEST_TMPDIR/perf" ]
	"$BIN/pcount" -j --by raw_syscalls:sys_enter.id "$f" | jq -r '.rows[] | "\(.["raw_syscalls:sys_enter.id"]) \(.count)"' | sort >"$BATS_TEST_TMPDIR/ours"
	diff "$BATS_TEST_TMPDIR/perf" "$BATS_TEST_TMPDIR/ours"
	# names: each row's name is the one <sys/syscall.h> gives its number, per the C compiler
	"$BIN/pcount" -j --by syscall,raw_syscalls:sys_enter.id "$f" |
		jq -r '.rows[] | "\(.syscall) \(.["raw_syscalls:sys_enter.id"]) \(.count)"' >"$BATS_TEST_TMPDIR/named"
	while read -r name nr count; do
		[ "$(printf '#include <sys/syscall.h>\nSYS_%s\n' "$name" | cc -E -P - | tail -n 1)" = "$nr" ] ||
			{ echo "$name is not $nr"; return 1; }
	done <"$BATS_TEST_TMPDIR/named"
	# and --by syscall counts each call once (entries), as syscall-counts does
	[ "$("$BIN/pcount" -j --by syscall "$f" | jq .total)" -eq "$(awk '{s += $2} END {print s}' "$BATS_TEST_TMPDIR/perf")" ]
}

@test "pcount: --sum adds a field and sorts by the sum; --top keeps the largest rows" {
	local f="$DATA/sched-switch-wakeup-a.pipe"
	run -0 bash -c "'$BIN/pcount' -j --by prev_state --sum prev_prio '$f'"
	local total
	total=$(echo "$output" | jq '[.rows[].sum] | add')
	[ "$total" -eq "$(echo "$output" | jq .total_sum)" ]
	# the sums are sorted in decreasing order
	[ "$(echo "$output" | jq '[.rows[].sum] == ([.rows[].sum] | sort | reverse)')" = true ]
	run -0 bash -c "'$BIN/pcount' -j --top 2 --by comm '$f' | jq '.rows | length'"
	[ "$output" -eq 2 ]
}

@test "pcount: FIELD/SIZE makes histogram buckets" {
	local f="$DATA/rawsys-dd.pipe"
	run -0 bash -c "'$BIN/pcount' -j --by raw_syscalls:sys_enter.id/100 '$f' | jq -r '.rows[] | .[\"raw_syscalls:sys_enter.id/100\"]' | sort"
	[ "${lines[*]}" = "0-99 100-199 200-299 300-399" ]
	# every entry falls in one bucket
	[ "$("$BIN/pcount" -j --by raw_syscalls:sys_enter.id/100 "$f" | jq '[.rows[].count] | add')" -eq 448 ]
}

@test "pcount: --interval prints one table per interval of sample time, the same on every replay" {
	local f="$DATA/sched-switch-wakeup-a.pipe"
	"$BIN/pcount" -j -i 0.05 "$f" >"$BATS_TEST_TMPDIR/a"
	"$BIN/pcount" -j -i 0.05 <"$f" >"$BATS_TEST_TMPDIR/b"
	cmp_or_show "$BATS_TEST_TMPDIR/a" "$BATS_TEST_TMPDIR/b"
	# ~0.2 s of samples: 4 or 5 intervals, the last one partial, totals add up
	[ "$(wc -l <"$BATS_TEST_TMPDIR/a")" -ge 4 ]
	[ "$(tail -n 1 "$BATS_TEST_TMPDIR/a" | jq .partial)" = true ]
	[ "$(jq -s '[.[].total] | add' "$BATS_TEST_TMPDIR/a")" -eq "$("$BIN/pcount" -j "$f" | jq .total)" ]
}

@test "pcount: an idle interval still prints when no sample arrives" {
	local f="$DATA/rawsys-dd.pipe"
	{ cat "$f"; sleep 3; } | "$BIN/pcount" -j -i 1 >"$BATS_TEST_TMPDIR/out" &
	local pid=$!
	sleep 2.5
	# the data spans 1 ms: the first interval closes by the wall clock, and an empty one too
	[ "$(wc -l <"$BATS_TEST_TMPDIR/out")" -ge 2 ]
	[ "$(sed -n 2p "$BATS_TEST_TMPDIR/out" | jq .total)" -eq 0 ]
	wait "$pid"
}

@test "pcount: SIGINT prints the last interval and exits 0" {
	local f="$DATA/rawsys-dd.pipe"
	mkfifo "$BATS_TEST_TMPDIR/fifo"
	"$BIN/pcount" -j -i 10 <"$BATS_TEST_TMPDIR/fifo" >"$BATS_TEST_TMPDIR/out" &
	local pid=$!
	exec 5>"$BATS_TEST_TMPDIR/fifo"
	cat "$f" >&5
	sleep 0.5
	kill -INT "$pid"
	local st=0
	wait "$pid" || st=$?
	exec 5>&-
	[ "$st" -eq 0 ]
	[ "$(jq .total "$BATS_TEST_TMPDIR/out")" -eq 896 ]
	[ "$(jq .partial "$BATS_TEST_TMPDIR/out")" = true ]
}

@test "pcount: --where counts the matching samples only; a bad expression is exit 2 with a caret" {
	local f="$DATA/rawsys-dd.pipe"
	# write() entries and exits of dd: the filter agrees with the id key
	[ "$("$BIN/pcount" -j -w 'id = 1' "$f" | jq .total)" -eq \
		"$("$BIN/pcount" -j --by id "$f" | jq '.rows[] | select(.id == "1") | .count')" ]
	run -2 --separate-stderr "$BIN/pcount" -w 'comm = (dd' "$f"
	[ "${stderr_lines[0]}" = "pcount: --where: a value is expected here, not '('" ]
	[ "${stderr_lines[1]}" = "comm = (dd" ]
	[ "${stderr_lines[2]}" = "       ^" ]
	run -2 --separate-stderr "$BIN/pcount" -w 'bogus = 1' "$f"
	[[ "${stderr_lines[0]}" == "pcount: --where: unknown field 'bogus'; the fields of this stream are: "* ]]
}

@test "pcount: on a terminal each interval clears the screen and redraws" {
	command -v script >/dev/null || skip "script(1) not installed"
	local f="$DATA/sched-switch-wakeup-a.pipe"
	script -qec "'$BIN/pcount' -i 0.05 '$f'" /dev/null >"$BATS_TEST_TMPDIR/tty"
	# one clear-screen per interval table
	[ "$(grep -o $'\e\\[H\e\\[2J' "$BATS_TEST_TMPDIR/tty" | wc -l)" -eq "$("$BIN/pcount" -j -i 0.05 "$f" | wc -l)" ]
	# and none when the output is not a terminal
	[ "$("$BIN/pcount" -i 0.05 "$f" | grep -c $'\e\\[2J')" -eq 0 ]
}
