"""Moodle "Download all submissions": a folder (or a name prefix) per participant.

Moodle names it `<Full Name>_<participant id>_assignsubmission_<plugin>_`; with
"Download submissions in folders" the student's files sit inside that folder,
keeping any folders they uploaded, and without it the prefix is glued to each
file's name. The participant id is the one Moodle's grading worksheet calls
"Participant <id>", so it is the folder name. Only the `file` plugin holds
files to grade; online text and comments are refused by name. Moodle marks no
late flag in the download: lateness comes from the entry's time and the policy.
"""

import re
from pathlib import PurePosixPath

from grader.lms.incoming import Incoming, Parsed, newest, safe_id
from grader.lms.unpack import Refused, Unpacked

_PREFIX = re.compile(
    r"^(?P<name>.+)_(?P<pid>\d+)_assignsubmission_(?P<plugin>[a-z]+)_(?P<rest>.*)$"
)


def parse(unpacked: Unpacked, source_names: frozenset = frozenset()) -> Parsed:
    parsed = Parsed(refused=list(unpacked.refused))
    students: dict[str, Incoming] = {}
    times: dict[str, list] = {}
    for member in unpacked.members:
        first, *inside = member.path.parts
        match = _PREFIX.match(first)
        if not match:
            parsed.refused.append(
                Refused(
                    str(member.path),
                    "not in a Moodle participant folder (Full Name_id_assignsubmission_file_)",
                )
            )
            continue
        if match["plugin"] != "file":
            parsed.refused.append(
                Refused(
                    str(member.path), f"Moodle's {match['plugin']} submission, not a submitted file"
                )
            )
            continue
        relative = PurePosixPath(*inside) if inside else PurePosixPath(match["rest"] or "_")
        if not inside and not match["rest"]:
            parsed.refused.append(
                Refused(str(member.path), "a participant entry without a file name")
            )
            continue
        pid = match["pid"]
        student = students.get(pid)
        if student is None:
            student = students[pid] = Incoming(
                student_id=safe_id(pid),
                name=match["name"],
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
