# SPDX-License-Identifier: GPL-2.0-only
# Run by `perf script -s` (perf's own embedded Python): compares every sample perf hands
# to the script, in perf's order, with the JSON line ptojson wrote for it (the file named
# by $PTOJSON_OUT).  Prints "compared N samples, M mismatches" at the end.
import json
import os
import sys

lines = open(os.environ["PTOJSON_OUT"], encoding="utf-8").read().splitlines()
state = {"i": 0, "bad": 0}


def num(v):
    """Our integers are numbers (exact, also above INT64_MAX) or 0x strings."""
    if isinstance(v, str):
        return int(v, 16) if v.startswith("0x") else int(v)
    return v


def complain(what):
    state["bad"] += 1
    if state["bad"] <= 10:
        print("mismatch at sample %d: %s" % (state["i"], what))


def same_field(name, theirs, ours):
    if isinstance(theirs, (bytes, bytearray)) and isinstance(ours, str):
        # a char array perf could not show as text: compare the bytes
        return bytes(theirs).rstrip(b"\0") == ours.encode("utf-8")
    if isinstance(theirs, (bytes, bytearray)):
        # perf hands arrays over as raw bytes: rebuild them from our numbers
        if not isinstance(ours, list) or not ours:
            return not theirs.rstrip(b"\0") and (ours in ("", []))
        width = len(theirs) // len(ours)
        rebuilt = b"".join((num(x) & ((1 << (8 * width)) - 1)).to_bytes(width, "little")
                           for x in ours)
        return rebuilt == bytes(theirs)
    if isinstance(theirs, str):
        return theirs.rstrip("\0") == ours
    if isinstance(theirs, int):
        if isinstance(ours, list):
            return False
        o = num(ours)
        return o == theirs or (o & 0xFFFFFFFFFFFFFFFF) == (theirs & 0xFFFFFFFFFFFFFFFF)
    return True


def check(event, sample, comm, fields):
    i = state["i"]
    state["i"] += 1
    if i >= len(lines):
        complain("ptojson wrote fewer lines than perf has samples")
        return
    ours = json.loads(lines[i])
    if ours.get("event", "").replace(":", "__") != event.replace(":", "__"):
        complain("event %r != %r" % (ours.get("event"), event))
    for key in ("pid", "tid", "cpu", "time", "period"):
        if key in ours and key in sample and num(ours[key]) != sample[key]:
            complain("%s %r != %r" % (key, ours[key], sample[key]))
    if "ip" in ours and num(ours["ip"]) != sample.get("ip"):
        complain("ip %r != %r" % (ours["ip"], sample.get("ip")))
    if comm is not None and ours.get("comm") != comm:
        complain("comm %r != %r" % (ours.get("comm"), comm))
    for name, val in (fields or {}).items():
        if name.startswith("common_"):
            continue
        if name not in ours.get("fields", {}):
            complain("field %s missing" % name)
        elif not same_field(name, val, ours["fields"][name]):
            complain("field %s: ours %r, perf %r" % (name, ours["fields"][name], val))


def trace_unhandled(event_name, context, event_fields_dict, perf_sample_dict):
    check(event_name, perf_sample_dict["sample"], perf_sample_dict.get("comm"),
          event_fields_dict)


def process_event(param_dict):
    check(param_dict["ev_name"], param_dict["sample"], param_dict.get("comm"), None)


def trace_end():
    if state["i"] != len(lines):
        complain("perf has %d samples, ptojson wrote %d lines" % (state["i"], len(lines)))
    print("compared %d samples, %d mismatches" % (state["i"], state["bad"]))
