"""Which places of a Dask cluster time the leaderboard's runs (`grader leaderboard
--cluster`): pure decisions over what its workers report (grader.leaderboard.on_workers
asks them).

Workers on one machine share its cores (told apart by the kernel's boot id: containers
on one host share it too), so each core of a machine serves one worker. Every core of
every machine is put beside the cluster's fastest by the rule that ranks programs, and
a core it is significantly faster than in every look is left out (this machine's cores
take one look at the start: grader.leaderboard.cores); a busy machine is refused (or,
told to go on, times on the cores its other work leaves).
"""

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from grader.leaderboard.cores import agreeing
from grader.leaderboard.measuring import Place, Span, timed_s
from grader.leaderboard.quiet import Load, refuse_if_busy
from grader.statistics.timing import Rule, median

K = TypeVar("K")


@dataclass(frozen=True)
class MachineFacts:
    """What a worker says of its machine."""

    machine: str  # the kernel's boot id (the host name where there is none)
    host: str
    cores: tuple[int, ...]  # the cores this worker may run on
    refusal: str = ""  # why this worker will not run programs (no sandbox), if it will not


@dataclass(frozen=True)
class Survey:
    """One machine's look at its load and its cores' reference runs, taken together:
    each look of the reference runs (grader.leaderboard.on_workers.LOOKS) one after the
    other."""

    looks: tuple[dict[int, list[float]], ...]
    load: Load | None


@dataclass(frozen=True)
class Machine:
    """A machine of the cluster (as its first worker, by address, reports it: the one
    that surveys it) and its workers."""

    facts: MachineFacts
    workers: tuple["Worker", ...]


@dataclass(frozen=True)
class Worker:
    address: str
    threads: int
    cores: tuple[int, ...]  # the cores it may run on (containers on one host may differ)


@dataclass(frozen=True)
class WorkerPlaces:
    """The places that time, and what the survey found (for the session's pages)."""

    places: tuple[Place, ...]
    hosts: dict[str, str]  # worker address -> its host name
    reference: dict[tuple[str, int], float] = field(default_factory=dict)  # (host, core)
    kept: frozenset[tuple[str, int]] = frozenset()
    notes: tuple[str, ...] = ()
    # The cores left out, dealt to workers as the kept ones are: each is looked at again
    # while the others time, and joins once it agrees with the fastest core's runs.
    waiting: tuple[Place, ...] = ()
    fastest: tuple[float, ...] = ()

    def reference_s(
        self,
        used: Collection[tuple[str, int]],
        timed: "Mapping[Place, Sequence[Span]] | None" = None,
    ) -> list[dict[str, Any]]:
        """Each core's reference figure, as leaderboard.json's machine.core_reference_s:
        whether it is `used` (the (host, core)s the stored runs were timed on), and when
        a core that did not time the whole session did (`timed`)."""
        spans = {(self.hosts.get(p.worker, ""), p.core): s for p, s in (timed or {}).items()}
        return [
            {
                "host": host,
                "core": core,
                "reference_s": seconds,
                "used": (host, core) in used,
                **({"timed_s": timed_s(spans[(host, core)])} if (host, core) in spans else {}),
            }
            for (host, core), seconds in sorted(self.reference.items())
        ]


def machines_of(facts: Mapping[str, MachineFacts], threads: Mapping[str, int]) -> list[Machine]:
    """The cluster's machines, each with its workers (grouped by boot id)."""
    grouped: dict[str, list[str]] = {}
    for address in sorted(facts):
        grouped.setdefault(facts[address].machine, []).append(address)
    return [
        Machine(
            facts[addresses[0]],
            tuple(Worker(a, max(1, threads.get(a, 1)), facts[a].cores) for a in addresses),
        )
        for _, addresses in sorted(grouped.items())
    ]


def assign(
    machines: Sequence[Machine],
    surveys: Mapping[str, Survey],
    rule: Rule,
    go_on: bool,
) -> WorkerPlaces:
    """The places: on each machine, its cores that agree with the fastest core of the
    cluster in some look (kept_in_any), at most as many as its other work leaves free,
    fastest first, dealt to its workers in turn (a worker serves at most as many places
    as it has threads). MachineBusy for a busy machine unless `go_on`."""
    looks = [
        {
            (m.facts.machine, core): values
            for m in machines
            for core, values in surveys[m.facts.machine].looks[index].items()
        }
        for index in range(min(len(surveys[m.facts.machine].looks) for m in machines))
    ]
    found = {key: together(looks, key) for key in looks[0]}
    kept = kept_in_any(looks, rule)
    places, waiting, notes = [], [], []
    for m in machines:
        survey = surveys[m.facts.machine]
        note = refuse_if_busy(survey.load, go_on)  # MachineBusy propagates
        if note:
            notes.append(f"{m.facts.host}: {note}")
        speed = {
            core: median(found[(machine, core)])
            for machine, core in found
            if machine == m.facts.machine
        }
        by_speed = sorted(speed, key=lambda core: (speed[core], core))
        cores = [core for core in by_speed if (m.facts.machine, core) in kept]
        left = [core for core in by_speed if (m.facts.machine, core) not in kept]
        # Not busy, or told to go on: at least the fastest core.
        free = len(by_speed) if survey.load is None else max(1, survey.load.free_cores)
        dealt = _dealt(sorted(cores[:free]) + sorted(left[: max(0, free - len(cores))]), m.workers)
        places += [place for place in dealt if place.core in cores]
        waiting += [place for place in dealt if place.core not in cores]
    hosts = {w.address: m.facts.host for m in machines for w in m.workers}
    host = {m.facts.machine: m.facts.host for m in machines}
    best = min(found, key=lambda key: (median(found[key]), key))
    return WorkerPlaces(
        tuple(places),
        hosts,
        {(host[machine], core): median(values) for (machine, core), values in found.items()},
        frozenset((host[machine], core) for machine, core in kept),
        tuple(notes),
        tuple(waiting),
        tuple(found[best]),
    )


def _dealt(cores: Sequence[int], workers: Sequence[Worker]) -> list[Place]:
    """Each core, in order, to the next worker (in turn) that may run on it and has a
    thread left."""
    left = {worker.address: worker.threads for worker in workers}
    places = []
    turn = 0
    for core in cores:
        for _ in range(len(workers)):
            worker = workers[turn % len(workers)]
            turn += 1
            if left[worker.address] and core in worker.cores:
                left[worker.address] -= 1
                places.append(Place(core, worker.address))
                break
    return places


def kept_in_any(looks: Sequence[Mapping[K, Sequence[float]]], rule: Rule) -> set[K]:
    """The places some look finds agreeing with its fastest (grader.leaderboard.cores
    .agreeing): a place is left out only when every look shows the fastest significantly
    faster than it."""
    return set().union(*(agreeing(look, rule) for look in looks))


def together(looks: Sequence[Mapping[K, Sequence[float]]], key: K) -> list[float]:
    """A place's reference runs in every look."""
    return [value for look in looks for value in look.get(key, ())]
