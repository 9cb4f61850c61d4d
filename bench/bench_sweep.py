"""What the rlimits fallback's sweep costs a run on a machine full of world-writable
folders (a web application's data folder: Moodle makes hundreds).

    sudo .venv/bin/python bench/bench_sweep.py [--runs 60] [--folders 500] [--files 200]

As root (the fallback sweeps only behind a sandbox uid), without cgroups (as in
Gradescope's container). It times the sandbox's overhead on a tiny C program (sandboxed
minus bare, alternating, median) three ways: on the machine as it is; with --folders
more world-writable folders of --files files each; and with those folders but no watch
(every place listed after every run, as the sweep did before it kept a watch). It
prints the start-up scan's own cost each time (once per grader process) and the
ratio of the crowded overhead to the plain one.
"""

import argparse
import dataclasses
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.bench_sandbox import bare, boxed, compile_tiny  # noqa: E402
from grader.sandbox import RlimitSandbox  # noqa: E402
from grader.sandbox.writable import writable_places  # noqa: E402


def crowd(root: Path, folders: int, files: int) -> None:
    for number in range(folders):
        folder = root / f"shared-{number}"
        folder.mkdir()
        for name in range(files):
            (folder / f"f{name}").write_bytes(b"")
        folder.chmod(0o1777)


def overhead(box: RlimitSandbox, folder: Path, runs: int) -> float:
    """Median of (sandboxed - bare) over `runs` alternating pairs, in ms."""
    boxed(box, folder)  # the first run pays for what is made once
    pairs = [boxed(box, folder) - bare(folder) for _ in range(runs)]
    return statistics.median(pairs) * 1000


def fresh(watch: bool) -> tuple[RlimitSandbox, float]:
    """A fallback as a new grader process makes it (the scan included), and the scan's
    seconds."""
    writable_places.cache_clear()
    began = time.perf_counter()
    places = writable_places()
    scanned = time.perf_counter() - began
    box = RlimitSandbox(cgroups=False)
    if not watch:
        box.places = dataclasses.replace(places, watch=None)
    return box, scanned


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=60)
    parser.add_argument("--folders", type=int, default=500)
    parser.add_argument("--files", type=int, default=200)
    args = parser.parse_args()
    if os.geteuid() != 0:
        print("run as root: the fallback sweeps only behind a sandbox uid")
        return 2
    with tempfile.TemporaryDirectory(prefix="bench-sweep-") as tmp:
        work, many = Path(tmp) / "work", Path(tmp) / "crowd"
        work.mkdir()
        many.mkdir()
        os.chmod(tmp, 0o755)
        compile_tiny(work)
        os.chmod(work, 0o755)
        figures = {}
        box, scan = fresh(watch=True)
        places = len(box.places.folders) + len(box.places.files)
        figures["plain"] = overhead(box, work, args.runs)
        print(f"the machine as it is: {places} world-writable places, scan {scan * 1000:.0f} ms")
        print(f"  overhead median {figures['plain']:.2f} ms ({args.runs} runs)")
        crowd(many, args.folders, args.files)
        box, scan = fresh(watch=True)
        places = len(box.places.folders) + len(box.places.files)
        figures["crowded"] = overhead(box, work, args.runs)
        print(
            f"with {args.folders} more world-writable folders of {args.files} files: "
            f"{places} places, scan {scan * 1000:.0f} ms"
        )
        print(f"  overhead median {figures['crowded']:.2f} ms (watched)")
        box, _ = fresh(watch=False)
        figures["unwatched"] = overhead(box, work, args.runs)
        print(f"  overhead median {figures['unwatched']:.2f} ms (no watch: every place, every run)")
        ratio = figures["crowded"] / figures["plain"]
        print(f"crowded / plain: {ratio:.2f}x (bar: 1.3x, and at most 3 ms)")
        shutil.rmtree(many, ignore_errors=True)
    writable_places.cache_clear()
    return 0


if __name__ == "__main__":
    sys.exit(main())
