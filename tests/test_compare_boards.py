"""grader.judge.compare, the answer half: what a wrong answer means in the puzzle's terms.

Each table row is an output a student's program could print and the exact issues
answer_issues finds in it: (rank, text, policy rule), most important first as
the student reads them.  The white-space notes (rank 90) belong to
tests/test_compare.py and are left out here.  Fast, pure logic: the reference
solves and draws a few small puzzles; no program is built or run.
"""

import pytest

from grader.cases.puzzle import parse_output
from grader.judge.compare import answer_issues
from grader.judge.compare.listing import puzzle_tiles as _tiles
from grader.judge.compare.lookalike import _describe
from grader.judge.compare.lookalike import lookalike_issues as _lookalike_issues
from reference import puzzlesolver as ps
from tests.helpers import NO_SOLUTION, SAMPLE_EXPECTED
from tests.helpers import SAMPLE_TEXT as SAMPLE

pytestmark = pytest.mark.fast

# Tile 9 looks the same turned by 180 degrees; one solution (SYMMETRIC_PUZZLE in tests/helpers.py).
SYMMETRIC = "A0,B1,C0,C0\nC1,A0,A0,C0\nC0,C1,B0,A1\nB1,C1,A0,A1\nA0,B0,A0,A0\nA0,A1,B0,B1\nB1,C0,A0,A1\nC1,C1,B0,B0\nC0,B1,C0,B1\n"
# 22 solutions.
MANY = "Y1,G0,Y1,R1\nR1,R0,B1,Y0\nR0,R0,Y0,B0\nY1,Y0,G1,R1\nB1,R0,G0,Y1\nY1,R0,R0,Y1\nR1,Y0,B0,Y0\nY1,Y0,Y0,G0\nR1,R1,G1,G1\n"
# Tiles 1, 5 and 9 each look the same turned by 180 degrees (built around one solution).
# Tile 1 is listed a quarter turn from how the solution draws it.
THREE_SYMMETRIC = "C0,I0,C0,I0\nA0,D0,J0,C1\nA0,A0,K0,D1\nI1,E0,L0,A0\nJ1,E1,J1,E1\nK1,A0,N0,E0\nL1,G0,A0,A0\nJ0,H0,A0,G1\nN1,H1,N1,H1\n"
# Two solutions with the same digits 369817425 (TIE_PUZZLE in tests/helpers.py).
TIE = "C0,C0,C0,A1\nB1,C1,B0,C1\nA1,C1,A0,C1\nA1,A1,B0,B0\nC0,A1,B1,B1\nA1,A0,C1,C0\nA0,C0,C1,A0\nA1,A1,C1,B1\nA1,B0,A1,A1\n"


def solutions(text: str) -> list:
    return list(ps.solve(ps.parse(text)))


def render(text: str, boards, count: int | None = None) -> bytes:
    """The output of a program printing these boards (and this count, if given)."""
    out = ps.render(ps.parse(text), boards)
    if count is not None:
        out = out.replace(ps.count_line(len(boards)), ps.count_line(count), 1)
    return out.encode()


def expected(text: str) -> bytes:
    return render(text, solutions(text))


def issues(got: bytes, text: str = SAMPLE, policy=(), want: bytes | None = None) -> list:
    """answer_issues as (rank, text, rule) rows in the order the student reads them
    (most important first), without the white-space notes."""
    want = expected(text) if want is None else want
    found = sorted(answer_issues(want, got, text, tuple(policy)), key=lambda issue: issue.rank)
    return [tuple(issue) for issue in found if issue.rank != 90]


def turned(placement, quarters: int = 1):
    """A tile drawn turned clockwise in its cell."""
    edges = placement.edges
    for _ in range(quarters):
        edges = edges[3:] + edges[:3]
    return ps.Placement(placement.tile, edges)


def with_cells(b, changes: dict):
    return tuple(changes.get(i, cell) for i, cell in enumerate(b))


def rotated(b):
    """The whole board turned clockwise (another rotation of the same solution)."""
    return tuple(turned(b[(2 - c) * 3 + r]) for r in range(3) for c in range(3))


def swapped(b, i: int, j: int):
    """Two cells' tiles swapped, each drawn as it was."""
    cells = list(b)
    cells[i], cells[j] = cells[j], cells[i]
    return tuple(cells)


def unlisted(text: str) -> bytes:
    """The expected output with its last listing line lost: the tiles cannot be read from it."""
    return expected(text).replace(
        b"9. <" + ", ".join(ps.parse(text).tiles[8]).encode() + b">\n", b""
    )


S = solutions(SAMPLE)
M = solutions(MANY)
SAMPLE_LINES = SAMPLE_EXPECTED.split(b"\n")

