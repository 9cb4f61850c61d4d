"""The whole output against the whole expected output (grader.judge.compare.relation): a cut
at a buffer's size, lines after it, the listing moved; told alone, as the one thing
that explains every other difference."""

from pathlib import Path

import pytest

from grader.core.model import Verdict
from grader.judge.compare import compare
from tests.helpers import ROOT

pytestmark = pytest.mark.fast

CASE = ROOT / "testcases" / "hidden" / "timed-3-letters-a"
EXPECTED = Path(f"{CASE}.out").read_bytes()
PUZZLE = Path(f"{CASE}.txt").read_bytes()


@pytest.mark.parametrize("size", [4096, 8192, 65536, 512 * 3])
def test_output_cut_at_a_buffers_size_was_never_flushed(size):
    told = compare(EXPECTED, EXPECTED[:size], PUZZLE)
    assert (told.verdict, told.kind) == (Verdict.WA, "truncated")
    assert told.summary.startswith(f"the output stops after {size:,} bytes")
    assert "the size of an output buffer" in told.summary and "never written" in told.summary
    assert not any("not part of the required output" in line for line in told.details)


def test_a_cut_within_a_line_elsewhere_says_it_stops_there():
    told = compare(EXPECTED, EXPECTED[:1000], PUZZLE)
    assert told.kind == "truncated" and "buffer" not in told.summary


def test_the_last_board_missing_is_the_boards_own_issue():
    cut = EXPECTED[: EXPECTED.rindex(b"\n\n") + 1]
    assert compare(EXPECTED, cut, PUZZLE).kind == "missing"


def test_lines_after_the_whole_expected_output():
    told = compare(EXPECTED, EXPECTED + b"done in 0.3 s\n", PUZZLE)
    assert told.kind == "trailing"
    assert told.summary == (
        "the whole expected output is there, and then 1 more line follows it, starting with "
        '"done in 0.3 s": print nothing after the last board'
    )
    assert compare(EXPECTED, EXPECTED + b"\n" + EXPECTED[-378:], PUZZLE).kind != "trailing"


def test_the_listing_after_the_boards_is_two_streams():
    lines = EXPECTED.split(b"\n")
    moved = b"\n".join(lines[11:-1] + lines[:11]) + b"\n"
    told = compare(EXPECTED, moved, PUZZLE)
    assert told.kind == "reordered"
    assert told.summary.startswith("every expected line is there, in another order: the tile")
    assert "print everything through one stream" in told.summary
