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
	mkfifo "$BATS_TEST_TMPDIR/fifo"
	"$BIN/pcat" <"$BATS_TEST_TMPDIR/fifo" >"$BATS_TEST_TMPDIR/out" &
	local pid=$!
	exec 5>"$BATS_TEST_TMPDIR/fifo"
	head -c 16 "$DATA/rawsys-dd.pipe" >&5
	sleep 0.3
	kill -INT "$pid"
	local st=0
	wait "$pid" || st=$?
	exec 5>&-
	[ "$st" -eq 0 ]
	cmp_or_show "$BATS_TEST_TMPDIR/out" <(head -c 16 "$DATA/rawsys-dd.pipe")
}
