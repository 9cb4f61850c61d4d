"""The search for a public puzzle that fails like a failing case (grader.counterexamples):
the walk itself, and a grading run's search with a fake sandbox over the real cases and
the real pool: the budget, what is stored, a rerun that runs nothing again, a score the
search never touches. The same with real programs: tests/test_feedback_rules.py."""

import signal
from dataclasses import replace
from pathlib import Path

import pytest

from grader.cases import load_cases
from grader.commands.grade import CLUSTER_NOT_SEARCHED
from grader.config import CounterexamplesConfig, load_config
from grader.counterexamples import LEGACY, Found, Searcher, Target, not_searched, search
from grader.grading import execute, plan
from grader.model import Verdict
from grader.pool import load_pool
from grader.puzzle import parse_puzzle
from grader.score import report
from grader.store import Store
from grader.submissions import discover
from tests.fakes import FakeSandbox, Request, result
from tests.helpers import ROOT, submission

pytestmark = pytest.mark.fast

MANIFEST = ROOT / "testcases" / "manifest.json"
CASES = load_cases(MANIFEST)
POOL = load_pool(MANIFEST)
BY_ID = {case.id: case for case in CASES + POOL}


def target(case_id, kind):
    return Target(BY_ID[case_id], kind)


# ------------------------------------------------------------------ the walk


def test_a_known_candidate_costs_nothing_and_the_first_of_the_kind_is_taken():
    ran = []
    found = search(
        [target("ties", "WA/order")],
        lambda t: [BY_ID["sample"], BY_ID["ties-1"], BY_ID["ties-2"]],
        known={BY_ID["sample"]: ""},
        run=lambda case: ran.append(case.id) or {"ties-1": "WA/missing"}.get(case.id, "WA/order"),
        budget=10,
    )
    assert found == {"ties": Found(BY_ID["ties-2"])} and ran == ["ties-1", "ties-2"]


def test_targets_take_turns_and_the_budget_bounds_the_runs():
    ran = []
    targets = [target("ties", "WA/order"), target("crlf", "PE/white-space")]
    lists = {"ties": [BY_ID["ties-1"], BY_ID["ties-2"]], "crlf": [BY_ID["crlf-1"], BY_ID["sample"]]}
    found = search(
        targets,
        lambda t: lists[t.case.id],
        known={BY_ID["sample"]: "PE/white-space"},
        run=lambda case: ran.append(case.id) or "AC",
        budget=2,
    )
    # One run each, in turns; then only what is known: the sample, free, fails like crlf.
    assert ran == ["ties-1", "crlf-1"]
    assert found["crlf"] == Found(BY_ID["sample"])
    assert found["ties"].puzzle is None and found["ties"].reason == (
        "none found within the 2 extra runs allowed per submission "
        "([counterexamples] runs in course.toml)"
    )


def test_why_none_was_found():
    hidden, public = target("ties", "WA/order"), target("sample", "WA/order")
    none = search([hidden], lambda t: [BY_ID["ties-1"]], {}, lambda case: "AC", 10)
    assert none["ties"].reason == "none of the 1 public puzzle fails this way"
    empty = search([public], lambda t: [], {}, lambda case: "AC", 10)
    assert empty["sample"].reason == "there is no other public puzzle no larger than it to try"
    legacy = search([target("ties", "")], lambda t: [BY_ID["ties-1"]], {}, lambda c: "", 10)
    assert legacy["ties"] == Found(None, LEGACY)


# ------------------------------------------------------------------ a grading run's search

HAND_OUT = set("YGRB")


def crashes_beyond_four_colours(request: Request):
    """The crash example's mistake: abort on a letter the hand-out does not use."""
    puzzle = request.input_file.read_bytes()
    if {edge[0] for tile in parse_puzzle(puzzle) for edge in tile} - HAND_OUT:
        return result(exit_code=None, signal=signal.SIGABRT, stderr=b"unknown colour\n")
    return result(request.input_file.with_suffix(".out").read_bytes())


def graded(tmp_path: Path, on_run, runs=10):
    config = replace(load_config(), counterexamples=CounterexamplesConfig(runs))
    submission(tmp_path / "class", "amy", "puzzlesolver.py", "print()\n")
    subs = discover(tmp_path / "class", config)
    sandbox = FakeSandbox(on_run=on_run)
    store = Store(tmp_path / "grader.db")
    execute(plan(subs, CASES, store), store, sandbox, config, tmp_path / "builds")
    before = report(store, store.recorded("amy"), CASES)
    searcher = Searcher(store, CASES, POOL, config, sandbox, tmp_path / "builds")
    return store, subs, sandbox, searcher, before


