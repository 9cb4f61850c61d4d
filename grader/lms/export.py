"""Scores back to the LMS: Canvas's gradebook import CSV and Moodle's grading worksheet.

Both start from the file the instructor downloaded from the LMS, and give back what
its import accepts without damaging anything it holds:
- every row keeps the LMS's own identity columns exactly, whatever they are, and
  the file keeps its separator (`,` or `;`) and byte-order mark;
- only the assignment's column is filled, with the final score (raw score less the
  late penalty, which is listed beside it); a student without a new score (no
  submission, not completely graded) keeps the cell the file had: an excused `EX`,
  a score typed into the LMS by hand. An empty cell stays empty, or becomes 0 with
  `[lms] missing_as_zero = true`. A Canvas `EX` is kept even with a new score: the
  student is excused;
- a score above the LMS's maximum (Canvas's Points Possible, Moodle's Maximum Grade,
  which Moodle's upload enforces by dropping the row without a word) is named, and
  `scale` writes every score as a share of the LMS's maximum instead.

Canvas (lib/gradebook_importer.rb) reads a header whose first columns are Student
(or LastName, FirstName) and ID, and whose student columns end with Section; the
"Points Possible" and "Manual Posting" rows under it are not students. Moodle
(mod/assign/feedback/offline/importgradeslib.php) refuses a file without
Identifier, Grade and "Last modified (grade)", so `export moodle` needs the
worksheet Moodle wrote: nothing else has each participant's "Last modified (grade)".
"""

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from grader.errors import GraderError
from grader.late import NOT_LATE, Lateness
from grader.lms import worksheet
from grader.lms.roster import Roster, first_holding, first_match, number, write_rows
from grader.model import Verdict
from grader.score import SubmissionReport, format_score
from grader.submission_meta import read_meta

DEFAULT_ASSIGNMENT = "Scramble Squares"
_CANVAS_ASSIGNMENT = re.compile(r"^.+ \(\d+\)$")  # Canvas heads them "Name (assignment id)"
EXCUSED = "EX"  # Canvas's cell for an excused student
# The one-line summary written into Moodle's "Feedback comments": a cell holding exactly
# one is the grader's own and is brought up to date; anything else is the instructor's.
SUMMARY = re.compile(r"Scramble Squares grader: \d+ of \d+ cases passed; [^\n]*\.")


class LmsExportError(GraderError):
    """The export cannot be made; str() is the one-line reason."""


@dataclass
class Matched:
    text: str = ""  # the CSV
    column: str = ""  # the column holding the score
    filled: int = 0
    empty: list[str] = field(default_factory=list)  # roster students left empty, and why
    kept: list[str] = field(default_factory=list)  # cells left as the roster had them, why
    unmatched: list[str] = field(default_factory=list)  # graded, but not in the roster
    anonymous: list[str] = field(default_factory=list)  # of those, Canvas's anonymous ones
    late: list[str] = field(default_factory=list)  # "id: raw 5, penalty -1 (note), final 4"
    over: list[str] = field(default_factory=list)  # scores above the LMS's maximum
    notes: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class _Scale:
    """Scores as written: the grader's points, or the LMS's (`scale`)."""

    ours: float  # the grader's maximum
    theirs: float | None  # the LMS's maximum, None when the file gives none
    scale: bool

    def points(self, score: float) -> float:
        if self.scale and self.theirs is not None and self.ours:
            return round(score * self.theirs / self.ours, 2)
        return score


def _match(
    reports: Sequence[SubmissionReport], roster: Roster, out: Matched
) -> dict[int, SubmissionReport]:
    """Roster row index -> its submission (the first one sharing an id with the row);
    the submissions no row matches go to out.unmatched."""
    metas = [read_meta(r.submission.folder) for r in reports]
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
    out.anonymous = [
        r.submission.id
        for r, meta in zip(reports, metas)
        if id(r) not in used and meta is not None and meta.anonymous_id
    ]
    return found


def _cell(
    result: SubmissionReport | None,
    late: Lateness,
    old: str,
    name: str,
    scale: _Scale,
    missing_as_zero: bool,
    out: Matched,
) -> str:
    """The score to write, or the roster's own cell where there is no new one."""
    if result is None or not result.complete:
        why = "no submission" if result is None else "not completely graded (run `grader grade`)"
        if old.strip():
            out.kept.append(f"{name}: {why}; the cell keeps {old.strip()!r}")
            return old
        out.empty.append(f"{name}: {why}")
        return "0" if missing_as_zero and result is None else ""
    if old.strip().upper() == EXCUSED:
        out.kept.append(
            f"{name}: excused in the LMS ({EXCUSED}): kept, not {_points(result, late, scale)}"
        )
        return old
    if late.percent or late.late_marker:
        out.late.append(
            f"{result.submission.id}: raw {format_score(result.score)}, penalty "
            f"-{format_score(late.penalty(result.score))} ({late.note}), final "
            f"{format_score(late.final(result.score))}"
        )
    written = scale.points(late.final(result.score))
    if scale.theirs is not None and written > scale.theirs:
        out.over.append(f"{name}: {format_score(written)} > {format_score(scale.theirs)}")
    out.filled += 1
    return format_score(written)


