"""Which cores time runs: every core the grader may use whose speed agrees with the
others', measured by the same reference work on each.

A figure measured on one core compares with one measured on another only if the two
cores run the same work in the same CPU time. Before a session, each core runs the
same reference work (a fixed loop, in this process, the thread pinned to that core)
`rounds` times, the cores taking turns so a burst of other load hits them alike; a
core the fastest one is significantly faster than (by the rule that ranks programs:
the rank test at alpha, medians beyond the noise floor) is left out of the session's
start (and said), and looked at again while the others time (`look`, `agrees`),
making the untimed warm-ups meanwhile: it joins once it does the same work as fast as
the first core does then (on a virtual machine a core's speed changes for seconds at a
time, each core on its own). Where the machine cannot pin (macOS), one core times
everything. bench/bench_cores.py prints the figures for a machine.
"""

import os
import sys
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

from grader.statistics.timing import Rule, median, significantly_faster

K = TypeVar("K")
REFERENCE_LOOPS = 200_000  # about 10 ms of one core: enough to read, cheap to repeat
ROUNDS = 7  # the reference work's turns on each core in a look


@dataclass(frozen=True)
class Calibration:
    """The reference work's median CPU seconds on each core, and the cores kept."""

    seconds: dict[int, float]
    used: tuple[int, ...]
    # The fastest core's reference runs: the bar a later look at a core must meet for it
    # to time (grader.leaderboard.measuring).
    fastest: tuple[float, ...] = ()

    @property
    def left_out(self) -> tuple[int, ...]:
        return tuple(core for core in sorted(self.seconds) if core not in self.used)


def allowed_cores() -> list[int]:
    """The cores this process may run on ([] where affinity cannot be read or set)."""
    if not hasattr(os, "sched_getaffinity") or not sys.platform.startswith("linux"):
        return []
    return sorted(os.sched_getaffinity(0))


def calibrate(cores: Sequence[int], rule: Rule, rounds: int = ROUNDS) -> Calibration:
    """Each core's median time for the reference work, the cores taking turns; a core
    is left out of the start when the fastest core is significantly faster than it, by
    the session's own rule for programs (grader.statistics.timing.Rule: its rank test,
    medians beyond the noise floor): a difference the runs cannot show is noise, not the
    core. One look: a core left out by a burst of other work during it (a VM's
    interrupts) makes the first warm-ups, untimed, and joins at its next look while the
    others time (grader.leaderboard.measuring), where a second look here would hold
    every core back."""
    found = reference_runs(cores, rounds)
    kept = agreeing(found, rule)
    seconds = {core: median(values) for core, values in found.items()}
    best = min(seconds, key=lambda core: (seconds[core], core), default=None)
    return Calibration(
        seconds,
        tuple(core for core in sorted(seconds) if core in kept),
        tuple(found[best]) if best is not None else (),
    )


def look(core: int, rounds: int = ROUNDS) -> list[float]:
    """The reference work's CPU seconds on `core`, `rounds` times ([]: it cannot be
    pinned). A cluster's worker runs it for a place of its machine."""
    return reference_runs([core], rounds).get(core, [])


def agrees(fastest: Sequence[float], found: Sequence[float], rule: Rule) -> bool:
    """Whether `fastest` (the first place's latest reference runs; at first, the fastest
    core's at the start) is not significantly faster than `found` (a place's reference
    runs now), by `rule`."""
    return bool(found and fastest) and 0 in agreeing({-1: list(fastest), 0: list(found)}, rule)


def reference_runs(cores: Sequence[int], rounds: int = ROUNDS) -> dict[int, list[float]]:
    """The reference work's CPU seconds on each core that can be pinned, `rounds` times,
    the cores taking turns (a burst of other load hits them alike)."""
    found: dict[int, list[float]] = {core: [] for core in cores}
    for _ in range(rounds):
        for core in cores:
            took = _on_core(core)
            if took is not None:  # a core that cannot be pinned is not measured: unused
                found[core].append(took)
    return {core: values for core, values in found.items() if values}


def agreeing(found: Mapping[K, Sequence[float]], rule: Rule) -> set[K]:
    """The places (cores, or a cluster's cores on each machine) whose reference runs the
    fastest one's are not significantly faster than, by `rule`."""
    if not found:
        return set()
    names = {str(key): key for key in found}
    seconds = {key: median(values) for key, values in found.items()}
    fastest = str(min(seconds, key=lambda key: (seconds[key], str(key))))
    slower = {
        pair.slower
        for pair in significantly_faster({str(k): v for k, v in found.items()}, rule)
        if pair.faster == fastest
    }
    return {key for name, key in names.items() if name not in slower}


def _on_core(core: int) -> float | None:
    """The reference work's CPU time, in a thread pinned to `core` (None: it cannot be)."""
    took: list[float] = []

    def work() -> None:
        try:
            os.sched_setaffinity(0, {core})  # this thread alone
        except OSError:  # gone from this process's set since it was read
            return
        start = time.thread_time()
        total = 0
        for i in range(REFERENCE_LOOPS):
            total += i * i % 7
        took.append(time.thread_time() - start)

    thread = threading.Thread(target=work)
    thread.start()
    thread.join()
    return took[0] if took else None
