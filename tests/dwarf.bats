#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# DWARF unwinding: samples of --call-graph dwarf (user registers and a stack copy) unwound
# through the objects' CFI, inlined functions as frames of their own.  A program built here
# with -O2 -g -fomit-frame-pointer and python3 are recorded by perf record and by precord,
# and every comparison is against perf script on the same stream.

bats_require_minimum_version 1.5.0

setup_file() {
	export WORK="$BATS_FILE_TMPDIR"
	command -v gcc >/dev/null || return 0
	gcc -O2 -g -fomit-frame-pointer -o "$WORK/dwork" "$BATS_TEST_DIRNAME/data/dwarf-work.c"
	gcc -O2 -g -fomit-frame-pointer -o "$WORK/dvdso" "$BATS_TEST_DIRNAME/data/dwarf-vdso.c"
}

setup() {
	load helpers
	WORK="$BATS_FILE_TMPDIR"
}

need_workload() {
	need_perf
	[ -x "$WORK/dwork" ] || skip "gcc not installed"
	perf record -q --call-graph dwarf -e cpu-clock -o /dev/null true 2>/dev/null ||
		skip "perf cannot record here"
}

dwarf_pipe() {
	record_once dwarf.pipe perf record -q --call-graph dwarf -e cpu-clock -F 999 -o - "$WORK/dwork" 1000
}

# compare_frames STREAM [MIN_FRAMES_PCT [MIN_SAMPLES_PCT]]: ptojson's frames against perf's
compare_frames() {
	perf_script_any "$1" -F comm,tid,time,ip,sym,dso >"$BATS_TEST_TMPDIR/perf.txt"
	"$BIN/ptojson" "$1" >"$BATS_TEST_TMPDIR/out.json"
	python3 "$TOP/tests/tools/symcmp.py" "$BATS_TEST_TMPDIR/perf.txt" \
		"$BATS_TEST_TMPDIR/out.json" "${2:-98}" "${3:-90}"
}

@test "dwarf: ptojson unwinds 'perf record --call-graph dwarf -o -' as perf script does" {
	need_workload
	dwarf_pipe
	compare_frames "$WORK/dwarf.pipe" 98
	# the user frames are there: the recursion below main, without frame pointers
	grep -q '"sym":"recurse".*"sym":"main"' "$BATS_TEST_TMPDIR/out.json"
}

@test "dwarf: ptojson unwinds 'perf record --call-graph dwarf -o FILE' as perf script does" {
	need_workload
	[ -s "$WORK/dwarf.data" ] ||
		perf record -q --call-graph dwarf -e cpu-clock -F 999 -o "$WORK/dwarf.data" \
			"$WORK/dwork" 1000 >/dev/null 2>&1
	compare_frames "$WORK/dwarf.data" 98
}

@test "dwarf: python3 without frame pointers is unwound as perf script unwinds it" {
	need_workload
	[ -x /usr/bin/python3 ] || skip "no /usr/bin/python3"
	record_once py.pipe perf record -q --call-graph dwarf -e cpu-clock -F 499 -o - /usr/bin/python3 -c '
import json
def f(n):
    return sum(i * i for i in range(n))
for _ in range(3):
    d = {str(i): json.dumps([i, f(50)]) for i in range(20000)}
'
	compare_frames "$WORK/py.pipe" 98 80
}

@test "dwarf: samples in the vdso are unwound through it as perf script unwinds them" {
	need_workload
	record_once vdso.pipe perf record -q --call-graph dwarf -e cpu-clock -F 999 -o - \
		"$WORK/dvdso" 20000000
	# the workload lives in the vdso: most of perf's samples are there
	perf_script_any "$WORK/vdso.pipe" -F ip,dso | grep -c '(\[vdso\])' >"$BATS_TEST_TMPDIR/n"
	[ "$(cat "$BATS_TEST_TMPDIR/n")" -gt 50 ]
	compare_frames "$WORK/vdso.pipe" 98
	# through the vdso's CFI into the program: the caller of clock_gettime and main
	grep -q '"dso":"\[vdso\]".*"sym":"spin".*"sym":"main"' "$BATS_TEST_TMPDIR/out.json"
}

@test "dwarf: inlined functions are frames of their own, as perf script shows them" {
	need_workload
	dwarf_pipe
	perf_script_any "$WORK/dwarf.pipe" -F ip,sym >"$BATS_TEST_TMPDIR/perf.txt"
	theirs=$(grep -c 'mix_inline (inlined)' "$BATS_TEST_TMPDIR/perf.txt" || true)
	[ "$theirs" -gt 0 ] || skip "perf shows no inlined frame here"
	"$BIN/ptojson" "$WORK/dwarf.pipe" >"$BATS_TEST_TMPDIR/out.json"
	ours=$(jq -r '.callchain[]? | select(.inlined == true) | .sym' "$BATS_TEST_TMPDIR/out.json" |
		grep -c '^mix_inline$' || true)
	echo "perf $theirs, ptojson $ours"
	[ "$ours" -eq "$theirs" ]
	# the function that holds it follows, at the same address, not inlined
	jq -c '.callchain[]?' "$BATS_TEST_TMPDIR/out.json" | grep -A1 '"sym":"mix_inline"' |
		grep -q '"sym":"leaf_work","symoff":[0-9]*,"dso":"[^"]*"}'
}

