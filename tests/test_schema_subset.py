"""grader.schemas.subset, the standard library's check of the grader's own schemas (the
student kit has no jsonschema): it accepts what jsonschema accepts and refuses what it
refuses, in the same words, on real documents and on each kind of mistake."""

import copy
import json

import pytest
from jsonschema import Draft202012Validator

from grader.course.config import tomllib
from grader.schemas import schema, subset
from tests import helpers
from tests.helpers import (
    REAL_MANIFEST,
    ROOT,
    assert_valid,
    draw_of,
    judgements,
    leaderboard_document,
)

pytestmark = pytest.mark.fast

MANIFEST = json.loads((ROOT / "testcases" / "manifest.json").read_text())
POOL = json.loads((ROOT / "testcases" / "pool" / "manifest.json").read_text())


SHIPPED = sorted(
    [
        *(ROOT / "grader" / "schemas").glob("*.schema.json"),
        ROOT / "testcases" / "expected.schema.json",
    ]
)


@pytest.mark.parametrize("path", SHIPPED, ids=lambda path: path.name)
def test_every_shipped_schema_is_a_valid_draft_2020_12_schema(path):
    """The grader validates against them without checking them first (it costs every
    grading process 55 ms a schema): here, once."""
    Draft202012Validator.check_schema(json.loads(path.read_text(encoding="utf-8")))


def keywords(node, found):
    """Every keyword of a schema (the names under `properties` and `$defs` are not)."""
    if isinstance(node, dict):
        for key, value in node.items():
            found.add(key)
            if key in ("properties", "$defs"):
                for child in value.values():
                    keywords(child, found)
            elif key not in ("enum", "const", "required"):
                keywords(value, found)
    elif isinstance(node, list):
        for child in node:
            keywords(child, found)
    return found


@pytest.mark.parametrize("path", SHIPPED, ids=lambda path: path.name)
def test_the_grader_checks_each_schema_with_keywords_the_subset_knows(path):
    """The grader and testcases check every document with grader.schemas.subset alone:
    a keyword it does not read would be passed over, and a mistake let through."""
    used = keywords(json.loads(path.read_text(encoding="utf-8")), set())
    assert used - subset.KEYWORDS - subset.ANNOTATIONS == set()


def test_a_real_draw_and_manifest_and_their_near_misses_are_judged_as_jsonschema_judges(
    tmp_path,
):
    assert_valid(json.loads(draw_of(REAL_MANIFEST, tmp_path / "draw.json").read_text()), "draw")
    assert_valid(MANIFEST, "manifest")
    assert_valid(leaderboard_document(), "leaderboard")


@pytest.mark.parametrize(
    "path",
    sorted((ROOT / "submissions").glob("*/expected.toml")),
    ids=lambda path: path.parent.name,
)
def test_each_examples_expected_verdicts_and_their_near_misses_are_judged_as_jsonschema_judges(
    path,
):
    declared = tomllib.loads(path.read_text(encoding="utf-8"))
    assert_valid(declared, json.loads((ROOT / "testcases" / "expected.schema.json").read_text()))


def test_a_near_miss_the_subset_let_through_is_caught(monkeypatch):
    """The check of the checker can fail: a subset blind to `required` differs."""
    real = subset._check

    def blind(data, schema, root, path):
        if isinstance(schema, dict) and "required" in schema:
            schema = {key: value for key, value in schema.items() if key != "required"}
        return real(data, schema, root, path)

    monkeypatch.setattr(subset, "_check", blind)
    helpers._judged_alike.cache_clear()  # judged once per process: judge again, blind
    try:
        with pytest.raises(AssertionError):
            assert_valid(MANIFEST, "manifest")
    finally:
        helpers._judged_alike.cache_clear()


def broken(change):
    document = copy.deepcopy(MANIFEST)
    change(document)
    return document


def first_case(document):
    return document["cases"][0]


MISTAKES = {
    "no cases": lambda d: d.update(cases=[]),
    "a required key missing": lambda d: first_case(d).pop("weight"),
    "an unknown key": lambda d: first_case(d).update(colour="red"),
    "a wrong type": lambda d: first_case(d).update(timed="yes"),
    "a bad id": lambda d: first_case(d).update(id="Not OK"),
    "an unknown policy": lambda d: first_case(d).update(policy=["ties"]),
    "a zero weight": lambda d: first_case(d).update(weight=0),
    "a twice-listed tag": lambda d: first_case(d).update(tags=["a", "a"]),
    "a wrong version": lambda d: d.update(version=2),
    "a bad property": lambda d: first_case(d)["properties"].update(line_ends="LFCR"),
    "a too long id": lambda d: first_case(d).update(id="a" * 65),
    "a boolean for a number": lambda d: first_case(d).update(weight=True),
}


@pytest.mark.parametrize("document", [MANIFEST, POOL], ids=["cases", "pool"])
def test_real_manifests_pass_both(document):
    assert judgements(document, schema("manifest")) == ([], [])


@pytest.mark.parametrize("name", MISTAKES)
def test_each_mistake_is_refused_as_jsonschema_refuses_it(name):
    document = broken(MISTAKES[name])
    ours, theirs = judgements(document, schema("manifest"))
    assert ours and theirs
    assert ours == theirs
