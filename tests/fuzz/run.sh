#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# run.sh SECONDS DIR TARGET...: run each libFuzzer target built in DIR for SECONDS seconds,
# from its seeds (tests/fuzz/corpus for fuzz_input, tests/fuzz/corpus-NAME for fuzz_NAME)
# and the corpus it grew before (DIR/corpus/TARGET), at the lowest priority, FUZZ_JOBS
# (default 2) targets at a time.  Prints one line per target (executions, coverage, corpus
# size), in the order given; a crash, leak, timeout or UBSan finding is saved as
# DIR/crashes/TARGET-* and makes the exit status 1.
set -u
secs=$1 dir=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
export LSAN_OPTIONS="suppressions=$here/lsan.supp:print_suppressions=0"
jobs=${FUZZ_JOBS:-2}

# one target; its report line goes to DIR/TARGET.result, its status is the exit status
one() {
	local t=$1 name seeds args log st execs cov ft units
	name=${t#fuzz_}
	seeds=$here/corpus-$name
	[ "$t" = fuzz_input ] && seeds=$here/corpus
	mkdir -p "$dir/corpus/$t" "$dir/crashes"
	args=("$dir/corpus/$t")
	[ -d "$seeds" ] && args+=("$seeds")
	log=$dir/$t.log
	st=0
	# libdw has no frame pointers: its allocations get a whole stack only from the slow
	# unwinder, which lsan.supp's dwarf_getscopes line needs to match
	local asan=$ASAN_OPTIONS
	[ "$t" = fuzz_unwind ] && asan=$asan:fast_unwind_on_malloc=0
	ASAN_OPTIONS=$asan nice -n 19 "$dir/$t" -max_total_time="$secs" -timeout=25 -rss_limit_mb=2560 \
		-max_len=65536 -print_final_stats=1 -artifact_prefix="$dir/crashes/$t-" \
		"${args[@]}" >"$log" 2>&1 || st=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1 | cut -d' ' -f2)
	ft=$(grep -o 'ft: [0-9]*' "$log" | tail -n 1 | cut -d' ' -f2)
	units=$(find "$dir/corpus/$t" -type f | wc -l)
	if [ "$st" -eq 0 ]; then
		printf 'fuzz: %-13s %6ss  %10s execs  cov %5s  ft %6s  corpus %5s  ok\n' \
			"$t" "$secs" "${execs:-?}" "${cov:-?}" "${ft:-?}" "$units" >"$dir/$t.result"
	else
		{
			printf 'fuzz: %-13s FOUND SOMETHING (status %s): see %s\n' "$t" "$st" "$log"
			grep -m 3 'ERROR: \|runtime error\|SUMMARY' "$log" | sed 's/^/      /'
		} >"$dir/$t.result"
	fi
	return "$st"
}

rc=0
running=0
for t in "$@"; do
	if [ "$running" -ge "$jobs" ]; then
		wait -n || rc=1
		running=$((running - 1))
	fi
	one "$t" &
	running=$((running + 1))
done
while [ "$running" -gt 0 ]; do
	wait -n || rc=1
	running=$((running - 1))
done
for t in "$@"; do
	cat "$dir/$t.result"
done
exit $rc
