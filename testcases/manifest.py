"""The manifest as data to edit: read, validate, add an entry, write back in
one stable, pretty form (so that a diff shows only what changed)."""

import json
import os
import shutil
import tempfile
from collections.abc import Collection
from pathlib import Path
from typing import Any

from grader.cases.manifest import CaseError, read_manifest
from grader.schemas import validate
from testcases.errors import UsageError

VERSION = 1
# The order keys are written in; it follows the schema.
KEY_ORDER = (
    "id",
    "input",
    "expected",
    "visibility",
    "weight",
    "timed",
    "policy",
    "tags",
    "seed",
    "generator",
    "properties",
    "description",
)


def read(path: Path, missing_ok: bool = False) -> dict[str, Any]:
    """The manifest's data, schema-checked; an absent file is an empty manifest
    when `missing_ok`."""
    path = Path(path)
    if missing_ok and not path.exists():
        return {"version": VERSION, "cases": []}
    try:
        return read_manifest(path)
    except CaseError as error:
        raise UsageError(str(error)) from None


def find(data: dict[str, Any], case_id: str) -> dict[str, Any] | None:
    return next((entry for entry in data["cases"] if entry["id"] == case_id), None)


def dumps(data: dict[str, Any]) -> str:
    """Two-space indent, one key per line, short lists on one line."""
    cases: list[str] = []
    for entry in data["cases"]:
        keys = [k for k in KEY_ORDER if k in entry] + sorted(k for k in entry if k not in KEY_ORDER)
        body = ",\n".join(f"      {json.dumps(k)}: {json.dumps(entry[k])}" for k in keys)
        cases.append("    {\n" + body + "\n    }")
    return (
        '{\n  "version": '
        + json.dumps(data["version"])
        + ',\n  "cases": [\n'
        + ",\n".join(cases)
        + "\n  ]\n}\n"
    )


def write(path: Path, data: dict[str, Any]) -> None:
    """Validate, then replace the file in one step (never half a manifest)."""
    path = Path(path)
    problem = validate(data, "manifest")
    if problem:
        raise UsageError(f"{path}: the new manifest would be invalid: {problem}")
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".manifest-", suffix=".json")
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as out:
            out.write(dumps(data))
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise


def copy_subset(source: Path, target: Path, ids: Collection[str] | None = None) -> Path:
    """A copy of the manifest `source` at `target` holding only the cases `ids` (None:
    every one), each case's files copied to the same place relative to it: a smaller
    case set for a trial run, the original untouched."""
    data = json.loads(source.read_text(encoding="utf-8"))
    data["cases"] = [entry for entry in data["cases"] if ids is None or entry["id"] in ids]
    for entry in data["cases"]:
        for key in ("input", "expected"):
            (target.parent / entry[key]).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(source.parent / entry[key], target.parent / entry[key])
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(data, indent=2), encoding="utf-8")
    return target
