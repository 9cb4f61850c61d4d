"""Tests of the reference solver, reference/puzzlesolver.py, whose output is
the expected output of every test case: exact bytes on the hand-out's
examples, bad input, the count line, agreement with an independent
brute-force solver (tests/bruteforce.py) on hundreds of random puzzles,
properties (hypothesis), and the streaming path on huge outputs."""

import contextlib
import hashlib
import io
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reference import puzzlesolver as ps
from tests import bruteforce as bf
from tests import helpers

pytestmark = pytest.mark.fast

ROOT = Path(__file__).resolve().parent.parent
SOLVER = ROOT / "reference" / "puzzlesolver.py"

# The hand-out's example and the lightbulbs puzzle with their expected outputs,
# as shipped public cases; test_public_copies_match_the_hand_out guards them.
SAMPLE = helpers.SAMPLE_TEXT
SAMPLE_EXPECTED = helpers.SAMPLE_EXPECTED.decode("ascii")
LIGHTBULBS = helpers.LIGHTBULBS_TEXT
LIGHTBULBS_EXPECTED = helpers.LIGHTBULBS_EXPECTED.decode("ascii")
NO_SOLUTION = "A0,A0,A0,A0\n" * 9
# Exactly one solution; tile 1 looks the same turned by half.
ONE_SOLUTION = (
    "A0,C0,A0,C0\nB1,A0,A1,B0\nB1,B1,B1,A0\nA1,C1,B1,C1\nA0,C1,C1,B0\n"
    "A1,B1,A0,A1\nC1,B1,A0,C1\nC1,C1,A1,C0\nB0,C0,C1,C0\n"
)
# Four solutions, two of them with the same digits (the tie rule decides).
WITH_TIE = (
    "C0,B0,C0,D1\nB0,C0,B0,B0\nA1,D1,A1,D1\nD0,D0,B1,B0\nB1,A0,B1,C1\n"
    "A1,A0,A1,D1\nB0,B1,A1,D0\nB1,D0,D1,B1\nA0,C1,A0,C0\n"
)
# A few thousand solutions, many ties, symmetric or duplicate tiles: more
# than the few-solutions search keeps, so the row-by-row search answers.
MANY = {
    "2706": (
        "A1,B1,B0,B1\nB1,A0,B0,B1\nA1,A1,B1,A1\nB1,B0,B1,B0\nB0,B0,B0,B1\n"
        "B0,A0,A0,A0\nB1,B1,A1,B0\nA1,B1,B0,A0\nA1,B0,B0,A0\n"
    ),
    "2868": (
        "A1,A1,B1,A1\nA0,B0,A1,B1\nB0,B0,B0,A0\nB1,A0,A1,B1\nA0,B0,A0,A1\n"
        "B0,A1,B1,B1\nA1,A0,A0,B0\nB1,A0,A1,B1\nB0,A1,B1,B1\n"
    ),
}
USAGE = "usage: puzzlesolver.py INPUT\n"


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SOLVER), *args], capture_output=True, timeout=300)


def solve_cli(tmp_path: Path, text, name: str = "puzzle.txt") -> subprocess.CompletedProcess:
    path = tmp_path / name
    path.write_bytes(text if isinstance(text, bytes) else text.encode("ascii"))
    return run_cli(str(path))


def api_output(text: str) -> str:
    puzzle = ps.parse(text)
    return ps.render(puzzle, ps.solve(puzzle))


def streamed(text: str, buffer_bytes: int = 4 << 20) -> bytes:
    out = io.BytesIO()
    ps.write_output(ps.parse(text), out, buffer_bytes)
    return out.getvalue()


# ---------------------------------------------------------------- exact bytes


EXAMPLES = {"sample": (SAMPLE, SAMPLE_EXPECTED), "lightbulbs": (LIGHTBULBS, LIGHTBULBS_EXPECTED)}


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_cli_output_is_byte_exact(tmp_path, name):
    text, expected = EXAMPLES[name]
    done = solve_cli(tmp_path, text)
    assert done.returncode == 0
    assert done.stderr == b""
    assert done.stdout == expected.encode("ascii")


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_api_output_is_byte_exact(name):
    text, expected = EXAMPLES[name]
    assert api_output(text) == expected
    assert streamed(text) == expected.encode("ascii")
    assert ps.count(ps.parse(text)) == expected.count("+\n\n") + 1


