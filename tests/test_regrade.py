"""regrade.diff on hand-made results documents: who is listed, and as what."""

import pytest

from grader.results.regrade import diff

pytestmark = pytest.mark.fast


def entry(sid, score, verdicts, final=None):
    made = {"id": sid, "score": score, "cases": [{"id": c, "verdict": v} for c, v in verdicts]}
    if final is not None:
        made["final_score"] = final
    return made


def document(*submissions):
    return {"cases": [], "submissions": list(submissions)}


def test_verdicts_scores_and_absent_students_are_told_apart():
    old = document(
        entry("same", 2, [("a", "AC"), ("b", "AC")]),
        entry("verdict", 1, [("a", "AC"), ("b", "WA")]),
        entry("late", 2, [("a", "AC")], final=2),
        entry("gone", 1, [("a", "AC")]),
    )
    new = document(
        entry("same", 2, [("a", "AC"), ("b", "AC")]),
        entry("verdict", 1, [("a", "AC"), ("b", "TLE")]),
        entry("late", 2, [("a", "AC")], final=1.5),
        entry("new", 0, [("a", "WA")]),
    )
    found = diff(old, new)
    by_id = {c.id: c for c in found.changes}
    assert sorted(by_id) == ["gone", "late", "new", "verdict"]
    assert by_id["verdict"].cases == (("b", "WA", "TLE"),)
    assert not by_id["verdict"].score_changed
    assert (by_id["late"].old_final, by_id["late"].new_final) == (2, 1.5)
    assert by_id["late"].cases == ()
    assert (by_id["gone"].new_score, by_id["gone"].cases) == (None, (("a", "AC", None),))
    assert (by_id["new"].old_score, by_id["new"].new_final) == (None, 0)
    assert [c.id for c in found.score_changes] == ["gone", "late", "new"]
    assert found.students == 4 and found.reasons == []
