"""SQLite store of every build and run, written as each one finishes.

A run is keyed by (submission, content hash, case, case version): a grading
run that was interrupted resumes by skipping what is stored, nothing is graded
twice, and a changed submission or case is graded afresh. IE rows are the
grader's failures, so they are retried rather than kept.

One facade, `Store`, over one module per group of tables: `runs` (submissions, builds,
judged runs, exposure), `findings` (counterexamples, proofs, relations), `leaderboard`
(timed runs, sessions), `overrides` (the instructor's decisions); `base` is the
connection (opened, checked, migrated), `schema` the tables and their versions, `rows`
what each row is to the rest of the grader, `folder` the results folder's lock.
"""

from grader.store.findings import FindingTables
from grader.store.folder import DB_NAME, results_folder
from grader.store.leaderboard import LeaderboardTables
from grader.store.overrides import OverrideTables
from grader.store.rows import (
    BuildRow,
    CounterexampleRow,
    FilesRow,
    FindingRow,
    JudgedTable,
    LeaderboardSession,
    OverrideRow,
    PoolRunRow,
    ProofRow,
    RunRow,
    SessionProgram,
    StoreError,
    SubmissionRow,
    TimingRow,
    kept_output,
    replay_blob,
    replayed,
)
from grader.store.runs import RunTables
from grader.store.schema import MAX_STORED_OUTPUT, SCHEMA_VERSION, TABLE_SINCE

__all__ = [
    "DB_NAME",
    "MAX_STORED_OUTPUT",
    "SCHEMA_VERSION",
    "TABLE_SINCE",
    "BuildRow",
    "CounterexampleRow",
    "FilesRow",
    "FindingRow",
    "JudgedTable",
    "LeaderboardSession",
    "OverrideRow",
    "PoolRunRow",
    "ProofRow",
    "RunRow",
    "SessionProgram",
    "Store",
    "StoreError",
    "SubmissionRow",
    "TimingRow",
    "kept_output",
    "replay_blob",
    "replayed",
    "results_folder",
]


class Store(RunTables, FindingTables, LeaderboardTables, OverrideTables):
    """The results database: one connection, every table's reads and writes."""
