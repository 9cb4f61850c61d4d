"""grader.judge.compare and grader.cases.puzzle: verdicts and diagnoses of real student bugs.

Expected outputs come from the reference solver; the "student" outputs are
those outputs mutated the way real submissions get them wrong.
"""

import io
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from grader.cases import puzzle as gp
from grader.cases.manifest import POLICY_RULES
from grader.core.model import Verdict
from grader.judge.compare import compare, show
from reference import puzzlesolver as ps
from tests.helpers import LIGHTBULBS_TEXT as LIGHTBULBS
from tests.helpers import NONE_PUZZLE as NONE
from tests.helpers import SAMPLE_EXPECTED, assert_sane
from tests.helpers import SAMPLE_TEXT as SAMPLE
from tests.helpers import SYMMETRIC_PUZZLE as SYMMETRIC
from tests.helpers import TIE_PUZZLE as TIE
from tests.helpers import PuzzleCase as Case

pytestmark = pytest.mark.fast

# Small puzzles found by searching random ones with the reference solver.
ONE = "C0,B1,A0,C0\nB0,C1,C0,B1\nA0,A1,B1,B1\nB0,A1,B1,B0\nB1,A0,B1,C0\nA1,C0,A1,A0\nB0,A1,C0,B1\nA0,B1,C1,C1\nA1,A0,B1,A1\n"
# 14046 solutions, 5.3 MB of output; tiles 4 and 8 are the same tile.
BIG = "A1,B0,A1,B1\nB1,A0,B1,B1\nA1,B0,B1,B0\nB0,B0,B0,B1\nB1,A0,A0,B1\nA0,A1,B0,B1\nA1,B0,B1,B1\nB0,B0,B0,B1\nB1,A0,B0,B1\n"


def rotate(board):
    """The reference's board turned clockwise (a student printing another rotation)."""
    return tuple(
        ps.Placement(
            board[(2 - c) * 3 + r].tile,
            board[(2 - c) * 3 + r].edges[3:] + board[(2 - c) * 3 + r].edges[:3],
        )
        for r in range(3)
        for c in range(3)
    )


@pytest.fixture(scope="module")
def sample():
    return Case(SAMPLE)


@pytest.fixture(scope="module")
def big():
    case = Case.__new__(Case)
    case.text, case.puzzle = BIG, ps.parse(BIG)
    buffer = io.BytesIO()
    ps.write_output(case.puzzle, buffer)
    case.expected = buffer.getvalue()
    return case


# ---------------------------------------------------------------- the reference agrees


def test_reference_reproduces_the_handout(sample):
    assert sample.expected == SAMPLE_EXPECTED
    assert len(Case(LIGHTBULBS).boards) == 3
    assert (len(Case(ONE).boards), len(Case(NONE).boards)) == (1, 0)
    assert len(Case(SYMMETRIC).boards) == 1 and gp.is_symmetric(("C0", "B1", "C0", "B1"))
    tie = Case(TIE).boards
    assert len(tie) == 2 and ps.render_board(tie[0]) != ps.render_board(tie[1])
    assert [p.tile for p in tie[0]] == [p.tile for p in tie[1]]


# ---------------------------------------------------------------- AC


@pytest.mark.parametrize("text", [SAMPLE, LIGHTBULBS, ONE, NONE, SYMMETRIC, TIE])
def test_identical_output_is_accepted(text):
    case = Case(text)
    result = case.check(case.expected)
    assert result.verdict is Verdict.AC and result.details == []


def test_str_and_bytes_both_accepted(sample):
    assert compare(SAMPLE_EXPECTED.decode(), SAMPLE_EXPECTED, SAMPLE).verdict is Verdict.AC


# ---------------------------------------------------------------- count line


def test_plural_for_one_solution():
    case = Case(ONE)
    result = case.check(case.render(case.boards, count="1 unique solutions found:"))
    assert result.verdict is Verdict.WA
    assert result.summary.startswith("wrong plural on line 12")
    assert '"1 unique solution found:"' in result.summary
    assert "expected: 1·unique·solution·found:↵" in result.text()
    assert "got:      1·unique·solutions·found:↵" in result.text()


def test_singular_for_many_solutions(sample):
    result = sample.check(sample.render(sample.boards, count="2 unique solution found:"))
    assert result.verdict is Verdict.WA
    assert result.summary.startswith("wrong singular on line 12: with 2 solutions")


def test_wrong_count(sample):
    result = sample.check(sample.render(sample.boards, count="3 unique solutions found:"))
    assert result.verdict is Verdict.WA
    assert "says 3 solutions, expected 2 solutions" in result.summary
    assert "the count line says 3 solutions but 2 boards are printed" in result.details


def test_zero_instead_of_no_solution():
    case = Case(NONE)
    result = case.check(case.render([], count="0 unique solutions found:"))
    assert result.verdict is Verdict.WA
    assert 'expected exactly "No solution found."' in result.summary


def test_no_solution_claimed_when_there_are_solutions(sample):
    result = sample.check(sample.render([], count="No solution found."))
    assert result.verdict is Verdict.WA
    assert 'says "No solution found.", but the puzzle has 2 solutions' in result.summary
    assert any(d.startswith("2 boards are missing: 124967385") for d in result.details)


def test_count_line_missing(sample):
    got = sample.expected.replace(b"2 unique solutions found:\n", b"")
    result = sample.check(got)
    assert result.verdict is Verdict.WA
    assert result.summary == 'the count line is missing: expected "2 unique solutions found:"'


def test_no_solution_with_boards_printed():
    case = Case(NONE)
    stray = Case(SAMPLE).boards[:1]
    result = case.check(case.render(stray, count="No solution found."))
    assert result.verdict is Verdict.WA
    text = result.text()
    assert "the count line says no solution but 1 board is printed" in text
    assert "is not a solution" in text  # the sample's board does not fit this puzzle


# ---------------------------------------------------------------- tile listing


def test_listing_without_comma_space(sample):
    result = sample.check(sample.expected.replace(b"<Y1, R1, G0, B0>", b"<Y1,R1,G0,B0>"))
    assert result.verdict is Verdict.WA  # the tokens differ: "<Y1,R1,G0,B0>" is one
    assert result.summary.startswith('the "Input tiles:" listing is wrong at line 4')
    assert "(edges are separated by a comma and a space)" in result.summary


def test_listing_numbered_from_zero(sample):
    lines = sample.expected.split(b"\n")
    for k in range(1, 10):
        lines[k] = str(k - 1).encode() + lines[k][1:]
    result = sample.check(b"\n".join(lines))
    assert result.verdict is Verdict.WA
    assert (
        "line 2" in result.summary
        and "(tiles are numbered from 1: this is tile 1)" in result.summary
    )


