"""Adding a case and rebuilding expected outputs: the reference decides the
expected output and the policy flags."""

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from grader.cases.input_properties import properties_of
from grader.schemas import validate
from testcases import engine, manifest, policy
from testcases.diffs import first_difference
from testcases.errors import Failure, UsageError

if TYPE_CHECKING:
    from reference.puzzlesolver import Puzzle

BOARD_BYTES = 378  # one drawn board and the empty line before it
MAX_OUTPUT_BYTES = 4 << 20  # graded outputs live in git: a few MB at most
_NAME = re.compile(r"^[a-z0-9][a-z0-9-]*$")


@dataclass(frozen=True)
class Expected:
    output: bytes
    solutions: int
    policy: tuple[str, ...]


def reference_result(puzzle: "Puzzle", max_bytes: int | None = None, label: str = "") -> Expected:
    """What the reference prints for `puzzle`, and the rules that output rests on.
    With max_bytes, refuse (before drawing anything) an output above it."""
    ps = engine.solver()
    if max_bytes is not None:
        solutions = ps.count(puzzle)
        if solutions * BOARD_BYTES > max_bytes:
            raise UsageError(
                f"{label}: {solutions} solutions, about {solutions * BOARD_BYTES / 1e6:.1f} MB "
                f"of expected output, over the {max_bytes / 1e6:.1f} MB limit (--max-bytes)"
            )
    output, solutions = engine.expected_output(puzzle)
    flags = policy.detect(puzzle.tiles, solutions, ps.solve(puzzle))
    return Expected(output, solutions, flags)


def parse_tags(text: str) -> list[str]:
    tags: list[str] = []
    for tag in (t.strip() for t in text.split(",")):
        if not tag:
            continue
        if not _NAME.match(tag):
            raise UsageError(f"--tags: {tag!r} is not a tag (lower-case letters, digits, '-')")
        if tag not in tags:
            tags.append(tag)
    return tags


@dataclass(frozen=True)
class NewCase:
    id: str
    source: Path
    visibility: str
    weight: float = 1
    timed: bool = False
    tags: Sequence[str] = ()
    seed: int | None = None
    description: str | None = None


def add(manifest_path: Path, case: NewCase, max_bytes: int = MAX_OUTPUT_BYTES) -> str:
    """Copy the puzzle in, write its expected output, append the entry.
    Returns a one-line summary."""
    if not _NAME.match(case.id) or len(case.id) > 64:
        raise UsageError(
            f"case id {case.id!r}: use lower-case letters, digits and '-' "
            "(at most 64, not starting with '-')"
        )
    data = manifest.read(manifest_path, missing_ok=True)
    if manifest.find(data, case.id):
        raise UsageError(f"case id {case.id!r} is already in {manifest_path}")
    root = Path(manifest_path).parent
    input_rel, expected_rel = f"{case.visibility}/{case.id}.txt", f"{case.visibility}/{case.id}.out"
    source_bytes = _read_source(case.source)
    for rel in (input_rel, expected_rel):
        target = root / rel
        if target.exists() and not (rel == input_rel and target.resolve() == case.source.resolve()):
            raise UsageError(
                f"{target} already exists (left from another case?); remove it or pick another id"
            )
    puzzle = engine.read_puzzle(case.source)
    result = reference_result(puzzle, max_bytes, str(case.source))
    entry = {
        "id": case.id,
        "input": input_rel,
        "expected": expected_rel,
        "visibility": case.visibility,
        "weight": int(case.weight) if float(case.weight).is_integer() else case.weight,
        "timed": case.timed,
        "policy": list(result.policy),
        "tags": list(case.tags),
        "properties": properties_of(source_bytes, result.output).as_json(),
    }
    if case.seed is not None:
        entry["seed"] = case.seed
    if case.description:
        entry["description"] = case.description
    data["cases"].append(entry)
    problem = validate(data, "manifest")
    if problem:
        raise UsageError(f"the new entry would make the manifest invalid: {problem}")
    (root / case.visibility).mkdir(parents=True, exist_ok=True)
    (root / input_rel).write_bytes(source_bytes)
    (root / expected_rel).write_bytes(result.output)
    manifest.write(manifest_path, data)
    return (
        f"added {case.id!r} ({case.visibility}): {result.solutions} solution(s), "
        f"{len(result.output)} bytes of expected output, policy: "
        f"{', '.join(result.policy) or 'none'}"
    )


def _read_source(path: Path) -> bytes:
    try:
        return Path(path).read_bytes()
    except OSError as error:
        raise UsageError(f"{path}: cannot read the puzzle: {error.strerror}") from None


def rebuild(manifest_path: Path, max_bytes: int = MAX_OUTPUT_BYTES) -> list[str]:
    """Rewrite every expected output and policy list from the reference.
    Returns one line per change and a summary line last."""
    data = manifest.read(manifest_path)
    root = Path(manifest_path).parent
    report: list[str] = []
    outputs_changed = flags_changed = described = 0
    for entry in data["cases"]:
        source = root / entry["input"]
        if not source.is_file():
            raise Failure(f"case {entry['id']!r}: its input {source} is missing")
        puzzle = engine.read_puzzle(source)
        result = reference_result(puzzle, max_bytes, f"case {entry['id']!r}")
        target = root / entry["expected"]
        old = target.read_bytes() if target.is_file() else None
        if old != result.output:
            outputs_changed += 1
            if old is None:
                report.append(f"{entry['id']}: expected output written (it was missing)")
            else:
                where = first_difference(old, result.output, "the old file", "the reference")
                report.append(f"{entry['id']}: expected output changed: {where}")
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(result.output)
        if list(result.policy) != entry["policy"]:
            flags_changed += 1
            report.append(f"{entry['id']}: policy {entry['policy']} -> {list(result.policy)}")
            entry["policy"] = list(result.policy)
        properties = properties_of(source.read_bytes(), result.output).as_json()
        if entry.get("properties") != properties:
            described += 1
            entry["properties"] = properties
    if flags_changed or described:
        manifest.write(manifest_path, data)
    report.append(
        f"rebuild: {len(data['cases'])} cases, {outputs_changed} expected output(s) "
        f"changed, {flags_changed} policy list(s) changed, {described} case(s) given "
        "their files' properties"
    )
    return report
