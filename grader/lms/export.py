"""Scores back to the LMS: Canvas's gradebook import CSV and Moodle's grading worksheet.

Both start from the file the instructor downloaded from the LMS, and give back what
its import accepts without damaging anything it holds:
- every row keeps the LMS's own identity columns exactly, whatever they are, and
  the file keeps its separator (`,` or `;`) and byte-order mark;
- only the assignment's column is filled, with the final score (raw score less the
  late penalty, which is listed beside it); a student without a new score (no
  submission, a score not settled: a case not graded, judged under other rules, or the
  grader's failure, IE) keeps the cell the file had: an excused `EX`,
  a score typed into the LMS by hand. An empty cell stays empty, or becomes 0 with
  `[lms] missing_as_zero = true`. A Canvas `EX` is kept even with a new score: the
  student is excused;
- a score above the LMS's maximum (Canvas's Points Possible, Moodle's Maximum grade,
  which Moodle's upload enforces by dropping the row without a word) is named, and
  `scale` writes every score as a share of the LMS's maximum instead;
- every member of a team (grader.intake.teams) gets the team's score in their own row: a row
  is matched to the submission whose team has a member with one of the row's ids; a
  member no row knows is named, and so is each team written to several rows;
- the speed bonus (grader.results.bonus) is added to the score of every member of a team
  ranked 1, in the LMS's points (after `scale`), and named per row; Canvas can take it
  in a column of its own instead (`bonus_column`: Canvas makes it an assignment).
  Moodle's worksheet upload reads one grade per participant: there it is added;
- the instructor's decisions (`grader override`) are in the score, and named with
  their reasons (in Moodle's feedback comment too).

Canvas (lib/gradebook_importer.rb) reads a header whose first columns are Student
(or LastName, FirstName) and ID, and whose student columns end with Section; the
"Points Possible" and "Manual Posting" rows under it are not students. Moodle
(mod/assign/feedback/offline/importgradeslib.php) refuses a file without
Identifier, Grade and "Last modified (grade)", so `export moodle` needs the
worksheet Moodle wrote: nothing else has each participant's "Last modified (grade)".
"""

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from grader.core.errors import GraderError
from grader.core.model import Verdict
from grader.course import identity
from grader.course.identity import Person
from grader.course.late import NOT_LATE, Lateness
from grader.course.submission_meta import SubmissionMeta, read_meta
from grader.intake.teams import Team, Teams
from grader.judge.score import SubmissionReport, format_score
from grader.judge.student_view import shown_decisions
from grader.lms import worksheet
from grader.lms.matching import DECLARED, match_roster
from grader.lms.roster import Roster, number, write_rows
from grader.lms.scales import ScaleMap
from grader.results.bonus import Award

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
    teams: list[str] = field(default_factory=list)  # "Team (id): 5 to Ada, Bo": each team's rows
    unknown_members: list[str] = field(default_factory=list)  # team members no row knows
    refused: list[str] = field(default_factory=list)  # rows matched ambiguously: left alone
    bonus: list[str] = field(default_factory=list)  # "Ada: +15 (speed bonus)", per row
    decided: list[str] = field(default_factory=list)  # "id: the instructor's decision"
    # Rows the LMS would skip, named and left out of the file (a locked grade, a scale
    # without a map): written, but not everything is in it.
    left_out: list[str] = field(default_factory=list)


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


def people_of(
    reports: Sequence[SubmissionReport], teams: Teams | None
) -> tuple[list[Person], list[str]]:
    """(everyone whose grade is a submission's: a team's members, or the student alone,
    each by their keys; the submissions with nobody to grade: replaced, undecided)."""
    people, nobody = [], []
    for r in reports:
        sid = r.submission.id
        team = teams.of(sid) if teams is not None else None
        if team is not None and not team.counts:
            nobody.append(sid)  # its team's newer submission counts, or none does yet
        elif team is not None and team.members:
            people += [
                Person(sid, m.shown, m.keys or ((identity.ANY, m.id),)) for m in team.members
            ]
        else:
            people += _recorded_people(sid, read_meta(r.submission.folder))
    return people, nobody


def _recorded_people(sid: str, meta: SubmissionMeta | None) -> list[Person]:
    """Without the team model: who the import recorded the submission is for."""
    team = meta.team if meta is not None else None
    if team is not None and team.members and not team.graded_alone:
        return [
            Person(sid, m.name or m.lms_user_id, m.keys or ((identity.ANY, m.lms_user_id),))
            for m in team.members
        ]
    keys = meta.keys if meta is not None and meta.keys else ((identity.ANY, sid),)
    return [Person(sid, sid, keys)]


