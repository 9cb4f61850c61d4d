"""What a puzzle file is like, as data: its line ends, its final newline, its spaces,
its letters, its tiles, how many solutions it has. Kept for every case in the manifest
(`properties`, written by the test-case tooling from the files themselves), so that the
pool can be searched by likeness and a failure can name a property of its puzzle once a
counterfactual run proved it (grader.cases.counterfactual, grader.grading.proofs) without showing it.

Computed here, from the puzzle's bytes and its expected output, by the grader and the
tooling alike: one definition of each property."""

import re
from dataclasses import asdict, dataclass, fields
from typing import Any, cast

from grader.cases.puzzle import PuzzleFormatError, count_of, is_count_line, parse_puzzle, turn

LINE_ENDS = ("LF", "CRLF", "CR", "mixed", "none")
HAND_OUT_COLOURS = frozenset("YGRB")


@dataclass(frozen=True)
class InputProperties:
    line_ends: str  # one of LINE_ENDS ("none": a file of one line without an end)
    final_newline: bool  # the last tile's line ends with a line end
    trailing_spaces: bool  # some line ends in spaces or tabs
    spaces_in_lines: bool  # spaces around the commas, or before the first edge
    blank_lines: bool  # empty lines (after the tiles, or between them)
    bom: bool  # a UTF-8 byte-order mark before the first tile
    tiles: int  # tile lines that parse (9 in a valid puzzle)
    letters: int  # different letters on the edges
    other_letters: bool  # a letter other than the hand-out's colours Y, G, R, B
    duplicates: bool  # two tiles alike once turned
    symmetric: bool  # a tile that looks the same turned half-way round
    solutions: int | None  # unique solutions, from the expected output; None: not known

    def as_json(self) -> dict[str, Any]:
        return asdict(self)


def from_json(data: dict[str, Any]) -> InputProperties:
    """The manifest's `properties` (schema-checked before)."""
    return InputProperties(**{f.name: data[f.name] for f in fields(InputProperties)})


def properties_of(puzzle: bytes, expected: bytes | None = None) -> InputProperties:
    """The properties of a puzzle file (and of its expected output, for `solutions`)."""
    bom = puzzle.startswith(b"\xef\xbb\xbf")
    body = puzzle[3:] if bom else puzzle
    text = body.decode("latin-1")
    lines = re.split(r"\r\n|\r|\n", text)
    if lines and lines[-1] == "":
        lines.pop()  # what follows the final line end
    content = [line for line in lines if line.strip()]
    try:
        tiles = parse_puzzle(body)
    except PuzzleFormatError:
        tiles = ()
    letters = {edge[0] for tile in tiles for edge in tile}
    looks = [min(turn(tile, k) for k in range(4)) for tile in tiles]
    return InputProperties(
        line_ends=_line_ends(body),
        final_newline=body.endswith((b"\n", b"\r")),
        trailing_spaces=any(line != line.rstrip(" \t") for line in content),
        spaces_in_lines=any(re.search(r"^\s|\s,|,\s", line) for line in content),
        blank_lines=len(content) < len(lines),
        bom=bom,
        tiles=len(tiles),
        letters=len(letters),
        other_letters=bool(letters - HAND_OUT_COLOURS),
        duplicates=len(set(looks)) < len(looks),
        symmetric=any(turn(tile, 2) == tile for tile in tiles),
        solutions=_solutions(expected),
    )


def _line_ends(data: bytes) -> str:
    crlf = data.count(b"\r\n")
    cr, lf = data.count(b"\r") - crlf, data.count(b"\n") - crlf
    kinds = [name for name, n in (("CRLF", crlf), ("CR", cr), ("LF", lf)) if n]
    return kinds[0] if len(kinds) == 1 else ("mixed" if kinds else "none")


def _solutions(expected: bytes | None) -> int | None:
    """The count line's number: the first line after the listing that is one."""
    if expected is None:
        return None
    for line in expected[:4096].decode("latin-1").splitlines():
        if is_count_line(line):
            return count_of(line)
    return None


# ------------------------------------------------------------------ in words


def _line_ends_words(value: str) -> str:
    return {
        "LF": "Unix line ends (LF)",
        "CRLF": "Windows line ends (CR LF)",
        "CR": "old Mac line ends (CR alone)",
        "mixed": "line ends of more than one kind",
        "none": "a single line",
    }[value]


# Each yes-or-no property: (what a puzzle with it has, what one without it has).
_FLAGS = {
    "final_newline": ("ends with a line end", "does not end with a line end (no final newline)"),
    "trailing_spaces": ("has spaces at the end of a line", "has no spaces at the end of a line"),
    "spaces_in_lines": ("has spaces around its commas", "has no spaces around its commas"),
    "blank_lines": ("has empty lines", "has no empty lines"),
    "bom": ("starts with a byte-order mark (EF BB BF)", "has no byte-order mark"),
    "other_letters": (
        "has letters other than the hand-out's colours Y, G, R and B",
        "has only the hand-out's letters Y, G, R and B",
    ),
    "duplicates": ("has two tiles that are alike once turned", "has no two tiles alike"),
    "symmetric": (
        "has a tile that looks the same turned half-way round",
        "has no tile that looks the same turned half-way round",
    ),
}
_COUNTS = {"letters": "different letters", "tiles": "tile lines", "solutions": "solutions"}


def describe(name: str, value: str | int | None) -> str:
    """A property's value as words about "this puzzle file"."""
    if name == "line_ends":
        return f"has {_line_ends_words(cast(str, value))}"
    if name in _FLAGS:
        return _FLAGS[name][0 if value else 1]
    return f"has {value:,} {_COUNTS[name]}"
