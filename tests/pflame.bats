#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# pflame: the SVG checked by xmllint, its counts against perf's own stackcollapse of streams
# recorded here, and its script run in a real browser (headless Chromium).

bats_require_minimum_version 1.5.0

setup_file() {
	export PFLAME_WORK="$BATS_FILE_TMPDIR/work"
	mkdir -p "$PFLAME_WORK"
	# a workload with deep frame-pointer call chains, built and recorded once
	if command -v gcc >/dev/null && command -v perf >/dev/null; then
		gcc -O0 -fno-omit-frame-pointer -g -o "$PFLAME_WORK/deep" \
			"$BATS_TEST_DIRNAME/pflame/deep.c" &&
			perf record -q -g -e cpu-clock -F 499 -o "$PFLAME_WORK/deep.data" \
				-- "$PFLAME_WORK/deep" 1 >/dev/null 2>&1 &&
			perf record -q -g -e cpu-clock -F 499 -o - \
				-- "$PFLAME_WORK/deep" 1 >"$PFLAME_WORK/deep.pipe" 2>/dev/null &&
			perf record -q -g -e cpu-clock -F 499 -o "$PFLAME_WORK/deep2.data" \
				-- "$PFLAME_WORK/deep" 0.5 cpu >/dev/null 2>&1 &&
			perf script report stackcollapse -i "$PFLAME_WORK/deep.data" \
				>"$PFLAME_WORK/deep.folded" 2>/dev/null &&
			perf script report stackcollapse -i - <"$PFLAME_WORK/deep.pipe" \
				>"$PFLAME_WORK/deep-pipe.folded" 2>/dev/null &&
			perf script report stackcollapse -i "$PFLAME_WORK/deep2.data" \
				>"$PFLAME_WORK/deep2.folded" 2>/dev/null &&
			touch "$PFLAME_WORK/recorded"
		# and by precord
		"$BATS_TEST_DIRNAME/../bin/precord" -g -e cpu-clock -F 499 -- "$PFLAME_WORK/deep" 1 \
			>"$PFLAME_WORK/precord.pipe" 2>/dev/null &&
			perf script report stackcollapse -i - <"$PFLAME_WORK/precord.pipe" \
				>"$PFLAME_WORK/precord.folded" 2>/dev/null
	fi
}

setup() {
	load helpers
	W="$PFLAME_WORK"
}

need_recording() {
	need_perf
	command -v gcc >/dev/null || skip "gcc not installed"
	[ -e "$W/recorded" ] || skip "perf record -g of the test workload failed here"
	[ -s "$W/deep.folded" ] || skip "perf script report stackcollapse gave nothing"
}

need_xmllint() {
	command -v xmllint >/dev/null || skip "xmllint not installed (libxml2-utils)"
}

need_chromium() {
	CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
	[ -n "$CHROMIUM" ] || skip "chromium not installed"
}

# headless Chromium with no network, no profile of its own, no sandbox (root in CI)
chromium_run() {
	timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic \
		--no-first-run --disable-background-networking --disable-component-update \
		--disable-sync --user-data-dir="$(mktemp -d "$BATS_TEST_TMPDIR/chromium.XXXXXX")" \
		"$@" 2>"$BATS_TEST_TMPDIR/chromium.log"
}

# "depth<TAB>name<TAB>count" of every frame of an --icicle graph drawn with the default
# frame height (16 px; the first frame drawn is "all", at depth 0), sorted
svg_frames() {
	sed -n 's|^<g><title>\(.*\) (\([0-9.]*\) samples\{0,1\}, [^<]*</title><rect x="[^"]*" y="\([0-9.]*\)".*|\3\t\1\t\2|p' "$1" |
		awk -F'\t' -v OFS='\t' 'NR == 1 { top = $1 } { print ($1 - top) / 16, $2, $3 }' | LC_ALL=C sort
}

# the same from folded lines: each prefix of each stack with the samples under it
folded_frames() {
	awk -v OFS='\t' '
	{
		n = $NF; stack = $0; sub(/[ \t]+[0-9]+[ \t]*$/, "", stack)
		total += n; k = split(stack, f, ";"); path = ""
		for (i = 1; i <= k; i++) {
			path = path ";" f[i]; cnt[path] += n; depth[path] = i; name[path] = f[i]
		}
	}
	END {
		print 0, "all", total + 0
		for (p in cnt) print depth[p], name[p], cnt[p]
	}' "$1" | LC_ALL=C sort
}

@test "pflame: --help, --version, usage errors exit 2" {
	run -0 "$BIN/pflame" --help
	[[ "$output" == *"usage: pflame"* ]]
	[[ "$output" == *"--diff"* ]]
	run -0 "$BIN/pflame" --version
	[[ "$output" == "pflame (pstream) "* ]]
	run -2 "$BIN/pflame" --colors pink --folded /dev/null
	[[ "$output" == *"--colors: 'pink'"* ]]
	run -2 "$BIN/pflame" --diff --folded /dev/null
	[[ "$output" == *"two inputs"* ]]
	run -2 "$BIN/pflame" -i 1 -o out.svg /dev/null
	[[ "$output" == *"%n"* ]]
	run -2 "$BIN/pflame" --folded -i 1 -o 'f-%n.svg' /dev/null
	[[ "$output" == *"needs a stream"* ]]
	run -2 "$BIN/pflame" --width 5 --folded /dev/null
	run -2 "$BIN/pflame" --no-such-option
}

@test "pflame --folded: valid XML, one self-contained document" {
	need_xmllint
	printf 'sh;main;foo;bar 5\nsh;main;foo 3\nsh;main;baz_[k] 2\ndd;main;read 4\n' >"$BATS_TEST_TMPDIR/in"
	run -0 --separate-stderr "$BIN/pflame" --folded "$BATS_TEST_TMPDIR/in"
	echo "$output" >"$BATS_TEST_TMPDIR/g.svg"
	xmllint --noout "$BATS_TEST_TMPDIR/g.svg"
	[[ "$output" == *'<title>all (14 samples, 100.00%)</title>'* ]]
	[[ "$output" == *'<title>foo (8 samples, 57.14%)</title>'* ]]
	[[ "$output" == *'window.pflame'* ]]
	# nothing from the network: no external script, stylesheet, font or image
	! grep -Eq '(href|src)=|@import|url\(http|https?://[^w]' "$BATS_TEST_TMPDIR/g.svg"
	# -o FILE writes the same document
	run -0 "$BIN/pflame" --folded -o "$BATS_TEST_TMPDIR/o.svg" "$BATS_TEST_TMPDIR/in"
	cmp "$BATS_TEST_TMPDIR/g.svg" "$BATS_TEST_TMPDIR/o.svg"
}

