"""The reference solver, imported only when a command needs it, and the
expected output it defines."""

import importlib
import io
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, cast

from testcases.errors import GraderError, UsageError

if TYPE_CHECKING:
    from reference.puzzlesolver import Puzzle

FOR_INSTRUCTORS = (
    "this command is for instructors: it needs the reference solver "
    "(reference/puzzlesolver.py), which the student kit does not include"
)


class NoReference(GraderError):
    """`reference` (or the module asked for) is not installed; str() says so."""


def _import(name: str) -> ModuleType:
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as error:
        # Only a missing `reference` itself means "student kit"; a missing
        # import *inside* the solver is a bug that should show as one.
        if error.name in ("reference", name):
            raise NoReference(FOR_INSTRUCTORS) from None
        raise


def solver() -> ModuleType:
    """reference.puzzlesolver, or NoReference."""
    return _import("reference.puzzlesolver")


def second_engine() -> ModuleType:
    """reference.dlx, the independent engine for --cross-check, or NoReference."""
    try:
        return _import("reference.dlx")
    except NoReference:
        solver()  # no reference at all: say that, not "no dlx"
        raise NoReference(
            "verify --cross-check: the second engine reference/dlx.py does not exist yet; "
            "run verify without --cross-check"
        ) from None


def read_puzzle(path: str | Path) -> "Puzzle":
    """The reference's parse of a puzzle file; a bad file is a UsageError."""
    ps = solver()
    try:
        return cast("Puzzle", ps.read_puzzle(str(path)))  # ps: a module, untyped
    except ps.PuzzleError as error:
        raise UsageError(str(error)) from None


def expected_output(puzzle: "Puzzle") -> tuple[bytes, int]:
    """(the bytes the reference prints for `puzzle`, its number of solutions)."""
    buffer = io.BytesIO()
    solutions = solver().write_output(puzzle, buffer)
    return buffer.getvalue(), solutions
