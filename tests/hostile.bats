#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# Hostile input: the streams an audit used to stall, blind or bloat the programs, each made
# at test time by tests/tools/phostile (nothing big is committed).  Every program reads each
# one under a time limit and a memory limit: no crash, no hang, peak RSS under the largest
# record plus a small constant, and a clear message where the input is wrong.  Hostile
# names come from real perf recordings (a process that renames itself, an ELF symbol
# patched at test time), where perf is the judge of the counts.

bats_require_minimum_version 1.5.0

# every program that reads a stream, with arguments that make it read all of it
PROGRAMS=(
	"pcat"
	"pfilter pid>=0"
	"pcount --by comm"
	"ptojson"
	"pheader --stats"
	"pflame"
)

setup() {
	load helpers
	need_tool phostile
	T="$BATS_TEST_TMPDIR"
}

# bounded SECONDS MAX_KB INPUT PROG [ARGS...]: run PROG < INPUT > $T/out, 2> $T/err under a
# time limit; $status is its exit status (124: killed by the time limit), $rss_kb its peak
# resident memory.  Fails when the peak is over MAX_KB.
bounded() {
	local secs=$1 max=$2 in=$3
	shift 3
	status=0
	timeout -s KILL "$secs" /usr/bin/time -f %M -o "$T/rss" "$BIN/$1" "${@:2}" \
		<"$in" >"$T/out" 2>"$T/err" || status=$?
	rss_kb=$(tail -n 1 "$T/rss" 2>/dev/null || echo 0)
	case "$rss_kb" in *[!0-9]* | '') rss_kb=0 ;; esac
	if [ "$status" -eq 137 ] || [ "$status" -eq 124 ]; then
		echo "$* did not finish within $secs s"
		return 1
	fi
	if [ "$rss_kb" -gt "$max" ]; then
		echo "$*: peak RSS $rss_kb KB is over $max KB"
		return 1
	fi
}

# every_program SECONDS MAX_KB INPUT EXPECTED_STATUS
every_program() {
	local p
	for p in "${PROGRAMS[@]}"; do
		# shellcheck disable=SC2086
		bounded "$1" "$2" "$3" $p || return 1
		if [ "$status" -ne "$4" ]; then
			echo "$p: status $status, expected $4"
			cat "$T/err"
			return 1
		fi
	done
}

@test "hostile: 1 M event ids that are multiples of 4096: every program reads them in bounded time" {
	"$TOOLS/phostile" ids 1048576 4096 >"$T/ids"
	every_program 30 200000 "$T/ids" 0
	bounded 30 200000 "$T/ids" pcount --by comm
	[ "$(awk 'NR == 2 { print $1 }' "$T/out")" = 16 ] || { cat "$T/out"; return 1; }
}

@test "hostile: 1 M sequential event ids: every program reads them in bounded time" {
	"$TOOLS/phostile" ids 1048576 >"$T/ids"
	every_program 30 200000 "$T/ids" 0
}

@test "hostile: one event id more than the cap is a clear error" {
	"$TOOLS/phostile" ids 1048577 >"$T/ids"
	for p in "${PROGRAMS[@]}"; do
		# shellcheck disable=SC2086
		bounded 30 200000 "$T/ids" $p
		[ "$status" -eq 1 ] || { echo "$p: status $status"; return 1; }
		grep -q "offset 0x[0-9a-f]*: more than 1048576 event ids" "$T/err" || { cat "$T/err"; return 1; }
	done
}

@test "hostile: COMPRESSED2 records are decompressed like COMPRESSED ones" {
	"$TOOLS/phostile" compressed2 >"$T/c2"
	"$TOOLS/phostile" compressed >"$T/c1"
	bounded 30 100000 "$T/c2" ptojson
	[ "$status" -eq 0 ]
	[ "$(wc -l <"$T/out")" -eq 4 ]
	[ "$(grep -c '"comm":"inner"' "$T/out")" -eq 4 ]
	cp "$T/out" "$T/c2.json"
	bounded 30 100000 "$T/c1" ptojson
	cmp_or_show "$T/out" "$T/c2.json"
	bounded 30 100000 "$T/c2" pcount --by comm
	[ "$(awk '$2 == "inner" { print $1 }' "$T/out")" = 4 ]
	bounded 30 100000 "$T/c2" pfilter comm=inner
	"$BIN/ptojson" <"$T/out" >"$T/f.json"
	cmp_or_show "$T/f.json" "$T/c2.json"
	# one input is copied as it is
	bounded 30 100000 "$T/c2" pcat
	cmp_or_show "$T/c2" "$T/out"
}

