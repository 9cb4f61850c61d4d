# Prints terminal-hostile bytes (Python) on stdout and stderr and exits 0.
import sys

GARBAGE = (b"\xff\xfe\xc3\x28 invalid utf-8\n" b"nul>\0<nul\n"
           b"\x1b[2J\x1b[1;31mred\x1b[0m \x1b]0;pwned-title\x07 \xc2\x9b6n \x9b\n"
           b"all good\rALL FAKE\b\b\b\b\n" b"\xe2\x80\xaedesrever\n")
sys.stdout.buffer.write(GARBAGE)
sys.stdout.flush()
sys.stderr.buffer.write(GARBAGE)
