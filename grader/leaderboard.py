"""The speed leaderboard: who may be ranked, timing them, ranking them.

Flow: `prepare` (eligibility, builds, the start-up programs) -> `plan` (the
timed runs not stored yet) -> `measure` (runs them, storing each at once) ->
`collect` (statistics and ranks from the stored runs) -> `document` (the
JSON-ready figures every report is drawn from).

What counts
    CPU time (user + sys of the whole process tree), as in grading; wall time
    is stored and shown, never ranked. A program's figure is the sum over the
    timed cases: run i of every case added up gives its i-th total, so each
    program has `runs` totals, and those totals are what the rank test
    compares. (A sum weights the longer cases more, which is what "fast on
    these puzzles" means; every program runs the same cases.) The per-case
    statistics are shown beside it.
How it is measured
    Every program runs in the grading sandbox, from its cached build folder,
    with the course's run command and limits, one run at a time, with the
    grader pinned to one core (its children inherit the pinning). Warm-up runs
    (untimed) come first; then the timed runs go round-robin, run i of every
    program before run i + 1 of any, so a burst of load on the machine hits
    every program alike instead of one program's whole series.
Start-up cost
    A program that only starts and exits, in each language, is built and timed
    the same way, on the same cases, in the same session (it is stored like a
    submission, "startup/<language>"), so a table can say how much of a time
    is the language and how much the program.
"""

import hashlib
import hmac
import os
import platform
import secrets
import sys
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from grader import __version__
from grader.build import build
from grader.cases import Case, CaseError
from grader.config import ConfigError, CourseConfig, LanguageSpec
from grader.judge import command, judge
from grader.model import Verdict
from grader.score import report
from grader.store import Store, StoreError, SubmissionRow, TimingRow
from grader.submissions import Submission, load
from grader.timing import (EXACT_MAX_TOTAL, Summary, one_core, ranks,
                           significantly_faster, smallest_p_value, summarize)

STARTUP_PREFIX = "startup/"  # no folder name holds a "/": no submission can take it
SALT_FILE = "leaderboard.salt"
PSEUDONYM_KEY = "leaderboard-pseudonyms.csv"
VERDICT_ORDER = ("WA", "PE", "TLE", "MLE", "OLE", "RTE", "CE", "IE")

_STARTUP_SOURCES = {
    "c": "int main(void) { return 0; }\n",
    "cpp": "int main() { return 0; }\n",
    "java": "public class {name} { public static void main(String[] args) { } }\n",
    "python": "# starts and exits\n",
}


@dataclass(frozen=True)
class Program:
    """Something to time: a submission, or a language's start-up program."""

    id: str
    language: LanguageSpec
    content_hash: str
    folder: Path  # its build folder

    @property
    def startup(self) -> bool:
        return self.id.startswith(STARTUP_PREFIX)


@dataclass(frozen=True)
class Ineligible:
    id: str
    language: str
    reason: str


@dataclass
class Session:
    """What one leaderboard command works on."""

    cases: List[Case]  # the timed cases
    programs: List[Program]  # eligible submissions, built
    startups: List[Program]
    ineligible: List[Ineligible]
    startup_problems: Dict[str, str] = field(default_factory=dict)  # language -> why none

    @property
    def everything(self) -> List[Program]:
        return self.programs + self.startups


# ------------------------------------------------------------------ eligibility


def timed_cases(cases: Sequence[Case], config: CourseConfig) -> List[Case]:
    """[leaderboard] cases when set, else the cases the manifest marks timed."""
    wanted = config.leaderboard.cases
    if wanted:
        known = {case.id: case for case in cases}
        unknown = [cid for cid in wanted if cid not in known]
        if unknown:
            raise ConfigError(f"{config.source or 'course.toml'}: key 'leaderboard.cases': "
                              f"no case {unknown[0]!r} in the manifest")
        return [known[cid] for cid in wanted]
    chosen = [case for case in cases if case.timed]
    if not chosen:
        raise CaseError("no timed cases: mark some cases \"timed\" in the manifest or list "
                        "them in course.toml [leaderboard] cases")
    return chosen


