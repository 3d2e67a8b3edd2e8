#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# pheader --schema and pstream-clickhouse against a real ClickHouse server: every fixture
# loaded gives pcount's counts (pcount is checked against perf elsewhere) and perf's own
# numbers, live loads show rows before the end and lose none, a server stopped mid-load
# still gets every sample exactly once, and a Distributed table answers as its shards.
#
# The server: the one .ci/run started (PSTREAM_CLICKHOUSE_DIR), else a private one started
# here by tests/clickhouse-server.sh on a free port.

bats_require_minimum_version 1.5.0

setup_file() {
	load helpers
	local d
	if [ -n "${PSTREAM_CLICKHOUSE_DIR:-}" ]; then
		d=$PSTREAM_CLICKHOUSE_DIR
		export CH_OWN=
	else
		d=$(mktemp -d "${TMPDIR:-/tmp}/pstream-ch.XXXXXX")
		export CH_OWN=1
	fi
	export CH_DIR=$d
	if ! command -v clickhouse-client >/dev/null; then
		export CH_SKIP="clickhouse-client not installed"
	elif ! CH_PORT=$("$TOP/tests/clickhouse-server.sh" start "$d" 2>"$d.err"); then
		export CH_SKIP="the ClickHouse server cannot start here: $(tail -n 1 "$d.err")"
	fi
	export CH_PORT
	rm -f "$d.err"
}

teardown_file() {
	load helpers
	if [ -n "$CH_OWN" ]; then
		"$TOP/tests/clickhouse-server.sh" stop "$CH_DIR"
		rm -rf "$CH_DIR"
	fi
}

setup() {
	load helpers
	[ -z "${CH_SKIP:-}" ] || skip "$CH_SKIP"
	# one database per test: tests never see each other's rows
	DB="t${BATS_TEST_NUMBER}_$$_$RANDOM"
	ch -q "CREATE DATABASE $DB"
}

teardown() {
	[ -n "${DB:-}" ] && [ -z "${CH_SKIP:-}" ] && ch -q "DROP DATABASE IF EXISTS $DB" || true
}

ch() {
	clickhouse-client --host 127.0.0.1 --port "$CH_PORT" "$@" </dev/null
}

# the same, with SQL or data on standard input
ch_in() {
	clickhouse-client --host 127.0.0.1 --port "$CH_PORT" "$@"
}

load_into() { # load_into TABLE FILE [options]
	local t=$1 f=$2
	shift 2
	"$BIN/pstream-clickhouse" -H 127.0.0.1 -P "$CH_PORT" -d "$DB" -t "$t" "$@" <"$f"
}

# pcount --json rows as "key<TAB>count" lines, sorted (keys as JSON text)
pcount_rows() { # pcount_rows KEY FILE [pcount options]
	local k=$1 f=$2
	shift 2
	"$BIN/pcount" -j --by "$k" "$@" "$f" | jq -r --arg k "$k" \
		'.rows[] | "\(.[$k] | tostring | tojson)\t\(.count)"' | LC_ALL=C sort
}

# a ClickHouse query's rows (COLUMN, count) in the same form
ch_rows() { # ch_rows COLUMN QUERY-TAIL
	ch --output_format_json_quote_64bit_integers=0 \
		-q "SELECT $1 AS k, count() AS c $2 GROUP BY k FORMAT JSONEachRow" |
		jq -r '"\(.k | tostring | tojson)\t\(.c)"' | LC_ALL=C sort
}

fixtures() {
	good_pipes
	good_files
}

@test "pheader --schema clickhouse: a CREATE TABLE every fixture's samples load into" {
	local f n=0
	while read -r f; do
		n=$((n + 1))
		run -0 --separate-stderr "$BIN/pheader" --schema clickhouse --table "$DB.s$n" "$f"
		[[ "$output" == "CREATE TABLE IF NOT EXISTS \`$DB\`.\`s$n\`"* ]]
		[[ "$output" == *'ORDER BY (host, event, time);' ]]
		echo "$output" | ch_in -n || { echo "$f: $output"; return 1; }
		ch -q "SELECT count() FROM $DB.s$n" >/dev/null
	done < <(fixtures)
	[ "$n" -gt 0 ]
}

