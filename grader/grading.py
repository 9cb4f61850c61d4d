"""One grading run: build each submission, run every pending case, store each
result the moment it exists.

Where the work runs is an Executor: threads on this machine, or a Dask
cluster (grader.cluster). Either way every outcome is stored by one writer,
under a lock, the moment it arrives, so an interrupted run keeps everything
that finished; the next run skips it.
"""

import threading
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, replace
from enum import Enum
from pathlib import Path
from typing import NamedTuple, Protocol

from grader.build import Artifact, build
from grader.cases import Case
from grader.config import CourseConfig
from grader.judge import Judgement, run_case
from grader.model import RunResult, Verdict
from grader.sandbox.base import Sandbox
from grader.store import Store
from grader.submissions import Submission


class EventKind(str, Enum):
    BUILD = "build"  # a submission's build finished (or could not start): `artifact`
    RUN = "run"  # one case was judged: `case` and `verdict`

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class Event:
    """Something the user may want to see: a build finished or a run finished."""

    kind: EventKind
    submission: Submission
    case: Case | None = None
    verdict: Verdict | None = None
    artifact: Artifact | None = None


def pending_cases(store: Store, sub: Submission, cases: Sequence[Case]) -> list[Case]:
    done = store.done(sub.id, sub.content_hash)
    return [case for case in cases if (case.id, case.version) not in done]


@dataclass
class Plan:
    """What a grading run will do: per submission, the cases still to judge."""

    submissions: list[Submission]
    todo: dict[str, list[Case]]

    @property
    def total(self) -> int:
        return sum(len(cases) for cases in self.todo.values())


def plan(
    submissions: Sequence[Submission], cases: Sequence[Case], store: Store, *, force: bool = False
) -> Plan:
    """Record the submissions and work out what is left to grade."""
    todo: dict[str, list[Case]] = {}
    for sub in submissions:
        store.record_submission(sub)
        if force:
            store.forget(sub.id)
        pending = pending_cases(store, sub, cases)
        if pending:
            todo[sub.id] = pending
    return Plan(list(submissions), todo)


class Built(NamedTuple):
    """A submission's build finished (or could not start)."""

    submission: Submission
    artifact: Artifact


class Judged(NamedTuple):
    """One run finished and was judged."""

    submission: Submission
    case: Case
    judgement: Judgement


Outcome = Built | Judged


class Executor(Protocol):
    """Where builds and runs happen: threads on this machine (ThreadExecutor), or the
    workers of a Dask cluster (grader.cluster). An executor never writes the store: it
    hands every outcome to `deliver` as it finishes, and `grade` stores it."""

    def run(self, work: Plan, deliver: Callable[[Outcome], None], *, force: bool) -> None:
        """Build each submission in work.todo and run its pending cases, calling
        deliver(Built) once its build is done and deliver(Judged) for each run (none
        after a failed build). Delivering the same outcome twice is harmless."""


def grade(
    work: Plan,
    store: Store,
    executor: Executor,
    *,
    force: bool = False,
    on_event: Callable[[Event], None] = lambda event: None,
) -> None:
    """Build and run everything in the plan, storing each result as it comes."""
    executor.run(work, _Recorder(work, store, on_event).deliver, force=force)


def execute(
    work: Plan,
    store: Store,
    sandbox: Sandbox,
    config: CourseConfig,
    cache_root: Path,
    *,
    jobs: int = 1,
    force: bool = False,
    on_event: Callable[[Event], None] = lambda event: None,
) -> None:
    """Grade the plan with `jobs` threads on this machine."""
    grade(
        work,
        store,
        ThreadExecutor(sandbox, config, cache_root, jobs),
        force=force,
        on_event=on_event,
    )