@test "hostile: BPF_METADATA, SCHEDSTAT_CPU and SCHEDSTAT_DOMAIN pass unchanged and are named" {
	"$TOOLS/phostile" newtypes >"$T/nt"
	bounded 30 100000 "$T/nt" pcat
	cmp_or_show "$T/nt" "$T/out"
	bounded 30 100000 "$T/nt" pfilter pid=1
	cmp_or_show "$T/nt" "$T/out"
	bounded 30 100000 "$T/nt" pheader --stats
	grep -q 'BPF_METADATA events: *1' "$T/out"
	grep -q 'SCHEDSTAT_CPU events: *1' "$T/out"
	grep -q 'SCHEDSTAT_DOMAIN events: *1' "$T/out"
}

@test "hostile: perf.data section offsets and sizes that wrap, run past the end or overlap" {
	local kind want
	"$TOOLS/phostile" file-ok >"$T/ok.data"
	every_program 30 100000 "$T/ok.data" 0
	for kind in file-wrap file-overlap-header file-overlap-data; do
		case $kind in
		file-wrap) want="*: offset 0x28: data section \[0x100, +0x*\] wraps around *" ;;
		file-overlap-header) want="*: offset 0x18: attrs section * overlaps the file header *" ;;
		file-overlap-data) want="*: build_id feature section * overlaps the data section *" ;;
		esac
		"$TOOLS/phostile" $kind >"$T/$kind.data"
		for p in "${PROGRAMS[@]}"; do
			# shellcheck disable=SC2086
			set -- $p
			run -1 --separate-stderr timeout 30 "$BIN/$1" "${@:2}" <"$T/$kind.data"
			[ "${#stderr_lines[@]}" -eq 1 ] || { echo "$kind $1: $stderr"; return 1; }
			[[ "$stderr" == $want ]] || { echo "$kind $1: $stderr"; return 1; }
		done
	done
	# a data section past the end: the records there are, then an error
	"$TOOLS/phostile" file-past-end >"$T/past.data"
	run -1 --separate-stderr "$BIN/ptojson" <"$T/past.data"
	[ "${#lines[@]}" -eq 3 ]
}

@test "hostile: a COMM of 8 bytes is corruption, as it is to perf" {
	"$TOOLS/phostile" short-comm >"$T/sc"
	every_program 30 100000 "$T/sc" 1
	grep -qx "[a-z]*: <stdin>: offset 0xc0: COMM record of 8 bytes is shorter than its fixed fields (16 bytes)" "$T/err" ||
		{ cat "$T/err"; return 1; }
	if command -v perf >/dev/null; then
		run ! perf script -i - <"$T/sc"
	fi
}

@test "hostile: an error inside a COMPRESSED record names the offset in its decompressed data" {
	local t
	for t in compressed compressed2; do
		"$TOOLS/phostile" $t bad >"$T/bad"
		bounded 30 100000 "$T/bad" ptojson
		[ "$status" -eq 1 ]
		grep -qx "ptojson: <stdin>: offset 0xa0: compressed data: SAMPLE record size 4 is smaller than its header (at 0x38 in its decompressed data)" "$T/err" ||
			{ cat "$T/err"; return 1; }
	done
}

# stalled_reader PROG [ARGS...]: PROG reads a big stream into a FIFO whose reader sleeps;
# SIGTERM while PROG is blocked writing.  Sets $status, $took (seconds) and $T/got (what
# the reader got once it woke up).
stalled_reader() {
	"$TOOLS/phostile" samples 1000000 >"$T/big"
	mkfifo "$T/fifo"
	{
		sleep 4
		cat >"$T/got"
	} <"$T/fifo" &
	local rpid=$! pid t0
	"$BIN/$1" "${@:2}" <"$T/big" >"$T/fifo" 2>"$T/err" &
	pid=$!
	sleep 1.5
	t0=$(date +%s%N)
	kill -TERM "$pid"
	status=0
	wait "$pid" || status=$?
	took=$((($(date +%s%N) - t0) / 1000000))
	wait "$rpid"
}

