#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# The build's knobs and checks: one version number, WERROR=0, the package list, and the
# layer check that fails on two library files calling each other.

bats_require_minimum_version 1.5.0

setup() {
	load helpers
}

@test "build: every program and pstream-scripts print the GNUmakefile's VERSION" {
	local v p
	v=$(sed -n 's/^VERSION := //p' "$TOP/GNUmakefile")
	[ -n "$v" ]
	grep -q "^#define PS_VERSION \"$v\"$" "$TOP/build/gen/version.h"
	for p in pcat pheader pfilter pcount pflame precord psplit ptojson pstream-clickhouse \
		pstream-scripts; do
		run -0 "$BIN/$p" --version
		[ "$output" = "$p (pstream) $v" ] || { echo "$p: $output"; return 1; }
	done
	run -0 "$BIN/pstream-scripts" sctop --version
	[ "$output" = "sctop (pstream) $v" ]
}

@test "build: WERROR=0 drops -Werror and nothing else; the default keeps it" {
	run -0 make -C "$TOP" -n -B V=1 build/lib/xalloc.o
	[[ "$output" == *" -Werror "* ]]
	[[ "$output" == *" -Wshadow "* ]]
	run -0 make -C "$TOP" -n -B V=1 WERROR=0 build/lib/xalloc.o
	[[ "$output" != *"-Werror"* ]]
	[[ "$output" == *" -Wshadow "* ]]
}

@test "build: packages.txt is the one list make deps and .ci/run install" {
	local l
	run -0 make -C "$TOP" -s -n deps
	for l in $(awk '!/^#/ && NF { print $1 }' "$TOP/packages.txt"); do
		[[ "$output" == *" $l "* || "$output" == *" $l;"* ]] || { echo "make deps leaves out $l"; return 1; }
	done
	grep -q 'packages.txt' "$TOP/.ci/run"
	! grep -q 'libjansson-dev' "$TOP/.ci/run" "$TOP/GNUmakefile"
}

@test "build: check-layers fails on two files that call each other, passes on a layer" {
	local d=$BATS_TEST_TMPDIR
	command -v cc >/dev/null || skip "no C compiler"
	mkdir -p "$d/loop" "$d/layer"
	printf 'int b(void);\nint a(void) { return b(); }\n' >"$d/a.c"
	printf 'int a(void);\nint b(void) { return a(); }\n' >"$d/b.c"
	printf 'int b(void) { return 1; }\n' >"$d/c.c"
	cc -c -o "$d/loop/a.o" "$d/a.c" && cc -c -o "$d/loop/b.o" "$d/b.c"
	cc -c -o "$d/layer/a.o" "$d/a.c" && cc -c -o "$d/layer/b.o" "$d/c.c"
	run -1 "$TOP/tests/tools/check-layers.sh" "$d/loop" "$d"
	[[ "$output" == *"a loop in the library's calls"* ]]
	[[ "$output" == *"  a"* && "$output" == *"  b"* ]]
	run -0 "$TOP/tests/tools/check-layers.sh" "$d/layer" "$d"
	printf '#include "y.h"\n' >"$d/x.h"
	printf '#include "x.h"\n' >"$d/y.h"
	run -1 "$TOP/tests/tools/check-layers.sh" "$d/layer" "$d"
	[[ "$output" == *"a loop in the library's includes"* ]]
}
