"""A second, independent Scramble Squares engine: exact cover with colours.

    python -m reference.dlx INPUT

prints the same output as ``reference/puzzlesolver.py INPUT``.  It exists to
cross-check the reference solver, so it shares none of its search code or
tables: only the parser and the renderer (``read_puzzle``, ``render``,
``render_board`` and the ``Puzzle``/``Placement``/``Board`` types).

The model (Knuth's Algorithm C, TAOCP 7.2.2.1, dancing links on arrays):

* primary items: the nine cells ``c0``..``c8`` (row by row) and the nine
  tiles ``t1``..``t9``; each is covered exactly once;
* secondary items: the twelve internal edges, ``h<a>`` between cell a and the
  cell to its right, ``v<a>`` between cell a and the cell below it;
* options: one per (cell, tile, rotation of the tile that looks different):
  ``c<cell> t<tile>`` plus one coloured secondary item per internal edge of
  that cell.  The colour is the edge the left/top cell of that pair shows: the
  left/top cell colours the item with its own right/bottom edge, the right/
  bottom cell with the mate (same letter, other digit) of its left/top edge.
  Two options can coexist only if they colour the item alike, that is if the
  touching edges match.

Every exact cover is a solved board, and every solved board is an exact
cover, in each of its four whole-board turns.  To search less, tile 1 gets
options only in cells 0, 1 and 4 (the centre): every board has exactly one
turn with tile 1 in cell 0 or 1, or has tile 1 in the centre in all four.
Each cover found is then turned to its canonical rotation (of the four
whole-board turns, the one whose 9-digit string is smallest), covers that
draw identically are merged (this is where the centre case's four turns
become one), and the boards are sorted by (9-digit string, drawn text).
Symmetric tiles: rotations of a tile that look the same give one option, so
they never yield the same drawing twice.

Cost: it collects every solution in memory and sorts them at the end, so
nothing comes out before the search is over.  Fine for graded cases (at most
a few thousand solutions); not meant for the degenerate puzzles with millions.
It is also far slower than the reference solver (tens to hundreds of times, see
bench/bench_engines.py): it is here to be exact and independent, not fast.
"""

import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import BinaryIO

from reference import puzzlesolver
from reference.puzzlesolver import (
    Board,
    Placement,
    Puzzle,
    render,
    render_board,
)

SIDE = 3
CELLS = SIDE * SIDE


@dataclass
class SearchStats:
    """What one search did.

    nodes: options tried (nodes of the search tree below the root).
    updates: links removed by hide/cover (Knuth's "updates").
    covers: exact covers found (before canonical rotation and merging).
    """

    nodes: int = 0
    updates: int = 0
    covers: int = 0


# ---------------------------------------------------------------- Algorithm C


