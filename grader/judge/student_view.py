"""What a student may see of a graded submission: the one rule of information flow.

A student sees the verdict of every case (a hidden one by its number, never its name),
and the details of a run (its output, diagnosis, error output, time and memory) only
where that run could not have learned a hidden input: a public case run before any
hidden case of the submission (the store's `exposed` is false; grader.grading.session runs
them in that order). For a failing case, a public puzzle that failed the same way in
such a run (grader.grading.counterexamples finds them among those runs only), and what sets
the failing puzzle apart from every puzzle the program passed, from the properties the
manifest keeps of each case ("this puzzle file does not end with a line end": never
its input). Nothing of a hidden run reaches a student but its verdict: not its
diagnosis (which quotes the expected output, and so the hidden input), not its time (a
program can spell its input in how long it runs).

Every medium a student reads is drawn from this view, never from the report itself:
the student feedback page and the LMS feedback files made of it, Gradescope's results,
`check`.
"""

from collections.abc import Sequence
from dataclasses import dataclass

from grader.cases.counterfactual import SAID
from grader.cases.input_properties import describe
from grader.cases.manifest import Case
from grader.cases.pool import properties
from grader.core import verdicts
from grader.core.model import Verdict
from grader.judge.judging import crash_line
from grader.judge.score import CaseOutcome, SubmissionReport
from grader.store import CounterexampleRow, FindingRow, RunRow

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
    # A failing case: how a hidden one crashed (its exception or signal and the line of
    # the student's own source), what the program's runs show it does wrong (the
    # relations that explain this case), and what of its puzzle file a counterfactual
    # run proved the program fails on.
    apart: tuple[str, ...] = ()

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
    explains = _explained(report)
    for outcome in report.outcomes:
        run = outcome.run
        notes = explains.get(outcome.case.id, ()) + apart.get(outcome.case.id, ())
        if not outcome.case.public and run is not None and outcome.verdict is Verdict.RTE:
            crashed = crash_line(run.signal, run.stderr)
            notes = ((crashed,) if crashed else ()) + notes
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


def _explained(report: SubmissionReport) -> dict[str, tuple[str, ...]]:
    """Each failing case (by id) -> what the program's runs show it does wrong, for the
    relations that explain it (their words hold nothing of a hidden case)."""
    found: dict[str, tuple[str, ...]] = {}
    for finding in report.findings:
        text = finding_sentence(finding)
        for puzzle in finding.explains:
            found[puzzle] = found.get(puzzle, ()) + (text,)
    return found


def finding_sentence(finding: FindingRow) -> str:
    """A finding as one sentence, with the public puzzle that shows it."""
    shown = f" Public puzzle {finding.shown_by} shows it." if finding.shown_by else ""
    return f"Across all its runs, {finding.text}.{shown}"


def set_apart(report: SubmissionReport) -> dict[str, tuple[str, ...]]:
    """Each failing case (by id) -> what of its puzzle file is shown to be what the
    program fails on: the property a counterfactual run proved (the same puzzle with
    only that changed passed: grader.grading.proofs), never one merely unlike the puzzles it
    passed."""
    found = {}
    for outcome in report.outcomes:
        if outcome.verdict in verdicts.RUN_FAILURE and outcome.proven:
            found[outcome.case.id] = proven_sentences(outcome.case, outcome.proven)
    return found


def proven_sentences(case: Case, proven: Sequence[str]) -> tuple[str, ...]:
    """What the counterfactual runs proved of the puzzle file, as sentences."""
    return tuple(_proven(case, prop) for prop in proven)


def _proven(case: Case, prop: str) -> str:
    value = getattr(properties(case), prop)
    return (
        f"This puzzle file {describe(prop, value)}, and the same puzzle {SAID[prop]} "
        "passes: that alone is what your program fails on."
    )


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
