"""What `grader check` prints for a student: one screen, even for a program that fails
everything. The build, a line per public case, a line on the pool's puzzles (public
puzzles like the hidden cases: CR LF line ends, no final newline, thousands of
solutions...), then the first failure explained in full (its root cause, the first
difference, a property of its puzzle file a run proved it fails on, a public puzzle that
fails alike), one line for each other kind of failure, and what all its runs show. Times are labelled by what measured them: "CPU", or
"wall" where nothing here counts CPU time."""

import textwrap
from collections.abc import Sequence
from dataclasses import dataclass

from grader.cases.manifest import Case
from grader.core.model import CpuAccounting, Verdict
from grader.core.text import shorten
from grader.judge.score import CaseOutcome, SubmissionReport, shown_score
from grader.judge.student_view import proven_sentences
from grader.results.terminal import build_report, counterexample_heading, verdict_summary

DIAGNOSIS_LINES = 12  # of the first failure's diagnosis
OTHER_KINDS = 6  # other kinds of failure, a line each
WIDTH = 100


@dataclass(frozen=True)
class PoolRun:
    """A run on a pool puzzle, as the report tells it."""

    puzzle: Case
    verdict: str
    kind: str
    diagnosis: str
    proven: tuple[str, ...] = ()  # properties of its file proven to be what it fails on


def check_report(
    report: SubmissionReport, pool: Sequence[PoolRun] = (), chosen: bool = False
) -> tuple[str, bool]:
    """(the text, whether everything passed: every public case and every pool puzzle).
    `chosen`: the report holds the cases a student named, not all of them."""
    lines = [build_report(report)]
    public = [o for o in report.outcomes if o.case.public]
    clock = _clock(public)
    for outcome in public:
        lines.append(_case_line(outcome, clock))
    failed_pool = [run for run in pool if run.verdict != Verdict.AC]
    if pool:
        lines.append(_pool_line(pool, failed_pool))
    failures = [o for o in public if o.verdict not in (Verdict.AC, None)]
    if failures:
        first = failures[0]
        lines += _explained(first.case, first.verdict, first.run.diagnosis if first.run else "")
        lines += _apart(first.case, first.proven)
        if not chosen:  # one case alone: nothing else ran to compare it with
            lines.append("  " + counterexample_heading(first))
        shown = first.run.kind if first.run else ""
        lines += _other_kinds(failures[1:], failed_pool, shown)
    elif failed_pool:
        first_pool = failed_pool[0]
        lines += _explained(first_pool.puzzle, first_pool.verdict, first_pool.diagnosis)
        lines += _apart(first_pool.puzzle, first_pool.proven)
        lines.append(f"  its file: testcases/pool/public/{first_pool.puzzle.input.name}")
        lines += _other_kinds([], failed_pool[1:], first_pool.kind)
    lines += findings_lines(report)
    lines.append(verdict_line(report, pool, chosen))
    return "\n".join(line for line in lines if line), passed(report, pool)


def findings_lines(report: SubmissionReport) -> list[str]:
    """What the program's runs show it does wrong (grader.grading.relations), wrapped."""
    lines = []
    for finding in report.findings:
        shown = f" (public puzzle {finding.shown_by} shows it)" if finding.shown_by else ""
        lines.append(
            textwrap.fill(
                f"Across its runs: {finding.text}{shown}.",
                WIDTH,
                subsequent_indent="  ",
            )
        )
    return ["", *lines] if lines else []


def pool_report(pool: Sequence[PoolRun]) -> str:
    """`--details`: every pool puzzle run, each failure with its diagnosis in full and
    what a run proved of its file."""
    lines = []
    for run in pool:
        lines.append(f"{run.verdict:<4} pool puzzle {run.puzzle.id} (testcases/pool/public/)")
        if run.verdict != Verdict.AC:
            lines += ["       " + line for line in run.diagnosis.splitlines()]
            lines += ["       " + said for said in proven_sentences(run.puzzle, run.proven)]
    return "\n".join(lines)


def passed(report: SubmissionReport, pool: Sequence[PoolRun]) -> bool:
    """Every public case passes, and every pool puzzle run."""
    return report.all_accepted and all(run.verdict == Verdict.AC for run in pool)


