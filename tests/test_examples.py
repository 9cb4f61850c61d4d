"""The example submissions under submissions/ behave as their READMEs say.

The four correct ones (one per language) are built with the real compilers and
must print exactly what the reference solver prints, byte for byte, on the
hand-out's sample, on lightbulbs and on ~30 puzzles generated here from a fixed
seed (1-4 letters, duplicate and symmetric tiles, ties, no / one / many
solutions, CRLF, no final newline).  Each deliberately wrong example must fail
in exactly its intended way on its trigger and pass where it should.

Programs run as plain subprocesses with a timeout: the sandboxed grader is
tested elsewhere.
"""

import random
import shutil
import signal
import subprocess
import sys
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

from reference import puzzlesolver as ref

ROOT = Path(__file__).resolve().parent.parent
SUBMISSIONS = ROOT / "submissions"
PUBLIC = ROOT / "testcases" / "public"
SAMPLE = PUBLIC / "sample.txt"
SAMPLE_EXPECTED = PUBLIC / "sample.out"
LIGHTBULBS = PUBLIC / "lightbulbs.txt"
LIGHTBULBS_EXPECTED = PUBLIC / "lightbulbs.out"

# Students run under the system interpreter, stdlib only, as the spec says.
STUDENT_PYTHON = "/usr/bin/python3" if Path("/usr/bin/python3").exists() else sys.executable
SEED = 20240917
MAX_SOLUTIONS = 1500  # keeps every expected output under ~600 kB
RUN_TIMEOUT = 30.0


# ---------------------------------------------------------------- puzzles

TOP, RIGHT, BOTTOM, LEFT = range(4)


@dataclass(frozen=True)
class GenPuzzle:
    name: str
    data: bytes  # the file as written, line ends and all
    expected: bytes  # the reference solver's output

    @property
    def solutions(self) -> int:
        line = self.expected.split(b"\n")[11]
        return 0 if line.startswith(b"No") else int(line.split()[0])


def _flip(edge: str) -> str:
    return edge[0] + ("1" if edge[1] == "0" else "0")


def _neighbours(pos: int) -> list[tuple[int, int, int]]:
    """(side of pos, neighbour position, the neighbour's side facing pos)."""
    row, col = divmod(pos, 3)
    found = []
    if row > 0:
        found.append((TOP, pos - 3, BOTTOM))
    if row < 2:
        found.append((BOTTOM, pos + 3, TOP))
    if col > 0:
        found.append((LEFT, pos - 1, RIGHT))
    if col < 2:
        found.append((RIGHT, pos + 1, LEFT))
    return found


class _Board:
    """A solved board under construction: nine cells of four edges."""

    def __init__(self, rng: random.Random, letters: str):
        self.rng = rng
        self.letters = letters
        self.cells = [[self.edge() for _ in range(4)] for _ in range(9)]
        for pos in range(9):
            for side, other, facing in _neighbours(pos):
                if other > pos:
                    self.cells[other][facing] = _flip(self.cells[pos][side])

    def edge(self) -> str:
        return self.rng.choice(self.letters) + self.rng.choice("01")

    def set_cell(self, pos: int, edges: Sequence[str]) -> None:
        """Put `edges` at pos and make the neighbours match them."""
        self.cells[pos] = list(edges)
        for side, other, facing in _neighbours(pos):
            self.cells[other][facing] = _flip(edges[side])

    def scrambled(self) -> list[list[str]]:
        order = self.rng.sample(range(9), 9)
        tiles = []
        for pos in order:
            turn = self.rng.randrange(4)
            edges = self.cells[pos]
            tiles.append(edges[turn:] + edges[:turn])
        return tiles


def _letters(rng: random.Random, count: int) -> str:
    return "".join(rng.sample("ABCDEFGHIJKLMNOPQRSTUVWXYZ", count))


