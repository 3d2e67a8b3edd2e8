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
