#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# pstream-nats against a real NATS server with JetStream: a stream published and read back
# is the same stream (perf script says the same); a subscriber that starts late, or
# resumes a durable subscription after SIGKILL, gets a stream perf reads and loses no
# sample; several subjects merge as pcat --merge merges; a server restarted under a
# publisher loses nothing.
#
# The server: the one .ci/run started (PSTREAM_NATS_DIR, its store directory, or
# PSTREAM_NATS_URL for one started elsewhere), else a private one started here by
# tests/nats-server.sh on a free port.

bats_require_minimum_version 1.5.0

setup_file() {
	load helpers
	local d
	export NATS_OWN= NATS_DIR= NATS_SKIP=
	if [ -n "${PSTREAM_NATS_DIR:-}" ]; then
		NATS_DIR=$PSTREAM_NATS_DIR
	elif [ -n "${PSTREAM_NATS_URL:-}" ]; then
		export NATS_URL=$PSTREAM_NATS_URL
		return 0
	elif ! command -v nats-server >/dev/null; then
		export NATS_SKIP="nats-server not installed (Debian: apt-get install nats-server)"
		return 0
	else
		NATS_DIR=$(mktemp -d "${TMPDIR:-/tmp}/pstream-nats.XXXXXX")
		NATS_OWN=1
	fi
	if ! NATS_URL=$("$TOP/tests/nats-server.sh" start "$NATS_DIR" 2>"$NATS_DIR.err"); then
		NATS_SKIP="the NATS server cannot start here: $(tail -n 1 "$NATS_DIR.err")"
	fi
	export NATS_URL
	rm -f "$NATS_DIR.err"
}

teardown_file() {
	load helpers
	server_stop nats-server.sh "$NATS_OWN" "$NATS_DIR"
}

setup() {
	load helpers
	[ -z "${NATS_SKIP:-}" ] || skip "$NATS_SKIP"
	need_perf
	# one subject prefix per test: tests never see each other's messages
	SUBJ="t${BATS_TEST_NUMBER}_$$_$RANDOM"
	PN="$BIN/pstream-nats"
	FIX="$DATA/sched-switch-wakeup-a.pipe"
}

teardown() {
	[ -z "${KILL_PIDS:-}" ] || kill -9 $KILL_PIDS 2>/dev/null || true
	if [ -n "${NATS_DIR:-}" ] && [ -z "${NATS_SKIP:-}" ]; then
		"$TOP/tests/nats-server.sh" start "$NATS_DIR" >/dev/null || true
	fi
}

# split FILE FRACTION A B: FILE cut at the first record boundary past FRACTION of its bytes
split_at() {
	python3 - "$@" <<'EOF'
import struct, sys
data = open(sys.argv[1], "rb").read()
frac = float(sys.argv[2])
off, cut = 16, None
while off + 8 <= len(data):
    typ, misc, size = struct.unpack_from("<IHH", data, off)
    if typ == 66:  # TRACING_DATA: its payload follows
        size += struct.unpack_from("<I", data, off + 8)[0]
    if cut is None and off >= len(data) * frac:
        cut = off
    off += size
open(sys.argv[3], "wb").write(data[:cut])
open(sys.argv[4], "wb").write(data[cut:])
EOF
}

# paused A SECONDS B: A, then SECONDS later B, on standard output (a publisher's input
# that stops for a while)
paused() {
	cat "$1"
	sleep "$2"
	cat "$3"
}

# pub_paused SECONDS ARGS...: $FIX published in the background ($KILL_PIDS) by pstream-nats pub
# ARGS..., its second half (from a record) SECONDS after the first
pub_paused() {
	local t=$BATS_TEST_TMPDIR pause=$1
	shift
	split_at "$FIX" 0.5 "$t/a" "$t/b"
	paused "$t/a" "$pause" "$t/b" | "$PN" pub "$@" &
	KILL_PIDS=$!
}