def _solved(rng, count, *, symmetric=None, duplicate=False) -> list[list[str]]:
    board = _Board(rng, _letters(rng, count))
    if symmetric == "half-turn":  # like R0,B1,R0,B1
        a, b = board.edge(), board.edge()
        board.set_cell(4, [a, b, a, b])
    elif symmetric == "all-same":  # like A0,A0,A0,A0
        board.set_cell(4, [board.edge()] * 4)
    if duplicate:  # the bottom-right corner is the top-left one turned round
        first = board.cells[0]
        board.set_cell(8, first[2:] + first[:2])
    return board.scrambled()


def _random_tiles(rng, count) -> list[list[str]]:
    letters = _letters(rng, count)
    return [[rng.choice(letters) + rng.choice("01") for _ in range(4)] for _ in range(9)]


def _encode(tiles: list[list[str]], crlf: bool, final_newline: bool) -> bytes:
    end = "\r\n" if crlf else "\n"
    text = end.join(",".join(tile) for tile in tiles)
    return (text + end if final_newline else text).encode("ascii")


def _expected(data: bytes) -> bytes:
    puzzle = ref.parse(data.decode("ascii"))
    boards = list(ref.solve(puzzle))
    return ref.render(puzzle, boards).encode("ascii")


def _small_enough(tiles) -> bool:
    puzzle = ref.parse("\n".join(",".join(t) for t in tiles))
    return ref.count(puzzle) <= MAX_SOLUTIONS


# name -> how to make its tiles; each kind retries until the count is small
_KINDS = [
    ("one-4", lambda r: _solved(r, 4)),
    ("one-4b", lambda r: _solved(r, 4)),
    ("one-3", lambda r: _solved(r, 3)),
    ("solved-3", lambda r: _solved(r, 3)),
    ("solved-2", lambda r: _solved(r, 2)),
    ("solved-2b", lambda r: _solved(r, 2)),
    ("solved-2c", lambda r: _solved(r, 2)),
    ("solved-2d", lambda r: _solved(r, 2)),
    ("halfturn-4", lambda r: _solved(r, 4, symmetric="half-turn")),
    ("halfturn-3", lambda r: _solved(r, 3, symmetric="half-turn")),
    ("halfturn-2", lambda r: _solved(r, 2, symmetric="half-turn")),
    ("allsame-4", lambda r: _solved(r, 4, symmetric="all-same")),
    ("allsame-3", lambda r: _solved(r, 3, symmetric="all-same")),
    ("allsame-2", lambda r: _solved(r, 2, symmetric="all-same")),
    ("duplicate-4", lambda r: _solved(r, 4, duplicate=True)),
    ("duplicate-3", lambda r: _solved(r, 3, duplicate=True)),
    ("duplicate-2", lambda r: _solved(r, 2, duplicate=True)),
    ("dup-sym-3", lambda r: _solved(r, 3, symmetric="half-turn", duplicate=True)),
    ("dup-sym-2", lambda r: _solved(r, 2, symmetric="all-same", duplicate=True)),
    ("random-4", lambda r: _random_tiles(r, 4)),
    ("random-4b", lambda r: _random_tiles(r, 4)),
    ("random-3", lambda r: _random_tiles(r, 3)),
    ("random-2", lambda r: _random_tiles(r, 2)),
    ("random-1", lambda r: _random_tiles(r, 1)),
    ("nine-a0", lambda r: [["A0"] * 4 for _ in range(9)]),
    ("nine-halfturn", lambda r: [["R0", "B1", "R0", "B1"] for _ in range(9)]),
    ("one-4-crlf", lambda r: _solved(r, 4)),
    ("solved-2-crlf", lambda r: _solved(r, 2)),
    ("halfturn-3-nonl", lambda r: _solved(r, 3, symmetric="half-turn")),
    ("duplicate-3-crlf-nonl", lambda r: _solved(r, 3, duplicate=True)),
]


def generate_puzzles(seed: int = SEED) -> list[GenPuzzle]:
    rng = random.Random(seed)
    puzzles = []
    for name, make in _KINDS:
        tiles = make(rng)
        while not _small_enough(tiles):
            tiles = make(rng)
        data = _encode(tiles, crlf="crlf" in name, final_newline="nonl" not in name)
        puzzles.append(GenPuzzle(name, data, _expected(data)))
    return puzzles


