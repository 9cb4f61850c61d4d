# Endless sleeping loop (Python), re-executed once with a marker in its argv.
import os
import sys
import time

if len(sys.argv) < 3:
    os.execv(sys.executable, [sys.executable, *sys.argv, "@MARKER@"])
while True:
    time.sleep(1)
