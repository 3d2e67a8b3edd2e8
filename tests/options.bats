#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# Options: every program's command line comes from one table (lib/opts.c).  --help lists
# only what the program accepts, -V names it, and every mistake is said under the
# program's name, with the usage line, and exits 2.

bats_require_minimum_version 1.5.0

setup() {
	load helpers
}

# the option lines of --help: "-x, --long ARG", "--long ARG", "-x"
option_lines() {
	"$BIN/$1" --help | sed -n 's/^  \(-[a-zA-Z]\(, --[a-z][a-z-]*\)\{0,1\}\|    --[a-z][a-z-]*\)\( [^ ][^ ]*\)\{0,1\}  .*$/&/p' |
		awk '{ sub(/^ +/, ""); print }'
}

@test "options: --help and -h print the usage on standard output and exit 0" {
	local p
	for p in $(programs); do
		run -0 --separate-stderr "$BIN/$p" --help
		[[ "${lines[0]}" == "usage: $p "* ]] || { echo "$p: ${lines[0]}"; return 1; }
		[ -z "$stderr" ]
		[[ "$output" == *"  -h, --help "*"  -V, --version "* ]]
		run -0 --separate-stderr "$BIN/$p" -h
		[[ "${lines[0]}" == "usage: $p "* ]]
	done
}

@test "options: -V and --version name the program and pstream" {
	local p
	for p in $(programs); do
		run -0 --separate-stderr "$BIN/$p" -V
		[[ "$output" == "$p (pstream) "* ]] || { echo "$p: $output"; return 1; }
		run -0 --separate-stderr "$BIN/$p" --version
		[[ "$output" == "$p (pstream) "* ]]
	done
}

@test "options: an unknown option exits 2 with a message under the program's name and the usage" {
	local p
	for p in $(programs); do
		run -2 --separate-stderr "$BIN/$p" --no-such-option
		[ "${stderr_lines[0]}" = "$p: unknown option '--no-such-option'" ] ||
			{ echo "$p: $stderr"; return 1; }
		[[ "${stderr_lines[1]}" == "usage: $p "* ]]
		[ -z "$output" ]
		run -2 --separate-stderr "$BIN/$p" -Z
		[ "${stderr_lines[0]}" = "$p: unknown option '-Z'" ]
		run -2 --separate-stderr "$BIN/$p" --help=yes
		[ "${stderr_lines[0]}" = "$p: option '--help' takes no argument" ]
	done
}

@test "options: every option --help lists is one the program accepts" {
	local p line short long arg n=0
	for p in $(programs); do
		while IFS= read -r line; do
			short= long= arg=
			[[ "$line" =~ ^-([a-zA-Z]) ]] && short=${BASH_REMATCH[1]}
			[[ "$line" =~ --([a-z][a-z-]*) ]] && long=${BASH_REMATCH[1]}
			[[ "$line" =~ ^(-[a-zA-Z],\ )?(--[a-z-]+|-[a-zA-Z])\ ([^ ].*)$ ]] && arg=${BASH_REMATCH[3]}
			[ "$long" = help ] || [ "$long" = version ] && continue
			n=$((n + 1))
			if [ -n "$arg" ] && ! [[ "$arg" == "["*"]" ]]; then
				# it takes an argument: given none, that is what is said
				if [ -n "$long" ]; then
					run -2 --separate-stderr "$BIN/$p" "--$long"
					[ "${stderr_lines[0]}" = "$p: option '--$long' needs an argument" ] ||
						{ echo "$p --$long: $stderr"; return 1; }
				fi
				if [ -n "$short" ]; then
					run -2 --separate-stderr "$BIN/$p" "-$short"
					[ "${stderr_lines[0]}" = "$p: option '-$short' needs an argument" ] ||
						{ echo "$p -$short: $stderr"; return 1; }
				fi
			else
				# it takes none: known, so the --help after it is read
				if [ -n "$long" ]; then
					run -0 --separate-stderr "$BIN/$p" "--$long" --help
					[[ "${lines[0]}" == "usage: $p "* ]] || { echo "$p --$long: $stderr"; return 1; }
				fi
				if [ -n "$short" ]; then
					run -0 --separate-stderr "$BIN/$p" "-$short" --help
					[[ "${lines[0]}" == "usage: $p "* ]] || { echo "$p -$short: $stderr"; return 1; }
				fi
			fi
		done < <(option_lines "$p")
	done
	[ "$n" -gt 100 ]
}

@test "options: a usage error exits 2, said under the program's name" {
	run -2 --separate-stderr "$BIN/pcount" -n 0
	[[ "$stderr" == "pcount: --top: 0 is out of range"* ]]
	run -2 --separate-stderr "$BIN/ptojson" -t minutes
	[[ "$stderr" == "ptojson: --time-format: 'minutes' is not ns, s or iso"* ]]
	run -2 --separate-stderr "$BIN/pflame" -b tid
	[[ "$stderr" == "pflame: --by: 'tid' is neither comm nor pid"* ]]
	run -2 --separate-stderr "$BIN/psplit"
	[[ "$stderr" == "psplit: say how to cut"* ]]
	run -2 --separate-stderr "$BIN/pcat" --distinct
	[[ "$stderr" == "pcat: --distinct says how to merge"* ]]
}

@test "options: pcount and pfilter take the symbol files every program that names frames takes" {
	local p
	for p in pcount pfilter pflame ptojson pstream-clickhouse; do
		run -0 "$BIN/$p" --help
		[[ "$output" == *"--symfs DIR"* && "$output" == *"--kallsyms FILE"* ]] ||
			{ echo "$p: no --symfs or --kallsyms"; return 1; }
	done
}
