"""The part of JSON Schema (draft 2020-12) the grader's own schemas use, checked with
the standard library alone, wherever the grader runs (the student kit on a laptop that
has only Python too), in jsonschema's words. Keywords: KEYWORDS below (format is a
note only, as jsonschema by default; $ref only to #/$defs)."""

import json
import re
from collections.abc import Iterator
from typing import Any

# Every keyword this module reads, and the annotations it may pass over: a schema using
# any other is beyond the subset (tests/test_schema_subset.py checks the shipped ones).
KEYWORDS = frozenset(
    "type enum const pattern minLength maxLength minimum maximum exclusiveMinimum "
    "exclusiveMaximum format properties required additionalProperties items minItems "
    "uniqueItems minProperties propertyNames $ref anyOf oneOf if then else".split()
)
ANNOTATIONS = frozenset({"$schema", "$id", "$defs", "title", "description"})

Error = tuple[list[str | int], str]  # (where, as the path of keys and indexes; the message)

_TYPES = {
    "object": dict,
    "array": list,
    "string": str,
    "boolean": bool,
    "null": type(None),
}


def errors(data: Any, schema: dict[str, Any]) -> list[Error]:
    """Every problem of `data` against `schema`, each (its path, a message)."""
    return list(_check(data, schema, schema, []))


def _check(data: Any, schema: Any, root: dict[str, Any], path: list[str | int]) -> Iterator[Error]:
    if schema is True or not isinstance(schema, dict):
        return
    if "$ref" in schema:
        yield from _check(data, _resolve(schema["$ref"], root), root, path)
    if "type" in schema and not _is_type(data, schema["type"]):
        yield path, f"{_repr(data)} is not of type {_types(schema['type'])}"
        return
    if "const" in schema and not _equal(data, schema["const"]):
        yield path, f"{_repr(schema['const'])} was expected"
    if "enum" in schema and not any(_equal(data, option) for option in schema["enum"]):
        yield path, f"{_repr(data)} is not one of {_repr(schema['enum'])}"
    yield from _combined(data, schema, root, path)
    if isinstance(data, str):
        yield from _string(data, schema, path)
    elif isinstance(data, (int, float)) and not isinstance(data, bool):
        yield from _number(data, schema, path)
    elif isinstance(data, list):
        yield from _array(data, schema, root, path)
    elif isinstance(data, dict):
        yield from _object(data, schema, root, path)


def _combined(
    data: Any, schema: dict[str, Any], root: dict[str, Any], path: list[str | int]
) -> Iterator[Error]:
    if "anyOf" in schema and not any(
        not list(_check(data, s, root, path)) for s in schema["anyOf"]
    ):
        yield path, f"{_repr(data)} is not valid under any of the given schemas"
    if "oneOf" in schema:
        fits = sum(not list(_check(data, s, root, path)) for s in schema["oneOf"])
        if fits == 0:
            yield path, f"{_repr(data)} is not valid under any of the given schemas"
        elif fits > 1:
            yield path, f"{_repr(data)} is valid under each of more than one given schema"
    if "if" in schema:
        branch = "then" if not list(_check(data, schema["if"], root, path)) else "else"
        if branch in schema:
            yield from _check(data, schema[branch], root, path)


def _string(data: str, schema: dict[str, Any], path: list[str | int]) -> Iterator[Error]:
    if "minLength" in schema and len(data) < schema["minLength"]:
        yield path, f"{_repr(data)} is too short"
    if "maxLength" in schema and len(data) > schema["maxLength"]:
        yield path, f"{_repr(data)} is too long"
    if "pattern" in schema and not re.search(schema["pattern"], data):
        yield path, f"{_repr(data)} does not match {_repr(schema['pattern'])}"