def _is_symmetric(tile: Sequence[str]) -> bool:
    return tuple(tile[2:]) + tuple(tile[:2]) == tuple(tile)


def _shape(tile: Sequence[str]) -> tuple[str, ...]:
    """The same for two tiles that are one tile turned round."""
    return min(tuple(tile[k:]) + tuple(tile[:k]) for k in range(4))


def _tiles(puzzle: GenPuzzle) -> list[list[str]]:
    return [line.split(",") for line in puzzle.data.decode().split()]


def _with_letters(puzzle: GenPuzzle, letters: str, name: str) -> GenPuzzle:
    """The same puzzle drawn with other letters (e.g. only the hand-out's)."""
    used = sorted({edge[0] for tile in _tiles(puzzle) for edge in tile})
    assert len(used) <= len(letters)
    table = bytes.maketrans("".join(used).encode(), letters[: len(used)].encode())
    data = puzzle.data.translate(table)
    return GenPuzzle(name, data, _expected(data))


# ---------------------------------------------------------------- outputs


def _split(output: bytes) -> tuple[bytes, list[bytes]]:
    """(tile list and count line, the boards each as its 13 lines)."""
    lines = output.split(b"\n")
    head, rest = b"\n".join(lines[:12]), b"\n".join(lines[12:]).rstrip(b"\n")
    return head, rest.split(b"\n\n") if rest else []


def _cells(board: bytes) -> list[tuple[str, str, str, str, str]]:
    """(tile digit, top, right, bottom, left) of the nine cells, row by row."""
    lines = board.decode().split("\n")
    cells = []
    for row in range(3):
        first, middle, last = lines[4 * row + 1 : 4 * row + 4]
        for col in range(3):
            x = 9 * col
            cells.append(
                (
                    first[x + 1],
                    first[x + 4 : x + 6],
                    middle[x + 7 : x + 9],
                    last[x + 4 : x + 6],
                    middle[x + 1 : x + 3],
                )
            )
    return cells


def _draw(cells) -> bytes:
    sep = "+--------+--------+--------+\n"
    text = sep
    for row in range(3):
        part = cells[3 * row : 3 * row + 3]
        text += "".join(f"|{n}  {t}   " for n, t, r, b, lf in part) + "|\n"
        text += "".join(f"|{lf}    {r}" for n, t, r, b, lf in part) + "|\n"
        text += "".join(f"|   {b}   " for n, t, r, b, lf in part) + "|\n" + sep
    return text.rstrip("\n").encode()


def _turned(cells):
    """The whole board turned a quarter clockwise."""
    return [
        (n, lf, t, r, b)
        for n, t, r, b, lf in (cells[3 * (2 - col) + row] for row in range(3) for col in range(3))
    ]


def _canonical(board: bytes) -> bytes:
    """The board in the rotation the assignment keeps."""
    cells, turns = _cells(board), []
    for _ in range(4):
        turns.append(cells)
        cells = _turned(cells)
    return _draw(min(turns, key=lambda c: "".join(cell[0] for cell in c)))


def _digits(board: bytes) -> str:
    return "".join(cell[0] for cell in _cells(board))


# ---------------------------------------------------------------- building and running


@dataclass(frozen=True)
class Program:
    """A built example: the command that runs it on a puzzle, in its folder."""

    name: str
    command: tuple[str, ...]
    folder: Path


class BuildFailed(Exception):
    pass


SOURCES = {
    "puzzlesolver.c": (
        "gcc",
        ["gcc", "-O2", "-std=gnu17", "-o", "puzzlesolver", "puzzlesolver.c"],
        ["./puzzlesolver"],
    ),
    "puzzlesolver.cpp": (
        "g++",
        ["g++", "-O2", "-std=gnu++17", "-o", "puzzlesolver", "puzzlesolver.cpp"],
        ["./puzzlesolver"],
    ),
    "PuzzleSolver.java": (
        "javac",
        ["javac", "-encoding", "UTF-8", "PuzzleSolver.java"],
        ["java", "PuzzleSolver"],
    ),
    "puzzlesolver.py": (STUDENT_PYTHON, None, [STUDENT_PYTHON, "puzzlesolver.py"]),
}


