"""Canvas "Download Submissions": one flat zip, one file per submitted attachment.

Canvas names each file `<name>_<user id>_<attachment id>_<original name>`, with
`LATE_` before the user id when the submission came after the due date, and it
renames a re-uploaded file `puzzlesolver-1.py`, `puzzlesolver-2.py`, ...: such a
copy of a source file the course accepts gets its name back (the highest copy
number wins; other files keep Canvas's name, which is all they have). The
name part is the student's sortable name squashed to letters (`smithjohn`); the
user id is Canvas's own, the one its gradebook CSV has in the "ID" column, so
it is the folder name. Canvas itself reads the first all-digit fields as the user
and file ids, and removes `_<digits>_` from names for that, so the first
`_<uid>_<file id>_` ends the prefix; but it squashes the name only afterwards, so a
student named `Eve_1002-_5001-` still gets entries starting `eve_1002_5001_`. All
the entries of one submission share one prefix: an id claimed under two is refused
whole, never mixed. Canvas writes no submission time into the names: the
zip entry's time is taken instead, and the metadata says so.
"""

import re
from pathlib import PurePosixPath

from grader.lms.incoming import Incoming, Parsed, newest, one_name_per_id, safe_id
from grader.lms.unpack import Refused, Unpacked

_NAME = re.compile(r"^(?P<name>.+?)_(?:(?P<late>LATE)_)?(?P<uid>\d+)_(?P<att>\d+)_(?P<file>.+)$")
_COPY = re.compile(r"^(?P<stem>.+?)-(?P<n>\d+)(?P<ext>\.[^.]*)?$")


def parse(unpacked: Unpacked, source_names: frozenset = frozenset()) -> Parsed:
    parsed = Parsed(refused=list(unpacked.refused))
    claims = []
    for member in unpacked.members:
        if len(member.path.parts) != 1:
            parsed.refused.append(
                Refused(
                    str(member.path),
                    "in a folder, but Canvas's download is flat: not a Canvas submission file",
                )
            )
            continue
        match = _NAME.match(member.path.name)
        if not match:
            parsed.refused.append(
                Refused(
                    str(member.path), "not named like a Canvas submission (name_userid_fileid_file)"
                )
            )
            continue
        # Canvas names every file of one submission `<name>_[LATE_]<uid>`: the same
        # prefix, or an entry is not what it claims (a name Canvas sanitised badly).
        prefix = match["name"] + ("_LATE" if match["late"] else "")
        claims.append((match["uid"], prefix, member, match))
    kept, refused = one_name_per_id(claims, "user")
    parsed.refused.extend(refused)
    students: dict[str, Incoming] = {}
    chosen: dict[str, dict[str, tuple]] = {}  # uid -> canonical name -> (copy number, member)
    for uid, _, member, match in kept:
        student = students.get(uid)
        if student is None:
            student = students[uid] = Incoming(
                student_id=safe_id(uid),
                name=match["name"],
                lms_user_id=uid,
                late_marker=False,
                time_source="zip entry time",
            )
        if match["late"]:
            student.late_marker = True
        original, copy = _original_name(match["file"], source_names)
        previous = chosen.setdefault(uid, {}).get(original)
        if previous is not None:
            # Two uploads of one name in one submission: the higher copy number is the later one.
            current = (copy, member)
            keep, drop = (previous, current) if previous[0] >= copy else (current, previous)
            student.notes.append(
                f"{drop[1].path.name} dropped: {keep[1].path.name} is a later upload of {original}"
            )
            chosen[uid][original] = keep
        else:
            chosen[uid][original] = (copy, member)
    for uid, student in students.items():
        members = [member for _, member in chosen[uid].values()]
        student.files = {
            PurePosixPath(name): member.data for name, (_, member) in chosen[uid].items()
        }
        student.submitted_at = newest(m.mtime for m in members)
        student.submission_id = ",".join(sorted(_attempt(m.path.name) for m in members))
        parsed.students.append(student)
    return parsed


def _attempt(name: str) -> str:
    """The Canvas file id in a member's name."""
    match = _NAME.match(name)
    assert match is not None, "only members named like Canvas's files are chosen"
    return match["att"]


def _original_name(name: str, source_names: frozenset):
    """(the name the student uploaded, Canvas's copy number: 0 for none). Only a
    source file's name is restored: `data-2020.txt` may well be the student's own."""
    match = _COPY.match(name)
    if not match or match["stem"] + (match["ext"] or "") not in source_names:
        return name, 0
    return match["stem"] + (match["ext"] or ""), int(match["n"])
