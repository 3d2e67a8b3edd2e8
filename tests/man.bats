#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# Man pages: lint clean, and each program's --help agrees with its page.

bats_require_minimum_version 1.5.0

setup() {
	load helpers
	command -v mandoc >/dev/null || skip "mandoc not installed"
}

# the programs built from src/*.c that have a page
programs() {
	local p
	for p in "$TOP"/src/*.c; do
		p=$(basename "$p" .c)
		[ -x "$BIN/$p" ] && echo "$p"
	done
}

@test "man: every page is clean under mandoc -Tlint" {
	run -0 mandoc -Tlint -Wwarning "$TOP"/man/*.[17]
}

@test "man: every program has a page, and pstream(7) exists" {
	local p
	[ -f "$TOP/man/pstream.7" ]
	for p in $(programs); do
		[ -f "$TOP/man/$p.1" ] || { echo "no man page for $p"; return 1; }
	done
}

@test "man: the usage line of --help is the SYNOPSIS of the page" {
	local p usage synopsis
	for p in $(programs); do
		usage=$("$BIN/$p" --help | head -n 1 | sed 's/^usage: //' | tr -s ' ')
		synopsis=$(mandoc -Tutf8 "$TOP/man/$p.1" | col -bx |
			awk '/^SYNOPSIS/ {on=1; next} /^[A-Z]/ {on=0} on' | tr -s ' \n' '  ' |
			sed 's/^ *//; s/ *$//')
		[ "$usage" = "$synopsis" ] || { echo "$p: '$usage' != '$synopsis'"; return 1; }
	done
}

@test "man: every long option of --help is documented in the page" {
	local p opt
	for p in $(programs); do
		for opt in $("$BIN/$p" --help | grep -o -- '--[a-z][a-z-]*' | sort -u); do
			mandoc -Tutf8 "$TOP/man/$p.1" | col -bx | grep -q -- "$opt" ||
				{ echo "$p: $opt is not in the page"; return 1; }
		done
	done
}