class ColouredCover:
    """Exact cover with colours on dancing links (Knuth's Algorithm C).

    Items are named; options are sequences of item names, a secondary item
    optionally followed by ``:colour`` as in Knuth's notation (``"x:A"``).

    Layout as in TAOCP 7.2.2.1: items 1..N with LLINK/RLINK (primary items in
    a circular list headed by 0, secondary ones in a list headed by N+1);
    nodes 1..N are the item headers (LEN counts their options), then the
    options' nodes, each option followed by a spacer with TOP <= 0 whose
    ULINK is the first node of the option before it and whose DLINK is the
    last node of the option after it.  COLOR is 0 for "no colour", a positive
    number for a colour, and -1 for a node already known to agree (purified).
    """

    def __init__(
        self, primary: Sequence[str], secondary: Sequence[str], options: Sequence[Sequence[str]]
    ):
        names = list(primary) + list(secondary)
        if len(set(names)) != len(names):
            raise ValueError("item names must be distinct")
        if any(":" in name for name in names):
            raise ValueError("an item name cannot hold ':' (it introduces a colour)")
        self.n1 = len(primary)
        self.n = n = len(names)
        self.names = [""] + names
        index = {name: k for k, name in enumerate(names, start=1)}
        self._link_items()
        self.TOP = [0] * (n + 1)
        self.LEN = [0] * (n + 2)
        self.ULINK = list(range(n + 1))
        self.DLINK = list(range(n + 1))
        self.COLOR = [0] * (n + 1)
        self.colours: dict[str, int] = {}
        self.option_of: list[int] = [-1] * (n + 1)  # node -> option number
        self._add_spacer(0)
        for number, option in enumerate(options):
            self._add_option(number, option, index)
        self._tally = [0, 0, 0]  # nodes, updates, covers
        self._bind_operations()

    @property
    def stats(self) -> SearchStats:
        """The figures of the search so far."""
        nodes, updates, covers = self._tally
        return SearchStats(nodes=nodes, updates=updates, covers=covers)

    def _link_items(self) -> None:
        n, n1 = self.n, self.n1
        self.LLINK = [0] * (n + 2)
        self.RLINK = [0] * (n + 2)
        for k in range(1, n + 1):
            self.LLINK[k] = k - 1
            self.RLINK[k - 1] = k
        # Primary items: 0 <-> 1..n1; secondary: n+1 <-> n1+1..n.
        self.LLINK[0], self.RLINK[n1] = n1, 0
        if n > n1:
            self.LLINK[n1 + 1], self.RLINK[n] = n + 1, n + 1
            self.LLINK[n + 1], self.RLINK[n + 1] = n, n1 + 1
        else:
            self.LLINK[n + 1] = self.RLINK[n + 1] = n + 1

    def _add_spacer(self, top: int) -> int:
        x = len(self.TOP)
        self.TOP.append(top)
        self.ULINK.append(0)
        self.DLINK.append(0)
        self.COLOR.append(0)
        self.option_of.append(-1)
        return x

    def _add_option(self, number: int, option: Sequence[str], index: dict[str, int]) -> None:
        spacer_before = len(self.TOP) - 1
        first = len(self.TOP)
        seen = set()
        for entry in option:
            name, _, colour = entry.partition(":")
            item = index.get(name)
            if item is None:
                raise ValueError(f"option {number}: unknown item {name!r}")
            if item in seen:
                raise ValueError(f"option {number}: item {name!r} twice")
            if colour and item <= self.n1:
                raise ValueError(f"option {number}: primary item {name!r} has a colour")
            seen.add(item)
            x = len(self.TOP)
            self.TOP.append(item)
            self.LEN[item] += 1
            self.ULINK.append(self.ULINK[item])
            self.DLINK.append(item)
            self.DLINK[self.ULINK[item]] = x
            self.ULINK[item] = x
            self.COLOR.append(
                self.colours.setdefault(colour, len(self.colours) + 1) if colour else 0
            )
            self.option_of.append(number)
        if not any(item <= self.n1 for item in seen):
            raise ValueError(f"option {number}: no primary item")
        self.DLINK[spacer_before] = len(self.TOP) - 1
        spacer = self._add_spacer(-(number + 1))
        self.ULINK[spacer] = first

    # ---- the operations of Algorithm C (cover', hide', purify, commit, ...)

    def _bind_operations(self) -> None:
        """Make hide, cover, purify, commit and their undoings.

        They are closures over the arrays rather than methods: the search
        spends nearly all its time in them, and this saves the attribute
        look-ups on every call.
        """
        TOP, ULINK, DLINK, COLOR, LEN = self.TOP, self.ULINK, self.DLINK, self.COLOR, self.LEN
        LLINK, RLINK = self.LLINK, self.RLINK
        tally = self._tally

        def hide(p: int) -> None:
            q = p + 1
            removed = 0
            while q != p:
                x = TOP[q]
                if x <= 0:
                    q = ULINK[q]
                elif COLOR[q] < 0:
                    q += 1
                else:
                    u, d = ULINK[q], DLINK[q]
                    DLINK[u] = d
                    ULINK[d] = u
                    LEN[x] -= 1
                    removed += 1
                    q += 1
            tally[1] += removed

        def unhide(p: int) -> None:
            q = p - 1
            while q != p:
                x = TOP[q]
                if x <= 0:
                    q = DLINK[q]
                elif COLOR[q] < 0:
                    q -= 1
                else:
                    DLINK[ULINK[q]] = q
                    ULINK[DLINK[q]] = q
                    LEN[x] += 1
                    q -= 1

        def cover(i: int) -> None:
            p = DLINK[i]
            while p != i:
                hide(p)
                p = DLINK[p]
            left, right = LLINK[i], RLINK[i]
            RLINK[left] = right
            LLINK[right] = left

        def uncover(i: int) -> None:
            left, right = LLINK[i], RLINK[i]
            RLINK[left] = i
            LLINK[right] = i
            p = ULINK[i]
            while p != i:
                unhide(p)
                p = ULINK[p]

        def purify(p: int) -> None:
            """Keep only the options that give item TOP(p) the colour of p."""
            c, i = COLOR[p], TOP[p]
            q = DLINK[i]
            while q != i:
                if COLOR[q] == c:
                    COLOR[q] = -1
                else:
                    hide(q)
                q = DLINK[q]

        def unpurify(p: int) -> None:
            c, i = COLOR[p], TOP[p]
            q = ULINK[i]
            while q != i:
                if COLOR[q] < 0:
                    COLOR[q] = c
                else:
                    unhide(q)
                q = ULINK[q]

        def commit(p: int) -> None:
            colour = COLOR[p]
            if colour == 0:
                cover(TOP[p])
            elif colour > 0:
                purify(p)

        def uncommit(p: int) -> None:
            colour = COLOR[p]
            if colour == 0:
                uncover(TOP[p])
            elif colour > 0:
                unpurify(p)

        self.hide, self.unhide, self.cover, self.uncover = hide, unhide, cover, uncover
        self.purify, self.unpurify, self.commit, self.uncommit = purify, unpurify, commit, uncommit

    # ---- the search

    def choose(self) -> int:
        """An active primary item with fewest options (Knuth's MRV)."""
        RLINK, LEN = self.RLINK, self.LEN
        best, fewest = 0, None
        i = RLINK[0]
        while i != 0:
            if fewest is None or LEN[i] < fewest:
                best, fewest = i, LEN[i]
                if fewest == 0:
                    break
            i = RLINK[i]
        return best

    def solutions(self) -> Iterator[tuple[int, ...]]:
        """Every exact cover, as the numbers of its options (0-based)."""
        chosen: list[int] = []
        for nodes in self._search(chosen):
            self._tally[2] += 1
            yield tuple(sorted(self.option_of[x] for x in nodes))

    def commit_rest(self, x: int) -> None:
        """Step C5: commit the items of x's option other than TOP(x)."""
        TOP, ULINK, commit = self.TOP, self.ULINK, self.commit
        p = x + 1
        while p != x:
            if TOP[p] <= 0:
                p = ULINK[p]
            else:
                commit(p)
                p += 1

    def uncommit_rest(self, x: int) -> None:
        """Step C6: undo commit_rest(x), in reverse order."""
        TOP, DLINK, uncommit = self.TOP, self.DLINK, self.uncommit
        p = x - 1
        while p != x:
            if TOP[p] <= 0:
                p = DLINK[p]
            else:
                uncommit(p)
                p -= 1

    def _search(self, chosen: list[int]) -> Iterator[list[int]]:
        # Steps C2-C8, with recursion standing for the level counter.
        if self.RLINK[0] == 0:
            yield chosen
            return
        i = self.choose()
        self.cover(i)
        DLINK, tally = self.DLINK, self._tally
        x = DLINK[i]
        while x != i:
            tally[0] += 1
            self.commit_rest(x)
            chosen.append(x)
            yield from self._search(chosen)
            chosen.pop()
            self.uncommit_rest(x)
            x = DLINK[x]
        self.uncover(i)


