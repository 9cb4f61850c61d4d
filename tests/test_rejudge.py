"""Verdicts carry the judging rules' version (a digest of the grader's own code), stored
runs are judged again from what the store kept when it changes, and a resumed grade
makes exactly the runs a clean one makes. A fake sandbox: no program runs here."""

from __future__ import annotations

import shutil
import signal
import sqlite3
from pathlib import Path

import pytest

from grader.cases.manifest import load_cases
from grader.core import rules
from grader.core.model import Verdict
from grader.course.config import load_config
from grader.grading.rejudge import rejudge
from grader.grading.session import execute, plan
from grader.intake.submissions import discover
from grader.judge import score
from grader.store import Store
from tests.fakes import FakeSandbox, Request, result
from tests.helpers import ROOT, small_cases, submission

pytestmark = pytest.mark.fast


def test_every_module_of_the_grader_is_part_of_the_rules_version(tmp_path):
    """No one can forget to bump it: a no-op appended to any module changes it."""
    copy = tmp_path / "grader"
    shutil.copytree(ROOT / "grader", copy, ignore=shutil.ignore_patterns("__pycache__"))
    first = rules.code_digest(copy)
    assert first == rules.rules_version()
    modules = sorted(copy.rglob("*.py"))
    assert len(modules) > 100
    for module in modules:
        original = module.read_bytes()
        module.write_bytes(original + b"\n_ = None\n")
        assert rules.code_digest(copy) != first, module
        module.write_bytes(original)
    assert rules.code_digest(copy) == first


@pytest.fixture
def graded(tmp_path: Path):
    """One program graded: a wrong one (the count line in the singular everywhere) and
    a right one."""
    cases = load_cases(small_cases(tmp_path / "cases"))
    expected = {c.input.name: c.expected.read_bytes() for c in cases}
    submission(tmp_path / "class", "amy", "puzzlesolver.py", "# spaced\n")
    submission(tmp_path / "class", "bo", "puzzlesolver.py", "# right\n")

    def on_run(request: Request):
        out = expected[request.input_file.name]
        if "spaced" in next(request.workdir.glob("*.py")).read_text():
            out = out.replace(b"\n", b" \n", 1)  # a trailing space: PE
        return result(out)

    sandbox = FakeSandbox(on_run)
    subs = discover(tmp_path / "class", load_config())
    with Store(tmp_path / "g.db") as store:
        execute(plan(subs, cases, store), store, sandbox, load_config(), tmp_path / "builds")
    return tmp_path, cases, subs, sandbox


def test_stored_runs_are_judged_again_under_new_rules_and_nothing_runs(graded, monkeypatch):
    tmp_path, cases, subs, sandbox = graded
    ran = len(sandbox.requests)
    with Store(tmp_path / "g.db") as store:
        # As if an older grader had judged amy's PE a WA under other rules.
        store.db.execute("UPDATE runs SET verdict='WA', rules='older' WHERE submission_id='amy'")
        report = score.report(store, store.recorded("amy"), cases)
        assert report.standing is score.Standing.STALE and report.settled_score is None
        done = rejudge(store, subs, cases, [], load_config().limits)
        assert done.judged == len(cases) and done.rerun == 0
        assert sorted(done.changed) == sorted(f"amy {c.id}: WA -> PE" for c in cases)
        assert "0 verdict(s) changed" not in done.lines()[0]
        report = score.report(store, store.recorded("amy"), cases)
        assert report.settled and {o.verdict for o in report.outcomes} == {Verdict.PE}
        assert rejudge(store, subs, cases, [], load_config().limits).lines() == []
    assert len(sandbox.requests) == ran  # nothing ran again


def test_a_run_stored_without_what_judging_needs_is_run_again(graded):
    tmp_path, cases, subs, _ = graded
    with Store(tmp_path / "g.db") as store:
        store.db.execute("UPDATE runs SET rules=NULL, replay=NULL")  # as schema 7 kept them
        done = rejudge(store, subs, cases, [], load_config().limits)
        # bo's accepted runs are judged from the expected output; amy's PE run again
        assert (done.judged, done.rerun) == (len(cases), len(cases))
        assert {c for c, _ in store.done("amy", store.recorded("amy").content_hash)} == set()
        work = plan(subs, cases, store)
        assert [c.id for c in work.todo["amy"]] == [c.id for c in cases] and "bo" not in work.todo


def test_a_resumed_grade_makes_exactly_the_runs_of_a_clean_one(tmp_path):
    """A public case reached its limit, another public case was running when the grade
    was killed: the resumed grade runs that one, and no probe (a clean grade skips the
    probes after a public case reached a limit)."""
    manifest = small_cases(tmp_path / "cases")
    cases = load_cases(manifest)
    probes = [cases[0]]  # any puzzle will do as a probe here
    submission(tmp_path / "class", "amy", "puzzlesolver.py", "# slow on the sample\n")
    subs = discover(tmp_path / "class", load_config())
    killed = []

    def behaviour(request: Request):
        if request.input_file.name == "sample.txt":
            return result(cpu=11, exit_code=None, signal=signal.SIGKILL, timed_out=True)
        if request.input_file.name == "lightbulbs.txt" and not killed:
            killed.append(1)
            raise KeyboardInterrupt
        return result(b"")

    def grade(db: str) -> list[str]:
        sandbox = FakeSandbox(behaviour)
        with Store(tmp_path / db) as store:
            try:
                execute(plan(subs, cases, store, probes=probes), store, sandbox, load_config(),
                        tmp_path / "builds", jobs=1)  # fmt: skip
            except KeyboardInterrupt:
                pass
        return [r.input_file.name for r in sandbox.runs()]

    clean_runs = (killed.append(1), grade("clean.db"))[1]
    killed.clear()
    first, resumed = grade("resumed.db"), grade("resumed.db")
    assert sorted(first[:-1] + resumed) == sorted(clean_runs)
    with sqlite3.connect(tmp_path / "resumed.db") as db:
        assert db.execute("SELECT count(*) FROM pool_runs").fetchone() == (0,)
