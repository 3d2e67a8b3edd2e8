#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# The damaged-input table, shared by every program that reads a stream.  Each damaged input
# is made at test time by tests/tools/pmangle from a good one; offsets come from
# `pmangle --list`, never from constants.  Each program must stop with status 1 and one line
# "PROG: INPUT: offset 0xN: ..." naming the damaged record, after writing everything before it.

bats_require_minimum_version 1.5.0

# The programs fed every damaged input, one per line: "KIND PROG [ARGS...]" (ARGS are split
# on blanks).  KIND "stream": the program writes the stream through, so its output must be
# the input's bytes up to the damaged record; "text": it writes something else (JSON,
# counts), only its status and message are checked.  A new program is one more line here.
PROGRAMS=(
	"stream pcat"
)

setup() {
	load helpers
	need_tool pmangle
	GOOD="$DATA/rawsys-dd.pipe"
}

# nth_record FILE TYPE K: the number (from 1, as pmangle counts) of the K-th record of TYPE
nth_record() {
	"$TOOLS/pmangle" --list "$1" | awk -v t="$2" -v k="$3" '$2 == t && ++n == k { print NR; exit }'
}

# record_offset FILE N: the byte offset of record N
record_offset() {
	"$TOOLS/pmangle" --list "$1" | awk -v n="$2" 'NR == n { print $1; exit }'
}

# first_of FILE TYPE: the byte offset of the first record of TYPE
first_of() {
	"$TOOLS/pmangle" --list "$1" | awk -v t="$2" '$2 == t { print $1; exit }'
}

# middle_sample FILE: the number of the SAMPLE record halfway through the SAMPLE records
middle_sample() {
	local n
	n=$("$TOOLS/pmangle" --list "$1" | awk '$2 == 9' | wc -l)
	nth_record "$1" 9 $((n / 2))
}

# check_one KIND PROG ARGS INPUT SHOWN OFFSET: run PROG on INPUT (a shell redirection or an
# operand, as given), expect status 1 and the one-line message for SHOWN at OFFSET; a stream
# program must have written exactly the bytes before OFFSET
check_one() {
	local kind="$1" prog="$2" args="$3" input="$4" shown="$5" off="$6"
	local out="$BATS_TEST_TMPDIR/out.$prog"

	run -1 --separate-stderr bash -c "'$BIN/$prog' $args $input >'$out'"
	if [ "${#stderr_lines[@]}" -ne 1 ]; then
		echo "$prog $input: expected one line on stderr, got:"
		printf '%s\n' "$stderr"
		return 1
	fi
	if [[ "$stderr" != "$prog: $shown: offset $(printf '0x%x' "$off"): "* ]]; then
		echo "$prog $input: unexpected message: $stderr"
		echo "expected: $prog: $shown: offset $(printf '0x%x' "$off"): ..."
		return 1
	fi
	if [ "$kind" = stream ]; then
		cmp_or_show "$BATS_TEST_TMPDIR/expected" "$out"
	fi
}

# expect_damage FILE OFFSET: every program, reading FILE on a pipe and as an operand, stops
# at the record at OFFSET after writing the bytes before it
expect_damage() {
	local in="$1" off="$2" entry kind prog args
	[ -n "$off" ] || { echo "no damage offset for $in"; return 1; }
	head -c "$off" "$in" >"$BATS_TEST_TMPDIR/expected"
	for entry in "${PROGRAMS[@]}"; do
		read -r kind prog args <<<"$entry"
		check_one "$kind" "$prog" "$args" "< <(cat '$in')" "<stdin>" "$off"
		check_one "$kind" "$prog" "$args" "'$in'" "$in" "$off"
	done
}

# expect_record_damage FILE N OPTION NAME: every program stops at record N of FILE, damaged by
# pmangle OPTION N (into $BATS_TEST_TMPDIR/NAME)
expect_record_damage() {
	"$TOOLS/pmangle" "$3" "$2" "$1" >"$BATS_TEST_TMPDIR/$4"
	expect_damage "$BATS_TEST_TMPDIR/$4" "$(record_offset "$1" "$2")"
}

