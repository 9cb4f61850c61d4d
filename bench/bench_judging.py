"""What judging a pathological output costs the grader: CPU seconds and peak memory.

    .venv/bin/python bench/bench_judging.py [--cap-mb 8] [--shape NAME]

Each shape is an output just under the course's stdout cap (8 MB by default), judged
against the hand-out's sample case exactly as a run's output is (grader.judge.judging.judge:
comparison and diagnosis).  Every shape runs in a fresh process so that its peak memory
(ru_maxrss growth while judging) is its own.  Goal (issue 11): at most about 1 s of CPU
and 100 MB per judgement.
"""

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

SAMPLE = ROOT / "testcases" / "public" / "sample.txt"
EXPECTED = ROOT / "testcases" / "public" / "sample.out"


def shapes(cap: int) -> dict:
    """name -> a function making an output of about `cap` bytes."""
    expected = EXPECTED.read_bytes()
    board = expected[expected.index(b"+") :]
    board = board[: board.index(b"\n\n") + 2] if b"\n\n" in board else board + b"\n"
    head = expected[: expected.index(b"+")]
    return {
        "short lines (4M x 'x')": lambda: b"x\n" * (cap // 2),
        "empty lines": lambda: b"\n" * cap,
        "one long line": lambda: b"x" * cap,
        "spaces only": lambda: b" " * cap,
        "many words": lambda: b"ab " * (cap // 3),
        "count lines": lambda: b"1 unique solution found:\n" * (cap // 25),
        "cell lines (|)": lambda: b"|\n" * (cap // 2),
        "separators": lambda: b"+--+\n" * (cap // 5),
        "one board, repeated": lambda: head + board * ((cap - len(head)) // len(board)),
        "expected then junk": lambda: expected + b"x\n" * ((cap - len(expected)) // 2),
        "CRLF short lines": lambda: b"x\r\n" * (cap // 3),
        "expected then empty lines": lambda: expected + b"\n" * (cap - len(expected)),
        "expected then spaces": lambda: expected + b" \n" * ((cap - len(expected)) // 2),
        "empty lines then expected": lambda: b"\n" * (cap - len(expected)) + expected,
        "NUL bytes": lambda: b"\0" * cap,
        "not UTF-8": lambda: b"\xff\n" * (cap // 2),
    }


def measure(name: str, cap: int) -> dict:
    """In this process: build the output, then judge it once."""
    from grader.cases.manifest import Case
    from grader.core.model import Limits, RunResult
    from grader.judge.judging import judge

    output = shapes(cap)[name]()
    case = Case(
        id="sample",
        input=SAMPLE,
        expected=EXPECTED,
        visibility="public",
        weight=1,
        timed=False,
        policy=(),
        tags=(),
        version="v",
    )
    result = RunResult(0, None, 0.01, 0.01, 1000, output, b"", len(output), sandbox="bench")
    expected, puzzle = EXPECTED.read_bytes(), SAMPLE.read_bytes()
    before_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    cpu = time.process_time()
    judgement = judge(result, case, expected, puzzle, Limits(stdout_bytes=cap))
    cpu = time.process_time() - cpu
    grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before_rss
    return {
        "shape": name,
        "bytes": len(output),
        "cpu_s": round(cpu, 3),
        "peak_growth_mb": round(grown / 1024, 1),
        "verdict": str(judgement.verdict),
        "diagnosis_chars": len(judgement.diagnosis),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cap-mb", type=float, default=8.0)
    parser.add_argument("--shape", help="measure one shape, in this process (internal)")
    args = parser.parse_args()
    cap = int(args.cap_mb * (1 << 20))
    if args.shape:
        print(json.dumps(measure(args.shape, cap)))
        return 0
    print(f"{'shape':<26} {'MB':>6} {'CPU s':>7} {'peak +MB':>9}  verdict")
    worst_cpu = worst_mem = 0.0
    for name in shapes(cap):
        done = subprocess.run(
            [sys.executable, __file__, "--cap-mb", str(args.cap_mb), "--shape", name],
            capture_output=True,
            text=True,
        )
        if done.returncode != 0:
            print(f"{name:<26} failed: {done.stderr.strip().splitlines()[-1:]}")
            continue
        row = json.loads(done.stdout)
        worst_cpu, worst_mem = max(worst_cpu, row["cpu_s"]), max(worst_mem, row["peak_growth_mb"])
        print(
            f"{name:<26} {row['bytes'] / (1 << 20):6.1f} {row['cpu_s']:7.3f} "
            f"{row['peak_growth_mb']:9.1f}  {row['verdict']}"
        )
    print(f"\nworst: {worst_cpu:.3f} s CPU, {worst_mem:.1f} MB (goal: about 1 s and 100 MB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
