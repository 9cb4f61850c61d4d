"""Canvas "Download Submissions": one flat zip, one file per submitted attachment.

ContentZipper (lib/content_zipper.rb) names each file
`<name>_[LATE_]<user id>_<attachment id>_<file>`: `LATE_` when Canvas holds the
submission late (it knows each student's own due date and extensions), the name the
student's sortable name squashed to letters (`smithjohn`), the user id Canvas's own,
the one its gradebook CSV has in the "ID" column, so it is the folder name. Canvas
reads the first all-digit fields back as the user and file ids and removes
`_<digits>_` from names for that, so the first `_<uid>_<file id>_` ends the prefix;
but it squashes the name only afterwards, so a student named `Eve_1002-_5001-` still
gets entries starting `eve_1002_5001_`. All the entries of one submission share one
prefix: an id claimed under two is refused whole, never mixed.

Under anonymous grading the name is left out and the id is `anon_<anonymous id>`
(`anon_Q2q3x_70004_file`, `LATE_anon_Q2q3x_...`): such a download is imported under
the anonymous ids, which no gradebook knows until Canvas reveals the names. A text
entry or a website URL is `<prefix>_text.html` or `<prefix>_link.html`: no file to
grade.

Canvas renames a file uploaded again under a name the student already used
(Attachment.make_unique_filename): `puzzlesolver-1.py` up to `-7` (older Canvas
counts on), and from the 8th time `puzzlesolver-<uuid>.py`. Such a copy of a source file the course accepts gets
its name back, the latest upload winning (the highest number, a uuid above all
numbers, then the higher attachment id); other files keep Canvas's name, which is
all they have.

Canvas writes no submission time anywhere in the download, and every entry carries
the moment the zip was made: times come from Canvas's API (grader/lms/times.py).
"""

import dataclasses
import re
from pathlib import Path, PurePosixPath

from grader.course import identity
from grader.lms.groups import GroupSet
from grader.lms.incoming import (
    ImportOptions,
    Incoming,
    Parsed,
    download_time,
    one_name_per_id,
    safe_id,
)
from grader.lms.times import SubmissionTimes
from grader.lms.unpack import Member, Refused, Unpacked, read_zip

_NAME = re.compile(r"^(?P<name>.+?)_(?:(?P<late>LATE)_)?(?P<uid>\d+)_(?P<att>\d+)_(?P<file>.+)$")
_ANON = re.compile(r"^(?:(?P<late>LATE)_)?anon_(?P<uid>[A-Za-z0-9]+)_(?P<att>\d+)_(?P<file>.+)$")
_ENTRY = r"_(?P<kind>text|link)\.html$"  # no attachment id: typed into Canvas, or a URL
_TEXT = re.compile(r"^(?P<name>.+?)_(?:(?P<late>LATE)_)?(?P<uid>\d+)" + _ENTRY)
_ANON_TEXT = re.compile(r"^(?:(?P<late>LATE)_)?anon_(?P<uid>[A-Za-z0-9]+)" + _ENTRY)
_UUID = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
# make_unique_filename: basename, then -N or -<uuid>, then the extension as Canvas
# finds it (`(\.[A-Za-z][A-Za-z0-9]*)*(\.[A-Za-z0-9]*)$`).
_COPY = re.compile(
    rf"^(?P<stem>.+?)-(?:(?P<n>\d+)|(?P<uuid>{_UUID}))"
    r"(?P<ext>(?:\.[A-Za-z][A-Za-z0-9]*)*\.[A-Za-z0-9]*)?$"
)
_UUID_COPY = 8  # Canvas's 8th copy of a name and every one after it
_ENTRIES = {
    "text": "Canvas's online text entry (typed into Canvas), not a submitted file",
    "link": "Canvas's website URL submission (a link), not a submitted file",
}


def is_anonymous(unpacked: Unpacked) -> bool:
    """An anonymous grading download: every entry named like Canvas's is `anon_`'s."""
    shaped = [
        bool(_ANON.match(name) or _ANON_TEXT.match(name))
        for name in (m.path.name for m in unpacked.members if len(m.path.parts) == 1)
        if _NAME.match(name) or _TEXT.match(name) or _ANON.match(name) or _ANON_TEXT.match(name)
    ]
    return bool(shaped) and all(shaped)


def read(archive: Path, options: ImportOptions) -> Parsed:
    """The download, its group set's teams (--teams) and its times (--times)."""
    unpacked = read_zip(archive, options.limits)
    parsed = parse(unpacked, options.source_names)
    parsed.downloaded = download_time(unpacked, "Canvas", Path(archive).name, parsed.notes)
    if options.groups is not None:
        _groups(parsed, options.groups)
    _times(parsed, options.times)  # after the groups: a team's members' dates
    return parsed


