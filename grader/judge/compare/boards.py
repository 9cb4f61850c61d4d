"""The boards: which are missing, extra, not solutions, printed twice, out of
order, unreadable or not drawn in the required layout."""

from collections.abc import Sequence

from grader.cases.puzzle import Key, PrintedBoard, PrintedOutput, Tile, digits, draw
from grader.judge.compare.lines import quote
from grader.judge.compare.one_per_string import one_per_string_issues
from grader.judge.compare.order import order_issues, repeat_issues, rotation_issues
from grader.judge.compare.ranking import Issue, Rank
from grader.judge.compare.solutions import invalid_issues, turned_cells
from grader.judge.compare.sorting import Seen, sort_boards
from grader.judge.compare.wording import MAX_EXAMPLES

LAYOUT_CHECKS = 300  # boards whose drawing is checked at most, beyond those equal to expected ones


def board_issues(
    exp: PrintedOutput, out: PrintedOutput, tiles: tuple[Tile, ...] | None, policy: tuple[str, ...]
) -> list[Issue]:
    where = {printed.key: index for index, printed in enumerate(exp.boards)}
    seen = sort_boards(out, tiles, where)
    missing = [printed for printed in exp.boards if printed.key not in seen.found]
    issues, seen.invalid, missing = turned_cells(seen.invalid, missing)
    issues += invalid_issues(seen.invalid, tiles)
    issues += one_per_string_issues(exp.boards, seen, where, missing)
    if missing:
        issues.append(Issue(Rank.MISSING, _missing_text(missing)))
    extra = [copies[0] for key, copies in seen.found.items() if key not in where]
    if extra:
        issues.append(Issue(Rank.EXTRA, _extra_text(extra)))
    issues += repeat_issues(seen, tiles, policy)
    issues += rotation_issues(seen)
    issues += order_issues(seen, exp, policy)
    issues += _unreadable_issues(out)
    issues += _layout_issues(out, exp, where, seen)
    return issues


def _boards_named(boards: list[PrintedBoard], which: str) -> str:
    """The first boards by their 9-digit string; boards sharing one (ties) are named
    together, never as the same string twice."""
    named: dict[str, list[int]] = {}
    for printed in boards:
        string = digits(printed.board)
        if string not in named and len(named) == MAX_EXAMPLES:
            break
        named.setdefault(string, []).append(printed.line)
    shown = ", ".join(
        f"{string} ({which} line {lines[0]})"
        if len(lines) == 1
        else f"{string} ({len(lines)} boards, {which} lines {', '.join(map(str, lines))})"
        for string, lines in named.items()
    )
    rest = len(boards) - sum(len(lines) for lines in named.values())
    return shown + (f" and {rest} more" if rest > 0 else "")


def _missing_text(missing: list[PrintedBoard]) -> str:
    if len(missing) == 1:
        return f"board {digits(missing[0].board)} is missing (expected at line {missing[0].line})"
    return f"{len(missing)} boards are missing: {_boards_named(missing, 'expected at')}"


def _extra_text(extra: list[PrintedBoard]) -> str:
    if len(extra) == 1:
        return (
            f"board {digits(extra[0].board)} (line {extra[0].line}) is extra: "
            "it is not in the expected output"
        )
    return (
        f"{len(extra)} boards are extra, not in the expected output: {_boards_named(extra, 'at')}"
    )


def _unreadable_issues(out: PrintedOutput) -> list[Issue]:
    if not out.unreadable:
        return []
    line, why = out.unreadable[0]
    more = f" ({len(out.unreadable)} places in all)" if len(out.unreadable) > 1 else ""
    text = f"could not read a board at line {line}: {why}{more}"
    return [Issue(Rank.UNREADABLE, text)]


def _layout_issues(
    out: PrintedOutput, exp: PrintedOutput, where: dict[Key, int], seen: Seen
) -> list[Issue]:
    """The first readable board whose drawing is not the required layout.

    A wrong layout is the same on every board, so drawing a few hundred
    boards to compare with is enough even for a huge output."""
    bad = {id(printed) for printed in seen.invalid}
    drawn = 0
    for printed in out.boards:
        index = where.get(printed.key)
        if (index is not None and printed.text == exp.boards[index].text) or id(printed) in bad:
            continue
        drawn += 1
        if drawn > LAYOUT_CHECKS:
            return []
        # An expected board is drawn the same way (the reference draws it as draw() does).
        want = tuple(draw(printed.board).split("\n")[:-1])
        got = printed.lines
        if got != want:
            text = (
                f"board {digits(printed.board)} (line {printed.line}) is not drawn in the "
                f"required layout: {_layout_difference(want, got, printed.line)}"
            )
            return [Issue(Rank.LAYOUT, text)]
    return []


def _layout_difference(want: Sequence[str], got: Sequence[str], first_line: int) -> str:
    """The first line of a drawing that differs from the required one."""
    at = next((k for k, (a, b) in enumerate(zip(want, got)) if a != b), min(len(want), len(got)))
    line = first_line + at
    if want[at + 1 : at + 2] == got[at : at + 1] and len(got) < len(want):
        return f"a line {quote(want[at])} is missing before line {line}"
    if got[at + 1 : at + 2] == want[at : at + 1] and len(got) > len(want):
        return f"line {line} ({quote(got[at])}) should not be there"
    if at >= len(got):
        return f"it ends early: a line {quote(want[at])} is missing after line {line - 1}"
    if at >= len(want):
        return f"line {line} ({quote(got[at])}) should not be there"
    return f"line {line} should be {quote(want[at])}, not {quote(got[at])}"