def test_listing_header_missing(sample):
    result = sample.check(sample.expected.replace(b"Input tiles:\n", b""))
    assert result.verdict is Verdict.WA
    assert result.summary == 'the output must start with the line "Input tiles:"'


# ---------------------------------------------------------------- white space (PE)


def test_missing_blank_line_between_boards(sample):
    result = sample.check(sample.expected.replace(b"+\n\n+", b"+\n+"))
    assert result.verdict is Verdict.PE
    assert result.summary == (
        "white space differs: missing empty line between two boards (before line 26 of your output)"
    )
    assert "  got:      +--------+--------+--------+↵" in result.details


def test_missing_blank_line_after_listing(sample):
    result = sample.check(sample.expected.replace(b"\n\n2 unique", b"\n2 unique"))
    assert result.verdict is Verdict.PE
    assert "missing empty line between the tile listing and the count line" in result.summary


def test_trailing_spaces(sample):
    result = sample.check(sample.expected.replace(b"|\n", b"| \n"))
    assert result.verdict is Verdict.PE
    assert "trailing white space at the end of 18 lines (first: line 14)" in result.summary
    assert "  got:      |1··G0···|2··B0···|4··G0···|·↵" in result.details


def test_missing_final_newline(sample):
    result = sample.check(sample.expected[:-1])
    assert result.verdict is Verdict.PE
    assert "does not end with a newline" in result.summary
    assert result.details[2].endswith("(no newline at the end of the output)")


def test_extra_final_blank_line(sample):
    result = sample.check(sample.expected + b"\n")
    assert result.verdict is Verdict.PE
    assert result.summary == "white space differs: 1 extra empty line at the end of the output"
    assert "  expected: (nothing: the expected output ends here)" in result.details


def test_crlf(sample):
    result = sample.check(sample.expected.replace(b"\n", b"\r\n"))
    assert result.verdict is Verdict.PE
    assert "every line ends in CR LF" in result.summary
    assert "  got:      Input·tiles:\\r↵" in result.details


def test_spacing_inside_a_cell(sample):
    result = sample.check(sample.expected.replace(b"|1  G0   |", b"|1 G0    |"))
    assert result.verdict is Verdict.PE
    assert "spacing inside line 14 differs" in result.summary
    assert "(cells are 8 characters wide)" in result.summary


def test_tabs(sample):
    result = sample.check(sample.expected.replace(b"|Y1    R0|", b"|Y1\tR0|"))
    assert result.verdict is Verdict.PE
    assert "tab characters where the layout has spaces (first at line 15)" in result.text()
    assert "|Y1→R0|" in result.text()


def test_wrong_answer_also_names_white_space(sample):
    got = sample.render(sample.boards, count="3 unique solutions found:").replace(b"\n", b"\r\n")
    result = sample.check(got)
    assert result.verdict is Verdict.WA
    assert "says 3 solutions" in result.summary
    assert any("CR LF" in line for line in result.details)


# ---------------------------------------------------------------- boards


def test_boards_out_of_order(sample):
    result = sample.check(sample.render(sample.boards[::-1]))
    assert result.verdict is Verdict.WA
    assert result.summary == (
        "boards are out of order: 397862514 (line 13) comes before 124967385 "
        "(line 27); boards go in increasing order of their 9-digit string"
    )


def test_non_canonical_rotation(sample):
    result = sample.check(sample.render([rotate(sample.boards[0]), sample.boards[1]]))
    assert result.verdict is Verdict.WA
    assert result.summary == (
        "board 391862574 (line 13) is a rotation of 124967385: print the rotation whose top-left "
        "tile has the smallest number of the four corners"
    )


def test_every_rotation_printed(sample):
    b = sample.boards[0]
    result = sample.check(
        sample.render(
            [b, rotate(b), rotate(rotate(b)), rotate(rotate(rotate(b))), sample.boards[1]]
        )
    )
    assert result.verdict is Verdict.WA
    assert "says 5 solutions, expected 2" in result.summary
    assert any(
        "the same solution is printed 4 times, in different rotations: 124967385, "
        "391862574, 583769421, 475268193 (lines 13, 27, 41, 55)" in d
        for d in result.details
    )


def test_board_missing():
    case = Case(LIGHTBULBS)
    result = case.check(
        case.render(case.boards[:1] + case.boards[2:], count="3 unique solutions found:")
    )
    assert result.verdict is Verdict.WA
    missing = gp.digits(tuple(gp.Cell(p.tile, p.edges) for p in case.boards[1]))
    assert result.summary == f"board {missing} is missing (expected at line 27)"
    assert "the count line says 3 solutions but 2 boards are printed" in result.details


def test_extra_board(sample):
    # An expected output that lacks one solution: the student's extra board is named.
    short = sample.render(sample.boards[:1])
    result = compare(short, sample.expected, SAMPLE)
    assert_sane(result)
    assert result.verdict is Verdict.WA
    assert "board 397862514 (line 27) is extra: it is not in the expected output" in result.text()


def test_same_board_twice(sample):
    result = sample.check(
        sample.render(sample.boards + sample.boards[:1], count="2 unique solutions found:")
    )
    assert result.verdict is Verdict.WA
    assert "board 124967385 is printed twice (lines 13, 41)" in result.text()


def test_swapped_tiles_are_not_a_solution(sample):
    bad = list(sample.boards[0])
    bad[0], bad[1] = bad[1], bad[0]
    result = sample.check(sample.render([tuple(bad), sample.boards[1]]))
    assert result.verdict is Verdict.WA
    assert result.summary == (
        "board 214967385 (line 13) is not a solution: tile 1's right edge R0 does not match tile 4's "
        "left edge Y1 (row 1, columns 2-3: different pictures)"
    )
    assert "board 124967385 is missing (expected at line 13)" in result.details


def test_same_tile_twice(sample):
    bad = list(sample.boards[0])
    bad[8] = bad[0]
    result = sample.check(sample.render([tuple(bad), sample.boards[1]]))
    assert (
        "is not a solution: it uses tile 1 twice (row 1, column 1 and row 3, column 3)"
        in result.summary
    )


