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
	server_stop clickhouse-server.sh "$CH_OWN" "$CH_DIR"
}

setup() {
	load helpers
	[ -z "${CH_SKIP:-}" ] || skip "$CH_SKIP"
	# one database per test: tests never see each other's rows
	DB="t${BATS_TEST_NUMBER}_$$_$RANDOM"
	ch -q "CREATE DATABASE $DB"
}

teardown() {
	local e
	# what a test left running or mounted, whatever happened to it
	[ -z "${KILL_PIDS:-}" ] || kill -9 $KILL_PIDS 2>/dev/null || true
	[ -z "${MNT:-}" ] || umount "$MNT" 2>/dev/null || true
	if [ -n "${UPROBES:-}" ]; then
		for e in /sys/kernel/tracing/events/"$UPROBES"/*/; do
			[ -d "$e" ] && echo "-:$UPROBES/$(basename "$e")" >>/sys/kernel/tracing/uprobe_events
		done 2>/dev/null || true
	fi
	[ -n "${DB:-}" ] && [ -z "${CH_SKIP:-}" ] && ch -q "DROP DATABASE IF EXISTS $DB" || true
	if [ -n "${OWN_CH_DIR:-}" ]; then
		"$TOP/tests/clickhouse-server.sh" stop "$OWN_CH_DIR" || true
		rm -rf "$OWN_CH_DIR"
	fi
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

@test "pheader --schema --symbolic: ptojson --symbolic's rows load, the _sym texts in their own columns" {
	local f="$DATA/sched-switch-wakeup-a.pipe"
	run -0 "$BIN/pheader" --schema clickhouse --symbolic "$f"
	[[ "$output" == *'`fields.prev_state` Int64,'*'`fields.prev_state_sym` String,'* ]]
	# without --symbolic there is no such column
	run -0 "$BIN/pheader" --schema clickhouse "$f"
	[[ "$output" != *_sym* ]]
	run -0 "$BIN/pheader" --schema --symbolic "$f"
	[[ "$output" == *'"fields.prev_state_sym" VARCHAR'* ]]
	"$BIN/pheader" --schema clickhouse --symbolic --table "$DB.sym" "$f" | ch_in -n
	"$BIN/ptojson" --symbolic "$f" |
		ch_in --input_format_import_nested_json=1 -q "INSERT INTO $DB.sym FORMAT JSONEachRow"
	# every text as ptojson wrote it, in time order, and none lost
	diff <("$BIN/ptojson" --symbolic "$f" |
		jq -r 'select(.event == "sched:sched_switch") | "\(.time) \(.fields.prev_state) \(.fields.prev_state_sym)"' | sort) \
		<(ch -q "SELECT time, \`fields.prev_state\`, \`fields.prev_state_sym\` FROM $DB.sym
		         WHERE event = 'sched:sched_switch' ORDER BY time FORMAT TSV" | tr '\t' ' ' | sort)
	[ "$(ch -q "SELECT countIf(\`fields.prev_state_sym\` != '') FROM $DB.sym")" -gt 0 ]
	run -2 --separate-stderr "$BIN/pheader" --symbolic "$f"
	[[ "$stderr" == "pheader: --symbolic goes with --schema"* ]]
}

@test "pheader --schema: bad engine or table name is a usage error" {
	run -2 --separate-stderr "$BIN/pheader" --schema=postgres "$DATA/rawsys-dd.pipe"
	[[ "$stderr" == "pheader: --schema: 'postgres' is not clickhouse or sql"* ]]
	run -2 --separate-stderr "$BIN/pheader" --schema clickhouse --table 'x;drop' "$DATA/rawsys-dd.pipe"
	[[ "$stderr" == "pheader: --table: "* ]]
	run -2 --separate-stderr "$BIN/pheader" --table x "$DATA/rawsys-dd.pipe"
}

# a ClickHouse text column as pcount shows it: '' (no name known) is "[unknown]"
unknown() {
	echo "if($1 = '', '[unknown]', $1)"
}

@test "pstream-clickhouse: every fixture: comm counts equal pcount --by comm, and perf's total" {
	local f n=0 want lost
	while read -r f; do
		n=$((n + 1))
		# every key written has its column: the server refuses an unknown one here
		run -0 --separate-stderr load_into "c$n" "$f" -s input_format_skip_unknown_fields=0
		diff <(pcount_rows comm "$f") <(ch_rows comm "FROM $DB.c$n") ||
			{ echo "$f: comm counts differ"; return 1; }
		# the sample's own function and object, named as pcount names them
		if "$BIN/pheader" --schema "$f" | grep -q '^    "sym" '; then
			diff <(pcount_rows sym "$f") <(ch_rows "$(unknown sym)" "FROM $DB.c$n") ||
				{ echo "$f: sym counts differ"; return 1; }
			diff <(pcount_rows dso "$f") <(ch_rows "$(unknown dso)" "FROM $DB.c$n") ||
				{ echo "$f: dso counts differ"; return 1; }
		fi
		# what the kernel lost is said apart, the number pcount gives (and perf, in
		# the fixture manifest, when it says)
		lost=$("$BIN/pcount" -j "$f" | jq '.lost // 0')
		want=$(awk -F'\t' -v f="$(basename "$f")" '$1 == f {print $17}' \
			"$FIXTURES/MANIFEST.tsv" 2>/dev/null |
			jq '[.LOST_sum_lost, .LOST_SAMPLES_sum_lost] | max' 2>/dev/null || true)
		if [[ "$want" =~ ^[0-9]+$ ]]; then
			[ "$lost" = "$want" ] || { echo "$f: perf: $want lost, pcount: $lost"; return 1; }
		fi
		if [ "$lost" -gt 0 ]; then
			[[ "$stderr" == *"$lost events lost by the kernel (LOST records)"* ]] ||
				{ echo "$f: pcount: $lost lost; loader: $stderr"; return 1; }
		else
			[[ "$stderr" != *lost* ]]
		fi
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

# a client that keeps what it is asked to insert (in $ROWS), for the rows themselves
fake_client() {
	cat >"$BATS_TEST_TMPDIR/client" <<'EOF'
#!/bin/sh
case "$*" in *INSERT*) cat >>"$ROWS" ;; esac
EOF
	chmod +x "$BATS_TEST_TMPDIR/client"
	echo "$BATS_TEST_TMPDIR/client"
}

# same_rows LOADER-ROWS PTOJSON-ROWS HOST: line for line the same object, but for the
# loader's "batch" key, its "host" and its callchain, one array per frame member (names
# unknown: "" and 0); keys without a column are left out; numbers compared exactly
same_rows() {
	python3 - "$@" <<'EOF'
import json, sys
skip = {"read", "branch_stack", "branch_hw_idx", "regs_user", "stack_user", "regs_intr"}
ours = open(sys.argv[1]).read().splitlines()
want = open(sys.argv[2]).read().splitlines()
if len(ours) != len(want):
    sys.exit("%d rows, ptojson %d" % (len(ours), len(want)))
for i, (o, w) in enumerate(zip(ours, want)):
    o, w = json.loads(o), json.loads(w)
    if not o.pop("batch", None):
        sys.exit("row %d: no batch" % i)
    o.pop("stack", None)
    for k in skip:
        w.pop(k, None)
    w["host"] = sys.argv[3]
    if "callchain" in w:
        fr = w.pop("callchain")
        w["callchain"] = {"ip": [f["ip"] for f in fr], "sym": [f.get("sym", "") for f in fr],
                          "symoff": [f.get("symoff", 0) for f in fr],
                          "dso": [f.get("dso", "") for f in fr]}
    if o != w:
        sys.exit("row %d:\n ours    %s\n ptojson %s" % (i, json.dumps(o), json.dumps(w)))
print("%d rows the same" % len(ours))
EOF
}

@test "pstream-clickhouse: every fixture: the rows are ptojson's, symbols and u64 exact" {
	local f n=0 client
	client=$(fake_client)
	while read -r f; do
		n=$((n + 1))
		export ROWS=$BATS_TEST_TMPDIR/rows$n
		: >"$ROWS"
		run -0 --separate-stderr "$BIN/pstream-clickhouse" --client "$client" -n 100 \
			--format json --hostname "h$n" "$f"
		"$BIN/ptojson" -q "$f" >"$BATS_TEST_TMPDIR/want$n"
		run -0 same_rows "$ROWS" "$BATS_TEST_TMPDIR/want$n" "h$n"
		echo "$f: $output"
		# batches of at most 100 rows, each with its own id
		[ "$(jq -r .batch "$ROWS" | uniq -c | awk '$1 > 100' | wc -l)" = 0 ]
		# addresses only: every frame kept, names empty
		: >"$ROWS"
		run -0 --separate-stderr "$BIN/pstream-clickhouse" --client "$client" --no-symbols \
			--format json --hostname "h$n" "$f"
		"$BIN/ptojson" -q --no-symbols "$f" >"$BATS_TEST_TMPDIR/want$n"
		run -0 same_rows "$ROWS" "$BATS_TEST_TMPDIR/want$n" "h$n"
	done < <(fixtures)
	[ "$n" -gt 0 ]
}

# every row of TABLE as JSON text, all columns but batch, in one order
table_rows() { # table_rows DB.TABLE
	local cols
	cols=$(ch -q "SELECT arrayStringConcat(groupArray(concat('\`', name, '\`')), ', ') FROM
		(SELECT name FROM system.columns WHERE database = '${1%%.*}' AND table = '${1#*.}'
		 AND name != 'batch' ORDER BY name)")
	ch --output_format_json_quote_64bit_integers=0 --output_format_json_quote_denormals=0 \
		-q "SELECT $cols FROM $1 FORMAT JSONEachRow" | LC_ALL=C sort
}

@test "pstream-clickhouse: every fixture: Native and RowBinary rows are the JSON rows, value for value" {
	local f n=0
	while read -r f; do
		n=$((n + 1))
		run -0 --separate-stderr load_into "j$n" "$f" --format json
		run -0 --separate-stderr load_into "b$n" "$f"
		[ "$(ch -q "SELECT count() FROM $DB.b$n")" = "$(ch -q "SELECT count() FROM $DB.j$n")" ]
		diff <(table_rows "$DB.j$n") <(table_rows "$DB.b$n") >"$BATS_TEST_TMPDIR/d" ||
			{ echo "$f: Native and JSON rows differ"; head -n 20 "$BATS_TEST_TMPDIR/d"; return 1; }
		run -0 --separate-stderr load_into "r$n" "$f" --format rowbinary
		diff <(table_rows "$DB.j$n") <(table_rows "$DB.r$n") >"$BATS_TEST_TMPDIR/d" ||
			{ echo "$f: RowBinary and JSON rows differ"; head -n 20 "$BATS_TEST_TMPDIR/d"; return 1; }
		# and without symbols: every frame, names empty
		run -0 --separate-stderr load_into "jn$n" "$f" --format json --no-symbols
		run -0 --separate-stderr load_into "bn$n" "$f" --no-symbols
		diff <(table_rows "$DB.jn$n") <(table_rows "$DB.bn$n") >"$BATS_TEST_TMPDIR/d" ||
			{ echo "$f --no-symbols: rows differ"; head -n 20 "$BATS_TEST_TMPDIR/d"; return 1; }
	done < <(fixtures)
	[ "$n" -gt 0 ]
	# a stream into a table made for another: the columns the table lacks left out
	for fmt in json rowbinary native; do
		run -0 --separate-stderr load_into "mix$fmt" "$DATA/rawsys-dd.pipe" --format "$fmt"
		run -0 --separate-stderr load_into "mix$fmt" "$DATA/sched-switch-wakeup-a.pipe" \
			--format "$fmt"
	done
	[[ "$stderr" == *"has no column run_time (and others): those values are left out"* ]]
	[ "$(ch -q "SELECT count() FROM $DB.mixrowbinary WHERE event LIKE 'sched:%'")" -gt 0 ]
	diff <(table_rows "$DB.mixjson") <(table_rows "$DB.mixrowbinary")
	diff <(table_rows "$DB.mixjson") <(table_rows "$DB.mixnative")
	run -2 --separate-stderr "$BIN/pstream-clickhouse" --format csv
	[[ "$stderr" == *"--format: 'csv' is not native, rowbinary or json"* ]]
}

# the server's count of inserted blocks it found in its key's order already
already_sorted() {
	ch -q "SELECT sum(value) FROM system.events WHERE event = 'MergeTreeDataWriterBlocksAlreadySorted'"
}

@test "pstream-clickhouse: a Native batch comes in the table's key order, so the server does not sort it" {
	local before after
	# two events interleaved in time: rows as read are not in (host, event, time) order
	[ "$("$BIN/pcount" --by event "$DATA/rawsys-dd.pipe" | wc -l)" -gt 1 ]
	before=$(already_sorted)
	run -0 --separate-stderr load_into ord "$DATA/rawsys-dd.pipe" -v
	after=$(already_sorted)
	[ "$((${after:-0} - ${before:-0}))" = 1 ]
	[[ "$stderr" == *"rows inserted"* ]]
	# RowBinary rows as read: the server sorts them
	before=$(already_sorted)
	run -0 --separate-stderr load_into ordr "$DATA/rawsys-dd.pipe" --format rowbinary
	after=$(already_sorted)
	[ "$((${after:-0} - ${before:-0}))" = 0 ]
	diff <(table_rows "$DB.ord") <(table_rows "$DB.ordr")
}

# pcount --folded's lines as "STACK<TAB>COUNT", sorted
folded_rows() {
	"$BIN/pcount" --folded "$@" | sed 's/ \([0-9]*\)$/\t\1/' | LC_ALL=C sort
}

@test "pstream-clickhouse: the stack column is pcount --folded's line, counts by stack equal" {
	local f n=0 g
	while read -r f; do
		"$BIN/pheader" --schema "$f" | grep -q '"callchain.ip"' || continue
		n=$((n + 1))
		for fmt in rowbinary json; do
			run -0 --separate-stderr load_into "s$n$fmt" "$f" --format "$fmt"
			# event by event: an event recorded with call chains has every sample's
			# stack, one without has none
			while read -r e cc; do
				if [ "$cc" = 1 ]; then
					diff <(folded_rows --where "event = $e" "$f") \
						<(ch -q "SELECT stack, count() FROM $DB.s$n$fmt WHERE event = '$e'
							GROUP BY stack FORMAT TSVRaw" | LC_ALL=C sort) ||
						{ echo "$f ($fmt, $e): stack counts differ from pcount --folded"; return 1; }
				else
					[ "$(ch -q "SELECT countIf(stack != '') FROM $DB.s$n$fmt WHERE event = '$e'")" = 0 ]
				fi
			done < <(ch -q "SELECT event, max(length(callchain.ip) > 0) FROM $DB.s$n$fmt GROUP BY event")
		done
		# the flame graph query's lines into pflame --folded (STACK COUNT)
		ch -q "SELECT stack, count() FROM $DB.s${n}rowbinary WHERE stack != ''
			GROUP BY stack FORMAT TSVRaw" | tr '\t' ' ' |
			"$BIN/pflame" --folded >"$BATS_TEST_TMPDIR/f.svg"
		grep -q '<svg' "$BATS_TEST_TMPDIR/f.svg"
	done < <(fixtures)
	[ "$n" -gt 0 ]
	# without a call chain, or without symbols: empty
	run -0 --separate-stderr load_into nocc "$DATA/rawsys-dd.pipe"
	[ "$(ch -q "SELECT countIf(stack != '') FROM $DB.nocc")" = 0 ]
	g=$DATA/cpuclock-g-sh.data
	run -0 --separate-stderr load_into nosym "$g" --no-symbols
	[ "$(ch -q "SELECT countIf(stack != '') FROM $DB.nosym")" = 0 ]
	[ "$(ch -q "SELECT count() FROM $DB.nosym")" -gt 0 ]
}

@test "pstream-clickhouse: a -g recording: sym, dso and the callchain as pcount and ptojson name them" {
	command -v gcc >/dev/null || skip "gcc not installed"
	local w=$BATS_TEST_TMPDIR g=$BATS_TEST_TMPDIR/g.pipe
	gcc -O0 -g -fno-omit-frame-pointer -o "$w/symwork" "$DATA/symbols-work.c" -lm
	"$BIN/precord" -q -g -e cpu-clock -F 999 -- "$w/symwork" 300 >"$g" 2>"$w/err" ||
		skip "precord cannot record here: $(tail -n 1 "$w/err")"
	run -0 --separate-stderr load_into g "$g"
	diff <(pcount_rows sym "$g") <(ch_rows "$(unknown sym)" "FROM $DB.g")
	diff <(pcount_rows dso "$g") <(ch_rows "$(unknown dso)" "FROM $DB.g")
	# names known, not only "[unknown]" on both sides: the workload's own function
	[ "$(ch -q "SELECT count() FROM $DB.g WHERE sym = 'spin' AND dso LIKE '%/symwork'")" -gt 0 ]
	# every frame of every sample as ptojson names it (the multiset of chains)
	diff <("$BIN/ptojson" -q "$g" | jq -c '[.time, [.callchain[] | .sym // ""], [.callchain[] | .dso // ""]]' |
		LC_ALL=C sort) \
		<(ch --output_format_json_quote_64bit_integers=0 -q "SELECT time, callchain.sym AS s, callchain.dso AS d FROM $DB.g FORMAT JSONEachRow" |
			jq -c '[.time, .s, .d]' | LC_ALL=C sort)
	[ "$(ch -q "SELECT countIf(has(callchain.sym, 'main')) FROM $DB.g")" -gt 0 ]
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
	# --nats takes subjects, the NATS options need it, an absent server is said
	run -2 --separate-stderr "$BIN/pstream-clickhouse" --nats nats://127.0.0.1:1
	[[ "$stderr" == *"--nats: name the subjects to read"* ]]
	run -2 --separate-stderr "$BIN/pstream-clickhouse" --durable x
	[[ "$stderr" == *"--durable and --follow are for --nats"* ]]
	run -2 --separate-stderr "$BIN/pstream-clickhouse" --follow
	run -1 --separate-stderr "$BIN/pstream-clickhouse" --nats nats://127.0.0.1:1 'hosts.*'
	[[ "$stderr" == "pstream-clickhouse: "*"no NATS server answers"* ]]
	run -1 --separate-stderr "$BIN/pstream-clickhouse" --nats nats://127.0.0.1:1 hosts.web1
	[[ "$stderr" == "pstream-clickhouse: "*"no NATS server answers"* ]]
}

@test "pstream-clickhouse: bad input is reported at its offset, what came before is inserted" {
	run -1 --separate-stderr load_into bad "$(fixture BAD-truncated-midrecord.pipe)"
	[[ "$stderr" == "pstream-clickhouse: <stdin>: offset 0x"* ]]
	[ "$(ch -q "SELECT count() FROM $DB.bad")" -gt 0 ]
}

@test "pstream-clickhouse: an error a retry cannot mend stops at once, the batches kept" {
	local spool=$BATS_TEST_TMPDIR/spool
	run -1 --separate-stderr load_into nosuch "$DATA/rawsys-dd.pipe" --no-create --spool "$spool"
	[[ "$stderr" == "pstream-clickhouse: insert failed: Code: 60. "* ]]
	[[ "$stderr" == *"batches not inserted are kept in $spool"* ]]
	[ "$(ls "$spool"/b-*.rb | wc -l)" = 1 ]
	# the batch kept is every row: with the table there, a run without input inserts it
	"$BIN/pheader" --schema clickhouse --table "$DB.nosuch" "$DATA/rawsys-dd.pipe" | ch_in -n
	run -0 --separate-stderr "$BIN/pstream-clickhouse" -H 127.0.0.1 -P "$CH_PORT" -d "$DB" \
		-t nosuch --no-create --spool "$spool" </dev/null
	[ "$(ch -q "SELECT count() FROM $DB.nosuch")" = 896 ]
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
	local rec=$BATS_TEST_TMPDIR/rec.pipe ended=$BATS_TEST_TMPDIR/ended seen=0 i lost
	start_work
	# "ended" appears when precord has ended
	( { "$BIN/precord" -q -p "$WORK" -e raw_syscalls:sys_enter --duration 10; touch "$ended"; } |
		tee "$rec" |
		"$BIN/pstream-clickhouse" -H 127.0.0.1 -P "$CH_PORT" -d "$DB" -t live -i 0.5 \
			2>"$BATS_TEST_TMPDIR/err" ) &
	local pid=$!
	for i in $(seq 80); do
		sleep 0.1
		seen=$(ch -q "SELECT count() FROM $DB.live" 2>/dev/null || echo 0)
		[ "$seen" -gt 0 ] && break
	done
	[ "$seen" -gt 0 ] || { echo "no rows within 8 s"; return 1; }
	# rows were there while the recording was still running
	[ ! -e "$ended" ] || { echo "precord had ended when the rows came"; return 1; }
	wait "$pid"
	kill "$WORK"
	[ -e "$ended" ]
	cat "$BATS_TEST_TMPDIR/err"
	# every sample precord wrote is in the table
	[ "$(ch -q "SELECT count() FROM $DB.live")" = "$(samples_in "$rec")" ]
	# LOST counted apart: what the kernel dropped is no row, its number said as pcount says it
	lost=$("$BIN/pcount" -j "$rec" | jq '.lost // 0')
	if [ "$lost" -gt 0 ]; then
		grep -q "^pstream-clickhouse: $lost events lost by the kernel" "$BATS_TEST_TMPDIR/err"
	else
		! grep -q 'lost by the kernel' "$BATS_TEST_TMPDIR/err"
	fi
}

@test "pstream-clickhouse: the server stopped 5 s mid-load: every sample exactly once" {
	can_trace
	# a server of its own when the one in use is the CI's: other files (hostile.bats)
	# use that one, and may run beside this file
	if [ -z "$CH_OWN" ]; then
		OWN_CH_DIR=$(mktemp -d "${TMPDIR:-/tmp}/pstream-ch.XXXXXX")
		CH_DIR=$OWN_CH_DIR
		CH_PORT=$("$TOP/tests/clickhouse-server.sh" start "$CH_DIR")
		ch -q "CREATE DATABASE $DB"
	fi
	local rec=$BATS_TEST_TMPDIR/rec.pipe n
	start_work
	( "$BIN/precord" -q -p "$WORK" -e raw_syscalls:sys_enter --duration 9 | tee "$rec" |
		"$BIN/pstream-clickhouse" -H 127.0.0.1 -P "$CH_PORT" -d "$DB" -t restart -i 0.3 \
			-v --spool "$BATS_TEST_TMPDIR/spool" 2>"$BATS_TEST_TMPDIR/err" ) &
	local pid=$!
	sleep 2
	"$TOP/tests/clickhouse-server.sh" stop "$CH_DIR"
	sleep 5
	"$TOP/tests/clickhouse-server.sh" start "$CH_DIR" >/dev/null
	wait "$pid"
	kill "$WORK"
	cat "$BATS_TEST_TMPDIR/err"
	grep -q 'retrying' "$BATS_TEST_TMPDIR/err"
	grep -q 'connected again' "$BATS_TEST_TMPDIR/err"
	n=$(samples_in "$rec")
	[ "$(ch -q "SELECT count() FROM $DB.restart")" = "$n" ]
	# no sample twice
	[ "$(ch -q "SELECT uniqExact(event, time, cpu, tid) FROM $DB.restart")" = "$n" ]
	# by batch id: each batch's rows in the table once, as many as the loader wrote
	diff <(sed -n 's/^pstream-clickhouse: batch \([^ ]*\): \([0-9]*\) rows .*/\1 \2/p' \
		"$BATS_TEST_TMPDIR/err" | sort) \
		<(ch -q "SELECT batch, count() FROM $DB.restart GROUP BY batch" | tr '\t' ' ' | sort)
	# nothing left behind in the spool
	[ -z "$(ls "$BATS_TEST_TMPDIR/spool")" ]
}

