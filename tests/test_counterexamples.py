"""A public puzzle that fails like a failing case (grader.grading.counterexamples), and the order
that keeps hidden inputs out of what a student sees (grader.grading.session): which probes a
class runs, the pick among the runs a student may see, and a grading run with a fake
sandbox over the real cases and the real pool: public cases, then probes, then hidden
cases; what is stored and labelled exposed; a rerun that runs nothing again; a score the
probes never touch. The same with real programs: tests/test_feedback_rules.py."""

import signal
from dataclasses import replace
from pathlib import Path

import pytest

from grader.cases.manifest import load_cases
from grader.cases.pool import Likeness, features, load_pool
from grader.cases.puzzle import parse_puzzle
from grader.core.model import Verdict
from grader.course.config import CounterexamplesConfig, load_config
from grader.grading import counterexamples
from grader.grading.counterexamples import LEGACY, Seen, Target, choose_probes, find
from grader.grading.session import execute, plan
from grader.intake.submissions import discover
from grader.judge.score import report
from grader.store import Store
from tests.fakes import FakeSandbox, Request, result
from tests.helpers import ROOT, submission

pytestmark = pytest.mark.fast

MANIFEST = ROOT / "testcases" / "manifest.json"
CASES = load_cases(MANIFEST)
POOL = load_pool(MANIFEST)
BY_ID = {case.id: case for case in CASES + POOL}
PUBLIC = [case for case in CASES if case.public]
HIDDEN = [case for case in CASES if not case.public]


def target(case_id, kind):
    return Target(BY_ID[case_id], kind)


def seen(puzzle_id, kind, source="pool"):
    return Seen(BY_ID[puzzle_id], kind, source)


# ------------------------------------------------------------------ which probes


def test_probes_first_have_what_only_hidden_cases_have_then_the_most_alike():
    """A program that fails only on CR LF line ends, no final newline or thousands of
    solutions fails no public case: the first probes have every such feature."""
    only_hidden = set().union(*(features(c) for c in HIDDEN))
    only_hidden -= set().union(*(features(c) for c in PUBLIC))
    assert only_hidden >= {"crlf", "no-final-newline", "solutions:large"}
    covering = choose_probes(CASES, POOL, 3)
    assert set().union(*(features(p) for p in covering)) >= only_hidden
    assert [p.id for p in covering] == [
        "crlf-no-final-newline-1",
        "large-3-letters-1",
        "letters-26-1",
    ]
    # Then each hidden case's most alike puzzle (unless a public case is as alike: that
    # one is run anyway), those that stand for the most hidden cases first.
    likeness = Likeness()
    best = [likeness.ranked(case, [c for c in PUBLIC + POOL if c != case])[0] for case in HIDDEN]
    firsts = [p for p in dict.fromkeys(best) if p in POOL]
    wanted = set(covering) | set(firsts)
    assert set(choose_probes(CASES, POOL, len(wanted))) == wanted
    probes = choose_probes(CASES, POOL, 10)
    assert len(probes) == 10 and len(set(probes)) == 10 and all(p in POOL for p in probes)


def test_the_budget_bounds_the_probes_and_zero_means_none():
    assert choose_probes(CASES, POOL, 0) == []
    assert choose_probes(CASES, POOL, 3) == choose_probes(CASES, POOL, 10)[:3]
    everything = choose_probes(CASES, POOL, 1000)
    assert set(everything) == set(POOL)  # with room enough, the whole pool in turns


def test_a_class_without_a_pool_has_no_probes():
    assert choose_probes(CASES, [], 10) == []


# ------------------------------------------------------------------ the pick


def test_the_most_alike_puzzle_that_failed_the_same_way_is_taken():
    found = find(
        [target("ties", "WA/order")],
        [seen("sample", "", "public"), seen("ties-1", "WA/missing"), seen("ties-2", "WA/order")],
    )
    assert found == {"ties": seen("ties-2", "WA/order")}
    alike = find(
        [target("ties", "WA/order")],
        [seen("ties-1", "WA/order"), seen("sample", "WA/order", "public")],
    )
    assert alike["ties"] == seen("ties-1", "WA/order")  # the most alike of the two