@test "pflame --folded: the titles' counts sum to perf's stackcollapse counts, frame by frame" {
	need_recording
	need_xmllint
	"$BIN/pflame" --folded --icicle --minwidth 0 -o "$BATS_TEST_TMPDIR/g.svg" "$W/deep.folded"
	xmllint --noout "$BATS_TEST_TMPDIR/g.svg"
	svg_frames "$BATS_TEST_TMPDIR/g.svg" >"$BATS_TEST_TMPDIR/svg"
	folded_frames "$W/deep.folded" >"$BATS_TEST_TMPDIR/folded"
	[ "$(wc -l <"$BATS_TEST_TMPDIR/svg")" -gt 10 ]
	diff "$BATS_TEST_TMPDIR/folded" "$BATS_TEST_TMPDIR/svg"
	# the root is every sample perf script shows
	total=$(perf script -G -i "$W/deep.data" -F comm 2>/dev/null | wc -l)
	grep -q "^0	all	$total\$" "$BATS_TEST_TMPDIR/svg"
}

@test "pflame --folded: malformed lines are named, skipped and counted; the rest is drawn" {
	printf 'a;b 1\na;b;c\na;b 12x\n# a comment 5\na;d 2\n' >"$BATS_TEST_TMPDIR/bad"
	run -0 --separate-stderr "$BIN/pflame" --folded -o "$BATS_TEST_TMPDIR/g.svg" "$BATS_TEST_TMPDIR/bad"
	[ "${stderr_lines[0]}" = "pflame: $BATS_TEST_TMPDIR/bad: line 2: no sample count after the stack ('a;b;c COUNT' expected)" ]
	[ "${stderr_lines[1]}" = "pflame: $BATS_TEST_TMPDIR/bad: line 3: sample count '12x' is not a number" ]
	[ "${stderr_lines[2]}" = "pflame: 2 malformed lines left out of the graph" ]
	[ "${#stderr_lines[@]}" -eq 3 ]
	grep -q '<title>a (3 samples, 100.00%)' "$BATS_TEST_TMPDIR/g.svg"
	# many: the first ten named, all counted
	{ echo 'a;b 1'; seq 1 30 | sed 's/^/x;y /; s/$/z/'; } >"$BATS_TEST_TMPDIR/bad"
	run -0 --separate-stderr "$BIN/pflame" --folded -o "$BATS_TEST_TMPDIR/g.svg" - <"$BATS_TEST_TMPDIR/bad"
	[ "${#stderr_lines[@]}" -eq 11 ]
	[[ "${stderr_lines[0]}" == "pflame: <stdin>: line 2: sample count '1z' is not a number" ]]
	[ "${stderr_lines[10]}" = "pflame: 30 malformed lines left out of the graph (the first ones named above)" ]
	# a line too long is one malformed line
	{ echo 'a;b 1'; head -c 3000000 /dev/zero | tr '\0' a; echo; echo 'a;c 1'; } >"$BATS_TEST_TMPDIR/long"
	run -0 --separate-stderr "$BIN/pflame" --folded -o "$BATS_TEST_TMPDIR/g.svg" "$BATS_TEST_TMPDIR/long"
	[[ "${stderr_lines[0]}" == *"long: line 2: longer than 1048576 bytes" ]]
	grep -q '<title>a (2 samples, 100.00%)' "$BATS_TEST_TMPDIR/g.svg"
	# nothing to draw is an error: empty, only comments, only malformed lines
	: >"$BATS_TEST_TMPDIR/empty"
	run -1 --separate-stderr "$BIN/pflame" --folded -o "$BATS_TEST_TMPDIR/e.svg" "$BATS_TEST_TMPDIR/empty"
	[ "$stderr" = "pflame: $BATS_TEST_TMPDIR/empty: no folded stack lines ('a;b;c COUNT'): an empty input" ]
	[ ! -e "$BATS_TEST_TMPDIR/e.svg" ]
	run -1 --separate-stderr "$BIN/pflame" --folded - <<<'# only'
	[[ "$stderr" == *"an empty input" ]]
	run -1 --separate-stderr "$BIN/pflame" --folded - <<<'no count'
	[[ "$stderr" == *"no folded stack lines ('a;b;c COUNT'), only malformed ones" ]]
	# a total past 2^64 is an error, not a wrapped number
	printf 'a;b 18446744073709551615\na;c 1\n' >"$BATS_TEST_TMPDIR/big"
	run -1 --separate-stderr "$BIN/pflame" --folded -o "$BATS_TEST_TMPDIR/g.svg" "$BATS_TEST_TMPDIR/big"
	[ "$stderr" = "pflame: $BATS_TEST_TMPDIR/big: line 2: the sample counts add up to more than 2^64" ]
	printf 'a;b 99999999999999999999\n' >"$BATS_TEST_TMPDIR/big"
	run -1 --separate-stderr "$BIN/pflame" --folded -o "$BATS_TEST_TMPDIR/g.svg" "$BATS_TEST_TMPDIR/big"
	[[ "$stderr" == *"line 1: sample count '99999999999999999999' is past 2^64" ]]
	# a perf stream given as folded lines
	run -1 --separate-stderr "$BIN/pflame" --folded -o "$BATS_TEST_TMPDIR/g.svg" "$DATA/cpuclock-g-sh.data"
	[[ "$stderr" == *"cpuclock-g-sh.data: line 1: "*"NUL"* ]]
	run -1 --separate-stderr "$BIN/pflame" --folded "$BATS_TEST_TMPDIR/no-such-file"
	[[ "$stderr" == "pflame: $BATS_TEST_TMPDIR/no-such-file: "*"No such file"* ]]
}

@test "pflame --folded: fractional counts, several inputs, whitespace names, tabs, ClickHouse TSV" {
	printf 'p;main;a 0.5\np;main;b 1.25\n' >"$BATS_TEST_TMPDIR/1"
	printf 'p;main;a 1\np; ;x\ty 2\n' >"$BATS_TEST_TMPDIR/2"
	# a ClickHouse TSV row: a tab before the count, \t and \\ escaped in the stack
	printf 'q;f\\\\x09g;h\\ti\t3\n' >"$BATS_TEST_TMPDIR/3"
	run -0 --separate-stderr "$BIN/pflame" --folded --minwidth 0 -o "$BATS_TEST_TMPDIR/g.svg" \
		"$BATS_TEST_TMPDIR/1" "$BATS_TEST_TMPDIR/2" - <"$BATS_TEST_TMPDIR/3"
	[ -z "$stderr" ]
	grep -q '<title>all (7.75 samples, 100.00%)' "$BATS_TEST_TMPDIR/g.svg"
	grep -q '<title>a (1.5 samples, ' "$BATS_TEST_TMPDIR/g.svg"
	grep -q '<title>b (1.25 samples, ' "$BATS_TEST_TMPDIR/g.svg"
	# a whitespace-only name, a tab kept (in the title too, as flamegraph.pl keeps it),
	# the TSV row unescaped
	grep -q '<title>  (2 samples, ' "$BATS_TEST_TMPDIR/g.svg"
	grep -q $'<title>x\ty (2 samples, ' "$BATS_TEST_TMPDIR/g.svg"
	grep -q '<title>f\\x09g (3 samples, ' "$BATS_TEST_TMPDIR/g.svg"
	grep -q $'<title>h\ti (3 samples, ' "$BATS_TEST_TMPDIR/g.svg"
	# "1 sample"
	run -0 "$BIN/pflame" --folded - <<<'p;one 1'
	[[ "$output" == *'<title>one (1 sample, 100.00%)'* ]]
	# several streams add up too
	"$BIN/pflame" -o "$BATS_TEST_TMPDIR/1.svg" "$DATA/cpuclock-g-sh.data"
	"$BIN/pflame" -o "$BATS_TEST_TMPDIR/2.svg" "$DATA/cpuclock-g-sh.data" - <"$DATA/cpuclock-g-sh.data"
	n=$(sed -n 's|^<g><title>all (\([0-9]*\) samples.*|\1|p' "$BATS_TEST_TMPDIR/1.svg")
	[ "$n" -gt 10 ]
	grep -q "<title>all ($((2 * n)) samples, 100.00%)" "$BATS_TEST_TMPDIR/2.svg"
	run -2 "$BIN/pflame" - -
}