class _Recorder:
    """Stores each outcome once, the moment it arrives (from any thread), and tells
    on_event. A repeat (a cluster reran work it had lost) is dropped."""

    def __init__(self, work: Plan, store: Store, on_event: Callable[[Event], None]):
        self.work, self.store, self.on_event = work, store, on_event
        self.lock = threading.Lock()
        self.built: set[str] = set()
        self.judged: set[tuple[str, str]] = set()

    def deliver(self, outcome: Outcome) -> None:
        with self.lock:
            if isinstance(outcome, Built):
                self._built(outcome.submission, outcome.artifact)
            else:
                sub, case, judgement = outcome
                self._judged(
                    sub,
                    case,
                    judgement.verdict,
                    judgement.diagnosis,
                    judgement.result,
                    judgement.policy_only,
                    judgement.kind,
                )

    def _built(self, sub: Submission, artifact: Artifact) -> None:
        if sub.id in self.built:
            return
        self.built.add(sub.id)
        if sub.problem is None and not artifact.internal:
            self.store.record_build(sub.content_hash, artifact)
        self.on_event(Event(EventKind.BUILD, sub, artifact=artifact))
        if artifact.ok:
            return
        verdict = Verdict.IE if artifact.internal else Verdict.CE
        diagnosis = _build_diagnosis(sub, artifact)
        for case in self.work.todo.get(sub.id, ()):
            self._judged(sub, case, verdict, diagnosis, None)

    def _judged(
        self,
        sub: Submission,
        case: Case,
        verdict: Verdict,
        diagnosis: str,
        result: RunResult | None,
        policy_only: bool = False,
        kind: str = "",
    ) -> None:
        if (sub.id, case.id) in self.judged:
            return
        self.judged.add((sub.id, case.id))
        self.store.record_run(
            sub, case, verdict, diagnosis, result, policy_only=policy_only, kind=kind
        )
        self.on_event(Event(EventKind.RUN, sub, case, verdict))


class _BuildOnce:
    """One build per content in a grading run: identical submissions share it
    (the others wait for it), and --force rebuilds each content once, not once
    per copy while the other copies run in its folder. A build that failed in
    the grader (IE) is not kept: the next copy tries again."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.locks: dict[str, threading.Lock] = {}
        self.done: dict[str, Artifact] = {}

    def build(self, sub: Submission, make: Callable[[], Artifact]) -> Artifact:
        if sub.problem is not None:  # nothing to build, nothing to share
            return make()
        with self.lock:
            lock = self.locks.setdefault(sub.content_hash, threading.Lock())
        with lock:
            if sub.content_hash in self.done:
                return replace(self.done[sub.content_hash], cached=True)
            artifact = make()
            if not artifact.internal:
                self.done[sub.content_hash] = artifact
            return artifact


class ThreadExecutor:
    """`jobs` threads on this machine (each sandboxed program is its own process, so
    threads suffice); builds go to cache_root."""

    def __init__(self, sandbox: Sandbox, config: CourseConfig, cache_root: Path, jobs: int = 1):
        self.sandbox, self.config, self.cache_root = sandbox, config, cache_root
        self.jobs = max(1, jobs)

    def run(self, work: Plan, deliver: Callable[[Outcome], None], *, force: bool) -> None:
        once = _BuildOnce()
        with ThreadPoolExecutor(max_workers=self.jobs) as pool:
            running = {
                pool.submit(self._build, sub, force, once, deliver)
                for sub in work.submissions
                if sub.id in work.todo
            }
            try:
                while running:
                    finished, running = wait(running, return_when=FIRST_COMPLETED)
                    for future in finished:
                        running |= self._follow_up(future, pool, work.todo, deliver)
            except BaseException:
                for future in running:
                    future.cancel()
                raise

    def _build(
        self, sub: Submission, force: bool, once: _BuildOnce, deliver: Callable[[Outcome], None]
    ) -> Built:
        built = Built(
            sub,
            once.build(
                sub,
                lambda: build(
                    sub, self.cache_root, self.sandbox, self.config.build_limits, force=force
                ),
            ),
        )
        deliver(built)  # in the worker thread: stored even if the run is interrupted now
        return built

    def _run(
        self, sub: Submission, case: Case, artifact: Artifact, deliver: Callable[[Outcome], None]
    ) -> None:
        assert sub.language is not None, "built: it has a language"
        judgement = run_case(
            artifact, sub.language, case, self.sandbox, self.config.limits, sub.facts
        )
        deliver(Judged(sub, case, judgement))

    def _follow_up(
        self,
        future: Future,
        pool: ThreadPoolExecutor,
        todo: dict[str, list[Case]],
        deliver: Callable[[Outcome], None],
    ) -> set[Future]:
        """After a good build: its runs."""
        outcome = future.result()
        if not isinstance(outcome, Built) or not outcome.artifact.ok:
            return set()
        sub, artifact = outcome
        return {pool.submit(self._run, sub, case, artifact, deliver) for case in todo[sub.id]}


def _build_diagnosis(sub: Submission, artifact: Artifact) -> str:
    if sub.problem is not None:
        return f"not graded: {sub.problem}"
    if artifact.internal:
        return f"the grader could not build the program: {artifact.log}"
    first = artifact.log.strip().splitlines()[:1]
    return "the program did not build" + (f": {first[0]}" if first else "")
