"""One grading run: build each submission, run every pending case, store each
result the moment it exists.

Where the work runs is an Executor: threads on this machine, or a Dask
cluster (grader.grading.cluster). Either way every outcome is stored by one writer,
under a lock, the moment it arrives, so an interrupted run keeps everything
that finished; the next run skips it.

What a student sees comes only from runs that could not have learned a hidden input
(the store's `exposed`). THE RULE: no run whose output a student may see overlaps in
time, on one machine, with a hidden run of any submission. So a grading session is
two phases: first every build and every visible run of every submission (its public
cases, then its probes: pool puzzles alike to the hidden cases, grader.grading.counterexamples.
choose_probes), and only once all of them have ended, the hidden runs of every
submission (threads here and the Dask cluster's workers alike: _Session and grader.
cluster). Two grading processes on one machine keep the rule between them too
(grader.grading.machine_order: visible phases share the machine, a hidden phase has it alone).
A run started after a hidden run of the same submission (a public case added to a
class graded already, say) is stored as exposed. Probes are skipped when a public case
reached a limit (each would likely cost the whole limit again), and stop at the first
one that does.
"""

import threading
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field, replace
from enum import Enum
from pathlib import Path
from typing import NamedTuple, Protocol

from grader.build.builder import Artifact, build
from grader.cases.manifest import Case
from grader.core import verdicts
from grader.core.model import Verdict
from grader.core.rules import rules_version
from grader.course.config import CourseConfig
from grader.grading.machine_order import machine_order
from grader.intake.submissions import Submission
from grader.judge.canary import Canaries, blamed, build_blame
from grader.judge.judging import Judgement, record_pool_judgement, run_case
from grader.sandbox.base import Sandbox
from grader.store import Store


class EventKind(str, Enum):
    BUILD = "build"  # a submission's build finished (or could not start): `artifact`
    RUN = "run"  # one case or probe was judged (`case` and `verdict`), or skipped (no verdict)

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
    """What a grading run will do: per submission, the cases still to judge and the
    probes still to run (both by submission id), and which submissions have started a
    hidden run already (what they run now is exposed)."""

    submissions: list[Submission]
    todo: dict[str, list[Case]]
    probes: dict[str, list[Case]] = field(default_factory=dict)
    exposed: set[str] = field(default_factory=set)

    @property
    def total(self) -> int:
        return sum(len(cases) for cases in self.todo.values()) + sum(
            len(probes) for probes in self.probes.values()
        )

    def public(self, sub_id: str) -> list[Case]:
        return [case for case in self.todo.get(sub_id, ()) if case.public]

    def hidden(self, sub_id: str) -> list[Case]:
        return [case for case in self.todo.get(sub_id, ()) if not case.public]

    def has_work(self, sub_id: str) -> bool:
        return bool(self.todo.get(sub_id) or self.probes.get(sub_id))


def plan(
    submissions: Sequence[Submission],
    cases: Sequence[Case],
    store: Store,
    *,
    probes: Sequence[Case] = (),
    force: bool = False,
) -> Plan:
    """Record the submissions and work out what is left to grade: the cases not judged
    yet, and the probes not run yet (none for a submission already exposed: their
    output could not be shown)."""
    work = Plan(list(submissions), {})
    for sub in submissions:
        store.record_submission(sub)
        if force:
            store.forget(sub.id)
        pending = pending_cases(store, sub, cases)
        if pending:
            work.todo[sub.id] = pending
        if store.exposed(sub.id, sub.content_hash):
            work.exposed.add(sub.id)
        elif sub.problem is None and not _limit_reached(store, sub, cases):
            ran = store.pool_runs(sub.id, sub.content_hash)
            left = [p for p in probes if (p.id, p.version) not in ran]
            if left:
                work.probes[sub.id] = left
    return work


