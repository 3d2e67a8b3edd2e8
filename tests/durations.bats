#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# Durations (issue 23): latency, run_time, wait_time, sch_delay, off_cpu and --pair, against
# the real perf on recordings made here: perf sched timehist's line for every sched_switch,
# syscall enter/exit pairs of perf script, off-CPU sums from perf script's stacks.  Each
# from perf's perf.data, from the pipe form of the same stream, and from precord's own.

bats_require_minimum_version 1.5.0

# a short workload that sleeps, runs, forks and exits
WORK='for i in 1 2 3 4 5 6; do dd if=/dev/zero of=/dev/null bs=4k count=2000 2>/dev/null; sleep 0.01; done'

setup_file() {
	load helpers
	perf_workdir sched/sched_switch || return 0
	# perf's own recordings, and what perf says of them
	(cd "$W" && perf sched record -g -o sched.data -- sh -c "$WORK") >/dev/null 2>&1 &&
		perf sched timehist -i "$W/sched.data" >"$W/sched.th" 2>/dev/null &&
		perf script --ns -i "$W/sched.data" -F comm,tid,time,event,trace,ip,sym \
			>"$W/sched.script" 2>/dev/null &&
		"$BIN/pcat" "$W/sched.data" >"$W/sched.pipe" &&
		touch "$W/sched.ok"
	# (the sleep gives exits over any bound the tests take, however fast the machine)
	perf trace record -o "$W/trace.data" -- \
		sh -c 'dd if=/dev/zero of=/dev/null bs=4k count=300 2>/dev/null; sleep 0.01' \
		>/dev/null 2>&1 &&
		perf script --ns -i "$W/trace.data" -F tid,time,event,trace >"$W/trace.script" \
			2>/dev/null &&
		"$BIN/pcat" "$W/trace.data" >"$W/trace.pipe" &&
		touch "$W/trace.ok"
	# precord's, and what perf says of them (through pcat --data for timehist)
	"$BIN/precord" -q -a -g -e sched:sched_switch -e sched:sched_waking \
		-e sched:sched_wakeup_new -o "$W/p-sched.pipe" -- sh -c "$WORK" 2>/dev/null &&
		"$BIN/pcat" --data -o "$W/p-sched.data" "$W/p-sched.pipe" &&
		perf sched timehist -i "$W/p-sched.data" >"$W/p-sched.th" 2>/dev/null &&
		perf script --ns -i "$W/p-sched.data" -F comm,tid,time,event,trace,ip,sym \
			>"$W/p-sched.script" 2>/dev/null &&
		touch "$W/p-sched.ok"
	"$BIN/precord" -q -e raw_syscalls:sys_enter -e raw_syscalls:sys_exit -o "$W/p-trace.pipe" \
		-- dd if=/dev/zero of=/dev/null bs=4k count=300 2>/dev/null &&
		perf script --ns -i - -F tid,time,event,trace <"$W/p-trace.pipe" \
			>"$W/p-trace.script" 2>/dev/null &&
		touch "$W/p-trace.ok"
	return 0
}

setup() {
	load helpers
	CHECK="$BATS_TEST_DIRNAME/tools/durcheck.py"
}

need() {
	need_perf
	[ -e "$W/$1.ok" ] || skip "could not record $1 here (perf, tracefs)"
}

# ---- perf sched timehist ----

@test "durations: run_time, wait_time, sch_delay of perf sched record -g agree with perf sched timehist" {
	need sched
	"$BIN/ptojson" "$W/sched.data" >"$BATS_TEST_TMPDIR/j"
	run -0 python3 "$CHECK" timehist "$BATS_TEST_TMPDIR/j" "$W/sched.th"
	echo "$output"
}

@test "durations: the same from the pipe form of the stream" {
	need sched
	"$BIN/ptojson" <"$W/sched.pipe" >"$BATS_TEST_TMPDIR/j"
	run -0 python3 "$CHECK" timehist "$BATS_TEST_TMPDIR/j" "$W/sched.th"
	echo "$output"
}

@test "durations: the same from precord's own recording" {
	need p-sched
	"$BIN/ptojson" <"$W/p-sched.pipe" >"$BATS_TEST_TMPDIR/j"
	run -0 python3 "$CHECK" timehist "$BATS_TEST_TMPDIR/j" "$W/p-sched.th"
	echo "$output"
}

