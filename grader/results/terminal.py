"""What `grade`, `check` and `show` print."""

from collections.abc import Mapping, Sequence
from datetime import datetime, timezone

from grader.core.model import VERDICT_ORDER, Verdict
from grader.core.text import printable, shorten
from grader.course.late import NOT_LATE, Lateness
from grader.grading.counterexamples import reason_without_search
from grader.grading.sensitivity import SHARE, near_limit, sensitive_cases
from grader.intake.teams import Team, Teams
from grader.judge.score import (
    UNSETTLED_SCORE,
    CaseOutcome,
    SubmissionReport,
    format_score,
    shown_points,
    shown_score,
)
from grader.judge.student_view import finding_sentence, set_apart

SHOWN_LINES = 40  # of each text of a counterexample in a terminal (its file has all)


def verdict_summary(report: SubmissionReport) -> str:
    counts = report.verdict_counts
    return " ".join(f"{v}:{counts[v]}" for v in VERDICT_ORDER if counts.get(v))


def summary_table(
    reports: Sequence[SubmissionReport],
    cpu_limit: float | None = None,
    lateness: Mapping[str, Lateness] | None = None,
    teams: Teams | None = None,
) -> str:
    """One row per submission; with `lateness`, the penalty and final score beside the
    raw score; with `teams`, who handed it in when a team of several did or it was
    replaced; with `cpu_limit`, a last column names the submissions sensitive to it."""
    policy = any(r.policy_note for r in reports)  # shown apart only when there is something
    teamed = teams is not None and any(
        len(t.members) != 1 or not t.counts for t in teams.by_submission.values()
    )
    decided = any(r.overridden for r in reports)
    headers: tuple[str, ...] = ("id",)
    if teamed:
        headers += ("team",)
    headers += ("language", "score" if lateness is None else "raw")
    if policy:
        headers += ("policy-dependent",)
    if lateness is not None:
        headers += ("penalty", "final", "late")
    headers += ("verdicts", "build")
    if decided:
        headers += ("the instructor's decisions",)
    if cpu_limit is not None:
        headers += ("time limit",)
    rows = []
    for r in reports:
        row: tuple[str, ...] = (r.submission.id,)
        if teamed:
            assert teams is not None, "teamed: there are teams"
            row += (team_cell(teams.of(r.submission.id)),)
        row += (r.submission.language, shown_score(r))
        if policy:
            row += (r.policy_note,)
        if lateness is not None:
            late = lateness.get(r.submission.id, NOT_LATE)
            score = r.settled_score
            row += (
                f"-{shown_points(late.penalty(score) if score is not None else None)}"
                if late.percent
                else "",
                shown_points(late.final(score) if score is not None else None),
                shorten(late.note, 30),
            )
        row += (verdict_summary(r), shorten(r.build_status, 60 if lateness is None else 40))
        if decided:
            row += (decisions_cell(r),)
        if cpu_limit is not None:
            row += (_sensitive(r, cpu_limit),)
        rows.append(row)
    from tabulate import tabulate  # here: `check` (and the student kit) needs none

    table: str = tabulate(rows, headers=headers)  # tabulate has no type hints: Any
    return table


def team_cell(team: Team, width: int = 40) -> str:
    """Who handed it in: the team's name and members' ids, or which submission replaced it."""
    if team.replaced_by:
        return f"replaced by {team.replaced_by}"
    if team.undecided:
        return "counts for no one (handed in twice)"
    if not team.members:
        return shorten(f"{team.name}: members unknown", width)
    return shorten(f"{team.name}: {', '.join(m.id for m in team.members)}", width)


def team_report(team: Team) -> str:
    """`show`'s line on who handed it in."""
    members = ", ".join(m.shown for m in team.members) or "unknown (not in the LMS's download)"
    if team.source == "alone":
        line = f"handed in by {members} (alone)"
    else:
        line = f"team {team.name} (from {team.source}): {members}"
    if team.replaced_by:
        line += (
            f"\nreplaced by {team.replaced_by}: the team handed in twice, its newer "
            "submission counts"
        )
    elif team.undecided:
        line += f"\ncounts for no one: {team.undecided}"
    return line


