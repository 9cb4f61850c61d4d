"""Verify the shipped cases: a valid manifest, every file present and in the
folder its visibility names, no stray files, and every expected output and
policy list exactly what the reference gives now. Optionally cross-check the
reference against the second engine, reference.dlx."""

from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, cast

from grader.cases.manifest import Case, CaseError, load_cases
from testcases import engine
from testcases.build import reference_result
from testcases.diffs import first_difference

if TYPE_CHECKING:
    from reference.puzzlesolver import Board, Puzzle

CASE_FOLDERS = ("public", "hidden")


def verify(manifest_path: Path, cross_check: bool = False) -> list[str]:
    """Every problem found, one line each; empty when all is well.
    NoReference propagates: without the reference nothing can be verified."""
    ps = engine.solver()
    dlx = engine.second_engine() if cross_check else None
    try:
        cases = load_cases(manifest_path)
    except CaseError as error:
        return [str(error)]
    problems = _layout_problems(Path(manifest_path).parent, cases)
    for case in cases:
        problems += _case_problems(ps, dlx, case)
    return problems


def _layout_problems(root: Path, cases: Sequence[Case]) -> list[str]:
    problems = []
    for case in cases:
        for path in (case.input, case.expected):
            if path.parent.name != case.visibility:
                problems.append(
                    f"case {case.id!r}: {path.relative_to(root)} is not in "
                    f"{case.visibility}/ although the case is {case.visibility}"
                )
    named = {case.input.resolve() for case in cases} | {case.expected.resolve() for case in cases}
    for folder in CASE_FOLDERS:
        for path in sorted((root / folder).glob("*")) if (root / folder).is_dir() else ():
            if path.resolve() not in named:
                problems.append(
                    f"{path.relative_to(root)}: a file no case names "
                    "(remove it or add it with `testcases add`)"
                )
    return problems


def _case_problems(ps: ModuleType, dlx: ModuleType | None, case: Case) -> list[str]:
    name = f"case {case.id!r}"
    try:
        puzzle = ps.read_puzzle(str(case.input))
    except ps.PuzzleError as error:
        return [f"{name}: its input is not a valid puzzle: {error}"]
    result = reference_result(puzzle)
    expected = case.expected.read_bytes()
    problems = []
    difference = first_difference(expected, result.output, f"{case.expected.name}", "the reference")
    if difference:
        problems.append(
            f"{name}: the expected output differs from the reference's at {difference}"
            " (run `testcases rebuild` if the reference is right)"
        )
    if set(case.policy) != set(result.policy):
        problems.append(
            f"{name}: policy is {list(case.policy)} in the manifest, but the "
            f"puzzle calls for {list(result.policy)}"
        )
    if dlx is not None and not difference:
        problems += cross_check(ps, dlx, puzzle, name, expected)
    return problems


def cross_check(
    ps: ModuleType, dlx: ModuleType, puzzle: "Puzzle", name: str, expected: bytes
) -> list[str]:
    """What differs between the reference's expected output and reference.dlx's
    (empty when they agree)."""
    try:
        boards = list(dlx.solve(puzzle))
        drawn = ps.render(puzzle, boards).encode("ascii")
    except Exception as error:  # a broken second engine is a finding, not a crash
        return [f"{name}: reference.dlx failed: {type(error).__name__}: {error}"]
    if drawn == expected:
        return []
    reference = list(ps.solve(puzzle))
    for index, (ours, theirs) in enumerate(zip(reference, boards), start=1):
        if ours != theirs:
            line = first_difference(
                _draw(ps, puzzle, ours), _draw(ps, puzzle, theirs), "the reference's", "dlx's"
            )
            return [
                f"{name}: cross-check: board {index} differs: the reference has "
                f"{_digits(ours)}, dlx has {_digits(theirs)}; its {line}"
            ]
    if len(reference) != len(boards):
        longer, owner = (
            (reference, "the reference") if len(reference) > len(boards) else (boards, "dlx")
        )
        extra = longer[min(len(reference), len(boards))]
        return [
            f"{name}: cross-check: the reference finds {len(reference)} boards, dlx "
            f"{len(boards)}; first board only {owner} has: board "
            f"{min(len(reference), len(boards)) + 1}, {_digits(extra)}"
        ]
    first = first_difference(expected, drawn, "the expected file", "dlx's rendering")
    return [f"{name}: cross-check: same boards but a different rendering: {first}"]


def _digits(board: "Board") -> str:
    return "".join(str(placement.tile) for placement in board)


def _draw(ps: ModuleType, puzzle: "Puzzle", board: "Board") -> bytes:
    """One board as the output draws it (the text after the count line)."""
    return cast(bytes, ps.render(puzzle, [board]).split("found:\n", 1)[1].encode("ascii"))