def _source(name: str) -> Path:
    found = [p for p in (SUBMISSIONS / name).iterdir() if p.name in SOURCES]
    assert len(found) == 1, f"{name}: expected exactly one source file, found {found}"
    return found[0]


def build(name: str, workdir: Path) -> Program:
    """Build as the spec says, in a fresh folder; BuildFailed carries the log."""
    source = _source(name)
    tool, compile_cmd, run_cmd = SOURCES[source.name]
    if shutil.which(tool) is None:
        pytest.skip(f"{tool} is not installed")
    folder = workdir / name
    folder.mkdir()
    shutil.copy(source, folder / source.name)
    if compile_cmd:
        done = subprocess.run(compile_cmd, cwd=folder, capture_output=True, text=True, timeout=120)
        if done.returncode != 0:
            raise BuildFailed(done.stderr)
    return Program(name, tuple(run_cmd), folder)


def run(program: Program, puzzle: Path, timeout: float = RUN_TIMEOUT):
    return subprocess.run(
        [*program.command, str(puzzle)],
        cwd=program.folder,
        capture_output=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )


def run_all(program: Program, paths: Sequence[Path]) -> list[subprocess.CompletedProcess]:
    with ThreadPoolExecutor(max_workers=2) as pool:
        return list(pool.map(lambda path: run(program, path), paths))


# ---------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def programs(tmp_path_factory):
    """Builds each example once, on first use."""
    workdir = tmp_path_factory.mktemp("examples")
    cache: dict[str, Program] = {}

    def get(name: str) -> Program:
        if name not in cache:
            cache[name] = build(name, workdir)
        return cache[name]

    return get


@pytest.fixture(scope="module")
def puzzles(tmp_path_factory) -> dict[str, tuple[GenPuzzle, Path]]:
    folder = tmp_path_factory.mktemp("puzzles")
    found = {}
    for puzzle in generate_puzzles():
        path = folder / f"{puzzle.name}.txt"
        path.write_bytes(puzzle.data)
        found[puzzle.name] = (puzzle, path)
    return found


def _write(tmp_path: Path, puzzle: GenPuzzle) -> Path:
    path = tmp_path / f"{puzzle.name}.txt"
    path.write_bytes(puzzle.data)
    return path


# ---------------------------------------------------------------- the generated set


def test_generated_puzzles_cover_the_hard_cases(puzzles):
    found = [p for p, _ in puzzles.values()]
    counts = [p.solutions for p in found]
    assert 0 in counts and 1 in counts and max(counts) >= 300
    assert any(b"\r\n" in p.data for p in found)
    assert any(not p.data.endswith(b"\n") for p in found)
    assert {len({e[0] for t in _tiles(p) for e in t}) for p in found} >= {1, 2, 3, 4}
    solved = [p for p in found if p.solutions]
    assert any(any(_is_symmetric(t) for t in _tiles(p)) for p in solved)
    assert any(any(len(set(t)) == 1 for t in _tiles(p)) for p in solved)  # like A0,A0,A0,A0
    assert any(len({_shape(t) for t in _tiles(p)}) < 9 for p in solved)  # duplicate tiles
    assert sum(_has_tie(p) for p in solved) >= 5


def _has_tie(puzzle: GenPuzzle) -> bool:
    """Two boards with the same digits: their order rests on the tie rule."""
    digits = [_digits(board) for board in _split(puzzle.expected)[1]]
    return any(a == b for a, b in zip(digits, digits[1:]))


def test_board_helpers_agree_with_the_sample():
    head, boards = _split(SAMPLE_EXPECTED.read_bytes())
    assert head.endswith(b"2 unique solutions found:") and len(boards) == 2
    assert [_digits(b) for b in boards] == ["124967385", "397862514"]
    for board in boards:
        assert _canonical(board) == board
        assert _draw(_cells(board)) == board
        assert _canonical(_draw(_turned(_cells(board)))) == board


# ---------------------------------------------------------------- correct examples

