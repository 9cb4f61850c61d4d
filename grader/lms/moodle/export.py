"""Moodle's grading worksheet (the final scores) and its gradebook import (the speed
bonus in a grade item of its own) (grader/lms/export.py: what every LMS's score export
shares; Moodle's rules: mod/assign/feedback/offline/importgradeslib.php)."""

import re
from collections.abc import Mapping, Sequence

from grader.core.model import Verdict
from grader.course.late import NOT_LATE, Lateness
from grader.intake.teams import Team, Teams
from grader.judge.score import SubmissionReport, format_score
from grader.judge.student_view import shown_decisions
from grader.lms import worksheet
from grader.lms.export import (
    LmsExportError,
    Matched,
    Scale,
    match_reports,
    maximum_note,
    note_decided,
    our_maximum,
    score_cell,
    team_lines,
)
from grader.lms.matching import DECLARED
from grader.lms.roster import Roster, write_rows
from grader.lms.scales import ScaleMap
from grader.results.bonus import Award

# The one-line summary written into Moodle's "Feedback comments": a cell holding exactly
# one is the grader's own and is brought up to date; anything else is the instructor's.
SUMMARY = re.compile(r"Scramble Squares grader: \d+ of \d+ cases passed; [^\n]*\.")


def summary(
    result: SubmissionReport,
    late: Lateness,
    scale: float | None = None,
    bonus: float = 0.0,
    team: Team | None = None,
) -> str:
    """The one line written into Moodle's "Feedback comments"."""
    passed = sum(1 for o in result.counted if o.verdict == Verdict.AC)
    score = f"{format_score(result.score)}/{format_score(result.max_score)}"
    text = f"Scramble Squares grader: {passed} of {len(result.counted)} cases passed; "
    if late.percent:
        text += (
            f"raw score {score}, late penalty -{format_score(late.penalty(result.score))} "
            f"({late.note}), final score {format_score(late.final(result.score))}"
        )
    else:
        text += f"score {score}"
    if scale is not None:
        text += f" (written as {format_score(scale)})"
    if bonus:
        text += (
            f"; speed bonus +{format_score(bonus)} (ranked 1 on the leaderboard; a grade "
            "item of its own in the gradebook)"
        )
    for decision in shown_decisions(result):
        text += f"; {decision}"
    if team is not None and len(team.members) > 1:
        text += f"; team {team.name}"
    return text.replace("\n", " ") + "."


def scores(
    reports: Sequence[SubmissionReport],
    lateness: dict[str, Lateness],
    roster: Roster | None,
    *,
    missing_as_zero: bool = False,
    scale: bool = False,
    teams: Teams | None = None,
    bonus: Award | None = None,
    declared: Mapping[str, str] = DECLARED,
    scale_map: ScaleMap | None = None,
) -> Matched:
    """Moodle's offline grading worksheet (Assignment > "Upload grading worksheet"): the
    downloaded worksheet with Grade filled and a one-line summary as feedback. No grade
    is ever above the worksheet's maximum (Moodle's upload drops such a row without a
    word): the speed bonus goes to a grade item of its own (moodle_gradebook), and a
    score above it is refused. A row Moodle would skip without a word is named in
    `left_out` and left out of the file: a grade it will not change ("Grade can be
    changed: No": locked, or overridden in the gradebook), and on a scale, a score
    without an item (no `scale_map`, or one below its every minimum)."""
    if roster is None:
        raise LmsExportError(
            "export moodle needs the grading worksheet downloaded from Moodle (--roster "
            f"WORKSHEET.csv): Moodle accepts no upload without its {worksheet.GRADED!r} column"
        )
    items = _scale_items(roster, scale_map)
    out = Matched(column=worksheet.GRADE)
    sizes = Scale(our_maximum(reports), worksheet.maximum(roster), scale)
    maximum_note(sizes, f"Moodle's {worksheet.MAXIMUM[0]}", out)
    grade = roster.header.index(worksheet.GRADE)
    feedback = roster.column(worksheet.FEEDBACK)
    if feedback is None:
        out.notes.append(
            f"the worksheet has no {worksheet.FEEDBACK!r} column (feedback comments are off "
            "in the assignment): no summary written"
        )
    if bonus is not None and bonus.applied:
        out.notes.append(
            "the speed bonus is not in the worksheet (a grade above Moodle's maximum is "
            "dropped): `grader export moodle-gradebook OUT.csv --roster WORKSHEET.csv` "
            "writes it for the gradebook's import, into a grade item of its own"
        )
    matched = match_reports(reports, roster, out, teams, declared)
    rows = [list(roster.header)]
    cells = {}
    for index, row in enumerate(roster.rows):
        row = list(row)
        result = matched.get(index)
        late = lateness.get(result.submission.id, NOT_LATE) if result else NOT_LATE
        name = roster.name(row) or row[roster.header.index(worksheet.IDENTIFIER)]
        given = bonus.of(result.submission.id) if bonus is not None and result else 0.0
        skipped = _skipped(roster, row, result, late, items, scale_map, sizes.ours)
        if skipped:
            out.left_out.append(f"{name}: {skipped}: left out of the file")
            continue
        row[grade] = score_cell(result, late, row[grade], name, sizes, missing_as_zero, out)
        if items is not None and scale_map is not None and result is not None and result.settled:
            row[grade] = scale_map.item(late.final(result.score), sizes.ours) or ""
        cells[index] = row[grade]
        if result is not None and result.settled and feedback is not None:
            old = row[feedback].strip()
            if not old or SUMMARY.fullmatch(old):
                shown = sizes.points(late.final(result.score)) if sizes.scale else None
                team = teams.of(result.submission.id) if teams is not None else None
                row[feedback] = summary(result, late, shown, given, team)
        rows.append(row)
    _refuse_over(out, sizes)
    team_lines(matched, roster, teams, cells, out)
    note_decided(matched, out)
    out.text = write_rows(roster, rows)
    return out


