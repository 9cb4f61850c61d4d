# Endless busy loop (Python), re-executed once with a marker in its argv.
import os
import sys

if len(sys.argv) < 3:
    os.execv(sys.executable, [sys.executable, *sys.argv, "@MARKER@"])
spins = 0
while True:
    spins += 1
