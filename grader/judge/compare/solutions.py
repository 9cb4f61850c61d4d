"""Printed boards that are not solutions: why each is not, and boards whose
tiles are in the right cells but drawn turned."""

from collections.abc import Sequence
from typing import cast

from grader.cases.puzzle import (
    SIDES,
    Board,
    Clash,
    PrintedBoard,
    Tile,
    all_turns,
    clashes,
    digits,
    foreign_cells,
    position,
    repeated_tiles,
    turn,
)
from grader.judge.compare.ranking import Issue, Rank
from grader.judge.compare.wording import MAX_EXAMPLES, how_often, more_of


def _board_problems(
    board: Board, tiles: tuple[Tile, ...] | None, turns: Sequence[frozenset[Tile]] | None
) -> list[str]:
    """Why a printed board is not a solution (nothing if it is one)."""
    if {cell.tile for cell in board} == set(range(9)):
        # Every other complaint would follow from this one.
        return [
            "it numbers the tiles 0-8: tiles are numbered from 1 to 9, in the order of the "
            "puzzle file"
        ]
    problems = []
    for tile, cells in repeated_tiles(board):
        places = " and ".join(position(i) for i in cells)
        problems.append(f"it uses tile {tile} {how_often(len(cells))} ({places})")
    if tiles:  # unknown when neither the puzzle nor the expected listing can be read
        # `turns` is all_turns(tiles): set whenever `tiles` is
        for index in foreign_cells(board, cast("Sequence[frozenset[Tile]]", turns)):
            cell = board[index]
            if not 1 <= cell.tile <= len(tiles):
                problems.append(f"{position(index)} shows tile {cell.tile}, which does not exist")
            else:
                problems.append(
                    f"{position(index)} shows tile {cell.tile} as {' '.join(cell.edges)} "
                    f"(top, right, bottom, left), which is not a rotation of tile {cell.tile} "
                    f"<{', '.join(tiles[cell.tile - 1])}>"
                )
    for clash in clashes(board):
        problems.append(_clash_text(board, clash))
    return problems


def _clash_text(board: Board, clash: Clash) -> str:
    a, b = board[clash.first], board[clash.second]
    if clash.horizontal:
        side_a, side_b, edge_a, edge_b = 1, 3, a.edges[1], b.edges[3]
        where = f"row {clash.first // 3 + 1}, columns {clash.first % 3 + 1}-{clash.first % 3 + 2}"
    else:
        side_a, side_b, edge_a, edge_b = 2, 0, a.edges[2], b.edges[0]
        where = f"column {clash.first % 3 + 1}, rows {clash.first // 3 + 1}-{clash.first // 3 + 2}"
    if edge_a[0] != edge_b[0]:
        why = "different pictures"
    else:
        why = "two heads" if edge_a[1] == "1" else "two tails"
    return (
        f"tile {a.tile}'s {SIDES[side_a]} edge {edge_a} does not match tile {b.tile}'s "
        f"{SIDES[side_b]} edge {edge_b} ({where}: {why})"
    )


def invalid_issues(invalid: list[PrintedBoard], tiles: tuple[Tile, ...] | None) -> list[Issue]:
    """The first few boards that are not solutions; every problem of the first one."""
    issues = []
    turns = all_turns(tiles) if tiles else None
    for number, printed in enumerate(invalid[:MAX_EXAMPLES]):
        problems = _board_problems(printed.board, tiles, turns)
        if not problems:
            # Unreachable while _board_problems finds whatever is_solution_key rejects:
            # a safety net whose wording no output reaches, so no test can check it.
            problems = ["(no problem found)"]  # pragma: no mutate
        name = f"board {digits(printed.board)}"
        issues.append(
            Issue(
                Rank.NOT_A_SOLUTION,
                f"{name} (line {printed.line}) is not a solution: {problems[0]}",
            )
        )
        if number == 0:
            issues += [
                Issue(Rank.NOT_A_SOLUTION, f"{name} also: {problem}")
                for problem in problems[1 : MAX_EXAMPLES + 1]
            ]
            if len(problems) > MAX_EXAMPLES + 1:
                issues.append(
                    Issue(
                        Rank.NOT_A_SOLUTION,
                        f"{name}: {more_of(len(problems) - MAX_EXAMPLES - 1, 'problem', 'problems')}",
                    )
                )
    if len(invalid) > MAX_EXAMPLES:
        issues.append(
            Issue(
                Rank.MORE_NOT_SOLUTIONS,
                more_of(
                    len(invalid) - MAX_EXAMPLES,
                    "printed board is not a solution",
                    "printed boards are not solutions",
                ),
            )
        )
    return issues


_TURN_NAMES = {
    1: "a quarter turn clockwise",
    2: "half a turn",
    3: "a quarter turn counterclockwise",
}


def turned_cells(
    invalid: list[PrintedBoard], missing: list[PrintedBoard]
) -> tuple[list[Issue], list[PrintedBoard], list[PrintedBoard]]:
    """Printed boards with every tile in the cell of a missing expected board, some
    drawn turned: one issue each, instead of "not a solution" and "missing".
    Returns (issues, the other invalid boards, the other missing boards)."""
    by_digits: dict[str, list[PrintedBoard]] = {}
    for printed in missing:
        by_digits.setdefault(digits(printed.board), []).append(printed)
    issues: list[Issue] = []
    rest: list[PrintedBoard] = []
    matched: set[int] = set()
    for printed in invalid:
        match = next(
            (
                want
                for want in by_digits.get(digits(printed.board), ())
                if id(want) not in matched and _turns_of(printed.board, want.board)
            ),
            None,
        )
        if match is None:
            rest.append(printed)
            continue
        matched.add(id(match))
        if len(issues) < MAX_EXAMPLES:
            issues.append(Issue(Rank.TURNED, _turned_text(printed, match)))
    if len(matched) > MAX_EXAMPLES:
        issues.append(
            Issue(
                Rank.TURNED,
                more_of(
                    len(matched) - MAX_EXAMPLES,
                    "board has its tiles in the right cells but some drawn turned",
                    "boards have their tiles in the right cells but some drawn turned",
                ),
            )
        )
    return issues, rest, [want for want in missing if id(want) not in matched]


def _turns_of(got: Board, want: Board) -> list[tuple[int, int]] | None:
    """(cell index, quarter turns) of every cell of `got` drawn turned from `want`'s;
    None unless every cell holds the same tile, drawn as some turn of it."""
    turned = []
    for index, (a, b) in enumerate(zip(got, want)):
        if a.tile != b.tile:
            return None
        k = next((k for k in (0, *_TURN_NAMES) if turn(b.edges, k) == a.edges), None)
        if k is None:
            return None
        if k:
            turned.append((index, k))
    return turned or None


def _turned_text(printed: PrintedBoard, want: PrintedBoard) -> str:
    turned = _turns_of(printed.board, want.board)
    assert turned is not None  # called only for boards _turns_of matched
    cells = "; ".join(
        f"{position(i)} (tile {printed.board[i].tile}) by {_TURN_NAMES[k]}"
        for i, k in turned[:MAX_EXAMPLES]
    )
    more = f" and {len(turned) - MAX_EXAMPLES} more" if len(turned) > MAX_EXAMPLES else ""
    count = f"{len(turned)} of them are" if len(turned) > 1 else "one of them is"
    return (
        f"board {digits(printed.board)} (line {printed.line}) has every tile in the right "
        f"cell, but {count} drawn turned: {cells}{more} (the solution expected at line "
        f"{want.line} draws each tile as it is placed)"
    )
