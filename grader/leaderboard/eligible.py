"""Who may be ranked: programs that pass every case of their last grading run (the
instructor's decided verdicts counting), unchanged since. (Which cases are timed is
grader/grading/timed_runs.py's: Gradescope's value uses it too.)"""

from collections.abc import Sequence
from pathlib import Path

from grader.cases.manifest import Case
from grader.core.model import NOT_GRADED, VERDICT_ORDER, Verdict
from grader.course.config import CourseConfig
from grader.intake.submissions import Submission, load
from grader.judge.score import report
from grader.store import Store, SubmissionRow


def eligibility(
    row: SubmissionRow, store: Store, cases: Sequence[Case], config: CourseConfig
) -> tuple[Submission | None, str | None]:
    """(the submission, None) when it may be ranked, else (None, the reason)."""
    if row.problem:
        return None, f"cannot be built: {row.problem}"
    folder = Path(row.folder)
    if not folder.is_dir():
        return None, f"its folder {folder} is gone (run from where you ran grade)"
    current = load(folder, config, facts=False)  # rebuilt and timed: no diagnosis to make
    if current.content_hash != row.content_hash or current.problem:
        return None, "changed since it was graded: run grade first"
    result = report(store, row, cases)  # the instructor's decided verdicts count
    graded = [o for o in result.outcomes if o.decided]
    if not graded:
        return None, "not graded yet: run grade first"
    if result.build is not None and not result.build.ok:
        return None, "build failed"
    failures = failure_summary([o.verdict or NOT_GRADED for o in graded])
    if failures:
        return None, failures
    if len(graded) < len(result.outcomes):
        missing = len(result.outcomes) - len(graded)
        return None, f"{missing} of {len(result.outcomes)} cases not graded yet: run grade first"
    if not result.settled:
        return None, f"not settled: {result.unsettled}"
    return current, None


def failure_summary(verdicts: Sequence[str]) -> str:
    """E.g. "WA on 3 cases, TLE on 1 case"; empty when every verdict is AC."""
    parts = []
    for verdict in VERDICT_ORDER:
        count = sum(v == verdict for v in verdicts) if verdict != Verdict.AC else 0
        if count:
            parts.append(f"{verdict} on {count} case{'s' if count != 1 else ''}")
    return ", ".join(parts)