def _scale_items(roster: Roster, scale_map: ScaleMap | None) -> tuple[str, ...] | None:
    """The worksheet's scale items (None: graded in points), once it is known to be
    Moodle's grading worksheet and `scale_map` (--scale-map) fits it."""
    missing = worksheet.missing_columns(roster)
    if missing:
        raise LmsExportError(
            f"{roster.path}: not Moodle's grading worksheet: no {', '.join(map(repr, missing))} "
            "column, and Moodle refuses an upload without it"
        )
    items = worksheet.scale(roster)
    if scale_map is not None:
        if items is None:
            raise LmsExportError(
                f"--scale-map: {roster.path.name} has no {worksheet.SCALE!r} column: the "
                "assignment is graded in points, not on a scale"
            )
        scale_map.check(items)
    return items


def _refuse_over(out: Matched, sizes: Scale) -> None:
    """Nothing written when a score is above the worksheet's maximum: Moodle's upload
    would drop its row without a word."""
    if out.over:
        raise LmsExportError(
            f"{len(out.over)} score(s) above Moodle's {worksheet.MAXIMUM[0]} "
            f"({'; '.join(out.over[:5])}): Moodle's upload would drop those rows without a "
            + (
                "word; scaled, the speed bonus still takes them above it: raise the "
                "assignment's Maximum grade in Moodle by the bonus, or set [leaderboard] "
                "bonus = 0 and give it by hand (nothing written)"
                if sizes.scale
                else f"word; --scale writes every score out of "
                f"{format_score(sizes.theirs or 0)} (nothing written)"
            )
        )


def _skipped(
    roster: Roster,
    row: list[str],
    result: SubmissionReport | None,
    late: Lateness,
    items: tuple[str, ...] | None,
    scale_map: ScaleMap | None,
    maximum: float,
) -> str:
    """Why Moodle's upload would skip this row's new grade without a word ("": it
    would not), as process_import_grades decides."""
    if result is None or not result.settled:
        return ""  # no new grade: the row keeps what Moodle has
    if worksheet.locked(roster, row):
        return (
            f"Moodle will not change this grade ({worksheet.CHANGEABLE}: No: locked or "
            "overridden in the gradebook)"
        )
    if items is None:
        return ""
    shown = ", ".join(items)
    if scale_map is None:
        return (
            f"the assignment is graded on a scale ({shown}), and Moodle drops a number: "
            "--scale-map maps scores to its items"
        )
    final = late.final(result.score)
    if scale_map.item(final, maximum) is None:
        return f"the score {format_score(final)} reaches no item of --scale-map"
    return ""


BONUS_ITEM = "Speed bonus"  # the default column of the gradebook import


def bonus_gradebook(
    reports: Sequence[SubmissionReport],
    roster: Roster,
    bonus: Award,
    *,
    column: str = BONUS_ITEM,
    teams: Teams | None = None,
    declared: Mapping[str, str] = DECLARED,
) -> Matched:
    """The speed bonus for Moodle's gradebook import (Grades > Import > CSV file,
    grade/import/csv), into a grade item of its own: an assignment's grade cannot go
    above its maximum. Two columns: "Email address", which the import maps to the
    user's e-mail, and `column`, mapped to the bonus item: the bonus for each
    participant of the grading worksheet (0 for everyone else, so the item is the
    whole class's). Moodle refuses the whole file for one address it does not know,
    one it finds twice, or one value it cannot read: the addresses are the worksheet's
    own (Moodle wrote them), each once, and the values plain numbers."""
    if not bonus.applied:
        raise LmsExportError(f"no speed bonus to write: {bonus.note}")
    email = roster.column(worksheet.EMAIL)
    if email is None or roster.column(worksheet.IDENTIFIER) is None:
        raise LmsExportError(
            f"{roster.path}: not a grading worksheet with {worksheet.EMAIL!r} (Moodle shows "
            "it where the site's identity fields include the e-mail): Moodle's gradebook "
            "import finds each person by it"
        )
    out = Matched(column=column)
    matched = match_reports(reports, roster, out, teams, declared)
    seen: dict[str, int] = {}
    for row in roster.rows:
        seen[row[email].strip().lower()] = seen.get(row[email].strip().lower(), 0) + 1
    rows = [[worksheet.EMAIL, column]]
    for index, row in enumerate(roster.rows):
        address = row[email].strip()
        name = roster.name(row) or row[roster.header.index(worksheet.IDENTIFIER)]
        if not address:
            out.empty.append(f"{name}: no e-mail address in the worksheet: left out")
            continue
        if seen[address.lower()] > 1:
            out.refused.append(
                f"{name}: {address} is also another participant's address: left out "
                "(Moodle's import refuses a whole file naming an address twice)"
            )
            continue
        result = matched.get(index)
        if result is not None and not result.settled:
            out.empty.append(
                f"{name}: no settled score ({result.unsettled}): left out, the gradebook "
                "keeps what it has"
            )
            continue
        given = bonus.of(result.submission.id) if result is not None else 0.0
        if given:
            out.bonus.append(f"{name}: +{format_score(given)} in {column!r}")
        rows.append([address, format_score(given)])
        out.filled += 1
    out.text = write_rows(roster, rows)
    return out
