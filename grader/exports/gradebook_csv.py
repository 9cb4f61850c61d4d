"""A gradebook CSV for people and spreadsheets: one row per submission, every verdict.

It is not an LMS's import format (Canvas's gradebook import wants its own identity
columns, Moodle's its worksheet's): `export canvas` and `export moodle` write those.

Format:
  * a header row, then one row per submission, ordered by id;
  * columns: id, language, score, max_score, leaderboard_rank, then one column per
    case in manifest order, headed "case:<case id>", holding its verdict (AC, WA,
    PE, TLE, MLE, OLE, RTE, CE, IE; "-" when not graded), then policy_dependent: what
    the policy-dependent cases cost, were forgiven or scored apart, in words (empty
    when nothing; course.toml [scoring] policy_cases);
  * with a late policy in course.toml (or submissions imported from an LMS with their
    times), three more columns follow max_score: penalty (points), final_score
    (score - penalty) and late (what the policy made of the submission time);
  * leaderboard_rank comes from leaderboard.json in the results folder when it
    exists (empty for a program the leaderboard does not rank), else it is empty;
  * numbers are plain, with a dot for decimals (36, 35.5), whatever the locale;
  * RFC 4180: comma separated, CRLF line ends, fields quoted when they hold a comma,
    quote or line break (Python's csv module);
  * an id that starts with =, +, -, @, tab or CR gets a ' before it, so that a
    spreadsheet shows it as text and never runs it as a formula;
  * plain UTF-8 by default, since scripts and databases read it and a byte-order mark
    can end up inside the first column's name; `bom=True` writes UTF-8 with a BOM, which
    Excel needs to read UTF-8 rather than the system's code page.
"""

import csv
import io
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from grader.atomic import write_file
from grader.cases import Case
from grader.exports.common import ExportError
from grader.late import NOT_LATE, Lateness
from grader.model import NOT_GRADED
from grader.schemas import validate
from grader.score import SubmissionReport, format_score

FIXED_COLUMNS = ("id", "language", "score", "max_score", "leaderboard_rank")
LAST_COLUMN = "policy_dependent"
LEADERBOARD_FILE = "leaderboard.json"
BOM = "\ufeff"


LATE_COLUMNS = ("penalty", "final_score", "late")

# A spreadsheet runs a cell that starts with one of these as a formula.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def neutralised(text: str) -> str:
    """A name from a student as a CSV cell a spreadsheet shows as text: a leading
    formula character gets a ' before it (the usual guard)."""
    return "'" + text if text.startswith(FORMULA_STARTS) else text


def header(cases: Sequence[Case], late: bool = False) -> list[str]:
    fixed = list(FIXED_COLUMNS)
    if late:
        fixed[4:4] = LATE_COLUMNS
    return [*fixed, *(f"case:{case.id}" for case in cases), LAST_COLUMN]


def rows(
    reports: Sequence[SubmissionReport],
    ranks: dict[str, str] | None,
    lateness: Mapping[str, Lateness] | None = None,
) -> list[list[str]]:
    table = []
    for result in sorted(reports, key=lambda r: r.submission.id):
        sub = result.submission
        late = []
        if lateness is not None:
            info = lateness.get(sub.id, NOT_LATE)
            late = [
                format_score(info.penalty(result.score)),
                format_score(info.final(result.score)),
                info.note,
            ]
        table.append(
            [
                neutralised(sub.id),
                sub.language,
                format_score(result.score),
                format_score(result.max_score),
                *late,
                (ranks or {}).get(sub.id, ""),
                *(outcome.verdict or NOT_GRADED for outcome in result.outcomes),
                result.policy_note,
            ]
        )
    return table


def render(
    reports: Sequence[SubmissionReport],
    cases: Sequence[Case],
    ranks: dict[str, str] | None = None,
    *,
    bom: bool = False,
    lateness: Mapping[str, Lateness] | None = None,
) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")  # RFC 4180's CRLF
    writer.writerow(header(cases, late=lateness is not None))
    writer.writerows(rows(reports, ranks, lateness))
    return (BOM if bom else "") + buffer.getvalue()


def write_gradebook(
    out: Path,
    reports: Sequence[SubmissionReport],
    cases: Sequence[Case],
    results: Path,
    *,
    bom: bool = False,
    lateness: Mapping[str, Lateness] | None = None,
) -> "Ranks":
    """Write the CSV; returns the ranks it used and what it says about them."""
    ranks = read_ranks(Path(results))
    out = Path(out)
    if out.is_dir():
        raise ExportError(f"{out}: is a folder; name the CSV file to write")
    write_file(out, render(reports, cases, ranks.by_id, bom=bom, lateness=lateness))
    return ranks


@dataclass(frozen=True)
class Ranks:
    by_id: dict[str, str] | None  # None: no usable leaderboard, the column stays empty
    note: str


def read_ranks(results: Path) -> Ranks:
    """Ranks from the leaderboard's file (`grader leaderboard`), when there is one.

    Its "ranked" list holds every program it ranks, with `id` and `rank`; a program
    it does not rank gets an empty cell. An anonymized leaderboard names programs by
    pseudonyms, which a gradebook cannot use: the column then stays empty."""
    path = results / LEADERBOARD_FILE
    if not path.exists():
        return Ranks(
            None, f"leaderboard_rank empty (no {LEADERBOARD_FILE} yet: run `grader leaderboard`)"
        )
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ExportError(f"{path}: cannot read the leaderboard: {error}") from None
    problem = validate(data, "leaderboard")
    if problem:
        raise ExportError(f"{path}: not a leaderboard: {problem}")
    if data["anonymized"]:
        return Ranks(
            None,
            f"leaderboard_rank empty ({path} is anonymized: run "
            "`grader leaderboard` without --anonymize for ranks by id)",
        )
    by_id = {str(entry["id"]): str(entry["rank"]) for entry in data["ranked"]}
    return Ranks(by_id, f"leaderboard_rank from {path} ({len(by_id)} ranked)")
