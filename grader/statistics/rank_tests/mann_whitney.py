"""The Mann-Whitney U test, written here rather than taken from SciPy (a 40 MB
dependency for one function):
  * exact for small samples (the default 7 runs each: 3432 equally likely
    splits), computed from the permutation distribution of the *mid-ranks*,
    so it stays exact when runs tie (CPU times were once reported in steps of
    0.1 ms, and stored runs keep them: short programs tie often). SciPy's exact mode uses the no-ties
    distribution whatever the data (SciPy 1.17: p = 0.1255 for
    [1,2,2,3,3,3] vs [3,4,4,5,2], where the permutation p-value is 0.1126);
  * the normal approximation with tie and continuity corrections beyond
    EXACT_MAX_TOTAL runs in all (more than 15 runs each).
tests/test_leaderboard.py checks the exact p-value against full enumeration
of the splits, and both modes against values computed with SciPy.
"""

import math
from collections.abc import Sequence
from dataclasses import dataclass

EXACT_MAX_TOTAL = 30  # exact U distribution up to this many runs in both samples


class MannWhitney:
    """The rank test behind grader.statistics.rank_tests.RankTest."""

    name = "mann-whitney"

    def p_value(self, x: Sequence[float], y: Sequence[float]) -> float:
        return mann_whitney(x, y).p_value

    def smallest_p_value(self, n1: int, n2: int) -> float:
        return smallest_p_value(n1, n2)

    def describe(self, n1: int, n2: int) -> str:
        how = (
            "exact (mid-ranks, ties allowed)"
            if n1 + n2 <= EXACT_MAX_TOTAL
            else "normal approximation with tie correction"
        )
        return f"Mann-Whitney U, two-sided, {how}"


TEST = MannWhitney()


@dataclass(frozen=True)
class Result:
    u: float  # U of the first sample: how often one of its runs beats one of the other's
    p_value: float  # two-sided
    exact: bool


def mid_ranks(values: Sequence[float]) -> list[float]:
    """Ranks 1..N, ties sharing the mean of the ranks they span."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    ranks = [0.0] * len(values)  # pragma: no mutate (every slot is assigned below)
    start = 0
    while start < len(order):
        end = start
        while end + 1 < len(order) and values[order[end + 1]] == values[order[start]]:
            end += 1
        for k in range(start, end + 1):
            ranks[order[k]] = (start + end) / 2 + 1
        start = end + 1
    return ranks


def mann_whitney(x: Sequence[float], y: Sequence[float]) -> Result:
    """Two-sided Mann-Whitney U test of x against y."""
    n1, n2 = len(x), len(y)
    if n1 == 0 or n2 == 0:
        raise ValueError("the Mann-Whitney test needs runs in both samples")
    ranks = mid_ranks(list(x) + list(y))
    r1 = sum(ranks[:n1])
    u = r1 - n1 * (n1 + 1) / 2
    if n1 + n2 <= EXACT_MAX_TOTAL:
        return Result(u, _exact_p(ranks, n1, r1), True)
    return Result(u, _normal_p(ranks, n1, n2, u), False)


def _exact_p(ranks: Sequence[float], n1: int, r1: float) -> float:
    """P-value from the permutation distribution: every choice of n1 of the
    N mid-ranks is equally likely under the null hypothesis.

    Doubled mid-ranks are integers; counts[k][s] is the number of k-subsets
    of the ranks seen so far whose doubled sum is s.
    """
    doubled = [int(round(2 * r)) for r in ranks]
    top = sum(sorted(doubled)[-n1:])
    # pragma below: rows or columns beyond these would only hold zeros.
    counts = [[0] * (top + 1) for _ in range(n1 + 1)]  # pragma: no mutate
    counts[0][0] = 1
    for r in doubled:
        for k in range(n1, 0, -1):
            below, row = counts[k - 1], counts[k]
            counts[k] = row[:r] + [a + b for a, b in zip(row[r:], below)]
    dist = counts[n1]
    total = math.comb(len(ranks), n1)  # the equally likely splits
    observed = int(round(2 * r1))
    low = sum(dist[: observed + 1])
    high = sum(dist[observed:])
    return min(1.0, 2 * min(low, high) / total)


def _normal_p(ranks: Sequence[float], n1: int, n2: int, u: float) -> float:
    n = n1 + n2
    tie_sizes: dict[float, int] = {}
    for r in ranks:
        tie_sizes[r] = tie_sizes.get(r, 0) + 1
    ties = sum(t**3 - t for t in tie_sizes.values())
    variance = n1 * n2 / 12 * ((n + 1) - ties / (n * (n - 1)))
    # pragma below: beyond EXACT_MAX_TOTAL runs a variance that is not 0 is at least
    # n1 * n2 / 4 (all runs but one tied), so no other threshold under that differs.
    if variance <= 0:  # pragma: no mutate
        return 1.0  # every run identical: nothing tells them apart
    distance = max(0.0, abs(u - n1 * n2 / 2) - 0.5)  # continuity correction
    return math.erfc(distance / math.sqrt(variance) / math.sqrt(2))  # at most 1: distance >= 0


def smallest_p_value(n1: int, n2: int) -> float:
    """The smallest two-sided p-value the exact test can give for these sizes:
    with 3 runs each it is 0.1, so no alpha below that can ever separate two
    programs."""
    if n1 + n2 > EXACT_MAX_TOTAL:
        return 0.0
    return min(1.0, 2 / math.comb(n1 + n2, n1))
