"""Submission times, and each student's own due date, from a source that knows them,
for a download that has neither.

Canvas's "Download Submissions" zip stamps every entry with the moment the zip was
made; the times are in Canvas's API instead (GET /api/v1/courses/:course/assignments/
:assignment/submissions: `user_id`, `anonymous_id` under anonymous grading,
`submitted_at`, ISO 8601 in UTC, and `cached_due_date`: the student's own due date,
their section's, group's or individual override included, an extension too:
app/models/submission.rb). `--times FILE` reads either that JSON as the API returns
it, or a CSV with a `submitted_at` column (and `cached_due_date` if known) beside
`user_id` (or `anonymous_id`), as a spreadsheet of the same data would have it.

A teacher may also set a submission's status in Canvas (the gradebook's submission
tray: None, Late, Missing, Extended, or Excused), which the same record holds as
`late_policy_status` ("none", "late", "missing", "extended"; null when unset),
`seconds_late_override` (the days typed in beside Late, in seconds) and `excused`.
Canvas's own rule (Submission::Tardiness) then decides: a set status wins over the
times, so "late" is late by the typed seconds (0 when none were typed) and any other
status is not late; excused is never late. Read here as a CanvasStatus per id.
"""

import csv
import io
import json
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from grader.core.bounded import read_text
from grader.core.errors import GraderError

MAX_TIMES_BYTES = 64 << 20
ID_COLUMNS = ("user_id", "anonymous_id")


class TimesError(GraderError):
    """The times file cannot be used; str() names it and the problem."""


STATUSES = ("none", "late", "missing", "extended")  # Submission's late_policy_status
EXCUSED = "excused"


@dataclass(frozen=True)
class CanvasStatus:
    """What a teacher set on the submission in Canvas, which decides over the times."""

    status: str  # one of STATUSES, or EXCUSED
    seconds_late: int | None = None  # seconds_late_override: the days typed in beside Late

    @property
    def late(self) -> bool:
        """Submission::Tardiness#late?: excused never; else the status says."""
        return self.status == "late"


@dataclass(frozen=True)
class SubmissionTimes:
    source: str  # what `.lms.json` says the times came from
    by_id: dict[str, datetime] = field(default_factory=dict)  # user or anonymous id -> time
    unreadable: tuple[str, ...] = ()  # "<id>: <field> <text> is not ...": what was left out
    due_by_id: dict[str, datetime] = field(default_factory=dict)  # -> their own due date
    status_by_id: dict[str, CanvasStatus] = field(default_factory=dict)  # -> a set status


def read_times(path: Path) -> SubmissionTimes:
    path = Path(path)
    text = read_text(path, MAX_TIMES_BYTES, "the times", TimesError)
    records = _json(text, path) if text.lstrip().startswith(("[", "{")) else _csv(text, path)
    by_id: dict[str, datetime] = {}
    due_by_id: dict[str, datetime] = {}
    status_by_id: dict[str, CanvasStatus] = {}
    unreadable = []
    for record in records:
        for column in ID_COLUMNS:
            ident = str(record.get(column) or "").strip()
            if not ident:
                continue
            status, problem = _status(record)
            if problem:
                unreadable.append(f"{ident}: {problem}")
            if status is not None:
                status_by_id[ident] = status
            for field_name, found in (("submitted_at", by_id), ("cached_due_date", due_by_id)):
                text = str(record.get(field_name) or "").strip()
                if not text:
                    continue
                when = parse_iso(text)
                if when is None:
                    unreadable.append(f"{ident}: {field_name} {text!r} is not an ISO 8601 time")
                else:
                    found[ident] = when
    return SubmissionTimes(
        f"submitted_at in {path.name}", by_id, tuple(unreadable), due_by_id, status_by_id
    )


def _status(record: dict[str, Any]) -> tuple[CanvasStatus | None, str]:
    """(the status a teacher set, None for none; "" or why a field cannot be read)."""
    if _truthy(record.get("excused")):
        return CanvasStatus(EXCUSED), ""
    text = str(record.get("late_policy_status") or "").strip().lower()
    if not text:
        return None, ""
    if text not in STATUSES:
        return None, f"late_policy_status {text!r} is not one Canvas has"
    seconds: int | None = None
    raw = record.get("seconds_late_override")
    if raw is not None and str(raw).strip():
        try:
            seconds = int(float(str(raw).strip()))
        except ValueError:
            return None, f"seconds_late_override {raw!r} is not a number"
        if seconds < 0:
            return None, f"seconds_late_override {raw!r} is negative"
    return CanvasStatus(text, seconds), ""


def _truthy(value: object) -> bool:
    """JSON's true, or a spreadsheet's "true"/"1"."""
    if isinstance(value, bool):
        return value
    return str(value or "").strip().lower() in ("true", "1", "yes")


def parse_iso(text: str) -> datetime | None:
    """ISO 8601 as Canvas writes it ("2026-03-02T04:58:00Z"; Python 3.10 wants +00:00)."""
    text = text.strip()
    if text.endswith(("Z", "z")):
        text = text[:-1] + "+00:00"
    try:
        return datetime.fromisoformat(text)
    except ValueError:
        return None


def _json(text: str, path: Path) -> list[dict[str, Any]]:
    try:
        document = json.loads(text)
    except ValueError as error:
        raise TimesError(f"{path}: not readable JSON: {error}") from None
    if isinstance(document, dict):
        document = [document]
    if not isinstance(document, list) or not all(isinstance(r, dict) for r in document):
        raise TimesError(f"{path}: expected the list of submissions Canvas's API returns")
    return document


def _csv(text: str, path: Path) -> list[dict[str, Any]]:
    reader = csv.DictReader(io.StringIO(text, newline=""))
    columns = reader.fieldnames or []
    if "submitted_at" not in columns or not any(c in columns for c in ID_COLUMNS):
        raise TimesError(
            f"{path}: expected the columns submitted_at and user_id (or anonymous_id), "
            f"found {', '.join(columns) or 'none'}"
        )
    return list(reader)
