"""Every list of verdicts outside grader/model.py's Verdict is pinned to it: each
schema enum that lists verdicts lists them all (an instructor's decision all but IE,
which is the grader's failure and never decided), and every verdict has its words for
people. A new verdict that one list forgets fails here, not in a student's export."""

import json
from pathlib import Path

import pytest

from grader.exports.common import VERDICT_NAMES
from grader.model import Verdict

pytestmark = pytest.mark.fast

SCHEMAS = Path(__file__).resolve().parent.parent / "grader" / "schemas"
ALL = {v.value for v in Verdict}


def verdict_enums(node, path=""):
    """(where, values) of every enum in a schema that holds a verdict."""
    if isinstance(node, dict):
        enum = node.get("enum")
        if isinstance(enum, list) and "AC" in enum:
            yield path, {value for value in enum if value is not None}
        for key, value in node.items():
            yield from verdict_enums(value, f"{path}/{key}")
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from verdict_enums(value, f"{path}/{index}")


def test_every_schema_enum_of_verdicts_is_the_verdict_table():
    found = []
    for schema in sorted(SCHEMAS.glob("*.schema.json")):
        for where, values in verdict_enums(json.loads(schema.read_text(encoding="utf-8"))):
            found.append(where)
            decided = where.endswith("/overrides/items/properties/verdict")  # the instructor's
            expected = ALL - {"IE"} if decided else ALL
            assert values == expected, f"{schema.name}{where}: {sorted(values ^ expected)}"
    assert len(found) >= 4


def test_every_verdict_has_its_words():
    assert set(VERDICT_NAMES) == ALL
