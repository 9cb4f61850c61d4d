"""What a puzzle file is like (grader.cases.input_properties), and its properties in words."""

import pytest

from grader.cases.input_properties import describe, from_json, properties_of
from grader.cases.manifest import load_cases
from tests.helpers import ROOT, SAMPLE_EXPECTED, SAMPLE_TEXT

pytestmark = pytest.mark.fast

SAMPLE = SAMPLE_TEXT.encode()


def test_the_properties_of_the_hand_outs_puzzle():
    found = properties_of(SAMPLE, SAMPLE_EXPECTED)
    assert (found.line_ends, found.final_newline, found.trailing_spaces) == ("LF", True, False)
    assert (found.tiles, found.letters, found.other_letters, found.solutions) == (9, 4, False, 2)
    assert from_json(found.as_json()) == found


@pytest.mark.parametrize(
    "puzzle, name, value",
    [
        (SAMPLE.replace(b"\n", b"\r\n"), "line_ends", "CRLF"),
        (SAMPLE.replace(b"\n", b"\r\n", 1), "line_ends", "mixed"),
        (SAMPLE.rstrip(b"\n"), "final_newline", False),
        (SAMPLE.replace(b"\n", b" \n", 1), "trailing_spaces", True),
        (SAMPLE.replace(b",", b", ", 1), "spaces_in_lines", True),
        (SAMPLE + b"\n\n", "blank_lines", True),
        (b"\xef\xbb\xbf" + SAMPLE, "bom", True),
        (SAMPLE.replace(b"Y", b"W"), "other_letters", True),
        (b"R0,R0,R0,R0\n" * 9, "symmetric", True),
    ],
)
def test_each_property_is_read_from_the_bytes(puzzle, name, value):
    assert getattr(properties_of(puzzle), name) == value


def test_a_property_in_words():
    assert describe("line_ends", "CRLF") == "has Windows line ends (CR LF)"
    assert describe("final_newline", False) == ("does not end with a line end (no final newline)")
    assert describe("solutions", 1548) == "has 1,548 solutions"


def test_the_manifest_keeps_each_cases_properties_as_its_files_are():
    for case in load_cases(ROOT / "testcases" / "manifest.json"):
        assert case.properties == properties_of(case.input.read_bytes(), case.expected.read_bytes())


def test_properties_edited_by_hand_are_refused(tmp_path):
    import json
    import shutil

    from grader.cases.manifest import CaseError

    shutil.copytree(ROOT / "testcases" / "public", tmp_path / "public")
    data = json.loads((ROOT / "testcases" / "manifest.json").read_text())
    data["cases"] = [c for c in data["cases"] if c["id"] == "sample"]
    data["cases"][0]["properties"]["final_newline"] = False
    (tmp_path / "manifest.json").write_text(json.dumps(data))
    with pytest.raises(CaseError, match="its properties are not what its files are like"):
        load_cases(tmp_path / "manifest.json")
