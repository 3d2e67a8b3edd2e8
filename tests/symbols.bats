#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# Symbols: every frame named as perf script names it.  The streams are recorded here, from
# a small C program with deep frame-pointer call chains, libc and system calls, and every
# comparison is against perf script on the same stream.

bats_require_minimum_version 1.5.0

setup_file() {
	export WORK="$BATS_FILE_TMPDIR"
	command -v gcc >/dev/null || return 0
	gcc -O0 -g -fno-omit-frame-pointer -o "$WORK/symwork" \
		"$BATS_TEST_DIRNAME/data/symbols-work.c" -lm
}

setup() {
	load helpers
	WORK="$BATS_FILE_TMPDIR"
}

need_workload() {
	need_perf
	[ -x "$WORK/symwork" ] || skip "gcc not installed"
	perf record -q -e cpu-clock -o /dev/null true 2>/dev/null ||
		skip "perf cannot record here"
}

perf_g_pipe() {
	record_once g.pipe perf record -q -g -e cpu-clock -F 999 -o - "$WORK/symwork" 300
}

# compare_frames STREAM [COMM]: ptojson's sym/dso of every frame against perf script's
compare_frames() {
	perf_script_any "$1" -F comm,tid,time,ip,sym,dso >"$BATS_TEST_TMPDIR/perf.txt"
	"$BIN/ptojson" "$1" >"$BATS_TEST_TMPDIR/out.json"
	python3 "$TOP/tests/tools/symcmp.py" "$BATS_TEST_TMPDIR/perf.txt" \
		"$BATS_TEST_TMPDIR/out.json" 99.5 98 ${2:+"$2"}
}

@test "symbols: ptojson names every frame of 'perf record -g -o -' as perf script does" {
	need_workload
	perf_g_pipe
	run -0 compare_frames "$WORK/g.pipe"
	echo "$output"
}

@test "symbols: ptojson names every frame of 'perf record -g -o FILE' as perf script does" {
	need_workload
	[ -s "$WORK/g.data" ] ||
		perf record -q -g -e cpu-clock -F 999 -o "$WORK/g.data" "$WORK/symwork" 300 2>/dev/null
	run -0 compare_frames "$WORK/g.data"
	echo "$output"
}

@test "symbols: ptojson names every frame of 'precord -g' as perf script does" {
	need_workload
	record_once pre.pipe "$BIN/precord" -g -e cpu-clock -F 999 -- "$WORK/symwork" 300
	run -0 compare_frames "$WORK/pre.pipe"
	echo "$output"
}

@test "symbols: without -g, the sample's own ip is named as perf script names it" {
	need_workload
	record_once nog.pipe perf record -q -e cpu-clock -F 999 -o - "$WORK/symwork" 300
	run -0 compare_frames "$WORK/nog.pipe"
	echo "$output"
	run -0 jq 'has("callchain") | not' <(head -n 1 "$BATS_TEST_TMPDIR/out.json")
}

@test "symbols: a system-wide stream: the workload's frames named as perf script does" {
	need_workload
	"$WORK/symwork" 600 &
	local pid=$!
	record_once sw.pipe perf record -q -a -g -e cpu-clock -F 499 -o - -- sleep 2
	wait "$pid"
	run -0 compare_frames "$WORK/sw.pipe" symwork
	echo "$output"
	# and over every process of the machine, other engineers' included
	run -0 compare_frames "$WORK/sw.pipe"
	echo "$output"
}

@test "symbols: the folded stacks of every sample are perf's stackcollapse lines" {
	need_workload
	perf_g_pipe
	perf_folded "$WORK/g.pipe" "$BATS_TEST_TMPDIR/perf.folded"
	"$TOOLS/pfold" "$WORK/g.pipe" | sort | uniq -c |
		sed -E 's/^ *([0-9]+) (.*)$/\2 \1/' | sort >"$BATS_TEST_TMPDIR/ours.folded"
	cmp_or_show "$BATS_TEST_TMPDIR/perf.folded" "$BATS_TEST_TMPDIR/ours.folded"
}