def _match(
    reports: Sequence[SubmissionReport],
    roster: Roster,
    out: Matched,
    teams: Teams | None,
    declared: Mapping[str, str] = DECLARED,
) -> dict[int, SubmissionReport]:
    """Roster row index -> its submission, each row by its LMS's own keys in its
    order, each person by theirs (grader.course.identity): a row two submissions claim and a
    person two rows claim get nothing, and are named. The submissions no row matches go
    to out.unmatched, team members no row knows to out.unknown_members."""
    people, _ = people_of(reports, teams)
    found = match_roster(roster, people, declared)
    out.refused += found.refused
    by_id = {r.submission.id: r for r in reports}
    matched = {index: by_id[sid] for index, sid in found.rows.items()}
    used = set(found.rows.values())
    graded = {p.submission for p in people}
    out.unmatched = [sid for sid in by_id if sid in graded and sid not in used]
    out.anonymous = [sid for sid in out.unmatched if _anonymous(by_id[sid])]
    lonely = {id(p) for p in found.unmatched(people)}
    for person in people:
        team = teams.of(person.submission) if teams is not None else None
        if team is None or len(team.members) < 2 or person.submission not in used:
            continue  # a student alone no row knows is an unmatched submission
        if id(person) in lonely:
            out.unknown_members.append(f"{person.label} of {team.name} ({person.submission})")
    return matched


def _anonymous(result: SubmissionReport) -> bool:
    meta = read_meta(result.submission.folder)
    return meta is not None and bool(meta.anonymous_id)


def _team_lines(
    matched: dict[int, SubmissionReport],
    roster: Roster,
    teams: Teams | None,
    cells: dict[int, str],
    out: Matched,
) -> None:
    """Each team of several written to the roster: its name, the score, its rows."""
    if teams is None:
        return
    rows: dict[str, list[int]] = {}
    for index, result in matched.items():
        rows.setdefault(result.submission.id, []).append(index)
    for sid, indices in sorted(rows.items()):
        team = teams.of(sid)
        if len(team.members) < 2:
            continue
        names = [roster.name(roster.rows[i]) or "?" for i in indices]
        written = sorted({cells[i] for i in indices})
        out.teams.append(f"{team.name} ({sid}): {' / '.join(written)} to {', '.join(names)}")


def _cell(
    result: SubmissionReport | None,
    late: Lateness,
    old: str,
    name: str,
    scale: _Scale,
    missing_as_zero: bool,
    out: Matched,
    bonus: float = 0.0,
) -> str:
    """The score to write (with `bonus` added), or the roster's own cell where there is
    no new one."""
    if result is None or not result.settled:
        why = "no submission" if result is None else f"no settled score: {result.unsettled}"
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
        line = (
            f"{result.submission.id}: raw {format_score(result.score)}, penalty "
            f"-{format_score(late.penalty(result.score))} ({late.note}), final "
            f"{format_score(late.final(result.score))}"
        )
        if line not in out.late:  # a team's, once for all its members
            out.late.append(line)
    written = scale.points(late.final(result.score)) + bonus
    if bonus:
        out.bonus.append(f"{name}: +{format_score(bonus)} (speed bonus)")
    if scale.theirs is not None and written > scale.theirs:
        out.over.append(f"{name}: {format_score(written)} > {format_score(scale.theirs)}")
    out.filled += 1
    return format_score(written)


def _decided(matched: dict[int, SubmissionReport], out: Matched) -> None:
    for result in sorted(
        {id(r): r for r in matched.values()}.values(), key=lambda r: r.submission.id
    ):
        out.decided += [f"{result.submission.id}: {d.describe()}" for d in result.decisions]


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
    sizes = _Scale(_our_maximum(reports), points, scale)
    _maximum_note(sizes, "Canvas's Points Possible", out)
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
    matched = _match(reports, roster, out, teams, declared)
    cells = {}
    for index, row in enumerate(roster.rows):
        result = matched.get(index)
        late = lateness.get(result.submission.id, NOT_LATE) if result else NOT_LATE
        name = roster.name(row) or row[columns.index("ID") if "ID" in columns else 0]
        old = row[existing] if existing is not None else ""
        given = bonus.of(result.submission.id) if bonus is not None and result else 0.0
        inline = given if bonus_column is None else 0.0
        cell = _cell(result, late, old, name, sizes, missing_as_zero, out, inline)
        cells[index] = cell
        added = []
        if bonus_column is not None:
            old_bonus = row[extra] if extra is not None else ""
            graded = result is not None and result.settled and old.strip().upper() != EXCUSED
            added = [format_score(given) if graded else old_bonus]
            if graded and given:
                out.bonus.append(f"{name}: +{format_score(given)} in {bonus_column!r}")
        rows.append([row[i] for i in picks] + [cell] + added)
    _team_lines(matched, roster, teams, cells, out)
    _decided(matched, out)
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


# ------------------------------------------------------------------ Moodle


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


def moodle(
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
    out = Matched(column=worksheet.GRADE)
    sizes = _Scale(_our_maximum(reports), worksheet.maximum(roster), scale)
    _maximum_note(sizes, f"Moodle's {worksheet.MAXIMUM[0]}", out)
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
    matched = _match(reports, roster, out, teams, declared)
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
        row[grade] = _cell(result, late, row[grade], name, sizes, missing_as_zero, out)
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
    _team_lines(matched, roster, teams, cells, out)
    _decided(matched, out)
    out.text = write_rows(roster, rows)
    return out


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


def moodle_gradebook(
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
    matched = _match(reports, roster, out, teams, declared)
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
