"""What every LMS format yields: one student's files and what the LMS says of them."""

import re
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import PurePosixPath
from typing import Dict, List, Optional, Tuple

from grader.lms.unpack import Refused

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


@dataclass
class Incoming:
    student_id: str  # becomes the folder name (see safe_id)
    name: str
    lms_user_id: str
    submission_id: str = ""
    submitted_at: Optional[datetime] = None
    time_source: str = ""
    late_marker: Optional[bool] = None
    other_ids: Tuple[str, ...] = ()
    files: Dict[PurePosixPath, bytes] = field(default_factory=dict)
    notes: List[str] = field(default_factory=list)  # e.g. which resubmitted copy was kept


@dataclass
class Parsed:
    students: List[Incoming] = field(default_factory=list)
    refused: List[Refused] = field(default_factory=list)


def safe_id(text: str) -> str:
    """A folder name made of letters, digits, '.', '_' and '-', never hidden."""
    cleaned = _UNSAFE.sub("-", text.strip()).strip("-.")
    return cleaned or "student"


def newest(times) -> Optional[datetime]:
    known = [t for t in times if t is not None]
    return max(known) if known else None
