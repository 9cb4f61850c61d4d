"""Scores: per-case weights from the manifest, summed per submission."""

from collections import Counter
from dataclasses import dataclass, field
from typing import List, Optional, Sequence, Tuple

from grader.cases import Case
from grader.store import BuildRow, RunRow, Store, SubmissionRow


@dataclass(frozen=True)
class CaseOutcome:
    case: Case
    run: Optional[RunRow]  # None: not graded (yet)

    @property
    def verdict(self) -> Optional[str]:
        return self.run.verdict if self.run else None


@dataclass(frozen=True)
class SubmissionReport:
    submission: SubmissionRow
    build: Optional[BuildRow]
    outcomes: List[CaseOutcome]
    files_used: List[str] = field(default_factory=list)  # shown names, main file first
    files_ignored: List[Tuple[str, str]] = field(default_factory=list)  # (name, why)

    @property
    def score(self) -> float:
        return sum(o.case.weight for o in self.outcomes if o.verdict == "AC")

    @property
    def max_score(self) -> float:
        return sum(o.case.weight for o in self.outcomes)

    @property
    def verdict_counts(self) -> Counter:
        return Counter(o.verdict or "-" for o in self.outcomes)

    @property
    def complete(self) -> bool:
        return all(o.run is not None for o in self.outcomes)

    @property
    def all_accepted(self) -> bool:
        return bool(self.outcomes) and all(o.verdict == "AC" for o in self.outcomes)

    @property
    def build_status(self) -> str:
        sub = self.submission
        if sub.problem:
            return "CE: " + sub.problem
        if self.build is None:
            return "not built"
        if not self.build.ok:
            first = self.build.log.strip().splitlines()[:1]
            return "CE" + (f": {first[0]}" if first else "")
        return "ok"


def report(store: Store, submission: SubmissionRow, cases: Sequence[Case]) -> SubmissionReport:
    """A submission's current results: its current content, the current cases."""
    runs = store.runs(submission.id, submission.content_hash)
    outcomes = [CaseOutcome(case, runs.get((case.id, case.version))) for case in cases]
    build = store.build(submission.content_hash) if not submission.problem else None
    used, ignored = store.files(submission.id)
    return SubmissionReport(submission, build, outcomes, used, ignored)


def format_score(value: float) -> str:
    return f"{value:g}"
