"""Exports, end to end on a small class graded for real (compilers, sandbox, store):
the gradebook CSV, Gradescope's results.json and autograder zip (run here in a
folder laid out like Gradescope's), and the student kit (unpacked and run).

Tests marked slow install the grader's packages from PyPI into a fresh virtual
environment, as Gradescope's setup.sh and a student's first run of check.py do; they are
skipped when PyPI cannot be reached.
"""

import csv
import io
import json
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import pytest

from grader.cases.manifest import load_cases
from grader.course.config import load_config
from grader.exports.common import Entry, ExportError
from grader.exports.gradebook_csv import read_ranks
from grader.exports.student_kit import KIT, build_student_kit, refuse_secrets
from grader.lms.gradescope.autograder import gradescope_results, published
from grader.results.last_run import graded
from grader.schemas import validate
from tests.helpers import (
    BUSY_OK,
    HIDDEN_IDS,
    REAL_MANIFEST,
    ROOT,
    SAMPLE,
    SUBMISSIONS,
    WEIRD_ID,
    assert_valid,
    draw_of,
    export,
    grade_class,
    gradescope_isolation,
    gradescope_layout,
    make_cases,
    run_check,
    unzip,
)
from tests.mistake_variants import variant


@pytest.fixture(scope="module")
def graded_class(tmp_path_factory):
    return grade_class(tmp_path_factory.mktemp("exports"))


def pypi_reachable() -> bool:
    try:
        socket.create_connection(("pypi.org", 443), timeout=5).close()
        return True
    except OSError:
        return False


# ------------------------------------------------------------------ gradebook CSV


def read_csv(path: Path):
    data = path.read_bytes()
    text = data.decode("utf-8")
    return data, list(csv.reader(io.StringIO(text, newline="")))


def test_csv_one_row_per_member_in_id_order(graded_class, tmp_path):
    """Each student alone (no team anywhere): one row per submission, its own member."""
    out = tmp_path / "grades.csv"
    assert (
        export(
            "--manifest",
            graded_class.manifest,
            "export",
            "csv",
            out,
            "--results",
            graded_class.results,
        )
        == 0
    )
    data, rows = read_csv(out)
    assert data.startswith(b"id,team,member,")  # plain UTF-8: no byte-order mark
    assert data.count(b"\r\n") == len(rows) and data.count(b"\n") == len(rows)  # RFC 4180 CRLF
    header, body = rows[0], rows[1:]
    assert header == [
        "id",
        "team",
        "member",
        "member_name",
        "language",
        "score",
        "max_score",
        "bonus",
        "leaderboard_rank",
        "case:sample",
        "case:one-solution",
        "case:hidden-bulbs",
        "case:hidden-empty",
        "policy_dependent",
        "overrides",
        "standing",
    ]
    ids = [row[0] for row in body]
    assert ids == sorted(ids) and set(ids) == {p.name for p in graded_class.folder.iterdir()}
    by_id = {row[0]: row[:1] + row[4:] for row in body}
    assert all(row[1] == row[2] == row[0] for row in body)  # alone: named by the folder
    assert by_id["ada-c"][1:] == ["c", "5", "5", "0", "", "AC", "AC", "AC", "AC", "", "", "settled"]
    assert by_id[WEIRD_ID][1:5] == ["python", "5", "5", "0"]  # quoted and read back intact
    assert by_id["compile-error"][1:] == [
        "cpp", "0", "5", "0", "", "CE", "CE", "CE", "CE", "", "", "settled"
    ]  # fmt: skip
    assert by_id["wrong-plural"][2] == "4" and by_id["wrong-plural"][7] == "WA"
    assert by_id["trailing-spaces"][6:8] == ["PE", "PE"]
    assert '"o\'brien, ""x"" <b>"' in data.decode()  # RFC 4180 quoting of the hostile id


def test_csv_with_bom_for_excel(graded_class, tmp_path):
    out = tmp_path / "grades.csv"
    assert (
        export(
            "--manifest",
            graded_class.manifest,
            "export",
            "csv",
            out,
            "--results",
            graded_class.results,
            "--bom",
        )
        == 0
    )
    data = out.read_bytes()
    assert data.startswith(b"\xef\xbb\xbfid,")
    assert next(csv.reader(io.StringIO(data.decode("utf-8-sig"))))[0] == "id"


def rank(graded_class, results, tmp_path, *extra) -> int:
    """`grader leaderboard` on puzzles drawn for the session."""
    draw = draw_of(graded_class.manifest, tmp_path / "draw.json")
    args = ["--manifest", graded_class.manifest, "leaderboard", "--results", results]
    return export(*args, "--puzzles", draw, BUSY_OK, *extra)


