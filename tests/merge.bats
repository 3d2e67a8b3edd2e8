#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# pcat --merge: pieces of one recording come back as the original (perf script prints the
# same lines in the same order); different recordings keep their events, with new ids.

bats_require_minimum_version 1.5.0

setup() {
	load helpers
}

@test "merge: psplit's pieces merged give perf script the original's lines, in order" {
	need_perf
	local f d="$BATS_TEST_TMPDIR"
	for f in $(good_inputs); do
		rm -rf "$d/p"
		"$BIN/psplit" -n 100 -d "$d/p" "$f" >"$d/list"
		# shellcheck disable=SC2046
		"$BIN/pcat" --merge $(cat "$d/list") >"$d/m.pipe"
		perf script -i "$f" >"$d/want" 2>/dev/null
		perf script -i "$d/m.pipe" >"$d/got" 2>"$d/err" || { cat "$d/err"; return 1; }
		cmp_or_show "$d/want" "$d/got" || { echo "$f"; return 1; }
		# taken for pieces of one recording: one set of header records, no input key
		run -2 "$BIN/pcount" --by input "$d/m.pipe"
	done
}

@test "merge: time slices merged in any order of the operands come back in time order" {
	need_perf
	local d="$BATS_TEST_TMPDIR" f="$DATA/sched-switch-wakeup-a.pipe"
	"$BIN/psplit" -t 0.02 -d "$d/p" "$f" >"$d/list"
	[ "$(wc -l <"$d/list")" -gt 3 ]
	# shellcheck disable=SC2046
	"$BIN/pcat" --merge $(tac "$d/list") | perf script -i - >"$d/got" 2>/dev/null
	perf script -i "$f" 2>/dev/null | cmp - "$d/got"
}

# two recordings whose ids collide: sched-switch-wakeup-a's ids shifted onto rawsys-dd's
collide() {
	local d="$BATS_TEST_TMPDIR"
	python3 "$TOP/tests/tools/shift_ids.py" -15 <"$DATA/sched-switch-wakeup-a.pipe" >"$d/sw.pipe"
	# the shift is only of ids: perf prints the same
	perf script -i "$d/sw.pipe" 2>/dev/null | cmp - <(perf script -i "$DATA/sched-switch-wakeup-a.pipe" 2>/dev/null)
	"$BIN/pheader" --dump "$d/sw.pipe" | grep -q '^    ids: 4371 4372$'
	"$BIN/pheader" --dump "$DATA/rawsys-dd.pipe" | grep -q '^    ids: 4371 4372$'
}

@test "merge: two recordings with colliding ids: perf script shows both, named right" {
	need_perf
	local d="$BATS_TEST_TMPDIR"
	collide
	"$BIN/pcat" --merge "$DATA/rawsys-dd.pipe" "$d/sw.pipe" >"$d/m.pipe"
	perf script -i - <"$d/m.pipe" >"$d/got" 2>"$d/err" || { cat "$d/err"; return 1; }
	[ ! -s "$d/err" ] || { cat "$d/err"; return 1; }
	# perf pads the event column to the longest name of the stream: compare words
	(perf script -i "$DATA/rawsys-dd.pipe"; perf script -i "$DATA/sched-switch-wakeup-a.pipe") \
		2>/dev/null | tr -s ' ' | sort >"$d/want"
	tr -s ' ' <"$d/got" | sort | diff "$d/want" -
	# in time order
	awk '{for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) {print $i; break}}' "$d/got" |
		sort -c -n
	# every event keeps its name, and the samples of each input can be told apart
	run -0 "$BIN/pcount" --by event "$d/m.pipe"
	[[ "$output" == *"857  sched:sched_switch"* ]]
	[[ "$output" == *"448  raw_syscalls:sys_enter"* ]]
	run -0 "$BIN/ptojson" "$d/m.pipe"
	# the input key tells the two recordings apart
	"$BIN/pcount" -j --by input "$d/m.pipe" | jq -r '.rows[] | "\(.input) \(.count)"' | sort >"$d/in"
	printf '%s\n' "$DATA/rawsys-dd.pipe 896" "$d/sw.pipe 1296" | sort | diff - "$d/in"
	run -2 --separate-stderr "$BIN/pcount" --by input "$DATA/rawsys-dd.pipe"
	[[ "$stderr" == *"not a merge of different recordings"* ]]
}

