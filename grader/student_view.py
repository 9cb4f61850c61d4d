"""What a student may see of a graded submission: the one rule of information flow.

A student sees the verdict of every case (a hidden one by its number, never its name),
and the details of a run (its output, diagnosis, error output, time and memory) only
where that run could not have learned a hidden input: a public case run before any
hidden case of the submission (the store's `exposed` is false; grader.grading runs
them in that order). For a failing case, a public puzzle that failed the same way in
such a run (grader.counterexamples finds them among those runs only). Nothing of a
hidden run reaches a student but its verdict: not its diagnosis (which quotes the
expected output, and so the hidden input), not its time (a program can spell its input
in how long it runs).

Every medium a student reads is drawn from this view, never from the report itself:
the student feedback page and the LMS feedback files made of it, Gradescope's results,
`check`.
"""

from dataclasses import dataclass

from grader.model import Verdict
from grader.score import CaseOutcome, SubmissionReport
from grader.store import CounterexampleRow, RunRow

WITHHELD = (
    "this run came after your program had run on a hidden case, so what it printed is "
    "not shown (it could hold a hidden input): run this public case yourself to see it"
)


@dataclass(frozen=True)
class ShownCase:
    """One case as a student sees it."""

    outcome: CaseOutcome  # the case and its verdicts: read only through the fields below
    label: str  # the public case's id, or "hidden case N"
    anchor: str  # an id for links within a page
    run: RunRow | None  # its details: a public case's run a student may see, else None
    withheld: str  # why a graded public case shows no details ("" when it does)

    @property
    def public(self) -> bool:
        return self.outcome.case.public

    @property
    def verdict(self) -> Verdict | None:
        return self.outcome.verdict

    @property
    def decided(self) -> bool:
        """The instructor decided this case."""
        return self.outcome.decision is not None

    @property
    def weight(self) -> float:
        return self.outcome.case.weight

    @property
    def counterexample(self) -> CounterexampleRow | None:
        return self.outcome.counterexample


def student_view(report: SubmissionReport) -> list[ShownCase]:
    """Every case of the report, as a student may see it, in the manifest's order."""
    shown, hidden = [], 0
    for outcome in report.outcomes:
        run = outcome.run
        if outcome.case.public:
            visible = run is not None and not run.exposed
            withheld = WITHHELD if run is not None and run.exposed else ""
            shown.append(
                ShownCase(
                    outcome,
                    outcome.case.id,
                    f"case-{outcome.case.id}",
                    run if visible else None,
                    withheld,
                )
            )
        else:
            hidden += 1
            shown.append(ShownCase(outcome, f"hidden case {hidden}", f"hidden-{hidden}", None, ""))
    return shown


def shown_decisions(report: SubmissionReport) -> list[str]:
    """The instructor's decisions that count, as a student may read them: a hidden
    case's by no name."""
    hidden = {o.case.id for o in report.outcomes if not o.case.public}
    texts = []
    for decision in report.decisions:
        if not decision.counts:
            continue
        override = decision.override
        if override.case_id in hidden:
            texts.append(f"a hidden case: decided by the instructor: {override.reason}")
        else:
            texts.append(decision.describe())
    return texts
