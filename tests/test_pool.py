"""The pool of public puzzles beside the public cases: `testcases pool` makes the one
shipped, byte for byte; it covers what the hidden cases cover and holds none of them;
grader.cases.pool orders it by likeness to a case."""

import filecmp
import json
import shutil

import pytest

from grader.cases.manifest import load_cases
from grader.cases.pool import Likeness, features, load_pool
from testcases.cli import main as run_testcases
from tests.helpers import ROOT

pytestmark = pytest.mark.fast

CASES = ROOT / "testcases"


def test_the_shipped_pool_is_what_the_command_makes(tmp_path):
    copy = tmp_path / "testcases"
    shutil.copytree(CASES, copy, ignore=shutil.ignore_patterns("pool", "__pycache__", "*.py"))
    assert run_testcases(["--manifest", str(copy / "manifest.json"), "pool"]) == 0
    made, shipped = copy / "pool", CASES / "pool"
    names = sorted(p.relative_to(shipped).as_posix() for p in shipped.rglob("*") if p.is_file())
    assert names == sorted(p.relative_to(made).as_posix() for p in made.rglob("*") if p.is_file())
    _, mismatch, errors = filecmp.cmpfiles(shipped, made, names, shallow=False)
    assert mismatch == [] and errors == []
    assert run_testcases(["--manifest", str(made / "manifest.json"), "verify"]) == 0


def test_the_pool_covers_what_the_hidden_cases_cover_and_holds_none_of_them():
    pool = load_pool(CASES / "manifest.json")
    assert len(pool) >= 30 and all(case.public for case in pool)
    found = set().union(*(features(case) for case in pool))
    for wanted in (
        "solutions:0",
        "solutions:1",
        "solutions:2",
        "solutions:several",
        "solutions:many",
        "symmetric",
        "duplicates",
        "ties",
        "letters-beyond-four",
        "many-letters",
        "crlf",
        "no-final-newline",
        "solutions:large",
    ):
        assert wanted in found, wanted
    cases = load_cases(CASES / "manifest.json")
    for case in cases:  # whatever a case has, some pool puzzle has too
        assert features(case) <= found, (case.id, features(case) - found)
    hidden = {c.input.read_bytes() for c in cases if not c.public}
    assert not hidden & {case.input.read_bytes() for case in pool}
    sizes = {case.id: case.expected.stat().st_size for case in pool}
    assert max(size for name, size in sizes.items() if "large" not in name) < 100_000  # to read
    assert max(sizes.values()) < 1_000_000  # as large as the timed cases, to time


def test_a_pool_that_would_give_a_hidden_puzzle_away_is_refused(tmp_path):
    copy = tmp_path / "testcases"
    shutil.copytree(CASES, copy, ignore=shutil.ignore_patterns("pool", "__pycache__", "*.py"))
    data = json.loads((copy / "manifest.json").read_text())
    secret = next(c for c in data["cases"] if c["visibility"] == "hidden")
    (copy / secret["input"]).write_text("R1,R1,R1,R1\n" * 9)  # a puzzle the pool writes out
    assert run_testcases(["--manifest", str(copy / "manifest.json"), "pool"]) == 2
    assert not (copy / "pool").exists()


def test_puzzles_are_tried_most_alike_first():
    cases = {case.id: case for case in load_cases(CASES / "manifest.json")}
    pool = load_pool(CASES / "manifest.json")
    likeness = Likeness()
    first = {
        target: likeness.ranked(cases[target], pool)[0].id
        for target in ("crlf", "letters-26", "symmetric-one-solution", "no-solution-identical")
    }
    assert first == {
        "crlf": "crlf-1",
        "letters-26": "letters-26-1",
        "symmetric-one-solution": "symmetric-1",
        "no-solution-identical": "identical-symmetric-tiles",
    }
    assert features(cases["ties"]) >= {"ties", "solutions:many"}
    assert "crlf" in features(cases["crlf"]) and "crlf" not in features(cases["sample"])
    # Equally alike: the smaller expected output first.
    ties = likeness.ranked(cases["one-solution-2"], pool)
    sizes = [likeness.size(case) for case in ties[:4]]
    assert sizes == sorted(sizes)