@test "merge: pfilter's and ptojson's input key tell the recordings apart, by name or number" {
	need_perf
	local d="$BATS_TEST_TMPDIR"
	collide
	"$BIN/pcat" --merge "$DATA/rawsys-dd.pipe" "$d/sw.pipe" >"$d/m.pipe"
	# each input's samples alone: perf script prints what it prints for that recording
	"$BIN/pfilter" -i "$d/m.pipe" input=1 | perf script -i - 2>/dev/null | sed 's/^ *//' |
		tr -s ' ' >"$d/got1"
	perf script -i "$DATA/rawsys-dd.pipe" 2>/dev/null | sed 's/^ *//' | tr -s ' ' | diff - "$d/got1"
	"$BIN/pfilter" -i "$d/m.pipe" "input = '$d/sw.pipe'" | perf script -i - 2>/dev/null |
		sed 's/^ *//' | tr -s ' ' >"$d/got2"
	perf script -i "$d/sw.pipe" 2>/dev/null | sed 's/^ *//' | tr -s ' ' | diff - "$d/got2"
	[ "$("$BIN/pfilter" -c -i "$d/m.pipe" 'input != 1')" = 1296 ]
	[ "$("$BIN/pfilter" -c -i "$d/m.pipe" 'input in (1, 2)')" = 2192 ]
	[ "$("$BIN/pfilter" -c -i "$d/m.pipe" 'input endswith sw.pipe')" = 1296 ]
	run -2 --separate-stderr "$BIN/pfilter" -c -i "$d/m.pipe" input=3
	[[ "$stderr" == *"no input '3' in this stream (a name, or 1 to 2); its inputs are: $DATA/rawsys-dd.pipe, $d/sw.pipe"* ]]
	run -2 --separate-stderr "$BIN/pfilter" -c -i "$DATA/rawsys-dd.pipe" input=1
	[[ "$stderr" == *"not a merge of different recordings"* ]]
	# ptojson: an "input" key, the name pcount --by input shows
	"$BIN/ptojson" "$d/m.pipe" | jq -r .input | sort | uniq -c | awk '{print $2, $1}' >"$d/in"
	"$BIN/pcount" -j --by input "$d/m.pipe" | jq -r '.rows[] | "\(.input) \(.count)"' | sort |
		diff - "$d/in"
	"$BIN/ptojson" -F event,input "$d/m.pipe" | head -1 | jq -e 'keys == ["event", "input"]'
	"$BIN/ptojson" "$DATA/rawsys-dd.pipe" | jq -e 'has("input") | not' >/dev/null
}

@test "merge: recordings without tracepoints and with callchains merge for perf script" {
	need_perf
	local d="$BATS_TEST_TMPDIR" b="$DATA/rawsys-dd.pipe" c="$DATA/cpuclock-g-sh.data"
	"$BIN/pcat" --merge "$b" "$c" | perf script -i - 2>"$d/err" | tr -s ' ' | sort >"$d/got"
	[ ! -s "$d/err" ] || { cat "$d/err"; return 1; }
	(perf script -i "$b"; perf script -i "$c") 2>/dev/null | tr -s ' ' | sort | diff - "$d/got"
}

@test "merge: a single input, standard input, and a damaged input" {
	need_perf
	local d="$BATS_TEST_TMPDIR"
	"$BIN/pcat" --merge <"$DATA/rawsys-dd.pipe" | perf script -i - >"$d/got" 2>/dev/null
	perf script -i "$DATA/rawsys-dd.pipe" 2>/dev/null | cmp - "$d/got"
	head -c 58632 "$DATA/rawsys-dd.pipe" >"$d/cut.pipe"
	run -1 --separate-stderr "$BIN/pcat" --merge "$d/cut.pipe" "$DATA/sched-switch-wakeup-a.pipe"
	[[ "$stderr" == "pcat: $d/cut.pipe: offset 0x"* ]]
	run -1 --separate-stderr "$BIN/pcat" --merge /nonexistent "$DATA/rawsys-dd.pipe"
	[[ "$stderr" == "pcat: /nonexistent: "* ]]
}