@test "dwarf: pcount --folded is perf's stackcollapse, inlined frames included" {
	need_workload
	dwarf_pipe
	perf_folded "$WORK/dwarf.pipe" "$BATS_TEST_TMPDIR/perf.folded"
	grep -q ';mix_inline' "$BATS_TEST_TMPDIR/perf.folded"
	"$BIN/pcount" --folded "$WORK/dwarf.pipe" | sort >"$BATS_TEST_TMPDIR/ours.folded"
	grep -q ';mix_inline' "$BATS_TEST_TMPDIR/ours.folded"
	# equal but for the rare sample perf and we unwind differently (one taken inside
	# execve keeps the old image's frames here; perf shows none): on a quiet machine
	# the two are byte for byte the same, on a loaded one a few samples land there
	python3 "$TOP/tests/tools/foldcmp.py" "$BATS_TEST_TMPDIR/perf.folded" \
		"$BATS_TEST_TMPDIR/ours.folded" 0.98
}

@test "dwarf: a stack copy too small for the whole stack keeps what it can unwind" {
	need_workload
	record_once small.pipe perf record -q --call-graph dwarf,128 -e cpu-clock -F 999 -o - \
		"$WORK/dwork" 1000
	compare_frames "$WORK/small.pipe" 98
	# the copy ends before main: no sample reaches it, and none is an error
	! grep -q '"sym":"main"' "$BATS_TEST_TMPDIR/out.json"
	grep -q '"sym":"leaf_work"' "$BATS_TEST_TMPDIR/out.json"
}

@test "dwarf: precord --call-graph dwarf writes perf's attr, and both unwind it alike" {
	need_workload
	record_once precord.pipe "$BIN/precord" -q --call-graph dwarf -e cpu-clock -F 999 \
		-o /dev/stdout "$WORK/dwork" 1000
	perf evlist -v -i - <"$WORK/precord.pipe" 2>/dev/null >"$BATS_TEST_TMPDIR/ours.attr"
	dwarf_pipe
	perf evlist -v -i - <"$WORK/dwarf.pipe" 2>/dev/null >"$BATS_TEST_TMPDIR/perf.attr"
	for k in 'sample_regs_user: 0xff0fff' 'sample_stack_user: 8192' \
		'exclude_callchain_user: 1' 'mmap_data: 1' 'REGS_USER|STACK_USER'; do
		grep -q "$k" "$BATS_TEST_TMPDIR/perf.attr"
		grep -q "$k" "$BATS_TEST_TMPDIR/ours.attr" || {
			echo "precord's attr lacks $k"
			cat "$BATS_TEST_TMPDIR/ours.attr"
			return 1
		}
	done
	compare_frames "$WORK/precord.pipe" 98
	grep -q '"inlined":true' "$BATS_TEST_TMPDIR/out.json"
}

@test "dwarf: precord --call-graph takes fp, dwarf and dwarf,SIZE, and refuses the rest" {
	run -2 "$BIN/precord" --call-graph lbr -e cpu-clock true
	[[ "$output" == *"unknown mode 'lbr'"* ]]
	run -2 "$BIN/precord" --call-graph dwarf,0 -e cpu-clock true
	run -2 "$BIN/precord" --call-graph dwarf,70000 -e cpu-clock true
	need_workload
	"$BIN/precord" -q --call-graph dwarf,1000 -e cpu-clock -o /dev/stdout true |
		perf evlist -v -i - 2>/dev/null | grep -q 'sample_stack_user: 1000'
	"$BIN/precord" -q --call-graph fp -e cpu-clock -o /dev/stdout true |
		perf evlist -v -i - 2>/dev/null >"$BATS_TEST_TMPDIR/fp.attr"
	grep -q CALLCHAIN "$BATS_TEST_TMPDIR/fp.attr"
	! grep -q STACK_USER "$BATS_TEST_TMPDIR/fp.attr"
}

@test "dwarf: pflame draws the unwound frames, inlined ones included" {
	need_workload
	dwarf_pipe
	"$BIN/pflame" "$WORK/dwarf.pipe" >"$BATS_TEST_TMPDIR/out.svg"
	for f in main recurse leaf_work mix_inline; do
		grep -q "$f" "$BATS_TEST_TMPDIR/out.svg"
	done
}
