"""Say only what is established: a grade leaves only when settled (never an IE or a half
graded submission as a score), every export reads one state whole, a failure is the
student's only once a known-good program shows the machine healthy, an analysis never
costs a grade, limits under which a correct program fails are refused, the store
refuses damage, and new judging rules judge the stored runs again. Real sandbox, real
compilers, the CLI in-process."""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from grader import cli
from grader.lms.gradescope import runner as autograder
from grader.store import DB_NAME, Store, results_folder
from tests.helpers import ROOT, SAMPLE, make_cases, reference_submission, submission
from tests.lms_archives import canvas_gradebook
from tests.lms_rules import canvas_reads

MISSING_PYTHON = """
[languages.python]
run = ["python3-not-installed", "puzzlesolver.py", "{input}"]
"""


def cases(root: Path) -> Path:
    one = (ROOT / "testcases" / "public" / "one-solution.txt").read_text()
    return make_cases(root, {"sample": SAMPLE.read_text(), "one": one, "other": one}, ("other",))


def grader(*args, course: Path | None = None, manifest: Path) -> int:
    options = ["--manifest", str(manifest)] + (["--course", str(course)] if course else [])
    return cli.main(options + [str(a) for a in args])


def csv_rows(path: Path) -> dict[str, dict[str, str]]:
    return {row["id"]: row for row in csv.DictReader(io.StringIO(path.read_text()))}


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """A class of a correct program and a wrong one, graded: (root, manifest, results)."""
    root = tmp_path_factory.mktemp("settled")
    manifest = cases(root / "cases")
    reference_submission(root / "class", "ref-py")
    shutil.copytree(ROOT / "submissions" / "wrong-plural", root / "class" / "wrong-plural")
    assert grader("grade", root / "class", "--results", root / "results", manifest=manifest) == 0
    return root, manifest, root / "results"


def test_an_ie_is_never_exported_as_a_score(tmp_path, capsys):
    """python3 missing on the grading machine: every run is the grader's failure (the
    known-good Python program fails too), and no export writes a 0 for it."""
    manifest = cases(tmp_path / "cases")
    course = tmp_path / "course.toml"
    course.write_text(MISSING_PYTHON)
    reference_submission(tmp_path / "class", "ref-py")
    results = tmp_path / "results"
    assert (
        grader("grade", tmp_path / "class", "--results", results, course=course, manifest=manifest)
        == 0
    )
    said = capsys.readouterr()
    assert "ended in IE" in said.err
    [entry] = json.loads((results / "results.json").read_text())["submissions"]
    assert (entry["score"], entry["standing"]) == (None, "internal-error")
    assert {case["verdict"] for case in entry["cases"]} == {"IE"}
    assert "python3-not-installed" in entry["cases"][0]["diagnosis"]

    out = tmp_path / "grades.csv"
    assert grader("export", "csv", out, "--results", results, course=course, manifest=manifest) == 1
    said = capsys.readouterr()
    assert "unsettled: ref-py: 3 cases the grader failed (IE)" in said.out
    assert "--settled-only" in said.err
    row = csv_rows(out)["ref-py"]
    assert (row["score"], row["standing"], row["bonus"]) == ("", "internal-error", "")
    assert (
        grader(
            "export",
            "csv",
            out,
            "--results",
            results,
            "--settled-only",
            course=course,
            manifest=manifest,
        )
        == 0
    )

    column = "Scramble Squares (88)"
    student = {"name": "Py, Ref", "id": 2001, "sis": "ref-py", "login": "refpy",
               "integration": "", "section": "A", "cells": {column: ""}}  # fmt: skip
    gradebook = canvas_gradebook(tmp_path / "gradebook.csv", [student], {column: "3"})
    upload = tmp_path / "canvas.csv"
    code = grader(
        "export", "canvas", upload, "--roster", gradebook, "--results", results, course=course,
        manifest=manifest,
    )  # fmt: skip
    assert code == 1
    assert canvas_reads(upload.read_text()).grades["2001"][column] == ""  # as Canvas leaves it

    pages = tmp_path / "pages"
    assert (
        grader("export", "html", pages, "--results", results, course=course, manifest=manifest) == 1
    )
    page = (pages / "ref-py.html").read_text()
    assert "No score yet" in page and "0 / 3" not in page

    # Gradescope: its own "autograder failed" state, never 0.0.
    source = tmp_path / "autograder"
    shutil.copytree(manifest.parent, source / "testcases")
    shutil.copyfile(course, source / "course.toml")
    code = autograder.main(
        ["--source", str(source), "--submission", str(tmp_path / "class" / "ref-py"),
         "--results", str(tmp_path / "gs")]
    )  # fmt: skip
    assert code == 1 and not (tmp_path / "gs" / "results.json").exists()
    assert "no results.json written: the grade is not settled" in capsys.readouterr().out


