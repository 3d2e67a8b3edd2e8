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

@test "progress: pcat and pfilter on a large file show it on the terminal" {
	local prog
	for prog in "pcat '$BIG'" "pcat '$BIG' '$BIG'" "pfilter -i '$BIG' comm=dd"; do
		# a reader that waits a second: a line is due on any machine
		run -0 script -qec "$BIN/$prog | (sleep 1; cat >/dev/null)" /dev/null
		[[ "$output" =~ p[a-z]+:\ [0-9.]+\ MiB\ of\ 37\.2\ MiB\ \([0-9]+%\),\ [0-9.]+k?M?\ samples/s ]] ||
			{ echo "$prog: no progress line: $output"; return 1; }
		[[ "$output" == *$'\r\033[K' ]]
	done
}

@test "progress: pcount replaying a large recording shows it on the terminal, -q does not" {
	need_perf
	[ -r /sys/kernel/tracing/events/raw_syscalls/sys_enter/id ] || skip "no raw_syscalls tracepoints to record"
	local f="$BATS_TEST_TMPDIR/rec.data"
	# pcount reads 40 MiB faster than a line is due: a recording that lasts over a
	# second, replayed at its own speed (--pace), takes that long
	perf record -q -m 1024 -e raw_syscalls:sys_enter -o "$f" -- sh -c \
		'dd if=/dev/zero of=/dev/null bs=1 count=200000 2>/dev/null; sleep 1; dd if=/dev/zero of=/dev/null bs=1 count=3000 2>/dev/null'
	[ "$(stat -c %s "$f")" -gt $((33 << 20)) ]
	run -0 script -qec "'$BIN/pcount' -i 1 --pace '$f' >/dev/null" /dev/null
	[[ "$output" =~ pcount:\ [0-9.]+\ MiB\ of\ [0-9.]+\ MiB\ \([0-9]+%\),\ [0-9.]+k?M?\ samples/s ]]
	run -0 script -qec "'$BIN/pcount' -q -i 1 --pace '$f' >/dev/null" /dev/null
	[ -z "$output" ]
}

@test "progress: pcat, pfilter and pcount show none with -q, on a pipe, or with stdout on the terminal" {
	local prog
	for prog in "pcat -q '$BIG'" "pfilter -q -i '$BIG' comm=dd" "pcount -q '$BIG'" "pcat -m '$BIG'"; do
		run script -qec "timeout -s INT 3 $BIN/$prog | (sleep 1; cat >/dev/null)" /dev/null
		[[ "$output" != *"MiB of"* ]] || { echo "$prog: $output"; return 1; }
	done
	for prog in pcat "pfilter comm=dd" pcount; do
		run script -qec "cat '$BIG' | timeout -s INT 3 $BIN/$prog | (sleep 1; cat >/dev/null)" /dev/null
		[[ "$output" != *"MiB of"* ]] || { echo "$prog on a pipe: $output"; return 1; }
	done
	# pcount -i to the terminal: the tables are there, not a progress line
	run script -qec "timeout -s INT 3 '$BIN/pcount' -i 1 '$BIG'" /dev/null
	[[ "$output" != *"MiB of"* ]]
	[[ "$output" == *"COUNT"* ]]
	run --separate-stderr timeout -s INT 3 "$BIN/pcount" "$BIG"
	[ -z "$stderr" ]
}