def _limit_reached(store: Store, sub: Submission, cases: Sequence[Case]) -> bool:
    """A stored public run or probe of this content stopped at a limit: the probes still
    to run are skipped, as the grading run that stored it skipped them (a resumed grade
    makes exactly the runs a clean one makes)."""
    public = {(c.id, c.version) for c in cases if c.public}
    runs = store.runs(sub.id, sub.content_hash)
    if any(run.verdict in verdicts.LIMIT for key, run in runs.items() if key in public):
        return True
    probes = store.pool_runs(sub.id, sub.content_hash).values()
    return any(Verdict(run.verdict) in verdicts.LIMIT for run in probes)


class Built(NamedTuple):
    """A submission's build finished (or could not start)."""

    submission: Submission
    artifact: Artifact


class Judged(NamedTuple):
    """One run finished and was judged (`probe`: a pool puzzle's, not a case's)."""

    submission: Submission
    case: Case
    judgement: Judgement
    probe: bool = False


class HiddenStarting(NamedTuple):
    """The submission's hidden runs start now: every run of it from here on is exposed."""

    submission: Submission


class Skipped(NamedTuple):
    """A probe not run (a public case or an earlier probe reached a limit)."""

    submission: Submission
    case: Case


Outcome = Built | Judged | HiddenStarting | Skipped


class Executor(Protocol):
    """Where builds and runs happen: threads on this machine (ThreadExecutor), or the
    workers of a Dask cluster (grader.grading.cluster). An executor never writes the store: it
    hands every outcome to `deliver` as it finishes, and `grade` stores it."""

    def run(self, work: Plan, deliver: Callable[[Outcome], None], *, force: bool) -> None:
        """Build each submission with work to do, then run its public cases, then its
        probes (deliver(Skipped) for each one not run: see the module docstring), then,
        once all of those have ended, deliver(HiddenStarting) and run its hidden cases;
        deliver(Built) once its build is done, deliver(Judged) for each run (none after
        a failed build). Delivering the same outcome twice is harmless."""


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
        self.probed: set[tuple[str, str]] = set()

    def deliver(self, outcome: Outcome) -> None:
        with self.lock:
            if isinstance(outcome, Built):
                self._built(outcome.submission, outcome.artifact)
            elif isinstance(outcome, HiddenStarting):
                sub = outcome.submission
                self.store.record_exposure(sub.id, sub.content_hash)
            elif isinstance(outcome, Skipped):
                self._skipped(outcome.submission, outcome.case)
            elif outcome.probe:
                self._probed(outcome.submission, outcome.case, outcome.judgement)
            else:
                self._judged(outcome.submission, outcome.case, outcome.judgement)

    def _exposed(self, sub: Submission, case: Case) -> bool:
        """Could this run have learned a hidden input: its own is hidden, or the
        submission had started a hidden run before this grading run planned it."""
        return not case.public or sub.id in self.work.exposed

    def _probed(self, sub: Submission, puzzle: Case, judgement: Judgement) -> None:
        if (sub.id, puzzle.id) in self.probed:
            return
        self.probed.add((sub.id, puzzle.id))
        record_pool_judgement(self.store, sub, puzzle, judgement, self._exposed(sub, puzzle))
        self.on_event(Event(EventKind.RUN, sub, puzzle, judgement.verdict))

    def _skipped(self, sub: Submission, puzzle: Case) -> None:
        if (sub.id, puzzle.id) not in self.probed:
            self.probed.add((sub.id, puzzle.id))
            self.on_event(Event(EventKind.RUN, sub, puzzle))

    def _built(self, sub: Submission, artifact: Artifact) -> None:
        if sub.id in self.built:
            return
        self.built.add(sub.id)
        if sub.problem is None and not artifact.internal:
            self.store.record_build(sub.content_hash, artifact)
        self.on_event(Event(EventKind.BUILD, sub, artifact=artifact))
        if artifact.ok:
            return
        # A failed build is final under any rules (nothing ran to judge): CE is stamped
        # with the current ones; IE with none (the grader's failure, retried).
        judgement = Judgement(
            Verdict.IE if artifact.internal else Verdict.CE,
            _build_diagnosis(sub, artifact),
            rules=None if artifact.internal else rules_version(),
        )
        for case in self.work.todo.get(sub.id, ()):
            self._judged(sub, case, judgement)
        for puzzle in self.work.probes.get(sub.id, ()):
            self._skipped(sub, puzzle)

    def _judged(self, sub: Submission, case: Case, judgement: Judgement) -> None:
        if (sub.id, case.id) in self.judged:
            return
        self.judged.add((sub.id, case.id))
        self.store.record_run(
            sub,
            case,
            judgement.verdict,
            judgement.diagnosis,
            judgement.result,
            policy_only=judgement.policy_only,
            kind=judgement.kind,
            exposed=self._exposed(sub, case),
            rules=judgement.rules,
        )
        self.on_event(Event(EventKind.RUN, sub, case, judgement.verdict))


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


