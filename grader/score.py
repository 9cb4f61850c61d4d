"""Scores: per-case weights from the manifest, summed per submission."""

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from grader.cases import Case
from grader.model import NOT_GRADED, POLICY_CASE_MODES, PolicyCases, Verdict
from grader.policy_backfill import backfilled
from grader.store import BuildRow, CounterexampleRow, RunRow, Store, SubmissionRow


@dataclass(frozen=True)
class CaseOutcome:
    case: Case
    run: RunRow | None  # None: not graded (yet)
    # A failing case: the public puzzle that fails the same way, or none and why (None:
    # not searched). Never part of the score.
    counterexample: CounterexampleRow | None = None

    @property
    def verdict(self) -> Verdict | None:
        return self.run.verdict if self.run else None

    @property
    def policy_dependent(self) -> bool:
        """Its expected output depends on a policy rule the hand-out leaves open."""
        return bool(self.case.policy)

    @property
    def policy_failure(self) -> bool:
        """It failed only in what a policy rule decides (the judged run's decision)."""
        return self.run is not None and bool(self.run.policy_only)


@dataclass(frozen=True)
class SubmissionReport:
    submission: SubmissionRow
    build: BuildRow | None
    outcomes: list[CaseOutcome]
    files_used: list[str] = field(default_factory=list)  # shown names, main file first
    files_ignored: list[tuple[str, str]] = field(default_factory=list)  # (name, why)

    policy_cases: PolicyCases = "count"  # course.toml [scoring] policy_cases

    def __post_init__(self) -> None:
        # A mode no branch knows would silently score as "count": refuse it outright.
        if self.policy_cases not in POLICY_CASE_MODES:
            raise ValueError(f"unknown policy_cases mode {self.policy_cases!r}")

    @property
    def counted(self) -> list[CaseOutcome]:
        """The outcomes the score is made of ("apart" leaves policy-dependent cases out)."""
        if self.policy_cases == "apart":
            return [o for o in self.outcomes if not o.policy_dependent]
        return list(self.outcomes)

    @property
    def score(self) -> float:
        forgive = self.policy_cases == "forgive"
        return sum(
            o.case.weight
            for o in self.counted
            if o.verdict == Verdict.AC or (forgive and o.policy_failure)
        )

    @property
    def max_score(self) -> float:
        return sum(o.case.weight for o in self.counted)

    @property
    def policy_lost(self) -> float:
        """Points that failures decided by a policy rule cost (or were forgiven)."""
        return sum(o.case.weight for o in self.outcomes if o.policy_failure)

    @property
    def policy_score(self) -> float:
        return sum(
            o.case.weight for o in self.outcomes if o.policy_dependent and o.verdict == Verdict.AC
        )

    @property
    def policy_max(self) -> float:
        return sum(o.case.weight for o in self.outcomes if o.policy_dependent)

    @property
    def policy_note(self) -> str:
        """The policy-dependent cases, shown apart from the score ("" when nothing to say)."""
        if self.policy_cases == "apart":
            if not self.policy_max:
                return ""
            return (
                f"policy-dependent cases apart: {format_score(self.policy_score)}/"
                f"{format_score(self.policy_max)}"
            )
        if not self.policy_lost:
            return ""
        if self.policy_cases == "forgive":
            return f"{format_score(self.policy_lost)} forgiven on policy-dependent cases"
        return f"{format_score(self.policy_lost)} lost on policy-dependent cases"

    @property
    def verdict_counts(self) -> Counter:
        return Counter(o.verdict or NOT_GRADED for o in self.outcomes)

    @property
    def complete(self) -> bool:
        return all(o.run is not None for o in self.outcomes)

    @property
    def all_accepted(self) -> bool:
        return bool(self.outcomes) and all(o.verdict == Verdict.AC for o in self.outcomes)

    @property
    def build_status(self) -> str:
        sub = self.submission
        if sub.problem:
            return "CE: " + sub.problem
        if self.build is None:
            return "not built"
        if not self.build.ok:
            first = self.build.log.strip().splitlines()[:1]
            return Verdict.CE.value + (f": {first[0]}" if first else "")
        return "ok"


def report(
    store: Store,
    submission: SubmissionRow,
    cases: Sequence[Case],
    policy_cases: PolicyCases = "count",
) -> SubmissionReport:
    """A submission's current results: its current content, the current cases;
    `policy_cases` is course.toml's [scoring] policy_cases."""
    runs = store.runs(submission.id, submission.content_hash)
    found = store.counterexamples(submission.id, submission.content_hash)
    outcomes = []
    for case in cases:
        run = runs.get((case.id, case.version))
        if run is not None and run.policy_only is None:  # stored by schema 1
            run = backfilled(store, submission, case, run)
        failed = run is not None and run.verdict != Verdict.AC
        example = found.get((case.id, case.version)) if failed else None
        outcomes.append(CaseOutcome(case, run, example))
    build = store.build(submission.content_hash) if not submission.problem else None
    files = store.files(submission.id)
    return SubmissionReport(submission, build, outcomes, files.used, files.ignored, policy_cases)


def format_score(value: float) -> str:
    return f"{value:g}"
