#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# pheader: every fact it prints is checked against what perf itself says about the same input.

bats_require_minimum_version 1.5.0

setup() {
	load helpers
}

# perf_on FILE SUBCOMMAND ARGS...: perf reads a pipe stream as -i - on stdin, a perf.data
# file by name
perf_on() {
	local f=$1
	shift
	case "$f" in
	*.data) perf "$@" -i "$f" ;;
	*) perf "$@" -i - <"$f" ;;
	esac
}

# the attr part of perf evlist -v lines: the event name (perf calls pipe tracepoints
# "unknown tracepoint") is cut off before "type: " or, for type 0, "size: "
attr_part() {
	sed 's/^.*: \(\(type\|size\): \)/\1/'
}

# "NAME COUNT" per record type from the "Aggregated stats" block of perf report -D
perf_record_counts() {
	perf_on "$1" report -D 2>/dev/null |
		awk '/^Aggregated stats:/ {on = 1; next} on && / events: / {print $1, $3; next} on {exit}'
}

@test "pheader: --help prints the usage on stdout and exits 0" {
	run -0 --separate-stderr "$BIN/pheader" --help
	[ "${lines[0]}" = "usage: pheader [-adjq] [--stats] [--schema [clickhouse | sql]] [--table name] [--symbolic] [file]" ]
	[ -z "$stderr" ]
}

@test "pheader: --version names the program and pstream" {
	version_names pheader
}

@test "pheader: an unknown option or a second operand is a usage error" {
	usage_refused pheader --no-such-option
	run -2 --separate-stderr "$BIN/pheader" "$DATA/rawsys-dd.pipe" "$DATA/rawsys-dd.pipe"
	[[ "$stderr" == "pheader: "* ]]
}

@test "pheader: a full disk is said as such, for the text, --json and --schema" {
	local opt
	for opt in "" --json --all "--all --json" --schema; do
		# shellcheck disable=SC2086
		run -1 --separate-stderr bash -c "'$BIN/pheader' $opt '$DATA/rawsys-dd.pipe' >/dev/full"
		[ "$stderr" = "pheader: standard output: No space left on device" ] ||
			{ echo "pheader $opt: $stderr"; return 1; }
	done
}

@test "pheader: --schema --symbolic adds a text column for each key ptojson --symbolic adds" {
	local f="$DATA/sched-switch-wakeup-a.pipe" g keys cols some=
	# every fixture: the _sym keys ptojson --symbolic writes are the _sym columns
	for g in $(good_pipes); do
		keys=$("$BIN/ptojson" --symbolic "$g" | jq -r '.fields // {} | keys[] | select(endswith("_sym"))' | sort -u)
		cols=$("$BIN/pheader" --schema --symbolic "$g" | sed -n 's/^ *"fields\.\([a-z_]*_sym\)" VARCHAR,*$/\1/p' | sort -u)
		[ "$keys" = "$cols" ] || { echo "$g: keys '$keys', columns '$cols'"; return 1; }
		some+=$keys
	done
	[ -n "$some" ]
	run -0 "$BIN/pheader" --schema "$f"
	[[ "$output" != *_sym* ]]
	run -2 --separate-stderr "$BIN/pheader" --symbolic "$f"
	[[ "$stderr" == "pheader: --symbolic goes with --schema"* ]]
}

@test "pheader: every event perf script shows is named in the dump" {
	need_perf
	local f name
	for f in $(good_inputs); do
		run -0 "$BIN/pheader" --dump "$f"
		while read -r name; do
			grep -qxF "  $name" <<<"$output" || {
				echo "$f: event '$name' is not in the dump"
				return 1
			}
		done < <(perf_on "$f" script -G -F event 2>/dev/null | sed 's/^ *//; s/: *$//' | sort -u)
	done
}

@test "pheader: each event's attr line is the one perf evlist -v prints" {
	need_perf
	local f
	for f in $(good_inputs); do
		perf_on "$f" evlist -v 2>/dev/null | grep -v '^#' | attr_part >"$BATS_TEST_TMPDIR/perf"
		"$BIN/pheader" "$f" | sed -n 's/^    perf evlist -v: //p' | attr_part >"$BATS_TEST_TMPDIR/ours"
		[ -s "$BATS_TEST_TMPDIR/perf" ]
		diff -u "$BATS_TEST_TMPDIR/perf" "$BATS_TEST_TMPDIR/ours" || {
			echo "$f"
			return 1
		}
	done
}