# id: (what the program prints, the puzzle, the case's policy, the expected output if not
# the reference's own).  The diagnosis of each is in DIAGNOSES below.
OUTPUTS = {
    # -- nothing to read: one issue, and nothing buried under it
    "empty": (lambda: b"", SAMPLE, (), None),
    "white space only": (lambda: b" \n\n", SAMPLE, (), None),
    "not the puzzle's output": (lambda: b"hello\nworld\n", SAMPLE, (), None),
    # -- bytes that are not text: the line of the first one
    "NUL after a leading empty line": (
        lambda: b"\n" + SAMPLE_EXPECTED.replace(b"1. <", b"1.\x00<", 1),
        SAMPLE,
        (),
        None,
    ),
    "control byte before bad UTF-8": (
        lambda: SAMPLE_EXPECTED.replace(b"2. <", b"2.\x07<", 1).replace(b"5. <", b"5.\xff<", 1),
        SAMPLE,
        (),
        None,
    ),
    "bad UTF-8 only": (lambda: SAMPLE_EXPECTED.replace(b"5. <", b"5.\xe9<", 1), SAMPLE, (), None),
    # An expected output that is not UTF-8 (say, an instructor's hand-made Latin-1 one):
    # its bytes are shown escaped, and the diagnosis goes on.
    "expected output in Latin-1": (
        lambda: SAMPLE_EXPECTED,
        SAMPLE,
        (),
        SAMPLE_EXPECTED.replace(b"2 unique solutions found:", b"2 solutions trouv\xe9es:"),
    ),
    # -- look-alike characters
    "one Greek letter": (
        lambda: b"\n" + SAMPLE_EXPECTED.replace(b"1. <Y1", "1. <Υ1".encode(), 1),
        SAMPLE,
        (),
        None,
    ),
    "two Greek letters": (
        lambda: SAMPLE_EXPECTED.replace(b"Y1", "Υ1".encode(), 2),
        SAMPLE,
        (),
        None,
    ),
    "a combining mark": (
        lambda: SAMPLE_EXPECTED.replace(b"<Y0, B1", "<Y0, B\u03011".encode(), 1),
        SAMPLE,
        (),
        None,
    ),
    # -- the count line
    "count line missing": (
        lambda: SAMPLE_EXPECTED.replace(b"2 unique solutions found:\n", b"", 1),
        SAMPLE,
        (),
        None,
    ),
    "count line after the boards": (
        lambda: (
            SAMPLE_EXPECTED.replace(b"2 unique solutions found:\n", b"", 1)
            + b"\n2 unique solutions found:\n"
        ),
        SAMPLE,
        (),
        None,
    ),
    "zero where there is no solution, symmetric tiles": (
        lambda: render(NO_SOLUTION, []).replace(
            b"No solution found.", b"0 unique solutions found:"
        ),
        NO_SOLUTION,
        ("symmetric-tiles",),
        None,
    ),
    "wrong plural, symmetric tiles": (
        lambda: render(SYMMETRIC, solutions(SYMMETRIC)).replace(
            b"solution found", b"solutions found"
        ),
        SYMMETRIC,
        ("symmetric-tiles",),
        None,
    ),
    "count inflated by a symmetric tile": (
        lambda: render(SYMMETRIC, solutions(SYMMETRIC), count=2),
        SYMMETRIC,
        ("symmetric-tiles",),
        None,
    ),
    "count of one, boards of two": (lambda: render(SAMPLE, S, count=1), SAMPLE, (), None),
    # -- the tile listing
    "no header": (
        lambda: SAMPLE_EXPECTED.replace(b"Input tiles:\n", b"", 1),
        SAMPLE,
        (),
        None,
    ),
    "boards only": (
        lambda: SAMPLE_EXPECTED[SAMPLE_EXPECTED.index(b"+") :],
        SAMPLE,
        (),
        None,
    ),
    "count line only": (lambda: b"No solution found.\n", NO_SOLUTION, (), None),
    "a listing line lost": (
        lambda: SAMPLE_EXPECTED.replace(SAMPLE_LINES[3] + b"\n", b"", 1),
        SAMPLE,
        (),
        None,
    ),
    # -- lines that are no part of the output
    "one stray line": (
        lambda: SAMPLE_EXPECTED.replace(b"\n\n+", b"\n\ndebug\n+", 1),
        SAMPLE,
        (),
        None,
    ),
    "stray lines past the reading budget": (  # "+": not plain text after the output
        lambda: SAMPLE_EXPECTED + b"+debug\n" * 20_001,
        SAMPLE,
        (),
        None,
    ),
    # -- boards missing, extra, not solutions
    "one board missing": (lambda: render(SAMPLE, S[:1], count=2), SAMPLE, (), None),
    "one board extra": (lambda: render(SAMPLE, S, count=1), SAMPLE, (), render(SAMPLE, S[:1])),
    "tiles unknown, a tile used twice": (
        lambda: unlisted(SAMPLE).replace(b"|4  G0   |", b"|9  G0   |", 1),
        "not a puzzle",
        (),
        unlisted(SAMPLE),
    ),
    "listing unreadable, tiles from the puzzle": (
        lambda: unlisted(SAMPLE).replace(b"|4  G0   |", b"|9  G0   |", 1),
        SAMPLE,
        (),
        unlisted(SAMPLE),
    ),
    "four problems": (lambda: render(SAMPLE, [swapped(S[0], 1, 2), S[1]]), SAMPLE, (), None),
    "five problems": (lambda: render(SAMPLE, [swapped(S[0], 1, 3), S[1]]), SAMPLE, (), None),
    "six problems": (lambda: render(SAMPLE, [swapped(S[0], 0, 4), S[1]]), SAMPLE, (), None),
    "three boards not solutions": (
        lambda: render(MANY, [swapped(b, 1, 7) for b in M[:3]] + M[3:]),
        MANY,
        (),
        None,
    ),
    "four boards not solutions": (
        lambda: render(MANY, [swapped(b, 1, 7) for b in M[:4]] + M[4:]),
        MANY,
        (),
        None,
    ),
    "five boards not solutions": (
        lambda: render(MANY, [swapped(b, 1, 7) for b in M[:5]] + M[5:]),
        MANY,
        (),
        None,
    ),
    # -- tiles in the right cells, drawn turned
    "one cell turned": (
        lambda: render(SAMPLE, [with_cells(S[0], {4: turned(S[0][4])}), S[1]]),
        SAMPLE,
        (),
        None,
    ),
    "two cells turned": (
        lambda: render(
            SAMPLE, [with_cells(S[0], {1: turned(S[0][1], 2), 4: turned(S[0][4], 3)}), S[1]]
        ),
        SAMPLE,
        (),
        None,
    ),
    "three cells turned": (
        lambda: render(SAMPLE, [with_cells(S[0], {i: turned(S[0][i]) for i in (0, 1, 2)}), S[1]]),
        SAMPLE,
        (),
        None,
    ),
    "four cells turned": (
        lambda: render(
            SAMPLE, [with_cells(S[0], {i: turned(S[0][i]) for i in (0, 1, 2, 3)}), S[1]]
        ),
        SAMPLE,
        (),
        None,
    ),
    "the same turned board twice": (
        lambda: render(SAMPLE, [with_cells(S[0], {4: turned(S[0][4])})] * 2 + [S[1]], count=2),
        SAMPLE,
        (),
        None,
    ),
    "a board not a solution, then one turned": (
        lambda: render(SAMPLE, [swapped(S[0], 0, 1), with_cells(S[1], {4: turned(S[1][4])})]),
        SAMPLE,
        (),
        None,
    ),
    "three boards turned": (
        lambda: render(MANY, [with_cells(b, {4: turned(b[4])}) for b in M[:3]] + M[3:]),
        MANY,
        (),
        None,
    ),
    "four boards turned": (
        lambda: render(MANY, [with_cells(b, {4: turned(b[4])}) for b in M[:4]] + M[4:]),
        MANY,
        (),
        None,
    ),
    "five boards turned": (
        lambda: render(MANY, [with_cells(b, {4: turned(b[4])}) for b in M[:5]] + M[5:]),
        MANY,
        (),
        None,
    ),
    # -- printed more than once
    "the second board twice": (lambda: render(SAMPLE, S + [S[1]], count=2), SAMPLE, (), None),
    "a board three times": (lambda: render(SAMPLE, S + [S[0]] * 2, count=2), SAMPLE, (), None),
    "a board six times": (lambda: render(SAMPLE, S + [S[0]] * 5, count=2), SAMPLE, (), None),
    "a board in every rotation, seven times": (
        lambda: render(
            SAMPLE,
            [S[0], rotated(S[0]), rotated(rotated(S[0])), rotated(rotated(rotated(S[0])))]
            + [S[0]] * 3
            + [S[1]],
            count=2,
        ),
        SAMPLE,
        (),
        None,
    ),
    "three boards twice": (lambda: render(MANY, M[:3] + M, count=22), MANY, (), None),
    "four boards twice": (lambda: render(MANY, M[:4] + M, count=22), MANY, (), None),
    "five boards twice": (lambda: render(MANY, M[:5] + M, count=22), MANY, (), None),
    "a symmetric tile's board twice": (
        lambda: render(SYMMETRIC, solutions(SYMMETRIC) * 2, count=1),
        SYMMETRIC,
        (),
        None,
    ),
    "a symmetric tile's board twice, by the rule": (
        lambda: render(SYMMETRIC, solutions(SYMMETRIC) * 2, count=1),
        SYMMETRIC,
        ("symmetric-tiles",),
        None,
    ),
    "three symmetric tiles' board twice": (
        lambda: render(THREE_SYMMETRIC, solutions(THREE_SYMMETRIC) * 2, count=1),
        THREE_SYMMETRIC,
        (),
        None,
    ),
    "three symmetric tiles' board twice, by the rule": (
        lambda: render(THREE_SYMMETRIC, solutions(THREE_SYMMETRIC) * 2, count=1),
        THREE_SYMMETRIC,
        ("symmetric-tiles",),
        None,
    ),
    "three symmetric tiles, tiles unknown": (
        lambda: (
            unlisted(THREE_SYMMETRIC)
            + b"\n"
            + unlisted(THREE_SYMMETRIC)[unlisted(THREE_SYMMETRIC).index(b"+") :]
        ),
        "not a puzzle",
        (),
        unlisted(THREE_SYMMETRIC),
    ),
    # -- rotation and order
    "one board in another rotation": (
        lambda: render(SAMPLE, [rotated(S[0]), S[1]]),
        SAMPLE,
        (),
        None,
    ),
    "out of order": (lambda: render(SAMPLE, S[::-1]), SAMPLE, (), None),
    "same digits out of order": (lambda: render(TIE, solutions(TIE)[::-1]), TIE, (), None),
    "same digits out of order, by the rule": (
        lambda: render(TIE, solutions(TIE)[::-1]),
        TIE,
        ("tie-order",),
        None,
    ),
}


