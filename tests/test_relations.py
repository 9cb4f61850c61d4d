"""A cause is named only from evidence: the relations read from all of a program's
runs (grader.grading.relations), the counterfactual puzzles (grader.cases.counterfactual), and, for
real programs with one algorithm mistake each in every language (tests/
mistake_variants.py), what each student's own page says. No rule here is written for
one of these mistakes: each relation is a statement about printed against expected
output, and the tests check it is found, and that no false one is."""

from __future__ import annotations

import re

import pytest

from grader.cases.counterfactual import render, variants
from grader.cases.input_properties import properties_of
from grader.cases.manifest import load_cases
from grader.cases.pool import load_pool
from grader.cases.puzzle import board_of, parse_output, parse_puzzle
from grader.core.model import Verdict
from grader.exports.feedback_html import render_page
from grader.grading.relations import Observed, findings
from grader.judge.score import report
from grader.store import DB_NAME, Store
from tests.helpers import ROOT
from tests.helpers import grader_cli as cli
from tests.mistake_variants import ALGORITHM_VARIANTS, case_subset, variant

MANIFEST = ROOT / "testcases" / "manifest.json"
EVERY = {c.id: c for c in [*load_cases(MANIFEST), *load_pool(MANIFEST)]}


def observed(case_id: str, output: bytes | None = None, verdict=None, visible=True, stderr=""):
    case = EVERY[case_id]
    expected = case.expected.read_bytes()
    printed = expected if output is None else output
    judged = verdict or (Verdict.AC if printed == expected else Verdict.WA)
    return Observed(case, visible, judged, expected, printed, stderr)


def first_boards(case_id: str, k: int) -> bytes:
    """The case's expected output with only its first k boards, the count line saying so."""
    text = EVERY[case_id].expected.read_bytes().decode()
    head, _, rest = text.partition("unique solutions found:\n")
    boards = rest.split("\n\n")[:k]
    return (head + f"{k} unique solutions found:\n" + "\n\n".join(boards)).encode()


@pytest.mark.fast
def test_a_cap_is_found_from_the_runs_and_nothing_of_a_hidden_run_is_named():
    runs = [
        observed("one-solution-1"),
        observed("sample"),  # 2 solutions
        observed("many-solutions", first_boards("many-solutions", 2)),
        observed("timed-2-letters-a", first_boards("timed-2-letters-a", 2), visible=False),
    ]
    (found,) = findings(runs)
    assert (found.kind, found.cap) == ("cap", 2)
    assert set(found.explains) == {"many-solutions", "timed-2-letters-a"}
    assert found.shown_by == "many-solutions"
    assert "never prints more than 2" in found.text and "1,548" not in found.text


@pytest.mark.fast
def test_one_puzzle_cut_short_is_no_cap_but_a_guess_to_search_with():
    runs = [observed("many-solutions", first_boards("many-solutions", 2)), observed("sample")]
    assert findings(runs) == []
    (guess,) = findings(runs, provisional=True)
    assert (guess.kind, guess.cap) == ("cap", 2)


@pytest.mark.fast
def test_a_passing_run_that_contradicts_a_relation_rejects_it():
    """Two boards printed on one puzzle and three on another that has more: no one cap."""
    runs = [
        observed("many-solutions", first_boards("many-solutions", 2)),
        observed("ties", first_boards("ties", 3)),
    ]
    assert [f.kind for f in findings(runs)] == []


@pytest.mark.fast
def test_boards_missing_at_random_show_no_relation():
    text = EVERY["many-solutions"].expected.read_bytes().decode()
    head, _, rest = text.partition("unique solutions found:\n")
    boards = rest.split("\n\n")
    kept = [b for i, b in enumerate(boards) if i % 3]  # a third gone, here and there
    out = (head + f"{len(kept)} unique solutions found:\n" + "\n\n".join(kept)).encode()
    assert findings([observed("many-solutions", out), observed("sample")]) == []


@pytest.mark.fast
def test_a_crash_is_named_by_its_exception_and_the_students_own_line_only():
    said = (
        'Traceback (most recent call last):\n  File "puzzlesolver.py", line 77, in show\n'
        "    return show(rest)\nRecursionError: maximum recursion depth exceeded while "
        "printing G0,Y1,Y1,G1\n"
    )
    runs = [
        observed("sample"),
        observed("timed-2-letters-a", b"", Verdict.RTE, visible=False, stderr=said),
    ]
    (found,) = findings(runs)
    assert found.kind == "crash" and "RecursionError at puzzlesolver.py line 77, in show" in (
        found.text
    )
    assert "G0,Y1" not in found.text  # the exception's message may quote the input


@pytest.mark.fast
def test_every_expected_output_is_redrawn_byte_for_byte_before_a_variant_is_made():
    for case in EVERY.values():
        puzzle, expected = case.input.read_bytes(), case.expected.read_bytes()
        boards = [board_of(b.key) for b in parse_output(expected.decode()).boards]
        assert render(parse_puzzle(puzzle), boards) == expected, case.id


