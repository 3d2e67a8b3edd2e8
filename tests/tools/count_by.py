# SPDX-License-Identifier: GPL-2.0-only
# Run by `perf script -s` (perf's embedded Python): counts the samples perf hands over by
# the key in $PCOUNT_BY (comm, pid, tid, cpu or event) and prints {key: count} as JSON.
import collections
import json
import os

key = os.environ["PCOUNT_BY"]
counts = collections.Counter()


def add(sample, comm, event):
    value = {"comm": comm, "event": event, "pid": sample.get("pid"),
             "tid": sample.get("tid"), "cpu": sample.get("cpu")}[key]
    counts[str(value)] += 1


def trace_unhandled(event_name, context, event_fields_dict, perf_sample_dict):
    add(perf_sample_dict["sample"], perf_sample_dict.get("comm"),
        perf_sample_dict.get("ev_name"))


def process_event(param_dict):
    add(param_dict["sample"], param_dict.get("comm"), param_dict.get("ev_name"))


def trace_end():
    print(json.dumps(counts, sort_keys=True))