@test "pflame --folded: a differential input (STACK BEFORE AFTER) is drawn as --diff draws two" {
	printf 'p;main;a 50\np;main;b 50\n' >"$BATS_TEST_TMPDIR/before"
	printf 'p;main;a 75\np;main;b 25\n' >"$BATS_TEST_TMPDIR/after"
	printf 'p;main;a 50 75\np;main;b 50 25\n' >"$BATS_TEST_TMPDIR/two"
	"$BIN/pflame" --diff --folded -o "$BATS_TEST_TMPDIR/d.svg" "$BATS_TEST_TMPDIR/before" "$BATS_TEST_TMPDIR/after"
	run -0 --separate-stderr "$BIN/pflame" --folded -o "$BATS_TEST_TMPDIR/g.svg" "$BATS_TEST_TMPDIR/two"
	[ -z "$stderr" ]
	cmp "$BATS_TEST_TMPDIR/d.svg" "$BATS_TEST_TMPDIR/g.svg"
	grep -q '<title>a (75 samples, 75.00%; before 50.00%, change +25.00%)' "$BATS_TEST_TMPDIR/g.svg"
	run ! grep -q 'main 50' "$BATS_TEST_TMPDIR/g.svg"
	# a differential file beside a plain one: refused, not half drawn
	run -1 --separate-stderr "$BIN/pflame" --folded "$BATS_TEST_TMPDIR/two" "$BATS_TEST_TMPDIR/after"
	[[ "$stderr" == *"/two: differential lines ('STACK BEFORE AFTER'), but $BATS_TEST_TMPDIR/after has lines of one count: give them apart" ]]
}

@test "pflame --folded: 300,000 lines with little prefix sharing draw, in bounded memory" {
	# some 5 million distinct frames: past the cap of 1048576, the narrowest are merged
	awk 'BEGIN { srand(7); for (i = 0; i < 300000; i++) { s = "app"; d = 8 + int(rand() * 16)
		for (j = 0; j < d; j++) s = s ";f" j "_" int(rand() * 1000000); n = 1 + int(rand() * 5)
		total += n; print s, n }
		print "app;hot;spot", 1000000; total += 1000000
		print total > "/dev/stderr" }' >"$BATS_TEST_TMPDIR/big" 2>"$BATS_TEST_TMPDIR/total"
	run -0 --separate-stderr bash -c "ulimit -v 1000000; '$BIN/pflame' --folded -o '$BATS_TEST_TMPDIR/g.svg' '$BATS_TEST_TMPDIR/big'"
	[[ "$stderr" =~ ^"pflame: more than 1048576 distinct frames: the narrowest "[0-9]+" merged into their callers" ]]
	grep -q "<title>all ($(cat "$BATS_TEST_TMPDIR/total") samples, 100.00%)" "$BATS_TEST_TMPDIR/g.svg"
	grep -q "<title>spot (1000000 samples, " "$BATS_TEST_TMPDIR/g.svg"
	grep -Eq '<text id="note"[^>]*>.*[0-9]+ frames merged into their callers \(more than 1048576\)' "$BATS_TEST_TMPDIR/g.svg"
}

@test "pflame --reverse: each stack turned around, callees merged at the root" {
	printf 'sh;main;a;leaf 2\nsh;main;b;leaf 3\nsh;main;a 1\ndd;main;leaf 4\n' >"$BATS_TEST_TMPDIR/in"
	awk '{ n = $NF; sub(/ [0-9]+$/, ""); k = split($0, f, ";"); s = f[k]
		for (i = k - 1; i >= 1; i--) s = s ";" f[i]; print s, n }' "$BATS_TEST_TMPDIR/in" >"$BATS_TEST_TMPDIR/rev"
	"$BIN/pflame" --folded --reverse --icicle -o "$BATS_TEST_TMPDIR/r.svg" "$BATS_TEST_TMPDIR/in"
	"$BIN/pflame" --folded --icicle -o "$BATS_TEST_TMPDIR/w.svg" "$BATS_TEST_TMPDIR/rev"
	svg_frames "$BATS_TEST_TMPDIR/r.svg" >"$BATS_TEST_TMPDIR/r"
	svg_frames "$BATS_TEST_TMPDIR/w.svg" >"$BATS_TEST_TMPDIR/w"
	diff "$BATS_TEST_TMPDIR/r" "$BATS_TEST_TMPDIR/w"
	grep -q "^1	leaf	9\$" "$BATS_TEST_TMPDIR/r"
	# a stream too: the roots are the innermost frames
	"$BIN/pflame" --reverse --icicle -o "$BATS_TEST_TMPDIR/s.svg" "$DATA/cpuclock-g-sh.data"
	"$BIN/pflame" --icicle -o "$BATS_TEST_TMPDIR/n.svg" "$DATA/cpuclock-g-sh.data"
	run ! grep -q '^1	sh	' <(svg_frames "$BATS_TEST_TMPDIR/s.svg")
	grep -q '^1	sh	' <(svg_frames "$BATS_TEST_TMPDIR/n.svg")
	[ "$(svg_frames "$BATS_TEST_TMPDIR/s.svg" | head -n 1)" = "$(svg_frames "$BATS_TEST_TMPDIR/n.svg" | head -n 1)" ]
}

