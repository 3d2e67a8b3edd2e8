#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# check-layers.sh OBJDIR SRCDIR: fail when two library files call each other in a loop, or
# two headers include each other in a loop.  The call graph comes from the objects: file
# A calls file B when A's object leaves undefined a symbol B's object defines (nm); tsort
# finds the loops.  Static inline functions of headers are not seen, which is their point.
set -eu
obj=${1:?usage: check-layers.sh OBJDIR SRCDIR}
src=${2:?usage: check-layers.sh OBJDIR SRCDIR}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/layers.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

for o in "$obj"/*.o; do
	m=$(basename "$o" .o)
	nm --defined-only -g "$o" | awk -v m="$m" 'NF == 3 { print $3, m }' >> "$tmp/defs"
	nm -u "$o" | awk -v m="$m" '{ print m, $NF }' >> "$tmp/uses"
	echo "$m $m" >> "$tmp/calls"
done
awk 'NR == FNR { def[$1] = $2; next } ($2 in def) && def[$2] != $1 { print $1, def[$2] }' \
	"$tmp/defs" "$tmp/uses" | sort -u >> "$tmp/calls"

for h in "$src"/*.h; do
	m=$(basename "$h")
	echo "$m $m"
	sed -n 's/^#include "\([^"]*\)".*/\1/p' "$h" | while read -r i; do echo "$m $i"; done
done > "$tmp/includes"

rc=0
for g in calls includes; do
	if ! tsort "$tmp/$g" > /dev/null 2> "$tmp/err"; then
		echo "check-layers: a loop in the library's $g:" >&2
		sed -n 's/^tsort: \([^ ]*\)$/  \1/p' "$tmp/err" | sort -u >&2
		rc=1
	fi
done
[ $rc -ne 0 ] || echo "layers: no loops ($(grep -vc '^\(.*\) \1$' "$tmp/calls") calls between files)"
exit $rc
