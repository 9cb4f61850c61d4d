#!/usr/bin/env python3
"""Scramble Squares reference solver.

    python3 puzzlesolver.py INPUT

Prints the input tiles, the number of unique solutions and every unique
solution as ASCII art, exactly as the assignment demands.  Also importable:
``parse``, ``solve`` and ``render`` each work alone; ``write_output`` is the
streaming path the command line uses and ``count`` counts without drawing.

A placement is a tile in one rotation; rotations of a tile that look the
same are one placement (the symmetric-tile rule), so no drawing is ever
produced twice.  Of a board's four rotations the one kept (canonical) has
the smallest tile of the four corners at the top left.  Boards are listed by
their 9-digit string, and boards with the same digits (possible with
symmetric or duplicate tiles) by their drawn text.

Two searches, one for each kind of puzzle:

- Few solutions (every well-made puzzle): the centre is placed first, its
  tile in one rotation only, then the cells around it.  Every board has
  exactly one rotation with its centre so (a symmetric centre tile: see
  _canonical), so the four-fold symmetry is gone from the first cell on,
  where a corner-first search can only use it late (the top-left tile must
  be the smallest corner): about half the work on the hand-out's example.
  Found boards are turned to their canonical rotation and sorted.  The
  search gives up past _FEW boards.
- Many solutions (degenerate puzzles, up to millions): row by row, already
  in canonical rotation and in order, so the output streams.  The bottom
  rows fitting a middle row's bottom edges and unused tiles are computed once
  and drawn once; each board is then one join away.  Counting first (the
  count line precedes the boards) is memoized by top row.

Stdlib only, one file: it is also a valid student submission.
"""

import io
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from itertools import groupby
from operator import itemgetter
from typing import BinaryIO, NamedTuple

TILE_COUNT = 9
SEPARATOR = "+--------+--------+--------+\n"
USAGE = "usage: puzzlesolver.py INPUT"


class PuzzleError(ValueError):
    """A puzzle file that is not a valid puzzle; str() is the one-line message."""


class Puzzle(NamedTuple):
    """Nine tiles, each four edges (top, right, bottom, left) such as 'Y1'."""

    tiles: tuple[tuple[str, str, str, str], ...]


class Placement(NamedTuple):
    """A tile as it lies on the board: its number and its edges after rotation."""

    tile: int
    edges: tuple[str, str, str, str]


Board = tuple[Placement, ...]  # nine placements, row by row

_EDGES = frozenset(chr(65 + i) + half for i in range(26) for half in "01")
_SEP = SEPARATOR.encode("ascii")
_BOARD_BYTES = 1 + 13 * len(_SEP)  # blank line, 4 separators, 9 cell lines
_FEW = 2000  # above this many solutions, the streaming search takes over


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


def _parse_tile(line: str, number: int, source: str) -> tuple[str, str, str, str]:
    fields = line.split(",")
    if len(fields) == 4 and all(field in _EDGES for field in fields):
        return fields[0], fields[1], fields[2], fields[3]  # the common, clean case
    where = f"{source}:{number}"
    if not line.strip():
        raise PuzzleError(f"{where}: empty line where tile {number} should be")
    if len(fields) != 4:
        raise PuzzleError(
            f"{where}: tile {number} has {len(fields)} edge(s); "
            "a tile has 4 (top,right,bottom,left)"
        )
    top, right, bottom, left = (_parse_edge(field, where) for field in fields)
    return top, right, bottom, left


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
        if number > TILE_COUNT:
            raise PuzzleError(
                f"{source}:{number}: too many tiles: a puzzle has exactly {TILE_COUNT}"
            )
        tiles.append(_parse_tile(line, number, source))
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
        byte = data[error.start]
        raise PuzzleError(f"{path}:{line}: not a text puzzle (byte {byte:#04x})") from None
    return parse(text, path)


# ---------------------------------------------------------------- placements


def _turns(
    tile: int, top: int, right: int, bottom: int, left: int
) -> tuple[tuple[int, int, int, int, int], ...]:
    """(tile, top, right, bottom, left) for each rotation of the tile that
    looks different, each turned clockwise once more than the one before."""
    if top == right == bottom == left:
        return ((tile, top, right, bottom, left),)
    if top == bottom and right == left:
        return ((tile, top, right, bottom, left), (tile, left, top, right, bottom))
    return (
        (tile, top, right, bottom, left),
        (tile, left, top, right, bottom),
        (tile, bottom, left, top, right),
        (tile, right, bottom, left, top),
    )


