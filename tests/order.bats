#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# The time-ordered view (src/lib/order.h), through its test program porder: the samples of
# every fixture, and of hand-made streams, come out in the order perf script prints them,
# each with the comm perf script shows for it.

bats_require_minimum_version 1.5.0

setup() {
	load helpers
	need_perf
	PORDER="$TOOLS/porder"
	# perf script's own line for a sample with only these fields, callchains hidden (-G)
	PERF_FIELDS=(-G -F comm,pid,tid,time --ns)
}

# perf script over fixture $1 (a pipe stream on stdin, a perf.data file with -i)
perf_samples() {
	case "$1" in
	*.data) perf script -i "$1" "${PERF_FIELDS[@]}" ;;
	*) perf_script_pipe "$1" "${PERF_FIELDS[@]}" ;;
	esac
}

# perf script's lines ("%16s %5d/%-5d %5lu.%09lu: \n") on stdin, as "TIME PID TID HEXCOMM"
# lines, the shape of `porder -x`.  The comm may hold any byte but NUL, a newline too, so
# a line is recognised by what follows the comm; the padding perf puts before a comm
# shorter than 16 bytes is dropped.
perf_to_shape() {
	perl -0777 -ne '
		while (/\G(.*?) +(-?\d+)\/(-?\d+) +(\d+\.\d{9}): \n/gs) {
			my ($c, $p, $t, $time) = ($1, $2, $3, $4);
			$c =~ s/^ +// if length($c) <= 16;
			print "$time $p $t ", unpack("H*", $c), "\n";
		}'
}

# gen_stream <desc >stream: a pipe stream with one software event (IP|TID|TIME|PERIOD,
# sample_id_all), from lines:
#   S pid tid time              SAMPLE
#   C pid tid time name [exec]  COMM (sample_id trailer: pid, tid, time)
#   F pid ppid tid ptid time    FORK
#   E pid ppid tid ptid time    EXIT
#   R                           FINISHED_ROUND
gen_stream() {
	perl -e '
		binmode STDOUT;
		my $attr = pack("V V Q< Q< Q< Q< Q<", 1, 128, 0, 1, 0x107, 0, 1 << 18) . ("\0" x 80);
		print pack("a8 Q<", "PERFILE2", 16);
		print pack("V v v", 64, 0, 8 + length($attr)) . $attr;
		while (<STDIN>) {
			my ($k, @f) = split;
			next unless defined $k;
			my ($type, $misc, $body);
			if ($k eq "S") {
				($type, $misc) = (9, 2);
				$body = pack("Q< V V Q< Q<", 0, @f[0 .. 2], 1);
			} elsif ($k eq "C") {
				my $n = $f[3] . "\0";
				$n .= "\0" while length($n) % 8;
				($type, $misc) = (3, defined $f[4] ? 0x2000 : 0);
				$body = pack("V V", @f[0, 1]) . $n . pack("V V Q<", @f[0 .. 2]);
			} elsif ($k eq "F" || $k eq "E") {
				($type, $misc) = ($k eq "F" ? 7 : 4, 0);
				$body = pack("V V V V Q< V V Q<", @f[0 .. 4], @f[0, 2, 4]);
			} elsif ($k eq "R") {
				($type, $misc, $body) = (68, 0, "");
			} else {
				die "gen_stream: bad line: $_";
			}
			print pack("V v v", $type, $misc, 8 + length($body)) . $body;
		}'
}

# porder -p and perf script agree byte for byte on stream $1; stderr of each kept
same_as_perf() {
	local f="$1"
	perf_samples "$f" >"$BATS_TEST_TMPDIR/perf.txt" 2>"$BATS_TEST_TMPDIR/perf.err"
	"$PORDER" -p "$f" >"$BATS_TEST_TMPDIR/porder.txt" 2>"$BATS_TEST_TMPDIR/porder.err"
	[ -s "$BATS_TEST_TMPDIR/perf.txt" ] || { echo "perf printed no sample for $f"; return 1; }
	if ! cmp -s "$BATS_TEST_TMPDIR/perf.txt" "$BATS_TEST_TMPDIR/porder.txt"; then
		echo "porder -p differs from perf script for $f:"
		diff "$BATS_TEST_TMPDIR/perf.txt" "$BATS_TEST_TMPDIR/porder.txt" | head -n 20
		return 1
	fi
}

