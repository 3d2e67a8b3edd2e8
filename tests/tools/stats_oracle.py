#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The statistics pcount --stats and --hist should give, computed another way.

  stats_oracle.py KEYCOL VALCOL < lines
      lines of whitespace-separated words (perf script output): the word KEYCOL is the
      row's key, the word VALCOL its value (1-based; negative counts from the end).
      Prints {key: {count, min, max, total, avg, stddev, hist: {le: count}}} as JSON,
      with exact integer arithmetic (fractions) for the mean and standard deviation.
  stats_oracle.py --compare ORACLE.json PCOUNT.json KEY FIELD
      compares pcount -j output (one document) with the oracle; exit 1 on a difference.
  stats_oracle.py --merge KEY FIELD < PCOUNT-I.jsonl
      merges the rows of pcount -j -i tables (count, min, max, total, hist buckets) into
      one document, exactly (jq's numbers are doubles: totals past 2^53 lose digits).
"""
import fractions
import json
import math
import sys


def le_of(v):
    """the largest value of v's log2 bucket: -1, 0, 1, 3, 7, ..."""
    if v < 0:
        return -1
    if v == 0:
        return 0
    return (1 << v.bit_length()) - 1


def oracle(keycol, valcol):
    rows = {}
    for line in sys.stdin:
        w = line.split()
        try:
            key, val = w[keycol], int(w[valcol])
        except (IndexError, ValueError):
            continue
        rows.setdefault(key, []).append(val)
    out = {}
    for key, vals in rows.items():
        n = len(vals)
        mean = fractions.Fraction(sum(vals), n)
        var = sum((fractions.Fraction(v) - mean) ** 2 for v in vals) / n
        hist = {}
        for v in vals:
            hist[le_of(v)] = hist.get(le_of(v), 0) + 1
        out[key] = {"count": n, "min": min(vals), "max": max(vals), "total": sum(vals),
                    "avg": float(mean), "stddev": math.sqrt(var),
                    "hist": {str(k): c for k, c in sorted(hist.items())}}
    json.dump(out, sys.stdout, sort_keys=True)
    print()


def close(a, b):
    return abs(a - b) <= 1e-9 * max(abs(a), abs(b)) + 1e-6


def compare(opath, ppath, key, field):
    want = json.load(open(opath))
    doc = json.load(open(ppath))
    got = {r[key]: r[field] for r in doc["rows"]}
    bad = 0
    if set(want) != set(got):
        print("rows differ: only perf:", sorted(set(want) - set(got))[:10],
              "only pcount:", sorted(set(got) - set(want))[:10])
        return 1
    for k, w in want.items():
        g = got[k]
        for f in ("count", "min", "max", "total"):
            if f in g and g[f] != w[f]:
                print("%s %s: pcount %s, perf %s" % (k, f, g[f], w[f]))
                bad += 1
        for f in ("avg", "stddev"):
            if f in g and not close(g[f], w[f]):
                print("%s %s: pcount %r, perf %r" % (k, f, g[f], w[f]))
                bad += 1
        if "hist" in g:
            les = [b["le"] for b in g["hist"]]
            # contiguous log2 buckets: each bound is one less than a power of 2
            expect = [-1, 0] + [(1 << i) - 1 for i in range(1, 64)]
            lo = expect.index(les[0]) if les and les[0] in expect else -1
            if lo < 0 or les != expect[lo:lo + len(les)]:
                print("%s: buckets not contiguous powers of 2: %s" % (k, les))
                bad += 1
            if sum(b["count"] for b in g["hist"]) != w["count"]:
                print("%s: bucket counts add up to %d, not %d" %
                      (k, sum(b["count"] for b in g["hist"]), w["count"]))
                bad += 1
            nz = {str(b["le"]): b["count"] for b in g["hist"] if b["count"]}
            if nz != w["hist"]:
                print("%s hist: pcount %s, perf %s" % (k, nz, w["hist"]))
                bad += 1
    print("%d rows compared, %d differences" % (len(want), bad))
    return 1 if bad else 0


def merge(key, field):
    rows = {}
    for line in sys.stdin:
        for r in json.loads(line)["rows"]:
            f = r[field]
            m = rows.setdefault(r[key], {key: r[key], field: {"count": 0, "total": 0}})[field]
            m["count"] += f["count"]
            m["total"] += f["total"]
            m["min"] = min(m.get("min", f["min"]), f["min"])
            m["max"] = max(m.get("max", f["max"]), f["max"])
            if "hist" in f:
                h = m.setdefault("h", {})
                for b in f["hist"]:
                    h[b["le"]] = h.get(b["le"], 0) + b["count"]
    for r in rows.values():
        h = r[field].pop("h", None)
        if h is not None:
            # contiguous, as pcount writes them: the empty buckets between too
            les = [-1, 0] + [(1 << i) - 1 for i in range(1, 64)]
            nz = [i for i, le in enumerate(les) if h.get(le)]
            r[field]["hist"] = [{"le": le, "count": h.get(le, 0)}
                                for le in les[nz[0]:nz[-1] + 1]] if nz else []
    json.dump({"rows": sorted(rows.values(), key=lambda r: r[key])}, sys.stdout,
              sort_keys=True)
    print()


if __name__ == "__main__":
    if sys.argv[1] == "--merge":
        merge(sys.argv[2], sys.argv[3])
        sys.exit(0)
    if sys.argv[1] == "--compare":
        sys.exit(compare(*sys.argv[2:6]))
    kc, vc = int(sys.argv[1]), int(sys.argv[2])
    oracle(kc - 1 if kc > 0 else kc, vc - 1 if vc > 0 else vc)
