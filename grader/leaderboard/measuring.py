"""Measuring: the timed runs still missing, then running them, storing each at once.

By default every agreeing core (grader.leaderboard.cores) runs one timed run at a time,
each worker thread pinned to its own core (the programs it starts inherit the pinning),
and the session races (grader.leaderboard.racing): warm-ups, then the first runs of
every program round-robin, then the current rank-1 set timed fully, then a program
shown slower than every one of it stops; the others go on round by round. With
`exhaustive`, today's full session: one core, every run of every program, round-robin.
Within a round, the programs that may tie run back to back at one place
(grader.leaderboard.batches).
"""

import collections
import os
import random
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from grader.cases.manifest import Case
from grader.core.model import Limits, RunResult, TimedVerdict, Verdict
from grader.course.config import CourseConfig
from grader.grading.timed_runs import Program, timed_run
from grader.leaderboard.batches import batches
from grader.leaderboard.cores import agrees
from grader.leaderboard.racing import first_look, next_step
from grader.leaderboard.session import Session
from grader.leaderboard.standings import leading_totals, stopped_by_race
from grader.sandbox.base import Sandbox
from grader.statistics.timing import Rule, median
from grader.store import Store, TimingRow


@dataclass
class TimingPlan:
    """The timed runs still missing, per (program id, case id): their run indices."""

    session: Session
    warmup: int
    todo: dict[tuple[str, str], list[int]]

    @property
    def total(self) -> int:
        return sum(len(runs) + self.warmup for runs in self.todo.values())


@dataclass(frozen=True)
class TimedRunEvent:
    program: Program
    case: Case
    run_index: int | None  # None for a warm-up run
    verdict: TimedVerdict
    cpu_seconds: float


@dataclass(frozen=True)
class RaceEvent:
    """Programs stopped by the race (their `skipped` runs will not be made), and the
    ones still being timed; or, at its end, the start-up programs it stopped."""

    stopped: tuple[str, ...]
    racing: tuple[str, ...]
    skipped: int
    # Start-up programs, stopped with every program of their language
    # (grader.leaderboard.racing.startups_stopped).
    startups: bool = False


@dataclass(frozen=True)
class PlaceEvent:
    """A look at a place (grader.leaderboard.cores) let it in (`joined`: it times runs
    from `after_seconds` into the timing on) or took it out (it times none until a
    later look lets it in)."""

    place: "Place"
    joined: bool
    after_seconds: float


Event = TimedRunEvent | RaceEvent | PlaceEvent


Span = tuple[float, float | None]  # seconds into the timing: from, to (None: the end)


def timed_s(spans: Sequence[Span]) -> list[dict[str, float | None]]:
    """Spans as leaderboard.json's core_reference_s timed_s (to a tenth of a second)."""
    return [
        {"from": round(begun, 1), "to": None if to is None else round(to, 1)} for begun, to in spans
    ]


def spans(events: Sequence[PlaceEvent]) -> "dict[Place, list[Span]]":
    """For each place that did not time the whole timing, when it did. A place that
    first leaves timed from the start."""
    found: dict[Place, list[Span]] = {}
    for event in events:
        seen = found.setdefault(event.place, [])
        if event.joined:
            seen.append((event.after_seconds, None))
        else:
            begun = seen.pop()[0] if seen else 0.0
            seen.append((begun, event.after_seconds))
    return found


def plan_timing(
    store: Store, session: Session, config: CourseConfig, *, exhaustive: bool = False
) -> TimingPlan:
    """Every run not stored yet; racing, none of a program the stored runs already show
    slower than every program of the rank-1 set, itself completely timed (an earlier sitting
    stopped it: grader.leaderboard.racing.stopped, the rule the page applies)."""
    runs = config.leaderboard.runs
    todo = {}
    out = set() if exhaustive else stopped_by_race(store, session, config.leaderboard)
    for program in session.everything:
        if program.id in out:
            continue
        stored = {
            (t.case_id, t.case_version, t.run_index)
            for t in store.timings(program.id, program.content_hash)
        }
        for case in session.cases:
            missing = [i for i in range(runs) if (case.id, case.version, i) not in stored]
            if missing:
                todo[(program.id, case.id)] = missing
    return TimingPlan(session, config.leaderboard.warmup, todo)


