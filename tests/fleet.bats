#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# The fleet, end to end (README "Many machines"): two hosts on this machine, each a
# recording under its own host name (a UTS namespace: hostname is what precord writes in
# the stream), published with pstream-nats pub hosts.$(hostname); a live view
# (pstream-nats sub 'hosts.*' | pcount --by input,comm) and a durable loader
# (pstream-nats sub --durable loader 'hosts.*' | pstream-clickhouse).  Every sample is in
# ClickHouse exactly once, under its host, as perf script counts each host's stream; and
# so after the NATS server was stopped and started under it.
#
# The servers: a NATS server of its own (or PSTREAM_NATS_URL's, where the restart test
# skips), the ClickHouse server .ci/run started (PSTREAM_CLICKHOUSE_DIR), else private ones
# started here.

bats_require_minimum_version 1.5.0

setup_file() {
	load helpers
	export NATS_OWN= NATS_DIR= NATS_SKIP= CH_OWN= CH_DIR= CH_SKIP= FLEET_SKIP=
	# NATS: a server of its own, never the CI's (PSTREAM_NATS_DIR): a test here stops
	# and starts it, and so does nats.bats the CI's, which may run beside this file.  A
	# server given from outside (PSTREAM_NATS_URL alone) is used as it is.
	if [ -n "${PSTREAM_NATS_URL:-}" ] && [ -z "${PSTREAM_NATS_DIR:-}" ]; then
		export NATS_URL=$PSTREAM_NATS_URL
	elif ! command -v nats-server >/dev/null; then
		NATS_SKIP="nats-server not installed (Debian: apt-get install nats-server)"
	else
		NATS_DIR=$(mktemp -d "${TMPDIR:-/tmp}/pstream-fleet-nats.XXXXXX")
		NATS_OWN=1
	fi
	if [ -n "$NATS_DIR" ]; then
		if ! NATS_URL=$("$TOP/tests/nats-server.sh" start "$NATS_DIR" 2>"$NATS_DIR.err"); then
			NATS_SKIP="the NATS server cannot start here: $(tail -n 1 "$NATS_DIR.err")"
		fi
		rm -f "$NATS_DIR.err"
	fi
	export NATS_URL
	# ClickHouse
	if [ -n "${PSTREAM_CLICKHOUSE_DIR:-}" ]; then
		CH_DIR=$PSTREAM_CLICKHOUSE_DIR
	else
		CH_DIR=$(mktemp -d "${TMPDIR:-/tmp}/pstream-fleet-ch.XXXXXX")
		CH_OWN=1
	fi
	if ! command -v clickhouse-client >/dev/null; then
		CH_SKIP="clickhouse-client not installed"
	elif ! CH_PORT=$("$TOP/tests/clickhouse-server.sh" start "$CH_DIR" 2>"$CH_DIR.err"); then
		CH_SKIP="the ClickHouse server cannot start here: $(tail -n 1 "$CH_DIR.err")"
	fi
	rm -f "$CH_DIR.err"
	export CH_PORT
	# two host names on one machine: a UTS namespace each
	if ! unshare -u true 2>/dev/null; then
		FLEET_SKIP="unshare -u (a UTS namespace, for a second host name) is not allowed here"
	fi
}

teardown_file() {
	load helpers
	server_stop nats-server.sh "$NATS_OWN" "$NATS_DIR"
	server_stop clickhouse-server.sh "$CH_OWN" "$CH_DIR"
}

setup() {
	load helpers
	[ -z "${CH_SKIP:-}" ] || skip "$CH_SKIP"
	need_perf
	PN="$BIN/pstream-nats"
	# one database and one subject prefix per test
	DB="fleet${BATS_TEST_NUMBER}_$$_$RANDOM"
	SUBJ="fleet${BATS_TEST_NUMBER}_$$_$RANDOM"
	ch -q "CREATE DATABASE $DB"
	PUB_PIDS=
	KILL_PIDS=
}

