#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# Man pages: lint clean, and each program's --help agrees with its page.

bats_require_minimum_version 1.5.0

setup() {
	load helpers
	command -v mandoc >/dev/null || skip "mandoc not installed"
}

@test "man: every page is clean under mandoc -Tlint" {
	run -0 mandoc -Tlint -Wwarning "$TOP"/man/*.[17]
}

@test "man: every program has a page, and pstream(7) exists" {
	local p
	[ -f "$TOP/man/pstream.7" ]
	for p in $(programs); do
		[ -f "$TOP/man/$p.1" ] || { echo "no man page for $p"; return 1; }
	done
}

@test "man: the usage line of --help is the SYNOPSIS of the page" {
	local p usage synopsis
	for p in $(programs); do
		usage=$("$BIN/$p" --help | head -n 1 | sed 's/^usage: //' | tr -s ' ')
		synopsis=$(mandoc -Tutf8 "$TOP/man/$p.1" | col -bx |
			awk '/^SYNOPSIS/ {on=1; next} /^[A-Z]/ {on=0} on' | tr -s ' \n' '  ' |
			sed 's/^ *//; s/ *$//')
		[ "$usage" = "$synopsis" ] || { echo "$p: '$usage' != '$synopsis'"; return 1; }
	done
}

@test "man: every long option of --help is documented in the page" {
	local p opt
	for p in $(programs); do
		for opt in $("$BIN/$p" --help | grep -o -- '--[a-z][a-z-]*' | sort -u); do
			mandoc -Tutf8 "$TOP/man/$p.1" | col -bx | grep -q -- "$opt" ||
				{ echo "$p: $opt is not in the page"; return 1; }
		done
	done
}

# ---- the EXAMPLES of every page, run ----

# the commands of a page's EXAMPLES as rendered: the lines after a prompt ($, #, host$)
examples_of() {
	mandoc -Tascii -O width=1000 "$1" | col -bx |
		awk '/^[A-Z]/ {on = ($0 == "EXAMPLES")} on' |
		sed -n 's/^ *[a-z]*[$#] \(.*\)$/\1/p'
}

# can this machine trace?
can_trace() {
	[ -z "${CAN_TRACE:-}" ] || return "$CAN_TRACE"
	CAN_TRACE=1
	[ -e /sys/kernel/tracing/events/raw_syscalls ] &&
		"$BIN/precord" -q -a -e raw_syscalls:sys_enter --duration 0.1 -o /dev/null 2>/dev/null &&
		CAN_TRACE=0
	return "$CAN_TRACE"
}

# why an example cannot run here, or nothing
skip_reason() {
	local cmd=$1 tool
	case "$cmd" in
	*"nc "*) echo "needs a second machine (nc)"; return ;;
	*pstream-nats* | *nats-server*)
		echo "needs a NATS server (tests/nats.bats has its own)"
		return
		;;
	*pstream-clickhouse* | *clickhouse-client*)
		echo "needs a ClickHouse server (tests/clickhouse.bats has its own)"
		return
		;;
	esac
	for tool in duckdb sqlite3 jq perf; do
		case " $cmd" in
		*[\ \|]"$tool "*) command -v "$tool" >/dev/null || { echo "$tool is not installed"; return; } ;;
		esac
	done
	case "$cmd" in
	*precord* | *"perf record"* | sctop* | rwtop* | syscall-counts* | failed-syscalls* | ptop*)
		case "$cmd" in *--report*) return ;; esac
		can_trace || echo "needs live tracing (tracefs and perf_event_open)"
		;;
	esac
}

# the command as run: a recording of many seconds (--duration 30, sleep 10) lasts one, which
# runs the same code and checks the same things in a fraction of the time
shortened() {
	sed -E 's/--duration ([2-9]|[1-9][0-9]+)([^0-9.]|$)/--duration 1\2/g;
		s/(^|[ |;])sleep ([2-9]|[1-9][0-9]+)([^0-9.]|$)/\1sleep 1\3/g' <<<"$1"
}

