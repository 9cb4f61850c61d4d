"""Grade the example class through the grader itself (discover -> build ->
sandboxed run -> verdict -> store) and compare every verdict with the example's
expected.toml. A change of the reference, the cases, the comparison or the
sandbox that changes what students get shows up here first.
"""

import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from grader.cases.manifest import Case
from grader.course.config import CourseConfig
from grader.grading.session import Event, EventKind, execute, plan
from grader.intake.submissions import Submission, discover
from grader.judge.score import report
from grader.sandbox import make_sandbox
from grader.store import DB_NAME, Store
from testcases.errors import UsageError
from testcases.expected import FILE_NAME, Expected, differences, load_expected


@dataclass(frozen=True)
class Example:
    submission: Submission
    expected: Expected | None  # None: the folder declares nothing

    @property
    def id(self) -> str:
        return self.submission.id


@dataclass
class Outcome:
    """One example's verdicts, case id -> verdict, in manifest order."""

    example: Example
    verdicts: dict[str, str]
    diagnoses: dict[str, str]

    def problems(self) -> list[str]:
        if self.example.expected is None:
            return []
        return differences(self.example.id, self.example.expected, self.verdicts, self.diagnoses)


def find_examples(folder: Path, config: CourseConfig, cases: Sequence[Case]) -> list[Example]:
    """Every example folder, with its declaration (UsageError for a bad one)."""
    folder = Path(folder)
    if not folder.is_dir():
        raise UsageError(f"{folder}: not a folder of example submissions")
    case_ids = [case.id for case in cases]
    examples = [
        Example(sub, load_expected(sub.folder, case_ids)) for sub in discover(folder, config)
    ]
    if not examples:
        raise UsageError(f"{folder}: no example submissions in it")
    return examples


def grade_examples(
    examples: Sequence[Example],
    cases: Sequence[Case],
    config: CourseConfig,
    *,
    jobs: int = 1,
    warn: Callable[[str], None] = print,
    judged: Callable[[str], None] = lambda what: None,
) -> list[Outcome]:
    """Grade every example afresh, exactly as `grader grade` would, in a scratch
    results folder (nothing is cached between two verifications); `judged` is told of
    each case as it is judged ("example/case: verdict")."""
    sandbox = make_sandbox(config.sandbox, warn=warn)
    submissions = [example.submission for example in examples]
    with (
        tempfile.TemporaryDirectory(prefix="verify-examples-") as tmp,
        Store(Path(tmp) / DB_NAME) as store,
    ):
        work = plan(submissions, cases, store)

        def on_event(event: Event) -> None:
            if event.kind is EventKind.RUN and event.case is not None:
                judged(f"{event.submission.id}/{event.case.id}: {event.verdict}")

        execute(work, store, sandbox, config, Path(tmp) / "builds", jobs=jobs, on_event=on_event)
        outcomes = []
        for example in examples:
            row = store.submission(example.id)
            assert row is not None, "plan() recorded every example's submission"
            result = report(store, row, cases)
            verdicts = {o.case.id: o.verdict or "-" for o in result.outcomes}
            diagnoses = {o.case.id: o.run.diagnosis for o in result.outcomes if o.run}
            outcomes.append(Outcome(example, verdicts, diagnoses))
        return outcomes


def summary_line(outcome: Outcome) -> str:
    """E.g. "crash  AC:24 RTE:7  ok" for the report."""
    counts: dict[str, int] = {}
    for verdict in outcome.verdicts.values():
        counts[verdict] = counts.get(verdict, 0) + 1
    shown = " ".join(f"{v}:{n}" for v, n in sorted(counts.items(), key=lambda kv: -kv[1]))
    if outcome.example.expected is None:
        status = f"not checked (no {FILE_NAME})"
    else:
        status = (
            "as expected" if not outcome.problems() else f"{len(outcome.problems())} case(s) differ"
        )
    return (
        f"{outcome.example.id:<20} {outcome.example.submission.language_name:<7} "
        f"{shown:<24} {status}"
    )
