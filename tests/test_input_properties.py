"""What a puzzle file is like (grader.input_properties), and what sets a failing puzzle
apart from those a program passed, in words."""

import pytest

from grader.cases import load_cases
from grader.input_properties import distinguishing, from_json, properties_of
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


def test_what_sets_a_puzzle_apart_is_what_no_passed_puzzle_shares():
    passed = [properties_of(SAMPLE, SAMPLE_EXPECTED)]
    failed = properties_of(SAMPLE.replace(b"\n", b"\r\n").rstrip(b"\r\n"), SAMPLE_EXPECTED)
    assert distinguishing(failed, passed) == [
        "this puzzle file has Windows line ends (CR LF), and every puzzle your program "
        "passed has Unix line ends (LF)",
        "this puzzle file does not end with a line end (no final newline), and every puzzle "
        "your program passed ends with a line end",
    ]
    assert distinguishing(failed, []) == []  # nothing passed: nothing to compare with
    # lacking what the passed ones have is no reason to fail
    assert distinguishing(passed[0], [failed]) == []


def test_the_manifest_keeps_each_cases_properties_as_its_files_are():
    for case in load_cases(ROOT / "testcases" / "manifest.json"):
        assert case.properties == properties_of(case.input.read_bytes(), case.expected.read_bytes())


def test_properties_edited_by_hand_are_refused(tmp_path):
    import json
    import shutil

    from grader.cases import CaseError

    shutil.copytree(ROOT / "testcases" / "public", tmp_path / "public")
    data = json.loads((ROOT / "testcases" / "manifest.json").read_text())
    data["cases"] = [c for c in data["cases"] if c["id"] == "sample"]
    data["cases"][0]["properties"]["final_newline"] = False
    (tmp_path / "manifest.json").write_text(json.dumps(data))
    with pytest.raises(CaseError, match="its properties are not what its files are like"):
        load_cases(tmp_path / "manifest.json")
