#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# Byte order.  tests/tools/pswap rewrites a little-endian stream as the stream a big-endian
# machine would have written for the same events (every field at its own width, attr and
# branch bitfields in big-endian allocation order, tracepoint fields by their format); pcat
# must pass it through, pmangle frame it, and perf read it as it reads the original.
#
# What perf 6.1 does with the other byte order, as these tests check it:
#  - a perf.data file (pswap -d) is read exactly as the little-endian one: samples, tracepoint
#    fields, features (perf only warns that it cannot interpret BPF info from another byte
#    order);
#  - a pipe stream is only half supported: the ATTR records are decoded right, but the events
#    made from them are never marked as swapped (perf_event__process_attr does not set
#    evsel->needs_swap, as the file reader does), so the u32 pairs of a sample come out wrong
#    (pid and tid exchanged, cpu read from the reserved half: 0) and a tracepoint sample fails
#    with "Can't parse sample, err = -14" (its RAW size is read from the wrong half);
#  - FEATURE records of a pipe stream are not swapped (feat_id is read as it is): perf script
#    ignores them, perf report stops at the first one with "wrong feature ID".

bats_require_minimum_version 1.5.0

setup() {
	load helpers
}

# use_fixture NAME: set FIX to a pipe fixture from the shared set or tests/data, else skip
use_fixture() {
	FIX=$(fixture "$1" 2>/dev/null) || skip "fixture $1 not present"
}

# the good pipe fixtures without COMPRESSED records (pswap writes those decompressed)
plain_pipes() {
	local f
	for f in $(good_pipes); do
		"$TOOLS/pmangle" --list "$f" | awk '$2 == 81 { found = 1 } END { exit found }' && echo "$f"
	done
}

# swap F: write pswap's stream of F to $BATS_TEST_TMPDIR/be
swap() {
	"$TOOLS/pswap" "$1" >"$BATS_TEST_TMPDIR/be"
}

@test "pswap: --help prints its usage" {
	run -0 "$TOOLS/pswap" --help
	[[ "$output" == "usage: pswap [-d] [-o file] [file]"* ]]
	run -2 --separate-stderr "$TOOLS/pswap" -d
	[[ "$stderr" == "pswap: -d writes a perf.data file, which needs -o file"* ]]
}

@test "pswap: the stream starts with the big-endian pipe header" {
	swap "$DATA/rawsys-dd.pipe"
	[ "$(head -c 8 "$BATS_TEST_TMPDIR/be")" = "2ELIFREP" ]
	[ "$(od -An -tx1 -j8 -N8 "$BATS_TEST_TMPDIR/be" | tr -d ' ')" = 0000000000000010 ]
}

@test "pswap: every record keeps its offset, type and size" {
	local f
	for f in $(plain_pipes); do
		swap "$f"
		"$TOOLS/pmangle" --list "$f" >"$BATS_TEST_TMPDIR/a.list"
		"$TOOLS/pmangle" --list "$BATS_TEST_TMPDIR/be" >"$BATS_TEST_TMPDIR/b.list"
		cmp_or_show "$BATS_TEST_TMPDIR/a.list" "$BATS_TEST_TMPDIR/b.list"
	done
}

@test "pswap: swapping twice gives back the original byte for byte" {
	local f
	for f in $(plain_pipes); do
		swap "$f"
		run -0 --separate-stderr bash -c "'$TOOLS/pswap' < '$BATS_TEST_TMPDIR/be' > '$BATS_TEST_TMPDIR/le'"
		[ -z "$stderr" ]
		cmp_or_show "$f" "$BATS_TEST_TMPDIR/le"
	done
}

@test "pswap: every field it knows is turned: nothing is left unturned in the fixtures" {
	local f
	for f in $(good_pipes) $(good_files); do
		run -0 --separate-stderr bash -c "'$TOOLS/pswap' '$f' > /dev/null"
		[ -z "$stderr" ] || { echo "$f: $stderr"; return 1; }
	done
}

@test "pswap: a compressed stream comes out decompressed, without the compressed feature" {
	local f="$DATA/compressed-z.pipe" off t="$BATS_TEST_TMPDIR"
	swap "$f"
	"$TOOLS/pmangle" --list "$t/be" >"$t/b.list"
	[ "$(awk '$2 == 81' "$t/b.list" | wc -l)" -eq 0 ]
	# each FEATURE's id is the big-endian u64 after its header; 27 is COMPRESSED
	for off in $(awk '$2 == 80 { print $1 }' "$t/b.list"); do
		[ "$(od -An -tu1 -j$((off + 15)) -N1 "$t/be" | tr -d ' ')" != 27 ]
	done
	# and its samples are all there: back in little-endian, perf reads it as the original
	need_perf
	"$TOOLS/pswap" <"$t/be" >"$t/le"
	perf script -i - <"$f" >"$t/a.txt" 2>/dev/null
	perf script -i - <"$t/le" >"$t/b.txt" 2>/dev/null
	[ -s "$t/a.txt" ]
	cmp_or_show "$t/a.txt" "$t/b.txt"
}

