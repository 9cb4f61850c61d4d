"""python -m grader SUBCOMMAND: grade a class, check one program, show a report."""

import argparse
import dataclasses
import os
import shutil
import sys
import tempfile
from pathlib import Path

from grader import regrade
from grader.cases import default_manifest, load_cases
from grader.config import SANDBOX_CHOICES, CourseConfig, load_config
from grader.errors import UsageError, run_entry_point
from grader.exports.cli import add_export_command
from grader.grading import Event, ThreadExecutor, grade, plan
from grader.late import assess, lateness_of, worth_showing
from grader.lms.cli import add_import_command
from grader.model import Verdict
from grader.reports.results_json import results_document, write_json
from grader.reports.terminal import (
    build_report,
    case_report,
    late_report,
    score_line,
    summary_table,
)
from grader.sandbox import Sandbox, isolating_sandbox, make_sandbox
from grader.score import SubmissionReport, report
from grader.store import DB_NAME, Store, results_folder
from grader.submission_meta import read_meta
from grader.submissions import discover, survey
from grader.text import safe_name


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    return run_entry_point("grader: error", lambda: args.func(args), _interrupted)


def _interrupted() -> None:
    print(
        "\ngrader: interrupted; every finished run is stored, run the same command again to resume",
        file=sys.stderr,
    )


GLOBAL_OPTIONS = (
    ("--course", "course configuration (default: course.toml)"),
    ("--manifest", "test-case manifest (default: testcases/manifest.json)"),
)


def _accept_global_options_anywhere(parser: argparse.ArgumentParser) -> None:
    """`grader grade --course X` as well as `grader --course X grade`: every subcommand
    (and sub-subcommand) takes the global options too, without overriding them when
    they were given before it."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for command in action.choices.values():
                for flag, text in GLOBAL_OPTIONS:
                    command.add_argument(flag, type=Path, default=argparse.SUPPRESS, help=text)
                _accept_global_options_anywhere(command)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="grader", description=__doc__)
    for flag, text in GLOBAL_OPTIONS:
        parser.add_argument(flag, type=Path, help=text)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    grade = sub.add_parser("grade", help="grade every submission in a folder")
    grade.add_argument("folder", nargs="?", type=Path, default=Path("submissions"))
    grade.add_argument("--results", type=Path, default=Path("results"))
    grade.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
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
    _sandbox_option(grade)
    grade.set_defaults(func=cmd_grade)

    changes = sub.add_parser(
        "diff",
        help="what the last grade run changed (per student, old and new verdicts and scores)",
    )
    changes.add_argument("--results", type=Path, default=Path("results"))
    changes.set_defaults(func=cmd_diff)

    add_import_command(sub)

    check = sub.add_parser("check", help="a student's self-check on the public cases")
    check.add_argument("path", type=Path, help="your source file or its folder")
    check.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    check.set_defaults(func=cmd_check)

    show = sub.add_parser("show", help="one submission's full report")
    show.add_argument("id")
    show.add_argument("--results", type=Path, default=Path("results"))
    show.set_defaults(func=cmd_show)

    board = sub.add_parser(
        "leaderboard", help="time the programs that pass every case and rank them (instructors)"
    )
    board.add_argument("--results", type=Path, default=Path("results"))
    board.add_argument(
        "--anonymize",
        action="store_true",
        help="show stable pseudonyms instead of submission names",
    )
    board.add_argument(
        "--force-remeasure",
        action="store_true",
        help="forget every stored timing and measure again",
    )
    _sandbox_option(board)
    board.set_defaults(func=cmd_leaderboard)

    similar = sub.add_parser(
        "similarity",
        help="rank every pair of submissions by similarity "
        "(copydetect) into one HTML page (instructors)",
    )
    similar.add_argument("out", type=Path, metavar="OUT.html")
    similar.add_argument(
        "--submissions",
        type=Path,
        default=Path("submissions"),
        help="the class folder (default: %(default)s)",
    )
    similar.add_argument(
        "--base",
        type=Path,
        metavar="STARTER_DIR",
        help="starter or hand-out code: matches with it are ignored",
    )
    similar.add_argument(
        "--top", type=int, default=40, help="pairs shown side by side (default: %(default)s)"
    )
    similar.set_defaults(func=cmd_similarity)

    add_export_command(sub)
    _accept_global_options_anywhere(parser)
    return parser


def _sandbox_option(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--sandbox",
        choices=SANDBOX_CHOICES,
        help="overrides course.toml; rlimits: no isolation (never chosen "
        "for you: without bubblewrap, grading stops)",
    )


def _with_sandbox_choice(config: CourseConfig, args) -> CourseConfig:
    """course.toml's sandbox, or the one --sandbox chose."""
    return dataclasses.replace(config, sandbox=args.sandbox) if args.sandbox else config


def _grading_sandbox(config: CourseConfig) -> Sandbox:
    """Untrusted code runs isolated, or unisolated only by the instructor's choice."""
    return isolating_sandbox(config.sandbox, warn=_warn)


