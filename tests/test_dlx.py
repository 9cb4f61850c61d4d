"""The exact-cover engine (reference/dlx.py): its dancing links, and its
agreement with the reference solver, byte for byte, on real and random puzzles."""

import io
import random
import subprocess
import sys
from pathlib import Path

import pytest

from reference import dlx
from reference.puzzlesolver import Puzzle, count, parse, read_puzzle, render, write_output
from tests import helpers

pytestmark = pytest.mark.fast

REPO = Path(__file__).resolve().parent.parent
SAMPLE_INPUT = helpers.SAMPLE
SAMPLE_EXPECTED = helpers.PUBLIC / "sample.out"
LIGHTBULBS = helpers.LIGHTBULBS

RANDOM_PUZZLES = 200  # compared ones; puzzles with too many solutions don't count
MAX_SOLUTIONS = 2000  # beyond this a puzzle is skipped (the engine collects and sorts)
SEED = 20240611


def reference_output(puzzle: Puzzle) -> bytes:
    out = io.BytesIO()
    write_output(puzzle, out)
    return out.getvalue()


def dlx_output(puzzle: Puzzle) -> bytes:
    return render(puzzle, dlx.solve(puzzle)).encode("ascii")


def links(model: dlx.ColouredCover) -> tuple[list[int], ...]:
    return tuple(
        list(a)
        for a in (
            model.LLINK,
            model.RLINK,
            model.ULINK,
            model.DLINK,
            model.TOP,
            model.LEN,
            model.COLOR,
        )
    )


def solution_names(model: dlx.ColouredCover, options: list[list[str]]) -> set:
    return {frozenset(" ".join(options[k]) for k in cover) for cover in model.solutions()}


# ---------------------------------------------------------------- the links themselves

# TAOCP 7.2.2.1 (5): items a-g, one exact cover: {a d f, b g, c e}.
KNUTH_ITEMS = list("abcdefg")
KNUTH_OPTIONS = [
    ["c", "e"],
    ["a", "d", "g"],
    ["b", "c", "f"],
    ["a", "d", "f"],
    ["b", "g"],
    ["d", "e", "g"],
]

# TAOCP 7.2.2.1 (49): primary p q r, secondary x y, one solution.
COLOUR_OPTIONS = [
    ["p", "q", "x", "y:A"],
    ["p", "r", "x:A", "y"],
    ["p", "x:B"],
    ["q", "x:A"],
    ["r", "y:B"],
]


def test_knuth_exact_cover_has_its_one_solution():
    model = dlx.ColouredCover(KNUTH_ITEMS, [], KNUTH_OPTIONS)
    assert solution_names(model, KNUTH_OPTIONS) == {frozenset({"a d f", "b g", "c e"})}


def test_knuth_colour_example_has_its_one_solution():
    model = dlx.ColouredCover(list("pqr"), list("xy"), COLOUR_OPTIONS)
    assert solution_names(model, COLOUR_OPTIONS) == {frozenset({"q x:A", "p r x:A y"})}


def test_every_item_subset_instance_counts_right():
    # Items 1..4, one option per non-empty subset: exact covers are the set
    # partitions of 4 elements, Bell(4) = 15.
    items = ["1", "2", "3", "4"]
    options = [[i for k, i in enumerate(items) if mask >> k & 1] for mask in range(1, 16)]
    model = dlx.ColouredCover(items, [], options)
    assert sum(1 for _ in model.solutions()) == 15


def test_cover_and_uncover_restore_every_link():
    model = dlx.ColouredCover(KNUTH_ITEMS, [], KNUTH_OPTIONS)
    before = links(model)
    for item in range(1, len(KNUTH_ITEMS) + 1):
        model.cover(item)
        assert links(model) != before
        model.uncover(item)
        assert links(model) == before
    # Nested, undone in reverse order, as the search does.
    model.cover(4)
    model.cover(1)
    model.cover(7)
    model.uncover(7)
    model.uncover(1)
    model.uncover(4)
    assert links(model) == before


def test_cover_removes_the_options_that_clash():
    model = dlx.ColouredCover(KNUTH_ITEMS, [], KNUTH_OPTIONS)
    model.cover(1)  # a: options 'a d g' and 'a d f' go, so d keeps only 'd e g'
    assert model.LEN[4] == 1
    assert model.RLINK[0] == 2  # a left the list of active items


def _options_nodes(model: dlx.ColouredCover) -> list[list[int]]:
    nodes: dict[int, list[int]] = {}
    for node, option in enumerate(model.option_of):
        if option >= 0:
            nodes.setdefault(option, []).append(node)
    return [nodes[k] for k in sorted(nodes)]


