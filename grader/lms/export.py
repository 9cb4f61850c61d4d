"""Scores back to the LMS: Canvas's gradebook import CSV and Moodle's grading worksheet.

Both start from the roster the instructor downloaded from the LMS, so every row
keeps the LMS's own identity columns exactly and only the assignment's column is
filled. A roster row is matched to a graded submission through the ids the
import kept (LMS user id, SIS ids, e-mail) or the folder name. A student with no
submission, or one not completely graded, gets an empty cell (a 0 only with
`[lms] missing_as_zero = true`), and the exported score is the final score: the
raw score less the late penalty; the penalty is printed beside it (and written
into Moodle's feedback column when that is empty).
"""

import csv
import io
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from grader.errors import GraderError
from grader.late import NOT_LATE, Lateness
from grader.lms.roster import CANVAS_IDENTITY, Roster, first_holding, first_match
from grader.score import SubmissionReport, format_score
from grader.submission_meta import read_meta

DEFAULT_ASSIGNMENT = "Scramble Squares"
_CANVAS_ASSIGNMENT = re.compile(r"^.+ \(\d+\)$")  # Canvas heads them "Name (assignment id)"


class LmsExportError(GraderError):
    """The export cannot be made; str() is the one-line reason."""


@dataclass
class Matched:
    text: str = ""  # the CSV
    column: str = ""  # the column holding the score
    filled: int = 0
    empty: list[str] = field(default_factory=list)  # roster students left empty, and why
    unmatched: list[str] = field(default_factory=list)  # graded, but not in the roster
    late: list[str] = field(default_factory=list)  # "id: raw 5, penalty -1 (note), final 4"


def _match(
    reports: Sequence[SubmissionReport], roster: Roster, out: Matched
) -> dict[int, SubmissionReport]:
    """Roster row index -> its submission (the first one sharing an id with the row);
    the submissions no row matches go to out.unmatched."""
    metas = (read_meta(r.submission.folder) for r in reports)
    first = first_holding(
        (meta.ids() if meta else set()) | {r.submission.id} for r, meta in zip(reports, metas)
    )
    found = {}
    for index, row in enumerate(roster.rows):
        position = first_match(roster.ids(row), first)
        if position is not None:
            found[index] = reports[position]
    used = {id(r) for r in found.values()}
    out.unmatched = [r.submission.id for r in reports if id(r) not in used]
    return found


def _cell(
    result: SubmissionReport | None, late: Lateness, missing_as_zero: bool, name: str, out: Matched
) -> str:
    if result is None:
        out.empty.append(f"{name}: no submission")
        return "0" if missing_as_zero else ""
    if not result.complete:
        out.empty.append(f"{name}: not completely graded (run `grader grade` again)")
        return ""
    if late.percent or late.late_marker:
        out.late.append(
            f"{result.submission.id}: raw {format_score(result.score)}, penalty "
            f"-{format_score(late.penalty(result.score))} ({late.note}), final "
            f"{format_score(late.final(result.score))}"
        )
    out.filled += 1
    return format_score(late.final(result.score))


def _csv(rows: list[list[str]]) -> str:
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\r\n").writerows(rows)
    return buffer.getvalue()


def canvas(
    reports: Sequence[SubmissionReport],
    lateness: dict[str, Lateness],
    roster: Roster,
    *,
    assignment: str | None = None,
    missing_as_zero: bool = False,
) -> Matched:
    out = Matched()
    target = _canvas_column(roster, assignment)
    out.column = target
    identity = [name for name in roster.header if name in CANVAS_IDENTITY]
    if not identity:
        raise LmsExportError(
            f"{roster.path}: not a Canvas gradebook export (no Student or ID column)"
        )
    picks = [roster.header.index(name) for name in identity]
    existing = roster.column(target)
    max_score = format_score(max((r.max_score for r in reports), default=0))
    rows = [identity + [target]]
    for row in roster.preamble:  # "Points Possible" (and a posting-policy row): keep them
        cell = row[existing] if existing is not None else ""
        if not cell.strip() and "Points Possible" in row[0]:
            cell = max_score
        rows.append([row[i] for i in picks] + [cell])
    matched = _match(reports, roster, out)
    for index, row in enumerate(roster.rows):
        result = matched.get(index)
        late = lateness.get(result.submission.id, NOT_LATE) if result else NOT_LATE
        name = roster.name(row) or row[picks[0]]
        rows.append([row[i] for i in picks] + [_cell(result, late, missing_as_zero, name, out)])
    out.text = _csv(rows)
    return out


def _canvas_column(roster: Roster, assignment: str | None) -> str:
    if assignment:
        for name in roster.header:
            if name == assignment or (
                name.startswith(assignment + " (") and _CANVAS_ASSIGNMENT.match(name)
            ):
                return name
        return assignment  # a new column: Canvas offers to create the assignment
    columns = [name for name in roster.header if _CANVAS_ASSIGNMENT.match(name)]
    if len(columns) == 1:
        return columns[0]
    if not columns:
        return DEFAULT_ASSIGNMENT
    raise LmsExportError(
        f"{roster.path}: {len(columns)} assignment columns "
        f"({', '.join(columns)}); name the one to fill with --assignment"
    )


MOODLE_COLUMNS = (
    "Identifier",
    "Full name",
    "Email address",
    "Grade",
    "Maximum Grade",
    "Feedback comments",
)


def moodle(
    reports: Sequence[SubmissionReport],
    lateness: dict[str, Lateness],
    roster: Roster | None,
    *,
    missing_as_zero: bool = False,
) -> Matched:
    """Moodle's offline grading worksheet (Assignment > "Upload grading worksheet"):
    the downloaded worksheet with Grade filled, or one built from the imported folders."""
    out = Matched(column="Grade")
    max_score = format_score(max((r.max_score for r in reports), default=0))
    if roster is None:
        roster = _worksheet_from_imports(reports)
    header = list(roster.header)
    for name in ("Grade", "Feedback comments"):
        if name not in header:
            header.append(name)
    grade, feedback = header.index("Grade"), header.index("Feedback comments")
    maximum = header.index("Maximum Grade") if "Maximum Grade" in header else None
    matched = _match(reports, roster, out)
    rows = [header]
    for index, row in enumerate(roster.rows):
        row = row + [""] * (len(header) - len(row))
        result = matched.get(index)
        late = lateness.get(result.submission.id, NOT_LATE) if result else NOT_LATE
        row[grade] = _cell(result, late, missing_as_zero, roster.name(row) or row[0], out)
        if maximum is not None and not row[maximum].strip():
            row[maximum] = max_score
        if result is not None and late.percent and not row[feedback].strip():
            row[feedback] = (
                f"Raw score {format_score(result.score)}, late penalty "
                f"-{format_score(late.penalty(result.score))} ({late.note})."
            )
        rows.append(row)
    out.text = _csv(rows)
    return out


def _worksheet_from_imports(reports: Sequence[SubmissionReport]) -> Roster:
    from pathlib import Path

    rows = []
    for r in reports:
        meta = read_meta(r.submission.folder)
        if meta is None or meta.lms != "moodle":
            continue
        rows.append([f"Participant {meta.lms_user_id}", meta.name, "", "", "", ""])
    if not rows:
        raise LmsExportError(
            "no submission was imported from Moodle: pass the grading "
            "worksheet downloaded from Moodle with --roster"
        )
    return Roster(Path("(imported folders)"), list(MOODLE_COLUMNS), rows)
