"""What a student may see of a graded submission: the one rule of information flow.

A student sees the verdict of every case (a hidden one by its number, never its name),
and the details of a run (its output, diagnosis, error output, time and memory) only
where that run could not have learned a hidden input: a public case run before any
hidden case of the submission (the store's `exposed` is false; grader.grading runs
them in that order). For a failing case, a public puzzle that failed the same way in
such a run (grader.counterexamples finds them among those runs only), and what sets
the failing puzzle apart from every puzzle the program passed, from the properties the
manifest keeps of each case ("this puzzle file does not end with a line end": never
its input). Nothing of a hidden run reaches a student but its verdict: not its
diagnosis (which quotes the expected output, and so the hidden input), not its time (a
program can spell its input in how long it runs).

Every medium a student reads is drawn from this view, never from the report itself:
the student feedback page and the LMS feedback files made of it, Gradescope's results,
`check`.
"""

from dataclasses import dataclass

from grader.input_properties import distinguishing
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
    apart: tuple[str, ...] = ()  # a failing case: what its puzzle has and passed ones lack

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
    apart = set_apart(report)
    for outcome in report.outcomes:
        run = outcome.run
        notes = apart.get(outcome.case.id, ())
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
                    notes,
                )
            )
        else:
            hidden += 1
            label = f"hidden case {hidden}"
            shown.append(ShownCase(outcome, label, f"hidden-{hidden}", None, "", notes))
    return shown


APART_SHOWN = 2  # properties told per failing case, the puzzle file's own first


def set_apart(report: SubmissionReport) -> dict[str, tuple[str, ...]]:
    """Each failing case (by id) -> what its puzzle has that no puzzle the program
    passed has ("this puzzle file has Windows line ends (CR LF), and every puzzle your
    program passed has Unix line ends (LF)"), from the cases' properties."""
    passed = [
        o.case.properties
        for o in report.outcomes
        if o.verdict is Verdict.AC and o.case.properties is not None
    ]
    found = {}
    for outcome in report.outcomes:
        if outcome.verdict in _UNEXPLAINED and outcome.case.properties is not None:
            said = distinguishing(outcome.case.properties, passed)[:APART_SHOWN]
            if said:
                found[outcome.case.id] = tuple(text[0].upper() + text[1:] + "." for text in said)
    return found


# A failure a property of its puzzle may explain (not a build, nor the grader's own).
_UNEXPLAINED = (Verdict.WA, Verdict.PE, Verdict.RTE, Verdict.TLE, Verdict.MLE, Verdict.OLE)


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