# The first three of many boards, each not a solution (the first named in full), and
# each with a tile drawn turned: what the three, four and five boards rows begin with.
_THREE_NOT_SOLUTIONS = [
    (
        30,
        "board 156738429 (line 13) is not a solution: tile 1's right edge R1 does not match tile 5's left edge Y1 (row 1, columns 1-2: different pictures)",
        None,
    ),
    (
        30,
        "board 156738429 also: tile 5's right edge R0 does not match tile 6's left edge Y1 (row 1, columns 2-3: different pictures)",
        None,
    ),
    (
        30,
        "board 156738429 also: tile 5's bottom edge G0 does not match tile 3's top edge R0 (column 2, rows 1-2: different pictures)",
        None,
    ),
    (
        30,
        "board 156738429 also: tile 4's right edge Y0 does not match tile 2's left edge R0 (row 3, columns 1-2: different pictures)",
        None,
    ),
    (30, "board 156738429: 1 more problem", None),
    (
        30,
        "board 197634825 (line 27) is not a solution: tile 1's right edge Y1 does not match tile 9's left edge G1 (row 1, columns 1-2: different pictures)",
        None,
    ),
    (
        30,
        "board 172935648 (line 41) is not a solution: tile 7's right edge Y0 does not match tile 2's left edge R0 (row 1, columns 2-3: different pictures)",
        None,
    ),
]
_THREE_TURNED = [
    (
        29,
        "board 126738459 (line 13) has every tile in the right cell, but one of them is drawn turned: row 2, column 2 (tile 3) by a quarter turn clockwise (the solution expected at line 13 draws each tile as it is placed)",
        None,
    ),
    (
        29,
        "board 127634895 (line 27) has every tile in the right cell, but one of them is drawn turned: row 2, column 2 (tile 3) by a quarter turn clockwise (the solution expected at line 27 draws each tile as it is placed)",
        None,
    ),
    (
        29,
        "board 142935678 (line 41) has every tile in the right cell, but one of them is drawn turned: row 2, column 2 (tile 3) by a quarter turn clockwise (the solution expected at line 41 draws each tile as it is placed)",
        None,
    ),
]


