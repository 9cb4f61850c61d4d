"""Canvas's gradebook import CSV: the final scores, in the column of the assignment
(grader/lms/export.py: what every LMS's score export shares; Canvas's rules:
lib/gradebook_importer.rb)."""

import re
from collections.abc import Mapping, Sequence

from grader.course.late import NOT_LATE, Lateness
from grader.intake.teams import Teams
from grader.judge.score import SubmissionReport, format_score
from grader.lms.export import (
    EXCUSED,
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
from grader.lms.roster import Roster, number, write_rows
from grader.results.bonus import Award

DEFAULT_ASSIGNMENT = "Scramble Squares"

_CANVAS_ASSIGNMENT = re.compile(r"^.+ \(\d+\)$")  # Canvas heads them "Name (assignment id)"


def canvas_identity(roster: Roster) -> list[str]:
    """The student columns Canvas's import reads, as the roster has them: Student (or
    LastName, FirstName), ID, ..., Section. Refused when Canvas would refuse them."""
    header = roster.header
    first_last = len(header) > 2 and header[0] == "LastName" and header[1] == "FirstName"
    ids = 2 if first_last else 1
    student = first_last or (len(header) > 1 and "Student" in header[0])
    if not student or len(header) <= ids or "ID" not in header[ids] or "Section" not in header:
        raise LmsExportError(
            f"{roster.path}: not a Canvas gradebook export: Canvas reads Student (or "
            "LastName, FirstName), then ID, then the student columns up to Section "
            "(Grades > Export > Export Entire Gradebook)"
        )
    return header[: header.index("Section") + 1]


def scores(
    reports: Sequence[SubmissionReport],
    lateness: dict[str, Lateness],
    roster: Roster,
    *,
    assignment: str | None = None,
    missing_as_zero: bool = False,
    scale: bool = False,
    teams: Teams | None = None,
    bonus: Award | None = None,
    bonus_column: str | None = None,
    declared: Mapping[str, str] = DECLARED,
    new_column: bool = False,
) -> Matched:
    """`bonus_column`: the speed bonus in a column of that name (Canvas makes it an
    assignment of its own), not added to the score. A title names a column as Canvas's
    import finds it ("Title (id)", or the title alone); a title no column has makes a
    new assignment in Canvas, so it is written only with `new_column`."""
    out = Matched()
    columns = canvas_identity(roster)
    target = _canvas_column(roster, assignment, new_column)
    if bonus_column is not None:
        bonus_column = _titled(roster, bonus_column, new_column, "--bonus-column")
    if bonus_column is not None and bonus_column in (target, *columns):
        raise LmsExportError(
            f"--bonus-column {bonus_column!r}: that column holds the score or a student's "
            "identity; name another"
        )
    out.column = target
    picks = list(range(len(columns)))
    existing = roster.column(target)
    extra = roster.column(bonus_column) if bonus_column is not None else None
    points = None
    for row in roster.preamble:
        if existing is not None and "Points Possible" in row[0]:
            points = number(row[existing])
    sizes = Scale(our_maximum(reports), points, scale)
    maximum_note(sizes, "Canvas's Points Possible", out)
    rows = [columns + [target] + ([bonus_column] if bonus_column is not None else [])]
    for row in roster.preamble:  # "Points Possible" (and a posting-policy row): keep them
        cell = row[existing] if existing is not None else ""
        if not cell.strip() and "Points Possible" in row[0]:
            cell = format_score(sizes.ours)
        added = []
        if bonus_column is not None:
            old = row[extra] if extra is not None else ""
            added = [old if old.strip() or "Points Possible" not in row[0] else "0"]
        rows.append([row[i] for i in picks] + [cell] + added)
    matched = match_reports(reports, roster, out, teams, declared)
    cells = {}
    for index, row in enumerate(roster.rows):
        result = matched.get(index)
        late = lateness.get(result.submission.id, NOT_LATE) if result else NOT_LATE
        name = roster.name(row) or row[columns.index("ID") if "ID" in columns else 0]
        old = row[existing] if existing is not None else ""
        given = bonus.of(result.submission.id) if bonus is not None and result else 0.0
        inline = given if bonus_column is None else 0.0
        cell = score_cell(result, late, old, name, sizes, missing_as_zero, out, inline)
        cells[index] = cell
        added = []
        if bonus_column is not None:
            old_bonus = row[extra] if extra is not None else ""
            graded = result is not None and result.settled and old.strip().upper() != EXCUSED
            added = [format_score(given) if graded else old_bonus]
            if graded and given:
                out.bonus.append(f"{name}: +{format_score(given)} in {bonus_column!r}")
        rows.append([row[i] for i in picks] + [cell] + added)
    team_lines(matched, roster, teams, cells, out)
    note_decided(matched, out)
    out.text = write_rows(roster, rows)
    return out


def _canvas_column(roster: Roster, assignment: str | None, new_column: bool) -> str:
    if assignment:
        return _titled(roster, assignment, new_column, "--assignment")
    columns = _assignment_columns(roster)
    if len(columns) == 1:
        return columns[0]
    if not columns:
        if new_column:
            return DEFAULT_ASSIGNMENT
        raise LmsExportError(
            f"{roster.path}: no assignment column: name one with --assignment, or "
            f"--new-column to write {DEFAULT_ASSIGNMENT!r} (Canvas makes it a new assignment)"
        )
    raise LmsExportError(
        f"{roster.path}: {len(columns)} assignment columns "
        f"({', '.join(columns)}); name the one to fill with --assignment"
    )


def _titled(roster: Roster, title: str, new_column: bool, option: str) -> str:
    """The one column `title` names, as Canvas's import finds it: "Title (id)" by its
    title or whole, or a column of exactly that name. Two are refused (Canvas would
    fill the one its order finds first); none, without `new_column`, too (Canvas would
    make a new assignment of a mistyped title)."""
    found = [
        name
        for name in roster.header
        if name == title or (_CANVAS_ASSIGNMENT.match(name) and name[: name.rindex(" (")] == title)
    ]
    if len(found) == 1:
        return found[0]
    if found:
        raise LmsExportError(
            f"{option} {title!r}: {len(found)} columns of {roster.path.name} have that title "
            f"({', '.join(found)}): name one whole, with its id"
        )
    if new_column:
        return title
    known = ", ".join(_assignment_columns(roster)) or "none"
    raise LmsExportError(
        f"{option} {title!r}: no column of {roster.path.name} has that title (its "
        f"assignments: {known}); --new-column writes a new one, which Canvas makes a new "
        "assignment"
    )


def _assignment_columns(roster: Roster) -> list[str]:
    return [name for name in roster.header if _CANVAS_ASSIGNMENT.match(name)]
