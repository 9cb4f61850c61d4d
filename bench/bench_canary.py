"""What blame by evidence costs a grading run: the canaries (grader/judge/canary.py).

    .venv/bin/python bench/bench_canary.py [--rounds 3]

Prints, for each language, the time of one canary check (its build under the build
limits, then its run under the run limits: what the first failure of that language in
a grading process costs), the proof of course.toml's limits at the start of `grade`
(every language of the example class), and a full `grade` of the example class into a
fresh results folder, in the same run: the share of the grade the canaries take.
"""

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from grader.course.config import load_config  # noqa: E402
from grader.judge.canary import Canaries, limits_refusal  # noqa: E402
from grader.sandbox import make_sandbox  # noqa: E402

LANGUAGES = ("c", "cpp", "java", "python")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    config = load_config()
    box = make_sandbox("auto")
    puzzle = ROOT / "testcases" / "public" / "sample.txt"
    checks: dict[str, list[float]] = {name: [] for name in LANGUAGES}
    proofs, grades = [], []
    for _ in range(args.rounds):
        with tempfile.TemporaryDirectory() as tmp:
            canaries = Canaries(box, config.build_limits, config.limits, Path(tmp) / "c", puzzle)
            for name in LANGUAGES:
                start = time.perf_counter()
                health = canaries.health(config.languages[name])
                checks[name].append(time.perf_counter() - start)
                assert health.ok, health.problem
            canaries.close()
            start = time.perf_counter()
            specs = [config.languages[name] for name in LANGUAGES]
            refusal = limits_refusal(
                box, config.build_limits, config.limits, specs, Path(tmp) / "p", puzzle
            )
            proofs.append(time.perf_counter() - start)
            assert refusal is None, refusal
            start = time.perf_counter()
            subprocess.run(
                [sys.executable, "-m", "grader", "grade", "submissions", "--results", tmp],
                cwd=ROOT,
                check=True,
                capture_output=True,
            )
            grades.append(time.perf_counter() - start)
    print(f"sandbox: {box.name}; {args.rounds} rounds; medians")
    for name in LANGUAGES:
        print(f"  canary check, {name:<6}  {statistics.median(checks[name]):6.2f} s")
    proof, grade = statistics.median(proofs), statistics.median(grades)
    print(f"  limits proof, 4 languages  {proof:6.2f} s")
    print(f"  grade of the example class (proof and canaries included)  {grade:6.2f} s")
    print(f"  the proof's share of that grade  {proof / grade:.1%}")


if __name__ == "__main__":
    main()