def eligibility(row: SubmissionRow, store: Store, cases: Sequence[Case],
                config: CourseConfig) -> Tuple[Optional[Submission], Optional[str]]:
    """(the submission, None) when it may be ranked, else (None, the reason)."""
    if row.problem:
        return None, f"cannot be built: {row.problem}"
    folder = Path(row.folder)
    if not folder.is_dir():
        return None, f"its folder {folder} is gone (run from where you ran grade)"
    current = load(folder, config)
    if current.content_hash != row.content_hash or current.problem:
        return None, "changed since it was graded: run grade first"
    result = report(store, row, cases)
    graded = [o for o in result.outcomes if o.run is not None]
    if not graded:
        return None, "not graded yet: run grade first"
    if result.build is not None and not result.build.ok:
        return None, "build failed"
    failures = failure_summary([o.verdict for o in graded])
    if failures:
        return None, failures
    if len(graded) < len(result.outcomes):
        missing = len(result.outcomes) - len(graded)
        return None, f"{missing} of {len(result.outcomes)} cases not graded yet: run grade first"
    return current, None


def failure_summary(verdicts: Sequence[str]) -> str:
    """E.g. "WA on 3 cases, TLE on 1 case"; empty when every verdict is AC."""
    parts = []
    for verdict in VERDICT_ORDER:
        count = sum(v == verdict for v in verdicts)
        if count:
            parts.append(f"{verdict} on {count} case{'s' if count != 1 else ''}")
    return ", ".join(parts)


def caveats(config: CourseConfig) -> List[str]:
    """Settings under which the leaderboard cannot say much."""
    board = config.leaderboard
    if smallest_p_value(board.runs, board.runs) >= board.alpha:
        return [f"with {board.runs} runs the rank test can never reach p < {board.alpha:g}: "
                "every program will tie; raise [leaderboard] runs in course.toml"]
    return []


# ------------------------------------------------------------------ preparing


def prepare(store: Store, cases: Sequence[Case], config: CourseConfig, sandbox,
            cache_root: Path) -> Session:
    """Decide who is ranked and build (or find in the cache) every program to time."""
    timed = timed_cases(cases, config)
    programs, ineligible = [], []
    for row in store.submissions():
        sub, reason = eligibility(row, store, cases, config)
        if sub is not None:
            artifact = build(sub, cache_root, sandbox, config.build_limits)
            if artifact.ok:
                programs.append(Program(sub.id, sub.language, sub.content_hash,
                                        artifact.folder))
                continue
            reason = "could not be built again for timing: " + _first_line(artifact.log)
        ineligible.append(Ineligible(row.id, row.language, reason))
    if not programs:  # nothing to compare the languages' start-up costs with
        return Session(timed, [], [], ineligible)
    startups, problems = _startup_programs(config, sandbox, cache_root)
    return Session(timed, programs, startups, ineligible, problems)


def _startup_programs(config: CourseConfig, sandbox, cache_root: Path):
    programs, problems = [], {}
    for name, spec in config.languages.items():
        source = _STARTUP_SOURCES.get(name)
        if source is None:
            continue
        source = source.replace("{name}", Path(spec.source).stem)
        folder = cache_root / "startup-sources" / name
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / spec.source
        path.write_text(source, encoding="utf-8")
        digest = hashlib.sha256(b"startup\0" + repr(spec).encode() + b"\0"
                                + source.encode()).hexdigest()
        sub = Submission(STARTUP_PREFIX + name, folder, path, spec, None, digest)
        artifact = build(sub, cache_root, sandbox, config.build_limits)
        if artifact.ok:
            programs.append(Program(sub.id, spec, digest, artifact.folder))
        else:
            problems[name] = "could not be built: " + _first_line(artifact.log)
    return programs, problems


def _first_line(text: str) -> str:
    lines = text.strip().splitlines()
    return lines[0] if lines else "no message"


# ------------------------------------------------------------------ measuring


@dataclass
class Plan:
    """The timed runs still missing, per (program id, case id): their run indices."""

    session: Session
    warmup: int
    todo: Dict[Tuple[str, str], List[int]]

    @property
    def total(self) -> int:
        return sum(len(runs) + self.warmup for runs in self.todo.values())


@dataclass(frozen=True)
class Event:
    program: Program
    case: Case
    run_index: Optional[int]  # None for a warm-up run
    verdict: str
    cpu_seconds: float


