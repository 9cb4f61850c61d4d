"""Which runs of a round are made together: programs that may tie, back to back at one
place, so that a slow moment of the machine hits all of them or none.

On a virtual machine a core runs everything about 1.3 to 1.6 times slower for a fraction
of a second to a few seconds at a time, as its host's other work comes and goes
(bench/bench_cores.py). Runs of a round spread over seconds put such a moment into the
figures of whichever programs happened to run in it: identical copies of one program
then differ by more than the rank test allows, and the rank-1 set (who gets the bonus)
changes from one session to the next. Programs whose runs take about as long as each
other's are the ones that may tie; made back to back at one place, they share its
moment. A program's estimate is what its runs so far took (its warm-up's at first).
"""

import random
from collections.abc import Mapping, Sequence
from typing import TypeVar

T = TypeVar("T")

# Two programs, one next to the other in order of their estimates, may tie when the
# slower one's is within this factor of the faster one's: a core's slow moments make the
# same work up to 1.6 times slower (bench/bench_cores.py), so a gap wider than that
# between first runs is not one a moment could have made.
CLOSE = 2.0
# The most estimated CPU seconds of one batch: programs of one speed still spread over
# every place, and the places end together (with 1 s, a 16-program session on 2 cores
# took 0.41 to 0.48 of the exhaustive one's time; with 0.25 s, 0.37 to 0.42).
BATCH_SECONDS = 0.25


def batches(
    order: Sequence[T], name: Mapping[T, str], estimate: Mapping[str, float], seed: str
) -> list[list[T]]:
    """`order` (a round's programs, in its own shuffled order) cut into batches: programs
    in order of their estimate, a batch going on while a program's estimate is within
    CLOSE of the one before it (copies of one program stay together however their first
    runs spread) and cut into equal parts of neighbours beyond BATCH_SECONDS in all.
    Each batch keeps the round's order inside it, and the batches of a round come in an
    order of the round's own (`seed`). A program with no estimate is a batch of its
    own."""
    known = sorted(
        (p for p in order if name[p] in estimate), key=lambda p: (estimate[name[p]], name[p])
    )
    groups: list[list[T]] = []
    for program in known:
        if groups and estimate[name[program]] <= CLOSE * estimate[name[groups[-1][-1]]]:
            groups[-1].append(program)
        else:
            groups.append([program])
    position = {program: index for index, program in enumerate(order)}
    found = [
        sorted(part, key=position.__getitem__)
        for group in groups
        for part in _parts(group, name, estimate)
    ]
    found += [[p] for p in order if name[p] not in estimate]
    random.Random(seed).shuffle(found)
    return found


def _parts(group: list[T], name: Mapping[T, str], estimate: Mapping[str, float]) -> list[list[T]]:
    """`group` (in order of estimate) in as few equal parts of neighbours as keep each
    within BATCH_SECONDS."""
    total = sum(estimate[name[p]] for p in group)
    count = max(1, min(len(group), int(total // BATCH_SECONDS) + 1))
    size = -(-len(group) // count)
    return [group[i : i + size] for i in range(0, len(group), size)]