# the count in perf's "N out of order events recorded." and in porder's "N out of order
# records" (0 when not said) must be the same
same_out_of_order() {
	local a b
	a=$(sed -n 's/^\([0-9]*\) out of order events recorded\.$/\1/p' "$BATS_TEST_TMPDIR/perf.err")
	b=$(sed -n 's/^porder: .*: \([0-9]*\) out of order records$/\1/p' "$BATS_TEST_TMPDIR/porder.err")
	[ "${a:-0}" = "${b:-0}" ] || { echo "out of order: perf ${a:-0}, porder ${b:-0}"; return 1; }
}

@test "order: every pipe fixture: porder prints perf script's samples, in its order, with its comms" {
	local f n=0
	for f in $(good_pipes); do
		same_as_perf "$f"
		same_out_of_order
		n=$((n + 1))
	done
	[ "$n" -gt 0 ]
}

@test "order: every perf.data fixture: porder prints perf script's samples, in its order, with its comms" {
	local f n=0
	for f in $(good_files); do
		same_as_perf "$f"
		n=$((n + 1))
	done
	[ "$n" -gt 0 ]
}

@test "order: (time, pid, tid, comm) of every sample equals perf script's, comms compared in hex" {
	local f
	for f in $(good_pipes) $(good_files); do
		perf_samples "$f" 2>/dev/null | perf_to_shape >"$BATS_TEST_TMPDIR/perf.txt"
		"$PORDER" -x <"$f" >"$BATS_TEST_TMPDIR/porder.txt"
		[ -s "$BATS_TEST_TMPDIR/perf.txt" ]
		cmp_or_show "$BATS_TEST_TMPDIR/perf.txt" "$BATS_TEST_TMPDIR/porder.txt" ||
			{ echo "for $f"; return 1; }
	done
}

@test "order: a comm with tab, newline, quotes and control bytes is the comm perf shows" {
	local f
	f=$(fixture oddcomm-prctl.pipe)
	same_as_perf "$f"
	# 'a "b"<TAB>\<snowman><LF><0x01>' cut to 15 bytes, as prctl(PR_SET_NAME) left it
	"$PORDER" -x <"$f" >"$BATS_TEST_TMPDIR/x.txt"
	grep -q ' 6120226222095ce298830a01$' "$BATS_TEST_TMPDIR/x.txt"
	grep -q ' 737020206163652026203c783e$' "$BATS_TEST_TMPDIR/x.txt"
}

@test "order: the fixtures whose samples are out of time order in the stream come out sorted" {
	local f n=0 prev t
	for f in $(good_pipes) $(good_files); do
		# fixtures where arrival order differs from time order (MANIFEST: time decreases)
		"$PORDER" -m 1 <"$f" >"$BATS_TEST_TMPDIR/arrival.txt" 2>/dev/null
		"$PORDER" <"$f" >"$BATS_TEST_TMPDIR/sorted.txt"
		cmp -s "$BATS_TEST_TMPDIR/arrival.txt" "$BATS_TEST_TMPDIR/sorted.txt" && continue
		n=$((n + 1))
		prev=0
		while read -r t _; do
			[ "${t/./}" -ge "$prev" ] || { echo "$f: $t after $prev"; return 1; }
			prev=${t/./}
		done < <(grep -a '^[0-9]*\.[0-9]\{9\} ' "$BATS_TEST_TMPDIR/sorted.txt")
	done
	[ "$n" -gt 0 ] || { echo "no fixture needed sorting: the test proves nothing"; return 1; }
}

