"""How long grading the shipped example class takes, and how it scales with --jobs.

    .venv/bin/python bench/bench_grading.py [--jobs 1 2]

Each run starts from an empty results folder (builds included, nothing cached).
Prints wall time per job count and the speed-up over --jobs 1.
"""

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def grade(jobs: int, folder: Path) -> float:
    start = time.perf_counter()
    subprocess.run(
        [
            sys.executable,
            "-m",
            "grader",
            "grade",
            "submissions",
            "--results",
            str(folder),
            "--jobs",
            str(jobs),
        ],
        cwd=ROOT,
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, nargs="+", default=[1, 2])
    args = parser.parse_args()
    times = {}
    for jobs in args.jobs:
        with tempfile.TemporaryDirectory() as tmp:
            times[jobs] = grade(jobs, Path(tmp) / "results")
        print(f"--jobs {jobs}: {times[jobs]:6.1f} s wall", flush=True)
    base = times[args.jobs[0]]
    for jobs, seconds in times.items():
        print(f"speed-up with --jobs {jobs}: {base / seconds:.2f}x")


if __name__ == "__main__":
    main()
