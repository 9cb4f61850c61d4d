# Prints terminal-hostile bytes on stderr (a right-to-left override too), then fails (exit 1).
import sys

sys.stderr.buffer.write(b"\xff\xfe invalid utf-8 nul>\0<nul\n"
                        b"\x1b[2J\x1b[1;31mred\x1b]0;pwned-title\x07 \xc2\x9b6n\r\b\b\n"
                        b"\xe2\x80\xaedesrever\n")
sys.exit(1)