# an example that runs until Ctrl-C: system-wide without an end
unbounded() {
	case "$1" in
	*--report*) return 1 ;;
	sctop* | rwtop* | syscall-counts* | failed-syscalls* | ptop*) return 0 ;;
	*"precord -a"*) [[ "$1" != *--duration* ]] ;;
	# perf record -a with no command after it
	*"perf record"*) [[ "${1%%|*}" =~ \ -a\ *$ ]] ;;
	*) return 1 ;;
	esac
}

@test "man: every EXAMPLES command of every page runs on the bundled recordings" {
	local page cmd why st n=0 skipped=0 bad=0 d="$BATS_TEST_TMPDIR/run"
	mkdir -p "$d"
	# the names the pages use, made real: bundled recordings with the events each needs
	cp "$DATA/cpuclock-g-sh.data" "$d/perf.data"
	cp "$DATA/rawsys-dd.pipe" "$d/x.pipe"
	cp "$DATA/rawsys-dd.pipe" "$d/trace.pipe"
	cp "$DATA/rawsys-dd.pipe" "$d/part1.pipe"
	cp "$DATA/rawsys-dd.pipe" "$d/part2.pipe"
	cp "$DATA/compressed-z.pipe" "$d/exits.pipe"
	cp "$DATA/sched-switch-wakeup-a.pipe" "$d/switches.pipe"
	cp "$DATA/sched-switch-wakeup-a.pipe" "$d/sched.pipe"
	cp "$DATA/rwsys-dd.pipe" "$d/rw.pipe"
	cp "$DATA/sched-switch-wakeup-a.pipe" "$d/day.pipe"
	mkdir -p "$d/cpu"
	cp "$DATA/rawsys-dd.pipe" "$d/cpu/0.pipe"
	cp "$DATA/sched-switch-wakeup-a.pipe" "$d/cpu/1.pipe"
	cp "$DATA/cpuclock-g-sh.data" "$d/before.data"
	cp "$DATA/cpuclock-g-sh.data" "$d/after.data"
	# make: a build that runs a moment
	printf 'all:\n\t@i=0; while [ $$i -lt 20000 ]; do i=$$((i + 1)); done\n' >"$d/Makefile"
	# ./myprog, ./prog: any program that runs a moment
	printf '#!/bin/sh\ni=0\nwhile [ $i -lt 100000 ]; do i=$((i + 1)); done\n' >"$d/myprog"
	chmod +x "$d/myprog"
	cp "$d/myprog" "$d/prog"
	for page in "$TOP"/man/*.[17]; do
		while IFS= read -r cmd; do
			n=$((n + 1))
			why=$(skip_reason "$cmd")
			if [ -n "$why" ]; then
				skipped=$((skipped + 1))
				echo "# $(basename "$page"): skipped ($why): $cmd" >&3
				continue
			fi
			st=0
			cmd=$(shortened "$cmd")
			if unbounded "$cmd"; then
				# runs until Ctrl-C: give it one, as a user would
				(cd "$d" && PATH="$BIN:$PATH" timeout -s INT 4 bash -o pipefail -c "$cmd") \
					>"$d/out" 2>"$d/err" </dev/null || st=$?
				[ "$st" -eq 124 ] && st=0
			elif [[ "$cmd" == *"| pheader"* ]]; then
				# pheader is done at the end of the header; the recorder may die of SIGPIPE
				(cd "$d" && PATH="$BIN:$PATH" timeout 60 bash -c "$cmd") \
					>"$d/out" 2>"$d/err" </dev/null || st=$?
			else
				(cd "$d" && PATH="$BIN:$PATH" timeout 60 bash -o pipefail -c "$cmd") \
					>"$d/out" 2>"$d/err" </dev/null || st=$?
			fi
			# a reader that stops early ('| head') may end the writer by SIGPIPE
			[ "$st" -eq 141 ] && [[ "$cmd" == *"| head"* ]] && st=0
			if [ "$st" -ne 0 ] || grep -qiE 'usage:|try .*--help|unknown (option|event|field|key)|not found' "$d/err"; then
				bad=$((bad + 1))
				echo "$(basename "$page"): status $st: $cmd"
				head -n 5 "$d/err"
			fi
		done < <(examples_of "$page")
	done
	echo "examples: $n, skipped $skipped, failed $bad"
	[ "$n" -gt 20 ]
	[ "$bad" -eq 0 ]
}
