"""The course's extensions file: each person's own due date, as the instructor gives it.

`[late] extensions` in course.toml names a CSV file (relative to course.toml) with a
header and the columns `person` (any id the LMS gives the student: a Canvas user or
SIS id, a Moodle participant id, a Gradescope sid or e-mail, a hand-made folder's name)
and `due` (ISO 8601, as course.toml's deadline; without an offset it is on the course's
clock); other columns (a reason, say) are for people. It is for what no LMS file says
(Gradescope's export names no due dates) and for the instructor's word over the LMS's:
a person's entry comes before any due date the import recorded (grader.course.late).

A team's submission is due when its latest member is: one program is one submission.
An id that two different people hold is refused in one line: a due date is never given
to a stranger. A person with no submission in the class is named, and changes nothing.
"""

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, tzinfo
from pathlib import Path

from grader.core.errors import GraderError
from grader.course.config import CourseConfig
from grader.course.course_csv import read_course_csv
from grader.course.late import Due, Lateness, Reported, lateness_of
from grader.course.zones import instant
from grader.intake.teams import Teams

PERSON_COLUMN, DUE_COLUMN = "person", "due"


class ExtensionsError(GraderError):
    """The extensions file cannot be used; str() is one line naming the problem."""


@dataclass(frozen=True)
class Extension:
    person: str  # an id of any kind
    due: datetime
    line: int  # in the file, for messages


def extensions_file(config: CourseConfig) -> Path | None:
    """[late] extensions, relative to course.toml; None when unset."""
    if not config.late.extensions:
        return None
    base = config.source.parent if config.source is not None else Path.cwd()
    return base / config.late.extensions


def read_extensions(path: Path) -> list[Extension]:
    table = read_course_csv(
        path,
        "the extensions file ([late] extensions in course.toml)",
        {PERSON_COLUMN: "any id the LMS gives them", DUE_COLUMN: "ISO 8601"},
        ExtensionsError,
    )
    found = []
    for number, row in table:
        who, when = table.cell(row, PERSON_COLUMN), table.cell(row, DUE_COLUMN)
        if not who:
            raise ExtensionsError(f"{path}: line {number}: no {PERSON_COLUMN}")
        try:
            moment = datetime.fromisoformat(when)
        except ValueError:
            raise ExtensionsError(
                f"{path}: line {number}: {DUE_COLUMN} {when!r} is not an ISO 8601 time "
                "(2026-03-12T23:59, or with its offset: 2026-03-12T23:59-05:00)"
            ) from None
        found.append(Extension(who, moment, number))
    return found


def submission_dues(
    extensions: Sequence[Extension], teams: Teams, source: str, zone: tzinfo
) -> tuple[dict[str, Due], list[str]]:
    """(submission -> its due date: its latest member's; one line per entry that
    names nobody in the class or an id two people hold)."""
    holders: dict[str, dict[str, list[str]]] = {}  # id -> person -> their submissions
    for sid, team in teams.by_submission.items():
        for member in team.members:
            values = {member.id, *member.other_ids, *(value for _, value in member.keys)}
            for value in values:
                holders.setdefault(value, {}).setdefault(member.id, []).append(sid)
    dues: dict[str, Due] = {}
    notes = []
    for entry in extensions:
        people = holders.get(entry.person, {})
        where = f"{source} line {entry.line}"
        if len(people) > 1:
            first, second = sorted(people)[:2]
            notes.append(
                f"{where}: {entry.person!r} is an id of two people, {first} and {second}: "
                "not applied (name the person by an id only they have)"
            )
            continue
        if not people:
            notes.append(f"{where}: {entry.person!r} has no submission in the class")
            continue
        for sid in next(iter(people.values())):
            if sid not in dues or instant(entry.due, zone) > instant(dues[sid].at, zone):
                dues[sid] = Due(entry.due, where)
    return dues, notes


def class_lateness(
    reports: Iterable[Reported], config: CourseConfig, teams: Teams
) -> tuple[dict[str, Lateness], list[str]]:
    """Each report's lateness under the course's policy, on each student's own due
    date; the extensions file's lines that changed nothing, for a warning."""
    path = extensions_file(config)
    if path is None:
        return lateness_of(reports, config.late), []
    dues, notes = submission_dues(read_extensions(path), teams, path.name, config.late.zone)
    return lateness_of(reports, config.late, dues), notes