# The hand-out's own files (the sample input, the expected run transcribed from its
# screenshot, the lightbulbs puzzle), pinned by digest: the shipped public copies are
# the only ones a clone has, so an edit of them must fail here, not go unnoticed.
HAND_OUT_DIGESTS = {
    "sample.txt": "5d86a03d7a388d396eb52a6b566193576d5800e0498b21070e77222d7796a18f",
    "sample.out": "a4689d62dacf39e3483d5eee17cfad4da901fdd0dd13db4087df55f3e110abb9",
    "lightbulbs.txt": "b61172f5fc81884ca877ecbe86eba57d07e8e0bb6b7dc80454f4cd31b59616bf",
    "lightbulbs.out": "016596181090315a60d5b1fdb9ec0c90b7e9e5394fbfb2f2d846fe7cbbe72814",
}


@pytest.mark.parametrize("name", sorted(HAND_OUT_DIGESTS))
def test_public_copies_are_the_hand_out_files(name):
    data = (helpers.PUBLIC / name).read_bytes()
    assert hashlib.sha256(data).hexdigest() == HAND_OUT_DIGESTS[name], name


# ---------------------------------------------------------------- bad input


def lines_with(line_number: int, replacement: str) -> str:
    lines = SAMPLE.splitlines()
    lines[line_number - 1] = replacement
    return "\n".join(lines) + "\n"


BAD_INPUTS = {
    # name: (file content, line named, words in the message)
    "eight tiles": ("".join(SAMPLE.splitlines(True)[:8]), 9, "too few tiles: found 8"),
    "ten tiles": (SAMPLE + "Y1,G0,R0,B1\n", 10, "too many tiles"),
    "lower-case letter": (lines_with(3, "Y1,G0,y1,B0"), 3, "bad edge 'y1'"),
    "digit 2": (lines_with(5, "Y2,G0,R1,Y1"), 5, "bad edge 'Y2'"),
    "no digit": (lines_with(2, "Y0,YY,R1,B0"), 2, "bad edge 'YY'"),
    "three edges": (lines_with(4, "Y1,G0,B0"), 4, "has 3 edge(s)"),
    "five edges": (lines_with(7, "R0,B1,Y1,G0,G0"), 7, "has 5 edge(s)"),
    "missing edge": (lines_with(6, "Y0,,R1,B0"), 6, "bad edge 'nothing'"),
    "empty line in the middle": (lines_with(5, ""), 5, "empty line"),
    "empty file": ("", 1, "too few tiles: found 0"),
    "not text": (SAMPLE.replace("G1", "G\xe91", 1), 4, "not a text puzzle"),
}


def assert_one_line_error(done: subprocess.CompletedProcess, *words: str) -> str:
    assert done.returncode == 2
    assert done.stdout == b""
    message = done.stderr.decode()
    assert "Traceback" not in message
    assert message.endswith("\n") and message.count("\n") == 1, message
    for word in words:
        assert word in message, (word, message)
    return message


@pytest.mark.parametrize("name", sorted(BAD_INPUTS))
def test_bad_input_is_one_line_naming_file_line_and_problem(tmp_path, name):
    content, line, words = BAD_INPUTS[name]
    path = tmp_path / "bad puzzle.txt"
    path.write_bytes(content.encode("latin-1"))
    message = assert_one_line_error(run_cli(str(path)), words)
    assert message.startswith(f"puzzlesolver: {path}:{line}: "), message


@pytest.mark.parametrize("args", [(), ("a.txt", "b.txt")])
def test_wrong_arguments_print_the_usage(args):
    done = run_cli(*args)
    assert (done.returncode, done.stdout, done.stderr) == (2, b"", USAGE.encode())


def test_missing_file(tmp_path):
    path = tmp_path / "nowhere.txt"
    assert_one_line_error(run_cli(str(path)), f"{path}:0:", "No such file")


def test_unreadable_file_a_directory(tmp_path):
    # Tests may run as root, who reads anything: a directory fails for everyone.
    assert_one_line_error(run_cli(str(tmp_path)), f"{tmp_path}:0:", "cannot read")