# Turning a board clockwise: the cell at index i then holds what was at
# _TURN_SOURCE[i] (the bottom-left corner moves to the top left).
_TURN_SOURCE = (6, 3, 0, 7, 4, 1, 8, 5, 2)
# Clockwise quarter turns that bring a corner (by cell index) to the top left.
_QUARTERS_TO_TOP_LEFT = {0: 0, 6: 1, 8: 2, 2: 3}


class _Placements:
    """Every placement, numbered tile by tile in turn order (its id), with
    its edge codes; and the drawing of placements, rows and boards, cached.

    An edge's code is twice its letter's rank (letters in order of first
    appearance) plus 1 for a head: two edges match when their codes differ
    in bit 0 only, and codes are below k, so code pairs index short lists."""

    def __init__(self, puzzle: Puzzle):
        self.puzzle = puzzle
        letters = dict.fromkeys("".join(map("".join, puzzle.tiles))[::2])  # first letters
        code = {
            letter + half: 2 * rank + int(half)
            for rank, letter in enumerate(letters)
            for half in "01"
        }
        self.k = 2 * len(letters)
        self.looks: list[
            tuple[int, int, int, int, int]
        ] = []  # id -> (tile, top, right, bottom, left)
        self.tile_of: list[int] = []  # id -> tile
        self.first = [0] * (TILE_COUNT + 1)  # tile -> id of its unturned placement
        self.period = [0] * (TILE_COUNT + 1)  # tile -> how many placements it has
        for tile, edges in enumerate(puzzle.tiles, start=1):
            top, right, bottom, left = edges
            turns = _turns(tile, code[top], code[right], code[bottom], code[left])
            self.first[tile] = len(self.looks)
            self.period[tile] = len(turns)
            self.looks += turns
            self.tile_of += [tile] * len(turns)
        self._placements: list[Placement | None] = [None] * len(self.looks)
        self._cells: list[tuple[bytes, bytes, bytes]] | None = None
        self._texts: dict[int, bytes] = {}  # three ids -> that row drawn

    def turned(self, pid: int, quarters: int) -> int:
        """The placement `pid` becomes when turned clockwise `quarters` times."""
        tile = self.tile_of[pid]
        first = self.first[tile]
        return first + (pid - first + quarters) % self.period[tile]

    def placement(self, pid: int) -> Placement:
        found = self._placements[pid]
        if found is None:
            tile = self.tile_of[pid]
            turn = pid - self.first[tile]
            edges = self.puzzle.tiles[tile - 1]  # turned: the left edge comes to the top
            found = self._placements[pid] = Placement(
                tile,
                (
                    edges[-turn % 4],
                    edges[(1 - turn) % 4],
                    edges[(2 - turn) % 4],
                    edges[(3 - turn) % 4],
                ),
            )
        return found

    def board(self, ids: Sequence[int]) -> Board:
        return tuple(map(self.placement, ids))

    def row_text(self, a: int, b: int, c: int) -> bytes:
        """Three placements side by side: their three lines, no separator."""
        key = (a * 64 + b) * 64 + c
        text = self._texts.get(key)
        if text is None:
            if self._cells is None:
                self._cells = [_cell_bytes(self.placement(pid)) for pid in range(len(self.looks))]
            la, lb, lc = self._cells[a], self._cells[b], self._cells[c]
            text = self._texts[key] = b"".join(la[i] + lb[i] + lc[i] + b"|\n" for i in range(3))
        return text

    def board_text(self, ids: Sequence[int]) -> bytes:
        """A board drawn, after the blank line that precedes it."""
        return b"".join(
            (
                _SEP,
                self.row_text(*ids[0:3]),
                _SEP,
                self.row_text(*ids[3:6]),
                _SEP,
                self.row_text(*ids[6:9]),
                _SEP,
            )
        )


def _cell_lines(p: Placement) -> tuple[str, str, str]:
    top, right, bottom, left = p.edges
    return f"|{p.tile}  {top}   ", f"|{left}    {right}", f"|   {bottom}   "


def _cell_bytes(p: Placement) -> tuple[bytes, bytes, bytes]:
    first, second, third = _cell_lines(p)
    return first.encode("ascii"), second.encode("ascii"), third.encode("ascii")


