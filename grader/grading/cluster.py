"""Grade on a Dask cluster: the client side (the worker side is grader.grading.cluster_worker).

    grader grade --cluster tcp://scheduler:8786     # a running scheduler and its workers
    grader grade --cluster local:4                  # 4 worker processes on this machine

The unit of work is one submission's build, then its pending cases in tasks of
`cases_per_task` runs that depend on the build (Dask starts them where the build
ran, so a worker usually builds a content once; a task that lands elsewhere
builds there, once per worker). A TLE holds up only its own task. Units are
submitted a few per worker thread at a time, so a class of 50,000 does not put
250,000 tasks on the scheduler at once. A session is two phases (grader.grading.session's
rule): every build, public case and probe of the class, then, once all have ended, the
hidden cases of every submission.

This process stays the only writer of the store: every outcome is delivered to
grading.grade the moment its task returns. A worker lost mid-task: Dask runs the
task again elsewhere; an outcome delivered twice is stored once. A task that
kills its worker every time (Dask gives up after a few) or that fails in the
grader is IE, retried on the next run. A worker that refuses work (no sandbox)
is named in one line and closed; its tasks go elsewhere.
"""

import contextlib
import logging
import re
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from grader.build.builder import Artifact
from grader.cases.manifest import Case
from grader.core.errors import GraderError
from grader.core.model import Verdict
from grader.course.config import CourseConfig
from grader.grading.session import Built, HiddenStarting, Judged, Outcome, Plan, Skipped
from grader.intake.submissions import Submission
from grader.judge.judging import Judgement

if TYPE_CHECKING:
    from distributed import Scheduler

    from grader.grading.cluster_worker import CaseData, WorkerRefused

INSTALL_HINT = (
    "grading on a cluster needs Dask: pip install 'scramble-grader[cluster]' "
    "(in a checkout: .venv/bin/pip install -e '.[cluster]')"
)
CONNECT_TIMEOUT = "20s"
UNITS_PER_THREAD = 2  # submissions in flight per worker thread: busy, not flooded
WINDOW_REFRESH_SECONDS = 5.0  # how often the number of worker threads is asked again


class ClusterError(GraderError):
    """The cluster cannot be used; str() is the one-line reason."""


@contextlib.contextmanager
def connect(address: str, *, say: Callable[[str], None]) -> Iterator[object]:
    """A Dask Client for `address` ("local:N" starts N worker processes here)."""
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise ClusterError(INSTALL_HINT) from None
    logging.getLogger("distributed").setLevel(logging.ERROR)  # its chatter hides our bar
    local = re.fullmatch(r"local:(\d+)", address)
    with contextlib.ExitStack() as stack:
        if local:
            workers = int(local.group(1))
            if workers < 1:
                raise ClusterError(f"--cluster {address}: at least one worker (local:1)")
            import dask

            # Dask's statistical profiler samples every worker thread 100 times a second:
            # CPU taken from the programs being timed (docs/instructors/cluster.md: the same for `dask worker`).
            stack.enter_context(dask.config.set({"distributed.worker.profile.enabled": False}))
            # Called as Any: distributed's LocalCluster, Client and as_completed have no
            # annotations.
            cluster = stack.enter_context(
                cast(Any, LocalCluster)(
                    n_workers=workers,
                    threads_per_worker=1,
                    processes=True,
                    dashboard_address=None,
                    silence_logs=logging.ERROR,
                )
            )
            address = cluster.scheduler_address
        try:
            client = stack.enter_context(cast(Any, Client)(address, timeout=CONNECT_TIMEOUT))
        except (OSError, TimeoutError, ValueError) as error:
            raise ClusterError(
                f"cannot reach the Dask scheduler at {address}: {_one_line(error)}"
            ) from None
        if not client.scheduler_info().get("workers"):
            say(f"cluster: no worker has joined {address} yet; waiting for one")
        yield client


def workers_sandbox(config: CourseConfig) -> str:
    """What the workers run programs in (they refuse work without it)."""
    return "rlimits" if config.sandbox == "rlimits" else "bubblewrap"


@dataclass
class _Unit:
    """One submission's build and run tasks, and the cases and probes not delivered yet."""

    sub: Submission
    cases: list[Case]
    probes: list[Case] = field(default_factory=list)
    futures: dict[object, list[Case] | None] = field(default_factory=dict)  # None: build
    artifact: Artifact | None = None  # its build, once delivered
    source: object = None  # what a worker builds it from (cluster_worker.Source)

    @property
    def hidden(self) -> list[Case]:
        return [case for case in self.cases if not case.public]


