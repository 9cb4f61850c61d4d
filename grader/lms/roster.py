"""A class roster as the LMS exports it: Canvas's gradebook CSV or Moodle's
grading worksheet. Read as text rows, so writing it back keeps every column the
instructor downloaded exactly as it was, with the separator it was written with:
Canvas writes `;` where the user asks for it (and by default where the decimal
separator is a comma), and a spreadsheet may save either. The separator is told as
Canvas's own gradebook import tells it (lib/gradebook_importer.rb,
identify_delimiter): the one that splits the first three lines into the same number
of fields, and `;` only when it gives more fields than `,`."""

import csv
import io
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from grader.errors import GraderError

# Identity columns of each LMS's export; whichever a row has, a submission may match.
CANVAS_IDS = ("ID", "SIS User ID", "SIS Login ID", "Integration ID")
CANVAS_IDENTITY = ("Student", *CANVAS_IDS, "Section")
MOODLE_IDS = ("Identifier", "ID number", "Email address", "Username")
_PARTICIPANT = re.compile(r"^\D*(\d+)$")  # Moodle: "Participant 123456"


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

    def ids(self, row: list[str]) -> set[str]:
        found = set()
        for name in (*CANVAS_IDS, *MOODLE_IDS):
            index = self.column(name)
            if index is None or not row[index].strip():
                continue
            value = row[index].strip()
            found.add(value)
            match = _PARTICIPANT.match(value)
            if name == "Identifier" and match:
                found.add(match[1])
        return found

    def name(self, row: list[str]) -> str:
        for column in ("Student", "Full name"):
            index = self.column(column)
            if index is not None:
                return row[index]
        last, first = self.column("LastName"), self.column("FirstName")
        if last is not None and first is not None:
            return f"{row[first]} {row[last]}".strip()
        return ""


def first_holding(id_sets: Iterable[set[str]]) -> dict[str, int]:
    """Each id -> the position of the first set holding it: roster rows and
    submissions are matched through a dict, not every row against every student."""
    first: dict[str, int] = {}
    for position, ids in enumerate(id_sets):
        for ident in ids:
            first.setdefault(ident, position)
    return first


def first_match(ids: set[str], first: dict[str, int]) -> int | None:
    """The position of the first set (see first_holding) sharing an id with `ids`."""
    return min((first[i] for i in ids if i in first), default=None)


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
    if not any(name in header for name in (*CANVAS_IDS, *MOODLE_IDS)):
        raise RosterError(
            f"{path}: no student id column (expected Canvas's "
            f"{', '.join(CANVAS_IDS)} or Moodle's {', '.join(MOODLE_IDS)})"
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
        (roster.rows if roster.ids(row) else roster.preamble).append(row)
    return roster


def _delimiter(text: str) -> str:
    lines = text.splitlines()[:3]
    counts = {}
    for candidate in (";", ","):
        sizes = {len(next(csv.reader([line], delimiter=candidate), [])) for line in lines}
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
