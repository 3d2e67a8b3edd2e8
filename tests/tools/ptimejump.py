#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
# ptimejump IN OUT OFFSET TIME: copy a little-endian pipe stream, with the u64 that equals
# TIME inside the record at byte OFFSET set to 2^62 (a sample from far in the future).
import struct
import sys

data = bytearray(open(sys.argv[1], 'rb').read())
off, t = int(sys.argv[3]), int(sys.argv[4])
size = struct.unpack_from('<H', data, off + 6)[0]
rec = bytes(data[off:off + size])
i = rec.find(struct.pack('<Q', t))
assert i > 0
struct.pack_into('<Q', data, off + i, 1 << 62)
open(sys.argv[2], 'wb').write(data)
