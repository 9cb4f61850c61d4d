"""Puzzles drawn afresh for one leaderboard session.

The leaderboard's figures are published, and a program's CPU time can spell out its
input; a program that knows the timed puzzles can print stored answers for them. So
each session times puzzles nobody has seen: one per timed case, drawn from the family
the case declares in the manifest (its `generator`: letters, a range of solution
counts, ties...), each with the reference's expected output, cross-checked by the
second engine (reference.dlx). The draw is a JSON file (grader/schemas/draw.schema.json)
for `grader leaderboard --puzzles`; the session records its seed and puzzles, and the
same seed draws the same puzzles again (`testcases draw --seed S`), so anyone can
check a session.
"""

import hashlib
import secrets
from collections.abc import Sequence
from datetime import datetime, timezone
from pathlib import Path
from types import ModuleType
from typing import Any

from grader.cases.manifest import Case, load_cases, read_manifest
from grader.core.progress import progress
from grader.schemas import validate
from testcases import engine, generate
from testcases.build import reference_result
from testcases.errors import Failure, UsageError
from testcases.puzzletext import format_puzzle
from testcases.verify import cross_check

DRAW_VERSION = 1


def new_seed() -> int:
    return secrets.randbits(48)


def draw(manifest_path: Path, seed: int, families: Sequence[str] = ()) -> dict[str, Any]:
    """One puzzle per timed case (or per case named in `families`), as the JSON
    document the leaderboard reads. UsageError: a timed case declares no family;
    Failure: a family gave no puzzle, or the engines disagree."""
    ps, dlx = engine.solver(), engine.second_engine()
    entries = {entry["id"]: entry for entry in read_manifest(manifest_path)["cases"]}
    chosen = _families(load_cases(manifest_path), families)
    puzzles = []
    with progress(len(chosen), "drawing", "puzzle") as bar:
        for case in chosen:
            bar.on(case.id)
            puzzles.append(_drawn(ps, dlx, case, entries[case.id], seed))
            bar.done()
    document = {
        "version": DRAW_VERSION,
        "seed": seed,
        "drawn_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "cross_checked": True,
        "puzzles": puzzles,
    }
    problem = validate(document, "draw")
    assert problem is None, f"a draw that does not fit its schema: {problem}"
    return document


def _drawn(
    ps: ModuleType, dlx: ModuleType, case: Case, entry: dict[str, Any], seed: int
) -> dict[str, Any]:
    generator = entry.get("generator")
    if generator is None:
        raise UsageError(
            f"case {case.id!r} is timed but declares no family to draw from: add its "
            'generator options to the manifest ("generator": {"solutions": "LOW-HIGH", '
            '"letters": K, ...})'
        )
    return _one(ps, dlx, case.id, generator, seed)


def _families(cases: Sequence[Case], wanted: Sequence[str]) -> list[Case]:
    by_id = {case.id: case for case in cases}
    unknown = [name for name in wanted if name not in by_id]
    if unknown:
        raise UsageError(f"--family {unknown[0]!r}: no such case in the manifest")
    chosen = [by_id[name] for name in wanted] or [case for case in cases if case.timed]
    if not chosen:
        raise UsageError("no case is timed in the manifest: nothing to draw")
    return chosen


def puzzle_seed(seed: int, family: str) -> int:
    """Each family's own seed, from the draw's and the family's name alone."""
    digest = hashlib.sha256(f"{seed}:{family}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def _one(
    ps: ModuleType, dlx: ModuleType, family: str, generator: dict[str, Any], seed: int
) -> dict[str, Any]:
    options = generate.Options(
        target=generate.parse_target(generator["solutions"]),
        letters=generate.choose_letters(generator.get("letters"), generator.get("alphabet")),
        duplicates=generator.get("duplicates", False),
        symmetric=generator.get("symmetric", False),
        ties=generator.get("ties", "forbid"),
        max_tries=generator.get("tries", generate.MAX_TRIES),
    )
    own = puzzle_seed(seed, family)
    found = generate.generate(options, own, ps)
    text = format_puzzle(
        found.tiles, generator.get("crlf", False), generator.get("final_newline", True)
    )
    puzzle = ps.Puzzle(found.tiles)
    result = reference_result(puzzle)
    problems = cross_check(
        ps, dlx, puzzle, f"drawn puzzle of {family!r} (seed {own})", result.output
    )
    if problems:
        raise Failure(problems[0])
    return {
        "id": f"{family}-d{seed}"[:96],
        "family": family,
        "input": text.decode("ascii"),
        "expected": result.output.decode("ascii"),
        "solutions": result.solutions,
        "policy": list(result.policy),
        "generator": dict(generator),
    }


def seeded(seed: int | None) -> int:
    """The seed asked for, or a new random one."""
    if seed is None:
        return new_seed()
    if seed < 0:
        raise UsageError("--seed: give a number of 0 or more")
    return seed
