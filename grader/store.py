"""SQLite store of every build and run, written as each one finishes.

A run is keyed by (submission, content hash, case, case version): a grading
run that was interrupted resumes by skipping what is stored, nothing is graded
twice, and a changed submission or case is graded afresh. IE rows are the
grader's failures, so they are retried rather than kept.
"""

import dataclasses
import errno
import json
import os
import sqlite3
import time
import zlib
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, fields
from functools import cache
from pathlib import Path
from typing import IO, Any, Literal, Protocol

from grader.cases import Case
from grader.errors import GraderError
from grader.model import STARTUP_RAN, RunResult, TimedVerdict, Verdict
from grader.submissions import Submission
from grader.text import safe_name

# 2: runs.policy_only; 3: runs and timings .cpu_accounting; 4: runs.kind, the tables
# pool_runs and counterexamples, the instructor's overrides and the leaderboard's
# recorded sessions; 5: runs.exposed and pool_runs.exposed, the table exposures; 6:
# submissions.path, the folder's own bytes; 7: pool_runs.cpu_seconds; 8: runs.rules,
# runs.replay and the same of pool_runs (older databases are migrated on opening).
SCHEMA_VERSION = 8
# The schema version each table first appeared in: a store of version v must hold every
# table of version v or less (a missing one is damage, never recreated empty).
# (Schema 1 grew its builds, files and timings tables without a new number.)
TABLE_SINCE = {
    "meta": 1,
    "submissions": 1,
    "runs": 1,
    "builds": 2,
    "submission_files": 2,
    "timings": 2,
    "overrides": 4,
    "leaderboard_sessions": 4,
    "leaderboard_programs": 4,
    "pool_runs": 5,
    "counterexamples": 5,
    "exposures": 5,
    "proofs": 8,
    "findings": 8,
}
MAX_STORED_OUTPUT = 1 << 20  # bytes of a counterexample's output kept for feedback pages

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS submissions (
    id TEXT PRIMARY KEY,
    language TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    folder TEXT NOT NULL,  -- as people read it: bytes that are not UTF-8 escaped
    problem TEXT,
    updated_at REAL NOT NULL,
    path BLOB  -- the folder as the file system names it (NULL: written before schema 6)
);
CREATE TABLE IF NOT EXISTS builds (
    content_hash TEXT PRIMARY KEY,
    ok INTEGER NOT NULL,
    log TEXT NOT NULL,
    cpu_seconds REAL NOT NULL,
    wall_seconds REAL NOT NULL,
    created_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS runs (
    submission_id TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    case_id TEXT NOT NULL,
    case_version TEXT NOT NULL,
    verdict TEXT NOT NULL,
    exit_code INTEGER,
    signal INTEGER,
    cpu_seconds REAL,
    wall_seconds REAL,
    peak_memory_kb INTEGER,
    output_size INTEGER,
    diagnosis TEXT NOT NULL,
    stderr TEXT NOT NULL,
    output BLOB,
    sandbox TEXT NOT NULL,
    created_at REAL NOT NULL,
    -- 1: the failure is decided only by the case's policy rules (grader.compare.policy), else
    -- 0; NULL in a run stored by schema 1 until a report decides it (grader.policy_backfill).
    policy_only INTEGER,
    -- What counted cpu_seconds (grader.model.CpuAccounting); '' when nothing ran, or
    -- stored before schema 3.
    cpu_accounting TEXT NOT NULL DEFAULT '',
    -- The kind of failure (grader.judge.Judgement.kind, "WA/missing"); '' for AC, for CE
    -- (nothing ran), or stored before schema 4.
    kind TEXT NOT NULL DEFAULT '',
    -- 1: the run could have learned a hidden input (its own input is hidden, or a hidden
    -- run of this submission had started before it): nothing a student sees comes from
    -- it. 0: it could not. Runs stored before schema 5: 1 (their order is unknown).
    exposed INTEGER NOT NULL DEFAULT 1,
    -- The judging rules' version (grader.rules) the verdict was decided under; NULL:
    -- stored before schema 8 (unknown rules: judged again, or run again, before it counts).
    rules TEXT,
    -- What judging it again needs besides its output (grader.store.Replay, zlib JSON); NULL
    -- when nothing ran, or stored before schema 8 (it is then run again).
    replay BLOB,
    PRIMARY KEY (submission_id, content_hash, case_id, case_version)
);
-- Runs on puzzles of the pool (grader.pool), made to find a puzzle a student may see that
-- fails like a case (grader.counterexamples); never part of a score.
CREATE TABLE IF NOT EXISTS pool_runs (
    submission_id TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    puzzle_id TEXT NOT NULL,
    puzzle_version TEXT NOT NULL,
    verdict TEXT NOT NULL,
    kind TEXT NOT NULL,         -- as runs.kind
    diagnosis TEXT NOT NULL,
    output BLOB,                -- zlib, as runs.output
    created_at REAL NOT NULL,
    exposed INTEGER NOT NULL DEFAULT 1,  -- as runs.exposed
    cpu_seconds REAL,           -- as runs.cpu_seconds: how the program's time grows
    rules TEXT,                 -- as runs.rules
    replay BLOB,                -- as runs.replay
    PRIMARY KEY (submission_id, content_hash, puzzle_id, puzzle_version)
);
-- When a submission's first hidden run was started: every run of it started later could
-- have learned a hidden input (runs.exposed). `forget` (a regrade from scratch) clears it.
CREATE TABLE IF NOT EXISTS exposures (
    submission_id TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    started_at REAL NOT NULL,
    PRIMARY KEY (submission_id, content_hash)
);
-- Per failing case: the puzzle a student may see that fails the same way, shown whole,
-- or none and why (a found one has puzzle_id; reason is then '').
CREATE TABLE IF NOT EXISTS counterexamples (
    submission_id TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    case_id TEXT NOT NULL,
    case_version TEXT NOT NULL,
    puzzle_id TEXT,             -- a public case's id or a pool puzzle's; NULL: none found
    source TEXT NOT NULL,       -- 'public' (a public case), 'pool', or '' when none
    input BLOB,                 -- zlib: the puzzle
    expected BLOB,              -- zlib: its expected output
    output BLOB,                -- zlib: what the program printed on it (capped as runs.output)
    diagnosis TEXT NOT NULL,    -- the diagnosis of that run
    reason TEXT NOT NULL,       -- why none was found ('' when one was)
    created_at REAL NOT NULL,
    PRIMARY KEY (submission_id, content_hash, case_id, case_version)
);
-- A counterfactual run (grader.proofs): the case's puzzle with one property changed
-- (grader.counterfactual), run after grading; it proves the property is what the program
-- fails on when it passes. Its output is never shown.
CREATE TABLE IF NOT EXISTS proofs (
    submission_id TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    case_id TEXT NOT NULL,
    case_version TEXT NOT NULL,
    property TEXT NOT NULL,     -- the InputProperties field changed
    verdict TEXT NOT NULL,
    rules TEXT,                 -- as runs.rules
    created_at REAL NOT NULL,
    PRIMARY KEY (submission_id, content_hash, case_id, case_version, property)
);
-- What a program does wrong, read from all its runs (grader.relations), in order.
CREATE TABLE IF NOT EXISTS findings (
    submission_id TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    position INTEGER NOT NULL,
    kind TEXT NOT NULL,
    text TEXT NOT NULL,         -- for the student: nothing of a hidden case
    explains TEXT NOT NULL,     -- JSON: the ids of the puzzles of the failing runs it explains
    shown_by TEXT,              -- a puzzle a student may see where it shows, or NULL
    cap INTEGER,                -- a cap's K (kind 'cap'), else NULL
    PRIMARY KEY (submission_id, content_hash, position)
);
-- Which files of a submission's folder the build got, and which it ignored (and why).
CREATE TABLE IF NOT EXISTS submission_files (
    id TEXT PRIMARY KEY,
    used TEXT NOT NULL,     -- JSON list of shown names, the main file first
    ignored TEXT NOT NULL,  -- JSON list of [shown name, reason]
    -- JSON list of what the analysis of the sources could not read, and why (schema 8)
    unread TEXT NOT NULL DEFAULT '[]'
);
-- Leaderboard timings: one row per timed run (warm-ups are not stored). program_id is a
-- submission id, or "startup/<language>" for the program that only starts and exits.
CREATE TABLE IF NOT EXISTS timings (
    program_id TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    case_id TEXT NOT NULL,
    case_version TEXT NOT NULL,
    run_index INTEGER NOT NULL,
    verdict TEXT NOT NULL,
    cpu_seconds REAL NOT NULL,
    wall_seconds REAL NOT NULL,
    core INTEGER,
    sandbox TEXT NOT NULL,
    created_at REAL NOT NULL,
    cpu_accounting TEXT NOT NULL DEFAULT '',  -- as in runs
    PRIMARY KEY (program_id, content_hash, case_id, case_version, run_index)
);
-- An instructor's decision (`grader override`): on one case of a submission, or on the
-- whole submission (case_id ''), a verdict or points in place of what the judge gave,
-- with its reason and time. It outlives every regrade (`forget` keeps it). The run it
-- was decided on (content_hash, case_version, judged) tells when that run changed: the
-- decision still applies, and is named as needing review.
CREATE TABLE IF NOT EXISTS overrides (
    submission_id TEXT NOT NULL,
    case_id TEXT NOT NULL,       -- '' for the whole submission
    verdict TEXT,                -- a case's verdict instead of the judge's, or NULL
    points REAL,                 -- a case's points, or points added to the score, or NULL
    reason TEXT NOT NULL,
    recorded_at REAL NOT NULL,
    content_hash TEXT NOT NULL,  -- the submission's content when decided
    case_version TEXT NOT NULL,  -- the case's version when decided ('' for the submission)
    judged TEXT,                 -- the judge's verdict then; NULL: not graded, or no case
    PRIMARY KEY (submission_id, case_id)
);
-- Each `grader leaderboard` that ranked the class: when, by what statistic, settings and
-- timed cases; leaderboard_programs holds every program it timed with its content and
-- its place. The speed bonus is awarded from the last session (grader.bonus).
CREATE TABLE IF NOT EXISTS leaderboard_sessions (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    recorded_at REAL NOT NULL,
    first_run REAL,              -- when the ranked programs' stored runs were measured
    last_run REAL,
    statistic TEXT NOT NULL,
    settings TEXT NOT NULL,      -- JSON: runs, warmup, noise_floor, alpha
    cases TEXT NOT NULL,         -- JSON: [[case id, version], ...], the timed puzzles
    -- JSON: the puzzles drawn for it (grader.leaderboard.draws: seed, digest, each puzzle
    -- with its family, its text and its expected output's SHA-256); NULL before schema 5
    draw TEXT
);
CREATE TABLE IF NOT EXISTS leaderboard_programs (
    session_id INTEGER NOT NULL,
    program_id TEXT NOT NULL,    -- every submission the session considered
    content_hash TEXT NOT NULL,
    outcome TEXT NOT NULL,       -- ranked; failed (a timed run failed); incomplete; not timed
    rank INTEGER,                -- ranked only: 1 + programs significantly faster
    cpu_median_s REAL,           -- ranked only: the statistic's median
    reason TEXT NOT NULL,        -- why it was not ranked ('' when ranked)
    PRIMARY KEY (session_id, program_id)
);
"""


DB_NAME = "grader.db"  # the database `grader grade` keeps in its results folder
_SESSION_COLUMNS = "id, recorded_at, first_run, last_run, statistic, settings, cases, draw"


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
    rules: str | None = None  # the judging rules' version (grader.rules); None: unknown


_RUN_COLUMNS = tuple(field.name for field in fields(RunRow))


def _run_row(row: tuple[Any, ...]) -> RunRow:
    values = dict(zip(_RUN_COLUMNS, row))
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
    """A relation the program's runs show (grader.relations.Finding, as stored)."""

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


def _timing_row(row: tuple[Any, ...]) -> TimingRow:
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


_OVERRIDE_COLUMNS = tuple(field.name for field in fields(OverrideRow))

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


class _Built(Protocol):
    """What the store keeps of a build (grader.build's Artifact, a layer above)."""

    @property
    def ok(self) -> bool: ...
    @property
    def log(self) -> str: ...
    @property
    def cpu_seconds(self) -> float: ...
    @property
    def wall_seconds(self) -> float: ...


class Store:
    def __init__(self, path: Path):
        self.path = Path(path)
        self._reading = False  # inside snapshot()
        try:
            # Worker threads write through one connection, serialised by the grading run.
            self.db = sqlite3.connect(
                self.path, timeout=30, isolation_level=None, check_same_thread=False
            )
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=FULL")  # a stored run survives power loss
            self._open()
        except sqlite3.DatabaseError as error:
            raise StoreError(f"{self.path}: cannot use the results database: {error}") from None

    def _open(self) -> None:
        """A new store gets the schema; any other is checked first: one of a later
        version, of another program, or missing a table or a column is refused, never
        made over empty (its runs and the instructor's decisions would vanish unseen)."""
        tables = _tables(self.db)
        if not tables:
            self.db.executescript(_SCHEMA)
            self.db.execute("INSERT INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
            return
        version = self._version(tables)
        missing = [t for t, since in TABLE_SINCE.items() if since <= version and t not in tables]
        if missing:
            raise StoreError(self._damaged(f"its table {missing[0]!r} is missing"))
        if version < SCHEMA_VERSION:
            self.db.executescript(_SCHEMA)  # the tables later versions added, empty
            self._migrate(version)
        columns = _columns(self.db)
        for table, wanted in _schema_columns().items():
            lacking = sorted(wanted - columns.get(table, set()))
            if lacking:
                raise StoreError(self._damaged(f"its table {table!r} has no column {lacking[0]!r}"))

    def _version(self, tables: set[str]) -> int:
        row = (
            self.db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
            if "meta" in tables
            else None
        )
        if row is None:
            raise StoreError(
                f"{self.path}: not the grader's results database (no schema version in it); "
                "pass another --results folder"
            )
        if row[0] not in {str(v) for v in range(1, SCHEMA_VERSION + 1)}:
            raise StoreError(
                f"{self.path}: made by another version of the grader "
                f"(schema {row[0]}, this one uses {SCHEMA_VERSION})"
            )
        return int(row[0])

    def _damaged(self, what: str) -> str:
        return (
            f"{self.path}: the results database is damaged ({what}): nothing was changed; "
            "restore it from a copy, or grade into a new --results folder"
        )

    def _migrate(self, version: int) -> None:
        """Schema 1 kept the policy decision only as a sentence in the diagnosis: add its
        column, undecided (NULL) in the stored runs, which grader.policy_backfill decides.
        Schemas 1 and 2 did not say what counted a run's CPU time: '' (unknown). Schemas
        1 to 3 did not keep a failure's kind: '' (the search for a public puzzle that
        fails alike says the case must be graded again). Schema 4's tables (pool runs,
        counterexamples, overrides, leaderboard sessions) are made empty by _SCHEMA, as
        in a new file. Schemas 1 to 4 did not keep whether a run could have learned a
        hidden input, and ran hidden and public cases in any order: every stored run is
        exposed (a student sees none of its output until it is graded again), and the
        counterexamples found among them are dropped (the next `grade` finds them
        among runs a student may see). Schemas 1 to 5 kept a folder only as printable
        text: its own name (path) waits for the next `grade`. Schemas 1 to 7 did not keep
        the rules a verdict was judged under, nor what judging it again needs: rules
        NULL (unknown), so no such verdict counts until `grade` judges it again (an
        accepted run: from the expected output) or runs it again."""
        with self._write() as db:
            db.execute("BEGIN IMMEDIATE")
            if version < 2:
                _add_column(db, "runs", "policy_only INTEGER")
            for table in ("runs", "timings"):  # a table made just now has it already
                _add_column(db, table, "cpu_accounting TEXT NOT NULL DEFAULT ''")
            _add_column(db, "runs", "kind TEXT NOT NULL DEFAULT ''")
            _add_column(db, "leaderboard_sessions", "draw TEXT")
            if version < 5:
                for table in ("runs", "pool_runs"):
                    _add_column(db, table, "exposed INTEGER NOT NULL DEFAULT 1")
                # Found among runs made after the hidden ones: found again at the next grade.
                db.execute("DELETE FROM counterexamples")
            _add_column(db, "submissions", "path BLOB")  # the next grade fills it
            _add_column(db, "pool_runs", "cpu_seconds REAL")
            for table in ("runs", "pool_runs"):
                _add_column(db, table, "rules TEXT")
                _add_column(db, table, "replay BLOB")
            _add_column(db, "submission_files", "unread TEXT NOT NULL DEFAULT '[]'")
            db.execute("UPDATE meta SET value=? WHERE key='schema'", (str(SCHEMA_VERSION),))

    # ------------------------------------------------------------ grading sessions

    def record_grade_started(self) -> None:
        """A `grade` starts writing: until it finishes, what it leaves is half a grade."""
        self._set_meta("grade_started", repr(time.time()))

    def record_grade_finished(self) -> None:
        self._set_meta("grade_finished", repr(time.time()))

    def grade_unfinished(self) -> float | None:
        """When the last `grade` that did not finish started (killed, or running now);
        None when the last one finished."""
        started, finished = self._meta("grade_started"), self._meta("grade_finished")
        if started is None or (finished is not None and float(finished) >= float(started)):
            return None
        return float(started)

    def _meta(self, key: str) -> str | None:
        row = self.db.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def _set_meta(self, key: str, value: str) -> None:
        with self._write() as db:
            db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))

    @contextmanager
    def snapshot(self) -> Iterator["Store"]:
        """Every read inside sees one state of the store (SQLite's read transaction in
        WAL mode): an export never mixes runs from before and after a write."""
        self.db.execute("BEGIN")
        self._reading = True
        try:
            self.db.execute("SELECT count(*) FROM meta").fetchone()  # the snapshot starts here
            yield self
        finally:
            self._reading = False
            self.db.execute("COMMIT")

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        try:
            if self._reading:  # inside snapshot(): committed with it, at its end
                yield self.db
                return
            with self.db:
                yield self.db
        except sqlite3.OperationalError as error:
            raise StoreError(f"{self.path}: cannot write the results database: {error}") from None

    # ------------------------------------------------------------ writes

    def record_submission(self, sub: Submission) -> None:
        used = list(getattr(sub, "used_files", ()))
        ignored = [list(pair) for pair in getattr(sub, "ignored", ())]
        unread = list(getattr(getattr(sub, "facts", None), "unread", ()))
        with self._write() as db:
            db.execute(
                "INSERT OR REPLACE INTO submissions (id, language, content_hash, folder, "
                "problem, updated_at, path) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    sub.id,
                    sub.language_name,
                    sub.content_hash,
                    safe_name(sub.folder),
                    sub.problem,
                    time.time(),
                    os.fsencode(sub.folder),
                ),
            )
            db.execute(
                "INSERT OR REPLACE INTO submission_files (id, used, ignored, unread)"
                " VALUES (?, ?, ?, ?)",
                (sub.id, json.dumps(used), json.dumps(ignored), json.dumps(unread)),
            )

    def record_build(self, content_hash: str, artifact: _Built) -> None:
        with self._write() as db:
            db.execute(
                "INSERT OR REPLACE INTO builds VALUES (?, ?, ?, ?, ?, ?)",
                (
                    content_hash,
                    int(artifact.ok),
                    artifact.log,
                    artifact.cpu_seconds,
                    artifact.wall_seconds,
                    time.time(),
                ),
            )

    def record_run(
        self,
        sub: Submission,
        case: Case,
        verdict: Verdict,
        diagnosis: str,
        result: RunResult | None = None,
        *,
        policy_only: bool = False,
        kind: str = "",
        exposed: bool = True,
        rules: str | None = None,
    ) -> None:
        """One finished run; `result` is the RunResult, None when nothing ran (CE);
        `policy_only`: the failure is decided only by the case's policy rules; `kind`:
        the kind of failure (grader.judge.Judgement.kind); `exposed`: it could have
        learned a hidden input (the runs table says when); `rules`: the judging rules'
        version it was judged under (None: not judged, e.g. IE)."""
        kept = kept_output(verdict, result.stdout) if result is not None else b""
        output = zlib.compress(kept) if kept else None
        r = result
        replay = replay_blob(verdict, r) if r is not None and rules is not None else None
        with self._write() as db:
            db.execute(
                "INSERT OR REPLACE INTO runs (submission_id, content_hash, case_id, case_version,"
                " verdict, exit_code, signal, cpu_seconds, wall_seconds, peak_memory_kb,"
                " output_size, diagnosis, stderr, output, sandbox, created_at, policy_only,"
                " cpu_accounting, kind, exposed, rules, replay)"
                " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (
                    sub.id,
                    sub.content_hash,
                    case.id,
                    case.version,
                    str(verdict),
                    r.exit_code if r else None,
                    r.signal if r else None,
                    r.cpu_seconds if r else None,
                    r.wall_seconds if r else None,
                    r.peak_memory_kb if r else None,
                    r.stdout_size if r else None,
                    diagnosis,
                    r.stderr.decode("utf-8", "backslashreplace") if r else "",
                    output,
                    r.sandbox if r else "",
                    time.time(),
                    int(policy_only),
                    r.cpu_accounting if r else "",
                    kind,
                    int(exposed),
                    rules,
                    replay,
                ),
            )

    def rejudged(
        self,
        table: "JudgedTable",
        key: tuple[str, str, str, str],
        verdict: Verdict,
        diagnosis: str,
        kind: str,
        policy_only: bool,
        rules: str,
    ) -> None:
        """A stored run judged again under `rules` (grader.rejudge): its verdict and what
        goes with it; `key` is (submission, content hash, case or puzzle, its version)."""
        column = "case" if table == "runs" else "puzzle"
        policy = ", policy_only=?" if table == "runs" else ""
        values = (str(verdict), diagnosis, kind, rules) + ((int(policy_only),) if policy else ())
        with self._write() as db:
            db.execute(
                f"UPDATE {table} SET verdict=?, diagnosis=?, kind=?, rules=?{policy}"
                f" WHERE submission_id=? AND content_hash=? AND {column}_id=?"
                f" AND {column}_version=?",
                values + key,
            )

    def replay(
        self, table: "JudgedTable", key: tuple[str, str, str, str]
    ) -> tuple[bytes | None, bytes]:
        """(runs.replay, the whole stored output) of one stored run (see `rejudged`)."""
        column = "case" if table == "runs" else "puzzle"
        row = self.db.execute(
            f"SELECT replay, output FROM {table} WHERE submission_id=? AND content_hash=?"
            f" AND {column}_id=? AND {column}_version=?",
            key,
        ).fetchone()
        if row is None:
            return None, b""
        return row[0], zlib.decompress(row[1]) if row[1] is not None else b""

    def drop_run(self, table: "JudgedTable", key: tuple[str, str, str, str]) -> None:
        """Forget one stored run (it cannot be judged again: it is run again)."""
        column = "case" if table == "runs" else "puzzle"
        with self._write() as db:
            db.execute(
                f"DELETE FROM {table} WHERE submission_id=? AND content_hash=?"
                f" AND {column}_id=? AND {column}_version=?",
                key,
            )

    def record_policy_only(
        self, submission_id: str, content_hash: str, case_id: str, case_version: str, value: bool
    ) -> None:
        """The policy decision of a run stored by schema 1, once it is decided."""
        with self._write() as db:
            db.execute(
                "UPDATE runs SET policy_only=? WHERE submission_id=? AND content_hash=?"
                " AND case_id=? AND case_version=?",
                (int(value), submission_id, content_hash, case_id, case_version),
            )

    def record_pool_run(
        self,
        sub: Submission,
        puzzle: Case,
        verdict: Verdict,
        kind: str,
        diagnosis: str,
        result: RunResult | None,
        *,
        exposed: bool = True,
        rules: str | None = None,
    ) -> None:
        """One run on a pool puzzle (`result` its RunResult, None when nothing ran;
        `exposed` and `rules` as in record_run)."""
        kept = kept_output(verdict, result.stdout) if result is not None else b""
        replay = replay_blob(verdict, result) if result is not None and rules else None
        with self._write() as db:
            db.execute(
                "INSERT OR REPLACE INTO pool_runs (submission_id, content_hash, puzzle_id, "
                "puzzle_version, verdict, kind, diagnosis, output, created_at, exposed, "
                "cpu_seconds, rules, replay) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (
                    sub.id,
                    sub.content_hash,
                    puzzle.id,
                    puzzle.version,
                    str(verdict),
                    kind,
                    diagnosis,
                    zlib.compress(kept) if kept else None,
                    time.time(),
                    int(exposed),
                    result.cpu_seconds if result is not None else None,
                    rules,
                    replay,
                ),
            )

    def record_exposure(self, submission_id: str, content_hash: str) -> None:
        """The submission's first hidden run is starting now (a later call keeps the
        first time)."""
        with self._write() as db:
            db.execute(
                "INSERT OR IGNORE INTO exposures VALUES (?, ?, ?)",
                (submission_id, content_hash, time.time()),
            )

    def exposed(self, submission_id: str, content_hash: str) -> bool:
        """A hidden run of this submission has started: what it runs now could have
        learned a hidden input."""
        row = self.db.execute(
            "SELECT 1 FROM exposures WHERE submission_id=? AND content_hash=?",
            (submission_id, content_hash),
        ).fetchone()
        return row is not None

    def record_counterexample(self, sub: Submission, case: Case, found: CounterexampleRow) -> None:
        """What the search found for a failing case (found.case_id is case.id)."""
        with self._write() as db:
            db.execute(
                "INSERT OR REPLACE INTO counterexamples VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
                (
                    sub.id,
                    sub.content_hash,
                    case.id,
                    case.version,
                    found.puzzle_id,
                    found.source,
                    zlib.compress(found.input),
                    zlib.compress(found.expected),
                    zlib.compress(found.output[:MAX_STORED_OUTPUT]),
                    found.diagnosis,
                    found.reason,
                    time.time(),
                ),
            )

    def record_proof(
        self, sub: Submission, case: Case, property: str, verdict: Verdict, rules: str | None
    ) -> None:
        """A counterfactual run of `case` with `property` changed, and how it ended."""
        with self._write() as db:
            db.execute(
                "INSERT OR REPLACE INTO proofs VALUES (?,?,?,?,?,?,?,?)",
                (
                    sub.id,
                    sub.content_hash,
                    case.id,
                    case.version,
                    property,
                    str(verdict),
                    rules,
                    time.time(),
                ),
            )

    def proofs(
        self, submission_id: str, content_hash: str
    ) -> dict[tuple[str, str], dict[str, ProofRow]]:
        """(case id, case version) -> property -> its counterfactual run."""
        rows = self.db.execute(
            "SELECT case_id, case_version, property, verdict, rules FROM proofs"
            " WHERE submission_id=? AND content_hash=?",
            (submission_id, content_hash),
        )
        found: dict[tuple[str, str], dict[str, ProofRow]] = {}
        for case_id, version, prop, verdict, rules in rows:
            found.setdefault((case_id, version), {})[prop] = ProofRow(prop, Verdict(verdict), rules)
        return found

    def record_findings(self, sub: Submission, found: Sequence[FindingRow]) -> None:
        """What the relations found in the submission's runs (replacing the last)."""
        with self._write() as db:
            db.execute(
                "DELETE FROM findings WHERE submission_id=? AND content_hash=?",
                (sub.id, sub.content_hash),
            )
            db.executemany(
                "INSERT INTO findings VALUES (?,?,?,?,?,?,?,?)",
                [
                    (
                        sub.id,
                        sub.content_hash,
                        position,
                        f.kind,
                        f.text,
                        json.dumps(list(f.explains)),
                        f.shown_by,
                        f.cap,
                    )
                    for position, f in enumerate(found)
                ],
            )

    def findings(self, submission_id: str, content_hash: str) -> list[FindingRow]:
        rows = self.db.execute(
            "SELECT kind, text, explains, shown_by, cap FROM findings"
            " WHERE submission_id=? AND content_hash=? ORDER BY position",
            (submission_id, content_hash),
        )
        return [
            FindingRow(kind, text, tuple(json.loads(explains)), shown_by, cap)
            for kind, text, explains, shown_by, cap in rows
        ]

    def forget(self, submission_id: str) -> None:
        """Drop a submission's runs (for --force)."""
        with self._write() as db:
            for table in (
                "runs",
                "pool_runs",
                "counterexamples",
                "exposures",
                "proofs",
                "findings",
            ):
                db.execute(f"DELETE FROM {table} WHERE submission_id = ?", (submission_id,))

    # ------------------------------------------------------------ reads

    def done(self, submission_id: str, content_hash: str) -> set[tuple[str, str]]:
        """(case id, case version) already judged for this content, IE excluded."""
        rows = self.db.execute(
            "SELECT case_id, case_version FROM runs WHERE submission_id=? AND content_hash=?"
            " AND verdict != 'IE'",
            (submission_id, content_hash),
        )
        return set(rows)

    def submission(self, submission_id: str) -> SubmissionRow | None:
        row = self.db.execute(
            f"SELECT {_SUBMISSION_COLUMNS} FROM submissions WHERE id=?", (submission_id,)
        ).fetchone()
        return _submission_row(row) if row else None

    def recorded(self, submission_id: str) -> SubmissionRow:
        """The row of a submission this grading run recorded (plan() records every one)."""
        row = self.submission(submission_id)
        if row is None:
            raise StoreError(f"{self.path}: submission {submission_id!r} was not recorded")
        return row

    def submissions(self) -> list[SubmissionRow]:
        rows = self.db.execute(f"SELECT {_SUBMISSION_COLUMNS} FROM submissions ORDER BY id")
        return [_submission_row(row) for row in rows]

    def files(self, submission_id: str) -> FilesRow:
        """The files used and ignored as last recorded for the submission."""
        row = self.db.execute(
            "SELECT used, ignored, unread FROM submission_files WHERE id=?", (submission_id,)
        ).fetchone()
        if row is None:
            return FilesRow([], [])
        ignored = [(name, why) for name, why in json.loads(row[1])]
        return FilesRow(json.loads(row[0]), ignored, json.loads(row[2]))

    def build(self, content_hash: str) -> BuildRow | None:
        row = self.db.execute(
            "SELECT ok, log, cpu_seconds, wall_seconds FROM builds WHERE content_hash=?",
            (content_hash,),
        ).fetchone()
        return BuildRow(bool(row[0]), row[1], row[2], row[3]) if row else None

    def runs(self, submission_id: str, content_hash: str) -> dict[tuple[str, str], RunRow]:
        """Stored runs of this content, by (case id, case version)."""
        rows = self.db.execute(
            f"SELECT {', '.join(_RUN_COLUMNS)} FROM runs WHERE submission_id=? AND content_hash=?",
            (submission_id, content_hash),
        )
        return {(row[1], row[2]): _run_row(row) for row in rows}

    def output(
        self, submission_id: str, content_hash: str, case_id: str, case_version: str
    ) -> bytes | None:
        """The stored stdout of a failing run (capped), if any."""
        row = self.db.execute(
            "SELECT output FROM runs WHERE submission_id=? AND content_hash=? AND case_id=?"
            " AND case_version=?",
            (submission_id, content_hash, case_id, case_version),
        ).fetchone()
        return zlib.decompress(row[0]) if row and row[0] is not None else None

    def pool_runs(self, submission_id: str, content_hash: str) -> dict[tuple[str, str], PoolRunRow]:
        """Stored runs of this content on pool puzzles, by (puzzle id, puzzle version)."""
        rows = self.db.execute(
            "SELECT puzzle_id, puzzle_version, verdict, kind, diagnosis, exposed, cpu_seconds,"
            " rules FROM pool_runs WHERE submission_id=? AND content_hash=?",
            (submission_id, content_hash),
        )
        return {
            (row[0], row[1]): PoolRunRow(
                row[0], row[1], row[2], row[3], row[4], bool(row[5]), row[6], row[7]
            )
            for row in rows
        }

    def pool_output(
        self, submission_id: str, content_hash: str, puzzle_id: str, puzzle_version: str
    ) -> bytes:
        row = self.db.execute(
            "SELECT output FROM pool_runs WHERE submission_id=? AND content_hash=?"
            " AND puzzle_id=? AND puzzle_version=?",
            (submission_id, content_hash, puzzle_id, puzzle_version),
        ).fetchone()
        return zlib.decompress(row[0]) if row and row[0] is not None else b""

    def counterexamples(
        self, submission_id: str, content_hash: str
    ) -> dict[tuple[str, str], CounterexampleRow]:
        """What the search found for each failing case, by (case id, case version)."""
        rows = self.db.execute(
            "SELECT case_id, case_version, puzzle_id, source, input, expected, output,"
            " diagnosis, reason FROM counterexamples WHERE submission_id=? AND content_hash=?",
            (submission_id, content_hash),
        )
        found = {}
        for row in rows:
            blobs = [zlib.decompress(blob) if blob is not None else b"" for blob in row[4:7]]
            found[(row[0], row[1])] = CounterexampleRow(
                row[0], row[1], row[2], row[3], blobs[0], blobs[1], blobs[2], row[7], row[8]
            )
        return found

    # ------------------------------------------------------------ leaderboard timings

    def record_timing(
        self,
        program_id: str,
        content_hash: str,
        case: Case,
        run_index: int,
        verdict: TimedVerdict,
        result: RunResult,
        core: int | None,
    ) -> None:
        """One timed run (`result` is its RunResult)."""
        with self._write() as db:
            db.execute(
                "INSERT OR REPLACE INTO timings VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
                (
                    program_id,
                    content_hash,
                    case.id,
                    case.version,
                    run_index,
                    str(verdict),
                    result.cpu_seconds,
                    result.wall_seconds,
                    core,
                    result.sandbox,
                    time.time(),
                    result.cpu_accounting,
                ),
            )

    def timings(self, program_id: str, content_hash: str) -> list[TimingRow]:
        """Stored timed runs of this content, by case then run index."""
        rows = self.db.execute(
            "SELECT program_id, case_id, case_version, run_index, verdict, cpu_seconds,"
            " wall_seconds, core, sandbox, created_at, cpu_accounting FROM timings"
            " WHERE program_id=? AND content_hash=?"
            " ORDER BY case_id, case_version, run_index",
            (program_id, content_hash),
        )
        return [_timing_row(row) for row in rows]

    def forget_timings(self) -> None:
        """Drop every stored timing (for --force-remeasure)."""
        with self._write() as db:
            db.execute("DELETE FROM timings")

    def record_leaderboard_session(self, session: LeaderboardSession) -> LeaderboardSession:
        """Record a session and its programs; returns it with its id."""
        with self._write() as db:
            db.execute("BEGIN IMMEDIATE")
            cursor = db.execute(
                "INSERT INTO leaderboard_sessions (recorded_at, first_run, last_run, statistic,"
                " settings, cases, draw) VALUES (?,?,?,?,?,?,?)",
                (
                    session.recorded_at,
                    session.first_run,
                    session.last_run,
                    session.statistic,
                    json.dumps(session.settings, sort_keys=True),
                    json.dumps([list(pair) for pair in session.cases]),
                    None if session.draw is None else json.dumps(session.draw),
                ),
            )
            number = cursor.lastrowid
            assert number is not None, "an INSERT gives its row id"
            db.executemany(
                "INSERT INTO leaderboard_programs VALUES (?,?,?,?,?,?,?)",
                [
                    (
                        number,
                        p.program_id,
                        p.content_hash,
                        p.outcome,
                        p.rank,
                        p.cpu_median_s,
                        p.reason,
                    )
                    for p in session.programs
                ],
            )
        return dataclasses.replace(session, id=number)

    def last_leaderboard_session(self) -> LeaderboardSession | None:
        row = self.db.execute(
            f"SELECT {_SESSION_COLUMNS} FROM leaderboard_sessions ORDER BY id DESC LIMIT 1"
        ).fetchone()
        return None if row is None else self._session(row)

    def session_of_draw(self, digest: str) -> LeaderboardSession | None:
        """The first recorded session that timed the draw with this digest, if any."""
        for row in self.db.execute(
            f"SELECT {_SESSION_COLUMNS} FROM leaderboard_sessions WHERE draw IS NOT NULL"
            " ORDER BY id"
        ):
            if json.loads(row[7]).get("digest") == digest:
                return self._session(row)
        return None

    def _session(self, row: tuple[Any, ...]) -> LeaderboardSession:
        programs = self.db.execute(
            "SELECT program_id, content_hash, outcome, rank, cpu_median_s, reason"
            " FROM leaderboard_programs WHERE session_id=? ORDER BY program_id",
            (row[0],),
        )
        return LeaderboardSession(
            row[0],
            row[1],
            row[2],
            row[3],
            row[4],
            json.loads(row[5]),
            tuple((str(cid), str(version)) for cid, version in json.loads(row[6])),
            tuple(SessionProgram(*program) for program in programs),
            json.loads(row[7]) if row[7] is not None else None,
        )

    # ------------------------------------------------------------ overrides

    def record_override(self, override: OverrideRow) -> OverrideRow | None:
        """Record an instructor's decision; returns the one it replaces, if any."""
        with self._write() as db:
            db.execute("BEGIN IMMEDIATE")
            before = self._override(override.submission_id, override.case_id)
            db.execute(
                f"INSERT OR REPLACE INTO overrides ({', '.join(_OVERRIDE_COLUMNS)})"
                f" VALUES ({', '.join('?' * len(_OVERRIDE_COLUMNS))})",
                tuple(getattr(override, name) for name in _OVERRIDE_COLUMNS),
            )
        return before

    def clear_override(self, submission_id: str, case_id: str) -> OverrideRow | None:
        """Remove a decision; returns it (None: there was none)."""
        with self._write() as db:
            db.execute("BEGIN IMMEDIATE")
            before = self._override(submission_id, case_id)
            db.execute(
                "DELETE FROM overrides WHERE submission_id=? AND case_id=?",
                (submission_id, case_id),
            )
        return before

    def overrides(self, submission_id: str) -> list[OverrideRow]:
        """A submission's decisions, the whole submission's first, then by case id."""
        rows = self.db.execute(
            f"SELECT {', '.join(_OVERRIDE_COLUMNS)} FROM overrides WHERE submission_id=?"
            " ORDER BY case_id",
            (submission_id,),
        )
        return [OverrideRow(*row) for row in rows]

    def _override(self, submission_id: str, case_id: str) -> OverrideRow | None:
        row = self.db.execute(
            f"SELECT {', '.join(_OVERRIDE_COLUMNS)} FROM overrides"
            " WHERE submission_id=? AND case_id=?",
            (submission_id, case_id),
        ).fetchone()
        return OverrideRow(*row) if row else None


