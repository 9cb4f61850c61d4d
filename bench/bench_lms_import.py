#!/usr/bin/env python3
"""How long `grader import` takes on a large class, and how much a re-import touches.

    .venv/bin/python bench/bench_lms_import.py [--students N] [--files K]

Builds a Canvas download of N students with K files each (one source file, the
rest small text files; every tenth student LATE, every fifth re-uploaded as a
`-1` copy), then measures: the first import (CPU and wall time), a re-import of
the same download (nothing should be written), a re-import of a newer
download where 5% of the students resubmitted (only they should be written), and
reading every folder's metadata as `grade` and each export do (each checked against
the class's import record, which is read once).
Also reads a 256 MiB zip bomb's entry through the safe reader to show the cost of
refusing it.
"""

import argparse
import sys
import tempfile
import time
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from grader.course.submission_meta import read_meta  # noqa: E402
from grader.lms.importer import import_archive  # noqa: E402
from grader.lms.unpack import read_zip  # noqa: E402

SOURCES = frozenset({"puzzlesolver.c", "puzzlesolver.py"})


def download(path: Path, students: int, files: int, changed=frozenset()) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for i in range(students):
            uid = 10_000 + i
            late = "LATE_" if i % 10 == 0 else ""
            copy = "-1" if i % 5 == 0 else ""
            version = "v2" if i in changed else "v1"
            source = f"/* student {i} {version} */\nint main(void) {{ return 0; }}\n" * 40
            zf.writestr(f"student{i}_{late}{uid}_{i}_puzzlesolver{copy}.c", source)
            for k in range(files - 1):
                zf.writestr(f"student{i}_{late}{uid}_{i}{k}_notes{k}.txt", f"notes {k}\n" * 20)
    return path


def timed(label: str, action):
    cpu, wall = time.process_time(), time.perf_counter()
    result = action()
    print(
        f"{label:<44} {time.perf_counter() - wall:8.3f} s wall "
        f"{time.process_time() - cpu:8.3f} s CPU"
    )
    return result


def written(folder: Path, since: float) -> int:
    return sum(1 for p in folder.rglob("*") if p.is_file() and p.stat().st_mtime > since)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=400)
    parser.add_argument("--files", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        first = download(root / "v1.zip", args.students, args.files)
        changed = frozenset(range(0, args.students, 20))
        second = download(root / "v2.zip", args.students, args.files, changed)
        print(
            f"{args.students} students x {args.files} files; download "
            f"{first.stat().st_size / 1e6:.1f} MB"
        )
        into = root / "class"
        result = timed(
            "first import", lambda: import_archive("canvas", first, into, source_names=SOURCES)
        )
        print(f"  added {len(result.added)}, refused {len(result.refused)}")
        folders = [p for p in into.iterdir() if p.is_dir()]
        metas = timed("read every folder's metadata", lambda: [read_meta(p) for p in folders])
        print(f"  {sum(m is not None for m in metas)} of {len(folders)} recorded by the import")
        mark = time.time()
        time.sleep(0.01)
        result = timed(
            "same download again",
            lambda: import_archive("canvas", first, into, source_names=SOURCES),
        )
        print(f"  unchanged {len(result.unchanged)}, files written {written(into, mark)}")
        mark = time.time()
        time.sleep(0.01)
        result = timed(
            f"newer download ({len(changed)} resubmitted)",
            lambda: import_archive("canvas", second, into, source_names=SOURCES),
        )
        print(
            f"  updated {len(result.updated)}, unchanged {len(result.unchanged)}, "
            f"files written {written(into, mark)} (sources + metadata of the updated)"
        )
        bomb = root / "bomb.zip"
        with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as zf:
            with zf.open("s_1_1_puzzlesolver.c", "w", force_zip64=True) as entry:
                block = bytes(1 << 20)
                for _ in range(256):
                    entry.write(block)
        print(f"zip bomb: {bomb.stat().st_size / 1e6:.1f} MB packed, 256 MiB unpacked")
        result = timed("read the bomb (refused)", lambda: read_zip(bomb))
        print(f"  {result.refused[0].reason}")
        print(f"peak RSS {_peak_rss_mb():.0f} MB")


def _peak_rss_mb() -> float:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


if __name__ == "__main__":
    main()