def test_csv_takes_ranks_from_the_leaderboard(graded_class, tmp_path):
    """Only the programs passing every case are ranked; the others' cells stay empty.
    The leaderboard file is the real one, made by `grader leaderboard`."""
    results = tmp_path / "results"
    shutil.copytree(graded_class.results, results)
    assert read_ranks(results).by_id is None
    assert rank(graded_class, results, tmp_path) == 0
    board = json.loads((results / "leaderboard.json").read_text())
    expected = {entry["id"]: str(entry["rank"]) for entry in board["ranked"]}
    assert set(expected) == {"ada-c", WEIRD_ID}
    out = tmp_path / "grades.csv"
    assert (
        export("--manifest", graded_class.manifest, "export", "csv", out, "--results", results) == 0
    )
    _, rows = read_csv(out)
    ranks = {row[0]: row[8] for row in rows[1:]}
    assert {sid: rank for sid, rank in ranks.items() if rank} == expected
    assert ranks["compile-error"] == ""


def test_csv_leaves_ranks_empty_for_an_anonymized_leaderboard(graded_class, tmp_path):
    results = tmp_path / "results"
    shutil.copytree(graded_class.results, results)
    assert rank(graded_class, results, tmp_path, "--anonymize") == 0
    ranks = read_ranks(results)
    assert ranks.by_id is None and "anonymized" in ranks.note


def test_csv_refuses_a_broken_leaderboard(graded_class, tmp_path, capsys):
    results = tmp_path / "results"
    shutil.copytree(graded_class.results, results)
    (results / "leaderboard.json").write_text('{"ranked": [{"id": "ada-c"}]}')
    assert (
        export(
            "--manifest",
            graded_class.manifest,
            "export",
            "csv",
            tmp_path / "g.csv",
            "--results",
            results,
        )
        == 2
    )
    error = capsys.readouterr().err
    assert "leaderboard.json: not a leaderboard" in error and len(error.splitlines()) == 1


def test_exports_without_results_say_so(tmp_path, capsys):
    assert export("export", "csv", tmp_path / "g.csv", "--results", tmp_path / "none") == 2
    assert export("export", "html", tmp_path / "pages", "--results", tmp_path / "none") == 2
    errors = capsys.readouterr().err.splitlines()
    assert len(errors) == 2 and all("no results yet" in line for line in errors)
    assert not (tmp_path / "g.csv").exists()


def test_exports_refuse_another_case_set_than_the_grading_used(graded_class, tmp_path, capsys):
    """Exported with the default manifest, this class's verdicts would all be missing."""
    assert export("export", "csv", tmp_path / "g.csv", "--results", graded_class.results) == 2
    error = capsys.readouterr().err
    assert "graded with other cases than" in error and "--manifest" in error
    assert not (tmp_path / "g.csv").exists()


def test_exports_refuse_wrong_output_paths(graded_class, tmp_path, capsys):
    (tmp_path / "file").write_text("x")
    (tmp_path / "folder").mkdir()
    assert (
        export(
            "--manifest",
            graded_class.manifest,
            "export",
            "html",
            tmp_path / "file",
            "--results",
            graded_class.results,
        )
        == 2
    )
    assert export("export", "gradescope", tmp_path / "folder") == 2
    assert export("export", "student-kit", tmp_path / "folder") == 2
    errors = capsys.readouterr().err.splitlines()
    assert len(errors) == 3 and all(line.startswith("grader: error: ") for line in errors)
    assert (tmp_path / "file").read_text() == "x"


# ------------------------------------------------------------------ Gradescope results.json


TIMED_TOTALS = [0.01234, 0.01256, 0.01221]  # as if timed on the drawn puzzles


def gradescope_documents(graded_class) -> dict:
    with graded(graded_class.results, graded_class.manifest) as results:
        return {
            r.submission.id: gradescope_results(
                r,
                isolation=gradescope_isolation(),
                execution_time=1.4,
                leaderboard_cpu=TIMED_TOTALS,
            )
            for r in results.reports
        }


def test_gradescope_results_fit_the_specification(graded_class):
    documents = gradescope_documents(graded_class)
    assert len(documents) == 6
    for document in documents.values():
        assert_valid(document, "gradescope_results")
        tests = document["tests"]
        assert [t["name"] for t in tests] == ["sample", "one-solution", *HIDDEN_IDS]
        assert [t["number"] for t in tests] == ["1", "2", "3", "4"]
        assert [t["visibility"] for t in tests] == [
            "visible",
            "visible",
            "after_published",
            "after_published",
        ]
        assert [t["max_score"] for t in tests] == [1, 1, 2, 1]
        for test in tests:
            assert (test["status"] == "passed") == (test["score"] == test["max_score"] > 0)
        # the submission's own box never tells a hidden case's result
        assert "hidden-" not in document["output"]
    ada = documents["ada-c"]
    assert all(t["status"] == "passed" for t in ada["tests"])
    assert ada["tests"][2]["tags"] == ["hidden", "letters"]
    board = ada["leaderboard"]
    # the median, to the two digits the rank test could tell apart at best
    assert board == [{"name": "CPU time (s)", "value": 0.012, "order": "asc"}]
    assert "leaderboard" in documents[WEIRD_ID]