@test "pheader: --json is one JSON document; its events and sample_type flags are perf's" {
	need_perf
	local f i n st
	for f in $(good_inputs); do
		"$BIN/pheader" --json "$f" >"$BATS_TEST_TMPDIR/doc.json"
		jq . "$BATS_TEST_TMPDIR/doc.json" >/dev/null
		perf_on "$f" evlist -v 2>/dev/null | grep -v '^#' >"$BATS_TEST_TMPDIR/evlist"
		n=$(wc -l <"$BATS_TEST_TMPDIR/evlist")
		[ "$(jq '.events | length' "$BATS_TEST_TMPDIR/doc.json")" -eq "$n" ] || {
			echo "$f: event count differs from perf evlist ($n)"
			return 1
		}
		# the flags as sets: perf prints IDENTIFIER out of bit order
		for ((i = 0; i < n; i++)); do
			st=$(sed -n "$((i + 1))p" "$BATS_TEST_TMPDIR/evlist" |
				sed 's/.* sample_type: \([A-Z_|]*\).*/\1/' | tr '|' '\n' | sort | tr '\n' ' ')
			[ "$(jq -r ".events[$i].sample_type[]" "$BATS_TEST_TMPDIR/doc.json" | sort | tr '\n' ' ')" = "$st" ] || {
				echo "$f: event $i: sample_type differs from perf's $st"
				return 1
			}
		done
	done
}

@test "pheader: hostname, os release, arch and cpus agree with perf report --header-only" {
	need_perf
	local f hdr
	for f in $(good_inputs); do
		hdr=$(perf_on "$f" report --header-only 2>/dev/null)
		"$BIN/pheader" --json "$f" >"$BATS_TEST_TMPDIR/doc.json"
		# perf prints "# hostname : vm"
		field() { sed -n "s/^# $1 : //p" <<<"$hdr"; }
		[ "$(jq -r .features.hostname "$BATS_TEST_TMPDIR/doc.json")" = "$(field hostname)" ]
		[ "$(jq -r .features.osrelease "$BATS_TEST_TMPDIR/doc.json")" = "$(field 'os release')" ]
		[ "$(jq -r .features.version "$BATS_TEST_TMPDIR/doc.json")" = "$(field 'perf version')" ]
		[ "$(jq -r .features.arch "$BATS_TEST_TMPDIR/doc.json")" = "$(field arch)" ]
		[ "$(jq -r .features.nrcpus.online "$BATS_TEST_TMPDIR/doc.json")" = "$(field 'nrcpus online')" ]
		[ "$(jq -r .features.nrcpus.avail "$BATS_TEST_TMPDIR/doc.json")" = "$(field 'nrcpus avail')" ]
		[ "$(jq -r .features.cpuid "$BATS_TEST_TMPDIR/doc.json")" = "$(field cpuid)" ]
		[ "$(jq -r .features.total_mem "$BATS_TEST_TMPDIR/doc.json") kB" = "$(field 'total memory')" ]
	done
}

@test "pheader: --all counts records per type as perf report -D does" {
	need_perf
	local f
	for f in $(good_inputs); do
		perf_record_counts "$f" >"$BATS_TEST_TMPDIR/perf"
		"$BIN/pheader" --all "$f" | sed -n '/^records:/,/^$/p' |
			awk '/ events: / {print $1, $3}' >"$BATS_TEST_TMPDIR/ours"
		[ -s "$BATS_TEST_TMPDIR/perf" ]
		diff -u "$BATS_TEST_TMPDIR/perf" "$BATS_TEST_TMPDIR/ours" || {
			echo "$f"
			return 1
		}
		# the JSON says the same
		"$BIN/pheader" --all --json "$f" | jq -r '.records | to_entries[] | "\(.key) \(.value)"' \
			>"$BATS_TEST_TMPDIR/json"
		diff -u "$BATS_TEST_TMPDIR/perf" "$BATS_TEST_TMPDIR/json"
	done
}

@test "pheader: --stats prints only the record counts, those of perf report -D" {
	need_perf
	local f="$DATA/compressed-z.pipe"
	run -0 "$BIN/pheader" --stats "$f"
	[ "${lines[0]}" = "records:" ]
	[[ "$output" != *"events ("* ]]
	diff -u <(perf_record_counts "$f") <(awk '/ events: / {print $1, $3}' <<<"$output")
	run -0 "$BIN/pheader" --stats --json "$f"
	[ "$(jq -c 'keys' <<<"$output")" = '["byte_order","format","input","read_to_end","records"]' ]
}

