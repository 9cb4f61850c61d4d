"""grader.judge.compare, text half: the first difference, white space, layout and the
assembled diagnosis, checked word for word as a student reads them.

Most tests are tables: (expected output, program output) -> the exact verdict,
summary and detail lines.  The outputs are the hand-out's sample output with one
slip each, the way real submissions get it wrong.
"""

import tracemalloc

import pytest

from grader.cases.puzzle import Cell, draw, parse_output
from grader.core.model import Verdict
from grader.judge.compare import (
    POLICY_MARKER,
    POLICY_ONLY,
    TOKEN_CHUNK,
    Issue,
    compare,
    first_difference,
    quote,
    same_tokens,
    show,
    whitespace_notes,
)
from grader.judge.compare import verdict as compare_module
from grader.judge.compare.boards import _layout_difference
from grader.judge.compare.lines import _first_differing_byte
from grader.judge.compare.verdict import _assemble
from grader.judge.compare.whitespace import _nonblank, _trailing_count
from tests.helpers import SAMPLE_EXPECTED, SAMPLE_TEXT, expected_output

pytestmark = pytest.mark.fast

E = SAMPLE_EXPECTED  # 39 lines: listing 1-10, blank 11, count 12, boards at 13 and 27
LINES = E.split(b"\n")
SEP = "+--------+--------+--------+"
# Two solutions with the same 9-digit string 369817425 (the tie rule orders them).
TIE = (
    "C0,C0,C0,A1\nB1,C1,B0,C1\nA1,C1,A0,C1\nA1,A1,B0,B0\nC0,A1,B1,B1\nA1,A0,C1,C0\n"
    "A0,C0,C1,A0\nA1,A1,C1,B1\nA1,B0,A1,A1\n"
)


def diagnosis(got, expected=E, puzzle=SAMPLE_TEXT, policy=()) -> list[str]:
    result = compare(expected, got, puzzle, policy)
    return [result.verdict.value, result.summary, *result.details]


def without(line: int) -> bytes:
    """The sample output with its line `line` (1-based) left out."""
    return b"\n".join(LINES[: line - 1] + LINES[line:])


def doubled(line: int) -> bytes:
    return b"\n".join(LINES[:line] + LINES[line - 1 :])


def first(line: int, column: int, expected: str, got: str) -> list[str]:
    return [
        f"first difference at line {line}, column {column}:",
        f"  expected: {expected}",
        f"  got:      {got}",
    ]


LISTING_1 = "Input·tiles:↵"
COUNT_12 = "2·unique·solutions·found:↵"
ROW_14 = "|1··G0···|2··B0···|4··G0···|↵"
ROW_15 = "|Y1····R0|R1····Y0|Y1····B0|↵"
SEP_SHOWN = "+--------+--------+--------+↵"
CRLF_FIX = " in CR LF (\\r\\n, Windows style); end lines with \\n only"
TRAILING = "; no line may end in spaces or tabs"

