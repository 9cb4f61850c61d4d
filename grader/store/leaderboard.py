"""The store's tables of the leaderboard: timed runs and the sessions recorded."""

import dataclasses
import json
import time
from typing import Any

from grader.cases.manifest import Case
from grader.core.model import RunResult, TimedVerdict
from grader.store.base import StoreBase
from grader.store.rows import (
    SESSION_COLUMNS,
    LeaderboardSession,
    SessionProgram,
    TimingRow,
    timing_row,
)


class LeaderboardTables(StoreBase):
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
        worker: str = "",
    ) -> None:
        """One timed run (`result` is its RunResult), on `core` of `worker`'s machine (''
        for this one)."""
        with self._write() as db:
            db.execute(
                "INSERT OR REPLACE INTO timings VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
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
                    worker,
                ),
            )

    def timings(self, program_id: str, content_hash: str) -> list[TimingRow]:
        """Stored timed runs of this content, by case then run index."""
        rows = self.db.execute(
            "SELECT program_id, case_id, case_version, run_index, verdict, cpu_seconds,"
            " wall_seconds, core, sandbox, created_at, cpu_accounting, worker FROM timings"
            " WHERE program_id=? AND content_hash=?"
            " ORDER BY case_id, case_version, run_index",
            (program_id, content_hash),
        )
        return [timing_row(row) for row in rows]

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
            f"SELECT {SESSION_COLUMNS} FROM leaderboard_sessions ORDER BY id DESC LIMIT 1"
        ).fetchone()
        return None if row is None else self._session(row)

    def session_of_draw(self, digest: str) -> LeaderboardSession | None:
        """The first recorded session that timed the draw with this digest, if any."""
        for row in self.db.execute(
            f"SELECT {SESSION_COLUMNS} FROM leaderboard_sessions WHERE draw IS NOT NULL ORDER BY id"
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
