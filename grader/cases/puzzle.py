"""The grader's own small puzzle model: parse, check, rotate, draw.

It reads a puzzle file and a program's printed output, and answers questions
about one board at a time (do its edges match, is each cell a rotation of its
tile, which rotation is canonical, how is it drawn).  It never searches for
solutions, so the student kit can ship it without giving the assignment away.
"""

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

TILE_COUNT = 9
SIDES = ("top", "right", "bottom", "left")
SEPARATOR = "+--------+--------+--------+"

Tile = tuple[str, str, str, str]  # top, right, bottom, left, e.g. ("Y1", "G0", "R0", "B1")

_EDGE = re.compile(r"[A-Z][01]\Z")
_NUMBER = re.compile(r"\d{1,4}")
# A number as a program may print it: with thousands separators ("1,620") or not.
_FIRST_NUMBER = re.compile(r"\d{1,3}(?:,\d{3})+(?!\d)|\d{1,18}")
_WORDED_COUNT = re.compile(
    r"No solution found\.|1 unique solution found:|\d+ unique solutions found:"
)


class PuzzleFormatError(ValueError):
    """A puzzle file that is not a valid puzzle; str() names the line and the problem."""


def parse_puzzle(data: bytes | str) -> tuple[Tile, ...]:
    """Nine lines of four comma-separated edges; CRLF, spaces around commas,
    a missing final newline and trailing blank lines are fine."""
    text = data.decode("latin-1") if isinstance(data, bytes) else data
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    while lines and not lines[-1].strip():
        lines.pop()
    if len(lines) != TILE_COUNT:
        raise PuzzleFormatError(f"a puzzle has {TILE_COUNT} tile lines, this one has {len(lines)}")
    tiles = []
    for number, line in enumerate(lines, start=1):
        edges = tuple(part.strip() for part in line.split(","))
        if len(edges) != 4 or not all(_EDGE.match(edge) for edge in edges):
            raise PuzzleFormatError(
                f"line {number}: {line.strip()[:40]!r} is not four edges like Y1,G0,R0,B1"
            )
        tiles.append(edges)
    return tuple(tiles)


# ---------------------------------------------------------------- tiles and boards


def turn(edges: Tile, quarter_turns: int = 1) -> Tile:
    """The edges after turning the tile clockwise: the old left edge goes on top."""
    k = quarter_turns % 4
    return edges[-k % 4], edges[(1 - k) % 4], edges[(2 - k) % 4], edges[(3 - k) % 4]


def all_turns(tiles: Sequence[Tile]) -> tuple[frozenset[Tile], ...]:
    """Per tile, the edges of its four turns: what a cell showing it may show."""
    return tuple(frozenset(turn(tile, k) for k in range(4)) for tile in tiles)


def is_symmetric(tile: Tile) -> bool:
    """It looks the same turned by 180 degrees (so two of its turns draw alike)."""
    return turn(tile, 2) == tile


def edges_match(a: str, b: str) -> bool:
    return a[0] == b[0] and {a[1], b[1]} == {"0", "1"}


class Cell(NamedTuple):
    tile: int
    edges: Tile


Board = tuple[Cell, ...]  # nine cells, row by row


def digits(board: Board) -> str:
    return "".join(str(cell.tile) for cell in board)


def rotate(board: Board) -> Board:
    """The whole board turned clockwise: its left column becomes its top row."""
    return tuple(
        Cell(board[(2 - col) * 3 + row].tile, turn(board[(2 - col) * 3 + row].edges))
        for row in range(3)
        for col in range(3)
    )


def rotations(board: Board) -> list[Board]:
    """The board and its three turns, clockwise."""
    result = [board]
    for _ in range(3):
        result.append(rotate(result[-1]))
    return result


# Clockwise turns that bring the corner at this index to the top left.
_TURNS_TO_TOP_LEFT = {0: 0, 6: 1, 8: 2, 2: 3}


def canonical(board: Board) -> Board:
    """The rotation the assignment prints: smallest 9-digit string (then drawing)."""
    corners = sorted((board[i].tile, i) for i in _TURNS_TO_TOP_LEFT)
    if corners[0][0] < corners[1][0]:
        # The smallest corner goes to the top left; no other turn can start lower.
        for _ in range(_TURNS_TO_TOP_LEFT[corners[0][1]]):
            board = rotate(board)
        return board
    turns = rotations(board)  # corners repeat a tile: not a solution, but be exact anyway
    best = min(digits(turn) for turn in turns)
    return min((turn for turn in turns if digits(turn) == best), key=draw)


