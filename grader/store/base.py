"""The store's connection: opened, checked, migrated, written one transaction at a
time, read in snapshots; and whether a grade run is half done."""

import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar

from grader.store import schema
from grader.store.rows import StoreError

_Self = TypeVar("_Self", bound="StoreBase")


class StoreBase:
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
        tables = schema.tables(self.db)
        if not tables:
            self.db.executescript(schema.SCHEMA)
            self.db.execute("INSERT INTO meta VALUES ('schema', ?)", (str(schema.SCHEMA_VERSION),))
            return
        version = self._version(tables)
        missing = [
            t for t, since in schema.TABLE_SINCE.items() if since <= version and t not in tables
        ]
        if missing:
            raise StoreError(self._damaged(f"its table {missing[0]!r} is missing"))
        if version < schema.SCHEMA_VERSION:
            self.db.executescript(schema.SCHEMA)  # the tables later versions added, empty
            self._migrate(version)
        columns = schema.columns(self.db)
        for table, wanted in schema.schema_columns().items():
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
        if row[0] not in {str(v) for v in range(1, schema.SCHEMA_VERSION + 1)}:
            raise StoreError(
                f"{self.path}: made by another version of the grader "
                f"(schema {row[0]}, this one uses {schema.SCHEMA_VERSION})"
            )
        return int(row[0])

    def _damaged(self, what: str) -> str:
        return (
            f"{self.path}: the results database is damaged ({what}): nothing was changed; "
            "restore it from a copy, or grade into a new --results folder"
        )

    def _migrate(self, version: int) -> None:
        with self._write() as db:
            schema.migrate(db, version)

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
    def snapshot(self: _Self) -> Iterator[_Self]:
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

    def __enter__(self: _Self) -> _Self:
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