def test_a_public_case_gets_another_puzzle_no_larger_than_itself():
    big = max(POOL, key=lambda p: p.expected.stat().st_size)
    small = min(POOL, key=lambda p: p.expected.stat().st_size)
    case = BY_ID["sample"]
    assert big.expected.stat().st_size > case.expected.stat().st_size
    found = find(
        [target("sample", "WA/order")],
        [Seen(big, "WA/order", "pool"), Seen(case, "WA/order", "public")],
    )
    assert isinstance(found["sample"], str)  # neither itself nor a larger one
    found = find([target("sample", "WA/order")], [Seen(small, "WA/order", "pool")])
    assert found["sample"] == Seen(small, "WA/order", "pool")


def test_why_none_was_found_in_plain_words():
    none = find([target("ties", "WA/order")], [seen("ties-1", "")])
    assert none["ties"] == (
        "none of the 1 public puzzle your program was run on fails this way: "
        "it fails so only on puzzles you cannot see"
    )
    empty = find([target("sample", "WA/order")], [])
    assert empty["sample"] == (
        "your program was run on no other public puzzle no larger than this one to compare with"
    )
    assert find([target("ties", "")], [seen("ties-1", "")])["ties"] == LEGACY


# ------------------------------------------------------------------ a grading run

HAND_OUT = set("YGRB")


def crashes_beyond_four_colours(request: Request):
    """The crash example's mistake: abort on a letter the hand-out does not use."""
    puzzle = request.input_file.read_bytes()
    if {edge[0] for tile in parse_puzzle(puzzle) for edge in tile} - HAND_OUT:
        return result(exit_code=None, signal=signal.SIGABRT, stderr=b"unknown colour\n")
    return result(request.input_file.with_suffix(".out").read_bytes())


def graded(tmp_path: Path, on_run, runs=10, store=None):
    config = replace(load_config(), counterexamples=CounterexamplesConfig(runs))
    submission(tmp_path / "class", "amy", "puzzlesolver.py", "print()\n")
    subs = discover(tmp_path / "class", config)
    sandbox = FakeSandbox(on_run=on_run)
    store = store or Store(tmp_path / "grader.db")
    probes = choose_probes(CASES, POOL, runs)
    execute(plan(subs, CASES, store, probes=probes), store, sandbox, config, tmp_path / "builds")
    counterexamples.record(store, subs, CASES, POOL)
    return store, subs, sandbox


def kind(request: Request) -> str:
    """What a run was on: a public case, a pool puzzle (a probe), a hidden case."""
    return "pool" if "pool" in request.input_file.parts else request.input_file.parent.name


def kinds(sandbox):
    return [kind(request) for request in sandbox.runs()]


@pytest.mark.parametrize("jobs", [1, 3])
def test_public_cases_then_probes_then_hidden_cases(tmp_path, jobs):
    config = replace(load_config(), counterexamples=CounterexamplesConfig(10))
    for name in ("amy", "bob"):
        submission(tmp_path / "class", name, "puzzlesolver.py", f"print({name!r})\n")
    subs = discover(tmp_path / "class", config)
    sandbox = FakeSandbox(on_run=crashes_beyond_four_colours)
    store = Store(tmp_path / "grader.db")
    work = plan(subs, CASES, store, probes=choose_probes(CASES, POOL, 10))
    execute(work, store, sandbox, config, tmp_path / "builds", jobs=jobs)
    by_workdir: dict = {}
    for request in sandbox.runs():
        by_workdir.setdefault(request.workdir, []).append(kind(request))
    assert len(by_workdir) == 2
    for order in by_workdir.values():
        last_visible = max(i for i, kind in enumerate(order) if kind != "hidden")
        first_hidden = order.index("hidden")
        assert last_visible < first_hidden, order
        assert order.count("public") == len(PUBLIC) and order.count("hidden") == len(HIDDEN)
    for sub in subs:
        runs = store.runs(sub.id, sub.content_hash)
        assert {run.case_id for run in runs.values() if run.exposed} == {c.id for c in HIDDEN}
        assert not any(p.exposed for p in store.pool_runs(sub.id, sub.content_hash).values())
        assert store.exposed(sub.id, sub.content_hash)