# (name, program output, verdict, summary, details)
WHITE_SPACE = [
    (
        "every line in CR LF",
        E.replace(b"\n", b"\r\n"),
        "white space differs: every line ends" + CRLF_FIX,
        first(1, 13, LISTING_1, "Input·tiles:\\r↵"),
    ),
    (
        "three lines in CR LF",
        E.replace(b"\n", b"\r\n", 3),
        "white space differs: 3 lines end" + CRLF_FIX,
        first(1, 13, LISTING_1, "Input·tiles:\\r↵"),
    ),
    (
        "one line in CR LF",
        E.replace(b"\n", b"\r\n", 1),
        "white space differs: 1 line ends" + CRLF_FIX,
        first(1, 13, LISTING_1, "Input·tiles:\\r↵"),
    ),
    (
        "a carriage return inside a line",
        E.replace(b"tiles:", b"tiles:\r ", 1),
        "white space differs: the output contains 1 carriage return (\\r) that does not end a line",
        first(1, 13, LISTING_1, "Input·tiles:\\r·↵")
        + ["trailing white space at the end of 1 line (first: line 1)" + TRAILING],
    ),
    (
        "carriage returns instead of spaces",
        E.replace(b"2 unique solutions", b"2\runique\rsolutions"),
        "white space differs: the output contains 2 carriage returns (\\r) that do not end a line",
        first(12, 2, COUNT_12, "2\\runique\\rsolutions·found:↵")
        + [
            'spacing inside line 12 differs: expected "2 unique solutions found:", '
            'got "2\\runique\\rsolutions found:" (cells are 8 characters wide)'
        ],
    ),
    (
        "trailing spaces on three lines",
        E.replace(b"Input tiles:", b"Input tiles:  ").replace(b"R1   |\n", b"R1   | \n"),
        "white space differs: trailing white space at the end of 3 lines (first: line 1)"
        + TRAILING,
        first(1, 13, LISTING_1, "Input·tiles:··↵"),
    ),
    (
        "a trailing space on the count line",
        E.replace(b"found:\n", b"found: \n"),
        "white space differs: trailing white space at the end of 1 line (first: line 12)"
        + TRAILING,
        first(12, 26, COUNT_12, "2·unique·solutions·found:·↵"),
    ),
    (
        "a space instead of the last newline",
        E[:-1] + b" ",
        "white space differs: trailing white space at the end of 1 line (first: line 39)"
        + TRAILING,
        first(
            39,
            29,
            SEP_SHOWN,
            "+--------+--------+--------+·  (no newline at the end of the output)",
        )
        + ["the output does not end with a newline: print \\n after the last line"],
    ),
    (
        "a tab and CR LF on the first line",
        E.replace(b"Input tiles:\n", b"Input tiles:\t\r\n"),
        "white space differs: 1 line ends" + CRLF_FIX,
        first(1, 13, LISTING_1, "Input·tiles:→\\r↵")
        + [
            "trailing white space at the end of 1 line (first: line 1)" + TRAILING,
            "tab characters where the layout has spaces (first at line 1)",
        ],
    ),
    (
        "a tab inside a cell",
        E.replace(b"|1  G0   |", b"|1 \tG0   |"),
        "white space differs: tab characters where the layout has spaces (first at line 14)",
        first(14, 4, ROW_14, "|1·→G0···|2··B0···|4··G0···|↵")
        + [
            'spacing inside line 14 differs: expected "|1  G0   |2  B0   |4  G0   |", '
            'got "|1 →G0   |2  B0   |4  G0   |" (cells are 8 characters wide)'
        ],
    ),
    (
        "no newline at the end",
        E[:-1],
        "white space differs: the output does not end with a newline: print \\n after the "
        "last line",
        first(
            39, 29, SEP_SHOWN, "+--------+--------+--------+  (no newline at the end of the output)"
        ),
    ),
    (
        "two empty lines at the end",
        E + b"\n\n",
        "white space differs: 2 extra empty lines at the end of the output",
        first(40, 1, "(nothing: the expected output ends here)", "↵"),
    ),
    (
        "one empty line at the end, two at the start",
        b"\n\n" + E + b"\n",
        "white space differs: 1 extra empty line at the end of the output",
        first(1, 1, LISTING_1, "↵")
        + ["2 extra empty lines at the start of the output (before line 3 of your output)"],
    ),
    (
        "no empty line between the boards",
        E.replace(b"\n\n+", b"\n+"),
        "white space differs: missing empty line between two boards (before line 26 of your "
        "output)",
        first(26, 1, "↵", SEP_SHOWN),
    ),
    (
        "no empty line before the count line",
        E.replace(b"\n\n2 unique", b"\n2 unique"),
        "white space differs: missing empty line between the tile listing and the count line "
        "(before line 11 of your output)",
        first(11, 1, "↵", COUNT_12),
    ),
    (
        "three empty lines before the count line",
        E.replace(b"\n\n2 unique", b"\n\n\n\n2 unique"),
        "white space differs: 2 extra empty lines between the tile listing and the count line "
        "(before line 14 of your output)",
        first(12, 1, COUNT_12, "↵"),
    ),
    (
        "an empty line inside a board",
        E.replace(b"+\n|", b"+\n\n|", 1),
        'white space differs: 1 extra empty line after "+--------+--------+--------+" '
        "(before line 15 of your output)",
        first(14, 1, ROW_14, "↵"),
    ),
    (
        "an empty line after every row of cells",
        b"\n".join(line + b"\n" if line.startswith(b"|") else line for line in LINES),
        'white space differs: 1 extra empty line after "|1  G0   |2  B0   |4  G0   |" '
        "(before line 16 of your output)",
        first(15, 1, ROW_15, "↵")
        + [
            '1 extra empty line after "|Y1    R0|R1    Y0|Y1    B0|" (before line 18 of your '
            "output)",
            '1 extra empty line after "|   B1   |   B1   |   G1   |" (before line 20 of your '
            "output)",
            "empty lines differ in 18 places in all",
        ],
    ),
    (
        "three empty lines in three places",
        E.replace(b"\n\n2 unique", b"\n2 unique")
        .replace(b"\n\n+", b"\n\n\n+")
        .replace(b"B1>\n2. ", b"B1>\n\n2. "),
        'white space differs: 1 extra empty line after "1. <Y1, G0, R0, B1>" (before line 4 '
        "of your output)",
        first(3, 1, "2.·<Y0,·B1,·R1,·B0>↵", "↵")
        + [
            "missing empty line between the tile listing and the count line (before line 12 "
            "of your output)",
            "1 extra empty line between two boards (before line 28 of your output)",
        ],
    ),
    (
        "a line indented",
        E.replace(b"\n2 unique", b"\n 2 unique"),
        "white space differs: line 12 starts with white space the expected line does not have",
        first(12, 1, COUNT_12, "·2·unique·solutions·found:↵"),
    ),
    (
        "a cell one column narrower",
        E.replace(b"|   G1   |   B1   |\n+", b"|   G1  |    B1   |\n+", 1),
        'white space differs: spacing inside line 20 differs: expected "|   G1   |   G1   |   '
        'B1   |", got "|   G1   |   G1  |    B1   |" (cells are 8 characters wide)',
        first(20, 18, "|···G1···|···G1···|···B1···|↵", "|···G1···|···G1··|····B1···|↵"),
    ),
    (
        "two lines joined",
        E.replace(b"Input tiles:\n1.", b"Input tiles: 1."),
        'white space differs: line 1 should be "Input tiles:", not "Input tiles: 1. <Y1, G0, '
        'R0, B1>" (the same words, broken into lines differently)',
        first(1, 13, LISTING_1, "Input·tiles:·1.·<Y1,·G0,·R0,·B1>↵"),
    ),
    (
        "a form feed at the end of a line (nothing more to say)",
        E.replace(b"found:\n", b"found:\x0c\n"),
        "the output differs from the expected output only in white space",
        first(12, 26, COUNT_12, "2·unique·solutions·found:\\x0c↵"),
    ),
]


