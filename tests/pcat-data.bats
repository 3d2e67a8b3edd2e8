#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# pcat --data -o FILE: a perf.data file that perf reads as it reads the original stream.

bats_require_minimum_version 1.5.0

setup() {
	load helpers
}

# the header lines that differ between a stream and a file by nature: where things are,
# when the file was written, the sample times a stream cannot know up front
header_features() {
	perf report --header-only -i "$1" 2>/dev/null |
		grep -Ev '^# (captured on|data offset|data size|feat offset|time of (first|last) sample|sample duration|missing features|=+$)|^#$'
}

@test "pcat --data: perf script prints for the file what it prints for every fixture" {
	need_perf
	local f d="$BATS_TEST_TMPDIR"
	for f in $(good_inputs); do
		"$BIN/pcat" --data -o "$d/x.data" "$f"
		[ "$(head -c 8 "$d/x.data")" = PERFILE2 ]
		perf script -i "$f" >"$d/want" 2>/dev/null
		perf script -i "$d/x.data" >"$d/got" 2>"$d/err" || { cat "$d/err"; return 1; }
		[ -s "$d/got" ]
		if ! cmp -s "$d/want" "$d/got"; then
			# perf itself prints the ip and symbol of tracepoint samples in a stream with
			# call chains but not in a file: ask for them in both
			perf script -F +ip,+sym -i "$f" >"$d/want" 2>/dev/null
			perf script -F +ip,+sym -i "$d/x.data" >"$d/got" 2>/dev/null
			cmp_or_show "$d/want" "$d/got" || { echo "$f"; return 1; }
		fi
	done
}

@test "pcat --data: perf report --header-only shows the same features" {
	need_perf
	local f d="$BATS_TEST_TMPDIR"
	for f in $(good_inputs); do
		"$BIN/pcat" --data -o "$d/x.data" "$f"
		header_features "$f" >"$d/want"
		header_features "$d/x.data" >"$d/got"
		grep -q '^# hostname' "$d/got" || { echo "$f: no features"; return 1; }
		diff "$d/want" "$d/got" || { echo "$f"; return 1; }
	done
	# the sample times a stream leaves at 0 are in the file
	"$BIN/pcat" --data -o "$d/x.data" "$DATA/rawsys-dd.pipe"
	perf report --header-only -i "$d/x.data" 2>/dev/null | grep -q '^# time of first sample : 18842.620566$'
}

@test "pcat --data: perf data convert --to-json reads the file" {
	need_perf
	local d="$BATS_TEST_TMPDIR" f
	for f in "$DATA/sched-switch-wakeup-a.pipe" "$DATA/cpuclock-g-sh.data" "$DATA/compressed-z.pipe"; do
		"$BIN/pcat" --data -o "$d/x.data" "$f"
		rm -f "$d/x.json"
		run -0 perf data convert --to-json "$d/x.json" -i "$d/x.data"
		n=$("$BIN/pcount" -j "$f" | jq .total)
		[[ "$output" == *"($n samples)"* ]]
		jq -e '.samples | length' "$d/x.json" >/dev/null
	done
}

@test "pcat --data: the file reads back as the stream it was made from" {
	local d="$BATS_TEST_TMPDIR"
	"$BIN/pcat" --data -o "$d/x.data" "$DATA/sched-switch-wakeup-a.pipe"
	"$BIN/ptojson" "$d/x.data" >"$d/got"
	"$BIN/ptojson" "$DATA/sched-switch-wakeup-a.pipe" | cmp - "$d/got"
	# a merge can be written as a file too
	"$BIN/psplit" -n 300 -d "$d/p" "$DATA/sched-switch-wakeup-a.pipe" >"$d/list"
	# shellcheck disable=SC2046
	"$BIN/pcat" --merge --data -o "$d/m.data" $(cat "$d/list")
	"$BIN/ptojson" "$d/m.data" | cmp - "$d/got"
}

