#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""tracesum.py - pcount --by tid,syscall --stats latency against perf trace -s, for
tests/latency.bats.

  tracesum.py SUMMARY PCOUNT_JSON SCRIPT TRACE

SUMMARY      perf trace -s -i FILE's output (per thread: syscall, calls, errors, total, min,
             avg, max in msec to 3 decimals)
PCOUNT_JSON  pcount -j --by tid,syscall --stats latency of the same recording
SCRIPT       perf script -F tid,event,trace of it: the exits whose enter the thread never
             showed (no pending raw_syscalls:sys_enter of the same NR) are found here
TRACE        perf trace -i FILE's output: its "? ( ): ... [continued]: NAME()" lines (no
             duration) name those exits, one for one per thread, in time order

perf trace -s counts an exit whose enter it never saw as a call of 0 ms (and its error); pcount
gives such an exit no latency and does not count it.  So the expected perf row is pcount's row
plus those exits: calls + n, errors + the failed ones among them, min 0 when n > 0, avg over
calls + n; total and max unchanged.  Everything else is compared as perf prints it (msec to 3
decimals, rounded); a value exactly halfway between two printed numbers may go either way
(perf's mean is a running double) and either is accepted.  Exits 0 when every row of both
agrees, 1 otherwise, printing the differences.
"""
import json
import re
import sys
from fractions import Fraction

HEAD = re.compile(r"^ (.*) \((\d+)\), (\d+) events")
ROW = re.compile(r"^   (\S+)\s+(\d+)\s+(\d+)\s+(\d+\.\d{3})\s+(\d+\.\d{3})\s+(\d+\.\d{3})\s+"
                 r"(\d+\.\d{3})\s+(\d+\.\d+)%\s*$")


def read_summary(path):
    rows = {}
    tid = None
    for line in open(path, errors="replace"):
        m = HEAD.match(line)
        if m:
            tid = m.group(2)
            continue
        m = ROW.match(line)
        if m and tid is not None:
            key = (tid, m.group(1))
            if key in rows:
                sys.exit("tracesum: %s: %s %s twice" % (path, tid, m.group(1)))
            rows[key] = {"calls": int(m.group(2)), "errors": int(m.group(3)),
                         "total": m.group(4), "min": m.group(5), "avg": m.group(6),
                         "max": m.group(7)}
    return rows


def unmatched_exits(path):
    """{tid: [ret, ...]} of the exits with no pending enter of the same NR, in order."""
    pending = {}
    out = {}
    pat = re.compile(r"^\s*(\d+)\s+raw_syscalls:sys_(enter|exit):\s+NR (-?\d+)(?: = (-?\d+))?")
    for line in open(path, errors="replace"):
        m = pat.match(line)
        if not m:
            continue
        tid, kind, nr = m.group(1), m.group(2), int(m.group(3))
        if kind == "enter":
            pending[tid] = nr
        elif pending.pop(tid, None) != nr and nr >= 0:
            # (an exit of NR -1, as rt_sigreturn's, is one perf trace skips: no syscall)
            out.setdefault(tid, []).append(int(m.group(4)))
    return out


def continued_names(path):
    """{tid: [name, ...]} of perf trace's exits it shows without their enter."""
    # "?" where the duration goes: no enter seen (a continued line with a duration is an
    # exit printed after other threads' lines)
    pat = re.compile(r"^\s*\? \(\s*\): .*/(\d+) +\.\.\. \[continued\]: (\w+)\(\)\)")
    out = {}
    for line in open(path, errors="replace"):
        m = pat.search(line)
        if m:
            out.setdefault(m.group(1), []).append(m.group(2))
    return out


def printed(x):
    """The set of strings perf may print for x msec (a Fraction) with %.3f."""
    v = x * 1000
    lo = v.numerator // v.denominator
    frac = v - lo
    if frac == Fraction(1, 2):
        return {"%d.%03d" % divmod(lo, 1000), "%d.%03d" % divmod(lo + 1, 1000)}
    n = lo + 1 if frac > Fraction(1, 2) else lo
    return {"%d.%03d" % divmod(n, 1000)}


def main(argv):
    if len(argv) != 5:
        sys.exit(__doc__)
    perf = read_summary(argv[1])
    ours = json.load(open(argv[2]))
    lone = unmatched_exits(argv[3])
    names = continued_names(argv[4])

    # the lone exits, named by perf trace, one for one
    extra = {}
    bad = []
    for tid in sorted(set(lone) | set(names)):
        rets, ns = lone.get(tid, []), names.get(tid, [])
        if len(rets) != len(ns):
            bad.append("thread %s: %d exits without enter in perf script, %d [continued] in "
                       "perf trace" % (tid, len(rets), len(ns)))
            continue
        for ret, name in zip(rets, ns):
            e = extra.setdefault((tid, name), [0, 0])
            e[0] += 1
            e[1] += ret < 0

    want = {}
    for r in ours["rows"]:
        s = r["latency"]
        want[(r["tid"], r["syscall"])] = {"count": s["count"], "errors": s["errors"],
                                          "total": s["total"], "min": s["min"],
                                          "max": s["max"]}
    for key, (n, errs) in extra.items():
        w = want.setdefault(key, {"count": 0, "errors": 0, "total": 0, "min": 0, "max": 0})
        w["count"] += n
        w["errors"] += errs
        w["min"] = 0
        w["lone"] = n

    ms = Fraction(1, 1000000)
    agree = 0
    for key in sorted(set(want) | set(perf)):
        w, p = want.get(key), perf.get(key)
        if w is None or p is None:
            bad.append("%s %s: only in %s" % (key[0], key[1], "perf" if w is None else "pcount"))
            continue
        diffs = []
        if w["count"] != p["calls"]:
            diffs.append("calls %d != %d" % (w["count"], p["calls"]))
        if w["errors"] != p["errors"]:
            diffs.append("errors %d != %d" % (w["errors"], p["errors"]))
        for f, x in (("total", w["total"] * ms), ("min", w["min"] * ms),
                     ("max", w["max"] * ms), ("avg", Fraction(w["total"], w["count"]) * ms)):
            if p[f] not in printed(x):
                diffs.append("%s %s != %s" % (f, "/".join(sorted(printed(x))), p[f]))
        if diffs:
            bad.append("%s %s (%d without enter): %s" % (key[0], key[1], w.get("lone", 0),
                                                          ", ".join(diffs)))
        else:
            agree += 1
    nlone = sum(len(v) for v in lone.values())
    print("perf trace -s rows: %d agree of %d; %d exits without enter counted as perf counts "
          "them" % (agree, len(set(want) | set(perf)), nlone))
    for b in bad[:20]:
        print("  " + b)
    return 0 if not bad and agree > 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