# rb_insert TABLE BATCH: a RowBinary batch file inserted by hand: its first line the column
# list, its second the types, then the rows
rb_insert() {
	local cols off
	cols=$(head -n 1 "$2")
	off=$(head -n 2 "$2" | wc -c)
	tail -c +$((off + 1)) "$2" | ch_in -q "INSERT INTO $1 $cols FORMAT RowBinary"
}

@test "pstream-clickhouse: a batch found in the spool is not inserted twice" {
	local f=$DATA/rawsys-dd.pipe spool=$BATS_TEST_TMPDIR/spool dead
	"$BIN/pheader" --schema clickhouse --table "$DB.once" "$f" | ch_in -n
	# no server there: the batch stays in the spool, and TERM gives up (status 1)
	dead=$(ch -q "SELECT 1" >/dev/null && echo 1)
	run -1 --separate-stderr timeout --preserve-status -s TERM 3 "$BIN/pstream-clickhouse" -H 127.0.0.1 -P 1 \
		-d "$DB" -t once --spool "$spool" <"$f"
	[[ "$stderr" == *"batches not inserted are kept in $spool"* ]]
	[ "$(ls "$spool"/b-*.rb | wc -l)" = 1 ]
	# the insert went through, but the loader never heard back
	rb_insert "$DB.once" "$(ls "$spool"/b-*.rb)"
	run -0 --separate-stderr load_into once "$f" --spool "$spool" -v
	[[ "$stderr" == *"were in already"* ]]
	[ "$(ch -q "SELECT count() FROM $DB.once")" = $((2 * 896)) ]
	[ "$(ch -q "SELECT uniqExact(batch) FROM $DB.once")" = 2 ]
}

