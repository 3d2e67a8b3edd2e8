#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# make bench: throughput and memory as ratios against the closest baseline, measured in
# one run on this machine (never absolute targets).  The large stream is made here from a
# bundled recording and removed afterwards.
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN=bin
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

src=tests/data/rawsys-dd.pipe
# pieces of one recording concatenate: N copies make a long stream with real records
make_stream() {
	local n=$1 out=$2 args=() i
	for ((i = 0; i < n; i++)); do args+=("$src"); done
	"$BIN/pcat" "${args[@]}" >"$out"
}

secs() { # seconds taken by a shell command, best of 3
	local best="" t s e
	for t in 1 2 3; do
		s=$(date +%s.%N)
		bash -c "$1" >/dev/null 2>&1
		e=$(date +%s.%N)
		t=$(echo "$e - $s" | bc -l)
		if [ -z "$best" ] || [ "$(echo "$t < $best" | bc -l)" = 1 ]; then best=$t; fi
	done
	echo "$best"
}

rss_kb() { # peak resident memory of a command, in KiB
	/usr/bin/time -f %M bash -c "$1" 2>&1 >/dev/null | tail -n 1
}

make_stream 1000 "$work/big.pipe"
make_stream 10000 "$work/huge.pipe"
bytes=$(stat -c %s "$work/big.pipe")
records=$("$BIN/pheader" --all --stats "$work/big.pipe" 2>/dev/null | awk '/TOTAL/ {print $NF}' || true)
echo "stream: $bytes bytes${records:+, $records records} (1000 copies of $src)"

base=$(secs "cat '$work/big.pipe' | cat | cat > /dev/null")
ours=$(secs "cat '$work/big.pipe' | '$BIN/pcat' | cat > /dev/null")
printf 'pcat pass-through: %.2fx the time of cat | cat (%.0f MB/s vs %.0f MB/s)\n' \
	"$(echo "$ours / $base" | bc -l)" "$(echo "$bytes / $ours / 1000000" | bc -l)" \
	"$(echo "$bytes / $base / 1000000" | bc -l)"

if command -v perf >/dev/null; then
	ps=$(secs "perf script -i - < '$work/big.pipe'")
	printf 'pcat vs perf script on the same stream: pcat takes %.3fx the time\n' \
		"$(echo "$ours / $ps" | bc -l)"
fi

samples=$("$BIN/pcount" -j "$work/big.pipe" | jq .total 2>/dev/null || echo 0)
if command -v perf >/dev/null && [ "$samples" -gt 0 ]; then
	for prog in "ptojson" "pcount --by comm" "pcount --by syscall"; do
		t=$(secs "'$BIN/'$prog < '$work/big.pipe' > /dev/null")
		printf '%-22s %8.0f samples/s; perf script %8.0f samples/s: %.2fx perf script\n' "$prog" \
			"$(echo "$samples / $t" | bc -l)" "$(echo "$samples / $ps" | bc -l)" \
			"$(echo "$ps / $t" | bc -l)"
	done
	sc=/usr/lib/perf-core/scripts/python/syscall-counts.py
	if [ -f "$sc" ]; then
		t1=$(secs "perf script -s $sc -i - < '$work/big.pipe'")
		t2=$(secs "'$BIN/pcount' --by syscall < '$work/big.pipe'")
		printf 'pcount --by syscall vs perf script -s syscall-counts.py: %.2fx faster\n' \
			"$(echo "$t1 / $t2" | bc -l)"
	fi
fi

for prog in pcat ptojson pcount; do
	small=$(rss_kb "'$BIN/$prog' < '$work/big.pipe' > /dev/null")
	large=$(rss_kb "'$BIN/$prog' < '$work/huge.pipe' > /dev/null")
	printf '%-8s peak RSS: %s KiB on the stream, %s KiB on one 10x longer (ratio %.2f)\n' \
		"$prog" "$small" "$large" "$(echo "$large / $small" | bc -l)"
done

# pflame (issue 14): a flame graph of 1 M callchain samples against perf script on the
# same stream (goal: no slower).  Copies of a recording of the pflame test workload (deep
# frame-pointer chains whose symbols both resolve), else of the bundled cpu-clock -g one.
if command -v perf >/dev/null; then
	src1=tests/data/cpuclock-g-sh.data
	if command -v gcc >/dev/null &&
		gcc -O0 -fno-omit-frame-pointer -o "$work/deep" tests/pflame/deep.c &&
		perf record -q -g -e cpu-clock -F 999 -o "$work/deep.data" -- "$work/deep" 2 \
			>/dev/null 2>&1; then
		src1="$work/deep.data"
	fi
	"$BIN/pcat" "$src1" >"$work/cg1.pipe"
	per=$("$BIN/pcount" -j "$work/cg1.pipe" | jq .total)
	copies=$(((1000000 + per - 1) / per))
	args=()
	for ((i = 0; i < copies; i++)); do args+=("$work/cg1.pipe"); done
	"$BIN/pcat" "${args[@]}" >"$work/cg.pipe"
	t1=$(secs "perf script -i - < '$work/cg.pipe'")
	t2=$(secs "'$BIN/pflame' < '$work/cg.pipe'")
	printf 'pflame on %d callchain samples (%s): %.2fs, perf script %.2fs: %.2fx perf script\n' \
		"$((copies * per))" "$(basename "$src1")" "$t2" "$t1" "$(echo "$t1 / $t2" | bc -l)"
	rm -f "$work/cg.pipe"
