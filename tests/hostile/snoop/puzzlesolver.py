# Snoops (Python): tries to list or read every path in @PATHS@ and prints what it gets;
# on stderr one line per path: read, listed, missing or denied; then its environment.
import os
import sys

for key, value in os.environ.items():
    print(f"env\t{key}={value}", file=sys.stderr)
for path in "@PATHS@".split("|"):
    try:
        if os.path.isdir(path):
            names = os.listdir(path)
            print("\n".join(names))
            print(f"listed\t{path}\t{len(names)}", file=sys.stderr)
        else:
            with open(path, "rb") as f:
                data = f.read(4096)
            sys.stdout.buffer.write(data)
            print(f"read\t{path}\t{len(data)}", file=sys.stderr)
    except (FileNotFoundError, NotADirectoryError):
        print(f"missing\t{path}", file=sys.stderr)
    except PermissionError:
        print(f"denied\t{path}", file=sys.stderr)
    except OSError as error:
        print(f"{error}\t{path}", file=sys.stderr)
sys.stdout.flush()
sys.exit(3)
