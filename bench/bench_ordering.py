"""What the grading order costs: every visible run of the class ends before any hidden
run starts (grader.grading.session's rule) against the order before it (each submission's own
hidden runs right after its own visible ones), on the example class and on a class of
60 (five copies of it, each copy another content).

    .venv/bin/python bench/bench_ordering.py [--jobs 2] [--rounds 2]

Each grading starts from an empty store with the builds made (so both orders run the
same programs); the two orders alternate, and the medians are compared in one run.
"""

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from grader.build.builder import build  # noqa: E402
from grader.cases.manifest import default_manifest, load_cases  # noqa: E402
from grader.cases.pool import load_pool  # noqa: E402
from grader.course.config import load_config  # noqa: E402
from grader.grading import counterexamples  # noqa: E402
from grader.grading import session as grading  # noqa: E402
from grader.grading.session import ThreadExecutor, plan  # noqa: E402
from grader.intake.submissions import discover  # noqa: E402
from grader.sandbox import make_sandbox  # noqa: E402
from grader.store import Store  # noqa: E402


def per_submission(self, phases=None):
    """The order before the rule: a submission's hidden runs start with its own
    visible phase's end."""
    self.visible_left -= 1
    return [phases] if phases is not None else []


def class_of(copies: int, into: Path) -> Path:
    for copy in range(copies):
        for folder in (ROOT / "submissions").iterdir():
            target = into / f"{folder.name}-{copy}"
            shutil.copytree(folder, target)
            for source in target.iterdir():  # another content per copy
                if source.suffix in (".c", ".cpp", ".java", ".py"):
                    source.write_text(source.read_text() + f"\n// copy {copy}\n" * (copy > 0))
    return into


def grade(klass: Path, work: Path, jobs: int, ordered: bool) -> float:
    config = load_config()
    manifest = default_manifest()
    cases, pool = load_cases(manifest), load_pool(manifest)
    probes = counterexamples.choose_probes(cases, pool, config.counterexamples.runs)
    submissions = discover(klass, config)
    sandbox = make_sandbox("auto", warn=lambda message: None)
    builds = work / "builds"
    for sub in submissions:
        build(sub, builds, sandbox, config.build_limits)
    original = grading._Session.visible_ended
    if not ordered:
        grading._Session.visible_ended = per_submission  # type: ignore[method-assign]
    try:
        db = work / f"{time.monotonic_ns()}.db"
        with Store(db) as store:
            started = time.monotonic()
            grading.grade(
                plan(submissions, cases, store, probes=probes),
                store,
                ThreadExecutor(sandbox, config, builds, jobs),
            )
            return time.monotonic() - started
    finally:
        grading._Session.visible_ended = original  # type: ignore[method-assign]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-ordering-") as tmp:
        for copies in (1, 5):
            klass = class_of(copies, Path(tmp) / f"class-{copies}")
            times: dict[bool, list[float]] = {True: [], False: []}
            for _ in range(args.rounds):
                for ordered in (False, True):
                    times[ordered].append(grade(klass, Path(tmp), args.jobs, ordered))
            before, after = statistics.median(times[False]), statistics.median(times[True])
            print(
                f"{12 * copies} submissions, --jobs {args.jobs}: hidden runs right after the "
                f"submission's own visible ones {before:.1f} s; every visible run of the class "
                f"first {after:.1f} s; ratio {after / before:.3f}",
                flush=True,
            )


if __name__ == "__main__":
    main()
