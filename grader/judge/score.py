"""Scores: per-case weights from the manifest, summed per submission, and the
instructor's decisions (`grader override`) taken into them.

A decision on a case gives the case a verdict or points in place of the judge's; one
on the whole submission adds points to its score (negative: docked). A decision is bound
to the content it was made on: once the submission's content or the case changes, it
stays visible, flagged for review, but waits (`waiting`): it counts toward neither the
score, the leaderboard's eligibility nor the bonus until the instructor confirms it
for the new content (`grader override ID --confirm`) or makes a new one. When only the
judge's verdict changed (a regrade of the same program on the same case), it still
applies and is flagged for review.
"""

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import Enum

from grader.cases.manifest import Case
from grader.core.model import NOT_GRADED, POLICY_CASE_MODES, PolicyCases, Verdict
from grader.core.rules import rules_version
from grader.judge.policy_backfill import backfilled
from grader.store import (
    BuildRow,
    CounterexampleRow,
    FindingRow,
    OverrideRow,
    RunRow,
    Store,
    SubmissionRow,
)


@dataclass(frozen=True)
class Decision:
    """An instructor's decision as it applies to the current run."""

    override: OverrideRow
    review: str = ""  # why it needs another look: the run it was made on changed
    # It was made on other content (the submission's or the case's): it counts for
    # nothing until confirmed for this content.
    waiting: bool = False

    @property
    def needs_review(self) -> bool:
        return bool(self.review)

    @property
    def counts(self) -> bool:
        return not self.waiting

    @property
    def whole_submission(self) -> bool:
        return not self.override.case_id

    def describe(self, weight: float | None = None) -> str:
        """One line for people: what was decided instead of what, and why."""
        o = self.override
        judged = o.judged or "not graded"
        if self.whole_submission:
            assert o.points is not None, "a decision on a whole submission adds points"
            what = f"{o.points:+g} points to the score"
        elif o.verdict is not None:
            what = f"{o.case_id}: {o.verdict} instead of {judged}"
        else:
            of = f" of {format_score(weight)}" if weight is not None else ""
            what = f"{o.case_id}: {format_score(o.points or 0)}{of} points ({judged})"
        waits = " [waiting: made on other content, it counts for nothing until confirmed]"
        return f"{what}, by the instructor: {o.reason}" + (waits if self.waiting else "")


class Standing(str, Enum):
    """Whether a case's (or a submission's) result is established: only a settled one
    becomes a score anywhere (results.json, every export). The others are unknown, never
    0: the worst of its cases' is a submission's."""

    SETTLED = "settled"  # a final verdict under the current rules, or the instructor's
    STALE = "stale"  # judged under other rules: `grade` judges it again
    NOT_GRADED = "not-graded"  # no run yet (a grade not run, still running, or killed)
    INTERNAL_ERROR = "internal-error"  # the grader failed (IE): `grade` retries it

    def __str__(self) -> str:
        return self.value

    @property
    def explained(self) -> str:
        return {
            "settled": "settled",
            "stale": "judged under older judging rules: run `grader grade` to judge it again",
            "not-graded": "not graded yet (run `grader grade`, or let the running one finish)",
            "internal-error": "the grader failed (IE), not the student: run `grader grade` "
            "again to retry",
        }[self.value]


# The order a submission takes its cases' worst standing in.
_STANDING_ORDER = (Standing.SETTLED, Standing.STALE, Standing.NOT_GRADED, Standing.INTERNAL_ERROR)