def _in_order(places: _Placements, boards: list[tuple[int, ...]]) -> list[tuple[int, ...]]:
    """Boards (ids) sorted by digits, boards with the same digits by drawing."""
    tile_of = places.tile_of.__getitem__
    keyed = sorted(((tuple(map(tile_of, ids)), ids) for ids in boards), key=itemgetter(0))
    ordered: list[tuple[int, ...]] = []
    for _, group in groupby(keyed, key=itemgetter(0)):
        same = [ids for _, ids in group]
        if len(same) > 1:
            same.sort(key=places.board_text)  # rows have a fixed width
        ordered += same
    return ordered


# ---------------------------------------------------------------- few solutions


class _Compass:
    """Placements indexed by the codes a cell demands of them on one side
    or two.  An entry is (tile bit, id, and the codes its neighbours must
    show facing it: above, right, below, left)."""

    def __init__(self, places: _Placements):
        self.centres = []  # each tile's unturned placement
        k = places.k
        by_top: list[tuple[tuple[int, int, int, int, int, int], ...]]
        by_right: list[tuple[tuple[int, int, int, int, int, int], ...]]
        by_bottom: list[tuple[tuple[int, int, int, int, int, int], ...]]
        by_left: list[tuple[tuple[int, int, int, int, int, int], ...]]
        by_top_right: list[tuple[tuple[int, int, int, int, int, int], ...]]
        by_top_left: list[tuple[tuple[int, int, int, int, int, int], ...]]
        by_top, by_right, by_bottom, by_left = [()] * k, [()] * k, [()] * k, [()] * k
        by_top_right, by_top_left = [()] * (k * k), [()] * (k * k)
        first = places.first
        for pid, (tile, top, right, bottom, left) in enumerate(places.looks):
            entry = (1 << tile, pid, top ^ 1, right ^ 1, bottom ^ 1, left ^ 1)
            if pid == first[tile]:
                self.centres.append(entry)
            by_top[top] += (entry,)
            by_right[right] += (entry,)
            by_bottom[bottom] += (entry,)
            by_left[left] += (entry,)
            by_top_right[top * k + right] += (entry,)
            by_top_left[top * k + left] += (entry,)
        self.by_top, self.by_right, self.by_bottom = by_top, by_right, by_bottom
        self.by_left, self.by_top_right, self.by_top_left = by_left, by_top_right, by_top_left


def _canonical(places: _Placements, ids: Sequence[int]) -> tuple[int, ...] | None:
    """The board turned to its canonical rotation, or None when this board
    is a second sighting: a centre tile that looks the same turned by half
    (or a quarter) lets the centre-first search meet the board two (four)
    times; only the sighting needing fewer quarter turns than the centre
    tile's period is kept, which is exactly one of them."""
    tile_of = places.tile_of
    corners = [(tile_of[ids[i]], i) for i in (0, 2, 6, 8)]
    quarters = _QUARTERS_TO_TOP_LEFT[min(corners)[1]]
    if quarters >= places.period[tile_of[ids[4]]]:
        return None
    for _ in range(quarters):
        ids = [places.turned(ids[source], 1) for source in _TURN_SOURCE]
    return tuple(ids)


def _few_boards(places: _Placements, limit: int) -> list[tuple[int, ...]] | None:
    """Every solution (canonical, in order) as nine ids each, or None when
    there are more than `limit`.

    Cells in the order centre, above, top left, left, top right, right,
    bottom left, bottom, bottom right: the left, right, bottom and bottom
    right cells each meet two placed neighbours, where most candidates fail
    at once.  Nine unrolled loops, for speed: this is the hot path of every
    normal puzzle.
    """
    c = _Compass(places)
    below, left_of, right_of, above = c.by_top, c.by_right, c.by_left, c.by_bottom
    top_right, top_left = c.by_top_right, c.by_top_left
    k = places.k
    found = []
    for b4, p4, t4, r4, d4, l4 in c.centres:
        for b1, p1, _, r1, _d1, l1 in above[t4]:
            if b1 == b4:
                continue
            u1 = b4 | b1
            for b0, p0, _, _, d0, _ in left_of[l1]:
                if b0 & u1:
                    continue
                u0 = u1 | b0
                for b3, p3, _, _, d3, _ in top_right[d0 * k + l4]:
                    if b3 & u0:
                        continue
                    u3 = u0 | b3
                    for b2, p2, _, _, d2, _ in right_of[r1]:
                        if b2 & u3:
                            continue
                        u2 = u3 | b2
                        for b5, p5, _, _, d5, _ in top_left[d2 * k + r4]:
                            if b5 & u2:
                                continue
                            u5 = u2 | b5
                            for b6, p6, _, r6, _, _ in below[d3]:
                                if b6 & u5:
                                    continue
                                u6 = u5 | b6
                                for b7, p7, _, r7, _, _ in top_left[d4 * k + r6]:
                                    if b7 & u6:
                                        continue
                                    for b8, p8, _, _, _, _ in top_left[d5 * k + r7]:
                                        if b8 & (u6 | b7):
                                            continue
                                        board = _canonical(
                                            places, (p0, p1, p2, p3, p4, p5, p6, p7, p8)
                                        )
                                        if board is not None:
                                            found.append(board)
                                            if len(found) > limit:
                                                return None
    return _in_order(places, found)


