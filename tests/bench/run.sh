#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# make bench: one table of ratios from one run, against the closest baselines measured in
# the same run on the same machine (never absolute targets): each stage against `cat | cat`
# (the pipe limit) and against perf script, ptojson against perf script with the same
# fields and against perf data convert --to-json, peak memory on a stream and on one ten
# times longer, the latency of precord | pfilter | ptojson, precord against perf record
# under the same syscall storm.  Each figure is the median of BENCH_RUNS runs (3); a ratio
# to the pipe limit is the ratio of the medians of BENCH_PAIR_RUNS runs (15) of the stage and
# of `cat | cat` taken in turn, so that a change of load on the machine hits both.  The
# table is printed and written to tests/bench/results.md with the machine's description.
#
# To add a figure: call `stage NAME COMMAND` (a filter fed the stream on stdin) or
# `row FIGURE VALUE GOAL` in a block of your own at the end, before `finish`.
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN=$PWD/bin
RUNS=${BENCH_RUNS:-3}
PAIR_RUNS=${BENCH_PAIR_RUNS:-15}
COPIES=${BENCH_COPIES:-1000}
RESULTS=${BENCH_RESULTS:-tests/bench/results.md}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

src=tests/data/rawsys-dd.pipe
big=$work/big.pipe

# ---- helpers ----
rows=()
row() { # row FIGURE VALUE [GOAL]: one line of the table
	rows+=("| ${1//|/\\|} | $2 | ${3:-} |")
	printf '%-52s %-24s %s\n' "$1" "$2" "${3:-}"
}

median() { sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }

secs() { # median wall-clock seconds of a shell command over $RUNS runs
	local i s e
	for ((i = 0; i < RUNS; i++)); do
		s=$(date +%s%N)
		bash -c "$1" >/dev/null 2>&1 || true
		e=$(date +%s%N)
		echo $(((e - s) / 1000))e-6
	done | median
}

pair() { # pair BASE CMD [PREP]: "TBASE TCMD", median wall seconds of each over $PAIR_RUNS
	# runs in turn; PREP, untimed, before each run of CMD
	local i s e a=() b=()
	for ((i = 0; i < PAIR_RUNS; i++)); do
		s=$(date +%s%N)
		bash -c "$1" >/dev/null 2>&1 || true
		e=$(date +%s%N)
		a+=("$(((e - s) / 1000))e-6")
		[ -z "${3:-}" ] || bash -c "$3" >/dev/null 2>&1 || true
		s=$(date +%s%N)
		bash -c "$2" >/dev/null 2>&1 || true
		e=$(date +%s%N)
		b+=("$(((e - s) / 1000))e-6")
	done
	echo "$(printf '%s\n' "${a[@]}" | median) $(printf '%s\n' "${b[@]}" | median)"
}

rss_kb() { # median peak resident KiB of the last command of a pipeline, over $RUNS runs
	local i
	for ((i = 0; i < RUNS; i++)); do
		bash -c "${1%|*} | /usr/bin/time -f %M -o '$work/rss' ${1##*|} > /dev/null" 2>/dev/null || true
		tail -n 1 "$work/rss"
	done | median
}

x() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2fx", a / b }'; }

copies() { # copies N FILE...: the stream repeated N times, one header (pcat joins pieces)
	local n=$1 args=() i
	shift
	for ((i = 0; i < n; i++)); do args+=("$@"); done
	"$BIN/pcat" "${args[@]}"
}

base_perf=""
stage() { # stage NAME COMMAND: COMMAND reads the stream on stdin
	local t tb
	read -r tb t < <(pair "cat '$big' | cat > /dev/null" "cat '$big' | $2 > /dev/null")
	row "$1 vs cat | cat (throughput)" "$(x "$tb" "$t")" "${3:-}"
	[ -z "$base_perf" ] || row "$1 vs perf script" "$(x "$base_perf" "$t")" "${4:-}"
}

load_start=$(cut -d' ' -f1-3 /proc/loadavg)
start_s=$(date +%s)