class ClusterExecutor:
    """grading.Executor on the workers of a Dask cluster."""

    def __init__(
        self,
        client: Any,  # a distributed Client: most of its methods have no annotations
        config: CourseConfig,
        cases: Sequence[Case],
        *,
        say: Callable[[str], None],
    ):
        from grader.grading.cluster_worker import GraderPlugin

        self.client, self.config, self.say = client, config, say
        self.plugin = GraderPlugin(config.sandbox)
        self.cases = list(cases)
        self.refused: set[str] = set()

    def run(self, work: Plan, deliver: Callable[[Outcome], None], *, force: bool) -> None:

        pending: list[_Unit] = []
        for sub in work.submissions:
            if not work.has_work(sub.id):
                continue
            if sub.problem is not None:  # nothing to send: CE with the reason, here
                deliver(Built(sub, Artifact(False, Path(), sub.problem)))
            else:
                pending.append(
                    _Unit(sub, list(work.todo.get(sub.id, ())), list(work.probes.get(sub.id, ())))
                )
        if not pending:
            return
        self.client.register_plugin(self.plugin)
        self.tag = uuid.uuid4().hex[:12]  # task keys of this run only: a rerun starts afresh
        probes = {p for unit in pending for p in unit.probes}
        self.case_data = cases_task(self.client, [*self.cases, *probes], f"grader-cases-{self.tag}")
        self.deliver, self.force = deliver, force
        try:
            # THE RULE (grader.grading.session): every build and visible run of every
            # submission ends before any hidden run starts, on every worker.
            self._phase(list(reversed(pending)), self._submit)
            hidden = [u for u in pending if u.hidden and u.artifact is not None and u.artifact.ok]
            for unit in hidden:
                self.deliver(HiddenStarting(unit.sub))
            self._phase(list(reversed(hidden)), self._submit_hidden)
        finally:
            with contextlib.suppress(Exception):  # the cluster may be gone
                self.client.cancel([self.case_data])

    def _phase(self, pending: list[_Unit], submit: Callable[[_Unit], None]) -> None:
        """Submit each unit's tasks of this phase, a window at a time (pop() from the end:
        submissions go out in class order), and deliver each outcome as it arrives."""
        from distributed import as_completed

        self.done = cast(Any, as_completed)()
        self.owner: dict[object, _Unit] = {}
        self.submit = submit
        window, asked = self._window(), time.monotonic()
        try:
            self._top_up(pending, window)
            for future in self.done:
                unit = self.owner.pop(future, None)
                if unit is not None:
                    self._finished(future, unit)
                if time.monotonic() - asked > WINDOW_REFRESH_SECONDS:
                    window, asked = self._window(), time.monotonic()
                self._top_up(pending, window)
        finally:  # interrupted or failed: stop what is still queued (cluster may be gone)
            with contextlib.suppress(Exception):
                self.client.cancel(list(self.owner))

    def _window(self) -> int:
        threads: int = sum(self.client.nthreads().values())
        return max(2, UNITS_PER_THREAD * threads)

    def _top_up(self, pending: list[_Unit], window: int) -> None:
        in_flight = len({id(unit) for unit in self.owner.values()})
        while pending and in_flight < window:
            self.submit(pending.pop())
            in_flight += 1

    def _submit(self, unit: _Unit) -> None:
        from grader.grading.cluster_worker import Source, build_task

        sub = unit.sub
        try:
            source = Source.of(sub)
        except OSError as error:
            self.deliver(
                Built(
                    sub,
                    Artifact(
                        False,
                        Path(),
                        f"cannot read {error.filename or sub.source}: {error.strerror or error}",
                        internal=True,
                    ),
                )
            )
            return
        unit.source = source
        name, key = self.plugin.name, self._key(sub)
        built = self.client.submit(
            build_task,
            name,
            source,
            self.config.build_limits,
            self.force,
            self.config.limits,
            key=f"grader-build-{key}",
            pure=False,
        )
        unit.futures = {built: None}
        # Public cases, then the probes (their tasks' dependencies: once the public
        # runs have ended); the hidden cases wait for the next phase.
        public = [case for case in unit.cases if case.public]
        visible = self._runs(unit, name, key, "public", built, source, public, [])
        if unit.probes:
            self._runs(unit, name, key, "probe", built, source, unit.probes, visible)
        self._own(unit)

    def _submit_hidden(self, unit: _Unit) -> None:
        """Its hidden cases' tasks, on its build (delivered already)."""
        key = self._key(unit.sub)
        unit.futures = {}
        self._runs(
            unit, self.plugin.name, key, "hidden", unit.artifact, unit.source, unit.hidden, []
        )
        self._own(unit)

    def _key(self, sub: Submission) -> str:
        return f"{_key_safe(sub.id)}-{self.tag}-{uuid.uuid4().hex[:6]}"

    def _own(self, unit: _Unit) -> None:
        for future in unit.futures:
            self.owner[future] = unit
            self.done.add(future)

    def _runs(
        self,
        unit: _Unit,
        name: str,
        key: str,
        kind: str,
        built: object,
        source: object,
        cases: list[Case],
        after: list[object],
    ) -> list[object]:
        """Tasks of `cases` (probes: one task) that start once `after` have ended."""
        from grader.grading.cluster_worker import run_task

        size = len(cases) if kind == "probe" else self.config.cluster.cases_per_task
        futures = []
        for start in range(0, len(cases), size):
            chunk = cases[start : start + size]
            future = self.client.submit(
                run_task,
                name,
                built,
                source,
                chunk,
                self.case_data,
                self.config.limits,
                self.config.build_limits,
                list(after),
                kind == "probe",
                key=f"grader-{kind}-{start}-{key}",
                pure=False,
            )
            unit.futures[future] = chunk
            futures.append(future)
        return futures

    def _finished(self, future: Any, unit: _Unit) -> None:
        # `future`: a distributed Future, whose exception() has no annotations.
        if future not in unit.futures or future.status == "cancelled":
            return  # delivered already, or given up
        chunk = unit.futures[future]
        if future.status == "finished":
            self._deliver(unit, chunk, future.result())
            return
        error = future.exception()
        from grader.grading.cluster_worker import WorkerRefused

        if isinstance(error, WorkerRefused):
            self._refused(error, unit)
            return
        why = (
            f"the cluster failed to {'build' if chunk is None else 'run'} it: "
            f"{type(error).__name__}: {_one_line(error)}"
        )
        if chunk is None:
            self.deliver(Built(unit.sub, Artifact(False, Path(), why, internal=True)))
        else:
            for case in chunk:
                if case in unit.probes:
                    self.deliver(Skipped(unit.sub, case))
                else:
                    self.deliver(Judged(unit.sub, case, Judgement(Verdict.IE, why)))
            self._forget(unit, chunk)

    def _deliver(self, unit: _Unit, chunk: list[Case] | None, result: Any) -> None:
        # `result`: build_task's Artifact (chunk None), else run_task's (case id, judgement)s.
        if chunk is None:
            unit.artifact = result
            self.deliver(Built(unit.sub, result))
            if not result.ok:
                unit.cases, unit.probes = [], []
            return
        by_id = {case.id: case for case in chunk}
        probe = all(case in unit.probes for case in chunk)
        for case_id, judgement in result:
            case = by_id[case_id]
            if judgement is None:
                self.deliver(Skipped(unit.sub, case))
            else:
                self.deliver(Judged(unit.sub, case, judgement, probe=probe))
        self._forget(unit, chunk)

    def _forget(self, unit: _Unit, chunk: list[Case]) -> None:
        unit.cases = [case for case in unit.cases if case not in chunk]
        unit.probes = [case for case in unit.probes if case not in chunk]

    def _refused(self, error: "WorkerRefused", unit: _Unit) -> None:
        """Name the worker once, close it, send what is left of the unit again."""
        if error.address not in self.refused:
            self.refused.add(error.address)
            self.say(f"cluster: {error}; closing it")
            self._close_worker(error.address)
        siblings = [f for f, owner in self.owner.items() if owner is unit]
        for future in siblings:
            self.owner.pop(future, None)
        self.client.cancel(siblings)
        workers = set(self.client.scheduler_info().get("workers", {})) - self.refused
        if not workers:
            raise ClusterError(f"no worker left that can grade: {error}")
        if unit.cases or unit.probes:
            self.submit(unit)  # what is left of this phase

    def _close_worker(self, address: str) -> None:
        """Ask the scheduler to close the worker (and its nanny). Not retire_workers: it
        keeps a worker that holds data no other worker has (the case files, say)."""

        # Sent by value: the scheduler needs no grader.
        def close(dask_scheduler: "Scheduler") -> None:
            dask_scheduler.close_worker(address)

        with contextlib.suppress(Exception):  # gone already: nothing to close
            self.client.run_on_scheduler(close)


def cases_task(client: Any, cases: Sequence[Case], key: str) -> Any:
    """A future of the cases' files (_case_data), under `key`: each worker fetches them
    from a holder when its first task needs them. Not scattered with broadcast: the
    scheduler's replicate that starts can wait for ever (seen here: the cluster tests
    beside the leaderboard's hung in 3 runs of 11, and both stacks kept were waiting in
    a broadcast scatter)."""
    return client.submit(_case_data, case_payload(cases), key=key, pure=False)


def _case_data(payload: "CaseData") -> "CaseData":
    """A task whose result is the case files: fetched once by each worker that needs
    them, and recomputed (from the task itself) if every holder is lost."""
    return payload


def case_payload(cases: Sequence[Case]) -> "CaseData":
    """The cases' files, as a worker takes them (grader.grading.cluster_worker.CaseData)."""
    return {
        case.version: (case.input.name, case.input.read_bytes(), case.expected.read_bytes())
        for case in cases
    }


def _key_safe(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]", "_", text)[:40]


def _one_line(error: BaseException) -> str:
    return " ".join(str(error).split()) or type(error).__name__