CORRECT = ["ada-c", "grace-cpp", "james-java", "guido-py"]
# Java starts slowly: it gets a subset that still has every kind of case.
JAVA_SUBSET = [
    "one-4",
    "one-4b",
    "solved-3",
    "solved-2",
    "halfturn-3",
    "allsame-4",
    "allsame-2",
    "duplicate-3",
    "dup-sym-3",
    "random-4",
    "nine-halfturn",
    "one-4-crlf",
    "halfturn-3-nonl",
    "duplicate-3-crlf-nonl",
]


@pytest.mark.parametrize("name", CORRECT)
def test_correct_example_matches_the_handout(programs, name):
    program = programs(name)
    for puzzle, expected in ((SAMPLE, SAMPLE_EXPECTED), (LIGHTBULBS, LIGHTBULBS_EXPECTED)):
        done = run(program, puzzle)
        assert done.returncode == 0, done.stderr
        assert done.stdout == expected.read_bytes(), f"{name} on {puzzle.name}"


@pytest.mark.parametrize("name", CORRECT)
def test_correct_example_matches_the_reference(programs, puzzles, name):
    program = programs(name)
    chosen = JAVA_SUBSET if name.endswith("java") else sorted(puzzles)
    results = run_all(program, [puzzles[n][1] for n in chosen])
    wrong = [
        n
        for n, done in zip(chosen, results)
        if done.returncode != 0 or done.stdout != puzzles[n][0].expected
    ]
    assert not wrong, f"{name} differs from the reference on {wrong}"


# ---------------------------------------------------------------- the mistakes


def test_wrong_plural_only_misses_the_singular(programs, puzzles):
    program = programs("wrong-plural")
    for name in ("one-4", "allsame-4"):
        puzzle, path = puzzles[name]
        assert puzzle.solutions == 1
        out = run(program, path).stdout
        assert out != puzzle.expected
        assert out == puzzle.expected.replace(
            b"\n1 unique solution found:\n", b"\n1 unique solutions found:\n"
        )
    for name in ("random-4", "one-4b", "halfturn-3-nonl"):
        puzzle, path = puzzles[name]
        assert run(program, path).stdout == puzzle.expected, name
    assert run(program, SAMPLE).stdout == SAMPLE_EXPECTED.read_bytes()


def test_no_blank_line_differs_only_between_boards(programs, puzzles):
    program = programs("no-blank-line")
    names = sorted(puzzles)
    for name, done in zip(names, run_all(program, [puzzles[n][1] for n in names])):
        puzzle = puzzles[name][0]
        assert done.returncode == 0, name
        if puzzle.solutions <= 1:
            assert done.stdout == puzzle.expected, name
        else:
            assert done.stdout != puzzle.expected, name
            assert done.stdout == puzzle.expected.replace(b"+\n\n+", b"+\n+"), name
            # white space only: the grader's PE
            assert done.stdout.split() == puzzle.expected.split(), name


def test_unsorted_prints_the_right_boards_in_discovery_order(programs, puzzles):
    program = programs("unsorted")
    names = sorted(puzzles)
    out_of_order = []
    for name, done in zip(names, run_all(program, [puzzles[n][1] for n in names])):
        puzzle = puzzles[name][0]
        head, boards = _split(done.stdout)
        want_head, want_boards = _split(puzzle.expected)
        assert head == want_head, name
        assert sorted(boards) == sorted(want_boards), name
        if boards != want_boards:
            out_of_order.append(name)
    assert len(out_of_order) >= 10
    assert all(puzzles[n][0].solutions >= 2 for n in out_of_order)
    for puzzle, expected in ((SAMPLE, SAMPLE_EXPECTED), (LIGHTBULBS, LIGHTBULBS_EXPECTED)):
        assert run(program, puzzle).stdout == expected.read_bytes()


