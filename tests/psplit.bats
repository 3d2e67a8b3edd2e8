#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# psplit: every piece is a stream perf script reads on its own, and the pieces' samples
# together are the input's, each once (checked against perf script on the original).

bats_require_minimum_version 1.5.0

setup() {
	load helpers
}

# perf script prints a PERF_SAMPLE_READ group sample as the difference from the previous
# one, which the first sample of a piece does not have (psplit(1) CAVEATS)
reads_counters() {
	"$BIN/pheader" --dump "$1" 2>/dev/null | grep -q 'sample_type:.*READ'
}

# split_check INPUT ARGS...: split INPUT with ARGS; every piece must be read by perf script
# without an error, and the sorted sample lines of all pieces must be the original's (perf
# script of the original runs once per input and test, not once per way of splitting it)
split_check() {
	local in=$1 d p n=0 want
	shift
	d=$(mktemp -d "$BATS_TEST_TMPDIR/split.XXXXXX")
	"$BIN/psplit" -d "$d" "$@" "$in" >"$d.list" || {
		echo "psplit $* $in failed"
		return 1
	}
	want=$BATS_TEST_TMPDIR/want.$(printf '%s' "$in" | cksum | cut -d' ' -f1)
	[ -e "$want" ] || perf script -i "$in" 2>/dev/null | sort >"$want"
	: >"$d.got"
	for p in $(cat "$d.list"); do
		[ -s "$p" ] || { echo "$p: missing"; return 1; }
		perf script -i "$p" >>"$d.got" 2>"$d.err" || {
			echo "perf script -i $p failed:"
			cat "$d.err"
			return 1
		}
		if grep -Ei 'error|failed|out of order' "$d.err"; then
			echo "perf script -i $p complained ($*, $in)"
			return 1
		fi
		n=$((n + 1))
	done
	[ "$n" -gt 0 ] || { echo "no pieces"; return 1; }
	sort "$d.got" | diff "$want" - >"$d.diff" || {
		echo "psplit $* $in: the pieces' samples differ from the original's:"
		head -n 20 "$d.diff"
		return 1
	}
}

@test "psplit: --by cpu/pid/event, -n and -t pieces of every fixture are read by perf, samples kept once" {
	need_perf
	local f args
	for f in $(good_inputs); do
		reads_counters "$f" && continue
		for args in "--by cpu" "--by pid" "--by event" "-n 1000" "-n 100" "-t 0.1"; do
			[ "$args" = "--by cpu" ] && ! "$BIN/pcount" --by cpu "$f" >/dev/null 2>&1 &&
				continue # no event of the stream records the cpu
			# shellcheck disable=SC2086
			split_check "$f" $args
		done
	done
}

@test "psplit: -t 0.01 and -b pieces keep every sample once" {
	need_perf
	split_check "$DATA/sched-switch-wakeup-a.pipe" -t 0.01
	split_check "$DATA/rawsys-dd.pipe" -b 20k
	split_check "$DATA/cpuclock-g-sh.data" -b 8k
}