@pytest.mark.parametrize(
    "got, summary, details", [case[1:] for case in WHITE_SPACE], ids=[c[0] for c in WHITE_SPACE]
)
def test_white_space_diagnosis(got, summary, details):
    assert diagnosis(got) == ["PE", summary, *details]


LAYOUT = "board 124967385 (line 13) is not drawn in the required layout: "
# (name, program output, summary, details): a readable board drawn wrong.
LAYOUT_CASES = [
    (
        "first separator left out",
        without(13),
        LAYOUT + f'a line "{SEP}" is missing before line 13',
        first(13, 1, SEP_SHOWN, ROW_14),
    ),
    (
        "separator between rows left out",
        without(17),
        LAYOUT + f'a line "{SEP}" is missing before line 17',
        first(17, 1, SEP_SHOWN, "|9··B0···|6··B0···|7··G0···|↵"),
    ),
    (
        "last separator of the output left out",
        without(39),
        f'board 397862514 (line 27) is not drawn in the required layout: a line "{SEP}" is '
        "missing before line 39",
        first(39, 1, SEP_SHOWN, "(missing: output ended)"),
    ),
    (
        "separator between rows doubled",
        doubled(17),
        LAYOUT + f'line 18 ("{SEP}") should not be there',
        first(18, 1, "|9··B0···|6··B0···|7··G0···|↵", SEP_SHOWN),
    ),
    (
        "an edge moved inside its cell",
        E.replace(b"|Y1    R0|R1    Y0|Y1    B0|", b"|Y1   R0 |R1    Y0|Y1    B0|"),
        LAYOUT + 'line 15 should be "|Y1    R0|R1    Y0|Y1    B0|", not "|Y1   R0 |R1    Y0|Y1'
        '    B0|"',
        first(15, 7, ROW_15, "|Y1···R0·|R1····Y0|Y1····B0|↵"),
    ),
    (
        "a board's first separator doubled: the extra line belongs to no board",
        doubled(13),
        f'line 13 is not part of the required output: "{SEP}"; print nothing but the tile '
        "listing, the count line and the boards",
        first(14, 1, ROW_14, SEP_SHOWN),
    ),
    (
        "the last board's last separator doubled",
        b"\n".join(LINES[:-1] + [SEP.encode(), b""]),
        f'line 40 is not part of the required output: "{SEP}"; print nothing but the tile '
        "listing, the count line and the boards",
        first(40, 1, "(nothing: the expected output ends here)", SEP_SHOWN),
    ),
]


@pytest.mark.parametrize(
    "got, summary, details", [c[1:] for c in LAYOUT_CASES], ids=[c[0] for c in LAYOUT_CASES]
)
def test_layout_diagnosis(got, summary, details):
    assert diagnosis(got) == ["WA", summary, *details]


def test_a_board_drawn_wrong_is_told_before_white_space():
    got = without(17).replace(b"Input tiles:\n", b"Input tiles: \n")
    assert diagnosis(got) == [
        "WA",
        LAYOUT + f'a line "{SEP}" is missing before line 17',
        *first(1, 13, "Input·tiles:↵", "Input·tiles:·↵"),
        "trailing white space at the end of 1 line (first: line 1); no line may end in spaces "
        "or tabs",
    ]


def test_unreadable_boards_are_counted():
    one = E.replace(b"|1  G0   |2  B0   |4  G0   |", b"|1  G0   |2  B0   |", 1)
    shown = first(14, 20, ROW_14, "|1··G0···|2··B0···|↵")
    assert diagnosis(one) == [
        "WA",
        "board 124967385 is missing (expected at line 13)",
        *shown,
        "the count line says 2 solutions but 1 readable board is printed",
        "could not read a board at line 14: line 14 shows 2 cells, a row has 3",
    ]
    two = one.replace(b"|3  R1   |9  Y1   |7  Y1   |", b"|3  R1   |", 1)
    assert diagnosis(two)[-1] == (
        "could not read a board at line 14: line 14 shows 2 cells, a row has 3 (2 places in all)"
    )