# ---------------------------------------------------------------- many solutions


class _Bottoms:
    """The bottom rows fitting one middle row: (tiles, ids), by tiles.

    counts[c] is how many have both corner tiles above c (the canonical
    rotation's condition when the top-left tile is c)."""

    __slots__ = ("rows", "counts", "drawings")

    def __init__(self, rows: list[tuple[tuple[int, int, int], tuple[int, int, int]]]):
        rows.sort()
        self.rows = rows
        self.counts = [0] * (TILE_COUNT + 1)
        for tiles, _ in rows:
            for corner in range(min(tiles[0], tiles[2])):
                self.counts[corner] += 1
        self.drawings: dict[
            int, tuple[tuple[tuple[int, tuple[bytes, ...]], ...], tuple[bytes, ...]]
        ] = {}  # corner -> the rows allowed, drawn; made when first drawn


class _Rows:
    """Placements indexed for the row-by-row search, and its caches.

    An entry is (tile bit, id, tile, code its right neighbour must show on
    the left, code the cell below must show on top)."""

    def __init__(self, places: _Placements):
        self.places = places
        self.k = k = places.k
        self.entries: list[tuple[int, int, int, int, int]] = []  # by id: tile by tile
        self.lefts: list[int] = []  # by id: the code of its left edge
        self.ends: list[tuple[tuple[int, int, int, int, int], ...]] = [()] * (
            (TILE_COUNT + 1) * k
        )  # by tile * k + right demand
        self.by_left: list[tuple[tuple[int, int, int, int, int], ...]] = [()] * k
        self.by_both: list[tuple[tuple[int, int, int, int, int], ...]] = [()] * (
            k * k
        )  # by top * k + left
        for pid, (tile, top, right, bottom, left) in enumerate(places.looks):
            entry = (1 << tile, pid, tile, right ^ 1, bottom ^ 1)
            self.entries.append(entry)
            self.lefts.append(left)
            self.ends[tile * k + (right ^ 1)] += (entry,)
            self.by_left[left] += (entry,)
            self.by_both[top * k + left] += (entry,)
        self.dominoes = self._dominoes()
        self._bottoms: dict[
            int, _Bottoms | None
        ] = {}  # (bottom demands, used tiles) -> _Bottoms or None

    def _dominoes(self) -> list[tuple[tuple[int, int, int, int, int, int, int, int], ...]]:
        """Pairs of placements side by side (two tiles, matching), by the
        codes they show on top: (tile bits, right one's right demand, bottom
        demands, ids, tiles)."""
        k = self.k
        dominoes: list[tuple[tuple[int, int, int, int, int, int, int, int], ...]] = [()] * (k * k)
        looks = self.places.looks
        for bit, pid, tile, right, down in self.entries:
            base = looks[pid][1] * k
            for bit2, pid2, tile2, right2, down2 in self.by_left[right]:
                if bit2 != bit:
                    dominoes[base + looks[pid2][1]] += (
                        (bit | bit2, right2, down, down2, pid, pid2, tile, tile2),
                    )
        return dominoes

    def bottoms(self, d3: int, d4: int, d5: int, used: int) -> _Bottoms | None:
        """The rows whose tops show d3, d4, d5, made of tiles not in `used`
        (None when there is none); computed once per key."""
        k = self.k
        key = (((d3 * k + d4) * k + d5) << (TILE_COUNT + 1)) | used
        try:
            return self._bottoms[key]
        except KeyError:  # not computed yet
            found = self._bottoms[key] = self._find_bottoms(d3, d4, d5, used)
            return found

    def _find_bottoms(self, d3: int, d4: int, d5: int, used: int) -> _Bottoms | None:
        rows, k = [], self.k
        for m67, r7, _, _, p6, p7, t6, t7 in self.dominoes[d3 * k + d4]:
            if m67 & used:
                continue
            for b8, p8, t8, _, _ in self.by_both[d5 * k + r7]:
                if not b8 & (used | m67):
                    rows.append(((t6, t7, t8), (p6, p7, p8)))
        return _Bottoms(rows) if rows else None

    def prefix(self, ids: Sequence[int]) -> bytes:
        """A board's start: blank line, separator, top row, separator, middle row."""
        row_text = self.places.row_text
        return b"".join(
            (b"\n", _SEP, row_text(ids[0], ids[1], ids[2]), _SEP, row_text(ids[3], ids[4], ids[5]))
        )

    def drawn_rows(
        self, found: _Bottoms, corner: int
    ) -> tuple[tuple[tuple[int, tuple[bytes, ...]], ...], tuple[bytes, ...]]:
        """The rows of `found` allowed below top-left tile `corner`, drawn
        (with the separators around them) and in order, as (segments, flat):
        segments is ((tiles as one int, drawings), ...) per tile triple."""
        drawing = found.drawings.get(corner)
        if drawing is None:
            segments = []
            for tiles, same in groupby(found.rows, key=itemgetter(0)):
                if min(tiles[0], tiles[2]) > corner:
                    texts = sorted(_SEP + self.places.row_text(*ids) + _SEP for _, ids in same)
                    segments.append(((tiles[0] << 8) | (tiles[1] << 4) | tiles[2], tuple(texts)))
            flat = tuple(text for _, texts in segments for text in texts)
            drawing = found.drawings[corner] = (tuple(segments), flat)
        return drawing