def test_every_search_move_is_undone_exactly():
    # A move (steps C4-C5): cover a primary item, then commit the rest of one
    # of its options (cover' or purify each); C6-C7 must undo it exactly.
    model = dlx.ColouredCover(list("pqr"), list("xy"), COLOUR_OPTIONS)
    before = links(model)
    for nodes in _options_nodes(model):
        for x in nodes:
            item = model.TOP[x]
            if item > model.n1:
                continue
            model.cover(item)
            model.commit_rest(x)
            assert links(model) != before
            model.uncommit_rest(x)
            model.uncover(item)
            assert links(model) == before, (item, x)


def test_nested_moves_on_a_puzzle_are_undone_exactly():
    puzzle = read_puzzle(str(SAMPLE_INPUT))
    model, _ = dlx.build_model(puzzle)
    before = links(model)
    done = []
    for _depth in range(4):  # the search's leftmost path, four levels deep
        item = model.choose()
        x = model.DLINK[item]
        assert x != item
        model.cover(item)
        model.commit_rest(x)
        done.append((item, x))
    assert links(model) != before
    for item, x in reversed(done):
        model.uncommit_rest(x)
        model.uncover(item)
    assert links(model) == before


def test_options_with_the_same_colour_coexist():
    options = [["p", "x:A"], ["q", "x:A"]]
    model = dlx.ColouredCover(["p", "q"], ["x"], options)
    assert solution_names(model, options) == {frozenset({"p x:A", "q x:A"})}


def test_options_with_different_colours_exclude_each_other():
    options = [["p", "x:A"], ["q", "x:B"]]
    model = dlx.ColouredCover(["p", "q"], ["x"], options)
    assert solution_names(model, options) == set()


def test_uncoloured_secondary_item_is_used_at_most_once():
    options = [["p", "x"], ["q", "x"], ["q"]]
    model = dlx.ColouredCover(["p", "q"], ["x"], options)
    assert solution_names(model, options) == {frozenset({"p x", "q"})}


@pytest.mark.parametrize(
    "options, problem",
    [
        ([["p", "z"]], "unknown item 'z'"),
        ([["p", "p"]], "item 'p' twice"),
        ([["x:A"]], "no primary item"),
        ([["p:A"]], "primary item 'p' has a colour"),
    ],
)
def test_bad_options_are_refused(options, problem):
    with pytest.raises(ValueError, match=problem):
        dlx.ColouredCover(["p"], ["x"], options)


def test_item_names_cannot_hold_a_colon():
    with pytest.raises(ValueError, match="cannot hold ':'"):
        dlx.ColouredCover(["p:q"], [], [["p:q"]])


def test_search_counts_nodes_and_updates():
    model = dlx.ColouredCover(KNUTH_ITEMS, [], KNUTH_OPTIONS)
    list(model.solutions())
    stats = model.stats
    assert stats.covers == 1
    assert stats.nodes >= 3  # at least the three options of the solution
    assert stats.updates > 0


# ---------------------------------------------------------------- the puzzle model


def test_a_symmetric_tile_gets_one_option_per_look():
    tiles = (("R0", "B1", "R0", "B1"), ("A0", "A0", "A0", "A0")) + (("C0", "D1", "E0", "F1"),) * 7
    _, meaning = dlx.build_model(Puzzle(tiles), cut_turns=False)
    looks = {}
    for _, placement in meaning:
        looks.setdefault(placement.tile, set()).add(placement.edges)
    assert len(looks[1]) == 2 and len(looks[2]) == 1 and len(looks[3]) == 4
    assert len(meaning) == 9 * (2 + 1 + 4 * 7)


def test_canonical_turn_has_the_smallest_digits():
    puzzle = read_puzzle(str(SAMPLE_INPUT))
    for board in dlx.solve(puzzle):
        turns = [board]
        for _ in range(3):
            turns.append(dlx._turn_board(turns[-1]))
        assert dlx._turn_board(turns[-1]) == board  # four turns come back
        assert dlx.canonical(turns[2]) == board
        assert dlx.digits(board) == min(dlx.digits(t) for t in turns)


def test_the_turn_cut_changes_nothing_but_the_work():
    puzzle = read_puzzle(str(LIGHTBULBS))
    cut, cut_stats = dlx.solve_with_stats(puzzle)
    full, full_stats = dlx.solve_with_stats(puzzle, cut_turns=False)
    assert cut == full
    assert full_stats.covers == 4 * len(full)
    assert cut_stats.nodes < full_stats.nodes


# ---------------------------------------------------------------- agreement on real puzzles