def _points(result: SubmissionReport, late: Lateness, scale: _Scale) -> str:
    return format_score(scale.points(late.final(result.score)))


def _maximum_note(scale: _Scale, what: str, out: Matched) -> None:
    if scale.theirs is None or scale.theirs == scale.ours:
        return
    if scale.scale:
        out.notes.append(
            f"scores scaled to {what} {format_score(scale.theirs)}: each is score x "
            f"{format_score(scale.theirs)} / {format_score(scale.ours)}"
        )
    else:
        out.notes.append(
            f"the grader's maximum is {format_score(scale.ours)}, {what} "
            f"{format_score(scale.theirs)}: scores are written as they are (--scale writes "
            f"them out of {format_score(scale.theirs)})"
        )


def _our_maximum(reports: Sequence[SubmissionReport]) -> float:
    return max((r.max_score for r in reports), default=0)


# ------------------------------------------------------------------ Canvas


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


def canvas(
    reports: Sequence[SubmissionReport],
    lateness: dict[str, Lateness],
    roster: Roster,
    *,
    assignment: str | None = None,
    missing_as_zero: bool = False,
    scale: bool = False,
) -> Matched:
    out = Matched()
    identity = canvas_identity(roster)
    target = _canvas_column(roster, assignment)
    out.column = target
    picks = list(range(len(identity)))
    existing = roster.column(target)
    points = None
    for row in roster.preamble:
        if existing is not None and "Points Possible" in row[0]:
            points = number(row[existing])
    sizes = _Scale(_our_maximum(reports), points, scale)
    _maximum_note(sizes, "Canvas's Points Possible", out)
    rows = [identity + [target]]
    for row in roster.preamble:  # "Points Possible" (and a posting-policy row): keep them
        cell = row[existing] if existing is not None else ""
        if not cell.strip() and "Points Possible" in row[0]:
            cell = format_score(sizes.ours)
        rows.append([row[i] for i in picks] + [cell])
    matched = _match(reports, roster, out)
    for index, row in enumerate(roster.rows):
        result = matched.get(index)
        late = lateness.get(result.submission.id, NOT_LATE) if result else NOT_LATE
        name = roster.name(row) or row[identity.index("ID") if "ID" in identity else 0]
        old = row[existing] if existing is not None else ""
        cell = _cell(result, late, old, name, sizes, missing_as_zero, out)
        rows.append([row[i] for i in picks] + [cell])
    out.text = write_rows(roster, rows)
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


# ------------------------------------------------------------------ Moodle


def summary(result: SubmissionReport, late: Lateness, scale: float | None = None) -> str:
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
    return text.replace("\n", " ") + "."


def moodle(
    reports: Sequence[SubmissionReport],
    lateness: dict[str, Lateness],
    roster: Roster | None,
    *,
    missing_as_zero: bool = False,
    scale: bool = False,
) -> Matched:
    """Moodle's offline grading worksheet (Assignment > "Upload grading worksheet"): the
    downloaded worksheet with Grade filled and a one-line summary as feedback."""
    if roster is None:
        raise LmsExportError(
            "export moodle needs the grading worksheet downloaded from Moodle (--roster "
            f"WORKSHEET.csv): Moodle accepts no upload without its {worksheet.GRADED!r} column"
        )
    missing = worksheet.missing_columns(roster)
    if missing:
        raise LmsExportError(
            f"{roster.path}: not Moodle's grading worksheet: no {', '.join(map(repr, missing))} "
            "column, and Moodle refuses an upload without it"
        )
    if roster.column("Scale") is not None:
        raise LmsExportError(
            f"{roster.path}: the assignment is graded on a scale: Moodle takes a scale's "
            "words, not the grader's points"
        )
    out = Matched(column=worksheet.GRADE)
    sizes = _Scale(_our_maximum(reports), worksheet.maximum(roster), scale)
    _maximum_note(sizes, f"Moodle's {worksheet.MAXIMUM}", out)
    grade = roster.header.index(worksheet.GRADE)
    feedback = roster.column(worksheet.FEEDBACK)
    if feedback is None:
        out.notes.append(
            f"the worksheet has no {worksheet.FEEDBACK!r} column (feedback comments are off "
            "in the assignment): no summary written"
        )
    matched = _match(reports, roster, out)
    rows = [list(roster.header)]
    for index, row in enumerate(roster.rows):
        row = list(row)
        result = matched.get(index)
        late = lateness.get(result.submission.id, NOT_LATE) if result else NOT_LATE
        name = roster.name(row) or row[roster.header.index(worksheet.IDENTIFIER)]
        row[grade] = _cell(result, late, row[grade], name, sizes, missing_as_zero, out)
        if result is not None and result.complete and feedback is not None:
            old = row[feedback].strip()
            if not old or SUMMARY.fullmatch(old):
                shown = sizes.points(late.final(result.score)) if sizes.scale else None
                row[feedback] = summary(result, late, shown)
        rows.append(row)
    out.text = write_rows(roster, rows)
    return out