# ---- syscall latency ----

@test "durations: latency of every syscall exit of perf trace record is its enter/exit pair in perf script" {
	need trace
	"$BIN/ptojson" "$W/trace.data" >"$BATS_TEST_TMPDIR/j"
	run -0 python3 "$CHECK" latency "$BATS_TEST_TMPDIR/j" "$W/trace.script"
	echo "$output"
	"$BIN/ptojson" <"$W/trace.pipe" >"$BATS_TEST_TMPDIR/j2"
	run -0 python3 "$CHECK" latency "$BATS_TEST_TMPDIR/j2" "$W/trace.script"
}

@test "durations: latency from precord's own recording" {
	need p-trace
	"$BIN/ptojson" <"$W/p-trace.pipe" >"$BATS_TEST_TMPDIR/j"
	run -0 python3 "$CHECK" latency "$BATS_TEST_TMPDIR/j" "$W/p-trace.script"
	echo "$output"
}

@test "durations: pfilter 'latency > 20us' keeps exactly the exits whose latency says so" {
	need trace
	local want
	want=$("$BIN/ptojson" "$W/trace.data" |
		python3 -c 'import json,sys; print(sum(1 for l in sys.stdin if json.loads(l).get("latency", 0) > 20000))')
	[ "$want" -gt 0 ]
	run -0 "$BIN/pfilter" -c -i "$W/trace.pipe" 'latency > 20us'
	[ "$output" = "$want" ]
	# the same bound in other units, and as a number of nanoseconds
	run -0 "$BIN/pfilter" -c -i "$W/trace.pipe" 'latency > 0.02ms'
	[ "$output" = "$want" ]
	run -0 "$BIN/pfilter" -c -i "$W/trace.pipe" 'latency > 20000'
	[ "$output" = "$want" ]
}

@test "durations: pcount --sum latency is the sum of ptojson's latency per syscall exit" {
	need trace
	local want
	want=$("$BIN/ptojson" "$W/trace.data" |
		python3 -c 'import json,sys; print(sum(json.loads(l).get("latency", 0) for l in sys.stdin))')
	run -0 "$BIN/pcount" -j --by event --sum latency "$W/trace.pipe"
	python3 -c 'import json,sys; d=json.loads(sys.argv[1]); r=[x for x in d["rows"] if x["event"]=="raw_syscalls:sys_exit"]; sys.exit(0 if r and r[0]["latency"]=='"$want"' else 1)' "$output" ||
		{ echo "want $want: $output"; return 1; }
}

@test "durations: --pair of the syscall entry and exit by thread and id gives every exit its latency" {
	need trace
	"$BIN/ptojson" --pair call=raw_syscalls:sys_enter,raw_syscalls:sys_exit:tid,id \
		<"$W/trace.pipe" >"$BATS_TEST_TMPDIR/j"
	run -0 python3 -c '
import json, sys
n = bad = 0
for l in open(sys.argv[1]):
    o = json.loads(l)
    if "latency" in o:
        n += 1
        bad += o.get("call") != o["latency"]
print(n, bad)
sys.exit(0 if n > 100 and bad == 0 else 1)' "$BATS_TEST_TMPDIR/j"
	echo "$output"
}

# ---- off-CPU ----

@test "durations: pcount --folded --off-cpu is perf script's off-CPU time per stack" {
	need sched
	"$BIN/pcount" --folded --off-cpu "$W/sched.data" >"$BATS_TEST_TMPDIR/f"
	run -0 python3 "$CHECK" offcpu "$BATS_TEST_TMPDIR/f" "$W/sched.script"
	echo "$output"
	"$BIN/pcount" --folded --off-cpu <"$W/sched.pipe" >"$BATS_TEST_TMPDIR/f2"
	cmp "$BATS_TEST_TMPDIR/f" "$BATS_TEST_TMPDIR/f2"
}

@test "durations: the same from precord -a -g -e sched:sched_switch" {
	need p-sched
	"$BIN/pcount" --folded --off-cpu <"$W/p-sched.pipe" >"$BATS_TEST_TMPDIR/f"
	run -0 python3 "$CHECK" offcpu "$BATS_TEST_TMPDIR/f" "$W/p-sched.script"
	echo "$output"
}

