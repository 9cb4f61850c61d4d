"""The last `grade` run read back from a results folder: its store, its cases and one
report per submission. The csv, html, Canvas and Moodle exports start here, so it lives
below the exports and the LMS features rather than in one of them."""

import json
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from grader.cases.manifest import Case, default_manifest, load_cases
from grader.core.errors import GraderError
from grader.core.model import PolicyCases
from grader.judge.score import SubmissionReport, report
from grader.schemas import validate
from grader.store import DB_NAME, Store, results_folder

RESULTS_JSON = "results.json"


class ResultsError(GraderError):
    """The last run cannot be read back; str() is the one-line reason."""


@dataclass
class Graded:
    """The last grading run: its store (for stored outputs), the cases, one report per
    submission, ordered by id; `unfinished`: when the last `grade`, killed, started
    (None when it finished)."""

    folder: Path
    store: Store
    cases: list[Case]
    reports: list[SubmissionReport]
    unfinished: float | None = None


@contextmanager
def graded(
    results: Path, manifest: Path | None = None, policy_cases: PolicyCases = "count"
) -> Iterator[Graded]:
    """Open the results of the last `grade` run in `results` (`policy_cases`: course.toml's
    [scoring] policy_cases): one state of its store, read while no `grade` writes it (a
    running one is refused: its grades are not settled), for as long as the export takes."""
    results = Path(results)
    db = results / DB_NAME
    if not db.is_file():
        raise ResultsError(f"{db}: no results yet (run `grader grade` first, or pass --results)")
    manifest = Path(manifest or default_manifest())
    cases = load_cases(manifest)
    last_run = _last_run(results / RESULTS_JSON)
    wanted = None
    if last_run is not None:
        wanted = {entry["id"] for entry in last_run["submissions"]}
        _same_cases(last_run, cases, results / RESULTS_JSON, manifest)
    with results_folder(results, shared=True), Store(db) as store, store.snapshot():
        rows = [row for row in store.submissions() if wanted is None or row.id in wanted]
        if not rows:
            raise ResultsError(f"{db}: no graded submissions in it")
        reports = [
            report(store, row, cases, policy_cases) for row in sorted(rows, key=lambda r: r.id)
        ]
        yield Graded(results, store, cases, reports, store.grade_unfinished())


def graded_ids(results: Path) -> set[str] | None:
    """The ids the last `grade` run in `results` graded (None: no results.json yet)."""
    document = _last_run(Path(results) / RESULTS_JSON)
    return None if document is None else {entry["id"] for entry in document["submissions"]}


def _last_run(path: Path) -> dict[str, Any] | None:
    """The last `grade` run's results.json: which submissions and cases it graded (the
    database also keeps older ones)."""
    if not path.exists():
        return None
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise ResultsError(f"{path}: cannot read the last run's results: {error}") from None
    problem = validate(document, "results")
    if problem:
        raise ResultsError(f"{path}: not the grader's results: {problem}")
    return cast(dict[str, Any], document)  # an object: the schema says so


def _same_cases(
    last_run: dict[str, Any], cases: Sequence[Case], path: Path, manifest: Path
) -> None:
    """Exports from another case set than the grading used would show every verdict as
    missing, or stale: refuse, and say what to do."""
    graded_with = {(c["id"], c["version"]) for c in last_run["cases"]}
    current = {(c.id, c.version) for c in cases}
    if graded_with != current:
        changed = sorted({cid for cid, _ in graded_with ^ current})
        raise ResultsError(
            f"{path}: graded with other cases than {manifest} "
            f"({len(changed)} differ, e.g. {changed[0]!r}); pass the --manifest "
            "the grading used, or grade again"
        )