def plan(store: Store, session: Session, config: CourseConfig) -> Plan:
    runs = config.leaderboard.runs
    todo = {}
    for program in session.everything:
        stored = {(t.case_id, t.case_version, t.run_index)
                  for t in store.timings(program.id, program.content_hash)}
        for case in session.cases:
            missing = [i for i in range(runs) if (case.id, case.version, i) not in stored]
            if missing:
                todo[(program.id, case.id)] = missing
    return Plan(session, config.leaderboard.warmup, todo)


def measure(work: Plan, store: Store, sandbox, config: CourseConfig,
            on_event: Callable[[Event], None] = lambda event: None) -> int:
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
                        on_event(Event(program, case, None, verdict, result.cpu_seconds))
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
                        store.record_timing(program.id, program.content_hash, case, index,
                                            verdict, result, core)
                    on_event(Event(program, case, index, verdict, result.cpu_seconds))
    return failed


def timed_run(program: Program, case: Case, sandbox, config: CourseConfig):
    """(its verdict, the run) of one timed run."""
    result = sandbox.run(command(program.language, config.limits), program.folder,
                         config.limits, input_file=case.input,
                         memory_rlimit=program.language.memory_rlimit)
    try:
        expected, puzzle = case.expected.read_bytes(), case.input.read_bytes()
    except OSError as error:
        raise CaseError(f"{case.expected}: cannot read case {case.id}: {error}") from None
    verdict = judge(result, case, expected, puzzle, config.limits).verdict
    if program.startup and verdict in (Verdict.AC, Verdict.WA, Verdict.PE):
        return "OK", result  # it prints nothing by design: it only has to run
    return str(verdict), result


# ------------------------------------------------------------------ collecting


@dataclass(frozen=True)
class Timed:
    """One program's stored runs, summarised."""

    program: Program
    cpu_cases: Dict[str, Summary]  # by case id
    wall_cases: Dict[str, Summary]
    cpu: Optional[Summary]  # totals over the cases; None when runs are missing
    wall: Optional[Summary]
    problem: Optional[str]  # why it cannot be ranked (failed or incomplete runs)
    first_run: float = 0.0  # timestamps of the stored runs
    last_run: float = 0.0


def timed(store: Store, program: Program, cases: Sequence[Case], runs: int) -> Timed:
    rows = [t for t in store.timings(program.id, program.content_hash) if t.run_index < runs]
    versions = {case.id: case.version for case in cases}
    by_case: Dict[str, Dict[int, TimingRow]] = {case.id: {} for case in cases}
    for row in rows:
        if versions.get(row.case_id) == row.case_version:
            by_case[row.case_id][row.run_index] = row
    good = "OK" if program.startup else "AC"
    bad = [(cid, i, r.verdict) for cid, found in by_case.items()
           for i, r in sorted(found.items()) if r.verdict != good]
    problem = None
    if bad:
        cid, index, verdict = bad[0]
        problem = (f"failed while being timed: {verdict} on {cid} (run {index + 1})"
                   + (f" and {len(bad) - 1} more" if len(bad) > 1 else ""))
    complete = all(len(found) == runs for found in by_case.values())
    if not complete and problem is None:
        problem = "timing incomplete: run leaderboard again"
    cpu_cases = {cid: summarize([r.cpu_seconds for _, r in sorted(found.items())])
                 for cid, found in by_case.items() if found}
    wall_cases = {cid: summarize([r.wall_seconds for _, r in sorted(found.items())])
                  for cid, found in by_case.items() if found}
    cpu = wall = None
    if complete:
        cpu = summarize([sum(by_case[c.id][i].cpu_seconds for c in cases) for i in range(runs)])
        wall = summarize([sum(by_case[c.id][i].wall_seconds for c in cases)
                          for i in range(runs)])
    stamps = [r.created_at for found in by_case.values() for r in found.values()]
    return Timed(program, cpu_cases, wall_cases, cpu, wall, problem,
                 min(stamps, default=0.0), max(stamps, default=0.0))


@dataclass
class Board:
    """Everything the reports show."""

    session: Session
    config: CourseConfig
    ranked: List[Tuple[int, Timed]]  # (rank, program), fastest first
    startups: Dict[str, Timed]  # by language
    ineligible: List[Ineligible]
    beats: Dict[str, List[str]]  # program id -> ids it is directly significantly faster than


