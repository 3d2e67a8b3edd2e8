#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# pcat: pass-through, perf.data conversion, concatenation, and the stream contract.

bats_require_minimum_version 1.5.0

setup() {
	load helpers
}

@test "pcat: --help prints the usage on stdout and exits 0" {
	help_starts pcat "usage: pcat [-fmq] [--data] [--distinct] [-o file] [file ...]"
}

@test "pcat: --version names the program and pstream" {
	version_names pcat
}

@test "pcat: an unknown option is a usage error" {
	usage_refused pcat --no-such-option
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
	terminal_refused "$BIN/pcat < $DATA/rawsys-dd.pipe" "$BIN/pcat -f < $DATA/rawsys-dd.pipe"
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
	# and what to do instead
	[[ "$stderr" == *"(to merge different recordings: pcat --merge)" ]]
	# the first input was delivered in full before the refusal
	cmp -n "$(stat -c %s "$DATA/rawsys-dd.pipe")" "$DATA/rawsys-dd.pipe" "$BATS_TEST_TMPDIR/out"
}

@test "pcat: standard input named twice is a usage error, before anything is read" {
	run -2 --separate-stderr bash -c "cat '$DATA/rawsys-dd.pipe' | '$BIN/pcat' - '$DATA/rawsys-dd.pipe' - > '$BATS_TEST_TMPDIR/out'"
	[ "${stderr_lines[0]}" = "pcat: standard input (-) is named 2 times: it can be read only once" ]
	[ ! -s "$BATS_TEST_TMPDIR/out" ]
	run -2 --separate-stderr bash -c "'$BIN/pcat' --merge - - < '$DATA/rawsys-dd.pipe' > /dev/null"
	# once is fine, among files
	run -0 bash -c "cat '$DATA/rawsys-dd.pipe' | '$BIN/pcat' '$DATA/rawsys-dd.pipe' - | '$BIN/pcount' -j | jq -e '.total == 1792'"
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
	signal_while_reading TERM 0.5 "$f" "$BIN/pcat"
	[ "$signal_status" -eq 0 ]
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

# join_mixed START PIECE...: $t/one.pipe, the pieces joined as they are, and $t/mix.pipe, the
# same join with every other piece written big-endian by pswap, from the piece numbered
# START (0: the first piece is big-endian, 1: the second)
join_mixed() {
	local t="$BATS_TEST_TMPDIR" start=$1 i=0 p
	local -a mixed=()
	shift
	rm -rf "$t/be" && mkdir "$t/be"
	for p in "$@"; do
		if ((i % 2 == start)); then
			"$TOOLS/pswap" "$p" >"$t/be/$i"
			mixed+=("$t/be/$i")
		else
			mixed+=("$p")
		fi
		i=$((i + 1))
	done
	"$BIN/pcat" "$@" >"$t/one.pipe"
	"$BIN/pcat" "${mixed[@]}" >"$t/mix.pipe"
}

@test "pcat: pieces of both byte orders are joined in the host's order; perf script prints what it prints for the pieces in one order" {
	need_perf
	local f t="$BATS_TEST_TMPDIR" start
	# tracepoints (RAW fields by their formats, the tracing data) and call chains (a
	# perf.data file among them)
	for f in "$DATA/rawsys-dd.pipe" "$DATA/sched-switch-wakeup-a.pipe" \
		"$DATA/cpuclock-g-sh.data" "$(fixture cpuclock-g-sh.pipe)" \
		"$(fixture tp-sched-process.data)"; do
		rm -rf "$t/p"
		# four pieces or more
		"$BIN/psplit" -n $(($("$BIN/pcount" -j "$f" | jq .total) / 4)) -d "$t/p" "$f" >"$t/list"
		[ "$(wc -l <"$t/list")" -ge 4 ]
		for start in 0 1; do
			# shellcheck disable=SC2046
			join_mixed "$start" $(cat "$t/list")
			[ "$(head -c 8 "$t/mix.pipe")" = PERFILE2 ]
			# perf says the same of both (a recording from another kernel: "No kallsyms
			# or vmlinux with build-id ..."), and nothing more of the turned join
			perf script -i - <"$t/one.pipe" >"$t/want" 2>"$t/want.err"
			perf script -i - <"$t/mix.pipe" >"$t/got" 2>"$t/err" || { cat "$t/err"; return 1; }
			[ -s "$t/got" ]
			cmp_or_show "$t/want.err" "$t/err" || { echo "$f $start"; return 1; }
			cmp_or_show "$t/want" "$t/got" || { echo "$f $start"; return 1; }
			# nothing lost in the turning: the same bytes as the join in one order
			cmp "$t/one.pipe" "$t/mix.pipe"
		done
		# a whole recording after itself in the other order, either way round
		for start in 0 1; do
			join_mixed "$start" "$f" "$f"
			perf script -i - <"$t/one.pipe" >"$t/want" 2>/dev/null
			perf script -i - <"$t/mix.pipe" >"$t/got" 2>/dev/null
			[ -s "$t/got" ]
			cmp_or_show "$t/want" "$t/got" || { echo "$f twice $start"; return 1; }
		done
	done
	# call chains as perf script shows them: more frames than the 2 x 86 samples
	join_mixed 1 "$DATA/cpuclock-g-sh.data" "$DATA/cpuclock-g-sh.data"
	perf script -i - <"$t/mix.pipe" >"$t/got" 2>/dev/null
	[ "$(grep -c $'^\t *[0-9a-f]\\+ ' "$t/got")" -gt 172 ]
}

@test "pcat: pieces all of the other byte order are joined in it, as pswap writes the join" {
	local f="$DATA/rawsys-dd.pipe" t="$BATS_TEST_TMPDIR"
	"$TOOLS/pswap" "$f" >"$t/be.pipe"
	"$BIN/pcat" "$t/be.pipe" "$t/be.pipe" >"$t/out"
	[ "$(head -c 8 "$t/out")" = 2ELIFREP ]
	"$BIN/pcat" "$f" "$f" | "$TOOLS/pswap" | cmp - "$t/out"
}

@test "pcat: a first piece of the other byte order is turned when a later pipe or fifo is in the host's" {
	local f="$DATA/rawsys-dd.pipe" t="$BATS_TEST_TMPDIR"
	"$TOOLS/pswap" "$f" >"$t/be.pipe"
	"$BIN/pcat" "$f" "$f" "$f" >"$t/want"
	# a fifo, then standard input: each read once, in its turn
	cat "$f" | "$BIN/pcat" "$t/be.pipe" <(cat "$t/be.pipe") - >"$t/got"
	cmp "$t/want" "$t/got"
	# an input that cannot be read is said in its turn, after the pieces before it
	run -1 --separate-stderr bash -c "'$BIN/pcat' '$t/be.pipe' <(echo no) '$f' > '$t/out'"
	[[ "$stderr" == "pcat: /dev/fd/"*": offset 0x0: not a perf stream"* ]]
	"$BIN/pcat" "$f" | cmp - "$t/out"
	run -1 --separate-stderr bash -c "'$BIN/pcat' '$t/be.pipe' '$t/nonexistent' '$f' > '$t/out'"
	[ "$stderr" = "pcat: $t/nonexistent: cannot open: No such file or directory" ]
	"$BIN/pcat" "$f" | cmp - "$t/out"
}

@test "pcat: a piece of the other byte order with a record that cannot be turned is refused at its offset" {
	local f="$DATA/rawsys-dd.pipe" t="$BATS_TEST_TMPDIR" off
	# a big-endian piece that ends in a record of a type nobody knows (90)
	{
		"$TOOLS/pswap" "$f"
		printf '\x00\x00\x00\x5a\x00\x00\x00\x10\x01\x02\x03\x04\x05\x06\x07\x08'
	} >"$t/be.pipe"
	off=$(($(stat -c %s "$t/be.pipe") - 16))
	run -1 --separate-stderr bash -c "'$BIN/pcat' '$f' '$t/be.pipe' > '$t/out'"
	[ "$stderr" = "pcat: $t/be.pipe: offset $(printf '0x%x' "$off"): a record of type 90 cannot be turned to the other byte order: its layout is not known" ]
	# every record before it was written, turned
	"$BIN/pcat" "$f" "$f" | cmp - "$t/out"
	# the same when it is the first piece that must be turned
	run -1 --separate-stderr bash -c "'$BIN/pcat' '$t/be.pipe' '$f' > '$t/out'"
	[ "$stderr" = "pcat: $t/be.pipe: offset $(printf '0x%x' "$off"): a record of type 90 cannot be turned to the other byte order: its layout is not known" ]
	"$BIN/pcat" "$f" | cmp - "$t/out"
	# pieces in one order forward it unchanged, as every unknown type
	"$BIN/pcat" "$t/be.pipe" "$t/be.pipe" >"$t/out"
	"$TOOLS/pmangle" --list "$t/out" | awk '$2 == 90 && $3 == 16 { n++ } END { exit n != 2 }'
}

@test "pcat: different recordings are refused in either byte order" {
	local t="$BATS_TEST_TMPDIR"
	"$TOOLS/pswap" "$DATA/sched-switch-wakeup-a.pipe" >"$t/be.pipe"
	run -1 --separate-stderr "$BIN/pcat" -o "$t/out" "$DATA/rawsys-dd.pipe" "$t/be.pipe"
	[[ "$stderr" == "pcat: $t/be.pipe: its events are not those of $DATA/rawsys-dd.pipe"* ]]
	run -1 --separate-stderr "$BIN/pcat" -o "$t/out" "$t/be.pipe" "$DATA/rawsys-dd.pipe"
	[[ "$stderr" == "pcat: $DATA/rawsys-dd.pipe: its events are not those of $t/be.pipe"* ]]
}

@test "pcat: --data joins pieces of both byte orders as it joins them in one" {
	need_perf
	local f t="$BATS_TEST_TMPDIR"
	for f in "$DATA/cpuclock-g-sh.data" "$DATA/rawsys-dd.pipe"; do
		"$TOOLS/pswap" "$f" >"$t/be.pipe"
		"$BIN/pcat" --data -o "$t/one.data" "$f" "$f"
		"$BIN/pcat" --data -o "$t/mix.data" "$t/be.pipe" "$f"
		# the sample times of the turned piece too
		cmp "$t/one.data" "$t/mix.data"
		perf script -i "$t/one.data" >"$t/want" 2>/dev/null
		perf script -i "$t/mix.data" >"$t/got" 2>/dev/null
		[ -s "$t/got" ]
		cmp_or_show "$t/want" "$t/got"
	done
}