@test "psplit: -b pieces stay within the size unless one sample and the header need more, and say so" {
	need_perf
	local d=$BATS_TEST_TMPDIR/b p n
	# a stream where processes start (exec: many MMAP2s at once) between samples
	for n in 50k 40k; do
		rm -rf "$d" && mkdir "$d"
		run -0 --separate-stderr "$BIN/psplit" -v -b "$n" -d "$d" "$DATA/sched-switch-wakeup-a.pipe"
		for p in "$d"/*.pipe; do
			# over the size only with a single sample in it
			[ "$(stat -c %s "$p")" -le "$(numfmt --from=iec "${n^^}")" ] ||
				[ "$(perf script -i "$p" 2>/dev/null | wc -l)" -eq 1 ] || {
				echo "$p: $(stat -c %s "$p") bytes, over -b $n"
				return 1
			}
		done
		split_check "$DATA/sched-switch-wakeup-a.pipe" -b "$n"
	done
	# the header records alone are larger than 2k: every piece is over, and psplit says so
	rm -rf "$d" && mkdir "$d"
	run -0 --separate-stderr "$BIN/psplit" -b 2k -d "$d" "$DATA/rawsys-dd.pipe"
	[[ "$stderr" == "psplit: $(ls "$d" | wc -l) of $(ls "$d" | wc -l) pieces are over -b 2048 bytes (the largest, $d/x"*" bytes): a piece holds at least the header records and one sample" ]]
}

@test "psplit: PERF_SAMPLE_READ samples keep their count in pieces" {
	need_perf
	local f d p
	for f in $(good_inputs); do
		reads_counters "$f" || continue
		d="$BATS_TEST_TMPDIR/r"
		"$BIN/psplit" -n 50 -d "$d" "$f" >"$d.list"
		want=$(perf script -i "$f" 2>/dev/null | wc -l)
		got=$(for p in $(cat "$d.list"); do perf script -i "$p" 2>/dev/null; done | wc -l)
		# each piece may print one derived sample more than it would inside the whole
		[ "$got" -ge "$want" ]
	done
}

@test "psplit: the names are printed in order, -v says samples and bytes per piece" {
	local d="$BATS_TEST_TMPDIR/v"
	run -0 --separate-stderr "$BIN/psplit" -v -n 100 -d "$d" "$DATA/rawsys-dd.pipe"
	[ "${lines[0]}" = "$d/x0000.pipe" ]
	[ "${#lines[@]}" -eq 9 ]
	[ "$(ls "$d" | wc -l)" -eq 9 ]
	[[ "$stderr" == *"psplit: $d/x0008.pipe: 96 samples, "*" bytes"* ]]
	total=$(echo "$stderr" | awk '{s += $3} END {print s}')
	[ "$total" -eq 896 ]
}

@test "psplit: every piece starts with the pipe header and all the header records" {
	local d="$BATS_TEST_TMPDIR/h" p
	"$BIN/psplit" -n 200 -d "$d" "$DATA/sched-switch-wakeup-a.pipe" >"$d.list"
	want=$("$BIN/pheader" --dump "$DATA/sched-switch-wakeup-a.pipe" | tail -n +2)
	for p in $(cat "$d.list"); do
		[ "$(head -c 8 "$p")" = PERFILE2 ]
		[ "$("$BIN/pheader" --dump "$p" | tail -n +2)" = "$want" ]
	done
}

@test "psplit: -o names pieces by number and key; bad patterns are usage errors" {
	local d="$BATS_TEST_TMPDIR/o"
	run -0 "$BIN/psplit" -n 500 -d "$d" -o 'dd-%n-%k-%%.pipe' "$DATA/rawsys-dd.pipe"
	[ "$output" = "$d/dd-0000-0-%.pipe
$d/dd-0001-1-%.pipe" ]
	run -2 "$BIN/psplit" -n 5 -o same.pipe "$DATA/rawsys-dd.pipe"
	[[ "$output" == *"needs %k or %n"* ]]
	run -2 "$BIN/psplit" -n 5 -o 'a/%n' "$DATA/rawsys-dd.pipe"
	[[ "$output" == *"-d DIR"* ]]
	run -2 "$BIN/psplit" -n 5 -o '%x%n' "$DATA/rawsys-dd.pipe"
	run -2 "$BIN/psplit" "$DATA/rawsys-dd.pipe"
	[[ "$output" == *"say how to cut"* ]]
	run -2 "$BIN/psplit" -n 5 -t 1 "$DATA/rawsys-dd.pipe"
	run -2 "$BIN/psplit" -t 0 "$DATA/rawsys-dd.pipe"
	run -2 "$BIN/psplit" -b 12q "$DATA/rawsys-dd.pipe"
	run -2 "$BIN/psplit" -n 0 "$DATA/rawsys-dd.pipe"
}

@test "psplit: --max-pieces stops with a clear error, the pieces made are whole streams" {
	need_perf
	local d="$BATS_TEST_TMPDIR/m" p
	run -1 --separate-stderr "$BIN/psplit" --max-pieces 3 -n 100 -d "$d" "$DATA/rawsys-dd.pipe"
	[[ "$stderr" == "psplit: more than 3 pieces (the next one is for key '3'): raise --max-pieces"* ]]
	[ "$(ls "$d" | wc -l)" -eq 3 ]
	for p in "$d"/*; do
		[ "$(perf script -i "$p" 2>/dev/null | wc -l)" -eq 100 ]
	done
}

@test "psplit: --where keeps the samples pfilter keeps" {
	need_perf
	local d="$BATS_TEST_TMPDIR/w" p
	f="$DATA/sched-switch-wakeup-a.pipe"
	"$BIN/psplit" -n 100 --where 'comm=head' -d "$d" "$f" >"$d.list"
	"$BIN/pfilter" comm=head <"$f" | perf script -i - 2>/dev/null | sort >"$d.want"
	[ -s "$d.want" ]
	for p in $(cat "$d.list"); do perf script -i "$p" 2>/dev/null; done | sort | diff "$d.want" -
	run -2 "$BIN/psplit" -n 5 --where 'comm=' "$f"
	run -2 --separate-stderr "$BIN/psplit" -n 5 --where 'nosuchfield=1' -d "$d" "$f"
	[[ "$stderr" == *"nosuchfield"* ]]
}

@test "psplit: --where on a duration keeps the samples pfilter keeps" {
	need_perf
	local d="$BATS_TEST_TMPDIR/w" p
	f="$DATA/rawsys-dd.pipe"
	# durations are worked out only when the command line names one: this one does
	"$BIN/psplit" -n 3 --where 'latency > 1us' -d "$d" "$f" >"$d.list"
	"$BIN/pfilter" 'latency > 1us' <"$f" | perf script -i - 2>/dev/null | sort >"$d.want"
	[ "$(wc -l <"$d.want")" -gt 5 ]
	[ "$(wc -l <"$d.list")" -gt 1 ]
	for p in $(cat "$d.list"); do perf script -i "$p" 2>/dev/null; done | sort | diff "$d.want" -
}

@test "psplit: header records that come late (BUILD_ID) go into every piece" {
	need_perf
	local d="$BATS_TEST_TMPDIR/b" p
	# a BUILD_ID record of 100 bytes (pid -1, a 20-byte id, a name padded to 64) at the end
	python3 -c '
import struct, sys
name = b"/usr/bin/dd".ljust(64, b"\0")
body = struct.pack("<i", -1) + bytes(range(1, 21)) + bytes(4) + name
sys.stdout.buffer.write(struct.pack("<IHH", 67, 2, 8 + len(body)) + body)' >"$BATS_TEST_TMPDIR/bid"
	cat "$DATA/rawsys-dd.pipe" "$BATS_TEST_TMPDIR/bid" >"$BATS_TEST_TMPDIR/late.pipe"
	"$BIN/psplit" -n 300 -d "$d" "$BATS_TEST_TMPDIR/late.pipe" >"$d.list"
	[ "$(wc -l <"$d.list")" -eq 3 ]
	for p in $(cat "$d.list"); do
		python3 -c 'import sys; sys.exit(open(sys.argv[2], "rb").read() not in open(sys.argv[1], "rb").read())' "$p" "$BATS_TEST_TMPDIR/bid"
		perf script -i "$p" >/dev/null 2>&1
	done
}

@test "psplit: a stream of the other byte order is split in its own order" {
	local d="$BATS_TEST_TMPDIR/s" p
	"$TOOLS/pswap" "$DATA/rawsys-dd.pipe" >"$BATS_TEST_TMPDIR/be.pipe"
	"$BIN/psplit" -n 300 -d "$d" "$BATS_TEST_TMPDIR/be.pipe" >"$d.list"
	for p in $(cat "$d.list"); do
		[ "$(head -c 8 "$p")" = 2ELIFREP ]
		"$BIN/ptojson" "$p"
	done | sed 's/,"latency":[0-9]*//' | sort >"$d.got"
	# a syscall whose entry is in one piece and exit in the next has no latency there
	"$BIN/ptojson" "$DATA/rawsys-dd.pipe" | sed 's/,"latency":[0-9]*//' | sort | diff - "$d.got"
}