@test "pflame --flamechart: the samples in time order along the x axis, as perf script lists them" {
	need_perf
	# the comm of each sample, run-length encoded, in perf script's (time) order
	perf script -i "$DATA/compressed-z.pipe" -F comm 2>/dev/null | sed 's/^ *//; s/ *$//; s/ /_/g' |
		awk 'NR > 1 && $0 != prev { print prev "\t" n; n = 0 } { prev = $0; n++ } END { print prev "\t" n }' >"$BATS_TEST_TMPDIR/want"
	[ "$(wc -l <"$BATS_TEST_TMPDIR/want")" -gt 1 ]
	"$BIN/pflame" --flamechart --minwidth 0 -o "$BATS_TEST_TMPDIR/c.svg" "$DATA/compressed-z.pipe"
	grep -q '>Flame Chart</text>' "$BATS_TEST_TMPDIR/c.svg"
	# the frames just above "all", left to right
	allx=$(sed -n 's|^<g><title>all (.*</title><rect x="[^"]*" y="\([0-9.]*\)".*|\1|p' "$BATS_TEST_TMPDIR/c.svg")
	sed -n 's|^<g><title>\(.*\) (\([0-9.]*\) samples\{0,1\}, [^<]*</title><rect x="\([0-9.]*\)" y="\([0-9.]*\)".*|\4\t\3\t\1\t\2|p' "$BATS_TEST_TMPDIR/c.svg" |
		awk -F'\t' -v y="$allx" -v OFS='\t' '$1 == y - 16 { print $2, $3, $4 }' | sort -n | cut -f2,3 >"$BATS_TEST_TMPDIR/got"
	diff "$BATS_TEST_TMPDIR/want" "$BATS_TEST_TMPDIR/got"
	# folded lines: in the order of the lines, neighbours merged only
	printf 'p;a 1\np;a 2\np;b 1\np;a 4\n' | "$BIN/pflame" --folded --flamechart >"$BATS_TEST_TMPDIR/f.svg"
	[ "$(grep -c '<title>a (' "$BATS_TEST_TMPDIR/f.svg")" -eq 2 ]
	grep -q '<title>a (3 samples, 37.50%)</title><rect x="10.00"' "$BATS_TEST_TMPDIR/f.svg"
	# a frame's own samples keep their place in time: b comes after a's first 2 of 6
	printf 'p;a 2\np;a;b 1\np;a 3\n' | "$BIN/pflame" --folded --flamechart >"$BATS_TEST_TMPDIR/f.svg"
	[ "$(grep -c '<title>a (' "$BATS_TEST_TMPDIR/f.svg")" -eq 1 ]
	grep -q '<title>b (1 sample, 16.67%)</title><rect x="403.33"' "$BATS_TEST_TMPDIR/f.svg"
	run -2 "$BIN/pflame" --flamechart --diff a b
}

@test "pflame: make demo's picture is a program of ours, its frames named" {
	command -v cc >/dev/null || skip "no C compiler"
	"$BIN/precord" -e cpu-clock -- true >/dev/null 2>&1 || skip "precord cannot record here"
	run -0 make -s -C "$TOP" --no-print-directory demo-flame DEMO_OUT="$BATS_TEST_TMPDIR"
	echo "$output"
	[[ "$output" != *"cannot record here"* ]]
	g="$BATS_TEST_TMPDIR/pflame-demo.svg"
	for f in main recurse leaf_work spin; do grep -q "<title>$f (" "$g"; done
	# named, mostly: the frames of [unknown] hold a small share of the samples
	total=$(sed -n 's|^<g><title>all (\([0-9]*\) samples.*|\1|p' "$g")
	unknown=$(sed -n 's|^<g><title>\[unknown\] (\([0-9]*\) samples\{0,1\},.*|\1|p' "$g" | awk '{ n += $1 } END { print n + 0 }')
	echo "total $total unknown $unknown"
	[ "$total" -gt 200 ]
	[ $((unknown * 3)) -lt "$total" ]
}

@test "pflame: names are escaped for XML, invalid UTF-8 replaced" {
	need_xmllint
	printf 'a<b>;x&y;"q'"'"'s" 3\nc\001d;\xff\xfe;caf\xc3\xa9 2\n' >"$BATS_TEST_TMPDIR/in"
	"$BIN/pflame" --folded -o "$BATS_TEST_TMPDIR/g.svg" "$BATS_TEST_TMPDIR/in"
	xmllint --noout "$BATS_TEST_TMPDIR/g.svg"
	grep -q '<title>x&amp;y (3 samples' "$BATS_TEST_TMPDIR/g.svg"
	grep -q '<title>&quot;q&apos;s&quot; (3 samples' "$BATS_TEST_TMPDIR/g.svg"
	grep -q '<title>c?d (2 samples' "$BATS_TEST_TMPDIR/g.svg"
	grep -q '<title>café (2 samples' "$BATS_TEST_TMPDIR/g.svg"
}

@test "pflame: frames narrower than --minwidth are left out and counted in a note" {
	{
		echo "big;main 100000"
		for i in 1 2 3; do echo "big;main;tiny$i 1"; done
	} >"$BATS_TEST_TMPDIR/in"
	"$BIN/pflame" --folded -o "$BATS_TEST_TMPDIR/g.svg" "$BATS_TEST_TMPDIR/in"
	run ! grep -q 'tiny' "$BATS_TEST_TMPDIR/g.svg"
	grep -q '>3 frames narrower than 0.1 px left out (pflame -m 0 draws them)<' "$BATS_TEST_TMPDIR/g.svg"
	"$BIN/pflame" --folded --minwidth 0 -o "$BATS_TEST_TMPDIR/g.svg" "$BATS_TEST_TMPDIR/in"
	[ "$(grep -c '<title>tiny' "$BATS_TEST_TMPDIR/g.svg")" -eq 3 ]
	run ! grep -q 'narrower' "$BATS_TEST_TMPDIR/g.svg"
}

@test "pflame: colours by kind, the same shade for the same name in every graph" {
	printf 'p;main;f1;sys_read_[k] 5\np;main;f2 7\np;[unknown] 1\np;java_[j] 2\n' >"$BATS_TEST_TMPDIR/a"
	printf 'q;f2 1\nq;other;main 9\n' >"$BATS_TEST_TMPDIR/b"
	gray() { [[ "$1" =~ ^rgb\(([0-9]+),([0-9]+),([0-9]+)\)$ ]] &&
		[ "${BASH_REMATCH[1]}" = "${BASH_REMATCH[2]}" ] && [ "${BASH_REMATCH[2]}" = "${BASH_REMATCH[3]}" ]; }
	fill() { sed -n "s|^<g><title>$2 (.*fill=\"\\(rgb([0-9,]*)\\)\".*|\\1|p" "$1" | head -n 1; }
	"$BIN/pflame" --folded -o "$BATS_TEST_TMPDIR/a.svg" "$BATS_TEST_TMPDIR/a"
	"$BIN/pflame" --folded -o "$BATS_TEST_TMPDIR/b.svg" "$BATS_TEST_TMPDIR/b"
	[ -n "$(fill "$BATS_TEST_TMPDIR/a.svg" f2)" ]
	[ "$(fill "$BATS_TEST_TMPDIR/a.svg" f2)" = "$(fill "$BATS_TEST_TMPDIR/b.svg" f2)" ]
	[ "$(fill "$BATS_TEST_TMPDIR/a.svg" main)" = "$(fill "$BATS_TEST_TMPDIR/b.svg" main)" ]
	# kernel: orange-yellow, user code: red to orange; unknown: gray
	# flamegraph.pl's "_[k]" colours the frame, and is no part of its title or label
	grep -q '<title>sys_read (5 samples, [^<]*</title><rect [^>]*/><text [^>]*>sys_read</text>' "$BATS_TEST_TMPDIR/a.svg"
	run ! grep -q '_\[k\]' "$BATS_TEST_TMPDIR/a.svg"
	[[ "$(fill "$BATS_TEST_TMPDIR/a.svg" 'sys_read')" =~ ^rgb\(2[2-5][0-9],(1[6-9][0-9]|2[01][0-9]),[0-9]{1,2}\)$ ]]
	[[ "$(fill "$BATS_TEST_TMPDIR/a.svg" 'f1')" =~ ^rgb\(2[0-5][0-9],([5-9][0-9]|1[0-3][0-9]),[4-8][0-9]\)$ ]]
	gray "$(fill "$BATS_TEST_TMPDIR/a.svg" '\[unknown\]')"
	# --colors changes the palette, --icicle turns the graph over
	"$BIN/pflame" --folded --colors gray -o "$BATS_TEST_TMPDIR/g.svg" "$BATS_TEST_TMPDIR/a"
	gray "$(fill "$BATS_TEST_TMPDIR/g.svg" f2)"
	"$BIN/pflame" --folded --icicle --title 'My <graph>' -o "$BATS_TEST_TMPDIR/g.svg" "$BATS_TEST_TMPDIR/a"
	grep -q '<title>all (15 samples, 100.00%)</title><rect x="10.00" y="36.0"' "$BATS_TEST_TMPDIR/g.svg"
	grep -q '>My &lt;graph&gt;</text>' "$BATS_TEST_TMPDIR/g.svg"
}