# the same operand names in both runs: the inputs' names go into the merged stream
both_orders() {
	local d="$BATS_TEST_TMPDIR" a="$1" b="$2"
	mkdir -p "$d/le" "$d/mix"
	cp "$a" "$d/le/a" && cp "$a" "$d/mix/a"
	cp "$b" "$d/le/b" && "$TOOLS/pswap" "$b" >"$d/mix/b"
	(cd "$d/le" && "$BIN/pcat" --merge a b) >"$d/le.pipe"
	(cd "$d/mix" && "$BIN/pcat" --merge a b) >"$d/mix.pipe"
}

@test "merge: an input of the other byte order is merged in the host's order" {
	need_perf
	local d="$BATS_TEST_TMPDIR" a b
	# tracepoints (RAW fields by their formats, the tracing data), callchains, a READ group
	for a in "$DATA/rawsys-dd.pipe" "$DATA/cpuclock-g-sh.data"; do
		for b in "$DATA/sched-switch-wakeup-a.pipe" "$DATA/cpuclock-g-sh.data" \
			$(good_inputs); do
			[ "$a" != "$b" ] || continue
			rm -rf "$d/le" "$d/mix"
			both_orders "$a" "$b"
			perf script -i "$d/le.pipe" >"$d/want" 2>/dev/null
			perf script -i "$d/mix.pipe" >"$d/got" 2>"$d/err" || { cat "$d/err"; return 1; }
			[ -s "$d/got" ]
			cmp_or_show "$d/want" "$d/got" || { echo "$a $b"; return 1; }
		done
	done
	# the tracepoint fields of the turned input as perf prints them for the original
	rm -rf "$d/le" "$d/mix"
	both_orders "$DATA/rawsys-dd.pipe" "$DATA/sched-switch-wakeup-a.pipe"
	perf script -i "$d/mix.pipe" -F event,trace >"$d/got" 2>/dev/null
	(perf script -i "$DATA/rawsys-dd.pipe" -F event,trace
		perf script -i "$DATA/sched-switch-wakeup-a.pipe" -F event,trace) 2>/dev/null |
		sed 's/^ *//' | sort >"$d/want"
	[ "$(wc -l <"$d/want")" -eq 2192 ]
	sed 's/^ *//' <"$d/got" | sort | diff "$d/want" -
	# byte for byte what the merge of the originals is
	cmp "$d/le.pipe" "$d/mix.pipe"
}

@test "merge: pieces of the other byte order come back in the host's order" {
	need_perf
	local d="$BATS_TEST_TMPDIR" f="$DATA/sched-switch-wakeup-a.pipe"
	"$TOOLS/pswap" "$f" >"$d/be.pipe"
	run -0 "$BIN/pcat" --merge "$d/be.pipe" "$d/be.pipe"
	[ "$(printf '%s' "$output" | head -c 8)" = PERFILE2 ]
	"$BIN/pcat" --merge "$d/be.pipe" "$d/be.pipe" | perf script -i - >"$d/got" 2>/dev/null
	"$BIN/pcat" --merge "$f" "$f" | perf script -i - 2>/dev/null | cmp - "$d/got"
	[ "$(wc -l <"$d/got")" -eq $((2 * 1296)) ]
	"$BIN/pcat" --merge "$f" "$f" | cmp - <("$BIN/pcat" --merge "$d/be.pipe" "$d/be.pipe")
}

