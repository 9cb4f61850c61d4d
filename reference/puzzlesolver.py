#!/usr/bin/env python3
"""Scramble Squares reference solver.

    python3 puzzlesolver.py INPUT

Prints the input tiles, the number of unique solutions and every unique
solution as ASCII art, exactly as the assignment demands.  Also importable:
``parse``, ``solve`` and ``render`` each work alone; ``write_output`` is the
streaming path the command line uses.

How it searches.  A board is three horizontal rows.  Every row (three
distinct tiles, each in a distinct-looking rotation, touching edges matching)
is built once.  Rows are indexed by the edges they need above them and by
which tiles they use, so a whole board is: a first row, a second row taken
from the index by the first row's bottom edges, and a list of third rows
taken from the index by the second row's bottom edges and the three unused
tiles.  Only boards whose top-left tile has the smallest number of the four
corners are kept: of a board's four rotations that is the canonical one.

Order.  Boards are listed by their 9-digit string, and boards with the same
digits (possible with symmetric or duplicate tiles) by their drawn text.
Iterating first-row tile triples and second-row tile triples in increasing
order, and sorting the few boards that share both, yields exactly that order.

Symmetric tiles.  Rotations of one tile that look the same are one
placement, so a symmetric tile never produces the same drawing twice.

Stdlib only, one file: it is also a valid student submission.
"""

import sys
from bisect import bisect_right
from typing import Iterable, Iterator, List, NamedTuple, Optional, Sequence, Tuple

TILE_COUNT = 9
SEPARATOR = "+--------+--------+--------+\n"
USAGE = "usage: puzzlesolver.py INPUT"
_ALL_TILES = (1 << TILE_COUNT) - 1


class PuzzleError(ValueError):
    """A puzzle file that is not a valid puzzle; str() is the one-line message."""


class Puzzle(NamedTuple):
    """Nine tiles, each four edges (top, right, bottom, left) such as 'Y1'."""

    tiles: Tuple[Tuple[str, str, str, str], ...]


class Placement(NamedTuple):
    """A tile as it lies on the board: its number and its edges after rotation."""

    tile: int
    edges: Tuple[str, str, str, str]


Board = Tuple[Placement, ...]  # nine placements, row by row


# ---------------------------------------------------------------- parsing


def _parse_edge(text: str, where: str) -> str:
    edge = text.strip()
    if len(edge) != 2 or not ("A" <= edge[0] <= "Z") or edge[1] not in "01":
        shown = edge if edge else "nothing"
        raise PuzzleError(
            f"{where}: bad edge {shown!r}: an edge is one upper-case letter A-Z "
            "followed by 0 (tail) or 1 (head), e.g. Y1"
        )
    return edge


def parse(text: str, source: str = "<input>") -> Puzzle:
    """Read a puzzle: nine lines 'E1,E2,E3,E4'.

    Accepts CRLF, a missing final newline, trailing blank lines and spaces
    around commas.  Raises PuzzleError naming the source, line and problem.
    """
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    while lines and not lines[-1].strip():
        lines.pop()
    tiles = []
    for number, line in enumerate(lines, start=1):
        where = f"{source}:{number}"
        if number > TILE_COUNT:
            raise PuzzleError(f"{where}: too many tiles: a puzzle has exactly {TILE_COUNT}")
        if not line.strip():
            raise PuzzleError(f"{where}: empty line where tile {number} should be")
        fields = line.split(",")
        if len(fields) != 4:
            raise PuzzleError(
                f"{where}: tile {number} has {len(fields)} edge(s); "
                "a tile has 4 (top,right,bottom,left)"
            )
        tiles.append(tuple(_parse_edge(field, where) for field in fields))
    if len(tiles) < TILE_COUNT:
        raise PuzzleError(
            f"{source}:{len(tiles) + 1}: too few tiles: found {len(tiles)}, "
            f"a puzzle has exactly {TILE_COUNT}"
        )
    return Puzzle(tuple(tiles))