def test_unreadable_file_no_permission():
    # Root reads a chmod 000 file anyway: as root, the solver runs as "nobody", from a
    # folder anyone may enter (pytest's own temporary folders are root's alone).
    folder = Path(tempfile.mkdtemp(prefix="solver-perm-"))
    try:
        folder.chmod(0o755)
        solver = folder / "puzzlesolver.py"
        shutil.copyfile(SOLVER, solver)
        solver.chmod(0o644)
        path = folder / "secret.txt"
        path.write_text(SAMPLE)
        path.chmod(0)
        as_nobody = {"user": 65534, "group": 65534, "extra_groups": []} if os.geteuid() == 0 else {}
        python = "/usr/bin/python3" if Path("/usr/bin/python3").exists() else sys.executable
        done = subprocess.run(
            [python, str(solver), str(path)], capture_output=True, timeout=60, **as_nobody
        )
        assert_one_line_error(done, f"{path}:0:", "Permission denied")
    finally:
        shutil.rmtree(folder)


ACCEPTED = {
    "CRLF": SAMPLE.replace("\n", "\r\n"),
    "no final newline": SAMPLE.rstrip("\n"),
    "trailing blank lines": SAMPLE + "\n\n  \n",
    "CRLF and trailing blank lines": SAMPLE.replace("\n", "\r\n") + "\r\n\r\n",
    "spaces around commas": SAMPLE.replace(",", " , ").replace("Y1 ", "Y1  ", 1),
}


@pytest.mark.parametrize("name", sorted(ACCEPTED))
def test_accepted_variants_give_the_clean_output(tmp_path, name):
    done = solve_cli(tmp_path, ACCEPTED[name])
    assert (done.returncode, done.stderr) == (0, b"")
    assert done.stdout == SAMPLE_EXPECTED.encode("ascii")


def test_parse_error_names_the_source():
    with pytest.raises(ps.PuzzleError, match=r"^here\.txt:3: bad edge 'y1'"):
        ps.parse(lines_with(3, "Y1,G0,y1,B0"), "here.txt")


# ---------------------------------------------------------------- count line and layout


def assert_clean_layout(output: str) -> None:
    assert output.endswith("\n") and not output.endswith("\n\n")
    for line in output.split("\n"):
        assert line == line.rstrip(), repr(line)


def test_no_solution_says_so_and_nothing_more(tmp_path):
    done = solve_cli(tmp_path, NO_SOLUTION)
    listing = "".join(f"{n}. <A0, A0, A0, A0>\n" for n in range(1, 10))
    assert done.stdout.decode() == f"Input tiles:\n{listing}\nNo solution found.\n"
    assert ps.count(ps.parse(NO_SOLUTION)) == 0


def test_one_solution_is_singular(tmp_path):
    output = solve_cli(tmp_path, ONE_SOLUTION).stdout.decode()
    assert "\n\n1 unique solution found:\n+--" in output
    assert output.count("+\n\n") == 0  # one board
    assert output == bf.expected_output(bf.tiles_from_text(ONE_SOLUTION))


@pytest.mark.parametrize(
    "text", [SAMPLE, LIGHTBULBS, NO_SOLUTION, ONE_SOLUTION, WITH_TIE, MANY["2706"]]
)
def test_layout_one_final_newline_no_trailing_spaces(text):
    assert_clean_layout(streamed(text).decode("ascii"))
    assert_clean_layout(api_output(text))


def test_tie_rule_orders_same_digits_by_drawing():
    output = api_output(WITH_TIE)
    assert output == bf.expected_output(bf.tiles_from_text(WITH_TIE))
    boards = output.split("found:\n", 1)[1].split("\n\n")
    digits = [board_digits(board) for board in boards]
    assert len(set(digits)) < len(digits)  # the tie is there


def board_digits(drawn: str) -> str:
    rows = [line for line in drawn.splitlines() if line[1:2].isdigit()]
    return "".join(cell[0] for line in rows for cell in line.split("|")[1:-1])


# ---------------------------------------------------------------- independent solver


def edge(rng: random.Random, letters: str) -> str:
    return rng.choice(letters) + rng.choice("01")


def flip(edge_text: str) -> str:
    return edge_text[0] + ("1" if edge_text[1] == "0" else "0")


def turned(tile: Sequence[str], quarters: int) -> list[str]:
    return list(tile[-quarters:] + tile[:-quarters]) if quarters else list(tile)


