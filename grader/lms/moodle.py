"""Moodle "Download all submissions": a folder (or a name prefix) per participant.

Moodle (mod/assign/classes/downloader.php) makes each participant's prefix from
their full name with its own `_` turned into spaces, then `_<participant id>`, so
the first `_<id>_assignsubmission_` after a name ends the prefix: anything after
it, another `_1001_assignsubmission_` included, is the student's own file name.
With "Download submissions in folders" the folder is
`<Full Name>_<id>_assignsubmission_<plugin>` (Moodle 4.1 on; older ones end it with
`_`) and the student's files keep their folders inside it; without, the prefix and
`_` are glued to each file's name. Every entry of one participant must carry one
name: an archive where two names claim one id was not written by Moodle, and none
of that id's entries is imported. The participant id is the one Moodle's grading
worksheet calls "Participant <id>", so it is the folder name. Only the `file`
plugin holds files to grade; online text and comments are refused by name. Moodle
marks no late flag in the download: lateness comes from the entry's time and the
policy.
"""

import re
from pathlib import PurePosixPath

from grader.lms.incoming import Incoming, Parsed, newest, one_name_per_id, safe_id
from grader.lms.unpack import Member, Refused, Unpacked

_PREFIX = re.compile(r"^(?P<name>.+?)_(?P<pid>\d+)_assignsubmission_(?P<rest>.*)$")
_FOLDER_PLUGIN = re.compile(r"^(?P<plugin>[a-z0-9]+)_?$")  # the folder: nothing after it
_FLAT_PLUGIN = re.compile(r"^(?P<plugin>[a-z0-9]+)_(?P<file>.+)$")  # then the file's name
_SHAPE = "Full Name_id_assignsubmission_file/ or Full Name_id_assignsubmission_file_name"


def parse(unpacked: Unpacked, source_names: frozenset = frozenset()) -> Parsed:
    parsed = Parsed(refused=list(unpacked.refused))
    claims: list[tuple[str, str, Member, PurePosixPath]] = []  # (id, name, entry, its path)
    for member in unpacked.members:
        first, *inside = member.path.parts
        match = _PREFIX.match(first)
        plugin = None
        if match:
            shape = _FOLDER_PLUGIN if inside else _FLAT_PLUGIN
            plugin = shape.match(match["rest"])
        if match is None or plugin is None:
            reason = f"not in a Moodle participant folder ({_SHAPE})"
            if match and not inside and _FOLDER_PLUGIN.match(match["rest"]):
                reason = "a participant entry without a file name"
            parsed.refused.append(Refused(str(member.path), reason))
            continue
        if plugin["plugin"] != "file":
            parsed.refused.append(
                Refused(
                    str(member.path),
                    f"Moodle's {plugin['plugin']} submission, not a submitted file",
                )
            )
            continue
        relative = PurePosixPath(*inside) if inside else PurePosixPath(plugin["file"])
        claims.append((match["pid"], match["name"], member, relative))
    kept, refused = one_name_per_id(claims, "participant")
    parsed.refused.extend(refused)
    students: dict[str, Incoming] = {}
    times: dict[str, list] = {}
    for pid, name, member, relative in kept:
        student = students.get(pid)
        if student is None:
            student = students[pid] = Incoming(
                student_id=safe_id(pid),
                name=name,
                lms_user_id=pid,
                time_source="zip entry time",
            )
            times[pid] = []
        student.files[relative] = member.data
        times[pid].append(member.mtime)
    for pid, student in students.items():
        student.submitted_at = newest(times[pid])
        parsed.students.append(student)
    return parsed
