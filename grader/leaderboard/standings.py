"""Statistics and ranks from the stored runs: per-program totals, the rank test, and
warnings about timings measured far apart."""

import dataclasses
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field

from grader.cases.manifest import Case
from grader.core.model import STARTUP_RAN, TimedVerdict, Verdict
from grader.course.config import CourseConfig, LeaderboardConfig
from grader.grading.timed_runs import Program
from grader.leaderboard.racing import startups_stopped, stopped
from grader.leaderboard.session import Ineligible, Session
from grader.statistics.timing import Rule, Summary, ranks, significantly_faster, summarize
from grader.store import Store, TimingRow


@dataclass(frozen=True)
class Timed:
    """One program's stored runs, summarised."""

    program: Program
    cpu_cases: dict[str, Summary]  # by case id
    wall_cases: dict[str, Summary]
    cpu: Summary | None  # totals over the cases; None when runs are missing
    wall: Summary | None
    problem: str | None  # why it cannot be ranked (failed or incomplete runs)
    first_run: float = 0.0  # timestamps of the stored runs
    last_run: float = 0.0
    failed: bool = False  # a timed run failed (else a problem is runs still missing)
    timed_runs: int = 0  # the runs summed into cpu and wall (fewer when stopped by the race)
    stopped: bool = False  # stopped by the race (grader.leaderboard.racing), ranked by its runs
    # An incomplete program's figures over the runs every case has (what the race
    # compares): (cpu, wall), or None.
    leading: tuple[Summary | None, Summary | None] | None = None

    @property
    def cpu_total(self) -> Summary:
        """`cpu` of a completely measured program (as every ranked one is)."""
        if self.cpu is None:
            raise ValueError(f"{self.program.id} is not completely measured: {self.problem}")
        return self.cpu

    @property
    def wall_total(self) -> Summary:
        """`wall` of a completely measured program (as every ranked one is)."""
        if self.wall is None:
            raise ValueError(f"{self.program.id} is not completely measured: {self.problem}")
        return self.wall


def _by_case(
    store: Store, program: Program, cases: Sequence[Case], runs: int
) -> dict[str, dict[int, TimingRow]]:
    """The program's stored runs of this session's cases (their versions), by case and
    run index."""
    rows = [t for t in store.timings(program.id, program.content_hash) if t.run_index < runs]
    versions = {case.id: case.version for case in cases}
    by_case: dict[str, dict[int, TimingRow]] = {case.id: {} for case in cases}
    for row in rows:
        if versions.get(row.case_id) == row.case_version:
            by_case[row.case_id][row.run_index] = row
    return by_case


def _leading(by_case: dict[str, dict[int, TimingRow]], runs: int) -> int:
    """How many runs, from the first, every case has."""
    count = 0
    while count < runs and all(count in found for found in by_case.values()):
        count += 1
    return count


def _good(program: Program) -> TimedVerdict:
    return STARTUP_RAN if program.startup else Verdict.AC


def leading_totals(
    store: Store, program: Program, cases: Sequence[Case], runs: int
) -> tuple[list[float], bool]:
    """The program's CPU totals of the runs every case has, from the first (what the
    race compares), and whether a timed run failed."""
    by_case = _by_case(store, program, cases, runs)
    failed = any(r.verdict != _good(program) for found in by_case.values() for r in found.values())
    count = _leading(by_case, runs)
    return [sum(by_case[c.id][i].cpu_seconds for c in cases) for i in range(count)], failed


def timed(store: Store, program: Program, cases: Sequence[Case], runs: int) -> Timed:
    by_case = _by_case(store, program, cases, runs)
    good = _good(program)
    bad = [
        (cid, i, r.verdict)
        for cid, found in by_case.items()
        for i, r in sorted(found.items())
        if r.verdict != good
    ]
    problem = None
    if bad:
        cid, index, verdict = bad[0]
        problem = f"failed while being timed: {verdict} on {cid} (run {index + 1})" + (
            f" and {len(bad) - 1} more" if len(bad) > 1 else ""
        )
    complete = all(len(found) == runs for found in by_case.values())
    if not complete and problem is None:
        problem = "timing incomplete: run leaderboard again"
    cpu_cases = {
        cid: summarize([r.cpu_seconds for _, r in sorted(found.items())])
        for cid, found in by_case.items()
        if found
    }
    wall_cases = {
        cid: summarize([r.wall_seconds for _, r in sorted(found.items())])
        for cid, found in by_case.items()
        if found
    }
    count = runs if complete else _leading(by_case, runs)
    cpu = wall = None
    if count:
        cpu = summarize([sum(by_case[c.id][i].cpu_seconds for c in cases) for i in range(count)])
        wall = summarize([sum(by_case[c.id][i].wall_seconds for c in cases) for i in range(count)])
    stamps = [r.created_at for found in by_case.values() for r in found.values()]
    return Timed(
        program,
        cpu_cases,
        wall_cases,
        cpu if complete else None,
        wall if complete else None,
        problem,
        min(stamps, default=0.0),
        max(stamps, default=0.0),
        bool(bad),
        timed_runs=count,
        leading=(cpu, wall) if not complete and not bad else None,
    )


