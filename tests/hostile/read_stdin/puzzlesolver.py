# Reads standard input to its end (Python), line by line as input() would, then says
# how much it got.
import sys

lines = []
try:
    while True:
        lines.append(input())
except EOFError:
    pass
print(f"stdin: {sum(len(line) for line in lines)} bytes")
