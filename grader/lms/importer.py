"""`grader import KIND ARCHIVE`: an LMS's bulk download -> one folder per student.

Each student's folder holds their files and `.lms.json` (grader/submission_meta.py).
A second import of a newer download touches only the students whose files or
submission time changed; a student missing from it keeps their folder, and an
older download never replaces a newer submission (by their submission times, else
by when the LMS made each download).

Submission times come only from a source that knows them: Gradescope's metadata,
Moodle's grading worksheet (`--roster`), Canvas's `submitted_at` (`--times`). Canvas
and Moodle stamp every zip entry with the moment the zip was made, so an entry's
time is only the download's: the import says so, and says once which students have
no time at all.
"""

import contextlib
import dataclasses
import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path, PurePosixPath

from grader import identity
from grader.atomic import atomic_output
from grader.bounded import read_limited
from grader.identity import Person
from grader.lms import canvas, gradescope, moodle, worksheet
from grader.lms.groups import GroupSet
from grader.lms.incoming import Incoming, Parsed
from grader.lms.paths import conflicts
from grader.lms.roster import Roster
from grader.lms.times import SubmissionTimes
from grader.lms.unpack import (
    DEFAULT_LIMITS,
    ArchiveError,
    Refused,
    Unpacked,
    UnpackLimits,
    read_zip,
)
from grader.submission_meta import ImportRecord, SubmissionMeta, Team, parse_time, read_meta

FORMATS: dict[str, Callable[..., Parsed]] = {
    "canvas": canvas.parse,
    "moodle": moodle.parse,
    "gradescope": gradescope.parse,
}


@dataclass
class ImportResult:
    added: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    kept_newer: list[str] = field(default_factory=list)  # the folder holds a later submission
    absent: list[str] = field(default_factory=list)  # folders this archive has nobody for
    refused: list[Refused] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    not_in_roster: list[str] = field(default_factory=list)
    no_submission: list[str] = field(default_factory=list)  # roster students without one
    seen: list[str] = field(default_factory=list)  # the archive's students, in its order
    no_time: list[str] = field(default_factory=list)  # those without a submission time

    @property
    def imported(self) -> int:
        """Students the archive gave this folder: written, or already there."""
        return len(self.added) + len(self.updated) + len(self.unchanged) + len(self.kept_newer)


def import_archive(
    kind: str,
    archive: Path,
    into: Path,
    *,
    roster: Roster | None = None,
    source_names: frozenset = frozenset(),
    limits: UnpackLimits = DEFAULT_LIMITS,
    times: SubmissionTimes | None = None,
    teams: bool = False,
    groups: GroupSet | None = None,
) -> ImportResult:
    """`times`: Canvas's submission times (--times); `teams`: a Moodle assignment with
    team submissions (also told by the download's default group or the worksheet's
    Group column); `groups`: Canvas's group set export (--teams GROUPS.csv)."""
    if kind not in FORMATS:
        raise ArchiveError(f"unknown LMS {kind!r} (known: {', '.join(sorted(FORMATS))})")
    unpacked = read_zip(archive, limits)
    if kind == "moodle":
        team_sheet = roster is not None and worksheet.is_team_worksheet(roster)
        parsed = moodle.parse(unpacked, source_names, teams=teams or team_sheet)
    else:
        parsed = FORMATS[kind](unpacked, source_names)
    result = ImportResult(refused=list(parsed.refused), notes=list(parsed.notes))
    downloaded = _download_time(unpacked, kind, Path(archive).name, result)
    if kind == "canvas":
        if groups is not None:
            _canvas_groups(parsed, groups, result)
        _canvas_times(parsed, times, result)  # after the groups: a team's members' dates
    elif kind == "moodle":
        _moodle_sheet(parsed, roster, result)
    into = Path(into)
    into.mkdir(parents=True, exist_ok=True)
    taken: dict[str, Incoming] = {}
    for student in parsed.students:
        if student.student_id in taken:
            result.refused.extend(
                Refused(
                    f"{student.student_id}/{p}",
                    "a second submission for the same student id in this archive",
                )
                for p in student.files
            )
            continue
        taken[student.student_id] = student
        _expand_zips(student, result)
        refused = conflicts(student.student_id, list(student.files))
        for path, entry in refused.items():
            del student.files[path]
            result.refused.append(entry)
        if not student.files:
            continue
        result.notes.extend(f"{student.student_id}: {note}" for note in student.notes)
        result.seen.append(student.student_id)
        if student.submitted_at is None:
            result.no_time.append(student.student_id)
    if roster is not None:  # before storing: a matched student is stored by the roster's name
        _match_roster(list(taken.values()), roster, result)
    record = ImportRecord(into)
    try:
        for sid in result.seen:
            _store(kind, Path(archive).name, downloaded, taken[sid], into / sid, result, record)
    finally:  # what was written is recorded, even when a later student fails
        record.save()
    result.absent = sorted(
        p.name
        for p in into.iterdir()
        if p.is_dir() and read_meta(p) is not None and p.name not in taken
    )
    return result