class _Group(NamedTuple):
    """Boards sharing their first six digits: per matching (top row, middle
    row) their ids and the bottom rows that fit below them."""

    corner: int  # the top-left tile: the other corners must be larger
    pairs: tuple[tuple[tuple[int, ...], _Bottoms], ...]


def _two_rows(
    rows: _Rows, t0: int
) -> Iterator[list[tuple[int, tuple[int, int, int, int, int, int], _Bottoms]]]:
    """For top-left tile t0, one list per next tile t1, in increasing order
    (empty ones left out), of (digits 3-6 as one int, ids of cells 0-5,
    bottom rows): every top two rows that some bottom row completes.

    Running t1 in order bounds memory by one (t0, t1)'s finds.  The loops
    are unrolled, for speed: this is the hot path of degenerate puzzles."""
    by_left, by_both, dominoes = rows.by_left, rows.by_both, rows.dominoes
    ends, bottoms = rows.ends, rows.bottoms
    k = rows.k
    base = t0 * k
    finds: list[tuple[int, tuple[int, int, int, int, int, int], _Bottoms]] = []
    t1 = 0
    for left1, (b1, p1, tile1, r1, d1) in zip(rows.lefts, rows.entries):
        if tile1 != t1:
            if finds:
                yield finds
                finds = []
            t1 = tile1
        for b0, p0, _, _, d0 in ends[base + left1]:
            middles = dominoes[d0 * k + d1]
            if not middles or b0 == b1:
                continue
            u1 = b0 | b1
            for b2, p2, t2, _r2, d2 in by_left[r1]:
                if b2 & u1 or t2 < t0:  # t2 < t0: not the canonical rotation
                    continue
                u2 = u1 | b2
                row = d2 * k
                for m34, r4, d3, d4, p3, p4, t3, t4 in middles:
                    if m34 & u2:
                        continue
                    u4 = u2 | m34
                    for b5, p5, t5, _, d5 in by_both[row + r4]:
                        if b5 & u4:
                            continue
                        found = bottoms(d3, d4, d5, u4 | b5)
                        if found is not None and found.counts[t0]:
                            finds.append(
                                (
                                    (((t2 << 4 | t3) << 4) | t4) << 4 | t5,
                                    (p0, p1, p2, p3, p4, p5),
                                    found,
                                )
                            )
    if finds:
        yield finds