def solved_tiles(rng: random.Random, letters: str, symmetric: float = 0.0) -> list[list[str]]:
    """A solved board, built cell by cell, some cells symmetric on purpose,
    then scrambled: shuffled and each tile turned at random."""
    cells: list[list[str]] = []
    for index in range(9):
        row, col = divmod(index, 3)
        top = flip(cells[index - 3][2]) if row else edge(rng, letters)
        left = flip(cells[index - 1][1]) if col else edge(rng, letters)
        if rng.random() < symmetric:
            cells.append([top, left, top, left])  # the same turned by half
        else:
            cells.append([top, edge(rng, letters), edge(rng, letters), left])
    rng.shuffle(cells)
    return [turned(cell, rng.randrange(4)) for cell in cells]


def random_tiles(rng: random.Random, letters: str) -> list[list[str]]:
    return [[edge(rng, letters) for _ in range(4)] for _ in range(9)]


def with_duplicates(rng: random.Random, tiles: list[list[str]]) -> list[list[str]]:
    tiles = [list(tile) for tile in tiles]
    for _ in range(rng.randrange(1, 4)):
        tiles[rng.randrange(9)] = turned(tiles[rng.randrange(9)], rng.randrange(4))
    return tiles


def with_symmetric(rng: random.Random, tiles: list[list[str]], letters: str) -> list[list[str]]:
    tiles = [list(tile) for tile in tiles]
    for _ in range(rng.randrange(1, 4)):
        a, b = edge(rng, letters), edge(rng, letters)
        tiles[rng.randrange(9)] = [a, b, a, b] if rng.random() < 0.7 else [a, a, a, a]
    return tiles


def from_pool(rng: random.Random, letters: str) -> list[list[str]]:
    """Tiles drawn from a few: many duplicates, often symmetric ones."""
    pool = solved_tiles(rng, letters, symmetric=0.5)[: rng.randrange(2, 6)]
    return [turned(rng.choice(pool), rng.randrange(4)) for _ in range(9)]


def random_puzzle(rng: random.Random) -> str:
    # Fewer letters, more matching edges: a one-letter puzzle (no one-letter candidate of
    # this seed was ever small enough for brute force) and most two-letter ones stop at
    # brute force's work limit, which is CPU spent for no puzzle checked.
    letters = rng.choice(["AB", "ABC", "ABC", "ABCD", "ABCD", "ABCD"])
    kind = rng.randrange(7)
    if kind in (0, 6):
        tiles = solved_tiles(rng, letters)
    elif kind == 1:
        tiles = solved_tiles(rng, letters, symmetric=0.4)
    elif kind == 2:
        tiles = with_duplicates(rng, solved_tiles(rng, letters, symmetric=0.2))
    elif kind == 3:
        tiles = random_tiles(rng, letters)
    elif kind == 4:
        tiles = with_symmetric(rng, with_duplicates(rng, random_tiles(rng, letters)), letters)
    else:
        tiles = from_pool(rng, letters)
    return "".join(",".join(tile) + "\n" for tile in tiles)


@pytest.mark.slow
def test_agrees_with_brute_force_on_random_puzzles():
    """Full output bytes, both searches (a 1-byte buffer forces the streaming
    one), on 150 random puzzles (fixed seed) small enough for brute force."""
    rng = random.Random(20261121)
    tally = {"checked": 0, "solved": 0, "tie": 0, "symmetric": 0, "duplicate": 0}
    failures = []
    for _ in range(1000):
        if tally["checked"] == 150:
            break
        text = random_puzzle(rng)
        puzzle = ps.parse(text)
        if ps.count(puzzle) > 3000:
            continue
        try:
            expected = bf.expected_output(bf.tiles_from_text(text), limit=200_000)
        except bf.TooMuchWork:
            continue
        got = (api_output(text), streamed(text).decode(), streamed(text, 1).decode())
        if any(output != expected for output in got):
            failures.append(text)
        tally["checked"] += 1
        if "found:\n" in expected:
            tally["solved"] += 1
            digits = [board_digits(b) for b in expected.split("found:\n", 1)[1].split("\n\n")]
            tally["tie"] += len(set(digits)) < len(digits)
        tally["symmetric"] += any(t[0] == t[2] and t[1] == t[3] for t in puzzle.tiles)
        tally["duplicate"] += len(set(puzzle.tiles)) < 9
    assert not failures, f"{len(failures)} puzzles differ, first:\n{failures[0]}"
    # The mix really covers what it is meant to cover.
    assert tally["checked"] == 150, tally
    assert tally["solved"] >= 60 and tally["tie"] >= 7, tally
    assert tally["symmetric"] >= 60 and tally["duplicate"] >= 30, (
        tally
    )  # this seed: 68 solved, 18 ties, 91, 41


