"""grader.judge.compare.policy through compare(): which failures the case's policy rules alone
decide (Comparison.policy_only, what the score reads), decided on the whole output.

The other reading of each rule is printed by the reference's own boards: once per
look-alike placement and counted so (symmetric-tiles), or ties in another order
(tie-order). Anything else wrong as well makes the failure the program's own.
"""

import math

import pytest

from grader.cases.manifest import load_cases
from grader.cases.puzzle import turn
from grader.core.model import Verdict
from grader.judge.compare import POLICY_ONLY, compare
from grader.judge.compare import verdict as verdict_module
from reference import puzzlesolver as ps
from tests.helpers import NONE_PUZZLE as NONE
from tests.helpers import SAMPLE_TEXT
from tests.helpers import SYMMETRIC_PUZZLE as SYMMETRIC
from tests.helpers import TIE_PUZZLE as TIE
from tests.helpers import PuzzleCase as Case

pytestmark = pytest.mark.fast

SYM = ("symmetric-tiles",)
TIES = ("tie-order",)
BOTH = SYM + TIES
# Tile 7 (A0,A0,A0,A0) looks the same turned by 90 degrees: each of the two solutions
# has four placements that draw alike.
SQUARE = (
    "A0,C0,C0,B0\nA1,B1,A1,C1\nA1,B0,B0,A0\nA0,A1,A1,A1\nB0,B0,B1,C0\nC1,C0,A1,C0\n"
    "A0,A0,A0,A0\nB1,B0,B0,A1\nC1,B1,A1,C0\n"
)
CASES = {case.id: case for case in load_cases()}


def drawn_alike(board) -> int:
    """Placements of the board's tiles that draw it (the other reading's copies)."""
    return math.prod(sum(turn(p.edges, k) == p.edges for k in range(4)) for p in board)


def each_placement(boards) -> list:
    """Every board once per placement that draws it, the copies together."""
    return [board for board in boards for _ in range(drawn_alike(board))]


def ties_reversed(boards) -> list:
    """Each run of boards with the same 9-digit string in reverse order."""
    out, run = [], []
    for board in boards:
        if run and [p.tile for p in run[0]] != [p.tile for p in board]:
            out += run[::-1]
            run = []
        run.append(board)
    return out + run[::-1]


def manifest_case(cid: str) -> Case:
    return Case(CASES[cid].input.read_text())


def decided(case: Case, got: bytes, policy) -> bool:
    result = compare(case.expected, got, case.text, policy)
    assert result.verdict is Verdict.WA
    # The text reports the decision; it never makes it.
    assert (POLICY_ONLY in result.details) is result.policy_only
    return result.policy_only


@pytest.fixture(scope="module")
def symmetric():
    return Case(SYMMETRIC)


@pytest.fixture(scope="module")
def tie():
    return Case(TIE)


