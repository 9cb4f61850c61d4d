"""Timing on a Dask cluster's workers (`grader leaderboard --cluster`): for a class too big
for one machine's cores.

The places that time are cores of the workers' machines, one timed run per core at
once, as on this machine (grader.leaderboard.measuring), and the session races alike.
Workers on one machine share its cores (told apart by the kernel's boot id: containers
on one host share it too), so each core of a machine serves one worker.

Before timing, one worker of each machine surveys it: how busy it is over the look
(grader.leaderboard.quiet) and the same reference work on each of its cores
(grader.leaderboard.cores), taken while the look lasts. A figure measured on one core
compares with another's only if both run the same work in the same CPU time: every
core of every machine is put beside the fastest one by the rule that ranks programs,
and a core it is significantly faster than is left out, as on this machine; a busy
machine is refused (or, with --busy-ok, times on the cores its other work leaves).

A worker builds each program from its sources in its own cache (grader.grading
.cluster_worker), warms it up there before its first timed run there (the warm-ups the
course asks for, on that worker), and pins the run to the place's core. A timed run
that fails in the grader, or whose worker is gone, is not stored: the next session
measures it again. Only this process writes the store; each run keeps its worker and
core.
"""

import dataclasses
import os
import socket
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from grader.cases.manifest import Case
from grader.core.errors import GraderError
from grader.core.model import Limits, RunResult, TimedVerdict, Verdict
from grader.grading.timed_runs import Program, timed_run
from grader.leaderboard.cores import agreeing, allowed_cores, reference_runs
from grader.leaderboard.measuring import Place
from grader.leaderboard.quiet import LOOK_SECONDS, Load, refuse_if_busy, start_look
from grader.statistics.timing import Rule, median

if TYPE_CHECKING:
    from distributed import Worker as DaskWorker

    from grader.grading.cluster_worker import CaseData, Source

GONE_CHECK_SECONDS = 2.0  # how often a run's worker is looked for while it runs
BOOT_ID = Path("/proc/sys/kernel/random/boot_id")


# ------------------------------------------------------------------ on a worker


@dataclass(frozen=True)
class MachineFacts:
    """What a worker says of its machine."""

    machine: str  # the kernel's boot id (the host name where there is none)
    host: str
    cores: tuple[int, ...]  # the cores this worker may run on
    refusal: str = ""  # why this worker will not run programs (no sandbox), if it will not


@dataclass(frozen=True)
class Survey:
    """One machine's look at its load and its cores' reference runs, taken together."""

    samples: dict[int, list[float]]
    load: Load | None


def machine_facts(plugin: str, dask_worker: "DaskWorker") -> MachineFacts:
    """This worker's machine, and whether it can run programs (its sandbox made now).
    Called by Client.run, which passes the worker as `dask_worker`."""
    from grader.grading.cluster_worker import WorkerRefused, plugin_of

    host = socket.gethostname()
    try:
        machine = BOOT_ID.read_text().strip() or host
    except OSError:
        machine = host
    try:
        plugin_of(plugin, dask_worker).sandbox()
        refusal = ""
    except WorkerRefused as refused:
        refusal = str(refused)
    return MachineFacts(machine, host, tuple(allowed_cores()), refusal)


def survey_task(rounds: int, look_seconds: float = LOOK_SECONDS) -> Survey:
    """On one worker of a machine: the look at its load, with its cores' reference runs
    made while the look lasts (this process's own CPU time is not other work's)."""
    looking = start_look(look_seconds)
    samples = reference_runs(allowed_cores(), rounds)
    return Survey(samples, looking.finish())


class TimingFailed(RuntimeError):
    """A worker could not time the program (its build failed there, say)."""


def timed_task(
    plugin: str,
    source: "Source",
    case: Case,
    data: "CaseData",
    limits: Limits,
    build_limits: Limits,
    core: int | None,
    warmups: int,
    timed: bool,
) -> tuple[TimedVerdict, RunResult]:
    """One run (a warm-up when not `timed`) on this worker, pinned to `core`: a timed
    run comes after `warmups` warm-ups of the same program and case here."""
    from grader.grading.cluster_worker import plugin_of

    worker = plugin_of(plugin)
    artifact = worker.build(source, build_limits, False, limits)  # cached here
    if not artifact.ok:
        raise TimingFailed(f"its build failed on {worker.address}: {artifact.log[:300]}")
    program = Program(source.id, source.language, source.content_hash, artifact.folder)
    here, sandbox = worker.local_case(case, data), worker.sandbox()
    key = f"warm-up:{source.content_hash}:{case.version}"
    with _pinned(core):
        if timed:
            for _ in range(warmups - worker.tally(key)):
                timed_run(program, here, sandbox, limits)
                worker.tally(key, 1)
        verdict, result = timed_run(program, here, sandbox, limits)
        if not timed:
            worker.tally(key, 1)
    return verdict, dataclasses.replace(result, stdout=b"", stderr=b"")  # never shown


@contextmanager
def _pinned(core: int | None) -> Iterator[None]:
    """This worker thread (and what it starts) on `core` for the run, then as before."""
    if core is None:
        yield
        return
    before = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {core})
    try:
        yield
    finally:
        os.sched_setaffinity(0, before)