def test_a_hidden_cases_output_shows_its_verdict_not_its_run(graded_class):
    """What Gradescope shows once grades are published: a hidden case's verdict and a
    public puzzle that failed alike, never what its run printed (the diagnosis quotes
    the expected output, and so the hidden input) nor its time (a program can spell
    its input in how long it runs)."""
    documents = gradescope_documents(graded_class)
    for document in documents.values():
        for test in document["tests"]:
            if test["visibility"] != "after_published":
                continue
            assert " s CPU" not in test["output"], test
            assert "line " not in test["output"].split("public puzzle")[0], test
    hidden = [
        test
        for document in documents.values()
        for test in document["tests"]
        if test["visibility"] == "after_published" and test["status"] == "failed"
    ]
    assert hidden  # failing hidden cases: the verdict, then the public puzzle at once
    for test in hidden:
        verdict, words = test["output"].split("\n\n")[0].split(": ", 1)
        assert verdict == test["extra_data"]["verdict"] and "\n" not in words, test["output"]


def test_gradescope_results_of_failures(graded_class):
    documents = gradescope_documents(graded_class)
    broken = documents["compile-error"]
    assert "leaderboard" not in broken
    assert all(t["status"] == "failed" and t["score"] == 0 for t in broken["tests"])
    assert "Build failed:" in broken["output"] and "error" in broken["output"]
    assert broken["tests"][0]["output"].startswith("CE: ")
    wrong = documents["wrong-plural"]
    assert "leaderboard" not in wrong
    failed = wrong["tests"][1]
    assert failed["status"] == "failed" and failed["output"].startswith("WA: wrong answer")
    assert "1 unique solution" in failed["output"]  # the diagnosis, not just the verdict
    assert wrong["output"].endswith(
        "Public cases: 1 of 2 passed.\n"
        "Hidden cases are graded now and shown when grades are "
        "published."
    )
    hostile = documents["hostile"]["tests"][0]["output"]
    assert "\x00" not in hostile and "\x1b" not in hostile


@pytest.mark.parametrize(
    "change, where",
    [
        (lambda d: d["tests"][0].update(status="ok"), "tests/0/status"),
        (lambda d: d["tests"][0].update(visibility="later"), "tests/0/visibility"),
        (lambda d: d["tests"][0].update(nmae="typo"), "tests/0"),
        (
            lambda d: d.update(leaderboard=[{"name": "CPU", "value": 1, "order": "up"}]),
            "leaderboard/0/order",
        ),
        (lambda d: d["tests"][1].pop("score"), "(top level)"),
        (lambda d: d.update(stdout_visibility=True), "stdout_visibility"),
    ],
)
def test_gradescope_schema_refuses_what_the_specification_does_not_allow(
    graded_class, change, where
):
    document = gradescope_documents(graded_class)["ada-c"]
    change(document)
    problem = validate(document, "gradescope_results")
    assert problem is not None and problem.startswith(f"at {where}:")


# ------------------------------------------------------------------ Gradescope autograder zip


@pytest.fixture(scope="module")
def autograder_zip(tmp_path_factory):
    """The autograder for the real case set, public and hidden."""
    folder = tmp_path_factory.mktemp("gradescope")
    draw = draw_of(REAL_MANIFEST, folder / "draw.json")
    assert export("export", "gradescope", folder / "autograder.zip", "--puzzles", draw) == 0
    return folder / "autograder.zip"


def test_autograder_zip_holds_the_grader_and_every_case(autograder_zip, tmp_path):
    with zipfile.ZipFile(autograder_zip) as zf:
        infos = {info.filename: info for info in zf.infolist()}
    for script in ("setup.sh", "run_autograder"):  # at the root, executable
        assert infos[script].external_attr >> 16 == 0o100755
    names = set(infos)
    assert {
        "requirements.txt",
        "course.toml",
        "grader/__init__.py",
        "grader/cli.py",
        "grader/schemas/gradescope_results.schema.json",
        "testcases/manifest.json",
    } <= names
    assert not any(n.startswith(("reference/", "results/", "submissions/")) for n in names)
    assert not any(n.startswith("testcases/") and n.endswith(".py") for n in names)
    assert not any("__pycache__" in n for n in names)
    unzip(autograder_zip, tmp_path)
    cases = load_cases(tmp_path / "testcases" / "manifest.json")
    originals = {case.id: case for case in load_cases(REAL_MANIFEST)}
    assert [c.id for c in cases] == list(originals)
    assert sum(not c.public for c in cases) > 0
    for case in cases:
        assert case.version == originals[case.id].version  # same bytes, input and expected
    requirements = (tmp_path / "requirements.txt").read_text()
    assert "tabulate" in requirements and "pytest" not in requirements
    assert "jsonschema" not in requirements  # grader.schemas.subset checks, everywhere
    for script in ("setup.sh", "run_autograder"):
        subprocess.run(["bash", "-n", str(tmp_path / script)], check=True)
        if shutil.which("shellcheck"):
            subprocess.run(["shellcheck", str(tmp_path / script)], check=True)


