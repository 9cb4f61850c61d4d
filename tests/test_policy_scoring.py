"""Policy-dependent cases scored end to end: programs that take the other reading of the
policy rules, graded on the course's real cases (36 points) with the fake sandbox
(tests/fakes.py), stored in a real SQLite file and scored by grader.judge.score.

Each "program" is the reference's boards printed the other way: once per look-alike
placement and counted so (the other reading of the symmetric-tile rule), or with ties
in the reverse order (of the tie rule)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from grader.cases.manifest import load_cases
from grader.core.model import Verdict
from grader.course.config import load_config
from grader.grading.session import execute, plan
from grader.intake.submissions import discover
from grader.judge.compare import POLICY_ONLY
from grader.judge.score import report
from grader.store import Store
from reference import puzzlesolver as ps
from tests.fakes import FakeSandbox, Request, result
from tests.helpers import each_placement_output as each_placement
from tests.helpers import submission
from tests.helpers import ties_reversed_output as ties_reversed

pytestmark = pytest.mark.fast

CASES = load_cases()
LOOKALIKE_CASES = {"symmetric", "symmetric-one-solution", "symmetric-duplicates", "ties-symmetric"}
TIE_CASES = {"ties", "ties-symmetric", "timed-2-letters-a", "timed-2-letters-b"}


def ties_reversed_and_a_trailing_space(puzzle: ps.Puzzle) -> bytes:
    return ties_reversed(puzzle).replace(b"Input tiles:", b"Input tiles: ")


PROGRAMS = {
    "placements": each_placement,
    "ties": ties_reversed,
    "ties-and-space": ties_reversed_and_a_trailing_space,
}


def run(request: Request):
    program = next(request.workdir.glob("puzzlesolver.py")).read_text().split()[-1]
    assert request.input_file is not None
    return result(PROGRAMS[program](ps.parse(request.input_file.read_text())))


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> Path:
    """The store of one grading run of every program on every case."""
    root = tmp_path_factory.mktemp("policy")
    for name in PROGRAMS:
        submission(root / "class", name, "puzzlesolver.py", f"# program: {name}\n")
    config = load_config()
    subs = discover(root / "class", config)
    with Store(root / "grader.db") as store:
        execute(plan(subs, CASES, store), store, FakeSandbox(on_run=run), config, root / "builds")
    return root / "grader.db"


def scores(db: Path, sid: str, mode: str) -> tuple[float, float, str]:
    with Store(db) as store:
        rep = report(store, store.recorded(sid), CASES, mode)
    return rep.score, rep.max_score, rep.policy_note


def failing(db: Path, sid: str) -> set[str]:
    with Store(db) as store:
        rep = report(store, store.recorded(sid), CASES)
    return {o.case.id for o in rep.outcomes if o.verdict != Verdict.AC}


def test_printing_every_look_alike_placement_is_forgiven_on_every_such_case(results):
    # Every failure is the other reading of the symmetric-tile rule: with the copies
    # dropped (and the count with them) each output is the expected one.
    assert failing(results, "placements") == LOOKALIKE_CASES
    assert scores(results, "placements", "forgive") == (
        36,
        36,
        "4 forgiven on policy-dependent cases",
    )
    assert scores(results, "placements", "count") == (32, 36, "4 lost on policy-dependent cases")


def test_ties_in_another_order_are_forgiven(results):
    assert failing(results, "ties") == TIE_CASES
    assert scores(results, "ties", "forgive") == (36, 36, "6 forgiven on policy-dependent cases")


def test_editing_the_stored_diagnoses_moves_no_score(results, tmp_path):
    edited = tmp_path / "grader.db"
    shutil.copyfile(results, edited)
    with Store(edited) as store:
        before = {sid: scores(edited, sid, "forgive") for sid in PROGRAMS}
        store.db.execute("UPDATE runs SET diagnosis = ''")
        assert {sid: scores(edited, sid, "forgive") for sid in PROGRAMS} == before
        store.db.execute("UPDATE runs SET diagnosis = ?", (POLICY_ONLY,))
        assert {sid: scores(edited, sid, "forgive") for sid in PROGRAMS} == before


def test_what_else_is_wrong_is_not_forgiven(results):
    # The trailing space fails every case; on the tie cases the rule is not all that differs.
    assert len(failing(results, "ties-and-space")) == len(CASES)
    assert scores(results, "ties-and-space", "forgive") == (0, 36, "")