@test "badinput: empty input" {
	: >"$BATS_TEST_TMPDIR/empty"
	expect_damage "$BATS_TEST_TMPDIR/empty" 0
}

@test "badinput: not a stream at all (text)" {
	printf 'this is not a perf stream, just some text\n' >"$BATS_TEST_TMPDIR/text"
	expect_damage "$BATS_TEST_TMPDIR/text" 0
}

@test "badinput: input shorter than the 16-byte pipe header" {
	head -c 12 "$GOOD" >"$BATS_TEST_TMPDIR/short"
	expect_damage "$BATS_TEST_TMPDIR/short" 0
}

@test "badinput: wrong magic" {
	"$TOOLS/pmangle" --wrong-magic "$GOOD" >"$BATS_TEST_TMPDIR/magic"
	expect_damage "$BATS_TEST_TMPDIR/magic" 0
}

@test "badinput: a record whose size runs past the end (truncated mid-record)" {
	local n
	n=$(middle_sample "$GOOD")
	expect_record_damage "$GOOD" "$n" --truncate-in cut
}

@test "badinput: input ends inside a record header" {
	local n off
	n=$(middle_sample "$GOOD")
	off=$(record_offset "$GOOD" "$n")
	head -c $((off + 5)) "$GOOD" >"$BATS_TEST_TMPDIR/cut"
	expect_damage "$BATS_TEST_TMPDIR/cut" "$off"
}

@test "badinput: a record size of 0xffff running past the end" {
	local n
	n=$(middle_sample "$GOOD")
	expect_record_damage "$GOOD" "$n" --size-huge huge
}

@test "badinput: a truncated TRACING_DATA payload" {
	"$TOOLS/pmangle" --truncate-tracing "$GOOD" >"$BATS_TEST_TMPDIR/tracing"
	expect_damage "$BATS_TEST_TMPDIR/tracing" "$(first_of "$GOOD" 66)"
}

@test "badinput: a record size of 0" {
	local n
	n=$(middle_sample "$GOOD")
	expect_record_damage "$GOOD" "$n" --size-zero zero
}

@test "badinput: a record size of 0 in the first record" {
	"$TOOLS/pmangle" --size-zero 1 "$GOOD" >"$BATS_TEST_TMPDIR/zero"
	expect_damage "$BATS_TEST_TMPDIR/zero" 16
}

@test "badinput: an attr size larger than its ATTR record" {
	"$TOOLS/pmangle" --attr-size-big "$GOOD" >"$BATS_TEST_TMPDIR/attr"
	expect_damage "$BATS_TEST_TMPDIR/attr" "$(first_of "$GOOD" 64)"
}

@test "badinput: a compressed stream cut inside a COMPRESSED record" {
	local f="$DATA/compressed-z.pipe" n
	n=$(nth_record "$f" 81 3)
	expect_record_damage "$f" "$n" --truncate-in cut
}

@test "badinput: fixture BAD-truncated-midrecord.pipe" {
	local f end
	f=$(fixture BAD-truncated-midrecord.pipe)
	# the damaged record starts where the last record pmangle can frame ends
	end=$("$TOOLS/pmangle" --list "$f" 2>/dev/null | awk 'END { print $1 + $3 + ($4 == "payload" ? $5 : 0) }')
	[ "$end" -lt "$(stat -c %s "$f")" ]
	expect_damage "$f" "$end"
}

@test "badinput: fixture BAD-corrupt-header.pipe" {
	local f off
	f=$(fixture BAD-corrupt-header.pipe)
	# its damage is one record header overwritten with 0xff bytes: type 0xffffffff
	off=$("$TOOLS/pmangle" --list "$f" 2>/dev/null | awk '$2 == 4294967295 { print $1; exit }')
	expect_damage "$f" "$off"
}