def decisions_cell(report: SubmissionReport, width: int = 60) -> str:
    """The instructor's decisions in one cell: the first with its reason, how many more,
    and whether any needs review."""
    decisions = report.decisions
    if not decisions:
        return ""
    more = f" (+{len(decisions) - 1} more)" if len(decisions) > 1 else ""
    review = " [review]" if any(d.needs_review for d in decisions) else ""
    waiting = " [waiting]" if any(d.waiting for d in decisions) else ""
    return shorten(decisions[0].describe(), width) + more + review + waiting


def decisions_report(report: SubmissionReport) -> str:
    """`show`'s lines on the instructor's decisions ("" when none)."""
    lines = []
    weights = {o.case.id: o.case.weight for o in report.outcomes}
    for decision in report.decisions:
        o = decision.override
        when = datetime.fromtimestamp(o.recorded_at, timezone.utc).isoformat(timespec="seconds")
        lines.append(f"  {decision.describe(weights.get(o.case_id))}  (recorded {when})")
        case = f" --case {o.case_id}" if o.case_id else ""
        if decision.waiting:
            lines.append(
                f"    waits: {decision.review}; it counts toward neither the score, the "
                "leaderboard nor the bonus until you confirm it for this content "
                f"(grader override {report.submission.id}{case} --confirm), make a new one, "
                "or --clear it"
            )
        elif decision.needs_review:
            lines.append(
                f"    needs review: {decision.review}; it still applies (confirm it with "
                f"grader override {report.submission.id}{case} --confirm, or --clear it)"
            )
    for orphan in report.orphans:
        lines.append(
            f"  on case {orphan.case_id}, which the manifest no longer has: applies to nothing "
            f"({orphan.reason})"
        )
    return "decisions of the instructor (overrides):\n" + "\n".join(lines) if lines else ""


def _sensitive(report: SubmissionReport, cpu_limit: float) -> str:
    count = len(sensitive_cases(report, cpu_limit))
    return f"sensitive ({count} case{'s' if count != 1 else ''} >{SHARE})" if count else ""


def late_report(report: SubmissionReport, late: Lateness, source: str = "") -> str:
    """`show`'s lines on when it came in and what that costs."""
    when = late.submitted_at or "unknown"
    marker = "  (the LMS marks it late)" if late.late_marker else ""
    lines = [f"submitted: {when}{f' ({source})' if source and late.submitted_at else ''}{marker}"]
    if late.note:
        lines.append(f"late: {late.note}")
    score = report.settled_score
    if score is None:
        lines.append(f"raw score: {UNSETTLED_SCORE} ({report.unsettled})")
    else:
        lines.append(
            f"raw score {format_score(score)}/{format_score(report.max_score)}"
            f"  penalty -{format_score(late.penalty(score))}"
            f"  final {format_score(late.final(score))}"
        )
    return "\n".join(lines)


def case_report(
    report: SubmissionReport, *, instructor: bool, cpu_limit: float | None = None
) -> str:
    """Every case with its verdict, time and diagnosis; students see public cases only."""
    lines = []
    apart = set_apart(report)
    for outcome in report.outcomes:
        case, run = outcome.case, outcome.run
        if not instructor and not case.public:
            continue
        label = case.id + ("" if case.public else " (hidden)")
        if outcome.policy_failure:
            label += {
                "forgive": " (policy-dependent: forgiven)",
                "apart": " (policy-dependent: scored apart)",
            }.get(report.policy_cases, " (policy-dependent)")
        elif outcome.policy_dependent and report.policy_cases == "apart":
            label += " (policy-dependent: scored apart)"
        if outcome.decision is not None:
            label += f" (the instructor's decision; judged {outcome.judged or 'not graded'})"
        verdict = outcome.verdict or "not graded"
        timing = ""
        if run is not None and run.cpu_seconds is not None:
            measured = (
                f"  {run.wall_seconds:.3f} s wall (no CPU time is measured here)"
                if run.cpu_accounting == "wall"
                else f"  {run.cpu_seconds:.3f} s CPU  {run.wall_seconds:.3f} s wall"
            )
            timing = measured + f"  {(run.peak_memory_kb or 0) / 1024:.0f} MB"
            if cpu_limit is not None and near_limit(run.cpu_seconds, verdict, cpu_limit):
                timing += f"  (sensitive to the time limit: over {SHARE} of {cpu_limit:g} s)"
        lines.append(f"{verdict:<4} {label}{timing}")
        if run is not None and run.diagnosis and verdict not in (Verdict.AC, Verdict.CE):
            lines.extend("       " + line for line in run.diagnosis.splitlines())
        lines.extend("       " + note for note in apart.get(case.id, ()))
        if verdict not in (Verdict.AC, Verdict.CE, "not graded"):
            lines.extend("       " + line for line in counterexample_lines(outcome))
    lines += [f"what the runs show: {finding_sentence(f)}" for f in report.findings]
    return "\n".join(lines)


