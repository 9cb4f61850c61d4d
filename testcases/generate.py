"""Random puzzles with a chosen number of unique solutions.

Method: lay out a solved board (internal edges that match, random outer
edges), shuffle and turn its tiles, count the solutions with the reference,
and try again with the next derived seed until the count is right. Without
--symmetric or --duplicates a puzzle with such tiles is rejected, so a
plain case never depends on the project's policy by accident.

Everything random comes from random.Random(seed): the same seed and options
give the same puzzle on every machine.
"""

import random
import re
import string
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from types import ModuleType

from testcases import policy
from testcases.errors import Failure, UsageError

Tile = tuple[str, str, str, str]

DEFAULT_ALPHABET = "YGRB" + "".join(c for c in string.ascii_uppercase if c not in "YGRB")
DEFAULT_LETTERS = 4
MANY = (20, 99)  # "many": dozens
MAX_TRIES = 2000
# Two boards with the same 9 digits make the order rest on the tie rule. By
# default a puzzle with such a tie is rejected, like accidental symmetric tiles.
TIES = ("forbid", "require", "allow")

# Centre and corners: no two share an edge, so tiles forced onto them (a
# symmetric tile, copies of one tile) never constrain each other.
_FORCED_CELLS = (4, 0, 8, 2, 6)
_OPPOSITE = (2, 3, 0, 1)
_STEP = ((-1, 0), (0, 1), (1, 0), (0, -1))  # top, right, bottom, left as (row, col)


@dataclass(frozen=True)
class Target:
    """How many unique solutions are wanted: low..high inclusive."""

    low: int
    high: int

    def __contains__(self, solutions: int) -> bool:
        return self.low <= solutions <= self.high

    def __str__(self) -> str:
        return f"exactly {self.low}" if self.low == self.high else f"{self.low}-{self.high}"


def parse_target(text: str) -> Target:
    """'N', 'many' (dozens) or 'LOW-HIGH'."""
    if text == "many":
        return Target(*MANY)
    match = re.fullmatch(r"(\d+)(?:-(\d+))?", text)
    if not match:
        raise UsageError(f"--solutions {text!r}: give a count N, a range LOW-HIGH, or 'many'")
    low = int(match.group(1))
    high = int(match.group(2)) if match.group(2) else low
    if high < low:
        raise UsageError(f"--solutions {text!r}: the range is empty")
    return Target(low, high)


def choose_letters(letters: int | None, alphabet: str | None) -> str:
    """The letters edges are drawn from: the first `letters` of the alphabet."""
    if letters is None:
        letters = len(alphabet) if alphabet else DEFAULT_LETTERS
    alphabet = alphabet or DEFAULT_ALPHABET
    if any(c not in string.ascii_uppercase for c in alphabet) or len(set(alphabet)) != len(
        alphabet
    ):
        raise UsageError(f"--alphabet {alphabet!r}: give distinct upper-case letters A-Z")
    if not 1 <= letters <= len(alphabet):
        raise UsageError(f"--letters {letters}: choose 1 to {len(alphabet)} (the alphabet's size)")
    return alphabet[:letters]


@dataclass(frozen=True)
class Options:
    target: Target
    letters: str  # the letters edges are drawn from
    duplicates: bool = False
    symmetric: bool = False
    ties: str = "forbid"  # two boards with the same digits: one of TIES
    max_tries: int = MAX_TRIES


@dataclass(frozen=True)
class Generated:
    tiles: tuple[Tile, ...]
    solutions: int
    attempt: int  # 1-based: how many tries it took


def generate(options: Options, seed: int, solver: ModuleType) -> Generated:
    """A puzzle meeting `options`, or Failure after options.max_tries tries.
    `solver` is reference.puzzlesolver (count, solve, Puzzle)."""
    master = random.Random(seed)
    seen: list[int] = []
    for attempt in range(1, options.max_tries + 1):
        rng = random.Random(master.getrandbits(64))  # the derived seed of this try
        tiles = _attempt(rng, options)
        if tiles is None:
            continue
        puzzle = solver.Puzzle(tiles)
        solutions = solver.count(puzzle)
        seen.append(solutions)
        if solutions not in options.target:
            continue
        if options.ties != "allow" and solutions > 1:
            if policy.has_tie(solver.solve(puzzle)) != (options.ties == "require"):
                continue
        elif options.ties == "require":
            continue
        return Generated(tiles, solutions, attempt)
    counts = (
        f"counts seen {min(seen)}..{max(seen)}" if seen else "no candidate passed the tile checks"
    )
    raise Failure(
        f"no puzzle with {options.target} solution(s)"
        f"{_TIE_WORDS[options.ties] if options.target.high > 1 else ''} "
        f"from letters {options.letters} in {options.max_tries} tries (seed {seed}; {counts}); "
        "try another seed, more --tries, or other --letters"
    )


