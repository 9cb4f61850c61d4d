"""`grader import KIND DOWNLOAD`: a source's download -> one folder per student.

Each source (grader/lms/systems.py) reads its own download and files into the one
interface (grader/lms/incoming.py): the people, teams, times and files it found. What
follows is every source's: a student named twice refused, uploaded zips unpacked,
files that cannot stand together refused, the roster matched, each folder written.

Each student's folder holds their files and `.lms.json` (grader/course/submission_meta.py).
A second import of a newer download touches only the students whose files or
submission time changed; a student missing from it keeps their folder, and an
older download never replaces a newer submission (by their submission times, else
by when the LMS made each download).

Submission times come only from a source that knows them (each source's module says
which); a time the student can set (a zip entry's, a commit's) is never one. The
import says once which students have no time at all.
"""

import contextlib
import dataclasses
import hashlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path, PurePosixPath
from typing import Any

from grader.core.atomic import atomic_output
from grader.core.bounded import read_limited
from grader.course.identity import Key, Person
from grader.course.submission_meta import ImportRecord, SubmissionMeta, parse_time, read_meta
from grader.lms.incoming import ImportOptions, Incoming
from grader.lms.matching import match_roster
from grader.lms.paths import conflicts
from grader.lms.roster import Roster
from grader.lms.systems import REGISTRY
from grader.lms.unpack import ArchiveError, Refused, UnpackLimits, read_zip


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
    options: ImportOptions | None = None,
    stored: Callable[[str], None] = lambda student_id: None,
    **fields: Any,
) -> ImportResult:
    """`options`, or its fields one by one (grader.lms.incoming.ImportOptions);
    `stored` is told of each student's folder as it is written."""
    if kind not in REGISTRY:
        raise ArchiveError(f"unknown source {kind!r} (known: {', '.join(sorted(REGISTRY))})")
    options = options or ImportOptions(**fields)
    parsed = REGISTRY[kind].read(Path(archive), options)
    roster = options.roster
    result = ImportResult(refused=list(parsed.refused), notes=list(parsed.notes))
    downloaded = parsed.downloaded
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
        _match_roster(list(taken.values()), roster, result, options.declared)
    record = ImportRecord(into)
    try:
        for sid in result.seen:
            _store(kind, Path(archive).name, downloaded, taken[sid], into / sid, result, record)
            stored(sid)
    finally:  # what was written is recorded, even when a later student fails
        record.save()
    result.absent = sorted(
        p.name
        for p in into.iterdir()
        if p.is_dir() and read_meta(p) is not None and p.name not in taken
    )
    return result


def _match_roster(
    students: list[Incoming], roster: Roster, result: ImportResult, declared: Mapping[str, str]
) -> None:
    """Each student's row, as the export will find it (grader.lms.matching): their name
    from it; who is in neither."""
    people = [
        Person(s.student_id, s.name or s.student_id, keys)
        for s in students
        for keys in _people_keys(s)
    ]
    found = match_roster(roster, people, declared)
    result.notes.extend(found.refused)
    matched = set(found.rows.values())
    by_id = {s.student_id: s for s in students}
    tests = roster.test_accounts()
    for index, sid in found.rows.items():
        student = by_id[sid]
        if index in tests and (student.team is None or student.team.graded_alone):
            student.test_account = True
            result.notes.append(
                f"{sid}: {roster.label(roster.rows[index])} is Canvas's Test Student (Student "
                "View: its name, no SIS id, listed last in the gradebook): graded, never "
                "ranked nor given the speed bonus"
            )
        if student.team is None or student.team.graded_alone:  # a team keeps its group's name
            student.name = roster.name(roster.rows[index]) or student.name
            # The row's other keys are the same person's (its SIS id, login): kept for
            # what names them so (the course's extensions file, another system's roster).
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


def _people_keys(student: Incoming) -> list[tuple[Key, ...]]:
    """The keys of each person the submission is for: its team's members, or its own."""
    if student.team is not None and student.team.members and not student.team.graded_alone:
        return [m.keys for m in student.team.members]
    return [student.keys]


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
    meta = _meta(kind, archive, downloaded, student)
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
        result.kept_newer.append(_kept_newer(student.student_id, meta, old))
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


def _meta(
    kind: str, archive: str, downloaded: datetime | None, student: Incoming
) -> SubmissionMeta:
    """What the import records of `student`'s submission (`.lms.json`)."""
    return SubmissionMeta(
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
        lms_status=student.lms_status,
        lms_seconds_late=student.lms_seconds_late,
        test_account=student.test_account,
        unusable=dict(student.unusable),
    )


def _kept_newer(student_id: str, meta: SubmissionMeta, old: SubmissionMeta) -> str:
    """Why the folder's submission was kept: it is newer than this archive's."""
    timed = meta.submitted_at and old.submitted_at
    what = "submitted" if timed else "downloaded"
    mine, theirs = (
        (meta.submitted_at, old.submitted_at) if timed else (meta.downloaded_at, old.downloaded_at)
    )
    return f"{student_id} (this archive: {what} {mine}, the folder: {what} {theirs})"


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
