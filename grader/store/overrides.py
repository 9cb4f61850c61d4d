"""The store's table of the instructor's decisions (overrides)."""

from grader.store.base import StoreBase
from grader.store.rows import OVERRIDE_COLUMNS, OverrideRow


class OverrideTables(StoreBase):
    # ------------------------------------------------------------ overrides

    def record_override(self, override: OverrideRow) -> OverrideRow | None:
        """Record an instructor's decision; returns the one it replaces, if any."""
        with self._write() as db:
            db.execute("BEGIN IMMEDIATE")
            before = self._override(override.submission_id, override.case_id)
            db.execute(
                f"INSERT OR REPLACE INTO overrides ({', '.join(OVERRIDE_COLUMNS)})"
                f" VALUES ({', '.join('?' * len(OVERRIDE_COLUMNS))})",
                tuple(getattr(override, name) for name in OVERRIDE_COLUMNS),
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
            f"SELECT {', '.join(OVERRIDE_COLUMNS)} FROM overrides WHERE submission_id=?"
            " ORDER BY case_id",
            (submission_id,),
        )
        return [OverrideRow(*row) for row in rows]

    def _override(self, submission_id: str, case_id: str) -> OverrideRow | None:
        row = self.db.execute(
            f"SELECT {', '.join(OVERRIDE_COLUMNS)} FROM overrides"
            " WHERE submission_id=? AND case_id=?",
            (submission_id, case_id),
        ).fetchone()
        return OverrideRow(*row) if row else None
