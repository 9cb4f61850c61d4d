"""Puzzles drawn afresh for each leaderboard session: `testcases draw` (the generator,
the reference, the second engine) and what the grader makes of a draw
(grader.grading.draws): which puzzles it times, and a draw no new program may be timed on once
a session has published figures of it."""

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from grader.cases.manifest import load_cases
from grader.grading.draws import DrawError, check_draw_unused, load_draw
from grader.grading.timed_runs import Program
from grader.store import LeaderboardSession, SessionProgram
from testcases.draw import draw
from tests.helpers import ROOT, expected_output, manifest_subset

FAMILY = "timed-2-letters-a"  # the quickest shipped family to draw from


@pytest.fixture(scope="module")
def manifest(tmp_path_factory) -> Path:
    return manifest_subset(tmp_path_factory.mktemp("cases"), (FAMILY, "sample"))


def test_the_same_seed_draws_the_same_puzzles_and_another_seed_others(manifest):
    first, again, other = draw(manifest, 11), draw(manifest, 11), draw(manifest, 12)
    assert first["puzzles"] == again["puzzles"]
    assert first["puzzles"][0]["input"] != other["puzzles"][0]["input"]
    assert [p["family"] for p in first["puzzles"]] == [FAMILY]  # the timed cases only


def test_a_drawn_puzzle_is_of_its_familys_kind_with_the_references_output(manifest):
    (puzzle,) = draw(manifest, 5)["puzzles"]
    entries = {e["id"]: e for e in json.loads(manifest.read_text())["cases"]}
    family = entries[FAMILY]["generator"]
    low, high = map(int, family["solutions"].split("-"))
    assert low <= puzzle["solutions"] <= high
    assert len(set(re.findall(r"[A-Z]", puzzle["input"]))) <= family["letters"]
    assert puzzle["expected"].encode() == expected_output(puzzle["input"])
    assert puzzle["expected"].count("\n+--") == 4 * puzzle["solutions"]  # 4 borders a board
    old = (manifest.parent / "hidden" / f"{FAMILY}.txt").read_text()
    assert puzzle["input"] != old  # not the timed case itself


def test_a_timed_case_without_a_family_is_one_clear_error(tmp_path):
    data = json.loads(manifest_subset(tmp_path / "cases", (FAMILY,)).read_text())
    del data["cases"][0]["generator"]
    (tmp_path / "cases" / "manifest.json").write_text(json.dumps(data))
    done = subprocess.run(
        [sys.executable, "-m", "testcases", "--manifest", str(tmp_path / "cases" / "manifest.json")]
        + ["draw", "-o", str(tmp_path / "d.json")],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert f"case {FAMILY!r} is timed but declares no family to draw from" in done.stderr


def test_the_grader_times_the_draw_s_puzzles_for_the_timed_cases(manifest, tmp_path):
    path = tmp_path / "draw.json"
    path.write_text(json.dumps(draw(manifest, 3)))
    cases = load_cases(manifest)
    loaded = load_draw(path, tmp_path / "drawn", [c for c in cases if c.timed])
    (puzzle,) = loaded.puzzles
    assert loaded.seed == 3 and loaded.families == (FAMILY,)
    assert puzzle.timed and not puzzle.public and puzzle.policy == ("tie-order",)
    assert puzzle.expected.read_bytes() == expected_output(puzzle.input.read_text())
    record = loaded.record()
    assert record["seed"] == 3 and record["puzzles"][0]["input"] == puzzle.input.read_text()
    broken = tmp_path / "broken.json"
    broken.write_text('{"version": 1}')
    with pytest.raises(DrawError, match="not a draw of `testcases draw`"):
        load_draw(broken, tmp_path / "drawn", cases)


pytestmark = pytest.mark.slow  # the reference solves every drawn puzzle


def _program(pid: str, content: str) -> Program:
    return Program(pid, None, content, Path("."))  # type: ignore[arg-type]


def test_a_draw_a_session_timed_times_no_new_program(tmp_path):
    """Its figures may be published: a program handed in since (one that learned the
    puzzles from them, say) is never timed on it; the same programs may be again."""
    earlier = LeaderboardSession(
        4,
        0.0,
        None,
        None,
        "CPU",
        {},
        (),
        (
            SessionProgram("a", "h-a", "ranked", 1, 0.1),
            SessionProgram("b", "h-b", "not timed", reason="WA on 1 case"),
        ),
    )
    check_draw_unused(None, [_program("z", "h-z")], tmp_path)
    check_draw_unused(earlier, [_program("a", "h-a")], tmp_path)
    for newcomer in (_program("a", "h-a2"), _program("b", "h-b"), _program("c", "h-c")):
        with pytest.raises(DrawError, match="timed in leaderboard session 4 already"):
            check_draw_unused(earlier, [_program("a", "h-a"), newcomer], tmp_path)
