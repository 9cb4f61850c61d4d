"""Moodle "Download all submissions": a folder (or a name prefix) per participant or team.

Moodle (mod/assign/classes/downloader.php from 4.1; assign::download_submissions in
locallib.php before) makes each prefix from a name whose own `_` it turns into
spaces, so the first `_` of an entry ends the name:
- a participant: `<Full Name>_<participant id>`, `Participant_<id>` under blind
  marking; the id is the one the grading worksheet calls "Participant <id>", so it
  is the folder name;
- a team, in an assignment with team submissions (4.1 on): `<Group name>_<group id>`,
  and the students in no group share `Default group` (Moodle's word, in the
  language of the one who downloaded), with no id at all. A group id is nobody's
  participant id: a team gets a folder of its own (`group-<id>`, `default-group`),
  never the one of the participant who happens to hold that number. Moodle before
  4.1 wrote a folder per member instead, `<Group name>-<Full Name>_<participant
  id>_`: those are participants.
The archive alone cannot tell a group's prefix from a participant's: an assignment
has teams when the download has a default group, when the grading worksheet has a
Group column, or when the instructor says so (`teams`).

Then `_assignsubmission_<plugin>`: with "Download submissions in folders" a folder
(4.1 on; older ones end it with `_`) holding the files in their own folders;
without, `_` and each file's name glued to it. Every entry of one prefix id must
carry one name: an archive where two names claim one id was not written by Moodle,
and none of that id's entries is imported. Only the `file` plugin holds files to
grade; online text and the like are refused by name.

The download holds no submission time: every entry carries the moment the zip was
made. The grading worksheet's "Last modified (submission)" has them (worksheet.py).
"""

import dataclasses
import re
from pathlib import Path, PurePosixPath

from grader.course import identity
from grader.course.submission_meta import Team
from grader.lms import worksheet
from grader.lms.incoming import (
    ImportOptions,
    Incoming,
    Parsed,
    download_time,
    one_name_per_id,
    safe_id,
)
from grader.lms.roster import Roster
from grader.lms.unpack import Member, Refused, Unpacked, read_zip

# The name ends at the first `_`; then the id (none: Moodle's default group).
_PREFIX = re.compile(r"^(?P<name>[^_]*)_(?:(?P<id>\d+)_)?assignsubmission_(?P<rest>.*)$")
_FOLDER_PLUGIN = re.compile(r"^(?P<plugin>[a-z0-9]+)(?P<old>_?)$")  # the folder: nothing after
_FLAT_PLUGIN = re.compile(r"^(?P<plugin>[a-z0-9]+)_(?P<file>.+)$")  # then the file's name
_SHAPE = "Full Name_id_assignsubmission_file/ or Full Name_id_assignsubmission_file_name"
DEFAULT_GROUP_FOLDER = "default-group"

PLUGIN_NAMES = {  # what Moodle's other submission plugins hold, for the refusal
    "onlinetext": "online text (typed into Moodle)",
    "comments": "submission comments",
}


def read(archive: Path, options: ImportOptions) -> Parsed:
    """The download, and from its grading worksheet (--roster) the submission times,
    due dates and the teams' members."""
    unpacked = read_zip(archive, options.limits)
    roster = options.roster
    team_sheet = roster is not None and worksheet.is_team_worksheet(roster)
    parsed = parse(unpacked, options.source_names, teams=options.teams or team_sheet)
    parsed.downloaded = download_time(unpacked, "Moodle", Path(archive).name, parsed.notes)
    _from_worksheet(parsed, roster)
    return parsed


def has_default_group(unpacked: Unpacked) -> bool:
    """Whether the download has Moodle's default group: then it is a team assignment."""
    return any(
        (m := _PREFIX.match(member.path.parts[0])) and m["id"] is None and m["name"]
        for member in unpacked.members
    )