@dataclass(frozen=True)
class CaseOutcome:
    case: Case
    run: RunRow | None  # None: not graded (yet)
    # A failing case: the public puzzle that fails the same way, or none and why (None:
    # not searched). Never part of the score.
    counterexample: CounterexampleRow | None = None
    decision: Decision | None = None  # the instructor's, which outweighs the judge's
    # Properties of its puzzle file proven to be what the program fails on: the same
    # puzzle with only that changed passed (grader.grading.proofs).
    proven: tuple[str, ...] = ()

    @property
    def verdict(self) -> Verdict | None:
        """The verdict that counts: the instructor's when they decided one (on this
        content)."""
        if self.decision is not None and self.decision.counts:
            if self.decision.override.verdict is not None:
                return Verdict(self.decision.override.verdict)
        return self.judged

    @property
    def judged(self) -> Verdict | None:
        """The judge's verdict (None: not graded)."""
        return self.run.verdict if self.run else None

    @property
    def decided(self) -> bool:
        """It has a verdict, or points the instructor gave it."""
        return self.verdict is not None or self.decided_points is not None

    @property
    def decided_points(self) -> float | None:
        """The points the instructor gave the case (on this content), None when none."""
        if self.decision is None or not self.decision.counts:
            return None
        return self.decision.override.points

    @property
    def standing(self) -> Standing:
        """Whether its verdict is established (the instructor's decision always is)."""
        decision = self.decision
        if decision is not None and decision.counts and self.decided_points is not None:
            return Standing.SETTLED
        if decision is not None and decision.counts and decision.override.verdict is not None:
            return Standing.SETTLED
        if self.run is None:
            return Standing.NOT_GRADED
        if self.run.verdict == Verdict.IE:
            return Standing.INTERNAL_ERROR
        return Standing.SETTLED if self.run.rules == rules_version() else Standing.STALE

    def points(self, forgive: bool) -> float:
        """What the case adds to the score (`forgive`: a policy failure counts as passed)."""
        if self.decided_points is not None:
            return self.decided_points
        if self.verdict == Verdict.AC or (forgive and self.policy_failure):
            return self.case.weight
        return 0.0

    @property
    def policy_dependent(self) -> bool:
        """Its expected output depends on a policy rule the hand-out leaves open."""
        return bool(self.case.policy)

    @property
    def policy_failure(self) -> bool:
        """It failed only in what a policy rule decides (the judged run's decision), and
        the instructor decided no other verdict."""
        return self.verdict == self.judged and self.run is not None and bool(self.run.policy_only)