@test "hostile: SIGTERM ends pcat and pfilter blocked on a stalled reader at once, no record cut" {
	local p
	for p in pcat "pfilter pid>=0"; do
		# shellcheck disable=SC2086
		stalled_reader $p
		[ "$status" -eq 0 ] || { echo "$p: status $status"; cat "$T/err"; return 1; }
		[ ! -s "$T/err" ] || { cat "$T/err"; return 1; }
		# well under the reader's 2.5 s of sleep left
		[ "$took" -lt 2000 ] || { echo "$p: took $took ms"; return 1; }
		run -0 "$BIN/pcat" -o /dev/null "$T/got"
		rm -f "$T/fifo"
	done
}

@test "hostile: SIGTERM ends ptojson blocked on a stalled reader: status 0, complete lines, no message" {
	stalled_reader ptojson
	[ "$status" -eq 0 ]
	[ "$took" -lt 2000 ] || { echo "took $took ms"; return 1; }
	[ ! -s "$T/err" ] || { cat "$T/err"; return 1; }
	[ -s "$T/got" ]
	[ "$(tail -c 1 "$T/got" | od -An -c | tr -d ' ')" = '\n' ]
	jq -c . <"$T/got" >/dev/null
}

@test "hostile: ptojson says one thing about one write error, and EPIPE is quiet" {
	"$TOOLS/phostile" samples 100000 >"$T/s"
	run -1 --separate-stderr bash -c "'$BIN/ptojson' <'$T/s' >/dev/full"
	[ "${#stderr_lines[@]}" -eq 1 ] || { echo "$stderr"; return 1; }
	[[ "$stderr" == "ptojson: <stdout>: write error: No space left on device" ]] || { echo "$stderr"; return 1; }
	run -0 --separate-stderr bash -c "'$BIN/ptojson' <'$T/s' | head -n 1 >/dev/null"
	[ -z "$stderr" ]
}

@test "hostile: tracepoint fields that cannot be decoded are said once, with why" {
	local kind p want
	for kind in "" bad; do
		# shellcheck disable=SC2086
		"$TOOLS/phostile" tracepoint $kind >"$T/tp"
		case $kind in
		bad) want="the fields of tracepoint:0x12c are not decoded: its TRACING_DATA record cannot be read (offset 0xa0: tracing data: no tracing magic)" ;;
		*) want="the fields of tracepoint:0x12c are not decoded: the stream has no TRACING_DATA record" ;;
		esac
		for p in ptojson pcount; do
			run -0 --separate-stderr "$BIN/$p" "$T/tp"
			[ "$stderr" = "$p: $T/tp: $want" ] || { echo "$p: $stderr"; return 1; }
		done
	done
	# a stream whose tracepoints decode says nothing
	run -0 --separate-stderr "$BIN/ptojson" "$DATA/rawsys-dd.pipe"
	[ -z "$stderr" ]
}

@test "hostile: a 256 MiB AUXTRACE payload is held once at most, by every program" {
	"$TOOLS/phostile" auxtrace 256 >"$T/aux"
	# the largest record plus 64 MiB
	every_program 120 $(((256 + 64) * 1024)) "$T/aux" 0
	# the programs that do not use the payload do not hold it at all
	bounded 120 65536 "$T/aux" ptojson
	[ "$(wc -l <"$T/out")" -eq 2 ]
	bounded 120 65536 "$T/aux" pcount --by comm
	bounded 120 65536 "$T/aux" pflame
	bounded 120 $(((256 + 64) * 1024)) "$T/aux" pcat
	cmp_or_show "$T/aux" "$T/out"
	rm -f "$T/aux" "$T/out"
}

# ---- names from the stream are data: a thread names itself with any bytes (prctl) ----

# The thread names of named_stream, in the order the process takes them; it writes i + 1
# bytes to /dev/null (one write each) after taking the name of index i.
HOSTILE_NAMES=('sshd\x1f1' 'sshd' '--output=x' '\n  99999  sshd' 'a\t9999999\nb'
	'p' 'a\x1fb' 'p\x1fa' 'b')

