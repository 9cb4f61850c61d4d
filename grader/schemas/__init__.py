"""JSON Schemas for the manifest and every JSON file the grader writes, checked by
grader.schemas.subset: the part of JSON Schema these schemas use, in the standard library.

One checker everywhere (the grader, the student kit on Python alone, Gradescope's
container): the same document gets the same words wherever it is checked, and no
grading process pays for importing jsonschema (70 ms of every one). The tests hold the
subset to jsonschema's verdicts and words on every document they check
(tests/helpers.py: assert_valid), and every shipped schema to the metaschema."""

import json
from functools import cache
from pathlib import Path
from typing import Any, cast

from grader.schemas import subset

_HERE = Path(__file__).resolve().parent


@cache
def schema(name: str) -> dict[str, Any]:
    return cast(
        dict[str, Any], json.loads((_HERE / f"{name}.schema.json").read_text(encoding="utf-8"))
    )


def validate(data: Any, name: str) -> str | None:
    """None when `data` fits schema `name`, else one line naming the first problem."""
    return problem(data, schema(name))


def problem(data: Any, against: dict[str, Any]) -> str | None:
    """None when `data` fits the schema `against`, else one line naming the first problem."""
    found = subset.errors(data, against)
    if not found:
        return None
    where, message = min(found, key=lambda error: [str(part) for part in error[0]])
    return f"at {'/'.join(str(part) for part in where) or '(top level)'}: {message}"