@pytest.mark.parametrize("name", sorted(MANY))
def test_agrees_with_brute_force_past_the_few_solutions_search(name):
    text = MANY[name]
    assert ps.count(ps.parse(text)) == int(name) > ps._FEW
    expected = bf.expected_output(bf.tiles_from_text(text))
    assert api_output(text) == expected
    assert streamed(text).decode() == expected


# Symmetric tiles: in each, some solution has a symmetric tile in the centre
# (where the few-solutions search starts, so where a symmetric tile could
# make it meet a board twice).
SYMMETRIC = {
    # a tile that looks the same all round (tile 1)
    "all round": (
        "C0,C0,C0,C0\nC1,B0,A0,A1\nC0,A1,C1,A1\nC0,C0,A1,C1\nA0,B0,C1,C0\n"
        "B0,C0,A1,A0\nA0,C1,C0,A1\nB1,B1,A1,B0\nC1,A0,C1,C1\n",
        7,
    ),
    # five tiles that look the same turned by half
    "half turn": (
        "C0,C1,C0,C1\nC0,B1,C0,C0\nA0,B0,A0,B0\nC0,A0,A1,A1\nC0,A0,C0,A0\n"
        "C1,B1,C1,B1\nC1,C0,A0,A1\nA1,B0,A1,B0\nC0,C0,B0,C1\n",
        2,
    ),
    # R0,B1,R0,B1 and G0,R1,G0,R1
    "R0,B1,R0,B1": (
        "G0,R1,G0,R1\nB0,B0,B1,G1\nR0,B1,R0,B1\nB0,R0,B1,R0\nR0,G1,B1,R1\n"
        "R1,G1,B0,G1\nR0,G1,G0,B0\nR1,R1,R0,B0\nG1,B1,B0,R1\n",
        10,
    ),
    "R0,B1,R0,B1 only": ("R0,B1,R0,B1\n" * 9, 0),
}


@pytest.mark.parametrize("name", sorted(SYMMETRIC))
def test_symmetric_tiles_each_drawing_once(name):
    text, solutions = SYMMETRIC[name]
    expected = bf.expected_output(bf.tiles_from_text(text))
    assert api_output(text) == expected
    assert streamed(text, 1).decode() == expected
    boards = list(ps.solve(ps.parse(text)))
    assert len(boards) == solutions
    if solutions:
        assert any(
            b[4].edges[0] == b[4].edges[2] and b[4].edges[1] == b[4].edges[3] for b in boards
        )


# ---------------------------------------------------------------- properties


@st.composite
def puzzles(draw) -> tuple[tuple[str, ...], ...]:
    letters = draw(st.sampled_from(["A", "AB", "ABC", "ABC", "ABCD"]))
    edges = st.builds(str.__add__, st.sampled_from(letters), st.sampled_from("01"))
    if draw(st.booleans()):
        tiles = draw(st.lists(st.tuples(edges, edges, edges, edges), min_size=9, max_size=9))
    else:  # a solved board, scrambled
        cells: list[list[str]] = []
        for index in range(9):
            row, col = divmod(index, 3)
            top = flip(cells[index - 3][2]) if row else draw(edges)
            left = flip(cells[index - 1][1]) if col else draw(edges)
            if draw(st.integers(0, 4)) == 0:
                cells.append([top, left, top, left])
            else:
                cells.append([top, draw(edges), draw(edges), left])
        order = draw(st.permutations(range(9)))
        turns = draw(st.lists(st.integers(0, 3), min_size=9, max_size=9))
        tiles = [turned(cells[i], quarters) for i, quarters in zip(order, turns)]
    return tuple(tuple(tile) for tile in tiles)


def as_text(tiles: Sequence[Sequence[str]]) -> str:
    return "".join(",".join(tile) + "\n" for tile in tiles)


SOME = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def matches(a: str, b: str) -> bool:
    return a[0] == b[0] and {a[1], b[1]} == {"0", "1"}