DIAGNOSES = {
    "empty": [
        (0, "the output is empty", None),
    ],
    "white space only": [
        (0, "the output is only white space", None),
    ],
    "not the puzzle's output": [
        (
            1,
            'the output does not look like the puzzle\'s output: no "Input tiles:" listing, no count line, no board',
            None,
        ),
    ],
    "NUL after a leading empty line": [
        (
            15,
            "the output contains bytes that are not printable text (first at line 3: \\x00)",
            None,
        ),
        (
            20,
            'the "Input tiles:" listing is wrong at line 3: expected "1. <Y1, G0, R0, B1>", got "1.\\x00<Y1, G0, R0, B1>" (spacing differs)',
            None,
        ),
    ],
    "control byte before bad UTF-8": [
        (
            3,
            "line 6 contains bytes that are not UTF-8 text; the output must use plain ASCII characters only",
            None,
        ),
        (
            15,
            "the output contains bytes that are not printable text (first at line 3: \\x07)",
            None,
        ),
        (
            20,
            'the "Input tiles:" listing is wrong at line 3: expected "2. <Y0, B1, R1, B0>", got "2.\\x07<Y0, B1, R1, B0>" (spacing differs)',
            None,
        ),
    ],
    "bad UTF-8 only": [
        (
            3,
            "line 6 contains bytes that are not UTF-8 text; the output must use plain ASCII characters only",
            None,
        ),
        (
            15,
            "the output contains bytes that are not printable text (first at line 6: \\xe9)",
            None,
        ),
        (
            20,
            'the "Input tiles:" listing is wrong at line 6: expected "5. <B0, G0, R1, Y1>", got "5.\\xe9<B0, G0, R1, Y1>" (it contains a character that only looks like the expected one)',
            None,
        ),
    ],
    "expected output in Latin-1": [
        (
            10,
            'the count line (line 12) is "2 unique solutions found:": expected exactly '
            '"2 solutions trouv\\xe9es:"',
            None,
        ),
    ],
    "one Greek letter": [
        (
            3,
            'line 3 contains the look-alike character "Υ" (U+03A5 GREEK CAPITAL LETTER UPSILON) where "Y" belongs; the output must use plain ASCII characters only',
            None,
        ),
        (
            20,
            'the "Input tiles:" listing is wrong at line 3: expected "1. <Y1, G0, R0, B1>", got "1. <Υ1, G0, R0, B1>" (it contains a character that only looks like the expected one)',
            None,
        ),
    ],
    "two Greek letters": [
        (
            3,
            'line 2 contains the look-alike character "Υ" (U+03A5 GREEK CAPITAL LETTER UPSILON) where "Y" belongs; the output must use plain ASCII characters only (2 characters that are not ASCII in all)',
            None,
        ),
        (
            20,
            'the "Input tiles:" listing is wrong at line 2: expected "1. <Y1, G0, R0, B1>", got "1. <Υ1, G0, R0, B1>" (it contains a character that only looks like the expected one)',
            None,
        ),
    ],
    "a combining mark": [
        (
            3,
            'line 3 contains a combining mark U+0301 COMBINING ACUTE ACCENT on "B": it draws over the character before it and is a character of its own; the output must use plain ASCII characters only',
            None,
        ),
        (
            20,
            'the "Input tiles:" listing is wrong at line 3: expected "2. <Y0, B1, R1, B0>", got "2. <Y0, B́1, R1, B0>" (it contains a character that only looks like the expected one)',
            None,
        ),
    ],
    "count line missing": [
        (10, 'the count line is missing: expected "2 unique solutions found:"', None),
    ],
    "count line after the boards": [
        (
            11,
            "the count line (line 40) comes after the first board (line 12): it goes right after the tile listing and an empty line, before the boards",
            None,
        ),
    ],
    "zero where there is no solution, symmetric tiles": [
        (
            10,
            'the count line (line 12) is "0 unique solutions found:": expected exactly "No solution found."',
            None,
        ),
    ],
    "wrong plural, symmetric tiles": [
        (
            10,
            'wrong plural on line 12: with one solution the count line is "1 unique solution found:", not "1 unique solutions found:"',
            None,
        ),
    ],
    "count inflated by a symmetric tile": [
        (
            10,
            'the count line (line 12) says 2 solutions, expected 1 solution: "2 unique solutions found:" instead of "1 unique solution found:"',
            "symmetric-tiles",
        ),
        (48, "the count line says 2 solutions but 1 board is printed", None),
    ],
    "count of one, boards of two": [
        (
            10,
            'the count line (line 12) says 1 solution, expected 2 solutions: "1 unique solution found:" instead of "2 unique solutions found:"',
            None,
        ),
        (48, "the count line says 1 solution but 2 boards are printed", None),
    ],
    "no header": [
        (20, 'the output must start with the line "Input tiles:"', None),
    ],
    "boards only": [
        (10, 'the count line is missing: expected "2 unique solutions found:"', None),
        (20, 'the output must start with the line "Input tiles:"', None),
    ],
    "count line only": [
        (20, 'the output must start with the line "Input tiles:"', None),
    ],
    "a listing line lost": [
        (
            20,
            'the "Input tiles:" listing is wrong at line 4: expected "3. <Y1, R1, G0, B0>", got "4. <Y1, G0, B0, G1>" (tiles are numbered from 1: this is tile 3)',
            None,
        ),
        (21, 'the "Input tiles:" listing has 8 line(s), expected 9 (one per tile)', None),
    ],
    "one stray line": [
        (
            25,
            'line 27 is not part of the required output: "debug"; print nothing but the tile listing, the count line and the boards',
            None,
        ),
    ],
    "stray lines past the reading budget": [
        (
            25,
            'line 40 is not part of the required output: "+debug" (19,988 such lines before line 20,028; the output\'s lines were not read one by one past there); print nothing but the tile listing, the count line and the boards',
            None,
        ),
    ],
    "one board missing": [
        (40, "board 397862514 is missing (expected at line 27)", None),
        (48, "the count line says 2 solutions but 1 board is printed", None),
    ],
    "one board extra": [
        (45, "board 397862514 (line 27) is extra: it is not in the expected output", None),
        (48, "the count line says 1 solution but 2 boards are printed", None),
    ],
    "tiles unknown, a tile used twice": [
        (
            30,
            "board 129967385 (line 12) is not a solution: it uses tile 9 twice (row 1, column 3 and row 2, column 1)",
            None,
        ),
        (40, "board 124967385 is missing (expected at line 12)", None),
    ],
    "listing unreadable, tiles from the puzzle": [
        (
            30,
            "board 129967385 (line 12) is not a solution: it uses tile 9 twice (row 1, column 3 and row 2, column 1)",
            None,
        ),
        (
            30,
            "board 129967385 also: row 1, column 3 shows tile 9 as G0 B0 G1 Y1 (top, right, bottom, left), which is not a rotation of tile 9 <R0, G1, Y1, B0>",
            None,
        ),
        (40, "board 124967385 is missing (expected at line 12)", None),
    ],
    "four problems": [
        (
            30,
            "board 142967385 (line 13) is not a solution: tile 1's right edge R0 does not match tile 4's left edge Y1 (row 1, columns 1-2: different pictures)",
            None,
        ),
        (
            30,
            "board 142967385 also: tile 4's right edge B0 does not match tile 2's left edge R1 (row 1, columns 2-3: different pictures)",
            None,
        ),
        (
            30,
            "board 142967385 also: tile 4's bottom edge G1 does not match tile 6's top edge B0 (column 2, rows 1-2: different pictures)",
            None,
        ),
        (
            30,
            "board 142967385 also: tile 2's bottom edge B1 does not match tile 7's top edge G0 (column 3, rows 1-2: different pictures)",
            None,
        ),
        (40, "board 124967385 is missing (expected at line 13)", None),
    ],
    "five problems": [
        (
            30,
            "board 194267385 (line 13) is not a solution: tile 1's right edge R0 does not match tile 9's left edge Y1 (row 1, columns 1-2: different pictures)",
            None,
        ),
        (
            30,
            "board 194267385 also: tile 9's right edge R0 does not match tile 4's left edge Y1 (row 1, columns 2-3: different pictures)",
            None,
        ),
        (
            30,
            "board 194267385 also: tile 9's bottom edge G1 does not match tile 6's top edge B0 (column 2, rows 1-2: different pictures)",
            None,
        ),
        (
            30,
            "board 194267385 also: tile 2's right edge Y0 does not match tile 6's left edge R1 (row 2, columns 1-2: different pictures)",
            None,
        ),
        (30, "board 194267385: 1 more problem", None),
        (40, "board 124967385 is missing (expected at line 13)", None),
    ],
    "six problems": [
        (
            30,
            "board 624917385 (line 13) is not a solution: tile 6's right edge Y0 does not match tile 2's left edge R1 (row 1, columns 1-2: different pictures)",
            None,
        ),
        (
            30,
            "board 624917385 also: tile 6's bottom edge G1 does not match tile 9's top edge B0 (column 1, rows 1-2: different pictures)",
            None,
        ),
        (
            30,
            "board 624917385 also: tile 2's bottom edge B1 does not match tile 1's top edge G0 (column 2, rows 1-2: different pictures)",
            None,
        ),
        (
            30,
            "board 624917385 also: tile 9's right edge R0 does not match tile 1's left edge Y1 (row 2, columns 1-2: different pictures)",
            None,
        ),
        (30, "board 624917385: 2 more problems", None),
        (40, "board 124967385 is missing (expected at line 13)", None),
    ],
    "three boards not solutions": [
        *_THREE_NOT_SOLUTIONS,
        (
            40,
            "3 boards are missing: 126738459 (expected at line 13), 127634895 (expected at line 27), 142935678 (expected at line 41)",
            None,
        ),
    ],
    "four boards not solutions": [
        *_THREE_NOT_SOLUTIONS,
        (31, "1 more printed board is not a solution", None),
        (
            40,
            "4 boards are missing: 126738459 (expected at line 13), 127634895 (expected at line 27), 142935678 (expected at line 41) and 1 more",
            None,
        ),
    ],
    "five boards not solutions": [
        *_THREE_NOT_SOLUTIONS,
        (31, "2 more printed boards are not solutions", None),
        (
            40,
            "5 boards are missing: 126738459 (expected at line 13), 127634895 (expected at line 27), 142935678 (expected at line 41) and 2 more",
            None,
        ),
    ],
    "one cell turned": [
        (
            29,
            "board 124967385 (line 13) has every tile in the right cell, but one of them is drawn turned: row 2, column 2 (tile 6) by a quarter turn clockwise (the solution expected at line 13 draws each tile as it is placed)",
            None,
        ),
    ],
    "two cells turned": [
        (
            29,
            "board 124967385 (line 13) has every tile in the right cell, but 2 of them are drawn turned: row 1, column 2 (tile 2) by half a turn; row 2, column 2 (tile 6) by a quarter turn counterclockwise (the solution expected at line 13 draws each tile as it is placed)",
            None,
        ),
    ],
    "three cells turned": [
        (
            29,
            "board 124967385 (line 13) has every tile in the right cell, but 3 of them are drawn turned: row 1, column 1 (tile 1) by a quarter turn clockwise; row 1, column 2 (tile 2) by a quarter turn clockwise; row 1, column 3 (tile 4) by a quarter turn clockwise (the solution expected at line 13 draws each tile as it is placed)",
            None,
        ),
    ],
    "four cells turned": [
        (
            29,
            "board 124967385 (line 13) has every tile in the right cell, but 4 of them are drawn turned: row 1, column 1 (tile 1) by a quarter turn clockwise; row 1, column 2 (tile 2) by a quarter turn clockwise; row 1, column 3 (tile 4) by a quarter turn clockwise and 1 more (the solution expected at line 13 draws each tile as it is placed)",
            None,
        ),
    ],
    "the same turned board twice": [
        (
            29,
            "board 124967385 (line 13) has every tile in the right cell, but one of them is drawn turned: row 2, column 2 (tile 6) by a quarter turn clockwise (the solution expected at line 13 draws each tile as it is placed)",
            None,
        ),
        (
            30,
            "board 124967385 (line 27) is not a solution: tile 2's bottom edge B1 does not match tile 6's top edge R1 (column 2, rows 1-2: different pictures)",
            None,
        ),
        (
            30,
            "board 124967385 also: tile 9's right edge R0 does not match tile 6's left edge G1 (row 2, columns 1-2: different pictures)",
            None,
        ),
        (
            30,
            "board 124967385 also: tile 6's right edge B0 does not match tile 7's left edge Y1 (row 2, columns 2-3: different pictures)",
            None,
        ),
        (
            30,
            "board 124967385 also: tile 6's bottom edge Y0 does not match tile 8's top edge G0 (column 2, rows 2-3: different pictures)",
            None,
        ),
        (48, "the count line says 2 solutions but 3 boards are printed", None),
    ],
    "a board not a solution, then one turned": [
        (
            29,
            "board 397862514 (line 27) has every tile in the right cell, but one of them is drawn turned: row 2, column 2 (tile 6) by a quarter turn clockwise (the solution expected at line 27 draws each tile as it is placed)",
            None,
        ),
        (
            30,
            "board 214967385 (line 13) is not a solution: tile 1's right edge R0 does not match tile 4's left edge Y1 (row 1, columns 2-3: different pictures)",
            None,
        ),
        (40, "board 124967385 is missing (expected at line 13)", None),
    ],
    "three boards turned": [
        *_THREE_TURNED,
    ],
    "four boards turned": [
        *_THREE_TURNED,
        (29, "1 more board has its tiles in the right cells but some drawn turned", None),
    ],
    "five boards turned": [
        *_THREE_TURNED,
        (29, "2 more boards have their tiles in the right cells but some drawn turned", None),
    ],
    "the second board twice": [
        (48, "the count line says 2 solutions but 3 boards are printed", None),
        (50, "board 397862514 is printed twice (lines 27, 41)", None),
    ],
    "a board three times": [
        (48, "the count line says 2 solutions but 4 boards are printed", None),
        (50, "board 124967385 is printed three times (lines 13, 41, 55)", None),
    ],
    "a board six times": [
        (48, "the count line says 2 solutions but 7 boards are printed", None),
        (50, "board 124967385 is printed 6 times (lines 13, 41, 55, 69, 83, 97)", None),
    ],
    "a board in every rotation, seven times": [
        (48, "the count line says 2 solutions but 8 boards are printed", None),
        (
            50,
            "the same solution is printed 7 times, in different rotations: 124967385, 391862574, 583769421, 475268193, 124967385, 124967385 (lines 13, 27, 41, 55, 69, 83, ...) are rotations of one board; rotations of a board are one solution",
            None,
        ),
    ],
    "three boards twice": [
        (48, "the count line says 22 solutions but 25 boards are printed", None),
        (50, "board 126738459 is printed twice (lines 13, 55)", None),
        (50, "board 127634895 is printed twice (lines 27, 69)", None),
        (50, "board 142935678 is printed twice (lines 41, 83)", None),
    ],
    "four boards twice": [
        (48, "the count line says 22 solutions but 26 boards are printed", None),
        (50, "board 126738459 is printed twice (lines 13, 69)", None),
        (50, "board 127634895 is printed twice (lines 27, 83)", None),
        (50, "board 142935678 is printed twice (lines 41, 97)", None),
        (51, "1 more board is printed more than once", None),
    ],
    "five boards twice": [
        (48, "the count line says 22 solutions but 27 boards are printed", None),
        (50, "board 126738459 is printed twice (lines 13, 83)", None),
        (50, "board 127634895 is printed twice (lines 27, 97)", None),
        (50, "board 142935678 is printed twice (lines 41, 111)", None),
        (51, "2 more boards are printed more than once", None),
    ],
    "a symmetric tile's board twice": [
        (48, "the count line says 1 solution but 2 boards are printed", None),
        (
            50,
            "board 275489316 is printed twice (lines 13, 27); it contains tile 9 <C0, B1, C0, B1>, which looks the same turned by 180 degrees, so two of its placements draw the same board",
            None,
        ),
    ],
    "a symmetric tile's board twice, by the rule": [
        (
            5,
            "board 275489316 is printed twice (lines 13, 27); it contains tile 9 <C0, B1, C0, B1>, which looks the same turned by 180 degrees, so two of its placements draw the same board: they are one solution, printed once",
            "symmetric-tiles",
        ),
        (48, "the count line says 1 solution but 2 boards are printed", None),
    ],
    "three symmetric tiles' board twice": [
        (48, "the count line says 1 solution but 2 boards are printed", None),
        (
            50,
            "board 123456789 is printed twice (lines 13, 27); it contains tiles 1 <C0, I0, C0, I0>, 5 <J1, E1, J1, E1> and 9 <N1, H1, N1, H1>, which each look the same turned by 180 degrees, so 8 of its placements draw the same board",
            None,
        ),
    ],
    "three symmetric tiles' board twice, by the rule": [
        (
            5,
            "board 123456789 is printed twice (lines 13, 27); it contains tiles 1 <C0, I0, C0, I0>, 5 <J1, E1, J1, E1> and 9 <N1, H1, N1, H1>, which each look the same turned by 180 degrees, so 8 of its placements draw the same board: they are one solution, printed once",
            "symmetric-tiles",
        ),
        (48, "the count line says 1 solution but 2 boards are printed", None),
    ],
    "three symmetric tiles, tiles unknown": [
        (48, "the count line says 1 solution but 2 boards are printed", None),
        (
            50,
            "board 123456789 is printed twice (lines 12, 26); it contains tiles 1 <I0, C0, I0, C0>, 5 <J1, E1, J1, E1> and 9 <N1, H1, N1, H1>, which each look the same turned by 180 degrees, so 8 of its placements draw the same board",
            None,
        ),
    ],
    "one board in another rotation": [
        (
            55,
            "board 391862574 (line 13) is a rotation of 124967385: print the rotation whose top-left tile has the smallest number of the four corners",
            None,
        ),
    ],
    "out of order": [
        (
            60,
            "boards are out of order: 397862514 (line 13) comes before 124967385 (line 27); boards go in increasing order of their 9-digit string",
            None,
        ),
    ],
    "same digits out of order": [
        (
            60,
            'boards with the same 9-digit string 369817425 are in the wrong order (lines 13 and 27): they go by their drawn text, compared as strings ("|3  A1   |6  A1   |9  A1   |" comes before "|3  A1   |6  A1   |9  B0   |")',
            None,
        ),
    ],
    "same digits out of order, by the rule": [
        (
            6,
            'boards with the same 9-digit string 369817425 are in the wrong order (lines 13 and 27): they go by their drawn text, compared as strings ("|3  A1   |6  A1   |9  A1   |" comes before "|3  A1   |6  A1   |9  B0   |")',
            "tie-order",
        ),
    ],
}


