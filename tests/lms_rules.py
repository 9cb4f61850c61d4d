"""What each LMS's own upload accepts, restated from its source code, to check every file
the grader writes for one.

- Canvas "Import" in the gradebook: lib/gradebook_importer.rb (GradebookImporter:
  identify_delimiter, header?, update_column_count, check_for_non_student_row,
  process_student, the decimal_comma_to_period converter).
- Moodle "Upload grading worksheet": mod/assign/feedback/offline/importgradeslib.php
  (init, next) and locallib.php (process_import_grades).
- Canvas "Re-Upload Submissions": app/models/assignment.rb
  (infer_comment_context_from_filename).
- Moodle "Upload multiple feedback files in a zip": mod/assign/feedback/file/
  importziplib.php (is_valid_filename_for_import).
"""

import csv
import io
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

# ------------------------------------------------------------------ Canvas

_RESERVED = ("Student", "LastName", "FirstName", "ID", "SIS User ID", "SIS Login ID")
_RESERVED += ("Section", "Integration ID", "Root Account")
_NON_ASSIGNMENT = re.compile(
    "Current Score|Current Points|Current Grade|Final Score|Final Points|Final Grade|"
    "Override Score|Override Grade|Override Status"
)


class Rejected(AssertionError):
    """The LMS refuses the whole file; str() is the LMS's own message."""


@dataclass
class CanvasUpload:
    delimiter: str
    student_columns: list[str]
    assignments: list[str]
    points: dict[str, str] = field(default_factory=dict)
    grades: dict[str, dict[str, str]] = field(default_factory=dict)  # student id -> column -> cell


def canvas_delimiter(text: str) -> str:
    """identify_delimiter: the separator splitting the first three lines into one number
    of fields; `;` only when that number is larger than `,`'s."""
    counts = {}
    for separator in (";", ","):
        sizes = {
            len(next(csv.reader([line], delimiter=separator))) for line in text.splitlines()[:3]
        }
        counts[separator] = sizes.pop() if len(sizes) == 1 else 0
    return ";" if counts[";"] > counts[","] else ","


def _comma_to_period(cell: str) -> str:
    """decimal_comma_to_period: a number written with a decimal comma becomes one with a dot."""
    if re.fullmatch(r"-?[0-9.,]+%?", cell):
        parts = re.split(r"[,.]", cell)
        last = parts.pop()
        return last if not parts else "".join(parts) + "." + last
    return cell


def canvas_reads(text: str) -> CanvasUpload:
    """The gradebook as Canvas's importer reads it, or Rejected("Invalid header row")."""
    delimiter = canvas_delimiter(text)
    rows = [
        [_comma_to_period(c) for c in row]
        for row in csv.reader(io.StringIO(text.lstrip("\ufeff")), delimiter=delimiter)
        if not re.fullmatch(r"[;, ]*", delimiter.join(row))
    ]
    header = rows[0]
    if not (
        (len(header) > 3 and "Student" in header[0] and "ID" in header[1])
        or (
            len(header) > 4
            and "LastName" in header[0]
            and "FirstName" in header[1]
            and "ID" in header[2]
        )
    ):
        raise Rejected("Invalid header row")
    first_last = header[0] == "LastName" and header[1] == "FirstName"
    names = 4 if first_last else 3
    count = names
    if re.search(r"SIS\s+Login\s+ID", header[names - 1]):
        count += 1
    elif re.search(r"SIS\s+User\s+ID", header[names - 1]) and re.search(
        r"SIS\s+Login\s+ID", header[names]
    ):
        integration = 1 if re.search(r"Integration\s+ID", header[names + 1]) else 0
        count += 2 + integration
        if re.search(r"Root\s+Account", header[names + 1 + integration]):
            count += 1
    if "Section" not in header[count - 1]:
        raise Rejected("Invalid header row")
    assignments = [h for h in header[count:] if not _NON_ASSIGNMENT.search(h)]
    upload = CanvasUpload(delimiter, header[:count], assignments)
    for row in rows[1:]:
        if "Points Possible" in row[0]:
            upload.points = {h: row[header.index(h)] for h in assignments}
            continue
        if all(re.fullmatch(r"\s*(Muted|Manual Posting.*)?\s*", c, re.I) for c in row):
            continue
        student = row[2] if first_last else row[1]
        upload.grades[student] = {h: row[header.index(h)].strip() for h in assignments}
    return upload