@test "durations: pflame --off-cpu draws the same total, in ms" {
	need sched
	local total
	total=$("$BIN/pcount" --folded --off-cpu "$W/sched.data" | python3 -c 'import sys; print(sum(int(l.split()[-1]) for l in sys.stdin))')
	run -0 "$BIN/pflame" --off-cpu "$W/sched.data"
	[[ "$output" == *"<title>all ($((total / 1000000)).$(printf %06d $((total % 1000000))) ms, 100.00%)</title>"* ]] ||
		{ echo "total $total: $(grep -o '<title>all[^<]*' <<<"$output")"; return 1; }
	[[ "$output" == *"Off-CPU Time Flame Graph"* ]]
	"$BIN/pcount" --folded --off-cpu "$W/sched.data" | "$BIN/pflame" -f --off-cpu >"$BATS_TEST_TMPDIR/f.svg"
	grep -qF "<title>all ($((total / 1000000)).$(printf %06d $((total % 1000000))) ms, 100.00%)" \
		"$BATS_TEST_TMPDIR/f.svg"
}

# ---- what a stream cannot give ----

@test "durations: a field the stream cannot give is an error naming the events to record" {
	run -2 --separate-stderr "$BIN/pfilter" -c -i "$DATA/sched-switch-wakeup-a.pipe" 'latency > 1ms'
	[[ "$stderr" == *"no latency in this stream"*"raw_syscalls:sys_enter and raw_syscalls:sys_exit"* ]]
	run -2 --separate-stderr "$BIN/pcount" --by comm --sum run_time "$DATA/rawsys-dd.pipe"
	[[ "$stderr" == "pcount: --sum: no run_time in this stream: "*"sched:sched_switch"* ]]
	run -2 --separate-stderr "$BIN/pcount" --folded --off-cpu "$DATA/rawsys-dd.pipe"
	[[ "$stderr" == "pcount: --off-cpu: no off_cpu in this stream: "*"sched:sched_switch"* ]]
	run -2 --separate-stderr "$BIN/pflame" --off-cpu "$DATA/rawsys-dd.pipe"
	[[ "$stderr" == "pflame: no off_cpu in this stream: "*"sched:sched_switch"* ]]
	run -2 --separate-stderr "$BIN/pcount" --pair 'io=block:block_rq_issue,block:block_rq_complete:dev,sector' \
		--by io/1000 "$DATA/rawsys-dd.pipe"
	[[ "$stderr" == *"no io in this stream: io needs block:block_rq_issue and block:block_rq_complete"* ]]
}

@test "durations: --pair specs are checked on the command line" {
	run -2 --separate-stderr "$BIN/ptojson" --pair 'a,b' "$DATA/rawsys-dd.pipe"
	[ "${stderr%%$'\n'*}" = "ptojson: --pair: 'a,b' is not a pair [NAME=]START,END[:KEY,...]: START is a tracepoint (system:event)" ]
	run -2 --separate-stderr "$BIN/pcount" --pair 'latency=raw_syscalls:sys_enter,raw_syscalls:sys_exit' "$DATA/rawsys-dd.pipe"
	[[ "$stderr" == *"NAME is a built-in duration field"* ]]
	run -2 --separate-stderr "$BIN/pfilter" --pair 'raw_syscalls:sys_enter,raw_syscalls:sys_exit' \
		--pair 'raw_syscalls:sys_enter,raw_syscalls:sys_exit:id' -c 'duration > 0'
	[[ "$stderr" == *"two pairs of the same NAME"* ]]
}

@test "durations: ptojson writes the values only where they exist, and -F selects them" {
	run -0 "$BIN/ptojson" -F event,latency "$DATA/rawsys-dd.pipe"
	# every exit whose entry was seen has one, no entry has one
	! grep -q 'sys_enter.*latency' <<<"$output"
	[ "$(grep -c '"latency":' <<<"$output")" -gt 400 ]
	run -0 "$BIN/ptojson" -F event,sch_delay,run_time "$DATA/sched-switch-wakeup-a.pipe"
	! grep -q 'waking.*run_time' <<<"$output"
	grep -q '"run_time":' <<<"$output"
}
