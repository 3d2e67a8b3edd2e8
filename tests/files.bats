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

# The programs that write -o, each writing "$2" from the fixture ("$1" names the way):
# every output file goes through the one helper (files.h, pstream(7) FILES).
WRITERS="pcat pcat-data pfilter pfilter-c ptojson pflame pflame-i precord psplit"
write_o() {
	case "$1" in
	pcat) "$BIN/pcat" -o "$2" "$T/c.pipe" ;;
	pcat-data) "$BIN/pcat" --data -o "$2" "$T/c.pipe" ;;
	pfilter) "$BIN/pfilter" -i "$T/c.pipe" -o "$2" comm=dd ;;
	pfilter-c) "$BIN/pfilter" -c -i "$T/c.pipe" -o "$2" comm=dd ;;
	ptojson) "$BIN/ptojson" -o "$2" "$T/c.pipe" ;;
	pflame) "$BIN/pflame" -o "$2" "$T/c.pipe" ;;
	# one interval: %n is 1
	pflame-i) "$BIN/pflame" -i 1000s -o "${2%/*}/%n${2##*/}" "$T/c.pipe" ;;
	precord) "$BIN/precord" -q -e sched:sched_process_exec -o "$2" -- true ;;
	# one piece: %n is 0000
	psplit) "$BIN/psplit" -n 100000000 -d "${2%/*}" -o "%n${2##*/}" "$T/c.pipe" >/dev/null ;;
	esac
}
# the name write_o writes for "$2"
written() {
	case "$1" in
	pflame-i) echo "${2%/*}/1${2##*/}" ;;
	psplit) echo "${2%/*}/0000${2##*/}" ;;
	*) echo "$2" ;;
	esac
}

@test "files: a device at -o is written as it is by every program, never replaced" {
	local w st
	for w in $WRITERS; do
		rm -rf "$T/d" && mkdir "$T/d"
		mknod "$(written "$w" "$T/d/nul")" c 1 3
		mknod "$(written "$w" "$T/d/full")" c 1 7
		st=0
		write_o "$w" "$T/d/nul" 2>"$T/err" || st=$?
		case "$w" in
		pcat-data) [ "$st" = 1 ] ;; # a perf.data file needs a regular file
		psplit) [ "$st" = 2 ] ;;    # pieces are regular files
		*) [ "$st" = 0 ] || { echo "$w: status $st: $(cat "$T/err")"; false; } ;;
		esac
		[ -c "$(written "$w" "$T/d/nul")" ] || { echo "$w replaced the device"; false; }
		# a full one: one message, status 1, still a device
		[ "$w" = psplit ] && continue
		run -1 --separate-stderr write_o "$w" "$T/d/full"
		[[ "$stderr" == *"No space left on device" ]] || [ "$w" = pcat-data ]
		[ "${#stderr_lines[@]}" = 1 ] || { echo "$w: ${stderr_lines[*]}"; false; }
		[ -c "$(written "$w" "$T/d/full")" ]
	done
	no_leftovers
}

@test "files: a FIFO at -o is written as it is by every program" {
	local w pid
	for w in $WRITERS; do
		[ "$w" = pcat-data ] || [ "$w" = psplit ] && continue
		rm -rf "$T/d" && mkdir "$T/d"
		mkfifo "$(written "$w" "$T/d/fifo")"
		# (a program that replaces the FIFO would leave cat waiting for a writer)
		timeout 20 cat "$(written "$w" "$T/d/fifo")" >"$T/got" &
		pid=$!
		write_o "$w" "$T/d/fifo"
		wait "$pid"
		[ -p "$(written "$w" "$T/d/fifo")" ]
		[ -s "$T/got" ] || { echo "$w: nothing read from the FIFO"; false; }
	done
	cmp "$T/got" <("$BIN/precord" -q -e sched:sched_process_exec -- true | head -c 0) ||
		[ "$(head -c 8 "$T/got")" = PERFILE2 ]
	no_leftovers
}

