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
"""

import csv
import io
import json
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from grader.bounded import read_text
from grader.errors import GraderError

MAX_TIMES_BYTES = 64 << 20
ID_COLUMNS = ("user_id", "anonymous_id")


class TimesError(GraderError):
    """The times file cannot be used; str() names it and the problem."""


@dataclass(frozen=True)
class SubmissionTimes:
    source: str  # what `.lms.json` says the times came from
    by_id: dict[str, datetime] = field(default_factory=dict)  # user or anonymous id -> time
    unreadable: tuple[str, ...] = ()  # "<id>: <text>" of times that are not ISO 8601
    due_by_id: dict[str, datetime] = field(default_factory=dict)  # -> their own due date


def read_times(path: Path) -> SubmissionTimes:
    path = Path(path)
    text = read_text(path, MAX_TIMES_BYTES, "the times", TimesError)
    records = _json(text, path) if text.lstrip().startswith(("[", "{")) else _csv(text, path)
    by_id: dict[str, datetime] = {}
    due_by_id: dict[str, datetime] = {}
    unreadable = []
    for record in records:
        for column in ID_COLUMNS:
            ident = str(record.get(column) or "").strip()
            if not ident:
                continue
            for field_name, found in (("submitted_at", by_id), ("cached_due_date", due_by_id)):
                text = str(record.get(field_name) or "").strip()
                if not text:
                    continue
                when = parse_iso(text)
                if when is None:
                    unreadable.append(f"{ident}: {field_name} {text!r}")
                else:
                    found[ident] = when
    return SubmissionTimes(f"submitted_at in {path.name}", by_id, tuple(unreadable), due_by_id)


def parse_iso(text: str) -> datetime | None:
    """ISO 8601 as Canvas writes it ("2026-03-02T04:58:00Z"; Python 3.10 wants +00:00)."""
    text = text.strip()
    if text.endswith(("Z", "z")):
        text = text[:-1] + "+00:00"
    try:
        return datetime.fromisoformat(text)
    except ValueError:
        return None


def _json(text: str, path: Path) -> list[dict]:
    try:
        document = json.loads(text)
    except ValueError as error:
        raise TimesError(f"{path}: not readable JSON: {error}") from None
    if isinstance(document, dict):
        document = [document]
    if not isinstance(document, list) or not all(isinstance(r, dict) for r in document):
        raise TimesError(f"{path}: expected the list of submissions Canvas's API returns")
    return document


def _csv(text: str, path: Path) -> list[dict]:
    reader = csv.DictReader(io.StringIO(text, newline=""))
    columns = reader.fieldnames or []
    if "submitted_at" not in columns or not any(c in columns for c in ID_COLUMNS):
        raise TimesError(
            f"{path}: expected the columns submitted_at and user_id (or anonymous_id), "
            f"found {', '.join(columns) or 'none'}"
        )
    return list(reader)
