"""`grader check PATH`: a student's self-check of one program on the public cases and
every puzzle of the pool (what the student kit runs too), in a scratch
folder (nothing is kept); one screen (grader.results.check_report), or every case in
full with --details; exit status 0 only when every case and pool puzzle run passes."""

import argparse
import tempfile
from pathlib import Path

from grader.build.toolchain import install_hint, missing_tools
from grader.cases.manifest import Case, default_manifest, load_cases
from grader.cases.pool import load_pool
from grader.commands.console import run_with_progress, warn
from grader.commands.options import add_jobs_option, positive_jobs
from grader.core.errors import UsageError, run_entry_point
from grader.course.config import CourseConfig, load_config
from grader.grading.proofs import CHECK_BUDGET, Proving, explain
from grader.grading.session import ThreadExecutor, plan
from grader.intake.submissions import Submission, discover, load
from grader.judge.score import Standing, SubmissionReport, report
from grader.results.check_report import (
    PoolRun,
    check_report,
    passed,
    pool_report,
    verdict_line,
)
from grader.results.terminal import build_report, case_report
from grader.sandbox import make_sandbox
from grader.store import DB_NAME, ProofRow, Store


def standalone(argv: list[str]) -> int:
    """`check` on its own, without the rest of the grader: the student kit's check.py
    (it ships only what this needs, and runs on Python alone)."""
    parser = argparse.ArgumentParser(prog="check.py", description=__doc__)
    parser.add_argument("--course", type=Path, help="the course's configuration")
    parser.add_argument("--manifest", type=Path, help="the public cases' manifest")
    _options(parser)
    args = parser.parse_args(argv)
    return run_entry_point("check: error", lambda: run(args))


def add_parser(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    _options(sub.add_parser("check", help="a student's self-check on the public cases"))


def _options(check: argparse.ArgumentParser) -> None:
    check.add_argument("path", type=Path, help="your source file or its folder")
    check.add_argument(
        "--pool",
        action="store_true",
        help="kept for old scripts: every check runs every puzzle of the pool (public "
        "puzzles like the hidden cases), as the student kit does",
    )
    check.add_argument("--details", action="store_true", help="every case in full, not one screen")
    check.add_argument(
        "--case",
        action="append",
        metavar="ID",
        help="only this public case (again for more; no pool puzzle): a GitHub Classroom "
        "step grades one case",
    )
    check.add_argument(
        "--unsettled-mark",
        type=Path,
        metavar="FILE",
        help="when the grader itself could not judge a case (IE: not your program's "
        "fault), add its id to FILE and exit 3 (a GitHub Classroom workflow then reports "
        "no points rather than a 0)",
    )
    add_jobs_option(check)
    check.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    jobs = positive_jobs(args.jobs)
    config = load_config(args.course)
    manifest = args.manifest or default_manifest()
    cases = _chosen(load_cases(manifest, public_only=True), args.case)
    submissions = _submission(args.path, config)
    spec = submissions[0].language
    missing = missing_tools(spec) if spec is not None else []
    if spec is not None and missing:
        why = (
            f"{spec.source} needs {missing[0]}, which is not installed here (not on the "
            f"PATH): {install_hint(missing[0])}"
        )
        if args.unsettled_mark is not None:  # the machine's lack, not the program's
            _mark(args.unsettled_mark, [f"{case.id}: {why}" for case in cases])
        raise UsageError(why)
    with tempfile.TemporaryDirectory(prefix="grader-check-") as tmp:
        folder = Path(tmp)
        with Store(folder / DB_NAME) as store:
            sandbox = make_sandbox(config.sandbox, warn=warn)
            pool = load_pool(manifest)
            probes = [] if args.case else list(pool)  # the whole pool: as the kit
            work = plan(submissions, cases, store, probes=probes)
            executor = ThreadExecutor(sandbox, config, folder / "builds", jobs)
            run_with_progress(work, store, executor, False)
            proving = Proving(sandbox, folder / "builds", jobs, CHECK_BUDGET)
            explain(store, submissions, cases, pool, config, proving)
            row = store.recorded(submissions[0].id)
            result = report(store, row, cases, config.policy_cases)
            stored = store.pool_runs(row.id, row.content_hash)
            proofs = store.proofs(row.id, row.content_hash)
    ran = [
        PoolRun(p, run.verdict, run.kind, run.diagnosis, _proven(proofs, p))
        for p in probes
        if (run := stored.get((p.id, p.version))) is not None
    ]
    if args.details:
        print(build_report(result))
        print(case_report(result, instructor=False, cpu_limit=config.limits.cpu_seconds))
        print(pool_report(ran))
        print(verdict_line(result, ran, bool(args.case)).strip())
    else:
        print(check_report(result, ran, bool(args.case))[0])
    if not result.settled:
        print(f"no score: {result.unsettled}")
        if args.unsettled_mark is not None:
            _mark_unsettled(args.unsettled_mark, result)
        return EXIT_UNSETTLED
    return 0 if passed(result, ran) else 1


EXIT_UNSETTLED = 3  # the grader could not judge a case: no verdict on the program


def _mark_unsettled(mark: Path, result: SubmissionReport) -> None:
    """Append the cases the grader could not judge to `mark` (one line each)."""
    _mark(
        mark,
        [
            f"{o.case.id}: {o.standing.explained}"
            for o in result.outcomes
            if o.standing is not Standing.SETTLED
        ],
    )


def _mark(mark: Path, lines: list[str]) -> None:
    try:
        with open(mark, "a", encoding="utf-8") as handle:
            handle.writelines(line + "\n" for line in lines)
    except OSError as error:
        raise UsageError(f"{mark}: cannot write: {error.strerror or error}") from None


def _proven(proofs: dict[tuple[str, str], dict[str, ProofRow]], puzzle: Case) -> tuple[str, ...]:
    """The properties of a pool puzzle's file proven to be what the program fails on."""
    found = proofs.get((puzzle.id, puzzle.version), {})
    return tuple(prop for prop, proof in found.items() if proof.proves)


def _submission(path: Path, config: CourseConfig) -> list[Submission]:
    """The one submission: a source file, or the folder holding it, read as the grader
    reads a student's folder (a source file below the top is named, not graded), so that
    a repository's check and its grading agree."""
    if path.is_dir():
        return [load(path, config)]
    return discover(path, config)  # a file: one submission


def _chosen(cases: list[Case], ids: list[str] | None) -> list[Case]:
    """The public cases named (all of them when none is), in the manifest's order."""
    if not ids:
        return cases
    known = {case.id for case in cases}
    unknown = [i for i in ids if i not in known]
    if unknown:
        raise UsageError(
            f"no public case {unknown[0]!r} (the public cases: "
            f"{', '.join(case.id for case in cases)})"
        )
    return [case for case in cases if case.id in ids]