def test_autograder_zip_is_reproducible(autograder_zip, tmp_path):
    again = tmp_path / "again.zip"
    draw = draw_of(REAL_MANIFEST, tmp_path / "draw.json")  # the same draw as the fixture's
    assert export("export", "gradescope", again, "--puzzles", draw) == 0
    assert again.read_bytes() == autograder_zip.read_bytes()


MARK = "grader imported from the unpacked copy"


def mark_grader(folder: Path) -> None:
    """Make an unpacked copy of the grader say when it is the one imported."""
    with open(folder / "grader" / "__init__.py", "a") as init:
        init.write(f"\nimport sys\nsys.stderr.write({MARK!r} + '\\n')\n")


def run_autograder(root: Path, submission: Path, python=None) -> dict:
    """Grade one submission as Gradescope would; returns results.json (validated)."""
    if (root / "submission").exists():
        shutil.rmtree(root / "submission")
    shutil.copytree(submission, root / "submission")
    shutil.rmtree(root / "results", ignore_errors=True)
    (root / "results").mkdir()
    env = {**os.environ, "AUTOGRADER_ROOT": str(root)}
    env.pop("PYTHONPATH", None)
    if python:
        env["AUTOGRADER_PYTHON"] = python
    with open(root / "results" / "stdout", "wb") as stdout:  # as Gradescope captures it
        done = subprocess.run(
            [str(root / "run_autograder")],
            cwd=root,
            env=env,
            stdout=stdout,
            stderr=subprocess.STDOUT,
            timeout=300,
        )
    log = (root / "results" / "stdout").read_text(errors="replace")
    assert done.returncode == 0, log
    document = json.loads((root / "results" / "results.json").read_text())
    assert_valid(document, "gradescope_results")
    return document


def test_run_autograder_in_a_gradescope_layout(autograder_zip, tmp_path):
    root = gradescope_layout(autograder_zip, tmp_path / "autograder")
    mark_grader(root / "source")
    cases = load_cases(REAL_MANIFEST)
    correct = run_autograder(root, SUBMISSIONS / "ada-c", python=sys.executable)
    assert [t["name"] for t in correct["tests"]] == [c.id for c in cases]
    assert all(t["status"] == "passed" for t in correct["tests"])
    assert sum(t["visibility"] == "after_published" for t in correct["tests"]) == sum(
        not c.public for c in cases
    )
    assert correct["leaderboard"][0]["name"] == "CPU time (s)"
    assert correct["leaderboard"][0]["value"] > 0
    # the statistic of `grader leaderboard`: the median of [leaderboard] runs totals
    config = load_config(ROOT / "course.toml")
    totals = correct["extra_data"]["leaderboard_cpu_runs_s"]
    assert len(totals) == config.leaderboard.runs
    assert correct["leaderboard"][0]["value"] == published(statistics.median(totals))
    assert correct["extra_data"]["language"] == "c"
    assert correct["extra_data"]["sandbox"] == "bubblewrap"
    log = (root / "results" / "stdout").read_text()
    assert "score: 36/36" in log
    assert MARK in log  # the zip's grader ran, not the one this test imports

    broken = run_autograder(root, SUBMISSIONS / "compile-error", python=sys.executable)
    assert all(t["status"] == "failed" for t in broken["tests"])
    assert "leaderboard" not in broken
    assert "Build failed:" in broken["output"] and "error" in broken["output"]


def test_run_autograder_with_a_misplaced_source_file(autograder_zip, tmp_path):
    root = gradescope_layout(autograder_zip, tmp_path / "autograder")
    nested = tmp_path / "upload"
    shutil.copytree(SUBMISSIONS / "ada-c", nested / "my-project")
    document = run_autograder(root, nested, python=sys.executable)
    assert all(t["output"].startswith("CE: ") for t in document["tests"])
    assert "must be at the top of the folder" in document["output"]


