"""The one interface of every source (Canvas, Moodle, Gradescope, GitHub Classroom):
`read(download, options) -> Parsed`, the people, teams, times and files it found, and
what the LMS says of them. grader/lms/systems.py declares the sources; the importer
knows none of them by name."""

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import PurePosixPath
from typing import Any, TypeVar

from grader.course.identity import Key
from grader.course.late import LatePolicy
from grader.course.submission_meta import Team
from grader.lms.classroom_lists import ClassroomList
from grader.lms.groups import GroupSet
from grader.lms.matching import DECLARED
from grader.lms.roster import Roster
from grader.lms.times import SubmissionTimes
from grader.lms.unpack import DEFAULT_LIMITS, Refused, Unpacked, UnpackLimits

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")

# A source's claim on an entry: (id, name, member, ...), what else it keeps is its own.
_Claim = TypeVar("_Claim", bound=tuple[Any, ...])


@dataclass
class Incoming:
    student_id: str  # becomes the folder name (see safe_id)
    name: str
    lms_user_id: str
    submission_id: str = ""
    submitted_at: datetime | None = None
    time_source: str = ""
    late_marker: bool | None = None
    other_ids: tuple[str, ...] = ()
    files: dict[PurePosixPath, bytes] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)  # e.g. which resubmitted copy was kept
    anonymous_id: str = ""  # Canvas's anonymous grading id
    attachments: dict[str, str] = field(default_factory=dict)  # Canvas: file -> attachment id
    team: Team | None = None
    keys: tuple[Key, ...] = ()  # the submitter, as the LMS keys them (grader.course.identity)
    # Files the LMS holds for them that cannot be used (a link, an LFS pointer, a
    # submodule), path -> why: shown in their report beside the files used.
    unusable: dict[str, str] = field(default_factory=dict)
    due_at: datetime | None = None  # their own due date, where the LMS says it
    due_source: str = ""
    # A status a teacher set in the LMS, which decides over the times (Canvas's
    # late_policy_status or "excused"), and the seconds late typed in beside it.
    lms_status: str = ""
    lms_seconds_late: int | None = None
    test_account: bool = False  # the LMS's own test account (Canvas's Test Student)


@dataclass
class Parsed:
    students: list[Incoming] = field(default_factory=list)
    refused: list[Refused] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # about the archive as a whole
    # When the LMS made the download: only which of two downloads is the newer one.
    downloaded: datetime | None = None


@dataclass(frozen=True)
class ImportOptions:
    """What the instructor gave beside the download, read and checked: each source
    takes what is its own and leaves the rest."""

    source_names: frozenset[str] = frozenset()  # the course's source file names
    limits: UnpackLimits = DEFAULT_LIMITS
    roster: Roster | None = None  # the LMS's gradebook, worksheet or classroom roster
    times: SubmissionTimes | None = None  # Canvas: submitted_at from its API (--times)
    groups: GroupSet | None = None  # Canvas: its group set export (--teams GROUPS.csv)
    teams: bool = False  # Moodle: the assignment has team submissions (--teams)
    grades: ClassroomList | None = None  # GitHub Classroom's grades download (--grades)
    accepted: ClassroomList | None = None  # GitHub's accepted assignments (--accepted)
    late: LatePolicy = LatePolicy()  # the course's ([late]): GitHub Classroom's deadline commit
    # Other systems' ids as roster columns (course.toml [lms]): the roster matched as
    # the export will match it (grader.lms.matching).
    declared: Mapping[str, str] = field(default_factory=lambda: DECLARED)


def safe_id(text: str) -> str:
    """A folder name made of letters, digits, '.', '_' and '-', never hidden."""
    cleaned = _UNSAFE.sub("-", text.strip()).strip("-.")
    return cleaned or "student"


def newest(times: Iterable[datetime | None]) -> datetime | None:
    known = [t for t in times if t is not None]
    return max(known) if known else None


def one_name_per_id(claims: list[_Claim], what: str) -> tuple[list[_Claim], list[Refused]]:
    """claims: (id, name, member, ...) of every entry. An LMS writes one name (its
    prefix) for all the entries of one id; where an archive has two, some entry is
    not what it claims to be and none of that id's entries can be trusted:
    (the claims of ids with one name, the refused entries of the others)."""
    names: dict[str, set[str]] = {}
    for ident, name, *_ in claims:
        names.setdefault(ident, set()).add(name)
    kept, refused = [], []
    for claim in claims:
        ident, _, member, *_ = claim
        if len(names[ident]) == 1:
            kept.append(claim)
        else:
            shown = ", ".join(sorted(names[ident]))
            refused.append(
                Refused(
                    str(member.path),
                    f"{what} {ident} is named two ways in this archive ({shown}): "
                    "none of its entries is imported",
                )
            )
    return kept, refused


def download_time(unpacked: Unpacked, lms: str, archive: str, notes: list[str]) -> datetime | None:
    """When the LMS made a zip download: the one time Canvas and Moodle give every
    entry (the newest entry's otherwise). Never a submission time; said when it is one."""
    stamps = {m.mtime for m in unpacked.members if m.mtime is not None}
    if len(unpacked.members) > 1 and len(stamps) == 1:
        (stamp,) = stamps
        notes.append(
            f"{archive}: every entry carries one time, {stamp.isoformat(sep=' ')}: when "
            f"{lms} made the download, not when anyone submitted"
        )
    return max(stamps) if stamps else None