class _Phases:
    """One submission's runs after its build, in order: public cases, then probes (one
    task, one after the other), then hidden cases once everything before has ended."""

    def __init__(self, sub: Submission, artifact: Artifact, work: Plan) -> None:
        self.sub, self.artifact = sub, artifact
        self.public = work.public(sub.id)
        self.probes = list(work.probes.get(sub.id, ()))
        self.hidden = work.hidden(sub.id)
        self.stage = "built"  # then public, probes, hidden, done
        self.open = 0  # runs of the current phase not finished yet
        self.limit_reached = False  # a public case stopped at a limit: no probes


class _Session:
    """The grading session's two phases: the hidden runs of every submission wait until
    every build and visible run of every submission has ended (THE RULE)."""

    def __init__(self, submissions: int) -> None:
        self.visible_left = submissions  # submissions whose visible phase has not ended
        self.parked: list[_Phases] = []  # visible phase ended, hidden runs to start

    def visible_ended(self, phases: "_Phases | None" = None) -> list["_Phases"]:
        """A submission's visible phase ended (`phases`: with hidden runs to start);
        the submissions whose hidden runs may start now (all of them, once the last
        visible phase has ended)."""
        if phases is not None:
            self.parked.append(phases)
        self.visible_left -= 1
        if self.visible_left > 0:
            return []
        ready, self.parked = self.parked, []
        return ready