@pytest.mark.slow
def test_setup_sh_then_run_autograder_with_its_environment(autograder_zip, tmp_path):
    """setup.sh as Gradescope runs it, apt-get stubbed (it needs root and Ubuntu's
    archive): a virtual environment with the packages from PyPI, which run_autograder
    then uses on its own."""
    system_python = Path("/usr/bin/python3")
    if not system_python.exists() or not pypi_reachable():
        pytest.skip("needs /usr/bin/python3 and PyPI")
    root = gradescope_layout(autograder_zip, tmp_path / "autograder")
    stubs = tmp_path / "stubs"
    stubs.mkdir()
    (stubs / "apt-get").write_text(f'#!/bin/sh\necho "$@" >> {tmp_path}/apt.log\n')
    (stubs / "apt-get").chmod(0o755)
    (stubs / "python3").symlink_to(system_python)  # Ubuntu's python3, not this venv's
    env = {**os.environ, "AUTOGRADER_ROOT": str(root), "PATH": f"{stubs}:{os.environ['PATH']}"}
    for key in ("PYTHONPATH", "VIRTUAL_ENV", "PIP_REQUIRE_VIRTUALENV"):
        env.pop(key, None)
    done = subprocess.run(
        ["bash", str(root / "source" / "setup.sh")],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "autograder ready: 6 public and 25 hidden cases" in done.stdout
    installed = {
        word
        for line in (tmp_path / "apt.log").read_text().splitlines()
        if line.startswith("install ")
        for word in line.split()
    }
    assert {"gcc", "g++", "default-jdk-headless", "python3-venv", "bubblewrap"} <= installed
    document = run_autograder(root, SUBMISSIONS / "guido-py")  # setup.sh's venv
    assert all(t["status"] == "passed" for t in document["tests"])


# ------------------------------------------------------------------ student kit


@pytest.fixture(scope="module")
def student_kit(tmp_path_factory):
    out = tmp_path_factory.mktemp("kit") / "scramble-kit.zip"
    assert export("export", "student-kit", out) == 0
    return out


def runs_of_lines(text: str, n: int = 4) -> set:
    """Every run of n consecutive code lines (stripped, comments and blanks left out):
    a file sharing one with the reference solver holds a piece of it."""
    lines = [
        line.strip()
        for line in text.splitlines()
        if line.strip() and not line.strip().startswith("#")
    ]
    return {"\n".join(lines[i : i + n]) for i in range(len(lines) - n + 1)}


def test_student_kit_holds_public_cases_and_no_secret(student_kit, tmp_path):
    unzip(student_kit, tmp_path)
    kit = tmp_path / KIT
    assert sorted(p.name for p in tmp_path.iterdir()) == [KIT]  # one folder when unpacked
    files = {p.relative_to(kit).as_posix(): p for p in kit.rglob("*") if p.is_file()}
    assert {
        "check.py",
        "README.md",
        "course.json",
        "grader/commands/check.py",
        "grader/sandbox/portable.py",
        "grader/sandbox/zygote.c",
        "grader/schemas/manifest.schema.json",
        "testcases/manifest.json",
        "testcases/pool/manifest.json",
    } <= set(files)
    # only what `check` runs: no package to install, none of the instructor's code
    assert not {"requirements.txt", "course.toml", "grader/cli.py"} & set(files)
    for part in ("lms/", "leaderboard/", "exports/", "grading/cluster"):
        assert not any(name.startswith(f"grader/{part}") for name in files), part
    # by name: nothing hidden, no solver, no test-case tooling, no results folder (the
    # grader's own results/ package is its code)
    for name in files:
        assert not re.search(r"(^|/)(hidden|reference|submissions)(/|$)", name), name
        assert not re.search(r"(^|(?<!grader)/)results(/|$)", name), name
        assert (
            name.startswith(("grader/", "testcases/public/", "testcases/pool/public/"))
            or "/" not in name
            or name in ("testcases/manifest.json", "testcases/pool/manifest.json")
        ), name
    everything = load_cases(REAL_MANIFEST)
    public = [c for c in everything if c.public]
    kit_cases = load_cases(kit / "testcases" / "manifest.json")
    assert [c.id for c in kit_cases] == [c.id for c in public]
    assert [c.version for c in kit_cases] == [c.version for c in public]
    pool = load_cases(ROOT / "testcases" / "pool" / "manifest.json")
    kit_pool = load_cases(kit / "testcases" / "pool" / "manifest.json")
    assert [(c.id, c.version) for c in kit_pool] == [(c.id, c.version) for c in pool]
    # by content: no hidden puzzle or expected output, no solver, nothing importing one
    contents = {name: path.read_bytes() for name, path in files.items()}
    secrets = {
        f"{c.id}/{p.name}": p.read_bytes()
        for c in everything
        if not c.public
        for p in (c.input, c.expected)
    }
    assert len(secrets) == 2 * (len(everything) - len(public))
    for name, data in contents.items():
        for secret_name, secret in secrets.items():
            assert secret not in data, f"{name} holds hidden {secret_name}"
        assert not re.search(rb"^\s*(from|import)\s+(reference|testcases)\b", data, re.M), name
    solver = runs_of_lines((ROOT / "reference" / "puzzlesolver.py").read_text())
    assert len(solver) > 100
    for name, data in contents.items():
        shared = solver & runs_of_lines(data.decode("utf-8", "replace"))
        assert not shared, f"{name} holds code of the reference solver: {sorted(shared)[0]}"


def test_student_kit_refuses_a_hidden_case_it_would_give_away(tmp_path):
    """A hidden case whose expected output is a public one's: the kit would hold it."""
    manifest = make_cases(
        tmp_path / "cases",
        {"sample": SAMPLE.read_text(), "secret": SAMPLE.read_text()},
        hidden=("secret",),
    )
    with pytest.raises(ExportError, match="hidden case 'secret'"):
        build_student_kit(tmp_path / "kit.zip", manifest)
    assert not (tmp_path / "kit.zip").exists()


@pytest.mark.parametrize(
    "name, refused",
    [
        ("scramble-kit/grader/results/terminal.py", False),  # the grader's own package
        ("scramble-kit/grader/results/templates/page.css", False),
        ("scramble-kit/results/grader.db", True),  # a grading run's results folder
        ("results/grade.log", True),
        ("scramble-kit/grader/grader.db", True),  # its store, wherever it lies
        ("scramble-kit/out/results.json", True),
        ("scramble-kit/testcases/hidden/a.txt", True),
        ("scramble-kit/reference/puzzlesolver.py", True),
    ],
)
def test_a_kit_never_holds_a_results_folder_hidden_cases_or_the_solver(tmp_path, name, refused):
    manifest = make_cases(tmp_path / "cases", {"sample": SAMPLE.read_text()})
    entry = Entry(name, b"x = 1\n")
    if refused:
        with pytest.raises(ExportError, match="would hold"):
            refuse_secrets([entry], manifest)
    else:
        refuse_secrets([entry], manifest)


def test_student_kit_leaves_the_sandbox_to_auto(tmp_path):
    """A course requiring bubblewrap would stop every check on macOS: the kit's copy
    says auto, and keeps everything else."""
    course = tmp_path / "course.toml"
    course.write_text('sandbox = "bubblewrap"\n[limits]\ncpu_seconds = 3\n')
    build_student_kit(tmp_path / "kit.zip", course=course)
    with zipfile.ZipFile(tmp_path / "kit.zip") as zf:
        text = zf.read(f"{KIT}/course.json").decode()
    (tmp_path / "course.json").write_text(text)
    config = load_config(tmp_path / "course.json")
    assert config.sandbox == "auto" and config.limits.cpu_seconds == 3


def test_student_kit_checks_a_submission_in_one_command(student_kit, tmp_path):
    unzip(student_kit, tmp_path / "unpacked")
    kit = tmp_path / "unpacked" / KIT
    mark_grader(kit)
    work = tmp_path / "my-work"
    shutil.copytree(SUBMISSIONS / "ada-c", work / "ada")
    shutil.copytree(SUBMISSIONS / "wrong-plural", work / "plural")
    shutil.copytree(ROOT / "grader", work / "grader")  # a decoy in the current folder

    good = run_check(kit, Path("ada") / "puzzlesolver.c", work, sys.executable)
    assert good.returncode == 0, good.stdout + good.stderr
    assert MARK in good.stderr  # the kit's own grader, not one from the current folder
    assert "All public cases and the pool pass" in good.stdout
    assert "score on the public cases: 6/6" in good.stdout
    assert len(good.stdout.splitlines()) <= 20
    assert "(hidden)" not in good.stdout

    bad = run_check(kit, work / "plural", work, sys.executable)
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert "WA" in bad.stdout and "1 unique solution" in bad.stdout

    missing = run_check(kit, work / "nothing-here.c", work, sys.executable)
    assert missing.returncode == 2 and "no such file" in missing.stderr

    usage = subprocess.run(
        [sys.executable, str(kit / "check.py"), "--help"], capture_output=True, text=True
    )
    assert usage.returncode == 0 and "python check.py path/to/puzzlesolver.c" in usage.stdout

    old = run_check(
        kit, Path("x"), work, sys.executable, prelude="import sys; sys.version_info = (3, 9, 18)"
    )
    assert old.returncode == 2 and "needs Python 3.10 or newer" in old.stderr


# What a fresh laptop's Python has: nothing but its standard library (no jsonschema,
# tabulate, tqdm; on 3.10 no TOML reader), whatever this interpreter has installed.
PYTHON_ALONE = """
import sys
class _Absent:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("jsonschema", "tabulate", "tqdm", "tomli", "tomllib", "yaml",
                                  "jinja2", "dask", "distributed", "hypothesis"):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
sys.meta_path.insert(0, _Absent())
"""


def system_python() -> str:
    """A python3 of the machine, 3.10 or newer, as a laptop has it: outside this clone
    (no .venv), the interpreter itself (not a pyenv shell shim, which needs bash), and
    one every user may run."""
    for folder in os.environ["PATH"].split(os.pathsep):
        found = shutil.which("python3", path=folder)
        real = Path(found).resolve() if found else None
        if real is None or real.is_relative_to(ROOT) or real.read_bytes()[:4] != b"\x7fELF":
            continue
        if not all(p.stat().st_mode & 0o001 for p in (real, *real.parents)):
            continue
        version = subprocess.run(
            [found, "-c", "import sys; print(sys.version_info >= (3, 10))"],
            capture_output=True,
            text=True,
        )
        if version.stdout.strip() == "True":
            return found
    pytest.fail("no python3 3.10+ outside the clone on the PATH: the Makefile needs one too")


class Laptop:
    """A folder readable by everyone holding the unpacked kit and a PATH folder with
    python3 alone (no compiler, no bubblewrap, no sh), and how to run `check.py` there:
    offline (a network namespace of its own) and, `as_user`, as an ordinary user."""

    def __init__(self, kit_zip: Path) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="laptop-"))
        self.root.chmod(0o755)
        unzip(kit_zip, self.root)
        self.kit = self.root / KIT
        self.bin = self.root / "bin"
        self.bin.mkdir()
        (self.bin / "python3").symlink_to(system_python())
        self.home = self.root / "home"
        self.home.mkdir()

    def give(self, program: Path) -> Path:
        mine = self.home / program.name
        shutil.copytree(program, mine)
        subprocess.run(["chmod", "-R", "a+rwX", str(self.root)], check=True)
        return mine

    def check(self, target: Path, *, as_user: bool) -> subprocess.CompletedProcess[str]:
        command = ["python3", str(self.kit / "check.py"), str(target)]
        if os.geteuid() == 0:  # found on the suite's PATH: the laptop's has python3 alone
            tool = {name: shutil.which(name) or name for name in ("unshare", "setpriv")}
            user = [tool["setpriv"], "--reuid=65534", "--regid=65534", "--clear-groups"]
            command = [tool["unshare"], "--net", *(user if as_user else []), *command]
        env = {"PATH": str(self.bin), "HOME": str(self.home), "LANG": "C.UTF-8"}
        return subprocess.run(
            command, cwd=self.home, env=env, capture_output=True, text=True, timeout=300
        )