# ---- the stream ----
copies "$COPIES" "$src" >"$big"
samples=$("$BIN/pcount" -j "$big" | jq .total)
printf 'stream: %s copies of %s, %s bytes, %s samples; median of %s runs per figure, %s for a ratio to the pipe limit\n\n' \
	"$COPIES" "$src" "$(stat -c %s "$big")" "$samples" "$RUNS" "$PAIR_RUNS"
printf '%-52s %-24s %s\n' figure value goal

# ---- throughput ----
if command -v perf >/dev/null; then
	base_perf=$(secs "perf script -i - < '$big'")
fi
stage pcat "'$BIN/pcat'" ">= 0.8x"
stage "pfilter comm=dd" "'$BIN/pfilter' comm=dd" ">= 0.6x"
stage "pcount --by comm" "'$BIN/pcount' --by comm" ">= 0.6x"
# the statistics and histogram of a field per row (pcount --stats latency's work, on ret)
stage "pcount --by syscall --stats ret --hist ret" \
	"'$BIN/pcount' --by syscall --stats ret --hist ret" ">= 0.5x"
stage ptojson "'$BIN/ptojson'" "" ">= 3x"

if [ -n "$base_perf" ]; then
	t=$(secs "'$BIN/ptojson' < '$big'")
	f=$(secs "perf script --ns -F comm,tid,pid,time,cpu,event,ip,period,trace -i - < '$big'")
	row "ptojson vs perf script -F (the same fields)" "$(x "$f" "$t")"
	# the same stream as a perf.data file (pcat --data), which perf data convert needs
	"$BIN/pcat" --data -o "$work/big.data" "$big" || true
	if [ -s "$work/big.data" ] && grep -q -- --to-json <<<"$(perf data convert -h 2>&1 || true)"; then
		t=$(secs "'$BIN/ptojson' '$work/big.data'")
		f=$(secs "perf data convert -i '$work/big.data' --force --to-json '$work/convert.json'")
		row "ptojson vs perf data convert --to-json (the stream as a file)" "$(x "$f" "$t")" \
			">= 1x"
		rm -f "$work/convert.json" "$work/big.data"
	fi
fi

# ---- memory: flat on a stream ten times longer ----
ten="'$BIN/pcat' $(for i in 1 2 3 4 5 6 7 8 9 10; do printf "'%s' " "$big"; done)"
for prog in pcat "pfilter comm=dd" "pcount --by comm" ptojson; do
	small=$(rss_kb "cat '$big' | '$BIN/'$prog")
	large=$(rss_kb "$ten | '$BIN/'$prog")
	row "$prog peak RSS, 10x stream / 1x" "$(x "$large" "$small") ($small KiB)" "~1x"
done

# ---- latency: an event written by precord to the last line of pfilter | ptojson ----
if [ "$(id -u)" = 0 ] && [ -d /sys/kernel/tracing/events/syscalls ]; then
	lat=$(python3 tests/bench/latency.py "$BIN" 2>"$work/lat.err" || true)
	if [ -n "$lat" ]; then
		row "precord | pfilter | ptojson, event to line (median)" "${lat% *} ms" "<= 100 ms"
		row "precord | pfilter | ptojson, event to line (worst)" "${lat#* } ms" "<= 100 ms"
	else
		row "precord | pfilter | ptojson latency" "not measured: $(head -c 80 "$work/lat.err")"
	fi
fi

