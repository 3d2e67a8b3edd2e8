# SPDX-License-Identifier: GPL-2.0-only
"""make bench: how long an event takes from the kernel to the last line of
precord | pfilter | ptojson.  This process names itself pslatprobe, makes one getppid()
syscall at a time, far apart (the worst case for the stages' idle timers: nothing follows
to push the event out), and times the line that comes out for it.  Prints the median and
the worst latency in ms."""
import ctypes
import os
import select
import subprocess
import sys
import time

BIN = sys.argv[1]
PROBES = 12

libc = ctypes.CDLL(None, use_errno=True)
libc.prctl(15, b"pslatprobe", 0, 0, 0)  # PR_SET_NAME

cmd = (f"'{BIN}/precord' -q -a -e syscalls:sys_enter_getppid | "
       f"'{BIN}/pfilter' comm=pslatprobe | '{BIN}/ptojson' -F comm")
p = subprocess.Popen(cmd, shell=True, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                     start_new_session=True)
out = p.stdout.fileno()
lat = []
buf = b""
try:
    time.sleep(2.0)  # precord is recording by now
    for i in range(PROBES + 1):
        t0 = time.monotonic()
        os.getppid()
        got = False
        while time.monotonic() - t0 < 2.0:
            r, _, _ = select.select([out], [], [], 0.05)
            if r:
                chunk = os.read(out, 65536)
                if not chunk:
                    break
                buf += chunk
                if b"\n" in buf:
                    buf = buf[buf.rindex(b"\n") + 1:]
                    got = True
                    break
        if got and i > 0:  # the first probe warms the pipeline up
            lat.append((time.monotonic() - t0) * 1000)
        time.sleep(0.3)
finally:
    os.killpg(p.pid, 2)
    p.wait()
if len(lat) < PROBES // 2:
    sys.exit("too few probes came through: %d of %d" % (len(lat), PROBES))
lat.sort()
print("%.0f %.0f" % (lat[len(lat) // 2], lat[-1]))