def _number(data: float, schema: dict[str, Any], path: list[str | int]) -> Iterator[Error]:
    if "minimum" in schema and data < schema["minimum"]:
        yield path, f"{_repr(data)} is less than the minimum of {_repr(schema['minimum'])}"
    if "maximum" in schema and data > schema["maximum"]:
        yield path, f"{_repr(data)} is greater than the maximum of {_repr(schema['maximum'])}"
    if "exclusiveMinimum" in schema and data <= schema["exclusiveMinimum"]:
        bound = _repr(schema["exclusiveMinimum"])
        yield path, f"{_repr(data)} is less than or equal to the minimum of {bound}"
    if "exclusiveMaximum" in schema and data >= schema["exclusiveMaximum"]:
        bound = _repr(schema["exclusiveMaximum"])
        yield path, f"{_repr(data)} is greater than or equal to the maximum of {bound}"


def _array(
    data: list[Any], schema: dict[str, Any], root: dict[str, Any], path: list[str | int]
) -> Iterator[Error]:
    if "minItems" in schema and len(data) < schema["minItems"]:
        yield (
            path,
            f"{_repr(data)} should be non-empty"
            if schema["minItems"] == 1
            else f"{_repr(data)} is too short",
        )
    if schema.get("uniqueItems") and any(
        _equal(a, b) for i, a in enumerate(data) for b in data[i + 1 :]
    ):
        yield path, f"{_repr(data)} has non-unique elements"
    if "items" in schema:
        for index, item in enumerate(data):
            yield from _check(item, schema["items"], root, [*path, index])


def _object(
    data: dict[str, Any], schema: dict[str, Any], root: dict[str, Any], path: list[str | int]
) -> Iterator[Error]:
    if "minProperties" in schema and len(data) < schema["minProperties"]:
        few = (
            "should be non-empty"
            if schema["minProperties"] == 1
            else "does not have enough properties"
        )
        yield path, f"{_repr(data)} {few}"
    if "propertyNames" in schema:
        for name in data:  # a name is checked where its object is: the path stays
            yield from _check(name, schema["propertyNames"], root, path)
    for name in schema.get("required", ()):
        if name not in data:
            yield path, f"{_repr(name)} is a required property"
    properties = schema.get("properties", {})
    for name, value in data.items():
        if name in properties:
            yield from _check(value, properties[name], root, [*path, name])
    extra = schema.get("additionalProperties", True)
    unexpected = [name for name in data if name not in properties]
    if extra is False and unexpected:
        listed = ", ".join(_repr(name) for name in unexpected)
        verb = "was" if len(unexpected) == 1 else "were"
        yield path, f"Additional properties are not allowed ({listed} {verb} unexpected)"
    elif isinstance(extra, dict):
        for name in unexpected:
            yield from _check(data[name], extra, root, [*path, name])


def _resolve(ref: str, root: dict[str, Any]) -> Any:
    if not ref.startswith("#/"):
        raise ValueError(f"a $ref outside the schema: {ref}")
    found: Any = root
    for part in ref[2:].split("/"):
        found = found[part]
    return found


def _is_type(data: Any, wanted: str | list[str]) -> bool:
    for name in [wanted] if isinstance(wanted, str) else wanted:
        if name == "integer":
            if isinstance(data, int) and not isinstance(data, bool):
                return True
            if isinstance(data, float) and data.is_integer():
                return True
        elif name == "number":
            if isinstance(data, (int, float)) and not isinstance(data, bool):
                return True
        elif isinstance(data, _TYPES[name]):
            return True
    return False


def _types(wanted: str | list[str]) -> str:
    return ", ".join(_repr(name) for name in ([wanted] if isinstance(wanted, str) else wanted))


def _equal(a: Any, b: Any) -> bool:
    """JSON equality: 1 and true are not equal, 1 and 1.0 are."""
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True) or (
        type(a) is not bool and type(b) is not bool and a == b and not isinstance(a, (dict, list))
    )


def _repr(value: Any) -> str:
    """A value as jsonschema's messages write it (Python's repr)."""
    return repr(value)