@test "pheader: a perf.data file made a stream by pcat has the counts perf gives the stream" {
	need_perf
	local f
	for f in $(good_files); do
		"$BIN/pcat" "$f" >"$BATS_TEST_TMPDIR/stream"
		diff -u <(perf_record_counts "$BATS_TEST_TMPDIR/stream") \
			<("$BIN/pheader" --all --stats <"$BATS_TEST_TMPDIR/stream" | awk '/ events: / {print $1, $3}')
	done
}

@test "pheader: --all counts the samples of each event as perf report -D does" {
	need_perf
	local f name n ours
	for f in $(good_inputs); do
		"$BIN/pheader" --all --json "$f" >"$BATS_TEST_TMPDIR/doc.json"
		# perf: "NAME stats:" then "SAMPLE events: N"
		perf_on "$f" report -D 2>/dev/null |
			awk '/^Aggregated stats:/ {on = 1; next}
			     on && / stats:$/ {name = substr($0, 1, length($0) - 7); next}
			     on && name != "" && $1 == "SAMPLE" {print $3, name; name = ""}' \
				>"$BATS_TEST_TMPDIR/perf"
		[ -s "$BATS_TEST_TMPDIR/perf" ]
		while read -r n name; do
			ours=$(jq --arg n "$name" '[.samples_per_event[] | select(.name == $n) | .samples] | add' \
				"$BATS_TEST_TMPDIR/doc.json")
			[ "$ours" = "$n" ] && continue
			# perf also counts the values a group leader's sample reads for the members
			[ "$ours" = 0 ] && jq -e --arg n "$name" \
				'any(.events[]; .name == $n and (.read_format | index("GROUP")))' \
				"$BATS_TEST_TMPDIR/doc.json" >/dev/null && continue
			echo "$f: $name: perf counts $n samples, pheader $ours"
			return 1
		done <"$BATS_TEST_TMPDIR/perf"
		# and no event pheader saw samples of is missing from perf's list
		jq -r '.samples_per_event[] | select(.samples > 0) | .name' "$BATS_TEST_TMPDIR/doc.json" |
			while read -r name; do
				grep -qF " $name" "$BATS_TEST_TMPDIR/perf" || {
					echo "$f: $name"
					return 1
				}
			done
	done
}

@test "pheader: the build-ids of a perf.data file are those perf buildid-list shows" {
	need_perf
	local f
	for f in $(good_files); do
		diff -u <(perf buildid-list -i "$f" 2>/dev/null | sort) \
			<("$BIN/pheader" --json "$f" | jq -r '.build_ids[] | "\(.build_id) \(.filename)"' | sort)
	done
}

@test "pheader: tracepoint fields of a perf.data file are those perf evlist --trace-fields shows" {
	need_perf
	local f
	for f in $(good_files); do
		perf evlist --trace-fields -i "$f" 2>/dev/null | grep 'trace_fields: ' |
			sed 's/: trace_fields: / /' | sort >"$BATS_TEST_TMPDIR/perf"
		"$BIN/pheader" --json "$f" |
			jq -r '.tracepoints[] | "\(.system):\(.name) \([.fields[].name] | join(","))"' |
			sort >"$BATS_TEST_TMPDIR/ours"
		diff -u "$BATS_TEST_TMPDIR/perf" "$BATS_TEST_TMPDIR/ours"
	done
}

@test "pheader: a live stream is dumped at its first sample, without waiting for its end" {
	local f="$DATA/rawsys-dd.pipe" fifo="$BATS_TEST_TMPDIR/fifo"
	mkfifo "$fifo"
	# the writer keeps the stream open for 5 s after the records: a live recording
	(
		cat "$f"
		exec sleep 5
	) >"$fifo" 3>&- &
	run -0 timeout 3 "$BIN/pheader" --dump <"$fifo"
	kill $! 2>/dev/null || true
	[[ "$output" == *"raw_syscalls:sys_enter"* ]]
	[[ "$output" == *"read: the header, up to FINISHED_INIT or the first sample"* ]]
}