def test_half_a_grade_is_never_exported_and_a_running_grade_is_never_read(graded, capsys):
    root, manifest, results = graded
    out = root / "grades.csv"
    assert grader("export", "csv", out, "--results", results, manifest=manifest) == 0
    assert csv_rows(out)["ref-py"]["score"] == "3"
    # A grade killed midway: one case of ref-py's content not run yet.
    killed = root / "killed"
    shutil.copytree(results, killed)
    with Store(killed / DB_NAME) as store:
        store.record_grade_started()
        store.db.execute("DELETE FROM runs WHERE submission_id='ref-py' AND case_id='one'")
    capsys.readouterr()
    assert grader("export", "csv", out, "--results", killed, manifest=manifest) == 1
    said = capsys.readouterr()
    assert "did not finish" in said.err
    assert "unsettled: ref-py: 1 case not graded yet" in said.out
    rows = csv_rows(out)
    assert rows["ref-py"]["score"] == "" and rows["wrong-plural"]["score"] == "1"
    # A grade running now: no export reads what it is writing.
    with results_folder(results):
        assert grader("export", "csv", out, "--results", results, manifest=manifest) == 2
    said = capsys.readouterr().err
    assert said.count("\n") == 1 and "is writing this results folder" in said


def test_a_folder_export_replaces_the_old_one_whole(graded, monkeypatch, capsys):
    root, manifest, results = graded
    pages = root / "pages"
    assert grader("export", "html", pages, "--results", results, manifest=manifest) == 0
    before = {p.name: p.read_bytes() for p in pages.iterdir()}
    (pages / "stray.html").write_text("left by an older export")

    from grader.exports import feedback_html

    calls = []

    def dies_midway(*args, **kwargs):
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt  # killed after one new page
        return "<p>new</p>"

    monkeypatch.setattr(feedback_html, "render_page", dies_midway)
    assert grader("export", "html", pages, "--results", results, manifest=manifest) == 130
    after = {p.name: p.read_bytes() for p in pages.iterdir()}
    assert after == {**before, "stray.html": b"left by an older export"}  # untouched
    monkeypatch.undo()
    assert grader("export", "html", pages, "--results", results, manifest=manifest) == 0
    assert sorted(p.name for p in pages.iterdir()) == sorted(before)  # the stray page gone
    assert not [p for p in root.iterdir() if p.name.startswith(".pages.")]
    mine = root / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("my own notes")
    capsys.readouterr()
    assert grader("export", "html", mine, "--results", results, manifest=manifest) == 2
    assert "holds files the grader did not write" in capsys.readouterr().err
    assert (mine / "notes.txt").read_text() == "my own notes"


def test_the_compiler_crashing_on_the_source_is_the_students_ce_and_cached(tmp_path, capsys):
    """cc1 overflows its stack on 200,000 nested parentheses, every time: a known-good C
    program builds, so it is the source's CE, cached (never rebuilt by the next grade)."""
    manifest = cases(tmp_path / "cases")
    deep = "int main(void) { return " + "(" * 200_000 + "0" + ")" * 200_000 + "; }\n"
    submission(tmp_path / "class", "deep", "puzzlesolver.c", deep)
    results = tmp_path / "results"
    assert grader("grade", tmp_path / "class", "--results", results, manifest=manifest) == 0
    [entry] = json.loads((results / "results.json").read_text())["submissions"]
    assert entry["standing"] == "settled" and entry["score"] == 0
    assert "the compiler itself crashed on your source" in entry["build"]["log"]
    capsys.readouterr()
    assert grader("grade", tmp_path / "class", "--results", results, manifest=manifest) == 0
    assert "nothing to grade" in capsys.readouterr().err


