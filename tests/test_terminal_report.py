"""grader.results.terminal.summary_table: which columns appear, in which order, and
that each row's cells sit under their headers when every optional group is shown."""

from collections import Counter
from types import SimpleNamespace

import pytest

from grader.course.late import Lateness
from grader.judge.score import Decision
from grader.results.terminal import summary_table
from grader.store import OverrideRow

pytestmark = pytest.mark.fast


def _report(sid: str, policy_note: str = "", cpu: float = 0.1, decisions=()):
    run = SimpleNamespace(cpu_seconds=cpu)
    return SimpleNamespace(
        overridden=bool(decisions),
        decisions=list(decisions),
        submission=SimpleNamespace(id=sid, language="c"),
        score=30.0,
        settled_score=30.0,
        unsettled="",
        max_score=40.0,
        verdict_counts=Counter({"AC": 4}),
        build_status="ok",
        policy_note=policy_note,
        outcomes=[SimpleNamespace(run=run, verdict="AC", case=SimpleNamespace(id="a"))],
    )


def _cells(table: str) -> list[list[str]]:
    """The table's lines split on its two-space column gaps (header, rule, rows)."""
    return [[cell for cell in line.split("  ") if cell.strip()] for line in table.splitlines()]


def test_plain_table_has_score_verdicts_and_build():
    lines = _cells(summary_table([_report("ada")]))
    assert [c.strip() for c in lines[0]] == ["id", "language", "score", "verdicts", "build"]
    assert [c.strip() for c in lines[2]] == ["ada", "c", "30/40", "AC:4", "ok"]


def test_every_optional_group_in_its_place():
    late = Lateness("2026-03-03T10:00:00", True, 2, 20.0, "2 days late")
    appeal = OverrideRow("ada", "a", "AC", None, "appeal", 0.0, "h", "v", "WA")
    reports = [_report("ada", "3 lost", cpu=1.9, decisions=[Decision(appeal, "new content")])]
    reports.append(_report("bob"))
    lines = _cells(summary_table(reports, 2.0, {"ada": late}))
    assert [c.strip() for c in lines[0]] == [
        "id",
        "language",
        "raw",
        "policy-dependent",
        "penalty",
        "final",
        "late",
        "verdicts",
        "build",
        "the instructor's decisions",
        "time limit",
    ]
    ada = [c.strip() for c in lines[2]]
    assert ada == ["ada", "c", "30/40", "3 lost", "-6", "24", "2 days late", "AC:4", "ok"] + [
        "a: AC instead of WA, by the instructor: appeal [review]",
        "sensitive (1 case >75%)",
    ]
    bob = [c.strip() for c in lines[3]]  # no note, not late, not near the limit: empty cells
    assert bob == ["bob", "c", "30/40", "30", "AC:4", "ok"]
