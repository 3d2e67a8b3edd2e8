#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# ptojson: JSON Lines checked against perf's own decoding.

bats_require_minimum_version 1.5.0

setup() {
	load helpers
}

# the number of SAMPLE records perf itself finds in a stream (file or pipe)
perf_sample_records() {
	perf script -D -i - <"$1" 2>/dev/null | grep -c 'PERF_RECORD_SAMPLE('
}

all_inputs() {
	good_pipes
	good_files
}

@test "ptojson: --help prints the usage on stdout and exits 0" {
	run -0 --separate-stderr "$BIN/ptojson" --help
	[[ "$output" == "usage: ptojson "* ]]
}

@test "ptojson: an unknown --fields key is a usage error" {
	run -2 --separate-stderr "$BIN/ptojson" -F event,bogus "$DATA/rawsys-dd.pipe"
	[[ "$stderr" == "ptojson: --fields: unknown key 'bogus'"* ]]
	[[ "$stderr" != *"did you mean"* ]]
	# a key one or two letters off is named
	run -2 --separate-stderr "$BIN/ptojson" -F comn "$DATA/rawsys-dd.pipe"
	[[ "$stderr" == "ptojson: --fields: unknown key 'comn' (did you mean comm?)"* ]]
	run -2 --separate-stderr "$BIN/ptojson" -F time,latncy "$DATA/rawsys-dd.pipe"
	[[ "$stderr" == "ptojson: --fields: unknown key 'latncy' (did you mean latency?)"* ]]
}

@test "ptojson: every fixture gives valid JSON, one line per SAMPLE record perf finds" {
	need_perf
	local f n
	for f in $(all_inputs); do
		"$BIN/ptojson" "$f" >"$BATS_TEST_TMPDIR/out.json"
		jq -c . "$BATS_TEST_TMPDIR/out.json" >/dev/null
		if [[ "$f" == *.data ]]; then
			n=$(perf script -D -i "$f" 2>/dev/null | grep -c 'PERF_RECORD_SAMPLE(')
		else
			n=$(perf_sample_records "$f")
		fi
		[ "$(wc -l <"$BATS_TEST_TMPDIR/out.json")" -eq "$n" ] ||
			{ echo "$f: $(wc -l <"$BATS_TEST_TMPDIR/out.json") lines, perf finds $n samples"; return 1; }
	done
}

@test "ptojson: event, time, pid, tid, cpu, comm, ip and every tracepoint field equal perf's" {
	need_perf
	local f r
	for f in $(all_inputs); do
		case "$f" in *group-read*) continue ;; esac # perf adds derived member samples
		"$BIN/ptojson" "$f" >"$BATS_TEST_TMPDIR/out.json"
		if [[ "$f" == *.data ]]; then
			r=$(PTOJSON_OUT="$BATS_TEST_TMPDIR/out.json" perf script -s "$TOP/tests/tools/ptojson_compare.py" -i "$f" 2>&1 | tail -n 12)
		else
			r=$(PTOJSON_OUT="$BATS_TEST_TMPDIR/out.json" perf script -s "$TOP/tests/tools/ptojson_compare.py" -i - <"$f" 2>&1 | tail -n 12)
		fi
		[[ "$r" == *"compared "*", 0 mismatches" ]] || { echo "$f: $r"; return 1; }
		[[ "$r" != *"compared 0 samples"* ]] || { echo "$f: nothing compared"; return 1; }
	done
}

@test "ptojson: --all gives one line per record, with the type counts perf script -D shows" {
	need_perf
	local f
	for f in $(good_pipes); do
		"$BIN/ptojson" --all "$f" | jq -r .type | sort | uniq -c | awk '{print $2, $1}' | sort >"$BATS_TEST_TMPDIR/ours"
		perf script -D -i - <"$f" 2>/dev/null | grep -o 'PERF_RECORD_[A-Z_0-9]*' | sed 's/^PERF_RECORD_//' |
			sort | uniq -c | awk '{print $2, $1}' | sort >"$BATS_TEST_TMPDIR/perf"
		# perf -D names a few types differently and leaves out COMPRESSED containers
		sed -i 's/^HEADER_//; /^COMPRESSED /d' "$BATS_TEST_TMPDIR/ours"
		diff "$BATS_TEST_TMPDIR/perf" "$BATS_TEST_TMPDIR/ours" || { echo "$f"; return 1; }
	done
}

