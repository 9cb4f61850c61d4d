"""JSON Schemas for the manifest and every JSON file the grader writes, checked by
jsonschema where it is installed, else by grader.schemas.subset (the standard library:
the part of JSON Schema these schemas use), in the same words."""

import json
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from grader.schemas import subset

if TYPE_CHECKING:
    from jsonschema import Draft202012Validator

_HERE = Path(__file__).resolve().parent


@cache
def schema(name: str) -> dict[str, Any]:
    return cast(
        dict[str, Any], json.loads((_HERE / f"{name}.schema.json").read_text(encoding="utf-8"))
    )


def validate(data: Any, name: str) -> str | None:
    """None when `data` fits schema `name`, else one line naming the first problem."""
    found = _errors(data, name)
    if not found:
        return None
    where, message = min(found, key=lambda error: [str(part) for part in error[0]])
    return f"at {'/'.join(str(part) for part in where) or '(top level)'}: {message}"


def _errors(data: Any, name: str) -> list[subset.Error]:
    try:
        from jsonschema import Draft202012Validator
    except ImportError:  # the student kit: Python alone
        return subset.errors(data, schema(name))
    checker = _validator(name, Draft202012Validator)
    return [(list(error.absolute_path), error.message) for error in checker.iter_errors(data)]


@cache
def _validator(name: str, kind: "type[Draft202012Validator]") -> "Draft202012Validator":
    # Not checked against the metaschema here (55 ms of every grading process, for a
    # file that ships with the code): tests/test_schema_subset.py checks every schema.
    return kind(schema(name))