# named_stream: $N, a recording by perf of a python3 that renames itself to each of
# HOSTILE_NAMES (task:task_rename, and its writes as raw_syscalls:sys_enter), made once
# per file; $NPID its pid as perf script prints it.
named_stream() {
	need_perf
	[ -x /usr/bin/python3 ] || skip "no /usr/bin/python3"
	N="$BATS_FILE_TMPDIR/named.pipe"
	if [ ! -s "$N" ]; then
		cat >"$BATS_FILE_TMPDIR/rename.py" <<'EOF_PY'
import ctypes, os, sys
libc = ctypes.CDLL(None)
fd = os.open("/dev/null", os.O_WRONLY)
for i, name in enumerate(sys.argv[1:]):
    libc.prctl(15, name.encode().decode("unicode_escape").encode("latin-1"), 0, 0, 0)
    for _ in range(i + 1):
        os.write(fd, b"x")
EOF_PY
		perf record -q -o - -e task:task_rename -e raw_syscalls:sys_enter --filter 'id == 1' \
			-- /usr/bin/python3 -S "$BATS_FILE_TMPDIR/rename.py" "${HOSTILE_NAMES[@]}" \
			>"$N.tmp" 2>"$N.err" || skip "perf record failed here: $(tail -n 1 "$N.err")"
		mv "$N.tmp" "$N"
	fi
	NPID=$(perf_script_pipe "$N" -F pid 2>/dev/null | tr -d ' ' | sort -u)
	[ "$(printf '%s\n' "$NPID" | wc -l)" -eq 1 ]
}

# the names as JSON strings, for jq
names_json() {
	python3 -c 'import json, sys
print(json.dumps([n.encode().decode("unicode_escape") for n in sys.argv[1:]]))' "${HOSTILE_NAMES[@]}"
}

@test "hostile: a thread named with 0x1f or a newline is one comm in pcount --by comm,pid: no fake pid, no row of its own" {
	named_stream
	local writes
	writes=$(perf_script_pipe "$N" -F event 2>/dev/null | grep -c 'raw_syscalls:sys_enter')
	[ "$writes" -eq 45 ] # 1 + 2 + ... + 9, as perf script counts them
	run -0 --separate-stderr "$BIN/pcount" --by comm,pid -w 'event = "raw_syscalls:sys_enter"' "$N"
	# a title and one line per name: a newline in a name makes no line of its own
	[ "${#lines[@]}" -eq 10 ] || { printf '%s\n' "${lines[@]}"; return 1; }
	# every row has the real pid, and each name is shown escaped, with its own count
	printf '%s\n' "${lines[@]:1}" | awk -v pid="$NPID" '$NF != pid { bad = 1 } END { exit bad }'
	printf '%s\n' "${lines[@]}" | tr -s ' ' >"$T/rows"
	grep -qx " 1 sshd\\\\x1f1 $NPID" "$T/rows"
	grep -qx " 2 sshd $NPID" "$T/rows"
	grep -qx " 4 \\\\n 99999 sshd $NPID" "$T/rows"
	grep -qx " 5 a\\\\t9999999\\\\nb $NPID" "$T/rows"
	[ "$(printf '%s\n' "${lines[@]:1}" | awk '{ n += $1 } END { print n }')" -eq "$writes" ]
}

@test "hostile: pcount --json gives a hostile comm's true value, JSON-escaped" {
	named_stream
	run -0 --separate-stderr "$BIN/pcount" -j --by comm,pid -w 'event = "raw_syscalls:sys_enter"' "$N"
	# row i is the name taken i-th: i + 1 writes
	echo "$output" | jq -e --argjson names "$(names_json)" --arg pid "$NPID" '
		(.rows | length) == 9 and .total == 45 and
		([.rows[] | select(.pid != $pid)] | length) == 0 and
		([range(9) as $i | .rows[] | select(.comm == $names[$i] and .count == $i + 1)]
		 | length) == 9'
}

@test "hostile: two different keys holding 0x1f are two rows in pcount and two pieces in psplit" {
	named_stream
	# the renames p -> a\x1fb and p\x1fa -> b once gave the same key text
	run -0 --separate-stderr "$BIN/pcount" -j --by oldcomm,newcomm -w 'oldcomm = "p" or oldcomm = "p\x1fa"' "$N"
	echo "$output" | jq -e '.total == 2 and (.rows | length) == 2 and
		([.rows[] | select(.oldcomm == "p" and .newcomm == "a\u001fb")] | length) == 1 and
		([.rows[] | select(.oldcomm == "p\u001fa" and .newcomm == "b")] | length) == 1'
	mkdir "$T/p"
	run -0 --separate-stderr "$BIN/psplit" --by oldcomm,newcomm -w 'oldcomm = "p" or oldcomm = "p\x1fa"' -d "$T/p" -o '%k.pipe' "$N"
	[ "$(find "$T/p" -name '*.pipe' | wc -l)" -eq 2 ]
	[ -f "$T/p/p,a%1Fb.pipe" ] && [ -f "$T/p/p%1Fa,b.pipe" ]
}