fi

# ---- pstream-clickhouse (engineer F): rows/s from stream to table against ptojson alone,
# on a private server (tests/clickhouse-server.sh); skipped without clickhouse-server
if command -v clickhouse-client >/dev/null && [ "$samples" -gt 0 ]; then
	ch=$(mktemp -d "${TMPDIR:-/tmp}/pstream-ch-bench.XXXXXX")
	if port=$(tests/clickhouse-server.sh start "$ch" 2>/dev/null); then
		tj=$(secs "'$BIN/ptojson' < '$work/big.pipe' > /dev/null")
		s=$(date +%s.%N)
		"$BIN/pstream-clickhouse" -H 127.0.0.1 -P "$port" -t bench \
			<"$work/big.pipe"
		e=$(date +%s.%N)
		tc=$(echo "$e - $s" | bc -l)
		rows=$(clickhouse-client --host 127.0.0.1 --port "$port" \
			-q 'SELECT count() FROM bench' </dev/null)
		printf 'pstream-clickhouse %8.0f rows/s into the table (%s rows); ptojson alone %8.0f samples/s: %.2fx the time of ptojson\n' \
			"$(echo "$rows / $tc" | bc -l)" "$rows" "$(echo "$samples / $tj" | bc -l)" \
			"$(echo "$tc / $tj" | bc -l)"
	else
		echo "pstream-clickhouse: skipped, the ClickHouse server does not start here"
	fi
	tests/clickhouse-server.sh stop "$ch"
	rm -rf "$ch"
fi
# symbols: its own block (tests/bench/symbols.sh)
bash tests/bench/symbols.sh

# psplit and pcat --merge (issue 13): throughput as a fraction of the pipe limit (goal
# >= 0.4), peak RSS on the stream and on one 10x longer (goal: flat)
split_merge() { # $1: stream; $2: output directory; prints "SPLIT_S MERGE_S BASE_S"
	local in=$1 d=$2 n
	rm -rf "$d"
	mkdir -p "$d"
	n=$("$BIN/pcount" -j "$in" | jq .total)
	"$BIN/psplit" -n $(((n + 3) / 4)) -d "$d/4" "$in" >"$d/4.list"
	echo "$(secs "cat '$in' | '$BIN/psplit' --by cpu -d '$d/cpu' > /dev/null")" \
		"$(secs "'$BIN/pcat' --merge $(tr '\n' ' ' <"$d/4.list") | cat > /dev/null")" \
		"$(secs "cat $(tr '\n' ' ' <"$d/4.list") | cat | cat > /dev/null")"
}
read -r t_split t_merge base4 < <(split_merge "$work/big.pipe" "$work/sm")
printf 'psplit --by cpu: %.2fx the pipe limit (%.0f MB/s vs %.0f MB/s)\n' \
	"$(echo "$base / $t_split" | bc -l)" "$(echo "$bytes / $t_split / 1000000" | bc -l)" \
	"$(echo "$bytes / $base / 1000000" | bc -l)"
printf 'pcat --merge of 4 inputs: %.2fx the pipe limit of the same 4 files\n' \
	"$(echo "$base4 / $t_merge" | bc -l)"
declare -A rss_split rss_merge
for size in big huge; do
	rm -rf "$work/sm"
	mkdir -p "$work/sm"
	n=$("$BIN/pcount" -j "$work/$size.pipe" | jq .total)
	rss_split[$size]=$(rss_kb "'$BIN/psplit' --by cpu -d '$work/sm/cpu' '$work/$size.pipe'")
	"$BIN/psplit" -n $(((n + 3) / 4)) -d "$work/sm/4" "$work/$size.pipe" >"$work/sm/4.list"
	rm -rf "$work/sm/cpu"
	rss_merge[$size]=$(rss_kb "'$BIN/pcat' --merge $(tr '\n' ' ' <"$work/sm/4.list")")
done
rm -rf "$work/sm"
printf 'psplit   peak RSS: %s KiB on the stream, %s KiB on one 10x longer (ratio %.2f)\n' \
	"${rss_split[big]}" "${rss_split[huge]}" "$(echo "${rss_split[huge]} / ${rss_split[big]}" | bc -l)"
printf 'pcat --merge peak RSS: %s KiB, %s KiB on 10x longer inputs (ratio %.2f)\n' \
	"${rss_merge[big]}" "${rss_merge[huge]}" "$(echo "${rss_merge[huge]} / ${rss_merge[big]}" | bc -l)"
