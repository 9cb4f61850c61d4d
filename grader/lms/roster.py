"""A class roster as the LMS exports it: Canvas's gradebook CSV, Moodle's grading
worksheet, or GitHub Classroom's roster (classroom_roster.csv). Read as text rows, so writing it back keeps every column the
instructor downloaded exactly as it was, with the separator it was written with:
Canvas writes `;` where the user asks for it (and by default where the decimal
separator is a comma), and a spreadsheet may save either. The separator is told as
Canvas's own gradebook import tells it (lib/gradebook_importer.rb,
identify_delimiter): the one that splits the first three lines into the same number
of fields, and `;` only when it gives more fields than `,`."""

import csv
import io
import itertools
import re
from dataclasses import dataclass, field
from pathlib import Path

from grader.core.errors import GraderError
from grader.course import identity
from grader.course.identity import Key

# The key columns of each LMS's export, in the order its own import tries them (Canvas:
# lib/gradebook_importer.rb, which ignores the Integration ID); Moodle's worksheet
# upload knows a row by its Identifier alone ("Participant N"); its e-mail address is
# a key only for a person declared to be known by it (a Gradescope class).
CANVAS_KEYS = (
    ("ID", identity.CANVAS_USER),
    ("SIS User ID", identity.CANVAS_SIS),
    ("SIS Login ID", identity.CANVAS_LOGIN),
)
MOODLE_KEYS = (
    ("Identifier", identity.MOODLE_PARTICIPANT),
    ("Email address", identity.MOODLE_EMAIL),
)
# GitHub Classroom's roster (classroom_roster.csv: identifier, github_username,
# github_id, name): a row is a person by their GitHub id, else their username; its
# identifier is the course's own id for them (an e-mail, a student number).
GITHUB_KEYS = (
    ("identifier", identity.CLASSROOM_IDENTIFIER),
    ("github_id", identity.GITHUB_ID),
    ("github_username", identity.GITHUB_LOGIN),
)
ALL_KEYS = (*CANVAS_KEYS, *MOODLE_KEYS, *GITHUB_KEYS)
KEY_COLUMNS = tuple(column for column, _ in ALL_KEYS)
_PARTICIPANT = re.compile(r"^Participant (\d+)$")  # Moodle's hiddenuser string
# Canvas's Test Student (Course#student_view_student): named "Test Student" (sortable
# "Student, Test", in English), no SIS id, its login an HMAC-SHA1 in hex; the
# gradebook export lists its enrollment (StudentViewEnrollment) after every other.
_TEST_NAMES = ("Student, Test", "Test Student")
_TEST_LOGIN = re.compile(r"^[0-9a-f]{40}$")


class RosterError(GraderError):
    """The roster cannot be read; str() names the file and the problem."""


@dataclass
class Roster:
    path: Path
    header: list[str]
    rows: list[list[str]]  # students, each as long as the header
    preamble: list[list[str]] = field(default_factory=list)  # Canvas's "Points Possible" row(s)
    delimiter: str = ","  # as the file was written: `,` or `;`
    bom: bool = False  # the file started with a UTF-8 byte-order mark

    def column(self, name: str) -> int | None:
        return self.header.index(name) if name in self.header else None

    def keys(self, row: list[str]) -> list[Key]:
        """The row's keys, in the order its LMS's import tries them."""
        found = []
        for column, kind in ALL_KEYS:
            index = self.column(column)
            value = row[index].strip() if index is not None else ""
            if column == "Identifier":
                match = _PARTICIPANT.match(value)
                value = match[1] if match else ""
            if value:
                found.append(
                    identity.github_login(value) if kind == identity.GITHUB_LOGIN else (kind, value)
                )
        return found

    def test_accounts(self) -> set[int]:
        """The rows of Canvas's Test Student (Student View): at the end of a gradebook
        export, named as Canvas names it or logging in by its HMAC, with no SIS id."""
        if self.column("ID") is None or self.column("Identifier") is not None:
            return set()
        found = set()
        for index in reversed(range(len(self.rows))):
            if not self._test_student(self.rows[index]):
                break  # Canvas lists them after every student
            found.add(index)
        return found

    def _test_student(self, row: list[str]) -> bool:
        def cell(name: str) -> str:
            index = self.column(name)
            return row[index].strip() if index is not None else ""

        named = self.name(row).strip() in _TEST_NAMES
        hmac = bool(_TEST_LOGIN.match(cell("SIS Login ID")))
        login_ok = not cell("SIS Login ID") or hmac
        return (named or hmac) and login_ok and not cell("SIS User ID")

    def is_classroom_roster(self) -> bool:
        """GitHub Classroom's roster: its identifier and github_username columns."""
        return all(self.column(column) is not None for column in ("identifier", "github_username"))

    def label(self, row: list[str]) -> str:
        """The row for messages: its name and first key."""
        keys = self.keys(row)
        key = f"{keys[0][0]} {keys[0][1]}" if keys else "no id"
        name = self.name(row)
        return f"{name} ({key})" if name else key

    def name(self, row: list[str]) -> str:
        for column in ("Student", "Full name", "name"):
            index = self.column(column)
            if index is not None:
                return row[index]
        last, first = self.column("LastName"), self.column("FirstName")
        if last is not None and first is not None:
            return f"{row[first]} {row[last]}".strip()
        return ""


