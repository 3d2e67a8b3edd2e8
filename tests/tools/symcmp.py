#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Compare ptojson's symbols with perf script's, frame by frame.

usage: symcmp.py PERF_SCRIPT_OUTPUT PTOJSON_OUTPUT MIN_FRAME_PCT MIN_SAMPLE_PCT [COMM]

PERF_SCRIPT_OUTPUT is `perf script -F comm,tid,time,ip,sym,dso` (with or without a
callchain); its "NAME (inlined)" frames are ptojson's frames with "inlined": true.  Samples are matched by tid and time; a frame agrees when its function and
object are the same.  Prints the totals and the first disagreements; exits 1 when the share
of agreeing frames or of wholly agreeing samples is under the minimum, or when too few
samples could be matched.  With COMM, only that command's samples count.
"""
import json
import sys
from collections import defaultdict


def parse_frame(text):
    text = text.strip()
    ip, _, rest = text.partition(" ")
    if not rest.endswith(")"):
        return rest.strip(), "[unknown]"
    # the object is the last balanced parenthesized group: "(/memfd:x (deleted))"
    depth = 0
    for i in range(len(rest) - 1, -1, -1):
        if rest[i] == ")":
            depth += 1
        elif rest[i] == "(":
            depth -= 1
            if depth == 0:
                return rest[:i].strip(), rest[i + 1:-1]
    return rest.strip(), "[unknown]"


def perf_samples(path):
    out = defaultdict(list)
    cur = None
    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line.strip():
                cur = None
                continue
            if line.startswith("\t"):
                if cur is not None:
                    cur["frames"].append(parse_frame(line))
                continue
            # "comm tid time: [ip sym (dso)]"; comm may hold spaces
            head, sep, tail = line.partition(": ")
            if not sep:
                head, tail = line.rstrip(":"), ""
            parts = head.split()
            tid, time = int(parts[-2]), parts[-1].rstrip(":")
            comm = " ".join(parts[:-2])
            cur = {"comm": comm, "frames": []}
            if tail.strip():
                cur["frames"].append(parse_frame(tail))
            out[(tid, time)].append(cur)
    return out


def fmt_time(ns):
    return "%d.%06d" % (ns // 1000000000, (ns % 1000000000) // 1000)


def json_samples(path):
    out = defaultdict(list)
    with open(path) as f:
        for line in f:
            o = json.loads(line)
            if "callchain" in o:
                # perf script shows an inlined function as "NAME (inlined)"
                frames = [(c.get("sym", "[unknown]"),
                           "inlined" if c.get("inlined") else c.get("dso", "[unknown]"))
                          for c in o["callchain"]]
            else:
                frames = [(o.get("sym", "[unknown]"), o.get("dso", "[unknown]"))]
            out[(o["tid"], fmt_time(o["time"]))].append(
                {"comm": o.get("comm"), "frames": frames})
    return out


def main():
    perf = perf_samples(sys.argv[1])
    js = json_samples(sys.argv[2])
    min_frames, min_samples = float(sys.argv[3]), float(sys.argv[4])
    only = sys.argv[5] if len(sys.argv) > 5 else None
    frames = same_frames = samples = same_samples = unmatched = 0
    shown = 0
    for key, plist in perf.items():
        jlist = js.get(key, [])
        for i, p in enumerate(plist):
            if only and p["comm"] != only:
                continue
            if i >= len(jlist):
                unmatched += 1
                continue
            j = jlist[i]
            samples += 1
            n = max(len(p["frames"]), len(j["frames"]))
            ok = 0
            for k in range(n):
                a = p["frames"][k] if k < len(p["frames"]) else None
                b = j["frames"][k] if k < len(j["frames"]) else None
                if a == b:
                    ok += 1
                elif shown < 15:
                    shown += 1
                    print("differs at %s frame %d: perf %s, ptojson %s" % (key, k, a, b))
            frames += n
            same_frames += ok
            if ok == n:
                same_samples += 1
    fpct = 100.0 * same_frames / frames if frames else 0.0
    spct = 100.0 * same_samples / samples if samples else 0.0
    print("samples %d (unmatched %d), same %.2f%%; frames %d, same %.2f%%" %
          (samples, unmatched, spct, frames, fpct))
    if samples < 20 or unmatched > samples / 100:
        print("too few samples matched")
        return 1
    return 0 if fpct >= min_frames and spct >= min_samples else 1


sys.exit(main())
