"""The store's tables of what grading did: submissions, builds, judged runs (cases
and pool puzzles) and which runs could have learned a hidden input."""

import json
import os
import time
import zlib

from grader.cases.manifest import Case
from grader.core.model import RunResult, Verdict
from grader.core.text import safe_name
from grader.intake.submissions import Submission
from grader.store.base import StoreBase
from grader.store.rows import (
    RUN_COLUMNS,
    SUBMISSION_COLUMNS,
    BuildRow,
    Built,
    FilesRow,
    JudgedTable,
    PoolRunRow,
    RunRow,
    StoreError,
    SubmissionRow,
    kept_output,
    replay_blob,
    run_row,
    submission_row,
)


class RunTables(StoreBase):
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

    def record_build(self, content_hash: str, artifact: Built) -> None:
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
        the kind of failure (grader.judge.judging.Judgement.kind); `exposed`: it could have
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
        """A stored run judged again under `rules` (grader.grading.rejudge): its verdict and what
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
            f"SELECT {SUBMISSION_COLUMNS} FROM submissions WHERE id=?", (submission_id,)
        ).fetchone()
        return submission_row(row) if row else None

    def recorded(self, submission_id: str) -> SubmissionRow:
        """The row of a submission this grading run recorded (plan() records every one)."""
        row = self.submission(submission_id)
        if row is None:
            raise StoreError(f"{self.path}: submission {submission_id!r} was not recorded")
        return row

    def submissions(self) -> list[SubmissionRow]:
        rows = self.db.execute(f"SELECT {SUBMISSION_COLUMNS} FROM submissions ORDER BY id")
        return [submission_row(row) for row in rows]

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
            f"SELECT {', '.join(RUN_COLUMNS)} FROM runs WHERE submission_id=? AND content_hash=?",
            (submission_id, content_hash),
        )
        return {(row[1], row[2]): run_row(row) for row in rows}

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