@pytest.mark.fast
def test_each_variant_changes_one_property_and_keeps_the_puzzle():
    crlf = EVERY["crlf-no-final-newline"]
    puzzle, expected = crlf.input.read_bytes(), crlf.expected.read_bytes()
    made = {v.property: v for v in variants(puzzle, expected, properties_of(puzzle, expected))}
    assert set(made) == {"line_ends", "final_newline"}
    assert properties_of(made["line_ends"].puzzle).line_ends == "LF"
    assert properties_of(made["final_newline"].puzzle).final_newline
    for made_one in made.values():
        assert parse_puzzle(made_one.puzzle) == parse_puzzle(puzzle)
        assert made_one.expected == expected
    letters = EVERY["letters-1"]
    puzzle, expected = letters.input.read_bytes(), letters.expected.read_bytes()
    (renamed,) = variants(puzzle, expected, properties_of(puzzle, expected))
    assert properties_of(renamed.puzzle).other_letters is False
    assert renamed.expected.count(b"+--------+--------+--------+") == expected.count(
        b"+--------+--------+--------+"
    )


# ------------------------------------------------------------------ real programs

CASE_IDS = (
    "sample", "lightbulbs", "no-solution", "one-solution", "many-solutions", "crlf",
    "duplicates", "duplicates-many", "timed-2-letters-a", "letters", "no-final-newline",
)  # fmt: skip
# Each mistake: the relation its page must name, in words (None: none explains it).
NAMED = {
    "first-only": "stops after the first solution",
    "cap-1000": "never prints more than 1,000 solutions",
    "merged-by-edges": "differ only in their tile numbers",
    "same-half": "a half meet the same half",
    "needs-partner": "no matching edge on another tile",
    "recursive-print": "uncaught RecursionError at puzzlesolver.py line",
    "four-colours": None,
    "crlf-blind": None,
}


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    root = tmp_path_factory.mktemp("relations")
    for mistake, language in ALGORITHM_VARIANTS:
        variant(mistake, language, root / "class")
    manifest = case_subset(root / "cases", CASE_IDS)
    done = cli(
        "--manifest", manifest, "grade", root / "class", "--results", root / "r", "--jobs", "2"
    )
    assert done.code == 0, done.err
    cases = load_cases(manifest)
    with Store(root / "r" / DB_NAME) as store:
        rows = store.submissions()
        yield {
            row.id: (result := report(store, row, cases), render_page(result, store, student=True,
                                                                        generated="now"))
            for row in rows
        }  # fmt: skip


@pytest.mark.slow
@pytest.mark.parametrize("mistake, language", sorted(ALGORITHM_VARIANTS))
def test_the_relation_is_named_on_the_students_page(graded, mistake, language):
    result, page = graded[f"{mistake}-{language}"]
    shown = re.sub(r"<[^>]+>", "", page).replace("&#39;", "'")
    words = NAMED[mistake]
    if words is not None:
        assert words in shown, [f.text for f in result.findings]
        (hidden,) = [o for o in result.outcomes if o.case.id == "timed-2-letters-a"]
        if hidden.verdict is not Verdict.AC:  # a hidden case: its count never shown
            assert "1,548" not in shown and "1548" not in shown
    # No false cause: a property of a puzzle file only where a run proved it.
    for outcome in result.outcomes:
        if outcome.verdict is not Verdict.AC and outcome.case.properties is not None:
            claimed = "the same puzzle with Unix line ends" in shown
            if outcome.case.id == "crlf":
                assert claimed == ("line_ends" in outcome.proven)


@pytest.mark.slow
def test_a_property_is_named_only_where_the_same_puzzle_without_it_passes(graded):
    blind, page = graded["crlf-blind-python"]
    (crlf,) = [o for o in blind.outcomes if o.case.id == "crlf"]
    assert crlf.verdict is Verdict.WA and crlf.proven == ("line_ends",)
    assert "the same puzzle with Unix line ends (LF) passes" in page
    wrong_everywhere, page = graded["same-half-python"]
    (crlf,) = [o for o in wrong_everywhere.outcomes if o.case.id == "crlf"]
    assert crlf.verdict is Verdict.WA and crlf.proven == ()
    assert "Windows line ends" not in page and "mishandles CRLF" not in page
    letters, page = graded["four-colours-c"]
    page = page.replace("&#39;", "'")
    (bulbs,) = [o for o in letters.outcomes if o.case.id == "lightbulbs"]
    assert bulbs.proven == ("other_letters",)
    assert "renamed to the hand-out's Y, G, R and B passes" in page


@pytest.mark.slow
def test_a_hidden_failure_gets_a_public_puzzle_that_shows_the_same_mistake(graded):
    """The hidden case with 1,548 solutions fails with a cap of 1,000: the search runs
    the pool's puzzles with more than 1,000 solutions, after the hidden runs, and
    names one; what the program printed on it is never shown."""
    result, page = graded["cap-1000-c"]
    (hidden,) = [o for o in result.outcomes if o.case.id == "timed-2-letters-a"]
    found = hidden.counterexample
    assert found is not None and found.source == "search"
    assert found.puzzle_id in ("large-2-letters-1", "large-2-letters-2")
    assert found.output == b"" and "run it yourself" in page
