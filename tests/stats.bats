#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# pcount --stats and --hist: each row's count, min, avg, max, total, stddev and log2
# histogram checked against the same numbers computed from perf script's output of the
# same recording (tests/tools/stats_oracle.py, exact integer arithmetic).

bats_require_minimum_version 1.5.0

setup() {
	load helpers
	ORACLE="$TOP/tests/tools/stats_oracle.py"
}

# perf script's exits of $1 as "TID EVENT: NR ID = RET" lines
perf_exits() {
	perf script -F tid,event,trace -i - <"$1" 2>/dev/null | grep 'sys_exit: NR '
}

# compare pcount -j --by $2 --stats $3 --hist $3 of $1 with the oracle file $4
compare_with() {
	"$BIN/pcount" -j --by "$2" --stats "$3" --hist "$3" "${@:5}" "$1" >"$BATS_TEST_TMPDIR/ours.json"
	run -0 python3 "$ORACLE" --compare "$4" "$BATS_TEST_TMPDIR/ours.json" "$2" "$3"
	echo "$output"
}

@test "stats: --stats ret --hist ret by tid equal perf script's exits, on every syscall fixture" {
	need_perf
	local f n=0
	for f in $(good_pipes); do
		perf_exits "$f" >"$BATS_TEST_TMPDIR/exits" || continue
		perf_script_pipe "$f" -F event 2>/dev/null | grep -q raw_syscalls:sys_exit || continue
		python3 "$ORACLE" 1 -1 <"$BATS_TEST_TMPDIR/exits" >"$BATS_TEST_TMPDIR/want.json"
		compare_with "$f" tid ret "$BATS_TEST_TMPDIR/want.json" || { echo "$f"; return 1; }
		n=$((n + 1))
	done
	[ "$n" -ge 2 ]
}

@test "stats: by syscall number, and a syscall exit is counted by syscall when the stream has the entries" {
	need_perf
	local f="$DATA/rawsys-dd.pipe"
	perf_exits "$f" | sed 's/ NR / /' | python3 "$ORACLE" 3 -1 >"$BATS_TEST_TMPDIR/want.json"
	compare_with "$f" id ret "$BATS_TEST_TMPDIR/want.json"
	# the same calls named: every exit counted once, at its exit
	[ "$("$BIN/pcount" -j --by syscall --stats ret "$f" | jq '[.rows[].count] | add')" -eq \
		"$(perf_exits "$f" | wc -l)" ]
	diff <("$BIN/pcount" -j --by syscall --stats ret "$f" | jq -c '[.rows[].ret] | sort_by(.total, .count)') \
		<("$BIN/pcount" -j --by id --stats ret "$f" | jq -c '[.rows[].ret] | sort_by(.total, .count)')
	# without --stats, each call is still counted once, at its entry
	[ "$("$BIN/pcount" -j --by syscall "$f" | jq '.total')" -eq \
		"$(perf script -F event -i - <"$f" 2>/dev/null | grep -c sys_enter)" ]
}

@test "stats: a live recording from perf record -a, in the pipe and the file form" {
	need_perf
	[ -e /sys/kernel/tracing/events/raw_syscalls ] || skip "tracefs not mounted"
	local p="$BATS_TEST_TMPDIR/rec.pipe" d="$BATS_TEST_TMPDIR/rec.data"
	perf record -q -e raw_syscalls:sys_exit -a -o - -- sleep 0.3 >"$p" 2>/dev/null ||
		skip "perf record -a cannot trace here"
	perf_exits "$p" >"$BATS_TEST_TMPDIR/exits"
	[ "$(wc -l <"$BATS_TEST_TMPDIR/exits")" -gt 10 ]
	python3 "$ORACLE" 1 -1 <"$BATS_TEST_TMPDIR/exits" >"$BATS_TEST_TMPDIR/want.json"
	compare_with "$p" tid ret "$BATS_TEST_TMPDIR/want.json"
	perf record -q -e raw_syscalls:sys_exit -a -o "$d" -- sleep 0.2 2>/dev/null
	perf script -F tid,event,trace -i "$d" 2>/dev/null | grep 'sys_exit: NR ' |
		python3 "$ORACLE" 1 -1 >"$BATS_TEST_TMPDIR/want.json"
	compare_with "$d" tid ret "$BATS_TEST_TMPDIR/want.json"
}