@test "psplit: a damaged input: error at its offset, the samples before it are in pieces" {
	local d="$BATS_TEST_TMPDIR/t" p
	head -c 58632 "$DATA/rawsys-dd.pipe" >"$BATS_TEST_TMPDIR/cut.pipe"
	run -1 --separate-stderr "$BIN/psplit" -n 100 -d "$d" "$BATS_TEST_TMPDIR/cut.pipe"
	[[ "$stderr" == "psplit: $BATS_TEST_TMPDIR/cut.pipe: offset 0x"* ]]
	n=$(for p in $output; do "$BIN/pcount" -j "$p" | jq .total; done | awk '{s += $1} END {print s}')
	[ "$n" = "$("$BIN/pcount" -j "$BATS_TEST_TMPDIR/cut.pipe" 2>/dev/null | jq .total)" ]
	run -1 "$BIN/psplit" -n 5 /nonexistent
	echo garbage >"$BATS_TEST_TMPDIR/g"
	run -1 --separate-stderr "$BIN/psplit" -n 5 "$BATS_TEST_TMPDIR/g"
	[[ "$stderr" == "psplit: $BATS_TEST_TMPDIR/g: "* ]]
}

@test "psplit: --help and --version" {
	run -0 "$BIN/psplit" --help
	[[ "${lines[0]}" == "usage: psplit "* ]]
	run -0 "$BIN/psplit" --version
	[[ "$output" == "psplit (pstream) "* ]]
	run -2 "$BIN/psplit" --nosuch
}

