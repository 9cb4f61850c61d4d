"""What the store keeps, row by row, as the rest of the grader reads it; and what an
accepted or failed run keeps of its output for judging it again."""

import dataclasses
import json
import os
import zlib
from dataclasses import dataclass, fields
from typing import Any, Literal, Protocol

from grader.core.errors import GraderError
from grader.core.model import STARTUP_RAN, RunResult, TimedVerdict, Verdict

SESSION_COLUMNS = "id, recorded_at, first_run, last_run, statistic, settings, cases, draw"


def kept_output(verdict: Verdict, stdout: bytes) -> bytes:
    """What the store keeps of a run's stdout: all of it (the sandbox has capped it at
    the output limit), so that the run can be judged again; nothing of an accepted
    run's, which is the expected output byte for byte."""
    return b"" if verdict == Verdict.AC else stdout


_EXPECTED = "expected"  # an accepted run printed the expected output, byte for byte
_STORED = "stored"  # its output is the runs.output column, whole


def replay_blob(verdict: Verdict, result: RunResult) -> bytes:
    """What judging `result` again needs besides its standard output (runs.replay)."""
    data = {f.name: getattr(result, f.name) for f in fields(RunResult) if f.name != "stdout"}
    data["stderr"] = result.stderr.decode("latin-1")  # every byte, as one character
    data["stdout"] = _EXPECTED if verdict == Verdict.AC else _STORED
    return zlib.compress(json.dumps(data).encode())


def replayed(blob: bytes | None, output: bytes, expected: bytes) -> RunResult | None:
    """The run as the sandbox reported it, from runs.replay and runs.output (or the
    expected output an accepted run printed); None when the store cannot tell."""
    if blob is None:
        return None
    try:
        data = json.loads(zlib.decompress(blob))
        data["stderr"] = data["stderr"].encode("latin-1")
        data["stdout"] = expected if data["stdout"] == _EXPECTED else output
        return RunResult(**data)
    except (ValueError, TypeError, KeyError, zlib.error):
        return None


class StoreError(GraderError):
    """The results folder or database cannot be used; str() says why."""


@dataclass(frozen=True)
class RunRow:
    submission_id: str
    case_id: str
    case_version: str
    verdict: Verdict
    exit_code: int | None
    signal: int | None
    cpu_seconds: float | None
    wall_seconds: float | None
    peak_memory_kb: int | None
    output_size: int | None
    diagnosis: str  # for people only: no decision is read from it
    stderr: str
    sandbox: str
    policy_only: bool | None  # see the runs table; None: stored by schema 1, not decided yet
    cpu_accounting: str  # a CpuAccounting value; "" when nothing ran or stored before it
    kind: str = ""  # the kind of failure ("WA/missing"); "" for AC, CE, or stored before it
    exposed: bool = True  # it could have learned a hidden input (see the runs table)
    rules: str | None = None  # the judging rules' version (grader.core.rules); None: unknown


RUN_COLUMNS = tuple(field.name for field in fields(RunRow))


def run_row(row: tuple[Any, ...]) -> RunRow:
    values = dict(zip(RUN_COLUMNS, row))
    values["verdict"] = Verdict(values["verdict"])
    if values["policy_only"] is not None:
        values["policy_only"] = bool(values["policy_only"])  # stored as 0 or 1
    values["exposed"] = bool(values["exposed"])
    return RunRow(**values)


@dataclass(frozen=True)
class PoolRunRow:
    puzzle_id: str
    puzzle_version: str
    verdict: str
    kind: str
    diagnosis: str
    exposed: bool  # as RunRow.exposed
    cpu_seconds: float | None = None  # None: nothing ran, or stored before schema 7
    rules: str | None = None  # as RunRow.rules


@dataclass(frozen=True)
class ProofRow:
    """A counterfactual run: the property it changed and how the run ended."""

    changed: str  # the InputProperties field the puzzle had changed
    verdict: Verdict
    rules: str | None

    @property
    def proves(self) -> bool:
        """The program passes the puzzle with only this changed."""
        return self.verdict is Verdict.AC


@dataclass(frozen=True)
class FindingRow:
    """A relation the program's runs show (grader.grading.relations.Finding, as stored)."""

    kind: str
    text: str
    explains: tuple[str, ...]
    shown_by: str | None
    cap: int | None = None  # a cap's K (kind "cap"): the most boards the program prints


@dataclass(frozen=True)
class CounterexampleRow:
    """A public puzzle that fails like a case, or none (puzzle_id None) and why."""

    case_id: str
    case_version: str
    puzzle_id: str | None
    source: str  # "public", "pool", or "" when none
    input: bytes
    expected: bytes
    output: bytes
    diagnosis: str
    reason: str

    @property
    def found(self) -> bool:
        return self.puzzle_id is not None


