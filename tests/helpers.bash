# SPDX-License-Identifier: GPL-2.0-only
# Loaded by every .bats file: paths, fixtures, skips for a missing perf, run_pipe.

TOP="$(cd "$BATS_TEST_DIRNAME/.." && pwd)"
BIN="$TOP/bin"
TOOLS="$TOP/build/tools"
DATA="$TOP/tests/data"
# the shared fixture set, when this checkout sits beside it
FIXTURES="${PSTREAM_FIXTURES:-$TOP/../shared/fixtures}"

# run_pipe "cmd1" "cmd2": cmd1 | cmd2 with pipefail (bats 1.8 has no bats_pipe)
run_pipe() {
	bash -o pipefail -c "$1 | $2"
}

need_perf() {
	command -v perf >/dev/null 2>&1 || skip "perf not installed"
}

need_fixtures() {
	[ -d "$FIXTURES" ] || skip "shared fixtures not present"
}

# fixture NAME: the path of a fixture of the shared set by name; without the set, its copy in
# tests/data or tests/data/fixtures, or for the damaged ones (BAD-*) a copy made here by the command
# MANIFEST.tsv gives for it, from tests/data/rawsys-dd.pipe (the same bytes as the shared one)
fixture() {
	local name=$1 dir="$BATS_FILE_TMPDIR/fixtures"
	if [ -f "$FIXTURES/$name" ]; then
		echo "$FIXTURES/$name"
		return
	fi
	if [ -f "$DATA/$name" ] || [ -f "$DATA/fixtures/$name" ]; then
		[ -f "$DATA/$name" ] && echo "$DATA/$name" || echo "$DATA/fixtures/$name"
		return
	fi
	mkdir -p "$dir"
	case "$name" in
	BAD-truncated-midrecord.pipe)
		head -c 58632 "$DATA/rawsys-dd.pipe" >"$dir/$name"
		;;
	BAD-corrupt-header.pipe)
		cp "$DATA/rawsys-dd.pipe" "$dir/$name"
		printf '\377\377\377\377\377\377\377\377' |
			dd of="$dir/$name" bs=1 seek=34396 conv=notrunc status=none
		;;
	*)
		echo "no fixture $name" >&2
		return 1
		;;
	esac
	echo "$dir/$name"
}

# the damaged fixtures (BAD-*), by path
bad_fixtures() {
	fixture BAD-truncated-midrecord.pipe
	fixture BAD-corrupt-header.pipe
}