@test "symbols: ptojson keys: sym, symoff, dso, callchain frames as objects" {
	need_workload
	perf_g_pipe
	"$BIN/ptojson" "$WORK/g.pipe" | head -n 50 >"$BATS_TEST_TMPDIR/out.json"
	# the sample's own ip is its first frame
	run -0 jq 'select(.callchain | length > 0) | .ip == .callchain[0].ip and
		.sym == .callchain[0].sym and .dso == .callchain[0].dso' "$BATS_TEST_TMPDIR/out.json"
	[[ "$output" != *false* ]]
	run -0 jq '.callchain[] | select(has("sym")) | (.symoff | type) == "number" and
		(.ip | startswith("0x"))' "$BATS_TEST_TMPDIR/out.json"
	[[ "$output" != *false* ]]
	# an unknown function has no symoff either
	run -0 jq '.callchain[] | select(has("sym") | not) | has("symoff") | not' \
		"$BATS_TEST_TMPDIR/out.json"
	[[ "$output" != *false* ]]
	# symoff is perf script's +0x offset
	perf_script_any "$WORK/g.pipe" -F ip,sym,symoff -G | head -n 20 | awk '{print $2}' \
		>"$BATS_TEST_TMPDIR/perf.symoff"
	jq -r 'if .sym then "\(.symoff) \(.sym)" else "- [unknown]" end' \
		"$BATS_TEST_TMPDIR/out.json" | head -n 20 |
		while read -r o s; do
			if [ "$o" = - ]; then echo "$s"; else printf '%s+0x%x\n' "$s" "$o"; fi
		done >"$BATS_TEST_TMPDIR/ours.symoff"
	cmp_or_show "$BATS_TEST_TMPDIR/perf.symoff" "$BATS_TEST_TMPDIR/ours.symoff"
}

@test "symbols: --no-symbols keeps addresses only, frames as {ip} objects" {
	need_workload
	perf_g_pipe
	"$BIN/ptojson" --no-symbols "$WORK/g.pipe" | head -n 20 >"$BATS_TEST_TMPDIR/out.json"
	run -1 grep -c '"sym"\|"dso"' "$BATS_TEST_TMPDIR/out.json"
	run -0 jq '.callchain | all(keys == ["ip"])' "$BATS_TEST_TMPDIR/out.json"
	[[ "$output" != *false* ]]
}

@test "symbols: an object that is gone leaves its frames unnamed, and is no error" {
	need_workload
	cp "$WORK/symwork" "$WORK/gone"
	perf record -q -g -e cpu-clock -F 999 -o - "$WORK/gone" 50 >"$WORK/gone.pipe" 2>/dev/null
	rm -f "$WORK/gone"
	run -0 --separate-stderr "$BIN/ptojson" "$WORK/gone.pipe"
	[ -z "$stderr" ]
	# the object is still named; its functions are not
	run -0 jq -r '.callchain[0] | select(.dso | endswith("/gone")) | has("sym")' <<<"$output"
	[[ "$output" == *false* && "$output" != *true* ]]
	# as perf script says too
	run -0 perf_script_any "$WORK/gone.pipe" -F ip,sym,dso -G
	[[ "$output" == *"[unknown] ("*"/gone)"* ]]
}

@test "symbols: --kallsyms FILE names the kernel from that copy; a missing one is a usage error" {
	need_workload
	perf_g_pipe
	cp /proc/kallsyms "$BATS_TEST_TMPDIR/kallsyms"
	"$BIN/ptojson" "$WORK/g.pipe" >"$BATS_TEST_TMPDIR/a.json"
	"$BIN/ptojson" --kallsyms "$BATS_TEST_TMPDIR/kallsyms" "$WORK/g.pipe" >"$BATS_TEST_TMPDIR/b.json"
	cmp_or_show "$BATS_TEST_TMPDIR/a.json" "$BATS_TEST_TMPDIR/b.json"
	grep -q '"dso":"\[kernel.kallsyms\]"' "$BATS_TEST_TMPDIR/b.json"
	# an empty copy: kernel frames keep their object, lose their names
	: >"$BATS_TEST_TMPDIR/empty"
	"$BIN/ptojson" --kallsyms "$BATS_TEST_TMPDIR/empty" "$WORK/g.pipe" >"$BATS_TEST_TMPDIR/c.json"
	run -1 grep -c '"sym":"[^"]*","symoff":[0-9]*,"dso":"\[kernel' "$BATS_TEST_TMPDIR/c.json"
	run -2 --separate-stderr "$BIN/ptojson" --kallsyms "$BATS_TEST_TMPDIR/nonesuch" "$WORK/g.pipe"
	[[ "$stderr" == "ptojson: "*"nonesuch"* ]]
}

@test "symbols: --symfs DIR finds the objects under DIR" {
	need_workload
	local root="$BATS_TEST_TMPDIR/root"
	mkdir -p "$root$WORK"
	cp "$WORK/symwork" "$WORK/moved"
	perf record -q -g -e cpu-clock -F 999 -o - "$WORK/moved" 50 >"$WORK/moved.pipe" 2>/dev/null
	mv "$WORK/moved" "$root$WORK/moved"
	"$BIN/ptojson" "$WORK/moved.pipe" >"$BATS_TEST_TMPDIR/a.json"
	run -1 grep -c '"sym":"recurse"' "$BATS_TEST_TMPDIR/a.json"
	"$BIN/ptojson" --symfs "$root" "$WORK/moved.pipe" >"$BATS_TEST_TMPDIR/b.json"
	grep -q '"sym":"recurse","symoff":[0-9]*,"dso":"'"$WORK"'/moved"' "$BATS_TEST_TMPDIR/b.json"
	# perf agrees on the names found under the root
	perf script -i - --symfs "$root" -F comm,tid,time,ip,sym,dso <"$WORK/moved.pipe" \
		>"$BATS_TEST_TMPDIR/perf.txt" 2>/dev/null
	python3 "$TOP/tests/tools/symcmp.py" "$BATS_TEST_TMPDIR/perf.txt" "$BATS_TEST_TMPDIR/b.json" 99.5 98
}