@test "stats: in a stream of syscall exits, the calls that failed, as perf trace -s counts them" {
	need_perf
	local f="$DATA/compressed-z.pipe"
	perf_exits "$f" | awk '{ n[$4] += 0 } $NF < 0 { n[$4]++ } END { for (k in n) print k, n[k] }' |
		sort >"$BATS_TEST_TMPDIR/want"
	"$BIN/pcount" -j --by id --stats ret "$f" | jq -r '.rows[] | "\(.id) \(.ret.errors)"' |
		sort >"$BATS_TEST_TMPDIR/ours"
	diff "$BATS_TEST_TMPDIR/want" "$BATS_TEST_TMPDIR/ours"
	grep -q ' [1-9]' "$BATS_TEST_TMPDIR/ours"
	run -0 "$BIN/pcount" --by syscall --stats ret "$f"
	[[ "${lines[0]}" == "     COUNT     ERRORS "*MIN* ]]
	[[ "$output" == *"        32         16 "*" wait4"* ]]
}

@test "stats: --where counts the matching values only" {
	need_perf
	local f="$DATA/compressed-z.pipe"
	perf_exits "$f" | awk '$NF < 0' | python3 "$ORACLE" 1 -1 >"$BATS_TEST_TMPDIR/want.json"
	[ "$(jq 'length' "$BATS_TEST_TMPDIR/want.json")" -gt 0 ]
	compare_with "$f" tid ret "$BATS_TEST_TMPDIR/want.json" --where 'ret < 0'
}

@test "stats: with -i the intervals add up to the whole: counts, totals, extremes, buckets" {
	local f="$DATA/compressed-z.pipe"
	"$BIN/pcount" -j -i 30ms --by comm --stats ret --hist ret "$f" >"$BATS_TEST_TMPDIR/iv"
	[ "$(wc -l <"$BATS_TEST_TMPDIR/iv")" -ge 3 ]
	"$BIN/pcount" -j --by comm --stats ret --hist ret "$f" >"$BATS_TEST_TMPDIR/whole"
	local merged whole
	# exact integers: python, not jq (whose numbers are doubles)
	merged=$(python3 "$ORACLE" --merge comm ret <"$BATS_TEST_TMPDIR/iv")
	whole=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
rows = [{"comm": r["comm"], "ret": {"count": r["ret"]["count"], "total": r["ret"]["total"],
         "min": r["ret"]["min"], "max": r["ret"]["max"],
         "hist": r["ret"]["hist"]}} for r in d["rows"]]
json.dump({"rows": sorted(rows, key=lambda r: r["comm"])}, sys.stdout, sort_keys=True)
print()' "$BATS_TEST_TMPDIR/whole")
	[ "$merged" = "$whole" ] || { echo "$merged"; echo "$whole"; return 1; }
}

@test "stats: --json shape: an object named after the field, hist buckets {le, count}" {
	local f="$DATA/rawsys-dd.pipe"
	run -0 "$BIN/pcount" -j --by comm --stats ret --hist ret "$f"
	[ "$(jq -c '.rows[0].ret | keys_unsorted' <<<"$output")" = '["count","min","avg","max","total","stddev","errors","hist"]' ]
	[ "$(jq -c '[.rows[0].ret.hist[0] | keys_unsorted[]]' <<<"$output")" = '["le","count"]' ]
	[ "$(jq -c '.units' <<<"$output")" = '{}' ]
	run -0 "$BIN/pcount" -j --by comm --stats ret "$f"
	[ "$(jq -c '.rows[0].ret | keys_unsorted' <<<"$output")" = '["count","min","avg","max","total","stddev","errors"]' ]
	# no errors where the values are not syscall exits
	run -0 "$BIN/pcount" -j --by comm --stats prev_pid "$DATA/sched-switch-wakeup-a.pipe"
	[ "$(jq -c '.rows[0].prev_pid | keys_unsorted' <<<"$output")" = '["count","min","avg","max","total","stddev"]' ]
	run -0 "$BIN/pcount" -j --by comm --hist r=ret "$f"
	[ "$(jq -c '.rows[0].r | keys' <<<"$output")" = '["hist"]' ]
	# rows sort by the total
	run -0 "$BIN/pcount" -j --by syscall --stats ret "$f"
	[ "$(jq -c '[.rows[].ret.total]' <<<"$output")" = "$(jq -c '[.rows[].ret.total] | sort | reverse' <<<"$output")" ]
}