def _warn(message: str) -> None:
    print(f"grader: warning: {message}", file=sys.stderr)


def _say(message: str) -> None:
    print(f"grader: {message}", file=sys.stderr)


def _positive_jobs(jobs: int) -> int:
    if jobs < 1:
        raise UsageError(f"--jobs must be at least 1, not {jobs}")
    return jobs


def cmd_grade(args) -> int:
    jobs = _positive_jobs(args.jobs)
    config = load_config(args.course)
    config = _with_sandbox_choice(config, args)
    cases = load_cases(args.manifest or default_manifest())
    found = survey(args.folder, config)
    for skipped in found.skipped:
        _warn(f"{skipped.name}: not graded: {skipped.reason}")
    submissions = found.submissions
    if not submissions:
        raise UsageError(f"{safe_name(args.folder)}: no submissions found (one folder per student)")
    address = args.cluster if args.cluster is not None else config.cluster.scheduler
    with results_folder(args.results) as folder:
        previous = regrade.read_results(folder / "results.json")
        if previous is None and (folder / "results.json").exists() and not args.dry_run:
            # Not comparable (another grader version?), but still not overwritten unseen.
            shutil.copyfile(folder / "results.json", folder / regrade.PREVIOUS_NAME)
            _warn(
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
                folder, previous, course, submissions, cases, config, jobs, force, address
            )
        sandbox_name, reports = _grade_into(
            folder, submissions, cases, config, jobs, force, address
        )
        lateness = lateness_of(reports, config.late)
        print(_summary(reports, config, lateness))
        internal = sum(r.verdict_counts.get(Verdict.IE, 0) for r in reports)
        if internal:
            _warn(
                f"{internal} run(s) ended in IE: the grader failed, not the students; "
                "run the same command again to retry them"
            )
        document = results_document(reports, cases, sandbox_name, lateness, course, found.skipped)
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


def _summary(reports: list[SubmissionReport], config: CourseConfig, lateness) -> str:
    """`grade`'s table: late columns only when there is something late to show."""
    shown = lateness if worth_showing(lateness, config.late) else None
    return summary_table(reports, config.limits.cpu_seconds, shown)


def _dry_run(folder, previous, course, submissions, cases, config, jobs, force, address) -> int:
    """Grade on a copy of the database, in a scratch folder; compare with the last run."""
    import sqlite3

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
            scratch, submissions, cases, config, jobs, force, address
        )
    lateness = lateness_of(reports, config.late)
    document = results_document(reports, cases, sandbox_name, lateness, course)
    if previous is None:
        print(_summary(reports, config, lateness))
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


def cmd_diff(args) -> int:
    current = args.results / "results.json"
    before = args.results / regrade.PREVIOUS_NAME
    new, old = regrade.read_results(current), regrade.read_results(before)
    if new is None:
        raise UsageError(f"{current}: no results yet (run `grader grade` first)")
    if old is None:
        raise UsageError(
            f"{before}: no previous run to compare with (it appears after the "
            "second `grader grade`; `grader grade --dry-run` previews one)"
        )
    print(
        regrade.render(
            regrade.diff(old, new), headline=f"{old['generated_at']} -> {new['generated_at']}:"
        )
    )
    return 0


def _grade_into(
    folder: Path, submissions, cases, config: CourseConfig, jobs: int, force: bool, address: str
) -> tuple[str, list[SubmissionReport]]:
    """Plan and grade into the store in `folder`, on a cluster when `address` is set, else
    on `jobs` threads here; the sandbox the programs ran in, and every report."""
    with Store(folder / DB_NAME) as store:
        work = plan(submissions, cases, store, force=force)
        if address:
            sandbox_name = _grade_on_cluster(address, work, store, config, cases, force)
        else:
            sandbox = _grading_sandbox(config)
            executor = ThreadExecutor(sandbox, config, folder / "builds", jobs)
            _run_with_progress(work, store, executor, force)
            sandbox_name = sandbox.name
        reports = [
            report(store, store.recorded(s.id), cases, config.policy_cases) for s in submissions
        ]
    return sandbox_name, reports


def _grade_on_cluster(address, work, store, config, cases, force) -> str:
    """Grade the plan on a Dask cluster; the name of the workers' sandbox."""
    from grader.cluster import ClusterExecutor, connect, workers_sandbox

    if work.total == 0:  # no need to reach the cluster
        _run_with_progress(work, store, None, force)
    else:
        with connect(address, say=_say) as client:
            executor = ClusterExecutor(client, config, cases, say=_say)
            _run_with_progress(work, store, executor, force)
    return workers_sandbox(config)


def _progress_bar(total: int):
    """The runs' progress on stderr (none when stderr is not a terminal)."""
    from tqdm import tqdm

    return tqdm(total=total, unit="run", file=sys.stderr, disable=None, dynamic_ncols=True)


