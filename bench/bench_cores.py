"""Do this machine's cores time alike? The leaderboard's per-core calibration, and real
timed runs of the shipped programs on each core, compared by the leaderboard's own rule.

    .venv/bin/python bench/bench_cores.py [--runs 15]

1. The calibration `grader leaderboard` makes before a session (grader.leaderboard.
   cores: the same reference work on each core, the cores taking turns), its figures
   and which cores it keeps.
2. For the C and Python example programs: `--runs` timed runs on each core, the cores
   taking turns, each run in the grading sandbox from the build `grade` makes, the
   thread pinned to the core as the leaderboard pins it. Per core: the median CPU time,
   its MAD; per program: the slowest core's median over the fastest's, and the rank
   test's p-value between them. The difference is inside the noise when the ratio is
   within the noise floor (3%) or the test cannot tell the cores apart (p >= 0.05).
"""

import argparse
import functools
import os
import shutil
import sys
import tempfile
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from grader.build.builder import build  # noqa: E402
from grader.cases.manifest import load_cases  # noqa: E402
from grader.course.config import load_config  # noqa: E402
from grader.grading.timed_runs import Program, timed_run  # noqa: E402
from grader.intake.submissions import load  # noqa: E402
from grader.leaderboard.cores import allowed_cores, calibrate  # noqa: E402
from grader.sandbox import make_sandbox  # noqa: E402
from grader.statistics.timing import mad, median  # noqa: E402

PROGRAMS = ("ada-c", "guido-py")
CASE = "timed-3-letters-a"


def on_core(core: int, job):
    """job() in a thread pinned to core, as the leaderboard's timing threads are."""
    found = []

    def pinned():
        os.sched_setaffinity(0, {core})
        found.append(job())

    thread = threading.Thread(target=pinned)
    thread.start()
    thread.join()
    return found[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    cores = allowed_cores()
    if len(cores) < 2:
        sys.exit("this machine lets the grader use fewer than 2 cores: nothing to compare")
    config = load_config()
    board = config.leaderboard
    calibration = calibrate(cores, board.rule)
    print("calibration (reference work, median of 7 turns):")
    for core, seconds in sorted(calibration.seconds.items()):
        kept = "kept" if core in calibration.used else "LEFT OUT"
        print(f"  core {core}: {seconds * 1000:.2f} ms  {kept}")
    sandbox = make_sandbox(config.sandbox)
    [case] = [c for c in load_cases(ROOT / "testcases" / "manifest.json") if c.id == CASE]
    with tempfile.TemporaryDirectory(prefix="bench-cores-") as tmp:
        print(f"\ntimed runs on {CASE}, {args.runs} per core, the cores taking turns:")
        for name in PROGRAMS:
            shutil.copytree(ROOT / "submissions" / name, Path(tmp) / name)
            sub = load(Path(tmp) / name, config)
            made = build(sub, Path(tmp) / "builds", sandbox, config.build_limits)
            assert made.ok, made.log
            assert sub.language is not None
            program = Program(sub.id, sub.language, sub.content_hash, made.folder)
            run = functools.partial(timed_run, program, case, sandbox, config)
            on_core(cores[0], run)  # warm-up
            found: dict[int, list[float]] = {core: [] for core in cores}
            for _ in range(args.runs):
                for core in cores:
                    _, result = on_core(core, run)
                    found[core].append(result.cpu_seconds)
            middle = {core: median(values) for core, values in found.items()}
            fast = min(middle, key=lambda core: middle[core])
            slow = max(middle, key=lambda core: middle[core])
            ratio = middle[slow] / middle[fast]
            p = board.rule.test.p_value(found[fast], found[slow])
            for core in cores:
                print(
                    f"  {name:9s} core {core}: median {middle[core] * 1000:8.2f} ms, "
                    f"MAD {mad(found[core]) * 1000:6.2f} ms"
                )
            inside = ratio <= 1 + board.noise_floor or p >= board.alpha
            print(
                f"  {name:9s} slowest core / fastest: {ratio:.3f}, p = {p:.3f}: "
                + (
                    "inside the noise"
                    if inside
                    else "OUTSIDE the noise: the calibration must leave a core out"
                )
            )


if __name__ == "__main__":
    main()
