#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# The progress line: on a terminal, for a large regular file only; -q turns it off.

bats_require_minimum_version 1.5.0

setup() {
	load helpers
	command -v script >/dev/null || skip "script (bsdutils) not installed"
	BIG="$BATS_TEST_TMPDIR/big.pipe"
	# about 40 MiB: the bundled recording joined to itself, generated here, never committed
	local i
	for i in $(seq 1 400); do echo "$DATA/rawsys-dd.pipe"; done | xargs "$BIN/pcat" >"$BIG"
}

@test "progress: ptojson on a large file shows bytes, samples/s and time left on the terminal" {
	# a reader that waits a second: the run lasts long enough for a line on any machine
	run -0 script -qec "'$BIN/ptojson' '$BIG' | (sleep 1; cat >/dev/null)" /dev/null
	[[ "$output" =~ ptojson:\ [0-9.]+\ MiB\ of\ 37\.2\ MiB\ \([0-9]+%\),\ [0-9.]+k?M?\ samples/s,\ [0-9]+:[0-5][0-9]\ left ]]
	# and the line is erased at the end
	[[ "$output" == *$'\r\033[K' ]]
}

@test "progress: none with -q, on a pipe, for a small file, or when stderr is not a terminal" {
	run script -qec "timeout -s INT 2 '$BIN/ptojson' -q -o /dev/null '$BIG'" /dev/null
	[[ "$output" != *"MiB of"* ]]
	run script -qec "cat '$BIG' | timeout -s INT 2 '$BIN/ptojson' -o /dev/null" /dev/null
	[[ "$output" != *"MiB of"* ]]
	run -0 script -qec "'$BIN/ptojson' -o /dev/null '$DATA/rawsys-dd.pipe'" /dev/null
	[ -z "$output" ]
	run --separate-stderr timeout -s INT 2 "$BIN/ptojson" -o /dev/null "$BIG"
	[ -z "$stderr" ]
}

@test "progress: pheader --all on a large file shows it; the header alone and -q do not" {
	run -0 script -qec "'$BIN/pheader' --stats '$BIG' >/dev/null" /dev/null
	# (a fast machine may read 40 MiB before the first line is due: the format is
	# checked when there is one)
	if [[ "$output" == *"MiB of"* ]]; then
		[[ "$output" =~ pheader:\ [0-9.]+\ MiB\ of\ 37\.2\ MiB ]]
	fi
	run -0 script -qec "'$BIN/pheader' -q --stats '$BIG' >/dev/null" /dev/null
	[[ "$output" != *"MiB of"* ]]
	run -0 script -qec "'$BIN/pheader' '$BIG' >/dev/null" /dev/null
	[ -z "$output" ]
}