# ---------------------------------------------------------------- the puzzle as exact cover


def _turn(edges: tuple[str, str, str, str]) -> tuple[str, str, str, str]:
    """The tile turned a quarter clockwise: its left edge comes to the top."""
    top, right, bottom, left = edges
    return (left, top, right, bottom)


def _looks(edges: tuple[str, str, str, str]) -> list[tuple[str, str, str, str]]:
    """The different-looking rotations of a tile (one per look)."""
    looks: list[tuple[str, str, str, str]] = []
    for _ in range(4):
        if edges not in looks:
            looks.append(edges)
        edges = _turn(edges)
    return looks


def _mate(edge: str) -> str:
    return edge[0] + ("1" if edge[1] == "0" else "0")


def _edge_items(cell: int, edges: tuple[str, ...]) -> list[str]:
    """The coloured internal-edge items of one cell holding these edges."""
    top, right, bottom, left = edges
    row, col = divmod(cell, SIDE)
    items = []
    if col < SIDE - 1:
        items.append(f"h{cell}:{right}")
    if col > 0:
        items.append(f"h{cell - 1}:{_mate(left)}")
    if row < SIDE - 1:
        items.append(f"v{cell}:{bottom}")
    if row > 0:
        items.append(f"v{cell - SIDE}:{_mate(top)}")
    return items


