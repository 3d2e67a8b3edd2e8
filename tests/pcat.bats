#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# pcat: pass-through, perf.data conversion, concatenation, and the stream contract.

bats_require_minimum_version 1.5.0

setup() {
	load helpers
}

@test "pcat: --help prints the usage on stdout and exits 0" {
	run -0 --separate-stderr "$BIN/pcat" --help
	[[ "$output" == "usage: pcat [-fmq] [--data] [-o file] [file ...]"* ]]
	[ -z "$stderr" ]
}

@test "pcat: --version names the program and pstream" {
	run -0 "$BIN/pcat" --version
	[[ "$output" == "pcat (pstream) "* ]]
}

@test "pcat: an unknown option is a usage error" {
	run -2 --separate-stderr "$BIN/pcat" --no-such-option
	[[ "$stderr" == *"usage: pcat"* ]]
}

@test "pcat: every pipe fixture passes through byte for byte, on stdin and as an operand" {
	local f
	for f in $(good_pipes); do
		"$BIN/pcat" <"$f" >"$BATS_TEST_TMPDIR/out"
		cmp_or_show "$f" "$BATS_TEST_TMPDIR/out"
		"$BIN/pcat" "$f" >"$BATS_TEST_TMPDIR/out2"
		cmp_or_show "$f" "$BATS_TEST_TMPDIR/out2"
	done
}

@test "pcat: -o writes the stream to a file" {
	run -0 "$BIN/pcat" -o "$BATS_TEST_TMPDIR/out" "$DATA/rawsys-dd.pipe"
	cmp_or_show "$DATA/rawsys-dd.pipe" "$BATS_TEST_TMPDIR/out"
}

@test "pcat: refuses to write a binary stream to a terminal unless -f" {
	command -v script >/dev/null || skip "script(1) not installed"
	run script -qec "$BIN/pcat < $DATA/rawsys-dd.pipe" /dev/null
	[[ "$output" == *"refusing to write a binary stream to a terminal"* ]]
	run script -qec "$BIN/pcat -f < $DATA/rawsys-dd.pipe > /dev/null; echo rc=\$?" /dev/null
	[[ "$output" == *"rc=0"* ]]
}

@test "pcat: a perf.data file becomes a stream that starts with the pipe header" {
	"$BIN/pcat" "$DATA/cpuclock-g-sh.data" >"$BATS_TEST_TMPDIR/out"
	[ "$(head -c 8 "$BATS_TEST_TMPDIR/out")" = "PERFILE2" ]
	[ "$(od -An -tu8 -j8 -N8 "$BATS_TEST_TMPDIR/out" | tr -d ' ')" = 16 ]
}

@test "pcat: a perf.data file on a pipe is refused with a clear message" {
	run -1 --separate-stderr bash -c "cat '$DATA/cpuclock-g-sh.data' | '$BIN/pcat' > /dev/null"
	[[ "$stderr" == "pcat: <stdin>: offset 0x0: a perf.data file must be a regular file"* ]]
}

@test "pcat: two copies of one stream concatenate; perf script shows every sample twice" {
	need_perf
	local f="$DATA/rawsys-dd.pipe"
	run -0 bash -c "'$BIN/pcat' '$f' '$f' > '$BATS_TEST_TMPDIR/twice'"
	perf script -i - <"$f" >"$BATS_TEST_TMPDIR/once.txt" 2>/dev/null
	perf script -i - <"$BATS_TEST_TMPDIR/twice" >"$BATS_TEST_TMPDIR/twice.txt" 2>"$BATS_TEST_TMPDIR/err"
	[ ! -s "$BATS_TEST_TMPDIR/err" ] || { cat "$BATS_TEST_TMPDIR/err"; false; }
	[ "$(wc -l <"$BATS_TEST_TMPDIR/twice.txt")" -eq $((2 * $(wc -l <"$BATS_TEST_TMPDIR/once.txt"))) ]
	# the second copy's header records are not repeated: one ATTR pair only
	[ "$(perf script -D -i - <"$BATS_TEST_TMPDIR/twice" 2>/dev/null | grep -c 'PERF_RECORD_ATTR')" -eq 2 ]
}

