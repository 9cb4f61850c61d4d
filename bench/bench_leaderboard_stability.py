"""Leaderboard stability: two sessions back to back on the shipped example class.

    .venv/bin/python bench/bench_leaderboard_stability.py [--runs 7]

Grades submissions/ into a temporary results folder, runs `grader leaderboard`
twice (the second with --force-remeasure), and prints for every program its rank
and CPU-time median in both sessions, the change, the machine's drift (the median
change over every measured program, start-up programs included), and whether any
pair of programs swapped order (ties may come and go; a reversal may not).
"""

import argparse
import itertools
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def grader(*args: str) -> None:
    subprocess.run(
        [sys.executable, "-m", "grader", *args],
        cwd=ROOT,
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def session(course: Path, results: Path, *extra: str) -> dict:
    grader("--course", str(course), "leaderboard", "--results", str(results), *extra)
    return json.loads((results / "leaderboard.json").read_text())


def medians(doc: dict) -> dict:
    found = {e["id"]: (e["rank"], e["cpu_median_s"]) for e in doc["ranked"]}
    found.update(
        {
            "startup/" + s["language"]: (None, s["cpu_median_s"])
            for s in doc["startup"]
            if s["available"]
        }
    )
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        course = Path(tmp) / "course.toml"
        text = (ROOT / "course.toml").read_text()
        course.write_text(text.replace("runs = 7 ", f"runs = {args.runs} "))
        results = Path(tmp) / "results"
        grader("--course", str(course), "grade", "submissions", "--results", str(results))
        first = medians(session(course, results))
        second = medians(session(course, results, "--force-remeasure"))
    change = {name: second[name][1] / first[name][1] for name in first}
    drift = statistics.median(change.values())
    print(
        f"{'program':<16} {'rank':>9} {'CPU median 1 -> 2 (ms)':>26} {'change':>8} "
        f"{'beyond drift':>13}"
    )
    for name in first:
        ranks = f"{first[name][0]} -> {second[name][0]}" if first[name][0] else "-"
        print(
            f"{name:<16} {ranks:>9} {1000 * first[name][1]:>11.2f} -> "
            f"{1000 * second[name][1]:<11.2f} {100 * (change[name] - 1):+7.1f}% "
            f"{100 * (change[name] / drift - 1):+12.1f}%"
        )
    print(f"machine drift (median change): {100 * (drift - 1):+.1f}%")
    ranked = [n for n in first if first[n][0]]
    swaps = [
        (a, b)
        for a, b in itertools.permutations(ranked, 2)
        if first[a][0] < first[b][0] and second[a][0] > second[b][0]
    ]
    print("contradicting pairs:", swaps or "none")


if __name__ == "__main__":
    main()