@test "order: a stream cut inside a record: the samples before the cut, as perf prints them, then status 1" {
	local f status=0
	f=$(fixture BAD-truncated-midrecord.pipe)
	perf_samples "$f" >"$BATS_TEST_TMPDIR/perf.txt" 2>/dev/null
	"$PORDER" -p <"$f" >"$BATS_TEST_TMPDIR/porder.txt" 2>"$BATS_TEST_TMPDIR/porder.err" ||
		status=$?
	[ "$status" -eq 1 ]
	grep -q '^porder: <stdin>: offset 0x[0-9a-f]*: ' "$BATS_TEST_TMPDIR/porder.err"
	[ -s "$BATS_TEST_TMPDIR/perf.txt" ]
	cmp_or_show "$BATS_TEST_TMPDIR/perf.txt" "$BATS_TEST_TMPDIR/porder.txt"
}

@test "order: an exec's COMM that arrives after later samples names them from its time on" {
	# the COMM at 2000 arrives after the sample at 3000 (another CPU's ring); the sample
	# at 1000 still shows the old name; a child forked later inherits the new one; a thread
	# never named shows as :TID (not :PID)
	gen_stream >"$BATS_TEST_TMPDIR/s.pipe" <<-'EOF'
		C 100 100 0 sh
		S 100 100 1000
		S 100 100 3000
		C 100 100 2000 ls exec
		S 100 100 2500
		R
		F 101 100 101 100 3500
		S 101 101 3600
		S 200 201 3700
		S 200 200 3800
		R
	EOF
	same_as_perf "$BATS_TEST_TMPDIR/s.pipe"
	run -0 --separate-stderr "$PORDER" "$BATS_TEST_TMPDIR/s.pipe"
	output_is <<-EOF
		0.000001000 100 100 sh
		0.000002500 100 100 ls
		0.000003000 100 100 ls
		0.000003600 101 101 ls
		0.000003700 200 201 :201
		0.000003800 200 200 :200
	EOF
}

@test "order: untimed records first; FORK, EXIT, thread 0, unnamed parents as perf has them" {
	# time 0 comes out at once; a FORK from an unnamed parent gives :TID; a name outlives
	# EXIT; a FORK over a reused tid takes the parent's name; thread 0 is swapper
	gen_stream >"$BATS_TEST_TMPDIR/s.pipe" <<-'EOF'
		C 300 300 0 old
		S 300 300 5000
		S 0 0 4000
		S 50 50 0
		F 301 999 301 999 4100
		S 301 301 4200
		E 300 1 300 1 4300
		S 300 300 4400
		C 400 400 0 reused
		F 400 300 400 300 4500
		S 400 400 4600
		F 302 300 303 300 4700
		S 302 303 4800
		R
		R
	EOF
	same_as_perf "$BATS_TEST_TMPDIR/s.pipe"
	run -0 --separate-stderr "$PORDER" "$BATS_TEST_TMPDIR/s.pipe"
	output_is <<-EOF
		0.000000000 50 50 :50
		0.000004000 0 0 swapper
		0.000004200 301 301 :301
		0.000004400 300 300 old
		0.000004600 400 400 old
		0.000004800 302 303 old
		0.000005000 300 300 old
	EOF
}

@test "order: a late record is counted and comes out at the next round, as perf does" {
	# round 3 releases up to 3800 (round 2's maximum); the 1500 arrived after 3000 was out
	gen_stream >"$BATS_TEST_TMPDIR/s.pipe" <<-'EOF'
		C 1 1 0 a
		S 1 1 1000
		S 1 1 3000
		R
		S 1 1 3800
		R
		S 1 1 1500
		S 1 1 4000
		R
	EOF
	same_as_perf "$BATS_TEST_TMPDIR/s.pipe"
	same_out_of_order
	grep -qx 'porder: .*: 1 out of order records' "$BATS_TEST_TMPDIR/porder.err"
	run -0 --separate-stderr "$PORDER" "$BATS_TEST_TMPDIR/s.pipe"
	[ "${lines[1]}" = "0.000003000 1 1 a" ]
	[ "${lines[2]}" = "0.000001500 1 1 a" ]
	[ "${lines[3]}" = "0.000003800 1 1 a" ]
}