# ---- precord vs perf record under the same system-wide syscall storm ----
storm() { # one recorder run under a storm of read/write syscalls; prints samples lost cpu
	local out=$1 cmd=$2 storm_pid
	# in a session of its own: precord leaves out its own pipeline, not the storm
	setsid dd if=/dev/zero of=/dev/null bs=1 count=100000000 2>/dev/null &
	storm_pid=$!
	sleep 0.2
	/usr/bin/time -f '%U %S' -o "$work/cpu" bash -c "$cmd" >/dev/null 2>&1 || true
	kill "$storm_pid" 2>/dev/null || true
	wait "$storm_pid" 2>/dev/null || true
	"$BIN/pcount" -j "$out" 2>/dev/null | jq -r '"\(.total) \(.lost // 0)"' | tr '\n' ' '
	awk '{ printf "%.2f\n", $1 + $2 }' "$work/cpu"
}
if [ "$(id -u)" = 0 ] && command -v perf >/dev/null; then
	ev=raw_syscalls:sys_enter,raw_syscalls:sys_exit
	for ((i = 0; i < RUNS; i++)); do
		storm "$work/p.pipe" "'$BIN/precord' -q -a -e raw_syscalls:sys_enter -e raw_syscalls:sys_exit --duration 3 -o '$work/p.pipe'" >>"$work/precord"
		storm "$work/q.data" "perf record -q -a -e $ev -o '$work/q.data' -- sleep 3" >>"$work/perf"
	done
	for k in 1 2 3; do
		a=$(awk -v k=$k '{print $k}' "$work/precord" | median)
		b=$(awk -v k=$k '{print $k}' "$work/perf" | median)
		case $k in
		1) row "storm: events written, precord / perf record" "$a / $b" ;;
		2) row "storm: events lost, precord / perf record" "$a / $b" "precord <= perf" ;;
		3) row "storm: CPU seconds, precord / perf record" "$a / $b" "precord <= perf" ;;
		esac
	done
	rm -f "$work/p.pipe" "$work/q.data"
fi

# ---- pflame (issue 14): a flame graph of 1 M callchain samples against perf script on
# the same stream (goal: no slower).  Copies of a recording of the pflame test workload
# (deep frame-pointer chains whose symbols both resolve), else of the bundled cpu-clock -g
# one ----
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
	n=$(((1000000 + per - 1) / per))
	copies "$n" "$work/cg1.pipe" >"$work/cg.pipe"
	t1=$(secs "perf script -i - < '$work/cg.pipe'")
	t2=$(secs "'$BIN/pflame' < '$work/cg.pipe'")
	row "pflame vs perf script ($((n * per)) callchain samples, $(basename "$src1"))" \
		"$(x "$t1" "$t2")" ">= 1x"
	rm -f "$work/cg.pipe" "$work/cg1.pipe" "$work/deep.data"
fi

# ---- pstream-clickhouse (engineer F): rows/s from stream to table against ptojson alone,
# on a private server (tests/clickhouse-server.sh); skipped without clickhouse-server ----
if command -v clickhouse-client >/dev/null && [ "$samples" -gt 0 ]; then
	ch=$(mktemp -d "${TMPDIR:-/tmp}/pstream-ch-bench.XXXXXX")
	if port=$(tests/clickhouse-server.sh start "$ch" 2>/dev/null); then
		tj=$(secs "'$BIN/ptojson' < '$big'")
		# the server's CPU (user + system ticks) over a load, from its pid file
		srv_ticks() { awk '{print $14 + $15}' "/proc/$(cat "$ch/run/server.pid")/stat" 2>/dev/null || echo 0; }
		tick_s=$(getconf CLK_TCK)
		s=$(date +%s%N)
		k0=$(srv_ticks)
		"$BIN/pstream-clickhouse" -H 127.0.0.1 -P "$port" -t bench <"$big" || true
		k1=$(srv_ticks)
		e=$(date +%s%N)
		tc=$(((e - s) / 1000))e-6
		ch_rows=$(clickhouse-client --host 127.0.0.1 --port "$port" \
			-q 'SELECT count() FROM bench' </dev/null)
		row "pstream-clickhouse vs ptojson alone, throughput ($ch_rows rows, one run)" \
			"$(x "$tj" "$tc")" ">= 0.5x"
		# (N) the same rows as RowBinary (the earlier default): the server parses rows
		# one by one and sorts them; Native blocks come in the key's order
		s=$(date +%s%N)
		k2=$(srv_ticks)
		"$BIN/pstream-clickhouse" -H 127.0.0.1 -P "$port" -t bench_rb --format rowbinary <"$big" || true
		k3=$(srv_ticks)
		e=$(date +%s%N)
		tr=$(((e - s) / 1000))e-6
		row "pstream-clickhouse --format rowbinary vs ptojson alone (one run)" "$(x "$tj" "$tr")"
		row "ClickHouse server CPU, Native vs RowBinary load (one run)" \
			"$(x "$((k1 - k0))" "$((k3 - k2))") ($(awk -v a=$((k1 - k0)) -v b=$((k3 - k2)) -v t="$tick_s" 'BEGIN { printf "%.2f s vs %.2f s", a / t, b / t }'))" "< 1x"
		unset -f srv_ticks
		# (K) where that time goes: the same rows piped by ptojson into one
		# clickhouse-client (the insert without the loader: ClickHouse's own cost), and
		# the loader without a server (--client true: rows to the spool, nothing sent)
		"$BIN/pheader" --schema clickhouse --table bench_pipe "$big" |
			clickhouse-client --host 127.0.0.1 --port "$port" -n
		s=$(date +%s%N)
		"$BIN/ptojson" -q --host <"$big" |
			clickhouse-client --host 127.0.0.1 --port "$port" \
				--input_format_import_nested_json=1 --input_format_skip_unknown_fields=1 \
				-q 'INSERT INTO bench_pipe FORMAT JSONEachRow' || true
		e=$(date +%s%N)
		tp=$(((e - s) / 1000))e-6
		row "pstream-clickhouse vs ptojson --host | clickhouse-client (one run)" \
			"$(x "$tp" "$tc")" "~1x"
		tl=$(secs "'$BIN/pstream-clickhouse' --client true < '$big'")
		row "pstream-clickhouse without a server (--client true) vs ptojson alone" \
			"$(x "$tj" "$tl")" "~1x"
	else
		row "pstream-clickhouse" "skipped: the ClickHouse server does not start here"
	fi
	tests/clickhouse-server.sh stop "$ch" || true
	rm -rf "$ch"