def draw(board: Board) -> str:
    """The board as the assignment prints it, 13 lines, each ending in a newline."""
    out = [SEPARATOR]
    for start in (0, 3, 6):
        row = board[start : start + 3]
        out.append("".join(f"|{c.tile}  {c.edges[0]}   " for c in row) + "|")
        out.append("".join(f"|{c.edges[3]}    {c.edges[1]}" for c in row) + "|")
        out.append("".join(f"|   {c.edges[2]}   " for c in row) + "|")
        out.append(SEPARATOR)
    return "\n".join(out) + "\n"


def position(index: int) -> str:
    return f"row {index // 3 + 1}, column {index % 3 + 1}"


class Clash(NamedTuple):
    """Two touching edges that do not match: cell `first` is left of or above `second`."""

    first: int
    second: int
    horizontal: bool  # first is left of second (else above it)


def clashes(board: Board) -> list[Clash]:
    """Every one of the 12 inner edge pairs that does not match."""
    found = []
    for index in range(9):
        row, col = divmod(index, 3)
        if col < 2 and not edges_match(board[index].edges[1], board[index + 1].edges[3]):
            found.append(Clash(index, index + 1, True))
        if row < 2 and not edges_match(board[index].edges[2], board[index + 3].edges[0]):
            found.append(Clash(index, index + 3, False))
    return found


def repeated_tiles(board: Board) -> list[tuple[int, list[int]]]:
    """(tile number, cell indices) for every tile shown in more than one cell."""
    cells: dict[int, list[int]] = {}
    for index, cell in enumerate(board):
        cells.setdefault(cell.tile, []).append(index)
    return [(tile, where) for tile, where in sorted(cells.items()) if len(where) > 1]


def foreign_cells(board: Board, turns: Sequence[frozenset[Tile]]) -> list[int]:
    """Indices of cells whose tile does not exist or whose edges are not a turn
    of it; `turns` is all_turns(the puzzle's tiles)."""
    return [
        index
        for index, cell in enumerate(board)
        if not 1 <= cell.tile <= len(turns) or cell.edges not in turns[cell.tile - 1]
    ]


# ---------------------------------------------------------------- printed output


Key = str  # a board's tile numbers and edges as printed, joined by spaces: equal keys, equal boards


def key_of(board: Board) -> Key:
    """The 45 tokens the printed layout shows, row by row, in the order _BOARD reads them."""
    key: list[str] = []
    for start in (0, 3, 6):
        row = board[start : start + 3]
        for cell in row:
            key += (str(cell.tile), cell.edges[0])
        for cell in row:
            key += (cell.edges[3], cell.edges[1])
        key += (cell.edges[2] for cell in row)
    return " ".join(key)


def board_of(key: Key) -> Board:
    tokens = key.split(" ")
    cells = []
    for row in range(0, 45, 15):
        g = tokens[row : row + 15]
        for col in range(3):
            edges = (g[2 * col + 1], g[7 + 2 * col], g[12 + col], g[6 + 2 * col])
            cells.append(Cell(int(g[2 * col]), edges))
    return tuple(cells)