# durable_killed NAME SUBJECT SECONDS: the durable subscriber NAME of SUBJECT writes into
# $BATS_TEST_TMPDIR/d1.pipe for SECONDS, then is killed with SIGKILL
durable_killed() {
	local sp
	"$PN" sub --durable "$1" "$2" >"$BATS_TEST_TMPDIR/d1.pipe" &
	sp=$!
	sleep "$3"
	kill -9 $sp
	wait $sp || true
}

@test "nats: pub then sub gives the stream back; perf script reads the same" {
	local t=$BATS_TEST_TMPDIR
	run -0 "$PN" pub "$SUBJ.a" "$FIX"
	"$PN" sub "$SUBJ.a" >"$t/out.pipe"
	perf script -i "$FIX" >"$t/want.txt" 2>/dev/null
	perf script -i - <"$t/out.pipe" >"$t/got.txt" 2>/dev/null
	[ -s "$t/want.txt" ]
	cmp "$t/want.txt" "$t/got.txt"
	# small batches: many messages, snapshots between them, the same stream
	run -0 "$PN" pub --batch 4k --snapshot-every 3 "$SUBJ.b" "$FIX"
	"$PN" sub "$SUBJ.b" | perf script -i - >"$t/got2.txt" 2>/dev/null
	cmp "$t/want.txt" "$t/got2.txt"
}

@test "nats: sub reads the subject's latest recording from its start" {
	local t=$BATS_TEST_TMPDIR
	run -0 "$PN" pub "$SUBJ" "$DATA/rawsys-dd.pipe"
	run -0 "$PN" pub --batch 8k "$SUBJ" "$FIX"
	"$PN" sub "$SUBJ" | perf script -i - >"$t/got.txt" 2>/dev/null
	perf script -i "$FIX" >"$t/want.txt" 2>/dev/null
	cmp "$t/want.txt" "$t/got.txt"
}

@test "nats: a late subscriber (--new) gets a stream perf reads, threads named" {
	local t=$BATS_TEST_TMPDIR
	pub_paused 2 --batch 4k --snapshot-every 4 "$SUBJ"
	sleep 1
	"$PN" sub --new "$SUBJ" >"$t/new.pipe"
	wait $KILL_PIDS
	run -0 perf script -i - <"$t/new.pipe"
	perf script -i "$FIX" >"$t/full.txt" 2>/dev/null
	perf script -i - <"$t/new.pipe" >"$t/new.txt" 2>/dev/null
	# samples of the second half only, each as perf prints it from the whole recording
	# (the same thread names: the snapshot and the side-band caught up on the way)
	[ "$(wc -l <"$t/new.txt")" -gt 100 ]
	[ "$(wc -l <"$t/new.txt")" -lt "$(wc -l <"$t/full.txt")" ]
	run -1 grep -vxFf "$t/full.txt" "$t/new.txt"
}

@test "nats: --since gives the stream stored since then" {
	local t=$BATS_TEST_TMPDIR
	run -0 "$PN" pub --batch 4k "$SUBJ" "$FIX"
	"$PN" sub --since 10m "$SUBJ" | perf script -i - >"$t/got.txt" 2>/dev/null
	perf script -i "$FIX" >"$t/want.txt" 2>/dev/null
	cmp "$t/want.txt" "$t/got.txt"
}

@test "nats: two subjects merge as pcat --merge merges them, input named by subject" {
	local t=$BATS_TEST_TMPDIR
	run -0 "$PN" pub "$SUBJ.h1" "$DATA/rawsys-dd.pipe"
	run -0 "$PN" pub "$SUBJ.h2" "$DATA/rwsys-dd.pipe"
	"$PN" sub "$SUBJ.*" >"$t/sub.pipe"
	"$BIN/pcat" --merge "$DATA/rawsys-dd.pipe" "$DATA/rwsys-dd.pipe" >"$t/pcat.pipe"
	perf script -i - <"$t/sub.pipe" >"$t/got.txt" 2>/dev/null
	perf script -i - <"$t/pcat.pipe" >"$t/want.txt" 2>/dev/null
	[ -s "$t/want.txt" ]
	cmp "$t/want.txt" "$t/got.txt"
	run -0 "$BIN/pcount" --by input "$t/sub.pipe"
	[[ "$output" == *"$SUBJ.h1"* ]]
	[[ "$output" == *"$SUBJ.h2"* ]]
	# the same two named one by one
	"$PN" sub "$SUBJ.h2" "$SUBJ.h1" | perf script -i - >"$t/got2.txt" 2>/dev/null
	[ "$(wc -l <"$t/got2.txt")" = "$(wc -l <"$t/want.txt")" ]
}