@test "pswap: a damaged input is reported at its offset after the records before it" {
	local f="$DATA/rawsys-dd.pipe" n off t="$BATS_TEST_TMPDIR"
	n=$("$TOOLS/pmangle" --list "$f" | awk '$2 == 9 && ++k == 100 { print NR; exit }')
	off=$("$TOOLS/pmangle" --list "$f" | awk -v n="$n" 'NR == n { print $1 }')
	"$TOOLS/pmangle" --truncate-in "$n" "$f" >"$t/cut"
	run -1 --separate-stderr bash -c "'$TOOLS/pswap' < '$t/cut' > '$t/out'"
	[ "$stderr" = "pswap: <stdin>: offset $(printf '0x%x' "$off"): SAMPLE record of 128 bytes runs past the end of the input (12 bytes left)" ]
	swap "$f"
	head -c "$off" "$t/be" >"$t/expected"
	cmp_or_show "$t/expected" "$t/out"
}

@test "pcat: passes a big-endian stream through byte for byte" {
	local f t="$BATS_TEST_TMPDIR"
	for f in $(good_pipes) $(good_files); do
		swap "$f"
		run -0 --separate-stderr bash -c "cat '$t/be' | '$BIN/pcat' > '$t/out'"
		[ -z "$stderr" ]
		cmp_or_show "$t/be" "$t/out"
		run -0 "$BIN/pcat" -o "$t/out2" "$t/be"
		cmp_or_show "$t/be" "$t/out2"
	done
}

@test "pcat: a damaged big-endian stream is reported at the same offset" {
	local f="$DATA/rawsys-dd.pipe" n off t="$BATS_TEST_TMPDIR"
	swap "$f"
	n=$("$TOOLS/pmangle" --list "$t/be" | awk '$2 == 9 && ++k == 100 { print NR; exit }')
	off=$("$TOOLS/pmangle" --list "$t/be" | awk -v n="$n" 'NR == n { print $1 }')
	"$TOOLS/pmangle" --size-zero "$n" "$t/be" >"$t/zero"
	run -1 --separate-stderr bash -c "'$BIN/pcat' < '$t/zero' > '$t/out'"
	[[ "$stderr" == "pcat: <stdin>: offset $(printf '0x%x' "$off"): SAMPLE record size 0 "* ]]
	head -c "$off" "$t/be" >"$t/expected"
	cmp_or_show "$t/expected" "$t/out"
}

@test "perf: evlist -v decodes the big-endian attrs as the original ones" {
	need_perf
	local f t="$BATS_TEST_TMPDIR"
	for f in $(plain_pipes); do
		swap "$f"
		perf evlist -v -i - <"$f" >"$t/a.txt" 2>&1
		perf evlist -v -i - <"$t/be" >"$t/b.txt" 2>&1
		[ -s "$t/a.txt" ]
		cmp_or_show "$t/a.txt" "$t/b.txt"
	done
}

# perf script over a stream on stdin, output and status kept
script_of() {
	perf script -i - "${@:2}" <"$1"
}

@test "perf: script reads big-endian software-event pipe streams as the originals" {
	need_perf
	local name f t="$BATS_TEST_TMPDIR"
	# none of these has PERF_SAMPLE_CPU, and their threads have pid == tid: the two things
	# perf 6.1 gets wrong in a pipe stream of the other byte order
	for name in cpuclock-g-sh.pipe group-read.pipe ctxswitch.pipe; do
		f=$(fixture "$name")
		swap "$f"
		script_of "$f" >"$t/a.txt" 2>/dev/null
		script_of "$t/be" >"$t/b.txt" 2>"$t/b.err"
		[ ! -s "$t/b.err" ] || { cat "$t/b.err"; return 1; }
		[ -s "$t/a.txt" ]
		cmp_or_show "$t/a.txt" "$t/b.txt"
	done
	# a perf.data file made into a big-endian stream
	swap "$DATA/cpuclock-g-sh.data"
	perf script -i "$DATA/cpuclock-g-sh.data" >"$t/a.txt" 2>/dev/null
	script_of "$t/be" >"$t/b.txt"
	[ -s "$t/a.txt" ]
	cmp_or_show "$t/a.txt" "$t/b.txt"
}

@test "perf: script 6.1 cannot parse tracepoint samples of a big-endian pipe stream" {
	need_perf
	swap "$DATA/rawsys-dd.pipe"
	run -242 --separate-stderr script_of "$BATS_TEST_TMPDIR/be"
	[ "${stderr_lines[0]}" = "Can't parse sample, err = -14" ]
	[ -z "$output" ]
}

@test "perf: report 6.1 stops at the first FEATURE record of a big-endian pipe stream" {
	need_perf
	swap "$DATA/rawsys-dd.pipe"
	run -0 --separate-stderr bash -c "perf report -i - --stdio < '$BATS_TEST_TMPDIR/be'"
	# feat_id 3 (hostname) read without swapping: 3 << 56
	[ "${stderr_lines[0]}" = "failed: wrong feature ID: $((3 << 56))" ]
}