def read_puzzle(path: str) -> Puzzle:
    """parse() a file; an unreadable file is a PuzzleError too."""
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as error:
        reason = error.strerror or str(error)
        raise PuzzleError(f"{path}:0: cannot read the puzzle file: {reason}") from None
    try:
        text = data.decode("ascii")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        raise PuzzleError(f"{path}:{line}: not a text puzzle (byte {data[error.start]:#04x})") from None
    return parse(text, path)


# ---------------------------------------------------------------- tables


def _code(edge: str) -> int:
    """Edge as an int; two edges match when their codes differ only in bit 0."""
    return (ord(edge[0]) - 65) * 2 + (edge[1] == "1")


def _placements(puzzle: Puzzle) -> List[Placement]:
    """Every tile in every rotation that looks different (symmetric-tile rule),
    tile by tile in increasing number."""
    result = []
    for number, edges in enumerate(puzzle.tiles, start=1):
        seen = set()
        for turn in range(4):
            rotated = edges[4 - turn:] + edges[:4 - turn]  # turned clockwise
            if rotated not in seen:
                seen.add(rotated)
                result.append(Placement(number, rotated))
    return result


def _cell_lines(p: Placement) -> Tuple[str, str, str]:
    top, right, bottom, left = p.edges
    return f"|{p.tile}  {top}   ", f"|{left}    {right}", f"|   {bottom}   "


class _Tables:
    """Placements indexed by the edges a cell demands of them.

    An index entry is (tile bit, placement id, tile number, code its right
    neighbour must show on the left, code the cell below must show on top).
    """

    def __init__(self, puzzle: Puzzle):
        self.places = _placements(puzzle)
        self.start, self.by_left, self.by_top, self.by_both = [], {}, {}, {}
        for pid, p in enumerate(self.places):
            top, right, bottom, left = (_code(e) for e in p.edges)
            entry = (1 << p.tile - 1, pid, p.tile, right ^ 1, bottom ^ 1)
            # The top-left tile must beat the three other corners.
            if p.tile <= TILE_COUNT - 3:
                self.start.append(entry)
            self.by_left.setdefault(left, []).append(entry)
            self.by_top.setdefault(top, []).append(entry)
            self.by_both.setdefault((top, left), []).append(entry)
        self.bottoms = {}  # (demanded tops, tiles left) -> _Bottoms
        self.texts = {}  # placement ids of a row -> its three drawn lines

    def row_text(self, a: int, b: int, c: int) -> str:
        text = self.texts.get((a, b, c))
        if text is None:
            la, lb, lc = (_cell_lines(self.places[i]) for i in (a, b, c))
            text = "".join(la[i] + lb[i] + lc[i] + "|\n" for i in range(3))
            self.texts[(a, b, c)] = text
        return text

    def bottom_rows(self, tops: Tuple[int, int, int], rest: int) -> "_Bottoms":
        key = (tops, rest)
        found = self.bottoms.get(key)
        if found is None:
            found = self.bottoms[key] = self._find_bottoms(tops, rest)
        return found

    def _find_bottoms(self, tops, rest) -> "_Bottoms":
        rows = []
        for b6, p6, t6, r6, _ in self.by_top.get(tops[0], ()):
            if not b6 & rest:
                continue
            for b7, p7, t7, r7, _ in self.by_both.get((tops[1], r6), ()):
                if not b7 & rest or b7 == b6:
                    continue
                for b8, p8, t8, _, _ in self.by_both.get((tops[2], r7), ()):
                    if b8 & rest and b8 != b6 and b8 != b7:
                        rows.append(((t6, t7, t8), self.row_text(p6, p7, p8), (p6, p7, p8)))
        rows.sort()
        corners = tuple(min(tiles[0], tiles[2]) for tiles, _, _ in rows)
        return _Bottoms(
            tiles=tuple(tiles for tiles, _, _ in rows),
            ids=tuple(ids for _, _, ids in rows),
            corners=corners,
            drawn=tuple(SEPARATOR + text + SEPARATOR for _, text, _ in rows),
            sorted_corners=tuple(sorted(corners)),
        )


