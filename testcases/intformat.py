"""Puzzles written as integers (9 lines of 4: top right bottom left; two edges
match when they sum to zero) converted to the letter format.

Each magnitude becomes a letter (the smallest magnitude the alphabet's first
letter, and so on) and the sign the half: positive 1 (head), negative 0
(tail), so v and -v become X1 and X0, which match. A 0 edge ("flat") matches
only another 0, which no letter edge can do: such a puzzle cannot be converted.
"""

import string
from collections.abc import Sequence
from pathlib import Path

from testcases.errors import UsageError

TILE_COUNT = 9
SIDES = ("top", "right", "bottom", "left")
DEFAULT_ALPHABET = string.ascii_uppercase

IntTile = tuple[int, int, int, int]


def parse_int_puzzle(text: str, source: str) -> list[IntTile]:
    """Nine lines of four integers separated by white space; trailing blank
    lines and CRLF are accepted. A UsageError names source, line and problem."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    while lines and not lines[-1].strip():
        lines.pop()
    tiles: list[IntTile] = []
    for number, line in enumerate(lines, start=1):
        where = f"{source}:{number}"
        if number > TILE_COUNT:
            raise UsageError(f"{where}: too many tiles: a puzzle has exactly {TILE_COUNT}")
        fields = line.split()
        if len(fields) != 4:
            raise UsageError(
                f"{where}: tile {number} has {len(fields)} number(s); "
                "a tile has 4 (top right bottom left)"
            )
        tile = []
        for side, field in zip(SIDES, fields):
            try:
                tile.append(int(field))
            except ValueError:
                raise UsageError(f"{where}: {side} edge {field!r} is not an integer") from None
        top, right, bottom, left = tile
        tiles.append((top, right, bottom, left))
    if len(tiles) < TILE_COUNT:
        raise UsageError(
            f"{source}:{len(tiles) + 1}: too few tiles: found {len(tiles)}, "
            f"a puzzle has exactly {TILE_COUNT}"
        )
    return tiles


def check_alphabet(alphabet: str) -> str:
    if not alphabet or any(c not in string.ascii_uppercase for c in alphabet):
        raise UsageError(f"alphabet {alphabet!r}: use upper-case letters A-Z only")
    if len(set(alphabet)) != len(alphabet):
        raise UsageError(f"alphabet {alphabet!r}: a letter appears twice")
    return alphabet


def to_letters(
    tiles: Sequence[IntTile], source: str, alphabet: str = DEFAULT_ALPHABET
) -> list[tuple[str, str, str, str]]:
    """The tiles in letter form; a UsageError when a tile cannot be written so."""
    check_alphabet(alphabet)
    for number, tile in enumerate(tiles, start=1):
        for side, value in zip(SIDES, tile):
            if value == 0:
                raise UsageError(
                    f"{source}:{number}: {side} edge is 0, a flat edge that matches itself; "
                    "the letter format has no such edge (X0 matches only X1), "
                    "so this puzzle cannot be converted"
                )
    magnitudes = sorted({abs(value) for tile in tiles for value in tile})
    if len(magnitudes) > len(alphabet):
        raise UsageError(
            f"{source}:{_line_of_one_too_many(tiles, len(alphabet))}: "
            f"{len(magnitudes)} different edge images (magnitudes) in all, but "
            f"only {len(alphabet)} letters to write them with"
        )
    letter = dict(zip(magnitudes, alphabet))
    written = []
    for tile in tiles:
        top, right, bottom, left = (f"{letter[abs(v)]}{1 if v > 0 else 0}" for v in tile)
        written.append((top, right, bottom, left))
    return written


def _line_of_one_too_many(tiles: Sequence[IntTile], letters: int) -> int:
    """The line where, reading on, one magnitude more than there are letters appears."""
    seen: set[int] = set()
    for number, tile in enumerate(tiles, start=1):
        seen.update(abs(value) for value in tile)
        if len(seen) > letters:
            return number
    return len(tiles)


def convert_file(path: Path, alphabet: str = DEFAULT_ALPHABET) -> list[tuple[str, str, str, str]]:
    try:
        text = Path(path).read_text(encoding="ascii")
    except OSError as error:
        raise UsageError(f"{path}: cannot read: {error.strerror}") from None
    except UnicodeDecodeError:
        raise UsageError(f"{path}: not a text file of integers") from None
    return to_letters(parse_int_puzzle(text, str(path)), str(path), alphabet)