@test "symbols: pcount --by sym equals the leaf-symbol counts of perf script -G -F ip,sym" {
	need_workload
	perf_g_pipe
	perf_script_any "$WORK/g.pipe" -G -F ip,sym | awk '{ $1 = ""; print substr($0, 2) }' |
		sort | uniq -c | awk '{ c = $1; $1 = ""; print substr($0, 2) "\t" c }' |
		sort >"$BATS_TEST_TMPDIR/perf.txt"
	"$BIN/pcount" -j --by sym "$WORK/g.pipe" | jq -r '.rows[] | "\(.sym)\t\(.count)"' |
		sort >"$BATS_TEST_TMPDIR/ours.txt"
	[ -s "$BATS_TEST_TMPDIR/ours.txt" ]
	cmp_or_show "$BATS_TEST_TMPDIR/perf.txt" "$BATS_TEST_TMPDIR/ours.txt"
}

@test "symbols: pcount --by dso, and sym with other keys and --interval" {
	need_workload
	perf_g_pipe
	perf_script_any "$WORK/g.pipe" -G -F ip,dso | sed -E 's/^ *[0-9a-f]+ \(//; s/\)$//' | sort | uniq -c |
		awk '{ print $2 "\t" $1 }' | sort >"$BATS_TEST_TMPDIR/perf.txt"
	"$BIN/pcount" -j --by dso "$WORK/g.pipe" | jq -r '.rows[] | "\(.dso)\t\(.count)"' |
		sort >"$BATS_TEST_TMPDIR/ours.txt"
	cmp_or_show "$BATS_TEST_TMPDIR/perf.txt" "$BATS_TEST_TMPDIR/ours.txt"
	# per interval, the counts add up to the whole
	run -0 "$BIN/pcount" -j --by comm,sym,dso -i 100ms "$WORK/g.pipe"
	[ "$(jq -s '[.[].rows[] | select(.sym == "spin") | .count] | add' <<<"$output")" = \
		"$(perf_script_any "$WORK/g.pipe" -G -F ip,sym | awk '$2 == "spin"' | wc -l)" ]
}

@test "symbols: pcount --folded equals perf's stackcollapse, and gives one block per interval" {
	need_workload
	perf_g_pipe
	perf_folded "$WORK/g.pipe" "$BATS_TEST_TMPDIR/perf.folded"
	"$BIN/pcount" --folded "$WORK/g.pipe" >"$BATS_TEST_TMPDIR/ours.folded"
	# written in stackcollapse's own order
	sort -c "$BATS_TEST_TMPDIR/ours.folded"
	# the sample mass on identical stacks (the issue asks 99%; expect all of it)
	run -0 python3 - "$BATS_TEST_TMPDIR/perf.folded" "$BATS_TEST_TMPDIR/ours.folded" <<'PY'
import sys
def load(p):
    d = {}
    for line in open(p):
        stack, _, n = line.rstrip("\n").rpartition(" ")
        d[stack] = d.get(stack, 0) + int(n)
    return d
a, b = load(sys.argv[1]), load(sys.argv[2])
same = sum(min(n, b.get(k, 0)) for k, n in a.items())
total = max(sum(a.values()), sum(b.values()))
print("same mass %.2f%% of %d" % (100.0 * same / total, total))
sys.exit(0 if same >= 0.99 * total else 1)
PY
	echo "$output"
	cmp_or_show "$BATS_TEST_TMPDIR/perf.folded" "$BATS_TEST_TMPDIR/ours.folded"
	# per interval: blocks separated by a blank line, adding up to the whole
	"$BIN/pcount" --folded -i 100ms "$WORK/g.pipe" >"$BATS_TEST_TMPDIR/blocks"
	[ "$(grep -c '^$' "$BATS_TEST_TMPDIR/blocks")" -ge 2 ]
	[ "$(awk 'NF { s += $NF } END { print s }' "$BATS_TEST_TMPDIR/blocks")" = \
		"$(awk '{ s += $NF } END { print s }' "$BATS_TEST_TMPDIR/perf.folded")" ]
	run -2 "$BIN/pcount" --folded --json "$WORK/g.pipe"
}