@test "pheader --schema: tracepoint fields typed from their formats" {
	run -0 "$BIN/pheader" --schema clickhouse "$DATA/rawsys-dd.pipe"
	# raw_syscalls: long id, unsigned long args[6], long ret (perf's format files)
	[[ "$output" == *'`fields.id` Int64'* ]]
	[[ "$output" == *'`fields.args` Array(UInt64)'* ]]
	[[ "$output" == *'`fields.ret` Int64'* ]]
	[[ "$output" == *'`time` UInt64'* ]]
	run -0 "$BIN/pheader" --schema "$DATA/sched-switch-wakeup-a.pipe"
	[[ "$output" == *'"fields.prev_comm" VARCHAR'* ]]
	[[ "$output" == *'"fields.prev_pid" INTEGER'* ]]
	[[ "$output" != *CREATE* ]]
}

@test "pheader --schema: bad engine or table name is a usage error" {
	run -2 --separate-stderr "$BIN/pheader" --schema=postgres "$DATA/rawsys-dd.pipe"
	[[ "$stderr" == "pheader: --schema: 'postgres' is not clickhouse or sql"* ]]
	run -2 --separate-stderr "$BIN/pheader" --schema clickhouse --table 'x;drop' "$DATA/rawsys-dd.pipe"
	[[ "$stderr" == "pheader: --table: "* ]]
	run -2 --separate-stderr "$BIN/pheader" --table x "$DATA/rawsys-dd.pipe"
}

@test "pstream-clickhouse: every fixture: comm counts equal pcount --by comm, and perf's total" {
	local f n=0 want
	while read -r f; do
		n=$((n + 1))
		run -0 load_into "c$n" "$f"
		diff <(pcount_rows comm "$f") <(ch_rows comm "FROM $DB.c$n") ||
			{ echo "$f: comm counts differ"; return 1; }
		# perf's own count of samples (the fixture manifest) when there is one
		want=$(awk -F'\t' -v f="$(basename "$f")" '$1 == f {print $9}' \
			"$FIXTURES/MANIFEST.tsv" 2>/dev/null | jq '.SAMPLE' 2>/dev/null)
		if [[ "$want" =~ ^[0-9]+$ ]]; then
			[ "$(ch -q "SELECT count() FROM $DB.c$n")" = "$want" ] ||
				{ echo "$f: perf counts $want samples"; return 1; }
		fi
	done < <(fixtures)
	[ "$n" -gt 0 ]
}

@test "pstream-clickhouse: syscall ids of sys_enter equal pcount --by id --where" {
	local f n=0
	while read -r f; do
		"$BIN/pheader" --json "$f" | grep -q 'raw_syscalls:sys_enter' || continue
		n=$((n + 1))
		run -0 load_into "r$n" "$f"
		diff <(pcount_rows id "$f" --where 'event = raw_syscalls:sys_enter') \
			<(ch_rows '`fields.id`' "FROM $DB.r$n WHERE event = 'raw_syscalls:sys_enter'") ||
			{ echo "$f: id counts differ"; return 1; }
	done < <(fixtures)
	[ "$n" -gt 0 ]
}

@test "pstream-clickhouse: a u64 field's max is exact (perf script's hex args)" {
	need_perf
	local f=$DATA/rawsys-dd.pipe want got
	run -0 load_into r "$f"
	# the largest syscall argument as perf script prints it (hex), in decimal
	want=$(perf script -i - -F trace <"$f" 2>/dev/null | sed -n 's/.*NR [0-9]* (\(.*\))$/\1/p' |
		tr -d ' ' | tr ',' '\n' | while read -r a; do printf '%u\n' "0x$a"; done |
		awk '{print length($0), $0}' | sort -k1,1n -k2,2 | tail -n 1 | cut -d' ' -f2)
	[ -n "$want" ]
	got=$(ch -q "SELECT toString(max(a)) FROM $DB.r ARRAY JOIN \`fields.args\` AS a")
	[ "$got" = "$want" ] || { echo "perf: $want, table: $got"; return 1; }
	# above 2^63 (20 digits): where a double or an Int64 would go wrong
	[ "${#got}" = 20 ]
}

@test "pstream-clickhouse: --help, --version, usage errors" {
	run -0 "$BIN/pstream-clickhouse" --help
	[[ "$output" == "usage: pstream-clickhouse "* ]]
	run -0 "$BIN/pstream-clickhouse" --version
	run -2 --separate-stderr "$BIN/pstream-clickhouse" --rows 0
	run -2 --separate-stderr "$BIN/pstream-clickhouse" --table 'a b'
	run -2 --separate-stderr "$BIN/pstream-clickhouse" --bogus
}

