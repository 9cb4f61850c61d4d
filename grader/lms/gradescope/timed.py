"""The Gradescope leaderboard value: the statistic of `grader leaderboard`.

Warm-up runs, then ``[leaderboard] runs`` timed runs of every timed case, one at a
time pinned to one core, in the same sandbox; the value is the median over the runs
of the run's total CPU time (user + sys of the process tree) over the timed cases:
what `grader leaderboard` ranks by (its ``cpu_median_s``). One run's figure would be
one draw of the noise.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from grader.build.builder import build
from grader.cases.manifest import Case
from grader.core.model import Verdict
from grader.course.config import CourseConfig
from grader.grading.timed_runs import Program, timed_run
from grader.intake.submissions import Submission
from grader.sandbox.base import Sandbox
from grader.statistics.timing import median, one_core


def leaderboard_cpu(
    submission: Submission,
    timed: Sequence[Case],
    sandbox: Sandbox,
    config: CourseConfig,
    cache_root: Path,
) -> list[float] | None:
    """The total CPU seconds of each timed run (their median is the value); None when
    the program cannot be timed (no timed case, no build, a run not accepted)."""
    if not timed:
        return None
    artifact = build(submission, cache_root, sandbox, config.build_limits)  # cached
    if not artifact.ok:
        return None
    assert submission.language is not None, "built, so it has a language"
    program = Program(submission.id, submission.language, submission.content_hash, artifact.folder)
    totals = []
    with one_core():
        for case in timed:
            for _ in range(config.leaderboard.warmup):
                timed_run(program, case, sandbox, config.limits)
        for _ in range(config.leaderboard.runs):
            total = 0.0
            for case in timed:
                verdict, result = timed_run(program, case, sandbox, config.limits)
                if verdict != Verdict.AC:
                    return None
                total += result.cpu_seconds
            totals.append(total)
    return totals


def statistic(totals: Sequence[float]) -> float:
    return round(median(totals), 4)