fi

# rss_processes WHAT FEW MANY CALLGRAPH CMD: ptojson's peak RSS on a recording (perf record
# with CALLGRAPH, one option or two) of the shell command CMD run MANY times, against one of
# it run FEW times: the row "ptojson (WHAT) peak RSS, MANY processes / FEW" (goal ~1x)
rss_processes() {
	local what=$1 few=$2 many=$3 cg=$4 cmd=$5 k small large
	for k in "$few" "$many"; do
		perf record -q $cg -e cpu-clock -F 999 -o - -- \
			bash -c "for i in \$(seq $k); do $cmd; done" >"$work/procs$k.pipe" 2>/dev/null
	done
	small=$(rss_kb "cat '$work/procs$few.pipe' | '$BIN/ptojson'")
	large=$(rss_kb "cat '$work/procs$many.pipe' | '$BIN/ptojson'")
	row "ptojson ($what) peak RSS, $many processes / $few" "$(x "$large" "$small") ($small KiB)" "~1x"
	rm -f "$work/procs"*.pipe
}

# ---- symbols: symbolized ptojson on a callchain stream against perf script naming every
# frame on the same stream; ptojson's peak RSS on a stream of many short-lived processes
# against one of 10x as many (the maps of each are forgotten at its EXIT) ----
if command -v perf >/dev/null && command -v gcc >/dev/null &&
	gcc -O0 -fno-omit-frame-pointer -o "$work/symwork" tests/data/symbols-work.c -lm; then
	perf record -q -g -e cpu-clock -F 4000 -o - "$work/symwork" 3000 >"$work/g.pipe" 2>/dev/null
	n=$("$BIN/pcount" -j "$work/g.pipe" | jq .total)
	t1=$(secs "perf script -i - -F comm,tid,time,ip,sym,dso < '$work/g.pipe'")
	t2=$(secs "'$BIN/ptojson' < '$work/g.pipe'")
	row "ptojson (symbols) vs perf script -F ...,ip,sym,dso ($n callchain samples)" \
		"$(x "$t1" "$t2")" ">= 1x"
	rss_processes symbols 20 200 -g "'$work/symwork' 2; /bin/true"
	rm -f "$work/g.pipe"
else
	row "ptojson (symbols)" "skipped: needs perf and gcc"
fi

