"""Inside Gradescope's container: grade one submission on every case and write
results.json (autograder.py builds the zip whose run_autograder runs this).

    python -m grader.lms.gradescope.runner --source DIR --submission DIR --results DIR
    python -m grader.lms.gradescope.runner --source DIR --check     (setup.sh: ready?)

A run writes results.json only for a settled grade: every case with its final verdict.
When the grader failed (IE on a case, bubblewrap required and refused here, any failure
of the grader itself) it writes none, and Gradescope shows its own "the autograder
failed" state, never a 0 the student did not earn; the cause goes to the output only
instructors see, and the instructor reruns the autograder. Exit status 0 once
results.json is written; 1 when the grade was not settled (no results.json); 2 when
results.json could not be written, and for --check (setup.sh) when the autograder
cannot work.
"""

import argparse
import os
import sys
import tempfile
import time
import traceback
from pathlib import Path

from grader.cases.manifest import Case, load_cases
from grader.cases.pool import load_pool
from grader.core.errors import GraderError
from grader.course.config import ConfigError, CourseConfig, load_config
from grader.exports.common import ExportError
from grader.grading import counterexamples
from grader.grading.proofs import Proving, explain
from grader.grading.session import execute, plan
from grader.intake.submissions import load
from grader.judge.canary import limits_refusal
from grader.judge.score import SubmissionReport, report
from grader.lms.gradescope.autograder import (
    FALLBACK_NOT_ISOLATED,
    Isolation,
    gradescope_results,
    leaderboard_puzzles,
)
from grader.lms.gradescope.timed import leaderboard_cpu
from grader.results.results_json import write_json
from grader.results.terminal import build_report, case_report, score_line
from grader.sandbox import (
    BubblewrapSandbox,
    RlimitSandbox,
    Sandbox,
    SandboxUnavailable,
    bubblewrap_cause,
    isolating_sandbox,
)
from grader.sandbox.cgroupfs import usable_cpus
from grader.store import DB_NAME, Store


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m grader.lms.gradescope.runner", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--source", type=Path, required=True, help="the unpacked autograder zip")
    parser.add_argument("--submission", type=Path, help="the student's files")
    parser.add_argument("--results", type=Path, help="where results.json goes")
    parser.add_argument(
        "--check",
        action="store_true",
        help="only check that the configuration, the cases and a sandbox work",
    )
    # Gradescope's container: a CPU quota (docker --cpus) on a host of many cores.
    parser.add_argument("--jobs", type=int, default=None)
    parser.add_argument(
        "--require-bubblewrap",
        action="store_true",
        help="grade nothing where bubblewrap cannot run (the export's choice)",
    )
    args = parser.parse_args(argv)
    if args.check:
        return _check(args.source, args.require_bubblewrap)
    if args.submission is None or args.results is None:
        parser.error("--submission and --results are needed (or --check)")
    started = time.monotonic()
    try:
        config, cases = _setup(args.source)
        sandbox, isolation = container_sandbox(config, args.require_bubblewrap)
        print(isolation.said(), flush=True)
        jobs = max(1, args.jobs or usable_cpus())
        result, cpu = grade(args.submission, config, cases, jobs, sandbox, args.source)
    except Exception as error:  # Gradescope's own failed state, the cause for instructors
        cause = str(error) if isinstance(error, GraderError) else _failure(error)
        print(f"autograder: error: {cause}", file=sys.stderr)
        print(f"{UNSETTLED_NOTE} Cause: {cause}")
        return EXIT_UNSETTLED
    print(build_report(result))
    print(case_report(result, instructor=True))
    print(score_line(result, ""))
    if not result.settled:
        print(f"{UNSETTLED_NOTE} Cause: {result.unsettled}")
        return EXIT_UNSETTLED
    document = gradescope_results(
        result,
        isolation=isolation,
        leaderboard_cpu=cpu,
        execution_time=time.monotonic() - started,
    )
    try:
        args.results.mkdir(parents=True, exist_ok=True)
        write_json(document, args.results / "results.json", "gradescope_results")
    except (OSError, ValueError, GraderError) as error:
        print(f"autograder: error: cannot write results.json: {error}", file=sys.stderr)
        return 2
    return 0


EXIT_UNSETTLED = 1
UNSETTLED_NOTE = (
    "autograder: no results.json written: the grade is not settled (the grader itself "
    "failed, not the student's program), so Gradescope shows that the autograder failed "
    "instead of a score; fix the cause, then rerun the autograder on this submission."
)


def _failure(error: Exception) -> str:
    """A failure of the grader itself: its type and message, and where (the traceback
    goes to the instructors' output)."""
    traceback.print_exc()
    return f"the grader failed: {type(error).__name__}: {error}"