@test "ptojson: a comm with a quote, backslash, newline and invalid UTF-8 round-trips through jq" {
	local f
	f=$(fixture oddcomm-prctl.pipe)
	# perf script -F comm prints each comm's bytes as they are (right-aligned in 16)
	"$BIN/ptojson" -F comm "$f" | jq -r .comm | sort -u >"$BATS_TEST_TMPDIR/ours"
	grep -q 'a "b"' "$BATS_TEST_TMPDIR/ours"
	grep -qF '\' "$BATS_TEST_TMPDIR/ours"
	grep -q '☃' "$BATS_TEST_TMPDIR/ours"
	# the newline and the 0x01 byte come back as themselves
	[ "$("$BIN/ptojson" -F comm "$f" | jq -s 'map(select(.comm | contains("\n\u0001"))) | length')" -eq 4 ]
}

@test "ptojson: --time-format s prints perf script's --ns time" {
	need_perf
	local f="$DATA/rawsys-dd.pipe"
	"$BIN/ptojson" -t s -F time "$f" | jq -r .time >"$BATS_TEST_TMPDIR/ours"
	perf script --ns -F time -i - <"$f" 2>/dev/null | tr -d ' :' >"$BATS_TEST_TMPDIR/perf"
	cmp_or_show "$BATS_TEST_TMPDIR/perf" "$BATS_TEST_TMPDIR/ours"
}

@test "ptojson: --time-format iso without clock data is refused" {
	run -2 --separate-stderr "$BIN/ptojson" -t iso "$DATA/rawsys-dd.pipe"
	[[ "$stderr" == *"--time-format iso needs the clock data"* ]]
}

@test "ptojson: a sample reaches the reader while the producer stays open" {
	local f="$DATA/rawsys-dd.pipe" i n
	n=$("$BIN/ptojson" "$f" | wc -l)
	{ cat "$f"; sleep 5; } | "$BIN/ptojson" >"$BATS_TEST_TMPDIR/out" &
	local pid=$!
	for i in $(seq 1 30); do
		[ "$(wc -l <"$BATS_TEST_TMPDIR/out")" -eq "$n" ] && break
		sleep 0.1
	done
	kill "$pid" 2>/dev/null || true
	[ "$(wc -l <"$BATS_TEST_TMPDIR/out")" -eq "$n" ]
}

@test "ptojson: a truncated stream gives every sample before the cut, then exit 1" {
	run -1 --separate-stderr bash -c "'$BIN/ptojson' < '$(fixture BAD-truncated-midrecord.pipe)' > '$BATS_TEST_TMPDIR/out'"
	[[ "$stderr" == "ptojson: <stdin>: offset 0x"* ]]
	[ "$(wc -l <"$BATS_TEST_TMPDIR/out")" -eq 448 ]
}

@test "ptojson: --all decodes the header records: attrs as perf evlist, build-ids as perf buildid-list" {
	need_perf
	local f="$DATA/cpuclock-g-sh.data"
	"$BIN/ptojson" --all "$f" >"$BATS_TEST_TMPDIR/all.json"
	jq -r 'select(.type == "BUILD_ID") | .build_id' "$BATS_TEST_TMPDIR/all.json" | sort >"$BATS_TEST_TMPDIR/ours"
	perf buildid-list -i "$f" 2>/dev/null | awk '{print $1}' | sort >"$BATS_TEST_TMPDIR/perf"
	[ -s "$BATS_TEST_TMPDIR/perf" ]
	cmp_or_show "$BATS_TEST_TMPDIR/perf" "$BATS_TEST_TMPDIR/ours"
	# the attr's sample_type names are perf evlist -v's
	want=$(perf evlist -v -i "$f" 2>/dev/null | grep -o 'sample_type: [A-Z_|]*' | head -n 1 | sed 's/sample_type: //')
	got=$(jq -r 'select(.type == "ATTR") | .attr.sample_type | join("|")' "$BATS_TEST_TMPDIR/all.json" | head -n 1)
	[ "$want" = "$got" ]
	[ "$(jq -s 'map(select(.type == "FEATURE" and .feature == "hostname") | .value | type) | .[0]' "$BATS_TEST_TMPDIR/all.json")" = '"string"' ]
}

