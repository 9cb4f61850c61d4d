"""grader.judge.score: a submission's report from the store (real SQLite): which runs count
(current content, current case versions), scores by weight, verdict counts with the
not-graded mark, completeness, and the build status line."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from grader.build.builder import Artifact
from grader.cases.manifest import Case
from grader.core.model import NOT_GRADED, Verdict
from grader.judge.compare import POLICY_ONLY
from grader.judge.score import CaseOutcome, Decision, SubmissionReport, format_score, report
from grader.store import BuildRow, OverrideRow, Store, SubmissionRow
from tests.helpers import score_case as case

pytestmark = pytest.mark.fast


def sub(sid="alice", content_hash="h1", problem=None):
    return SimpleNamespace(
        id=sid, language_name="c", content_hash=content_hash, folder=f"class/{sid}", problem=problem
    )


@pytest.fixture
def store(tmp_path: Path):
    with Store(tmp_path / "grader.db") as store:
        yield store


CASES = [case("a", 2), case("b", 0.5), case("c", 1.25), case("d", 3)]


def test_report_scores_by_weight_and_counts_verdicts(store):
    alice = sub()
    store.record_submission(alice)
    store.record_build("h1", Artifact(ok=True, folder=Path("."), log="", cpu_seconds=1.5))
    store.record_run(alice, CASES[0], Verdict.AC, "")
    store.record_run(alice, CASES[1], Verdict.AC, "")
    store.record_run(alice, CASES[2], Verdict.WA, "wrong count")
    rep = report(store, store.submission("alice"), CASES)
    assert [o.verdict for o in rep.outcomes] == ["AC", "AC", "WA", None]
    assert rep.score == 2.5
    assert rep.max_score == 6.75
    assert rep.verdict_counts == {"AC": 2, "WA": 1, NOT_GRADED: 1}
    assert not rep.complete and not rep.all_accepted
    assert rep.build == BuildRow(True, "", 1.5, 0.0)
    assert rep.build_status == "ok"


def test_runs_of_old_content_or_old_case_versions_do_not_count(store):
    alice = sub(content_hash="old")
    store.record_submission(alice)
    for c in CASES:
        store.record_run(alice, c, Verdict.AC, "")
    store.record_submission(sub(content_hash="new"))  # resubmitted: nothing graded yet
    store.record_run(sub(content_hash="new"), case("a", 2, version="v0"), Verdict.AC, "")
    rep = report(store, store.submission("alice"), CASES)
    assert all(o.run is None for o in rep.outcomes)
    assert rep.score == 0 and rep.verdict_counts == {NOT_GRADED: 4}
    assert rep.build is None and rep.build_status == "not built"


def test_a_refused_submission_reports_its_problem_and_no_build(store):
    refused = sub(content_hash="h1", problem="no puzzlesolver source")
    store.record_submission(refused)
    store.record_build("h1", Artifact(ok=True, folder=Path("."), log=""))  # same content elsewhere
    rep = report(store, store.submission("alice"), CASES)
    assert rep.build is None
    assert rep.build_status == "CE: no puzzlesolver source"


def outcomes(*verdicts):
    runs = [None if v is None else SimpleNamespace(verdict=v) for v in verdicts]
    return [CaseOutcome(case(f"c{i}", weight=i + 1), run) for i, run in enumerate(runs)]


SUBMISSION = SubmissionRow("alice", "c", "h1", "class/alice", None)


@pytest.mark.parametrize(
    "verdicts, score, complete, all_accepted",
    [
        (["AC", "AC", "AC"], 6, True, True),
        (["AC", "PE", "AC"], 4, True, False),
        (["WA", "AC", None], 2, False, False),
        ([None, None], 0, False, False),
        ([], 0, True, False),  # no cases: complete, but nothing was accepted
    ],
)
def test_score_completeness_and_all_accepted(verdicts, score, complete, all_accepted):
    rep = SubmissionReport(SUBMISSION, None, outcomes(*verdicts))
    assert rep.score == score
    assert rep.max_score == sum(range(1, len(verdicts) + 1))
    assert rep.complete is complete
    assert rep.all_accepted is all_accepted


@pytest.mark.parametrize(
    "build, problem, status",
    [
        (None, None, "not built"),
        (BuildRow(True, "warning: unused", 1, 1), None, "ok"),
        (
            BuildRow(False, "\n  x.c:3: error: expected ';'\nmore\n", 1, 1),
            None,
            "CE: x.c:3: error: expected ';'",
        ),
        (BuildRow(False, "  \n", 1, 1), None, "CE"),
        (BuildRow(True, "", 1, 1), "two sources", "CE: two sources"),
    ],
)
def test_build_status(build, problem, status):
    row = SubmissionRow("alice", "c", "h1", "class/alice", problem)
    assert SubmissionReport(row, build, []).build_status == status


@pytest.mark.parametrize("value, text", [(3.0, "3"), (2.5, "2.5"), (0.0, "0"), (1 / 3, "0.333333")])
def test_format_score(value, text):
    assert format_score(value) == text


def test_report_carries_the_files_recorded_with_the_submission(store):
    alice = sub()
    alice.used_files = ["puzzlesolver.c", "tiles.h"]
    alice.ignored = [("notes.txt", "not a C source")]
    store.record_submission(alice)
    rep = report(store, store.submission("alice"), CASES)
    assert rep.files_used == ["puzzlesolver.c", "tiles.h"]
    assert rep.files_ignored == [("notes.txt", "not a C source")]


@pytest.mark.parametrize(
    "mode, score, max_score, note",
    [
        ("count", 2, 5, "3 lost on policy-dependent cases"),
        ("apart", 2, 2, "policy-dependent cases apart: 0/3"),
        ("forgive", 5, 5, "3 forgiven on policy-dependent cases"),
    ],
)
def test_report_scores_policy_cases_the_way_the_course_says(store, mode, score, max_score, note):
    """A case decided by a policy rule ("symmetric-tiles") failed only on that rule."""
    policy_case = Case(**{**vars(case("p", 3)), "policy": ("symmetric-tiles",)})
    alice = sub()
    store.record_submission(alice)
    store.record_run(alice, CASES[0], Verdict.AC, "")
    store.record_run(alice, policy_case, Verdict.WA, "printed twice", policy_only=True)
    rep = report(store, store.submission("alice"), [CASES[0], policy_case], mode)
    assert (rep.score, rep.max_score, rep.policy_note) == (score, max_score, note)


def test_the_score_reads_the_runs_decision_never_its_diagnosis(store):
    policy_case = Case(**{**vars(case("p", 3)), "policy": ("symmetric-tiles",)})
    alice, bob = sub("alice"), sub("bob")
    for student in (alice, bob):
        store.record_submission(student)
    store.record_run(alice, policy_case, Verdict.WA, f"printed twice\n{POLICY_ONLY}")
    store.record_run(bob, policy_case, Verdict.WA, "printed twice", policy_only=True)
    alices = report(store, store.submission("alice"), [policy_case], "forgive")
    bobs = report(store, store.submission("bob"), [policy_case], "forgive")
    assert (alices.score, alices.policy_note) == (0, "")
    assert (bobs.score, bobs.policy_note) == (3, "3 forgiven on policy-dependent cases")


@pytest.mark.parametrize("mode", ["COUNT", "ignore", ""])
def test_an_unknown_policy_mode_is_refused(mode):
    with pytest.raises(ValueError, match=f"^unknown policy_cases mode {mode!r}$"):
        SubmissionReport(SUBMISSION, None, [], policy_cases=mode)


# ------------------------------------------------------------------ the instructor's decisions


def decide(store, case_id="b", verdict=None, points=None, judged="WA", **row):
    values = dict(
        submission_id="alice",
        case_id=case_id,
        verdict=verdict,
        points=points,
        reason="appeal granted",
        recorded_at=1.0,
        content_hash="h1",
        case_version="v1",
        judged=judged,
    )
    store.record_override(OverrideRow(**{**values, **row}))


def graded_alice(store, verdicts=("AC", "WA", "TLE", "AC")):
    alice = sub()
    store.record_submission(alice)
    for c, verdict in zip(CASES, verdicts):
        store.record_run(alice, c, Verdict(verdict), "")
    return store.submission("alice")


def test_a_decided_verdict_counts_in_place_of_the_judges(store):
    row = graded_alice(store)
    assert report(store, row, CASES).score == 5  # a and d
    decide(store, "b", verdict="AC")
    rep = report(store, row, CASES)
    assert rep.score == 5.5 and [o.verdict for o in rep.outcomes] == ["AC", "AC", "TLE", "AC"]
    assert [o.judged for o in rep.outcomes][1] == "WA" and rep.verdict_counts["AC"] == 3
    decide(store, "c", verdict="AC", judged="TLE")
    rep = report(store, row, CASES)
    assert rep.all_accepted and rep.score == 6.75 and not rep.decisions[0].needs_review
    assert rep.decisions[0].describe() == "b: AC instead of WA, by the instructor: appeal granted"


def test_decided_points_replace_a_cases_and_added_points_never_go_below_zero(store):
    row = graded_alice(store, ("AC", "WA", "WA", "WA"))
    decide(store, "c", points=0.5, judged="WA")
    rep = report(store, row, CASES)
    assert rep.score == 2.5 and not rep.all_accepted  # points are no verdict
    assert rep.outcomes[2].verdict == "WA"
    decide(store, "", points=-1, judged=None, case_version="")
    assert report(store, row, CASES).score == 1.5
    decide(store, "", points=-10, judged=None, case_version="")
    rep = report(store, row, CASES)
    assert rep.score == 0 and rep.adjustment.describe().startswith("-10 points to the score")
    assert [d.override.case_id for d in rep.decisions] == ["", "c"]


def test_a_decision_on_an_ungraded_case_completes_it(store):
    row = graded_alice(store, ("AC", "AC", "AC"))  # d not graded
    assert not report(store, row, CASES).complete
    decide(store, "d", verdict="AC", judged=None)
    assert report(store, row, CASES).complete


@pytest.mark.parametrize(
    "row, content, review, waiting",
    [
        ({}, "h1", "", False),
        ({}, "h2", "the submission's content changed", True),
        ({"case_version": "v0"}, "h1", "case b changed", True),
        ({"judged": "TLE"}, "h1", "the judge now says WA (was TLE)", False),
    ],
)
def test_a_decision_counts_only_on_the_content_it_was_made_on(store, row, content, review, waiting):
    """Another program handed in, or another case: the decision waits (shown, flagged,
    counted nowhere) until confirmed. The judge's verdict alone changed on the same
    program and case: it still applies, flagged for review."""
    alice = sub(content_hash=content)
    store.record_submission(alice)
    for c, verdict in zip(CASES, ("AC", "WA", "AC", "AC")):
        store.record_run(alice, c, Verdict(verdict), "")
    decide(store, "b", verdict="AC", **row)
    decide(store, "", points=-1, judged=None, case_version="")  # on h1 too
    rep = report(store, store.submission("alice"), CASES)
    assert rep.outcomes[1].verdict == ("WA" if waiting else "AC")
    docked = 0 if content == "h2" else 1  # the whole submission's decision waits too
    assert rep.score == (6.25 if waiting else 6.75) - docked
    decision = next(d for d in rep.decisions if d.override.case_id == "b")
    assert decision.review == review and decision.needs_review is bool(review)
    assert decision.waiting is waiting and (decision in rep.waiting) is waiting
    assert decision.describe().endswith("until confirmed]") is waiting


def test_a_decided_verdict_is_no_policy_failure_and_a_removed_case_keeps_its_decision(store):
    policy_case = Case(**{**vars(case("p", 3)), "policy": ("symmetric-tiles",)})
    alice = sub()
    store.record_submission(alice)
    store.record_run(alice, policy_case, Verdict.WA, "printed twice", policy_only=True)
    decide(store, "p", verdict="AC")
    decide(store, "gone", verdict="AC")
    rep = report(store, store.submission("alice"), [policy_case], "apart")
    assert not rep.outcomes[0].policy_failure and rep.policy_lost == 0
    assert (rep.score, rep.policy_score) == (0, 3)  # apart: outside the score
    assert [o.case_id for o in rep.orphans] == ["gone"]


def _decision(case_id="b", verdict=None, points=None, judged="WA"):
    row = OverrideRow("alice", case_id, verdict, points, "appeal granted", 0.0, "h", "v1", judged)
    return Decision(row)


@pytest.mark.parametrize(
    "decision, weight, line",
    [
        (_decision(verdict="AC"), None, "b: AC instead of WA"),
        (_decision(verdict="AC", judged=None), None, "b: AC instead of not graded"),
        (_decision(points=0.5), 1.5, "b: 0.5 of 1.5 points (WA)"),
        (_decision(points=0.5, judged=None), None, "b: 0.5 points (not graded)"),
        (_decision(points=0.0, judged="TLE"), 2.0, "b: 0 of 2 points (TLE)"),
        (_decision(case_id="", points=5.0, judged=None), None, "+5 points to the score"),
        (_decision(case_id="", points=-2.5, judged=None), 3.0, "-2.5 points to the score"),
    ],
)
def test_a_decision_says_what_was_decided_instead_of_what_and_why(decision, weight, line):
    assert decision.describe(weight) == f"{line}, by the instructor: appeal granted"
    assert decision.whole_submission == (decision.override.case_id == "")
    assert not decision.needs_review