def test_rotation_keeps_the_largest_rotation(programs, puzzles):
    program = programs("rotation")
    cases = [(SAMPLE, SAMPLE_EXPECTED.read_bytes())]
    cases += [
        (puzzles[n][1], puzzles[n][0].expected)
        for n in ("one-4", "halfturn-3", "duplicate-3", "random-4")
    ]
    results = run_all(program, [path for path, _ in cases])
    for (path, expected), done in zip(cases, results):
        head, boards = _split(done.stdout)
        want_head, want_boards = _split(expected)
        assert head == want_head, path.name
        assert len(boards) == len(want_boards), path.name
        # every board is a right solution, shown turned: the largest corner top-left
        assert sorted(_canonical(b) for b in boards) == sorted(want_boards), path.name
        for board in boards:
            digits = _digits(board)
            assert digits[0] == max(digits[0], digits[2], digits[6], digits[8]), path.name
        assert (done.stdout == expected) == (not want_boards), path.name


def test_trailing_spaces_only_on_board_lines(programs, puzzles):
    program = programs("trailing-spaces")
    names = ["one-4", "halfturn-3", "duplicate-3-crlf-nonl", "random-4", "nine-a0"]
    for name, done in zip(names, run_all(program, [puzzles[n][1] for n in names])):
        puzzle = puzzles[name][0]
        stripped = b"\n".join(line.rstrip(b" ") for line in done.stdout.split(b"\n"))
        assert stripped == puzzle.expected, name
        head, boards = _split(done.stdout)
        assert head == _split(puzzle.expected)[0], name
        assert (done.stdout == puzzle.expected) == (puzzle.solutions == 0), name
        assert all(line.endswith(b"  ") for b in boards for line in b.split(b"\n")), name


def test_crash_aborts_on_letters_other_than_the_handouts(programs, puzzles, tmp_path):
    program = programs("crash")
    names = sorted(puzzles)
    aborted = 0
    for name, done in zip(names, run_all(program, [puzzles[n][1] for n in names])):
        puzzle = puzzles[name][0]
        if {e[0] for t in _tiles(puzzle) for e in t} <= set("BGRY"):
            assert done.returncode == 0 and done.stdout == puzzle.expected, name
        else:
            assert done.returncode == -signal.SIGABRT, name
            assert done.stdout == b"", name
            aborted += 1
    assert aborted >= 25
    done = run(program, LIGHTBULBS)
    assert done.returncode == -signal.SIGABRT and b"Assertion" in done.stderr
    # Puzzles drawn with the hand-out's colours only are solved right.
    for name in ("duplicate-3-crlf-nonl", "halfturn-4", "random-4", "one-4"):
        puzzle = _with_letters(puzzles[name][0], "BGRY", name + "-bgry")
        done = run(program, _write(tmp_path, puzzle))
        assert done.returncode == 0 and done.stdout == puzzle.expected, name
    assert run(program, SAMPLE).stdout == SAMPLE_EXPECTED.read_bytes()


def test_endless_loop_hangs_on_a_symmetric_tile(programs, puzzles):
    program = programs("endless-loop")
    for name in ("one-4", "duplicate-3-crlf-nonl", "random-4"):
        puzzle, path = puzzles[name]
        assert not any(_is_symmetric(t) for t in _tiles(puzzle))
        assert run(program, path).stdout == puzzle.expected, name
    assert run(program, SAMPLE).stdout == SAMPLE_EXPECTED.read_bytes()
    trigger = puzzles["halfturn-3"]
    assert any(_is_symmetric(t) for t in _tiles(trigger[0]))
    with pytest.raises(subprocess.TimeoutExpired):
        run(program, trigger[1], timeout=2.0)


def test_compile_error_does_not_compile(programs):
    with pytest.raises(
        BuildFailed, match=r"puzzlesolver.cpp:16:.*expected .;. after struct definition"
    ):
        programs("compile-error")


def test_every_example_folder_is_known():
    intended = set(CORRECT) | {
        "wrong-plural",
        "no-blank-line",
        "unsorted",
        "rotation",
        "trailing-spaces",
        "crash",
        "endless-loop",
        "compile-error",
    }
    folders = {p.name for p in SUBMISSIONS.iterdir() if p.is_dir()}
    assert folders == intended
    for name in folders:
        _source(name)