def test_each_failing_hidden_case_gets_a_puzzle_that_fails_alike(tmp_path):
    store, subs, sandbox = graded(tmp_path, crashes_beyond_four_colours)
    after = report(store, store.recorded("amy"), CASES)
    failing = [o for o in after.outcomes if o.verdict == Verdict.RTE]
    assert {o.case.id for o in failing} >= {"lightbulbs", "demopuzzle", "letters", "letters-26"}
    for outcome in failing:
        found = outcome.counterexample
        assert found is not None and found.found, outcome.case.id
        assert found.input == BY_ID[found.puzzle_id].input.read_bytes()
        assert found.expected == BY_ID[found.puzzle_id].expected.read_bytes()
        assert found.diagnosis.startswith("the program crashed: killed by signal 6 (SIGABRT")
    assert (
        kinds(sandbox).count("public") == len(PUBLIC)
        and len(store.pool_runs("amy", subs[0].content_hash)) == 10
    )


def test_the_probes_change_no_score(tmp_path):
    with_probes = report(
        *_store_and_row(graded(tmp_path / "a", crashes_beyond_four_colours)), CASES
    )
    without = report(
        *_store_and_row(graded(tmp_path / "b", crashes_beyond_four_colours, runs=0)), CASES
    )
    assert (with_probes.score, with_probes.verdict_counts) == (
        without.score,
        without.verdict_counts,
    )


def _store_and_row(graded_run):
    store, subs, _ = graded_run
    return store, store.recorded(subs[0].id)


def test_a_rerun_runs_nothing_again_and_finds_the_same(tmp_path):
    store, subs, sandbox = graded(tmp_path, crashes_beyond_four_colours)
    first = store.counterexamples("amy", subs[0].content_hash)
    runs = len(sandbox.runs())
    _, _, again = graded(tmp_path, crashes_beyond_four_colours, store=store)
    assert again.runs() == [] and len(sandbox.runs()) == runs
    assert store.counterexamples("amy", subs[0].content_hash) == first


def test_no_probe_after_a_public_case_reached_a_limit(tmp_path):
    def loops_on_the_sample(request: Request):
        if request.input_file.name == "sample.txt":
            return result(exit_code=None, signal=signal.SIGKILL, cpu=10.5, timed_out=True)
        return crashes_beyond_four_colours(request)

    store, subs, sandbox = graded(tmp_path, loops_on_the_sample)
    assert "pool" not in kinds(sandbox) and store.pool_runs("amy", subs[0].content_hash) == {}


def test_the_probes_stop_at_the_first_that_reaches_a_limit(tmp_path):
    first = choose_probes(CASES, POOL, 10)[0]

    def loops_on_the_first_probe(request: Request):
        if request.input_file == first.input:
            return result(exit_code=None, signal=signal.SIGKILL, cpu=10.5, timed_out=True)
        return crashes_beyond_four_colours(request)

    store, subs, sandbox = graded(tmp_path, loops_on_the_first_probe)
    assert kinds(sandbox).count("public") == len(PUBLIC)
    ran = store.pool_runs("amy", subs[0].content_hash)
    assert list(ran) == [(first.id, first.version)] and kinds(sandbox).count("hidden") == len(
        HIDDEN
    )


