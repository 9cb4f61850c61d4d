"""An independent Scramble Squares solver, for cross-checking the reference.

It shares no code and no idea with reference/puzzlesolver.py beyond the
assignment's text: plain backtracking, column by column, over every tile in
every one of its four rotations (symmetric tiles included, so the same
drawing can be found more than once), with no symmetry breaking at all.
Every complete board is then turned to each of its four whole-board
rotations and the one with the smallest 9-digit string is kept; boards that
draw identically are one solution; solutions are sorted by (digits, drawing).

Slow on purpose (clarity first): use it on puzzles with up to a few
thousand solutions; `limit` caps the work (tiles tried) and raises
TooMuchWork beyond it, so that callers can skip hopeless puzzles.
"""

from collections.abc import Sequence

Edges = tuple[str, str, str, str]  # top, right, bottom, left
Cell = tuple[int, Edges]  # tile number (1-9) and its edges as it lies
Grid = tuple[Cell, ...]  # nine cells, row by row

LINE = "+--------+--------+--------+"


class TooMuchWork(Exception):
    """The search tried more placements than the caller allowed."""


def tiles_from_text(text: str) -> list[Edges]:
    """The nine tiles of a clean puzzle text (one 'E1,E2,E3,E4' per line)."""
    tiles = []
    for line in text.splitlines():
        if line.strip():
            fields = tuple(field.strip() for field in line.split(","))
            assert len(fields) == 4, line
            tiles.append(fields)
    assert len(tiles) == 9, text
    return tiles


def turn_clockwise(edges: Edges) -> Edges:
    top, right, bottom, left = edges
    return (left, top, right, bottom)  # what was on the left is now on top


def fits(a: str, b: str) -> bool:
    """Two touching edges: the same picture, one tail (0) and one head (1)."""
    return a[0] == b[0] and a[1] + b[1] in ("01", "10")  # (a set per call: 2x slower)


def all_boards(tiles: Sequence[Edges], limit: int | None = None) -> list[Grid]:
    """Every complete board, in every rotation of every tile and of the board."""
    rotations = []
    for edges in tiles:
        turns = [tuple(edges)]
        for _ in range(3):
            turns.append(turn_clockwise(turns[-1]))
        rotations.append(turns)
    order = [row * 3 + col for col in range(3) for row in range(3)]  # column-major
    grid: dict[int, Cell] = {}
    found: list[Grid] = []
    tried = [0]

    def place(step: int, unused: frozenset) -> None:
        if step == 9:
            found.append(tuple(grid[index] for index in range(9)))
            return
        index = order[step]
        row, col = divmod(index, 3)
        for number in sorted(unused):
            tried[0] += 4
            if limit is not None and tried[0] > limit:
                raise TooMuchWork(f"more than {limit} placements tried")
            for edges in rotations[number - 1]:
                if row > 0 and not fits(grid[index - 3][1][2], edges[0]):
                    continue
                if col > 0 and not fits(grid[index - 1][1][1], edges[3]):
                    continue
                grid[index] = (number, edges)
                place(step + 1, unused - {number})
                del grid[index]

    place(0, frozenset(range(1, 10)))
    return found


def turn_board(grid: Grid) -> Grid:
    """The whole board turned a quarter clockwise: the cell at (row, col)
    moves to (col, 2 - row), and every tile turns with it."""
    turned: dict[int, Cell] = {}
    for index, (number, edges) in enumerate(grid):
        row, col = divmod(index, 3)
        turned[col * 3 + (2 - row)] = (number, turn_clockwise(edges))
    return tuple(turned[index] for index in range(9))


def digits(grid: Grid) -> str:
    return "".join(str(number) for number, _ in grid)


def canonical(grid: Grid) -> Grid:
    """Of the board's four rotations, the one with the smallest digits."""
    candidates = [grid]
    for _ in range(3):
        candidates.append(turn_board(candidates[-1]))
    return min(candidates, key=digits)


def draw(grid: Grid) -> str:
    lines = [LINE]
    for row in range(3):
        cells = grid[row * 3 : row * 3 + 3]
        first = second = third = ""
        for number, (top, right, bottom, left) in cells:
            first += "|" + str(number) + "  " + top + "   "
            second += "|" + left + "    " + right
            third += "|   " + bottom + "   "
        lines += [first + "|", second + "|", third + "|", LINE]
    return "\n".join(lines) + "\n"


def solutions(tiles: Sequence[Edges], limit: int | None = None) -> list[tuple[str, str]]:
    """(digits, drawing) of every unique solution, in the assignment's order."""
    unique = {}
    for grid in all_boards(tiles, limit):
        best = canonical(grid)
        picture = draw(best)
        unique[picture] = (digits(best), picture)
    return sorted(unique.values())


def expected_output(tiles: Sequence[Edges], limit: int | None = None) -> str:
    """The complete output the assignment demands for these tiles."""
    found = solutions(tiles, limit)
    text = "Input tiles:\n"
    for number, edges in enumerate(tiles, start=1):
        text += f"{number}. <{', '.join(edges)}>\n"
    text += "\n"
    if not found:
        return text + "No solution found.\n"
    if len(found) == 1:
        text += "1 unique solution found:\n"
    else:
        text += f"{len(found)} unique solutions found:\n"
    return text + "\n".join(picture for _, picture in found)