def parse(
    unpacked: Unpacked, source_names: frozenset[str] = frozenset(), teams: bool = False
) -> Parsed:
    parsed = Parsed(refused=list(unpacked.refused))
    teams = teams or has_default_group(unpacked)
    # (folder, name, entry, its path inside, team or None)
    claims: list[tuple[str, str, Member, PurePosixPath, Team | None]] = []
    for member in unpacked.members:
        first, *inside = member.path.parts
        match = _PREFIX.match(first)
        plugin = None
        if match:
            shape = _FOLDER_PLUGIN if inside else _FLAT_PLUGIN
            plugin = shape.match(match["rest"])
        if match is None or plugin is None or not (match["id"] or match["name"]):
            reason = f"not in a Moodle participant folder ({_SHAPE})"
            if match and not inside and _FOLDER_PLUGIN.match(match["rest"]):
                reason = "a participant entry without a file name"
            parsed.refused.append(Refused(str(member.path), reason))
            continue
        if plugin["plugin"] != "file":
            what = PLUGIN_NAMES.get(plugin["plugin"], f"the {plugin['plugin']} plugin's content")
            parsed.refused.append(
                Refused(
                    str(member.path),
                    f"Moodle's {plugin['plugin']} submission: {what}, not a submitted file",
                )
            )
            continue
        # Before 4.1 every member of a team had a folder of their own (ending in `_`),
        # named by their participant id: a participant's, team or not.
        old_layout = bool(inside) and bool(plugin["old"])
        if match["id"] is None:
            assert teams, "an id-less prefix is Moodle's default group: a team download"
            folder, team = DEFAULT_GROUP_FOLDER, Team(group_name=match["name"], default_group=True)
        elif teams and not old_layout:
            folder = f"group-{match['id']}"
            team = Team(group_id=match["id"], group_name=match["name"])
        else:
            folder, team = match["id"], None
        relative = PurePosixPath(*inside) if inside else PurePosixPath(plugin["file"])
        claims.append((folder, match["name"], member, relative, team))
    kept, refused = one_name_per_id(claims, "team" if teams else "participant")
    parsed.refused.extend(refused)
    students: dict[str, Incoming] = {}
    for folder, name, member, relative, team in kept:
        student = students.get(folder)
        if student is None:
            student = students[folder] = Incoming(
                student_id=safe_id(folder),
                name=name,
                lms_user_id="" if team is not None else folder,
                team=team,
                keys=() if team is not None else ((identity.MOODLE_PARTICIPANT, folder),),
            )
        student.files[relative] = member.data
    parsed.students.extend(students.values())
    return parsed


def _from_worksheet(parsed: Parsed, roster: Roster | None) -> None:
    """Moodle's download holds neither times nor team members; its grading worksheet
    has both: "Last modified (submission)" per participant, and the Group column."""
    if roster is None or roster.column(worksheet.IDENTIFIER) is None:
        if parsed.students:
            parsed.notes.append(
                "Moodle's download holds no submission times: pass its grading worksheet "
                f'(--roster) for "{worksheet.SUBMITTED}"'
            )
        return
    rows: dict[str, list[str]] = {}
    for row in roster.rows:
        pid = worksheet.participant_id(roster, row)
        if pid is not None:
            rows.setdefault(pid, row)
    members, shared = worksheet.members_by_group(roster)
    for student in parsed.students:
        team = student.team
        if team is not None:
            if team.group_name in shared:
                student.notes.append(
                    f"two groups of the worksheet are named {team.group_name!r} once "
                    "cleaned as Moodle names folders: its members are not known"
                )
                continue
            found = tuple(members.get(team.group_name, ()))
            student.team = dataclasses.replace(team, members=found)
            student.other_ids = tuple(m.lms_user_id for m in found)
            ids = [m.lms_user_id for m in found]
        else:
            ids = [student.lms_user_id]
        stamps, dues = [], []
        for pid in ids:
            if pid not in rows:
                continue
            when, problem = worksheet.submitted_at(roster, rows[pid])
            due, what, unread = worksheet.due_at(roster, rows[pid])
            student.notes += [text for text in (problem, unread) if text]
            if when is not None:
                stamps.append(when)
            if due is not None:
                dues.append((due, what))
        if stamps:
            student.submitted_at = max(stamps)
            student.time_source = f"{worksheet.SUBMITTED} in {roster.path.name}"
        if dues:  # a team is due when its latest member is: one program, one submission
            student.due_at, what = max(dues)
            student.due_source = f"Moodle's {what} in {roster.path.name}"