@pytest.mark.parametrize("name", OUTPUTS)
def test_whole_answer_diagnosis(name):
    got, text, policy, want = OUTPUTS[name]
    assert issues(got(), text, policy, want) == DIAGNOSES[name]


# ---------------------------------------------------------------- pure pieces

TEN_TILES = SAMPLE_EXPECTED.replace(
    b"9. <R0, G1, Y1, B0>\n", b"9. <R0, G1, Y1, B0>\n10. <A0, A0, A0, A0>\n"
)
THREE_EDGES = SAMPLE_EXPECTED.replace(b"9. <R0, G1, Y1, B0>", b"9. <R0, G1, Y1>")


@pytest.mark.parametrize(
    "puzzle, listing, tiles",
    [
        (SAMPLE, b"", "puzzle"),  # the puzzle file is the authority
        ("not a puzzle", SAMPLE_EXPECTED, "puzzle"),  # else the expected listing
        (None, SAMPLE_EXPECTED, "puzzle"),
        ("not a puzzle", unlisted(SAMPLE), None),  # 8 tiles listed
        ("not a puzzle", TEN_TILES, None),
        ("not a puzzle", THREE_EDGES, None),  # 9 listed, one of them with 3 edges
        ("not a puzzle", b"", None),
    ],
)
def test_tiles_come_from_the_puzzle_or_else_the_expected_listing(puzzle, listing, tiles):
    want = ps.parse(SAMPLE).tiles if tiles == "puzzle" else None
    assert _tiles(puzzle, parse_output(listing.decode())) == want