def test_a_jdk_that_cannot_start_is_the_graders_failure_never_cached(tmp_path):
    """javac's JVM cannot start (a heap of 1 kB): the known-good Java program fails to
    build too, so the student's build is IE, and nothing of it is cached."""
    manifest = cases(tmp_path / "cases")
    course = tmp_path / "course.toml"
    course.write_text(
        '[languages.java]\nbuild = ["javac", "-J-Xmx1k", "-encoding", "UTF-8", "PuzzleSolver.java"]\n'
    )
    shutil.copytree(ROOT / "submissions" / "james-java", tmp_path / "class" / "james-java")
    results = tmp_path / "results"
    assert (
        grader("grade", tmp_path / "class", "--results", results, course=course, manifest=manifest)
        == 0
    )
    [entry] = json.loads((results / "results.json").read_text())["submissions"]
    assert {case["verdict"] for case in entry["cases"]} == {"IE"}
    assert "java toolchain does not work now" in entry["cases"][0]["diagnosis"]
    assert not list((results / "builds").glob("*.build.json"))  # no CE record to reuse


def test_one_set_of_canaries_serves_the_limits_proof_the_grading_and_the_proofs(
    tmp_path, monkeypatch
):
    """The limits' proof builds and runs each language's canary at the start of `grade`
    (the course's limits are not the defaults); the failures graded after it (a Python
    WA, proven afterwards) are blamed by what it found: each canary is built once per
    grading process. Under the defaults there is nothing to prove: a class whose runs
    all pass builds none."""
    from grader.judge import canary

    built: list[str] = []
    real = canary._build

    def counted(spec, *rest):
        built.append(spec.name)
        return real(spec, *rest)

    monkeypatch.setattr(canary, "_build", counted)
    manifest = cases(tmp_path / "cases")
    for name in ("crash", "wrong-plural"):
        shutil.copytree(ROOT / "submissions" / name, tmp_path / "class" / name)
    course = tmp_path / "course.toml"
    course.write_text("[limits]\ncpu_seconds = 5\n")
    results = tmp_path / "results"
    graded = grader(
        "grade", tmp_path / "class", "--results", results, course=course, manifest=manifest
    )
    assert graded == 0
    entries = json.loads((results / "results.json").read_text())["submissions"]
    assert {e["id"]: e["standing"] for e in entries} == {
        "crash": "settled",
        "wrong-plural": "settled",
    }
    assert sorted(built) == ["c", "python"]
    built.clear()
    shutil.copytree(ROOT / "submissions" / "ada-c", tmp_path / "passing" / "ada-c")
    again = tmp_path / "again"
    assert grader("grade", tmp_path / "passing", "--results", again, manifest=manifest) == 0
    assert built == []


def test_one_source_never_stops_the_class(tmp_path, capsys):
    """A 100 kB chain of minus signs (the parser's MemoryError) and a 400 kB sum (too large
    to analyse): the class is graded, the missing analysis named, in `check` too."""
    manifest = cases(tmp_path / "cases")
    klass = tmp_path / "class"
    reference_submission(klass, "ref-py")
    submission(klass, "minus", "puzzlesolver.py", "x = " + "-" * 100_000 + "1\n")
    submission(klass, "sum", "puzzlesolver.py", "x = " + "a+" * 200_000 + "a\n")
    results = tmp_path / "results"
    assert grader("grade", klass, "--results", results, manifest=manifest) == 0
    entries = {
        e["id"]: e for e in json.loads((results / "results.json").read_text())["submissions"]
    }
    assert entries["ref-py"]["score"] == 3
    assert entries["minus"]["standing"] == "settled"
    assert "nested too deeply to analyse" in entries["minus"]["files"]["unread"][0]
    assert "more than the 262,144 the grader analyses" in entries["sum"]["files"]["unread"][0]
    capsys.readouterr()
    assert grader("check", klass / "minus", manifest=manifest) == 1
    assert "RTE" in capsys.readouterr().out


@pytest.mark.parametrize(
    "table, key, value, java",
    [
        ("limits", "open_files", "3", False),
        ("limits", "processes", "1", True),
        ("build_limits", "processes", "1", True),
        ("limits", "memory_mb", "99999999999", False),
        ("limits", "cpu_seconds", "inf", False),
    ],
)
def test_limits_under_which_a_correct_program_fails_are_refused(
    tmp_path, capsys, table, key, value, java
):
    manifest = cases(tmp_path / "cases")
    course = tmp_path / "course.toml"
    course.write_text(f"[{table}]\n{key} = {value}\n")
    reference_submission(tmp_path / "class", "ref-py")
    if java:
        shutil.copytree(ROOT / "submissions" / "james-java", tmp_path / "class" / "james-java")
    results = tmp_path / "results"
    assert (
        grader("grade", tmp_path / "class", "--results", results, course=course, manifest=manifest)
        == 2
    )
    said = capsys.readouterr().err.strip()
    assert "\n" not in said and key in said, said
    assert not (results / "results.json").exists()