def test_edges_that_are_no_rotation_of_the_tile(sample):
    board = list(sample.boards[0])
    first = board[0]
    board[0] = ps.Placement(
        first.tile, (first.edges[0], first.edges[3], first.edges[2], first.edges[1])
    )
    result = sample.check(sample.render([tuple(board), sample.boards[1]]))
    assert result.verdict is Verdict.WA
    assert (
        "row 1, column 1 shows tile 1 as G0 Y1 B1 R0 (top, right, bottom, left), which is not a "
        "rotation of tile 1 <Y1, G0, R0, B1>"
    ) in result.summary


def test_vertical_clash_names_rows():
    case = Case(ONE)
    board = list(case.boards[0])
    board[0], board[3] = board[3], board[0]
    result = case.check(case.render([tuple(board)]))
    assert "column 1, rows 1-2" in result.text()


def test_broken_frame(sample):
    got = sample.expected.replace(
        b"+--------+--------+--------+\n|9", b"+-------+-------+-------+\n|9"
    )
    result = sample.check(got)
    assert result.verdict is Verdict.WA
    assert result.summary == (
        "board 124967385 (line 13) is not drawn in the required layout: line 17 should be "
        '"+--------+--------+--------+", not "+-------+-------+-------+"'
    )


def test_unreadable_board(sample):
    got = sample.expected.replace(b"|1  G0   |2  B0   |4  G0   |", b"|1  G0   |2  B0   |")
    result = sample.check(got)
    assert result.verdict is Verdict.WA
    assert "board 124967385 is missing" in result.summary
    assert any(
        d.startswith("could not read a board at line 14: line 14 shows 2 cells")
        for d in result.details
    )


# ---------------------------------------------------------------- policy-dependent cases


def test_symmetric_board_twice_names_the_rule():
    case = Case(SYMMETRIC)
    got = case.render(case.boards * 2)  # "2 unique solutions found:" and the board twice
    result = case.check(got, policy=("symmetric-tiles",))
    assert result.verdict is Verdict.WA
    assert result.summary.startswith(
        "board 275489316 is printed twice (lines 13, 27); it contains "
        "tile 9 <C0, B1, C0, B1>, which looks the same turned by 180 degrees"
    )
    assert "says 2 solutions, expected 1 solution" in result.text()
    assert result.details[-1] == (
        f"This case is policy-dependent: its expected output follows "
        f"{POLICY_RULES['symmetric-tiles']}."
    )


def test_symmetric_board_twice_without_policy_names_no_rule():
    case = Case(SYMMETRIC)
    result = case.check(case.render(case.boards * 2))
    assert "says 2 solutions, expected 1" in result.summary
    assert "policy-dependent" not in result.text()


def test_tie_order_names_the_rule():
    case = Case(TIE)
    result = case.check(case.render(case.boards[::-1]), policy=("tie-order",))
    assert result.verdict is Verdict.WA
    assert result.summary.startswith(
        "boards with the same 9-digit string 369817425 are in the wrong order (lines 13 and 27)"
    )
    assert result.details[-1] == (
        f"This case is policy-dependent: its expected output follows {POLICY_RULES['tie-order']}."
    )
    assert "symmetric-tile" not in result.text()


def test_ordinary_order_bug_is_not_blamed_on_the_tie_rule(sample):
    result = sample.check(sample.render(sample.boards[::-1]), policy=("tie-order",))
    assert "policy-dependent" not in result.text()


# ---------------------------------------------------------------- robustness


@pytest.mark.parametrize(
    "got, phrase",
    [
        (b"", "the output is empty"),
        (b"\n\n  \n", "the output is only white space"),
        (b"\x00\x01garbage\xff\xfe", "does not look like the puzzle's output"),
        (bytes(range(256)) * 64, "does not look like the puzzle's output"),
        ("Ein Fehler: ñ \u202e\u0007".encode(), "does not look like the puzzle's output"),
    ],
)
def test_garbage(sample, got, phrase):
    result = sample.check(got)
    assert result.verdict is Verdict.WA
    assert phrase in result.summary


def test_nul_after_correct_output(sample):
    result = sample.check(sample.expected + b"\x00")
    assert result.verdict is Verdict.WA
    assert (
        result.summary
        == "the output contains bytes that are not printable text (first at line 40: \\x00)"
    )


def test_invalid_utf8_shown_escaped(sample):
    result = sample.check(sample.expected.replace(b"Input tiles:", b"Input tiles:\xff\xfe"))
    assert "\\xff\\xfe" in result.text()


def test_huge_line_is_cut(sample):
    got = sample.expected.replace(b"|1  G0   |", b"|1  G0   |" + b"x" * 1_000_000)
    result = sample.check(got)
    assert result.verdict is Verdict.WA
    assert max(len(line) for line in result.text().split("\n")) < 400


def test_unparsable_puzzle_falls_back_to_the_expected_listing(sample):
    bad = list(sample.boards[0])
    bad[0], bad[1] = bad[1], bad[0]
    got = sample.render([tuple(bad), sample.boards[1]])
    result = compare(sample.expected, got, b"\xff not a puzzle")
    assert_sane(result)
    assert "is not a solution" in result.summary


def _mutate(data: bytes, seed: int) -> bytes:
    rng = random.Random(seed)
    data = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        at = rng.randrange(len(data) + 1)
        kind = rng.randrange(3)
        piece = bytes(
            rng.choice(b" \n\r\t|+-0123456789ABGRY\x00\xff") for _ in range(rng.randint(1, 5))
        )
        if kind == 0:
            data[at:at] = piece
        elif kind == 1:
            del data[at : at + rng.randint(1, 40)]
        else:
            data[at : at + len(piece)] = piece
    return bytes(data)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32))
def test_random_damage_never_raises(seed):
    got = _mutate(SAMPLE_EXPECTED, seed)
    result = compare(SAMPLE_EXPECTED, got, SAMPLE, ("symmetric-tiles", "tie-order"))
    assert_sane(result)
    if got == SAMPLE_EXPECTED:
        assert result.verdict is Verdict.AC
    else:
        assert result.verdict is (
            Verdict.PE if got.split() == SAMPLE_EXPECTED.split() else Verdict.WA
        )


@settings(max_examples=60, deadline=None)
@given(got=st.binary(max_size=600))
def test_random_bytes_never_raise(got):
    assert_sane(compare(SAMPLE_EXPECTED, got, SAMPLE))


# ---------------------------------------------------------------- a 5 MB output


