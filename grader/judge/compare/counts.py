"""The count line: missing, misplaced, wrongly worded, or stating another number
than the puzzle has or than the boards printed."""

import re

from grader.cases.puzzle import PrintedOutput, Tile, is_symmetric
from grader.judge.compare.lines import quote
from grader.judge.compare.ranking import Issue, Rank


def _solutions(n: int) -> str:
    return f"{n} solution" + ("" if n == 1 else "s")


def count_issues(
    exp: PrintedOutput, out: PrintedOutput, tiles: tuple[Tile, ...] | None, policy: tuple[str, ...]
) -> list[Issue]:
    if exp.count_line is None:
        return []
    want_text, want = exp.count_line[1], exp.count or 0
    if out.count_line is None:
        return [Issue(Rank.COUNT_LINE, f"the count line is missing: expected {quote(want_text)}")]
    line, text = out.count_line
    issues = []
    if out.boards and line > out.boards[0].line:
        issues.append(
            Issue(
                Rank.COUNT_PLACE,
                f"the count line (line {line}) comes after the first board (line "
                f"{out.boards[0].line}): it goes right after the tile listing and an "
                "empty line, before the boards",
            )
        )
    if text.strip() != want_text:
        # Counting a symmetric tile's look-alike placements twice inflates the count.
        inflated = (out.count or 0) > want and "symmetric-tiles" in policy
        rule = "symmetric-tiles" if inflated and any(is_symmetric(t) for t in tiles or ()) else None
        issues.append(
            Issue(Rank.COUNT_LINE, _count_message(want, want_text, out.count, text, line), rule)
        )
    printed, stated = len(out.boards), out.count
    if stated is not None and stated != printed:
        readable = " readable" if out.unreadable else ""
        issues.append(
            Issue(
                Rank.COUNT_VS_BOARDS,
                f"the count line says {_solutions(stated) if stated else 'no solution'}"
                f" but {printed}{readable} board{'' if printed == 1 else 's'} "
                f"{'is' if printed == 1 else 'are'} printed",
            )
        )
    return issues


_GROUPED = re.compile(r"\d{1,3}(?:,\d{3})+(?!\d)")  # 1,620: a number with thousands separators


def _count_message(want: int, want_text: str, stated: int | None, text: str, line: int) -> str:
    got = quote(text)
    grouped = _GROUPED.search(text)
    if grouped and stated == want:
        return (
            f"the count line (line {line}) writes the number with a thousands separator "
            f"({grouped.group()}): print its digits alone, {quote(want_text)}, not {got}"
        )
    if want == 0 and stated:
        return (
            f"the count line (line {line}) says {_solutions(stated)}, but the puzzle has none: "
            f"expected {quote(want_text)}"
        )
    if want and stated == 0:
        return (
            f"the count line (line {line}) says {got}, but the puzzle has {_solutions(want)}: "
            f"expected {quote(want_text)}"
        )
    if want == 0 and stated is None and "no solution" not in text.lower():
        return f"the count line (line {line}) is {got}: expected {quote(want_text)}"
    if stated is not None and stated != want:
        return (
            f"the count line (line {line}) says {_solutions(stated)}, expected {_solutions(want)}: "
            f"{got} instead of {quote(want_text)}"
        )
    lower = text.lower()
    if want == 1 and "solutions" in lower:
        return (
            f"wrong plural on line {line}: with one solution the count line is {quote(want_text)}, "
            f"not {got}"
        )
    if want > 1 and "solutions" not in lower and "solution" in lower:
        return (
            f"wrong singular on line {line}: with {want} solutions the count line is "
            f"{quote(want_text)}, not {got}"
        )
    return f"the count line (line {line}) is {got}: expected exactly {quote(want_text)}"