# (name, puzzle, how the program prints, policy, decided only by the rule)
ROWS = [
    ("look-alike placements, counted", SYMMETRIC, lambda c: c.render(c.boards * 2), SYM, True),
    ("look-alike placements, no rule", SYMMETRIC, lambda c: c.render(c.boards * 2), (), False),
    (
        "look-alike placements, the tie rule",
        SYMMETRIC,
        lambda c: c.render(c.boards * 2),
        TIES,
        False,
    ),
    (
        "look-alike placements, counted once",
        SYMMETRIC,
        lambda c: c.render(c.boards * 2, count="1 unique solution found:"),
        SYM,
        False,
    ),
    (
        "more copies than look-alike placements",
        SYMMETRIC,
        lambda c: c.render(c.boards * 3),
        SYM,
        False,
    ),
    (
        "the count alone counts the placements",
        SYMMETRIC,
        lambda c: c.render(c.boards, count="2 unique solutions found:"),
        SYM,
        False,
    ),
    (
        "look-alike placements and a trailing space",
        SYMMETRIC,
        lambda c: c.render(c.boards * 2).replace(b"Input tiles:", b"Input tiles: "),
        SYM,
        False,
    ),
    (
        "look-alike placements and no final newline",
        SYMMETRIC,
        lambda c: c.render(c.boards * 2)[:-1],
        SYM,
        False,
    ),
    (
        "look-alike placements and a stray line",
        SYMMETRIC,
        lambda c: c.render(c.boards * 2).replace(b"\n+", b"\ndebug\n+", 1),
        SYM,
        False,
    ),
    (
        "look-alike placements and a wrong listing",
        SYMMETRIC,
        lambda c: c.render(c.boards * 2).replace(b"1. <", b"1.<"),
        SYM,
        False,
    ),
    (
        "four placements drawn alike, four copies",
        SQUARE,
        lambda c: c.render(each_placement(c.boards)),
        SYM,
        True,
    ),
    (
        "four placements drawn alike, two copies",
        SQUARE,
        lambda c: c.render([b for b in c.boards for _ in range(2)]),
        SYM,
        True,
    ),
    (
        "four placements drawn alike, five copies",
        SQUARE,
        lambda c: c.render([b for b in c.boards for _ in range(5)]),
        SYM,
        False,
    ),
    ("ties in the other order", TIE, lambda c: c.render(c.boards[::-1]), TIES, True),
    ("ties in the other order, no rule", TIE, lambda c: c.render(c.boards[::-1]), (), False),
    (
        "ties in the other order, the other rule",
        TIE,
        lambda c: c.render(c.boards[::-1]),
        SYM,
        False,
    ),
    (
        "ties in the other order and a count line without its colon",
        TIE,
        lambda c: c.render(c.boards[::-1], count="2 unique solutions found"),
        TIES,
        False,
    ),
    (
        "ties in the other order and the first drawn twice, no symmetric tile",
        TIE,
        lambda c: c.render([c.boards[1], c.boards[1], c.boards[0]]),
        BOTH,
        False,
    ),
    ("one of two ties missing", TIE, lambda c: c.render(c.boards[1:]), TIES, False),
    (
        "no solution, a wrong listing",
        NONE,
        lambda c: c.expected.replace(b"1. <", b"1.<"),
        BOTH,
        False,
    ),
    ("boards out of order, not ties", SAMPLE_TEXT, lambda c: c.render(c.boards[::-1]), BOTH, False),
    (
        "a board printed twice, no symmetric tile",
        SAMPLE_TEXT,
        lambda c: c.render([c.boards[0], *c.boards]),
        BOTH,
        False,
    ),
]


@pytest.mark.parametrize(
    "puzzle, printing, policy, only", [r[1:] for r in ROWS], ids=[r[0] for r in ROWS]
)
def test_what_the_rules_alone_decide(puzzle, printing, policy, only):
    case = Case(puzzle)
    assert decided(case, printing(case), policy) is only


def test_every_look_alike_placement_of_many_boards_is_decided_by_the_rule():
    # 36 boards, 4 placements each: the diagnosis names three and "33 more", the decision
    # reads them all (it once read the diagnosis, and missed this case).
    case = manifest_case("symmetric-duplicates")
    got = case.render(each_placement(case.boards))
    assert decided(case, got, CASES["symmetric-duplicates"].policy)
    result = compare(case.expected, got, case.text, SYM)
    assert "33 more boards are printed more than once" in result.details


def test_look_alike_copies_apart_are_not_the_other_reading():
    case = manifest_case("symmetric-duplicates")
    first, second, *rest = case.boards
    got = case.render([first, second, first, *each_placement([second, *rest])[1:]])
    assert not decided(case, got, SYM)


def test_both_rules_together():
    case = manifest_case("ties-symmetric")
    assert CASES["ties-symmetric"].policy == BOTH
    both = case.render(each_placement(ties_reversed(case.boards)))
    assert decided(case, both, BOTH)
    assert not decided(case, both, SYM)  # the ties' order is the program's own then
    assert not decided(case, both, TIES)  # and the copies


def test_a_decision_that_fails_forgives_nothing_and_keeps_the_verdict(monkeypatch, tie):
    def broken(*args):
        raise ValueError("boom")

    monkeypatch.setattr(verdict_module, "decided_by_policy", broken)
    result = compare(tie.expected, tie.render(tie.boards[::-1]), tie.text, TIES)
    assert result.verdict is Verdict.WA and not result.policy_only
    assert POLICY_ONLY not in result.details
    assert result.summary.startswith("boards with the same 9-digit string 369817425")


def test_an_accepted_or_white_space_output_is_not_a_policy_failure(tie):
    assert not compare(tie.expected, tie.expected, tie.text, TIES).policy_only
    crlf = compare(tie.expected, tie.expected.replace(b"\n", b"\r\n"), tie.text, TIES)
    assert crlf.verdict is Verdict.PE and not crlf.policy_only


def test_the_reference_counts_placements_once():
    """The rows above rest on it: the reference prints each board once."""
    assert [drawn_alike(b) for b in Case(SYMMETRIC).boards] == [2]
    assert [drawn_alike(b) for b in Case(SQUARE).boards] == [4, 4]
    assert ps.count(ps.parse(SQUARE)) == 2
