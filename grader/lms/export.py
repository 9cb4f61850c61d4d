"""Scores back to the LMS: what Canvas's gradebook import CSV (grader/lms/canvas/export.py)
and Moodle's grading worksheet (grader/lms/moodle/export.py) share.

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

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from grader.core.errors import GraderError
from grader.course import identity
from grader.course.identity import Person
from grader.course.late import Lateness
from grader.course.submission_meta import SubmissionMeta, read_meta
from grader.intake.teams import Teams
from grader.judge.score import SubmissionReport, format_score
from grader.lms.matching import DECLARED, match_roster
from grader.lms.roster import Roster

EXCUSED = "EX"  # Canvas's cell for an excused student


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
class Scale:
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


def match_reports(
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


def team_lines(
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


def score_cell(
    result: SubmissionReport | None,
    late: Lateness,
    old: str,
    name: str,
    scale: Scale,
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
            f"{name}: excused in the LMS ({EXCUSED}): kept, not {_points_text(result, late, scale)}"
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


def note_decided(matched: dict[int, SubmissionReport], out: Matched) -> None:
    for result in sorted(
        {id(r): r for r in matched.values()}.values(), key=lambda r: r.submission.id
    ):
        out.decided += [f"{result.submission.id}: {d.describe()}" for d in result.decisions]


def _points_text(result: SubmissionReport, late: Lateness, scale: Scale) -> str:
    return format_score(scale.points(late.final(result.score)))


def maximum_note(scale: Scale, what: str, out: Matched) -> None:
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


def our_maximum(reports: Sequence[SubmissionReport]) -> float:
    return max((r.max_score for r in reports), default=0)
