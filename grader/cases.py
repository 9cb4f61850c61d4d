"""The test-case manifest: load, validate, and describe each case."""

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import List, Tuple

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


class CaseError(Exception):
    """The manifest or a case file is missing or broken; str() names the file."""


@dataclass(frozen=True)
class Case:
    id: str
    input: Path
    expected: Path
    visibility: str  # "public" or "hidden"
    weight: float
    timed: bool
    policy: Tuple[str, ...]  # rules the expected output depends on
    tags: Tuple[str, ...]
    version: str  # changes whenever the input or the expected output changes

    @property
    def public(self) -> bool:
        return self.visibility == "public"

    @property
    def policy_dependent(self) -> bool:
        return bool(self.policy)


def default_manifest() -> Path:
    return Path(__file__).resolve().parent.parent / "testcases" / "manifest.json"


def load_cases(manifest: Path = None, *, public_only: bool = False) -> List[Case]:
    """Read and validate the manifest and check every file it names exists.

    Everything is checked before anything is graded: a broken case set is a
    CaseError naming the file, never a wrong grade.
    """
    manifest = Path(manifest or default_manifest())
    try:
        data = json.loads(manifest.read_text(encoding="utf-8"))
    except OSError as error:
        raise CaseError(f"{manifest}: cannot read the manifest: {error.strerror}") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise CaseError(f"{manifest}: not valid JSON: {error}") from None
    problem = validate(data, "manifest")
    if problem:
        raise CaseError(f"{manifest}: {problem}")
    cases, seen = [], set()
    for entry in data["cases"]:
        if entry["id"] in seen:
            raise CaseError(f"{manifest}: case id {entry['id']!r} appears twice")
        seen.add(entry["id"])
        if public_only and entry["visibility"] != "public":
            continue
        cases.append(_case(manifest.parent, entry))
    return cases


def _case(root: Path, entry: dict) -> Case:
    digest = hashlib.sha256()
    paths = []
    for key in ("input", "expected"):
        path = root / entry[key]
        try:
            digest.update(path.read_bytes())
        except OSError as error:
            raise CaseError(f"{path}: case {entry['id']!r}: cannot read its {key} file: "
                            f"{error.strerror}") from None
        paths.append(path)
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
    )