def _groups(rows: _Rows) -> Iterator[_Group]:
    """Yield groups in increasing order of their first six digits."""
    for t0 in range(1, TILE_COUNT - 2):  # the top-left tile beats three corners
        for finds in _two_rows(rows, t0):
            finds.sort(key=itemgetter(0))
            for _, same in groupby(finds, key=itemgetter(0)):
                yield _Group(t0, tuple((ids, found) for _, ids, found in same))


def _group_boards(rows: _Rows, group: _Group) -> list[tuple[int, ...]]:
    """The group's boards (ids), in order."""
    corner = group.corner
    boards = [
        ids + last
        for ids, found in group.pairs
        for tiles, last in found.rows
        if min(tiles[0], tiles[2]) > corner
    ]
    return _in_order(rows.places, boards)


def _group_drawing(rows: _Rows, group: _Group, parts: list[bytes]) -> int:
    """Append the group's boards, drawn and in order, to parts; return how
    many.  Each board is its pair's prefix and a bottom row, so one join
    per pair and tile triple draws them all at C speed."""
    corner = group.corner
    if len(group.pairs) == 1:
        ids, found = group.pairs[0]
        prefix = rows.prefix(ids)
        flat = rows.drawn_rows(found, corner)[1]
        parts.append(prefix)
        parts.append(prefix.join(flat))
        return len(flat)
    # Same six digits: order by the last three, then by the drawing, which
    # is the prefix's first (all rows have the same width), then the row's.
    pairs = sorted(((rows.prefix(ids), found) for ids, found in group.pairs), key=itemgetter(0))
    keyed = [
        (tiles, prefix, texts)
        for prefix, found in pairs
        for tiles, texts in rows.drawn_rows(found, corner)[0]
    ]
    keyed.sort(key=itemgetter(0))  # stable: prefixes stay in order
    total = 0
    for _, prefix, texts in keyed:
        parts.append(prefix)
        parts.append(prefix.join(texts))
        total += len(texts)
    return total


def _count_middles(rows: _Rows, d0: int, d1: int, d2: int, used: int, corner: int) -> int:
    total, k = 0, rows.k
    for m34, r4, d3, d4, _, _, _, _ in rows.dominoes[d0 * k + d1]:
        if m34 & used:
            continue
        for b5, _, _, _, d5 in rows.by_both[d2 * k + r4]:
            if not b5 & (used | m34):
                found = rows.bottoms(d3, d4, d5, used | m34 | b5)
                if found is not None:
                    total += found.counts[corner]
    return total


def _count(rows: _Rows) -> int:
    """Count by top rows: what fits below a top row depends only on its
    bottom edges, its tiles and its top-left tile, so each such key is
    counted once however many top rows share it."""
    memo: dict[int, int] = {}
    total, k = 0, rows.k
    for b0, _, t0, r0, d0 in rows.entries:
        if t0 > TILE_COUNT - 3:
            continue
        for b1, _, _, r1, d1 in rows.by_left[r0]:
            if b1 == b0:
                continue
            for b2, _, t2, _, d2 in rows.by_left[r1]:
                if b2 & (b0 | b1) or t2 < t0:
                    continue
                used = b0 | b1 | b2
                key = ((((d0 * k + d1) * k + d2) << (TILE_COUNT + 1) | used) << 4) | t0
                found = memo.get(key)
                if found is None:
                    found = memo[key] = _count_middles(rows, d0, d1, d2, used, t0)
                total += found
    return total


# ---------------------------------------------------------------- solving


def solve(puzzle: Puzzle) -> Iterator[Board]:
    """Every unique solution, canonical rotation, in the assignment's order."""
    places = _Placements(puzzle)
    boards = _few_boards(places, _FEW)
    if boards is not None:
        for ids in boards:
            yield places.board(ids)
        return
    rows = _Rows(places)
    for group in _groups(rows):
        for ids in _group_boards(rows, group):
            yield places.board(ids)


def count(puzzle: Puzzle) -> int:
    """Number of unique solutions, without drawing them."""
    return _count(_Rows(_Placements(puzzle)))


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


_ROW = (
    "|{}  {}   |{}  {}   |{}  {}   |\n|{}    {}|{}    {}|{}    {}|\n|   {}   |   {}   |   {}   |\n"
)


