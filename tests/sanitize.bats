#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# The programs built under ASan/UBSan (make check builds them) over every fixture and
# over damaged copies: no memory error, no leak, no undefined behaviour, ever.

bats_require_minimum_version 1.5.0

setup() {
	load helpers
	SAN="$TOP/build/san/bin"
	[ -x "$SAN/pcat" ] || skip "sanitized programs not built (make check builds them)"
	export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=halt_on_error=1
	# libtraceevent's one known leak (tep_parse_event), and only it, is forgiven
	export LSAN_OPTIONS="suppressions=$TOP/tests/fuzz/lsan.supp:print_suppressions=0"
}

inputs() {
	good_pipes
	good_files
	[ -d "$FIXTURES" ] && ls "$FIXTURES"/BAD-*
}

@test "sanitize: every program on every fixture" {
	local f
	for f in $(inputs); do
		clean_run "$SAN/pcat" "$f"
		clean_run "$SAN/pheader" --all --json "$f"
		clean_run "$SAN/ptojson" --all "$f"
		clean_run "$SAN/pcount" -j -i 0.01 --by comm,syscall,errno --sum ret -w 'pid > 1' "$f"
		clean_run "$SAN/pfilter" -i "$f" 'comm = dd or pid > 10'
	done
}

@test "sanitize: every program on every pipe fixture read from a pipe (the read-ahead thread)" {
	local f t="$BATS_TEST_TMPDIR"
	# a join of thirty copies wraps the 1 MiB ring a few times
	"$BIN/pcat" $(for i in $(seq 30); do echo "$DATA/rawsys-dd.pipe"; done) >"$t/long.pipe"
	for f in $(good_pipes) "$t/long.pipe" $([ -d "$FIXTURES" ] && ls "$FIXTURES"/BAD-*.pipe); do
		clean_run bash -c "cat '$f' | '$SAN/pcat' -"
		clean_run bash -c "cat '$f' | '$SAN/ptojson' --all"
		clean_run bash -c "cat '$f' | '$SAN/pcount' --by comm,cpu"
		clean_run bash -c "cat '$f' | '$SAN/pfilter' 'comm = dd or pid > 10'"
		clean_run bash -c "cat '$f' | '$SAN/pheader' --all"
		# the reader leaves before the input ends: the thread is stopped in read(2)
		clean_run bash -c "cat '$f' | '$SAN/pheader'"
	done
}

@test "sanitize: symbols on every fixture: objects found, missing (empty tables) and refused" {
	local f t="$BATS_TEST_TMPDIR"
	need_tool phostile
	mkdir "$t/empty"
	mkfifo "$t/fifo"
	# objects that do not exist, and one that is a FIFO
	"$TOOLS/phostile" mmap2 4194999 /nonexistent/lib.so >"$t/missing.pipe"
	"$TOOLS/phostile" mmap2 4194999 "$t/fifo" >"$t/fifo.pipe"
	for f in $(inputs) "$t/missing.pipe" "$t/fifo.pipe"; do
		clean_run "$SAN/ptojson" "$f"
		clean_run "$SAN/pcount" --by sym,dso "$f"
		clean_run "$SAN/pcount" --folded "$f"
		# under an empty root every object is missing
		clean_run "$SAN/ptojson" --symfs "$t/empty" "$f"
		clean_run "$SAN/pflame" --symfs "$t/empty" -o "$t/out.svg" "$f"
	done
}

@test "sanitize: damaged copies of a fixture, cut at every 997th byte" {
	local f="$DATA/rawsys-dd.pipe" size n
	size=$(stat -c %s "$f")
	for ((n = 17; n < size; n += 997)); do
		head -c "$n" "$f" >"$BATS_TEST_TMPDIR/cut"
		clean_run "$SAN/ptojson" --all "$BATS_TEST_TMPDIR/cut"
		clean_run "$SAN/pheader" --all "$BATS_TEST_TMPDIR/cut"
		clean_run "$SAN/pcount" "$BATS_TEST_TMPDIR/cut"
	done
}

@test "sanitize: the leak suppressions forgive libtraceevent's tep_parse_event, libdw's dwarf_getscopes and nothing else" {
	local supp="$TOP/tests/fuzz/lsan.supp"
	[ "$(grep -v '^#' "$supp" | grep -c .)" -eq 2 ]
	grep -qx 'leak:tep_parse_event' "$supp"
	grep -qx 'leak:dwarf_getscopes' "$supp"
}

# ---- perf.data output, empty inputs (issue 21, item 20) ----

@test "sanitize: pcat --data and psplit --data of every fixture, and of a stream with no records" {
	local f t="$BATS_TEST_TMPDIR"
	# a pipe header and nothing else: no attrs, no features, every section empty
	head -c 16 "$DATA/rawsys-dd.pipe" >"$t/empty.pipe"
	for f in "$t/empty.pipe" $(good_inputs); do
		clean_run "$SAN/pcat" --data -o "$t/x.data" "$f"
		rm -rf "$t/d" && mkdir "$t/d"
		clean_run "$SAN/psplit" -n 50 --data -d "$t/d" "$f"
	done
	# and what was written reads back
	"$BIN/pcat" --data -o "$t/x.data" "$t/empty.pipe"
	run -0 "$BIN/pheader" "$t/x.data"
}
