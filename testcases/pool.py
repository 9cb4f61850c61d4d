"""The pool: public puzzles with their expected outputs, kept beside the public cases
(pool/manifest.json, pool/public/), from which the grader picks a puzzle a student may
see that their program fails the same way as a hidden case (grader.grading.counterexamples).

It covers what the hidden cases cover (no solution, one, many, symmetric tiles,
duplicates, ties, letters beyond the hand-out's four colours, CR LF line ends, no final
newline, as many solutions as the timed cases), mostly with small outputs, so that a
student can read one whole. Every puzzle is
generated from a recipe and a seed (or written out, for degenerate ones), so the same
command makes the same pool; none may be a hidden case's puzzle.
"""

import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from testcases import build, engine, generate, manifest
from testcases.errors import UsageError
from testcases.puzzletext import format_puzzle


@dataclass(frozen=True)
class Recipe:
    name: str
    solutions: str  # as --solutions takes it
    tags: tuple[str, ...]
    letters: int | None = None
    alphabet: str | None = None
    duplicates: bool = False
    symmetric: bool = False
    ties: str = "forbid"
    crlf: bool = False
    final_newline: bool = True


RECIPES = (
    Recipe("no-solution", "0", ("no-solution",)),
    Recipe("no-solution-3-letters", "0", ("no-solution",), letters=3),
    Recipe("one-solution", "1", ("one-solution",)),
    Recipe("one-solution-3-letters", "1", ("one-solution",), letters=3),
    Recipe("two-solutions", "2", ("two-solutions",)),
    Recipe("several-solutions", "3-9", ("several-solutions",)),
    Recipe("many-solutions", "20-40", ("many-solutions",)),
    Recipe("crlf", "1", ("crlf", "one-solution"), crlf=True),
    Recipe(
        "crlf-no-final-newline",
        "2",
        ("crlf", "no-final-newline", "two-solutions"),
        crlf=True,
        final_newline=False,
    ),
    Recipe("no-final-newline", "3-9", ("no-final-newline",), final_newline=False),
    Recipe("letters", "1-3", ("letters",), alphabet="WLXK"),
    Recipe("letters-26", "1", ("letters", "one-solution"), letters=26),
    Recipe("duplicates", "2-4", ("duplicates",), duplicates=True),
    Recipe("symmetric", "1", ("symmetric", "one-solution"), symmetric=True),
    Recipe(
        "symmetric-duplicates",
        "2-9",
        ("symmetric", "duplicates"),
        duplicates=True,
        symmetric=True,
    ),
    Recipe("ties", "2-20", ("ties",), letters=3, ties="require"),
    Recipe("ties-symmetric", "2-30", ("ties", "symmetric"), symmetric=True, ties="require"),
    Recipe("two-letters", "60-200", ("many-solutions", "ties"), letters=2, ties="allow"),
    # As large as the timed cases (hundreds to thousands of solutions): a program too
    # slow for them is too slow here, and its times here show how its time grows.
    Recipe("large-3-letters", "300-700", ("many-solutions", "large"), letters=3, ties="allow"),
    Recipe("large-2-letters", "1000-2500", ("many-solutions", "large"), letters=2, ties="allow"),
)
# Degenerate puzzles no generator makes: nine copies of one tile that fits nothing.
WRITTEN = {
    "identical-tiles": (("R1", "R1", "R1", "R1"),) * 9,
    "identical-symmetric-tiles": (("Y0", "G0", "Y0", "G0"),) * 9,
}
WRITTEN_TAGS = ("no-solution", "duplicates", "symmetric", "degenerate")


def pool_manifest(cases_manifest: Path) -> Path:
    """Where the pool of a case set lives: beside its public cases."""
    return Path(cases_manifest).parent / "pool" / "manifest.json"


def make_pool(cases_manifest: Path, per_recipe: int = 2, first_seed: int = 1000) -> list[str]:
    """(Re)write the pool of the case set at `cases_manifest`; one line per puzzle."""
    target = pool_manifest(cases_manifest)
    hidden = _hidden_puzzles(cases_manifest)
    folder = target.parent
    with tempfile.TemporaryDirectory(prefix=".pool-", dir=folder.parent) as tmp:
        fresh = Path(tmp) / "pool" / "manifest.json"
        lines = []
        seed = first_seed
        for recipe in RECIPES:
            for number in range(1, per_recipe + 1):
                seed += 1
                tiles = _generated(recipe, seed)
                description = (
                    f"Pool puzzle. (testcases generate --solutions {recipe.solutions} "
                    f"--seed {seed}{_flags(recipe)})"
                )
                puzzle = format_puzzle(tiles, recipe.crlf, recipe.final_newline)
                lines.append(
                    _add(
                        fresh,
                        f"{recipe.name}-{number}",
                        puzzle,
                        recipe.tags,
                        hidden,
                        seed,
                        description,
                    )
                )
        for name, tiles in WRITTEN.items():
            lines.append(
                _add(
                    fresh,
                    name,
                    format_puzzle(tiles),
                    WRITTEN_TAGS,
                    hidden,
                    None,
                    "Nine copies of one tile that fits nothing.",
                )
            )
        shutil.rmtree(folder, ignore_errors=True)
        shutil.move(str(fresh.parent), str(folder))
    return lines + [f"pool: {len(lines)} puzzles in {target}"]


def _generated(recipe: Recipe, seed: int) -> tuple[generate.Tile, ...]:
    options = generate.Options(
        target=generate.parse_target(recipe.solutions),
        letters=generate.choose_letters(recipe.letters, recipe.alphabet),
        duplicates=recipe.duplicates,
        symmetric=recipe.symmetric,
        ties=recipe.ties,
    )
    return generate.generate(options, seed, engine.solver()).tiles


def _flags(recipe: Recipe) -> str:
    flags = []
    if recipe.letters is not None:
        flags.append(f"--letters {recipe.letters}")
    if recipe.alphabet is not None:
        flags.append(f"--alphabet {recipe.alphabet}")
    flags += [
        flag
        for flag, on in (
            ("--duplicates", recipe.duplicates),
            ("--symmetric", recipe.symmetric),
            ("--crlf", recipe.crlf),
            ("--no-final-newline", not recipe.final_newline),
        )
        if on
    ]
    if recipe.ties != "forbid":
        flags.append(f"--ties {recipe.ties}")
    return "".join(" " + flag for flag in flags)


def _add(
    target: Path,
    case_id: str,
    puzzle: bytes,
    tags: tuple[str, ...],
    hidden: set[tuple[str, ...]],
    seed: int | None,
    description: str,
) -> str:
    if _normal(puzzle) in hidden:
        raise UsageError(f"pool puzzle {case_id} is a hidden case's puzzle: change the seeds")
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / f"{case_id}.txt"
        source.write_bytes(puzzle)
        entry = build.NewCase(case_id, source, "public", 1, False, tags, seed, description)
        return build.add(target, entry)


def _normal(puzzle: bytes) -> tuple[str, ...]:
    return tuple(line.strip() for line in puzzle.decode("ascii").splitlines() if line.strip())


def _hidden_puzzles(cases_manifest: Path) -> set[tuple[str, ...]]:
    data = manifest.read(cases_manifest)
    root = Path(cases_manifest).parent
    return {
        _normal((root / entry["input"]).read_bytes())
        for entry in data["cases"]
        if entry["visibility"] == "hidden"
    }