def collect(store: Store, session: Session, config: CourseConfig) -> Board:
    runs = config.leaderboard.runs
    ineligible = list(session.ineligible)
    measured = []
    for program in session.programs:
        result = timed(store, program, session.cases, runs)
        if result.problem:
            ineligible.append(Ineligible(program.id, program.language.name, result.problem))
        else:
            measured.append(result)
    samples = {t.program.id: t.cpu.runs for t in measured}
    board = config.leaderboard
    rank_of = ranks(samples, board.noise_floor, board.alpha)
    beats = _direct_wins(samples, board.noise_floor, board.alpha)
    ranked = sorted(((rank_of[t.program.id], t) for t in measured),
                    key=lambda pair: (pair[0], pair[1].cpu.median, pair[1].program.id))
    startups = {}
    for program in session.startups:
        result = timed(store, program, session.cases, runs)
        startups[program.language.name] = result
    return Board(session, config, ranked, startups, ineligible, beats)


def board_caveats(board: Board, span_minutes: float = 15) -> List[str]:
    """Warnings about the stored timings: the machine's speed drifts by several percent
    from one session to the next, so runs measured far apart compare less well."""
    stamps = [s for t in [t for _, t in board.ranked] + list(board.startups.values())
              for s in (t.first_run, t.last_run) if s]
    if stamps and max(stamps) - min(stamps) > span_minutes * 60:
        hours = (max(stamps) - min(stamps)) / 3600
        return [f"the stored timings were measured over {hours:.1f} hours (resumed "
                "sessions); the machine's speed drifts between sessions, so before "
                "publishing, run leaderboard --force-remeasure to measure all at once"]
    return []


def _direct_wins(samples, noise_floor, alpha) -> Dict[str, List[str]]:
    wins: Dict[str, List[str]] = {name: [] for name in samples}
    for c in significantly_faster(samples, noise_floor, alpha):
        wins[c.faster].append(c.slower)
    return {name: sorted(found) for name, found in wins.items()}


# ------------------------------------------------------------------ names


def pseudonyms(results: Path) -> Callable[[str], str]:
    """Stable pseudonyms: HMAC-SHA256 of the id under a secret salt kept in the
    results folder (created once, readable by its owner only). Without the
    salt a student cannot test a classmate's name against a pseudonym."""
    path = Path(results) / SALT_FILE
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as handle:
            handle.write(secrets.token_hex(32) + "\n")
    except FileExistsError:
        pass
    except OSError as error:
        raise StoreError(f"{path}: cannot create the pseudonym salt: "
                         f"{error.strerror or error}") from None
    try:
        salt = path.read_text().strip().encode()
    except OSError as error:
        raise StoreError(f"{path}: cannot read the pseudonym salt: "
                         f"{error.strerror or error}") from None
    if len(salt) < 32:
        raise StoreError(f"{path}: the pseudonym salt is damaged (too short); delete it to "
                         "make a new one (every pseudonym then changes)")

    def name(sid: str) -> str:
        return "anon-" + hmac.new(salt, sid.encode(), hashlib.sha256).hexdigest()[:10]
    return name


def write_pseudonym_key(results: Path, ids: Sequence[str],
                        name: Callable[[str], str]) -> Path:
    """pseudonym -> id for the instructor (who awards the bonus and tells each student
    their own pseudonym), readable by its owner only, never published."""
    path = Path(results) / PSEUDONYM_KEY
    lines = ["pseudonym,id"] + [f"{name(sid)},{sid}" for sid in sorted(ids)]
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write("\n".join(lines) + "\n")
    except OSError as error:
        raise StoreError(f"{path}: cannot write: {error.strerror or error}") from None
    return path


# ------------------------------------------------------------------ the document


def machine_info(sandbox_name: str, core: Optional[int]) -> dict:
    model = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        load = [round(x, 2) for x in os.getloadavg()]
    except (OSError, AttributeError):
        load = []
    return {
        "platform": platform.platform(),
        "cpu_model": model,
        "cpu_count": os.cpu_count() or 1,
        "pinned_core": core,
        "load_average": load,
        "python": platform.python_version(),
        "sandbox": sandbox_name,
    }


def pinned_core() -> Optional[int]:
    """The core `measure` pins to (for the report), without pinning anything."""
    if not hasattr(os, "sched_getaffinity") or not sys.platform.startswith("linux"):
        return None
    return max(os.sched_getaffinity(0))