@pytest.mark.slow
def test_student_kit_runs_on_python_alone(student_kit):
    """A laptop with python3 and nothing else, offline: a Python program is checked on
    every public case and the whole pool (as root and as an ordinary user), a wrong one
    gets its WA, and a C program one line naming what to install. No package installed,
    nothing written beside the kit or in the student's home but what they put there."""
    laptop = Laptop(student_kit)
    try:
        good = laptop.check(laptop.give(SUBMISSIONS / "guido-py"), as_user=True)
        assert good.returncode == 0, good.stdout + good.stderr
        assert "All public cases and the pool pass" in good.stdout
        assert "pool: all 42 puzzles pass" in good.stdout
        assert "bubblewrap not available" in good.stderr and "--sandbox" not in good.stderr
        chopping = variant("final-newline", "python", laptop.root / "mine")
        bad = laptop.check(laptop.give(chopping), as_user=False)
        assert bad.returncode == 1, bad.stdout + bad.stderr
        assert "score on the public cases: 6/6" in bad.stdout
        assert "Every public case passes, but 4 of 42 pool puzzles fail" in bad.stdout
        assert "does not end with a line end (no final newline)" in bad.stdout
        assert len(bad.stdout.splitlines()) <= 40
        plural = laptop.check(laptop.give(SUBMISSIONS / "wrong-plural"), as_user=True)
        assert plural.returncode == 1 and "WA   one-solution" in plural.stdout
        c = laptop.check(laptop.give(SUBMISSIONS / "ada-c"), as_user=True)
        assert c.returncode == 2 and c.stdout == "", c.stdout
        assert c.stderr.count("\n") == 1 and "needs gcc, which is not installed" in c.stderr
        assert not (laptop.kit / ".venv").exists()
        assert {p.name for p in laptop.home.iterdir()} == {
            "guido-py",
            "final-newline-python",
            "wrong-plural",
            "ada-c",
        }
    finally:
        shutil.rmtree(laptop.root)