_SUBMISSION_COLUMNS = "id, language, content_hash, folder, problem, path"


def _submission_row(row: tuple[Any, ...]) -> SubmissionRow:
    """A submission as stored: its folder the file system's own name (a name that is
    not UTF-8, as `unzip` makes of a Windows zip, is the same folder on every rerun)."""
    sid, language, digest, shown, problem, path = row
    folder = os.fsdecode(path) if path is not None else shown
    return SubmissionRow(sid, language, digest, folder, problem)


def _tables(db: sqlite3.Connection) -> set[str]:
    rows = db.execute("SELECT name FROM sqlite_master WHERE type='table'")
    return {row[0] for row in rows if not row[0].startswith("sqlite_")}


def _columns(db: sqlite3.Connection) -> dict[str, set[str]]:
    return {t: {row[1] for row in db.execute(f"PRAGMA table_info({t})")} for t in _tables(db)}


@cache
def _schema_columns() -> dict[str, frozenset[str]]:
    """Every table of the current schema and its columns, as _SCHEMA makes them."""
    db = sqlite3.connect(":memory:")
    try:
        db.executescript(_SCHEMA)
        return {table: frozenset(names) for table, names in _columns(db).items()}
    finally:
        db.close()


def _add_column(db: sqlite3.Connection, table: str, column: str) -> None:
    """ALTER TABLE ... ADD COLUMN, unless the table has that column already."""
    name = column.split()[0]
    if name not in {row[1] for row in db.execute(f"PRAGMA table_info({table})")}:
        db.execute(f"ALTER TABLE {table} ADD COLUMN {column}")