class _Bottoms(NamedTuple):
    """Third rows fitting one (top edges, tile set), sorted by (digits, text)."""

    tiles: Tuple[Tuple[int, int, int], ...]
    ids: Tuple[Tuple[int, int, int], ...]  # placement ids per row
    corners: Tuple[int, ...]  # per row: the smaller of its two corner tiles
    drawn: Tuple[str, ...]  # per row: its lines and the closing separator
    sorted_corners: Tuple[int, ...]  # so counting those above t is a bisect

    def count_above(self, corner: int) -> int:
        return len(self.sorted_corners) - bisect_right(self.sorted_corners, corner)


# ---------------------------------------------------------------- search


class _Group(NamedTuple):
    """Boards sharing their first six digits: per matching (top row, middle
    row) their placement ids and the third rows that fit below them."""

    corner: int  # the top-left tile: the other corners must be larger
    pairs: Tuple[Tuple[Tuple[int, ...], _Bottoms], ...]


def _first_two_rows(tables: _Tables, first: Sequence[tuple]) -> Iterator[tuple]:
    """(digits of cells 0-5, their placement ids, fitting third rows) for
    every top-left entry in `first`; six unrolled loops for speed."""
    by_left, by_top, by_both = tables.by_left, tables.by_top, tables.by_both
    bottom_rows = tables.bottom_rows
    for b0, p0, t0, r0, d0 in first:
        for b1, p1, t1, r1, d1 in by_left.get(r0, ()):
            if b1 == b0:
                continue
            u1 = b0 | b1
            for b2, p2, t2, r2, d2 in by_left.get(r1, ()):
                if b2 & u1 or t2 < t0:
                    continue
                u2 = u1 | b2
                for b3, p3, t3, r3, d3 in by_top.get(d0, ()):
                    if b3 & u2:
                        continue
                    u3 = u2 | b3
                    for b4, p4, t4, r4, d4 in by_both.get((d1, r3), ()):
                        if b4 & u3:
                            continue
                        u4 = u3 | b4
                        for b5, p5, t5, _, d5 in by_both.get((d2, r4), ()):
                            if b5 & u4:
                                continue
                            found = bottom_rows((d3, d4, d5), _ALL_TILES ^ u4 ^ b5)
                            if found.count_above(t0):
                                yield ((t0, t1, t2, t3, t4, t5), (p0, p1, p2, p3, p4, p5), found)


def _groups(puzzle: Puzzle, tables: Optional[_Tables] = None) -> Iterator[_Group]:
    """Yield groups in increasing order of their first six digits.

    The loops meet one top-left tile's rotations one after another, so the
    same six digits can come back; sorting each top-left tile's finds
    (a bounded set: they are pairs of rows, not boards) restores the order.
    """
    tables = tables or _Tables(puzzle)
    start = tables.start
    for begin in range(len(start)):
        if begin and start[begin - 1][2] == start[begin][2]:
            continue
        same_tile = [entry for entry in start[begin:] if entry[2] == start[begin][2]]
        finds = sorted(_first_two_rows(tables, same_tile), key=lambda item: item[0])
        corner = start[begin][2]
        i = 0
        while i < len(finds):
            j = i + 1
            while j < len(finds) and finds[j][0] == finds[i][0]:
                j += 1
            yield _Group(corner, tuple((ids, found) for _, ids, found in finds[i:j]))
            i = j


def _group_count(group: _Group) -> int:
    return sum(found.count_above(group.corner) for _, found in group.pairs)


def _group_texts(tables: _Tables, group: _Group) -> List[str]:
    """Drawn boards of one group, in order, each preceded by a newline."""
    corner = group.corner
    keyed = []
    for ids, found in group.pairs:
        prefix = ("\n" + SEPARATOR + tables.row_text(*ids[:3]) + SEPARATOR
                  + tables.row_text(*ids[3:]))
        if len(group.pairs) == 1:
            return [prefix + drawn for c, drawn in zip(found.corners, found.drawn) if c > corner]
        for c, tiles, drawn in zip(found.corners, found.tiles, found.drawn):
            if c > corner:
                keyed.append((tiles, prefix, drawn))
    keyed.sort()
    return [prefix + drawn for _, prefix, drawn in keyed]