@test "pstream-clickhouse: bad input is reported at its offset, what came before is inserted" {
	need_fixtures
	run -1 --separate-stderr load_into bad "$FIXTURES/BAD-truncated-midrecord.pipe"
	[[ "$stderr" == "pstream-clickhouse: <stdin>: offset 0x"* ]]
	[ "$(ch -q "SELECT count() FROM $DB.bad")" -gt 0 ]
}

@test "pstream-clickhouse: an error a retry cannot mend stops at once, the batches kept" {
	local spool=$BATS_TEST_TMPDIR/spool
	run -1 --separate-stderr load_into nosuch "$DATA/rawsys-dd.pipe" --no-create --spool "$spool"
	[[ "$stderr" == "pstream-clickhouse: insert failed: Code: 60. "* ]]
	[[ "$stderr" == *"batches not inserted are kept in $spool"* ]]
	[ "$(cat "$spool"/b-*.json | wc -l)" = 896 ]
	TMPDIR=$BATS_TEST_TMPDIR run -1 --separate-stderr load_into x "$DATA/rawsys-dd.pipe" \
		--client /nonexistent
	[[ "$stderr" == "pstream-clickhouse: create table failed: cannot run /nonexistent: "* ]]
}

# samples precord wrote, from the stream it wrote (pheader counts the records)
samples_in() {
	"$BIN/pcount" -j --by event "$1" | jq '.total'
}

can_trace() {
	[ -e /sys/kernel/tracing/events/raw_syscalls ] || skip "no tracefs raw_syscalls here"
	"$BIN/precord" -e raw_syscalls:sys_enter -o /dev/null -- true 2>/dev/null ||
		skip "precord cannot trace here"
}

# a process that makes a steady trickle of syscalls until killed; its pid in WORK
start_work() {
	( while :; do sleep 0.02; done ) >/dev/null 2>&1 &
	WORK=$!
}

@test "pstream-clickhouse: live: rows appear while precord runs, and every sample is in at the end" {
	can_trace
	local rec=$BATS_TEST_TMPDIR/rec.pipe seen=0 i
	start_work
	( "$BIN/precord" -q -p "$WORK" -e raw_syscalls:sys_enter --duration 10 | tee "$rec" |
		"$BIN/pstream-clickhouse" -H 127.0.0.1 -P "$CH_PORT" -d "$DB" -t live -i 0.5 \
			2>"$BATS_TEST_TMPDIR/err" ) &
	local pid=$!
	for i in $(seq 80); do
		sleep 0.1
		seen=$(ch -q "SELECT count() FROM $DB.live" 2>/dev/null || echo 0)
		[ "$seen" -gt 0 ] && break
	done
	# the recording is still running
	kill -0 "$pid"
	[ "$seen" -gt 0 ] || { echo "no rows within 8 s"; return 1; }
	wait "$pid"
	kill "$WORK"
	[ "$(ch -q "SELECT count() FROM $DB.live")" = "$(samples_in "$rec")" ]
	# LOST counted apart: samples the kernel dropped are in LOST records, not in the table
	echo "lost: $("$BIN/pcount" -j "$rec" | jq '.lost // 0')"
}

@test "pstream-clickhouse: the server stopped 5 s mid-load: every sample exactly once" {
	can_trace
	# the CI's server too: suites run one after the other, this file alone uses it
	local rec=$BATS_TEST_TMPDIR/rec.pipe n
	start_work
	( "$BIN/precord" -q -p "$WORK" -e raw_syscalls:sys_enter --duration 9 | tee "$rec" |
		"$BIN/pstream-clickhouse" -H 127.0.0.1 -P "$CH_PORT" -d "$DB" -t restart -i 0.3 \
			--spool "$BATS_TEST_TMPDIR/spool" 2>"$BATS_TEST_TMPDIR/err" ) &
	local pid=$!
	sleep 2
	"$TOP/tests/clickhouse-server.sh" stop "$CH_DIR"
	sleep 5
	"$TOP/tests/clickhouse-server.sh" start "$CH_DIR" >/dev/null
	wait "$pid"
	kill "$WORK"
	cat "$BATS_TEST_TMPDIR/err"
	grep -q 'retrying' "$BATS_TEST_TMPDIR/err"
	n=$(samples_in "$rec")
	[ "$(ch -q "SELECT count() FROM $DB.restart")" = "$n" ]
	# no sample twice
	[ "$(ch -q "SELECT uniqExact(event, time, cpu, tid) FROM $DB.restart")" = "$n" ]
	# nothing left behind in the spool
	[ -z "$(ls "$BATS_TEST_TMPDIR/spool")" ]
}

