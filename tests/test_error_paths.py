"""Error paths: every one ends in one clear line (or a quiet exit), loses nothing
already graded, and never in a traceback. Grading here uses the fake sandbox
(tests/fakes.py); the CLI runs as a real process where a pipe or a signal matters."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from grader.cases.manifest import load_cases
from grader.cli import main as grader_main
from grader.core.errors import EXIT_BROKEN_PIPE, GraderError
from grader.course.config import load_config
from grader.grading.session import execute, plan
from grader.intake.submissions import discover
from grader.leaderboard import Program, timed
from grader.lms.gradescope.runner import main as autograder_main
from grader.store import Store, StoreError
from tests.fakes import FakeSandbox, result
from tests.helpers import ROOT, draw_of, small_cases, submission

pytestmark = pytest.mark.fast


@pytest.fixture
def graded(tmp_path: Path):
    """A results folder of a class of two graded with the fake sandbox, and its manifest."""
    manifest = small_cases(tmp_path / "cases")
    cases = load_cases(manifest)
    expected = {case.input.name: case.expected.read_bytes() for case in cases}
    for sid in ("alice", "bob"):
        submission(tmp_path / "class", sid, "puzzlesolver.py", "print()\n")
    config = load_config()
    results = tmp_path / "results"
    results.mkdir()
    sandbox = FakeSandbox(lambda request: result(expected[request.input_file.name]))
    with Store(results / "grader.db") as store:
        work = plan(discover(tmp_path / "class", config), cases, store)
        execute(work, store, sandbox, config, results / "builds")
    return results, manifest


def cli(*args) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "grader", *map(str, args)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_show_of_an_unknown_id_names_the_known_ones(graded):
    results, manifest = graded
    done = cli("--manifest", manifest, "show", "carol", "--results", results)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        f"grader: error: no submission 'carol' in {results / 'grader.db'} (known: alice, bob)"
    ]


def test_show_into_a_closed_pipe_is_quiet(graded):
    results, manifest = graded
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader (`| head`) is gone before anything is written
    try:
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "grader",
                "--manifest",
                str(manifest),
                "show",
                "alice",
                "--results",
                str(results),
            ],
            cwd=ROOT,
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
            timeout=60,
        )
    finally:
        os.close(write_end)
    assert done.returncode == EXIT_BROKEN_PIPE
    assert done.stderr == ""


def test_grade_of_an_empty_folder_is_one_line(tmp_path, capsys):
    (tmp_path / "class").mkdir()
    assert (
        grader_main(["grade", str(tmp_path / "class"), "--results", str(tmp_path / "results")]) == 2
    )
    err = capsys.readouterr().err
    assert err.strip().splitlines() == [
        f"grader: error: {tmp_path / 'class'}: no submissions found (one folder per student)"
    ]


def test_a_store_of_another_schema_is_refused_and_kept(graded, capsys):
    results, manifest = graded
    db = sqlite3.connect(results / "grader.db")
    with db:
        db.execute("UPDATE meta SET value='999' WHERE key='schema'")
    db.close()
    with pytest.raises(StoreError, match="made by another version of the grader"):
        Store(results / "grader.db")
    assert (
        grader_main(["--manifest", str(manifest), "show", "alice", "--results", str(results)]) == 2
    )
    assert "schema 999" in capsys.readouterr().err
    db = sqlite3.connect(results / "grader.db")
    assert db.execute("SELECT COUNT(*) FROM runs").fetchone()[0] == 6  # nothing lost
    db.close()


def test_a_csv_path_that_is_a_folder_is_one_line(graded, capsys):
    results, manifest = graded
    folder = results / "gradebook"
    folder.mkdir()
    code = grader_main(
        ["--manifest", str(manifest), "export", "csv", str(folder), "--results", str(results)]
    )
    assert code == 2
    assert capsys.readouterr().err.strip() == (
        f"grader: error: {folder}: is a folder; name the CSV file to write"
    )


def test_gradescope_runner_without_a_working_setup_leaves_gradescopes_failed_state(
    tmp_path, capsys
):
    """Nothing can be graded (a broken course.toml): no results.json, so Gradescope shows
    its own "the autograder failed" (never a 0 the student did not earn); the real cause
    is in the output only instructors see."""
    source = tmp_path / "source"
    (source / "testcases").mkdir(parents=True)
    (source / "course.toml").write_text("[limits]\ncpu_seconds = -1\n")
    student = tmp_path / "submission"
    student.mkdir()
    out = tmp_path / "results"
    code = autograder_main(
        ["--source", str(source), "--submission", str(student), "--results", str(out)]
    )
    assert code == 1
    assert not (out / "results.json").exists()
    said = capsys.readouterr()
    assert said.err.startswith("autograder: error: ") and "limits.cpu_seconds" in said.err
    assert "no results.json written: the grade is not settled" in said.out
    assert "limits.cpu_seconds" in said.out
    # setup.sh's check still fails the image's build
    assert autograder_main(["--source", str(source), "--check"]) == 2


def test_every_user_error_is_one_family():
    from grader.cases.manifest import CaseError
    from grader.course.config import ConfigError
    from grader.exports.common import ExportError
    from grader.intake.submissions import SubmissionError
    from grader.sandbox import SandboxUnavailable
    from testcases.engine import NoReference
    from testcases.errors import Failure, UsageError

    for error in (
        CaseError,
        ConfigError,
        ExportError,
        SandboxUnavailable,
        StoreError,
        SubmissionError,
        NoReference,
        Failure,
        UsageError,
    ):
        assert issubclass(error, GraderError), error


# ---------------------------------------------------------------- leaderboard exclusions


def _program(tmp_path: Path) -> Program:
    config = load_config()
    return Program("alice", config.languages["python"], "c0ffee", tmp_path)


def _store_timings(store: Store, program: Program, cases, verdicts_by_run) -> None:
    for index, verdicts in enumerate(verdicts_by_run):
        for case, verdict in zip(cases, verdicts):
            store.record_timing(
                program.id,
                program.content_hash,
                case,
                index,
                verdict,
                result(cpu=0.01 * (index + 1)),
                core=0,
            )


def test_a_program_that_fails_while_timed_is_excluded_with_the_reason(tmp_path):
    cases = load_cases(small_cases(tmp_path / "cases"))[:2]
    program = _program(tmp_path)
    with Store(tmp_path / "grader.db") as store:
        _store_timings(store, program, cases, [("AC", "AC"), ("AC", "TLE"), ("WA", "AC")])
        found = timed(store, program, cases, runs=3)
    # the first failure in case order, then how many more
    assert found.problem == (f"failed while being timed: WA on {cases[0].id} (run 3) and 1 more")


def test_a_program_with_missing_runs_is_timing_incomplete(tmp_path):
    cases = load_cases(small_cases(tmp_path / "cases"))[:2]
    program = _program(tmp_path)
    with Store(tmp_path / "grader.db") as store:
        _store_timings(store, program, cases, [("AC", "AC"), ("AC", "AC")])
        found = timed(store, program, cases, runs=3)
        assert found.problem == "timing incomplete: run leaderboard again"
        assert found.cpu is None
        _store_timings(store, program, cases, [("AC", "AC")] * 3)
        assert timed(store, program, cases, runs=3).problem is None


def test_gradescopes_leaderboard_times_the_drawn_puzzles_of_the_timed_cases(tmp_path):
    """As the leaderboard does: the draw the export put in the zip, one puzzle for each
    case `grader leaderboard` would time; no draw, no leaderboard; a draw without one
    of them is one clear error."""
    import dataclasses
    import shutil

    from grader.grading.draws import DrawError
    from grader.lms.gradescope.autograder import DRAW_IN_ZIP, leaderboard_puzzles

    manifest = small_cases(tmp_path / "cases")
    cases = load_cases(manifest)
    chosen = dataclasses.replace(
        load_config(),
        leaderboard=dataclasses.replace(load_config().leaderboard, cases=(cases[1].id,)),
    )
    assert leaderboard_puzzles(tmp_path, chosen, cases, tmp_path / "drawn") == []
    (tmp_path / DRAW_IN_ZIP).parent.mkdir()
    shutil.copy(
        draw_of(manifest, tmp_path / "d.json", ids=[c.id for c in cases]), tmp_path / DRAW_IN_ZIP
    )
    (puzzle,) = leaderboard_puzzles(tmp_path, chosen, cases, tmp_path / "drawn")
    assert (
        puzzle.id == f"{cases[1].id}-d1"
        and puzzle.input.read_bytes() == cases[1].input.read_bytes()
    )
    shutil.copy(draw_of(manifest, tmp_path / "d.json", ids=[cases[0].id]), tmp_path / DRAW_IN_ZIP)
    with pytest.raises(DrawError, match=f"no puzzle drawn for the timed case '{cases[1].id}'"):
        leaderboard_puzzles(tmp_path, chosen, cases, tmp_path / "drawn")


@pytest.mark.parametrize(
    "argv",
    [
        ["--course", "C.toml", "--manifest", "M.json", "show", "alice"],
        ["show", "alice", "--course", "C.toml", "--manifest", "M.json"],
        ["--course", "C.toml", "show", "alice", "--manifest", "M.json"],
    ],
)
def test_global_options_go_before_or_after_the_subcommand(argv):
    from grader.cli import parser

    args = parser().parse_args(argv)
    assert (args.course, args.manifest) == (Path("C.toml"), Path("M.json"))


def test_global_options_reach_nested_subcommands():
    from grader.cli import parser

    args = parser().parse_args(["export", "csv", "out.csv", "--manifest", "M.json"])
    assert args.manifest == Path("M.json") and args.course is None