def _match_roster(students: list[Incoming], roster: Roster, result: ImportResult) -> None:
    """Each student's row, by the LMS's own keys (grader.identity): their name from it;
    who is in neither."""
    people = [
        Person(s.student_id, s.name or s.student_id, keys)
        for s in students
        for keys in _people_keys(s)
    ]
    rows = [roster.keys(row) for row in roster.rows]
    found = identity.match(rows, [roster.label(row) for row in roster.rows], people)
    result.notes.extend(found.refused)
    matched = set(found.rows.values())
    by_id = {s.student_id: s for s in students}
    for index, sid in found.rows.items():
        student = by_id[sid]
        if student.team is None:  # a team keeps its group's name, not a member's
            student.name = roster.name(roster.rows[index]) or student.name
            # The row's other keys are the same person's (its SIS id, login): kept for
            # what names them so (the course's extensions file, a Gradescope roster).
            known = dict.fromkeys(student.keys)
            student.keys = tuple(known | dict.fromkeys(roster.keys(roster.rows[index])))
    result.not_in_roster = [
        f"{s.student_id} ({s.name})" for s in students if s.student_id not in matched
    ]
    result.no_submission = [
        roster.name(row) or roster.label(row)
        for index, row in enumerate(roster.rows)
        if index not in found.rows
    ]


def _people_keys(student: Incoming) -> list[tuple]:
    """The keys of each person the submission is for: its team's members, or its own."""
    if student.team is not None and student.team.members:
        return [m.keys for m in student.team.members]
    return [student.keys]


def _download_time(
    unpacked: Unpacked, kind: str, archive: str, result: ImportResult
) -> datetime | None:
    """When the LMS made the download: the one time Canvas and Moodle give every entry
    (the newest entry's otherwise). Never a submission time; said when it is one."""
    stamps = {m.mtime for m in unpacked.members if m.mtime is not None}
    if len(unpacked.members) > 1 and len(stamps) == 1:
        (stamp,) = stamps
        result.notes.append(
            f"{archive}: every entry carries one time, {stamp.isoformat(sep=' ')}: when "
            f"{kind.capitalize()} made the download, not when anyone submitted"
        )
    return max(stamps) if stamps else None


def _canvas_times(parsed: Parsed, times: SubmissionTimes | None, result: ImportResult) -> None:
    """Canvas's download names who is late (LATE_) but holds no time: `--times` does."""
    if times is None:
        if parsed.students:
            result.notes.append(
                "Canvas's download holds no submission times: its LATE marker decides who "
                "is late; for the late policy to count days, pass --times (submitted_at "
                "per user id, from Canvas's API)"
            )
        return
    for entry in times.unreadable:
        result.notes.append(f"{times.source}: not an ISO 8601 time: {entry}")
    for student in parsed.students:
        ident = student.anonymous_id or student.lms_user_id
        when = times.by_id.get(ident)
        if when is not None:
            student.submitted_at, student.time_source = when, times.source
        members = [m.lms_user_id for m in student.team.members] if student.team else []
        dues = [d for i in (ident, *members) if (d := times.due_by_id.get(i)) is not None]
        if dues:  # their own (an extension, a section's date); a team's latest member's
            student.due_at = max(dues)
            student.due_source = "Canvas's " + times.source.replace(
                "submitted_at", "cached_due_date"
            )


