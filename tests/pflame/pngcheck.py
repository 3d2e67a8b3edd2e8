#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""pngcheck.py FILE [R,G,B]: print "WIDTH HEIGHT COLOURS" of an 8-bit RGB(A) PNG, and the
number of distinct colours in the column WIDTH-15 (a full-width frame must reach there);
with R,G,B, then the number of pixels of that colour (a frame's fill: is it on screen?)."""
import struct
import sys
import zlib


def main(path):
    data = open(path, 'rb').read()
    if data[:8] != b'\x89PNG\r\n\x1a\n':
        sys.exit('not a PNG')
    pos, idat = 8, b''
    while pos < len(data):
        n, kind = struct.unpack('>I4s', data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b'IHDR':
            w, h, depth, ctype = struct.unpack('>IIBB', body[:10])
        elif kind == b'IDAT':
            idat += body
        pos += 12 + n
    if depth != 8 or ctype not in (2, 6):
        sys.exit('unsupported PNG type %d/%d' % (depth, ctype))
    bpp = 3 if ctype == 2 else 4
    raw, stride = zlib.decompress(idat), w * bpp
    prev, rows, i = bytearray(stride), [], 0
    for _ in range(h):
        f, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b, c = prev[x], prev[x - bpp] if x >= bpp else 0
            if f == 1:
                line[x] = (line[x] + a) & 255
            elif f == 2:
                line[x] = (line[x] + b) & 255
            elif f == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    colours = set()
    for r in rows:
        for x in range(0, stride, bpp):
            colours.add(r[x:x + 3])
    col = w - 15
    edge = set(r[col * bpp:col * bpp + 3] for r in rows)
    if len(sys.argv) > 2:
        want = bytes(int(v) for v in sys.argv[2].split(','))
        n = sum(1 for r in rows for x in range(0, stride, bpp) if r[x:x + 3] == want)
        print(w, h, len(colours), len(edge), n)
    else:
        print(w, h, len(colours), len(edge))


main(sys.argv[1])