@contextmanager
def results_folder(folder: Path, *, wait: bool = False, shared: bool = False) -> Iterator[Path]:
    """Hold the results folder: alone for a command that writes it (`grade`,
    `leaderboard`), or `shared` for one that only reads it (an export).

    A second writer is refused (or waits, with wait=True) instead of racing the first
    one: two graders writing one database would both run the same cases; a reader is
    refused while a writer holds it (what it would read is half a grade), and a writer
    while a reader does.
    """
    folder = Path(folder)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        handle = open(folder / ".lock", "a+")
    except OSError as error:
        raise StoreError(
            f"{folder}: cannot use the results folder: {error.strerror or error}"
        ) from None
    try:
        _lock(handle, folder, wait, shared)
        yield folder
    finally:
        handle.close()


def _lock(handle: IO[str], folder: Path, wait: bool, shared: bool) -> None:
    try:
        import fcntl
    except ImportError:  # Windows: no advisory locks; single-user anyway
        return
    flags = (fcntl.LOCK_SH if shared else fcntl.LOCK_EX) | (0 if wait else fcntl.LOCK_NB)
    try:
        fcntl.flock(handle.fileno(), flags)
    except OSError as error:
        if error.errno in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK):
            raise StoreError(_busy(folder, handle, shared)) from None
        raise
    if shared:
        return  # the writer's pid stays in the file
    handle.seek(0)
    handle.truncate()
    handle.write(f"{os.getpid()}\n")
    handle.flush()


def _busy(folder: Path, handle: IO[str], shared: bool) -> str:
    if shared:
        handle.seek(0)
        pid = handle.read(32).strip()
        by = f" (process {pid})" if pid.isdigit() else ""
        return (
            f"{folder}: a `grader grade` or `grader leaderboard` is writing this results "
            f"folder{by}: export once it has finished (what it is writing is not settled)"
        )
    return (
        f"{folder}: another grading run is using this results folder (or an export reads "
        "it); wait for it to finish or pass another --results folder"
    )
