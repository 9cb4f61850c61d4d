"""What the commands print on stderr beside their results: warnings, notes, and the
progress of the runs as they are graded."""

import sys
from collections.abc import Mapping, Sequence
from datetime import datetime, timezone
from typing import TYPE_CHECKING

from grader.core.progress import progress
from grader.course.config import CourseConfig
from grader.course.late import Lateness, unknown_times
from grader.intake.submissions import Submission
from grader.intake.teams import Teams
from grader.judge.score import SubmissionReport
from grader.store import Store, SubmissionRow

if TYPE_CHECKING:  # grading is imported where it runs: `export`, `show` and the rest need none
    from grader.grading.session import Event, Executor, Plan


def warn(message: str) -> None:
    print(f"grader: warning: {message}", file=sys.stderr)


def warn_unknown_times(lateness: Mapping[str, Lateness]) -> None:
    """Once per command, every submission the late policy had no time for."""
    missing = unknown_times(dict(lateness))
    if missing:
        shown = ", ".join(missing[:10]) + (
            f" and {len(missing) - 10} more" if len(missing) > 10 else ""
        )
        warn(
            f"the late policy has no submission time for {len(missing)} submission(s) "
            f"({shown}): charged only what the LMS's own late marker proves; import "
            "with the times (Moodle: --roster WORKSHEET.csv, Canvas: --times FILE)"
        )


def course_lateness(
    reports: Sequence[SubmissionReport], config: CourseConfig, teams: Teams
) -> dict[str, Lateness]:
    """Each report's lateness on each student's own due date (grader.intake.extensions), with
    the warnings: the extensions file's lines that changed nothing, the missing times."""
    from grader.intake.extensions import class_lateness

    lateness, notes = class_lateness(reports, config, teams)
    for note in notes:
        warn(note)
    warn_unknown_times(lateness)
    return lateness


def warn_unrecorded(submissions: Sequence[Submission | SubmissionRow]) -> None:
    """Name the folders whose `.lms.json` the import did not write: what it says of who
    and when (a student's own file, say) counts for nothing."""
    from grader.course.submission_meta import META_NAME, unrecorded_meta

    found = [s.id for s in submissions if unrecorded_meta(s.folder)]
    if found:
        shown = ", ".join(found[:10]) + (f" and {len(found) - 10} more" if len(found) > 10 else "")
        warn(
            f"{len(found)} folder(s) hold a {META_NAME} that grader import did not write "
            f"({shown}): ignored (a file handed in, or a class folder copied without its "
            "import record); who and when come from an import of the LMS's download"
        )


def warn_mixed_class(submissions: Sequence[Submission]) -> None:
    """Name the folders no import wrote when others came from one: a class imported
    into a folder that already held other students (the example class in submissions/,
    an earlier section) is graded with them, and its exports would carry them too."""
    from grader.course.submission_meta import read_meta

    imported = {s.id for s in submissions if read_meta(s.folder) is not None}
    others = [s.id for s in submissions if s.id not in imported]
    if not imported or not others:
        return
    shown = ", ".join(others[:10]) + (f" and {len(others) - 10} more" if len(others) > 10 else "")
    warn(
        f"{len(others)} folder(s) beside the {len(imported)} imported one(s) came from no "
        f"import ({shown}): graded with them; to grade the class alone, import it into a "
        "folder of its own (grader import ... --into FOLDER) and grade that folder"
    )


def say(message: str) -> None:
    print(f"grader: {message}", file=sys.stderr)


def run_with_progress(work: "Plan", store: Store, executor: "Executor | None", force: bool) -> None:
    """Grade the plan with a progress bar; `executor` may be None when there is nothing
    to grade (a cluster is not reached for nothing)."""
    if work.total == 0:
        print(
            "nothing to grade: every submission is graded already (--force to redo)",
            file=sys.stderr,
        )
        return
    from grader.grading.session import EventKind, grade

    assert executor is not None, "an executor whenever there is something to grade"
    with progress(work.total, "grading") as bar:

        def on_event(event: "Event") -> None:
            if event.kind is EventKind.BUILD:
                bar.on(f"{event.submission.id}: built")
            if event.kind is EventKind.RUN:
                assert event.case is not None, "a run event names its case"
                bar.on(f"{event.submission.id}/{event.case.id}: {event.verdict}")
                bar.done()

        grade(work, store, executor, force=force, on_event=on_event)


EXIT_UNSETTLED = 1  # written, but some submission had no settled score to write


def settled_status(
    reports: Sequence[SubmissionReport], settled_only: bool, what: str = "no score written"
) -> int:
    """Name every submission whose score is not settled (unknown: left as the LMS leaves
    an ungraded cell, never 0), and the exit status: EXIT_UNSETTLED when any was left
    out, unless --settled-only asked for exactly that."""
    unsettled = [r for r in reports if not r.settled]
    for r in unsettled:
        print(f"unsettled: {r.submission.id}: {r.unsettled}: {what}")
    if not unsettled:
        return 0
    said = (
        f"{len(unsettled)} submission(s) have no settled score ({what}); run `grader grade` "
        "to settle them"
    )
    if settled_only:
        say(said)
        return 0
    warn(said + ", or pass --settled-only to write only what is settled")
    return EXIT_UNSETTLED


def warn_unfinished(started: float | None) -> None:
    """A `grade` that did not finish leaves half a grade: say so (its submissions are
    unsettled, so none of it is exported as a score)."""
    if started is None:
        return
    when = datetime.fromtimestamp(started, timezone.utc).isoformat(timespec="seconds")
    warn(
        f"the last `grader grade` (started {when}) did not finish: what it had not graded "
        "is not exported as a score; run `grader grade` to finish it"
    )


def warn_waiting(reports: Sequence[SubmissionReport]) -> None:
    """Name the instructor's decisions that wait (made on other content): an export, the
    leaderboard and the bonus count none of them."""
    waiting = [(r.submission.id, d) for r in reports for d in r.waiting]
    if not waiting:
        return
    warn(
        f"{len(waiting)} decision(s) of yours wait (made on content the student has "
        "since replaced, or on a case since changed): they count toward neither the "
        "score, the leaderboard nor the bonus until you confirm them (grader override "
        "ID [--case CASE] --confirm)"
    )
    for sid, decision in waiting:
        warn(f"  {sid}: {decision.describe()}")