@test "pheader: a quiet live recording is dumped at FINISHED_INIT; --all keeps counting" {
	[ -e /sys/kernel/tracing/events/syscalls/sys_enter_sync ] || skip "no syscalls:sys_enter_sync tracepoint"
	"$BIN/precord" -q -a -e syscalls:sys_enter_sync --duration 0.1 -o /dev/null 2>/dev/null ||
		skip "precord cannot record here"
	local t="$BATS_TEST_TMPDIR" rec
	mkfifo "$t/fifo"
	# sync(2) is rare: the stream stays quiet after its header for the 30 s
	"$BIN/precord" -q -a -e syscalls:sys_enter_sync --duration 30 -o "$t/fifo" 3>&- &
	rec=$!
	run timeout 20 "$BIN/pheader" <"$t/fifo"
	kill -INT "$rec" 2>/dev/null || true
	wait "$rec" || true
	[ "$status" -eq 0 ] || { echo "pheader: status $status (124: still waiting after 20 s)"; return 1; }
	[[ "$output" == *"syscalls:sys_enter_sync"* ]]
	[[ "$output" == *"read: the header, up to FINISHED_INIT"* ]]
	# --all reads on: stopped by the end of the recording, and counts FINISHED_INIT
	run -0 timeout 20 bash -c "'$BIN/precord' -q -a -e syscalls:sys_enter_sync --duration 1 | '$BIN/pheader' --all"
	[[ "$output" == *"read: to the end"* ]]
	[[ "$output" == *"FINISHED_INIT"* ]]
}

@test "pheader: empty input, garbage and a cut header exit 1 with the offset" {
	run -1 --separate-stderr "$BIN/pheader" </dev/null
	[[ "$stderr" == "pheader: <stdin>: offset 0x"* ]]
	run -1 --separate-stderr "$BIN/pheader" < <(echo "not a perf stream at all")
	[[ "$stderr" == "pheader: <stdin>: offset 0x"* ]]
	head -c 10 "$DATA/rawsys-dd.pipe" >"$BATS_TEST_TMPDIR/cut"
	run -1 --separate-stderr "$BIN/pheader" <"$BATS_TEST_TMPDIR/cut"
	[[ "$stderr" == "pheader: <stdin>: offset 0x"* ]]
}

@test "pheader: a stream cut inside its header: what was read is shown, then the error" {
	need_perf
	local f="$DATA/rawsys-dd.pipe" name
	head -c 3000 "$f" >"$BATS_TEST_TMPDIR/cut"
	run -1 --separate-stderr "$BIN/pheader" <"$BATS_TEST_TMPDIR/cut"
	[[ "$stderr" == "pheader: <stdin>: offset 0x"* ]]
	[ "${#stderr_lines[@]}" -eq 1 ]
	# the events (the ATTR records come first) are all there
	while read -r name; do
		grep -qxF "  $name" <<<"$output"
	done < <(perf script -i - -G -F event <"$f" 2>/dev/null | sed 's/^ *//; s/: *$//' | sort -u)
	[[ "$output" == *"read: up to the damage"* ]]
	# and the JSON document is still whole, with the error in it
	run -1 --separate-stderr "$BIN/pheader" --json <"$BATS_TEST_TMPDIR/cut"
	[[ "$(jq -r .error <<<"$output")" == "offset 0x"* ]]
	[ "$(jq .read_to_end <<<"$output")" = false ]
}

@test "pheader: --all on a stream cut in a sample or with a corrupt header exits 1 after the dump" {
	local f="$DATA/rawsys-dd.pipe" bad
	# the shared set's two damaged fixtures, made here from the same stream: cut inside the
	# SAMPLE at 0xe4dc, and the header of the SAMPLE at 0x865c overwritten with 0xff bytes
	head -c 58632 "$f" >"$BATS_TEST_TMPDIR/cut.pipe"
	cp "$f" "$BATS_TEST_TMPDIR/corrupt.pipe"
	printf '\377\377\377\377\377\377\377\377' |
		dd of="$BATS_TEST_TMPDIR/corrupt.pipe" bs=1 seek=$((0x865c)) conv=notrunc status=none
	for bad in cut:0xe4dc corrupt:0x865c; do
		run -1 --separate-stderr "$BIN/pheader" --all <"$BATS_TEST_TMPDIR/${bad%%:*}.pipe"
		[[ "$stderr" == "pheader: <stdin>: offset ${bad#*:}: "* ]]
		[ "${#stderr_lines[@]}" -eq 1 ]
		[[ "$output" == *"SAMPLE events:"* ]]
		[[ "$output" == *"read: up to the damage"* ]]
	done
}