@test "nats: a durable subscriber killed with SIGKILL resumes and loses nothing" {
	local t=$BATS_TEST_TMPDIR
	pub_paused 3 --batch 4k --snapshot-every 4 "$SUBJ"
	sleep 0.5
	durable_killed d1 "$SUBJ" 1.5
	[ -s "$t/d1.pipe" ]
	"$PN" sub --durable d1 "$SUBJ" >"$t/d2.pipe"
	wait $KILL_PIDS
	perf script -i - <"$t/d1.pipe" >"$t/d1.txt" 2>/dev/null
	run -0 perf script -i - <"$t/d2.pipe"
	printf '%s\n' "$output" >"$t/d2.txt"
	[ "$(wc -l <"$t/d2.txt")" -gt 100 ]
	perf script -i "$FIX" >"$t/full.txt" 2>/dev/null
	# the second run went on where the first was acknowledged, not from the start
	[ "$(wc -l <"$t/d2.txt")" -lt "$(wc -l <"$t/full.txt")" ]
	# every sample arrived (at least once), and nothing else
	sort -u "$t/d1.txt" "$t/d2.txt" >"$t/union.txt"
	sort -u "$t/full.txt" >"$t/want.txt"
	cmp "$t/want.txt" "$t/union.txt"
	# counts per event: at least perf's
	for ev in sched:sched_switch sched:sched_wakeup; do
		[ "$(cat "$t/d1.txt" "$t/d2.txt" | grep -c " $ev:")" -ge \
			"$(grep -c " $ev:" "$t/full.txt")" ]
	done
}

@test "nats: a server restarted under a publisher loses nothing (bounded buffer)" {
	[ -n "${NATS_DIR:-}" ] || skip "the server is not ours to restart (PSTREAM_NATS_URL)"
	local t=$BATS_TEST_TMPDIR
	pub_paused 1 --batch 4k --buffer 16k "$SUBJ" 2>"$t/pub.err"
	sleep 0.5
	"$TOP/tests/nats-server.sh" stop "$NATS_DIR"
	sleep 2.5
	"$TOP/tests/nats-server.sh" start "$NATS_DIR" >/dev/null
	wait $KILL_PIDS
	grep -q "does not store" "$t/pub.err"
	grep -q "stored again" "$t/pub.err"
	# the bounded buffer filled while the server was away: reading stopped, nothing lost
	grep -q "the buffer is full" "$t/pub.err"
	"$PN" sub "$SUBJ" >"$t/out.pipe"
	cmp "$FIX" "$t/out.pipe"
}

@test "nats: an unreachable server is said clearly, status 1" {
	run -1 "$PN" -s nats://127.0.0.1:1 sub x
	[[ "$output" == *"no NATS server answers"* ]]
	run -1 "$PN" -s nats://127.0.0.1:1 pub x "$FIX"
	[[ "$output" == *"no NATS server answers"* ]]
}

@test "nats: usage errors" {
	run -2 "$PN" pub 'a.*' "$FIX"
	[[ "$output" == *"no wildcard"* ]]
	run -2 "$PN" sub
	run -2 "$PN" frob x
	run -2 "$PN" sub --new --since 5m x
	run -2 "$PN" pub --durable d x
	# a merge reads one recording of each subject: --follow takes one subject
	run -2 "$PN" sub --follow "$SUBJ.*"
	[[ "$output" == *"--follow reads one subject"* ]]
	run -2 "$PN" sub --follow "$SUBJ.a" "$SUBJ.b"
	run -1 "$PN" sub "$SUBJ-none"
	[[ "$output" == *"nothing was published"* ]]
}