def test_a_run_after_the_hidden_cases_is_exposed_and_never_shown(tmp_path):
    """A public case added to a class graded already runs after its hidden cases: what
    it printed could hold a hidden input, so it stands for no counterexample, and the
    submission runs no probe any more."""
    cases = [case for case in CASES if case.id != "lightbulbs"]
    config = replace(load_config(), counterexamples=CounterexamplesConfig(10))
    submission(tmp_path / "class", "amy", "puzzlesolver.py", "print()\n")
    subs = discover(tmp_path / "class", config)
    store = Store(tmp_path / "grader.db")
    sandbox = FakeSandbox(on_run=crashes_beyond_four_colours)
    execute(plan(subs, cases, store), store, sandbox, config, tmp_path / "builds")
    work = plan(subs, CASES, store, probes=choose_probes(CASES, POOL, 10))
    assert (
        work.todo == {"amy": [BY_ID["lightbulbs"]]} and work.probes == {} and "amy" in work.exposed
    )
    execute(work, store, sandbox, config, tmp_path / "builds")
    counterexamples.record(store, subs, CASES, POOL)
    late = store.runs("amy", subs[0].content_hash)[("lightbulbs", BY_ID["lightbulbs"].version)]
    assert late.verdict == Verdict.RTE and late.exposed
    found = store.counterexamples("amy", subs[0].content_hash)
    assert all(row.puzzle_id != "lightbulbs" for row in found.values())


def test_a_regrade_from_scratch_starts_unexposed(tmp_path):
    store, subs, _ = graded(tmp_path, crashes_beyond_four_colours)
    work = plan(subs, CASES, store, probes=choose_probes(CASES, POOL, 10), force=True)
    assert "amy" not in work.exposed and work.probes["amy"]


# ------------------------------------------------------------------ how time grows


def timed(puzzle_id, cpu, verdict="AC"):
    return Seen(BY_ID[puzzle_id], "" if verdict == "AC" else f"{verdict}/x", "pool", cpu, verdict)


def test_a_time_out_on_a_larger_puzzle_says_how_the_time_grows():
    """4,518 solutions against 323 at most in the public runs: at the same time per
    solution the program would finish: its time grows faster. Nothing of the hidden
    puzzle is told: not its number of solutions, nor the time it would take."""
    runs = [timed("one-solution-1", 0.002), timed("large-3-letters-1", 0.010)]
    reason = find([target("timed-2-letters-b", "TLE")], runs, cpu_limit=1.0)["timed-2-letters-b"]
    assert "2.0 ms (1), 10.0 ms (314)" in reason  # its size: the pool puzzle's solutions
    assert "4,518" not in reason and "4518" not in reason
    assert "stay within the 1 s limit on a puzzle with as many solutions" in reason
    assert "grows faster than the number of solutions" in reason
    # per solution too slow already: the time per solution is what must change
    slow = [timed("one-solution-1", 0.002), timed("large-3-letters-1", 0.9)]
    reason = find([target("timed-2-letters-b", "TLE")], slow, cpu_limit=1.0)["timed-2-letters-b"]
    assert "it must spend less time per solution" in reason


def test_the_growth_is_a_power_where_two_large_runs_tell_it():
    runs = [
        timed("one-solution-1", 0.010),
        timed("two-letters-1", 0.030),  # 148 solutions: 0.02 s beyond start-up
        timed("large-2-letters-1", 3.010),  # 1,820: 3 s beyond, 150 times for 12 times the size
    ]
    reason = find([target("timed-2-letters-b", "TLE")], runs, cpu_limit=10.0)["timed-2-letters-b"]
    assert "grows about as the number of solutions to the power 2.0" in reason


def test_no_growth_is_told_without_a_finished_larger_run_or_a_limit():
    runs = [timed("large-3-letters-1", 0.01, "TLE")]  # not finished: its time says nothing
    reason = find([target("timed-2-letters-b", "TLE")], runs, cpu_limit=1.0)["timed-2-letters-b"]
    assert "solutions" not in reason
    assert (
        "power"
        not in find([target("many-solutions", "TLE")], [timed("sample", 0.01)], 1.0)[
            "many-solutions"
        ]
    )