def cores_used(store: Store, session: Session) -> list[int | None]:
    """The cores of this machine the session's stored runs were timed on (None: a run
    not pinned)."""
    found = {row.core for row in _stored(store, session) if not row.worker}
    return sorted(found, key=lambda core: -1 if core is None else core)


def workers_used(store: Store, session: Session, hosts: Mapping[str, str]) -> list[dict[str, Any]]:
    """The cluster's workers the session's stored runs were timed on, each with its host
    (`hosts`: known from this sitting's survey, else '') and the cores of its machine
    that timed them."""
    found: dict[str, set[int]] = {}
    for row in _stored(store, session):
        if row.worker:
            found.setdefault(row.worker, set()).update(() if row.core is None else {row.core})
    return [
        {"worker": worker, "host": hosts.get(worker, ""), "cores": sorted(cores)}
        for worker, cores in sorted(found.items())
    ]


def _stored(store: Store, session: Session) -> Iterator[TimingRow]:
    ids = {case.id for case in session.cases}
    for program in session.everything:
        for row in store.timings(program.id, program.content_hash):
            if row.case_id in ids:
                yield row


@dataclass(frozen=True)
class _Task:
    program: Program
    case: Case
    run_index: int | None  # None: a warm-up


_Batch = tuple[_Task, ...]  # made back to back at one place (grader.leaderboard.batches)


@dataclass(frozen=True)
class Place:
    """Where timed runs are made, one at a time: a core (None: not pinned) of this
    machine (worker '') or of a Dask worker's machine (its address)."""

    core: int | None
    worker: str = ""


class Timing(Protocol):
    """Runs programs on its places, each place served by one thread of its own."""

    @property
    def places(self) -> Sequence[Place]:
        """Where runs are made, one at a time each."""

    @property
    def waiting(self) -> Sequence[Place]:
        """Places left out at the start that may join once they agree (`joins`)."""

    @property
    def looks(self) -> bool:
        """Whether `look` can look at a place: then every place but the first is looked
        at again while it times, and times only while its latest look agrees with the
        first place's latest (`fastest`, until the first place is looked at again)."""

    @property
    def fastest(self) -> Sequence[float]:
        """The first place's reference runs at the start (the calibration's fastest
        core): what a look at another place must agree with until the first place is
        looked at again."""

    def enter(self, place: Place) -> Place:
        """Called once in the thread that will serve `place`; the place it really is."""

    def look(self, place: Place) -> list[float]:
        """The reference work's CPU seconds at a place now, made in the thread that
        serves it (grader.leaderboard.cores.look; [] where none can be made)."""

    def run(
        self, place: Place, program: Program, case: Case, timed: bool
    ) -> tuple[TimedVerdict, RunResult]:
        """One run (a warm-up when not `timed`) of `program` on `case` at `place`."""


class LocalTiming:
    """This machine's cores (`cores`, the fastest first): each serving thread pinned to
    its own core for its life (the programs it starts inherit the pinning; the warm
    sandbox's zygotes are per thread, so they stay warm). With `look` (the reference
    work on a core, grader.leaderboard.cores.look) and the calibration's `fastest` runs,
    the `waiting` cores, left out at the start, and every core but the first time only
    while their latest look agrees with the first core's latest."""

    def __init__(
        self,
        sandbox: Sandbox,
        limits: Limits,
        cores: Sequence[int | None],
        waiting: Sequence[int] = (),
        look: Callable[[int], list[float]] | None = None,
        fastest: Sequence[float] = (),
    ) -> None:
        self.sandbox, self.limits, self._look, self.fastest = sandbox, limits, look, fastest
        self.places = [Place(core) for core in cores]
        self.waiting = [Place(core) for core in waiting] if look is not None else []
        self.looks = look is not None

    def enter(self, place: Place) -> Place:
        if place.core is not None:
            try:
                os.sched_setaffinity(0, {place.core})  # this thread alone (Linux)
            except OSError:
                return Place(None)
        return place

    def look(self, place: Place) -> list[float]:
        return [] if place.core is None or self._look is None else self._look(place.core)

    def run(
        self, place: Place, program: Program, case: Case, timed: bool
    ) -> tuple[TimedVerdict, RunResult]:
        return timed_run(program, case, self.sandbox, self.limits)


