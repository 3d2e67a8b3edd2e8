#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# The stream contract (pstream(7)) for the programs that forward a stream.

bats_require_minimum_version 1.5.0

setup() {
	load helpers
}

# a 16-byte record of type $1 (decimal, < 256) with misc 0 and 8 bytes of payload
record16() {
	printf "\\x$(printf %02x "$1")\\x00\\x00\\x00\\x00\\x00\\x10\\x00ABCDEFGH"
}

@test "contract: unknown record types are forwarded byte for byte" {
	local f="$DATA/rawsys-dd.pipe" t="$BATS_TEST_TMPDIR"
	{ head -c 16 "$f"; record16 100; record16 30; tail -c +17 "$f"; record16 200; } >"$t/in"
	run -0 bash -c "'$BIN/pcat' < '$t/in' > '$t/out'"
	cmp_or_show "$t/in" "$t/out"
}

@test "contract: a record type above 65535 is corruption, reported at its offset" {
	local f="$DATA/rawsys-dd.pipe" t="$BATS_TEST_TMPDIR"
	{ head -c 16 "$f"; printf '\x00\x00\x01\x00\x00\x00\x10\x00ABCDEFGH'; } >"$t/in"
	run -1 --separate-stderr bash -c "'$BIN/pcat' < '$t/in' > '$t/out'"
	[ "$stderr" = "pcat: <stdin>: offset 0x10: record type 65536 (0x10000) is not a record type: the stream is corrupt here" ]
	cmp_or_show "$t/out" <(head -c 16 "$f")
}

@test "contract: a write error (full disk) is status 1 with a message" {
	[ -w /dev/full ] || skip "/dev/full not available"
	run -1 --separate-stderr bash -c "'$BIN/pcat' < '$DATA/rawsys-dd.pipe' > /dev/full"
	[[ "$stderr" == "pcat: <stdout>: write error: No space left on device" ]]
}

@test "contract: SIGINT while waiting for input ends with status 0" {
	head -c 16 "$DATA/rawsys-dd.pipe" >"$BATS_TEST_TMPDIR/head"
	signal_while_reading INT 0.3 "$BATS_TEST_TMPDIR/head" "$BIN/pcat"
	[ "$signal_status" -eq 0 ]
	cmp_or_show "$BATS_TEST_TMPDIR/out" <(head -c 16 "$DATA/rawsys-dd.pipe")
}

@test "contract: a stream on a pipe (read ahead by a thread) gives what the same stream in a file gives, to every program" {
	local t="$BATS_TEST_TMPDIR" f prog
	# thirty copies wrap the 1 MiB read-ahead ring a few times
	"$BIN/pcat" $(for i in $(seq 30); do echo "$DATA/rawsys-dd.pipe"; done) >"$t/long.pipe"
	for f in $(good_pipes) "$t/long.pipe"; do
		for prog in "pcat" "pfilter comm=dd" "pfilter -v pid=1" "pcount --by comm,cpu" \
			"ptojson" "ptojson --all" "pheader --dump"; do
			$BIN/$prog <"$f" >"$t/file.out" 2>"$t/file.err" || true
			cat "$f" | $BIN/$prog >"$t/pipe.out" 2>"$t/pipe.err" || true
			cmp_or_show "$t/file.out" "$t/pipe.out"
			cmp_or_show "$t/file.err" "$t/pipe.err"
		done
	done
	[ "$(stat -c %s "$t/long.pipe")" -gt 2097152 ]
}

@test "contract: a damaged stream on a pipe gives every record before the damage, then the error at its offset" {
	local t="$BATS_TEST_TMPDIR" f
	for f in $(bad_fixtures); do
		run -1 --separate-stderr bash -c "'$BIN/pcat' < '$f' > '$t/file.out'"
		local want="$stderr"
		run -1 --separate-stderr bash -c "cat '$f' | '$BIN/pcat' > '$t/pipe.out'"
		[ "$stderr" = "$want" ]
		cmp_or_show "$t/file.out" "$t/pipe.out"
	done
}