@test "merge: a record of the other byte order that cannot be turned is refused at its offset" {
	local d="$BATS_TEST_TMPDIR" off
	# a big-endian stream that ends in a record of a type nobody knows (90)
	{
		"$TOOLS/pswap" "$DATA/rawsys-dd.pipe"
		printf '\x00\x00\x00\x5a\x00\x00\x00\x10\x01\x02\x03\x04\x05\x06\x07\x08'
	} >"$d/be.pipe"
	off=$(($(stat -c %s "$d/be.pipe") - 16))
	run -1 --separate-stderr "$BIN/pcat" --merge "$DATA/sched-switch-wakeup-a.pipe" "$d/be.pipe"
	[ "$stderr" = "pcat: $d/be.pipe: offset $(printf '0x%x' "$off"): a record of type 90 cannot be turned to the other byte order: its layout is not known" ]
	# the same record in the host's order passes as it is
	{
		cat "$DATA/rawsys-dd.pipe"
		printf '\x5a\x00\x00\x00\x00\x00\x10\x00\x01\x02\x03\x04\x05\x06\x07\x08'
	} >"$d/le.pipe"
	"$BIN/pcat" --merge "$DATA/sched-switch-wakeup-a.pipe" "$d/le.pipe" >"$d/m.pipe"
	"$TOOLS/pmangle" --list "$d/m.pipe" | awk '$2 == 90 && $3 == 16 { n++ } END { exit n != 1 }'
}

@test "merge: a live input that stays quiet does not hold the others back" {
	local d="$BATS_TEST_TMPDIR" pid mp n=0 i first
	mkfifo "$d/quiet"
	# the fifo gets the header records (up to the first SAMPLE) and then nothing for a while
	first=$("$TOOLS/pmangle" --list "$DATA/sched-switch-wakeup-a.pipe" | awk '$2 == 9 {print $1; exit}')
	(head -c "$first" "$DATA/sched-switch-wakeup-a.pipe"; sleep 8) >"$d/quiet" &
	pid=$!
	timeout 30 "$BIN/pcat" --merge "$DATA/rawsys-dd.pipe" "$d/quiet" >"$d/m.pipe" &
	mp=$!
	# long before the quiet input ends, the other's samples are out (generous on a loaded
	# machine: up to 6 s of the 8)
	for ((i = 0; i < 60; i++)); do
		n=$("$BIN/pcount" -j <"$d/m.pipe" 2>/dev/null | jq .total)
		[ "${n:-0}" -eq 896 ] && break
		sleep 0.1
	done
	kill -0 "$pid" # the quiet input is still open
	wait "$pid" || true
	wait "$mp" || true
	[ "${n:-0}" -eq 896 ]
}

# perf script's lines of streams $2... as words, sorted, into $1 (perf pads the event column
# to the longest name of the stream)
script_words() {
	local out="$1" f
	shift
	for f in "$@"; do perf script -i - <"$f" 2>/dev/null; done | tr -s ' ' | sed 's/^ //' |
		sort >"$out"
}

# every sample of the merge $1 as ptojson writes it for its own input $2... (ids are new)
json_same() {
	local d="$BATS_TEST_TMPDIR" m="$1" f
	shift
	for f in "$@"; do "$BIN/ptojson" "$f"; done | jq -c 'del(.id)' | sort >"$d/jwant"
	"$BIN/ptojson" "$m" | jq -c 'del(.id, .input)' | sort >"$d/jgot"
	[ -s "$d/jwant" ]
	diff "$d/jwant" "$d/jgot" | head -n 6
	cmp -s "$d/jwant" "$d/jgot"
}

# the merge of $2... into $1: perf script names and decodes every sample as for its input
merged_as_alone() {
	local d="$BATS_TEST_TMPDIR" m="$1"
	shift
	"$BIN/pcat" --merge ${DISTINCT:+--distinct} "$@" >"$m"
	perf script -i - <"$m" >/dev/null 2>"$d/err" || { cat "$d/err"; return 1; }
	script_words "$d/want" "$@"
	script_words "$d/got" "$m"
	[ -s "$d/want" ]
	diff "$d/want" "$d/got" | head -n 6
	cmp -s "$d/want" "$d/got"
	json_same "$m" "$@"
}