# How long a waiting place rests between two looks, and how often a place that times is
# looked at again (a look takes 70 to 100 ms of its core: about 5% of it). On a
# virtual machine a core's speed changes for seconds at a time, as its host's other
# work comes and goes (bench/bench_cores.py).
JOIN_RETRY_SECONDS = 0.5
LOOK_EVERY_SECONDS = 1.5


class _Timer:
    """Runs lists of batches of tasks, one batch per place at once (its tasks back to
    back), each place served by a thread of its own. Where the timing can look at its
    places, every place but the first (the fastest at the start: the session always
    times somewhere) times only while its latest look agrees with the first place's
    latest, by `rule` (cores.agrees): it is looked at again every LOOK_EVERY_SECONDS
    while it times (between batches), and a waiting one every JOIN_RETRY_SECONDS until
    it agrees (meanwhile it makes the warm-ups, untimed, when they are next); the first
    place is looked at again as often while others could time beside it. On a virtual
    machine every core slows down and speeds up again, each on its own: against the
    first place's speed at the start, a core as fast as the first is now could wait a
    whole session while the first times alone (bench/bench_race.py: a 16-program
    session timed on one core, 0.76 of the exhaustive session's time). A run that
    raises is raised again once the others end; a place's thread that fails ends the
    timing at once: nothing waits for ever for work no one will do."""

    def __init__(
        self, timing: Timing, store: Store, on_event: Callable[[Event], None], rule: Rule
    ) -> None:
        self.timing, self.store, self.on_event, self.rule = timing, store, on_event, rule
        self.bar = tuple(timing.fastest)  # the first place's latest reference runs
        self.lock = threading.Lock()  # one writer of the store, one teller of events
        self.failed = 0
        self.queue: collections.deque[_Batch] = collections.deque()  # not handed out yet
        self.ready = threading.Condition(self.lock)  # a batch queued, or closing
        self.left = 0  # batches handed out and not ended
        self.took: dict[tuple[str, str], list[float]] = {}  # (program, case) -> CPU seconds
        self.ended = threading.Condition(self.lock)
        self.errors: list[BaseException] = []
        self.closing = threading.Event()
        self.broken = False  # a place's thread failed: the timing ends (run raises)
        self.start = time.monotonic()
        places = [(place, False) for place in timing.places]
        places += [(place, True) for place in timing.waiting]
        self.others = timing.looks and len(places) > 1  # the first place is looked at too
        self.threads = [
            threading.Thread(target=self._serve, args=(place, index, waiting), daemon=True)
            for index, (place, waiting) in enumerate(places)
        ]
        for thread in self.threads:
            thread.start()

    def _serve(self, place: Place, index: int, waiting: bool) -> None:
        try:
            self._serve_place(place, index, waiting)
        except BaseException as error:  # noqa: BLE001  raised again by run, in its thread
            # A place's thread that fails (its pinning, a look) ends the timing: the
            # runs left would otherwise wait for it for ever.
            with self.lock:
                self.errors.append(error)
                self.broken = True
                self.ended.notify_all()

    def _serve_place(self, place: Place, index: int, waiting: bool) -> None:
        place = self.timing.enter(place)
        while not waiting or self._join(place):
            looked = time.monotonic()
            while True:
                batch = self._take(untimed=False, within=None)
                if batch is None:
                    return
                self._do(place, batch)
                if not self.others or time.monotonic() - looked < LOOK_EVERY_SECONDS:
                    continue
                if index == 0:
                    self._rebase(place)
                elif not self._agrees(place):
                    self._tell(place, joined=False)
                    waiting = True
                    break
                looked = time.monotonic()

    def _agrees(self, place: Place) -> bool:
        """A look at `place` now: whether the first place's latest reference runs are not
        significantly faster (grader.leaderboard.cores.agrees, by the session's rule)."""
        found = self.timing.look(place)
        with self.lock:
            bar = self.bar
        return agrees(bar, found, self.rule)

    def _rebase(self, place: Place) -> None:
        """A look at the first place now: the bar the others' next looks must meet."""
        found = self.timing.look(place)
        if found:
            with self.lock:
                self.bar = tuple(found)

    def _do(self, place: Place, batch: _Batch) -> None:
        try:
            for task in batch:
                if not self.closing.is_set():  # closing: what is left is not run
                    self._one_of(place, task)
        finally:
            with self.lock:
                self.left -= 1
                self.ended.notify_all()

    def _join(self, place: Place) -> bool:
        """Look at a waiting place until it agrees (True) or the timing ends (False);
        until its next look it makes warm-ups, if any are next: they are timed nowhere,
        so any core's speed will do for them."""
        while not self.closing.is_set():
            if self._agrees(place):
                self._tell(place, joined=True)
                return True
            until = time.monotonic() + JOIN_RETRY_SECONDS
            while batch := self._take(untimed=True, within=until - time.monotonic()):
                self._do(place, batch)
        return False

    def _take(self, untimed: bool, within: float | None) -> _Batch | None:
        """The next batch (only if it is warm-ups, when `untimed`), waiting for one at
        most `within` seconds (None: until there is one); None once closing, or if none
        came in time."""

        def free() -> bool:
            return bool(self.queue) and (
                not untimed or all(t.run_index is None for t in self.queue[0])
            )

        with self.ready:
            self.ready.wait_for(lambda: self.closing.is_set() or free(), within)
            return self.queue.popleft() if free() and not self.closing.is_set() else None

    def _tell(self, place: Place, joined: bool) -> None:
        with self.lock:
            self.on_event(PlaceEvent(place, joined, time.monotonic() - self.start))

    def _one_of(self, place: Place, task: _Task) -> None:
        try:
            self._one(place, task)
        except BaseException as error:  # noqa: BLE001  raised again by run, in its thread
            with self.lock:
                self.errors.append(error)

    def run(self, work: Sequence[_Batch]) -> None:
        """Every batch made, by whichever place is free first, in their order."""
        with self.ready:
            self.left += len(work)
            self.queue.extend(work)
            self.ready.notify_all()
        with self.ended:
            self.ended.wait_for(lambda: not self.left or self.broken)
            errors, self.errors = self.errors, []
        if errors:
            raise errors[0]

    def _one(self, place: Place, task: _Task) -> None:
        timed = task.run_index is not None
        verdict, result = self.timing.run(place, task.program, task.case, timed)
        with self.lock:
            if task.run_index is not None and verdict == Verdict.IE:
                self.failed += 1  # the grader's failure: measured again next time
            elif task.run_index is not None:
                self.store.record_timing(
                    task.program.id,
                    task.program.content_hash,
                    task.case,
                    task.run_index,
                    verdict,
                    result,
                    place.core,
                    place.worker,
                )
            if verdict != Verdict.IE:
                self.took.setdefault((task.program.id, task.case.id), []).append(result.cpu_seconds)
            self.on_event(
                TimedRunEvent(task.program, task.case, task.run_index, verdict, result.cpu_seconds)
            )

    def estimates(self, cases: Sequence[Case]) -> dict[str, float]:
        """Each program's CPU seconds for a run of every case, from its runs so far
        (warm-ups too): the median of each case's, summed; none for a program with a
        case not run yet."""
        with self.lock:
            found: dict[str, float] = {}
            for program in {pid for pid, _ in self.took}:
                seen = [self.took.get((program, case.id)) for case in cases]
                if all(seen):
                    found[program] = sum(median(values) for values in seen if values)
            return found

    def close(self) -> None:
        with self.ready:
            self.closing.set()
            self.ready.notify_all()
        for thread in self.threads:
            thread.join()


