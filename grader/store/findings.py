"""The store's tables of what the feedback claims: counterexamples, the proofs run
after grading, and the relations found in a program's runs."""

import json
import time
import zlib
from collections.abc import Sequence

from grader.cases.manifest import Case
from grader.core.model import Verdict
from grader.intake.submissions import Submission
from grader.store.base import StoreBase
from grader.store.rows import CounterexampleRow, FindingRow, ProofRow
from grader.store.schema import MAX_STORED_OUTPUT


class FindingTables(StoreBase):
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
