"""The test-case manifest: load, validate, and describe each case."""

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from grader import PACKAGE
from grader.cases.input_properties import InputProperties, from_json, properties_of
from grader.cases.puzzle import TILE_COUNT, parse_output
from grader.core.errors import GraderError
from grader.schemas import validate

POLICY_RULES = {
    "symmetric-tiles": (
        "the symmetric-tile rule: placements of a rotationally symmetric tile that "
        "draw identically are ONE solution, printed once"
    ),
    "tie-order": (
        "the tie rule: boards with the same 9-digit string are ordered by their "
        "drawn text, compared as strings"
    ),
}


class CaseError(GraderError):
    """The manifest or a case file is missing or broken; str() names the file."""


@dataclass(frozen=True)
class Case:
    id: str
    input: Path
    expected: Path
    visibility: str  # "public" or "hidden"
    weight: float
    timed: bool
    policy: tuple[str, ...]  # rules the expected output depends on
    tags: tuple[str, ...]
    version: str  # changes whenever the input or the expected output changes
    properties: InputProperties | None = None  # what the puzzle file is like (its files')

    @property
    def public(self) -> bool:
        return self.visibility == "public"

    @property
    def policy_dependent(self) -> bool:
        return bool(self.policy)


def default_manifest() -> Path:
    return PACKAGE.parent / "testcases" / "manifest.json"


def read_manifest(path: Path) -> dict[str, Any]:
    """The manifest's data, checked against its schema (CaseError otherwise)."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as error:
        raise CaseError(f"{path}: cannot read the manifest: {error.strerror}") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise CaseError(f"{path}: not valid JSON: {error}") from None
    problem = validate(data, "manifest")
    if problem:
        raise CaseError(f"{path}: {problem}")
    return cast(dict[str, Any], data)  # an object: the schema says so


def load_cases(manifest: Path | None = None, *, public_only: bool = False) -> list[Case]:
    """Read and validate the manifest and check every file it names exists.

    Everything is checked before anything is graded: a broken case set is a
    CaseError naming the file, never a wrong grade.
    """
    manifest = Path(manifest or default_manifest())
    data = read_manifest(manifest)
    cases, seen = [], set()
    for entry in data["cases"]:
        if entry["id"] in seen:
            raise CaseError(f"{manifest}: case id {entry['id']!r} appears twice")
        seen.add(entry["id"])
        if public_only and entry["visibility"] != "public":
            continue
        cases.append(_case(manifest.parent, entry))
    return cases


def _case(root: Path, entry: dict[str, Any]) -> Case:
    digest = hashlib.sha256()
    paths, contents = [], []
    for key in ("input", "expected"):
        path = root / entry[key]
        try:
            data = path.read_bytes()
        except OSError as error:
            raise CaseError(
                f"{path}: case {entry['id']!r}: cannot read its {key} file: {error.strerror}"
            ) from None
        digest.update(data)
        paths.append(path)
        contents.append(data)
    problem = _output_problem(data)
    if problem:
        raise CaseError(
            f"{paths[1]}: case {entry['id']!r}: not a valid expected output "
            f"({problem}); rebuild it from the reference"
        )
    properties = properties_of(contents[0], contents[1])
    if "properties" in entry and from_json(entry["properties"]) != properties:
        raise CaseError(
            f"{root / 'manifest.json'}: case {entry['id']!r}: its properties are not what its "
            "files are like (edited by hand?): run `testcases rebuild`"
        )
    return Case(
        id=entry["id"],
        input=paths[0],
        expected=paths[1],
        visibility=entry["visibility"],
        weight=float(entry["weight"]),
        timed=entry["timed"],
        policy=tuple(entry["policy"]),
        tags=tuple(entry["tags"]),
        version=digest.hexdigest()[:16],
        properties=properties,
    )


def _output_problem(expected: bytes) -> str | None:
    """Why `expected` cannot be a solver's whole output (its shape only: `testcases
    verify` checks it against the reference), or None. A damaged file (empty, cut
    short, overwritten) would otherwise fail every submission silently."""
    try:
        text = expected.decode("utf-8")
    except UnicodeDecodeError as error:
        return f"not UTF-8 text at byte {error.start}"
    out = parse_output(text)
    if out.header_line != 1:
        return 'it does not start with "Input tiles:"'
    if len(out.listing) != TILE_COUNT:
        return f"it lists {len(out.listing)} tiles, not {TILE_COUNT}"
    if out.count is None:
        return "it has no count line"
    if out.unreadable or out.stray:
        line = (out.unreadable or out.stray)[0][0]
        return f"line {line} is not part of a board"
    if out.count != len(out.boards):
        return f"its count line says {out.count}, but it shows {len(out.boards)} boards"
    return None