@dataclass(frozen=True)
class SubmissionReport:
    submission: SubmissionRow
    build: BuildRow | None
    outcomes: list[CaseOutcome]
    files_used: list[str] = field(default_factory=list)  # shown names, main file first
    files_ignored: list[tuple[str, str]] = field(default_factory=list)  # (name, why)

    policy_cases: PolicyCases = "count"  # course.toml [scoring] policy_cases
    adjustment: Decision | None = None  # the instructor's points added to the whole score
    # Decisions on cases the manifest no longer has: kept, applied to nothing.
    orphans: tuple[OverrideRow, ...] = ()
    # What the analysis of the sources could not read, and why: feedback that is missing.
    unread: tuple[str, ...] = ()
    # What its runs show it does wrong (grader.grading.relations), in order.
    findings: tuple[FindingRow, ...] = ()

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
        cases = sum(o.points(forgive) for o in self.counted)
        adjustment = self.adjustment
        added = (adjustment.override.points or 0) if adjustment and adjustment.counts else 0
        return max(0.0, cases + added)  # docked points take a score to 0, never below

    @property
    def decisions(self) -> list[Decision]:
        """Every decision of the instructor that applies, the whole submission's first."""
        found = [self.adjustment] if self.adjustment is not None else []
        return found + [o.decision for o in self.outcomes if o.decision is not None]

    @property
    def overridden(self) -> bool:
        return bool(self.decisions)

    @property
    def waiting(self) -> list[Decision]:
        """Decisions made on other content: shown, counted nowhere until confirmed."""
        return [d for d in self.decisions if d.waiting]

    @property
    def max_score(self) -> float:
        return sum(o.case.weight for o in self.counted)

    @property
    def policy_lost(self) -> float:
        """Points that failures decided by a policy rule cost (or were forgiven)."""
        return sum(o.case.weight for o in self.outcomes if o.policy_failure)

    @property
    def policy_score(self) -> float:
        return sum(o.points(False) for o in self.outcomes if o.policy_dependent)

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
    def verdict_counts(self) -> Counter[Verdict | str]:
        return Counter(o.verdict or NOT_GRADED for o in self.outcomes)

    @property
    def complete(self) -> bool:
        return all(o.decided for o in self.outcomes)

    @property
    def standing(self) -> Standing:
        """The worst standing of its cases: settled only when every case is."""
        found = {o.standing for o in self.outcomes}
        return max(found, key=_STANDING_ORDER.index, default=Standing.SETTLED)

    @property
    def settled(self) -> bool:
        return self.standing is Standing.SETTLED

    @property
    def settled_score(self) -> float | None:
        """The score, or None while it is not established (never 0 for unknown)."""
        return self.score if self.settled else None

    @property
    def unsettled(self) -> str:
        """Why there is no score yet, for people ("" when settled): how many cases, and
        what to do."""
        if self.settled:
            return ""
        counts = Counter(o.standing for o in self.outcomes)
        parts = [
            f"{counts[s]} case{'s' if counts[s] != 1 else ''} {s.explained}"
            for s in _STANDING_ORDER[1:]
            if counts[s]
        ]
        return "; ".join(parts)

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
    proofs = store.proofs(submission.id, submission.content_hash)
    overrides = {o.case_id: o for o in store.overrides(submission.id)}
    outcomes = []
    for case in cases:
        run = runs.get((case.id, case.version))
        if run is not None and run.policy_only is None:  # stored by schema 1
            run = backfilled(store, submission, case, run)
        failed = run is not None and run.verdict != Verdict.AC
        example = found.get((case.id, case.version)) if failed else None
        override = overrides.pop(case.id, None)
        decision = None if override is None else _decision(override, submission, case, run)
        proven = tuple(
            prop
            for prop, proof in proofs.get((case.id, case.version), {}).items()
            if proof.proves and proof.rules == rules_version() and failed
        )
        outcomes.append(CaseOutcome(case, run, example, decision, proven))
    whole = overrides.pop("", None)
    adjustment = None if whole is None else _decision(whole, submission, None, None)
    build = store.build(submission.content_hash) if not submission.problem else None
    files = store.files(submission.id)
    return SubmissionReport(
        submission,
        build,
        outcomes,
        files.used,
        files.ignored,
        policy_cases,
        adjustment,
        tuple(overrides.values()),
        tuple(files.unread),
        tuple(store.findings(submission.id, submission.content_hash)),
    )


def _decision(
    override: OverrideRow, submission: SubmissionRow, case: Case | None, run: RunRow | None
) -> Decision:
    """The decision, why it needs review when the run it was made on changed, and
    whether it waits (it was made on other content)."""
    changed = []
    if override.content_hash != submission.content_hash:
        changed.append("the submission's content changed")
    if case is not None and override.case_version != case.version:
        changed.append(f"case {case.id} changed")
    waiting = bool(changed)
    if case is not None and not changed and (run.verdict if run else None) != override.judged:
        changed.append(
            f"the judge now says {run.verdict if run else 'not graded'} "
            f"(was {override.judged or 'not graded'})"
        )
    return Decision(override, "; ".join(changed), waiting)


def format_score(value: float) -> str:
    return f"{value:g}"


UNSETTLED_SCORE = "no score yet"  # shown where a score is not established: never a 0


def shown_score(report: SubmissionReport) -> str:
    """ "7/10", or UNSETTLED_SCORE while the score is not established."""
    score = report.settled_score
    if score is None:
        return UNSETTLED_SCORE
    return f"{format_score(score)}/{format_score(report.max_score)}"


def shown_points(value: float | None) -> str:
    """A score's figure, or "?" while it is not established."""
    return "?" if value is None else format_score(value)