@test "hostile: psplit --by comm gives every name its own piece, none starting with '-'; pcat --merge *.pipe reads them all" {
	named_stream
	mkdir "$T/p"
	run -0 --separate-stderr "$BIN/psplit" --by comm -d "$T/p" -o '%k.pipe' "$N"
	# one piece per distinct comm that pcount counts
	[ "$(find "$T/p" -name '*.pipe' | wc -l)" -eq "$("$BIN/pcount" -j --by comm "$N" | jq '.rows | length')" ]
	[ -z "$(find "$T/p" -name '-*')" ]
	[ -f "$T/p/%2D-output=x.pipe" ] && [ -f "$T/p/sshd%1F1.pipe" ] && [ -f "$T/p/sshd.pipe" ]
	# the glob passes no option to pcat, and the pieces hold every sample
	(cd "$T/p" && "$BIN/pcat" --merge *.pipe) >"$T/merged"
	[ ! -e "$T/p/x" ]
	[ "$(perf_script_pipe "$T/merged" -F event 2>/dev/null | wc -l)" -eq \
		"$(perf_script_pipe "$N" -F event 2>/dev/null | wc -l)" ]
}

@test "hostile: pcount --folded | pflame --folded keeps the sample count perf script gives, whatever the comms" {
	named_stream
	local samples
	samples=$(perf_script_pipe "$N" -F event 2>/dev/null | wc -l)
	run -0 --separate-stderr "$BIN/pcount" --folded "$N"
	# one line per stack, each 'STACK COUNT', the names escaped
	[ "$(echo "$output" | awk '{ n += $NF } END { print n }')" -eq "$samples" ]
	echo "$output" | grep -q '^a\\x099999999\\x0ab;[^ ]* 5$'
	"$BIN/pcount" --folded "$N" | "$BIN/pflame" --folded -o "$T/g.svg"
	grep -q "<title>all ($samples samples, 100.00%)</title>" "$T/g.svg"
}

# sym_stream: $S, a perf recording with call graphs of a program whose hot function's ELF
# symbol holds a tab, a newline and a ';' (the name patched into its symbol table)
sym_stream() {
	need_perf
	command -v cc >/dev/null || skip "no C compiler"
	S="$BATS_FILE_TMPDIR/sym.pipe"
	[ -s "$S" ] && return 0
	cat >"$BATS_FILE_TMPDIR/sym.c" <<'EOF_C'
volatile unsigned long sink;
__attribute__((noinline)) void spin(void) __asm__("evilT9999999NSS99999SSsshdCx");
__attribute__((noinline)) void spin(void)
{
	for (unsigned long i = 0; i < 100000000UL; i++)
		sink += i;
}
int main(void)
{
	spin();
	return 0;
}
EOF_C
	cc -O1 -o "$BATS_FILE_TMPDIR/sym" "$BATS_FILE_TMPDIR/sym.c"
	python3 -c 'import sys
p = sys.argv[1]; b = open(p, "rb").read(); old = b"evilT9999999NSS99999SSsshdCx"
assert b.count(old) == 1
open(p, "wb").write(b.replace(old, b"evil\t9999999\n  99999  sshd;x"))' "$BATS_FILE_TMPDIR/sym"
	perf record -q -g -e cpu-clock -o - -- "$BATS_FILE_TMPDIR/sym" >"$S.tmp" 2>"$S.err" ||
		skip "perf record failed here: $(tail -n 1 "$S.err")"
	mv "$S.tmp" "$S"
}