def test_sample_matches_the_handout_through_the_command_line():
    run = subprocess.run(
        [sys.executable, "-m", "reference.dlx", str(SAMPLE_INPUT)],
        cwd=REPO,
        capture_output=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout == SAMPLE_EXPECTED.read_bytes()


def test_command_line_names_a_missing_file_in_one_line():
    run = subprocess.run(
        [sys.executable, "-m", "reference.dlx", "/nonexistent/puzzle.txt"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 2
    assert run.stdout == ""
    assert run.stderr.count("\n") == 1 and "/nonexistent/puzzle.txt" in run.stderr
    assert "Traceback" not in run.stderr


def test_command_line_names_a_bad_edge_in_one_line(tmp_path):
    puzzle = tmp_path / "bad.txt"
    puzzle.write_text(SAMPLE_INPUT.read_text().replace("Y0,B1", "Y0,b1", 1))
    run = subprocess.run(
        [sys.executable, "-m", "reference.dlx", str(puzzle)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 2 and run.stdout == ""
    assert run.stderr.count("\n") == 1 and "bad.txt:2" in run.stderr and "'b1'" in run.stderr


def test_command_line_wants_exactly_one_argument():
    run = subprocess.run(
        [sys.executable, "-m", "reference.dlx"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 2 and run.stderr.startswith("usage:")


@pytest.mark.parametrize("path", [SAMPLE_INPUT, LIGHTBULBS], ids=["sample", "lightbulbs"])
def test_real_puzzle_agrees_with_the_reference(path):
    puzzle = read_puzzle(str(path))
    assert dlx_output(puzzle) == reference_output(puzzle)


def test_checkerboard_of_symmetric_one_letter_tiles_agrees():
    # Five A0,A0,A0,A0 and four A1,A1,A1,A1: every tile looks the same in
    # all turns, all are duplicates, 5! * 4! / 4 = 720 solutions.
    tails, heads = ("A0",) * 4, ("A1",) * 4
    puzzle = Puzzle((tails, heads) * 4 + (tails,))
    boards = list(dlx.solve(puzzle))
    assert len(boards) == 720
    assert render(puzzle, boards).encode("ascii") == reference_output(puzzle)


# Found by the random generator: boards with the same digits drawn
# differently (symmetric tiles), so their order rests on the tie rule.
TIE_PUZZLES = [
    "A1,C1,A1,C1 B1,A1,B1,A1 C0,B0,C0,B0 C0,C0,B1,D1 C1,C1,C1,B1 A0,A0,A0,A0 "
    "A1,D0,A0,C0 A1,A1,C0,C0 B0,A0,B0,A0",
    "A1,C1,C0,A1 B0,C1,B0,C1 B0,C1,B0,C0 C0,A0,A1,A1 C0,A0,C0,A0 A0,B1,A0,A0 "
    "C1,C0,C1,C0 A1,B1,A1,B1 C1,A1,C1,A1",
]


@pytest.mark.parametrize("tiles", TIE_PUZZLES, ids=["tie-2", "tie-8"])
def test_ties_in_the_digits_are_ordered_by_drawn_text(tiles):
    puzzle = parse("\n".join(tiles.split()))
    boards = list(dlx.solve(puzzle))
    digits = [dlx.digits(board) for board in boards]
    assert len(set(digits)) < len(digits)  # the case really has a tie
    assert render(puzzle, boards).encode("ascii") == reference_output(puzzle)


def test_lightbulbs_matches_its_shipped_output():
    expected = LIGHTBULBS.with_suffix(".out").read_bytes()
    assert dlx_output(read_puzzle(str(LIGHTBULBS))) == expected


# ---------------------------------------------------------------- agreement on random puzzles


def _mate(edge: str) -> str:
    return edge[0] + ("1" if edge[1] == "0" else "0")


def _turned(edges: tuple, quarter_turns: int) -> tuple:
    k = quarter_turns % 4
    return edges[4 - k :] + edges[: 4 - k]


def _solved_cell(
    rng: random.Random,
    letters: str,
    top,
    left,
    earlier: list[tuple],
    copy: float = 0.2,
    full: float = 0.1,
    half: float = 0.15,
) -> tuple:
    """A tile for one cell given the edges it must show on top and left
    (None: free): with these chances a copy of an earlier tile, a tile that
    looks the same in all four turns, or one that looks the same turned by
    half a turn (when the forced edges allow it)."""

    def free():
        return rng.choice(letters) + rng.choice("01")

    style = rng.random()
    if style < copy and earlier:
        fitting = [
            _turned(tile, k)
            for tile in earlier
            for k in range(4)
            if (top is None or _turned(tile, k)[0] == top)
            and (left is None or _turned(tile, k)[3] == left)
        ]
        if fitting:
            return rng.choice(fitting)
    t = top if top is not None else free()
    lft = left if left is not None else free()
    if style < copy + full and (top is None or left is None or top == left):
        return (t if top is not None else lft,) * 4
    if style < copy + full + half:
        return (t, lft, t, lft)
    return (t, free(), free(), lft)


def _solved_tiles(rng: random.Random, letters: str, **chances: float) -> list[tuple]:
    """The tiles of a random solved board, each turned at random."""
    cells: list[tuple] = []
    for cell in range(9):
        row, col = divmod(cell, 3)
        top = _mate(cells[cell - 3][2]) if row else None
        left = _mate(cells[cell - 1][1]) if col else None
        cells.append(_solved_cell(rng, letters, top, left, cells, **chances))
    return [_turned(tile, rng.randrange(4)) for tile in cells]


def _loose_tiles(rng: random.Random, letters: str, heads: float) -> list[tuple]:
    """Tiles not cut from a solved board (mostly no solution); a share
    `heads` of their edges are 1s; sometimes one tile is a copy of another."""

    def edge():
        return rng.choice(letters) + ("1" if rng.random() < heads else "0")

    tiles = [tuple(edge() for _ in range(4)) for _ in range(9)]
    if rng.random() < 0.5:
        tiles[rng.randrange(9)] = tiles[rng.randrange(9)]
    return tiles


def _random_puzzle(rng: random.Random) -> Puzzle:
    """1 to 4 letters; mostly cut from a random solved board and scrambled.

    One letter: a solved board has up to millions of solutions unless most
    of its tiles are all-A0 or all-A1 (then hundreds), or loose tiles with
    few heads (mostly no solution).
    """
    letters = "ABCD"[: rng.choices((1, 2, 3, 4), weights=(10, 25, 35, 30))[0]]
    if len(letters) == 1 and rng.random() < 0.5:
        tiles = _solved_tiles(rng, letters, copy=0.0, full=0.8, half=0.0)
    elif len(letters) == 1:
        tiles = _loose_tiles(rng, letters, heads=rng.uniform(0.15, 0.3))
    elif rng.random() < 0.12:
        tiles = _loose_tiles(rng, letters, heads=0.5)
    else:
        tiles = _solved_tiles(rng, letters)
    rng.shuffle(tiles)
    return Puzzle(tuple(tiles))


def _is_symmetric(tile: tuple) -> bool:
    return _turned(tile, 2) == tile


def _has_duplicates(puzzle: Puzzle) -> bool:
    looks = [min(_turned(tile, k) for k in range(4)) for tile in puzzle.tiles]
    return len(set(looks)) < len(looks)


@pytest.mark.slow
def test_random_puzzles_agree_with_the_reference():
    rng = random.Random(SEED)
    seen: dict[str, int] = dict(
        compared=0,
        skipped=0,
        solved=0,
        symmetric=0,
        symmetric_solved=0,
        duplicates=0,
        ties=0,
        one_letter_solved=0,
    )
    while seen["compared"] < RANDOM_PUZZLES:
        puzzle = _random_puzzle(rng)
        if count(puzzle) > MAX_SOLUTIONS:
            seen["skipped"] += 1
            continue
        boards = list(dlx.solve(puzzle))
        assert render(puzzle, boards).encode("ascii") == reference_output(puzzle), (
            f"differs on {puzzle.tiles}"
        )
        seen["compared"] += 1
        symmetric = any(_is_symmetric(tile) for tile in puzzle.tiles)
        seen["solved"] += bool(boards)
        seen["symmetric"] += symmetric
        seen["symmetric_solved"] += symmetric and bool(boards)
        seen["duplicates"] += _has_duplicates(puzzle)
        one_letter = len({e[0] for tile in puzzle.tiles for e in tile}) == 1
        seen["one_letter_solved"] += one_letter and bool(boards)
        digits = [dlx.digits(board) for board in boards]
        seen["ties"] += len(set(digits)) < len(digits)
    # The mix must keep exercising what can go wrong, or the test means little.
    # (With this seed: 188 solved, 179 of them with a symmetric tile, 146
    # with duplicate tiles, 48 with ties, 10 one-letter ones solved.)
    assert seen["solved"] >= 160, seen
    assert seen["symmetric_solved"] >= 150, seen
    assert seen["duplicates"] >= 130, seen
    assert seen["ties"] >= 40, seen
    assert seen["one_letter_solved"] >= 6, seen