@test "ptojson: --time-format iso turns the stream's clock data into wall-clock UTC time" {
	need_perf
	perf record -q -k mono -o "$BATS_TEST_TMPDIR/k.data" -e cpu-clock -- \
		sh -c 'i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done' >/dev/null 2>&1 ||
		skip "perf record -k mono failed here"
	local before after t
	before=$(date -u +%s)
	t=$("$BIN/ptojson" -t iso -F time "$BATS_TEST_TMPDIR/k.data" | head -n 1 | jq -r .time)
	after=$(date -u +%s)
	[[ "$t" =~ ^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{9}Z$ ]]
	# recorded within the last minute, by this machine's clock
	t=$(date -u -d "${t%.*}Z" +%s)
	[ "$t" -ge $((before - 60)) ] && [ "$t" -le "$after" ]
	# every line as the jansson encoder writes it
	"$BIN/ptojson" -t iso "$BATS_TEST_TMPDIR/k.data" >"$BATS_TEST_TMPDIR/iso.json"
	run -0 "$TOOLS/pjsoncmp" -t iso "$BATS_TEST_TMPDIR/k.data" "$BATS_TEST_TMPDIR/iso.json"
	[[ "$output" == *"compared "*", 0 mismatches" ]]
}

@test "ptojson: --host gives every sample the hostname perf report --header-only shows" {
	need_perf
	local f want n
	for f in $(good_pipes) $(good_files); do
		want=$(perf report --header-only -i - <"$f" 2>/dev/null | sed -n 's/^# hostname : //p')
		[ -n "$want" ] || continue
		n=$("$BIN/ptojson" "$f" | wc -l)
		[ "$("$BIN/ptojson" --host "$f" | jq -r .host | grep -cxF -- "$want")" = "$n" ] ||
			{ echo "$f: not every sample has host $want"; return 1; }
		# and only on request
		[ "$("$BIN/ptojson" "$f" | jq 'select(has("host"))' | wc -l)" = 0 ]
	done
}

@test "ptojson: no string holds \\u0000, on every fixture, damaged ones included, with --all" {
	local f
	for f in $(good_pipes) $(good_files) "$FIXTURES"/BAD-*.pipe; do
		[ -f "$f" ] || continue
		if "$BIN/ptojson" -a "$f" 2>/dev/null | grep -qF '\u0000'; then
			echo "$f: \\u0000 in the output"
			return 1
		fi
	done
}

@test "ptojson: every line is the jansson encoders' object, as text and parsed back (every fixture, both byte orders, --all, -t s)" {
	local f opt be="$BATS_TEST_TMPDIR/be"
	for f in "$DATA"/*.pipe "$DATA"/*.data $(all_inputs); do
		for opt in "" "-a" "-t s"; do
			# shellcheck disable=SC2086
			"$BIN/ptojson" $opt "$f" >"$BATS_TEST_TMPDIR/out.json"
			# shellcheck disable=SC2086
			run -0 "$TOOLS/pjsoncmp" $opt "$f" "$BATS_TEST_TMPDIR/out.json"
			[[ "$output" == *"compared "*", 0 mismatches" ]] || { echo "$f $opt: $output"; return 1; }
		done
		case "$f" in *.pipe) ;; *) continue ;; esac
		"$TOOLS/pswap" "$f" >"$be" 2>/dev/null || continue
		"$BIN/ptojson" -a "$be" >"$BATS_TEST_TMPDIR/out.json"
		run -0 "$TOOLS/pjsoncmp" -a "$be" "$BATS_TEST_TMPDIR/out.json"
		[[ "$output" == *"compared "*", 0 mismatches" ]] || { echo "$f swapped: $output"; return 1; }
	done
}

@test "ptojson: the jansson encoder writes the \"input\" key of a merged stream as ptojson does" {
	local t="$BATS_TEST_TMPDIR" opt
	# two recordings merged: every sample's event names its input
	"$BIN/pcat" --merge "$DATA/rawsys-dd.pipe" "$DATA/sched-switch-wakeup-a.pipe" >"$t/m.pipe"
	for opt in "" "-a" "-t s"; do
		# shellcheck disable=SC2086
		"$BIN/ptojson" $opt "$t/m.pipe" >"$t/out.json"
		[ "$(grep -c '"input":"' "$t/out.json")" -eq 2192 ]
		# shellcheck disable=SC2086
		run -0 "$TOOLS/pjsoncmp" $opt "$t/m.pipe" "$t/out.json"
		[[ "$output" == *"compared "*", 0 mismatches" ]] || { echo "$opt: $output"; return 1; }
	done
}

# "TIME EVENT TEXT" of each symbolic field perf script prints: prev_state, softirq's action,
# gfp_flags
perf_symbolic() {
	perf script --ns -F time,event,trace -i - <"$1" 2>/dev/null | sed -nE \
		-e 's/^ *([0-9.]+): +(sched:sched_switch): .* prev_state=([^ ]+) ==>.*/\1 \2 \3/p' \
		-e 's/^ *([0-9.]+): +(irq:softirq_entry): .*\[action=([^]]+)\].*/\1 \2 \3/p' \
		-e 's/^ *([0-9.]+): +(kmem:[a-z_]+): .* gfp_flags=([^ ]+).*/\1 \2 \3/p' | sort
}

