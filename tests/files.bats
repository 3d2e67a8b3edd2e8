#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# The files a command line names: -o never destroys an input and is never left half
# written; a terminal on standard input is refused instead of waited on.

bats_require_minimum_version 1.5.0

setup() {
	load helpers
	T="$BATS_TEST_TMPDIR"
	cp "$DATA/rawsys-dd.pipe" "$T/c.pipe"
}

# nothing but the files the test made: no temporary file left behind
no_leftovers() {
	local extra
	extra=$(find "$T" -name '.*.??????' -type f)
	[ -z "$extra" ] || { echo "left behind: $extra"; return 1; }
}

@test "files: -o naming the input is refused (exit 2) and the input stays whole" {
	local msg="is also the input: writing it would destroy it; name another output"
	run -2 --separate-stderr "$BIN/pfilter" -i "$T/c.pipe" -o "$T/c.pipe" comm=dd
	[ "$stderr" = "pfilter: $T/c.pipe: $msg" ]
	run -2 --separate-stderr "$BIN/pcat" "$T/c.pipe" -o "$T/c.pipe"
	[ "$stderr" = "pcat: $T/c.pipe: $msg" ]
	run -2 --separate-stderr "$BIN/ptojson" "$T/c.pipe" -o "$T/c.pipe"
	[ "$stderr" = "ptojson: $T/c.pipe: $msg" ]
	run -2 --separate-stderr "$BIN/pfilter" -c -i "$T/c.pipe" -o "$T/c.pipe" comm=dd
	# the same file under another name: standard input, a symbolic link, a second operand
	run -2 --separate-stderr "$BIN/pfilter" -o "$T/c.pipe" comm=dd <"$T/c.pipe"
	[[ "$stderr" == *"is also the input (on standard input)"* ]]
	ln -s c.pipe "$T/link"
	run -2 --separate-stderr "$BIN/pcat" "$DATA/rawsys-dd.pipe" "$T/c.pipe" -o "$T/link"
	[[ "$stderr" == "pcat: $T/link: is also the input ($T/c.pipe)"* ]]
	cmp "$T/c.pipe" "$DATA/rawsys-dd.pipe"
	[ -L "$T/link" ]
	no_leftovers
}

@test "files: pcat --data -o naming the input is refused, and the input stays whole" {
	local msg="is also the input: writing it would destroy it; name another output"
	run -2 --separate-stderr "$BIN/pcat" --data "$T/c.pipe" -o "$T/c.pipe"
	[ "$stderr" = "pcat: $T/c.pipe: $msg" ]
	cmp "$T/c.pipe" "$DATA/rawsys-dd.pipe"
	"$BIN/pcat" --data -o "$T/c.data" "$T/c.pipe"
	cp "$T/c.data" "$T/c.data.orig"
	run -2 --separate-stderr "$BIN/pcat" --data "$T/c.data" -o "$T/c.data"
	[ "$stderr" = "pcat: $T/c.data: $msg" ]
	cmp "$T/c.data" "$T/c.data.orig"
	no_leftovers
}

@test "files: pcat --data writes through a temporary name: the old file stays until the end" {
	local pid
	"$BIN/pcat" --data -o "$T/want.data" "$T/c.pipe"
	echo old >"$T/out.data"
	mkfifo "$T/fifo"
	"$BIN/pcat" --data -o "$T/out.data" <"$T/fifo" &
	pid=$!
	exec 5>"$T/fifo"
	head -c 50000 "$T/c.pipe" >&5
	sleep 1
	[ "$(cat "$T/out.data")" = old ]
	[ -n "$(find "$T" -name '.out.data.??????')" ]
	tail -c +50001 "$T/c.pipe" >&5
	exec 5>&-
	wait "$pid"
	cmp "$T/out.data" "$T/want.data"
	no_leftovers
}

@test "files: -o writes through a temporary name: the old file stays until the end" {
	local pid
	echo old >"$T/out"
	chmod 600 "$T/out"
	mkfifo "$T/fifo"
	"$BIN/pcat" -o "$T/out" <"$T/fifo" &
	pid=$!
	exec 5>"$T/fifo"
	head -c 50000 "$T/c.pipe" >&5
	sleep 1
	# half way: the old file is still there, the new one grows under another name
	[ "$(cat "$T/out")" = old ]
	[ -n "$(find "$T" -name '.out.??????' -size +1k)" ]
	tail -c +50001 "$T/c.pipe" >&5
	exec 5>&-
	wait "$pid"
	cmp "$T/out" "$T/c.pipe"
	# the permissions of the file it replaced
	[ "$(stat -c %a "$T/out")" = 600 ]
	no_leftovers
}

@test "files: a run killed half way leaves the old file under the name" {
	local pid
	echo old >"$T/out"
	mkfifo "$T/fifo"
	"$BIN/pfilter" -o "$T/out" comm=dd <"$T/fifo" &
	pid=$!
	exec 5>"$T/fifo"
	head -c 50000 "$T/c.pipe" >&5
	sleep 1
	kill -KILL "$pid"
	wait "$pid" || true
	exec 5>&-
	[ "$(cat "$T/out")" = old ]
}