@test "symbols: pfilter 'sym = NAME' keeps exactly the samples perf shows with that leaf symbol" {
	need_workload
	perf_g_pipe
	local name
	for name in spin do_syscall_64 __GI___libc_write; do
		perf_script_any "$WORK/g.pipe" -G -F tid,time,ip,sym |
			awk -v n="$name" '$4 == n { print $1, $2 }' >"$BATS_TEST_TMPDIR/perf.txt"
		"$BIN/pfilter" -i "$WORK/g.pipe" "sym = $name" >"$BATS_TEST_TMPDIR/kept.pipe"
		perf_script_any "$BATS_TEST_TMPDIR/kept.pipe" -G -F tid,time >"$BATS_TEST_TMPDIR/ours.txt"
		sed -i 's/^ *//; s/  */ /g; s/ *$//' "$BATS_TEST_TMPDIR/ours.txt"
		[ -s "$BATS_TEST_TMPDIR/perf.txt" ] || [ "$name" != spin ]
		cmp_or_show "$BATS_TEST_TMPDIR/perf.txt" "$BATS_TEST_TMPDIR/ours.txt"
	done
}

@test "symbols: pfilter dso and stack: any frame's function, as perf script shows the frames" {
	need_workload
	perf_g_pipe
	# the samples with a frame in a function whose name holds "sys_"
	perf_script_any "$WORK/g.pipe" -F tid,time,ip,sym | awk '
		/^[^\t]/ { key = $1 " " $2 } /^\t/ && $2 ~ /sys_/ { hit[key] = 1 }
		END { for (k in hit) print k }' | sort >"$BATS_TEST_TMPDIR/perf.txt"
	"$BIN/pfilter" -i "$WORK/g.pipe" 'stack contains "sys_"' |
		perf script -i - -G -F tid,time 2>/dev/null | sed 's/^ *//; s/  */ /g; s/ *$//' |
		sort >"$BATS_TEST_TMPDIR/ours.txt"
	[ -s "$BATS_TEST_TMPDIR/perf.txt" ]
	cmp_or_show "$BATS_TEST_TMPDIR/perf.txt" "$BATS_TEST_TMPDIR/ours.txt"
	# dso, with a string operator; its count is perf's
	run -0 "$BIN/pfilter" -c -i "$WORK/g.pipe" 'dso endswith "/symwork"'
	[ "$output" = "$(perf_script_any "$WORK/g.pipe" -G -F ip,dso | grep -c '/symwork)$')" ]
	# and pcount --where reads them too
	run -0 "$BIN/pcount" -j --by sym -w 'sym startswith "spi"' "$WORK/g.pipe"
	[ "$(jq -r '.rows[0].sym' <<<"$output")" = spin ]
}

@test "symbols: ptop --report counts functions as pcount --by sym does; ptop runs live" {
	need_workload
	perf_g_pipe
	run -0 "$BIN/ptop" --report 1 <"$WORK/g.pipe"
	[[ "$output" == *"sym"* && "$output" == *" [.] spin "* ]]
	# the sum over its intervals is the whole (OVERHEAD COUNT [.] spin OBJECT)
	[ "$(awk '$4 == "spin" { s += $2 } END { print s }' <<<"$output")" = \
		"$(perf_script_any "$WORK/g.pipe" -G -F ip,sym | awk '$2 == "spin"' | wc -l)" ]
	run -2 "$BIN/ptop" 1 2
	# live: the whole machine for a few seconds, the workload's function among the top
	"$WORK/symwork" 400 &
	local pid=$!
	run timeout -s INT 6 "$BIN/ptop" 1
	wait "$pid" || true
	[[ "$output" == *"COUNT"*"sym"* ]]
}

@test "symbols: an object rebuilt since the recording is not used (its build-id differs), as perf" {
	need_workload
	local home="$BATS_TEST_TMPDIR/home"
	mkdir -p "$home"
	cp "$WORK/symwork" "$WORK/rebuilt"
	# the MMAP2 records carry the build-id; perf's cache lives in this test's HOME
	HOME=$home perf record -q --buildid-mmap -g -e cpu-clock -F 999 -o - "$WORK/rebuilt" 50 \
		>"$WORK/rebuilt.pipe" 2>/dev/null || skip "perf record has no --buildid-mmap"
	rm -rf "$home/.debug"
	sed 's/spin(200000)/spin(200001)/' "$TOP/tests/data/symbols-work.c" >"$BATS_TEST_TMPDIR/w.c"
	gcc -O0 -fno-omit-frame-pointer -o "$WORK/rebuilt" "$BATS_TEST_TMPDIR/w.c" -lm
	HOME=$home "$BIN/ptojson" "$WORK/rebuilt.pipe" >"$BATS_TEST_TMPDIR/out.json"
	# the object keeps its name, its functions are unknown
	run -0 jq -r '.callchain[] | select((.dso // "") | endswith("/rebuilt")) | .sym // "-"' \
		"$BATS_TEST_TMPDIR/out.json"
	[ -n "$output" ]
	[[ "$output" != *spin* && "$output" != *recurse* ]]
	HOME=$home perf script -i - -F comm,tid,time,ip,sym,dso <"$WORK/rebuilt.pipe" \
		>"$BATS_TEST_TMPDIR/perf.txt" 2>/dev/null
	python3 "$TOP/tests/tools/symcmp.py" "$BATS_TEST_TMPDIR/perf.txt" "$BATS_TEST_TMPDIR/out.json" 99.5 98
}

