"""The grader's command line, driven as a user would (pexpect, a real terminal)."""

import argparse
import json
import shutil
import sys

import pexpect
import pytest

from tests.helpers import (
    NO_SOLUTION,
    ROOT,
    SAMPLE,
    assert_valid,
    make_cases,
    reference_submission,
    submission,
)

GRADER = [sys.executable, "-m", "grader"]


def spawn(args, cwd=ROOT, timeout=180):
    child = pexpect.spawn(
        GRADER[0],
        GRADER[1:] + [str(a) for a in args],
        cwd=str(cwd),
        timeout=timeout,
        encoding="utf-8",
        dimensions=(40, 160),
    )
    child.expect(pexpect.EOF)
    child.close()
    return child.exitstatus, child.before


@pytest.fixture
def klass(tmp_path):
    root = tmp_path / "class"
    reference_submission(root, "ref-py")
    shutil.copytree(ROOT / "submissions" / "wrong-plural", root / "wrong-plural")
    submission(root, "empty", "README.md", "nothing here")
    return root


def cli_cases(root):
    return make_cases(
        root,
        {
            "sample": SAMPLE.read_text(),
            "one": (ROOT / "testcases" / "public" / "one-solution.txt").read_text(),
            "none": NO_SOLUTION,
        },
        hidden=("none",),
    )


def test_grade_show_and_rerun(tmp_path, klass):
    manifest = cli_cases(tmp_path / "cases")
    results = tmp_path / "results"
    code, out = spawn(["--manifest", manifest, "grade", klass, "--results", results, "--jobs", "2"])
    assert code == 0, out
    assert "run/s" in out or "runs/s" in out or "9/9" in out  # the progress bar
    for line in ("ref-py", "wrong-plural", "empty"):
        assert line in out
    assert "3/3" in out and "AC:3" in out
    assert "CE: the folder is empty" in out or "CE: no source file" in out
    data = json.loads((results / "results.json").read_text())
    assert_valid(data, "results")
    scores = {s["id"]: (s["score"], s["max_score"]) for s in data["submissions"]}
    assert scores == {"empty": (0, 3), "ref-py": (3, 3), "wrong-plural": (2, 3)}
    assert {c["verdict"] for c in data["submissions"][0]["cases"]} == {"CE"}

    code, out = spawn(["--manifest", manifest, "show", "wrong-plural", "--results", results])
    assert code == 0
    assert "WA" in out and "wrong plural" in out and "(hidden)" in out

    code, out = spawn(["--manifest", manifest, "grade", klass, "--results", results])
    assert code == 0 and "nothing to grade" in out


def test_check_passes_a_correct_program_and_explains_a_wrong_one(tmp_path):
    manifest = cli_cases(tmp_path / "cases")
    good = reference_submission(tmp_path, "good")
    code, out = spawn(["--manifest", manifest, "check", good / "puzzlesolver.py"])
    assert code == 0, out
    assert "All public cases and the pool pass" in out and "none" not in out  # no hidden case
    code, out = spawn(["--manifest", manifest, "check", ROOT / "submissions" / "no-blank-line"])
    assert code == 1
    assert "PE" in out and "missing empty line between two boards" in out
    assert "score on the public cases: 1/2" in out


@pytest.mark.parametrize(
    "args, message",
    [
        (["show", "nobody"], "no results yet"),
        (["grade", "/nonexistent/class"], "/nonexistent/class: no such file or folder"),
        (["grade", "--jobs", "0"], "--jobs must be at least 1"),
        (["--course", "/nonexistent.toml", "grade"], "no such course configuration file"),
        (["--manifest", "/nonexistent.json", "grade"], "cannot read the manifest"),
    ],
)
def test_bad_usage_is_one_clear_line(tmp_path, args, message):
    if args[0] == "show":
        args += ["--results", tmp_path / "none"]
    code, out = spawn(args)
    assert code == 2
    assert message in out
    assert "Traceback" not in out


def test_bad_course_file_stops_before_grading(tmp_path, klass):
    course = tmp_path / "course.toml"
    course.write_text("[limits]\nmemory_mb = -1\n")
    results = tmp_path / "results"
    code, out = spawn(["--course", course, "grade", klass, "--results", results])
    assert code == 2 and "limits.memory_mb" in out
    assert not (results / "grader.db").exists()


@pytest.mark.parametrize(
    "argv, command",
    [
        (["grade", "class"], "grade"),
        (["--course", "grade", "show", "ada"], "show"),  # a course file named "grade"
        (["--course=c.toml", "export", "csv", "out.csv"], "export"),
        (["--help", "grade"], None),
        (["nope"], None),
        ([], None),
    ],
)
def test_a_command_line_builds_only_its_commands_parser(argv, command):
    """`grader X` imports only X's modules; the parser it builds still takes every
    option of X (the global ones anywhere), and help or an unknown command get all."""
    from grader import cli

    assert cli._command_of(argv) == command
    built = cli.parser(command)
    [commands] = [a for a in built._actions if isinstance(a, argparse._SubParsersAction)]
    assert set(commands.choices) == ({command} if command else set(cli.COMMANDS))


def test_export_joins_the_lms_kinds_to_its_own():
    from grader import cli

    args = cli.parser("export").parse_args(
        ["export", "moodle-gradebook", "o.csv", "--roster", "w.csv"]
    )
    assert args.export_kind == "moodle-gradebook" and args.lms == "moodle"