@test "hostile: an ELF symbol with a tab and a newline neither adds samples to pflame --folded nor a row to ptop" {
	sym_stream
	local samples
	samples=$(perf_script_pipe "$S" -F event 2>/dev/null | grep -c 'cpu-clock')
	"$BIN/pcount" --folded "$S" >"$T/folded"
	grep -q 'evil\\x099999999\\x0a  99999  sshd:x' "$T/folded"
	[ "$(awk '{ n += $NF } END { print n }' "$T/folded")" -eq "$samples" ]
	"$BIN/pflame" --folded -o "$T/g.svg" "$T/folded"
	grep -q "<title>all ($samples samples, 100.00%)</title>" "$T/g.svg"
	# ptop's table: one line per symbol, the hot one escaped
	run -0 --separate-stderr "$BIN/ptop" --report <"$S"
	[[ "$output" == *' evil\t9999999\n  99999  sshd;x'* ]]
	! echo "$output" | grep -q '^ *99999  sshd'
	[ "$(echo "$output" | grep -c '^ *[0-9]')" -eq "$("$BIN/pcount" -j --by sym "$S" | jq '.rows | length')" ]
}

@test "hostile: syscall-counts-by-pid --report prints one row per process and syscall, whatever the process is named" {
	named_stream
	local rows
	rows=$("$BIN/pcount" -j --by comm,pid,syscall -w 'event = "raw_syscalls:sys_enter"' "$N" | jq '.rows | length')
	[ "$rows" -eq 9 ]
	run -0 --separate-stderr "$BIN/syscall-counts-by-pid" --report <"$N"
	[ "${#lines[@]}" -eq $((rows + 1)) ] || { printf '%s\n' "${lines[@]}"; return 1; }
	! printf '%s\n' "${lines[@]}" | grep -q '^ *99999'
	printf '%s\n' "${lines[@]:1}" | awk -v pid="$NPID" '$(NF - 1) != pid { bad = 1 } END { exit bad }'
}

# ---- names from the stream are data: SQL and JSON (issue 21, items 4, 7 and 8) ----

# event, field and system names that try every way out of an SQL comment or a quoted name:
# newlines, quotes, backticks, semicolons, a NUL, invalid UTF-8, a C1 control, */ (phostile
# escapes: \n \xNN \\)
SQL_NAMES=(
	'evil\n);DROP TABLE important;--'
	'q"u`o'"'"'te;\n) ENGINE = Memory; DROP TABLE important; --'
	'nul\x00\n);DROP TABLE important;--'
	'utf\xff\xfe\xc2\x85*/\r\n--\\`);DROP TABLE important;\x1b[31m'
)

# hostile_stream HOW NAME > stream: NAME as the events' name, a field's or the system's
hostile_stream() {
	case $1 in
	event) "$TOOLS/phostile" names "$2" ;;
	field) "$TOOLS/phostile" names ev "$2" ;;
	system) "$TOOLS/phostile" names '' f "$2" ;;
	esac
}

# the column names a table has, as a sorted JSON array
sqlite_columns() { # sqlite_columns DB TABLE
	sqlite3 -json "$1" "SELECT name FROM pragma_table_info('$2')" | jq -c '[.[].name] | sort'
}

# the keys ptojson writes for the stream's samples, as the columns they load into
ptojson_columns() { # ptojson_columns STREAM
	"$BIN/ptojson" "$1" | jq -s -c '[(.[] | keys[] | select(. != "fields")),
		(.[] | .fields // {} | keys[] | "fields." + .),
		"host", "cpu", "comm"] | unique'
}

@test "hostile: names from the stream never leave an SQL comment or a quoted name (sqlite3)" {
	local name how cols want
	for name in "${SQL_NAMES[@]}"; do
		for how in event field system; do
			hostile_stream "$how" "$name" >"$T/s.pipe"
			rm -f "$T/db"
			sqlite3 "$T/db" 'CREATE TABLE important (x)'
			run -0 --separate-stderr "$BIN/pheader" --schema "$T/s.pipe"
			printf 'CREATE TABLE samples (\n%s\n);\n' "$output" >"$T/schema.sql"
			run -0 sqlite3 -bail "$T/db" ".read $T/schema.sql"
			# the one table made, nothing else done
			run -0 sqlite3 "$T/db" "SELECT name FROM sqlite_master ORDER BY name"
			[ "$output" = "$(printf 'important\nsamples')" ] || { echo "$how $name: $output"; cat "$T/schema.sql"; return 1; }
			# a column per key ptojson writes, but field n (a number, then text)
			cols=$(sqlite_columns "$T/db" samples)
			want=$(ptojson_columns "$T/s.pipe" | jq -c '. - ["fields.n"]')
			[ "$cols" = "$want" ] || { echo "$how $name: $cols, not $want"; return 1; }
			# the comment that says so is one line, whatever the names
			[ "$(grep -c -- '-- no column' "$T/schema.sql")" -le 1 ]
			! grep -q '^[^ ]' <(sed '1d;$d' "$T/schema.sql") || { cat "$T/schema.sql"; return 1; }
		done
	done
}