@test "pcat --data: standard output and pipes are refused with a reason" {
	run -2 --separate-stderr "$BIN/pcat" --data "$DATA/rawsys-dd.pipe"
	[[ "$stderr" == "pcat: --data writes a perf.data file, whose header is rewritten at the end: it needs -o FILE, not a pipe"* ]]
	run -2 "$BIN/pcat" --data -o - "$DATA/rawsys-dd.pipe"
	run -1 --separate-stderr bash -o pipefail -c "'$BIN/pcat' --data -o /dev/stdout '$DATA/rawsys-dd.pipe' | cat"
	[[ "$stderr" == *"not a regular file"* ]]
}

@test "the version 1 magic PERFFILE is read where perf 6.1 reads it" {
	need_perf
	local d="$BATS_TEST_TMPDIR" p
	{ printf PERFFILE; tail -c +9 "$DATA/rawsys-dd.pipe"; } >"$d/v1.pipe"
	perf script -i "$d/v1.pipe" >"$d/want" 2>/dev/null
	[ -s "$d/want" ]
	"$BIN/pcat" "$d/v1.pipe" | perf script -i - 2>/dev/null | cmp - "$d/want"
	for p in "pcount -j" "ptojson" "pfilter comm=dd -i" "pheader --dump"; do
		# shellcheck disable=SC2086
		$BIN/$p "$d/v1.pipe" >/dev/null
	done
	# the other byte order, told by the header size as perf tells it
	"$TOOLS/pswap" "$DATA/rawsys-dd.pipe" | { printf PERFFILE; tail -c +9; } >"$d/v1be.pipe"
	"$BIN/ptojson" "$d/v1be.pipe" | cmp - <("$BIN/ptojson" "$DATA/rawsys-dd.pipe")
	# a file whose attr size is none of version 1's: perf refuses it, and so do we
	"$BIN/pcat" --data -o "$d/v2.data" "$DATA/rawsys-dd.pipe"
	{ printf PERFFILE; tail -c +9 "$d/v2.data"; } >"$d/v1.data"
	run perf script -i "$d/v1.data"
	[ "$status" -ne 0 ]
	run -1 --separate-stderr "$BIN/pcat" "$d/v1.data"
	[[ "$stderr" == *"version 1 perf.data file (PERFFILE) whose attr size 144"* ]]
}

@test "a perf.data header of an older perf (72 bytes, no features) is read as perf 6.1 reads it" {
	need_perf
	local d="$BATS_TEST_TMPDIR"
	# the same file with the header perf wrote before the feature bitmap existed
	python3 - "$DATA/cpuclock-g-sh.data" "$d/old.data" <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], 'rb').read())
struct.pack_into('<Q', b, 8, 72)
b[72:104] = bytes(32)
open(sys.argv[2], 'wb').write(b)
PY
	perf script -i "$d/old.data" >"$d/want" 2>/dev/null
	[ -s "$d/want" ]
	"$BIN/pcat" "$d/old.data" | perf script -i - 2>/dev/null | cmp - "$d/want"
	# no features, as perf sees none
	perf report --header-only -i "$d/old.data" 2>/dev/null | grep -q '^# missing features: TRACING_DATA BUILD_ID HOSTNAME'
	run -0 "$BIN/pheader" "$d/old.data"
	[[ "$output" == *"features (0):"* ]]
	# a size perf refuses is refused
	python3 -c 'import struct,sys; b=bytearray(open(sys.argv[1],"rb").read()); struct.pack_into("<Q", b, 8, 80); open(sys.argv[2],"wb").write(b)' \
		"$DATA/cpuclock-g-sh.data" "$d/bad.data"
	run perf script -i "$d/bad.data"
	[ "$status" -ne 0 ]
	run -1 --separate-stderr "$BIN/pcat" "$d/bad.data"
	[[ "$stderr" == *"header size 80 is neither a pipe stream's (16) nor a perf.data file's (104, or 72)" ]]
}
