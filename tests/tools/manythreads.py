#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""manythreads.py N ENTERS EXITS > out.pipe: a little-endian pipe stream of N threads that
never exit, for make bench (the durations' memory with a million threads): each thread
(pid = tid, one new number each) enters a syscall, leaves it, and enters it again, never to
return, so that its thread state and a pending start stay behind.

ENTERS and EXITS are pipe streams (the same recording filtered, e.g. by pfilter, to the
entries and to the exits of one syscall): the header records of ENTERS and the first sample
of each are the templates; the samples written are those two with their pid, tid and time
changed; a FINISHED_ROUND record follows every 1000 threads, as perf record writes them.
All events must have the same sample_type."""
import struct
import sys

HEADER_ATTR = 64
SAMPLE = 9
S_IDENTIFIER, S_IP, S_TID, S_TIME = 0x10000, 1, 2, 4
ROUND = struct.pack("<IHH", 68, 0, 8)  # FINISHED_ROUND: what came before may be sorted out


def records(path):
    data = open(path, "rb").read()
    if data[:8] != b"PERFILE2" or len(data) < 16:
        sys.exit("manythreads: %s: not a pipe stream" % path)
    off = 16
    while off + 8 <= len(data):
        typ, _, size = struct.unpack_from("<IHH", data, off)
        if size < 8:
            sys.exit("manythreads: %s: bad record at byte %d" % (path, off))
        end = off + size
        if typ == 66:  # TRACING_DATA: its payload follows
            end += struct.unpack_from("<I", data, off + 8)[0]
        yield typ, data[off:end]
        off = end


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    n = int(sys.argv[1])
    head = bytearray(open(sys.argv[2], "rb").read(16))
    types = set()
    enter = exit_ = None
    for typ, rec in records(sys.argv[2]):
        if typ == SAMPLE:
            enter = bytearray(rec)
            break
        if typ == HEADER_ATTR:
            types.add(struct.unpack_from("<Q", rec, 8 + 24)[0])
        head += rec
    for typ, rec in records(sys.argv[3]):
        if typ == SAMPLE:
            exit_ = bytearray(rec)
            break
    if enter is None or exit_ is None or len(types) != 1:
        sys.exit("manythreads: need a sample in each input and one sample_type")
    st = types.pop()
    if not (st & S_TID and st & S_TIME):
        sys.exit("manythreads: the samples need TID and TIME")
    at = 8 + 8 * bool(st & S_IDENTIFIER) + 8 * bool(st & S_IP)
    t0 = struct.unpack_from("<Q", enter, at + 8)[0]

    out = sys.stdout.buffer
    out.write(head)
    block = enter + exit_ + enter
    offs = (at, len(enter) + at, len(enter) + len(exit_) + at)
    buf = bytearray()
    for i in range(n):
        tid = 100000 + i
        t = t0 + 3000 * i
        for k, o in enumerate(offs):
            struct.pack_into("<IIQ", block, o, tid, tid, t + 1000 * k)
        buf += block
        if i % 1000 == 999:
            buf += ROUND
        if len(buf) > 1 << 20:
            out.write(buf)
            buf = bytearray()
    out.write(buf)


if __name__ == "__main__":
    main()