# rename_object IN OUT OLD NEW: IN with every MMAP/MMAP2 record naming OLD naming NEW instead
# (the record resized to fit); prints the pid of each record changed
rename_object() {
	python3 - "$@" <<'PY'
import struct, sys
src, dst, old, new = sys.argv[1:5]
data = open(src, "rb").read()
out, pos, hits = bytearray(data[:16]), 16, 0
while pos + 8 <= len(data):
    typ, misc, size = struct.unpack_from("<IHH", data, pos)
    rec = data[pos:pos + size]
    if typ in (1, 10):  # MMAP, MMAP2: the name, NUL-padded to 8 bytes, then the sample_id
        fo = 8 + (64 if typ == 10 else 32)
        end = rec.index(b"\0", fo)
        if rec[fo:end] == old.encode():
            name = new.encode() + b"\0"
            name += b"\0" * (-len(name) % 8)
            body = rec[8:fo] + name + rec[fo + (end - fo + 8) // 8 * 8:]
            rec = struct.pack("<IHH", typ, misc, 8 + len(body)) + body
            print(struct.unpack_from("<I", rec, 8)[0])
            hits += 1
    out += rec
    pos += size
open(dst, "wb").write(out)
sys.exit(0 if hits else 1)
PY
}

# a pid no process can have (pid_max is at most 2^22) whose JIT map does not exist; the
# teardown removes what a test makes there
free_jit_pid() {
	local p=$((4194304 + $$ % 100000))
	while [ -e "/tmp/perf-$p.map" ] || [ -L "/tmp/perf-$p.map" ]; do
		p=$((p + 1))
	done
	echo "$p"
}

teardown() {
	[ -z "${JITMAP:-}" ] || rm -f "$JITMAP"
}

@test "symbols: an object that is a FIFO or a device is refused at once, its frames unnamed, said once" {
	local t="$BATS_TEST_TMPDIR" obj libc=/usr/lib/x86_64-linux-gnu/libc.so.6
	"$BIN/pcat" "$DATA/cpuclock-g-sh.data" >"$t/sh.pipe"
	mkfifo "$t/fifo"
	ln -s /dev/zero "$t/zero.so"
	for obj in "$t/fifo" "$t/zero.so"; do
		rename_object "$t/sh.pipe" "$t/x.pipe" "$libc" "$obj" >/dev/null
		# nobody writes to the FIFO: a reader that opened it would wait here for ever
		run -0 --separate-stderr timeout -k 5 20 "$BIN/ptojson" "$t/x.pipe"
		[ "$stderr" = "ptojson: $obj: not a regular file, not read" ]
		run -0 jq -r --arg o "$obj" '.callchain[] | select(.dso == $o) | has("sym")' <<<"$output"
		[[ "$output" == *false* && "$output" != *true* ]]
		run -0 --separate-stderr timeout -k 5 20 "$BIN/pcount" -j --by sym,dso "$t/x.pipe"
		[ "$stderr" = "pcount: $obj: not a regular file, not read" ]
		[ "$(jq -r --arg o "$obj" '[.rows[] | select(.dso == $o) | .sym] | unique | join(",")' \
			<<<"$output")" = "[unknown]" ]
		run -0 --separate-stderr timeout -k 5 20 "$BIN/pflame" -o "$t/x.svg" "$t/x.pipe"
		[ "$stderr" = "pflame: $obj: not a regular file, not read" ]
		grep -q '<svg' "$t/x.svg"
		run -0 timeout -k 5 20 "$BIN/ptop" --report 1 <"$t/x.pipe"
	done
	# --kallsyms names a file too
	run -2 --separate-stderr timeout -k 5 20 "$BIN/ptojson" --kallsyms /dev/zero "$t/sh.pipe"
	[ "$stderr" = "ptojson: /dev/zero: cannot read --kallsyms: not a regular file, not read" ]
	run -2 --separate-stderr timeout -k 5 20 "$BIN/pflame" --kallsyms "$t/fifo" "$t/sh.pipe"
	[ "$stderr" = "pflame: $t/fifo: cannot read --kallsyms: not a regular file, not read" ]
	# "/dev/zero" itself is anonymous memory, named from a JIT map as perf names it
	rename_object "$t/sh.pipe" "$t/x.pipe" "$libc" /dev/zero >/dev/null
	run -0 --separate-stderr timeout -k 5 20 "$BIN/ptojson" "$t/x.pipe"
	[[ "$output" == *'"dso":"/tmp/perf-'*'.map"'* ]]
}

@test "symbols: a JIT map /tmp/perf-PID.map that is a FIFO or /dev/zero is refused at once" {
	local t="$BATS_TEST_TMPDIR" pid
	pid=$(free_jit_pid)
	JITMAP=/tmp/perf-$pid.map
	"$TOOLS/phostile" mmap2 "$pid" //anon >"$t/jit.pipe"
	# a regular map names the frames, as perf script names them
	printf '7f0000001000 100 jit_one\n7f0000001100 100 jit_two\n' >"$JITMAP"
	run -0 timeout -k 5 20 "$BIN/pcount" -j --by sym "$t/jit.pipe"
	[ "$(jq -r '.rows[0].sym' <<<"$output")" = jit_one ]
	if command -v perf >/dev/null; then
		[ "$(perf script -i - -F sym <"$t/jit.pipe" 2>/dev/null | grep -c jit_two)" = 4 ]
	fi
	# a FIFO nobody writes to, and an endless file: refused, the frames unnamed
	for kind in fifo zero; do
		rm -f "$JITMAP"
		if [ "$kind" = fifo ]; then mkfifo "$JITMAP"; else ln -s /dev/zero "$JITMAP"; fi
		run -0 --separate-stderr timeout -k 5 20 "$BIN/ptojson" "$t/jit.pipe"
		[ "$stderr" = "ptojson: $JITMAP: not a regular file, not read" ]
		[ "$(jq -r '.callchain[] | has("sym")' <<<"$output" | sort -u)" = false ]
		[ "$(jq -r '.callchain[].dso' <<<"$output" | sort -u)" = "$JITMAP" ]
		run -0 --separate-stderr timeout -k 5 20 "$BIN/pcount" -j --by sym "$t/jit.pipe"
		[ "$(jq -r '.rows[0].sym' <<<"$output")" = "[unknown]" ]
		[ "$stderr" = "pcount: $JITMAP: not a regular file, not read" ]
		run -0 --separate-stderr timeout -k 5 20 "$BIN/pflame" -o "$t/x.svg" "$t/jit.pipe"
		[ "$stderr" = "pflame: $JITMAP: not a regular file, not read" ]
		run -0 --separate-stderr timeout -k 5 20 "$BIN/pfilter" -c -i "$t/jit.pipe" 'sym = jit_one'
		[ "$output" = 0 ]
	done
}

@test "symbols: one SIGTERM ends pflame reading a live stream that names a FIFO as an object" {
	local t="$BATS_TEST_TMPDIR" pid st=0 i
	"$BIN/pcat" "$DATA/cpuclock-g-sh.data" >"$t/sh.pipe"
	mkfifo "$t/fifo" "$t/in"
	rename_object "$t/sh.pipe" "$t/x.pipe" /usr/lib/x86_64-linux-gnu/libc.so.6 "$t/fifo" >/dev/null
	"$BIN/pflame" -o "$t/out.svg" "$t/in" 2>"$t/err" &
	pid=$!
	# the stream arrives and its writer stays: pflame waits for more
	exec 7>"$t/in"
	cat "$t/x.pipe" >&7
	# the notice shows the object was looked at (and not waited for)
	for i in $(seq 200); do
		grep -q 'not a regular file' "$t/err" && break
		sleep 0.1
	done
	kill -TERM "$pid"
	for i in $(seq 200); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$pid" 2>/dev/null; then
		kill -KILL "$pid"
		exec 7>&-
		wait "$pid" || true
		echo "one SIGTERM did not end pflame"
		return 1
	fi
	exec 7>&-
	wait "$pid" || st=$?
	cat "$t/err"
	[ "$st" = 0 ]
	[ "$(cat "$t/err")" = "pflame: $t/fifo: not a regular file, not read" ]
	grep -q '<svg' "$t/out.svg"
}

# a stripped library whose .dynsym holds a version name (VERLIB_1, absolute, no size) and
# whose hot function is unnamed, and a program that calls it; in $WORK
build_verlib() {
	[ -x "$WORK/vermain" ] && return 0
	gcc -shared -fPIC -O0 -fno-omit-frame-pointer \
		-Wl,--version-script="$DATA/verlib.map" -o "$WORK/libverlib.so" "$DATA/verlib.c" &&
		strip "$WORK/libverlib.so" &&
		gcc -O0 -fno-omit-frame-pointer -o "$WORK/vermain" "$DATA/vermain.c" \
			-L"$WORK" -lverlib -Wl,-rpath,"$WORK"
}

@test "symbols: a version name of .dynsym (VERLIB_1) never names a function, as in perf" {
	need_workload
	build_verlib || skip "cannot build a shared library here"
	record_once ver.pipe perf record -q -g -e cpu-clock -F 999 -o - "$WORK/vermain" 100000000
	perf_script_any "$WORK/ver.pipe" -F comm,tid,time,ip,sym,dso >"$BATS_TEST_TMPDIR/perf.txt"
	grep -q libverlib "$BATS_TEST_TMPDIR/perf.txt" || skip "no sample in the library"
	"$BIN/ptojson" "$WORK/ver.pipe" >"$BATS_TEST_TMPDIR/out.json"
	run -0 python3 "$TOP/tests/tools/symcmp.py" "$BATS_TEST_TMPDIR/perf.txt" \
		"$BATS_TEST_TMPDIR/out.json" 100 100
	echo "$output"
	! grep -q VERLIB_1 "$BATS_TEST_TMPDIR/out.json"
}

@test "symbols: samples after their process's EXIT keep its user frames' names, as in perf" {
	need_workload
	# the exit path of many short processes: some samples come after their EXIT record
	record_once exit.pipe perf record -q -a -g -e cpu-clock -F 999 -o - -- \
		sh -c 'for i in $(seq 60); do "$0" 3 >/dev/null; done' "$WORK/symwork"
	"$BIN/ptojson" --all "$WORK/exit.pipe" | python3 -c '
import json, sys
gone, late = set(), 0
for line in sys.stdin:
    r = json.loads(line)
    if r.get("type") == "EXIT" and r["pid"] == r["tid"]:
        gone.add(r["pid"])
    elif "event" in r and r.get("comm") == "symwork" and r.get("pid") in gone:
        late += any(not f["ip"].startswith("0xffff") for f in r.get("callchain", []))
print(late)' >"$BATS_TEST_TMPDIR/late"
	[ "$(cat "$BATS_TEST_TMPDIR/late")" -gt 0 ] || skip "no sample came after its EXIT"
	perf_script_any "$WORK/exit.pipe" -F comm,tid,time,ip,sym,dso >"$BATS_TEST_TMPDIR/perf.txt"
	"$BIN/ptojson" "$WORK/exit.pipe" >"$BATS_TEST_TMPDIR/out.json"
	run -0 python3 "$TOP/tests/tools/symcmp.py" "$BATS_TEST_TMPDIR/perf.txt" \
		"$BATS_TEST_TMPDIR/out.json" 100 100 symwork
	echo "$output"
}

@test "symbols: kernel symbols that cannot be read are said once, not left silently unnamed" {
	need_workload
	perf_g_pipe
	local t="$BATS_TEST_TMPDIR"
	# kptr_restrict (or a reader that is not root) shows every address as 0
	sed 's/^[0-9a-f]*/0000000000000000/' /proc/kallsyms >"$t/zero"
	run -0 --separate-stderr "$BIN/pcount" -q --by sym --kallsyms "$t/zero" "$WORK/g.pipe"
	echo "$stderr"
	[ "$stderr" = "pcount: $t/zero: every address is 0 (kernel.kptr_restrict, or not root): kernel functions are unnamed" ]
	# the real table: nothing said
	run -0 --separate-stderr "$BIN/pcount" -q --by sym "$WORK/g.pipe"
	[ -z "$stderr" ]
}

# every 10th sample of STREAM as taken after its task was gone (pid and tid -1), every
# 10th from the 5th of a thread never named (99999); the stream's sample_type must put
# pid and tid right after the ip (IP|TID|...)
unnamed_threads() {
	PYTHONPATH="$TOP/tests/tools" python3 -c '
import struct, pipestream
n = 0
def edit(typ, misc, rec, payload):
    global n
    if typ == 9:
        n += 1
        if n % 10 == 0:
            struct.pack_into("<ii", rec, 16, -1, -1)
        elif n % 10 == 5:
            struct.pack_into("<ii", rec, 16, 99999, 99999)
pipestream.rewrite(edit)' <"$1"
}

@test "symbols: pid -1 and threads never named are perf's :-1 and :TID, in ptojson and stacks" {
	need_workload
	perf_g_pipe
	local t="$BATS_TEST_TMPDIR"
	unnamed_threads "$WORK/g.pipe" >"$t/m.pipe"
	perf script -i - -G -F comm <"$t/m.pipe" 2>/dev/null | sed 's/^ *//; s/ *$//' >"$t/perf.comm"
	grep -qx ':-1' "$t/perf.comm"
	grep -qx ':99999' "$t/perf.comm"
	"$BIN/ptojson" -F comm "$t/m.pipe" | jq -r .comm >"$t/ours.comm"
	cmp_or_show "$t/perf.comm" "$t/ours.comm"
	perf_folded "$t/m.pipe" "$t/perf.folded"
	"$BIN/pcount" -q --folded "$t/m.pipe" | sort >"$t/ours.folded"
	cmp_or_show "$t/perf.folded" "$t/ours.folded"
	run -0 "$BIN/pcount" -q --by comm "$t/m.pipe"
	[[ "$output" == *" :-1"* ]]
}

# perf report's rows "PCT [x] SYM" (or "CHILDREN SELF [x] SYM" with --children), one space
# between columns, sorted; pcount's text table as the same rows
perf_report_rows() {
	perf report -i "$1" --stdio --sort sym -g none "${@:2}" 2>/dev/null |
		grep -E '^ +[0-9.]+%' | sed 's/  */ /g; s/^ //; s/ *$//' | sort
}

pcount_rows() {
	"$BIN/pcount" -q --by sym "$@" | tail -n +2 | sed 's/  */ /g; s/^ //; s/ *$//' |
		awk '{ if ($2 ~ /%$/) { $3 = "" } else { $2 = "" }; print }' |
		sed 's/  */ /g' | sort
}

@test "symbols: pcount --by sym is perf report's view: overhead, [k]/[.], unnamed addresses" {
	need_workload
	local t="$BATS_TEST_TMPDIR"
	strip -o "$WORK/symwork-s" "$WORK/symwork"
	# the stripped copy has the build-id of the whole one, which earlier tests may have left
	# in ~/.debug: perf and pcount then name it from there.  A HOME of its own keeps it out.
	mkdir -p "$t/home"
	export HOME="$t/home"
	# a fixed period: perf's overhead (of the period) is then the share of samples
	record_once s.data perf record -q -e cpu-clock -c 1000000 -o /dev/stdout \
		"$WORK/symwork-s" 100
	perf_report_rows "$WORK/s.data" --no-children >"$t/perf.txt"
	grep -q '\[\.\] 0x0000' "$t/perf.txt"
	grep -q '\[k\] ' "$t/perf.txt"
	pcount_rows "$WORK/s.data" >"$t/ours.txt"
	cmp_or_show "$t/perf.txt" "$t/ours.txt"
	# the table's first columns
	run -0 "$BIN/pcount" -q --by sym,dso -n 1 "$WORK/s.data"
	[[ "${lines[0]}" =~ ^\ OVERHEAD\ +COUNT\ +sym\ +dso$ ]]
	[[ "${lines[1]}" =~ ^\ +[0-9]+\.[0-9][0-9]%\ +[0-9]+\ +\[[k.]\]\  ]]
	# JSON keeps perf script's names
	run -0 "$BIN/pcount" -q -j --by sym "$WORK/s.data"
	[[ "$output" == *'"[unknown]"'* ]]
	[[ "$output" != *'[.]'* ]]
}

@test "symbols: pcount --by sym --children is perf report --children (named functions)" {
	need_workload
	local t="$BATS_TEST_TMPDIR"
	record_once c.data perf record -q -g -e cpu-clock -c 1000000 -o /dev/stdout "$WORK/symwork" 100
	perf_report_rows "$WORK/c.data" --children >"$t/perf.all"
	# perf names an unnamed frame of the chain by its raw address, the sample's own by
	# its address in the object, so one address may be two rows: compared apart
	grep -v ' 0x\| 0000000000000000$' "$t/perf.all" >"$t/perf.txt"
	pcount_rows --children "$WORK/c.data" >"$t/ours.all"
	grep -v ' 0x\| 0000000000000000$' "$t/ours.all" >"$t/ours.txt"
	# main is among them (its own share is 0.00% unless a sample happened to land in
	# its loop: CI once saw that)
	grep -q '^[0-9.]*% [0-9.]*% \[\.\] main$' "$t/perf.txt"
	cmp_or_show "$t/perf.txt" "$t/ours.txt"
	# the unnamed: every row perf gives a self share has that share here
	grep -v ' 0\.00% ' "$t/perf.all" | grep ' 0x' | cut -d' ' -f2- | sort >"$t/perf.self"
	grep -v ' 0\.00% ' "$t/ours.all" | grep ' 0x' | cut -d' ' -f2- | sort >"$t/ours.self"
	cmp_or_show "$t/perf.self" "$t/ours.self"
	run -2 "$BIN/pcount" --children --by comm "$WORK/c.data"
	run -0 "$BIN/pcount" -q -j --children --by sym "$WORK/c.data"
	[ "$(jq '[.rows[] | select(.sym == "main")][0].children' <<<"$output")" -gt 0 ]
}

@test "symbols: pcount --by ip counts the samples of each address as perf script -F ip does" {
	need_workload
	perf_g_pipe
	local t="$BATS_TEST_TMPDIR"
	perf_script_any "$WORK/g.pipe" -G -F ip | awk '{ printf "0x%016s\n", $1 }' | tr ' ' 0 |
		sort | uniq -c | awk '{ print $2 "\t" $1 }' | sort >"$t/perf.txt"
	"$BIN/pcount" -q -j --by ip "$WORK/g.pipe" | jq -r '.rows[] | "\(.ip)\t\(.count)"' |
		sort >"$t/ours.txt"
	[ -s "$t/ours.txt" ]
	cmp_or_show "$t/perf.txt" "$t/ours.txt"
}