def _canvas_groups(parsed: Parsed, groups: GroupSet, result: ImportResult) -> None:
    """Canvas downloads one member's submission per group: the group set names the
    team it is for, and every member's ids join the folder's (a roster finds each)."""
    alone = []
    for student in parsed.students:
        team = groups.team_of(student.lms_user_id) if student.lms_user_id else None
        if team is None:
            alone.append(student.student_id)
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
    if alone:
        why = (
            "an anonymous download names no user"
            if any(s.anonymous_id for s in parsed.students)
            else "in no group of the set: each graded as one student's"
        )
        result.notes.append(f"{groups.source}: {', '.join(alone)}: {why}")


def _moodle_sheet(parsed: Parsed, roster: Roster | None, result: ImportResult) -> None:
    """Moodle's download holds neither times nor team members; its grading worksheet
    has both: "Last modified (submission)" per participant, and the Group column."""
    if roster is None or roster.column(worksheet.IDENTIFIER) is None:
        if parsed.students:
            result.notes.append(
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
            student.team = Team(team.group_id, team.group_name, team.default_group, found)
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


# A zip a student uploaded: smaller limits than the download's, and never a zip in it.
NESTED_LIMITS = UnpackLimits(max_entries=2_000, max_total_bytes=64 << 20)


def _expand_zips(student: Incoming, result: ImportResult) -> None:
    """Students upload their folder zipped: unpack it (as safely as the download) in
    place of the zip, without the one folder that often wraps everything."""
    for path, data in sorted(student.files.items()):
        if path.suffix.lower() != ".zip":
            continue
        label = f"{student.student_id}/{path}"
        try:
            inner = read_zip(data, NESTED_LIMITS, label=label)
        except ArchiveError as error:
            result.refused.append(Refused(label, f"kept as it is: {error}"))
            continue
        del student.files[path]
        result.refused.extend(Refused(f"{label}: {r.name}", r.reason) for r in inner.refused)
        members = inner.members
        wrapped = len({m.path.parts[0] for m in members}) == 1 and all(
            len(m.path.parts) > 1 for m in members
        )
        for member in members:
            relative = PurePosixPath(*member.path.parts[1:]) if wrapped else member.path
            relative = path.parent / relative
            if relative.suffix.lower() == ".zip":
                result.refused.append(
                    Refused(
                        f"{label}: {member.path}", "a zip inside an uploaded zip (not unpacked)"
                    )
                )
            elif relative in student.files:
                result.refused.append(
                    Refused(
                        f"{label}: {member.path}",
                        "a file of that name was also submitted outside the zip",
                    )
                )
            else:
                student.files[relative] = member.data
        student.notes.append(f"unpacked {path} ({len(members)} files)")


def _store(
    kind: str,
    archive: str,
    downloaded: datetime | None,
    student: Incoming,
    folder: Path,
    result: ImportResult,
    record: ImportRecord,
) -> None:
    meta = SubmissionMeta(
        student_id=student.student_id,
        lms=kind,
        name=student.name,
        lms_user_id=student.lms_user_id,
        submission_id=student.submission_id,
        submitted_at=student.submitted_at.isoformat() if student.submitted_at else None,
        time_source=student.time_source if student.submitted_at else "",
        late_marker=student.late_marker,
        other_ids=student.other_ids,
        files={str(p): hashlib.sha256(d).hexdigest() for p, d in sorted(student.files.items())},
        archive=archive,
        downloaded_at=downloaded.isoformat() if downloaded else None,
        anonymous_id=student.anonymous_id,
        attachments=dict(student.attachments),
        team=student.team,
        keys=student.keys,
        due_at=student.due_at.isoformat() if student.due_at else None,
        due_source=student.due_source if student.due_at else "",
    )
    entries = [f"{student.student_id}/{p}" for p in student.files]
    if folder.is_symlink() or (folder.exists() and not folder.is_dir()):
        # Planted since the last import: never written through, nor replaced.
        why = f"{folder} is a symbolic link or not a folder: left alone"
        result.refused.extend(Refused(name, why) for name in entries)
        return
    # What this import's record says the folder holds: an unrecorded `.lms.json` (an
    # earlier grader's, or one a student handed in) decides nothing, and is rewritten.
    old = read_meta(folder) if folder.exists() else None
    ours = old is not None or read_meta(folder, recorded_only=False) is not None
    if not ours and folder.is_dir() and any(folder.iterdir()):
        # A folder someone made by hand (or another tool): not ours to overwrite.
        why = f"{folder} exists and was not made by an import: left alone"
        result.refused.extend(Refused(name, why) for name in entries)
        return
    if old is not None and old.same_submission(meta):
        result.unchanged.append(student.student_id)
        return
    if old is not None and _older(meta, old):
        timed = meta.submitted_at and old.submitted_at
        what = "submitted" if timed else "downloaded"
        mine, theirs = (
            (meta.submitted_at, old.submitted_at)
            if timed
            else (meta.downloaded_at, old.downloaded_at)
        )
        result.kept_newer.append(
            f"{student.student_id} (this archive: {what} {mine}, the folder: {what} {theirs})"
        )
        return
    existed = folder.exists()
    folder.mkdir(parents=True, exist_ok=True)
    if old is not None:
        # Files the previous import wrote that this submission no longer has are the
        # student's old files: removed first, so that a folder may become a file.
        # Anything else in the folder is not ours.
        for gone in sorted(set(old.files) - set(meta.files)):
            _remove_old(folder, gone)
    written = dict(meta.files)
    for relative, data in student.files.items():
        try:
            _write_if_changed(folder, relative, data, meta.files[str(relative)], old)
        except OSError as error:  # a name too long for this file system, a full disk...
            del written[str(relative)]  # not in the metadata: the next import tries again
            result.refused.append(
                Refused(
                    f"{student.student_id}/{relative}",
                    f"cannot be written: {error.strerror or error}",
                )
            )
    if not written and not existed:
        folder.rmdir()  # nothing of this student could be written
        return
    record.write(folder, dataclasses.replace(meta, files=written))
    (result.updated if existed else result.added).append(student.student_id)


def _remove_old(folder: Path, relative: str) -> None:
    """Remove a file the last import wrote, and the folders that leaves empty; nothing
    through a link, nothing outside the folder (the metadata is only a file)."""
    parts = PurePosixPath(relative).parts
    if not parts or PurePosixPath(relative).is_absolute() or ".." in parts:
        return
    if _linked_parent(folder, parts):
        return
    path = folder.joinpath(*parts)
    if path.is_file() and not path.is_symlink():
        with contextlib.suppress(OSError):  # left there: one stale file stops no one
            path.unlink()
    for depth in range(len(parts) - 1, 0, -1):
        try:
            folder.joinpath(*parts[:depth]).rmdir()
        except OSError:  # not empty (or not there): kept
            break


def _linked_parent(folder: Path, parts: tuple[str, ...]) -> Path | None:
    """The first of `folder` and the folders leading to `parts` that is a link."""
    for depth in range(len(parts)):
        parent = folder.joinpath(*parts[:depth])
        if parent.is_symlink():
            return parent
    return None


class _Unwritable(OSError):
    """An entry the import refuses to write where the folder now has something else."""


def _older(new: SubmissionMeta, old: SubmissionMeta) -> bool:
    """Whether `new` is an older submission than `old`: by the submission times, else
    by when the LMS made each download."""
    a, b = new.submitted, old.submitted
    if a is None or b is None:
        a, b = parse_time(new.downloaded_at), parse_time(old.downloaded_at)
    if a is None or b is None:
        return False
    if (a.tzinfo is None) != (b.tzinfo is None):
        a, b = a.replace(tzinfo=None), b.replace(tzinfo=None)
    return a < b


def _holds(path: Path, data: bytes) -> bool:
    """Whether `path` is a file (not a link) holding exactly `data`, read no further."""
    try:
        return read_limited(path, len(data)) == data
    except OSError:
        return False


def _write_if_changed(
    folder: Path,
    relative: PurePosixPath,
    data: bytes,
    digest: str,  # data's sha256, as the new metadata lists it
    old: SubmissionMeta | None,
) -> None:
    path = folder.joinpath(*relative.parts)
    if old is not None and old.files.get(str(relative)) == digest and _holds(path, data):
        return  # untouched: its time stays, nothing downstream sees a change
    # A link planted in the folder since the last import must not redirect the write.
    linked = _linked_parent(folder, relative.parts)
    if linked is not None:
        raise _Unwritable(f"{linked}: is a symbolic link; refusing to write through it")
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.is_symlink() or (path.exists() and not path.is_file()):
        raise _Unwritable(f"{path}: exists and is not a regular file; refusing to replace it")
    with atomic_output(path) as handle:
        handle.write(data)