@pytest.mark.parametrize(
    "text, at, description",
    [
        (
            "А",
            0,
            'the look-alike character "А" (U+0410 CYRILLIC CAPITAL LETTER A) where "A" belongs',
        ),
        (
            "Ｙ",
            0,
            'the look-alike character "Ｙ" (U+FF39 FULLWIDTH LATIN CAPITAL LETTER Y) where "Y" belongs',
        ),
        (
            "\u00a0",
            0,
            "the look-alike white space U+00A0 NO-BREAK SPACE where a plain space belongs",
        ),
        ("\u2003", 0, "the look-alike white space U+2003 EM SPACE where a plain space belongs"),
        ("\u212b", 0, 'the character "\u212b" (U+212B ANGSTROM SIGN), which is not ASCII'),
        ("é", 0, 'the character "é" (U+00E9 LATIN SMALL LETTER E WITH ACUTE), which is not ASCII'),
        ("\ue000", 0, 'the character "\\ue000" (U+E000 an unnamed character), which is not ASCII'),
        ("\ufffd", 0, "bytes that are not UTF-8 text"),
        (
            "ab\u0301",
            2,
            'a combining mark U+0301 COMBINING ACUTE ACCENT on "b": it draws over the character '
            "before it and is a character of its own",
        ),
        (
            "\u0301b",
            0,
            'a combining mark U+0301 COMBINING ACUTE ACCENT on "": it draws over the character '
            "before it and is a character of its own",
        ),
    ],
)
def test_describe_names_the_character_and_what_belongs_there(text, at, description):
    assert _describe(text[at], text, at) == description


@pytest.mark.parametrize(
    "want, got",
    [
        ("Ω\n".encode(), "Ω!\n".encode()),  # the expected output is not ASCII itself
        (b"A\n", b"B\n"),  # nothing to name
    ],
)
def test_no_look_alike_issue(want, got):
    assert _lookalike_issues(want, got) == []
