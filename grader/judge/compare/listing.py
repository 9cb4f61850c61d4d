"""The "Input tiles:" listing, the puzzle's tiles it shows, and lines that belong
to no part of the required output."""

import re

from grader.cases.puzzle import PrintedOutput, PuzzleFormatError, Tile, parse_puzzle
from grader.judge.compare.lines import quote
from grader.judge.compare.ranking import Issue, Rank

_LISTING_LINE = re.compile(r"\s*(\d+)\.\s*<(.*)>\s*$")
_EDGE_TOKENS = re.compile(r"[A-Z][01]")


def puzzle_tiles(puzzle: bytes | str, exp: PrintedOutput) -> tuple[Tile, ...] | None:
    """The puzzle's tiles; from the expected listing if the puzzle will not parse."""
    try:
        return parse_puzzle(puzzle)
    except (PuzzleFormatError, TypeError, AttributeError):
        pass
    edges = []
    for _, line in exp.listing:
        match = _LISTING_LINE.match(line)
        if match:
            edges.append(tuple(edge.strip() for edge in match.group(2).split(",")))
    tiles = [e for e in edges if len(e) == 4]
    return tuple(tiles) if len(edges) == 9 and len(tiles) == 9 else None


def listing_issues(exp: PrintedOutput, out: PrintedOutput) -> list[Issue]:
    if exp.header_line is None:
        return []
    if out.header_line is None:
        if out.count_line is None and not out.boards:
            return []  # _shape_issues already says the output is unrecognisable
        return [Issue(Rank.LISTING, 'the output must start with the line "Input tiles:"')]
    issues = []
    for (_, want), (line, text) in zip(exp.listing, out.listing):
        if want.strip() != text.strip():
            issues.append(
                Issue(
                    Rank.LISTING,
                    f'the "Input tiles:" listing is wrong at line {line}: expected '
                    f"{quote(want)}, got {quote(text)}{_listing_hint(want, text)}",
                )
            )
            break
    if len(exp.listing) != len(out.listing):
        issues.append(
            Issue(
                Rank.LISTING_LENGTH,
                f'the "Input tiles:" listing has {len(out.listing)} line(s), '
                f"expected {len(exp.listing)} (one per tile)",
            )
        )
    return issues


def _listing_hint(want: str, text: str) -> str:
    if not text.isascii():
        return " (it contains a character that only looks like the expected one)"
    want_match, got_match = _LISTING_LINE.match(want), _LISTING_LINE.match(text)
    if want_match and got_match and want_match.group(1) != got_match.group(1):
        return f" (tiles are numbered from 1: this is tile {want_match.group(1)})"
    if "<" not in text or ">" not in text:
        return " (the edges go between < and >)"
    if _EDGE_TOKENS.findall(want) != _EDGE_TOKENS.findall(text):
        return " (the tile's edges as given in the puzzle file, in the same order)"
    if got_match and got_match.group(2).count(", ") != 3:
        return " (edges are separated by a comma and a space)"
    return " (spacing differs)"


def stray_issues(out: PrintedOutput) -> list[Issue]:
    if not out.stray:
        return []
    line, text = out.stray[0]
    more = f" ({len(out.stray)} such lines in all)" if len(out.stray) > 1 else ""
    if out.read_up_to is not None:
        more = (
            f" ({len(out.stray):,} such lines before line {out.read_up_to:,}; the "
            "output's lines were not read one by one past there)"
        )
    return [
        Issue(
            Rank.STRAY_LINE,
            f"line {line} is not part of the required output: {quote(text)}{more}; "
            "print nothing but the tile listing, the count line and the boards",
        )
    ]