@dataclass
class Standings:
    """Everything the reports show."""

    session: Session
    config: CourseConfig
    ranked: list[tuple[int, Timed]]  # (rank, program), fastest first
    startups: dict[str, Timed]  # by language
    ineligible: list[Ineligible]
    beats: dict[str, list[str]]  # program id -> ids it is directly significantly faster than
    unranked: list[Timed] = field(default_factory=list)  # timed, but failed or incomplete


def collect(store: Store, session: Session, config: CourseConfig) -> Standings:
    runs = config.leaderboard.runs
    board = config.leaderboard
    ineligible = list(session.ineligible)
    results = [timed(store, program, session.cases, runs) for program in session.programs]
    measured = [t for t in results if not t.problem] + _stopped(results, board)
    shown = {t.program.id for t in measured}
    unranked = [t for t in results if t.program.id not in shown]
    for t in unranked:
        ineligible.append(Ineligible(t.program.id, t.program.language.name, t.problem or ""))
    samples = {t.program.id: t.cpu_total.runs for t in measured}
    rank_of = ranks(samples, board.rule)
    beats = _direct_wins(samples, board.rule)
    ranked = sorted(
        ((rank_of[t.program.id], t) for t in measured),
        key=lambda pair: (pair[0], pair[1].cpu_total.median, pair[1].program.id),
    )
    raced = {t.program.id for t in measured if t.stopped}
    startups = _startups(store, session, board, results, raced)
    return Standings(session, config, ranked, startups, ineligible, beats, unranked)


def stopped_by_race(store: Store, session: Session, board: LeaderboardConfig) -> set[str]:
    """The programs, and start-up programs, the race stopped, from the stored runs (the
    rules the page applies: a resumed session plans none of their runs)."""
    results = [timed(store, program, session.cases, board.runs) for program in session.programs]
    raced = {t.program.id for t in _stopped(results, board)}
    startups = _startups(store, session, board, results, raced)
    return raced | {t.program.id for t in startups.values() if t.stopped}


def _startups(
    store: Store,
    session: Session,
    board: LeaderboardConfig,
    results: Sequence[Timed],
    raced: Collection[str],
) -> dict[str, Timed]:
    """Each language's start-up program, by language; one the race stopped (every
    program of its language, of `results`, failed or was stopped: `raced`;
    grader.leaderboard.racing.startups_stopped) shown by the runs it has."""
    programs = [(t.program.language.name, t.failed or t.program.id in raced) for t in results]
    found = {
        program.language.name: timed(store, program, session.cases, board.runs)
        for program in session.startups
    }
    partial = {
        language: t.timed_runs
        for language, t in found.items()
        if t.leading is not None and t.leading[0] is not None
    }
    out = startups_stopped(partial, programs, board.runs, board.rule)
    return {language: _as_stopped(t) if language in out else t for language, t in found.items()}


def _as_stopped(t: Timed) -> Timed:
    """An incomplete program the race stopped: its figures are of the runs it has."""
    assert t.leading is not None, "a stopped program has its leading runs"
    return dataclasses.replace(
        t, cpu=t.leading[0], wall=t.leading[1], problem=None, stopped=True, leading=None
    )


def _stopped(results: Sequence[Timed], board: LeaderboardConfig) -> list[Timed]:
    """The incomplete programs the race stopped: shown, by their runs, slower than
    every program of the rank-1 set, each of which is completely measured. Decided
    from the stored runs alone (grader.leaderboard.racing)."""
    samples = {t.program.id: t.cpu_total.runs for t in results if not t.problem}
    partial = {
        t.program.id: t for t in results if t.leading is not None and t.leading[0] is not None
    }
    if not samples or not partial:
        return []
    every = {
        **samples,
        **{pid: t.leading[0].runs for pid, t in partial.items() if t.leading and t.leading[0]},
    }
    out = stopped(every, board.runs, board.rule)
    return [_as_stopped(t) for pid, t in partial.items() if pid in out]


def board_caveats(board: Standings, span_minutes: float = 15) -> list[str]:
    """Warnings about the stored timings: the machine's speed drifts by several percent
    from one session to the next, so runs measured far apart compare less well."""
    stamps = [
        s
        for t in [t for _, t in board.ranked] + list(board.startups.values())
        for s in (t.first_run, t.last_run)
        if s
    ]
    if stamps and max(stamps) - min(stamps) > span_minutes * 60:
        hours = (max(stamps) - min(stamps)) / 3600
        return [
            f"the stored timings were measured over {hours:.1f} hours (resumed "
            "sessions); the machine's speed drifts between sessions, so before "
            "publishing, run leaderboard --force-remeasure to measure all at once"
        ]
    return []


def _direct_wins(samples: Mapping[str, Sequence[float]], rule: Rule) -> dict[str, list[str]]:
    wins: dict[str, list[str]] = {name: [] for name in samples}
    for c in significantly_faster(samples, rule):
        wins[c.faster].append(c.slower)
    return {name: sorted(found) for name, found in wins.items()}