@dataclass(frozen=True)
class TimingRow:
    program_id: str
    case_id: str
    case_version: str
    run_index: int
    verdict: TimedVerdict  # AC (or OK for a start-up program), else what went wrong
    cpu_seconds: float
    wall_seconds: float
    core: int | None  # the core it was pinned to, None when not pinned
    sandbox: str
    created_at: float
    cpu_accounting: str  # a CpuAccounting value ("" if stored before schema 3)
    worker: str  # the Dask worker that timed it ('' for this machine)


def timing_row(row: tuple[Any, ...]) -> TimingRow:
    values = dict(zip((field.name for field in fields(TimingRow)), row))
    verdict = values["verdict"]
    values["verdict"] = STARTUP_RAN if verdict == STARTUP_RAN else Verdict(verdict)
    return TimingRow(**values)


@dataclass(frozen=True)
class OverrideRow:
    """An instructor's decision (see the overrides table)."""

    submission_id: str
    case_id: str  # "" for the whole submission
    verdict: str | None  # a Verdict value in place of the judge's
    points: float | None  # a case's points; for the whole submission, points added
    reason: str
    recorded_at: float
    content_hash: str  # the run it was decided on: the submission's content,
    case_version: str  # the case's version ("" for the whole submission),
    judged: str | None  # and the judge's verdict then (None: not graded, or no case)


OVERRIDE_COLUMNS = tuple(field.name for field in fields(OverrideRow))

# ranked; failed: a timed run failed; incomplete: timed runs missing; not timed: not
# eligible then (the reason says why)
ProgramOutcome = Literal["ranked", "failed", "incomplete", "not timed"]
JudgedTable = Literal["runs", "pool_runs"]  # the tables of judged runs


@dataclass(frozen=True)
class SessionProgram:
    """A submission one leaderboard session considered, and where it ended."""

    program_id: str
    content_hash: str
    outcome: ProgramOutcome
    rank: int | None = None  # ranked: 1 + the programs significantly faster
    cpu_median_s: float | None = None
    reason: str = ""  # why it was not ranked

    @property
    def winner(self) -> bool:
        return self.rank == 1


@dataclass(frozen=True)
class LeaderboardSession:
    """One recorded `grader leaderboard`: what the bonus is awarded from."""

    id: int  # 0 until recorded
    recorded_at: float
    first_run: float | None
    last_run: float | None
    statistic: str
    settings: dict[str, float]  # runs, warmup, noise_floor, alpha
    cases: tuple[tuple[str, str], ...]  # (id, version) of each timed puzzle
    programs: tuple[SessionProgram, ...]
    draw: dict[str, Any] | None = None  # the puzzles drawn for it (None: recorded before draws)

    @property
    def families(self) -> tuple[str, ...]:
        """The timed cases its puzzles were drawn from."""
        return tuple(p["family"] for p in (self.draw or {}).get("puzzles", ()))

    @property
    def winners(self) -> list[SessionProgram]:
        return [p for p in self.programs if p.winner]


@dataclass(frozen=True)
class SubmissionRow:
    id: str
    language: str
    content_hash: str
    folder: str  # the file system's name (str of its bytes: os.fsdecode); show it printable()
    problem: str | None


@dataclass(frozen=True)
class FilesRow:
    """Which files of a submission's folder its build got, and which it ignored."""

    used: list[str]  # shown names, the main file first
    ignored: list[tuple[str, str]]  # (shown name, why)
    unread: list[str] = dataclasses.field(default_factory=list)  # what no analysis read, why


@dataclass(frozen=True)
class BuildRow:
    ok: bool
    log: str
    cpu_seconds: float
    wall_seconds: float


class Built(Protocol):
    """What the store keeps of a build (grader.build.builder's Artifact, a layer above)."""

    @property
    def ok(self) -> bool: ...
    @property
    def log(self) -> str: ...
    @property
    def cpu_seconds(self) -> float: ...
    @property
    def wall_seconds(self) -> float: ...


SUBMISSION_COLUMNS = "id, language, content_hash, folder, problem, path"


def submission_row(row: tuple[Any, ...]) -> SubmissionRow:
    """A submission as stored: its folder the file system's own name (a name that is
    not UTF-8, as `unzip` makes of a Windows zip, is the same folder on every rerun)."""
    sid, language, digest, shown, problem, path = row
    folder = os.fsdecode(path) if path is not None else shown
    return SubmissionRow(sid, language, digest, folder, problem)
