"""What GitHub Classroom lists for an assignment: who each repository is for, and when
GitHub recorded their submission. Read as GitHub's own tools write them
(github/gh-classroom, pkg/classroom):

- the grades download, `grades.csv` (`gh classroom assignment-grades`, or "Download
  grades" on the assignment's page): one row per student, written by Go's
  encoding/csv, with the columns assignment_name, assignment_url, starter_code_url,
  github_username, roster_identifier, student_repository_name,
  student_repository_url, submission_timestamp, points_awarded, points_available,
  and group_name in a group assignment. `submission_timestamp` is GitHub's record of
  the submission, the only time an import takes: a commit's date is whatever the
  student's clock (or `git commit --date`) said.
- the accepted assignments, as GitHub's API returns them (`gh api
  assignments/ID/accepted_assignments --paginate`: one JSON array per page, back to
  back; with --slurp, an array of those): each element has `students` (`id`,
  `login`), `repository` (`name`, `full_name`) and `assignment`, whose `deadline`
  (ISO 8601, null without one) is Classroom's own: the moment it takes each
  repository's default branch as the submission.

A repository is known by its name, compared as GitHub compares names (case aside).
"""

import csv
import io
import json
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from grader.core.bounded import read_text
from grader.core.errors import GraderError
from grader.lms.times import parse_iso

MAX_LIST_BYTES = 64 << 20
GRADES_COLUMNS = ("github_username", "student_repository_name", "submission_timestamp")


class ClassroomListError(GraderError):
    """A GitHub Classroom list cannot be used; str() names the file and the problem."""


@dataclass(frozen=True)
class Listed:
    """A student GitHub Classroom lists for a repository."""

    login: str
    github_id: str = ""
    identifier: str = ""  # their roster identifier, where the list gives it
    submitted_at: datetime | None = None
    group: str = ""  # the group's name, in a group assignment


@dataclass
class ClassroomList:
    source: str  # the file, for messages and `.lms.json`'s time source
    repos: dict[str, list[Listed]] = field(default_factory=dict)  # repo name (lower) -> them
    unreadable: list[str] = field(default_factory=list)  # "<login>: <text>" of odd times
    deadlines: set[datetime] = field(default_factory=set)  # the assignment's, as GitHub lists it

    def students(self, repo: str) -> list[Listed]:
        return self.repos.get(repo.lower(), [])


def repo_name(text: str) -> str:
    """A repository's name from its name, `owner/name` or URL: compared lower-case."""
    return text.strip().rstrip("/").rsplit("/", 1)[-1].removesuffix(".git").lower()


def read_grades(path: Path) -> ClassroomList:
    path = Path(path)
    text = read_text(path, MAX_LIST_BYTES, "GitHub Classroom's grades", ClassroomListError)
    rows = list(csv.DictReader(io.StringIO(text.lstrip("\ufeff"), newline="")))
    header = rows[0].keys() if rows else next(csv.reader(io.StringIO(text)), [])
    missing = [c for c in GRADES_COLUMNS if c not in header]
    if missing:
        raise ClassroomListError(
            f"{path}: not GitHub Classroom's grades download: no {', '.join(missing)} column"
        )
    found = ClassroomList(f"submission_timestamp in {path.name}")
    for row in rows:
        login = (row.get("github_username") or "").strip()
        repo = repo_name(
            row.get("student_repository_name") or row.get("student_repository_url") or ""
        )
        if not login or not repo:
            continue  # on the roster, but never accepted the assignment
        stamp = (row.get("submission_timestamp") or "").strip()
        when = github_time(stamp) if stamp else None
        if stamp and when is None:
            found.unreadable.append(f"{login}: {stamp!r}")
        found.repos.setdefault(repo, []).append(
            Listed(
                login,
                identifier=(row.get("roster_identifier") or "").strip(),
                submitted_at=when,
                group=(row.get("group_name") or "").strip(),
            )
        )
    return found


def read_accepted(path: Path) -> ClassroomList:
    path = Path(path)
    text = read_text(path, MAX_LIST_BYTES, "GitHub's accepted assignments", ClassroomListError)
    found = ClassroomList(path.name)
    for element in _elements(text, path):
        repository = element.get("repository") if isinstance(element, dict) else None
        if not isinstance(repository, dict):
            raise ClassroomListError(
                f"{path}: not GitHub's accepted assignments: an element without a repository"
            )
        repo = repo_name(str(repository.get("name") or repository.get("full_name") or ""))
        assignment = element.get("assignment")
        deadline = assignment.get("deadline") if isinstance(assignment, dict) else None
        if deadline:
            when = github_time(str(deadline))
            if when is None:
                found.unreadable.append(f"assignment deadline {deadline!r}")
            else:
                found.deadlines.add(when)
        for student in element.get("students") or []:
            if isinstance(student, dict) and student.get("login"):
                listed = Listed(str(student["login"]), str(student.get("id") or ""))
                found.repos.setdefault(repo, []).append(listed)
    return found


def _elements(text: str, path: Path) -> list[Any]:
    """Every accepted assignment of `gh api --paginate`'s pages (arrays back to back),
    or of one array (of them, or of pages with --slurp)."""
    decoder = json.JSONDecoder()
    elements: list[Any] = []
    at = 0
    while at < len(text):
        if text[at].isspace():
            at += 1
            continue
        try:
            page, at = decoder.raw_decode(text, at)
        except json.JSONDecodeError as error:
            raise ClassroomListError(
                f"{path}: not JSON: {error.msg} (line {error.lineno})"
            ) from None
        if not isinstance(page, list):
            raise ClassroomListError(f"{path}: not GitHub's accepted assignments: not a list")
        for item in page:
            elements.extend(item if isinstance(item, list) else [item])
    return elements


def github_time(text: str) -> datetime | None:
    """A time as GitHub writes one: ISO 8601 (`2026-03-02T04:58:00Z`), or Rails's
    `2026-03-02 04:58:00 UTC`; one without a zone is GitHub's, in UTC."""
    when = parse_iso(text.strip().removesuffix(" UTC"))
    if when is None or when.tzinfo is not None:
        return when
    return when.replace(tzinfo=timezone.utc)
