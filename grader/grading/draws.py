"""The puzzles one leaderboard session times: drawn afresh by `testcases draw` (a JSON
file, grader/schemas/draw.schema.json), never the manifest's timed cases, whose inputs
a published figure can leak and whose answers a program can store. Each drawn puzzle
stands for the timed case it was drawn from (its family); the session records the
draw's seed and every puzzle, and a draw that an earlier session timed is refused."""

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from grader.cases.manifest import Case
from grader.core.atomic import write_file
from grader.core.errors import GraderError
from grader.grading.timed_runs import Program
from grader.schemas import validate
from grader.store import LeaderboardSession

DRAW_HINT = (
    "draw fresh puzzles with `testcases draw -o draw.json` (one per timed case, from "
    "the family its generator declares), then `grader leaderboard --puzzles draw.json`"
)


class DrawError(GraderError):
    """A draw that cannot be timed; str() says why."""


@dataclass(frozen=True)
class Draw:
    seed: int
    puzzles: tuple[Case, ...]  # in the draw's order; each a Case on files of its own
    families: tuple[str, ...]  # the timed case each puzzle was drawn from, in that order
    digest: str  # of the puzzles and their expected outputs: which draw this is

    def record(self) -> dict[str, Any]:
        """What the session keeps: enough to draw and check every puzzle again."""
        return {
            "seed": self.seed,
            "digest": self.digest,
            "puzzles": [
                {
                    "id": case.id,
                    "family": family,
                    "input": case.input.read_text(encoding="ascii"),
                    "expected_sha256": hashlib.sha256(case.expected.read_bytes()).hexdigest(),
                }
                for case, family in zip(self.puzzles, self.families)
            ],
        }


def load_draw(path: Path, folder: Path, timed: Sequence[Case]) -> Draw:
    """The draw at `path`, its puzzles written as files under `folder`, for the course's
    timed cases `timed` (one puzzle each, drawn from that case's family)."""
    try:
        document = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise DrawError(f"{path}: cannot read the draw: {error}") from None
    problem = validate(document, "draw")
    if problem:
        raise DrawError(f"{path}: not a draw of `testcases draw`: {problem}")
    by_family = {p["family"]: p for p in document["puzzles"]}
    missing = [case.id for case in timed if case.id not in by_family]
    if missing:
        raise DrawError(f"{path}: no puzzle drawn for the timed case {missing[0]!r}; {DRAW_HINT}")
    chosen = [by_family[case.id] for case in timed]
    digest = hashlib.sha256(
        json.dumps([[p["id"], p["input"], p["expected"]] for p in chosen]).encode()
    ).hexdigest()
    place = Path(folder) / f"draw-{document['seed']}-{digest[:12]}"
    puzzles = tuple(_case(place, puzzle) for puzzle in chosen)
    return Draw(document["seed"], puzzles, tuple(p["family"] for p in chosen), digest)


def _case(place: Path, puzzle: dict[str, Any]) -> Case:
    source, expected = place / f"{puzzle['id']}.txt", place / f"{puzzle['id']}.out"
    for path, text in ((source, puzzle["input"]), (expected, puzzle["expected"])):
        data = text.encode("ascii")
        if not path.is_file() or path.read_bytes() != data:
            write_file(path, data)
    version = hashlib.sha256(source.read_bytes() + b"\0" + expected.read_bytes()).hexdigest()[:16]
    return Case(
        id=puzzle["id"],
        input=source,
        expected=expected,
        visibility="hidden",
        weight=1.0,
        timed=True,
        policy=tuple(puzzle["policy"]),
        tags=("drawn",),
        version=version,
    )


def check_draw_unused(
    earlier: LeaderboardSession | None, programs: Sequence[Program], path: Path
) -> None:
    """A draw an earlier session timed (and may have published figures of) times no
    program that session did not: a new or changed program might know its puzzles
    (DrawError). It may time the same programs again (publishing them anew, say)."""
    if earlier is None:
        return
    seen = {(p.program_id, p.content_hash) for p in earlier.programs if p.outcome != "not timed"}
    new = [p.id for p in programs if (p.id, p.content_hash) not in seen]
    if new:
        raise DrawError(
            f"{path}: these puzzles were timed in leaderboard session {earlier.id} already "
            f"(its figures may be published), and {new[0]} was not timed in it"
            f"{f' (nor {len(new) - 1} more)' if len(new) > 1 else ''}: {DRAW_HINT}"
        )