def _group_boards(tables: _Tables, group: _Group) -> List[Board]:
    corner = group.corner
    keyed = []
    for ids, found in group.pairs:
        prefix = tables.row_text(*ids[:3]) + tables.row_text(*ids[3:])
        for c, tiles, drawn, last in zip(found.corners, found.tiles, found.drawn, found.ids):
            if c > corner:
                keyed.append((tiles, prefix, drawn, ids + last))
    keyed.sort(key=lambda item: item[:3])
    return [tuple(tables.places[i] for i in ids) for *_, ids in keyed]


def solve(puzzle: Puzzle) -> Iterator[Board]:
    """Every unique solution, canonical rotation, in the assignment's order."""
    tables = _Tables(puzzle)
    for group in _groups(puzzle, tables):
        yield from _group_boards(tables, group)


def count(puzzle: Puzzle) -> int:
    """Number of unique solutions, without drawing them."""
    return sum(_group_count(group) for group in _groups(puzzle))


# ---------------------------------------------------------------- output


def render_tiles(puzzle: Puzzle) -> str:
    lines = ["Input tiles:\n"]
    for number, edges in enumerate(puzzle.tiles, start=1):
        lines.append(f"{number}. <{', '.join(edges)}>\n")
    return "".join(lines)


def count_line(n: int) -> str:
    if n == 0:
        return "No solution found."
    if n == 1:
        return "1 unique solution found:"
    return f"{n} unique solutions found:"


def render_board(board: Board) -> str:
    text = SEPARATOR
    for start in (0, 3, 6):
        cells = [_cell_lines(p) for p in board[start:start + 3]]
        text += "".join(a + b + c + "|\n" for a, b, c in zip(*cells)) + SEPARATOR
    return text


def render(puzzle: Puzzle, boards: Iterable[Board]) -> str:
    """The whole expected output for these boards (e.g. solve()'s)."""
    boards = list(boards)
    parts = [render_tiles(puzzle), "\n", count_line(len(boards)), "\n"]
    parts.append("\n".join(render_board(board) for board in boards))
    return "".join(parts)


def write_output(puzzle: Puzzle, out, buffer_bytes: int = 4 << 20) -> int:
    """Stream the whole output to a binary file; memory stays flat.

    The count line comes first.  Small outputs are drawn once, held and
    written; when the drawing outgrows the buffer, a second, cheaper search
    counts the rest, the count line goes out and the drawing resumes where it
    paused.  Returns the number of solutions.
    """
    tables = _Tables(puzzle)
    groups = _groups(puzzle, tables)
    pending: List[str] = []
    size = total = 0
    exhausted = True
    for group in groups:
        texts = _group_texts(tables, group)
        pending += texts
        total += len(texts)
        size += len(texts)
        if size * 400 >= buffer_bytes:
            exhausted = False
            break
    if not exhausted:
        total = sum(_group_count(group) for group in _groups(puzzle, tables))
    out.write((render_tiles(puzzle) + "\n" + count_line(total)).encode("ascii"))
    if total == 0:
        out.write(b"\n")
        return 0
    out.write("".join(pending).encode("ascii"))
    pending, size = [], 0
    for group in groups:
        texts = _group_texts(tables, group)
        pending += texts
        size += len(texts)
        if size * 400 >= buffer_bytes:
            out.write("".join(pending).encode("ascii"))
            pending, size = [], 0
    out.write("".join(pending).encode("ascii"))
    return total


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = sys.argv[1:] if argv is None else list(argv)
    if len(args) != 1:
        print(USAGE, file=sys.stderr)
        return 2
    try:
        puzzle = read_puzzle(args[0])
    except PuzzleError as error:
        print(f"puzzlesolver: {error}", file=sys.stderr)
        return 2
    try:
        write_output(puzzle, sys.stdout.buffer)
        sys.stdout.flush()
    except BrokenPipeError:
        # The reader went away (e.g. `| head`): not an error of ours.
        sys.stderr.close()
        return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