# the same from ptojson --symbolic
ptojson_symbolic() {
	"$BIN/ptojson" --symbolic -t s "$1" |
		jq -r '(.fields.prev_state_sym // .fields.vec_sym // .fields.gfp_flags_sym) as $s |
			select($s) | "\(.time) \(.event) \($s)"' | sort
}

@test "ptojson: --symbolic writes the text perf script prints next to the number (prev_state)" {
	need_perf
	local f t="$BATS_TEST_TMPDIR"
	f="$DATA/sched-switch-wakeup-a.pipe"
	perf_symbolic "$f" >"$t/perf.txt"
	ptojson_symbolic "$f" >"$t/ours.txt"
	[ "$(wc -l <"$t/perf.txt")" -gt 100 ]
	cmp_or_show "$t/perf.txt" "$t/ours.txt"
	# the number keeps its type and place; the text comes right after it
	"$BIN/ptojson" --symbolic "$f" | grep -m1 sched_switch >"$t/one.json"
	grep -Eq '"prev_state":[0-9]+,"prev_state_sym":"[A-Z+|]+","next_comm"' "$t/one.json"
	# off by default: the objects stay those a typed table loads
	run -1 bash -c "'$BIN/ptojson' '$f' | grep -c _sym"
	[ "$output" = 0 ]
}

@test "ptojson: --symbolic on a live recording: prev_state, softirq actions and gfp_flags as perf script prints them" {
	need_perf
	[ -r /sys/kernel/tracing/events/kmem/mm_page_alloc/id ] || skip "no kmem tracepoints to record"
	local t="$BATS_TEST_TMPDIR" ev
	perf record -q -a -e sched:sched_switch -e irq:softirq_entry -e kmem:kmalloc \
		-e kmem:mm_page_alloc -o - -- sh -c 'dd if=/dev/zero bs=1M count=8 2>/dev/null | cat >/dev/null; sleep 0.3' \
		>"$t/live.pipe" 2>/dev/null
	perf_symbolic "$t/live.pipe" >"$t/perf.txt"
	ptojson_symbolic "$t/live.pipe" >"$t/ours.txt"
	for ev in sched:sched_switch kmem:mm_page_alloc; do
		grep -q " $ev " "$t/perf.txt" || { echo "no $ev"; return 1; }
	done
	cmp_or_show "$t/perf.txt" "$t/ours.txt"
	# and the two encoders agree, line for line
	"$BIN/ptojson" --symbolic "$t/live.pipe" >"$t/live.json"
	run -0 "$TOOLS/pjsoncmp" -y "$t/live.pipe" "$t/live.json"
	[[ "$output" == *", 0 mismatches" ]]
}