# the port of the ClickHouse server .ci/run started, or a skip
need_clickhouse() {
	if [ -z "${PSTREAM_CLICKHOUSE_DIR:-}" ] || ! command -v clickhouse-client >/dev/null; then
		skip "no ClickHouse server (PSTREAM_CLICKHOUSE_DIR, started by .ci/run)"
	fi
	CH_PORT=$("$TOP/tests/clickhouse-server.sh" port "$PSTREAM_CLICKHOUSE_DIR") ||
		skip "no ClickHouse server answers in $PSTREAM_CLICKHOUSE_DIR"
	CH_DB="hostile_$$_$RANDOM"
}

ch() {
	clickhouse-client --host 127.0.0.1 --port "$CH_PORT" "$@"
}

@test "hostile: names from the stream never leave a ClickHouse comment or quoted name; rows load" {
	local name how n=0 cols want
	need_clickhouse
	ch -q "CREATE DATABASE $CH_DB" </dev/null
	ch -q "CREATE TABLE $CH_DB.important (x UInt8) ENGINE = Memory" </dev/null
	for name in "${SQL_NAMES[@]}"; do
		for how in event field system; do
			n=$((n + 1))
			hostile_stream "$how" "$name" >"$T/s.pipe"
			"$BIN/pheader" --schema clickhouse --table "$CH_DB.s$n" "$T/s.pipe" >"$T/schema.sql"
			run -0 ch -n <"$T/schema.sql"
			# the columns: one per key ptojson writes, but field n
			cols=$(ch -q "SELECT name FROM system.columns WHERE database = '$CH_DB' AND table = 's$n' FORMAT JSONEachRow" </dev/null | jq -s -c '[.[].name] | sort')
			want=$(ptojson_columns "$T/s.pipe" | jq -c '. - ["fields.n"] + ["batch", "stack"] | sort')
			[ "$cols" = "$want" ] || { echo "$how $name: $cols, not $want"; cat "$T/schema.sql"; return 1; }
			# the loader makes the same table and its rows load, names as ptojson writes them
			run -0 "$BIN/pstream-clickhouse" -H 127.0.0.1 -P "$CH_PORT" -d "$CH_DB" -t "l$n" <"$T/s.pipe"
			cols=$(ch -q "SELECT event FROM $CH_DB.l$n ORDER BY time FORMAT JSONEachRow" </dev/null | jq -c .)
			want=$("$BIN/ptojson" "$T/s.pipe" 2>/dev/null | jq -c '{event}')
			[ "$cols" = "$want" ] || { echo "$how $name: $cols, not $want"; return 1; }
		done
	done
	run -0 ch -q "SHOW TABLES FROM $CH_DB" </dev/null
	[ "$(echo "$output" | grep -c .)" -eq $((2 * n + 1)) ]
	[ "$(echo "$output" | grep -c -v '^\(important\|[sl][0-9]*\)$')" -eq 0 ] || { echo "$output"; return 1; }
	ch -q "DROP DATABASE $CH_DB" </dev/null
}

