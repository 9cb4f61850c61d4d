"""What every LMS format yields: one student's files and what the LMS says of them."""

import re
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import PurePosixPath

from grader.lms.unpack import Refused

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


@dataclass
class Parsed:
    students: list[Incoming] = field(default_factory=list)
    refused: list[Refused] = field(default_factory=list)


def safe_id(text: str) -> str:
    """A folder name made of letters, digits, '.', '_' and '-', never hidden."""
    cleaned = _UNSAFE.sub("-", text.strip()).strip("-.")
    return cleaned or "student"


def newest(times) -> datetime | None:
    known = [t for t in times if t is not None]
    return max(known) if known else None