# ---- DWARF unwinding (issue 24): ptojson unwinding a --call-graph dwarf stream (inlined
# frames included) against perf script unwinding it, the same frames printed (goal >= 2x);
# peak RSS on many short-lived processes against 10x as many (sessions are bounded) ----
if command -v perf >/dev/null && command -v gcc >/dev/null &&
	gcc -O2 -g -fomit-frame-pointer -o "$work/dwork" tests/data/dwarf-work.c; then
	perf record -q --call-graph dwarf -e cpu-clock -F 999 -o - "$work/dwork" 3000 \
		>"$work/dw.pipe" 2>/dev/null
	n=$("$BIN/pcount" -j "$work/dw.pipe" | jq .total)
	t1=$(secs "perf script -i - -F comm,tid,time,ip,sym,dso < '$work/dw.pipe'")
	t2=$(secs "'$BIN/ptojson' < '$work/dw.pipe'")
	row "ptojson (dwarf unwinding) vs perf script -F ...,ip,sym,dso ($n samples)" \
		"$(x "$t1" "$t2")" ">= 2x"
	rss_processes dwarf 5 50 "--call-graph dwarf" "'$work/dwork' 20"
	rm -f "$work/dw.pipe"
else
	row "ptojson (dwarf unwinding)" "skipped: needs perf and gcc"
fi

# ---- psplit and pcat --merge (issue 13): throughput as a fraction of the pipe limit
# (goal >= 0.4x), peak RSS on the stream and on one 10x longer (goal: flat) ----
split_merge() { # split_merge STREAM DIR: DIR/4.list names 4 pieces of STREAM
	local n
	rm -rf "$2"
	mkdir -p "$2"
	n=$("$BIN/pcount" -j "$1" | jq .total)
	"$BIN/psplit" -n $(((n + 3) / 4)) -d "$2/4" "$1" >"$2/4.list"
}
split_merge "$big" "$work/sm"
pieces=$(tr '\n' ' ' <"$work/sm/4.list")
read -r tb t < <(pair "cat '$big' | cat > /dev/null" \
	"cat '$big' | '$BIN/psplit' --by cpu -d '$work/sm/cpu'" "rm -rf '$work/sm/cpu'")
row "psplit --by cpu vs cat | cat (throughput)" "$(x "$tb" "$t")" ">= 0.4x"
read -r t4 t < <(pair "cat $pieces | cat" "'$BIN/pcat' --merge $pieces | cat")
row "pcat --merge of 4 inputs vs cat | cat of the 4" "$(x "$t4" "$t")" ">= 0.4x"
small=$(rss_kb "rm -rf '$work/sm/cpu'; cat '$big' | '$BIN/psplit' --by cpu -d '$work/sm/cpu'")
large=$(rss_kb "rm -rf '$work/sm/cpu'; $ten | '$BIN/psplit' --by cpu -d '$work/sm/cpu'")
row "psplit --by cpu peak RSS, 10x stream / 1x" "$(x "$large" "$small") ($small KiB)" "~1x"
small=$(rss_kb "true | '$BIN/pcat' --merge $pieces")
rm -rf "$work/sm"
mkdir -p "$work/sm"
bash -c "$ten" | "$BIN/psplit" -n $(((samples * 10 + 3) / 4)) -d "$work/sm/4" >"$work/sm/4.list" 2>/dev/null
large=$(rss_kb "true | '$BIN/pcat' --merge $(tr '\n' ' ' <"$work/sm/4.list")")
row "pcat --merge of 4 inputs peak RSS, 10x inputs / 1x" "$(x "$large" "$small") ($small KiB)" "~1x"
rm -rf "$work/sm"

# ---- pcat joining many small pieces (psplit -n's, say): per-input cost against cat ----
many=$(for ((i = 0; i < 1000; i++)); do printf "'%s' " "$src"; done)
read -r tb t < <(pair "cat $many | cat" "'$BIN/pcat' $many | cat")
row "pcat joining 1000 pieces of $(stat -c %s "$src") bytes vs cat | cat of them" "$(x "$tb" "$t")"

