#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""tp_ids.py OLD=NEW... < in.pipe > out.pipe: give tracepoint id OLD the id NEW in a
little-endian pipe stream, as if it had been recorded on a boot where the kernel numbered
its tracepoints otherwise: the config of the tracepoint ATTR records, the "ID:" line of the
format in TRACING_DATA, the common_type of each sample's raw data, HEADER_EVENT_TYPE
records and the EVENT_DESC feature.  perf script prints the same for the result as for
the input; the merge tests use it to make two recordings disagree on which id is which
event."""
import re
import struct
import sys

import pipestream

S_IP, S_TID, S_TIME, S_ADDR, S_READ, S_CALLCHAIN = 1, 2, 4, 8, 0x10, 0x20
S_ID, S_CPU, S_PERIOD, S_STREAM_ID, S_RAW, S_IDENTIFIER = 0x40, 0x80, 0x100, 0x200, 0x400, 0x10000
R_ENABLED, R_RUNNING, R_ID, R_GROUP, R_LOST = 1, 2, 4, 8, 16
TRACEPOINT = 2
FEAT_EVENT_DESC = 12


def remap_text(text, ids):
    """A format's text with its "ID: N" line renumbered; the common_type offset and size."""
    m = re.search(rb"^ID: (\d+)$", text, re.M)
    if m and int(m.group(1)) in ids:
        text = text[:m.start(1)] + str(ids[int(m.group(1))]).encode() + text[m.end(1):]
    return text


def tracing(blob, ids):
    """The tracing data blob with the formats' ids renumbered."""
    out = bytearray()
    off = 0

    def take(n):
        nonlocal off
        r = blob[off:off + n]
        off += n
        return r

    def string():
        nonlocal off
        end = blob.index(b"\0", off)
        r = blob[off:end + 1]
        off = end + 1
        return r

    def chunk64(rewrite):
        size = struct.unpack_from("<Q", blob, off)[0]
        take(8)
        text = take(size)
        if rewrite:
            text = remap_text(text, ids)
        return struct.pack("<Q", len(text)) + text

    out += take(10)
    version = string()
    out += version
    head = take(6)
    if head[0]:
        sys.exit("tp_ids.py: big-endian tracing data")
    out += head
    for _ in range(2):  # header_page, header_event
        out += string()
        out += chunk64(False)
    n = struct.unpack_from("<I", blob, off)[0]
    out += take(4)
    for _ in range(n):
        out += chunk64(True)
    nsys = struct.unpack_from("<I", blob, off)[0]
    out += take(4)
    for _ in range(nsys):
        out += string()
        n = struct.unpack_from("<I", blob, off)[0]
        out += take(4)
        for _ in range(n):
            out += chunk64(True)
    # kallsyms, printk formats (u32 sizes) and, after 0.5, cmdlines (u64 size): as they are
    for width in ("<I", "<I") + (("<Q",) if version != b"0.5\0" else ()):
        size = struct.unpack_from(width, blob, off)[0]
        out += take(struct.calcsize(width) + size)
    while len(out) % 8:
        out += b"\0"
    return bytes(out)


def common_type_at(blob):
    """The offset and size of common_type in the formats of the blob (all the same)."""
    m = re.search(rb"common_type;\s*offset:(\d+);\s*size:(\d+);", blob)
    return (int(m.group(1)), int(m.group(2))) if m else (0, 2)


def raw_at(rec, st, rf):
    """Where a sample's RAW data starts (after its u32 size), or None."""
    at = 8
    for bit in (S_IDENTIFIER, S_IP, S_TID, S_TIME, S_ADDR, S_ID, S_STREAM_ID, S_CPU, S_PERIOD):
        at += 8 * bool(st & bit)
    if st & S_READ:
        words = bool(rf & R_ID) + bool(rf & R_LOST) + 1
        if rf & R_GROUP:
            nr = struct.unpack_from("<Q", rec, at)[0]
            at += 8 * (1 + bool(rf & R_ENABLED) + bool(rf & R_RUNNING) + nr * words)
        else:
            at += 8 * (words + bool(rf & R_ENABLED) + bool(rf & R_RUNNING))
    if st & S_CALLCHAIN:
        nr = struct.unpack_from("<Q", rec, at)[0]
        at += 8 * (1 + nr)
    return at + 4 if st & S_RAW else None


def event_desc(rec, ids):
    """The EVENT_DESC feature record with the tracepoint attrs' configs renumbered."""
    nre, sz = struct.unpack_from("<II", rec, 16)
    at = 24
    for _ in range(nre):
        typ, = struct.unpack_from("<I", rec, at)
        cfg, = struct.unpack_from("<Q", rec, at + 8)
        if typ == TRACEPOINT and cfg in ids:
            struct.pack_into("<Q", rec, at + 8, ids[cfg])
        at += sz
        nr_ids, slen = struct.unpack_from("<II", rec, at)
        at += 8 + slen + 8 * nr_ids


def main():
    ids = {}
    for arg in sys.argv[1:]:
        old, new = arg.split("=")
        ids[int(old, 0)] = int(new, 0)
    attrs = {}  # sample id -> (sample_type, read_format, config)
    state = {"first_st": None, "ct": (0, 2)}

    def edit(typ, misc, rec, payload):
        size = len(rec)
        if typ == 66:  # TRACING_DATA: renumber the formats of the payload
            state["ct"] = common_type_at(payload)
            payload = tracing(payload, ids)
            struct.pack_into("<I", rec, 8, len(payload))
            return rec, payload
        if typ == 64:  # ATTR
            atype, asize = struct.unpack_from("<II", rec, 8)
            cfg, _, st, rf = struct.unpack_from("<QQQQ", rec, 16)
            if atype == TRACEPOINT and cfg in ids:
                struct.pack_into("<Q", rec, 16, ids[cfg])
            if state["first_st"] is None:
                state["first_st"] = st
            for at in range(8 + asize, size, 8):
                attrs[struct.unpack_from("<Q", rec, at)[0]] = (st, rf, atype)
        elif typ == 65:  # HEADER_EVENT_TYPE: u64 event id, name
            eid, = struct.unpack_from("<Q", rec, 8)
            if eid in ids:
                struct.pack_into("<Q", rec, 8, ids[eid])
        elif typ == 80 and struct.unpack_from("<Q", rec, 8)[0] == FEAT_EVENT_DESC:
            event_desc(rec, ids)
        elif typ == 9 and state["first_st"] is not None:
            first_st = state["first_st"]
            if first_st & S_IDENTIFIER:
                sid_at = 8
            else:
                sid_at = 8 + 8 * sum(bool(first_st & b) for b in (S_IP, S_TID, S_TIME, S_ADDR))
            st, rf, atype = attrs.get(struct.unpack_from("<Q", rec, sid_at)[0], (0, 0, 0))
            at = raw_at(rec, st, rf) if atype == TRACEPOINT else None
            if at is not None:
                ct = state["ct"]
                fmt = "<H" if ct[1] == 2 else "<I"
                v, = struct.unpack_from(fmt, rec, at + ct[0])
                struct.pack_into(fmt, rec, at + ct[0], ids.get(v, v))
        return None

    pipestream.rewrite(edit)

main()