@test "psplit: --by keys name the pieces; more keys than open files reopen pieces" {
	need_perf
	local d="$BATS_TEST_TMPDIR/k" f="$DATA/sched-switch-wakeup-a.pipe"
	run -0 --separate-stderr "$BIN/psplit" -v --by cpu -d "$d" "$f"
	[ "$output" = "$d/x0000-0.pipe
$d/x0001-1.pipe" ]
	[[ "${stderr_lines[0]}" == "psplit: $d/x0000-0.pipe: 56 samples, "*" bytes, key 0" ]]
	# one piece open at a time: every piece is closed and reopened for appending
	split_check "$f" --by comm,pid --max-open 1
	split_check "$f" --by sched:sched_switch.prev_pid --max-open 3
	run -0 "$BIN/psplit" --by comm,pid -d "$d/c" -o '%k.pipe' "$f"
	[[ "$output" == *"$d/c/yes,"*".pipe"* ]]
	[[ "$output" == *"$d/c/migration%2F0,18.pipe"* ]]
}

@test "psplit: pieces of many write buffers (written by a thread) are whole and in order" {
	need_perf
	local d="$BATS_TEST_TMPDIR" f="$BATS_TEST_TMPDIR/long.pipe"
	# a few MB on two CPUs, in time order: each piece is many times psplit's write buffer
	perf record -q -m 2048 -o - -e raw_syscalls:sys_enter,raw_syscalls:sys_exit -- sh -c \
		'dd if=/dev/zero of=/dev/null bs=1 count=8000 & dd if=/dev/zero of=/dev/null bs=1 count=8000; wait' \
		>"$f" 2>/dev/null || skip "perf record failed here"
	[ "$(stat -c %s "$f")" -gt 2000000 ] || skip "perf record gave a short stream"
	split_check "$f" --by cpu
	split_check "$f" --by cpu,event --max-open 2
	split_check "$f" -b 700k
	"$BIN/psplit" --by cpu -d "$d/p" "$f" >"$d/list"
	# shellcheck disable=SC2046
	"$BIN/pcat" --merge $(cat "$d/list") | perf script -i - >"$d/got" 2>/dev/null
	perf script -i "$f" >"$d/want" 2>/dev/null
	# The same lines, in time order.  Two CPUs may record events in the same nanosecond
	# (a vfork's parent and child): perf orders those by their arrival in the one stream,
	# which the per-CPU pieces no longer tell, so only their order among themselves may
	# differ: lines are compared sorted on (time, line), and the merge's times must never
	# go back.
	local t='{ for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+[.][0-9]+:$/) { print $i, $0; next } }'
	cmp <(awk "$t" "$d/want" | LC_ALL=C sort) <(awk "$t" "$d/got" | LC_ALL=C sort)
	[ "$(wc -l <"$d/got")" -gt 1000 ]
	awk "$t" "$d/got" | awk '{ t = $1 + 0; if (t < last) { print "back at " NR ": " $0; bad = 1 } last = t }
		END { exit bad }'
}

@test "psplit: --by with a key no event has is a usage error listing the keys" {
	run -2 --separate-stderr "$BIN/psplit" --by nosuch -d "$BATS_TEST_TMPDIR/x" "$DATA/rawsys-dd.pipe"
	[[ "$stderr" == "psplit: --by: unknown key 'nosuch'; the keys of this stream are: event,"* ]]
	run -2 "$BIN/psplit" --by '' "$DATA/rawsys-dd.pipe"
	run -2 "$BIN/psplit" --by cpu -n 5 "$DATA/rawsys-dd.pipe"
}

@test "psplit: pcat --merge of the --by cpu pieces gives perf script the original's lines in order" {
	need_perf
	local f d="$BATS_TEST_TMPDIR"
	for f in $(good_inputs); do
		"$BIN/pcount" --by cpu "$f" >/dev/null 2>&1 || continue
		rm -rf "$d/p"
		"$BIN/psplit" --by cpu -d "$d/p" "$f" >"$d/list"
		# shellcheck disable=SC2046
		"$BIN/pcat" --merge $(cat "$d/list") | perf script -i - >"$d/got" 2>/dev/null
		perf script -i "$f" 2>/dev/null | cmp - "$d/got" || { echo "$f"; return 1; }
	done
}

@test "psplit --data: each piece a perf.data file perf reads, samples kept once" {
	need_perf
	local d="$BATS_TEST_TMPDIR/dt" p f="$DATA/sched-switch-wakeup-a.pipe"
	run -0 "$BIN/psplit" --data --by cpu -d "$d" "$f"
	[ "$output" = "$d/x0000-0.data
$d/x0001-1.data" ]
	[ -z "$(ls "$d" | grep -v '\.data$')" ]
	for p in $output; do
		[ "$(head -c 8 "$p")" = PERFILE2 ]
		perf script -i "$p" 2>/dev/null
	done | sort | diff <(perf script -i "$f" 2>/dev/null | sort) -
}
