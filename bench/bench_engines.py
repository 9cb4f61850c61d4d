#!/usr/bin/env python3
"""Compare the two solving engines: the reference solver and the exact-cover
engine (reference/dlx.py).

    .venv/bin/python bench/bench_engines.py [--repeat N] [--heavy N] [--seed S]

Puzzles: the shipped public cases (.txt) and testcases/sources (.int, converted:
|v| -> letter, 1 = A, sign -> half, + = 1, - = 0; files with a 0 edge are
skipped, no letter edge matches a flat one) and a few heavier random
two-letter puzzles (hundreds of solutions).  Per puzzle: CPU time of each
engine (best of N runs, solving to the full list of boards), the ratio
DLX/reference, and the exact-cover search's nodes (options tried) and updates
(links removed).  The reference exposes no search figures, so it gets time
only.  Both engines' boards are compared too: a difference is reported.
"""

import argparse
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from reference import dlx  # noqa: E402
from reference import puzzlesolver as ref  # noqa: E402

CASES = Path(__file__).resolve().parent.parent / "testcases"
HEAVY_RANGE = (200, 2000)  # solutions of the random "heavier" puzzles


def int_puzzle(path: Path) -> tuple[ref.Puzzle | None, str]:
    """The puzzle of an .int file, or None and why it was skipped."""
    rows = [line.split() for line in path.read_text().splitlines() if line.strip()]
    tiles = []
    for row in rows:
        values = [int(v) for v in row]
        if 0 in values:
            return None, "has a 0 (flat) edge"
        if any(abs(v) > 26 for v in values):
            return None, "has an edge beyond Z"
        tiles.append(tuple(chr(64 + abs(v)) + ("1" if v > 0 else "0") for v in values))
    return ref.parse("\n".join(",".join(tile) for tile in tiles), str(path)), ""


def real_puzzles() -> list[tuple[str, ref.Puzzle]]:
    found = []
    for path in sorted((CASES / "public").glob("*.txt")):
        found.append((path.name, ref.read_puzzle(str(path))))
    for path in sorted((CASES / "sources").glob("*.int")):
        puzzle, why = int_puzzle(path)
        if puzzle is None:
            print(f"skipped {path.name}: {why}")
        else:
            found.append((path.name, puzzle))
    return found


def _mate(edge: str) -> str:
    return edge[0] + ("1" if edge[1] == "0" else "0")


def random_solved(rng: random.Random, letters: str) -> ref.Puzzle:
    """Tiles cut from a random solved board, turned and shuffled."""

    def edge() -> str:
        return rng.choice(letters) + rng.choice("01")

    cells: list[tuple] = []
    for cell in range(9):
        row, col = divmod(cell, 3)
        top = _mate(cells[cell - 3][2]) if row else edge()
        left = _mate(cells[cell - 1][1]) if col else edge()
        cells.append((top, edge(), edge(), left))
    tiles = []
    for tile in cells:
        k = rng.randrange(4)
        tiles.append(tile[k:] + tile[:k])
    rng.shuffle(tiles)
    return ref.Puzzle(tuple(tiles))


def heavy_puzzles(count: int, seed: int) -> list[tuple[str, ref.Puzzle]]:
    rng = random.Random(seed)
    found = []
    while len(found) < count:
        puzzle = random_solved(rng, "AB")
        if HEAVY_RANGE[0] <= ref.count(puzzle) <= HEAVY_RANGE[1]:
            found.append((f"random-2-letter-{len(found) + 1}", puzzle))
    return found


def best_time(run: Callable[[], object], repeat: int) -> tuple[float, object]:
    best, result = float("inf"), None
    for _ in range(repeat):
        start = time.process_time()
        result = run()
        best = min(best, time.process_time() - start)
    return best, result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--repeat", type=int, default=3, help="runs per engine and puzzle (best counts)"
    )
    parser.add_argument("--heavy", type=int, default=4, help="heavier random two-letter puzzles")
    parser.add_argument("--seed", type=int, default=7, help="seed of the random puzzles")
    args = parser.parse_args(argv)
    if args.repeat < 1 or args.heavy < 0:
        parser.error("--repeat must be at least 1 and --heavy at least 0")

    puzzles = real_puzzles() + heavy_puzzles(args.heavy, args.seed)
    header = (
        f"{'puzzle':<20} {'sols':>5} {'ref ms':>9} {'dlx ms':>9} {'dlx/ref':>8} "
        f"{'dlx nodes':>10} {'dlx updates':>12} {'covers':>7}  same"
    )
    print(header)
    print("-" * len(header))
    total_ref = total_dlx = 0.0
    ratios = []
    differ = 0
    for name, puzzle in puzzles:
        t_ref, ref_boards = best_time(lambda puzzle=puzzle: list(ref.solve(puzzle)), args.repeat)
        t_dlx, (dlx_boards, stats) = best_time(
            lambda puzzle=puzzle: dlx.solve_with_stats(puzzle), args.repeat
        )
        same = ref_boards == dlx_boards
        differ += not same
        ratio = t_dlx / t_ref if t_ref > 0 else float("inf")
        ratios.append(ratio)
        total_ref += t_ref
        total_dlx += t_dlx
        print(
            f"{name:<20} {len(ref_boards):>5} {t_ref * 1e3:>9.2f} {t_dlx * 1e3:>9.2f} "
            f"{ratio:>8.1f} {stats.nodes:>10} {stats.updates:>12} {stats.covers:>7}  "
            f"{'yes' if same else 'NO'}"
        )
    print("-" * len(header))
    geomean = 1.0
    for ratio in ratios:
        geomean *= ratio ** (1 / len(ratios))
    print(
        f"{'total':<20} {'':>5} {total_ref * 1e3:>9.2f} {total_dlx * 1e3:>9.2f} "
        f"{total_dlx / total_ref:>8.1f}"
    )
    print(
        f"DLX/reference: {total_dlx / total_ref:.1f}x in total CPU time, "
        f"geometric mean of per-puzzle ratios {geomean:.1f}x "
        f"(CPU time, best of {args.repeat}; noisy on a shared machine)"
    )
    if differ:
        print(f"the engines DIFFER on {differ} puzzle(s)")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
