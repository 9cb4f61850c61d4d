"""Inside Gradescope's container: grade one submission on every case and write
results.json (gradescope.py builds the zip whose run_autograder runs this).

    python -m grader.exports.autograder --source DIR --submission DIR --results DIR
    python -m grader.exports.autograder --source DIR --check     (setup.sh: ready?)

Exit status 0 when results.json is written; 2 (and no results.json, so that
Gradescope reports a failed autograder instead of a silent zero) when the
autograder itself cannot work.
"""

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

from grader.cases import Case, load_cases
from grader.cgroupfs import usable_cpus
from grader.config import CourseConfig, load_config
from grader.counterexamples import Searcher
from grader.errors import GraderError
from grader.exports.common import ExportError
from grader.exports.gradescope import gradescope_results, leaderboard_cases
from grader.exports.timed import leaderboard_cpu
from grader.grading import execute, plan
from grader.pool import load_pool
from grader.reports.results_json import write_json
from grader.reports.terminal import build_report, case_report, score_line
from grader.sandbox import isolating_sandbox
from grader.score import SubmissionReport, report
from grader.store import DB_NAME, Store
from grader.submissions import load


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m grader.exports.autograder", description=__doc__.splitlines()[0]
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
    args = parser.parse_args(argv)
    if not args.check and (args.submission is None or args.results is None):
        parser.error("--submission and --results are needed (or --check)")
    try:
        config, cases = _setup(args.source)
        if args.check:
            sandbox = isolating_sandbox(config.sandbox, warn=_say)
            public = sum(case.public for case in cases)
            print(
                f"autograder ready: {public} public and {len(cases) - public} hidden cases, "
                f"sandbox {sandbox.name}"
            )
            return 0
        started = time.monotonic()
        result, sandbox_name, cpu = grade(
            args.submission, config, cases, max(1, args.jobs or usable_cpus()), args.source
        )
        document = gradescope_results(
            result,
            timed=leaderboard_cases(config, cases),
            sandbox=sandbox_name,
            leaderboard_cpu=cpu,
            execution_time=time.monotonic() - started,
        )
        args.results.mkdir(parents=True, exist_ok=True)
        write_json(document, args.results / "results.json", "gradescope_results")
    except GraderError as error:
        print(f"autograder: error: {error}", file=sys.stderr)
        return 2
    print(build_report(result))
    print(case_report(result, instructor=True))
    print(score_line(result, ""))
    return 0


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
    folder: Path, config: CourseConfig, cases: list[Case], jobs: int, source: Path = Path(".")
) -> tuple[SubmissionReport, str, list[float] | None]:
    """Build and run one submission folder on every case, in a throwaway store."""
    if not folder.is_dir():
        raise ExportError(f"{folder}: no submission folder")
    # One student's folder, whatever it holds: a misplaced or misnamed source file is
    # a CE with a clear reason, never a second "submission".
    submission = load(folder, config)
    sandbox = isolating_sandbox(config.sandbox, warn=_say)
    if sandbox.name != "bubblewrap":
        _shut_out(source)
    with tempfile.TemporaryDirectory(prefix="autograder-") as tmp:  # 0700, a random name
        with Store(Path(tmp) / DB_NAME) as store:
            execute(
                plan([submission], cases, store),
                store,
                sandbox,
                config,
                Path(tmp) / "builds",
                jobs=jobs,
            )
            pool = load_pool(source / "testcases" / "manifest.json")
            Searcher(store, cases, pool, config, sandbox, Path(tmp) / "builds").run([submission])
            result = report(store, store.recorded(submission.id), cases, config.policy_cases)
            cpu = None
            if result.all_accepted:  # timed as `grader leaderboard` times it
                wanted = set(leaderboard_cases(config, cases))
                timed = [c for c in cases if c.id in wanted]
                cpu = leaderboard_cpu(submission, timed, sandbox, config, Path(tmp) / "builds")
            return result, sandbox.name, cpu


def _say(message: str) -> None:
    print(f"autograder: warning: {message}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
