"""The small file an import leaves beside a student's files: who, when, late or not.

`.lms.json` in the student's folder. Its name starts with a dot, so the grader's
discovery never takes it for a source file, and it is not part of the content
hash: fixing a name or a time never regrades anyone. The LMS import writes it; the
late policy and `show` read it, so it lives below both. The import records the
digest of each one it wrote in `.lms-import.json` beside the students' folders, out
of any student's reach: a `.lms.json` not recorded there (one a student handed in,
in a class folder made by hand) is never read as a fact.

What it records is what the LMS says, as typed fields (a later reader never parses
the archive again):
- `submitted_at`, `time_source`: the submission time and where it came from
  (Gradescope's metadata, Moodle's worksheet "Last modified (submission)", a file of
  Canvas's `submitted_at`); None when no source knew it. A zip entry's time is never
  one: Canvas and Moodle stamp every entry with the moment the zip was made.
- `downloaded_at`: when the LMS made the download (the time its zip gives every
  entry): only which of two downloads is the newer one.
- `late_marker`: Canvas's `LATE_`; None where the LMS marks nothing.
- `keys`: who submitted it, as each system keys them (grader.course.identity): Canvas's user
  id (and the roster row's SIS ids), Moodle's participant id, Gradescope's sid and
  e-mail; a team's members carry their own.
- `due_at`, `due_source`: the student's own due date where the LMS gave one
  (Canvas's cached_due_date, Moodle's extension or per-student "Due date"); for a
  team, its latest member's.
- `lms_status`, `lms_seconds_late`: a status a teacher set on the submission in the
  LMS, which decides whether it is late over any time (Canvas's late_policy_status:
  "none", "late", "missing", "extended", or "excused"; "" when none was set), and the
  seconds late typed in beside "late" (Canvas's seconds_late_override; None: none).
- `unusable`: files the LMS holds for the student that cannot be used, path -> why (a
  link in their repository, a Git LFS pointer, a submodule): their report lists them
  beside the files used.
- `test_account`: the LMS's own test account handed it in (Canvas's Test Student, of
  Student View): graded, never ranked nor given the bonus.
- `anonymous_id`: Canvas's anonymous grading id (`anon_<id>`): the folder is named by
  it and no roster knows it until Canvas reveals the names.
- `attachments`: Canvas's attachment id of each submitted file (as it was named
  when imported): "Re-upload submissions" finds the submission through one of them.
- `team` (a Team, None for a one-person submission), read by the team model
  (grader/intake/teams.py):
  - `group_id`: Moodle's group id, the number in `Team Rocket_1203_assignsubmission_`,
    or Canvas's group id from its group set export (`import canvas --teams`) ("" for
    Moodle's default group and for Gradescope, which numbers no groups);
  - `group_name`: the name the LMS gives it (`Default group` included);
  - `default_group`: Moodle's default group, the students in no group, who share
    one submission (`Default group_assignsubmission_file/`, no id);
  - `graded_alone`: the folder is one member's own copy of the group's submission,
    graded for them alone (Canvas's group assignment graded individually, whose
    download holds every member's copy); the group is kept for the speed bonus;
  - `members`: who the LMS says the submission is for, each a TeamMember
    (`lms_user_id`: Moodle participant id, Gradescope sid or e-mail, Canvas user id;
    `name`; `other_ids`: the member's other ids a roster may use, as Gradescope's
    e-mail beside the sid, Canvas's SIS id and login): the rows of Moodle's grading
    worksheet whose Group column names the group (empty without the worksheet),
    Gradescope's `:submitters:`, or the rows of Canvas's group set export naming the
    group.
"""

import hashlib
import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from datetime import datetime
from functools import lru_cache
from pathlib import Path
from types import MappingProxyType
from typing import Any

from grader.core.atomic import atomic_output
from grader.core.bounded import read_limited
from grader.course import identity
from grader.course.identity import Key

META_NAME = ".lms.json"
# Beside the students' folders: which `.lms.json` the import itself wrote (their
# digests). A folder's metadata counts only when it is one of them: a `.lms.json` a
# student handed in, copied into a class folder made by hand, counts for nothing.
RECORD_NAME = ".lms-import.json"
FORMAT = 2  # 2: typed keys, each person's own due date (format 1 is still read)
MAX_META_BYTES = 1 << 20  # what an import writes is a few kB, whatever the class
MAX_RECORD_BYTES = 64 << 20


@dataclass(frozen=True)
class TeamMember:
    lms_user_id: str  # Moodle participant id; Gradescope sid (else e-mail); Canvas user id
    name: str = ""
    other_ids: tuple[str, ...] = ()  # more ids of the same member (e-mail, SIS id, login)
    keys: tuple[Key, ...] = ()  # who they are, as each system keys them (grader.course.identity)


@dataclass(frozen=True)
class Team:
    group_id: str = ""  # Moodle's or Canvas's group id; "" for Moodle's default group, Gradescope
    group_name: str = ""
    default_group: bool = False  # Moodle: the students in no group, one shared submission
    members: tuple[TeamMember, ...] = ()  # as the LMS lists them; () when it did not say
    graded_alone: bool = False  # one member's own copy, graded for them (Canvas, individually)