@test "perf: reads big-endian perf.data files (pswap -d) exactly as little-endian ones" {
	need_perf
	local f t="$BATS_TEST_TMPDIR"
	for f in $(good_pipes) $(good_files); do
		"$TOOLS/pswap" -d -o "$t/be.data" "$f"
		swap "$f"
		"$TOOLS/pswap" -d -o "$t/le.data" "$t/be"
		[ "$(head -c 8 "$t/be.data")" = "2ELIFREP" ]
		[ "$(head -c 8 "$t/le.data")" = "PERFILE2" ]
		perf script -i "$t/le.data" >"$t/a.txt" 2>"$t/a.err"
		perf script -i "$t/be.data" >"$t/b.txt" 2>"$t/b.err"
		[ -s "$t/a.txt" ] || { echo "$f: perf printed nothing"; cat "$t/a.err"; return 1; }
		cmp_or_show "$t/a.txt" "$t/b.txt"
		# the features decode to the same header (perf warns about BPF info only);
		# "captured on" is the file's mtime: the same for both
		touch -r "$t/le.data" "$t/be.data"
		perf report --header-only -I -i "$t/le.data" >"$t/a.hdr" 2>/dev/null
		perf report --header-only -I -i "$t/be.data" >"$t/b.hdr" 2>"$t/b.err"
		grep -q '^# hostname : ' "$t/a.hdr"
		cmp_or_show "$t/a.hdr" "$t/b.hdr"
		[ -z "$(grep -v 'from systems with endianness is not yet supported' "$t/b.err")" ]
	done
}

@test "perf: a big-endian perf.data file prints what perf prints on the original stream" {
	need_perf
	local f t="$BATS_TEST_TMPDIR"
	for f in "$DATA/rawsys-dd.pipe" "$DATA/sched-switch-wakeup-a.pipe" "$DATA/compressed-z.pipe"; do
		"$TOOLS/pswap" -d -o "$t/be.data" "$f"
		script_of "$f" >"$t/a.txt" 2>/dev/null
		perf script -i "$t/be.data" >"$t/b.txt" 2>/dev/null
		[ -s "$t/a.txt" ]
		cmp_or_show "$t/a.txt" "$t/b.txt"
	done
	"$TOOLS/pswap" -d -o "$t/be.data" "$DATA/cpuclock-g-sh.data"
	perf script -i "$DATA/cpuclock-g-sh.data" >"$t/a.txt" 2>/dev/null
	perf script -i "$t/be.data" >"$t/b.txt" 2>/dev/null
	cmp_or_show "$t/a.txt" "$t/b.txt"
}

# pheader --json of a stream without its input name and the keys that name the byte order
header_json() {
	"$BIN/pheader" --json "$1" |
		jq -S 'del(.input) | walk(if type == "object" then with_entries(select(.key | test("endian|byte_order|byteorder|swap"; "i") | not)) else . end)'
}

@test "pheader: --json of the big-endian stream agrees with the original but for the byte order" {
	[ -x "$BIN/pheader" ] || skip "bin/pheader not built yet"
	local f t="$BATS_TEST_TMPDIR"
	for f in $(plain_pipes); do
		swap "$f"
		header_json "$f" >"$t/a.json"
		header_json "$t/be" >"$t/b.json"
		[ -s "$t/a.json" ]
		diff "$t/a.json" "$t/b.json"
		# and the byte order itself is told apart
		if cmp -s <("$BIN/pheader" --json "$f") <("$BIN/pheader" --json "$t/be"); then
			echo "pheader --json does not tell the byte orders apart"
			return 1
		fi
	done
}

@test "pcount: fields, syscall names, errno and latency of the big-endian stream as of the original" {
	[ -x "$BIN/pcount" ] || skip "bin/pcount not built yet"
	local t="$BATS_TEST_TMPDIR" k
	# tracepoint numbers are read by the format's byte order, once per event, not per sample
	swap "$DATA/rawsys-dd.pipe"
	for k in "--by syscall --stats latency --hist latency" "--by id/16,ret --stats ret" \
		"--by raw_syscalls:sys_exit.ret --sum n=ret" "--by syscall,errno"; do
		# shellcheck disable=SC2086
		"$BIN/pcount" -j $k "$DATA/rawsys-dd.pipe" >"$t/a.json"
		# shellcheck disable=SC2086
		"$BIN/pcount" -j $k "$t/be" >"$t/b.json"
		[ "$(jq '.rows | length' "$t/a.json")" -ge 1 ]
		cmp_or_show "$t/a.json" "$t/b.json"
	done
	jq -e '[.rows[] | select(.latency.count > 0)] | length > 3' <("$BIN/pcount" -j \
		--by syscall --stats latency "$t/be")
}

@test "ptojson: prints the same JSON for the big-endian stream as for the original" {
	[ -x "$BIN/ptojson" ] || skip "bin/ptojson not built yet"
	local f t="$BATS_TEST_TMPDIR"
	for f in $(plain_pipes); do
		swap "$f"
		"$BIN/ptojson" "$f" >"$t/a.json"
		"$BIN/ptojson" "$t/be" >"$t/b.json"
		[ -s "$t/a.json" ]
		cmp_or_show "$t/a.json" "$t/b.json"
	done
}
