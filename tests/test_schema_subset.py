"""grader.schemas.subset, the standard library's check of the grader's own schemas (the
student kit has no jsonschema): it accepts what jsonschema accepts and refuses what it
refuses, in the same words, on real documents and on each kind of mistake."""

import copy
import json

import pytest
from jsonschema import Draft202012Validator

from grader.schemas import schema, subset
from tests.helpers import ROOT

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
    assert subset.errors(document, schema("manifest")) == []
    assert not list(Draft202012Validator(schema("manifest")).iter_errors(document))


@pytest.mark.parametrize("name", MISTAKES)
def test_each_mistake_is_refused_as_jsonschema_refuses_it(name):
    document = broken(MISTAKES[name])
    ours = subset.errors(document, schema("manifest"))
    theirs = [
        (list(e.absolute_path), e.message)
        for e in Draft202012Validator(schema("manifest")).iter_errors(document)
    ]
    assert ours and theirs
    assert sorted(ours, key=str) == sorted(theirs, key=str)
