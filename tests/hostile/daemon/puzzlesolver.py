# Leaves processes behind (Python): a double-forked setsid daemon ignoring SIGTERM and
# SIGHUP, and a nohup'ed shell loop in a new session; then exits at once.
import os
import signal
import subprocess
import sys
import time

if len(sys.argv) < 3:
    os.execv(sys.executable, [sys.executable, *sys.argv, "@MARKER@"])
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        signal.signal(signal.SIGHUP, signal.SIG_IGN)
        while True:
            time.sleep(1)
    os._exit(0)
subprocess.Popen(["nohup", "sh", "-c", "while :; do sleep 1; done", "@MARKER@"],
                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
print("started")
