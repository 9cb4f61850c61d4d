"""What every LMS format yields: one student's files and what the LMS says of them."""

import re
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import PurePosixPath

from grader.identity import Key
from grader.lms.unpack import Refused
from grader.submission_meta import Team

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


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
    keys: tuple[Key, ...] = ()  # the submitter, as the LMS keys them (grader.identity)
    due_at: datetime | None = None  # their own due date, where the LMS says it
    due_source: str = ""


@dataclass
class Parsed:
    students: list[Incoming] = field(default_factory=list)
    refused: list[Refused] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # about the archive as a whole


def safe_id(text: str) -> str:
    """A folder name made of letters, digits, '.', '_' and '-', never hidden."""
    cleaned = _UNSAFE.sub("-", text.strip()).strip("-.")
    return cleaned or "student"


def newest(times) -> datetime | None:
    known = [t for t in times if t is not None]
    return max(known) if known else None


def one_name_per_id(claims: list, what: str) -> tuple[list, list[Refused]]:
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