teardown() {
	[ -z "${KILL_PIDS:-}" ] || kill -9 $KILL_PIDS 2>/dev/null || true
	[ -z "${PUB_PIDS:-}" ] || kill -9 $PUB_PIDS 2>/dev/null || true
	if [ -n "${NATS_DIR:-}" ] && [ -z "${NATS_SKIP:-}" ]; then
		"$TOP/tests/nats-server.sh" start "$NATS_DIR" >/dev/null || true
	fi
	[ -n "${DB:-}" ] && [ -z "${CH_SKIP:-}" ] && ch -q "DROP DATABASE IF EXISTS $DB" || true
}

ch() {
	clickhouse-client --host 127.0.0.1 --port "$CH_PORT" "$@" </dev/null
}

need_fleet() {
	[ -z "${NATS_SKIP:-}" ] || skip "$NATS_SKIP"
	[ -z "${FLEET_SKIP:-}" ] || skip "$FLEET_SKIP"
	[ -w /sys/kernel/tracing/events ] || [ -w /sys/kernel/debug/tracing/events ] ||
		skip "tracefs not writable: precord cannot record tracepoints here"
}

# host HOST N: in a UTS namespace named HOST, record N rounds of a small shell workload
# (syscalls and execs) and publish them, as the README's hosts do; the stream perf reads
# is kept in $BATS_TEST_TMPDIR/HOST.pipe.  The workload waits a second before its first
# round, so the subject exists before the test's subscribers start.
host() {
	local name=$1 n=$2
	local w="sleep 1; i=0; while [ \$i -lt $n ]; do i=\$((i+1)); ls / >/dev/null; sleep 0.1; done"
	unshare -u sh -c "hostname $name && '$BIN/precord' -q -e raw_syscalls:sys_enter \
		-e sched:sched_process_exec -- sh -c '$w' | tee '$BATS_TEST_TMPDIR/$name.pipe' |
		'$PN' -q pub $SUBJ.\$(hostname)" &
	PUB_PIDS="$PUB_PIDS $!"
}

# wait until SUBJECT has been published to (sub fails at once on a subject that has not)
wait_subject() {
	local i st
	for i in $(seq 100); do
		st=0
		timeout 1 "$PN" sub --new -o /dev/null "$1" 2>/dev/null || st=$?
		[ "$st" != 1 ] && return 0
		sleep 0.1
	done
	echo "$1 never appeared" >&2
	return 1
}

wait_hosts() {
	local p st=0
	for p in $PUB_PIDS; do
		wait "$p" || st=$?
	done
	PUB_PIDS=
	return $st
}

# what perf script counts in each host's stream: HOST<TAB>EVENT<TAB>N, sorted
perf_counts() {
	local h
	for h in "$@"; do
		perf script -i "$BATS_TEST_TMPDIR/$h.pipe" -F event 2>/dev/null |
			sed 's/: *$//; s/^ *//' | sort | uniq -c |
			awk -v h="$h" '{ printf "%s\t%s\t%s\n", h, $2, $1 }'
	done | sort
}

# what ClickHouse holds: HOST<TAB>EVENT<TAB>N, sorted
table_counts() {
	ch -q "SELECT host, event, count() FROM $DB.pstream GROUP BY host, event
	       ORDER BY host, event FORMAT TSV"
}

loader() {
	set -o pipefail
	"$PN" sub --durable loader "$SUBJ.*" |
		"$BIN/pstream-clickhouse" -H 127.0.0.1 -P "$CH_PORT" -d "$DB" \
			--spool "$BATS_TEST_TMPDIR/spool"
}

# hosts N1 N2: web1 (N1 rounds) and web2 (N2) recording and publishing, both subjects there
hosts() {
	host web1 "$1"
	host web2 "$2"
	wait_subject "$SUBJ.web1"
	wait_subject "$SUBJ.web2"
}

# hosts_and_loader LOG: web1 (40 rounds) and web2 (30) recording and publishing, both
# subjects there, and the loader running in the background ($KILL_PIDS), its stderr into LOG
hosts_and_loader() {
	hosts 40 30
	loader 2>"$1" &
	KILL_PIDS=$!
}