def _tile1_cells(cell: int) -> bool:
    """Cells where tile 1 may lie: one per orbit of the whole-board turns.

    Turning the board maps corners to corners and edge cells to edge cells,
    so every solved board has exactly one turn with tile 1 in cell 0 or 1,
    or tile 1 in the centre (then all four turns are kept and merged later).
    """
    return cell in (0, 1, CELLS // 2)


def build_model(
    puzzle: Puzzle, cut_turns: bool = True
) -> tuple[ColouredCover, list[tuple[int, Placement]]]:
    """The exact-cover model and, per option, the (cell, placement) it means."""
    primary = [f"c{cell}" for cell in range(CELLS)] + [f"t{t}" for t in range(1, CELLS + 1)]
    secondary = [f"h{a}" for a in range(CELLS) if a % SIDE < SIDE - 1]
    secondary += [f"v{a}" for a in range(CELLS - SIDE)]
    options, meaning = [], []
    for number, edges in enumerate(puzzle.tiles, start=1):
        for look in _looks(edges):
            for cell in range(CELLS):
                if cut_turns and number == 1 and not _tile1_cells(cell):
                    continue
                options.append([f"c{cell}", f"t{number}"] + _edge_items(cell, look))
                meaning.append((cell, Placement(number, look)))
    return ColouredCover(primary, secondary, options), meaning


# ---------------------------------------------------------------- canonical boards and order


def _turn_board(board: Board) -> Board:
    """The whole board turned a quarter clockwise."""
    turned = []
    for cell in range(CELLS):
        row, col = divmod(cell, SIDE)
        source = board[(SIDE - 1 - col) * SIDE + row]
        turned.append(Placement(source.tile, _turn(source.edges)))
    return tuple(turned)


def digits(board: Board) -> str:
    return "".join(str(p.tile) for p in board)


def canonical(board: Board) -> Board:
    """Of the board's four whole-board turns, the one with the smallest digits."""
    best = board
    for _ in range(3):
        board = _turn_board(board)
        if digits(board) < digits(best):
            best = board
    return best


def solve_with_stats(puzzle: Puzzle, cut_turns: bool = True) -> tuple[list[Board], SearchStats]:
    """All unique solutions in the assignment's order, and the search's figures.

    Collects everything, then sorts: meant for puzzles with at most some
    thousands of solutions.  cut_turns=False searches all four whole-board
    turns of every solution (slower; the same result).
    """
    model, meaning = build_model(puzzle, cut_turns)
    drawn: dict[str, Board] = {}
    for cover in model.solutions():
        board: dict[int, Placement] = {}
        for option in cover:
            cell, placement = meaning[option]
            board[cell] = placement
        best = canonical(tuple(board[cell] for cell in range(CELLS)))  # a cover fills every cell
        drawn.setdefault(render_board(best), best)
    order = sorted(drawn, key=lambda text: (digits(drawn[text]), text))
    return [drawn[text] for text in order], model.stats


def solve(puzzle: Puzzle) -> Iterator[Board]:
    """Every unique solution, canonical rotation, in the assignment's order
    (the same boards in the same order as the reference's solve())."""
    boards, _ = solve_with_stats(puzzle)
    yield from boards


def _write(puzzle: Puzzle, out: BinaryIO) -> None:
    out.write(render(puzzle, solve(puzzle)).encode("ascii"))


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m reference.dlx INPUT`: the reference's command line, this engine."""
    return puzzlesolver.main(argv, write=_write, prog="dlx")


if __name__ == "__main__":
    sys.exit(main())
