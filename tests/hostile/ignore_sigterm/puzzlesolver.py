# Ignores SIGTERM, SIGHUP and SIGINT, forks a child that does the same, sleeps forever.
import os
import signal
import sys
import time

if len(sys.argv) < 3:
    os.execv(sys.executable, [sys.executable, *sys.argv, "@MARKER@"])
for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
    signal.signal(sig, signal.SIG_IGN)
os.fork()
while True:
    time.sleep(1)
