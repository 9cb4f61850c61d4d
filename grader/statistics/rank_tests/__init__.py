"""The rank test a leaderboard session tells two programs apart with: one module per
test, found here by the name course.toml gives it ([leaderboard] rank_test). A test
takes two programs' run totals and says how likely runs so far apart are if the two
are equally fast (a two-sided p-value); grader.statistics.timing ranks with it, at the
session's alpha. A new test is a module and a line here (docs/developers/extending.md)."""

from collections.abc import Sequence
from typing import Protocol

from grader.statistics.rank_tests import mann_whitney


class RankTest(Protocol):
    name: str  # course.toml's [leaderboard] rank_test

    def p_value(self, x: Sequence[float], y: Sequence[float]) -> float:
        """Two-sided: how likely runs as far apart as x and y are if neither program
        is faster."""

    def smallest_p_value(self, n1: int, n2: int) -> float:
        """The least p_value samples of these sizes can give (0: no floor): an alpha
        at or below it can never tell two programs apart."""

    def describe(self, n1: int, n2: int) -> str:
        """The test, as the session's figures name it, for samples of these sizes."""


REGISTRY: dict[str, RankTest] = {test.name: test for test in (mann_whitney.TEST,)}
DEFAULT = mann_whitney.TEST.name