def _check(source: Path, require_bubblewrap: bool) -> int:
    """setup.sh: the configuration, the cases and a sandbox work (else exit 2)."""
    try:
        config, cases = _setup(source)
        box, isolation = container_sandbox(config, require_bubblewrap)
        refusal = limits_refusal(
            box,
            config.build_limits,
            config.limits,
            list(config.languages.values()),
            Path(tempfile.mkdtemp(prefix="autograder-check-")),
            cases[0].input if cases else None,
        )
        if refusal is not None:
            raise ConfigError(f"course.toml: {refusal}")
    except GraderError as error:
        print(f"autograder: error: {error}", file=sys.stderr)
        return 2
    public = sum(case.public for case in cases)
    print(
        f"autograder ready: {public} public and {len(cases) - public} hidden cases. "
        + isolation.said()
    )
    return 0


def container_sandbox(config: CourseConfig, require_bubblewrap: bool) -> tuple[Sandbox, Isolation]:
    """The sandbox for Gradescope's container. course.toml's "rlimits": the fallback;
    "bubblewrap", or the export's --require-bubblewrap: bubblewrap or nothing graded;
    "auto": bubblewrap where the container lets it make namespaces, else the fallback,
    its program run as an unprivileged uid and shut out of the autograder's files."""
    if config.sandbox == "rlimits":
        box: Sandbox = isolating_sandbox("rlimits", warn=_say)
        return box, _isolation(box, "course.toml chose it")
    if require_bubblewrap or config.sandbox == "bubblewrap":
        box = isolating_sandbox("bubblewrap", warn=_say)
        why = "required by the export" if require_bubblewrap else "course.toml chose it"
        return box, _isolation(box, why)
    try:
        box = BubblewrapSandbox()
        box.probe()
        return box, _isolation(box, "the container lets it make namespaces")
    except SandboxUnavailable as exc:
        why = bubblewrap_cause(exc)
        box = RlimitSandbox()
        return box, _isolation(box, f"the fallback: {why}")


def _isolation(box: Sandbox, why: str) -> Isolation:
    not_isolated = "" if box.name == "bubblewrap" else FALLBACK_NOT_ISOLATED
    return Isolation(box.name, why, not_isolated, str(box.accounting))


def _setup(source: Path) -> tuple[CourseConfig, list[Case]]:
    course = source / "course.toml"
    config = load_config(course if course.exists() else None)
    return config, load_cases(source / "testcases" / "manifest.json")


def _shut_out(source: Path) -> None:
    """The rlimits mode, chosen in course.toml: as root, programs run as a sandbox uid
    (rlimits.py), which must not read the hidden cases, the expected outputs or the
    grader's files (Gradescope's own security advice): the unpacked zip becomes
    root's alone, and so does everything the grader makes from here on (the store and
    SQLite's -wal and -shm beside it, the builds: files 0600 in folders 0700 of random
    names; each run gets a copy of its program in a folder of its own)."""
    if os.geteuid() != 0:
        _say(
            "programs are not isolated from the autograder's files here (no bubblewrap, "
            "not root): a program could read the hidden cases' expected outputs"
        )
        return
    os.umask(0o077)
    os.chmod(source, 0o700)


def grade(
    folder: Path,
    config: CourseConfig,
    cases: list[Case],
    jobs: int,
    sandbox: Sandbox,
    source: Path = Path("."),
) -> tuple[SubmissionReport, list[float] | None]:
    """Build and run one submission folder on every case, in a throwaway store."""
    if not folder.is_dir():
        raise ExportError(f"{folder}: no submission folder")
    # One student's folder, whatever it holds: a misplaced or misnamed source file is
    # a CE with a clear reason, never a second "submission".
    submission = load(folder, config)
    if sandbox.name != "bubblewrap":
        _shut_out(source)
    with tempfile.TemporaryDirectory(prefix="autograder-") as tmp:  # 0700, a random name
        with Store(Path(tmp) / DB_NAME) as store:
            pool = load_pool(source / "testcases" / "manifest.json")
            probes = counterexamples.choose_probes(cases, pool, config.counterexamples.runs)
            execute(
                plan([submission], cases, store, probes=probes),
                store,
                sandbox,
                config,
                Path(tmp) / "builds",
                jobs=jobs,
            )
            explain(
                store,
                [submission],
                cases,
                pool,
                config,
                Proving(sandbox, Path(tmp) / "builds", jobs),
            )
            result = report(store, store.recorded(submission.id), cases, config.policy_cases)
            cpu = None
            if result.all_accepted:  # timed as `grader leaderboard` times it, on drawn puzzles
                timed = leaderboard_puzzles(source, config, cases, Path(tmp) / "draw")
                cpu = leaderboard_cpu(submission, timed, sandbox, config, Path(tmp) / "builds")
            return result, cpu


def _say(message: str) -> None:
    print(f"autograder: warning: {message}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
