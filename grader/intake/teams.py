"""Who handed in each submission: its team of one or more students, and which submission
counts when a team handed in twice.

Where a submission's team comes from, first found first:
1. what the LMS says, as the import recorded it in the folder's `.lms.json`
   (grader.course.submission_meta): Gradescope's submitters, a Moodle team folder and the
   worksheet's Group column, a Canvas group set (`import canvas --teams GROUPS.csv`).
   A Canvas group graded individually gives each member their own copy: each is that
   member's alone (their grade), and the copies holding the same files are the group's
   one program on the leaderboard: ranked once, the bonus to every member of them;
2. for a folder whose import recorded no team (or one made by hand), the course's
   teams file (`[teams] file` in course.toml, relative to it): a CSV with a header,
   one row per member, the column `team` naming the team's submission folder and
   `member` the member by any id the roster knows (an optional `name` column names them);
3. else the student alone: a team of one, known by the folder's id (and every id the
   import recorded).

A student belongs to one team: an id in two teams is an error naming both. A team that
handed in twice (two folders of one LMS group, or of the same members) counts its newer
submission: by the submission times the LMS gave, else when the downloads were made;
never by the files' times, which a student's archive sets. Where nothing tells, the
team's submissions count for no one (a note says which to remove) and the class is
graded. Each member is known by the keys its source gives (grader.course.identity); a teams
file's member, by an id of any kind. Nothing here reads a roster: which members the
roster knows is the LMS exports' to say. The LMS's own test account (Canvas's Test
Student) is graded, never ranked.
"""

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Protocol

from grader.core.errors import GraderError
from grader.core.text import safe_name
from grader.course import identity
from grader.course.config import CourseConfig
from grader.course.course_csv import read_course_csv
from grader.course.identity import Key
from grader.course.submission_meta import SubmissionMeta, parse_time, read_meta


class HandedIn(Protocol):
    """A submission as a team handed it in: its id and its folder (the submissions found,
    or the store's rows of a grading run)."""

    @property
    def id(self) -> str: ...

    @property
    def folder(self) -> Path | str: ...


# Where a team came from: an LMS's import, the course's teams file, or nobody (alone).
# An LMS's name as its import recorded it (grader/lms/systems.py), "teams file" or "alone".
TeamSource = str
# Who a team is: its LMS group, or the set of its members' ids ("members", frozenset).
TeamKey = tuple[str | frozenset[str], ...]
TEAM_COLUMN, MEMBER_COLUMN, NAME_COLUMN = "team", "member", "name"


class TeamsError(GraderError):
    """The teams cannot be told (a student in two teams, a bad teams file); str() is one
    line naming the problem."""


@dataclass(frozen=True)
class Member:
    id: str  # as its source names them: LMS user id, sid, teams file's member, folder id
    name: str = ""
    other_ids: tuple[str, ...] = ()  # the same student's other ids a roster may use
    keys: tuple[Key, ...] = ()  # who they are, as each system keys them (grader.course.identity)

    @property
    def ids(self) -> frozenset[str]:
        return frozenset(i for i in (self.id, *self.other_ids) if i)

    @property
    def shown(self) -> str:
        return f"{self.id} ({self.name})" if self.name and self.name != self.id else self.id


@dataclass(frozen=True)
class Team:
    submission_id: str
    name: str
    source: TeamSource
    members: tuple[Member, ...]  # () when the LMS named a team but not its members
    replaced_by: str = ""  # the team's newer submission, which counts instead of this one
    # The team handed in twice and nothing the LMS recorded tells which is newer: none
    # of its submissions counts until the instructor removes one (why, for people).
    undecided: str = ""
    group: str = ""  # a member's own copy of this group's submission (graded_alone)
    # A copy holding the same files as another member's of its group: that one is the
    # group's program on the leaderboard (ranked once), this one its member's grade.
    ranked_as: str = ""
    test_account: bool = False  # the LMS's own test account: graded, never ranked

    @property
    def counts(self) -> bool:
        """Whether this submission is the team's result (not replaced by a newer one,
        not one of two that nothing tells apart)."""
        return not self.replaced_by and not self.undecided

    @property
    def not_counted(self) -> str:
        """Why this submission is no one's result; "" when it is."""
        if self.replaced_by:
            return f"replaced by {self.replaced_by}, the team's newer submission"
        if self.undecided:
            return "the team handed in twice and nothing tells which is newer: remove one"
        return ""


