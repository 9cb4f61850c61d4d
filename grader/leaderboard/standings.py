"""Statistics and ranks from the stored runs: per-program totals, the rank test, and
warnings about timings measured far apart."""

from collections.abc import Sequence
from dataclasses import dataclass, field

from grader.cases import Case
from grader.config import CourseConfig
from grader.leaderboard.session import Ineligible, Session
from grader.model import STARTUP_RAN, TimedVerdict, Verdict
from grader.store import Store, TimingRow
from grader.timed_runs import Program
from grader.timing import Summary, ranks, significantly_faster, summarize


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


def timed(store: Store, program: Program, cases: Sequence[Case], runs: int) -> Timed:
    rows = [t for t in store.timings(program.id, program.content_hash) if t.run_index < runs]
    versions = {case.id: case.version for case in cases}
    by_case: dict[str, dict[int, TimingRow]] = {case.id: {} for case in cases}
    for row in rows:
        if versions.get(row.case_id) == row.case_version:
            by_case[row.case_id][row.run_index] = row
    good: TimedVerdict = STARTUP_RAN if program.startup else Verdict.AC
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
    cpu = wall = None
    if complete:
        cpu = summarize([sum(by_case[c.id][i].cpu_seconds for c in cases) for i in range(runs)])
        wall = summarize([sum(by_case[c.id][i].wall_seconds for c in cases) for i in range(runs)])
    stamps = [r.created_at for found in by_case.values() for r in found.values()]
    return Timed(
        program,
        cpu_cases,
        wall_cases,
        cpu,
        wall,
        problem,
        min(stamps, default=0.0),
        max(stamps, default=0.0),
        bool(bad),
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
    ineligible = list(session.ineligible)
    measured, unranked = [], []
    for program in session.programs:
        result = timed(store, program, session.cases, runs)
        if result.problem:
            ineligible.append(Ineligible(program.id, program.language.name, result.problem))
            unranked.append(result)
        else:
            measured.append(result)
    samples = {t.program.id: t.cpu_total.runs for t in measured}
    board = config.leaderboard
    rank_of = ranks(samples, board.noise_floor, board.alpha)
    beats = _direct_wins(samples, board.noise_floor, board.alpha)
    ranked = sorted(
        ((rank_of[t.program.id], t) for t in measured),
        key=lambda pair: (pair[0], pair[1].cpu_total.median, pair[1].program.id),
    )
    startups = {}
    for program in session.startups:
        result = timed(store, program, session.cases, runs)
        startups[program.language.name] = result
    return Standings(session, config, ranked, startups, ineligible, beats, unranked)


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


def _direct_wins(samples, noise_floor, alpha) -> dict[str, list[str]]:
    wins: dict[str, list[str]] = {name: [] for name in samples}
    for c in significantly_faster(samples, noise_floor, alpha):
        wins[c.faster].append(c.slower)
    return {name: sorted(found) for name, found in wins.items()}
