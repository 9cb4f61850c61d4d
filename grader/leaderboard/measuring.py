"""Measuring: the timed runs still missing, then running them one at a time on one
core, warm-ups first and round-robin after, storing each run at once."""

from collections.abc import Callable
from dataclasses import dataclass

from grader.cases import Case
from grader.config import CourseConfig
from grader.leaderboard.session import Session
from grader.model import TimedVerdict, Verdict
from grader.sandbox.base import Sandbox
from grader.store import Store
from grader.timed_runs import Program, timed_run
from grader.timing import one_core


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


def plan_timing(store: Store, session: Session, config: CourseConfig) -> TimingPlan:
    runs = config.leaderboard.runs
    todo = {}
    for program in session.everything:
        stored = {
            (t.case_id, t.case_version, t.run_index)
            for t in store.timings(program.id, program.content_hash)
        }
        for case in session.cases:
            missing = [i for i in range(runs) if (case.id, case.version, i) not in stored]
            if missing:
                todo[(program.id, case.id)] = missing
    return TimingPlan(session, config.leaderboard.warmup, todo)


def measure(
    work: TimingPlan,
    store: Store,
    sandbox: Sandbox,
    config: CourseConfig,
    on_event: Callable[[TimedRunEvent], None] = lambda event: None,
) -> int:
    """Run the plan; returns how many runs failed in the grader (not stored)."""
    programs = work.session.everything
    cases = work.session.cases
    failed = 0
    with one_core() as core:
        for program in programs:
            for case in cases:
                if (program.id, case.id) in work.todo:
                    for _ in range(work.warmup):
                        verdict, result = timed_run(program, case, sandbox, config)
                        on_event(TimedRunEvent(program, case, None, verdict, result.cpu_seconds))
        for index in range(config.leaderboard.runs):
            shift = index % max(1, len(programs))
            for program in programs[shift:] + programs[:shift]:  # no fixed neighbour
                for case in cases:
                    if index not in work.todo.get((program.id, case.id), ()):
                        continue
                    verdict, result = timed_run(program, case, sandbox, config)
                    if verdict == Verdict.IE:
                        failed += 1  # the grader's failure: measured again next time
                    else:
                        store.record_timing(
                            program.id, program.content_hash, case, index, verdict, result, core
                        )
                    on_event(TimedRunEvent(program, case, index, verdict, result.cpu_seconds))
    return failed