def parse(unpacked: Unpacked, source_names: frozenset[str] = frozenset()) -> Parsed:
    parsed = Parsed(refused=list(unpacked.refused))
    anonymous = is_anonymous(unpacked)
    names, texts = (_ANON, _ANON_TEXT) if anonymous else (_NAME, _TEXT)
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
        match = names.match(member.path.name)
        if not match:
            text = texts.match(member.path.name)
            reason = (
                _ENTRIES[text["kind"]]
                if text
                else "not named like a Canvas submission (name_userid_fileid_file)"
            )
            parsed.refused.append(Refused(str(member.path), reason))
            continue
        # Canvas names every file of one submission `<name>_[LATE_]<uid>`: the same
        # prefix, or an entry is not what it claims (a name Canvas sanitised badly).
        prefix = ("anon" if anonymous else match["name"]) + ("_LATE" if match["late"] else "")
        claims.append((match["uid"], prefix, member, match))
    kept, refused = one_name_per_id(claims, "anonymous student" if anonymous else "user")
    parsed.refused.extend(refused)
    students: dict[str, Incoming] = {}
    # uid -> the name uploaded -> ((copy rank, attachment id), member, attachment id)
    chosen: dict[str, dict[str, tuple[tuple[int, int], Member, str]]] = {}
    for uid, _, member, match in kept:
        student = students.get(uid)
        if student is None:
            student = students[uid] = Incoming(
                student_id=safe_id(f"anon_{uid}" if anonymous else uid),
                name="" if anonymous else match["name"],
                lms_user_id="" if anonymous else uid,
                anonymous_id=uid if anonymous else "",
                late_marker=False,
                keys=() if anonymous else ((identity.CANVAS_USER, uid),),
            )
        if match["late"]:
            student.late_marker = True
        original, copy = _original_name(match["file"], source_names)
        rank = (copy, int(match["att"]))
        previous = chosen.setdefault(uid, {}).get(original)
        current = (rank, member, match["att"])
        if previous is not None:
            # Two uploads of one name in one submission: the later copy wins.
            keep, drop = (previous, current) if previous[0] > rank else (current, previous)
            student.notes.append(
                f"{drop[1].path.name} dropped: {keep[1].path.name} is a later upload of {original}"
            )
            chosen[uid][original] = keep
        else:
            chosen[uid][original] = current
    for uid, student in students.items():
        picked = chosen[uid]
        student.files = {
            PurePosixPath(name): member.data for name, (_, member, _) in picked.items()
        }
        student.attachments = {name: att for name, (_, _, att) in picked.items()}
        student.submission_id = ",".join(sorted(att for _, _, att in picked.values()))
        parsed.students.append(student)
    return parsed


def _original_name(name: str, source_names: frozenset[str]) -> tuple[str, int]:
    """(the name the student uploaded, Canvas's copy number: 0 for none, 8 for a uuid).
    Only a source file's name is restored: `data-2020.txt` may well be the student's own."""
    match = _COPY.match(name)
    if not match or match["stem"] + (match["ext"] or "") not in source_names:
        return name, 0
    return match["stem"] + (match["ext"] or ""), int(match["n"]) if match["n"] else _UUID_COPY


def _times(parsed: Parsed, times: SubmissionTimes | None) -> None:
    """Canvas's download names who is late (LATE_) but holds no time: `--times` does."""
    if times is None:
        if parsed.students:
            parsed.notes.append(
                "Canvas's download holds no submission times: its LATE marker decides who "
                "is late; for the late policy to count days, pass --times (submitted_at "
                "per user id, from Canvas's API)"
            )
        return
    for entry in times.unreadable:
        parsed.notes.append(f"{times.source}: {entry}: left out")
    for student in parsed.students:
        ident = student.anonymous_id or student.lms_user_id
        when = times.by_id.get(ident)
        if when is not None:
            student.submitted_at, student.time_source = when, times.source
        status = times.status_by_id.get(ident)
        if status is not None:  # the teacher's word in Canvas: it is Canvas's late marker
            student.lms_status, student.lms_seconds_late = status.status, status.seconds_late
            student.late_marker = status.late
        team = student.team if student.team and not student.team.graded_alone else None
        members = [m.lms_user_id for m in team.members] if team else []
        dues = [d for i in (ident, *members) if (d := times.due_by_id.get(i)) is not None]
        if dues:  # their own (an extension, a section's date); a team's latest member's
            student.due_at = max(dues)
            student.due_source = "Canvas's " + times.source.replace(
                "submitted_at", "cached_due_date"
            )


def _groups(parsed: Parsed, groups: GroupSet) -> None:
    """Canvas downloads one member's submission per group when it grades the group as
    a whole (Assignment#representatives), but every member's own copy when it grades
    each student individually (or the course is concluded): two members of one group
    in the download. Graded as a whole, the group set names the team the one
    submission is for, and every member's ids join the folder's (a roster finds each);
    graded individually, each copy is its member's alone, the group kept for the
    speed bonus. The import says which it saw."""
    alone = []
    present: dict[tuple[str, str], int] = {}
    for student in parsed.students:
        team = groups.team_of(student.lms_user_id) if student.lms_user_id else None
        if team is not None:
            key = (team.group_id, team.group_name)
            present[key] = present.get(key, 0) + 1
    individually = any(count > 1 for count in present.values())
    for student in parsed.students:
        team = groups.team_of(student.lms_user_id) if student.lms_user_id else None
        if team is None:
            alone.append(student.student_id)
            continue
        if individually:  # their own copy: their own ids only, the group recorded
            student.team = dataclasses.replace(team, graded_alone=True)
            continue
        student.team = team
        student.other_ids = tuple(
            dict.fromkeys(
                [
                    *student.other_ids,
                    *(i for m in team.members for i in (m.lms_user_id, *m.other_ids)),
                ]
            )
        )
    if present:
        parsed.notes.append(_mode(groups.source, individually, len(present)))
    if alone:
        why = (
            "an anonymous download names no user"
            if any(s.anonymous_id for s in parsed.students)
            else "in no group of the set: each graded as one student's"
        )
        parsed.notes.append(f"{groups.source}: {', '.join(alone)}: {why}")


def _mode(source: str, individually: bool, count: int) -> str:
    groups = f"{count} group{'s' if count != 1 else ''}"
    if individually:
        return (
            f"{source}: the download holds each member's own copy ({groups} groups; Canvas "
            "grades each student individually, or the course is concluded): each member "
            "is graded on their own copy, and the group kept for the speed bonus (its "
            "copies ranked once)"
        )
    return (
        f"{source}: the download holds one submission per group ({groups} groups; Canvas "
        "grades each group as a whole): each is graded for every member of its group"
    )