@dataclass(frozen=True)
class SubmissionMeta:
    student_id: str  # the folder's name: stable across downloads of the same course
    lms: str  # canvas, moodle or gradescope
    name: str = ""  # the student's name as the LMS spells it
    lms_user_id: str = ""  # Canvas user id, Moodle participant id, Gradescope submission id
    submission_id: str = ""
    submitted_at: str | None = None  # ISO 8601; naive = the course's local time
    time_source: str = ""  # where submitted_at came from
    late_marker: bool | None = None  # the LMS's own "late" flag, None when it has none
    other_ids: tuple[str, ...] = ()  # SIS ids, e-mails, team members: what a roster may match on
    files: dict[str, str] = field(default_factory=dict)  # relative path -> sha256
    archive: str = ""  # the download it came from
    downloaded_at: str | None = None  # ISO 8601, naive: when the LMS made that download
    anonymous_id: str = ""  # Canvas's anonymous grading id; "" when names are shown
    attachments: dict[str, str] = field(default_factory=dict)  # Canvas: file -> attachment id
    team: Team | None = None  # what the LMS says of the team that submitted it
    keys: tuple[Key, ...] = ()  # the submitter, as each system keys them (grader.course.identity)
    due_at: str | None = None  # ISO 8601: this student's own due date, None: the course's
    due_source: str = ""  # where due_at came from (an extension in the LMS, say)
    lms_status: str = ""  # a lateness status a teacher set in the LMS ("" none)
    lms_seconds_late: int | None = None  # the seconds late typed in beside it
    test_account: bool = False  # the LMS's own test account (Canvas's Test Student)
    unusable: dict[str, str] = field(default_factory=dict)  # path -> why it cannot be used

    @property
    def submitted(self) -> datetime | None:
        return parse_time(self.submitted_at)

    @property
    def due(self) -> datetime | None:
        return parse_time(self.due_at)

    def ids(self) -> set[str]:
        """Every identifier a roster row might use for this student."""
        return {i for i in (self.student_id, self.lms_user_id, *self.other_ids) if i}

    def same_submission(self, other: "SubmissionMeta") -> bool:
        return (
            self.files == other.files
            and self.submitted_at == other.submitted_at
            and self.late_marker == other.late_marker
            and self.team == other.team
            and self.time_source == other.time_source
            and self.keys == other.keys
            and self.due_at == other.due_at
            and self.lms_status == other.lms_status
            and self.lms_seconds_late == other.lms_seconds_late
            and self.test_account == other.test_account
            and self.unusable == other.unusable
        )


def parse_time(text: str | None) -> datetime | None:
    if not text:
        return None
    try:
        return datetime.fromisoformat(text)
    except ValueError:
        return None


