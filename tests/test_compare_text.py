"""grader.compare, text half: the first difference, white space, layout and the
assembled diagnosis, checked word for word as a student reads them.

Each table row is (expected bytes, program output bytes) -> the exact text."""

import pytest

from grader.compare import compare
from grader.model import Verdict
from tests.helpers import SAMPLE_EXPECTED, SAMPLE_TEXT

pytestmark = pytest.mark.fast


def test_equal_outputs_are_accepted_with_no_text():
    result = compare(SAMPLE_EXPECTED, SAMPLE_EXPECTED.decode(), SAMPLE_TEXT)
    assert (result.verdict, result.summary, result.details) == (Verdict.AC, "", [])