@test "stats: durations are shown with units; their JSON is in nanoseconds" {
	need_perf
	local f="$DATA/cpuclock-g-sh.data"
	run -0 "$BIN/pcount" --by comm --stats period --hist period "$f"
	[[ "${lines[0]}" == *COUNT*MIN*AVG*MAX*TOTAL*STDDEV*comm ]]
	[[ "${lines[1]}" =~ \ [0-9]+\.[0-9]{3}\ ms\ .*\ sh$ ]] || { echo "${lines[1]}"; return 1; }
	[ "${lines[2]}" = "  period (ns):" ]
	run -0 "$BIN/pcount" -j --by comm --stats period "$f"
	[ "$(jq -c .units <<<"$output")" = '{"period":"ns"}' ]
	[ "$(jq '.rows[0].period.total' <<<"$output")" -eq \
		"$(perf script -F period -i "$f" 2>/dev/null | awk '{ s += $1 } END { print s }')" ]
	# a period that counts something else is a plain number
	run -0 "$BIN/pcount" -j --by event --stats period "$DATA/../data/rawsys-dd.pipe"
	[ "$(jq -c .units <<<"$output")" = '{}' ]
}

@test "stats: the histogram is drawn as bpftrace draws one" {
	run -0 "$BIN/pcount" --by comm --hist ret "$DATA/rawsys-dd.pipe"
	[ "${lines[2]}" = "  ret:" ]
	[ "${lines[3]}" = "  (..., 0)                      1 |@                                       |" ]
	[ "${lines[4]}" = "  [0]                          23 |@@                                      |" ]
	[[ "$output" == *"
  [4K, 8K)                    400 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|
"* ]]
}

@test "stats: usage errors name what is wrong" {
	local f="$DATA/rawsys-dd.pipe"
	run -2 --separate-stderr "$BIN/pcount" --stats raw_syscalls:sys_exit "$f"
	[ "$stderr" = "pcount: --stats: 'raw_syscalls:sys_exit' names an event, not a field" ] || echo "$stderr"
	run -2 --separate-stderr "$BIN/pcount" --stats rett "$f"
	[[ "${stderr_lines[0]}" == "pcount: --stats: unknown field 'rett' (did you mean ret?)"* ]]
	run -2 --separate-stderr "$BIN/pcount" --hist ret --hist id "$f"
	[[ "${stderr_lines[0]}" == "pcount: --hist: given twice" ]]
	run -2 --separate-stderr "$BIN/pcount" --stats count "$DATA/rwsys-dd.pipe"
	[[ "${stderr_lines[0]}" == "pcount: --stats: 'count' would hide the row's count: name it (s=count)" ]]
	run -0 "$BIN/pcount" -j --stats asked=count "$DATA/rwsys-dd.pipe"
	run -2 --separate-stderr "$BIN/pcount" --folded --stats ret "$f"
}

@test "stats: live, per interval, from precord through a pipe: the intervals add up to perf's view" {
	need_perf
	[ -e /sys/kernel/tracing/events/raw_syscalls ] || skip "tracefs not mounted"
	local t="$BATS_TEST_TMPDIR"
	"$BIN/precord" -q -a -e raw_syscalls:sys_exit --duration 0.5 2>/dev/null | tee "$t/rec.pipe" |
		"$BIN/pcount" -j -i 100ms -l 10s --by tid --stats ret --hist ret >"$t/iv" ||
		skip "precord cannot trace here"
	[ "$(wc -l <"$t/iv")" -ge 2 ]
	[ "$(jq -s '[.[].late // 0] | add' "$t/iv")" -eq 0 ]
	python3 "$ORACLE" --merge tid ret <"$t/iv" >"$t/merged.json"
	perf_exits "$t/rec.pipe" | python3 "$ORACLE" 1 -1 >"$t/want.json"
	run -0 python3 "$ORACLE" --compare "$t/want.json" "$t/merged.json" tid ret
	echo "$output"
}
