"""The gradebook CSV's rows from reports built directly (no grading run): the marker of
a case not graded yet, scores, ranks, id order. tests/test_exports.py writes the same
file from a real graded class."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from grader.core.model import NOT_GRADED
from grader.core.rules import rules_version
from grader.exports.gradebook_csv import render, rows
from grader.intake.teams import Member, Team, Teams
from grader.judge.score import CaseOutcome, SubmissionReport
from grader.results.bonus import Award
from grader.store import SubmissionRow
from tests.helpers import score_case as case

pytestmark = pytest.mark.fast

CASES = [case("t1", 2), case("t2", 1), case("t3", 1)]


def report(sid: str, *verdicts):
    outcomes = [
        CaseOutcome(
            c,
            None
            if v is None
            else SimpleNamespace(verdict=v, policy_only=False, rules=rules_version()),
        )
        for c, v in zip(CASES, verdicts)
    ]
    return SubmissionReport(SubmissionRow(sid, "c", "h-" + sid, sid, None), None, outcomes)


def test_an_ungraded_case_is_marked_not_left_empty():
    """An empty cell would read as "no verdict needed"; the mark says "not graded yet".
    The score of a submission with a case not graded is unknown: empty, never 2."""
    assert NOT_GRADED == "-"
    [row] = rows([report("amy", "AC", None, "WA")], None)
    # no team given: the submission is its own member; no bonus decided, no policy note
    assert row == [
        "amy", "amy", "amy", "", "c", "", "4", "", "", "AC", "-", "WA", "", "", "not-graded"
    ]  # fmt: skip


def test_rows_in_id_order_with_ranks():
    table = rows([report("zoe", "AC", "AC", "AC"), report("amy", None, None, None)], {"zoe": "1"})
    assert [row[:1] + row[4:] for row in table] == [
        ["amy", "c", "", "4", "", "", "-", "-", "-", "", "", "not-graded"],
        ["zoe", "c", "4", "4", "", "1", "AC", "AC", "AC", "", "", "settled"],
    ]


def test_render_writes_header_and_crlf_rows():
    text = render([report("amy", "AC", None, "TLE")], CASES)
    assert text == (
        "id,team,member,member_name,language,score,max_score,bonus,leaderboard_rank,"
        "case:t1,case:t2,case:t3,policy_dependent,overrides,standing\r\n"
        "amy,amy,amy,,c,,4,,,AC,-,TLE,,,not-graded\r\n"
    )


def test_a_row_per_member_with_the_team_named_and_the_bonus_of_its_members():
    rocket = Team(
        "rocket", "Team Rocket", "teams file", (Member("1001", "Ada"), Member("=2", "Bo"))
    )
    teams = Teams(
        {
            "rocket": rocket,
            "old": Team("old", "Team Rocket", "teams file", rocket.members, replaced_by="rocket"),
            "zoe": Team("zoe", "Zoe", "alone", (Member("zoe", "Zoe"),)),
        }
    )
    won = Award(15.0, None, ("rocket",), (), "the test's")
    reports = [report(sid, "AC", "AC", "AC") for sid in ("rocket", "old", "zoe")]
    table = rows(reports, {"rocket": "1", "zoe": "2"}, None, teams, won)
    assert [row[:9] for row in table] == [
        ["old", "Team Rocket (replaced by rocket)", "", "", "c", "4", "4", "0", ""],
        ["rocket", "Team Rocket", "1001", "Ada", "c", "4", "4", "15", "1"],
        ["rocket", "Team Rocket", "'=2", "Bo", "c", "4", "4", "15", "1"],
        ["zoe", "Zoe", "zoe", "Zoe", "c", "4", "4", "0", "2"],
    ]
    assert {row[-1] for row in table} == {"settled"}