# Where the key's tokens are: cell i's number, and its top, right, bottom, left edges.
_NUMBER_AT = tuple(15 * (i // 3) + 2 * (i % 3) for i in range(9))
_EDGES_AT = tuple(
    (
        15 * (i // 3) + 2 * (i % 3) + 1,
        15 * (i // 3) + 7 + 2 * (i % 3),
        15 * (i // 3) + 12 + i % 3,
        15 * (i // 3) + 6 + 2 * (i % 3),
    )
    for i in range(9)
)
# The 12 pairs of touching edges: (right of i, left of i+1) and (bottom of i, top of i+3).
_TOUCHING = tuple(
    [(_EDGES_AT[i][1], _EDGES_AT[i + 1][3]) for i in range(9) if i % 3 < 2]
    + [(_EDGES_AT[i][2], _EDGES_AT[i + 3][0]) for i in range(6)]
)


def _key_turns() -> tuple[tuple[int, ...], ...]:
    """Per number of clockwise turns, where each token of the turned key comes from."""
    board = tuple(Cell(i + 1, (f"{i}t", f"{i}r", f"{i}b", f"{i}l")) for i in range(9))
    tokens = key_of(board).split(" ")
    return tuple(
        tuple(tokens.index(token) for token in key_of(turned).split(" "))
        for turned in rotations(board)
    )


_KEY_TURNS = _key_turns()


def is_solution_key(key: Key, turns: Sequence[frozenset[Tile]] | None) -> bool:
    """Quick yes/no: nine different tiles, each shown as one of its turns
    (when `turns`, from all_turns, is given), all 12 touching edges matching."""
    t = key.split(" ")
    numbers = [t[j] for j in _NUMBER_AT]
    if len(set(numbers)) != 9:
        return False
    for a, b in _TOUCHING:
        if t[a][0] != t[b][0] or t[a] == t[b]:
            return False
    if turns is not None:
        for number, (top, right, bottom, left) in zip(numbers, _EDGES_AT):
            n = int(number)
            if (
                not 1 <= n <= len(turns)
                or (t[top], t[right], t[bottom], t[left]) not in turns[n - 1]
            ):
                return False
    return True


def canonical_key(key: Key) -> Key:
    """key_of(canonical(board_of(key))), without building the board."""
    t = key.split(" ")
    corners = sorted((int(t[_NUMBER_AT[i]]), i) for i in _TURNS_TO_TOP_LEFT)
    if corners[0][0] == corners[1][0]:
        return key_of(canonical(board_of(key)))
    order = _KEY_TURNS[_TURNS_TO_TOP_LEFT[corners[0][1]]]
    return " ".join([t[j] for j in order])


class PrintedBoard:
    """One board as printed.  Its cells and text are taken out only when asked
    for: most boards of a long output are recognised by their key alone."""

    __slots__ = ("key", "line", "_source", "_span", "_board")

    def __init__(self, key: Key, line: int, source: str, span: tuple[int, int]):
        self.key = key
        self.line = line  # 1-based line of the output where its drawing starts
        self._source, self._span = source, span  # its drawing is source[span[0]:span[1]]
        self._board: Board | None = None

    @property
    def board(self) -> Board:
        if self._board is None:
            self._board = board_of(self.key)
        return self._board

    @property
    def text(self) -> str:
        """Its drawing as printed."""
        return self._source[self._span[0] : self._span[1]]

    @property
    def lines(self) -> tuple[str, ...]:
        """Its drawn lines, trailing white space removed."""
        return tuple(_split(self.text))


@dataclass
class PrintedOutput:
    """A program's output read tolerantly: whatever could be recognised."""

    header_line: int | None = None  # where "Input tiles:" is, if anywhere
    listing: list[tuple[int, str]] = field(default_factory=list)  # (line, text) after the header
    count_line: tuple[int, str] | None = None  # (line, text)
    count: int | None = None  # the number the count line states (0 for "No solution")
    boards: list[PrintedBoard] = field(default_factory=list)
    unreadable: list[tuple[int, str]] = field(default_factory=list)  # (line, why) of broken boards
    stray: list[tuple[int, str]] = field(
        default_factory=list
    )  # (line, text) of lines nothing explains
    # Lines outside well-drawn boards are read one by one only up to a budget, so that
    # millions of junk lines cost little: None when everything was read, else the
    # first line that was not (boards in the required layout are found everywhere).
    read_up_to: int | None = None


# Lines outside well-drawn boards read one by one in all (an output of millions of
# short lines would otherwise cost seconds and hundreds of MB of line objects).
MAX_SLOW_LINES = 20_000


class _Budget:
    """How many more lines the slow path may read in this output."""

    def __init__(self, lines: int):
        self.left = lines

    def take(self, text: str, base: int, out: "PrintedOutput") -> list[str]:
        """The lines of `text` within the budget (see _split); notes where reading stopped."""
        if self.left <= 0:
            if out.read_up_to is None:
                out.read_up_to = base
            return []
        pieces = text.split("\n", self.left)
        if len(pieces) > self.left and pieces[-1]:
            pieces[-1] = ""  # the rest goes unread
            if out.read_up_to is None:
                out.read_up_to = base + self.left
        if pieces and not pieces[-1]:
            pieces.pop()
        self.left -= len(pieces)
        return [line.rstrip() for line in pieces]


def is_count_line(line: str) -> bool:
    """A line that tries to be the count line (any wording, any number)."""
    return "|" not in line and "solution" in line.lower()


def count_of(line: str) -> int | None:
    """The number a count line states (0 for 'No solution...'), None if it states none."""
    number = _FIRST_NUMBER.search(line)
    if number:
        return int(number.group().replace(",", ""))
    return 0 if line.strip().lower().startswith("no") else None


# A board in the required layout, white space inside cells and at line ends
# tolerated: the fast path.  Anything else goes line by line (_read_lines).
_CELL_TOP = r"\|[ \t]*([1-9]\d{0,3}|0)[ \t]+([A-Z][01])[ \t]*"
_CELL_MID = r"\|[ \t]*([A-Z][01])[ \t]+([A-Z][01])[ \t]*"
_CELL_BOT = r"\|[ \t]*([A-Z][01])[ \t]*"
_LINE_END = r"\|[ \t\r]*(?:\n|\Z)"
_RULE = r"[ \t]*\+[-+=]*\+[ \t\r]*(?:\n|\Z)"
_ROW = _CELL_TOP * 3 + _LINE_END + _CELL_MID * 3 + _LINE_END + _CELL_BOT * 3 + _LINE_END
_BOARD = re.compile("^" + _RULE + (_ROW + _RULE) * 3, re.MULTILINE)


def parse_output(text: str) -> PrintedOutput:
    """Read printed output: tile listing, count line, boards.  Never raises.

    Boards are read from their cell lines (lines with '|'); separator lines may
    be missing or misdrawn and cell widths may be off, as long as each cell
    line shows three cells with the right tokens in them.
    """
    out = PrintedOutput()
    counts: list[tuple[int, str]] = []  # every line that looks like a count line
    pos, line_no = 0, 1
    boards = out.boards
    budget = _Budget(MAX_SLOW_LINES)
    for match in _BOARD.finditer(text):
        start = match.start()
        if start != pos + 1 or text[pos] != "\n":  # anything but the one empty line between boards
            gap = text[pos:start]
            if not gap.isspace():
                lines = budget.take(gap, line_no, out)
                # A board read whole is framed: a frame line just outside the gap.
                frames = (pos > 0, len(lines) == gap.count("\n"))
                _read_lines(lines, line_no, out, counts, header=pos == 0, frames=frames)
            line_no += gap.count("\n")
        else:
            line_no += 1
        pos = match.end()
        boards.append(PrintedBoard(" ".join(match.groups()), line_no, text, (start, pos)))
        line_no += 13  # a drawing is 13 lines (the last may lack its newline: then nothing follows)
    rest = text[pos:]
    if rest and not rest.isspace():
        lines = budget.take(rest, line_no, out)
        _read_lines(lines, line_no, out, counts, header=pos == 0, frames=(pos > 0, False))
    _choose_count_line(out, counts)
    return out


def _choose_count_line(out: PrintedOutput, counts: list[tuple[int, str]]) -> None:
    """The count line is the first one worded as required, else the first
    that tries; the others are stray lines (e.g. debugging output)."""
    if not counts:
        return
    worded = [entry for entry in counts if _WORDED_COUNT.fullmatch(entry[1].strip())]
    out.count_line = (worded or counts)[0]
    out.count = count_of(out.count_line[1])
    out.stray = sorted(out.stray + [entry for entry in counts if entry is not out.count_line])


def _split(text: str) -> list[str]:
    """Lines without their ends and trailing white space; no phantom last line."""
    lines = text.split("\n")
    if lines and not lines[-1]:
        lines.pop()
    return [line.rstrip() for line in lines]


def _read_lines(
    lines: list[str],
    base: int,
    out: PrintedOutput,
    counts: list[tuple[int, str]],
    header: bool,
    frames: tuple[bool, bool],
) -> None:
    """The slow path: lines[0] is line `base` of the output; `frames` says whether the
    line before them and the line after them are a board's frame lines."""
    i = _read_header(lines, base, out, counts) if header else 0
    extra_frames = _extra_separators(lines, frames)
    rows: list[tuple[int, list[Cell]]] = []  # rows of the board being read
    block_start = 0
    while i < len(lines):
        line = lines[i]
        if "|" in line:
            cells, why = _read_row(lines, i, base)
            if cells is None:
                out.unreadable.append((base + i, why))
                rows = []
                i = _skip_cell_lines(lines, i)
                continue
            if not rows:
                block_start = i - 1 if i > 0 and _is_separator(lines[i - 1]) else i
            rows.append((i, cells))
            i += 3
            if len(rows) == 3:
                _add_board(out, lines, base, block_start, rows)
                rows = []
            continue
        if rows and not _is_separator(line):
            _cut_short(out, base, rows)
            rows = []
        if is_count_line(line):
            counts.append((base + i, line))
        elif (line.strip() and not _is_separator(line)) or i in extra_frames:
            out.stray.append((base + i, line))
        i += 1
    if rows:
        _cut_short(out, base, rows)


def _extra_separators(lines: list[str], frames: tuple[bool, bool]) -> set[int]:
    """Frame lines drawn twice, which belong to no board. In a run of two or more frame
    lines (counting a board's own just outside `lines`, see `frames`), the first closes
    the row of cells above it and the last opens the row below it (two boards with no
    empty line between them); the others are extra. A lone frame line is left to the
    layout diagnosis: it is a board's, misplaced."""
    extra: set[int] = set()
    start = 0
    while start < len(lines):
        if not _is_separator(lines[start]):
            start += 1
            continue
        end = start
        while end + 1 < len(lines) and _is_separator(lines[end + 1]):
            end += 1
        framed_before = start == 0 and frames[0]
        framed_after = end == len(lines) - 1 and frames[1]
        run = range(start, end + 1)
        if len(run) + framed_before + framed_after >= 2:
            keep = set()
            if start > 0 and "|" in lines[start - 1]:
                keep.add(start)
            if end + 1 < len(lines) and "|" in lines[end + 1]:
                keep.add(end)
            extra.update(k for k in run if k not in keep)
        start = end + 1
    return extra


def _cut_short(out: PrintedOutput, base: int, rows: list[tuple[int, list[Cell]]]) -> None:
    # Only whole 3-row boards count.
    out.unreadable.append((base + rows[0][0], f"a board with only {len(rows)} of its 3 rows"))


def _read_header(
    lines: list[str], base: int, out: PrintedOutput, counts: list[tuple[int, str]]
) -> int:
    """Read the listing and count line(s) before the first board; return where
    boards may start.  The listing is every non-empty line between the header
    and the count line, so that extra or missing tile lines show up."""
    before_header = []
    limit = min(len(lines), TILE_COUNT + 8)
    i = 0
    while i < limit and "|" not in lines[i] and not _is_separator(lines[i]):
        line = lines[i]
        if is_count_line(line):
            counts.append((base + i, line))
        elif counts:
            if line.strip():
                out.stray.append((base + i, line))
        elif out.header_line is None and line.strip().lower().startswith("input tiles"):
            out.header_line = base + i
            before_header, out.listing = out.listing, []
        elif line.strip():
            out.listing.append((base + i, line))
        i += 1
    out.stray += before_header
    return i


def _is_separator(line: str) -> bool:
    """A frame line between rows, possibly misdrawn: mostly '-' and '+'."""
    stripped = line.strip()
    frame = stripped.count("-") + stripped.count("+")
    return stripped.count("-") >= 3 and 2 * frame >= len(stripped)


def _add_board(
    out: PrintedOutput, lines: list[str], base: int, start: int, rows: list[tuple[int, list[Cell]]]
) -> None:
    last = rows[-1][0] + 3
    end = last + 1 if last < len(lines) and _is_separator(lines[last]) else last
    board = tuple(cell for _, cells in rows for cell in cells)
    drawn = "\n".join(lines[start:end])
    out.boards.append(PrintedBoard(key_of(board), base + start, drawn, (0, len(drawn))))


def _skip_cell_lines(lines: list[str], i: int) -> int:
    while i < len(lines) and ("|" in lines[i] or _is_separator(lines[i])):
        i += 1
    return i


def _read_row(lines: list[str], i: int, base: int) -> tuple[list[Cell] | None, str]:
    """Three cell lines from lines[i] on -> three cells, or None and why not."""
    if i + 2 >= len(lines) or not all("|" in lines[i + k] for k in range(3)):
        return None, "a row of cells needs 3 lines with '|' in them"
    parts = [_cells_of(lines[i + k]) for k in range(3)]
    for k, cells in enumerate(parts):
        if len(cells) != 3:
            shown = "1 cell" if len(cells) == 1 else f"{len(cells)} cells"
            return None, f"line {base + i + k} shows {shown}, a row has 3"
    result = []
    for col in range(3):
        head, middle, foot = (parts[k][col].split() for k in range(3))
        if (
            len(head) != 2
            or not _NUMBER.fullmatch(head[0])
            or not _EDGE.match(head[1])
            or len(middle) != 2
            or not all(_EDGE.match(e) for e in middle)
            or len(foot) != 1
            or not _EDGE.match(foot[0])
        ):
            return None, (
                f"cell {col + 1} is not a tile number and four edges "
                "(number and top edge, left and right edges, bottom edge)"
            )
        result.append(Cell(int(head[0]), (head[1], middle[1], foot[0], middle[0])))
    return result, ""


def _cells_of(line: str) -> list[str]:
    parts = line.strip().split("|")
    if parts and not parts[0].strip():
        parts = parts[1:]
    if parts and not parts[-1].strip():
        parts = parts[:-1]
    return parts