class ThreadExecutor:
    """`jobs` threads on this machine (each sandboxed program is its own process, so
    threads suffice); builds go to cache_root."""

    def __init__(
        self,
        sandbox: Sandbox,
        config: CourseConfig,
        cache_root: Path,
        jobs: int = 1,
        canaries: Canaries | None = None,
    ):
        """`canaries`: the grading process's own (kept open), else one for this run."""
        self.sandbox, self.config, self.cache_root = sandbox, config, cache_root
        self.jobs = max(1, jobs)
        self.given = canaries

    def run(self, work: Plan, deliver: Callable[[Outcome], None], *, force: bool) -> None:
        once = _BuildOnce()
        self.canaries = self.given or Canaries(
            self.sandbox,
            self.config.build_limits,
            self.config.limits,
            self.cache_root / "canaries",
            first_puzzle(work),
        )
        try:
            self._execute(work, deliver, force, once)
        finally:
            if self.given is None:
                self.canaries.close()

    def _execute(
        self, work: Plan, deliver: Callable[[Outcome], None], force: bool, once: "_BuildOnce"
    ) -> None:
        with ThreadPoolExecutor(max_workers=self.jobs) as pool, machine_order() as machine:
            self.pool, self.deliver, self.machine = pool, deliver, machine
            graded = [sub for sub in work.submissions if work.has_work(sub.id)]
            self.session = _Session(len(graded))
            running: set[Future[Built | _Phases]] = {
                pool.submit(self._build, sub, force, once, deliver) for sub in graded
            }
            try:
                while running:
                    finished, running = wait(running, return_when=FIRST_COMPLETED)
                    for future in finished:
                        running |= self._follow_up(future.result(), work)
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
                    sub,
                    self.cache_root,
                    self.sandbox,
                    self.config.build_limits,
                    force=force,
                    blame=build_blame(self.canaries, sub.language),
                ),
            ),
        )
        deliver(built)  # in the worker thread: stored even if the run is interrupted now
        return built

    def _judge(self, phases: _Phases, case: Case) -> Judgement:
        sub = phases.sub
        assert sub.language is not None, "built: it has a language"
        judgement = run_case(
            phases.artifact, sub.language, case, self.sandbox, self.config.limits, sub.facts
        )
        return blamed(judgement, sub.language, self.canaries)

    def _run(self, phases: _Phases, case: Case) -> _Phases:
        judgement = self._judge(phases, case)
        if case.public and judgement.verdict in verdicts.LIMIT:
            phases.limit_reached = True
        self.deliver(Judged(phases.sub, case, judgement))
        return phases

    def _probe(self, phases: _Phases) -> _Phases:
        """The probes one after the other, none after one that reached a limit."""
        stop = phases.limit_reached
        for puzzle in phases.probes:
            if stop:
                self.deliver(Skipped(phases.sub, puzzle))
                continue
            judgement = self._judge(phases, puzzle)
            stop = judgement.verdict in verdicts.LIMIT
            self.deliver(Judged(phases.sub, puzzle, judgement, probe=True))
        return phases

    def _follow_up(self, done: Built | _Phases, work: Plan) -> set[Future[Built | _Phases]]:
        """What may start now that `done` has: after a good build, its first phase;
        once a phase's last run has ended, the next phase."""
        if isinstance(done, Built):
            if done.artifact.ok:
                return self._next(_Phases(done.submission, done.artifact, work))
            return self._hidden(self.session.visible_ended())
        done.open -= 1
        return self._next(done) if done.open == 0 else set()

    def _next(self, phases: _Phases) -> set[Future[Built | _Phases]]:
        """The next phase that has runs, started."""
        if phases.stage == "built":
            phases.stage = "public"
            if phases.public:
                return self._start(phases, phases.public)
        if phases.stage == "public":
            phases.stage = "probes"
            if phases.probes:
                phases.open = 1
                return {self.pool.submit(self._probe, phases)}
        if phases.stage == "probes":  # its visible phase has ended
            phases.stage = "hidden"
            return self._hidden(self.session.visible_ended(phases if phases.hidden else None))
        phases.stage = "done"
        return set()

    def _hidden(self, ready: list[_Phases]) -> set[Future[Built | _Phases]]:
        """The hidden runs of `ready` started (none until every visible phase ended)."""
        if ready:
            self.machine.hidden()  # this machine: no other grading's visible run from now
        started: set[Future[Built | _Phases]] = set()
        for phases in ready:
            self.deliver(HiddenStarting(phases.sub))
            started |= self._start(phases, phases.hidden)
        return started

    def _start(self, phases: _Phases, cases: list[Case]) -> set[Future[Built | _Phases]]:
        phases.open = len(cases)
        return {self.pool.submit(self._run, phases, case) for case in cases}


def first_puzzle(work: Plan) -> Path | None:
    """A puzzle of the plan for the canaries to read (None: nothing to run)."""
    for cases in (*work.todo.values(), *work.probes.values()):
        for case in cases:
            return case.input
    return None


def _build_diagnosis(sub: Submission, artifact: Artifact) -> str:
    if sub.problem is not None:
        return f"not graded: {sub.problem}"
    if artifact.internal:
        return f"the grader could not build the program: {artifact.log}"
    first = artifact.log.strip().splitlines()[:1]
    return "the program did not build" + (f": {first[0]}" if first else "")