@dataclass(frozen=True)
class Teams:
    by_submission: Mapping[str, Team]
    notes: tuple[str, ...] = ()  # for people: replaced submissions, rows naming no folder

    def of(self, submission_id: str) -> Team:
        return self.by_submission[submission_id]

    @property
    def replaced(self) -> dict[str, str]:
        """Replaced submission -> the team's submission that counts."""
        return {sid: t.replaced_by for sid, t in self.by_submission.items() if t.replaced_by}

    @property
    def not_counting(self) -> dict[str, str]:
        """Each submission that is no one's result -> why (replaced, undecided)."""
        return {sid: t.not_counted for sid, t in self.by_submission.items() if not t.counts}

    @property
    def unranked(self) -> dict[str, str]:
        """Each submission the leaderboard never ranks -> why: no one's result, a copy
        of its group's program ranked as another member's copy, a test account."""
        found = dict(self.not_counting)
        for sid, team in self.by_submission.items():
            if sid in found:
                continue
            if team.test_account:
                found[sid] = "the LMS's own test account (Canvas's Test Student): never ranked"
            elif team.ranked_as:
                found[sid] = (
                    f"a copy of group {team.group!r}'s submission, ranked as {team.ranked_as}"
                )
        return found

    def ranked(self, submission_id: str) -> bool:
        return submission_id not in self.unranked

    def copies_of(self, submission_id: str) -> list[str]:
        """The other members' copies ranked as this submission (a group graded
        individually): their members share its bonus."""
        return sorted(s for s, t in self.by_submission.items() if t.ranked_as == submission_id)

    def bonus_members(self, submission_id: str) -> tuple[Member, ...]:
        """Everyone the speed bonus of this submission goes to: its team, and the
        members of its copies."""
        found = list(self.of(submission_id).members)
        for copy in self.copies_of(submission_id):
            found += [m for m in self.of(copy).members if m not in found]
        return tuple(found)

    def as_json(self, submission_id: str) -> dict[str, Any]:
        """A submission's team as results.json holds it."""
        team = self.of(submission_id)
        return {
            "name": team.name,
            "source": team.source,
            "members": [
                {"id": m.id, "name": m.name, "other_ids": list(m.other_ids)} for m in team.members
            ],
            "replaced_by": team.replaced_by or None,
            "undecided": team.undecided or None,
            # what few submissions are: said only where it is so
            **({"group": team.group} if team.group else {}),
            **({"ranked_as": team.ranked_as} if team.ranked_as else {}),
            **({"test_account": True} if team.test_account else {}),
        }


def teams_file(config: CourseConfig) -> Path | None:
    """The course's teams file ([teams] file, relative to course.toml), None when unset."""
    if not config.teams.file:
        return None
    base = config.source.parent if config.source is not None else Path.cwd()
    return base / config.teams.file


def class_teams(submissions: Iterable[HandedIn], config: CourseConfig) -> Teams:
    """The teams of a class's submissions, with the course's file."""
    return resolve([(s.id, s.folder) for s in submissions], teams_file(config))


def resolve(folders: Iterable[tuple[str, Path | str]], file: Path | None = None) -> Teams:
    """The team of each submission, given as (id, folder); `file`: the course's teams
    file. TeamsError when a student is in two teams or the file cannot be used."""
    submissions = [(sid, Path(folder)) for sid, folder in folders]
    metas = {sid: read_meta(folder) for sid, folder in submissions}
    notes: list[str] = []
    rows = _read_teams_file(file) if file is not None else {}
    by_folder = {sid: sid for sid, _ in submissions} | {
        folder.name: sid for sid, folder in submissions
    }
    for named in rows:
        if named not in by_folder:
            notes.append(
                f"{file}: team {named!r} names no submission folder of the class "
                "(its members have no submission)"
            )
    teams: dict[str, Team] = {}
    keys: dict[str, TeamKey] = {}
    from_file = {by_folder[name]: members for name, members in rows.items() if name in by_folder}
    alone = []
    for sid, _folder in submissions:
        meta = metas[sid]
        if meta is not None and meta.team is not None:
            teams[sid], keys[sid] = _lms_team(sid, meta)
            if sid in from_file:
                notes.append(
                    f"{file}: team {sid!r}: the {meta.lms.capitalize()} import recorded its "
                    "team, which takes precedence"
                )
            if not meta.team.members:
                notes.append(
                    f"{sid}: {meta.lms.capitalize()} names the team {meta.team.group_name!r} "
                    "but not its members (import again with the grading worksheet, --roster)"
                )
        elif sid in from_file:
            members = from_file[sid]
            teams[sid] = Team(sid, sid, "teams file", members)
            keys[sid] = ("members", frozenset(m.id for m in members))
        else:
            member = _alone(sid, meta)
            teams[sid] = Team(sid, member.name or sid, "alone", (member,))
            keys[sid] = ("members", frozenset({member.id}))
            alone.append(sid)
        if meta is not None and meta.test_account:
            teams[sid] = dataclasses.replace(teams[sid], test_account=True)
            notes.append(
                f"{safe_name(sid)}: handed in by {meta.lms.capitalize()}'s own test account "
                "(its Test Student, of Student View): graded, never ranked nor given the bonus"
            )
    if file is not None and alone:
        shown = ", ".join(alone[:10]) + (f" and {len(alone) - 10} more" if len(alone) > 10 else "")
        notes.append(f"not in {file.name}: {shown} (each graded as one student's)")
    _one_team_each(teams, keys)
    replaced, undecided = _handed_in_twice(submissions, metas, teams, keys, notes)
    for sid, (newer, _) in replaced.items():
        teams[sid] = dataclasses.replace(teams[sid], replaced_by=newer)
    for sid, why in undecided.items():
        teams[sid] = dataclasses.replace(teams[sid], undecided=why)
    for sid, first in _copies(submissions, metas, teams).items():
        teams[sid] = dataclasses.replace(teams[sid], ranked_as=first)
    return Teams(teams, tuple(notes))


