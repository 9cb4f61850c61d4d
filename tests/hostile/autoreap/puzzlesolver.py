"""CPU time hidden in children the kernel reaps itself (see puzzlesolver.c beside
this): SIGCHLD ignored, then child after child burns 20 ms of CPU; the parent waits
for each to close its pipe, never with wait().
@MARKER@"""

import os
import signal
import sys
import time

total = int(sys.argv[2]) if len(sys.argv) > 2 else 15000
try:
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)
except OSError as exc:
    print(f"sigaction refused: {exc}", file=sys.stderr)


def burn(ms):
    start = time.thread_time()
    while time.thread_time() - start < ms / 1000:
        pass


children = 0
for burnt in range(20, total + 20, 20):
    readable, writable = os.pipe()
    try:
        pid = os.fork()
    except OSError:
        pid = -1
    if pid == 0:
        os.close(readable)
        burn(20)
        os._exit(0)
    os.close(writable)
    if pid < 0:
        burn(20)
    else:
        children += 1
    while os.read(readable, 1):  # until the child is gone: never wait()
        pass
    os.close(readable)
    print(f"burnt {burnt}", flush=True)  # what the grader must count, at least
print(f"burnt {total} ms in {children} children")