# ------------------------------------------------------------------ Moodle

PARTICIPANT = "Participant "  # get_string('hiddenuser', 'assign')


@dataclass
class MoodleUpload:
    applied: dict[str, float] = field(default_factory=dict)  # participant id -> grade set
    skipped: dict[str, str] = field(default_factory=dict)  # participant id -> why (silent)
    feedback: dict[str, str] = field(default_factory=dict)  # participant id -> comments


def php_float(text: str) -> float:
    """PHP's (float) cast of a string: its longest leading number, else 0."""
    found = re.match(r"\s*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?", text)
    return float(found[0]) if found else 0.0


def unformat_float(text: str, decsep: str = ".", strict: bool = False) -> float | None:
    """lib/moodlelib.php: spaces removed, the language's decimal separator made a point,
    then PHP's cast; strict: None unless the whole is numeric. On an English site
    (decsep ".") "2,5" is 2, not 2.5."""
    cleaned = text.replace(" ", "").replace(decsep, ".")
    if strict and not re.fullmatch(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?", cleaned):
        return None
    return php_float(cleaned)


def moodle_reads(
    text: str,
    *,
    separator: str = ",",
    maximum: float,
    current: dict[str, float] | None = None,
    decsep: str = ".",
    scale: Sequence[str] | None = None,
    locked: Sequence[str] = (),
) -> MoodleUpload:
    """The worksheet as Moodle's upload applies it, with the separator chosen in the
    upload form (default: comma): Rejected without Identifier, Grade and "Last modified
    (grade)"; a row silently skipped when its grade is empty, negative, equal to the
    current one, its grading disabled (`locked`: participants whose grade is locked or
    overridden in the gradebook) or above the assignment's maximum. A grade is read by
    the site's language (`decsep`), leniently: on an English site "2,5" is 2. On a
    `scale` (its items, as the scale's definition lists them), a cell is looked up
    among the items (make_menu_from_list: 1 for the first, each trimmed): its number
    is the grade, and a cell no item matches, a number included, has no value."""
    rows = list(csv.reader(io.StringIO(text.lstrip("\ufeff")), delimiter=separator))
    header = rows[0]
    for column in ("Identifier", "Grade", "Last modified (grade)"):
        if column not in header:
            raise Rejected("invalidgradeimport")
    ident, grade = header.index("Identifier"), header.index("Grade")
    comments = header.index("Feedback comments") if "Feedback comments" in header else None
    upload = MoodleUpload()
    for row in rows[1:]:
        pid = row[ident][len(PARTICIPANT) :]
        if comments is not None:
            upload.feedback[pid] = row[comments]
        if row[grade].strip() == "":
            upload.skipped[pid] = "no value"
            continue
        if scale is not None:
            items = [item.strip() for item in scale]
            if row[grade] not in items:
                upload.skipped[pid] = "no value"
                continue
            value = float(items.index(row[grade]) + 1)
        else:
            found = unformat_float(row[grade], decsep)
            assert found is not None, "not strict: always a number"
            value = found
        if current and current.get(pid) == value:
            upload.skipped[pid] = "not modified"
        elif pid in locked:
            upload.skipped[pid] = "grading disabled"
        elif scale is None and (value < 0 or value > maximum):
            upload.skipped[pid] = "out of range"
        else:
            upload.applied[pid] = value
    return upload


def moodle_gradebook_reads(
    text: str, users: dict[str, str], maximum: float, *, decsep: str = "."
) -> dict[str, float | None]:
    """Moodle's gradebook CSV import (grade/import/csv: load_data.php) of a file mapped
    from "Email address" to the user's e-mail and its second column to a grade item of
    `maximum`: {user id: grade, None for no grade}. `users`: e-mail -> user id, the
    site's users. The whole file is Rejected ("Import failed. No data was imported.")
    for an address no user or two users have (compared without case), a value strict
    unformat_float cannot read, or one above the item's maximum (4.1.11, 4.4.3 on)."""
    rows = list(csv.reader(io.StringIO(text.lstrip("\ufeff"))))
    header = rows[0]
    email = header.index("Email address")
    value = 1 - email if len(header) == 2 else header.index("Speed bonus")
    lowered: dict[str, list[str]] = {}
    for address, user in users.items():
        lowered.setdefault(address.lower(), []).append(user)
    found: dict[str, float | None] = {}
    for row in rows[1:]:
        holders = lowered.get(row[email].strip().lower(), [])
        if len(holders) != 1:
            raise Rejected("usermappingerror" if not holders else "multipleusersfound")
        cell = row[value].strip()
        if cell in ("", "-"):
            found[holders[0]] = None
            continue
        grade = unformat_float(cell, decsep, strict=True)
        if grade is None:
            raise Rejected("badgrade")
        if grade > maximum:
            raise Rejected("gradevaluetoobig")
        found[holders[0]] = grade
    return found


# ------------------------------------------------------------------ feedback files


def canvas_feedback_reads(
    names: list[str], attachments: dict[str, set[str]]
) -> tuple[dict[str, list[str]], list[str]]:
    """({user id: the zip's files Canvas attaches to that user's submission}, ignored):
    the first two all-digit `_` parts of the base name are the user id and an
    attachment id, which must be one of that user's submission's attachments."""
    found: dict[str, list[tuple[str, str]]] = {}
    ignored = []
    for full in names:
        base = full.rsplit("/", 1)[-1]
        parts = base.split("_")
        digits = [p for p in parts if re.fullmatch(r"\d+", p)][:2]
        user = digits[0] if digits else None
        attachment = digits[1] if len(digits) > 1 else None
        if parts[-1].startswith("link") or base.startswith("._"):
            attachment = None
        if user is None or attachment is None or attachment not in attachments.get(user, set()):
            ignored.append(full)
        else:
            found.setdefault(user, []).append(full)
    return found, ignored


def moodle_feedback_reads(
    names: list[str], participants: set[str] | Mapping[str, Sequence[str]]
) -> tuple[dict[str, list[tuple[str, str]]], list[str]]:
    """({participant id: (zip entry, the path Moodle stores it under) of each feedback
    file they get}, ignored), as
    importziplib.php (4.1.11, 4.3 on) reads a zip: hidden files (a name starting with .
    or ~) skipped; in the path, the first part that splits at `_` (at most 5 pieces)
    into name, a number `participants` maps, `assignfeedback` and `file` gives the
    users; the rest is the file's path. `participants` as get_participant_mapping()
    builds it: an individual assignment's participant ids (a set: each maps to
    itself), or for team submissions {group id: its members' participant ids}, where
    the students in no group are under no number at all."""
    mapping = (
        {pid: [pid] for pid in participants}
        if isinstance(participants, (set, frozenset))
        else dict(participants)
    )
    found: dict[str, list[tuple[str, str]]] = {}
    ignored = []
    for full in names:
        filename = full.rsplit("/", 1)[-1]
        if full.endswith("/") or filename.startswith((".", "~")):
            ignored.append(full)
            continue
        parts = ("/import/" + full).split("/")
        user = None
        while parts:
            info = parts.pop(0).split("_", 4)
            if len(info) < 4 or not info[1].isdigit() or not mapping.get(str(int(info[1]))):
                continue
            if (info[2], info[3]) != ("assignfeedback", "file"):
                continue
            user = info[1]
            rest = [info[4] if len(info) == 5 else "", *parts]
            for member in mapping[str(int(info[1]))]:
                found.setdefault(member, []).append((full, "/".join(rest)))
            break
        if user is None:
            ignored.append(full)
    return found, ignored
