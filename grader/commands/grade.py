"""`grader grade [DIR]`: grade every submission of a class folder into a results folder,
here on --jobs threads or on a Dask cluster; --dry-run grades on a copy and says what
would change."""

import argparse
import contextlib
import dataclasses
import shutil
import sys
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from grader.cases.manifest import Case, default_manifest, load_cases
from grader.cases.pool import load_pool
from grader.commands.console import (
    course_lateness,
    run_with_progress,
    say,
    warn,
    warn_mixed_class,
    warn_unrecorded,
)
from grader.commands.options import (
    add_jobs_option,
    add_results_option,
    add_sandbox_option,
    grading_sandbox,
    positive_jobs,
    with_sandbox_choice,
)
from grader.core.errors import UsageError
from grader.core.model import Verdict
from grader.core.progress import progress
from grader.core.text import safe_name
from grader.course.config import ConfigError, CourseConfig, load_config
from grader.course.late import Lateness, worth_showing
from grader.grading import counterexamples
from grader.grading.proofs import Proving, explain, provable
from grader.grading.rejudge import rejudge
from grader.grading.session import Plan, ThreadExecutor, plan
from grader.intake.extensions import class_lateness
from grader.intake.submissions import Submission, survey
from grader.intake.teams import Teams, class_teams
from grader.judge.canary import Canaries, limits_refusal
from grader.judge.score import SubmissionReport, report
from grader.results import regrade
from grader.results.results_json import results_document, write_json
from grader.results.terminal import summary_table
from grader.sandbox import Sandbox, SandboxUnavailable, isolating_sandbox
from grader.store import DB_NAME, Store, results_folder


class Puzzles(NamedTuple):
    """The graded cases, and the pool beside them (grader.cases.pool) the search draws on."""

    cases: list[Case]
    pool: list[Case]