@test "files: a symbolic link at -o is followed: its target gets the output, the link stays a link" {
	local w
	for w in $WRITERS; do
		rm -rf "$T/d" "$T/t" && mkdir "$T/d" "$T/t"
		echo old >"$T/t/target"
		ln -s ../t/target "$(written "$w" "$T/d/link")"
		write_o "$w" "$T/d/link"
		[ -L "$(written "$w" "$T/d/link")" ] || { echo "$w replaced the link"; false; }
		echo old | cmp -s - "$T/t/target" && { echo "$w did not write the target"; false; }
		# what it writes to a name of its own
		[ "$w" = precord ] && continue
		write_o "$w" "$T/d/plain"
		cmp "$T/t/target" "$(written "$w" "$T/d/plain")"
	done
	# a chain of links, one of them relative to its own directory
	ln -s "$T/d/link2" "$T/link1"
	ln -s ../t/target "$T/d/link2"
	"$BIN/pcat" -o "$T/link1" "$T/c.pipe"
	cmp "$T/t/target" "$T/c.pipe"
	[ -L "$T/link1" ] && [ -L "$T/d/link2" ]
	no_leftovers
}

@test "files: -o that is an input, by name, symbolic link or hard link, is refused by every program" {
	local w msg="is also the input"
	cp "$T/c.pipe" "$T/orig"
	ln "$T/c.pipe" "$T/hard"
	ln -s c.pipe "$T/soft"
	for w in pcat pcat-data pfilter pfilter-c ptojson pflame; do
		for o in c.pipe hard soft; do
			run -2 --separate-stderr write_o "$w" "$T/$o"
			[[ "$stderr" == *"$T/$o: $msg"* ]] || { echo "$w -o $o: $stderr"; false; }
			cmp "$T/c.pipe" "$T/orig"
		done
	done
	cp "$T/c.pipe" "$T/1c.pipe"
	run -2 --separate-stderr "$BIN/pflame" -i 1000s -o "$T/%nc.pipe" "$T/1c.pipe"
	[ "$stderr" = "pflame: $T/1c.pipe: $msg: writing it would destroy it; name another output" ]
	cmp "$T/1c.pipe" "$T/orig"
	run -2 --separate-stderr "$BIN/pflame" --folded -o "$T/c.pipe" "$T/c.pipe"
	run -2 --separate-stderr "$BIN/pflame" --diff -o "$T/hard" "$T/orig" "$T/c.pipe"
	cmp "$T/c.pipe" "$T/orig"
	[ -L "$T/soft" ]
	no_leftovers
}

@test "files: symbolic links planted at pflame's old temporary names are never written through" {
	echo victim >"$T/victim"
	# the pid bash has is the pid pflame gets: every name it could predict is planted
	bash -c 'for n in "" $(seq 1 40); do ln -s "$0/victim" "$0/cpu-$n.svg.tmp$$"; done
		exec "$1" -i 0.001 -o "$0/cpu-%n.svg" "$0/c.pipe"' "$T" "$BIN/pflame"
	bash -c 'ln -s "$0/victim" "$0/one.svg.tmp$$"; exec "$1" -o "$0/one.svg" "$0/c.pipe"' \
		"$T" "$BIN/pflame"
	[ "$(cat "$T/victim")" = victim ]
	[ -s "$T/cpu-1.svg" ] && [ -s "$T/one.svg" ]
	no_leftovers
}