@test "pflame --diff: a profile against itself is all white" {
	need_recording
	"$BIN/pflame" --diff --folded -o "$BATS_TEST_TMPDIR/g.svg" "$W/deep.folded" "$W/deep.folded"
	n=$(grep -c '^<g><title>' "$BATS_TEST_TMPDIR/g.svg")
	[ "$n" -gt 10 ]
	[ "$(grep -c 'fill="rgb(255,255,255)"' "$BATS_TEST_TMPDIR/g.svg")" -eq "$n" ]
	[ "$(grep -c 'change +0.00%' "$BATS_TEST_TMPDIR/g.svg")" -eq "$n" ]
}

@test "pflame --diff: a frame whose share grew is red with the growth in its title" {
	printf 'p;main;a 50\np;main;b 50\n' >"$BATS_TEST_TMPDIR/before"
	printf 'p;main;a 75\np;main;b 25\np;main;c 0\n' >"$BATS_TEST_TMPDIR/after"
	"$BIN/pflame" --diff --folded -o "$BATS_TEST_TMPDIR/g.svg" "$BATS_TEST_TMPDIR/before" "$BATS_TEST_TMPDIR/after"
	grep -q '<title>a (75 samples, 75.00%; before 50.00%, change +25.00%)</title><rect [^>]*fill="rgb(255,45,45)"' "$BATS_TEST_TMPDIR/g.svg"
	grep -q '<title>b (25 samples, 25.00%; before 50.00%, change -25.00%)</title><rect [^>]*fill="rgb(45,45,255)"' "$BATS_TEST_TMPDIR/g.svg"
	grep -q '<title>main (100 samples, 100.00%; before 100.00%, change +0.00%)</title><rect [^>]*fill="rgb(255,255,255)"' "$BATS_TEST_TMPDIR/g.svg"
}

@test "pflame --diff: two recorded runs of different mixes" {
	need_recording
	# the second run calls no syscalls: leaf_cpu's share grows
	grep -q leaf_sys "$W/deep.folded" || skip "no sample in leaf_sys in this recording"
	"$BIN/pflame" --diff --folded -o "$BATS_TEST_TMPDIR/g.svg" "$W/deep.folded" "$W/deep2.folded"
	grep '<title>leaf_cpu ' "$BATS_TEST_TMPDIR/g.svg"
	grep -q '<title>leaf_cpu ([0-9]* samples, [0-9.]*%; before [0-9.]*%, change +[0-9.]*[1-9][0-9.]*%)</title><rect [^>]*fill="rgb(255,[0-9]*,[0-9]*)"' "$BATS_TEST_TMPDIR/g.svg"
	# the same from the two streams
	"$BIN/pflame" --diff -o "$BATS_TEST_TMPDIR/s.svg" "$W/deep.data" "$W/deep2.data"
	grep -q '<title>leaf_cpu ([0-9]* samples, [0-9.]*%; before [0-9.]*%, change +[0-9.]*[1-9][0-9.]*%)</title><rect [^>]*fill="rgb(255,[0-9]*,[0-9]*)"' "$BATS_TEST_TMPDIR/s.svg"
}

@test "pflame: headless Chromium draws the graph at the width asked" {
	need_chromium
	need_recording
	"$BIN/pflame" --folded --width 900 -o "$BATS_TEST_TMPDIR/g.svg" "$W/deep.folded"
	grep -q '^<svg version="1.1" width="900" ' "$BATS_TEST_TMPDIR/g.svg"
	# the window as tall as the picture: the full-width frames are at its bottom
	h=$(sed -n 's/^<svg [^>]* height="\([0-9]*\)".*/\1/p' "$BATS_TEST_TMPDIR/g.svg")
	chromium_run --screenshot="$BATS_TEST_TMPDIR/shot.png" --window-size="900,$h" \
		"file://$BATS_TEST_TMPDIR/g.svg" || { cat "$BATS_TEST_TMPDIR/chromium.log"; false; }
	run -0 python3 "$BATS_TEST_DIRNAME/pflame/pngcheck.py" "$BATS_TEST_TMPDIR/shot.png"
	echo "width height colours edge-colours: $output"
	read -r width height colours edge <<<"$output"
	[ "$width" -eq 900 ]
	# not blank: many colours, and frames reach the right-hand side
	[ "$colours" -gt 20 ]
	[ "$edge" -gt 5 ]
}

@test "pflame: in Chromium, the graph's zoom and search functions work" {
	need_chromium
	need_recording
	cp "$BATS_TEST_DIRNAME/pflame/page.html" "$BATS_TEST_TMPDIR/page.html"
	sed -i 's/FRAME_TO_ZOOM/leaf_cpu/; s/REGEX_TO_SEARCH/^spin$/' "$BATS_TEST_TMPDIR/page.html"
	"$BIN/pflame" --folded --minwidth 0 -o "$BATS_TEST_TMPDIR/graph.svg" "$W/deep.folded"
	chromium_run --allow-file-access-from-files --virtual-time-budget=10000 --dump-dom \
		"file://$BATS_TEST_TMPDIR/page.html" >"$BATS_TEST_TMPDIR/dom"
	sed -n '/<pre id="out">/,/<\/pre>/p' "$BATS_TEST_TMPDIR/dom" | sed 's/<[^>]*>//g' >"$BATS_TEST_TMPDIR/out"
	cat "$BATS_TEST_TMPDIR/out"
	val() { sed -n "s/^$1 //p" "$BATS_TEST_TMPDIR/out"; }
	frames=$(grep -c '^<g><title>' "$BATS_TEST_TMPDIR/graph.svg")
	[ "$(val frames)" -eq "$frames" ]
	[ "$(val visible)" -eq "$frames" ]
	[ "$(val zoomed)" = leaf_cpu ]
	# zoomed: the frame fills the width (1200 - 2 * 10), only its ancestors and
	# descendants remain; reset brings every frame back at its width
	[ "$(val width-zoomed)" = 1180.00 ]
	[ "$(val visible-zoomed)" -lt "$frames" ]
	[ "$(val visible-zoomed)" -eq "$(val zoom-shown)" ]
	[ "$(val visible-reset)" -eq "$frames" ]
	[ "$(val width-reset)" = "$(val width-before)" ]
	# search: the samples under the matched frames are those of the stacks ending in spin
	want=$(awk '/;spin[; ]/ { n += $NF } END { print n + 0 }' "$W/deep.folded")
	total=$(awk '{ n += $NF } END { print n }' "$W/deep.folded")
	echo "want $want of $total"
	[ "$(val search-samples)" -eq "$want" ]
	[ "$(val search-percent)" = "$(awk -v a="$want" -v b="$total" 'BEGIN { printf "%.2f", int(10000 * a / b + 0.5) / 100 }')" ]
	[ "$(val matched-text)" = "Matched: $(val search-percent)%" ]
	[ "$(val search-matches)" -eq "$(grep -c '^<g><title>spin (' "$BATS_TEST_TMPDIR/graph.svg")" ]
	# the mouse: the details line and a click
	[[ "$(val first-title)" == "all ("* ]]
	[ "$(val details)" = "$(val first-title)" ]
	[ -n "$(val clicked)" ]
	[[ "$(val last-title)" == "$(val clicked) ("* ]]
}