def test_big_output(big):
    assert len(big.expected) > 5_000_000
    assert compare(big.expected, big.expected, BIG).verdict is Verdict.AC
    # One board dropped from the middle.
    cut = big.expected.index(b"\n\n+", len(big.expected) // 2)
    end = big.expected.index(b"\n\n+", cut + 3)
    result = compare(big.expected, big.expected[:cut] + big.expected[end:], BIG)
    assert_sane(result)
    assert result.verdict is Verdict.WA
    assert result.summary.startswith("board ") and "is missing (expected at line " in result.summary
    assert "the count line says 14046 solutions but 14045 boards are printed" in result.details
    # Windows line ends throughout.
    result = compare(big.expected, big.expected.replace(b"\n", b"\r\n"), BIG)
    assert result.verdict is Verdict.PE and "every line ends in CR LF" in result.summary
    # Everything printed twice.
    doubled = big.expected + big.expected[big.expected.index(b"found:\n") + 7 :]
    result = compare(big.expected, doubled, BIG)
    assert result.verdict is Verdict.WA
    assert "is printed twice" in result.text() and "14046 more boards" not in result.text()


# ---------------------------------------------------------------- the puzzle model


def test_parse_puzzle_tolerates_crlf_and_spaces():
    tiles = gp.parse_puzzle(SAMPLE.replace("\n", "\r\n").replace(",", " , ").encode())
    assert tiles == ps.parse(SAMPLE).tiles


@pytest.mark.parametrize("text", ["", "Y1,G0,R0\n" * 9, "y1,G0,R0,B1\n" * 9, "Y1,G0,R0,B1\n" * 10])
def test_parse_puzzle_rejects(text):
    with pytest.raises(gp.PuzzleFormatError):
        gp.parse_puzzle(text)


def _board(digits: str) -> gp.Board:
    return tuple(gp.Cell(int(d), ("A0", "B0", "C0", "D0")) for d in digits)


def test_rotate_and_canonical():
    board = _board("123456789")
    assert [gp.digits(b) for b in gp.rotations(board)] == [
        "123456789",
        "741852963",
        "987654321",
        "369258147",
    ]
    assert gp.rotate(board)[0].edges == ("D0", "A0", "B0", "C0")  # the left edge comes on top
    assert gp.canonical(gp.rotate(board)) == board


def test_draw_and_parse_agree_with_the_reference(sample):
    for board in sample.boards:
        mine = tuple(gp.Cell(p.tile, p.edges) for p in board)
        assert gp.draw(mine) == ps.render_board(board)
        assert gp.clashes(mine) == [] and gp.canonical(mine) == mine
    parsed = gp.parse_output(SAMPLE_EXPECTED.decode())
    assert [p.board for p in parsed.boards] == [
        tuple(gp.Cell(p.tile, p.edges) for p in b) for b in sample.boards
    ]
    assert (parsed.header_line, parsed.count_line, parsed.count) == (
        1,
        (12, "2 unique solutions found:"),
        2,
    )
    assert [line for line, _ in parsed.listing] == list(range(2, 11))


def test_parse_output_reads_boards_without_separators(sample):
    loose = b"\n".join(line for line in SAMPLE_EXPECTED.split(b"\n") if not line.startswith(b"+"))
    parsed = gp.parse_output(loose.decode())
    assert [gp.digits(p.board) for p in parsed.boards] == ["124967385", "397862514"]
    assert parsed.unreadable == []


def test_show_makes_white_space_visible():
    assert show(b" \t\r\x00\x1b[31m\xff") == "·→\\r\\x00\\x1b[31m\\xff"
    assert show("x" * 500).endswith("…") and len(show("x" * 500)) == 101


# ---------------------------------------------------------------- more student habits


def test_debugging_line(sample):
    got = sample.expected.replace(b"\n\n2 unique", b"\nsearching for solutions...\n\n2 unique")
    result = sample.check(got)
    assert result.verdict is Verdict.WA
    assert result.summary.startswith(
        'line 11 is not part of the required output: "searching for solutions..."'
    )


def test_count_line_after_the_boards(sample):
    got = (
        sample.expected.replace(b"2 unique solutions found:\n", b"")
        + b"2 unique solutions found:\n"
    )
    result = sample.check(got)
    assert result.summary.startswith(
        "the count line (line 39) comes after the first board (line 12)"
    )


def test_tiles_numbered_from_zero_on_the_boards(sample):
    got = sample.expected
    for k in range(1, 10):  # in increasing order, so no number is shifted twice
        got = got.replace(f"|{k}  ".encode(), f"|{k - 1}  ".encode())
    result = sample.check(got)
    assert result.verdict is Verdict.WA
    assert result.summary == (
        "board 013856274 (line 13) is not a solution: it numbers the tiles 0-8: "
        "tiles are numbered from 1 to 9, in the order of the puzzle file"
    )


@pytest.mark.parametrize(
    "listed, hint",
    [
        (b"<Y1 R1 G0 B0>", "(edges are separated by a comma and a space)"),
        (b"<R1, G0, B0, Y1>", "(the tile's edges as given in the puzzle file, in the same order)"),
        (b"Y1, R1, G0, B0", "(the edges go between < and >)"),
    ],
)
def test_listing_hints(sample, listed, hint):
    result = sample.check(sample.expected.replace(b"<Y1, R1, G0, B0>", listed))
    assert result.verdict is Verdict.WA and result.summary.endswith(hint)


def test_an_inflated_count_alone_names_no_rule():
    # Counting the look-alike placements but printing one board is not the other reading
    # (that prints a board per placement, and counts them): the rule decides nothing here.
    case = Case(SYMMETRIC)
    result = case.check(
        case.render(case.boards, count="2 unique solutions found:"), policy=("symmetric-tiles",)
    )
    assert "says 2 solutions, expected 1 solution" in result.summary
    assert "policy-dependent" not in result.text() and not result.policy_only


def one_per_string(boards):
    """What tests/mistakes/one-per-string keeps: the first board of each 9-digit string."""
    kept = {}
    for board in boards:
        kept.setdefault(tuple(p.tile for p in board), board)
    return list(kept.values())


def test_boards_kept_one_per_tile_number_string_are_named_as_that():
    case = Case(TIE)
    result = case.check(case.render(one_per_string(case.boards)), policy=("tie-order",))
    assert result.summary == (
        "one board is printed per tile-number string, but boards with the same 9-digit "
        "string (the same tiles in the same cells, turned otherwise) are different "
        "solutions: 1 board missing this way, e.g. another board with 369817425 "
        "(expected at line 27)"
    )
    assert "policy-dependent" not in result.text()


def test_missing_ties_are_named_together_never_as_one_string_twice():
    case = Case(TIE)
    lost = case.render([]).replace(b"No solution found.", b"2 unique solutions found:")
    assert "2 boards are missing: 369817425 (2 boards, expected at lines 13, 27)" in (
        case.check(lost).text()
    )


def test_a_board_missing_for_another_reason_is_not_blamed_on_one_per_string(sample):
    # The sample has no two boards with one string: a lost board is just missing.
    result = sample.check(sample.render(sample.boards[:1], count="2 unique solutions found:"))
    assert result.summary == "board 397862514 is missing (expected at line 27)"
    # One board of each string, but also a board that is not a solution: not explained.
    case = Case(TIE)
    result = case.check(case.render([case.boards[0], case.boards[1][::-1]]))
    assert "is not a solution" in result.text() and "board 369817425 is missing" in result.text()
    assert "per tile-number string" not in result.text()


@pytest.mark.parametrize("puzzle", [SYMMETRIC, TIE])
def test_a_constant_output_is_never_blamed_on_a_rule(puzzle):
    # What tests/mistakes/constant-output prints for every puzzle: one count line, no board.
    result = Case(puzzle).check(
        b"2 unique solutions found:\n", policy=("symmetric-tiles", "tie-order")
    )
    assert result.verdict is Verdict.WA
    assert "policy-dependent" not in result.text() and not result.policy_only


@pytest.mark.parametrize(
    "got, summary",
    [
        (
            b"\n" + SAMPLE_EXPECTED,
            "1 extra empty line at the start of the output (before line 2 of your output)",
        ),
        (
            SAMPLE_EXPECTED.replace(b"+\n\n+", b"+\n\n\n+"),
            "1 extra empty line between two boards (before line 28 of your output)",
        ),
        (
            SAMPLE_EXPECTED.replace(b"Input tiles:", b"  Input tiles:"),
            "line 1 starts with white space the expected line does not have",
        ),
    ],
)
def test_more_white_space(sample, got, summary):
    result = sample.check(got)
    assert result.verdict is Verdict.PE
    assert result.summary == "white space differs: " + summary


_SEP = "+--------+--------+--------+"
_SAMPLE_TEXT = SAMPLE_EXPECTED.decode()


def _without_lines(*indices: int) -> str:
    """The sample's expected output without these lines (0-based: 25 is the empty line
    between its boards, 16 and 30 frame lines inside them)."""
    lines = _SAMPLE_TEXT.split("\n")
    return "\n".join(line for k, line in enumerate(lines) if k not in indices)


# (the sample's expected output edited, the stray lines parse_output finds): a frame line
# drawn twice belongs to no board, wherever it is; boards printed with no empty line
# between them share none, whether read whole or line by line.
FRAME_LINES = [
    (_SAMPLE_TEXT.replace(_SEP, _SEP + "\n" + _SEP, 1), [(13, _SEP)]),
    (_SAMPLE_TEXT.replace("+\n\n+", "+\n" + _SEP + "\n\n+"), [(26, _SEP)]),
    (_SAMPLE_TEXT.replace("+\n\n+", "+\n\n" + _SEP + "\n+"), [(27, _SEP)]),
    (_SAMPLE_TEXT + _SEP + "\n", [(40, _SEP)]),
    (_SAMPLE_TEXT.replace(_SEP, "\n".join([_SEP] * 4), 1), [(13, _SEP), (14, _SEP), (15, _SEP)]),
    (_SAMPLE_TEXT.replace("+\n\n+", "+\n+"), []),
    # one board read line by line (a frame line inside it left out): the one beside it is its own
    (_without_lines(16, 25), []),
    (_without_lines(25, 30), []),
    (_SAMPLE_TEXT.replace(_SEP, _SEP + "\ndebug", 1), [(14, "debug")]),  # a lone frame line
]


@pytest.mark.parametrize("text, stray", FRAME_LINES)
def test_a_frame_line_drawn_twice_is_stray(text, stray):
    assert gp.parse_output(text).stray == stray


@pytest.mark.parametrize("cells, shown", [(1, "1 cell"), (2, "2 cells"), (4, "4 cells")])
def test_a_row_with_the_wrong_number_of_cells_says_how_many(cells, shown):
    row = _SAMPLE_TEXT.split("\n")[13]  # the first board's first row of cells
    text = _SAMPLE_TEXT.replace(row, "|".join(row.split("|")[: cells + 1]) + "|", 1)
    assert gp.parse_output(text).unreadable[0] == (14, f"line 14 shows {shown}, a row has 3")


def test_parse_output_prefers_the_worded_count_line():
    text = SAMPLE_EXPECTED.decode().replace("\n\n2 unique", "\nlooking for solutions\n\n2 unique")
    parsed = gp.parse_output(text)
    assert parsed.count_line == (13, "2 unique solutions found:") and parsed.count == 2
    assert parsed.stray == [(11, "looking for solutions")]


# ---------------------------------------------------------------- CRLF input (issue 11)

CRLF_SAMPLE = SAMPLE.replace("\n", "\r\n")


def test_a_cr_carried_from_crlf_input_is_named_as_such():
    # What a C program that splits lines on "," and "\n" prints: the \r stays in the
    # last edge of the tile listing (and nowhere else, since it then finds nothing).
    got = SAMPLE_EXPECTED.replace(b">\n", b"\r>\n")
    result = compare(SAMPLE_EXPECTED, got, CRLF_SAMPLE.encode())
    assert "mishandles CRLF input" in result.summary
    assert "first at line 2" in result.summary
    assert "CR LF (\\r\\n, Windows style)" in result.summary
    assert not any("end lines with \\n only" in line for line in result.details)
    # The same output for an input without CR LF is not blamed on the input.
    plain = compare(SAMPLE_EXPECTED, got, SAMPLE.encode())
    assert "CRLF input" not in plain.text()


def test_crlf_input_with_nothing_found_names_no_cause_the_output_does_not_show():
    """Nothing found for a CR LF puzzle may or may not come from the \r: only a run on
    the same puzzle with LF tells (grader.grading.proofs), never the comparison."""
    head = SAMPLE_EXPECTED[: SAMPLE_EXPECTED.index(b"\n\n") + 2]
    got = head + b"No solution found.\n"
    result = compare(SAMPLE_EXPECTED, got, CRLF_SAMPLE.encode())
    assert result.verdict is Verdict.WA
    assert "CRLF input" not in result.text() and "finds no solution" not in result.summary


def test_output_line_ends_are_still_about_the_output_when_the_input_is_plain():
    got = SAMPLE_EXPECTED.replace(b"\n", b"\r\n")
    result = compare(SAMPLE_EXPECTED, got, SAMPLE.encode())
    assert "every line ends in CR LF" in result.summary


def test_every_output_line_in_crlf_is_the_output_s_own_doing_even_for_crlf_input():
    got = SAMPLE_EXPECTED.replace(b"\n", b"\r\n")
    result = compare(SAMPLE_EXPECTED, got, CRLF_SAMPLE.encode())
    assert "every line ends in CR LF" in result.summary and "CRLF input" not in result.text()


# ---------------------------------------------------------------- root causes (issue 11)

# Tiles 1 and 5 each look the same turned by 180 degrees; one solution.
TWO_SYMMETRIC = (
    "D1,B0,D1,B0\nD0,C0,A1,B1\nD0,B1,C0,C1\nD0,D1,A1,D0\nA0,D0,A0,D0\n"
    "C1,C0,A0,D1\nA0,B0,C0,B1\nA1,D0,D0,B1\nA1,B1,A1,D1\n"
)


def test_a_board_printed_four_times_names_both_symmetric_tiles():
    case = Case(TWO_SYMMETRIC)
    assert len(case.boards) == 1
    result = case.check(case.render(case.boards * 4), policy=("symmetric-tiles",))
    assert "is printed 4 times" in result.summary
    assert "tiles 1 <D1, B0, D1, B0> and 5 <A0, D0, A0, D0>" in result.summary
    assert "4 of its placements draw the same board" in result.summary


def _turn_cells(board, cells, quarter):
    board = list(board)
    for i in cells:
        edges = board[i].edges
        board[i] = ps.Placement(board[i].tile, edges[4 - quarter :] + edges[: 4 - quarter])
    return tuple(board)


def test_tiles_in_the_right_cells_drawn_turned_are_named_so(sample):
    turned = _turn_cells(sample.boards[0], (0, 4, 8), 1)
    result = sample.check(sample.render([turned] + sample.boards[1:]))
    assert result.summary.startswith(
        "board 124967385 (line 13) has every tile in the right "
        "cell, but 3 of them are drawn turned: row 1, column 1 "
        "(tile 1) by a quarter turn clockwise"
    )
    text = result.text()
    assert "not a solution" not in text and "missing" not in text


@pytest.mark.parametrize(
    "old, new, named",
    [
        (b"1. <", "\uff11. <".encode(), "U+FF11 FULLWIDTH DIGIT ONE"),
        (b"Input tiles", "Inp\u0443t tiles".encode(), "U+0443 CYRILLIC SMALL LETTER U"),
        (b"<Y1,", "<\u03a51,".encode(), "U+03A5 GREEK CAPITAL LETTER UPSILON"),
        (b"2 unique", "2\u0301 unique".encode(), "a combining mark U+0301 COMBINING ACUTE ACCENT"),
    ],
)
def test_look_alike_characters_are_named(sample, old, new, named):
    result = sample.check(sample.expected.replace(old, new, 1))
    assert named in result.summary
    text = result.text()
    assert "spacing differs" not in text and "this is tile" not in text


def test_only_a_difference_the_rule_decides_is_marked_as_policy_only():
    from grader.judge.compare import POLICY_ONLY

    case = Case(SYMMETRIC)
    twice = case.check(case.render(case.boards * 2), policy=("symmetric-tiles",))
    assert POLICY_ONLY in twice.details
    assert "policy-dependent" in twice.text()
    # The same, with a stray line as well: the rule is not the cause, and is not named.
    got = case.render(case.boards * 2).replace(b"\n+", b"\ndebug\n+", 1)
    mixed = case.check(got, policy=("symmetric-tiles",))
    assert "policy-dependent" not in mixed.text() and POLICY_ONLY not in mixed.details


# ---------------------------------------------------------------- count line, exactly

# (puzzle, boards printed: "all" or "none", count line printed, summary, a detail or None).
# Each row pins one rule of the count-line diagnosis: the plural rule speaks only when
# the puzzle has exactly one solution; the count of printed boards is named with its
# own plural ("0 boards", "1 board", "2 boards").
COUNT_LINES = [
    (
        SAMPLE,
        "all",
        "2 unique solutions found",
        'the count line (line 12) is "2 unique solutions found": expected exactly '
        '"2 unique solutions found:"',
        None,
    ),
    (
        SAMPLE,
        "all",
        "2 Unique Solutions Found:",
        'the count line (line 12) is "2 Unique Solutions Found:": expected exactly '
        '"2 unique solutions found:"',
        None,
    ),
    (
        ONE,
        "all",
        "1 unique solutions found:",
        'wrong plural on line 12: with one solution the count line is "1 unique solution found:", '
        'not "1 unique solutions found:"',
        None,
    ),
    (
        SAMPLE,
        "all",
        "2 unique solution found:",
        'wrong singular on line 12: with 2 solutions the count line is "2 unique solutions found:", '
        'not "2 unique solution found:"',
        None,
    ),
    (
        SAMPLE,
        "none",
        "2 unique solutions found:",
        "2 boards are missing: 124967385 (expected at line 13), 397862514 (expected at line 27)",
        "the count line says 2 solutions but 0 boards are printed",
    ),
    (
        SAMPLE,
        "all",
        "1 unique solution found:",
        'the count line (line 12) says 1 solution, expected 2 solutions: "1 unique solution found:" '
        'instead of "2 unique solutions found:"',
        "the count line says 1 solution but 2 boards are printed",
    ),
    (
        ONE,
        "all",
        "0 unique solutions found:",
        'the count line (line 12) says "0 unique solutions found:", but the puzzle has 1 solution: '
        'expected "1 unique solution found:"',
        "the count line says no solution but 1 board is printed",
    ),
    (
        NONE,
        "none",
        "1 unique solution found:",
        "the count line (line 12) says 1 solution, but the puzzle has none: expected "
        '"No solution found."',
        "the count line says 1 solution but 0 boards are printed",
    ),
    (
        NONE,
        "none",
        "No solutions found.",
        'the count line (line 12) is "No solutions found.": expected exactly "No solution found."',
        None,
    ),
    (
        NONE,
        "none",
        "There is no solution.",
        'the count line (line 12) is "There is no solution.": expected exactly "No solution found."',
        None,
    ),
    (
        ONE,
        "all",
        "1 unique solution found",
        'the count line (line 12) is "1 unique solution found": expected exactly '
        '"1 unique solution found:"',
        None,
    ),
    (
        NONE,
        "none",
        "Solutions: none",
        'the count line (line 12) is "Solutions: none": expected "No solution found."',
        None,
    ),
]


@pytest.mark.parametrize("text, boards, count, summary, detail", COUNT_LINES)
def test_count_line_diagnosis(text, boards, count, summary, detail):
    case = Case(text)
    result = case.check(case.render(case.boards if boards == "all" else [], count=count))
    assert result.verdict is Verdict.WA
    assert result.summary == summary
    if detail is not None:
        assert detail in result.details
    assert not any(
        "boards are printed" in d or "board is printed" in d for d in result.details if d != detail
    )


# ---------------------------------------------------------------- diagnosis texts, exactly

from grader.judge.compare import quote  # noqa: E402
from grader.judge.compare.boards import _layout_difference  # noqa: E402
from grader.judge.compare.solutions import _clash_text  # noqa: E402
from tests.helpers import PUBLIC  # noqa: E402

MANY = (PUBLIC / "many-solutions.txt").read_text()  # 22 solutions


@pytest.mark.parametrize(
    "want, got, text",
    [
        ("ABC", "AC", 'a line "B" is missing before line 11'),
        ("AB", "AXB", 'line 11 ("X") should not be there'),
        ("ABC", "AB", 'a line "C" is missing before line 12'),
        ("ABCD", "AB", 'it ends early: a line "C" is missing after line 11'),
        ("AB", "ABXY", 'line 12 ("X") should not be there'),
        ("AB", "AX", 'line 11 should be "B", not "X"'),
        ("ABC", "AXC", 'line 11 should be "B", not "X"'),
        ("ABC", "ACC", 'line 11 should be "B", not "C"'),  # as long as expected: not a missing line
        ("ABB", "AXB", 'line 11 should be "B", not "X"'),  # nor an extra one
        ("XAB", "AB", 'a line "X" is missing before line 10'),
    ],
)
def test_layout_difference_names_the_first_differing_line(want, got, text):
    assert _layout_difference(list(want), list(got), 10) == text


def _clash_board(first: int, second: int, edges_first, edges_second):
    board = [gp.Cell(i + 1, ("T0", "R0", "B0", "L0")) for i in range(9)]
    board[first], board[second] = gp.Cell(first + 1, edges_first), gp.Cell(second + 1, edges_second)
    return tuple(board)


@pytest.mark.parametrize(
    "first, horizontal, a, b, text",
    [
        (
            3,
            True,
            ("A0", "R1", "C0", "D0"),
            ("E0", "F0", "G0", "G1"),
            "tile 4's right edge R1 does not match tile 5's left edge G1 (row 2, columns 1-2: "
            "different pictures)",
        ),
        (
            7,
            True,
            ("A0", "R1", "C0", "D0"),
            ("E0", "F0", "G0", "R1"),
            "tile 8's right edge R1 does not match tile 9's left edge R1 (row 3, columns 2-3: two heads)",
        ),
        (
            3,
            False,
            ("A0", "B0", "Y0", "D1"),
            ("Y0", "F1", "G1", "H1"),
            "tile 4's bottom edge Y0 does not match tile 7's top edge Y0 (column 1, rows 2-3: two tails)",
        ),
        (
            5,
            False,
            ("A0", "B0", "Y1", "D1"),
            ("Y1", "F0", "G1", "H1"),
            "tile 6's bottom edge Y1 does not match tile 9's top edge Y1 (column 3, rows 2-3: two heads)",
        ),
    ],
)
def test_clash_text_names_tiles_edges_and_place(first, horizontal, a, b, text):
    second = first + (1 if horizontal else 3)
    board = _clash_board(first, second, a, b)
    assert _clash_text(board, gp.Clash(first, second, horizontal)) == text


def test_quote_cuts_at_its_limit():
    assert quote("x" * 80) == '"' + "x" * 60 + '…"'
    assert quote("a b" * 30, 5) == '"a ba …"'


@pytest.mark.parametrize(
    "missing, text",
    [
        (
            3,
            "3 boards are missing: 395182467 (expected at line 279), 426731859 (expected at line "
            "293), 539246718 (expected at line 307)",
        ),
        (
            4,
            "4 boards are missing: 327916584 (expected at line 265), 395182467 (expected at line "
            "279), 426731859 (expected at line 293) and 1 more",
        ),
    ],
)
def test_missing_boards_named_up_to_three(missing, text):
    case = Case(MANY)
    kept = case.boards[: len(case.boards) - missing]
    result = case.check(case.render(kept, count=ps.count_line(len(case.boards))))
    assert text in result.text().split("\n")


def test_extra_boards_named_with_their_lines():
    """Boards that solve the puzzle but are not expected (as when the expected output
    follows a rule the program does not): each named with its line."""
    case = Case(MANY)
    expected = case.render(case.boards[:-2])
    got = case.render(case.boards, count=ps.count_line(20))
    result = compare(expected, got, MANY)
    [line] = [line for line in result.text().split("\n") if "extra" in line]
    assert line.startswith("2 boards are extra, not in the expected output: ")
    assert line.count(" (at line ") == 2 and " and " not in line


def _sample_lines(edit) -> bytes:
    lines = SAMPLE_EXPECTED.decode().split("\n")
    return "\n".join(edit(lines)).encode()


# (how the sample's output is changed, summary, further lines of the diagnosis)
LINE_DIAGNOSES = [
    (
        lambda L: [""] + L[:4] + [""] + L[4:10] + ["", ""] + L[10:26] + ["", "", ""] + L[26:],
        "white space differs: 1 extra empty line at the start of the output (before line 2 of "
        "your output)",
        [
            '1 extra empty line after "3. <Y1, R1, G0, B0>" (before line 7 of your output)',
            "2 extra empty lines between the tile listing and the count line (before line 16 of your "
            "output)",
            "empty lines differ in 4 places in all",
        ],
    ),
    (
        lambda L: L[:4] + [""] + L[4:10] + ["", ""] + L[10:26] + ["", "", ""] + L[26:],
        'white space differs: 1 extra empty line after "3. <Y1, R1, G0, B0>" (before line 6 of '
        "your output)",
        [
            "2 extra empty lines between the tile listing and the count line (before line 15 of your "
            "output)",
            "3 extra empty lines between two boards (before line 33 of your output)",
        ],
    ),
    (
        lambda L: L[:10] + L[11:],
        "white space differs: missing empty line between the tile listing and the count line "
        "(before line 11 of your output)",
        [],
    ),
    (
        lambda L: L[:25] + L[26:],
        "white space differs: missing empty line between two boards (before line 26 of your "
        "output)",
        [],
    ),
    (
        lambda L: L[:1] + [L[1] + " " + L[2]] + L[3:],
        'white space differs: line 2 should be "1. <Y1, G0, R0, B1>", not "1. <Y1, G0, R0, B1> '
        '2. <Y0, B1, R1, B0>" (the same words, broken into lines differently)',
        [],
    ),
    (
        lambda L: L[:1] + ["1. <Y1, G0, R0, B1"] + L[2:],
        'the "Input tiles:" listing is wrong at line 2: expected "1. <Y1, G0, R0, B1>", got '
        '"1. <Y1, G0, R0, B1" (the edges go between < and >)',
        [],
    ),
    (
        lambda L: L[:1] + ["1. <Y1, G0, R0, B1, >"] + L[2:],
        'the "Input tiles:" listing is wrong at line 2: expected "1. <Y1, G0, R0, B1>", got '
        '"1. <Y1, G0, R0, B1, >" (edges are separated by a comma and a space)',
        [],
    ),
    (
        lambda L: (
            L[:1] + ["1.  <Y1, G0, R0, B1>"] + L[2:11] + ["3 unique solutions found:"] + L[12:]
        ),
        'the count line (line 12) says 3 solutions, expected 2 solutions: "3 unique solutions '
        'found:" instead of "2 unique solutions found:"',
        [
            'the "Input tiles:" listing is wrong at line 2: expected "1. <Y1, G0, R0, B1>", got '
            '"1.  <Y1, G0, R0, B1>" (spacing differs)'
        ],
    ),
]


@pytest.mark.parametrize("edit, summary, more", LINE_DIAGNOSES)
def test_line_by_line_diagnosis(sample, edit, summary, more):
    result = sample.check(_sample_lines(edit))
    assert result.summary == summary
    assert result.details[3 : 3 + len(more)] == more


def test_tie_order_shows_the_first_differing_drawn_line():
    case = Case(TIE)
    result = case.check(case.render(case.boards[::-1]), policy=("tie-order",))
    assert result.summary == (
        "boards with the same 9-digit string 369817425 are in the wrong order (lines 13 and 27): "
        "they go by their drawn text, compared as strings "
        '("|3  A1   |6  A1   |9  A1   |" comes before "|3  A1   |6  A1   |9  B0   |")'
    )


@pytest.mark.parametrize(
    "cell, summary, also",
    [
        (
            "|9  G0   |",
            "board 129967385 (line 13) is not a solution: it uses tile 9 twice (row 1, "
            "column 3 and row 2, column 1)",
            "board 129967385 also: row 1, column 3 shows tile 9 as G0 B0 G1 Y1 (top, right, bottom, "
            "left), which is not a rotation of tile 9 <R0, G1, Y1, B0>",
        ),
        (
            "|10 G0   |",
            "board 1210967385 (line 13) is not a solution: row 1, column 3 shows tile 10, "
            "which does not exist",
            None,
        ),
    ],
)
def test_a_cell_naming_the_last_or_a_missing_tile(sample, cell, summary, also):
    result = sample.check(sample.expected.replace(b"|4  G0   |", cell.encode(), 1))
    assert result.summary == summary
    assert (also in result.details) if also else not any(" also: " in d for d in result.details)


def _many_edit(edit) -> bytes:
    case = Case(MANY)
    return edit(case, case.boards)


def _with_stray_lines(case, boards):
    lines = case.render(boards).decode().split("\n")
    lines.insert(13, "debug 1")
    lines.insert(30, "debug 2")
    return "\n".join(lines).encode()


# (how the 22 solutions of many-solutions are printed, the whole diagnosis after the
# first-difference lines)
MANY_DIAGNOSES = [
    (
        lambda c, B: c.render(B[:2] + [B[3], B[2]] + B[4:]),
        [
            "boards are out of order: 143689725 (line 41) comes before 142935678 (line 55); boards go "
            "in increasing order of their 9-digit string"
        ],
    ),
    (
        lambda c, B: c.render(B + [B[0]] * 6, count=ps.count_line(22)),
        [
            "the count line says 22 solutions but 28 boards are printed",
            "board 126738459 is printed 7 times (lines 13, 321, 335, 349, 363, 377, ...)",
        ],
    ),
    (
        lambda c, B: c.render(B[:4] * 2 + B[4:], count=ps.count_line(22)),
        [
            "the count line says 22 solutions but 26 boards are printed",
            "board 126738459 is printed twice (lines 13, 69)",
            "board 127634895 is printed twice (lines 27, 83)",
            "board 142935678 is printed twice (lines 41, 97)",
            "1 more board is printed more than once",
        ],
    ),
    (
        lambda c, B: c.render([rotate(B[0]), rotate(B[1])] + B[2:]),
        [
            "board 471532986 (line 13) is a rotation of 126738459: print the rotation whose top-left "
            "tile has the smallest number of the four corners (2 boards are printed in another "
            "rotation)"
        ],
    ),
    (
        _with_stray_lines,
        [
            'line 14 is not part of the required output: "debug 1" (2 such lines in all); print '
            "nothing but the tile listing, the count line and the boards",
            "board 127634895 is missing (expected at line 27)",
            "the count line says 22 solutions but 21 readable boards are printed",
            "could not read a board at line 29: a row of cells needs 3 lines with '|' in them "
            "(2 places in all)",
            "board 126738459 (line 15) is not drawn in the required layout: a line "
            '"+--------+--------+--------+" is missing before line 15',
        ],
    ),
]


@pytest.mark.parametrize("edit, diagnosis", MANY_DIAGNOSES)
def test_whole_diagnosis_of_many_boards(edit, diagnosis):
    result = compare(Case(MANY).expected, _many_edit(edit), MANY)
    assert result.verdict is Verdict.WA
    assert [result.summary] + result.details[3:] == diagnosis


def test_a_cases_expected_output_is_read_once_for_all_the_wrong_answers_beside_it(monkeypatch):
    """Each program's wrong answer on a case is read beside the same expected output:
    the judge reads that once, and its reading is the same for each of them."""
    expected = ps.render(ps.parse(SAMPLE), ps.solve(ps.parse(SAMPLE))).encode()
    wrong = [expected.replace(b"solutions", b"answers"), expected[: len(expected) // 2]]
    plain = [compare(expected, got, SAMPLE) for got in wrong]
    read: list[str] = []
    real = gp.parse_output
    monkeypatch.setattr(
        "grader.judge.compare.answer.parse_output", lambda text: read.append(text) or real(text)
    )
    unique = expected + b"\n"  # an expected output no earlier test has had read
    for _ in range(3):
        for got in wrong:
            assert compare(unique, got + b"\n", SAMPLE).verdict is Verdict.WA
    assert read.count(unique.decode()) == 1
    assert [compare(expected, got, SAMPLE) for got in wrong] == plain