# ---------------------------------------------------------------- layout checks: which boards


def _turned(board):
    """The board turned a quarter clockwise: another rotation of the same solution."""
    return tuple(
        Cell(
            board[(2 - c) * 3 + r].tile,
            board[(2 - c) * 3 + r].edges[3:] + board[(2 - c) * 3 + r].edges[:3],
        )
        for r in range(3)
        for c in range(3)
    )


SAMPLE_BOARDS = [printed.board for printed in parse_output(E.decode()).boards]
TURNED = draw(_turned(SAMPLE_BOARDS[0]))  # 391862574, drawn right
MISDRAWN = draw(SAMPLE_BOARDS[1]).replace("|R1    G0|", "|R1   G0 |", 1)


def _with_boards(*drawings: str) -> bytes:
    return E + "".join("\n" + drawing for drawing in drawings).encode()


@pytest.mark.parametrize("turned_before, reported", [(299, True), (300, False)])
def test_layout_is_checked_on_the_first_300_boards_not_as_expected(turned_before, reported):
    """Correctly drawn boards in another rotation count towards the 300; boards
    equal to expected ones do not."""
    got = _with_boards(*[TURNED] * turned_before, MISDRAWN)
    line = 40 + 14 * turned_before + 1
    layout = [issue for issue in diagnosis(got) if "is not drawn in the required layout" in issue]
    want = (
        f"board 397862514 (line {line}) is not drawn in the required layout: line "
        f'{line + 6} should be "|R1    G0|G1    B0|B1    B0|", not "|R1   G0 |G1    '
        'B0|B1    B0|"'
    )
    assert layout == ([want] if reported else [])


def test_a_turned_board_drawn_wrong_is_compared_with_its_own_drawing():
    turned = TURNED.replace(SEP + "\n|", SEP + "\n |", 1)  # a space before the first cell
    got = _with_boards(turned)
    layout = [issue for issue in diagnosis(got) if "layout" in issue]
    assert layout == [
        "board 391862574 (line 41) is not drawn in the required layout: line 42 should be "
        '"|3  R1   |9  Y1   |1  Y1   |", not " |3  R1   |9  Y1   |1  Y1   |"'
    ]


def test_a_board_that_is_no_solution_gets_no_layout_complaint():
    bad = MISDRAWN.replace("|8  B1   |6  R1   |2  R1   |", "|8  B1   |6  R1   |2  R0   |")
    text = "\n".join(diagnosis(_with_boards(bad)))
    assert "is not a solution" in text and "layout" not in text


# ---------------------------------------------------------------- _layout_difference

A, B, C, D = "a", "b", "c", "d"
LAYOUT_DIFFERENCES = [
    ((A, B, C), (A, C), 'a line "b" is missing before line 11'),
    ((A, B, C), (A, B), 'a line "c" is missing before line 12'),
    ((A, B, C, D), (A, B), 'it ends early: a line "c" is missing after line 11'),
    ((A, B), (A, D, B), 'line 11 ("d") should not be there'),
    ((A, B), (A, B, C, D), 'line 12 ("c") should not be there'),
    ((A, B), (A, B, C), 'line 12 ("c") should not be there'),
    ((A, B, C), (A, D, C), 'line 11 should be "b", not "d"'),
    ((A, B, C), (A, D, B), 'line 11 should be "b", not "d"'),
    ((A, B, C), (D, B), 'line 10 should be "a", not "d"'),
    ((A, B), (B,), 'a line "a" is missing before line 10'),
    ((A,), (D, A), 'line 10 ("d") should not be there'),
]


@pytest.mark.parametrize("want, got, text", LAYOUT_DIFFERENCES)
def test_layout_difference(want, got, text):
    assert _layout_difference(want, got, 10) == text


# ---------------------------------------------------------------- the first difference


def test_first_difference_lines_and_columns():
    assert first_difference(b"abc\ndef\n", b"abc\ndxf\n") == first(2, 2, "def↵", "dxf↵")
    assert first_difference(b"abc\n", b"ab") == first(
        1, 3, "abc↵", "ab  (no newline at the end of the output)"
    )
    assert first_difference(b"a\n", b"a\nb\n") == first(
        2, 1, "(nothing: the expected output ends here)", "b↵"
    )
    assert first_difference(b"a\n", b"") == first(1, 1, "a↵", "(missing: output ended)")
    assert first_difference(b"x\na\nb", b"x\na\nc") == first(
        3, 1, "b  (no newline at the end of the output)", "c  (no newline at the end of the output)"
    )
    # The difference is the newline itself: the line is the one it ends.
    assert first_difference(b"ab\ncd\n", b"ab cd\n") == first(1, 3, "ab↵", "ab·cd↵")


DIGITS = b"0123456789" * 30  # a 300-character line


