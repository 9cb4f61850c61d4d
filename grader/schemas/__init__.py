"""JSON Schemas for the manifest and every JSON file the grader writes."""

import json
from functools import cache
from pathlib import Path

from jsonschema import Draft202012Validator

_HERE = Path(__file__).resolve().parent


@cache
def validator(name: str) -> Draft202012Validator:
    schema = json.loads((_HERE / f"{name}.schema.json").read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


def validate(data, name: str) -> str | None:
    """None when `data` fits schema `name`, else one line naming the first problem."""
    errors = sorted(validator(name).iter_errors(data), key=lambda e: list(e.absolute_path))
    if not errors:
        return None
    error = errors[0]
    where = "/".join(str(part) for part in error.absolute_path) or "(top level)"
    return f"at {where}: {error.message}"