def measure(
    work: TimingPlan,
    store: Store,
    sandbox: Sandbox,
    config: CourseConfig,
    on_event: Callable[[Event], None] = lambda event: None,
    *,
    cores: Sequence[int | None] = (None,),
    exhaustive: bool = False,
    timing: Timing | None = None,
) -> int:
    """Run the plan on `cores` of this machine (one run per core at once), or on the
    places of `timing` (a cluster's: grader.leaderboard.on_workers); returns how many
    runs failed in the grader (not stored)."""
    timer = _Timer(
        timing or LocalTiming(sandbox, config.limits, cores),
        store,
        on_event,
        config.leaderboard.rule,
    )
    try:
        runs = config.leaderboard.runs
        look = None if exhaustive else first_look(runs, config.leaderboard.rule)
        everyone = work.session.everything
        # The warm-ups first: what they take tells which programs may tie (batches).
        timer.run(_warmups(work))
        estimate = timer.estimates(work.session.cases)
        timer.run(_rounds(work, everyone, range(runs if look is None else look), estimate))
        if look is not None:
            _race(timer, work, store, config, look)
    finally:
        timer.close()
    return timer.failed


def _warmups(work: TimingPlan) -> list[_Batch]:
    return [
        (_Task(program, case, None),)
        for program in work.session.everything
        for case in work.session.cases
        if (program.id, case.id) in work.todo
        for _ in range(work.warmup)
    ]