def _copies(
    submissions: Sequence[tuple[str, Path]],
    metas: Mapping[str, SubmissionMeta | None],
    teams: Mapping[str, Team],
) -> dict[str, str]:
    """Each member's copy of a group's submission that holds the same files as another
    member's, counting (not replaced) -> the first of them: the one ranked."""
    by_files: dict[tuple[str, str, tuple[tuple[str, str], ...]], list[str]] = {}
    for sid, _ in submissions:
        meta, team = metas[sid], teams[sid]
        if meta is None or meta.team is None or not meta.team.graded_alone or not team.counts:
            continue
        group = meta.team.group_id or meta.team.group_name
        by_files.setdefault((meta.lms, group, tuple(sorted(meta.files.items()))), []).append(sid)
    return {sid: min(same) for same in by_files.values() for sid in same if sid != min(same)}


def _lms_team(sid: str, meta: SubmissionMeta) -> tuple[Team, TeamKey]:
    told = meta.team
    assert told is not None, "called for a folder whose import recorded a team"
    members = tuple(Member(m.lms_user_id, m.name, m.other_ids, m.keys) for m in told.members)
    if told.graded_alone:  # the member's own copy: theirs alone, their group kept
        own = [m for m in members if m.id == meta.lms_user_id] or [_alone(sid, meta)]
        team = Team(sid, own[0].name or meta.name or sid, meta.lms, (own[0],))
        return dataclasses.replace(team, group=told.group_name), ("members", frozenset({own[0].id}))
    if told.default_group:
        key: TeamKey = (meta.lms, "default group")
    elif told.group_id or told.group_name:
        key = (meta.lms, "group", told.group_id or told.group_name)
    else:  # Gradescope numbers no groups: a group is its members
        key = ("members", frozenset(m.id for m in members))
    name = told.group_name or meta.name or sid
    return Team(sid, name, meta.lms, members), key


def _alone(sid: str, meta: SubmissionMeta | None) -> Member:
    if meta is None:  # a folder made by hand: its name is an id of any kind
        return Member(sid, keys=((identity.ANY, sid),))
    keys = meta.keys or ((identity.ANY, sid),)
    return Member(sid, meta.name, tuple(sorted(meta.ids() - {sid})), keys)


def _read_teams_file(path: Path) -> dict[str, tuple[Member, ...]]:
    """The teams file: {the team's submission folder: its members}, in file order."""
    table = read_course_csv(
        path,
        "the teams file ([teams] file in course.toml)",
        {TEAM_COLUMN: "the team's submission folder", MEMBER_COLUMN: "any id the roster knows"},
        TeamsError,
    )
    found: dict[str, list[Member]] = {}
    for number, row in table:
        folder, ident = table.cell(row, TEAM_COLUMN), table.cell(row, MEMBER_COLUMN)
        if not folder or not ident:
            missing = TEAM_COLUMN if not folder else MEMBER_COLUMN
            raise TeamsError(f"{path}: line {number}: no {missing}")
        listed = found.setdefault(folder, [])
        if all(m.id != ident for m in listed):
            shown = table.cell(row, NAME_COLUMN)
            listed.append(Member(ident, shown, keys=((identity.ANY, ident),)))
    return {folder: tuple(members) for folder, members in found.items()}