def counterexample_heading(outcome: CaseOutcome) -> str:
    """The line that introduces a failing case's counterexample, or says why it has none."""
    found = outcome.counterexample
    if found is None or not found.found:
        reason = found.reason if found is not None else reason_without_search(outcome.verdict)
        other = " other" if outcome.case.public else ""
        return f"No{other} public puzzle fails the same way: {reason}."
    where = (
        f"public case {found.puzzle_id}"
        if found.source == "public"
        else f"pool puzzle {found.puzzle_id} (testcases/pool/public/{found.puzzle_id}.txt)"
    )
    what = "Another public puzzle, no larger," if outcome.case.public else "A public puzzle"
    if found.source == "search":  # run after the hidden cases: its output is never shown
        return (
            f"{what} that fails the same way, to run and debug: {where} (the grader ran "
            "it after your hidden cases, so what your program printed there is not shown: "
            "run it yourself)"
        )
    return f"{what} that fails the same way, to run and debug: {where}"


def counterexample_lines(outcome: CaseOutcome, shown: int = SHOWN_LINES) -> list[str]:
    """A failing case's counterexample as text: its input, the expected output, the
    program's output and the diagnosis of that run (each cut to `shown` lines)."""
    lines = [counterexample_heading(outcome)]
    found = outcome.counterexample
    if found is None or not found.found:
        return lines
    if found.source == "search":
        return lines + [
            "  its input:",
            *("    " + line for line in _first_lines(found.input, shown)),
        ]
    for title, text in (
        ("its input", found.input),
        ("expected output", found.expected),
        ("the program's output", found.output),
        ("diagnosis", found.diagnosis.encode()),
    ):
        lines.append(f"  {title}:")
        lines += ["    " + line for line in _first_lines(text, shown)]
    return lines


def _first_lines(data: bytes, shown: int) -> list[str]:
    text = printable(data).rstrip("\n")
    if not text:
        return ["(nothing)"]
    lines = text.split("\n")
    more = len(lines) - shown
    return lines[:shown] + ([f"... ({more} more lines)"] if more > 0 else [])


def build_report(report: SubmissionReport) -> str:
    status = report.build_status
    log = report.build.log.strip() if report.build else ""
    files = files_report(report)
    if status == "ok" or not log:
        return files + f"build: {status}"
    indented = "\n".join("  " + line for line in log.splitlines())
    return files + f"build: {status.split(':')[0]}\n" + indented


def files_report(report: SubmissionReport) -> str:
    """Which files the build got and which were ignored, with why ("" if unknown)."""
    lines = []
    if report.files_used:
        lines.append("files used: " + ", ".join(report.files_used))
    if report.unread:
        lines.append("not analysed (that feedback is missing):")
        lines += [f"  {why}" for why in report.unread]
    if report.files_ignored:
        lines.append("files ignored:")
        lines += [f"  {name} ({why})" for name, why in report.files_ignored]
    return "".join(line + "\n" for line in lines)


def score_line(report: SubmissionReport, what: str) -> str:
    note = f"; {report.policy_note}" if report.policy_note else ""
    why = f"; {report.unsettled}" if report.unsettled else ""
    return f"score{what}: {shown_score(report)}  ({verdict_summary(report)}{note}{why})"