@SOME
@given(puzzles())
def test_every_board_is_a_canonical_solution_in_strict_order(tiles):
    puzzle = ps.Puzzle(tiles)
    if ps.count(puzzle) > 3000:
        return
    boards = list(ps.solve(puzzle))
    assert len(boards) == ps.count(puzzle)
    keys = []
    for board in boards:
        assert sorted(p.tile for p in board) == list(range(1, 10))
        for p in board:
            original = tiles[p.tile - 1]
            assert any(tuple(turned(original, q)) == p.edges for q in range(4))
        for index in range(9):
            row, col = divmod(index, 3)
            if col < 2:
                assert matches(board[index].edges[1], board[index + 1].edges[3])
            if row < 2:
                assert matches(board[index].edges[2], board[index + 3].edges[0])
        assert board[0].tile < min(board[2].tile, board[6].tile, board[8].tile)
        keys.append(("".join(str(p.tile) for p in board), ps.render_board(board)))
    assert all(a < b for a, b in zip(keys, keys[1:]))


@SOME
@given(puzzles(), st.permutations(range(9)), st.lists(st.integers(0, 3), min_size=9, max_size=9))
def test_shuffling_or_turning_the_input_keeps_the_count(tiles, order, turns):
    moved = tuple(tuple(turned(tiles[i], quarters)) for i, quarters in zip(order, turns))
    assert ps.count(ps.Puzzle(moved)) == ps.count(ps.Puzzle(tiles))


@SOME
@given(puzzles())
def test_write_output_is_render_of_solve(tiles):
    text = as_text(tiles)
    puzzle = ps.parse(text)
    if ps.count(puzzle) > 3000:
        return
    expected = ps.render(puzzle, ps.solve(puzzle)).encode("ascii")
    assert streamed(text) == expected
    assert streamed(text, 1) == expected  # the count-first two-pass path
    assert streamed(text, 2000) == expected  # pauses after a few boards


# ---------------------------------------------------------------- streaming


def test_tiny_buffer_gives_the_same_bytes_as_the_default():
    for text in (SAMPLE, WITH_TIE, MANY["2706"], "A0,B0,A1,B1\n" * 9):
        whole = streamed(text)
        assert streamed(text, 1) == whole
        assert streamed(text, 50_000) == whole


def cli_digest(text: str, tmp_path: Path, env=None, stopped=False) -> tuple[int, str]:
    """The size and digest of what the reference's command line prints; `stopped`: the
    solver is stopped and continued every few milliseconds while it prints."""
    path = tmp_path / "big.txt"
    path.write_text(text)
    solver = subprocess.Popen(
        [sys.executable, str(SOLVER), str(path)], stdout=subprocess.PIPE, env=env
    )
    done = threading.Event()
    stopper = threading.Thread(target=_stop_and_continue, args=(solver.pid, done))
    if stopped:
        stopper.start()
    digest, size = hashlib.md5(), 0
    try:
        for chunk in iter(lambda: solver.stdout.read(1 << 20), b""):
            digest.update(chunk)
            size += len(chunk)
    finally:
        done.set()
        if stopped:
            stopper.join()
    assert solver.wait(timeout=600) == 0
    return size, digest.hexdigest()


def _stop_and_continue(pid: int, done: threading.Event) -> None:
    while not done.wait(0.02):
        try:
            os.kill(pid, signal.SIGSTOP)
            time.sleep(0.005)
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGCONT)


def test_huge_output_streams_exactly(tmp_path):
    # 362,880 solutions, 137 MB; the digest is the first reference's output. Unbuffered
    # (`python -u`), stopped and continued while it prints (Ctrl-Z then fg; a debugger):
    # a raw write to a pipe then writes part of what it is given, and the rest must follow.
    unbuffered = {**os.environ, "PYTHONUNBUFFERED": "1"}
    assert cli_digest("A0,B0,A1,B1\n" * 9, tmp_path, unbuffered, stopped=True) == (
        137_168_864,
        "a1d0b3dda1361325570d4a94e4e4f979",
    )


@pytest.mark.slow
def test_huger_output_streams_exactly(tmp_path):
    # 5,806,080 solutions, 2.2 GB.
    assert cli_digest("A0,A0,A1,A1\n" * 9, tmp_path) == (
        2_194_698_465,
        "bb0e7050ac9be1816c43e73b62cb3031",
    )


def test_huge_counts():
    assert ps.count(ps.parse("A0,B0,A1,B1\n" * 9)) == 362_880
    assert ps.count(ps.parse("A0,A0,A1,A1\n" * 9)) == 5_806_080