@test "ptojson: --symbolic, every line is the jansson encoders' object (every fixture, both byte orders, --all, -p)" {
	local f opt be="$BATS_TEST_TMPDIR/be"
	for f in "$DATA"/*.pipe $(all_inputs); do
		for opt in "" "-a" "-p"; do
			# shellcheck disable=SC2086
			"$BIN/ptojson" --symbolic $opt "$f" >"$BATS_TEST_TMPDIR/out.json"
			# shellcheck disable=SC2086
			run -0 "$TOOLS/pjsoncmp" -y $opt "$f" "$BATS_TEST_TMPDIR/out.json"
			[[ "$output" == *"compared "*", 0 mismatches" ]] || { echo "$f $opt: $output"; return 1; }
		done
		case "$f" in *.pipe) ;; *) continue ;; esac
		"$TOOLS/pswap" "$f" >"$be" 2>/dev/null || continue
		# a big-endian stream gives the texts of the original
		diff <("$BIN/ptojson" --symbolic "$be" | jq -c .fields) <("$BIN/ptojson" --symbolic "$f" | jq -c .fields)
	done
	# pjsoncmp -y sees a text that is missing
	f="$DATA/sched-switch-wakeup-a.pipe"
	"$BIN/ptojson" "$f" >"$BATS_TEST_TMPDIR/out.json"
	run -1 "$TOOLS/pjsoncmp" -y "$f" "$BATS_TEST_TMPDIR/out.json"
}

@test "ptojson: pjsoncmp catches a changed value and a u64 written as a string" {
	local f="$DATA/rawsys-dd.pipe"
	"$BIN/ptojson" "$f" | sed '5s/"pid":2262/"pid":2263/' >"$BATS_TEST_TMPDIR/out.json"
	run -1 "$TOOLS/pjsoncmp" "$f" "$BATS_TEST_TMPDIR/out.json"
	[[ "$output" == *"1 mismatches"* ]]
	"$BIN/ptojson" "$f" | sed -E 's/([,[])(18446[0-9]{15})([],])/\1"\2"\3/' >"$BATS_TEST_TMPDIR/out.json"
	run -1 "$TOOLS/pjsoncmp" "$f" "$BATS_TEST_TMPDIR/out.json"
}

@test "ptojson: a u64 above 2^63 is an exact JSON number, the same type on every line" {
	local f="$DATA/rawsys-dd.pipe"
	# sys_enter's args: arg 4 is 0xffffffffffffff80 on the exit_group line (perf script shows it)
	"$BIN/ptojson" "$f" | grep -q ',18446744073709551488,'
	[ "$("$BIN/ptojson" "$f" | jq -r 'select(.fields.args) | .fields.args[] | type' | sort -u)" = number ]
}

@test "ptojson: --all on an event name that is not UTF-8 writes every record, the name as U+FFFD" {
	local t=$BATS_TEST_TMPDIR opt
	"$TOOLS/phostile" names 'ev\xff\xfeil\n"x' >"$t/s.pipe"
	for opt in --all "" -p "--all -p"; do
		# shellcheck disable=SC2086
		run -0 --separate-stderr "$BIN/ptojson" $opt "$t/s.pipe"
		[ -z "$stderr" ] || { echo "$opt: $stderr"; return 1; }
		echo "$output" >"$t/out.json"
		[ "$(jq -s -c '[.[] | select(.type == "SAMPLE" or .type == null) | .event]' "$t/out.json")" = \
			"$(printf '["ev\xef\xbf\xbd\xef\xbf\xbdil\\n\\"x","ev\xef\xbf\xbd\xef\xbf\xbdil\\n\\"x"]')" ] || { cat "$t/out.json"; return 1; }
	done
	# the EVENT_UPDATE records name it the same way, and jansson's objects agree
	run -0 "$BIN/ptojson" --all "$t/s.pipe"
	[ "$(echo "$output" | jq -s -c '[.[] | select(.type == "EVENT_UPDATE") | .event] | unique')" = \
		"$(printf '["ev\xef\xbf\xbd\xef\xbf\xbdil\\n\\"x"]')" ]
	echo "$output" >"$t/all.json"
	run -0 "$TOOLS/pjsoncmp" -a "$t/s.pipe" "$t/all.json"
	"$BIN/ptojson" "$t/s.pipe" >"$t/s.json"
	run -0 "$TOOLS/pjsoncmp" "$t/s.pipe" "$t/s.json"
}

@test "ptojson: --pretty is each object indented as jansson indents it" {
	local f
	for f in $(all_inputs); do
		"$BIN/ptojson" -a -p "$f" >"$BATS_TEST_TMPDIR/out.json"
		run -0 "$TOOLS/pjsoncmp" -a -p "$f" "$BATS_TEST_TMPDIR/out.json"
		[[ "$output" == *"compared "*", 0 mismatches" ]] || { echo "$f: $output"; return 1; }
	done
	"$BIN/ptojson" -p "$DATA/rawsys-dd.pipe" | head -n 3 >"$BATS_TEST_TMPDIR/p"
	printf '{\n  "event": "raw_syscalls:sys_exit",\n  "time": ' >"$BATS_TEST_TMPDIR/want"
	[ "$(head -c "$(wc -c <"$BATS_TEST_TMPDIR/want")" "$BATS_TEST_TMPDIR/p")" = "$(cat "$BATS_TEST_TMPDIR/want")" ]
}

@test "ptojson: --fields keeps the listed keys in the order of the full object, type only with --all" {
	local f="$DATA/sched-switch-wakeup-a.pipe"
	diff <("$BIN/ptojson" -F fields,comm,event "$f" | jq -c .) \
		<("$BIN/ptojson" "$f" | jq -c '{event, comm, fields}')
	diff <("$BIN/ptojson" -a -F type,time "$f" | jq -c .) \
		<("$BIN/ptojson" -a "$f" | jq -c 'with_entries(select(.key == "type" or .key == "time"))')
	[ "$("$BIN/ptojson" -F type,time "$f" | jq -r 'keys | join(",")' | sort -u)" = time ]
}