# ------------------------------------------------------------------ deciding the places


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

    def reference_s(self) -> list[dict[str, Any]]:
        """Each core's reference figure, as leaderboard.json's machine.core_reference_s."""
        return [
            {"host": host, "core": core, "reference_s": seconds, "used": (host, core) in self.kept}
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
    cluster (grader.leaderboard.cores.agreeing), at most as many as its other work leaves
    free, fastest first, dealt to its workers in turn (a worker serves at most as many
    places as it has threads). MachineBusy for a busy machine unless `go_on`."""
    found = {
        (m.facts.machine, core): values
        for m in machines
        for core, values in surveys[m.facts.machine].samples.items()
    }
    kept = agreeing(found, rule)
    places, notes = [], []
    for m in machines:
        survey = surveys[m.facts.machine]
        note = refuse_if_busy(survey.load, go_on)  # MachineBusy propagates
        if note:
            notes.append(f"{m.facts.host}: {note}")
        cores = sorted(
            (core for (machine, core) in kept if machine == m.facts.machine),
            key=lambda core: (median(found[(m.facts.machine, core)]), core),
        )
        # Not busy, or told to go on: at least the fastest core.
        free = len(cores) if survey.load is None else max(1, survey.load.free_cores)
        places += _dealt(cores[:free], m.workers)
    hosts = {w.address: m.facts.host for m in machines for w in m.workers}
    host = {m.facts.machine: m.facts.host for m in machines}
    return WorkerPlaces(
        tuple(places),
        hosts,
        {(host[machine], core): median(values) for (machine, core), values in found.items()},
        frozenset((host[machine], core) for machine, core in kept),
        tuple(notes),
    )


def _dealt(cores: Sequence[int], workers: Sequence[Worker]) -> list[Place]:
    """Each core to the next worker (in turn) that may run on it and has a thread left."""
    left = {worker.address: worker.threads for worker in workers}
    places = []
    turn = 0
    for core in sorted(cores):
        for _ in range(len(workers)):
            worker = workers[turn % len(workers)]
            turn += 1
            if left[worker.address] and core in worker.cores:
                left[worker.address] -= 1
                places.append(Place(core, worker.address))
                break
    return places


# ------------------------------------------------------------------ the client


class ClusterTiming:
    """measuring.Timing on the places of a cluster (each served by a thread here that
    sends its runs to its worker, and waits)."""

    def __init__(
        self,
        client: Any,  # a distributed Client: its methods have no annotations
        plugin: str,
        found: WorkerPlaces,
        cases: Sequence[Case],
        limits: Limits,
        build_limits: Limits,
        warmups: int,
    ) -> None:
        from grader.grading.cluster import case_payload

        self.client, self.plugin, self.places = client, plugin, found.places
        self.limits, self.build_limits, self.warmups = limits, build_limits, warmups
        self.data = client.scatter(case_payload(cases), broadcast=True, hash=False)
        self.sources: dict[str, Source] = {}
        self.gone: set[str] = set()  # workers that left: their places time nothing more

    def enter(self, place: Place) -> Place:
        return place

    def run(
        self, place: Place, program: Program, case: Case, timed: bool
    ) -> tuple[TimedVerdict, RunResult]:
        try:
            if place.worker in self.gone:
                raise WorkerGone(f"worker {place.worker} left the cluster")
            future = self.client.submit(
                timed_task,
                self.plugin,
                self._source(program),
                case,
                self.data,
                self.limits,
                self.build_limits,
                place.core,
                self.warmups,
                timed,
                workers=[place.worker],
                allow_other_workers=False,
                pure=False,
            )
            found: tuple[TimedVerdict, RunResult] = future_result(self.client, future, place.worker)
            return found
        except WorkerGone as error:
            self.gone.add(place.worker)
            return _failed(error)
        except Exception as error:  # noqa: BLE001  the worker's failure: IE, measured again
            return _failed(error)

    def _source(self, program: Program) -> "Source":
        from grader.grading.cluster_worker import Source

        if program.id not in self.sources:
            assert program.built_from is not None, "every timed program has its sources"
            self.sources[program.id] = Source.of(program.built_from)
        return self.sources[program.id]


def _failed(error: Exception) -> tuple[TimedVerdict, RunResult]:
    """A run the grader could not make: IE, not stored (the next session makes it)."""
    why = f"{type(error).__name__}: {error}"
    return Verdict.IE, RunResult(None, None, 0.0, 0.0, 0, b"", b"", 0, error=why)


class WorkerGone(GraderError):
    """The worker a run was sent to left the cluster."""


def future_result(client: Any, future: Any, worker: str) -> Any:
    """The task's result, waiting while its worker is still in the cluster."""
    from distributed import TimeoutError as DaskTimeout

    while True:
        try:
            return future.result(timeout=GONE_CHECK_SECONDS)
        except (DaskTimeout, TimeoutError):
            if worker not in client.scheduler_info().get("workers", {}):
                client.cancel([future])
                raise WorkerGone(f"worker {worker} left the cluster") from None


def survey(
    client: Any, plugin: str, rule: Rule, go_on: bool, say: Callable[[str], None]
) -> WorkerPlaces:
    """Ask every worker for its machine (a worker that refuses work is named and left
    out), one worker of each machine for a survey; the places (assign)."""
    from grader.grading.cluster import ClusterError

    try:
        facts: dict[str, MachineFacts] = {}
        for address, found in client.run(machine_facts, plugin).items():
            if found.refusal:
                say(f"cluster: {found.refusal}; not timing on it")
            else:
                facts[address] = found
        machines = machines_of(facts, client.nthreads())
        futures = {
            m.facts.machine: client.submit(
                survey_task,
                7,
                workers=[m.workers[0].address],
                allow_other_workers=False,
                pure=False,
            )
            for m in machines
        }
        first = {m.facts.machine: m.workers[0].address for m in machines}
        surveys = {
            machine: future_result(client, f, first[machine]) for machine, f in futures.items()
        }
    except Exception as error:  # noqa: BLE001  the cluster's failure, in one line
        raise ClusterError(
            f"cannot survey the cluster's workers: {type(error).__name__}: {error}"
        ) from None
    found = assign(machines, surveys, rule, go_on)
    for note in found.notes:
        say(note)
    return found