@test "nats: --follow stays for the next recording, written after the first" {
	local t=$BATS_TEST_TMPDIR sp
	run -0 "$PN" pub "$SUBJ" "$DATA/rwsys-dd.pipe" # before the subscriber: not read
	"$PN" sub --follow --new "$SUBJ" >"$t/out.pipe" &
	sp=$!
	KILL_PIDS=$sp
	sleep 0.5
	run -0 "$PN" pub "$SUBJ" "$DATA/rawsys-dd.pipe"
	run -0 "$PN" pub "$SUBJ" "$FIX"
	sleep 1
	kill -INT $sp
	wait $sp
	cat "$DATA/rawsys-dd.pipe" "$FIX" | cmp - "$t/out.pipe"
}

@test "nats: a durable merge of two subjects killed with SIGKILL resumes and loses nothing" {
	local t=$BATS_TEST_TMPDIR p1 p2
	split_at "$DATA/rawsys-dd.pipe" 0.5 "$t/a1" "$t/b1"
	split_at "$FIX" 0.5 "$t/a2" "$t/b2"
	run -0 "$PN" pub "$SUBJ.h1" "$DATA/rwsys-dd.pipe" # the subjects exist; not read
	run -0 "$PN" pub "$SUBJ.h2" "$DATA/rwsys-dd.pipe"
	paused "$t/a1" 6 "$t/b1" | "$PN" pub --batch 4k "$SUBJ.h1" &
	p1=$!
	paused "$t/a2" 6 "$t/b2" | "$PN" pub --batch 4k "$SUBJ.h2" &
	p2=$!
	KILL_PIDS="$p1 $p2"
	sleep 1.5
	durable_killed dm "$SUBJ.*" 3
	"$PN" sub --durable dm "$SUBJ.*" >"$t/d2.pipe"
	wait $p1 $p2
	"$BIN/pcat" --merge "$DATA/rawsys-dd.pipe" "$FIX" | perf script -i - >"$t/full.txt" 2>/dev/null
	perf script -i - <"$t/d1.pipe" >"$t/d1.txt" 2>/dev/null || true
	run -0 perf script -i - <"$t/d2.pipe"
	printf '%s\n' "$output" >"$t/d2.txt"
	[ "$(wc -l <"$t/d2.txt")" -gt 100 ]
	[ "$(wc -l <"$t/d2.txt")" -lt "$(wc -l <"$t/full.txt")" ]
	sort -u "$t/d1.txt" "$t/d2.txt" | grep . >"$t/union.txt"
	sort -u "$t/full.txt" >"$t/want.txt"
	cmp "$t/want.txt" "$t/union.txt"
}

@test "nats: a durable merge leaves out a subject it read to its end: it does not wait for it" {
	local t=$BATS_TEST_TMPDIR
	run -0 "$PN" pub "$SUBJ.h1" "$DATA/rawsys-dd.pipe"
	run -0 "$PN" pub "$SUBJ.h2" "$FIX"
	# the first run reads both recordings to their ends
	timeout 30 "$PN" sub --durable dr "$SUBJ.*" >"$t/first.pipe"
	# a new recording on h1 only: the second run reads it and ends, h2 left out
	run -0 "$PN" pub "$SUBJ.h1" "$DATA/rwsys-dd.pipe"
	run -0 timeout 30 "$PN" sub --durable dr "$SUBJ.*" -o "$t/second.pipe"
	[[ "$output" == *"$SUBJ.h2: its recording was read to its end before; left out"* ]]
	# one subject left: its recording as perf reads it
	perf script -i "$DATA/rwsys-dd.pipe" 2>/dev/null >"$t/want.txt"
	perf script -i - <"$t/second.pipe" 2>/dev/null >"$t/got.txt"
	[ -s "$t/want.txt" ]
	cmp "$t/want.txt" "$t/got.txt"
	# nothing new anywhere: it waits for the next recordings, as before
	run timeout 3 "$PN" sub --durable dr "$SUBJ.*" -o /dev/null
	[ "$status" = 124 ]
}