@test "files: set-id bits are never copied; a symbolic link of another user is not followed" {
	local w
	cp "$T/c.pipe" "$T/suid"
	chmod 4755 "$T/suid"
	ln -s suid "$T/link"
	"$BIN/pflame" -o "$T/link" "$T/c.pipe"
	[ -L "$T/link" ]
	[ "$(stat -c %a "$T/suid")" = 755 ]
	# a regular file replaced keeps its mode, less set-id and sticky bits
	for w in $WRITERS; do
		rm -rf "$T/d" && mkdir "$T/d"
		echo old >"$(written "$w" "$T/d/out")"
		chmod 6640 "$(written "$w" "$T/d/out")"
		write_o "$w" "$T/d/out"
		[ "$(stat -c %a "$(written "$w" "$T/d/out")")" = 640 ] || { echo "$w"; false; }
	done
	# someone else's link in a directory they do not own: followed by none
	cp /bin/true "$T/passwd"
	chmod 4755 "$T/passwd"
	for w in $WRITERS; do
		rm -rf "$T/d" && mkdir "$T/d"
		ln -s ../passwd "$(written "$w" "$T/d/theirs")"
		chown -h nobody "$(written "$w" "$T/d/theirs")"
		run -2 --separate-stderr write_o "$w" "$T/d/theirs"
		[[ "$stderr" == *"theirs: is a symbolic link owned by user $(id -u nobody), who does not own its directory: not followed; name the file it points to" ]] ||
			{ echo "$w: $stderr"; false; }
		cmp "$T/passwd" /bin/true
		[ "$(stat -c %a:%U "$T/passwd")" = 4755:root ]
		[ -L "$(written "$w" "$T/d/theirs")" ]
	done
	# ... but followed when the directory is theirs too
	rm -rf "$T/d" && mkdir "$T/d"
	ln -s ../passwd "$T/d/theirs"
	chown -h nobody "$T/d/theirs"
	chown nobody "$T/d"
	"$BIN/pcat" -o "$T/d/theirs" "$T/c.pipe"
	cmp "$T/passwd" "$T/c.pipe"
	[ "$(stat -c %a:%U "$T/passwd")" = 755:root ]
	no_leftovers
}

@test "files: standard output named through /proc (a pipe, a file) is written as it is" {
	ln -s /proc/self/fd/1 "$T/so"
	run_pipe "'$BIN/pcat' -o '$T/so' '$T/c.pipe'" "cat >'$T/got'"
	cmp "$T/got" "$T/c.pipe"
	"$BIN/pflame" -o "$T/so" "$T/c.pipe" >"$T/svg"
	[ -L "$T/so" ]
	"$BIN/pflame" "$T/c.pipe" | cmp - "$T/svg"
	run -1 --separate-stderr bash -o pipefail -c "'$BIN/pcat' --data -o '$T/so' '$T/c.pipe' | cat"
	[ -L "$T/so" ]
	no_leftovers
}

@test "files: pstream-clickhouse --spool refuses a directory others can write, a link, another user's" {
	# a neighbour who can write the spool could put a link at a batch's or the lock's name
	# and have root's loader truncate any file through it, or remove batches unloaded
	local s=$BATS_TEST_TMPDIR/spool f=$DATA/rawsys-dd.pipe
	mkdir -m 0777 "$s"
	echo precious >"$BATS_TEST_TMPDIR/precious"
	run -2 --separate-stderr "$BIN/pstream-clickhouse" --client true --spool "$s" <"$f"
	[[ "$stderr" == *"$s: others can write the spool directory"* ]]
	chmod 0700 "$s"
	ln -s "$s" "$s.link"
	run -2 --separate-stderr "$BIN/pstream-clickhouse" --client true --spool "$s.link" <"$f"
	[[ "$stderr" == *"$s.link: the spool is not a directory"* ]]
	if [ "$(id -u)" = 0 ] && chown nobody "$s" 2>/dev/null; then
		run -2 --separate-stderr "$BIN/pstream-clickhouse" --client true --spool "$s" <"$f"
		[[ "$stderr" == *"belongs to another user"* ]]
		chown 0 "$s"
	fi
	# a spool of ours, 0700: used
	run -0 --separate-stderr "$BIN/pstream-clickhouse" --client true --spool "$s" <"$f"
	[ "$(cat "$BATS_TEST_TMPDIR/precious")" = precious ]
}