@test "pcat: a compressed stream joined with itself is written decompressed and reads fully" {
	need_perf
	local f="$DATA/compressed-z.pipe"
	"$BIN/pcat" "$f" "$f" >"$BATS_TEST_TMPDIR/twice"
	perf script -i - <"$f" >"$BATS_TEST_TMPDIR/once.txt" 2>/dev/null
	perf script -i - <"$BATS_TEST_TMPDIR/twice" >"$BATS_TEST_TMPDIR/twice.txt" 2>/dev/null
	[ "$(wc -l <"$BATS_TEST_TMPDIR/twice.txt")" -eq $((2 * $(wc -l <"$BATS_TEST_TMPDIR/once.txt"))) ]
}

@test "pcat: inputs of different recordings are refused" {
	run -1 --separate-stderr "$BIN/pcat" -o "$BATS_TEST_TMPDIR/out" "$DATA/rawsys-dd.pipe" "$DATA/compressed-z.pipe"
	[[ "$stderr" == "pcat: $DATA/compressed-z.pipe: its events are not those of $DATA/rawsys-dd.pipe"* ]]
	# the first input was delivered in full before the refusal
	cmp -n "$(stat -c %s "$DATA/rawsys-dd.pipe")" "$DATA/rawsys-dd.pipe" "$BATS_TEST_TMPDIR/out"
}

@test "pcat: a missing file is an error naming it" {
	run -1 --separate-stderr "$BIN/pcat" "$BATS_TEST_TMPDIR/nonexistent"
	[[ "$stderr" == "pcat: $BATS_TEST_TMPDIR/nonexistent: cannot open: No such file or directory" ]]
}

@test "pcat: downstream closing early is not an error" {
	# the input must be larger than the 64 KiB pipe buffer, or no EPIPE happens
	[ "$(stat -c %s "$DATA/sched-switch-wakeup-a.pipe")" -gt 65536 ]
	run -0 --separate-stderr run_pipe "'$BIN/pcat' < '$DATA/sched-switch-wakeup-a.pipe'" "head -c 100 >/dev/null"
	[ -z "$stderr" ]
}

@test "pcat: a record reaches the reader while the producer stays open" {
	local f="$DATA/rawsys-dd.pipe"
	{ cat "$f"; sleep 5; } | "$BIN/pcat" >"$BATS_TEST_TMPDIR/out" &
	local pid=$!
	local i
	for i in $(seq 1 20); do
		[ "$(stat -c %s "$BATS_TEST_TMPDIR/out")" -eq "$(stat -c %s "$f")" ] && break
		sleep 0.1
	done
	kill "$pid" 2>/dev/null || true
	cmp_or_show "$f" "$BATS_TEST_TMPDIR/out"
}

@test "pcat: SIGTERM ends it with status 0 after writing every complete record" {
	local f="$DATA/rawsys-dd.pipe"
	mkfifo "$BATS_TEST_TMPDIR/fifo"
	"$BIN/pcat" <"$BATS_TEST_TMPDIR/fifo" >"$BATS_TEST_TMPDIR/out" &
	local pid=$!
	exec 5>"$BATS_TEST_TMPDIR/fifo"
	cat "$f" >&5
	sleep 0.5
	kill -TERM "$pid"
	local st=0
	wait "$pid" || st=$?
	exec 5>&-
	[ "$st" -eq 0 ]
	cmp_or_show "$f" "$BATS_TEST_TMPDIR/out"
}

@test "pcat: a perf.data file cut inside its features gives every record, then exit 1" {
	need_perf
	local f="$DATA/cpuclock-g-sh.data" t="$BATS_TEST_TMPDIR"
	# keep the data section whole, cut the feature sections that follow it
	local end=$(($(od -An -tu8 -j40 -N8 "$f") + $(od -An -tu8 -j48 -N8 "$f")))
	head -c $((end + 200)) "$f" >"$t/cut.data"
	run -1 --separate-stderr bash -c "'$BIN/pcat' '$t/cut.data' > '$t/out'"
	[[ "$stderr" == "pcat: $t/cut.data: offset 0x"*"runs past the end of the file" ]]
	perf script -i "$f" >"$t/a.txt" 2>/dev/null
	perf script -i - <"$t/out" >"$t/b.txt" 2>/dev/null
	cmp_or_show "$t/a.txt" "$t/b.txt"
}