def document(board: Board, machine: dict,
             name: Callable[[str], str] = lambda sid: sid, anonymized: bool = False) -> dict:
    """The leaderboard as JSON-ready data: what leaderboard.json holds and every
    other format shows."""
    settings = board.config.leaderboard
    runs = settings.runs
    startup = board.startups
    stamps = [t.first_run for _, t in board.ranked] + [t.last_run for _, t in board.ranked]
    stamps = [s for s in stamps if s]
    return {
        "generated_at": _iso(None),
        "grader_version": __version__,
        "anonymized": anonymized,
        "measured": {"first_run": _iso(min(stamps)) if stamps else None,
                     "last_run": _iso(max(stamps)) if stamps else None},
        "settings": {
            "runs": runs,
            "warmup": settings.warmup,
            "cases": [{"id": c.id, "version": c.version} for c in board.session.cases],
            "noise_floor": settings.noise_floor,
            "alpha": settings.alpha,
            "statistic": "CPU time (user + sys of the process tree), run i of every timed "
                         "case summed: one total per run",
            "test": "Mann-Whitney U, two-sided, "
                    + ("exact (mid-ranks, ties allowed)" if 2 * runs <= EXACT_MAX_TOTAL
                       else "normal approximation with tie correction"),
            "rank_rule": "rank = 1 + number of programs significantly faster (p < alpha and "
                         "medians more than noise_floor apart, closed under chains)",
            "smallest_p_value": smallest_p_value(runs, runs),
        },
        "machine": machine,
        "startup": [_startup_entry(lang, t, board) for lang, t in sorted(startup.items())]
                   + [{"language": lang, "available": False, "reason": why}
                      for lang, why in sorted(board.session.startup_problems.items())],
        "ranked": [_ranked_entry(rank, t, board, name, startup) for rank, t in board.ranked],
        "not_eligible": sorted(({"id": name(i.id), "language": i.language, "reason": i.reason}
                                for i in board.ineligible), key=lambda e: e["id"]),
    }


def _iso(stamp: Optional[float]) -> str:
    moment = datetime.now(timezone.utc) if stamp is None else \
        datetime.fromtimestamp(stamp, timezone.utc)
    return moment.isoformat(timespec="seconds")


def _figures(prefix: str, summary: Summary) -> dict:
    return {
        f"{prefix}_median_s": summary.median,
        f"{prefix}_min_s": summary.minimum,
        f"{prefix}_max_s": summary.maximum,
        f"{prefix}_mad_s": summary.mad,
        f"{prefix}_runs_s": list(summary.runs),
    }


def _startup_entry(language: str, t: Timed, board: Board) -> dict:
    entry = {"language": language, "available": t.cpu is not None}
    if t.cpu is None:
        entry["reason"] = t.problem or "not measured"
        return entry
    entry.update(_figures("cpu", t.cpu))
    entry.update({"wall_median_s": t.wall.median, "cpu_outliers": list(t.cpu.outliers),
                  "cases": [_case_entry(cid, t) for cid in _case_ids(board)]})
    return entry


def _ranked_entry(rank: int, t: Timed, board: Board, name, startup: Dict[str, Timed]) -> dict:
    language = t.program.language.name
    base = startup.get(language)
    base_cpu = base.cpu.median if base is not None and base.cpu is not None else None
    entry = {"id": name(t.program.id), "language": language, "rank": rank,
             "winner": rank == 1}
    entry.update(_figures("cpu", t.cpu))
    entry.update({
        "cpu_outliers": list(t.cpu.outliers),
        "wall_median_s": t.wall.median,
        "wall_min_s": t.wall.minimum,
        "wall_max_s": t.wall.maximum,
        "wall_mad_s": t.wall.mad,
        "wall_runs_s": list(t.wall.runs),
        "startup_cpu_median_s": base_cpu,
        "beyond_startup_cpu_s": None if base_cpu is None else t.cpu.median - base_cpu,
        "faster_than": [name(other) for other in board.beats.get(t.program.id, [])],
        "cases": [_case_entry(cid, t) for cid in _case_ids(board)],
    })
    return entry


def _case_ids(board: Board) -> List[str]:
    return [case.id for case in board.session.cases]


def _case_entry(case_id: str, t: Timed) -> dict:
    cpu, wall = t.cpu_cases[case_id], t.wall_cases[case_id]
    entry = {"id": case_id}
    entry.update(_figures("cpu", cpu))
    entry.update({"cpu_outliers": list(cpu.outliers), "wall_median_s": wall.median})
    return entry
