#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""foldcmp.py THEIRS OURS MIN: two folded-stack files ("STACK COUNT" lines) agree on at
least MIN (0..1) of THEIRS's samples: a sample agrees when a line with the same stack has
room for it in OURS.  Prints the share and the lines that differ most; exit 1 below MIN."""
import collections
import sys


def load(path):
    counts = collections.Counter()
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        for line in f:
            stack, _, n = line.rstrip("\n").rpartition(" ")
            counts[stack] += int(n)
    return counts


theirs, ours = load(sys.argv[1]), load(sys.argv[2])
total = sum(theirs.values())
same = sum(min(n, ours[s]) for s, n in theirs.items())
share = same / total if total else 0.0
print("%d of %d samples on equal stacks (%.2f%%)" % (same, total, 100 * share))
worst = sorted(set(theirs) | set(ours), key=lambda s: -abs(theirs[s] - ours[s]))[:5]
for s in worst:
    if theirs[s] != ours[s]:
        print("  perf %d, ours %d: %s" % (theirs[s], ours[s], s[-160:]))
sys.exit(0 if total and share >= float(sys.argv[3]) else 1)
