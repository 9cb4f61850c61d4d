"""A CSV file the course keeps beside course.toml (the teams file, the extensions file):
read whole, its header's columns found by name, every problem one line naming it."""

import csv
import io
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from grader.core.bounded import read_text

MAX_COURSE_CSV_BYTES = 4 << 20


@dataclass(frozen=True)
class CourseCsv:
    path: Path
    columns: dict[str, int]  # lower-cased header name -> its index
    rows: tuple[tuple[int, tuple[str, ...]], ...]  # (line number, stripped cells), no blank ones

    def cell(self, row: tuple[str, ...], column: str) -> str:
        """The row's cell of `column` ("" where the row is short or has no such column)."""
        index = self.columns.get(column)
        return row[index] if index is not None and index < len(row) else ""

    def __iter__(self) -> Iterator[tuple[int, tuple[str, ...]]]:
        return iter(self.rows)


def read_course_csv(
    path: Path, what: str, required: Mapping[str, str], error: type[Exception]
) -> CourseCsv:
    """`what`: the file as people call it, with its key in course.toml; `required`: each
    column the header must have -> what it holds, for the message; `error`: the
    exception (a GraderError) every problem is raised as."""
    text = read_text(path, MAX_COURSE_CSV_BYTES, what, error)
    reader = csv.reader(io.StringIO(text, newline=""))
    header = [name.strip().lower() for name in next(reader, [])]
    if any(column not in header for column in required):
        wanted = " and ".join(f"{column!r} ({means})" for column, means in required.items())
        raise error(
            f"{path}: {what.split(' (')[0]} needs a header with the columns {wanted}, not "
            f"{', '.join(map(repr, header)) or 'nothing'}"
        )
    rows = tuple(
        (number, tuple(cell.strip() for cell in row))
        for number, row in enumerate(reader, start=2)
        if any(cell.strip() for cell in row)
    )
    return CourseCsv(Path(path), {name: i for i, name in enumerate(header)}, rows)