@pytest.mark.parametrize(
    "column, shown",
    [
        (10, DIGITS[:100].decode() + "…"),  # near the start: from the start
        (200, "…" + DIGITS[150:250].decode() + "…"),  # in the middle: centred on it
        (290, "…" + DIGITS[200:].decode()),  # near the end: the last 100 characters
        (50, DIGITS[:100].decode() + "…"),
        (51, "…" + DIGITS[1:101].decode() + "…"),
    ],
)
def test_a_long_line_is_shown_around_the_difference(column, shown):
    got = DIGITS[:column] + b"x" + DIGITS[column + 1 :]
    lines = first_difference(b"L\n" + DIGITS + b"\n", b"L\n" + got + b"\n")
    assert lines[0] == f"first difference at line 2, column {column + 1}:"
    assert lines[1] == "  expected: " + shown + "↵"


SIZE = 204_800


@pytest.mark.parametrize("pos", [0, 1, 65_535, 65_536, 65_537, 131_072, 200_000, SIZE - 1])
def test_first_differing_byte_at_any_offset(pos):
    a = bytes(range(256)) * (SIZE // 256)
    b = a[:pos] + bytes([a[pos] ^ 1]) + a[pos + 1 :]
    assert _first_differing_byte(a, b) == pos
    assert _first_differing_byte(a, a[:pos]) == pos  # one is a prefix of the other
    assert _first_differing_byte(a[:pos], a) == pos
    assert _first_differing_byte(a, a) == SIZE


# ---------------------------------------------------------------- show and quote

SHOWN = [
    ("a b", "a·b"),
    ("a\tb\rc", "a→b\\rc"),
    ("\udc80\udcff", "\\x80\\xff"),  # bytes that were not UTF-8 (surrogateescape)
    ("\udc7f\udd00\ud800", "\\udc7f\\udd00\\ud800"),  # other lone surrogates
    ("\x07\x1b[2J\n", "\\x07\\x1b[2J\\n"),
    ("\u202e\x85\xa0", "\\u202e\\x85\\xa0"),
    ("\U000e0001!", "\\U000e0001!"),
    ("é—✓", "é—✓"),
    (b"a\xff b", "a\\xff·b"),
    ("é".encode(), "é"),
]


@pytest.mark.parametrize("text, shown", SHOWN)
def test_show_makes_every_character_visible(text, shown):
    assert show(text) == shown


def test_show_cuts_at_the_limit():
    assert show("abcdef", 3) == "abc…"
    assert show("abc", 3) == "abc"
    assert show("x" * 101) == "x" * 100 + "…"
    assert show("x" * 100) == "x" * 100
    assert show("a b", spaces="_") == "a_b"


def test_quote():
    assert quote("a b\tc") == '"a b→c"'
    assert quote("x" * 60) == '"' + "x" * 60 + '"'
    assert quote("x" * 61) == '"' + "x" * 60 + '…"'
    assert quote("a b c", 3) == '"a b…"'


# ---------------------------------------------------------------- white space, directly


def test_trailing_white_space_positions():
    assert _trailing_count(b"") == (0, -1)
    assert _trailing_count(b"a\nb\n") == (0, -1)
    for ending in (b" \n", b"\t\n", b" \r\n", b"\t\r\n"):
        assert _trailing_count(b"a" + ending + b"b\n") == (1, 1)
    assert _trailing_count(b"a\n ") == (1, 2)  # the last line, with no newline
    assert _trailing_count(b"a\nb\t") == (1, 3)
    assert _trailing_count(b"a \nb\t") == (2, 1)
    assert _trailing_count(b"x\nab\t\r\ncd \n") == (2, 4)
    assert _trailing_count(b"a\t\nb \n \r\n") == (3, 1)


def test_trailing_white_space_is_not_blamed_when_expected_has_it():
    assert whitespace_notes(b"a \nb\n", b"a \nb \n", full=False) == []
    assert whitespace_notes(b"a\nb\n", b"a\nb \n", full=False) == [
        "trailing white space at the end of 1 line (first: line 2)" + TRAILING
    ]


ENDINGS = [
    (b"a\n", b"a\n\n", ["1 extra empty line at the end of the output"]),
    (
        b"a\n",
        b"a\n \n\t\n",
        [
            "trailing white space at the end of 2 lines (first: line 2)" + TRAILING,
            "tab characters where the layout has spaces (first at line 3)",
            "2 extra empty lines at the end of the output",
        ],
    ),
    (b"a\n\n", b"a\n", ["empty lines missing at the end of the output"]),
    (b"a\n\n", b"a", ["empty lines missing at the end of the output"]),
    (b"a\n", b"a", ["the output does not end with a newline: print \\n after the last line"]),
    (b"a", b"a\n", ["1 extra empty line at the end of the output"]),
    (b"a\n", b"\n\n\n", []),  # only empty lines: nothing to say about its end
    (b"a\n", b"\n" * 4096, []),
    (b"a\n", b"x" + b"\n" * 4096, ["at least 4095 extra empty lines at the end of the output"]),
    (b"a\n", b"x" * 4000 + b"\n" * 96, ["95 extra empty lines at the end of the output"]),
    (b"a\n", b"x" * 4001 + b"\n" * 96, ["95 extra empty lines at the end of the output"]),
    (b"a\n", b"x" * 5000 + b"\n" * 4095, ["4094 extra empty lines at the end of the output"]),
    (
        b"a\n",
        b"x" * 5000 + b"\n" * 4096,
        ["at least 4095 extra empty lines at the end of the output"],
    ),
]


@pytest.mark.parametrize("expected, got, notes", ENDINGS)
def test_end_of_output_notes(expected, got, notes):
    assert whitespace_notes(expected, got, full=False) == notes


def test_empty_line_before_a_count_line_that_starts_the_output():
    assert whitespace_notes(b"No solution found.\n", b"\nNo solution found.\n", full=True) == [
        "1 extra empty line at the start of the output (before line 2 of your output)"
    ]


def test_line_by_line_notes_only_when_full():
    got = E.replace(b"\n\n+", b"\n+")
    assert whitespace_notes(E, got, full=False) == []
    assert whitespace_notes(E, got, full=True) == [
        "missing empty line between two boards (before line 26 of your output)"
    ]


@pytest.mark.parametrize(
    "expected, got, note",
    [
        # Past 100,000 lines, and more than 4 times the expected number: summed up.
        (
            b"a\n",
            b"a\n" + b"\n" * 100_000,
            "the output has 100,000 more lines than the expected output, empty or only white "
            "space (the first run of empty lines starts at line 2)",
        ),
        (
            b"a\nb\n",
            b"a\n" + b" \n" * 50_000 + b"b\n" + b"\n" * 50_000,
            "the output has 100,000 more lines than the expected output, empty or only white "
            "space (the first run of empty lines starts at line 2)",
        ),
        (
            b"a b c d e\n" * 30_000,
            b"a\nb\nc\nd\ne\n" * 30_000,
            "the output has 120,000 more lines than the expected output: the same words, "
            "broken into more lines",
        ),
    ],
)
def test_a_huge_number_of_extra_lines_is_summed_up(expected, got, note):
    assert whitespace_notes(expected, got, full=True)[-1] == note


@pytest.mark.parametrize(
    "expected, got",
    [
        (b"a\n", b"a\n" + b"\n" * 99_999),  # 100,000 lines in all
        (b"a b c d\n" * 30_000, b"a\nb\nc\nd\n" * 30_000),  # 4 times as many
    ],
)
def test_up_to_the_limit_lines_are_compared_one_by_one(expected, got):
    assert "more lines than the expected output" not in whitespace_notes(expected, got, True)[-1]


# ---------------------------------------------------------------- verdicts and tokens


def test_same_tokens():
    assert same_tokens(b"a b\n", b" a\n\tb\r\n\x0b\x0c")
    assert not same_tokens(b"a b", b"a b c")
    assert not same_tokens(b"a b c", b"a b")
    assert not same_tokens(b"a b", b"a c")
    assert same_tokens(b"", b" \n")


@pytest.mark.parametrize("shift", [0, 1, 5, 77])
def test_same_tokens_over_chunk_boundaries(shift):
    """Long tokens crossing the chunk boundary at different offsets in each output."""
    words = b" ".join(bytes([65 + k % 26]) * (1000 + k) for k in range(600))
    assert len(words) > 2 * TOKEN_CHUNK
    assert same_tokens(words, b"\n" * shift + words.replace(b" ", b"  "))
    assert not same_tokens(words, b" " * shift + words[:-1])
    assert same_tokens(b"x" * (TOKEN_CHUNK + shift), b" " + b"x" * (TOKEN_CHUNK + shift))


def test_same_tokens_holds_a_chunk_of_tokens_at_a_time():
    """Memory, not time: a million one-byte tokens are never all held at once (each
    list of all of them would take 4 MB of pointers alone)."""
    a, b = b"x\n" * 500_000, b"x " * 500_000
    tracemalloc.start()
    try:
        same = same_tokens(a, b)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert same and peak < 4 << 20, peak


def test_str_bytes_and_bytearray_are_compared_alike():
    assert compare(E.decode(), bytearray(E), SAMPLE_TEXT).verdict is Verdict.AC
    assert diagnosis("é\udcff\n", expected=b"\xc3\xa9\xff\n", puzzle=None) == ["AC", ""]
    assert diagnosis(None, expected=b"", puzzle=None) == ["AC", ""]


# ---------------------------------------------------------------- CR LF puzzle files

CRLF_PUZZLE = SAMPLE_TEXT.replace("\n", "\r\n")
CRLF_INPUT = (
    "the puzzle file of this case ends its lines with CR LF (\\r\\n, Windows style): your "
    "program mishandles CRLF input"
)
CRLF_FIX_INPUT = "remove the \\r (as well as the \\n) from each line it reads"


def test_a_carriage_return_copied_from_the_input():
    got = E.replace(b"B1>\n", b"B1\r>\n")  # the last edge keeps its \r
    lines = diagnosis(got, puzzle=CRLF_PUZZLE)
    assert lines[:2] == [
        "WA",
        f"{CRLF_INPUT}: it carries the \\r into its output (first at line 2); {CRLF_FIX_INPUT}",
    ]
    assert not any("carriage return" in line or "CR LF (" in line for line in lines[2:])
    # The same output for a puzzle file with plain line ends says nothing of the input.
    assert "CRLF input" not in "\n".join(diagnosis(got))


def test_every_line_in_cr_lf_is_the_programs_own_line_end():
    got = E.replace(b"\n", b"\r\n")
    assert diagnosis(got, puzzle=CRLF_PUZZLE) == diagnosis(got)


def test_no_solution_found_for_a_crlf_puzzle_names_no_cause_without_a_run_showing_it():
    """ "No solution" for a CR LF puzzle may come from the \r, or from anything else:
    the comparison alone says nothing of the input (a counterfactual run proves it:
    grader.grading.proofs); it tells the symptom."""
    got = b"\n".join(LINES[:11]) + b"\nNo solution found.\n"
    told = "\n".join(diagnosis(got, puzzle=CRLF_PUZZLE.encode()))
    assert "CRLF input" not in told and 'says "No solution found."' in told


# ---------------------------------------------------------------- the assembled diagnosis


def test_issues_are_ordered_by_rank():
    result = _assemble(Verdict.WA, ["first"], [Issue(60, "c"), Issue(5, "a"), Issue(30, "b")])
    assert (result.summary, result.details) == ("a", ["first", "b", "c"])
    result = _assemble(Verdict.PE, ["first"], [Issue(90, "x"), Issue(90, "y")])
    assert (result.summary, result.details) == ("white space differs: x", ["first", "y"])
    assert (
        _assemble(Verdict.WA, ["first"], []).summary
        == "the output differs from the expected output"
    )


def test_policy_rules_are_named_once_and_the_decision_says_if_only_they_differ():
    rule = compare_module.POLICY_RULES["tie-order"]
    issues = [Issue(6, "a", "tie-order"), Issue(7, "b", "tie-order"), Issue(90, "w")]
    only = _assemble(Verdict.WA, [], issues, policy_only=True)
    assert only.policy_only and only.details == [
        "b",
        "w",
        POLICY_ONLY,
        f"{POLICY_MARKER}: its expected output follows {rule}.",
    ]
    # The issues shown are not what decides: the whole output is (grader.judge.compare.policy),
    # and a rule that does not decide the failure is not named.
    shown_alike = _assemble(Verdict.WA, [], issues)
    assert not shown_alike.policy_only
    assert shown_alike.details == ["b", "w"]
    mixed = _assemble(Verdict.WA, [], [Issue(6, "a", "tie-order"), Issue(40, "b")])
    assert mixed.details == ["b"]
    unknown = _assemble(
        Verdict.WA, [], [Issue(6, "a", "new-rule"), Issue(7, "b", "tie-order")], policy_only=True
    )
    assert unknown.details == [
        "b",
        POLICY_ONLY,
        f"{POLICY_MARKER}: its expected output follows new-rule.",
        f"{POLICY_MARKER}: its expected output follows {rule}.",
    ]


@pytest.fixture(scope="module")
def tie_swapped():
    expected = expected_output(TIE)
    lines = expected.decode().split("\n")
    count = next(i for i, line in enumerate(lines) if line.endswith("found:"))
    first_board, second_board = lines[count + 1 : count + 14], lines[count + 15 : count + 28]
    swapped = lines[: count + 1] + second_board + [""] + first_board + lines[count + 28 :]
    return expected, "\n".join(swapped).encode()


@pytest.mark.parametrize("policy", ["tie-order", ["tie-order"], ("symmetric-tiles", "tie-order")])
def test_a_policy_given_as_a_string_or_a_list(tie_swapped, policy):
    expected, got = tie_swapped
    details = compare(expected, got, TIE, policy).details
    assert details[-2:] == [
        POLICY_ONLY,
        f"{POLICY_MARKER}: its expected output follows {compare_module.POLICY_RULES['tie-order']}.",
    ]


@pytest.mark.parametrize("policy", [(), None, ""])
def test_no_policy(tie_swapped, policy):
    expected, got = tie_swapped
    assert POLICY_MARKER not in compare(expected, got, TIE, policy).text()


def test_a_failing_diagnosis_keeps_the_verdict(monkeypatch):
    def broken(*args, **kwargs):
        raise KeyError("boom")

    monkeypatch.setattr(compare_module, "first_difference", broken)
    monkeypatch.setattr(compare_module, "answer_issues", broken)
    monkeypatch.setattr(compare_module, "whitespace_notes", broken)
    shown = "(could not show the first difference: KeyError)"
    further = "(the grader could not diagnose this output further: KeyError)"
    assert diagnosis(E.replace(b"2 unique", b"3 unique")) == ["WA", further, shown]
    assert diagnosis(E + b"\n") == ["PE", "white space differs: " + further, shown]


# ---------------------------------------------------------------- line numbers from line 1


def test_line_numbers_count_an_empty_first_line():
    """An output that starts with an empty line: every "line N" counts it."""
    assert first_difference(b"\nab\n", b"\nac\n") == first(2, 2, "ab↵", "ac↵")
    assert whitespace_notes(b"\na\nb c\n", b"\na\nb\tc\n", full=False) == [
        "tab characters where the layout has spaces (first at line 3)"
    ]
    assert whitespace_notes(b"\na\nb\n", b"\na\nb \n", full=False) == [
        "trailing white space at the end of 1 line (first: line 3)" + TRAILING
    ]
    got = b"\n" + E.replace(b"B1>\n", b"B1\r>\n")
    assert f"(first at line 3); {CRLF_FIX_INPUT}" in diagnosis(got, puzzle=CRLF_PUZZLE)[1]


def test_the_first_run_of_empty_lines_is_located():
    assert whitespace_notes(b"a\nb\n", b"a\nb\n" + b"\n" * 100_000, full=True)[-1] == (
        "the output has 100,000 more lines than the expected output, empty or only white "
        "space (the first run of empty lines starts at line 3)"
    )
    # A single empty line first is no run; the run starts at line 3.
    assert whitespace_notes(b"a\n", b"\na\n" + b"\n" * 100_000, full=True)[-1] == (
        "the output has 100,001 more lines than the expected output, empty or only white "
        "space (the first run of empty lines starts at line 3)"
    )


def test_trailing_white_space_on_the_first_and_last_line():
    assert _trailing_count(b" \na ") == (2, 0)


def test_only_white_space_longer_than_the_window_is_counted():
    assert whitespace_notes(b"a\n", b"\n" * 4097, full=False) == [
        "at least 4095 extra empty lines at the end of the output"
    ]


# ---------------------------------------------------------------- expected outputs with \r or tabs

E_CRLF = E.replace(b"\n", b"\r\n")  # an expected output saved with CR LF line ends


def test_white_space_the_expected_output_has_too_is_not_blamed():
    assert whitespace_notes(E_CRLF, E_CRLF.replace(b"found:", b"found: "), full=True) == [
        "trailing white space at the end of 1 line (first: line 12)" + TRAILING
    ]
    assert whitespace_notes(E_CRLF, E_CRLF.replace(b"found:", b"found:\r"), full=True) == [
        "the output contains 1 carriage return (\\r) that does not end a line"
    ]
    tabbed = E.replace(b"tiles:", b"tiles:\tx")
    assert whitespace_notes(tabbed, tabbed.replace(b"found:", b"found: "), full=True) == [
        "trailing white space at the end of 1 line (first: line 12)" + TRAILING
    ]


def test_crlf_in_the_expected_output_is_not_blamed_on_the_input():
    got = E_CRLF.replace(b"found:\r\n", b"found:\n").replace(b"<Y1, G0, R0, B1>", b"<Y1, G0>")
    assert "CRLF input" not in "\n".join(diagnosis(got, expected=E_CRLF, puzzle=CRLF_PUZZLE))


def test_line_end_notes_give_way_to_the_crlf_input_issue():
    got = E.replace(b"B1>\n", b"B1\r>\n").replace(b"found:\n", b"found:\r\n")
    listing = (
        'the "Input tiles:" listing is wrong at line 2: expected "1. <Y1, G0, R0, B1>", got '
        '"1. <Y1, G0, R0, B1\\r>" (spacing differs)'
    )
    shown = first(2, 19, "1.·<Y1,·G0,·R0,·B1>↵", "1.·<Y1,·G0,·R0,·B1\\r>↵")
    assert diagnosis(got, puzzle=CRLF_PUZZLE) == [
        "WA",
        f"{CRLF_INPUT}: it carries the \\r into its output (first at line 2); {CRLF_FIX_INPUT}",
        *shown,
        listing,
    ]
    assert diagnosis(got) == [
        "WA",
        listing,
        *shown,
        "1 line ends" + CRLF_FIX,
        "the output contains 1 carriage return (\\r) that does not end a line",
    ]


# ---------------------------------------------------------------- where empty lines are


def test_rows_count_the_empty_lines_before_them():
    assert _nonblank(["a", "", "", "b", "c", ""]) == [("a", 0, 1), ("b", 2, 4), ("c", 0, 5)]
    assert _nonblank(["", "a"]) == [("a", 1, 2)]


def test_an_empty_line_before_a_board_that_starts_the_output():
    board = draw(SAMPLE_BOARDS[0]).encode()
    assert whitespace_notes(board, b"\n" + board, full=True) == [
        "1 extra empty line at the start of the output (before line 2 of your output)"
    ]


def test_a_long_line_before_an_empty_line_is_quoted_short():
    long = b"x" * 39 + b"yz"
    assert whitespace_notes(long + b"\nb\n", long + b"\n\nb\n", full=True) == [
        f'1 extra empty line after "{"x" * 39}y…" (before line 3 of your output)'
    ]
