"""`grader check PATH`: a student's self-check of one program on the public cases, in a
scratch folder (nothing is kept); exit status 0 only when every case passes."""

import argparse
import tempfile
from pathlib import Path

from grader import counterexamples
from grader.cases import default_manifest, load_cases
from grader.commands.console import run_with_progress, warn
from grader.commands.options import add_jobs_option, positive_jobs
from grader.config import load_config
from grader.errors import UsageError
from grader.grading import ThreadExecutor, plan
from grader.pool import load_pool
from grader.reports.terminal import build_report, case_report, score_line
from grader.sandbox import make_sandbox
from grader.score import report
from grader.store import DB_NAME, Store
from grader.submissions import discover
from grader.text import safe_name
from grader.toolchain import install_hint, missing_tools


def add_parser(sub) -> None:
    check = sub.add_parser("check", help="a student's self-check on the public cases")
    check.add_argument("path", type=Path, help="your source file or its folder")
    add_jobs_option(check)
    check.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    jobs = positive_jobs(args.jobs)
    config = load_config(args.course)
    manifest = args.manifest or default_manifest()
    cases = load_cases(manifest, public_only=True)
    submissions = discover(args.path, config)
    if len(submissions) != 1:
        raise UsageError(
            f"{safe_name(args.path)}: check takes one submission (a source file "
            f"or the folder holding it), found {len(submissions)}"
        )
    spec = submissions[0].language
    missing = missing_tools(spec) if spec is not None else []
    if spec is not None and missing:
        raise UsageError(
            f"{spec.source} needs {missing[0]}, which is not installed here (not on the "
            f"PATH): {install_hint(missing[0])}"
        )
    with tempfile.TemporaryDirectory(prefix="grader-check-") as tmp:
        folder = Path(tmp)
        with Store(folder / DB_NAME) as store:
            sandbox = make_sandbox(config.sandbox, warn=warn)
            pool = load_pool(manifest)
            probes = counterexamples.choose_probes(cases, pool, config.counterexamples.runs)
            work = plan(submissions, cases, store, probes=probes)
            executor = ThreadExecutor(sandbox, config, folder / "builds", jobs)
            run_with_progress(work, store, executor, False)
            counterexamples.record(store, submissions, cases, pool, config.limits.cpu_seconds)
            result = report(store, store.recorded(submissions[0].id), cases, config.policy_cases)
    print(build_report(result))
    print(case_report(result, instructor=False, cpu_limit=config.limits.cpu_seconds))
    print(score_line(result, " on the public cases"))
    if result.all_accepted:
        print("All public cases pass. Hidden cases are graded after the deadline.")
        return 0
    return 1
