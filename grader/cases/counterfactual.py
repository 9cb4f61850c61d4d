"""The same puzzle with one property changed, and its expected output: what a
counterfactual run needs to prove that property is what a program fails on.

A property of a puzzle file is named as what sets a failing puzzle apart only when the
program passes the same puzzle with only that property changed (grader.grading.proofs runs it):
its line ends made LF, a final newline added, spaces at line ends or around the commas
taken out, empty lines taken out, its letters renamed to the hand-out's Y, G, R, B.
The file's layout changes nothing the assignment prints (the listing shows the edges as
given, without the file's white space), so the expected output stays; renamed letters
rename the listing and the boards, and the boards are put in the assignment's order
again (ties are ordered by their drawing) with the grader's own puzzle model, which
first redraws the original expected output byte for byte, else no variant is made.
Never a solver: the boards are the expected output's own.
"""

import re
from collections.abc import Sequence
from dataclasses import dataclass

from grader.cases.input_properties import HAND_OUT_COLOURS, InputProperties
from grader.cases.puzzle import (
    Board,
    Cell,
    PuzzleFormatError,
    Tile,
    board_of,
    digits,
    draw,
    parse_output,
    parse_puzzle,
)

# What each variant changes, in words: "the same puzzle <this> passes".
SAID = {
    "line_ends": "with Unix line ends (LF)",
    "final_newline": "with a final newline",
    "trailing_spaces": "without spaces at the ends of lines",
    "spaces_in_lines": "without spaces around its commas",
    "blank_lines": "without empty lines",
    "other_letters": "with its letters renamed to the hand-out's Y, G, R and B",
}


@dataclass(frozen=True)
class Variant:
    """The puzzle with one property changed (SAID names how)."""

    property: str  # the InputProperties field it changes
    puzzle: bytes
    expected: bytes


def variants(puzzle: bytes, expected: bytes, found: InputProperties) -> list[Variant]:
    """A variant for each property of the file that one can change alone."""
    made = []
    if found.line_ends in ("CRLF", "CR", "mixed"):
        unix = puzzle.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        made.append(Variant("line_ends", unix, expected))
    if not found.final_newline and found.line_ends != "none":
        end = b"\r\n" if found.line_ends == "CRLF" else b"\n"
        made.append(Variant("final_newline", puzzle + end, expected))
    if found.trailing_spaces:
        trimmed = re.sub(rb"[ \t]+(?=\r?\n|\r|\Z)", b"", puzzle)
        made.append(Variant("trailing_spaces", trimmed, expected))
    if found.spaces_in_lines:
        tight = re.sub(rb"[ \t]*,[ \t]*", b",", re.sub(rb"(?m)^[ \t]+", b"", puzzle))
        made.append(Variant("spaces_in_lines", tight, expected))
    if found.blank_lines:
        kept = re.sub(rb"(?m)^[ \t]*(?:\r?\n|\r)", b"", puzzle)
        made.append(Variant("blank_lines", kept, expected))
    if found.other_letters:
        renamed = _renamed(puzzle, expected)
        if renamed is not None:
            made.append(renamed)
    return made


def _renamed(puzzle: bytes, expected: bytes) -> Variant | None:
    """The letters renamed to Y, G, R, B (a puzzle of at most four letters), with the
    expected output redrawn; None when the grader's redrawing of the original expected
    output is not byte for byte the original (then it cannot be trusted renamed)."""
    try:
        tiles = parse_puzzle(puzzle)
    except PuzzleFormatError:
        return None
    letters = sorted({edge[0] for tile in tiles for edge in tile})
    if len(letters) > len(HAND_OUT_COLOURS):
        return None
    boards = [board_of(board.key) for board in parse_output(expected.decode("latin-1")).boards]
    if render(tiles, boards) != expected:
        return None
    new = dict(zip(letters, "YGRB"))
    tiles2 = tuple(_tile(tile, new) for tile in tiles)
    boards2 = [tuple(Cell(c.tile, _tile(c.edges, new)) for c in board) for board in boards]
    text = puzzle.decode("latin-1")
    renamed = re.sub(r"[A-Z](?=[01])", lambda m: new.get(m.group(0), m.group(0)), text)
    return Variant("other_letters", renamed.encode("latin-1"), render(tiles2, boards2))


def _tile(tile: Tile, new: dict[str, str]) -> Tile:
    a, b, c, d = (new[edge[0]] + edge[1] for edge in tile)
    return a, b, c, d


def render(tiles: Sequence[Tile], boards: Sequence[Board]) -> bytes:
    """The assignment's output for these tiles and these solutions: the listing, the
    count line, the boards in order of their 9-digit string, ties by their drawing."""
    listing = "".join(f"{k}. <{', '.join(tile)}>\n" for k, tile in enumerate(tiles, start=1))
    ordered = sorted(boards, key=lambda board: (digits(board), draw(board)))
    count = len(ordered)
    line = (
        "No solution found."
        if count == 0
        else "1 unique solution found:"
        if count == 1
        else f"{count} unique solutions found:"
    )
    text = f"Input tiles:\n{listing}\n{line}\n" + "\n".join(draw(board) for board in ordered)
    return text.encode("latin-1")
