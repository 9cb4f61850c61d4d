"""Print the mutation score of the last `mutmut run`: killed mutants / all mutants,
per mutated file and overall, read from mutmut's result files (mutants/**/*.meta).

A mutant counts as killed when a test failed on it (exit code 1 or 3), or when it
made the tests time out or crash (the mutation was noticed). Every other outcome,
including "no tests" (no test even runs the mutated code) and "not checked" (the run
was interrupted), counts against the score; the not-checked ones are listed, so a
partial run is never mistaken for a finished one.

Usage: python bench/mutation_score.py [--min PERCENT] [--survivors]
Exit status 1 when the overall score is below --min.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

KILLED = {1, 3}  # a test failed (3: pytest's internal error, also a failure)
NOTICED = {36, -24, 24, 152, 255, -11, -9}  # timeout (SIGXCPU etc.) or a crash


def outcome(exit_code: int | None) -> str:
    if exit_code is None:
        return "not checked"
    if exit_code in KILLED or exit_code in NOTICED:
        return "killed"
    if exit_code == 0:
        return "survived"
    if exit_code in (5, 33):
        return "no tests"
    return "other"


def results(root: Path) -> Iterator[tuple[str, str, str]]:
    """(source file, mutant name, outcome) of every mutant mutmut recorded."""
    for meta in sorted(root.glob("**/*.py.meta")):
        source = meta.relative_to(root).as_posix()[: -len(".meta")]
        data = json.loads(meta.read_text())
        for name, exit_code in sorted(data.get("exit_code_by_key", {}).items()):
            yield source, name, outcome(exit_code)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--mutants",
        type=Path,
        default=Path("mutants"),
        help="mutmut's work folder (default: mutants)",
    )
    parser.add_argument(
        "--min",
        type=float,
        default=None,
        metavar="PERCENT",
        help="fail (exit 1) when the overall score is below this",
    )
    parser.add_argument("--survivors", action="store_true", help="list the surviving mutants")
    args = parser.parse_args(argv)
    rows = list(results(args.mutants))
    if not rows:
        print(f"no mutmut results under {args.mutants}/: run `mutmut run` first", file=sys.stderr)
        return 1
    per_file: dict[str, Counter] = {}
    for source, _, state in rows:
        per_file.setdefault(source, Counter())[state] += 1
    total = Counter()
    print(f"{'file':<30} {'killed':>7} {'total':>6} {'score':>7}  other outcomes")
    for source, counts in sorted(per_file.items()):
        total.update(counts)
        print(_line(source, counts))
    print(_line("overall", total))
    if args.survivors:
        for _source, name, state in rows:
            if state != "killed":
                print(f"  {state:<12} {name}")
    score = 100 * total["killed"] / sum(total.values())
    if args.min is not None and score < args.min:
        print(f"mutation score {score:.1f}% is below the required {args.min:g}%", file=sys.stderr)
        return 1
    return 0


def _line(name: str, counts: Counter) -> str:
    all_ = sum(counts.values())
    rest = ", ".join(f"{n} {state}" for state, n in sorted(counts.items()) if state != "killed")
    return (
        f"{name:<30} {counts['killed']:>7} {all_:>6} {100 * counts['killed'] / all_:>6.1f}%  {rest}"
    )


if __name__ == "__main__":
    sys.exit(main())
