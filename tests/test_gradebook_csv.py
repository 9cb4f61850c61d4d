"""The gradebook CSV's rows from reports built directly (no grading run): the marker of
a case not graded yet, scores, ranks, id order. tests/test_exports.py writes the same
file from a real graded class."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from grader.exports.gradebook_csv import render, rows
from grader.model import NOT_GRADED
from grader.score import CaseOutcome, SubmissionReport
from grader.store import SubmissionRow
from tests.test_score import case

pytestmark = pytest.mark.fast

CASES = [case("t1", 2), case("t2", 1), case("t3", 1)]


def report(sid: str, *verdicts):
    outcomes = [
        CaseOutcome(c, None if v is None else SimpleNamespace(verdict=v, policy_only=False))
        for c, v in zip(CASES, verdicts)
    ]
    return SubmissionReport(SubmissionRow(sid, "c", "h-" + sid, sid, None), None, outcomes)


def test_an_ungraded_case_is_marked_not_left_empty():
    """An empty cell would read as "no verdict needed"; the mark says "not graded yet"."""
    assert NOT_GRADED == "-"
    [row] = rows([report("amy", "AC", None, "WA")], None)
    assert row == ["amy", "c", "2", "4", "", "AC", "-", "WA", ""]  # no policy note


def test_rows_in_id_order_with_ranks():
    table = rows([report("zoe", "AC", "AC", "AC"), report("amy", None, None, None)], {"zoe": "1"})
    assert table == [
        ["amy", "c", "0", "4", "", "-", "-", "-", ""],
        ["zoe", "c", "4", "4", "1", "AC", "AC", "AC", ""],
    ]


def test_render_writes_header_and_crlf_rows():
    text = render([report("amy", "AC", None, "TLE")], CASES)
    assert text == (
        "id,language,score,max_score,leaderboard_rank,case:t1,case:t2,case:t3,"
        "policy_dependent\r\n"
        "amy,c,2,4,,AC,-,TLE,\r\n"
    )
