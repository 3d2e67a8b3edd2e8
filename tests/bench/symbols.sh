#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# make bench, the symbols part (called by run.sh): symbolized ptojson on a callchain
# stream against perf script on the same stream (both name every frame), and ptojson's
# peak RSS on a stream 10x longer made of many short-lived processes.
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN=bin
command -v perf >/dev/null && command -v gcc >/dev/null || {
	echo "symbols: skipped (needs perf and gcc)"
	exit 0
}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
gcc -O0 -fno-omit-frame-pointer -o "$work/symwork" tests/data/symbols-work.c -lm

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

perf record -q -g -e cpu-clock -F 4000 -o - "$work/symwork" 3000 >"$work/g.pipe" 2>/dev/null
samples=$("$BIN/ptojson" --no-symbols -F time "$work/g.pipe" | wc -l)
ps=$(secs "perf script -i - -F comm,tid,time,ip,sym,dso < '$work/g.pipe'")
t=$(secs "'$BIN/ptojson' < '$work/g.pipe'")
printf 'ptojson (symbols, %d callchain samples) %8.0f samples/s; perf script %8.0f samples/s: %.2fx perf script\n' \
	"$samples" "$(echo "$samples / $t" | bc -l)" "$(echo "$samples / $ps" | bc -l)" \
	"$(echo "$ps / $t" | bc -l)"

# many processes starting and ending: the maps of each are forgotten at its EXIT
for n in 20 200; do
	perf record -q -g -e cpu-clock -F 999 -o - -- \
		bash -c "for i in \$(seq $n); do '$work/symwork' 2; /bin/true; done" \
		>"$work/procs$n.pipe" 2>/dev/null
done
small=$(rss_kb "'$BIN/ptojson' < '$work/procs20.pipe' > /dev/null")
large=$(rss_kb "'$BIN/ptojson' < '$work/procs200.pipe' > /dev/null")
printf 'ptojson (symbols) peak RSS: %s KiB on 20 processes, %s KiB on 200 (ratio %.2f)\n' \
	"$small" "$large" "$(echo "$large / $small" | bc -l)"