def pool_runs(sandbox):
    return [r for r in sandbox.runs() if "pool" in r.input_file.parts]


def test_each_failing_hidden_case_gets_a_puzzle_that_fails_alike_within_the_budget(tmp_path):
    store, subs, sandbox, searcher, before = graded(tmp_path, crashes_beyond_four_colours)
    searcher.run(subs)
    after = report(store, store.recorded("amy"), CASES)
    failing = [o for o in after.outcomes if o.verdict == Verdict.RTE]
    assert {o.case.id for o in failing} >= {"lightbulbs", "demopuzzle", "letters", "letters-26"}
    for outcome in failing:
        found = outcome.counterexample
        assert found is not None and found.found, outcome.case.id
        assert found.input == BY_ID[found.puzzle_id].input.read_bytes()
        assert found.expected == BY_ID[found.puzzle_id].expected.read_bytes()
        assert found.diagnosis.startswith("the program crashed: killed by signal 6 (SIGABRT")
    assert len(pool_runs(sandbox)) <= 10
    assert store.pool_runs("amy", subs[0].content_hash)  # each stored
    # None of it counts: the same score, the same verdicts.
    assert (after.score, after.verdict_counts) == (before.score, before.verdict_counts)


def test_a_rerun_runs_nothing_again_and_finds_the_same(tmp_path):
    store, subs, sandbox, searcher, _ = graded(tmp_path, crashes_beyond_four_colours)
    searcher.run(subs)
    first = store.counterexamples("amy", subs[0].content_hash)
    runs = len(sandbox.runs())
    Searcher(store, CASES, POOL, searcher.config, sandbox, tmp_path / "builds").run(subs)
    assert len(sandbox.runs()) == runs
    assert store.counterexamples("amy", subs[0].content_hash) == first


def test_an_interrupted_search_resumes_within_what_is_left_of_the_budget(tmp_path):
    store, subs, sandbox, searcher, _ = graded(tmp_path, crashes_beyond_four_colours, runs=3)
    sub = subs[0]
    # As if a first search stopped after two runs on the pool (their results stored).
    for puzzle in (BY_ID["letters-26-1"], BY_ID["letters-1"]):
        judged = crashes_beyond_four_colours(Request([], Path(), puzzle.input, False))
        store.record_pool_run(sub, puzzle, Verdict.RTE, "RTE/SIGABRT", "crashed", judged)
    searcher.run(subs)
    assert len(pool_runs(sandbox)) <= 1  # 3 allowed, 2 spent before


def test_a_failure_no_public_puzzle_shares_says_so(tmp_path):
    secret = BY_ID["crlf-no-final-newline"].input.read_bytes()

    def fails_one_hidden_case(request: Request):
        expected = request.input_file.with_suffix(".out").read_bytes()
        if request.input_file.read_bytes() == secret:
            return result(expected + b"\n")
        return result(expected)

    store, subs, sandbox, searcher, _ = graded(tmp_path, fails_one_hidden_case, runs=100)
    searcher.run(subs)
    found = store.counterexamples("amy", subs[0].content_hash)
    (only,) = found.values()
    assert only.case_id == "crlf-no-final-newline" and not only.found
    tried = len(POOL) + sum(case.public for case in CASES)
    assert only.reason == f"none of the {tried} public puzzles fails this way"
    assert len(pool_runs(sandbox)) == len(POOL)


def test_no_search_when_the_course_turns_it_off(tmp_path):
    store, subs, sandbox, searcher, _ = graded(tmp_path, crashes_beyond_four_colours, runs=0)
    searcher.run(subs)
    assert pool_runs(sandbox) == []
    reasons = {row.reason for row in store.counterexamples("amy", subs[0].content_hash).values()}
    assert reasons == {"the search is off ([counterexamples] runs = 0 in course.toml)"}


def test_a_class_graded_on_a_cluster_says_it_was_not_searched(tmp_path):
    store, subs, sandbox, _, _ = graded(tmp_path, crashes_beyond_four_colours)
    not_searched(store, subs, CASES, CLUSTER_NOT_SEARCHED)
    found = store.counterexamples("amy", subs[0].content_hash)
    assert found and {row.reason for row in found.values()} == {CLUSTER_NOT_SEARCHED}
    assert pool_runs(sandbox) == []
