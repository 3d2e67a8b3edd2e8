#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""rehost.py [-H HOST] [OLD=NEW...] < in.pipe > out.pipe: a little-endian pipe stream as if
recorded on another machine: the HOSTNAME feature says HOST, and the COMM records that
name a thread OLD name it NEW (no longer than OLD's padding allows).  The merge tests make
two hosts out of one recording with it: the same events and ids, other names."""
import struct
import sys

import pipestream

FEAT_HOSTNAME = 3


def main():
    args = sys.argv[1:]
    host = None
    if args[:1] == ["-H"]:
        host = args[1].encode()
        args = args[2:]
    names = {}
    for arg in args:
        old, new = arg.split("=")
        names[old.encode()] = new.encode()
    def edit(typ, misc, rec, payload):
        if typ == 80 and host is not None and struct.unpack_from("<Q", rec, 8)[0] == FEAT_HOSTNAME:
            room = (len(host) + 1 + 63) // 64 * 64
            rec = bytearray(struct.pack("<IHH", typ, misc, 0)) + rec[8:16]
            rec += struct.pack("<I", room) + host + b"\0" * (room - len(host))
            rec += b"\0" * (-len(rec) % 8)
            struct.pack_into("<H", rec, 6, len(rec))
            return rec, payload
        if typ == 3:  # COMM: pid, tid, name, then the sample_id trailer
            end = rec.index(b"\0", 16)
            new = names.get(bytes(rec[16:end]))
            if new is not None:
                room = (end - 16 + 1 + 7) // 8 * 8  # the name's padded slot
                if len(new) + 1 > room:
                    sys.exit("rehost.py: %s does not fit" % new.decode())
                rec[16:16 + room] = new + b"\0" * (room - len(new))
        return None

    pipestream.rewrite(edit)

main()
