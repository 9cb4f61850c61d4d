# Writes a huge file (Python): tries to create files outside its sandbox first, then
# writes 64 MiB into its working folder or, when that is read-only, into /tmp.
import sys

for path in filter(None, "@OUTSIDE@".split("|")):
    try:
        with open(path, "ab") as out:
            out.write(b"escaped\n")
        print(f"outside {path}: WROTE", file=sys.stderr)
    except OSError as error:
        print(f"outside {path}: {error}", file=sys.stderr)

chunk = b"f" * (1 << 16)
for name in ("big-@MARKER@.out", "/tmp/big-@MARKER@.out"):
    try:
        out = open(name, "wb")
    except OSError as error:
        print(f"{name}: {error}", file=sys.stderr)
        continue
    print(f"writing {name}", file=sys.stderr)
    with out:
        for _ in range(1024):
            out.write(chunk)
            out.flush()
    print("wrote 64 MiB")
    sys.exit(0)
sys.exit(2)