@test "pflame: in Chromium, ignore case, the search share of the zoomed frame, the view in the address" {
	need_chromium
	cp "$BATS_TEST_DIRNAME/pflame/view.html" "$BATS_TEST_TMPDIR/view.html"
	printf 'p;main;Alpha;leaf 30\np;main;beta;leaf 10\np;main;beta;other 60\n' >"$BATS_TEST_TMPDIR/in"
	"$BIN/pflame" --folded -o "$BATS_TEST_TMPDIR/graph.svg" "$BATS_TEST_TMPDIR/in"
	chromium_run --allow-file-access-from-files --virtual-time-budget=10000 --dump-dom \
		"file://$BATS_TEST_TMPDIR/view.html" >"$BATS_TEST_TMPDIR/dom"
	sed -n '/<pre id="out">/,/<\/pre>/p' "$BATS_TEST_TMPDIR/dom" | sed 's/<[^>]*>//g; s/&amp;/\&/g' >"$BATS_TEST_TMPDIR/out"
	cat "$BATS_TEST_TMPDIR/out"
	val() { sed -n "s/^$1 //p" "$BATS_TEST_TMPDIR/out"; }
	[ "$(val case-matches)" = 0 ]
	[ "$(val ic)" = true ]
	[ "$(val icase-matches)" = 2 ]
	[ "$(val icase-percent)" = 40.00 ]
	# zoomed into beta (70 samples): leaf's 10 are 14.29% of it
	[ "$(val zoomed-percent)" = 14.29 ]
	[ "$(val matched-text)" = "Matched: 14.29%" ]
	# "Reset Search" ends inside the 1200 px picture
	[ "$(val search-text)" = "Reset Search" ]
	[ "$(val search-right)" -le 1200 ]
	# the address opens the same view
	z=$(grep -n '^<g><title>beta ' "$BATS_TEST_TMPDIR/graph.svg" | cut -d: -f1)
	first=$(grep -n '^<g><title>' "$BATS_TEST_TMPDIR/graph.svg" | head -n 1 | cut -d: -f1)
	[ "$(val view)" = "#z=$((z - first))&s=leaf&i=1" ]
	[ "$(val opened-zoomed)" = beta ]
	[ "$(val opened-matched)" = "Matched: 14.29%" ]
	[ "$(val opened-ic)" = true ]
	[ "$(val cleared-view)" = "[#i=1]" ]
}

@test "pflame: in Chromium, a graph taller than the window opens at its roots" {
	need_chromium
	awk 'BEGIN { for (i = 0; i < 5; i++) { s = "prog;main"; for (j = 0; j < 50 + i * 5; j++) s = s ";level" j; print s, 10 + i }
		print "prog;main;other 30" }' >"$BATS_TEST_TMPDIR/in"
	"$BIN/pflame" --folded -o "$BATS_TEST_TMPDIR/tall.svg" "$BATS_TEST_TMPDIR/in"
	h=$(sed -n 's/^<svg [^>]* height="\([0-9]*\)".*/\1/p' "$BATS_TEST_TMPDIR/tall.svg")
	[ "$h" -gt 1000 ]
	# the root's fill, on screen when the window shows the bottom of the graph
	all=$(sed -n 's|^<g><title>all (.*fill="rgb(\([0-9,]*\))".*|\1|p' "$BATS_TEST_TMPDIR/tall.svg")
	printf '<!DOCTYPE html><html><body style="margin:0"><iframe src="tall.svg" width="1200" height="500" style="border:0"></iframe></body></html>' >"$BATS_TEST_TMPDIR/page.html"
	chromium_run --allow-file-access-from-files --virtual-time-budget=5000 --window-size=1200,500 \
		--screenshot="$BATS_TEST_TMPDIR/shot.png" "file://$BATS_TEST_TMPDIR/page.html" ||
		{ cat "$BATS_TEST_TMPDIR/chromium.log"; false; }
	run -0 python3 "$BATS_TEST_DIRNAME/pflame/pngcheck.py" "$BATS_TEST_TMPDIR/shot.png" "$all"
	echo "width height colours edge-colours root-pixels: $output"
	read -r width height colours edge root <<<"$output"
	[ "$root" -gt 5000 ]
	# an icicle graph has its roots at the top already
	"$BIN/pflame" --folded --icicle -o "$BATS_TEST_TMPDIR/tall.svg" "$BATS_TEST_TMPDIR/in"
	chromium_run --allow-file-access-from-files --virtual-time-budget=5000 --window-size=1200,500 \
		--screenshot="$BATS_TEST_TMPDIR/shot.png" "file://$BATS_TEST_TMPDIR/page.html"
	run -0 python3 "$BATS_TEST_DIRNAME/pflame/pngcheck.py" "$BATS_TEST_TMPDIR/shot.png" "$all"
	read -r width height colours edge root <<<"$output"
	[ "$root" -gt 5000 ]
}

# "name<TAB>count" of the frames at depth 1 (the roots under "all") of an --icicle graph
svg_roots() {
	svg_frames "$1" | awk -F'\t' -v OFS='\t' '$1 == 1 { print $2, $3 }' | LC_ALL=C sort
}

