# SPDX-License-Identifier: GPL-2.0-only
"""The record walk the python test tools share: a little-endian pipe stream read from
standard input, edited record by record, written to standard output."""
import struct
import sys

TRACING_DATA = 66


def rewrite(edit):
    """Call edit(typ, misc, rec, payload) for every record of standard input: rec is a
    bytearray of the record (header included) to change in place, payload the bytes a
    TRACING_DATA record carries after it (else b"").  edit returns None to keep both, or
    (rec, payload) to write others.  The 16-byte stream header is copied as it is."""
    data = sys.stdin.buffer.read()
    out = bytearray(data[:16])
    off = 16
    while off + 8 <= len(data):
        typ, misc, size = struct.unpack_from("<IHH", data, off)
        rec = bytearray(data[off:off + size])
        payload = b""
        if typ == TRACING_DATA:  # the payload follows the record
            plen = struct.unpack_from("<I", rec, 8)[0]
            payload = data[off + size:off + size + plen]
        off += size + len(payload)
        got = edit(typ, misc, rec, payload)
        if got is not None:
            rec, payload = got
        out += rec + payload
    sys.stdout.buffer.write(out)
