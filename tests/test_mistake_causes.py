"""Each typical mistake, made in every language where it can happen
(tests/mistake_variants.py: the example class's correct programs with the mistake
written in), graded for real on shipped cases: the root cause is what a student reads
first, from the source and the run (causes), from what sets a failing puzzle apart
(input properties), or from how the program's time grows (counterexamples)."""

import re
from pathlib import Path

import pytest

from grader.cases.manifest import load_cases
from grader.core.model import Verdict
from grader.exports.feedback_html import render_page
from grader.judge.score import report
from grader.judge.student_view import student_view
from grader.lms.gradescope.autograder import case_output
from grader.store import DB_NAME, Store
from tests.helpers import grader_cli as cli
from tests.mistake_variants import VARIANTS, case_subset, variant

pytestmark = pytest.mark.slow

# Mistake -> the kind of every failure it causes on a public case, and words its
# cause says.
CAUSES = {
    "unflushed": ("unflushed", "without flushing its output buffer"),
    "exit-status": ("exit-status", "is exactly the expected output, but the program's exit"),
    "two-streams": ("two-streams", "each has a buffer of its own"),
    "java-package": ("java-package", "remove the package line"),
    "python2": ("python2", "Python 2's print statement"),
}
CASE_IDS = ("sample", "no-solution", "crlf", "no-final-newline")
# Two probes: the pool's puzzles that have what only the hidden cases have come first.
FEW_PROBES = "[counterexamples]\nruns = 2\n"


def graded(root: Path, mistakes, ids, course: str = "") -> dict:
    """Grade the variants of `mistakes` on the shipped cases `ids` (the pool beside
    them): {variant: (the report, the cases)}."""
    for mistake, language in VARIANTS:
        if mistake in mistakes:
            variant(mistake, language, root / "class")
    manifest = case_subset(root / "cases", ids)
    (root / "course.toml").write_text(course)
    base = ["--course", root / "course.toml", "--manifest", manifest]
    done = cli(*base, "grade", root / "class", "--results", root / "results", "--jobs", "2")
    assert done.code == 0, done.err
    cases = load_cases(manifest)
    with Store(root / "results" / DB_NAME) as store:
        return {row.id: report(store, row, cases) for row in store.submissions()}


@pytest.fixture(scope="module")
def graded_root(tmp_path_factory):
    root = tmp_path_factory.mktemp("mistakes")
    return root, graded(root, (*CAUSES, "final-newline"), CASE_IDS, FEW_PROBES)


@pytest.fixture(scope="module")
def reports(graded_root):
    return graded_root[1]


@pytest.mark.parametrize(
    "mistake, language",
    [pytest.param(m, lang, id=f"{m}-{lang}") for m, lang in VARIANTS if m in CAUSES],
)
def test_the_root_cause_is_told_first(reports, mistake, language):
    kind, words = CAUSES[mistake]
    result = reports[f"{mistake}-{language}"]
    failing = [o for o in result.outcomes if o.case.public and o.verdict is not Verdict.AC]
    assert failing, "the mistake fails some public case"
    for outcome in failing:
        run = outcome.run
        assert run.kind.endswith("/" + kind), (outcome.case.id, run.kind, run.diagnosis)
        first = run.diagnosis.splitlines()[0]
        assert words in first and " line " in first, first  # where, in the source


@pytest.mark.parametrize("language", ["c", "python"])
def test_a_puzzle_without_a_final_newline_is_named_without_showing_it(reports, language):
    """The program drops each line's last character, taking it for the newline: it
    passes every public case, and a student reads, of each hidden failure, what sets
    that puzzle apart, and a public puzzle of the pool that fails alike."""
    result = reports[f"final-newline-{language}"]
    assert all(o.verdict is Verdict.AC for o in result.outcomes if o.case.public)
    hidden = [c for c in student_view(result) if not c.public and c.verdict is not Verdict.AC]
    assert [c.outcome.case.id for c in hidden] == ["no-final-newline"]
    (shown,) = hidden
    assert shown.run is None  # nothing of the hidden run
    assert any("does not end with a line end (no final newline)" in note for note in shown.apart)
    found = shown.counterexample
    assert found is not None and found.puzzle_id is not None, found
    assert found.puzzle_id.startswith(("crlf-no-final-newline", "no-final-newline"))


def test_the_students_page_and_gradescope_name_what_sets_a_hidden_puzzle_apart(graded_root):
    root, reports = graded_root
    result = reports["final-newline-python"]
    with Store(root / "results" / DB_NAME) as store:
        page = render_page(result, store, student=True, generated="now")
    assert "does not end with a line end (no final newline)" in page
    # the hidden case unnamed (pool puzzles may have names alike)
    assert not re.search(r"(?<![\w-])no-final-newline(?![\w-])", page)
    shown = next(c for c in student_view(result) if c.verdict is Verdict.RTE)
    assert "does not end with a line end" in case_output(shown)


def test_a_time_out_says_how_the_programs_time_grows(tmp_path):
    """A check for duplicates that compares each solution with all those kept before
    it: fast on every public puzzle, out of time on a hidden one with thousands of
    solutions. The student reads the program's times on public puzzles, never the hidden
    puzzle's size."""
    results = graded(
        tmp_path,
        ("quadratic",),
        ("sample", "many-solutions", "timed-2-letters-b"),
        "[limits]\ncpu_seconds = 0.3\nwall_seconds = 10\n",
    )
    for language in ("c", "python"):
        result = results[f"quadratic-{language}"]
        (shown,) = [c for c in student_view(result) if c.verdict is not Verdict.AC]
        assert shown.verdict is Verdict.TLE and not shown.public
        reason = shown.counterexample.reason
        assert "4,518" not in reason, reason
        assert re.search(r"\(3\d\d\)[.:]", reason)  # the pool's large one, a probe
        assert "grows faster than the number of solutions" in reason or (
            language == "python" and "less time per solution" in reason
        ), reason
