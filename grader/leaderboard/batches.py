"""Which runs of a round are made together: programs that may tie, back to back at one
place, so that a slow moment of the machine hits all of them or none.

On a virtual machine a core runs everything about 1.3 to 1.6 times slower for a while, as
its host's other work comes and goes (bench/bench_cores.py: the same reference work in
10 and in 15.5 ms by turns); the runs bench/bench_race.py's sessions stored show such
moments lasting from tens of milliseconds to seconds. Runs of a round spread over
seconds put such a moment into the figures of whichever programs happened to run in
it: identical copies of one program then differ by more than the rank test allows, and
the rank-1 set (who gets the bonus) changes from one session to the next. Programs
whose runs take about as long as each other's are the ones that may tie; made back to
back at one place, they share its moment. A program's estimate is what its runs so far
took (its warm-up's at first). Inside a batch, programs come in tiers of estimate: the
copies of one program run next to each other, within a fraction of the batch, rather
than spread over all of it.
"""

import math
import random
from collections.abc import Callable, Sequence
from typing import TypeVar

T = TypeVar("T")

# Two programs, one next to the other in order of their estimates, may tie when the
# slower one's is within this factor of the faster one's: a core's slow moments make the
# same work up to 1.6 times slower (above), so a gap wider than that
# between first runs is not one a moment could have made.
CLOSE = 2.0
# The most estimated CPU seconds of one batch: programs of one speed still spread over
# every place, and the places end together (bench/bench_race.py --programs 16, within
# one hour: with 1 s, a session on 2 cores took 0.41 to 0.48 of the exhaustive one's
# time; with 0.25 s, 0.37 to 0.42).
BATCH_SECONDS = 0.25
# How wide a tier of estimates is inside a batch: programs in one tier run in the round's
# order (a program's neighbours change from round to round: a run is slowed by what ran
# just before it), the tiers from the lowest estimates up. Copies of one program whose
# first runs met different moments (up to 1.6 times apart) fall in two or three tiers
# side by side. bench/bench_race.py --programs 40 (ten copies of each program): in the
# round's order, the race found all ten copies of the fastest in 13 of 15 sessions and
# the exhaustive session in 28 of 30; by tiers, in 15 of 15 and 30 of 30.
TIER = 1.25


def batches(order: Sequence[T], estimate: Callable[[T], float | None], seed: str) -> list[list[T]]:
    """`order` (a round's programs, in its own shuffled order) cut into batches: programs
    in order of their estimate, a batch going on while a program's estimate is within
    CLOSE of the one before it (copies of one program stay together however their first
    runs spread) and cut into equal parts of neighbours beyond BATCH_SECONDS in all.
    Inside a batch, programs come by tiers of estimate (TIER), the lowest first, each
    tier in the round's order; the batches of a round come in an order of the round's
    own (`seed`). A program with no estimate (None) is a batch of its own."""
    estimates = [estimate(p) for p in order]
    known = sorted(
        (seconds, index) for index, seconds in enumerate(estimates) if seconds is not None
    )  # (estimate, place in the round's order)
    groups: list[list[tuple[float, int]]] = []
    for seconds, index in known:
        if groups and seconds <= CLOSE * groups[-1][-1][0]:
            groups[-1].append((seconds, index))
        else:
            groups.append([(seconds, index)])
    found = [
        [order[index] for _, index in sorted((_tier(seconds), index) for seconds, index in part)]
        for group in groups
        for part in _parts(group)
    ]
    found += [[p] for p, seconds in zip(order, estimates) if seconds is None]
    random.Random(seed).shuffle(found)
    return found


def _tier(seconds: float) -> int:
    """The tier of an estimate: tiers are TIER times wide (a zero estimate is in the
    lowest: CPU time read in ticks can be nil for a short run)."""
    return math.floor(math.log(max(seconds, 1e-9), TIER))


def _parts(group: list[tuple[float, int]]) -> list[list[tuple[float, int]]]:
    """`group` ((estimate, index) in order of estimate) in as few equal parts of
    neighbours as keep each within BATCH_SECONDS."""
    total = sum(seconds for seconds, _ in group)
    count = max(1, min(len(group), int(total // BATCH_SECONDS) + 1))
    size = -(-len(group) // count)
    return [group[i : i + size] for i in range(0, len(group), size)]
