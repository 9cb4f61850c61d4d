"""Every list of verdicts outside grader/core/verdicts.py's table is pinned to it: each
schema enum that lists verdicts lists them all (an instructor's decision all but IE,
which is the grader's failure and never decided), and every verdict has its words and
its badge for people. A new verdict that one list forgets fails here, not in a
student's export."""

import json
from pathlib import Path

import pytest

from grader.core import verdicts
from grader.core.model import Verdict
from grader.results.html_page import render

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


def test_every_verdict_has_its_words_and_its_badge():
    assert set(verdicts.NAMES) == ALL and all(verdicts.NAMES.values())
    style = render("feedback.css")
    for code, colour in verdicts.COLOURS.items():
        assert f".v-{code} {{ background: {colour}; }}" in style, code


def test_the_sets_the_grading_acts_on_follow_from_the_rows():
    # What each set means, from the facts of a run, not a list written again.
    assert verdicts.FINISHED == {Verdict.AC, Verdict.WA, Verdict.PE}
    assert verdicts.WRONG_OUTPUT == {Verdict.WA, Verdict.PE}
    assert verdicts.LIMIT == {Verdict.TLE, Verdict.MLE, Verdict.OLE}
    assert verdicts.RUN_FAILURE == ALL - {"AC", "CE", "IE"}
    assert verdicts.PROVABLE == verdicts.RUN_FAILURE - {"TLE", "MLE"}
