#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""durcheck.py - the duration fields (ptojson's latency, run_time, wait_time, sch_delay and
pcount --folded --off-cpu) against what perf's own output says, for tests/durations.bats.

  durcheck.py timehist JSONL TIMEHIST   every sched_switch line of perf sched timehist
                                        against the sample's three times; prints the share
                                        that agree and fails under 99%
  durcheck.py latency JSONL SCRIPT      every syscall exit of perf script (raw_syscalls,
                                        enter/exit paired per thread here) against latency
  durcheck.py offcpu FOLDED SCRIPT      off-CPU ns per stack computed from perf script -F
                                        tid,pid,cpu,time,event,trace,ip,sym against
                                        pcount --folded --off-cpu's lines
"""
import json
import re
import sys


def ms(ns):
    # perf's print_sched_time(): whole msec, then usec, truncated
    return "%d.%03d" % (ns // 1000000, (ns % 1000000) // 1000)


def usec_time(ns):
    return "%d.%06d" % (ns // 1000000000, (ns // 1000) % 1000000)


def timehist(jsonl, th):
    ours = {}
    for line in open(jsonl):
        o = json.loads(line)
        if o.get("event") != "sched:sched_switch":
            continue
        key = (usec_time(o["time"]), o["cpu"])
        ours.setdefault(key, []).append(
            (ms(o.get("wait_time", 0)), ms(o.get("sch_delay", 0)), ms(o.get("run_time", 0))))
    pat = re.compile(r"^\s*(\d+\.\d{6})\s+\[(\d+)\]\s+.*?\s(\d+\.\d{3})\s+(\d+\.\d{3})\s+(\d+\.\d{3})(\s|$)")
    total = agree = 0
    bad = []
    for line in open(th):
        m = pat.match(line)
        if not m:
            continue
        total += 1
        got = ours.get((m.group(1), int(m.group(2))), [])
        want = (m.group(3), m.group(4), m.group(5))
        if want in got:
            agree += 1
        elif len(bad) < 5:
            bad.append("perf: %s ours: %s" % (line.rstrip()[:120], got))
    return report("timehist lines", agree, total, bad, 0.99)


def report(what, agree, total, bad, need):
    share = agree / total if total else 0
    print("%s: %d of %d agree (%.2f%%)" % (what, agree, total, 100 * share))
    for b in bad:
        print("  " + b)
    return 0 if total and share >= need else 1


def script_lines(path):
    # perf script -F tid,time,event,trace: "  TID  SECS.NSEC: EVENT: TRACE"
    pat = re.compile(r"^\s*(-?\d+)\s+(\d+)\.(\d{9}):\s+(\S+):\s*(.*)$")
    for line in open(path):
        m = pat.match(line)
        if m:
            yield int(m.group(1)), int(m.group(2)) * 1000000000 + int(m.group(3)), \
                m.group(4), m.group(5)


def latency(jsonl, script):
    want = {}
    enter = {}
    for tid, t, ev, trace in script_lines(script):
        m = re.search(r"NR (-?\d+)", trace)
        if not m:
            continue
        nr = int(m.group(1))
        if ev == "raw_syscalls:sys_enter":
            enter[tid] = (nr, t)
        elif ev == "raw_syscalls:sys_exit":
            e = enter.pop(tid, None)
            want[(tid, t)] = t - e[1] if e and e[0] == nr else None
    got = {}
    for line in open(jsonl):
        o = json.loads(line)
        if o.get("event") == "raw_syscalls:sys_exit":
            got[(o["tid"], o["time"])] = o.get("latency")
    agree = sum(1 for k, v in want.items() if k in got and got[k] == v)
    bad = ["%s perf-script pairs: %s ours: %s" % (k, v, got.get(k, "missing"))
           for k, v in want.items() if not (k in got and got[k] == v)][:5]
    with_value = sum(1 for v in want.values() if v is not None)
    print("exits with an enter before them: %d" % with_value)
    return report("syscall exits", agree, len(want), bad, 1.0) if with_value else 1


def offcpu(folded, script):
    # perf script -F comm,tid,time,event,trace,ip,sym with the chain under each sample
    out = {}   # tid -> (time, stack text)
    want = {}
    cur = None
    frames = []

    def done():
        if cur is None:
            return
        tid, t, trace, comm = cur
        m1 = re.search(r"prev_comm=.* prev_pid=(\d+) .*==> next_comm=.* next_pid=(\d+)", trace)
        if not m1:
            return
        prev, nxt = int(m1.group(1)), int(m1.group(2))
        if nxt and nxt in out:
            t0, stack = out.pop(nxt)
            want[stack] = want.get(stack, 0) + t - t0
        if prev:
            # a thread never named: ":TID" in both (perf script's comm)
            name = comm.replace(" ", "_")
            out[prev] = (t, ";".join([name] + list(reversed(frames))))

    head = re.compile(r"^(\S.*?)\s+(-?\d+)\s+(\d+)\.(\d{9}):\s+(\S+):\s*(.*)$")
    for line in open(script):
        m = head.match(line)
        if m:
            done()
            cur = None
            frames = []
            if m.group(5) == "sched:sched_switch":
                cur = (int(m.group(2)), int(m.group(3)) * 1000000000 + int(m.group(4)),
                       m.group(6), m.group(1))
            continue
        f = line.strip().split(None, 1)
        if cur is not None and len(f) == 2:
            frames.append(f[1].replace(";", ":"))
    done()
    got = {}
    for line in open(folded):
        stack, _, n = line.rstrip("\n").rpartition(" ")
        got[stack] = got.get(stack, 0) + int(n)
    wt, gt = sum(want.values()), sum(got.values())
    agree = sum(v for k, v in want.items() if got.get(k) == v)
    bad = ["%s perf: %d ours: %s" % (k[:100], v, got.get(k)) for k, v in want.items()
           if got.get(k) != v][:5]
    print("off-CPU ns: perf script %d, pcount %d" % (wt, gt))
    return report("off-CPU ns on the same stacks", agree, wt, bad, 0.99) or (wt != gt)


if __name__ == "__main__":
    cmd = sys.argv[1]
    sys.exit({"timehist": timehist, "latency": latency, "offcpu": offcpu}[cmd](*sys.argv[2:]))