def test_a_canary_killed_from_outside_is_no_proof_against_the_limits(tmp_path, monkeypatch):
    """The limits' proof saw the known-good program's compiler killed by a signal no
    limit sent (another process, the OOM killer): the machine's failure, not the
    limits'. The limits stand; were it to happen again while grading, those builds are
    IE, retried. (A real limit a correct program fails under: the test above.)"""
    from grader.build.builder import Artifact
    from grader.core.model import Limits
    from grader.course.config import DEFAULT_BUILD_LIMITS, load_config
    from grader.judge import canary
    from grader.sandbox import make_sandbox

    real = canary._build
    course = dataclasses.replace(
        DEFAULT_BUILD_LIMITS, cpu_seconds=DEFAULT_BUILD_LIMITS.cpu_seconds + 1
    )

    def killed_under_the_course_limits(spec, sandbox, limits, root):
        if limits == course:
            log = "the compiler was killed by signal 9 SIGKILL, by none of the build's limits"
            return Artifact(False, Path(), log, internal=True, suspect=True)
        return real(spec, sandbox, limits, root)

    monkeypatch.setattr(canary, "_build", killed_under_the_course_limits)
    c = load_config(None).languages["c"]
    proof = tmp_path / "proof"
    assert canary.limits_refusal(make_sandbox("auto"), course, Limits(), [c], proof) is None


def test_a_damaged_store_is_refused_never_made_over(graded, tmp_path, capsys):
    root, manifest, results = graded
    for table in ("runs", "overrides"):
        copy = tmp_path / table
        shutil.copytree(results, copy)
        db = sqlite3.connect(copy / DB_NAME)
        db.execute(f"DROP TABLE {table}")
        db.commit()
        db.close()
        capsys.readouterr()
        assert (
            grader("export", "csv", tmp_path / "x.csv", "--results", copy, manifest=manifest) == 2
        )
        said = capsys.readouterr().err
        assert said.count("\n") == 1 and f"its table '{table}' is missing" in said
        with sqlite3.connect(copy / DB_NAME) as db:  # nothing recreated
            names = {row[0] for row in db.execute("SELECT name FROM sqlite_master")}
        assert table not in names
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    with sqlite3.connect(foreign / DB_NAME) as db:
        db.execute("CREATE TABLE notes (text TEXT)")
    capsys.readouterr()
    assert grader("grade", root / "class", "--results", foreign, manifest=manifest) == 2
    assert "not the grader's results database" in capsys.readouterr().err


def test_new_rules_judge_the_stored_runs_again_and_run_no_program(graded, tmp_path):
    """A copy of the grader with one module changed (a no-op appended): its `grade`
    judges every stored run again, changes no verdict and runs no program."""
    root, manifest, results = graded
    copy = tmp_path / "code"
    shutil.copytree(ROOT / "grader", copy / "grader", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copyfile(ROOT / "course.toml", copy / "course.toml")
    with open(copy / "grader" / "lms" / "canvas.py", "a") as module:
        module.write("\n_ = None\n")
    again = tmp_path / "results"
    shutil.copytree(results, again)
    with sqlite3.connect(again / DB_NAME) as db:
        before = sorted(db.execute("SELECT case_id, verdict, created_at FROM runs"))
    done = subprocess.run(
        [sys.executable, "-m", "grader", "--manifest", manifest, "grade", root / "class",
         "--results", again],
        cwd=copy, capture_output=True, text=True, env={"PATH": "/usr/bin:/bin"}, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    total = len(before)
    assert (
        f"re-judged {total} run(s) under the new judging rules: 0 verdict(s) changed" in done.stderr
    )
    assert "nothing to grade" in done.stderr
    with sqlite3.connect(again / DB_NAME) as db:
        after = sorted(db.execute("SELECT case_id, verdict, created_at FROM runs"))
        rules = {row[0] for row in db.execute("SELECT DISTINCT rules FROM runs")}
    assert after == before and len(rules) == 1