@test "order: a round's limit restarts from the first record queued after the queue ran empty" {
	# perf's max_timestamp: after 1000 is out, 900 becomes the maximum, so the round after
	# it releases only up to 900: 950 waits and 940, arriving later, still comes out first
	gen_stream >"$BATS_TEST_TMPDIR/s.pipe" <<-'EOF'
		C 1 1 0 a
		S 1 1 1000
		R
		R
		S 1 1 900
		R
		S 1 1 950
		R
		S 1 1 940
	EOF
	same_as_perf "$BATS_TEST_TMPDIR/s.pipe"
	same_out_of_order
}

@test "order: without FINISHED_ROUND everything is sorted at the end" {
	gen_stream >"$BATS_TEST_TMPDIR/s.pipe" <<-'EOF'
		C 1 1 0 a
		S 1 1 30
		C 1 1 15 b
		S 1 1 10
		S 1 1 20
	EOF
	same_as_perf "$BATS_TEST_TMPDIR/s.pipe"
	run -0 --separate-stderr "$PORDER" "$BATS_TEST_TMPDIR/s.pipe"
	output_is <<-EOF
		0.000000010 1 1 a
		0.000000020 1 1 b
		0.000000030 1 1 b
	EOF
}

@test "order: over the memory cap, what is held comes out early and porder says so once" {
	local f
	f=$(fixture sched-switch-wakeup-a.pipe)
	run -0 --separate-stderr "$PORDER" -m 4096 "$f"
	[ "${#stderr_lines[@]}" -ge 1 ]
	[ "$(printf '%s\n' "${stderr_lines[@]}" | grep -c 'bytes held for time order: released early')" -eq 1 ]
	[[ "${stderr_lines[0]}" == "porder: $f: more than 4096 bytes held for time order: released early, so the order may differ from perf's" ]]
	# every sample is still there
	[ "${#lines[@]}" -eq "$("$PORDER" "$f" | wc -l)" ]
}

@test "order: an idle input releases what is held within the latency budget" {
	local fifo="$BATS_TEST_TMPDIR/fifo" out="$BATS_TEST_TMPDIR/out" pid i w opt
	# no FINISHED_ROUND: without the idle release these wait for the end of the input
	gen_stream >"$BATS_TEST_TMPDIR/s.pipe" <<-'EOF'
		C 1 1 0 a
		S 1 1 20
		S 1 1 10
	EOF
	for opt in "-t 50" ""; do
		rm -f "$fifo" "$out"
		mkfifo "$fifo"
		# fd 3 is bats' own: the background reader must not hold it
		"$PORDER" $opt <"$fifo" >"$out" 2>&1 3>&- &
		pid=$!
		exec {w}>"$fifo"
		cat "$BATS_TEST_TMPDIR/s.pipe" >&$w
		for i in $(seq 20); do
			[ -s "$out" ] && break
			sleep 0.05
		done
		# the writer stays open until here: only the idle release can have printed
		if [ -n "$opt" ]; then
			[ "$(cat "$out")" = "$(printf '0.000000010 1 1 a\n0.000000020 1 1 a')" ] ||
				{ exec {w}>&-; wait "$pid"; echo "idle: got '$(cat "$out")'"; return 1; }
		else
			[ ! -s "$out" ] || { exec {w}>&-; wait "$pid"; echo "released early"; return 1; }
		fi
		exec {w}>&-
		wait "$pid"
		[ "$(wc -l <"$out")" -eq 2 ]
	done
}
