#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# pcount --by tid,syscall --stats latency is perf trace -s (issue 23): per thread and syscall,
# calls, errors, total, min, avg and max as perf prints them, on the same recording: perf
# trace record's perf.data, its pipe form (perf trace record -o -, and pcat of the file), and
# precord's own recording (read by perf trace -s through pcat --data).  The one difference,
# an exit whose enter was never seen (perf: a call of 0 ms; pcount: no latency), is taken
# from perf script and perf trace's own lines by tests/tools/tracesum.py.

bats_require_minimum_version 1.5.0

# a few short commands, a sleep, and a syscall that fails (open of a missing file)
WORK='for i in 1 2 3; do dd if=/dev/zero of=/dev/null bs=4k count=100 2>/dev/null; ls / >/dev/null; sleep 0.01; cat /nonexistent-pstream-file 2>/dev/null; done; true'

setup_file() {
	load helpers
	perf_workdir raw_syscalls/sys_exit || return 0
	perf trace record -o "$W/t.data" -- sh -c "$WORK" >/dev/null 2>&1 &&
		"$BIN/pcat" "$W/t.data" >"$W/t.pipe" && touch "$W/t.ok"
	perf trace record -o - -- sh -c "$WORK" >"$W/r.pipe" 2>/dev/null &&
		"$BIN/pcat" --data -o "$W/r.data" "$W/r.pipe" && touch "$W/r.ok"
	"$BIN/precord" -q -e raw_syscalls:sys_enter -e raw_syscalls:sys_exit -o "$W/p.pipe" \
		-- sh -c "$WORK" 2>/dev/null &&
		"$BIN/pcat" --data -o "$W/p.data" "$W/p.pipe" && touch "$W/p.ok"
	return 0
}

setup() {
	load helpers
}

need() {
	need_perf
	[ -e "$W/$1.ok" ] || skip "could not record $1 here (perf trace record, tracefs)"
}

# what perf says of the perf.data $1: perf trace -s, perf trace, perf script
perf_views() {
	# (perf trace writes to stderr)
	perf trace -s -i "$1" >"$BATS_TEST_TMPDIR/sum" 2>&1
	perf trace -i "$1" >"$BATS_TEST_TMPDIR/trace" 2>&1
	perf script -i "$1" -F tid,event,trace >"$BATS_TEST_TMPDIR/script" 2>/dev/null
	grep -q ' calls  errors ' "$BATS_TEST_TMPDIR/sum"
}

# compare pcount's JSON in $1 with perf's views
compare() {
	run -0 python3 "$TOP/tests/tools/tracesum.py" "$BATS_TEST_TMPDIR/sum" "$1" \
		"$BATS_TEST_TMPDIR/script" "$BATS_TEST_TMPDIR/trace"
	echo "$output"
}

@test "latency: pcount --by tid,syscall --stats latency is perf trace -s, from perf trace record's perf.data" {
	need t
	perf_views "$W/t.data"
	"$BIN/pcount" -j --by tid,syscall --stats latency "$W/t.data" >"$BATS_TEST_TMPDIR/j"
	compare "$BATS_TEST_TMPDIR/j"
	# the recording has what the comparison is about: failed calls, and exits without enter
	grep -q '^   openat .* [1-9][0-9]* ' "$BATS_TEST_TMPDIR/sum"
	[[ "$output" != *"; 0 exits without enter"* ]]
	# and the table says the same as the JSON
	"$BIN/pcount" --by tid,syscall --stats latency "$W/t.data" >"$BATS_TEST_TMPDIR/table"
	[ "$(($(wc -l <"$BATS_TEST_TMPDIR/table") - 1))" -eq "$(jq '.rows | length' "$BATS_TEST_TMPDIR/j")" ]
}

@test "latency: the same from the pipe form of the file (pcat)" {
	need t
	perf_views "$W/t.data"
	"$BIN/pcount" -j --by tid,syscall --stats latency <"$W/t.pipe" >"$BATS_TEST_TMPDIR/j"
	compare "$BATS_TEST_TMPDIR/j"
}

@test "latency: the same from perf trace record -o - (perf trace -s reads it through pcat --data)" {
	need r
	perf_views "$W/r.data"
	"$BIN/pcount" -j --by tid,syscall --stats latency <"$W/r.pipe" >"$BATS_TEST_TMPDIR/j"
	compare "$BATS_TEST_TMPDIR/j"
}

@test "latency: the same from precord -e raw_syscalls:sys_enter -e raw_syscalls:sys_exit" {
	need p
	perf_views "$W/p.data"
	"$BIN/pcount" -j --by tid,syscall --stats latency <"$W/p.pipe" >"$BATS_TEST_TMPDIR/j"
	compare "$BATS_TEST_TMPDIR/j"
}

@test "latency: syscall-latency's table is pcount's, whose rows are perf trace -s's (summed over threads)" {
	need t
	run -0 --separate-stderr "$BIN/syscall-latency" --report 1m <"$W/t.pipe"
	[ "$output" = "$("$BIN/pcount" --by syscall --stats latency -i 1m -n 25 "$W/t.pipe")" ]
	# each syscall's calls: perf trace -s's calls over all threads, less its exits without enter
	perf_views "$W/t.data"
	python3 - "$BATS_TEST_TMPDIR/sum" "$BATS_TEST_TMPDIR/trace" "$output" <<'EOF'
import re, sys
calls = {}
for l in open(sys.argv[1]):
    m = re.match(r"^   (\S+)\s+(\d+)\s+\d+\s+\d+\.\d{3}", l)
    if m:
        calls[m.group(1)] = calls.get(m.group(1), 0) + int(m.group(2))
for l in open(sys.argv[2]):
    m = re.match(r"^\s*\? \(\s*\): .*\[continued\]: (\w+)\(\)\)", l)
    if m:
        calls[m.group(1)] -= 1
ours = {}
for l in sys.argv[3].splitlines():
    f = l.split()
    if f and f[0].isdigit():
        ours[f[-1]] = int(f[0])
want = {k: v for k, v in calls.items() if v}
bad = {k: (v, ours.get(k)) for k, v in want.items() if k in ours and ours[k] != v}
sys.exit("calls differ: %s" % bad if bad or len(ours) != min(25, len(want)) else 0)
EOF
}