def add_parser(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    grade = sub.add_parser("grade", help="grade every submission in a folder")
    grade.add_argument("folder", nargs="?", type=Path, default=Path("submissions"))
    add_results_option(grade)
    add_jobs_option(grade)
    grade.add_argument(
        "--force", action="store_true", help="rebuild and rerun even what is already graded"
    )
    grade.add_argument(
        "--dry-run",
        action="store_true",
        help="grade on a copy and list per student what would change; "
        "writes nothing in the results folder",
    )
    grade.add_argument(
        "--cluster",
        metavar="ADDRESS",
        help="grade on a Dask cluster: its scheduler's address "
        "(tcp://host:8786), or local:N for N worker processes here "
        "(default: [cluster] scheduler in course.toml; none: --jobs threads)",
    )
    add_sandbox_option(grade)
    grade.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    jobs = positive_jobs(args.jobs)
    config = load_config(args.course)
    config = with_sandbox_choice(config, args)
    manifest = args.manifest or default_manifest()
    cases = load_cases(manifest)
    puzzles = Puzzles(cases, load_pool(manifest))
    found = survey(args.folder, config)
    for skipped in found.skipped:
        warn(f"{skipped.name}: not graded: {skipped.reason}")
    submissions = found.submissions
    if not submissions:
        raise UsageError(f"{safe_name(args.folder)}: no submissions found (one folder per student)")
    warn_unrecorded(submissions)
    warn_mixed_class(submissions)
    teams = class_teams(submissions, config)  # bad team data: said before anything runs
    for note in teams.notes:
        say(note)
    address = args.cluster if args.cluster is not None else config.cluster.scheduler
    with results_folder(args.results) as folder:
        previous = regrade.read_results(folder / "results.json")
        if previous is None and (folder / "results.json").exists() and not args.dry_run:
            # Not comparable (another grader version?), but still not overwritten unseen.
            shutil.copyfile(folder / "results.json", folder / regrade.PREVIOUS_NAME)
            warn(
                f"{folder / 'results.json'} is not this grader's results: kept as "
                f"{regrade.PREVIOUS_NAME}, no comparison"
            )
        course = regrade.course_fingerprint(config)
        force = args.force
        if previous and previous.get("course") and previous["course"]["limits"] != course["limits"]:
            print(
                "course.toml's limits or sandbox changed since the last run: every "
                "submission is graded again",
                file=sys.stderr,
            )
            force = True
        if args.dry_run:
            return _dry_run(
                folder, previous, course, submissions, puzzles, config, jobs, force, address, teams
            )
        sandbox_name, reports = _grade_into(
            folder, submissions, puzzles, config, jobs, force, address
        )
        lateness = course_lateness(reports, config, teams)
        print(_summary(reports, config, lateness, teams))
        internal = sum(r.verdict_counts.get(Verdict.IE, 0) for r in reports)
        if internal:
            warn(
                f"{internal} run(s) ended in IE: the grader failed, not the students; "
                "run the same command again to retry them"
            )
        document = results_document(
            reports, cases, sandbox_name, lateness, course, found.skipped, teams
        )
        if previous is not None:
            # The run before this one stays readable: `grader diff` compares the two.
            write_json(previous, folder / regrade.PREVIOUS_NAME, "results")
            print(
                "\n"
                + regrade.render(
                    regrade.diff(previous, document), headline="since the previous run:"
                )
            )
        write_json(document, folder / "results.json", "results")
        print(
            f"\nresults: {folder / 'results.json'} and {folder / DB_NAME}"
            + (f" (the previous run: {folder / regrade.PREVIOUS_NAME})" if previous else "")
        )
    return 0


def _prove_limits(
    config: CourseConfig,
    sandbox: Sandbox,
    submissions: Sequence[Submission],
    cases: list[Case],
    folder: Path,
    canaries: Canaries | None,
) -> None:
    """course.toml's limits, proven before anything is graded: a known-good program of
    each language of the class builds and runs under them on a case (grader.judge.canary),
    or the key at fault is refused in one line."""
    specs = {s.language.name: s.language for s in submissions if s.language and not s.problem}
    if not specs or not cases:
        return
    refusal = limits_refusal(
        sandbox,
        config.build_limits,
        config.limits,
        list(specs.values()),
        folder / "builds" / "canaries-limits",
        cases[0].input,
        canaries,
    )
    if refusal is not None:
        raise ConfigError(f"{config.source or 'course.toml'}: {refusal}")


def _summary(
    reports: list[SubmissionReport],
    config: CourseConfig,
    lateness: dict[str, Lateness],
    teams: Teams,
) -> str:
    """`grade`'s table: late columns only when there is something late to show."""
    shown = lateness if worth_showing(lateness, config.late) else None
    return summary_table(reports, config.limits.cpu_seconds, shown, teams)


def _dry_run(
    folder: Path,
    previous: dict[str, Any] | None,
    course: dict[str, Any],
    submissions: Sequence[Submission],
    puzzles: Puzzles,
    config: CourseConfig,
    jobs: int,
    force: bool,
    address: str,
    teams: Teams,
) -> int:
    """Grade on a copy of the database, in a scratch folder; compare with the last run."""
    import sqlite3

    cases = puzzles.cases
    with tempfile.TemporaryDirectory(prefix="grader-dry-run-") as tmp:
        scratch = Path(tmp)
        if (folder / DB_NAME).exists():
            source = sqlite3.connect(folder / DB_NAME)
            target = sqlite3.connect(scratch / DB_NAME)
            with target:
                source.backup(target)
            source.close()
            target.close()
        sandbox_name, reports = _grade_into(
            scratch, submissions, puzzles, config, jobs, force, address
        )
    lateness = class_lateness(reports, config, teams)[0]  # a dry run warns of nothing
    document = results_document(reports, cases, sandbox_name, lateness, course, teams=teams)
    if previous is None:
        print(_summary(reports, config, lateness, teams))
        print(f"\ndry run: no previous results in {folder} to compare with; nothing written")
        return 0
    print(
        regrade.render(
            regrade.diff(previous, document),
            headline=f"dry run: what `grader grade` would change in {folder}:",
        )
    )
    print("\nnothing written (run `grader grade` without --dry-run to apply)")
    return 0


def _grade_into(
    folder: Path,
    submissions: Sequence[Submission],
    puzzles: Puzzles,
    config: CourseConfig,
    jobs: int,
    force: bool,
    address: str,
) -> tuple[str, list[SubmissionReport]]:
    """Plan and grade into the store in `folder`, on a cluster when `address` is set, else
    on `jobs` threads here, then find for each failing case a public puzzle that fails
    alike; the sandbox the programs ran in, and every report."""
    sandbox = None if address else grading_sandbox(config)
    # On a cluster the proofs run here where this machine can isolate programs;
    # where it cannot, the claims stay unproven (so unsaid).
    prover = sandbox or _client_sandbox(config)
    with _canaries(prover, config, folder, puzzles.cases) as canaries:
        if sandbox is not None:
            _prove_limits(config, sandbox, submissions, puzzles.cases, folder, canaries)
        with Store(folder / DB_NAME) as store:
            store.record_grade_started()
            sandbox_name = _graded(
                store, submissions, puzzles, config, (jobs, force, address), sandbox, canaries
            )
            proving = None if prover is None else Proving(prover, folder / "builds", jobs)
            _explained(store, submissions, puzzles, config, proving, canaries)
            reports = [
                report(store, store.recorded(s.id), puzzles.cases, config.policy_cases)
                for s in submissions
            ]
            store.record_grade_finished()
    return sandbox_name, reports


@contextlib.contextmanager
def _canaries(
    sandbox: Sandbox | None, config: CourseConfig, folder: Path, cases: list[Case]
) -> Iterator[Canaries | None]:
    """The grading process's canaries (grader.judge.canary): what the limits' proof finds,
    the grading and the proofs of the feedback need not find again."""
    if sandbox is None:
        yield None
        return
    puzzle = cases[0].input if cases else None
    root = folder / "builds" / "canaries"
    with Canaries(sandbox, config.build_limits, config.limits, root, puzzle) as canaries:
        yield canaries


def _graded(
    store: Store,
    submissions: Sequence[Submission],
    puzzles: Puzzles,
    config: CourseConfig,
    how: tuple[int, bool, str],
    sandbox: Sandbox | None,
    canaries: Canaries | None,
) -> str:
    """The plan graded (rejudged first where the rules changed), `how`: (jobs, force,
    the cluster's address); the sandbox's name."""
    jobs, force, address = how
    cases, pool = puzzles
    for line in rejudge(store, submissions, cases, pool, config.limits).lines():
        say(line)
    probes = counterexamples.choose_probes(cases, pool, config.counterexamples.runs)
    work = plan(submissions, cases, store, probes=probes, force=force)
    if address:
        return _grade_on_cluster(address, work, store, config, cases, force)
    assert sandbox is not None, "made by the caller when there is no cluster"
    folder = store.path.parent
    executor = ThreadExecutor(sandbox, config, folder / "builds", jobs, canaries)
    run_with_progress(work, store, executor, force)
    return sandbox.name


def _explained(
    store: Store,
    submissions: Sequence[Submission],
    puzzles: Puzzles,
    config: CourseConfig,
    proving: Proving | None,
    canaries: Canaries | None,
) -> None:
    """The proofs of what the feedback says, with a bar; a line on what they found."""
    cases, pool = puzzles
    shown = len(provable(submissions)) if proving is not None else 0
    with progress(shown, "proving the feedback", "submission") as bar:

        def ended(submission_id: str) -> None:
            bar.on(submission_id)
            bar.done()

        if proving is not None:
            proving = dataclasses.replace(proving, proven=ended, canaries=canaries)
        proven = explain(store, submissions, cases, pool, config, proving)
    if proven.runs:
        say(
            f"{proven.runs} run(s) after grading to prove what the feedback says "
            f"({proven.seconds:.1f} s): {len(proven.properties)} propert(ies) shown to be "
            f"what a program fails on, {len(proven.found)} public puzzle(s) found failing "
            "like a case"
        )


def _client_sandbox(config: CourseConfig) -> Sandbox | None:
    """This machine's sandbox for the proofs after a cluster's grading, if it has one."""
    try:
        return isolating_sandbox(config.sandbox, warn=lambda message: None)
    except SandboxUnavailable:
        return None


def _grade_on_cluster(
    address: str, work: Plan, store: Store, config: CourseConfig, cases: list[Case], force: bool
) -> str:
    """Grade the plan on a Dask cluster; the name of the workers' sandbox."""
    from grader.grading.cluster import ClusterExecutor, connect, workers_sandbox

    if work.total == 0:  # no need to reach the cluster
        run_with_progress(work, store, None, force)
    else:
        with connect(address, say=say) as client:
            executor = ClusterExecutor(client, config, cases, say=say)
            run_with_progress(work, store, executor, force)
    return workers_sandbox(config)