def _one_team_each(teams: Mapping[str, Team], keys: Mapping[str, TeamKey]) -> None:
    """A student belongs to one team: an id in teams of two identities is an error. (Two
    submissions of one team share a member, and are the team handing in twice.)"""
    first: dict[str, tuple[str, Member]] = {}
    problems = []
    for sid, team in teams.items():
        for member in team.members:
            other, seen = first.setdefault(member.id, (sid, member))
            if other != sid and keys[other] != keys[sid]:
                problems.append(
                    f"a student in two teams: {(seen if seen.name else member).shown} is in "
                    f"{_named(teams[other])} and in {_named(team)}"
                )
    _raise_first(problems)


def _named(team: Team) -> str:
    """A team as messages name it: 'Team Rocket' (group-12, moodle), pair (teams file)."""
    where = [] if team.source == "alone" else [team.source]
    if team.name != team.submission_id:
        return f"{team.name!r} ({', '.join([safe_name(team.submission_id), *where])})"
    return safe_name(team.submission_id) + (f" ({where[0]})" if where else "")


def _handed_in_twice(
    submissions: Sequence[tuple[str, Path]],
    metas: Mapping[str, SubmissionMeta | None],
    teams: Mapping[str, Team],
    keys: Mapping[str, TeamKey],
    notes: list[str],
) -> tuple[dict[str, tuple[str, str]], dict[str, str]]:
    """(replaced submission -> (the team's newer one, why it is newer), each submission
    of a team whose newer one nothing tells -> why it counts for no one)."""
    by_key: dict[TeamKey, list[tuple[str, Path]]] = {}
    for sid, folder in submissions:
        if teams[sid].members or keys[sid][0] != "members":  # no members: nobody to match
            by_key.setdefault(keys[sid], []).append((sid, folder))
    replaced: dict[str, tuple[str, str]] = {}
    undecided: dict[str, str] = {}
    for group in by_key.values():
        if len(group) < 2:
            continue
        newest: tuple[str, Path] | None = min(group)
        for other in sorted(group)[1:]:
            assert newest is not None
            newest = _newer(newest, other, metas)[0]
            if newest is None:
                break
        if newest is None:
            why = (
                f"{_named(teams[group[0][0]])} handed in twice "
                f"({', '.join(sorted(sid for sid, _ in group))}) and no submission time of "
                "the LMS tells which is newer (the files' own times are the student's to "
                "set): neither counts until you remove the older folder"
            )
            notes.append(why)
            undecided.update((sid, why) for sid, _ in group)
            continue
        for other in sorted(group):
            if other != newest:
                why = _newer(newest, other, metas)[1]
                replaced[other[0]] = (newest[0], why)
                notes.append(
                    f"replaced: {other[0]} ({_named(teams[other[0]])} handed in twice: its "
                    f"newer submission {newest[0]} counts: {why})"
                )
    return replaced, undecided


def _newer(
    a: tuple[str, Path], b: tuple[str, Path], metas: Mapping[str, SubmissionMeta | None]
) -> tuple[tuple[str, Path] | None, str]:
    """The newer of two submissions of one team and why; (None, "") when nothing tells."""
    ma, mb = metas[a[0]], metas[b[0]]
    for what, ta, tb in (
        ("submitted", ma and ma.submitted, mb and mb.submitted),
        ("downloaded", ma and parse_time(ma.downloaded_at), mb and parse_time(mb.downloaded_at)),
    ):
        if not ta or not tb:
            continue
        ta, tb = _comparable(ta, tb)
        if ta != tb:
            newer, older = (a, b) if ta > tb else (b, a)
            stamps = (ta, tb) if ta > tb else (tb, ta)
            return newer, (
                f"{what} {stamps[0].isoformat(sep=' ', timespec='seconds')}, "
                f"{older[0]} {what} {stamps[1].isoformat(sep=' ', timespec='seconds')}"
            )
    return None, ""


def _comparable(a: datetime, b: datetime) -> tuple[datetime, datetime]:
    if (a.tzinfo is None) != (b.tzinfo is None):  # as the import compares downloads
        return a.replace(tzinfo=None), b.replace(tzinfo=None)
    return a, b


def _raise_first(problems: Sequence[str]) -> None:
    if problems:
        more = f" (and {len(problems) - 1} more problems)" if len(problems) > 1 else ""
        raise TeamsError(problems[0] + more)
