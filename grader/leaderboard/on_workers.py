"""Timing on a Dask cluster's workers (`grader leaderboard --cluster`): for a class too big
for one machine's cores.

The places that time are cores of the workers' machines, one timed run per core at
once, as on this machine (grader.leaderboard.measuring), and the session races alike.
Before timing, one worker of each machine surveys it: how busy it is over the look
(grader.leaderboard.quiet) and the same reference work on each of its cores
(grader.leaderboard.cores), taken while the look lasts; which places time follows from
that (grader.leaderboard.places).

A worker builds each program from its sources in its own cache (grader.grading
.cluster_worker), warms it up there before its first timed run there (the warm-ups the
course asks for, on that worker), and pins the run to the place's core. A timed run
that fails in the grader, or whose worker is gone, is not stored: the next session
measures it again. Only this process writes the store; each run keeps its worker and
core.
"""

import dataclasses
import socket
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from grader.cases.manifest import Case
from grader.core.errors import GraderError
from grader.core.model import Limits, RunResult, TimedVerdict, Verdict
from grader.grading.timed_runs import Program, timed_run
from grader.leaderboard.cores import ROUNDS, allowed_cores, look, reference_runs
from grader.leaderboard.measuring import Place
from grader.leaderboard.places import MachineFacts, Survey, WorkerPlaces, assign, machines_of
from grader.leaderboard.quiet import LOOK_SECONDS, start_look
from grader.statistics.timing import Rule, pinned

if TYPE_CHECKING:
    from distributed import Worker as DaskWorker

    from grader.grading.cluster_worker import CaseData, Source

GONE_CHECK_SECONDS = 2.0  # how often a run's worker is looked for while it runs
# Beyond what a task's limits let it take: its wait in its worker's queue (behind
# another client's task, say), the sandbox's set-up. A worker that answers no sooner is
# no place to time on: its thread may be stuck, and it would hold the session for ever.
SLACK_SECONDS = 60.0
SURVEY_SECONDS = 600.0  # the survey waits for whatever the worker is doing for others
BOOT_ID = Path("/proc/sys/kernel/random/boot_id")


# ------------------------------------------------------------------ on a worker


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


# A cluster's machine's core is left out only when each of this many looks, one after
# the other, shows the fastest core significantly faster: a burst of other work on one
# core during one look (a VM's interrupts) is not the core. (This machine's cores take
# one look: grader.leaderboard.cores.calibrate.)
LOOKS = 2


def survey_task(rounds: int, look_seconds: float = LOOK_SECONDS) -> Survey:
    """On one worker of a machine: the look at its load, with its cores' reference runs
    made while the look lasts (this process's own CPU time is not other work's)."""
    looking = start_look(look_seconds)
    looks = tuple(reference_runs(allowed_cores(), rounds) for _ in range(LOOKS))
    return Survey(looks, looking.finish())


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
    """This worker thread (and what it starts) on `core` for the run, then as before: a
    run the place's core cannot take is not timed elsewhere (TimingFailed)."""
    if core is None:
        yield
        return
    with pinned(core) as done:
        if not done:
            raise TimingFailed(f"core {core} cannot be used here")
        yield


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
        looks: bool = False,
    ) -> None:
        from grader.grading.cluster import cases_task

        self.client, self.plugin, self.places = client, plugin, found.places
        self.limits, self.build_limits, self.warmups = limits, build_limits, warmups
        # With looks, places are looked at (look): the survey's left-out cores wait.
        self.fastest = found.fastest
        self.waiting = found.waiting if looks else ()
        self.looks = looks
        self.data = cases_task(client, cases, f"grader-timing-cases-{uuid.uuid4().hex[:12]}")
        self.sources: dict[str, Source] = {}
        # Workers that left or did not answer in time (and why): their places time no more.
        self.gone: dict[str, str] = {}
        # The longest a run (or a look) may take on its worker: a run's build (the first
        # there), its warm-ups and itself at their limits.
        self.within = (
            build_limits.wall_seconds + (warmups + 1) * limits.wall_seconds + SLACK_SECONDS
        )

    def enter(self, place: Place) -> Place:
        return place

    def look(self, place: Place) -> list[float]:
        """A look at the place, made by its worker (a worker gone, or failing, is no
        place to time on: [], which agrees with nothing)."""
        if not self.looks or place.core is None or place.worker in self.gone:
            return []
        try:
            future = self.client.submit(
                look,  # on the place's worker: the reference work on its core
                place.core,
                ROUNDS,
                workers=[place.worker],
                allow_other_workers=False,
                pure=False,
            )
            found: list[float] = future_result(self.client, future, place.worker, self.within)
        except WorkerGone as error:
            self.gone[place.worker] = str(error)
            return []
        except Exception:  # noqa: BLE001  the worker's failure: not a place to time on now
            return []
        return found

    def run(
        self, place: Place, program: Program, case: Case, timed: bool
    ) -> tuple[TimedVerdict, RunResult]:
        try:
            if place.worker in self.gone:
                raise WorkerGone(self.gone[place.worker])
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
            found: tuple[TimedVerdict, RunResult] = future_result(
                self.client, future, place.worker, self.within
            )
            return found
        except WorkerGone as error:
            self.gone[place.worker] = str(error)
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


class WorkerSilent(WorkerGone):
    """The worker a task was sent to did not answer within the task's bound: no more a
    place to time on than one that left."""


def future_result(client: Any, future: Any, worker: str, within: float) -> Any:
    """The task's result, waiting while its worker is still in the cluster (else
    WorkerGone), for `within` seconds at most (then WorkerSilent)."""
    from distributed import TimeoutError as DaskTimeout

    deadline = time.monotonic() + within
    while True:
        try:
            return future.result(
                timeout=max(0.01, min(GONE_CHECK_SECONDS, deadline - time.monotonic()))
            )
        except (DaskTimeout, TimeoutError):
            if worker not in client.scheduler_info().get("workers", {}):
                client.cancel([future])
                raise WorkerGone(f"worker {worker} left the cluster") from None
            if time.monotonic() >= deadline:
                client.cancel([future])
                raise WorkerSilent(
                    f"worker {worker} did not answer within {within:.0f} s"
                ) from None


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
                ROUNDS,
                workers=[m.workers[0].address],
                allow_other_workers=False,
                pure=False,
            )
            for m in machines
        }
        first = {m.facts.machine: m.workers[0].address for m in machines}
        surveys = {
            machine: future_result(client, f, first[machine], SURVEY_SECONDS)
            for machine, f in futures.items()
        }
    except Exception as error:  # noqa: BLE001  the cluster's failure, in one line
        raise ClusterError(
            f"cannot survey the cluster's workers: {type(error).__name__}: {error}"
        ) from None
    found = assign(machines, surveys, rule, go_on)
    for note in found.notes:
        say(note)
    return found
