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
	[[ "$stderr" == "pcount: --by: unknown key 'sycall' (did you mean syscall?); the keys of this stream are: event, comm, pid, tid, cpu, syscall, errno, sym, dso, ip, id, args"* ]]
	run -2 --separate-stderr "$BIN/pcount" -b bogus "$s"
	[[ "$stderr" == "pcount: --by: unknown key 'bogus'; the keys of this stream are: event, comm, pid, tid, cpu, sym, dso, ip, prev_comm, "* ]]
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

@test "pcount: fields printed through symbols or flags are shown as perf prints them" {
	need_perf
	local f="$DATA/sched-switch-wakeup-a.pipe"
	perf_script_pipe "$f" 2>/dev/null | grep -o 'prev_state=[^ ]*' | sed 's/prev_state=//' | sort | uniq -c |
		awk '{print $2, $1}' >"$BATS_TEST_TMPDIR/perf"
	[ -s "$BATS_TEST_TMPDIR/perf" ]
	"$BIN/pcount" -j -b prev_state "$f" | jq -r '.rows[] | "\(.prev_state) \(.count)"' | sort >"$BATS_TEST_TMPDIR/ours"
	diff "$BATS_TEST_TMPDIR/perf" "$BATS_TEST_TMPDIR/ours"
	# the number is still there as a bucket of one
	run -0 "$BIN/pcount" -j -b prev_state/1 "$f"
	[[ "$output" == *'"prev_state/1":"1-1"'* ]]
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

@test "pcount: buckets are listed in bucket order, negative ones first; --top keeps the largest (issue 25)" {
	local f="$DATA/rawsys-dd.pipe"
	run -0 "$BIN/pcount" --by ret/1024 "$f"
	[ "${lines[1]}" = "         1  -1024--1" ]
	[ "${lines[2]}" = "        35  0-1023" ]
	[ "${lines[4]}" = "       400  4096-5119" ]
	run -0 bash -c "'$BIN/pcount' -j --by ret/1024 '$f' | jq -c '[.rows[][\"ret/1024\"] | split(\"-\")[0] | if . == \"\" then -1 else tonumber end]'"
	[ "$output" = "$(jq -c 'sort' <<<"$output")" ]
	[ "$(jq length <<<"$output")" -eq 14 ]
	# the two largest rows, in bucket order
	run -0 "$BIN/pcount" -n 2 --by ret/1024 "$f"
	[ "${lines[1]}" = "        35  0-1023" ]
	[ "${lines[2]}" = "       400  4096-5119" ]
	# keys before a bucket in their own order, each one's buckets in order
	run -0 bash -c "'$BIN/pcount' -j --by comm,ret/1000 '$DATA/compressed-z.pipe' | jq -r '.rows[] | .comm'"
	[ "$output" = "$(sort -s <<<"$output")" ]
}

@test "pcount: --folded -i blocks start with their interval line and all end with an empty line (issue 25)" {
	local f="$DATA/cpuclock-g-sh.data" n
	"$BIN/pcount" --folded -i 20ms "$f" >"$BATS_TEST_TMPDIR/blocks"
	n=$("$BIN/pcount" -j -i 20ms "$f" | wc -l)
	[ "$n" -ge 3 ]
	[ "$(grep -c '^# \[[0-9.]*, [0-9.]*) [0-9]* samples' "$BATS_TEST_TMPDIR/blocks")" -eq "$n" ]
	[ "$(grep -c '^$' "$BATS_TEST_TMPDIR/blocks")" -eq "$n" ]
	head -n 1 "$BATS_TEST_TMPDIR/blocks" | grep -q '^# \['
	[ -z "$(tail -n 1 "$BATS_TEST_TMPDIR/blocks")" ]
	# a header opens each block: the line after an empty one is a header
	[ "$(awk 'prev == "" && NR > 1 && !/^# \[/ { bad++ } { prev = $0 } END { print bad + 0 }' "$BATS_TEST_TMPDIR/blocks")" -eq 0 ]
	# the header's count is the block's, and the blocks add up to the whole
	awk '/^# / { h = $0; sub(/ samples?( .*)?$/, "", h); want = h; sub(/.* /, "", want) } /^$/ { if (got != want) exit 1; got = 0 } /^[^#]/ && NF { got += $NF }' \
		"$BATS_TEST_TMPDIR/blocks"
	[ "$(awk '/^[^#]/ && NF { s += $NF } END { print s }' "$BATS_TEST_TMPDIR/blocks")" -eq \
		"$("$BIN/pcount" --folded "$f" | awk '{ s += $NF } END { print s }')" ]
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

@test "pcount: a quiet stream still closes its intervals once the margin has passed" {
	local f="$DATA/rawsys-dd.pipe"
	{ cat "$f"; sleep 5; } | "$BIN/pcount" -j -i 1 --late 0.5 >"$BATS_TEST_TMPDIR/out" &
	local pid=$!
	sleep 4
	# the data spans 1 ms: the stream's clock, estimated from the wall clock while it is
	# quiet, closes the first interval and empty ones after it
	[ "$(wc -l <"$BATS_TEST_TMPDIR/out")" -ge 2 ]
	[ "$(sed -n 1p "$BATS_TEST_TMPDIR/out" | jq .total)" -eq 896 ]
	[ "$(sed -n 2p "$BATS_TEST_TMPDIR/out" | jq .total)" -eq 0 ]
	wait "$pid"
}

@test "pcount: a stalled replay prints the intervals of the plain replay (defect 1)" {
	local f="$DATA/sched-switch-wakeup-a.pipe"
	"$BIN/pcount" -j -i 0.05 <"$f" | jq -c '[.start, .total]' >"$BATS_TEST_TMPDIR/plain"
	[ "$(wc -l <"$BATS_TEST_TMPDIR/plain")" -ge 4 ]
	# the input stops for 2.5 s in the middle: within the default margin, nothing changes
	(head -c 80000; sleep 2.5; cat) <"$f" | "$BIN/pcount" -j -i 0.05 >"$BATS_TEST_TMPDIR/stalled.json"
	jq -c '[.start, .total]' "$BATS_TEST_TMPDIR/stalled.json" >"$BATS_TEST_TMPDIR/stalled"
	diff "$BATS_TEST_TMPDIR/plain" "$BATS_TEST_TMPDIR/stalled"
	[ "$(jq -s 'map(.late_total // 0) | max' "$BATS_TEST_TMPDIR/stalled.json")" -eq 0 ]
	# and at -i 1, as a user types it
	"$BIN/pcount" -i 1 <"$f" >"$BATS_TEST_TMPDIR/plain1"
	(head -c 80000; sleep 2.5; cat) <"$f" | "$BIN/pcount" -i 1 >"$BATS_TEST_TMPDIR/stalled1"
	diff "$BATS_TEST_TMPDIR/plain1" "$BATS_TEST_TMPDIR/stalled1"
	# a stall longer than the margin: the samples that come after their interval was
	# printed are counted as late, never in another interval
	(head -c 80000; sleep 2.5; cat) <"$f" | "$BIN/pcount" -j -i 0.05 --late 1 >"$BATS_TEST_TMPDIR/late.json"
	local late counted
	late=$(jq -s 'map(.late // 0) | add' "$BATS_TEST_TMPDIR/late.json")
	counted=$(jq -s 'map(.total) | add' "$BATS_TEST_TMPDIR/late.json")
	[ "$late" -gt 0 ]
	[ $((late + counted)) -eq "$("$BIN/pcount" -j "$f" | jq .total)" ]
	# every interval counted no more than the plain replay counted in it
	jq -s -c 'map({(.start | tostring): .total}) | add' "$BATS_TEST_TMPDIR/late.json" >"$BATS_TEST_TMPDIR/l"
	"$BIN/pcount" -j -i 0.05 "$f" | jq -s -c 'map({(.start | tostring): .total}) | add' >"$BATS_TEST_TMPDIR/p"
	[ "$(jq -n --slurpfile l "$BATS_TEST_TMPDIR/l" --slurpfile p "$BATS_TEST_TMPDIR/p" '$l[0] | to_entries | all(.value <= ($p[0][.key] // 0))')" = true ]
}

@test "pcount: live from perf, which writes in bursts, prints what the replay of the same stream prints" {
	need_perf
	[ -e /sys/kernel/tracing/events/sched/sched_switch ] || skip "no sched_switch tracepoint"
	# perf holds samples in its ring buffers and writes them in bursts; a margin longer
	# than the bursts keeps every sample in its own interval
	perf record -q -o - -a -e sched:sched_switch -- sleep 4.5 2>/dev/null |
		tee "$BATS_TEST_TMPDIR/rec.pipe" | "$BIN/pcount" -j -i 1 --late 10 >"$BATS_TEST_TMPDIR/live.json"
	"$BIN/pcount" -j -i 1 "$BATS_TEST_TMPDIR/rec.pipe" >"$BATS_TEST_TMPDIR/replay.json"
	[ "$(wc -l <"$BATS_TEST_TMPDIR/replay.json")" -ge 4 ]
	diff <(jq -c '[.start, .total, .partial]' "$BATS_TEST_TMPDIR/live.json") \
		<(jq -c '[.start, .total, .partial]' "$BATS_TEST_TMPDIR/replay.json")
}

@test "pcount: interval headers show the wall-clock time where the stream has CLOCK_DATA" {
	need_perf
	[ -e /sys/kernel/tracing/events/sched/sched_switch ] || skip "no sched_switch tracepoint"
	local f="$BATS_TEST_TMPDIR/k.pipe"
	perf record -q -k CLOCK_MONOTONIC -o - -a -e sched:sched_switch -- sleep 0.3 2>/dev/null >"$f"
	# the first interval begins at the first sample: ptojson -t iso maps the same clock
	local iso
	iso=$("$BIN/ptojson" -t iso "$f" | head -n 1 | jq -r .time)
	[ "$("$BIN/pcount" -j -i 1 "$f" | head -n 1 | jq -r .start_iso)" = "$iso" ]
	run -0 env TZ=UTC "$BIN/pcount" -i 1 "$f"
	[[ "${lines[0]}" == "["*") ${iso:11:8} "*" samples"* ]]
	# and none without CLOCK_DATA
	run -0 "$BIN/pcount" -i 1 "$DATA/rawsys-dd.pipe"
	[[ "${lines[0]}" =~ ^\[[0-9.]+,\ [0-9.]+\)\ [0-9]+\ samples ]]
}

@test "pcount: lost events per interval and in total (defect 6)" {
	local f
	f=$(fixture lost-m1.pipe)
	# the LOST records, by their sample_id time, as perf report --stats totals them
	"$BIN/pcount" -j -i 1ms "$f" >"$BATS_TEST_TMPDIR/out"
	[ "$(jq -s 'map(.lost // 0) | add' "$BATS_TEST_TMPDIR/out")" -eq "$(tail -n 1 "$BATS_TEST_TMPDIR/out" | jq .lost_total)" ]
	[ "$(jq -s '[.[] | .lost // 0] | map(select(. > 0)) | length' "$BATS_TEST_TMPDIR/out")" -ge 2 ]
	# the running total only grows, and each interval's count is its own
	[ "$(jq -s '[.[] | .lost_total // 0] | . == sort' "$BATS_TEST_TMPDIR/out")" = true ]
	[ "$(tail -n 1 "$BATS_TEST_TMPDIR/out" | jq .lost_total)" -eq "$("$BIN/pcount" -j "$f" | jq .lost)" ]
	run -0 "$BIN/pcount" -i 1ms "$f"
	[[ "$output" == *"events in this interval, "*" in total (LOST records)"* ]]
}

@test "pcount: a write error is exit 1 with one message; a closed pipe is a quiet 0 (defect 7)" {
	[ -w /dev/full ] || skip "no /dev/full"
	run -1 --separate-stderr bash -c "'$BIN/pcount' '$DATA/rawsys-dd.pipe' >/dev/full"
	[ "$stderr" = "pcount: standard output: No space left on device" ]
	run -1 --separate-stderr bash -c "'$BIN/pcount' -i 0.05 '$DATA/sched-switch-wakeup-a.pipe' >/dev/full"
	[ "$stderr" = "pcount: standard output: No space left on device" ]
	run -0 --separate-stderr bash -c "'$BIN/pcount' -i 0.01 -b comm '$DATA/sched-switch-wakeup-a.pipe' | head -n 1"
	[ -z "$stderr" ]
}

@test "pcount: one sample is '1 sample' (defect 13)" {
	run -0 "$BIN/pcount" -i 0.01 "$DATA/sched-switch-wakeup-a.pipe"
	[[ "$output" != *" 1 samples"* ]]
	[[ "$output" == *") 1 sample"* ]]
}

@test "pcount: SIGINT prints the last interval and exits 0" {
	local f="$DATA/rawsys-dd.pipe"
	signal_while_reading INT 0.5 "$f" "$BIN/pcount" -j -i 10
	[ "$signal_status" -eq 0 ]
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

@test "pcount: a file replayed to a terminal prints its tables one after another" {
	command -v script >/dev/null || skip "script(1) not installed"
	local f="$DATA/sched-switch-wakeup-a.pipe"
	script -qec "'$BIN/pcount' -i 0.05 '$f'" /dev/null >"$BATS_TEST_TMPDIR/tty"
	# no clearing: every table stays readable, as when the output is not a terminal
	[ "$(grep -c $'\e\\[2J' "$BATS_TEST_TMPDIR/tty")" -eq 0 ]
	[ "$(grep -c '^\[' "$BATS_TEST_TMPDIR/tty")" -eq "$("$BIN/pcount" -j -i 0.05 "$f" | wc -l)" ]
	[ "$("$BIN/pcount" -i 0.05 "$f" | grep -c $'\e\\[2J')" -eq 0 ]
}

@test "pcount: --pace replays at the recorded speed and prints the same tables" {
	local f="$DATA/sched-switch-wakeup-a.pipe" s e
	"$BIN/pcount" -j -i 0.05 "$f" >"$BATS_TEST_TMPDIR/plain"
	s=$(date +%s%N)
	"$BIN/pcount" -j -i 0.05 --pace "$f" >"$BATS_TEST_TMPDIR/paced"
	e=$(date +%s%N)
	cmp_or_show "$BATS_TEST_TMPDIR/plain" "$BATS_TEST_TMPDIR/paced"
	# the samples span more than 150 ms of stream time: a paced replay takes that long
	[ "$(jq -s '(.[-1].start - .[0].start)' "$BATS_TEST_TMPDIR/plain")" -ge 150000000 ]
	[ $(((e - s) / 1000000)) -ge 150 ]
}

@test "pcount: a sample from far in the future does not hang the intervals" {
	command -v python3 >/dev/null || skip "python3 not installed"
	local f="$DATA/rawsys-dd.pipe" off t
	# the last sample's time becomes 2^62 ns
	off=$("$TOOLS/pmangle" --list "$f" | awk '$2 == 9 {o = $1} END {print o}')
	t=$("$BIN/ptojson" "$f" | tail -n 1 | jq .time)
	python3 "$TOP/tests/tools/ptimejump.py" "$f" "$BATS_TEST_TMPDIR/j.pipe" "$off" "$t"
	run -0 timeout 60 bash -c "'$BIN/pcount' -j -i 1ms '$BATS_TEST_TMPDIR/j.pipe' >'$BATS_TEST_TMPDIR/out'"
	# every sample counted once; the empty intervals before the last are cut short
	[ "$(jq -s 'map(.total) | add' "$BATS_TEST_TMPDIR/out")" -eq 896 ]
	[ "$(tail -n 1 "$BATS_TEST_TMPDIR/out" | jq -c '[.total, .partial]')" = "[1,true]" ]
	[ "$(wc -l <"$BATS_TEST_TMPDIR/out")" -le $((100000 + 4096 + 10)) ]
}

# need_live_view: tmux, and the raw_syscalls tracepoints a live view records
need_live_view() {
	command -v tmux >/dev/null || skip "tmux not installed"
	[ -e /sys/kernel/tracing/events/raw_syscalls/sys_enter ] || skip "no raw_syscalls tracepoints"
}

# tmux: a live view on a small terminal
tmux_run() {
	command -v tmux >/dev/null || skip "tmux not installed"
	TMUX_S="pcount-$$-$RANDOM"
	tmux -L "$TMUX_S" new-session -d -s "$TMUX_S" -x "$1" -y "$2" "$3; sleep 60"
}

tmux_screen() {
	tmux -L "$TMUX_S" capture-pane -p -t "$TMUX_S"
}

tmux_end() {
	tmux -L "$TMUX_S" kill-server 2>/dev/null || true
}

# tmux_wait FILE ERE: the screen into FILE every 0.25 s, until a line matches ERE or 10 s
# have passed (the test's own checks say what was missing)
tmux_wait() {
	local i
	for i in $(seq 40); do
		sleep 0.25
		tmux_screen >"$1"
		! grep -Eq "$2" "$1" || return 0
	done
}

@test "pcount: with no sample at all a live view shows its empty intervals at once (defect 5)" {
	command -v tmux >/dev/null || skip "tmux not installed"
	# as sctop nosuchprog 1 makes it: the header, then no sample at all
	tmux_run 80 15 "{ '$BIN/pfilter' -i '$DATA/rawsys-dd.pipe' 'comm = nosuchprog'; sleep 30; } | '$BIN/pcount' -i 1"
	sleep 2.5
	tmux_screen >"$BATS_TEST_TMPDIR/screen"
	tmux_end
	cat "$BATS_TEST_TMPDIR/screen"
	grep -Eq '^\[[0-9]+\.[0-9]+, [0-9]+\.[0-9]+\) 0 samples$' "$BATS_TEST_TMPDIR/screen"
	grep -q 'COUNT' "$BATS_TEST_TMPDIR/screen"
}

@test "pcount: sctop nosuchprog 1 itself, on a terminal, shows empty intervals at once (defect 5)" {
	need_live_view
	tmux_run 80 15 "'$TOP/bin/sctop' nosuchprog 1"
	# the first empty interval within a few seconds, however loaded the machine
	tmux_wait "$BATS_TEST_TMPDIR/screen" '^\[[0-9]+\.[0-9]+, [0-9]+\.[0-9]+\) .*0 samples$'
	tmux_end
	cat "$BATS_TEST_TMPDIR/screen"
	grep -Eq '^\[[0-9]+\.[0-9]+, [0-9]+\.[0-9]+\) .*0 samples$' "$BATS_TEST_TMPDIR/screen"
	grep -q 'COUNT' "$BATS_TEST_TMPDIR/screen"
}

@test "pcount: a live view on a small terminal keeps its header on the screen, cut to the width" {
	need_live_view
	tmux_run 50 10 "'$BIN/precord' -a -e raw_syscalls:sys_enter 2>/dev/null | '$BIN/pcount' -i 1 --by comm,pid,syscall"
	tmux_wait "$BATS_TEST_TMPDIR/screen" '^\['
	sleep 1.2
	tmux_screen >"$BATS_TEST_TMPDIR/screen"
	tmux_end
	cat "$BATS_TEST_TMPDIR/screen"
	# the interval line and the column titles are the top two lines
	# (its end, "N samples", may be cut: a loaded machine makes N long)
	[[ "$(sed -n 1p "$BATS_TEST_TMPDIR/screen")" =~ ^\[[0-9]+\.[0-9]+,\ [0-9]+\.[0-9]+\)\  ]]
	[[ "$(sed -n 2p "$BATS_TEST_TMPDIR/screen")" == *"COUNT  comm"* ]]
	# nothing is wider than the terminal, nothing scrolled it
	[ "$(awk 'length > 50' "$BATS_TEST_TMPDIR/screen" | wc -l)" -eq 0 ]
	[ "$(grep -c '^\[' "$BATS_TEST_TMPDIR/screen")" -eq 1 ]
}

@test "pcount: a live view is redrawn to the terminal's new size when it is resized" {
	need_live_view
	local i t="$BATS_TEST_TMPDIR"
	tmux_run 40 8 "'$BIN/precord' -a -e raw_syscalls:sys_enter 2>/dev/null | '$BIN/pcount' -i 1 --by comm,pid,syscall"
	tmux_wait "$t/small" '^\['
	sleep 1.2
	tmux_screen >"$t/small"
	tmux -L "$TMUX_S" resize-window -t "$TMUX_S" -x 100 -y 20
	# (SIGWINCH: the next drawing, within 100 ms on a busy stream, has the new size)
	for i in $(seq 20); do
		sleep 0.25
		tmux_screen >"$t/big"
		[ "$(grep -c . "$t/big")" -gt 8 ] && break
	done
	tmux_end
	cat "$t/small" "$t/big"
	# small: cut to 40 columns and 8 rows; resized: the whole interval line, more rows
	[ "$(awk 'length > 40' "$t/small" | wc -l)" -eq 0 ]
	[ "$(grep -c . "$t/small")" -le 8 ]
	[[ "$(sed -n 1p "$t/big")" == "["*" sample"* ]]
	[ "$(grep -c . "$t/big")" -gt 8 ]
	[ "$(awk 'length > 100' "$t/big" | wc -l)" -eq 0 ]
}


@test "pcount: --symfs DIR names the frames of a moved object as perf script --symfs does" {
	moved_recording
	local t=$BATS_TEST_TMPDIR
	"$BIN/pcount" -j --by sym "$t/moved.pipe" | jq -r '.rows[].sym' >"$t/none.txt"
	run -1 grep -qx spin "$t/none.txt"
	perf script -i - --symfs "$t/root" -G -F ip,sym <"$t/moved.pipe" 2>/dev/null |
		awk '{ $1 = ""; print substr($0, 2) }' | sort | uniq -c |
		awk '{ c = $1; $1 = ""; print substr($0, 2) "\t" c }' | sort >"$t/perf.txt"
	grep -q '^spin	' "$t/perf.txt"
	"$BIN/pcount" -j --by sym --symfs "$t/root" "$t/moved.pipe" |
		jq -r '.rows[] | "\(.sym)\t\(.count)"' | sort >"$t/ours.txt"
	cmp_or_show "$t/perf.txt" "$t/ours.txt"
}

@test "pcount: --kallsyms FILE names kernel frames from that copy; a missing one is a usage error" {
	moved_recording
	local t=$BATS_TEST_TMPDIR
	# a copy that names the whole kernel text with two made-up functions
	printf '%s\n' 'ffffffff80000000 T _stext' 'ffffffff80000000 T pst_low' \
		'ffffffff82000000 T pst_high' 'ffffffffff000000 T _etext' >"$t/kallsyms"
	"$BIN/pcount" -j --by sym,dso "$t/moved.pipe" |
		jq -r '.rows[] | select(.dso == "[kernel.kallsyms]") | .sym' >"$t/live.txt"
	run -1 grep -q '^pst_' "$t/live.txt"
	"$BIN/pcount" -j --by sym,dso --kallsyms "$t/kallsyms" "$t/moved.pipe" |
		jq -r '.rows[] | select(.dso == "[kernel.kallsyms]") | .sym' | sort -u >"$t/copy.txt"
	grep -q '^pst_' "$t/copy.txt"
	run -1 grep -qv '^pst_' "$t/copy.txt"
	run -2 --separate-stderr "$BIN/pcount" --by sym --kallsyms "$t/nonesuch" "$t/moved.pipe"
	[[ "$stderr" == "pcount: "*"nonesuch"* ]]
}