def _clock(outcomes: Sequence[CaseOutcome]) -> str:
    """ "wall" where nothing measured CPU time (the portable fallback), else "CPU"."""
    accounting = {o.run.cpu_accounting for o in outcomes if o.run is not None}
    return "wall" if CpuAccounting.WALL.value in accounting else "CPU"


def _case_line(outcome: CaseOutcome, clock: str) -> str:
    verdict = outcome.verdict or "not graded"
    run = outcome.run
    figure = ""
    if run is not None and run.cpu_seconds is not None:
        seconds = run.wall_seconds if clock == "wall" else run.cpu_seconds
        figure = f"  {seconds:.3f} s {clock}" if seconds is not None else ""
    return f"{verdict:<4} {outcome.case.id}{figure}"


def _pool_line(pool: Sequence[PoolRun], failed: Sequence[PoolRun]) -> str:
    if not failed:
        return f"pool: all {len(pool)} puzzles pass (testcases/pool/public/: like the hidden cases)"
    names = ", ".join(run.puzzle.id for run in failed[:6])
    more = f" and {len(failed) - 6} more" if len(failed) > 6 else ""
    return (
        f"pool: {len(failed)} of {len(pool)} puzzles fail: {names}{more} "
        "(testcases/pool/public/: like the hidden cases)"
    )


def _explained(case: Case, verdict: str | None, diagnosis: str) -> list[str]:
    """The first failure, in full but short: its diagnosis wrapped, cut after
    DIAGNOSIS_LINES lines."""
    lines = [f"\n{case.id}: {verdict}"]
    wrapped = [
        piece
        for line in diagnosis.splitlines()
        for piece in textwrap.wrap(
            line, WIDTH, initial_indent="  ", subsequent_indent="    ", drop_whitespace=False
        )
        or ["  "]
    ]
    lines += wrapped[:DIAGNOSIS_LINES]
    if len(wrapped) > DIAGNOSIS_LINES:
        lines.append(f"  ... ({len(wrapped) - DIAGNOSIS_LINES} more lines: --details)")
    return lines


def _apart(case: Case, proven: Sequence[str]) -> list[str]:
    """What of the puzzle file a counterfactual run proved the program fails on."""
    return [
        textwrap.fill(said, WIDTH, initial_indent="  ", subsequent_indent="    ")
        for said in proven_sentences(case, proven)
    ]


def _other_kinds(outcomes: Sequence[CaseOutcome], pool: Sequence[PoolRun], shown: str) -> list[str]:
    """A line per other kind of failure: where it happens, and its first line."""
    kinds: dict[str, list[str]] = {}
    first_line: dict[str, str] = {}
    for name, kind, diagnosis in [
        *(
            (o.case.id, o.run.kind if o.run else "", o.run.diagnosis if o.run else "")
            for o in outcomes
        ),
        *((run.puzzle.id, run.kind, run.diagnosis) for run in pool),
    ]:
        kinds.setdefault(kind, []).append(name)
        first_line.setdefault(kind, diagnosis.split("\n", 1)[0])
    lines = []
    for kind, names in list(kinds.items())[:OTHER_KINDS]:
        where = ", ".join(names[:4]) + (f" and {len(names) - 4} more" if len(names) > 4 else "")
        if kind == shown:
            lines.append(f"the same failure as above: {where}")
        else:
            lines.append(shorten(f"{where}: {first_line[kind]}", WIDTH))
    if len(kinds) > OTHER_KINDS:
        lines.append(f"... and {len(kinds) - OTHER_KINDS} more kinds of failure (--details)")
    return ["", *lines] if lines else []


def verdict_line(report: SubmissionReport, pool: Sequence[PoolRun], chosen: bool = False) -> str:
    """The score on the public cases (or on the cases chosen), and whether everything
    passed."""
    failed = [run for run in pool if run.verdict != Verdict.AC]
    score = shown_score(report)
    which = ", ".join(o.case.id for o in report.outcomes) if chosen else "the public cases"
    head = f"\nscore on {which}: {score}  ({verdict_summary(report)})"
    if not report.all_accepted or chosen:
        return head
    if failed:
        return (
            f"{head}\nEvery public case passes, but {len(failed)} of {len(pool)} pool "
            "puzzles fail: the hidden cases have puzzles like them. Run your program on "
            "their files (each with its expected output, the .out beside it)."
        )
    return (
        f"{head}\nAll public cases and the pool pass. Hidden cases are graded after the deadline."
    )