@test "merge: tracepoint ids of two boots: each input's samples named and decoded as alone" {
	need_perf
	local d="$BATS_TEST_TMPDIR" sw="$DATA/sched-switch-wakeup-a.pipe" raw="$DATA/rawsys-dd.pipe"
	# the other boot numbered sched_switch and sched_wakeup as this one did sys_exit and
	# sys_enter (0x1ba, 0x1bb)
	python3 "$TOP/tests/tools/tp_ids.py" 372=442 374=443 <"$sw" >"$d/sw.pipe"
	perf script -i "$d/sw.pipe" 2>/dev/null | cmp - <(perf script -i "$sw" 2>/dev/null)
	"$BIN/pheader" --dump "$d/sw.pipe" | grep -q '^  sched:sched_wakeup (id 443): '
	merged_as_alone "$d/m.pipe" "$raw" "$d/sw.pipe"
	merged_as_alone "$d/m2.pipe" "$d/sw.pipe" "$raw"
	# the second input's formats took ids nobody had; the first input's are its own
	"$BIN/pheader" --dump "$d/m.pipe" | grep -q '^  raw_syscalls:sys_enter (id 443): '
	[ "$("$BIN/pheader" --dump "$d/m.pipe" | grep -c ' (id 44[23]): ')" -eq 2 ]
	# and the perf ids collide too: the same ids, the same configs
	python3 "$TOP/tests/tools/shift_ids.py" -15 <"$d/sw.pipe" >"$d/sw2.pipe"
	"$BIN/pheader" --dump "$d/sw2.pipe" | grep -q '^    ids: 4371 4372$'
	merged_as_alone "$d/m3.pipe" "$raw" "$d/sw2.pipe"
}

@test "merge: real recordings where one boot's sys_enter id is the other's sched_wakeup" {
	need_perf
	local d="$BATS_TEST_TMPDIR" t=/sys/kernel/tracing/events a b
	[ -r "$t/raw_syscalls/sys_enter/id" ] && [ -r "$t/sched/sched_wakeup/id" ] ||
		skip "tracefs is not available"
	a=$(cat "$t/raw_syscalls/sys_enter/id")
	b=$(cat "$t/sched/sched_wakeup/id")
	perf record -q -o - -e raw_syscalls:sys_enter -- sh -c 'sleep 0.01' >"$d/a.pipe" 2>/dev/null
	# system-wide: a wakeup of the workload's own task may be done on another CPU, in
	# the idle task's context, so a recording of the workload alone can hold none
	perf record -q -a -o - -e sched:sched_wakeup -- sleep 0.05 >"$d/b0.pipe" 2>/dev/null
	perf script -i "$d/b0.pipe" 2>/dev/null | grep -q sched_wakeup
	# on the second host, sched_wakeup has the id sys_enter has here, and the other way
	python3 "$TOP/tests/tools/tp_ids.py" "$b=$a" <"$d/b0.pipe" >"$d/b.pipe"
	python3 "$TOP/tests/tools/tp_ids.py" "$a=$b" <"$d/a.pipe" >"$d/a2.pipe"
	perf script -i "$d/b.pipe" 2>/dev/null | cmp - <(perf script -i "$d/b0.pipe" 2>/dev/null)
	merged_as_alone "$d/m.pipe" "$d/a.pipe" "$d/b.pipe"
	merged_as_alone "$d/m2.pipe" "$d/b.pipe" "$d/a.pipe" "$d/a2.pipe"
	"$BIN/pcount" -j --by input,event "$d/m2.pipe" |
		jq -r '.rows[] | "\(.input) \(.event)"' | sort >"$d/rows"
	printf '%s\n' "$d/a.pipe raw_syscalls:sys_enter" "$d/a2.pipe raw_syscalls:sys_enter" \
		"$d/b.pipe sched:sched_wakeup" | diff - "$d/rows"
}

