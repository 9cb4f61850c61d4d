# Error-output flood (Python): 4 GiB to stderr unless stopped.
import sys

chunk = b"e" * (1 << 16)
for _ in range(65536):
    sys.stderr.buffer.write(chunk)
