"""Issue 25: the feedback of real programs making the mistakes students make
(tests/mistakes), graded for real: the CLI, the compilers, the sandbox, SQLite.
Each rule's logic has fast tests too (test_submissions, test_compare, test_causes)."""

import json
import shutil
import subprocess
import sys

import pytest

from tests.helpers import ROOT

MISTAKES = ROOT / "tests" / "mistakes"
# Public and hidden cases that show each mistake: the sample, a symmetric tile, ties.
CASES = ("sample", "symmetric", "ties", "letters")


def subset_manifest(folder, ids):
    """The project's manifest cut down to `ids`, with their files, in `folder`."""
    source = ROOT / "testcases"
    data = json.loads((source / "manifest.json").read_text())
    entries = [entry for entry in data["cases"] if entry["id"] in ids]
    for entry in entries:
        for key in ("input", "expected"):
            (folder / entry[key]).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source / entry[key], folder / entry[key])
    (folder / "manifest.json").write_text(json.dumps({"version": 1, "cases": entries}))
    shutil.copytree(source / "pool", folder / "pool")  # the pool lies beside the cases
    return folder / "manifest.json"


def grader(*args, cwd=ROOT):
    return subprocess.run(
        [sys.executable, "-m", "grader", *map(str, args)],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=600,
    )


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """The mistakes graded once: (results.json's submissions by id, a `show` runner)."""
    tmp = tmp_path_factory.mktemp("mistakes")
    manifest = subset_manifest(tmp / "cases", CASES)
    klass = tmp / "class"
    shutil.copytree(MISTAKES, klass)
    results = tmp / "results"
    done = grader("--manifest", manifest, "grade", klass, "--results", results, "--jobs", 2)
    assert done.returncode == 0, done.stderr
    document = json.loads((results / "results.json").read_text())
    by_id = {entry["id"]: entry for entry in document["submissions"]}

    def show(sid):
        shown = grader("--manifest", manifest, "show", sid, "--results", results)
        assert shown.returncode == 0, shown.stderr
        return shown.stdout

    pages = grader(
        "--manifest", manifest, "export", "html", tmp / "pages", "--student", "--results", results
    )
    assert pages.returncode == 0, pages.stderr
    return by_id, show, tmp


def diagnosis(entry, case_id):
    return next(case for case in entry["cases"] if case["id"] == case_id)["diagnosis"]


def test_a_multi_file_project_gets_its_inventory_and_entry_point(graded):
    by_id, show, _ = graded
    entry = by_id["multi-file-c"]
    assert entry["build"]["status"] == (
        "CE: no file is named puzzlesolver.c: main.c holds main(), the likely entry point: "
        "name it puzzlesolver.c"
    )
    assert entry["files"] == {
        "used": [],
        "ignored": [
            {"name": "edge.c", "reason": "not built: no file is named puzzlesolver.c"},
            {
                "name": "edge.h",
                "reason": "not built: no file is named puzzlesolver.c or puzzlesolver.cpp",
            },
            {
                "name": "main.c",
                "reason": "holds main(): the likely entry point; name it puzzlesolver.c",
            },
        ],
    }
    assert "files ignored:\n  edge.c (not built: no file is named puzzlesolver.c)" in show(
        "multi-file-c"
    )


def test_input_read_from_standard_input_or_a_fixed_file_is_named(graded):
    by_id, _, _ = graded
    for case in CASES:
        assert diagnosis(by_id["reads-stdin"], case).startswith(
            "the program reads its puzzle from standard input (scanf)"
        )
        fixed = by_id["fixed-path"]
        assert next(c for c in fixed["cases"] if c["id"] == case)["verdict"] == "RTE"
        assert diagnosis(fixed, case).startswith(
            'the program opens the fixed file "testcases/input04.txt" (PuzzleSolver.java line 181)'
        )


def test_a_module_the_grading_machine_lacks_is_named_and_paths_are_the_submissions(graded):
    by_id, show, tmp = graded
    text = diagnosis(by_id["numpy-import"], "sample")
    assert text.startswith(
        "puzzlesolver.py line 20 imports numpy, which is not available for grading: the "
        "grading machine runs Python with its standard library only"
    )
    assert 'File "puzzlesolver.py", line 20, in <module>' in text
    shown = show("numpy-import")
    assert 'File "puzzlesolver.py", line 20' in shown and str(tmp / "results") not in shown


def test_one_board_per_string_and_a_constant_output_are_told_as_what_they_are(graded):
    by_id, _, _ = graded
    assert diagnosis(by_id["one-per-string"], "ties").startswith(
        "one board is printed per tile-number string"
    )
    constant = by_id["constant-output"]
    for case in CASES:
        assert "policy-dependent" not in diagnosis(constant, case)


# ------------------------------------------------------------------ a public puzzle that fails alike


def counterexample(entry, case_id):
    case = next(case for case in entry["cases"] if case["id"] == case_id)
    return case["counterexample"], case.get("counterexample_reason")


def test_a_failing_hidden_case_gets_a_public_puzzle_that_fails_the_same_way(graded):
    by_id, show, tmp = graded
    found, _ = counterexample(by_id["one-per-string"], "ties")
    assert found["source"] == "pool" and found["puzzle"].startswith("ties")
    pool = ROOT / "testcases" / "pool" / "public"
    assert found["input"] == (pool / f"{found['puzzle']}.txt").read_text()
    assert found["expected"] == (pool / f"{found['puzzle']}.out").read_text()
    assert found["diagnosis"].startswith("one board is printed per tile-number string")
    assert found["output"] != found["expected"]
    for program in ("reads-stdin", "fixed-path", "numpy-import"):
        for case in ("ties", "letters"):
            found, reason = counterexample(by_id[program], case)
            assert found is not None, (program, case, reason)
            assert (
                found["diagnosis"].split("\n")[0] == diagnosis(by_id[program], case).split("\n")[0]
            )
    shown = show("one-per-string")
    assert (
        f"A public puzzle that fails the same way, to run and debug: pool puzzle "
        f"{counterexample(by_id['one-per-string'], 'ties')[0]['puzzle']}"
    ) in shown


def test_a_student_page_shows_the_puzzle_and_never_the_hidden_case(graded):
    by_id, _, tmp = graded
    page = (tmp / "pages" / "one-per-string.html").read_text()
    found, _ = counterexample(by_id["one-per-string"], "ties")
    assert "hidden case 1" in page and "A public puzzle that fails the same way" in page
    assert found["input"].split("\n")[0] in page
    hidden = (ROOT / "testcases" / "hidden" / "ties.txt").read_text().split("\n")[0]
    assert hidden not in page and "ties.txt" not in page.replace(f"{found['puzzle']}.txt", "")


def test_gradescope_shows_the_puzzle_with_the_hidden_test(graded):
    from grader.lms.gradescope.autograder import Isolation, gradescope_results
    from grader.results.last_run import graded as last_run

    _, _, tmp = graded
    with last_run(tmp / "results", tmp / "cases" / "manifest.json") as results:
        one = next(r for r in results.reports if r.submission.id == "one-per-string")
        isolation = Isolation("bubblewrap", "the export's choice", "", "cgroup")
        document = gradescope_results(one, isolation=isolation, execution_time=1)
    test = next(t for t in document["tests"] if t["name"].startswith("ties"))
    assert test["visibility"] == "after_published"
    assert (
        "A public puzzle that fails the same way, to run and debug: pool puzzle" in test["output"]
    )
    assert "its input:" in test["output"] and "the program's output:" in test["output"]
