"""What a diagnosis is made of: issues, and the table of the order they are told in."""

from enum import IntEnum
from typing import NamedTuple


class Rank(IntEnum):
    """The order issues are told in, the most important first: the first one is the
    summary a student reads.  Issues of equal rank keep the order they were found in.
    The gaps leave room for a new kind of issue between two others."""

    # What the whole output is to the expected output (grader.judge.compare.relation): told
    # alone, since it explains every other difference.
    TRUNCATED = -3  # the start of the expected output, cut off
    TRAILING = -2  # the whole expected output, then more
    REORDERED = -1  # every expected line, in another order
    EMPTY = 0  # nothing, or only white space, printed
    NOT_THE_OUTPUT = 1  # no listing, no count line, no board: nothing else is worth saying
    CRLF_INPUT = 2  # the puzzle's CR LF line ends carried into the output
    LOOKALIKE = 3  # a character that only looks like the ASCII the output needs
    ONE_PER_STRING = 4  # one board kept per 9-digit string: the others are missing
    POLICY_REPEAT = 5  # printed once per look-alike placement: the symmetric-tile rule decides
    POLICY_TIE_ORDER = 6  # boards with the same digits in another order: the tie rule decides
    COUNT_LINE = 10  # missing, or not the expected words and number
    COUNT_PLACE = 11  # the count line after the first board
    NOT_TEXT = 15  # bytes that are not printable text
    LISTING = 20  # the "Input tiles:" listing: missing or a wrong line
    LISTING_LENGTH = 21  # the listing has more or fewer lines than tiles
    STRAY_LINE = 25  # a line no part of the required output explains
    TURNED = 29  # a board with its tiles in the right cells, some drawn turned
    NOT_A_SOLUTION = 30  # a printed board that is not a solution, and why
    MORE_NOT_SOLUTIONS = 31  # how many more are not
    MISSING = 40  # expected boards not printed
    EXTRA = 45  # solutions printed that are not expected
    COUNT_VS_BOARDS = 48  # the count line states another number than the boards printed
    REPEATED = 50  # a solution printed more than once
    MORE_REPEATED = 51  # how many more are
    ROTATION = 55  # a solution printed in another rotation than the canonical one
    ORDER = 60  # boards out of order
    UNREADABLE = 65  # a board that could not be read
    LAYOUT = 70  # a board not drawn in the required layout
    WHITE_SPACE = 90  # after every answer issue: white space is told last
    UNDIAGNOSED = 99  # the grader could not diagnose the output further


class Issue(NamedTuple):
    rank: int  # a Rank: smaller is more important
    text: str
    rule: str | None = None  # the policy rule that decides this difference