# expect_file_damage FILE: a damaged perf.data file; its stream is not its bytes, so only the
# status, the message and the well-formedness of what was written are checked
expect_file_damage() {
	local in="$1" entry kind prog args out
	for entry in "${PROGRAMS[@]}"; do
		read -r kind prog args <<<"$entry"
		out="$BATS_TEST_TMPDIR/out.$prog"
		run -1 --separate-stderr bash -c "'$BIN/$prog' $args '$in' >'$out'"
		[ "${#stderr_lines[@]}" -eq 1 ] || { printf '%s\n' "$stderr"; return 1; }
		[[ "$stderr" == "$prog: $in: offset 0x"* ]] || { echo "$stderr"; return 1; }
		run -1 --separate-stderr bash -c "'$BIN/$prog' $args < '$in' >'$out'"
		[ "${#stderr_lines[@]}" -eq 1 ] || { printf '%s\n' "$stderr"; return 1; }
		[[ "$stderr" == "$prog: <stdin>: offset 0x"* ]] || { echo "$stderr"; return 1; }
		# whatever came out before the damage is a complete stream
		if [ "$kind" = stream ] && [ -s "$out" ]; then
			run -0 "$BIN/pcat" -o /dev/null "$out"
		fi
	done
}

@test "badinput: a perf.data file cut short in its data section" {
	local f="$DATA/cpuclock-g-sh.data"
	head -c $(($(stat -c %s "$f") / 2)) "$f" >"$BATS_TEST_TMPDIR/cut.data"
	expect_file_damage "$BATS_TEST_TMPDIR/cut.data"
}

@test "badinput: a perf.data file cut short in its feature sections" {
	local f="$DATA/cpuclock-g-sh.data"
	head -c $(($(stat -c %s "$f") - 40)) "$f" >"$BATS_TEST_TMPDIR/cut.data"
	expect_file_damage "$BATS_TEST_TMPDIR/cut.data"
}

@test "badinput: a perf.data file cut inside its header" {
	head -c 60 "$DATA/cpuclock-g-sh.data" >"$BATS_TEST_TMPDIR/cut.data"
	expect_file_damage "$BATS_TEST_TMPDIR/cut.data"
}

@test "badinput: perf script on pcat's output of a truncated stream prints the samples perf prints on the truncated input" {
	need_perf
	local f n t="$BATS_TEST_TMPDIR"
	for f in "$DATA/rawsys-dd.pipe" "$DATA/sched-switch-wakeup-a.pipe"; do
		n=$(middle_sample "$f")
		"$TOOLS/pmangle" --truncate-in "$n" "$f" >"$t/cut"
		run -1 --separate-stderr bash -c "'$BIN/pcat' <'$t/cut' >'$t/ours'"
		perf script -i - <"$t/cut" >"$t/a.txt" 2>"$t/a.err" || true
		# perf sees the cut itself, and says so; on pcat's output it sees a clean end
		grep -q 'unexpected end of event stream' "$t/a.err"
		perf script -i - <"$t/ours" >"$t/b.txt" 2>"$t/b.err"
		[ -s "$t/a.txt" ]
		cmp_or_show "$t/a.txt" "$t/b.txt"
	done
}

@test "badinput: a hostile input name stays on its message's one line, escaped" {
	# a file name, like a comm or an event name, may hold a newline or an escape sequence:
	# it must not print a line of its own nor drive the terminal
	local name=$'bad\n  x\033[31m' prog
	printf 'not a perf stream at all\n' >"$BATS_TEST_TMPDIR/$name"
	for prog in "pcat -f" ptojson pcount pheader "pfilter -f comm=x -i" "psplit -n 1 -d $BATS_TEST_TMPDIR/d" \
		pflame "pstream-clickhouse --client true"; do
		# shellcheck disable=SC2086
		run -1 --separate-stderr "$BIN/"$prog "$BATS_TEST_TMPDIR/$name"
		[ "${#stderr_lines[@]}" -eq 1 ] || { echo "$prog:"; echo "$stderr"; return 1; }
		[[ "$stderr" == *'bad\n  x\x1b[31m'* ]] || { echo "$prog: $stderr"; return 1; }
	done
}
