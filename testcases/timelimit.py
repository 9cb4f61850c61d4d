"""Time limits from data, as contest tooling sets them (Kattis: k x the slowest
accepted run): time the reference and every example expected to pass, in the
grading sandbox with the course's run commands, several runs per case, then
propose the CPU limit and the wall limit from it.

Runs go one at a time, pinned to one core (as the leaderboard times), so the
figures are not the noise of programs competing for the two cores. CPU time
(user + sys of the process tree) is what the limit caps, so it is what is
measured.
"""

import math
import shutil
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from grader.build.builder import build
from grader.cases.manifest import Case
from grader.core.model import Verdict
from grader.course.config import CourseConfig, TimeLimitConfig
from grader.intake.submissions import Submission, load
from grader.judge.judging import run_case
from grader.sandbox import Sandbox
from grader.statistics.timing import one_core
from testcases.examples import Example

REFERENCE_ID = "reference"
TLE_MARGIN = 1.5  # an expected TLE must still be a TLE at this multiple of the limit


@dataclass(frozen=True)
class Program:
    id: str
    submission: Submission
    cases: tuple[Case, ...]  # the cases it is timed on


@dataclass(frozen=True)
class Sample:
    program: str
    language: str
    case: str
    cpu_seconds: float
    wall_seconds: float


@dataclass
class Measurement:
    samples: list[Sample]
    problems: list[str]  # runs that were not AC: no limit can be proposed from them


@dataclass(frozen=True)
class Proposal:
    cpu_seconds: float
    wall_seconds: float
    slowest: Sample  # by CPU time
    slowest_wall: Sample  # by wall time
    k: float


def reference_submission(workdir: Path, config: CourseConfig) -> Submission:
    """The reference solver as a Python submission (it is one file, stdlib only)."""
    source = Path(__file__).resolve().parent.parent / "reference" / "puzzlesolver.py"
    folder = Path(workdir) / REFERENCE_ID
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, folder / config.languages["python"].source)
    return load(folder, config)


def programs_to_time(
    reference: Submission, examples: Sequence[Example], cases: Sequence[Case]
) -> list[Program]:
    """The reference on every case, and each example expected to pass every case."""
    ids = [case.id for case in cases]
    chosen = [Program(REFERENCE_ID, reference, tuple(cases))]
    for example in examples:
        if example.expected is not None and example.expected.all_pass(ids):
            chosen.append(Program(example.id, example.submission, tuple(cases)))
    return chosen


def measure(
    programs: Sequence[Program],
    runs: int,
    sandbox: Sandbox,
    config: CourseConfig,
    cache_root: Path,
    on_run: Callable[[str], None] = lambda what: None,
) -> Measurement:
    """`runs` runs of every program on each of its cases, under the course's limits;
    `on_run` is told of each run as it ends ("program/case run k")."""
    samples, problems = [], []
    with one_core():
        for program in programs:
            artifact = build(program.submission, cache_root, sandbox, config.build_limits)
            if not artifact.ok:
                problems.append(f"{program.id}: does not build: {_first(artifact.log)}")
                continue
            language = program.submission.language
            assert language is not None, "a submission without a language does not build"
            for run in range(runs):
                for case in program.cases:
                    judgement = run_case(artifact, language, case, sandbox, config.limits)
                    on_run(f"{program.id}/{case.id} run {run + 1}")
                    if judgement.verdict != Verdict.AC:
                        problems.append(
                            f"{program.id}, case {case.id!r}, run {run + 1}: "
                            f"{judgement.verdict}, not AC: "
                            f"{_first(judgement.diagnosis)}"
                        )
                        continue
                    assert judgement.result is not None, "an AC verdict comes from a run"
                    sample = Sample(
                        program.id,
                        program.submission.language_name,
                        case.id,
                        judgement.result.cpu_seconds,
                        judgement.result.wall_seconds,
                    )
                    samples.append(sample)
    return Measurement(samples, problems)


def propose(samples: Sequence[Sample], settings: TimeLimitConfig) -> Proposal:
    """CPU: k x the slowest accepted run, rounded up to a multiple of round_to.
    Wall: wall_factor x that, but never under k x the slowest accepted wall time (a
    JVM's start-up can wait on more than its CPU time)."""
    if not samples:
        raise ValueError("no accepted runs to set a limit from")
    slowest = max(samples, key=lambda s: s.cpu_seconds)
    slowest_wall = max(samples, key=lambda s: s.wall_seconds)
    cpu = _round_up(settings.k * slowest.cpu_seconds, settings.round_to)
    wall = max(cpu * settings.wall_factor, settings.k * slowest_wall.wall_seconds)
    return Proposal(cpu, _round_up(wall, settings.round_to), slowest, slowest_wall, settings.k)


def _round_up(value: float, step: float) -> float:
    # At least one step: a limit of 0 s would fail everything.
    steps = max(1, math.ceil(round(value / step, 9)))
    return round(steps * step, 6)


def tle_warnings(
    examples: Sequence[Example],
    cases: Sequence[Case],
    proposal: Proposal,
    sandbox: Sandbox,
    config: CourseConfig,
    cache_root: Path,
) -> list[str]:
    """Examples expected TLE that finish within 1.5 x the proposed limits: the limit
    would not tell them from a correct program by a safe margin."""
    limits = replace(
        config.limits,
        cpu_seconds=proposal.cpu_seconds * TLE_MARGIN,
        wall_seconds=proposal.wall_seconds * TLE_MARGIN,
    )
    warnings = []
    for example in examples:
        expected = example.expected
        tle_cases = [c for c in cases if expected is not None and expected.verdict(c.id) == "TLE"]
        if not tle_cases:
            continue
        artifact = build(example.submission, cache_root, sandbox, config.build_limits)
        if not artifact.ok:
            warnings.append(f"{example.id}: expected TLE but does not build")
            continue
        language = example.submission.language
        assert language is not None, "a submission without a language does not build"
        for case in tle_cases:
            judgement = run_case(artifact, language, case, sandbox, limits)
            if judgement.verdict != Verdict.TLE:
                used = judgement.result.cpu_seconds if judgement.result else 0.0
                warnings.append(
                    f"{example.id}, case {case.id!r}: expected TLE, but at {TLE_MARGIN:g} x the "
                    f"proposed limit ({limits.cpu_seconds:g} s CPU) it ends {judgement.verdict} "
                    f"after {used:.3f} s CPU"
                )
    return warnings


def table(samples: Sequence[Sample]) -> list[tuple[str, str, int, float, float, str]]:
    """Per program: language, runs, median and slowest CPU, the slowest case."""
    rows = []
    for program in dict.fromkeys(s.program for s in samples):
        mine = [s for s in samples if s.program == program]
        worst = max(mine, key=lambda s: s.cpu_seconds)
        rows.append(
            (
                program,
                mine[0].language,
                len(mine),
                statistics.median(s.cpu_seconds for s in mine),
                worst.cpu_seconds,
                worst.case,
            )
        )
    return rows


def limits_snippet(proposal: Proposal) -> str:
    return (
        f"[limits]\ncpu_seconds = {proposal.cpu_seconds:g}\n"
        f"wall_seconds = {proposal.wall_seconds:g}"
    )


def _first(text: str | None) -> str:
    lines = (text or "").strip().splitlines()
    return lines[0] if lines else "(no message)"