# the SQL of README's ClickHouse section (up to the next underlined title): each SELECT,
# to the next blank or comment line
readme_queries() {
	awk '/^Many machines: ClickHouse/ {on = 1; next} /^--+$/ {on = on == 1 ? 2 : 0; next}
		on && /^    SELECT/ {q = $0; inq = 1; next}
		inq && /^    [^-]/ {q = q " " $0; next}
		inq {print q; inq = 0}
		END {if (inq) print q}' "$TOP/README"
}

@test "pstream-clickhouse: README's fleet queries run on two hosts' streams" {
	local q n=0
	run -0 load_into ev "$DATA/rawsys-dd.pipe" --hostname web1
	run -0 load_into ev "$DATA/sched-switch-wakeup-a.pipe" --hostname web2
	run -0 load_into prof "$DATA/cpuclock-g-sh.data" --hostname web1
	while read -r q; do
		n=$((n + 1))
		q=${q//FROM ev/FROM $DB.ev}
		q=${q//FROM prof/FROM $DB.prof}
		run -0 ch -q "$q"
		[ -n "$output" ] || { echo "no rows: $q"; return 1; }
	done < <(readme_queries)
	[ "$n" -ge 4 ]
	# the syscall top of web1 is pcount's
	q=$(readme_queries | grep 'fields.id')
	diff <(ch -q "${q//FROM ev/FROM $DB.ev}" | awk -F'\t' '$1 == "web1" {print $2, $3}') \
		<("$BIN/pcount" -j --by id --where 'event = raw_syscalls:sys_enter' "$DATA/rawsys-dd.pipe" |
			jq -r '.rows[:5][] | "\(.id) \(.count)"')
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

# ---- exactly once, whatever happens (issue 21) ----

# the samples perf script reports for a stream
perf_samples() {
	perf script -i - <"$1" 2>/dev/null | wc -l
}

# wait_until CONDITION: up to 30 s for a shell condition (an end, never a duration)
wait_until() {
	local i
	for i in $(seq 300); do
		eval "$1" && return 0
		sleep 0.1
	done
	echo "still not true after 30 s: $1"
	return 1
}

# wait_end PID: its status, once it has ended (124 and killed when it runs 30 s more)
wait_end() {
	local st=0
	wait_until "! kill -0 $1 2>/dev/null" || {
		kill -9 "$1"
		wait "$1"
		return 124
	}
	wait "$1" || st=$?
	return "$st"
}

# the real client, but an INSERT waits at a gate (the file $GATE) after writing its pid
# to $GATE.waiting: an insert under way, held for as long as a test needs
gate_client() {
	cat >"$BATS_TEST_TMPDIR/gclient" <<'END'
#!/bin/sh
case "$*" in *INSERT*)
	echo $$ >>"$GATE.waiting"
	while [ ! -e "$GATE" ]; do sleep 0.05; done ;;
esac
exec clickhouse-client "$@"
END
	chmod +x "$BATS_TEST_TMPDIR/gclient"
	echo "$BATS_TEST_TMPDIR/gclient"
}

# loader [options]: the test's server and database (not for a background job, whose $!
# would be the function's shell)
loader() {
	"$BIN/pstream-clickhouse" -H 127.0.0.1 -P "$CH_PORT" -d "$DB" "$@"
}

@test "pstream-clickhouse: killed with -9 while its client inserts: the next run waits for that client, each row in once" {
	need_perf
	local f=$DATA/rawsys-dd.pipe spool=$BATS_TEST_TMPDIR/spool t=$BATS_TEST_TMPDIR client pid n
	n=$(perf_samples "$f")
	client=$(gate_client)
	export GATE=$t/gate
	"$BIN/pstream-clickhouse" -H 127.0.0.1 -P "$CH_PORT" -d "$DB" -t k --spool "$spool" --client "$client" <"$f" 2>"$t/err1" &
	pid=$!
	KILL_PIDS=$pid
	wait_until '[ -s "$GATE.waiting" ]'
	KILL_PIDS="$pid $(cat "$GATE.waiting")"
	# the loader dies; its client lives on, in its own process group, with the batch
	kill -9 "$pid"
	wait "$pid" || true
	# a new run on the spool at once: it must not check the batch before that insert ends
	"$BIN/pstream-clickhouse" -H 127.0.0.1 -P "$CH_PORT" -d "$DB" -t k --spool "$spool" -v </dev/null 2>"$t/err2" &
	pid=$!
	KILL_PIDS="$KILL_PIDS $pid"
	wait_until "! kill -0 $pid 2>/dev/null || grep -q 'waiting until it ends' '$t/err2'"
	touch "$GATE"
	wait_end "$pid" || {
		cat "$t/err2"
		return 1
	}
	wait_until "! kill -0 $(cat "$GATE.waiting") 2>/dev/null"
	cat "$t/err2"
	[ "$(ch -q "SELECT count() FROM $DB.k")" = "$n" ]
	grep -q 'waiting until it ends' "$t/err2"
	grep -q 'were in already' "$t/err2"
}

# killed_open_batch FORMAT: a loader killed with -9 while its open batch is on disk
killed_open_batch() {
	local fmt=$1 f=$BATS_TEST_TMPDIR/big.pipe spool=$BATS_TEST_TMPDIR/spool-$1 t=$BATS_TEST_TMPDIR pid part rows off
	# 20,000 rows: more than the 1 MiB the loader holds before writing its open batch
	"$TOOLS/phostile" samples 20000 >"$f"
	rm -f "$t/fifo"
	mkfifo "$t/fifo"
	"$BIN/pstream-clickhouse" -H 127.0.0.1 -P "$CH_PORT" -d "$DB" -t "p$fmt" -n 1000000 -i 86400 \
		--format "$fmt" --spool "$spool" <"$t/fifo" 2>"$t/err1" &
	pid=$!
	KILL_PIDS=$pid
	exec 7>"$t/fifo"
	cat "$f" >&7
	wait_until 'part=$(ls "$spool"/b-*.part 2>/dev/null) && [ -s "$part" ]'
	kill -9 "$pid"
	wait "$pid" || true
	exec 7>&-
	part=$(ls "$spool"/b-*.part)
	if [ "$fmt" = json ]; then
		rows=$(wc -l <"$part")
		# and a row cut short, as a kill in the middle of a write leaves it
		printf '{"event":"cpu-clock","time":9' >>"$part"
	else
		[[ "$part" == *.rb.part ]]
		# the same: the first 30 bytes of a row (the rows start after two lines)
		off=$(head -n 2 "$part" | wc -c)
		tail -c +$((off + 1)) "$part" | head -c 30 >"$t/cut"
		cat "$t/cut" >>"$part"
	fi
	run -0 --separate-stderr loader -t "p$fmt" --spool "$spool" </dev/null
	echo "$stderr"
	[ "$fmt" = json ] || rows=$(ch -q "SELECT count() FROM $DB.p$fmt")
	[ "$rows" -gt 0 ]
	[[ "$stderr" == *"the open batch of an interrupted run: its $rows complete rows go in (a row cut short at its end is dropped)"* ]]
	# the stream's first rows, each once
	diff <("$BIN/ptojson" "$f" | head -n "$rows" | jq .time) \
		<(ch -q "SELECT time FROM $DB.p$fmt ORDER BY time")
	[ -z "$(ls "$spool")" ]
}

@test "pstream-clickhouse: the open batch of a loader killed with -9 goes in on the next run, a cut row dropped" {
	killed_open_batch rowbinary
	killed_open_batch native
	killed_open_batch json
}

@test "pstream-clickhouse: SIGINT with the server up: every row read is inserted, status 0" {
	need_perf
	local f=$DATA/rawsys-dd.pipe spool=$BATS_TEST_TMPDIR/spool t=$BATS_TEST_TMPDIR pid n st=0
	n=$(perf_samples "$f")
	mkfifo "$t/fifo"
	# batches of 100 rows: the last 96 stay in the open batch, which only the end seals
	"$BIN/pstream-clickhouse" -H 127.0.0.1 -P "$CH_PORT" -d "$DB" -t i -n 100 -i 86400 -v \
		--spool "$spool" <"$t/fifo" 2>"$t/err" &
	pid=$!
	KILL_PIDS=$pid
	exec 7>"$t/fifo"
	cat "$f" >&7
	# every full batch is in, the input still open, as a live stream is: a Ctrl-C now
	wait_until '[ "$(grep -c "rows inserted" "$t/err")" = $((n / 100)) ]'
	kill -INT "$pid"
	wait_end "$pid" || st=$?
	exec 7>&-
	cat "$t/err"
	[ "$st" = 0 ]
	[ "$(ch -q "SELECT count() FROM $DB.i")" = "$n" ]
	! grep -q 'kept in' "$t/err"
}

@test "pstream-clickhouse: a full spool disk pauses the reading until inserted batches free room" {
	need_perf
	local f=$BATS_TEST_TMPDIR/ten.pipe spool=$BATS_TEST_TMPDIR/spool n
	# 10 copies of a recording: about 4 MiB of rows, one batch, on a 1 MiB file system
	"$BIN/pcat" $(for i in $(seq 10); do echo "$DATA/rawsys-dd.pipe"; done) >"$f"
	n=$(perf_samples "$f")
	mkdir "$spool"
	mount -t tmpfs -o size=1m,mode=0700 tmpfs "$spool" 2>/dev/null ||
		skip "cannot mount a tmpfs here (root needed)"
	MNT=$spool
	run -0 --separate-stderr timeout 120 "$BIN/pstream-clickhouse" -H 127.0.0.1 -P "$CH_PORT" \
		-d "$DB" -t full -n 1000000 -i 86400 --spool "$spool" <"$f"
	echo "$stderr"
	[[ "$stderr" == *"$spool: no space left on device: reading paused until inserted batches free some"* ]]
	[[ "$stderr" == *"$spool: room again: reading goes on"* ]]
	[ "$(ch -q "SELECT count() FROM $DB.full")" = "$n" ]
	[ "$(ch -q "SELECT uniqExact(batch) FROM $DB.full")" -gt 1 ]
	[ -z "$(ls "$spool")" ]
}

@test "pstream-clickhouse: a frozen server: SIGTERM ends the loader within bounds, its client killed, the batches kept" {
	need_perf
	local f=$DATA/rawsys-dd.pipe spool=$BATS_TEST_TMPDIR/spool t=$BATS_TEST_TMPDIR pid child lpid st=0
	# a server that accepts connections and never answers
	python3 -c 'import socket, time
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(64)
print(s.getsockname()[1], flush=True)
time.sleep(3600)' >"$t/port" &
	lpid=$!
	KILL_PIDS=$lpid
	wait_until '[ -s "$t/port" ]'
	"$BIN/pstream-clickhouse" -H 127.0.0.1 -P "$(cat "$t/port")" -d "$DB" -t fz --spool "$spool" \
		<"$f" 2>"$t/err" &
	pid=$!
	KILL_PIDS="$lpid $pid"
	# its client waits on the server (CREATE TABLE)
	wait_until "pgrep -P $pid >/dev/null"
	child=$(pgrep -P "$pid")
	kill -TERM "$pid"
	wait_end "$pid" || st=$?
	cat "$t/err"
	[ "$st" = 1 ]
	! kill -0 "$child" 2>/dev/null
	grep -q "batches not inserted are kept in $spool" "$t/err"
	# the real server gets them, each once
	run -0 --separate-stderr loader -t fz --spool "$spool" </dev/null
	[ "$(ch -q "SELECT count() FROM $DB.fz")" = "$(perf_samples "$f")" ]
}

@test "pstream-clickhouse: --spool with no input inserts the spool (table created first); a name is never SQL" {
	need_perf
	local f=$DATA/rawsys-dd.pipe spool=$BATS_TEST_TMPDIR/spool t=$BATS_TEST_TMPDIR pid n st=0 evil
	n=$(perf_samples "$f")
	# the server unreachable: the table not created, the batches kept
	"$BIN/pstream-clickhouse" -H 127.0.0.1 -P 1 -d "$DB" -t rec --spool "$spool" <"$f" 2>"$t/err" &
	pid=$!
	KILL_PIDS=$pid
	wait_until "grep -q retrying '$t/err'"
	kill -TERM "$pid"
	wait_end "$pid" || st=$?
	[ "$st" = 1 ]
	grep -q "batches not inserted are kept in $spool" "$t/err"
	# the hint followed: no stream, the same options
	run -0 --separate-stderr loader -t rec --spool "$spool" </dev/null
	echo "$stderr"
	[ "$(ch -q "SELECT count() FROM $DB.rec")" = "$n" ]
	[ -z "$(ls "$spool")" ]
	# a file whose name would have made the batch check count every row (and so remove
	# it unloaded) is no batch: left alone, said, nothing inserted nor removed
	evil="b-000000000001-' OR 1 OR '.json"
	yes '{}' | head -n "$n" >"$spool/$evil"
	run -0 --separate-stderr loader -t rec --spool "$spool" -v </dev/null
	echo "$stderr"
	[[ "$stderr" == *"$evil: not a batch of pstream-clickhouse: left alone"* ]]
	[ -e "$spool/$evil" ]
	[ "$(ch -q "SELECT count() FROM $DB.rec")" = "$n" ]
}

@test "pstream-clickhouse: a CREATE TABLE over 128 KiB (3,000 uprobe fields) goes in, on the client's stdin" {
	need_perf
	local u=/sys/kernel/tracing/uprobe_events t=$BATS_TEST_TMPDIR off e a args
	[ -w "$u" ] && [ -x /usr/bin/true ] || skip "no uprobe_events here"
	# the entry point of /usr/bin/true as a file offset
	off=$(python3 -c 'import struct
f = open("/usr/bin/true", "rb").read()
entry, phoff = struct.unpack_from("<QQ", f, 24)
size, num = struct.unpack_from("<HH", f, 54)
for i in range(num):
    typ, _, off, vaddr, _, filesz = struct.unpack_from("<IIQQQQ", f, phoff + i * size)
    if typ == 1 and vaddr <= entry < vaddr + filesz:
        print(hex(entry - vaddr + off))') && [ -n "$off" ] || skip "/usr/bin/true is not a 64-bit ELF"
	UPROBES=pst$$
	for e in $(seq 30); do
		args=
		for a in $(seq 100); do
			args="$args $(printf 'e%02d_a%03d_a_long_field_name' "$e" "$a")=%di"
		done
		echo "p:$UPROBES/e$e /usr/bin/true:$off$args" 2>/dev/null >>"$u" ||
			skip "cannot add uprobes here"
	done
	"$BIN/precord" -q -e "$UPROBES:*" -o "$t/up.pipe" -- /usr/bin/true
	for e in $(seq 30); do echo "-:$UPROBES/e$e" >>"$u"; done
	UPROBES=
	[ "$("$BIN/pheader" --schema clickhouse --table "$DB.up" "$t/up.pipe" | wc -c)" -gt 131072 ]
	# the real client creates the table; the rows are kept apart (an insert into 3,000
	# columns needs more memory than the test server allows)
	cat >"$t/client" <<'END'
#!/bin/sh
case "$*" in *INSERT*) exec cat >>"$ROWS" ;; esac
exec clickhouse-client "$@"
END
	chmod +x "$t/client"
	export ROWS=$t/rows
	run -0 --separate-stderr load_into up "$t/up.pipe" --client "$t/client"
	[ "$(ch -q "SELECT count() FROM system.columns WHERE database = '$DB' AND table = 'up'")" -gt 3000 ]
	[ "$(wc -l <"$ROWS")" = "$(perf_samples "$t/up.pipe")" ]
}

@test "pstream-clickhouse: an empty spool under ASan/UBSan (no qsort of NULL)" {
	local san=$TOP/build/san/bin/pstream-clickhouse client
	[ -x "$san" ] || skip "sanitized programs not built (make check builds them)"
	export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=halt_on_error=1
	export LSAN_OPTIONS="suppressions=$TOP/tests/fuzz/lsan.supp:print_suppressions=0"
	client=$(fake_client)
	export ROWS=$BATS_TEST_TMPDIR/rows
	: >"$ROWS"
	# JSON rows, one a line, to count them
	clean_run "$san" --client "$client" --format json --spool "$BATS_TEST_TMPDIR/spool" \
		"$DATA/rawsys-dd.pipe"
	[ "$(wc -l <"$ROWS")" = 896 ]
}