def _run_with_progress(work, store, executor, force) -> None:
    if work.total == 0:
        print(
            "nothing to grade: every submission is graded already (--force to redo)",
            file=sys.stderr,
        )
        return
    with _progress_bar(work.total) as bar:

        def on_event(event: Event) -> None:
            if event.kind == "run":
                assert event.case is not None, "a run event names its case"
                bar.set_postfix_str(
                    f"{event.submission.id}/{event.case.id}: {event.verdict}", refresh=False
                )
                bar.update(1)

        grade(work, store, executor, force=force, on_event=on_event)


def cmd_similarity(args) -> int:
    from grader.similarity_cli import similarity

    return similarity(args)


def cmd_check(args) -> int:
    jobs = _positive_jobs(args.jobs)
    config = load_config(args.course)
    cases = load_cases(args.manifest or default_manifest(), public_only=True)
    submissions = discover(args.path, config)
    if len(submissions) != 1:
        raise UsageError(
            f"{safe_name(args.path)}: check takes one submission (a source file "
            f"or the folder holding it), found {len(submissions)}"
        )
    with tempfile.TemporaryDirectory(prefix="grader-check-") as tmp:
        folder = Path(tmp)
        with Store(folder / DB_NAME) as store:
            sandbox = make_sandbox(config.sandbox, warn=_warn)
            work = plan(submissions, cases, store)
            executor = ThreadExecutor(sandbox, config, folder / "builds", jobs)
            _run_with_progress(work, store, executor, False)
            result = report(store, store.recorded(submissions[0].id), cases, config.policy_cases)
    print(build_report(result))
    print(case_report(result, instructor=False, cpu_limit=config.limits.cpu_seconds))
    print(score_line(result, " on the public cases"))
    if result.all_accepted:
        print("All public cases pass. Hidden cases are graded after the deadline.")
        return 0
    return 1


def cmd_show(args) -> int:
    path = args.results / DB_NAME
    if not path.exists():
        raise UsageError(f"{path}: no results yet (run `grader grade` first)")
    config = load_config(args.course)
    cases = load_cases(args.manifest or default_manifest())
    with Store(path) as store:
        row = store.submission(safe_name(args.id))
        if row is None:
            known = ", ".join(s.id for s in store.submissions()) or "none"
            raise UsageError(f"no submission {safe_name(args.id)!r} in {path} (known: {known})")
        result = report(store, row, cases, config.policy_cases)
    cpu_limit = config.limits.cpu_seconds
    print(f"submission {row.id}  language {row.language}  folder {row.folder}")
    print(f"content {row.content_hash[:16]}")
    meta = read_meta(row.folder)
    if meta is not None:
        print(f"from {meta.lms}: {meta.name or '?'} (LMS id {meta.lms_user_id})")
    print(build_report(result))
    print(case_report(result, instructor=True, cpu_limit=cpu_limit))
    print(score_line(result, ""))
    late = assess(config.late, meta)
    if meta is not None or late.note:
        print(late_report(result, late, meta.time_source if meta else ""))
    return 0


def cmd_leaderboard(args) -> int:
    from grader import leaderboard as lb
    from grader.reports.leaderboard_md import terminal

    config = load_config(args.course)
    config = _with_sandbox_choice(config, args)
    cases = load_cases(args.manifest or default_manifest())
    if not (args.results / DB_NAME).exists():
        raise UsageError(f"{args.results / DB_NAME}: no results yet (run `grader grade` first)")
    lb.timed_cases(cases, config)  # a bad [leaderboard] cases is said before anything runs
    with results_folder(args.results) as folder, Store(folder / DB_NAME) as store:
        if args.force_remeasure:
            store.forget_timings()
        for caveat in lb.caveats(config):
            _warn(caveat)
        sandbox = _grading_sandbox(config)
        session = lb.prepare(store, cases, config, sandbox, folder / "builds")
        work = lb.plan_timing(store, session, config)
        failed = 0
        if work.total:
            with _progress_bar(work.total) as bar:

                def on_event(event: lb.TimedRunEvent) -> None:
                    run = "warm-up" if event.run_index is None else f"run {event.run_index + 1}"
                    bar.set_postfix_str(f"{event.program.id}/{event.case.id} {run}", refresh=False)
                    bar.update(1)

                failed = lb.measure(work, store, sandbox, config, on_event)
        if failed:
            _warn(
                f"{failed} timed runs failed in the grader and were not stored; "
                "run leaderboard again to measure them"
            )
        standings = lb.collect(store, session, config)
        for caveat in lb.board_caveats(standings):
            _warn(caveat)
        name = lb.pseudonyms(folder) if args.anonymize else None
        doc = lb.document(
            standings,
            lb.machine_info(sandbox.name, lb.pinned_core()),
            name or (lambda sid: sid),
            anonymized=args.anonymize,
        )
        print(terminal(doc))
        made = lb.publish(doc, folder, [row.id for row in store.submissions()], name)
        print(f"\nleaderboard: {made.markdown}, {made.json} and {made.html}")
        if made.key is not None:
            print(f"pseudonyms: {made.key} (private: do not publish it, nor {lb.SALT_FILE})")
    return 0