def _row_lines(a: Placement, b: Placement, c: Placement) -> str:
    (ta, (at, ar, ab, al)), (tb, (bt, br, bb, bl)), (tc, (ct, cr, cb, cl)) = a, b, c
    return _ROW.format(ta, at, tb, bt, tc, ct, al, ar, bl, br, cl, cr, ab, bb, cb)


def render_board(board: Board) -> str:
    return "".join(
        (
            SEPARATOR,
            _row_lines(*board[0:3]),
            SEPARATOR,
            _row_lines(*board[3:6]),
            SEPARATOR,
            _row_lines(*board[6:9]),
            SEPARATOR,
        )
    )


def render(puzzle: Puzzle, boards: Iterable[Board]) -> str:
    """The whole expected output for these boards (e.g. solve()'s)."""
    boards = list(boards)
    parts = [render_tiles(puzzle), "\n", count_line(len(boards)), "\n"]
    parts.append("\n".join(render_board(board) for board in boards))
    return "".join(parts)


def _head(puzzle: Puzzle, total: int) -> bytes:
    """Everything before the first board (all of it when there is none)."""
    text = render_tiles(puzzle) + "\n" + count_line(total)
    return (text + "\n" if total == 0 else text).encode("ascii")


def write_output(puzzle: Puzzle, out: BinaryIO, buffer_bytes: int = 4 << 20) -> int:
    """Write the whole output to a binary file; return the number of
    solutions.  Memory stays flat: at most about buffer_bytes of drawing
    is held at a time."""
    places = _Placements(puzzle)
    boards = _few_boards(places, min(_FEW, buffer_bytes // _BOARD_BYTES))
    if boards is None:
        return _stream(puzzle, _Rows(places), out, buffer_bytes)
    out.write(_head(puzzle, len(boards)))
    out.write(b"".join(b"\n" + places.board_text(ids) for ids in boards))
    return len(boards)


def _stream(puzzle: Puzzle, rows: _Rows, out: BinaryIO, buffer_bytes: int) -> int:
    """The count line comes first.  The drawing is held until it outgrows
    the buffer; then the memoized count gives the total, the count line
    goes out and the drawing resumes where it paused."""
    groups = _groups(rows)
    pending: list[bytes] = []
    held = total = 0
    exhausted = True
    for group in groups:
        total += _group_drawing(rows, group, pending)
        if total * _BOARD_BYTES >= buffer_bytes:
            exhausted = False
            break
    if not exhausted:
        total = _count(rows)
    out.write(_head(puzzle, total))
    out.write(b"".join(pending))
    pending = []
    for group in groups:
        held += _group_drawing(rows, group, pending)
        if held * _BOARD_BYTES >= buffer_bytes:
            out.write(b"".join(pending))
            pending, held = [], 0
    out.write(b"".join(pending))
    return total


@contextmanager
def whole_writes(out: BinaryIO) -> Iterator[BinaryIO]:
    """`out`, or a buffer over it while in use when it is a raw file (sys.stdout.buffer
    under `python -u` or PYTHONUNBUFFERED): a raw write() may write only part of what it
    is given (a pipe write interrupted by a signal: Ctrl-Z then fg, a debugger, a
    profiler) and say so only in what it returns; a buffered one writes all of it or
    raises. The buffer is flushed and let go at the end, the raw file left open."""
    if not isinstance(out, io.RawIOBase):
        yield out
        return
    buffered = io.BufferedWriter(out)
    try:
        yield buffered
    finally:
        buffered.detach()  # flushes first


def main(
    argv: Sequence[str] | None = None,
    write: Callable[[Puzzle, BinaryIO], object] | None = None,
    prog: str = "puzzlesolver",
) -> int:
    """The command line; `write(puzzle, binary_out)` prints (default: write_output),
    so that another engine can share this front end."""
    args = sys.argv[1:] if argv is None else list(argv)
    if len(args) != 1:
        print(USAGE.replace("puzzlesolver.py", f"{prog}.py"), file=sys.stderr)
        return 2
    try:
        puzzle = read_puzzle(args[0])
    except PuzzleError as error:
        print(f"{prog}: {error}", file=sys.stderr)
        return 2
    try:
        with whole_writes(sys.stdout.buffer) as out:
            (write or write_output)(puzzle, out)
            out.flush()
    except BrokenPipeError:
        # The reader went away (e.g. `| head`): not an error of ours.
        sys.stderr.close()
        return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