@test "pflame: a stream (pipe and file) has perf's samples per comm root" {
	need_recording
	need_xmllint
	awk '{ n = $NF; split($0, f, ";"); c[f[1]] += n } END { for (k in c) print k "\t" c[k] }' \
		"$W/deep.folded" | LC_ALL=C sort >"$BATS_TEST_TMPDIR/want"
	for input in "$W/deep.data" "$W/deep.pipe"; do
		"$BIN/pflame" --icicle -o "$BATS_TEST_TMPDIR/g.svg" "$input"
		xmllint --noout "$BATS_TEST_TMPDIR/g.svg"
		total=$(perf script -G -i "$input" -F comm 2>/dev/null | wc -l)
		svg_frames "$BATS_TEST_TMPDIR/g.svg" | grep -q "^0	all	$total\$"
		[ "$input" = "$W/deep.pipe" ] || {
			svg_roots "$BATS_TEST_TMPDIR/g.svg" >"$BATS_TEST_TMPDIR/got"
			diff "$BATS_TEST_TMPDIR/want" "$BATS_TEST_TMPDIR/got"
		}
	done
	# from standard input too, and rooted at comm-pid
	pid=$(perf script -G -i "$W/deep.pipe" -F pid 2>/dev/null | sort | uniq -c | sort -rn | awk 'NR == 1 { print $2 }')
	"$BIN/pflame" --icicle --by pid -o "$BATS_TEST_TMPDIR/g.svg" - <"$W/deep.pipe"
	svg_roots "$BATS_TEST_TMPDIR/g.svg" | grep -q "^deep-$pid	"
}

@test "pflame --diff: a stream against itself is all white" {
	need_recording
	"$BIN/pflame" --diff -o "$BATS_TEST_TMPDIR/g.svg" "$W/deep.data" "$W/deep.pipe" 2>/dev/null ||
		true # the two recordings differ: only check it runs
	"$BIN/pflame" --diff -o "$BATS_TEST_TMPDIR/g.svg" "$W/deep.pipe" - <"$W/deep.pipe"
	n=$(grep -c '^<g><title>' "$BATS_TEST_TMPDIR/g.svg")
	[ "$n" -gt 5 ]
	[ "$(grep -c 'fill="rgb(255,255,255)"' "$BATS_TEST_TMPDIR/g.svg")" -eq "$n" ]
}