@test "pstream-clickhouse: a batch found in the spool is not inserted twice" {
	local f=$DATA/rawsys-dd.pipe spool=$BATS_TEST_TMPDIR/spool dead
	"$BIN/pheader" --schema clickhouse --table "$DB.once" "$f" | ch_in -n
	# no server there: the batch stays in the spool, and TERM gives up (status 1)
	dead=$(ch -q "SELECT 1" >/dev/null && echo 1)
	run -1 --separate-stderr timeout --preserve-status -s TERM 3 "$BIN/pstream-clickhouse" -H 127.0.0.1 -P 1 \
		-d "$DB" -t once --spool "$spool" <"$f"
	[[ "$stderr" == *"batches not inserted are kept in $spool"* ]]
	[ "$(ls "$spool"/b-*.json | wc -l)" = 1 ]
	# the insert went through, but the loader never heard back
	ch_in --input_format_import_nested_json=1 -q "INSERT INTO $DB.once FORMAT JSONEachRow" \
		<"$(ls "$spool"/b-*.json)"
	run -0 --separate-stderr load_into once "$f" --spool "$spool" -v
	[[ "$stderr" == *"were in already"* ]]
	[ "$(ch -q "SELECT count() FROM $DB.once")" = $((2 * 896)) ]
	[ "$(ch -q "SELECT uniqExact(batch) FROM $DB.once")" = 2 ]
}

@test "pstream-clickhouse: Distributed over two shards answers as the shards summed" {
	local f=$DATA/rawsys-dd.pipe g=$DATA/sched-switch-wakeup-a.pipe s
	for s in shard1 shard2; do
		ch -q "CREATE DATABASE IF NOT EXISTS $s"
		ch -q "DROP TABLE IF EXISTS $s.ev_$DB"
	done
	# one schema for both hosts' streams: the union of their columns
	{
		"$BIN/pheader" --schema clickhouse --table "shard1.ev_$DB" "$f"
	} | ch_in -n
	ch -q "CREATE TABLE shard2.ev_$DB AS shard1.ev_$DB"
	ch -q "CREATE TABLE $DB.ev AS shard1.ev_$DB ENGINE = Distributed(pstream_two_shards, '', ev_$DB, cityHash64(host))"
	# two hosts' streams, one per shard by cityHash64(host) (the second's tracepoint
	# fields have no columns here: left out)
	run -0 load_into ev "$f" --no-create --hostname alpha -s insert_distributed_sync=1
	run -0 load_into ev "$g" --no-create --hostname gamma -s insert_distributed_sync=1
	local dist sum
	dist=$(ch -q "SELECT host, comm, count() FROM $DB.ev GROUP BY host, comm ORDER BY host, comm")
	sum=$(ch -q "SELECT host, comm, count() FROM (SELECT host, comm FROM shard1.ev_$DB UNION ALL SELECT host, comm FROM shard2.ev_$DB) GROUP BY host, comm ORDER BY host, comm")
	[ "$dist" = "$sum" ]
	# both shards hold rows, and each host's rows equal pcount's
	[ "$(ch -q "SELECT count() FROM shard1.ev_$DB")" -gt 0 ]
	[ "$(ch -q "SELECT count() FROM shard2.ev_$DB")" -gt 0 ]
	[ "$(ch -q "SELECT count() FROM $DB.ev WHERE host = 'alpha'")" = "$(samples_in "$f")" ]
	[ "$(ch -q "SELECT count() FROM $DB.ev WHERE host = 'gamma'")" = "$(samples_in "$g")" ]
	diff <(pcount_rows comm "$g") <(ch_rows comm "FROM $DB.ev WHERE host = 'gamma'")
	for s in shard1 shard2; do ch -q "DROP TABLE $s.ev_$DB"; done
}