# good fixtures: the shared set when present, else the ones bundled in tests/data
good_pipes() {
	local f
	if [ -d "$FIXTURES" ]; then
		for f in "$FIXTURES"/*.pipe; do
			case "$(basename "$f")" in BAD-*) ;; *) echo "$f" ;; esac
		done
	else
		ls "$DATA"/*.pipe
	fi
}

good_files() {
	if [ -d "$FIXTURES" ]; then
		ls "$FIXTURES"/*.data
	else
		ls "$DATA"/*.data 2>/dev/null || true
	fi
}

# every good fixture: the pipe streams, then the perf.data files
good_inputs() {
	good_pipes
	good_files
}

# perf reads a stream on stdin only through -i - and a pipe or file on fd 0
perf_script_pipe() {
	perf script -i - "${@:2}" <"$1"
}

# perf script's view of a stream FILE [ARGS...]: -i FILE for a perf.data file (by its name),
# standard input for a pipe; perf's warnings dropped
perf_script_any() {
	local f=$1
	shift
	if [[ "$f" == *.data ]]; then
		perf script -i "$f" "$@" 2>/dev/null
	else
		perf script -i - "$@" <"$f" 2>/dev/null
	fi
}

# perf_folded STREAM OUT: perf's stackcollapse lines of the pipe STREAM, sorted, into OUT;
# skip where perf has no python scripting or it gives nothing
perf_folded() {
	perf script report stackcollapse -i - <"$1" 2>/dev/null | sort >"$2" ||
		skip "perf has no python scripting"
	[ -s "$2" ] || skip "perf's stackcollapse gave nothing"
}

# a program recorded (-g) into $BATS_TEST_TMPDIR/moved.pipe, then moved under
# $BATS_TEST_TMPDIR/root: its frames are named only through --symfs
moved_recording() {
	need_perf
	command -v gcc >/dev/null || skip "gcc not installed"
	local t=$BATS_TEST_TMPDIR
	gcc -O0 -g -fno-omit-frame-pointer -o "$t/moved" "$TOP/tests/data/symbols-work.c" -lm
	perf record -q -g -e cpu-clock -F 999 -o - "$t/moved" 50 >"$t/moved.pipe" 2>/dev/null ||
		skip "perf cannot record here"
	mkdir -p "$t/root$t"
	mv "$t/moved" "$t/root$t/moved"
}

# help_starts PROG TEXT: PROG --help prints what starts with TEXT on stdout, nothing on
# stderr, and exits 0
help_starts() {
	run -0 --separate-stderr "$BIN/$1" --help
	[[ "$output" == "$2"* ]]
	[ -z "$stderr" ]
}

# terminal_refused CMD CMD_F: with standard output on a terminal (script(1)), the shell
# command CMD refuses to write a binary stream there, and CMD_F (CMD with -f, its output
# sent to /dev/null) exits 0
terminal_refused() {
	command -v script >/dev/null || skip "script(1) not installed"
	run script -qec "$1" /dev/null
	[[ "$output" == *"refusing to write a binary stream to a terminal"* ]]
	run script -qec "$2 > /dev/null; echo rc=\$?" /dev/null
	[[ "$output" == *"rc=0"* ]]
}

# version_names PROG: PROG --version prints "PROG (pstream) VERSION" and exits 0
version_names() {
	run -0 "$BIN/$1" --version
	[[ "$output" == "$1 (pstream) "* ]]
}

# usage_refused PROG ARGS...: PROG ARGS exits 2 with its usage line on stderr
usage_refused() {
	run -2 --separate-stderr "$BIN/$1" "${@:2}"
	[[ "$stderr" == *"usage: $1"* ]]
}

# record_once NAME CMD...: CMD's standard output as $WORK/NAME, made once per file (its
# stderr shown when it fails)
record_once() {
	local name=$1
	shift
	[ -s "$WORK/$name" ] && return 0
	"$@" >"$WORK/$name.tmp" 2>"$WORK/$name.err" || {
		cat "$WORK/$name.err"
		return 1
	}
	mv "$WORK/$name.tmp" "$WORK/$name"
}

# run a program built with ASan/UBSan (build/san/bin); only statuses 0, 1 and 2 with no
# sanitizer report pass
clean_run() {
	local st=0
	"$@" >/dev/null 2>"$BATS_TEST_TMPDIR/err" || st=$?
	if [ "$st" -gt 2 ] || grep -q 'Sanitizer\|runtime error' "$BATS_TEST_TMPDIR/err"; then
		echo "$* -> $st"
		head -n 20 "$BATS_TEST_TMPDIR/err"
		return 1
	fi
}

# print the first differing bytes of two files, then fail
cmp_or_show() {
	if ! cmp -s "$1" "$2"; then
		echo "files differ: $1 $2"
		cmp -l "$1" "$2" | head -n 10
		return 1
	fi
}

# signal_while_reading SIGNAL PAUSE INPUT COMMAND...: COMMAND reads a fifo into
# $BATS_TEST_TMPDIR/out; INPUT's bytes are written into the fifo, which stays open; after
# PAUSE seconds COMMAND gets SIGNAL.  Its exit status is left in $signal_status.
signal_while_reading() {
	local sig=$1 pause=$2 input=$3 fifo="$BATS_TEST_TMPDIR/fifo" pid
	shift 3
	rm -f "$fifo"
	mkfifo "$fifo"
	"$@" <"$fifo" >"$BATS_TEST_TMPDIR/out" &
	pid=$!
	exec 5>"$fifo"
	cat "$input" >&5
	sleep "$pause"
	kill -"$sig" "$pid"
	signal_status=0
	wait "$pid" || signal_status=$?
	exec 5>&-
}

# output_is: the standard output of the last `run` is exactly the lines on standard input
output_is() {
	local want
	want=$(cat)
	if [ "$output" != "$want" ]; then
		diff <(printf '%s\n' "$want") <(printf '%s\n' "$output") | head -n 20
		return 1
	fi
}

# the programs built from src/*.c (every one has a page: man.bats, options.bats)
programs() {
	local p
	for p in "$TOP"/src/*.c; do
		p=$(basename "$p" .c)
		[ -x "$BIN/$p" ] && echo "$p"
	done
}

# perf_workdir TRACEPOINT: for a setup_file that records with perf: W, a directory for what it
# records (exported: the tests look there), made; fails where perf or the tracepoint
# (CATEGORY/NAME; tracefs mounted on the way if need be) is missing
perf_workdir() {
	export W="$BATS_FILE_TMPDIR/w"
	mkdir -p "$W"
	command -v perf >/dev/null || return 1
	[ -e /sys/kernel/tracing/events ] || mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null ||
		true
	[ -e "/sys/kernel/tracing/events/$1" ]
}

# server_stop SCRIPT OWN DIR: for a teardown_file: stop the private server tests/SCRIPT
# (clickhouse-server.sh, nats-server.sh) started in DIR and remove DIR, when this file
# started it (OWN not empty)
server_stop() {
	[ -n "$2" ] || return 0
	"$TOP/tests/$1" stop "$3"
	rm -rf "$3"
}

# need_tool NAME: the test tool tests/tools/NAME is built (fails, saying so, when not)
need_tool() {
	[ -x "$TOOLS/$1" ] || {
		echo "tests/tools/$1 not built: run make tools"
		return 1
	}
}
