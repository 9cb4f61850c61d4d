"""The store's schema in one place: its tables, the version each appeared in, what a
database of each older version lacks (`migrate`), and the checks that a database holds
them (a missing table or column is damage, never made over)."""

import sqlite3
from functools import cache

# 2: runs.policy_only; 3: runs and timings .cpu_accounting; 4: runs.kind, the tables
# pool_runs and counterexamples, the instructor's overrides and the leaderboard's
# recorded sessions; 5: runs.exposed and pool_runs.exposed, the table exposures; 6:
# submissions.path, the folder's own bytes; 7: pool_runs.cpu_seconds; 8: runs.rules,
# runs.replay and the same of pool_runs; 9: timings.worker (older databases are migrated
# on opening).
SCHEMA_VERSION = 9
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

SCHEMA = """
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
    -- 1: the failure is decided only by the case's policy rules (grader.judge.compare.policy), else
    -- 0; NULL in a run stored by schema 1 until a report decides it (grader.judge.policy_backfill).
    policy_only INTEGER,
    -- What counted cpu_seconds (grader.core.model.CpuAccounting); '' when nothing ran, or
    -- stored before schema 3.
    cpu_accounting TEXT NOT NULL DEFAULT '',
    -- The kind of failure (grader.judge.judging.Judgement.kind, "WA/missing"); '' for AC, for CE
    -- (nothing ran), or stored before schema 4.
    kind TEXT NOT NULL DEFAULT '',
    -- 1: the run could have learned a hidden input (its own input is hidden, or a hidden
    -- run of this submission had started before it): nothing a student sees comes from
    -- it. 0: it could not. Runs stored before schema 5: 1 (their order is unknown).
    exposed INTEGER NOT NULL DEFAULT 1,
    -- The judging rules' version (grader.core.rules) the verdict was decided under; NULL:
    -- stored before schema 8 (unknown rules: judged again, or run again, before it counts).
    rules TEXT,
    -- What judging it again needs besides its output (grader.store.Replay, zlib JSON); NULL
    -- when nothing ran, or stored before schema 8 (it is then run again).
    replay BLOB,
    PRIMARY KEY (submission_id, content_hash, case_id, case_version)
);
-- Runs on puzzles of the pool (grader.cases.pool), made to find a puzzle a student may see that
-- fails like a case (grader.grading.counterexamples); never part of a score.
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
-- A counterfactual run (grader.grading.proofs): the case's puzzle with one property changed
-- (grader.cases.counterfactual), run after grading; it proves the property is what the program
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
-- What a program does wrong, read from all its runs (grader.grading.relations), in order.
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
    -- The Dask worker that timed it (its address; core is that machine's), '' for this
    -- machine (schema 9; older runs were all timed here).
    worker TEXT NOT NULL DEFAULT '',
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
-- its place. The speed bonus is awarded from the last session (grader.results.bonus).
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


def tables(db: sqlite3.Connection) -> set[str]:
    rows = db.execute("SELECT name FROM sqlite_master WHERE type='table'")
    return {row[0] for row in rows if not row[0].startswith("sqlite_")}


def columns(db: sqlite3.Connection) -> dict[str, set[str]]:
    return {t: {row[1] for row in db.execute(f"PRAGMA table_info({t})")} for t in tables(db)}


@cache
def schema_columns() -> dict[str, frozenset[str]]:
    """Every table of the current schema and its columns, as SCHEMA makes them."""
    db = sqlite3.connect(":memory:")
    try:
        db.executescript(SCHEMA)
        return {table: frozenset(names) for table, names in columns(db).items()}
    finally:
        db.close()


def add_column(db: sqlite3.Connection, table: str, column: str) -> None:
    """ALTER TABLE ... ADD COLUMN, unless the table has that column already."""
    name = column.split()[0]
    if name not in {row[1] for row in db.execute(f"PRAGMA table_info({table})")}:
        db.execute(f"ALTER TABLE {table} ADD COLUMN {column}")


def migrate(db: sqlite3.Connection, version: int) -> None:
    """Schema 1 kept the policy decision only as a sentence in the diagnosis: add its
    column, undecided (NULL) in the stored runs, which grader.judge.policy_backfill decides.
    Schemas 1 and 2 did not say what counted a run's CPU time: '' (unknown). Schemas
    1 to 3 did not keep a failure's kind: '' (the search for a public puzzle that
    fails alike says the case must be graded again). Schema 4's tables (pool runs,
    counterexamples, overrides, leaderboard sessions) are made empty by SCHEMA, as
    in a new file. Schemas 1 to 4 did not keep whether a run could have learned a
    hidden input, and ran hidden and public cases in any order: every stored run is
    exposed (a student sees none of its output until it is graded again), and the
    counterexamples found among them are dropped (the next `grade` finds them
    among runs a student may see). Schemas 1 to 5 kept a folder only as printable
    text: its own name (path) waits for the next `grade`. Schemas 1 to 7 did not keep
    the rules a verdict was judged under, nor what judging it again needs: rules
    NULL (unknown), so no such verdict counts until `grade` judges it again (an
    accepted run: from the expected output) or runs it again. Schemas 1 to 8 timed on
    this machine only: worker ''."""
    db.execute("BEGIN IMMEDIATE")
    if version < 2:
        add_column(db, "runs", "policy_only INTEGER")
    for table in ("runs", "timings"):  # a table made just now has it already
        add_column(db, table, "cpu_accounting TEXT NOT NULL DEFAULT ''")
    add_column(db, "runs", "kind TEXT NOT NULL DEFAULT ''")
    add_column(db, "leaderboard_sessions", "draw TEXT")
    if version < 5:
        for table in ("runs", "pool_runs"):
            add_column(db, table, "exposed INTEGER NOT NULL DEFAULT 1")
        # Found among runs made after the hidden ones: found again at the next grade.
        db.execute("DELETE FROM counterexamples")
    add_column(db, "submissions", "path BLOB")  # the next grade fills it
    add_column(db, "pool_runs", "cpu_seconds REAL")
    for table in ("runs", "pool_runs"):
        add_column(db, table, "rules TEXT")
        add_column(db, table, "replay BLOB")
    add_column(db, "submission_files", "unread TEXT NOT NULL DEFAULT '[]'")
    add_column(db, "timings", "worker TEXT NOT NULL DEFAULT ''")
    db.execute("UPDATE meta SET value=? WHERE key='schema'", (str(SCHEMA_VERSION),))
