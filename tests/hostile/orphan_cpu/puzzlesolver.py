# CPU time hidden in a child nobody waits for (os.fork): the child burns 300 ms of CPU
# (or sys.argv[2] ms), writes its line and closes a pipe; the parent waits only for
# EOF on the pipe and exits at once, without os.wait().
import os
import sys
import time

ms = int(sys.argv[2]) if len(sys.argv) > 2 else 300
readable, writable = os.pipe()
if os.fork() == 0:
    os.close(readable)
    while time.process_time() * 1000 < ms:
        pass
    print(f"child burnt {ms} ms", flush=True)
    os.close(writable)
    os._exit(0)
os.close(writable)
while os.read(readable, 1):
    pass
