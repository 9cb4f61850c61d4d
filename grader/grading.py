"""One grading run: build each submission, run every pending case, store each
result the moment it exists.

Work is spread over `jobs` threads (each sandboxed program is its own
process, so threads suffice). Results are written by the thread that
produced them, under a lock, so an interrupted run keeps everything that
finished; the next run skips it.
"""

import threading
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence

from grader.build import Artifact, build
from grader.cases import Case
from grader.config import CourseConfig
from grader.judge import run_case
from grader.model import Verdict
from grader.store import Store
from grader.submissions import Submission


@dataclass(frozen=True)
class Event:
    """Something the user may want to see: a build finished or a run finished."""

    kind: str  # "build" or "run"
    submission: Submission
    case: Optional[Case] = None
    verdict: Optional[Verdict] = None
    artifact: Optional[Artifact] = None


class _LockedStore:
    """The store, safe to call from worker threads."""

    def __init__(self, store: Store):
        self.store = store
        self.lock = threading.Lock()

    def __getattr__(self, name):
        method = getattr(self.store, name)

        def locked(*args, **kwargs):
            with self.lock:
                return method(*args, **kwargs)
        return locked


def pending_cases(store: Store, sub: Submission, cases: Sequence[Case]) -> List[Case]:
    done = store.done(sub.id, sub.content_hash)
    return [case for case in cases if (case.id, case.version) not in done]


@dataclass
class Plan:
    """What a grading run will do: per submission, the cases still to judge."""

    submissions: List[Submission]
    todo: Dict[str, List[Case]]

    @property
    def total(self) -> int:
        return sum(len(cases) for cases in self.todo.values())


def plan(submissions: Sequence[Submission], cases: Sequence[Case], store: Store,
         *, force: bool = False) -> Plan:
    """Record the submissions and work out what is left to grade."""
    todo: Dict[str, List[Case]] = {}
    for sub in submissions:
        store.record_submission(sub)
        if force:
            store.forget(sub.id)
        pending = pending_cases(store, sub, cases)
        if pending:
            todo[sub.id] = pending
    return Plan(list(submissions), todo)


class _BuildOnce:
    """One build per content in a grading run: identical submissions share it
    (the others wait for it), and --force rebuilds each content once, not once
    per copy while the other copies run in its folder. A build that failed in
    the grader (IE) is not kept: the next copy tries again."""

    def __init__(self):
        self.lock = threading.Lock()
        self.locks: Dict[str, threading.Lock] = {}
        self.done: Dict[str, Artifact] = {}

    def build(self, sub: Submission, make: Callable[[], Artifact]) -> Artifact:
        with self.lock:
            lock = self.locks.setdefault(sub.content_hash, threading.Lock())
        with lock:
            if sub.content_hash in self.done:
                return replace(self.done[sub.content_hash], cached=True)
            artifact = make()
            if not artifact.internal:
                self.done[sub.content_hash] = artifact
            return artifact


def execute(work: Plan, store: Store, sandbox, config: CourseConfig, cache_root: Path, *,
            jobs: int = 1, force: bool = False,
            on_event: Callable[[Event], None] = lambda event: None) -> None:
    """Build and run everything in the plan, storing each result as it comes."""
    locked = _LockedStore(store)
    once = _BuildOnce()
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        running = {pool.submit(_build, sub, locked, sandbox, config, cache_root, force, once)
                   for sub in work.submissions if sub.id in work.todo}
        try:
            while running:
                finished, running = wait(running, return_when=FIRST_COMPLETED)
                for future in finished:
                    running |= _follow_up(future, pool, work.todo, locked, sandbox, config,
                                          on_event)
        except BaseException:
            for future in running:
                future.cancel()
            raise


def _build(sub, store, sandbox, config, cache_root, force, once):
    if sub.problem is None:
        artifact = once.build(sub, lambda: build(sub, cache_root, sandbox, config.build_limits,
                                                 force=force))
    else:
        artifact = build(sub, cache_root, sandbox, config.build_limits, force=force)
    if sub.problem is None and not artifact.internal:
        store.record_build(sub.content_hash, artifact)
    return ("build", sub, artifact)


def _run(sub, case, artifact, store, sandbox, config):
    judgement = run_case(artifact, sub.language, case, sandbox, config.limits)
    store.record_run(sub, case, judgement.verdict, judgement.diagnosis, judgement.result)
    return ("run", sub, case, judgement)


def _follow_up(future: Future, pool, todo, store, sandbox, config, on_event) -> set:
    """After a build: its runs (or CE/IE for every case). After a run: report it."""
    kind, sub, *rest = future.result()
    if kind == "run":
        case, judgement = rest
        on_event(Event("run", sub, case, judgement.verdict))
        return set()
    artifact = rest[0]
    on_event(Event("build", sub, artifact=artifact))
    if artifact.ok:
        return {pool.submit(_run, sub, case, artifact, store, sandbox, config)
                for case in todo[sub.id]}
    verdict = Verdict.IE if artifact.internal else Verdict.CE
    diagnosis = _build_diagnosis(sub, artifact)
    for case in todo[sub.id]:
        store.record_run(sub, case, verdict, diagnosis)
        on_event(Event("run", sub, case, verdict))
    return set()


def _build_diagnosis(sub: Submission, artifact: Artifact) -> str:
    if sub.problem is not None:
        return f"not graded: {sub.problem}"
    if artifact.internal:
        return f"the grader could not build the program: {artifact.log}"
    first = artifact.log.strip().splitlines()[:1]
    return "the program did not build" + (f": {first[0]}" if first else "")