# ---- durations (issue 23): pcount --stats latency on the stream of raw_syscalls entries
# and exits against the pipe limit (goal >= 0.5x); its peak RSS on the stream and on one 10x
# longer (goal: flat); and on 1 M threads that never exit against 100 k
# (tests/tools/manythreads.py: each enters a syscall twice and leaves it once; the durations
# keep 65536 threads and pending starts at most, and say how many they dropped) ----
lat="'$BIN/pcount' --by syscall --stats latency"
stage "pcount --by syscall --stats latency" "$lat" ">= 0.5x"
small=$(rss_kb "cat '$big' | $lat")
large=$(rss_kb "$ten | $lat")
row "pcount --stats latency peak RSS, 10x stream / 1x" "$(x "$large" "$small") ($small KiB)" "~1x"
"$BIN/pfilter" 'event = raw_syscalls:sys_enter and id = 0' <"$src" >"$work/enter.pipe"
"$BIN/pfilter" 'event = raw_syscalls:sys_exit and id = 0' <"$src" >"$work/exit.pipe"
threads() { echo "python3 tests/tools/manythreads.py $1 '$work/enter.pipe' '$work/exit.pipe'"; }
small=$(rss_kb "$(threads 100000) | $lat")
large=$(rss_kb "$(threads 1000000) | $lat")
row "pcount --stats latency peak RSS, 1 M threads that never exit / 100 k" \
	"$(x "$large" "$small") ($large KiB)" "~1x"
rm -f "$work/enter.pipe" "$work/exit.pipe"

# ---- pstream-nats: the stream published and read back through a private nats-server
# (tests/nats-server.sh, JetStream on disk) against cat | cat; each run on a subject of
# its own, pub to the end (every message acknowledged) and then sub to the end ----
if command -v nats-server >/dev/null; then
	nd=$(mktemp -d "${TMPDIR:-/tmp}/pstream-nats-bench.XXXXXX")
	if nurl=$(tests/nats-server.sh start "$nd" 2>/dev/null); then
		tb=$(secs "cat '$big' | cat")
		t=$(secs "s=bench\$RANDOM; '$BIN/pstream-nats' -s '$nurl' pub \$s '$big' &&
			'$BIN/pstream-nats' -s '$nurl' sub \$s | cat")
		row "pstream-nats pub, then sub, vs cat | cat (throughput)" "$(x "$tb" "$t")"
	else
		row "pstream-nats pub, then sub" "skipped: nats-server does not start here"
	fi
	tests/nats-server.sh stop "$nd" || true
	rm -rf "$nd"
else
	row "pstream-nats pub, then sub" "skipped: nats-server not installed"
fi

# ---- more stages (psplit, pcat --merge, symbols...): add blocks above this line ----

finish() {
	{
		echo "# make bench results"
		echo
		echo "Measured $(date -u +%Y-%m-%d) by tests/bench/run.sh, one run, median of $RUNS per figure;" \
			"a ratio to the pipe limit (cat | cat) from $PAIR_RUNS runs of each, taken in turn."
		echo "Machine: $(lscpu | sed -n 's/^Model name: *//p' | head -n 1), $(nproc) CPUs" \
			"($(lscpu | sed -n 's/^Core(s) per socket: *//p' | head -n 1) cores per socket)," \
			"$(free -g | awk '/Mem:/ {print $2}') GiB, Linux $(uname -r)," \
			"$(perf version 2>/dev/null || echo 'no perf')."
		echo "Load average (1, 5, 15 min): $load_start at the start, $(cut -d' ' -f1-3 /proc/loadavg)" \
			"at the end; the run took $((($(date +%s) - start_s) / 60)) min."
		[ -z "${BENCH_NOTE:-}" ] || echo "$BENCH_NOTE"
		echo
		echo "Stream: $COPIES copies of $src ($samples samples).  Ratios above 1x: ours is faster."
		echo
		echo "| figure | value | goal |"
		echo "| --- | --- | --- |"
		printf '%s\n' "${rows[@]}"
	} >"$RESULTS"
	echo
	echo "written to $RESULTS"
}
finish
