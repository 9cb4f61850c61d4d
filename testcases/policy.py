"""Which of the project's two unsettled-by-the-hand-out rules a case depends on.

- "symmetric-tiles": a tile looks the same after a 90 or 180 degree turn and
  the puzzle has a solution. Every solution holds every tile, so a program
  counting placements instead of drawings would print each board twice.
- "tie-order": two printed boards share their 9-digit string, so their order
  comes from the tie rule (drawn text), not from the digits.
"""

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from reference.puzzlesolver import Placement

SYMMETRIC_TILES = "symmetric-tiles"
TIE_ORDER = "tie-order"

Tile = Sequence[str]


def turned(tile: Tile, quarter_turns: int) -> tuple[str, ...]:
    """The tile turned clockwise by 90 degrees `quarter_turns` times."""
    k = quarter_turns % 4
    tile = tuple(tile)
    return tile[4 - k :] + tile[: 4 - k] if k else tile


def is_symmetric(tile: Tile) -> bool:
    """Looks the same after a 180 degree turn (a 90 degree symmetry implies it)."""
    return turned(tile, 2) == tuple(tile)


def has_symmetric_tile(tiles: Iterable[Tile]) -> bool:
    return any(is_symmetric(tile) for tile in tiles)


def same_tile(a: Tile, b: Tile) -> bool:
    """Equal up to a rotation."""
    return any(turned(a, k) == tuple(b) for k in range(4))


def has_duplicate_tiles(tiles: Sequence[Tile]) -> bool:
    return any(
        same_tile(tiles[i], tiles[j]) for i in range(len(tiles)) for j in range(i + 1, len(tiles))
    )


def has_tie(boards: Iterable[Sequence["Placement"]]) -> bool:
    """Two boards in a row share their digits. The output is sorted by digits
    first, so equal digits are always neighbours."""
    previous = None
    for board in boards:
        digits = tuple(placement.tile for placement in board)
        if digits == previous:
            return True
        previous = digits
    return False


def detect(
    tiles: Sequence[Tile], solutions: int, boards: Iterable[Sequence["Placement"]]
) -> tuple[str, ...]:
    """The policy flags of a puzzle, given its solution count and its boards in
    output order (read lazily, and only when needed)."""
    flags = []
    if solutions and has_symmetric_tile(tiles):
        flags.append(SYMMETRIC_TILES)
    if solutions > 1 and has_tie(boards):
        flags.append(TIE_ORDER)
    return tuple(flags)