class ImportRecord:
    """The class folder's record of the `.lms.json` the import wrote: read once and
    saved once, however many students an import writes."""

    def __init__(self, classroom: Path) -> None:
        self.classroom = Path(classroom)
        self.written = dict(_written(self.classroom))
        self.changed = False

    def write(self, folder: Path, meta: SubmissionMeta) -> None:
        """The folder's metadata, its digest recorded (saved by save())."""
        data = {"format": FORMAT, **asdict(meta)}
        data["other_ids"] = list(meta.other_ids)
        raw = (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode("utf-8")
        with atomic_output(Path(folder) / META_NAME) as handle:
            handle.write(raw)
        self.written[Path(folder).name] = hashlib.sha256(raw).hexdigest()
        self.changed = True

    def save(self) -> None:
        if not self.changed:
            return
        text = json.dumps({"format": 1, "written": self.written}, indent=1, sort_keys=True)
        with atomic_output(self.classroom / RECORD_NAME) as handle:
            handle.write(text.encode("utf-8"))


def write_meta(folder: Path, meta: SubmissionMeta) -> None:
    """One folder's metadata, recorded as the import's."""
    record = ImportRecord(Path(folder).parent)
    record.write(folder, meta)
    record.save()


def _written(classroom: Path) -> Mapping[str, str]:
    """Folder name -> the digest of the `.lms.json` the import wrote there."""
    try:
        stat = (classroom / RECORD_NAME).stat()
    except OSError:
        return {}
    return _record_at(str(classroom / RECORD_NAME), stat.st_ino, stat.st_size, stat.st_mtime_ns)


@lru_cache(maxsize=8)
def _record_at(path: str, inode: int, size: int, mtime_ns: int) -> Mapping[str, str]:
    """The record as that file holds it: every reader of a class's thousands of folders
    reads it once (a new record is a new file: atomic_output replaces it)."""
    try:
        data = json.loads(read_limited(Path(path), MAX_RECORD_BYTES))
        return MappingProxyType({str(k): str(v) for k, v in data.get("written", {}).items()})
    except (OSError, ValueError, AttributeError):
        return MappingProxyType({})


def unrecorded_meta(folder: str | Path) -> bool:
    """The folder holds a `.lms.json` the import did not write (a student's own, in a
    class folder made by hand): it is ignored, and a command says so."""
    path = Path(folder) / META_NAME
    return path.exists() and _verified_bytes(Path(folder)) is None


def _verified_bytes(folder: Path) -> bytes | None:
    try:
        raw = read_limited(folder / META_NAME, MAX_META_BYTES)
    except OSError:
        return None
    if _written(folder.parent).get(folder.name) != hashlib.sha256(raw).hexdigest():
        return None
    return raw


def read_meta(folder: str | Path, *, recorded_only: bool = True) -> SubmissionMeta | None:
    """The folder's metadata, or None when there is none, it is unreadable, or the
    import did not write it (a hand-made folder, one copied without its dot files, a
    `.lms.json` a student handed in). `recorded_only=False`: whatever `.lms.json` holds,
    for the import alone (it decides whether a folder is one of its own, and records
    it again)."""
    folder = Path(folder)
    if recorded_only:
        raw = _verified_bytes(folder)
    else:
        try:
            raw = read_limited(folder / META_NAME, MAX_META_BYTES)
        except OSError:
            raw = None
    if raw is None:
        return None
    try:
        data = json.loads(raw.decode("utf-8"))
    except ValueError:
        return None
    if not isinstance(data, dict) or data.get("format") not in (1, FORMAT):
        return None
    try:
        return _meta(data)
    except (KeyError, TypeError, AttributeError, ValueError):
        return None


def _meta(data: dict[str, Any]) -> SubmissionMeta:
    meta = SubmissionMeta(
        student_id=str(data["student_id"]),
        lms=str(data["lms"]),
        name=str(data.get("name", "")),
        lms_user_id=str(data.get("lms_user_id", "")),
        submission_id=str(data.get("submission_id", "")),
        submitted_at=data.get("submitted_at"),
        time_source=str(data.get("time_source", "")),
        late_marker=data.get("late_marker"),
        other_ids=tuple(str(i) for i in data.get("other_ids", [])),
        files={str(k): str(v) for k, v in data.get("files", {}).items()},
        archive=str(data.get("archive", "")),
        downloaded_at=data.get("downloaded_at"),
        anonymous_id=str(data.get("anonymous_id", "")),
        attachments={str(k): str(v) for k, v in data.get("attachments", {}).items()},
        team=_team(data.get("team")),
        keys=_keys(data.get("keys")),
        due_at=data.get("due_at"),
        due_source=str(data.get("due_source", "")),
        lms_status=str(data.get("lms_status") or ""),
        lms_seconds_late=_seconds(data.get("lms_seconds_late")),
        test_account=bool(data.get("test_account", False)),
        unusable={str(k): str(v) for k, v in (data.get("unusable") or {}).items()},
    )
    if data.get("format") == 1:  # no typed keys yet: the LMS's own id alone
        return _with_legacy_keys(meta)
    return meta


def _seconds(value: Any) -> int | None:
    return None if value is None else int(value)


def _keys(data: Any) -> tuple[Key, ...]:
    return tuple((str(kind), str(value)) for kind, value in data or ())


def _team(data: dict[str, Any] | None) -> Team | None:
    if data is None:
        return None
    return Team(
        group_id=str(data.get("group_id", "")),
        group_name=str(data.get("group_name", "")),
        default_group=bool(data.get("default_group", False)),
        graded_alone=bool(data.get("graded_alone", False)),
        members=tuple(
            TeamMember(
                str(m["lms_user_id"]),
                str(m.get("name", "")),
                tuple(str(i) for i in m.get("other_ids", [])),
                _keys(m.get("keys")),
            )
            for m in data.get("members", [])
        ),
    )


# Format 1 kept untyped ids: only the LMS's own id of each person is known for sure.
_LEGACY_KIND = {
    "canvas": identity.CANVAS_USER,
    "moodle": identity.MOODLE_PARTICIPANT,
    "gradescope": identity.GRADESCOPE_SID,
}


def _with_legacy_keys(meta: SubmissionMeta) -> SubmissionMeta:
    kind = _LEGACY_KIND.get(meta.lms)
    if kind is None:
        return meta
    team = meta.team
    if team is not None:
        members = tuple(
            TeamMember(m.lms_user_id, m.name, m.other_ids, ((_legacy(kind, m.lms_user_id)),))
            for m in team.members
        )
        team = Team(team.group_id, team.group_name, team.default_group, members)
    own = meta.anonymous_id or meta.lms_user_id
    keys = () if meta.lms == "gradescope" or not own else ((kind, own),)
    return SubmissionMeta(**{**_fields(meta), "team": team, "keys": keys})


def _legacy(kind: str, value: str) -> Key:
    if kind == identity.GRADESCOPE_SID and "@" in value:
        return identity.GRADESCOPE_EMAIL, value
    return kind, value


def _fields(meta: SubmissionMeta) -> dict[str, Any]:
    return {name: getattr(meta, name) for name in meta.__dataclass_fields__}