@test "files: Ctrl-C on a live stream keeps what was written; a usage error writes nothing" {
	local pid st=0
	mkfifo "$T/fifo"
	"$BIN/pcat" -o "$T/live" <"$T/fifo" &
	pid=$!
	exec 5>"$T/fifo"
	cat "$T/c.pipe" >&5
	sleep 1
	kill -INT "$pid"
	wait "$pid" || st=$?
	exec 5>&-
	[ "$st" -eq 0 ]
	cmp "$T/live" "$T/c.pipe"
	# a filter refused at start-up, and a file that is not a stream
	run -2 "$BIN/pfilter" -i "$T/c.pipe" -o "$T/none" 'nosuchfield = 1'
	[ ! -e "$T/none" ]
	# a refusal once the stream is read leaves the old file too
	echo old >"$T/old"
	run -2 "$BIN/ptojson" -t iso -o "$T/old" "$T/c.pipe"
	[ "$(cat "$T/old")" = old ]
	# a new file gets the permissions the umask allows
	(umask 027 && "$BIN/pcat" -o "$T/new" "$T/c.pipe")
	[ "$(stat -c %a "$T/new")" = 640 ]
	# a device is written as it is
	run -0 "$BIN/pcat" -o /dev/null "$T/c.pipe"
	no_leftovers
}

@test "files: psplit writes no piece over its input, named or on standard input, and a refusal leaves no piece" {
	local msg="is also the input"
	mkdir "$T/d"
	cp "$T/c.pipe" "$T/d/p-0002.pipe"
	run -2 --separate-stderr "$BIN/psplit" -n 300 -o 'p-%n.pipe' -d "$T/d" "$T/d/p-0002.pipe"
	[[ "$stderr" == "psplit: $T/d/p-0002.pipe: $msg"* ]]
	cmp "$T/d/p-0002.pipe" "$T/c.pipe"
	run -2 --separate-stderr "$BIN/psplit" -n 300 -o 'p-%n.pipe' -d "$T/d" <"$T/d/p-0002.pipe"
	[[ "$stderr" == "psplit: $T/d/p-0002.pipe: $msg (on standard input)"* ]]
	cmp "$T/d/p-0002.pipe" "$T/c.pipe"
	# the pieces before it are not left either
	[ "$(ls -A "$T/d")" = p-0002.pipe ]
	# --data: the perf.data file a piece becomes
	cp "$DATA/cpuclock-g-sh.data" "$T/d/x-0000.data"
	run -2 --separate-stderr "$BIN/psplit" --data -n 100000 -o 'x-%n.data' -d "$T/d" "$T/d/x-0000.data"
	[[ "$stderr" == "psplit: $T/d/x-0000.data: $msg"* ]]
	cmp "$T/d/x-0000.data" "$DATA/cpuclock-g-sh.data"
	no_leftovers
}

@test "files: psplit's pieces are written under temporary names until the end; killed, no half piece has a piece's name" {
	local pid f="$DATA/sched-switch-wakeup-a.pipe"
	# (a recording with FINISHED_ROUND records: psplit writes samples as rounds end)
	mkfifo "$T/fifo"
	"$BIN/psplit" -n 100000 -o 'p-%n.pipe' -d "$T/d" <"$T/fifo" >"$T/names" &
	pid=$!
	exec 5>"$T/fifo"
	head -c 150000 "$f" >&5
	sleep 1
	[ ! -e "$T/d/p-0000.pipe" ]
	[ -n "$(find "$T/d" -name '.p-0000.pipe.??????')" ]
	tail -c +150001 "$f" >&5
	exec 5>&-
	wait "$pid"
	[ "$(cat "$T/names")" = "$T/d/p-0000.pipe" ]
	cmp <(perf script -i - <"$T/d/p-0000.pipe" 2>/dev/null) <(perf script -i - <"$f" 2>/dev/null)
	no_leftovers
	# killed half way
	rm -f "$T/fifo" && mkfifo "$T/fifo"
	"$BIN/psplit" -n 100000 -o 'q-%n.pipe' -d "$T/d" <"$T/fifo" >/dev/null &
	pid=$!
	exec 5>"$T/fifo"
	head -c 150000 "$f" >&5
	sleep 1
	[ -n "$(find "$T/d" -name '.q-0000.pipe.??????')" ]
	kill -KILL "$pid"
	wait "$pid" || true
	exec 5>&-
	[ ! -e "$T/d/q-0000.pipe" ]
}

@test "files: a terminal on standard input is refused, not waited on" {
	command -v script >/dev/null || skip "script (bsdutils) not installed"
	local p
	for p in pcat pfilter ptojson pheader pcount; do
		local args=()
		[ "$p" = pfilter ] && args=(comm=dd -o /dev/null)
		run -0 timeout 10 script -qec "$BIN/$p ${args[*]}; echo status=\$?" /dev/null
		[[ "$output" == *"$p: <stdin>: reading a stream from the terminal; pipe one in or name a file"* ]]
		[[ "$output" == *"status=2"* ]]
	done
	# a named file is read as usual even from a terminal
	run -0 timeout 10 script -qec "$BIN/pheader $T/c.pipe >/dev/null; echo status=\$?" /dev/null
	[[ "$output" == *"status=0"* ]]
}
