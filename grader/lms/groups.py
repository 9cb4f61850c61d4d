"""Canvas's group set export: who is in which group of a group assignment.

Canvas's download of a group assignment holds one member's submission per group (the
one who submitted, named by their user id): the group set export says who else is in
it. People > the group set's tab > its options (⋮) > Export, i.e. Canvas's
`GET /api/v1/group_categories/:id/export` (GroupCategoriesController#export), writes
one row per student of the course:

    name,canvas_user_id,user_id,login_id,sections,group_name,canvas_group_id,group_id

`user_id` is the SIS id and `login_id` the login; `group_name` is empty for a student
in no group, and the last two columns (Canvas's group id, the group's SIS id) appear only
when some student is in a group. Read here: `group_name` (needed), `canvas_group_id`
when present, and each member by `canvas_user_id` (the id the download and the
gradebook's ID column use), keeping `user_id` and `login_id` as their other ids (what
a roster may match on). A student in two groups of one set is refused: Canvas allows
one group per set.
"""

import csv
import io
from dataclasses import dataclass, field
from pathlib import Path

from grader.core.bounded import read_text
from grader.core.errors import GraderError
from grader.course import identity
from grader.course.submission_meta import Team, TeamMember

MAX_BYTES = 8 << 20
# The group set's own id columns: its user_id is the SIS user id, its login_id the login.
_KINDS = (("user_id", identity.CANVAS_SIS), ("login_id", identity.CANVAS_LOGIN))
NEEDED = ("canvas_user_id", "group_name")


class GroupsError(GraderError):
    """The group set export cannot be used; str() names the file and the problem."""


@dataclass
class GroupSet:
    source: str  # the file's name, for messages
    teams: dict[str, Team] = field(default_factory=dict)  # by Canvas user id of each member

    def team_of(self, user_id: str) -> Team | None:
        return self.teams.get(user_id)


def read_groups(path: Path) -> GroupSet:
    path = Path(path)
    text = read_text(path, MAX_BYTES, "the group set", GroupsError)
    rows = list(csv.reader(io.StringIO(text, newline="")))
    header = [name.strip() for name in rows[0]] if rows else []
    missing = [name for name in NEEDED if name not in header]
    if missing:
        raise GroupsError(
            f"{path}: not Canvas's group set export: no {' or '.join(missing)} column "
            "(People > the group set > Export: name, canvas_user_id, user_id, login_id, "
            "sections, group_name, canvas_group_id, group_id)"
        )
    column = {name: header.index(name) for name in header}

    def cell(row: list[str], name: str) -> str:
        index = column.get(name)
        return row[index].strip() if index is not None and index < len(row) else ""

    members: dict[tuple[str, str], list[TeamMember]] = {}
    seen: dict[str, tuple[str, str]] = {}
    for number, row in enumerate(rows[1:], start=2):
        user, group = cell(row, "canvas_user_id"), cell(row, "group_name")
        if not user or not group:  # a student in no group: a team of their own
            continue
        key = (cell(row, "canvas_group_id"), group)
        if seen.setdefault(user, key) != key:
            raise GroupsError(
                f"{path}: line {number}: user {user} is in two groups of the set "
                f"({seen[user][1]!r} and {group!r})"
            )
        others = tuple(i for i in (cell(row, "user_id"), cell(row, "login_id")) if i)
        keys = ((identity.CANVAS_USER, user),) + tuple(
            (kind, cell(row, column)) for column, kind in _KINDS if cell(row, column)
        )
        members.setdefault(key, []).append(TeamMember(user, cell(row, "name"), others, keys))
    found = GroupSet(path.name)
    for (group_id, name), people in members.items():
        team = Team(group_id=group_id, group_name=name, members=tuple(people))
        for person in people:
            found.teams[person.lms_user_id] = team
    return found
