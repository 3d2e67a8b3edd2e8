#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""shift_ids.py DELTA < in.pipe > out.pipe: add DELTA (may be negative) to every sample id
of a little-endian pipe stream whose events all carry PERF_SAMPLE_IDENTIFIER, so that the
ids of two recordings can be made to collide for the merge tests.  Ids of 0 (perf's
synthesized records) stay 0."""
import struct
import sys

import pipestream

IDENTIFIER = 1 << 16
SAMPLE_ID_ALL = 1 << 18


def main():
    delta = int(sys.argv[1])
    state = {"ident_all": True, "id_all": False}

    def shift(buf, at):
        v = struct.unpack_from("<Q", buf, at)[0]
        if v:
            struct.pack_into("<Q", buf, at, v + delta)

    def edit(typ, misc, rec, payload):
        size = len(rec)
        if typ == 64:  # ATTR
            asize = struct.unpack_from("<I", rec, 12)[0]
            st, = struct.unpack_from("<Q", rec, 8 + 24)
            flags, = struct.unpack_from("<Q", rec, 8 + 40)
            state["ident_all"] = state["ident_all"] and bool(st & IDENTIFIER)
            state["id_all"] = bool(flags & SAMPLE_ID_ALL)
            for at in range(8 + asize, size, 8):
                shift(rec, at)
        elif typ == 78:  # EVENT_UPDATE
            shift(rec, 16)
        elif typ == 69:  # ID_INDEX
            nr, = struct.unpack_from("<Q", rec, 8)
            esz = (size - 16) // nr if nr else 32
            for i in range(nr):
                shift(rec, 16 + i * esz)
        elif typ == 9:
            shift(rec, 8)
        elif typ < 64 and state["id_all"]:
            shift(rec, size - 8)
        if not state["ident_all"]:
            sys.exit("shift_ids.py: every event must carry PERF_SAMPLE_IDENTIFIER")
        return None

    pipestream.rewrite(edit)

main()