def _rounds(
    work: TimingPlan,
    programs: Sequence[Program],
    indices: Sequence[int],
    estimate: Mapping[str, float],
    following: dict[str, int] | None = None,
) -> list[_Batch]:
    """Run i of every program before run i + 1 of any, each round in an order of its
    own (shuffled, the same for the same round: a run is slowed by what ran just before
    it, and turning one order round keeps every program's neighbour, which would put
    that into its figures alone), the programs that may tie (by `estimate`) back to
    back at one place (grader.leaderboard.batches), for the runs not stored yet (nor
    made already: before `following[program]`)."""
    found = []
    for index in indices:
        order = [p for p in programs if following is None or index >= following[p.id]]
        random.Random(f"round {index}").shuffle(order)
        for batch in batches(order, lambda p: estimate.get(p.id), f"batches {index}"):
            tasks = tuple(
                _Task(program, case, index)
                for program in batch
                for case in work.session.cases
                if index in work.todo.get((program.id, case.id), ())
            )
            if tasks:
                found.append(tasks)
    return found


def _race(timer: _Timer, work: TimingPlan, store: Store, config: CourseConfig, look: int) -> None:
    """After the first `look` runs, the race's steps (grader.leaderboard.racing.
    next_step) until every program is timed fully or stopped; a language's start-up
    program is timed fully with the first of its programs timed beyond its first look,
    and stopped when none is (racing.startups_stopped)."""
    board, runs, cases = config.leaderboard, config.leaderboard.runs, work.session.cases
    racing = {p.id: p for p in work.session.programs}
    # The next run index to make; `runs` for a program with none left to make.
    following = {p.id: look if _left(work, p, look) else runs for p in work.session.everything}
    startups = {p.language.name: p for p in work.session.startups if following[p.id] < runs}

    def startups_of(languages: Iterable[str]) -> list[_Batch]:
        """The last runs of these languages' start-ups not timed fully yet."""
        due = [startups.pop(name) for name in sorted(set(languages)) if name in startups]
        return _rounds(work, due, range(look, runs), timer.estimates(cases))

    while True:
        samples = {}
        for program in racing.values():
            totals, failed = leading_totals(store, program, cases, runs)
            if not failed:  # failed while timed: unranked, no more runs
                samples[program.id] = totals
        racing = {pid: p for pid, p in racing.items() if pid in samples}
        step = next_step(samples, following, runs, board.rule)
        if step.complete:
            leaders = [racing[pid] for pid in step.complete]
            first = min(following[p.id] for p in leaders)
            estimate = timer.estimates(cases)
            made = _rounds(work, leaders, range(first, runs), estimate, following)
            timer.run(startups_of(p.language.name for p in leaders) + made)
            following.update({p.id: runs for p in leaders})
            continue
        if step.stop:
            left = sum(_left(work, racing[pid], following[pid]) for pid in step.stop)
            for pid in step.stop:
                del racing[pid]
            still = tuple(pid for pid in racing if following[pid] < runs)
            timer.on_event(RaceEvent(step.stop, still, left))
        if step.round is None:
            break
        index, now = step.round
        now_racing = [racing[pid] for pid in now]
        made = _rounds(work, now_racing, [index], timer.estimates(cases))
        timer.run(startups_of(p.language.name for p in now_racing) + made)
        following.update({pid: index + 1 for pid in now})
    # The start-ups left: stopped, by the rule the page applies to the stored runs, or
    # (a language whose programs an earlier sitting timed fully) timed fully now.
    out = stopped_by_race(store, work.session, board)
    timer.run(startups_of([name for name, p in startups.items() if p.id not in out]))
    if startups:
        names = tuple(p.id for _, p in sorted(startups.items()))
        left = sum(_left(work, p, look) for p in startups.values())
        timer.on_event(RaceEvent(names, (), left, startups=True))


def _left(work: TimingPlan, program: Program, first: int) -> int:
    """The runs of `program` from index `first` on that the plan holds (not made)."""
    return sum(
        len([i for i in work.todo.get((program.id, case.id), ()) if i >= first])
        for case in work.session.cases
    )
