# Output flood (Python): 4 GiB to stdout unless stopped.
import sys

chunk = b"x" * (1 << 16)
for _ in range(65536):
    sys.stdout.buffer.write(chunk)
