"""A gradebook CSV for people and spreadsheets: one row per team member, every verdict.

It is not an LMS's import format (Canvas's gradebook import wants its own identity
columns, Moodle's its worksheet's): `export canvas` and `export moodle` write those.

Format:
  * a header row, then one row per member of each submission's team (grader.intake.teams),
    ordered by submission id, members in their team's order: every member gets the
    team's result. A submission replaced by its team's newer one, or whose team's
    members the LMS did not name, has one row with an empty member;
  * columns: id (the submission), team (its name; "(replaced by <id>)" after it when
    replaced), member (the member's id: the LMS's, the teams file's, or the folder's
    for a student alone), member_name, language, score, max_score, bonus (the speed
    bonus the member gets: grader.results.bonus; 0 when none), leaderboard_rank, then one
    column per case in manifest order, headed "case:<case id>", holding its verdict
    (AC, WA, PE, TLE, MLE, OLE, RTE, CE, IE; "-" when not graded; the instructor's when
    they decided one), then policy_dependent: what the policy-dependent cases cost,
    were forgiven or scored apart, in words (empty when nothing; course.toml [scoring]
    policy_cases), then overrides: the instructor's decisions with their reasons ("; "
    between them), which the score and the verdicts already hold, then standing:
    whether the score is settled (settled, stale, not-graded or internal-error, as in
    results.json);
  * score is the raw score, decisions included, without the bonus; it is empty while
    the submission's result is not settled (standing): an unknown score is never
    written as 0, and neither are its penalty, final score and bonus;
  * with a late policy in course.toml (or submissions imported from an LMS with their
    times), three more columns follow max_score: penalty (points), final_score
    (score - penalty) and late (what the policy made of the submission time);
  * leaderboard_rank comes from leaderboard.json in the results folder when it
    exists (empty for a program the leaderboard does not rank), else it is empty;
  * numbers are plain, with a dot for decimals (36, 35.5), whatever the locale;
  * RFC 4180: comma separated, CRLF line ends, fields quoted when they hold a comma,
    quote or line break (Python's csv module);
  * an id or a name that starts with =, +, -, @, tab or CR gets a ' before it, so that
    a spreadsheet shows it as text and never runs it as a formula;
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

from grader.cases.manifest import Case
from grader.core.atomic import write_file
from grader.core.model import NOT_GRADED
from grader.course.late import NOT_LATE, Lateness
from grader.exports.common import ExportError
from grader.intake.teams import Team, Teams
from grader.judge.score import SubmissionReport, format_score
from grader.results.bonus import Award
from grader.schemas import validate

FIXED_COLUMNS = (
    "id",
    "team",
    "member",
    "member_name",
    "language",
    "score",
    "max_score",
    "bonus",
    "leaderboard_rank",
)
LAST_COLUMNS = ("policy_dependent", "overrides", "standing")
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
        at = fixed.index("max_score") + 1
        fixed[at:at] = LATE_COLUMNS
    return [*fixed, *(f"case:{case.id}" for case in cases), *LAST_COLUMNS]


def rows(
    reports: Sequence[SubmissionReport],
    ranks: dict[str, str] | None,
    lateness: Mapping[str, Lateness] | None = None,
    teams: Teams | None = None,
    bonus: Award | None = None,
) -> list[list[str]]:
    """The rows; without `teams` each submission is its own member, without `bonus`
    its cell is empty."""
    table = []
    for result in sorted(reports, key=lambda r: r.submission.id):
        sub = result.submission
        score = result.settled_score
        late = []
        if lateness is not None:
            info = lateness.get(sub.id, NOT_LATE)
            late = [
                _number(None if score is None else info.penalty(score)),
                _number(None if score is None else info.final(score)),
                info.note,
            ]
        team = teams.of(sub.id) if teams is not None else None
        given = "" if bonus is None or score is None else format_score(bonus.of(sub.id))
        for member, name in _members(sub.id, team):
            table.append(
                [
                    neutralised(sub.id),
                    neutralised(_team_name(sub.id, team)),
                    neutralised(member),
                    neutralised(name),
                    sub.language,
                    _number(score),
                    format_score(result.max_score),
                    *late,
                    given,
                    (ranks or {}).get(sub.id, ""),
                    *(outcome.verdict or NOT_GRADED for outcome in result.outcomes),
                    result.policy_note,
                    "; ".join(d.describe() for d in result.decisions),
                    str(result.standing),
                ]
            )
    return table


def _number(value: float | None) -> str:
    """A score's cell: empty while it is unknown."""
    return "" if value is None else format_score(value)


def _members(submission_id: str, team: Team | None) -> list[tuple[str, str]]:
    """(id, name) of each member getting the submission's result; one empty member for a
    replaced submission or a team whose members are not known."""
    if team is None:
        return [(submission_id, "")]
    if not team.counts or not team.members:
        return [("", "")]
    return [(m.id, m.name) for m in team.members]


def _team_name(submission_id: str, team: Team | None) -> str:
    if team is None:
        return submission_id
    if team.replaced_by:
        return f"{team.name} (replaced by {team.replaced_by})"
    return team.name + (" (counts for no one: handed in twice)" if team.undecided else "")


def render(
    reports: Sequence[SubmissionReport],
    cases: Sequence[Case],
    ranks: dict[str, str] | None = None,
    *,
    bom: bool = False,
    lateness: Mapping[str, Lateness] | None = None,
    teams: Teams | None = None,
    bonus: Award | None = None,
) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")  # RFC 4180's CRLF
    writer.writerow(header(cases, late=lateness is not None))
    writer.writerows(rows(reports, ranks, lateness, teams, bonus))
    return (BOM if bom else "") + buffer.getvalue()


def write_gradebook(
    out: Path,
    reports: Sequence[SubmissionReport],
    cases: Sequence[Case],
    results: Path,
    *,
    bom: bool = False,
    lateness: Mapping[str, Lateness] | None = None,
    teams: Teams | None = None,
    bonus: Award | None = None,
) -> "Ranks":
    """Write the CSV; returns the ranks it used and what it says about them."""
    ranks = read_ranks(Path(results))
    out = Path(out)
    if out.is_dir():
        raise ExportError(f"{out}: is a folder; name the CSV file to write")
    write_file(
        out,
        render(reports, cases, ranks.by_id, bom=bom, lateness=lateness, teams=teams, bonus=bonus),
    )
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
