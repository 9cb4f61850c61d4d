"""Repeated time measurements and their statistics.

Pure functions over lists of seconds, plus `one_core()` for pinning the
grader (and so every program it starts) to a single core while it measures.

Robust figures: the median and the median absolute deviation (MAD) ignore a
run slowed by the machine's other work, where the mean and standard
deviation would be dragged along. Outliers are flagged, never dropped: the
rank test works on ranks, so one wild run moves it very little anyway.

The rank test is the Mann-Whitney U test, written here rather than taken
from SciPy (a 40 MB dependency for one function):
  * exact for small samples (the default 7 runs each: 3432 equally likely
    splits), computed from the permutation distribution of the *mid-ranks*,
    so it stays exact when runs tie (CPU times are reported in steps of
    0.1 ms: short programs tie often). SciPy's exact mode uses the no-ties
    distribution whatever the data (SciPy 1.17: p = 0.1255 for
    [1,2,2,3,3,3] vs [3,4,4,5,2], where the permutation p-value is 0.1126);
  * the normal approximation with tie and continuity corrections beyond
    EXACT_MAX_TOTAL runs in all (more than 15 runs each).
tests/test_leaderboard.py checks the exact p-value against full enumeration
of the splits, and both modes against values computed with SciPy.
"""

import contextlib
import math
import os
import sys
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

MAD_SCALE = 1.4826  # MAD x this estimates the standard deviation of normal data
OUTLIER_MADS = 3.0
RESOLUTION_S = 1e-4  # the sandbox reports times in steps of 0.1 ms
EXACT_MAX_TOTAL = 30  # exact U distribution up to this many runs in both samples


def median(values: Sequence[float]) -> float:
    if not values:
        raise ValueError("median of no values")
    ordered = sorted(values)
    mid = len(ordered) // 2
    if len(ordered) % 2:
        return float(ordered[mid])
    return (ordered[mid - 1] + ordered[mid]) / 2


def mad(values: Sequence[float]) -> float:
    """Median absolute deviation from the median (unscaled)."""
    centre = median(values)
    return median([abs(v - centre) for v in values])


def outliers(values: Sequence[float]) -> list[int]:
    """Indices of runs further than 3 scaled MADs from the median.

    The threshold is at least one clock step: when most runs read the same
    value the MAD is 0, and a neighbouring reading is no outlier.
    """
    centre = median(values)
    limit = max(OUTLIER_MADS * MAD_SCALE * mad(values), RESOLUTION_S)
    return [i for i, v in enumerate(values) if abs(v - centre) > limit + 1e-12]


@dataclass(frozen=True)
class Summary:
    """One program's runs (of one case, or totals over cases), in seconds."""

    runs: tuple[float, ...]
    median: float
    minimum: float
    maximum: float
    mad: float
    outliers: tuple[int, ...]  # indices into runs

    @property
    def relative_mad(self) -> float:
        return self.mad / self.median if self.median > 0 else 0.0


def summarize(values: Sequence[float]) -> Summary:
    values = tuple(float(v) for v in values)
    return Summary(
        values, median(values), min(values), max(values), mad(values), tuple(outliers(values))
    )


# ------------------------------------------------------------------ Mann-Whitney U


@dataclass(frozen=True)
class RankTest:
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


def mann_whitney(x: Sequence[float], y: Sequence[float]) -> RankTest:
    """Two-sided Mann-Whitney U test of x against y."""
    n1, n2 = len(x), len(y)
    if n1 == 0 or n2 == 0:
        raise ValueError("the Mann-Whitney test needs runs in both samples")
    ranks = mid_ranks(list(x) + list(y))
    r1 = sum(ranks[:n1])
    u = r1 - n1 * (n1 + 1) / 2
    if n1 + n2 <= EXACT_MAX_TOTAL:
        return RankTest(u, _exact_p(ranks, n1, r1), True)
    return RankTest(u, _normal_p(ranks, n1, n2, u), False)


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


# ------------------------------------------------------------------ ranking


@dataclass(frozen=True)
class FasterPair:
    faster: str
    slower: str
    p_value: float
    ratio: float  # slower median / faster median


def apart(fast: float, slow: float, noise_floor: float) -> bool:
    """Medians far enough apart to rank two programs apart: `slow` exceeds `fast` by
    more than the noise floor (ratio > 1 + noise_floor), and by more than one clock
    step: times are reported in steps of RESOLUTION_S, so two programs whose true
    times differ by a hair can read one step apart on every run (1.3 and 1.4 ms)."""
    if fast <= 0:
        return False
    return slow / fast > 1 + noise_floor and slow - fast > RESOLUTION_S * (1 + 1e-9)


def significantly_faster(
    samples: Mapping[str, Sequence[float]], noise_floor: float, alpha: float
) -> list[FasterPair]:
    """Every pair (q, p) where q is significantly faster than p: the rank test
    says the two differ (p < alpha) and their medians are apart (`apart`: more than
    the noise floor, more than one clock step)."""
    names = sorted(samples)
    medians = {name: median(samples[name]) for name in names}
    found = []
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            # pragma below: with equal medians either order gives ratio 1, which the
            # noise floor (>= 0) always skips, so `<` here would be an equivalent mutant.
            fast, slow = (a, b) if medians[a] <= medians[b] else (b, a)  # pragma: no mutate
            if not apart(medians[fast], medians[slow], noise_floor):
                continue
            test = mann_whitney(samples[fast], samples[slow])
            if test.p_value < alpha:
                found.append(FasterPair(fast, slow, test.p_value, medians[slow] / medians[fast]))
    return found


def ranks(
    samples: Mapping[str, Sequence[float]], noise_floor: float, alpha: float
) -> dict[str, int]:
    """rank(p) = 1 + the number of programs significantly faster than p.

    "Faster" is closed under chains: if q beats r and r beats p, then q beats
    p, even when the test alone cannot tell q from p (p's runs may be spread
    wide). Without the closure, p could be beaten by fewer programs than r
    and so be ranked above r, although r beats it; with it, q beating p
    always means rank(q) < rank(p). Programs nothing beats share rank 1.
    """
    beats: dict[str, set[str]] = {
        name: set() for name in samples
    }  # beats[q]: programs q is faster than
    for c in significantly_faster(samples, noise_floor, alpha):
        beats[c.faster].add(c.slower)
    changed = True
    while changed:  # transitive closure; a handful of programs, so simply iterate
        changed = False  # pragma: no mutate (only its truth is read: None would do the same)
        for q in beats:
            reach = set().union(*(beats[r] for r in beats[q]))
            if not reach <= beats[q]:
                beats[q] |= reach
                changed = True
    return {p: 1 + sum(p in beats[q] for q in samples) for p in samples}


# ------------------------------------------------------------------ pinning


@contextlib.contextmanager
def one_core() -> Iterator[int | None]:
    """Pin this thread, and so every process it starts, to one core; yields
    that core, or None where affinity cannot be set (macOS).

    The last core of those allowed is used: the first often takes more
    interrupts. The previous affinity is restored afterwards.
    """
    if not hasattr(os, "sched_setaffinity") or not sys.platform.startswith("linux"):
        yield None
        return
    before = os.sched_getaffinity(0)
    core = max(before)
    try:
        os.sched_setaffinity(0, {core})
    except OSError:
        yield None
        return
    try:
        yield core
    finally:
        os.sched_setaffinity(0, before)