@test "pheader: feature payloads whose lengths lie are shown as malformed, nothing more" {
	local s="$BATS_TEST_TMPDIR/lying.pipe"
	{
		printf 'PERFILE2\020\000\000\000\000\000\000\000'
		# FEATURE hostname: a string of 4096 bytes in a payload of 8
		printf '\120\000\000\000\000\000\030\000\003\000\000\000\000\000\000\000'
		printf '\000\020\000\000vm\000\000'
		# FEATURE event_desc: 2^32-1 events of 128 bytes in a payload of 8
		printf '\120\000\000\000\000\000\030\000\014\000\000\000\000\000\000\000'
		printf '\377\377\377\377\200\000\000\000'
		# FEATURE nrcpus: 4 bytes of 8
		printf '\120\000\000\000\000\000\024\000\007\000\000\000\000\000\000\000'
		printf '\002\000\000\000'
		# FEATURE cmdline: 2 strings, 1 present
		printf '\120\000\000\000\000\000\034\000\013\000\000\000\000\000\000\000'
		printf '\002\000\000\000\004\000\000\000ab\000\000'
		# FEATURE 200: unknown to everyone
		printf '\120\000\000\000\000\000\024\000\310\000\000\000\000\000\000\000'
		printf 'abcd'
	} >"$s"
	run -0 "$BIN/pheader" --json "$s"
	[ "$(jq -c .features.hostname <<<"$output")" = '{"id":3,"size":8,"malformed":true}' ]
	[ "$(jq -c .features.event_desc.malformed <<<"$output")" = true ]
	[ "$(jq -c .features.nrcpus.malformed <<<"$output")" = true ]
	[ "$(jq -c .features.cmdline.malformed <<<"$output")" = true ]
	[ "$(jq -c .features.unknown_200 <<<"$output")" = '{"id":200,"size":4}' ]
	run -0 "$BIN/pheader" "$s"
	[[ "$output" == *"hostname: id=3 size=8 malformed=yes"* ]]
}

@test "pheader: u64 values above INT64_MAX and a NaN scale are strings in the JSON" {
	local s="$BATS_TEST_TMPDIR/big.pipe"
	{
		printf 'PERFILE2\020\000\000\000\000\000\000\000'
		# ATTR of 64 bytes: type 4 (raw), size 64, config 2^64-1, no ids
		printf '\100\000\000\000\000\000\110\000'
		printf '\004\000\000\000\100\000\000\000\377\377\377\377\377\377\377\377'
		printf '\000%.0s' {1..48}
		# EVENT_UPDATE SCALE: NaN, which JSON cannot hold as a number
		printf '\116\000\000\000\000\000\040\000\001\000\000\000\000\000\000\000'
		printf '\000\000\000\000\000\000\000\000\000\000\000\000\000\000\370\177'
	} >"$s"
	run -0 "$BIN/pheader" --json "$s"
	[ "$(jq -r '.events[0].scale' <<<"$output")" = nan ]
	[ "$(jq -r '.events[0].config' <<<"$output")" = 18446744073709551615 ]
	[ "$(jq -r '.events[0].config | type' <<<"$output")" = string ]
	[ "$(jq -r '.events[0].type_name' <<<"$output")" = raw ]
	run -0 "$BIN/pheader" "$s"
	[[ "$output" == *"config: 0xffffffffffffffff"* ]]
}

@test "pheader: names from the stream reach the text output escaped, keys too (PMU capabilities)" {
	local t=$BATS_TEST_TMPDIR
	# a CPU_PMU_CAPS feature record (28) whose capability's name and value hold ESC, a
	# newline and a C1 CSI, after the pipe header of a stream whose events are named so too
	"$TOOLS/phostile" names 'ev\x1b]0;title\x07\nfake: line\xc2\x9b2J' >"$t/n.pipe"
	python3 - "$t/n.pipe" "$t/caps.pipe" <<'PY'
import struct, sys
s = open(sys.argv[1], 'rb').read()
def string(b):
    b += b'\0' * (8 - len(b) % 8)
    return struct.pack('<I', len(b)) + b
body = struct.pack('<Q', 28) + struct.pack('<I', 1)
body += string(b'cap\x1b[2J\nx: 1\xc2\x9b') + string(b'v\x1b[31m')
body += b'\0' * (-len(body) % 8)
rec = struct.pack('<IHH', 80, 0, 8 + len(body)) + body
open(sys.argv[2], 'wb').write(s[:16] + rec + s[16:])
PY
	run -0 --separate-stderr "$BIN/pheader" "$t/caps.pipe"
	[[ "$output" != *$'\x1b'* && "$output" != *$'\xc2\x9b'* && "$output" != *$'\x07'* ]] || { echo "$output" | od -c | head; return 1; }
	[[ "$output" == *'cap\x1b[2J\nx: 1\xc2\x9b=v\x1b[31m'* ]] || { echo "$output"; return 1; }
	[[ "$output" == *'ev\x1b]0;title\x07\nfake: line\xc2\x9b2J'* ]]
	[[ "$output" != *$'\nfake: line'* ]]
}
