"""Solutions printed more than once, in another rotation, or out of order; the
policy rules decide some of these."""

from grader.cases.puzzle import (
    Board,
    Cell,
    PrintedBoard,
    PrintedOutput,
    Tile,
    board_of,
    digits,
    draw,
    is_symmetric,
)
from grader.judge.compare.lines import quote
from grader.judge.compare.ranking import Issue, Rank
from grader.judge.compare.sorting import Seen
from grader.judge.compare.wording import MAX_EXAMPLES, how_often, more_of


def repeat_issues(
    seen: Seen, tiles: tuple[Tile, ...] | None, policy: tuple[str, ...]
) -> list[Issue]:
    issues = []
    for key, copies in seen.found.items():
        if len(copies) < 2:
            continue
        lines = ", ".join(str(p.line) for p in copies[:6]) + (", ..." if len(copies) > 6 else "")
        if len({p.key for p in copies}) == 1:
            issues.append(_duplicate_issue(board_of(key), copies, lines, tiles, policy))
        else:
            names = ", ".join(digits(p.board) for p in copies[:6])
            issues.append(
                Issue(
                    Rank.REPEATED,
                    f"the same solution is printed {how_often(len(copies))}, in "
                    f"different rotations: {names} (lines {lines}) are rotations "
                    "of one board; rotations of a board are one solution",
                )
            )
    if len(issues) > MAX_EXAMPLES:
        rest = len(issues) - MAX_EXAMPLES
        issues = issues[:MAX_EXAMPLES] + [
            Issue(
                Rank.MORE_REPEATED,
                more_of(
                    rest, "board is printed more than once", "boards are printed more than once"
                ),
            )
        ]
    return issues


def _duplicate_issue(
    board: Board,
    copies: list[PrintedBoard],
    lines: str,
    tiles: tuple[Tile, ...] | None,
    policy: tuple[str, ...],
) -> Issue:
    text = f"board {digits(board)} is printed {how_often(len(copies))} (lines {lines})"
    symmetric = sorted({cell.tile: cell for cell in board if is_symmetric(cell.edges)}.items())
    if not symmetric:
        return Issue(Rank.REPEATED, text)
    named = [f"{number} <{', '.join(_tile_edges(cell, tiles))}>" for number, cell in symmetric]
    if len(named) == 1:
        text += (
            f"; it contains tile {named[0]}, which looks the same turned by 180 degrees, "
            "so two of its placements draw the same board"
        )
    else:
        placements = 2 ** len(named)
        text += (
            f"; it contains tiles {', '.join(named[:-1])} and {named[-1]}, which each look "
            f"the same turned by 180 degrees, so {placements} of its placements draw the "
            "same board"
        )
    if "symmetric-tiles" in policy:
        return Issue(
            Rank.POLICY_REPEAT, text + ": they are one solution, printed once", "symmetric-tiles"
        )
    return Issue(Rank.REPEATED, text)


def _tile_edges(cell: Cell, tiles: tuple[Tile, ...] | None) -> Tile:
    """The tile's edges as the puzzle gives them (as drawn when the puzzle is unknown)."""
    return tiles[cell.tile - 1] if tiles and 1 <= cell.tile <= len(tiles) else cell.edges


def rotation_issues(seen: Seen) -> list[Issue]:
    rotated = [
        (copies[0], key)
        for key, copies in seen.found.items()
        if len(copies) == 1 and copies[0].key != key
    ]
    if not rotated:
        return []
    printed, board = rotated[0][0], board_of(rotated[0][1])
    text = (
        f"board {digits(printed.board)} (line {printed.line}) is a rotation of {digits(board)}: "
        "print the rotation whose top-left tile has the smallest number of the four corners"
    )
    if len(rotated) > 1:
        text += f" ({len(rotated)} boards are printed in another rotation)"
    return [Issue(Rank.ROTATION, text)]


def order_issues(seen: Seen, exp: PrintedOutput, policy: tuple[str, ...]) -> list[Issue]:
    for (i, first), (j, second) in zip(seen.order, seen.order[1:]):
        # Each expected board enters the order once, so i == j never happens.
        if i < j:  # pragma: no mutate
            continue
        a, b = exp.boards[i].board, exp.boards[j].board
        if digits(a) != digits(b):
            return [
                Issue(
                    Rank.ORDER,
                    f"boards are out of order: {digits(first.board)} (line {first.line}) "
                    f"comes before {digits(second.board)} (line {second.line}); boards go "
                    "in increasing order of their 9-digit string",
                )
            ]
        text = (
            f"boards with the same 9-digit string {digits(a)} are in the wrong order (lines "
            f"{first.line} and {second.line}): they go by their drawn text, compared as strings"
            f"{_first_text_difference(a, b)}"
        )
        if "tie-order" in policy:
            return [Issue(Rank.POLICY_TIE_ORDER, text, "tie-order")]
        return [Issue(Rank.ORDER, text)]
    return []


def _first_text_difference(a: Board, b: Board) -> str:
    for line_a, line_b in zip(draw(a).split("\n"), draw(b).split("\n")):
        if line_a != line_b:
            return f" ({quote(line_b)} comes before {quote(line_a)})"  # drawn lines: 28 characters
    # Two different boards never draw the same text: only the type checker gets here.
    return ""  # pragma: no mutate
