"""A wrong answer in the puzzle's terms: the output's shape, then each step's
issues (characters, count line, listing, stray lines, boards, white space)."""

import re
from functools import lru_cache

from grader.cases.puzzle import PrintedOutput, parse_output
from grader.judge.compare.boards import board_issues
from grader.judge.compare.counts import count_issues
from grader.judge.compare.lines import show
from grader.judge.compare.listing import listing_issues, puzzle_tiles, stray_issues
from grader.judge.compare.lookalike import lookalike_issues
from grader.judge.compare.ranking import Issue, Rank
from grader.judge.compare.relation import relation_issues
from grader.judge.compare.whitespace import whitespace_notes


def answer_issues(
    expected: bytes, got: bytes, puzzle: bytes | str, policy: tuple[str, ...]
) -> list[Issue]:
    """What a wrong answer means in the puzzle's terms."""
    related = relation_issues(expected, got)
    if related:
        return related  # it explains all the rest
    exp = _expected_reading(expected)
    out = parse_output(got.decode(errors="surrogateescape"))
    tiles = puzzle_tiles(puzzle, exp)
    issues = _shape_issues(got, out)
    if any(issue.rank in (Rank.EMPTY, Rank.NOT_THE_OUTPUT) for issue in issues):
        return issues  # nothing to read: listing every missing piece would only bury that
    issues += lookalike_issues(expected, got)
    issues += count_issues(exp, out, tiles, policy)
    issues += listing_issues(exp, out)
    issues += stray_issues(out)
    issues += board_issues(exp, out, tiles, policy)
    issues += [
        Issue(Rank.WHITE_SPACE, note) for note in whitespace_notes(expected, got, full=False)
    ]
    return issues


@lru_cache(maxsize=16)
def _expected_reading(expected: bytes) -> PrintedOutput:
    """The expected output read, once per process: every wrong answer on a case is read
    beside the same expected output (26 ms for the largest shipped one, 1.7 MB).
    Shared between the calls, so nothing here changes what it is given."""
    return parse_output(expected.decode(errors="surrogateescape"))


def _shape_issues(got: bytes, out: PrintedOutput) -> list[Issue]:
    """Output that is empty, not text, or nothing like a solver's output."""
    if not got.strip():
        return [
            Issue(
                Rank.EMPTY, "the output is empty" if not got else "the output is only white space"
            )
        ]
    issues = []
    bad = _first_non_text(got)
    if bad is not None:
        line = got.count(b"\n", 0, bad) + 1  # not a slice: the output may be large
        issues.append(
            Issue(
                Rank.NOT_TEXT,
                f"the output contains bytes that are not printable text "
                f"(first at line {line}: {show(got[bad : bad + 1])})",
            )
        )
    if out.header_line is None and out.count_line is None and not out.boards:
        issues.append(
            Issue(
                Rank.NOT_THE_OUTPUT,
                "the output does not look like the puzzle's output: no "
                '"Input tiles:" listing, no count line, no board',
            )
        )
    return issues


_CONTROL = re.compile(rb"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")  # not text, though valid UTF-8


def _first_non_text(data: bytes) -> int | None:
    match = _CONTROL.search(data)
    first = match.start() if match else None
    try:
        data.decode()
    except UnicodeDecodeError as error:
        first = error.start if first is None else min(first, error.start)
    return first
