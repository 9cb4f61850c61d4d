"""Boards missing because the program keeps one board per 9-digit string: two boards
with the same tiles in the same cells, turned otherwise, are two solutions."""

from collections import Counter

from grader.cases.puzzle import Key, PrintedBoard, board_of, digits
from grader.judge.compare.ranking import Issue, Rank
from grader.judge.compare.sorting import Seen


def one_per_string_issues(
    expected: list[PrintedBoard], seen: Seen, where: dict[Key, int], missing: list[PrintedBoard]
) -> list[Issue]:
    """The issue when every missing board shares its string with a board printed, and
    each string of the expected output is printed exactly once (decided on every
    board, not on the examples a diagnosis shows)."""
    if not missing or seen.invalid or any(key not in where for key in seen.found):
        return []
    strings = Counter(digits(printed.board) for printed in expected)
    printed = Counter(digits(board_of(key)) for key in seen.found)
    if printed != Counter(dict.fromkeys(strings, 1)):
        return []
    first = missing[0]
    text = (
        "one board is printed per tile-number string, but boards with the same 9-digit "
        "string (the same tiles in the same cells, turned otherwise) are different "
        f"solutions: {len(missing)} board{'' if len(missing) == 1 else 's'} missing this "
        f"way, e.g. another board with {digits(first.board)} (expected at line {first.line})"
    )
    return [Issue(Rank.ONE_PER_STRING, text)]