def read_roster(path: Path) -> Roster:
    path = Path(path)
    try:
        raw = path.read_bytes()
        text = raw.decode("utf-8-sig")  # Canvas and Excel may add a BOM
    except OSError as error:
        raise RosterError(f"{path}: cannot read the roster: {error.strerror}") from None
    except UnicodeDecodeError as error:
        raise RosterError(f"{path}: not UTF-8 text (bad byte at offset {error.start})") from None
    delimiter = _delimiter(text)
    table = [
        row
        for row in csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
        if any(c.strip() for c in row)
    ]
    if not table:
        raise RosterError(f"{path}: empty roster")
    header = table[0]
    if not any(name in header for name in KEY_COLUMNS):
        canvas = ", ".join(column for column, _ in CANVAS_KEYS)
        raise RosterError(
            f"{path}: no student id column (expected Canvas's {canvas}, Moodle's Identifier, "
            "or GitHub Classroom's identifier)"
        )
    roster = Roster(path, header, [], [], delimiter, raw.startswith(b"\xef\xbb\xbf"))
    for number, row in enumerate(table[1:], start=2):
        if len(row) > len(header):
            raise RosterError(
                f"{path}: line {number} has {len(row)} fields, the header {len(header)}"
            )
        row = row + [""] * (len(header) - len(row))
        # Canvas puts "Points Possible" (and, lately, a posting-policy row) under the
        # header: rows with no student id at all.
        (roster.rows if roster.keys(row) else roster.preamble).append(row)
    return roster


def _delimiter(text: str) -> str:
    """Canvas's rule, on the first three records (not lines: a Moodle worksheet's Scale
    cell holds line breaks inside its quotes)."""
    counts = {}
    for candidate in (";", ","):
        records = itertools.islice(csv.reader(io.StringIO(text), delimiter=candidate), 3)
        sizes = {len(record) for record in records}
        counts[candidate] = sizes.pop() if len(sizes) == 1 else 0
    return ";" if counts[";"] > counts[","] else ","


def write_rows(roster: Roster, rows: list[list[str]]) -> str:
    """`rows` as the roster's own file was written: its separator, CRLF (as Canvas and
    Moodle write theirs), its byte-order mark if it had one."""
    buffer = io.StringIO()
    if roster.bom:
        buffer.write("\ufeff")
    csv.writer(buffer, delimiter=roster.delimiter, lineterminator="\r\n").writerows(rows)
    return buffer.getvalue()


def number(text: str) -> float | None:
    """A number as Canvas and Moodle write one: `10`, `10.00`, `10,00` (a decimal comma
    where the user's language has one)."""
    cleaned = text.strip().replace(",", ".")
    if not re.fullmatch(r"-?\d+(?:\.\d+)?", cleaned):
        return None
    return float(cleaned)