@test "pflame -i: one complete graph per interval of sample time, all samples in them" {
	need_recording
	need_xmllint
	"$BIN/pflame" -i 0.25 --icicle -o "$BATS_TEST_TMPDIR/flame-%n.svg" "$W/deep.pipe"
	ls "$BATS_TEST_TMPDIR"
	[ -f "$BATS_TEST_TMPDIR/flame-1.svg" ]
	[ -f "$BATS_TEST_TMPDIR/flame-3.svg" ]
	run ! ls "$BATS_TEST_TMPDIR"/*.tmp*
	sum=0
	for f in "$BATS_TEST_TMPDIR"/flame-*.svg; do
		xmllint --noout "$f"
		n=$(svg_frames "$f" | awk -F'\t' '$1 == 0 { print $3 }')
		sum=$((sum + n))
	done
	[ "$sum" -eq "$(perf script -G -i "$W/deep.pipe" -F comm 2>/dev/null | wc -l)" ]
	grep -q 'interval 1: 0.250 s of sample time<' "$BATS_TEST_TMPDIR/flame-1.svg"
}

@test "pflame: a damaged stream is an error naming the input" {
	head -c 3000 "$DATA/cpuclock-g-sh.data" >"$BATS_TEST_TMPDIR/cut.data"
	run -1 --separate-stderr "$BIN/pflame" -o "$BATS_TEST_TMPDIR/g.svg" "$BATS_TEST_TMPDIR/cut.data"
	[[ "$stderr" == "pflame: $BATS_TEST_TMPDIR/cut.data: "* ]]
	printf 'not a stream at all' | run -1 --separate-stderr "$BIN/pflame"
	run -1 --separate-stderr "$BIN/pflame" - <<<"not a stream at all"
	[[ "$stderr" == "pflame: <stdin>: "* ]]
}

@test "pflame -i: each interval's graph is there while the stream is still open" {
	need_recording
	need_xmllint
	# the stream's writer stays open after its records: the graphs must not wait for it
	mkfifo "$BATS_TEST_TMPDIR/fifo"
	"$BIN/pflame" -i 0.25 -o "$BATS_TEST_TMPDIR/live-%n.svg" <"$BATS_TEST_TMPDIR/fifo" 7>&- &
	pid=$!
	exec 7>"$BATS_TEST_TMPDIR/fifo"
	cat "$W/deep.pipe" >&7
	for _ in $(seq 150); do
		[ -f "$BATS_TEST_TMPDIR/live-4.svg" ] && break
		sleep 0.2
	done
	running=0 seen=0
	kill -0 "$pid" 2>/dev/null && running=1
	[ -f "$BATS_TEST_TMPDIR/live-4.svg" ] && seen=1
	exec 7>&-
	wait "$pid"
	# the last interval closed by the wall clock, before the end of the input
	[ "$running" = 1 ]
	[ "$seen" = 1 ]
	for n in 1 2 3 4; do xmllint --noout "$BATS_TEST_TMPDIR/live-$n.svg"; done
}

@test "pflame under ASan/UBSan: every fixture, damaged ones too, streams and folded" {
	SAN="$TOP/build/san/bin/pflame"
	[ -x "$SAN" ] || skip "sanitized programs not built (make check builds them)"
	export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=halt_on_error=1
	local f
	for f in $(good_pipes) $(good_files) $([ -d "$FIXTURES" ] && ls "$FIXTURES"/BAD-*); do
		clean_run "$SAN" --by pid "$f"
		clean_run "$SAN" -i 10ms -o "$BATS_TEST_TMPDIR/i-%n.svg" "$f"
		clean_run "$SAN" --folded "$f"
	done
	[ -e "$W/recorded" ] || return 0
	clean_run "$SAN" --diff --icicle --minwidth 0 "$W/deep.pipe" "$W/deep.data"
	clean_run "$SAN" --diff --folded "$W/deep.folded" "$W/deep2.folded"
	# folded lines, mangled: cut, deep, wide
	head -c 2000 "$W/deep.folded" >"$BATS_TEST_TMPDIR/cut"
	clean_run "$SAN" --folded "$BATS_TEST_TMPDIR/cut"
	awk 'BEGIN { s = "r"; for (i = 0; i < 1500; i++) s = s ";f" i % 7; print s, 3 }' >"$BATS_TEST_TMPDIR/deep"
	clean_run "$SAN" --folded "$BATS_TEST_TMPDIR/deep"
	grep -q 'stacks cut at 1024 frames' <("$SAN" --folded "$BATS_TEST_TMPDIR/deep")
	awk 'BEGIN { for (i = 0; i < 50000; i++) print "r;f" i ";g 1" }' >"$BATS_TEST_TMPDIR/wide"
	clean_run "$SAN" --folded "$BATS_TEST_TMPDIR/wide"
}

# "depth<TAB>name<TAB>count" of every frame on the paths of the 20 largest stacks of a
# folded file, with the samples of that path prefix
top20_prefixes() {
	awk -v OFS='\t' '
	{
		n = $NF; stack = $0; sub(/[ \t]+[0-9]+[ \t]*$/, "", stack)
		line[NR] = stack; cnt[NR] = n; total += n
		k = split(stack, f, ";"); path = ""
		for (i = 1; i <= k; i++) { path = path ";" f[i]; pre[path] += n }
	}
	END {
		print 0, "all", total
		for (t = 0; t < 20 && t < NR; t++) {
			best = 0
			for (r = 1; r <= NR; r++)
				if (!(r in done) && (!best || cnt[r] > cnt[best])) best = r
			done[best] = 1
			k = split(line[best], f, ";"); path = ""
			for (i = 1; i <= k; i++) { path = path ";" f[i]; print i, f[i], pre[path] }
		}
	}' "$1" | LC_ALL=C sort -u
}

@test "pflame: on streams (perf pipe, perf file, precord), perf's 20 largest stacks have their counts" {
	need_recording
	local input folded
	for input in deep.data deep.pipe precord.pipe; do
		case $input in
		deep.data) folded=deep.folded ;;
		deep.pipe) folded=deep-pipe.folded ;;
		precord.pipe) folded=precord.folded ;;
		esac
		[ -s "$W/$folded" ] || { echo "no $folded: precord failed?"; return 1; }
		"$BIN/pflame" --icicle --minwidth 0 -o "$BATS_TEST_TMPDIR/g.svg" "$W/$input"
		svg_frames "$BATS_TEST_TMPDIR/g.svg" >"$BATS_TEST_TMPDIR/got"
		top20_prefixes "$W/$folded" >"$BATS_TEST_TMPDIR/want"
		echo "$input: $(wc -l <"$BATS_TEST_TMPDIR/want") frames on perf's 20 largest stacks"
		[ "$(wc -l <"$BATS_TEST_TMPDIR/want")" -gt 20 ]
		LC_ALL=C comm -23 "$BATS_TEST_TMPDIR/want" "$BATS_TEST_TMPDIR/got" >"$BATS_TEST_TMPDIR/missing"
		cat "$BATS_TEST_TMPDIR/missing"
		[ ! -s "$BATS_TEST_TMPDIR/missing" ]
		# the root holds every sample perf script shows
		total=$(perf script -G -F comm -i "$W/$input" 2>/dev/null | wc -l)
		grep -q "^0	all	$total\$" "$BATS_TEST_TMPDIR/got"
	done
}

@test "pflame: a stream's graph is the graph of perf's own folded stacks" {
	need_recording
	"$BIN/pflame" --icicle --minwidth 0 -o "$BATS_TEST_TMPDIR/s.svg" "$W/deep.data"
	"$BIN/pflame" --folded --icicle --minwidth 0 -o "$BATS_TEST_TMPDIR/f.svg" "$W/deep.folded"
	svg_frames "$BATS_TEST_TMPDIR/s.svg" >"$BATS_TEST_TMPDIR/s"
	svg_frames "$BATS_TEST_TMPDIR/f.svg" >"$BATS_TEST_TMPDIR/f"
	diff "$BATS_TEST_TMPDIR/f" "$BATS_TEST_TMPDIR/s"
	# kernel frames in the kernel's colour (orange-yellow: blue under 51), user code red
	fill() { sed -n "s|^<g><title>$2 (.*fill=\"rgb(\\([0-9,]*\\))\".*|\\1|p" "$1" | head -n 1; }
	[[ "$(fill "$BATS_TEST_TMPDIR/s.svg" leaf_cpu)" =~ ^2[0-5][0-9],([5-9][0-9]|1[0-3][0-9]),[4-8][0-9]$ ]]
	if grep -q '<title>do_syscall_64 ' "$BATS_TEST_TMPDIR/s.svg"; then
		[[ "$(fill "$BATS_TEST_TMPDIR/s.svg" do_syscall_64)" =~ ^2[2-5][0-9],(1[6-9][0-9]|2[01][0-9]),[0-9]{1,2}$ ]]
	fi
}

@test "pflame: pcount --folded into pflame --folded draws the stream's own graph, counts summed" {
	need_recording
	"$BIN/pcount" --folded "$W/deep.data" >"$BATS_TEST_TMPDIR/folded"
	"$BIN/pflame" --folded --icicle --minwidth 0 -o "$BATS_TEST_TMPDIR/f.svg" "$BATS_TEST_TMPDIR/folded"
	"$BIN/pflame" --icicle --minwidth 0 -o "$BATS_TEST_TMPDIR/s.svg" "$W/deep.data"
	svg_frames "$BATS_TEST_TMPDIR/f.svg" >"$BATS_TEST_TMPDIR/f"
	svg_frames "$BATS_TEST_TMPDIR/s.svg" >"$BATS_TEST_TMPDIR/s"
	folded_frames "$BATS_TEST_TMPDIR/folded" >"$BATS_TEST_TMPDIR/sums"
	diff "$BATS_TEST_TMPDIR/sums" "$BATS_TEST_TMPDIR/f"
	diff "$BATS_TEST_TMPDIR/f" "$BATS_TEST_TMPDIR/s"
}

@test "pflame: a reader that goes away (| head) is a quiet end, a full disk one message" {
	local t="$BATS_TEST_TMPDIR"
	# a graph of thousands of frames: far more than a pipe holds
	seq 1 20000 | sed 's/.*/main;f&;g& 1/' >"$t/big.folded"
	run -0 --separate-stderr bash -o pipefail -c \
		"'$BIN/pflame' --folded '$t/big.folded' | head -c 10 >/dev/null"
	[ -z "$stderr" ]
	mknod "$t/full" c 1 7
	run -1 --separate-stderr "$BIN/pflame" --folded "$t/big.folded" -o "$t/full"
	[ "$stderr" = "pflame: $t/full: write: No space left on device" ]
	[ -c "$t/full" ]
	run -1 --separate-stderr bash -c "'$BIN/pflame' --folded '$t/big.folded' >/dev/full"
	[ "$stderr" = "pflame: <stdout>: write: No space left on device" ]
}

@test "pflame -o: SIGTERM writes the graph and leaves no temporary file; SIGKILL leaves .NAME.XXXXXX" {
	local t="$BATS_TEST_TMPDIR" pid st=0 f="$DATA/rawsys-dd.pipe"
	mkfifo "$t/fifo"
	"$BIN/pflame" -o "$t/out.svg" <"$t/fifo" &
	pid=$!
	exec 5>"$t/fifo"
	cat "$f" >&5
	sleep 1
	# the graph is made under a name of its own, recognisably the output's
	[ -n "$(find "$t" -name '.out.svg.??????')" ]
	kill -TERM "$pid"
	wait "$pid" || st=$?
	exec 5>&-
	[ "$st" = 0 ]
	"$BIN/pflame" "$f" | cmp - "$t/out.svg"
	[ -z "$(find "$t" -name '.out.svg.*' -o -name '*.tmp*')" ]
	"$BIN/pflame" -o "$t/killed.svg" <"$t/fifo" &
	pid=$!
	exec 5>"$t/fifo"
	cat "$f" >&5
	sleep 1
	kill -KILL "$pid"
	wait "$pid" || true
	exec 5>&-
	[ ! -e "$t/killed.svg" ]
	[ -n "$(find "$t" -name '.killed.svg.??????')" ]
}