_TIE_WORDS = {"forbid": " and no tie", "require": " and a tie", "allow": ""}


def _attempt(rng: random.Random, options: Options) -> tuple[Tile, ...] | None:
    """One candidate: a solved board, shuffled and turned; None if it has
    symmetric or duplicate tiles that were not asked for."""
    skew = rng.choice((0, 0, 1, 2, 3))  # uneven letter use spreads the counts
    weights = [max(rng.random() ** skew, 0.02) for _ in options.letters]

    def edge() -> str:
        return f"{rng.choices(options.letters, weights)[0]}{rng.randrange(2)}"

    forced: list[Tile] = []
    if options.symmetric:
        forced += [_symmetric_tile(rng, edge) for _ in range(rng.randint(1, 2))]
    if options.duplicates:
        original = (edge(), edge(), edge(), edge())
        forced += [
            _four(policy.turned(original, rng.randrange(4))) for _ in range(rng.choice((2, 2, 3)))
        ]
    board = _solved_board(forced, edge)
    if options.target.high == 0:
        _break_one_edge(rng, board, len(forced), edge)
    if policy.has_symmetric_tile(board) != options.symmetric:
        return None
    if policy.has_duplicate_tiles(board) != options.duplicates:
        return None
    rng.shuffle(board)
    return tuple(_four(policy.turned(tile, rng.randrange(4))) for tile in board)


def _four(edges: Sequence[str]) -> Tile:
    """A tile from its four edges (top, right, bottom, left)."""
    top, right, bottom, left = edges
    return top, right, bottom, left


def _symmetric_tile(rng: random.Random, edge: Callable[[], str]) -> Tile:
    first, second = edge(), edge()
    if rng.randrange(4) == 0:
        return (first, first, first, first)  # looks the same after any turn
    return (first, second, first, second)  # looks the same after a half turn


def _neighbour(cell: int, side: int) -> int | None:
    row, col = divmod(cell, 3)
    d_row, d_col = _STEP[side]
    row, col = row + d_row, col + d_col
    return row * 3 + col if 0 <= row < 3 and 0 <= col < 3 else None


def _mate(edge: str) -> str:
    return edge[0] + ("0" if edge[1] == "1" else "1")


def _solved_board(forced: Sequence[Tile], edge: Callable[[], str]) -> list[Tile]:
    """Nine tiles, row by row, whose touching edges all match; forced tiles
    lie on the centre and corners in the order given."""
    slots: dict[tuple[int, int], str] = {}

    def put(cell: int, side: int, value: str) -> None:
        slots[(cell, side)] = value
        other = _neighbour(cell, side)
        if other is not None:
            slots[(other, _OPPOSITE[side])] = _mate(value)

    for cell, tile in zip(_FORCED_CELLS, forced):
        for side, value in enumerate(tile):
            put(cell, side, value)
    for cell in range(9):
        for side in range(4):
            if (cell, side) not in slots:
                put(cell, side, edge())
    return [_four([slots[(cell, side)] for side in range(4)]) for cell in range(9)]


def _break_one_edge(
    rng: random.Random, board: list[Tile], forced: int, edge: Callable[[], str]
) -> None:
    """Spoil one internal match of a free tile: the puzzle is then one edge
    away from solvable, the hardest kind of 'no solution'."""
    free = [cell for cell in range(9) if cell not in _FORCED_CELLS[:forced]]
    cell = rng.choice(free)
    side = rng.choice([s for s in range(4) if _neighbour(cell, s) is not None])
    old = board[cell][side]
    new = old
    while new == old:
        new = edge()
    tile = list(board[cell])
    tile[side] = new
    board[cell] = _four(tile)
