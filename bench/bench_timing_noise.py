"""How noisy CPU time is next to wall time, for one C program on one timed case.

    .venv/bin/python bench/bench_timing_noise.py [--runs 30] [--case timed-3-letters-a]
                                                 [--submission submissions/ada-c]

Builds the submission (in a temporary build cache) and runs it `runs` times
through the grading sandbox exactly as the leaderboard does (same run command
and limits, one run at a time, after one warm-up), twice: pinned to one core
and not pinned. Prints, for CPU time and for wall time, the median, the
relative MAD (MAD / median), min and max relative to the median, and the
number of outliers (the leaderboard's rule: more than 3 x 1.4826 MAD from the
median). The load average is printed too: the other cores' work shows in wall
time far more than in CPU time, which is why the leaderboard ranks CPU time.
"""

import argparse
import contextlib
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from grader.build.builder import build  # noqa: E402
from grader.cases.manifest import load_cases  # noqa: E402
from grader.course.config import load_config  # noqa: E402
from grader.intake.submissions import load  # noqa: E402
from grader.judge.judging import command  # noqa: E402
from grader.sandbox import make_sandbox  # noqa: E402
from grader.statistics.timing import RESOLUTION_S, one_core, summarize  # noqa: E402


def measure(program, spec, case, sandbox, limits, runs):
    argv = command(spec, limits)
    sandbox.run(argv, program, limits, input_file=case.input, memory_rlimit=spec.memory_rlimit)
    cpu, wall = [], []
    for _ in range(runs):
        result = sandbox.run(
            argv, program, limits, input_file=case.input, memory_rlimit=spec.memory_rlimit
        )
        if result.error or result.exit_code != 0:
            raise SystemExit(f"run failed: {result.error or result.stderr[-300:]!r}")
        cpu.append(result.cpu_seconds)
        wall.append(result.wall_seconds)
    return summarize(cpu), summarize(wall)


def line(label, s):
    return (
        f"  {label:<5} median {s.median * 1000:8.2f} ms   rel. MAD {100 * s.relative_mad:5.1f}%"
        f"   min {100 * (s.minimum / s.median - 1):+6.1f}%   max "
        f"{100 * (s.maximum / s.median - 1):+7.1f}%   outliers {len(s.outliers)}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--case", default="timed-3-letters-a")
    parser.add_argument("--submission", type=Path, default=ROOT / "submissions" / "ada-c")
    args = parser.parse_args()
    config = load_config()
    cases = {c.id: c for c in load_cases()}
    if args.case not in cases:
        raise SystemExit(f"no case {args.case!r} in the manifest")
    sub = load(args.submission, config)
    if sub.problem:
        raise SystemExit(f"{args.submission}: {sub.problem}")
    sandbox = make_sandbox(config.sandbox)
    with tempfile.TemporaryDirectory(prefix="bench-noise-") as tmp:
        artifact = build(sub, Path(tmp), sandbox, config.build_limits)
        if not artifact.ok:
            raise SystemExit(f"build failed: {artifact.log}")
        print(
            f"{sub.id} ({sub.language.name}) on {args.case}, {args.runs} runs each, "
            f"sandbox {sandbox.name}, {os.cpu_count()} cores, load average "
            f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}"
        )
        medians = []
        for label, pin in (("pinned to one core", one_core), ("not pinned", _unpinned)):
            with pin() as core:
                cpu, wall = measure(
                    artifact.folder,
                    sub.language,
                    cases[args.case],
                    sandbox,
                    config.limits,
                    args.runs,
                )
            where = f" (core {core})" if core is not None else ""
            print(f"{label}{where}:")
            print(line("CPU", cpu))
            print(line("wall", wall))
            medians.append(cpu.median)
        print(
            f"(medians rank apart only beyond {RESOLUTION_S * 1000:g} ms: "
            f"{100 * RESOLUTION_S / medians[0]:.1f}% of the pinned CPU median)"
        )
    return 0


@contextlib.contextmanager
def _unpinned():
    yield None


if __name__ == "__main__":
    sys.exit(main())