WARM_PROBE = (
    "import grader, sys\n"
    "from grader.sandbox import BubblewrapSandbox\n"
    "box = BubblewrapSandbox(); box.probe()\n"
    "print(grader.__file__); print(box.mode)\n"
)


@pytest.mark.parametrize("which", ["gradescope", "kit"])
def test_unpacked_grader_runs_the_warm_sandbox(which, autograder_zip, student_kit, tmp_path):
    """The Gradescope zip and the student kit carry what the warm sandbox needs
    (zygote.c): unpacked elsewhere, they time programs as the grader does."""
    if shutil.which("bwrap") is None or shutil.which("cc") is None:
        pytest.fail("needs bubblewrap and a C compiler, both installed for the test suite")
    unzip(autograder_zip if which == "gradescope" else student_kit, tmp_path)
    root = tmp_path if which == "gradescope" else tmp_path / KIT
    assert (root / "grader" / "sandbox" / "zygote.c").is_file()
    done = subprocess.run(
        [sys.executable, "-c", WARM_PROBE], cwd=root, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    where, mode = done.stdout.split()
    assert Path(where).parent == root / "grader" and mode == "warm"


SNOOP_C = r"""
#include <glob.h>
#include <libgen.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
/* exit 3: it read one of the autograder's files (the hidden expected output, the
   throwaway store and SQLite's files beside it, the builds, another run's folder),
   naming it; 4: none. Its own run's folder (its working folder's parent) is its own. */
int main(void) {
    char own[4096];
    if (!getcwd(own, sizeof own)) return 5;
    dirname(own);
    char patterns[] = "@PATTERNS@";
    for (char *p = strtok(patterns, "|"); p; p = strtok(NULL, "|")) {
        glob_t found;
        if (glob(p, 0, NULL, &found) != 0) continue;
        for (size_t i = 0; i < found.gl_pathc; i++) {
            if (strncmp(found.gl_pathv[i], own, strlen(own)) == 0) continue;
            FILE *f = fopen(found.gl_pathv[i], "r");
            if (f && fgetc(f) != EOF) { printf("read %s\n", found.gl_pathv[i]); return 3; }
        }
    }
    return 4;
}
"""


def test_run_autograder_unisolated_only_by_choice_and_shut_out(tmp_path):
    """course.toml chose rlimits (no bubblewrap on Gradescope): the zip grades in that
    mode, says so in results.json, and the program, run as a sandbox uid, cannot read
    the hidden cases. (The bubblewrap way: test_run_autograder_in_a_gradescope_layout.)"""
    if os.geteuid() != 0:
        pytest.fail("the test suite runs as root (the rlimits mode's sandbox uid needs it)")
    course = tmp_path / "course.toml"
    course.write_text(
        re.sub(
            r"^sandbox\s*=.*$",
            'sandbox = "rlimits"',
            (ROOT / "course.toml").read_text(),
            flags=re.M,
        )
    )
    out = tmp_path / "rlimits.zip"
    assert export("--course", course, "export", "gradescope", out) == 0
    # Readable by all, as /autograder is (pytest's own folders are root's alone).
    public = Path(tempfile.mkdtemp(prefix="autograder-"))
    os.chmod(public, 0o755)
    try:
        _grade_unisolated(gradescope_layout(out, public / "autograder"), tmp_path)
    finally:
        shutil.rmtree(public)


def _grade_unisolated(root: Path, tmp_path: Path) -> None:
    correct = run_autograder(root, SUBMISSIONS / "ada-c", python=sys.executable)
    assert all(t["status"] == "passed" for t in correct["tests"])
    assert correct["extra_data"]["sandbox"] == "rlimits"
    hidden = next(c for c in load_cases(REAL_MANIFEST) if not c.public)
    target = root / "source" / "testcases" / hidden.expected.relative_to(ROOT / "testcases")
    assert target.is_file()
    snoop = tmp_path / "snoop"
    snoop.mkdir()
    temp = tempfile.gettempdir()
    patterns = [
        str(target),
        f"{temp}/autograder-*/grader.db*",  # the store, its -wal and -shm
        f"{temp}/autograder-*/builds/*/puzzlesolver*",
        f"{temp}/autograder-*/builds/*.build.json",
        f"{temp}/sandbox-*/input/*",  # another run's folder
    ]
    (snoop / "puzzlesolver.c").write_text(SNOOP_C.replace("@PATTERNS@", "|".join(patterns)))
    document = run_autograder(root, snoop, python=sys.executable)
    assert document["extra_data"]["sandbox"] == "rlimits"
    outputs = " ".join(t["output"] for t in document["tests"])
    assert "status 4" in outputs and "status 3" not in outputs
