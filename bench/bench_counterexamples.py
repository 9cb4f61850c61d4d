"""How many failing hidden cases get a public puzzle that fails the same way, what the
probes cost, and what the proofs after grading cost (issues 25, 31, 32, 41).

    .venv/bin/python bench/bench_counterexamples.py [--jobs 2] [--runs 10] [CLASS ...]

Each class (default: the example class submissions/, the programs made for each
mistake, tests/mistakes/, and the algorithm mistakes of tests/mistake_variants.py in
every language, made into a scratch folder) is built once, then graded twice on the
real cases in the grading sandbox, each time into a scratch store: without probes
([counterexamples] runs = 0) and with them (runs = --runs: grader.grading.counterexamples.
choose_probes, run after the public cases and before the hidden ones). The difference
of the two wall times is what the probes cost a grading run. Then what `grade` does
after grading (grader.grading.proofs.explain: the relations, the counterfactual runs and the
search of the pool, the counterexamples) is timed on its own, against the grading with
probes. Prints, per class and per submission: failing hidden cases (CE and IE apart:
nothing ran), how many got a puzzle (a public case, a probe, or a puzzle the search
found), the pool runs, the findings, and the times.
"""

import argparse
import dataclasses
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from grader.build.builder import build  # noqa: E402
from grader.cases.manifest import default_manifest, load_cases  # noqa: E402
from grader.cases.pool import load_pool  # noqa: E402
from grader.course.config import CounterexamplesConfig, load_config  # noqa: E402
from grader.grading import counterexamples  # noqa: E402
from grader.grading.proofs import Proving, explain  # noqa: E402
from grader.grading.session import execute, plan  # noqa: E402
from grader.intake.submissions import discover  # noqa: E402
from grader.sandbox import make_sandbox  # noqa: E402
from grader.store import Store  # noqa: E402

CLASSES = (ROOT / "submissions", ROOT / "tests" / "mistakes")
NOTHING_RAN = ("CE", "IE")


def bench(klass: Path, runs: int, jobs: int) -> Counter:
    manifest = default_manifest()
    cases, pool = load_cases(manifest), load_pool(manifest)
    config = dataclasses.replace(load_config(), counterexamples=CounterexamplesConfig(runs))
    sandbox = make_sandbox("auto", warn=lambda message: None)
    submissions = discover(klass, config)
    total: Counter = Counter()
    probes = counterexamples.choose_probes(cases, pool, runs)
    with tempfile.TemporaryDirectory(prefix="bench-counterexamples-") as tmp:
        builds = Path(tmp) / "builds"
        for sub in submissions:  # built once: both gradings find the builds made
            build(sub, builds, sandbox, config.build_limits)
        with Store(Path(tmp) / "without.db") as store:
            began = time.monotonic()
            execute(plan(submissions, cases, store), store, sandbox, config, builds, jobs=jobs)
            graded = time.monotonic() - began
        with Store(Path(tmp) / "grader.db") as store:
            began = time.monotonic()
            work = plan(submissions, cases, store, probes=probes)
            execute(work, store, sandbox, config, builds, jobs=jobs)
            probed = time.monotonic() - began
            began = time.monotonic()
            proven = explain(
                store, submissions, cases, pool, config, Proving(sandbox, builds, jobs)
            )
            explained = time.monotonic() - began
            print(
                f"\n{klass.name}/: {len(submissions)} submissions, "
                f"{len(cases)} cases ({sum(not c.public for c in cases)} hidden), "
                f"{len(pool)} pool puzzles, {len(probes)} probes per submission"
            )
            print(
                f"  {'submission':<24} {'failing hidden':>14} {'found':>5} "
                f"{'public':>6} {'pool':>4} {'search':>6} {'pool runs':>9}   findings; none "
                "found because"
            )
            for sub in submissions:
                row, why = _submission(store, sub, cases)
                total.update(row)
                kinds = ",".join(f.kind for f in store.findings(sub.id, sub.content_hash))
                reasons = "; ".join(sorted(why))
                print(
                    f"  {sub.id:<24} {row['failing']:>14} {row['found']:>5} "
                    f"{row['public']:>6} {row['pool']:>4} {row['search']:>6} "
                    f"{row['probes']:>9}   {kinds or '-'}; {reasons}"
                )
    share = total["found"] / total["failing"] if total["failing"] else 0
    print(
        f"  {'all':<24} {total['failing']:>14} {total['found']:>5} {total['public']:>6} "
        f"{total['pool']:>4} {total['search']:>6} {total['probes']:>9}"
    )
    print(
        f"  found for {total['found']} of {total['failing']} failing hidden cases "
        f"({share:.0%}); {total['probes']} probes run"
    )
    print(f"  grading without probes: {graded:.1f} s wall; with them: {probed:.1f} s")
    print(f"  the probes cost {probed - graded:+.1f} s ({(probed - graded) / graded:+.0%})")
    print(
        f"  after grading: {explained:.1f} s ({proven.runs} proof runs, "
        f"{len(proven.properties)} properties proven, {len(proven.found)} puzzles found by "
        f"the search): {explained / probed:.1%} of the grading with probes"
    )
    return total


def _submission(store: Store, sub, cases) -> tuple[Counter, set[str]]:
    """A submission's figures, and why its failing hidden cases without a puzzle have none."""
    runs = store.runs(sub.id, sub.content_hash)
    found = store.counterexamples(sub.id, sub.content_hash)
    row: Counter = Counter()
    reasons = set()
    for case in cases:
        run = runs.get((case.id, case.version))
        if case.public or run is None or run.verdict == "AC" or run.verdict in NOTHING_RAN:
            continue
        row["failing"] += 1
        decided = found.get((case.id, case.version))
        if decided is not None and decided.found:
            row["found"] += 1
            row[decided.source] += 1
        else:
            reasons.add(decided.reason if decided is not None else "not searched")
    row["probes"] = len(store.pool_runs(sub.id, sub.content_hash))
    return row, reasons


def variants_class(into: Path) -> Path:
    """The algorithm mistakes of tests/mistake_variants.py, a folder each."""
    from tests.mistake_variants import ALGORITHM_VARIANTS, variant

    for mistake, language in ALGORITHM_VARIANTS:
        variant(mistake, language, into)
    return into


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("classes", nargs="*", type=Path, default=None)
    parser.add_argument("--runs", type=int, default=CounterexamplesConfig.runs)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-variants-") as tmp:
        classes = args.classes or [*CLASSES, variants_class(Path(tmp) / "variants")]
        for klass in classes:
            bench(klass.resolve(), args.runs, args.jobs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
