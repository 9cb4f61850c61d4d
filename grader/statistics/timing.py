"""Repeated time measurements and their statistics.

Pure functions over lists of seconds, plus `one_core()` for pinning the
grader (and so every program it starts) to a single core while it measures.

Robust figures: the median and the median absolute deviation (MAD) ignore a
run slowed by the machine's other work, where the mean and standard
deviation would be dragged along. Outliers are flagged, never dropped: the
rank test works on ranks, so one wild run moves it very little anyway.

Two programs are ranked apart by a `Rule`: the session's rank test
(grader/statistics/rank_tests/, course.toml's [leaderboard] rank_test) at its alpha, and
medians apart by more than its noise floor.
"""

import contextlib
import os
import sys
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

from grader.statistics.rank_tests import DEFAULT, REGISTRY, RankTest

MAD_SCALE = 1.4826  # MAD x this estimates the standard deviation of normal data
OUTLIER_MADS = 3.0
# The least difference between two medians that ranks programs apart. A run's CPU time
# is measured to the microsecond, but starting the same process varies by tens of
# microseconds, from run to run and from session to session (the C start-up program's
# medians: 0.61 to 0.65 ms in four exhaustive sessions of bench/bench_race.py).
RESOLUTION_S = 1e-4


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

    The threshold is at least RESOLUTION_S: when most runs read nearly the same
    value the MAD is nearly 0, and a reading a few microseconds off is no outlier.
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


# ------------------------------------------------------------------ ranking


@dataclass(frozen=True)
class FasterPair:
    faster: str
    slower: str
    p_value: float
    ratio: float  # slower median / faster median


def apart(fast: float, slow: float, noise_floor: float) -> bool:
    """Medians far enough apart to rank two programs apart: `slow` exceeds `fast` by
    more than the noise floor (ratio > 1 + noise_floor), and by more than RESOLUTION_S
    (0.1 ms): for a program of a millisecond, 3% is less than starting a process
    varies by, so two copies of it could otherwise be ranked apart."""
    if fast <= 0:
        return False
    return slow / fast > 1 + noise_floor and slow - fast > RESOLUTION_S * (1 + 1e-9)


@dataclass(frozen=True)
class Rule:
    """When one program is significantly faster than another: the rank test says they
    differ (p < alpha) and their medians are `apart` (beyond the noise floor)."""

    noise_floor: float
    alpha: float
    test: RankTest = REGISTRY[DEFAULT]

    def faster(
        self, fast: Sequence[float], slow: Sequence[float], medians: tuple[float, float]
    ) -> float | None:
        """The p-value by which `fast` (its median first in `medians`) is significantly
        faster than `slow`; None when it is not."""
        if not apart(medians[0], medians[1], self.noise_floor):
            return None
        p = self.test.p_value(fast, slow)
        return p if p < self.alpha else None


def significantly_faster(samples: Mapping[str, Sequence[float]], rule: Rule) -> list[FasterPair]:
    """Every pair (q, p) where q is significantly faster than p (`Rule`)."""
    names = sorted(samples)
    medians = {name: median(samples[name]) for name in names}
    found = []
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            # pragma below: with equal medians either order gives ratio 1, which the
            # noise floor (>= 0) always skips, so `<` here would be an equivalent mutant.
            fast, slow = (a, b) if medians[a] <= medians[b] else (b, a)  # pragma: no mutate
            p = rule.faster(samples[fast], samples[slow], (medians[fast], medians[slow]))
            if p is not None:
                found.append(FasterPair(fast, slow, p, medians[slow] / medians[fast]))
    return found


def ranks(samples: Mapping[str, Sequence[float]], rule: Rule) -> dict[str, int]:
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
    for c in significantly_faster(samples, rule):
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
def pinned(core: int) -> Iterator[bool]:
    """This thread, and every process it starts, on `core` while in use, then as
    before; yields False where it cannot be pinned (macOS, or a core gone from this
    process's set)."""
    if not hasattr(os, "sched_setaffinity") or not sys.platform.startswith("linux"):
        yield False
        return
    before = os.sched_getaffinity(0)
    try:
        os.sched_setaffinity(0, {core})
    except OSError:
        yield False
        return
    try:
        yield True
    finally:
        os.sched_setaffinity(0, before)


@contextlib.contextmanager
def one_core() -> Iterator[int | None]:
    """Pin this thread, and so every process it starts, to one core; yields
    that core, or None where affinity cannot be set (macOS).

    The last core of those allowed is used: the first often takes more
    interrupts. The previous affinity is restored afterwards.
    """
    if not hasattr(os, "sched_getaffinity") or not sys.platform.startswith("linux"):
        yield None
        return
    core = max(os.sched_getaffinity(0))
    with pinned(core) as done:
        yield core if done else None