@test "merge: two hosts with the same events and ids keep their hosts and their threads' names" {
	need_perf
	local d="$BATS_TEST_TMPDIR" f="$DATA/rawsys-dd.pipe"
	# one recording as if made on two machines: the same ids, the same times, the same
	# pid 2262, named dd on one and ee on the other
	python3 "$TOP/tests/tools/rehost.py" -H alpha <"$f" >"$d/a.pipe"
	python3 "$TOP/tests/tools/rehost.py" -H beta dd=ee <"$f" >"$d/b.pipe"
	perf script -i "$d/b.pipe" 2>/dev/null | grep -q '^ *ee  2262 '
	merged_as_alone "$d/m.pipe" "$d/a.pipe" "$d/b.pipe"
	"$BIN/pcount" -j --by input,comm "$d/m.pipe" |
		jq -r '.rows[] | "\(.input) \(.comm) \(.count)"' | sort >"$d/rows"
	printf '%s\n' "alpha dd 896" "beta ee 896" | diff - "$d/rows"
	# ptojson --host: each sample its own input's host, as the loader's host column
	"$BIN/ptojson" --host "$d/m.pipe" | jq -r '"\(.host) \(.comm)"' | sort | uniq -c |
		awk '{ print $2, $3, $1 }' | diff <(printf '%s\n' "alpha dd 896" "beta ee 896") -
	# every sample of one host follows the other's at the same time: each named as its own
	perf script -i - <"$d/m.pipe" 2>/dev/null | awk '{print $1}' | uniq -c |
		awk '$1 != 1 { exit 1 }'
}

@test "merge: --distinct keeps apart inputs that nothing in their headers tells apart" {
	need_perf
	local d="$BATS_TEST_TMPDIR" f="$DATA/rawsys-dd.pipe"
	# the same host name too: only the user knows these are two runs
	python3 "$TOP/tests/tools/rehost.py" dd=ee <"$f" >"$d/b.pipe"
	"$BIN/pcat" --merge "$f" "$d/b.pipe" >"$d/pieces.pipe"
	run -2 --separate-stderr "$BIN/pcount" --by input "$d/pieces.pipe"
	[[ "$stderr" == *"not a merge of different recordings"* ]]
	DISTINCT=1 merged_as_alone "$d/m.pipe" "$f" "$d/b.pipe"
	"$BIN/pcount" -j --by input,comm "$d/m.pipe" |
		jq -r '.rows[] | "\(.input) \(.comm) \(.count)"' | sort >"$d/rows"
	printf '%s\n' "$f dd 896" "$d/b.pipe ee 896" | sort | diff - "$d/rows"
	run -2 --separate-stderr "$BIN/pcat" --distinct "$f" "$d/b.pipe"
	[[ "$stderr" == *"--distinct says how to merge: it needs -m"* ]]
}

@test "merge: a live input that goes quiet while the others have ended is waited for" {
	local d="$BATS_TEST_TMPDIR" f="$DATA/rawsys-dd.pipe"
	python3 - "$f" "$d/a" "$d/b" <<'EOF'
import struct, sys
data = open(sys.argv[1], "rb").read()
off, cut = 16, None
while off + 8 <= len(data):
    typ, misc, size = struct.unpack_from("<IHH", data, off)
    if typ == 66:  # TRACING_DATA: its payload follows
        size += struct.unpack_from("<I", data, off + 8)[0]
    if cut is None and off >= len(data) // 2:
        cut = off
    off += size
open(sys.argv[2], "wb").write(data[:cut])
open(sys.argv[3], "wb").write(data[cut:])
EOF
	mkfifo "$d/live"
	{
		cat "$d/a"
		sleep 1
		cat "$d/b"
	} >"$d/live" &
	"$BIN/pcat" --merge "$d/live" "$DATA/rwsys-dd.pipe" >"$d/m.pipe"
	wait
	"$BIN/pcat" --merge "$f" "$DATA/rwsys-dd.pipe" >"$d/want.pipe"
	# every sample of both, the second half of the live one too
	[ "$("$BIN/pcount" -j "$d/m.pipe" | jq .total)" = \
		"$("$BIN/pcount" -j "$d/want.pipe" | jq .total)" ]
}
