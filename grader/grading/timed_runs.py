"""One timed run of a program on a case, the way `grader leaderboard` measures it, and
which cases are timed. The leaderboard and Gradescope's leaderboard value
(grader/lms/gradescope/timed.py) must measure alike, so both take it from here, below them."""

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from grader.cases.manifest import Case, CaseError
from grader.core import verdicts
from grader.core.model import STARTUP_RAN, Limits, RunResult, TimedVerdict
from grader.course.config import ConfigError, CourseConfig, LanguageSpec
from grader.intake.submissions import Submission
from grader.judge.judging import run_in
from grader.sandbox.base import Sandbox

STARTUP_PREFIX = "startup/"  # no folder name holds a "/": no submission can take it


@dataclass(frozen=True)
class Program:
    """Something to time: a submission, or a language's start-up program."""

    id: str
    language: LanguageSpec
    content_hash: str
    folder: Path  # its build folder (its sources, where a cluster's workers build it)
    built_from: Submission | None = None  # its sources (what a cluster's worker builds)

    @property
    def startup(self) -> bool:
        return self.id.startswith(STARTUP_PREFIX)


def timed_cases(cases: Sequence[Case], config: CourseConfig) -> list[Case]:
    """[leaderboard] cases when set, else the cases the manifest marks timed."""
    wanted = config.leaderboard.cases
    if wanted:
        known = {case.id: case for case in cases}
        unknown = [cid for cid in wanted if cid not in known]
        if unknown:
            raise ConfigError(
                f"{config.source or 'course.toml'}: key 'leaderboard.cases': "
                f"no case {unknown[0]!r} in the manifest"
            )
        return [known[cid] for cid in wanted]
    chosen = [case for case in cases if case.timed]
    if not chosen:
        raise CaseError(
            'no timed cases: mark some cases "timed" in the manifest or list '
            "them in course.toml [leaderboard] cases"
        )
    return chosen


def timed_run(
    program: Program, case: Case, sandbox: Sandbox, limits: Limits
) -> tuple[TimedVerdict, RunResult]:
    """(its verdict, the run) of one timed run, under the course's `limits`."""
    judgement = run_in(program.folder, program.language, case, sandbox, limits)
    result, verdict = judgement.result, judgement.verdict
    assert result is not None, "run_in always runs the program"
    if program.startup and verdict in verdicts.FINISHED:
        return STARTUP_RAN, result  # it prints nothing by design: it only has to run
    return verdict, result