# nats_restart_under LOADER: the hosts and LOADER (a function) running, the NATS server
# stopped for 2 s and started again under them; once all ended, each sample is in once
nats_restart_under() {
	local t=$BATS_TEST_TMPDIR
	hosts 40 30
	"$1" 2>"$t/loader.err" &
	KILL_PIDS=$!
	sleep 1
	"$TOP/tests/nats-server.sh" stop "$NATS_DIR"
	sleep 2
	"$TOP/tests/nats-server.sh" start "$NATS_DIR" >/dev/null
	wait_hosts
	wait $KILL_PIDS || { cat "$t/loader.err"; false; }
	KILL_PIDS=
	each_sample_once || { cat "$t"/*.err; false; }
}

# each_sample_once: once web1 and web2 are done, the table holds every sample of each, once
# (as perf script counts their streams)
each_sample_once() {
	local t=$BATS_TEST_TMPDIR
	wait_hosts
	perf_counts web1 web2 >"$t/want.txt"
	table_counts >"$t/got.txt"
	diff -u "$t/want.txt" "$t/got.txt"
}

@test "fleet: two hosts through NATS, live by input as perf counts, into ClickHouse once" {
	need_fleet
	local t=$BATS_TEST_TMPDIR
	host web1 30
	host web2 20
	wait_subject "$SUBJ.web1"
	wait_subject "$SUBJ.web2"
	# the live view: every host at once, by input (its host name) and process
	"$PN" sub "$SUBJ.*" | "$BIN/pcount" --by input,comm >"$t/live.txt" &
	KILL_PIDS=$!
	loader 2>"$t/loader.err" &
	KILL_PIDS="$KILL_PIDS $!"
	wait_hosts
	for p in $KILL_PIDS; do
		wait "$p"
	done
	KILL_PIDS=
	# the stored view: each host's samples once, as perf script counts its own stream
	perf_counts web1 web2 >"$t/want.txt"
	table_counts >"$t/got.txt"
	diff -u "$t/want.txt" "$t/got.txt"
	[ "$(wc -l <"$t/want.txt")" = 4 ]
	# two streams that are not the same stream
	! cmp -s <(grep '^web1' "$t/want.txt" | cut -f2,3) <(grep '^web2' "$t/want.txt" | cut -f2,3)
	# the live view: per host and process, perf script's counts
	for h in web1 web2; do
		perf script -i "$t/$h.pipe" -F comm 2>/dev/null | sed 's/^ *//' | sort | uniq -c |
			awk -v h="$h" '{ printf "%s %s %s\n", h, $2, $1 }'
	done | sort >"$t/live-want.txt"
	awk 'NR > 1 { print $2, $3, $1 }' "$t/live.txt" | sort >"$t/live-got.txt"
	diff -u "$t/live-want.txt" "$t/live-got.txt"
}

@test "fleet: the NATS server stopped and started under the hosts and the loader: each sample once" {
	need_fleet
	[ -n "${NATS_DIR:-}" ] || skip "the server is not ours to restart (PSTREAM_NATS_URL)"
	nats_restart_under loader
	[ "$(wc -l <"$BATS_TEST_TMPDIR/want.txt")" = 4 ]
}

@test "fleet: the loader stopped (SIGTERM) mid-way and started again: each sample once" {
	need_fleet
	# The subscriber, asked to stop, takes no more messages, writes out what its merge
	# holds and acknowledges all of it; pstream-clickhouse inserts it all at the end of
	# its input.  (Before: what the merge was handed in the last 2 s came again.)
	local t=$BATS_TEST_TMPDIR sp
	hosts_and_loader "$t/loader1.err"
	sleep 2
	# as systemd stops a service: the subscriber ends what it took, pstream-clickhouse
	# inserts it all at the end of its input
	sp=$(pgrep -P $KILL_PIDS -x pstream-nats)
	kill -TERM $sp
	wait $KILL_PIDS
	KILL_PIDS=
	loader 2>"$t/loader2.err"
	each_sample_once
}

# the loader that reads NATS itself: a message is acknowledged once its rows are in, and
# each row keeps its place in NATS, so rows of a message delivered again are not inserted
# twice
loader_nats() {
	"$BIN/pstream-clickhouse" -H 127.0.0.1 -P "$CH_PORT" -d "$DB" --nats "$NATS_URL" \
		--durable loader --spool "$BATS_TEST_TMPDIR/spool" "$SUBJ.*"
}

# kill_tree SIG PID: PID and every process under it
kill_tree() {
	local p
	for p in $(pgrep -P "$2"); do
		kill_tree "$1" "$p"
	done
	kill "-$1" "$2" 2>/dev/null || true
}

@test "fleet: pstream-clickhouse --nats killed with SIGKILL mid-way, twice, and started again: each sample once" {
	need_fleet
	local t=$BATS_TEST_TMPDIR i
	hosts 40 30
	for i in 1 2; do
		loader_nats 2>"$t/loader$i.err" &
		KILL_PIDS=$!
		sleep 1.5
		# all of it at once, the clients it started too: stopped, then killed
		kill_tree STOP $KILL_PIDS
		kill_tree KILL $KILL_PIDS
		wait $KILL_PIDS || true
		KILL_PIDS=
	done
	# rows went in before the kills
	[ "$(ch -q "SELECT count() FROM $DB.pstream")" -gt 0 ]
	loader_nats 2>"$t/loader3.err" || { cat "$t"/loader*.err; false; }
	each_sample_once || { tail -n 5 "$t"/loader*.err; false; }
	# every row has its place in NATS, once
	[ "$(ch -q "SELECT count() - uniqExact(nats_subject, nats_seq, nats_offset) FROM $DB.pstream")" = 0 ]
	[ "$(ch -q "SELECT countIf(nats_seq = 0) FROM $DB.pstream")" = 0 ]
}

@test "fleet: pstream-clickhouse --nats stopped (SIGTERM) mid-way and started again: each sample once" {
	need_fleet
	local t=$BATS_TEST_TMPDIR
	hosts 40 30
	loader_nats 2>"$t/loader1.err" &
	KILL_PIDS=$!
	sleep 2
	# as systemd stops a service, but to the parent alone: it passes the request on to
	# the process of each subject, which inserts what it read and acknowledges that
	kill -TERM "$(pgrep -P $KILL_PIDS -x pstream-clickho)"
	wait $KILL_PIDS || { cat "$t/loader1.err"; false; }
	KILL_PIDS=
	[ "$(ch -q "SELECT count() FROM $DB.pstream")" -gt 0 ]
	loader_nats 2>"$t/loader2.err" || { cat "$t/loader2.err"; false; }
	each_sample_once || { cat "$t"/*.err; false; }
	# what the first run inserted was acknowledged: nothing was delivered twice
	! grep -q "delivered again" "$t/loader2.err"
}

@test "fleet: the NATS server stopped and started under pstream-clickhouse --nats: each sample once" {
	need_fleet
	[ -n "${NATS_DIR:-}" ] || skip "the server is not ours to restart (PSTREAM_NATS_URL)"
	nats_restart_under loader_nats
	[ "$(ch -q "SELECT countIf(nats_seq = 0) FROM $DB.pstream")" = 0 ]
}

@test "fleet: pstream-clickhouse --nats of two hosts, and again: each sample once, nothing twice" {
	need_fleet
	local t=$BATS_TEST_TMPDIR
	hosts 20 10
	loader_nats 2>"$t/loader1.err" || { cat "$t/loader1.err"; false; }
	each_sample_once
	# the recordings read to their end: a second run has nothing to add
	loader_nats 2>"$t/loader2.err" || { cat "$t/loader2.err"; false; }
	table_counts >"$t/got2.txt"
	diff -u "$t/want.txt" "$t/got2.txt"
}

# rows_reach N: wait (up to 20 s) until the table holds N rows
rows_reach() {
	local i
	for i in $(seq 100); do
		[ "$(ch -q "SELECT count() FROM $DB.pstream" 2>/dev/null)" = "$1" ] && return 0
		sleep 0.2
	done
	echo "the table holds $(ch -q "SELECT count() FROM $DB.pstream" 2>&1) rows, not $1" >&2
	return 1
}

@test "fleet: pstream-clickhouse --nats --follow loads each recording of a subject as it comes" {
	[ -z "${NATS_SKIP:-}" ] || skip "$NATS_SKIP"
	local t=$BATS_TEST_TMPDIR e
	"$PN" pub "$SUBJ.h" "$DATA/rawsys-dd.pipe"
	"$BIN/pstream-clickhouse" -H 127.0.0.1 -P "$CH_PORT" -d "$DB" --nats "$NATS_URL" \
		--follow "$SUBJ.h" 2>"$t/loader.err" &
	KILL_PIDS=$!
	rows_reach 896
	# two more recordings, the second of other events: each read as a stream of its own
	"$PN" pub "$SUBJ.h" "$DATA/rawsys-dd.pipe"
	"$PN" pub "$SUBJ.h" "$DATA/sched-switch-wakeup-a.pipe"
	rows_reach $((2 * 896 + 1296)) || { cat "$t/loader.err"; false; }
	kill -TERM $KILL_PIDS
	wait $KILL_PIDS || { cat "$t/loader.err"; false; }
	KILL_PIDS=
	for f in rawsys-dd rawsys-dd sched-switch-wakeup-a; do
		perf script -i "$DATA/$f.pipe" -F event 2>/dev/null
	done | sed 's/: *$//; s/^ *//' | sort | uniq -c | awk '{ print $2 "\t" $1 }' >"$t/want.txt"
	ch -q "SELECT event, count() FROM $DB.pstream GROUP BY event ORDER BY event FORMAT TSV" \
		>"$t/got.txt"
	diff -u "$t/want.txt" "$t/got.txt"
	# each sample once, with its place
	[ "$(ch -q "SELECT count() - uniqExact(nats_seq, nats_offset) FROM $DB.pstream")" = 0 ]
}

@test "fleet: pstream-clickhouse --nats gives a table made without them its NATS columns" {
	[ -z "${NATS_SKIP:-}" ] || skip "$NATS_SKIP"
	local t=$BATS_TEST_TMPDIR
	"$BIN/pheader" --schema clickhouse --table "$DB.pstream" "$DATA/rawsys-dd.pipe" |
		clickhouse-client --host 127.0.0.1 --port "$CH_PORT" -n
	[ "$(ch -q "SELECT count() FROM system.columns WHERE database = '$DB' AND name LIKE 'nats_%'")" = 0 ]
	"$PN" pub "$SUBJ.h" "$DATA/rawsys-dd.pipe"
	"$BIN/pstream-clickhouse" -H 127.0.0.1 -P "$CH_PORT" -d "$DB" --nats "$NATS_URL" "$SUBJ.h" \
		2>"$t/loader.err" || { cat "$t/loader.err"; false; }
	[ "$(ch -q "SELECT count() FROM system.columns WHERE database = '$DB' AND name LIKE 'nats_%'")" = 3 ]
	# every row with its place, as many as perf script counts
	[ "$(ch -q "SELECT uniqExact(nats_seq, nats_offset) FROM $DB.pstream WHERE nats_seq > 0")" = \
		"$(perf script -i "$DATA/rawsys-dd.pipe" 2>/dev/null | wc -l)" ]
}

@test "fleet: a merged stream's rows in ClickHouse are under their input's host (pcat --merge)" {
	local t=$BATS_TEST_TMPDIR
	# two recordings of one host name: the inputs are told apart by their file names,
	# as pcount --by input tells them
	cp "$DATA/rawsys-dd.pipe" "$t/a.pipe"
	cp "$DATA/sched-switch-wakeup-a.pipe" "$t/b.pipe"
	(cd "$t" && "$BIN/pcat" --merge a.pipe b.pipe >merged.pipe)
	"$BIN/pstream-clickhouse" -H 127.0.0.1 -P "$CH_PORT" -d "$DB" "$t/merged.pipe"
	for h in a b; do
		perf script -i "$t/$h.pipe" -F event 2>/dev/null | sed 's/: *$//; s/^ *//' |
			sort | uniq -c | awk -v h="$h.pipe" '{ printf "%s\t%s\t%s\n", h, $2, $1 }'
	done | sort >"$t/want.txt"
	table_counts >"$t/got.txt"
	diff -u "$t/want.txt" "$t/got.txt"
	"$BIN/pcount" --by input "$t/merged.pipe" | awk 'NR > 1 { print $2 }' | sort >"$t/inputs"
	[ "$(cat "$t/inputs")" = "$(printf 'a.pipe\nb.pipe')" ]
}