# every row of a ClickHouse table, all columns but batch, as JSON text
ch_table_rows() { # ch_table_rows DB TABLE
	local cols
	cols=$(ch -q "SELECT arrayStringConcat(groupArray(concat('\`', name, '\`')), ', ') FROM
		(SELECT name FROM system.columns WHERE database = '$1' AND table = '$2'
		 AND name != 'batch' ORDER BY name)" </dev/null)
	ch --output_format_json_quote_64bit_integers=0 \
		-q "SELECT $cols FROM $1.$2 FORMAT JSONEachRow" </dev/null | LC_ALL=C sort
}

@test "hostile: names in RowBinary rows arrive as the JSON rows bring them; stack is pcount --folded's bytes" {
	local name how n=0 pid=$$ fmt
	need_clickhouse
	ch -q "CREATE DATABASE $CH_DB" </dev/null
	# event, field and system names
	for name in "${SQL_NAMES[@]}"; do
		for how in event field system; do
			n=$((n + 1))
			hostile_stream "$how" "$name" >"$T/s.pipe"
			for fmt in json rowbinary; do
				run -0 "$BIN/pstream-clickhouse" -H 127.0.0.1 -P "$CH_PORT" -d "$CH_DB" \
					-t "$fmt$n" --format "$fmt" <"$T/s.pipe"
			done
			diff <(ch_table_rows "$CH_DB" "json$n") <(ch_table_rows "$CH_DB" "rowbinary$n") ||
				{ echo "$how $name: rows differ"; return 1; }
		done
	done
	# function names with a tab, quotes, a backslash, ';', invalid UTF-8, an escape
	# sequence (a JIT map), in sym, callchain.sym and stack
	printf '7f0000001000 100 tab\there"q'"'"'uote\\back\xff\xfeslash;semi sp\n7f0000001100 100 esc\x1b[31m`tick\xc3\n' \
		>"/tmp/perf-$pid.map"
	"$TOOLS/phostile" mmap2 "$pid" //anon >"$T/j.pipe"
	for fmt in json rowbinary; do
		run -0 "$BIN/pstream-clickhouse" -H 127.0.0.1 -P "$CH_PORT" -d "$CH_DB" -t "j$fmt" \
			--format "$fmt" <"$T/j.pipe"
	done
	[ "$(ch -q "SELECT count() FROM $CH_DB.jrowbinary WHERE position(sym, 'tab\there') = 1" </dev/null)" -gt 0 ]
	# the JSON rows' stack has U+FFFD where the bytes are not UTF-8: all but stack
	diff <(ch_table_rows "$CH_DB" jjson | jq -c 'del(.stack)') \
		<(ch_table_rows "$CH_DB" jrowbinary | jq -c 'del(.stack)')
	# the stack bytes are pcount's
	diff <("$BIN/pcount" --folded "$T/j.pipe" | LC_ALL=C sort) \
		<(ch -q "SELECT stack, count() FROM $CH_DB.jrowbinary GROUP BY stack FORMAT TSVRaw" </dev/null |
			tr '\t' ' ' | LC_ALL=C sort)
	grep -q $'\xff' <(ch -q "SELECT stack FROM $CH_DB.jrowbinary FORMAT TSVRaw" </dev/null)
	rm -f "/tmp/perf-$pid.map"
	ch -q "DROP DATABASE $CH_DB" </dev/null
}

@test "hostile: a u64 field widened with a signed one keeps 2^63+5 and -5 exactly (ClickHouse)" {
	need_clickhouse
	"$TOOLS/phostile" names ev >"$T/s.pipe"
	ch -q "CREATE DATABASE $CH_DB" </dev/null
	run -0 "$BIN/pstream-clickhouse" -H 127.0.0.1 -P "$CH_PORT" -d "$CH_DB" -t w <"$T/s.pipe"
	run -0 ch -q "SELECT toString(\`fields.big\`) FROM $CH_DB.w ORDER BY time" </dev/null
	ch -q "DROP DATABASE $CH_DB" </dev/null
	[ "$output" = "$(printf '9223372036854775813\n-5')" ]
	# the values ptojson writes
	[ "$("$BIN/ptojson" "$T/s.pipe" | grep -o '"big":[-0-9]*' | tr '\n' ' ')" = '"big":9223372036854775813 "big":-5 ' ]
}

@test "hostile: a u64 field widened with a signed one is NUMERIC(20) in SQL (sqlite3: -5 and 2^63-1 exact)" {
	"$TOOLS/phostile" names ev >"$T/s.pipe"
	run -0 --separate-stderr "$BIN/pheader" --schema "$T/s.pipe"
	printf 'CREATE TABLE samples (\n%s\n);\n' "$output" >"$T/schema.sql"
	grep -q '^    "fields.big" NUMERIC(20),$' "$T/schema.sql"
	sqlite3 -bail "$T/db" ".read $T/schema.sql"
	run -0 sqlite3 "$T/db" "INSERT INTO samples (\"fields.big\") VALUES (-5), (9223372036854775807), (-9223372036854775808); SELECT \"fields.big\" FROM samples"
	[ "$output" = "$(printf -- '-5\n9223372036854775807\n-9223372036854775808')" ]
}
