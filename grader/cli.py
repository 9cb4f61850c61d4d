"""python -m grader SUBCOMMAND: grade a class, check one program, show a report."""

import argparse
import os
import sys
import tempfile
from pathlib import Path

from grader import regrade
from grader.cases import default_manifest, load_cases
from grader.commands import grade
from grader.commands.console import progress_bar, run_with_progress, warn
from grader.commands.options import (
    add_sandbox_option,
    grading_sandbox,
    positive_jobs,
    with_sandbox_choice,
)
from grader.config import load_config
from grader.errors import UsageError, run_entry_point
from grader.exports.cli import add_export_command
from grader.grading import ThreadExecutor, plan
from grader.late import assess
from grader.lms.cli import add_import_command
from grader.reports.terminal import (
    build_report,
    case_report,
    late_report,
    score_line,
)
from grader.sandbox import make_sandbox
from grader.score import report
from grader.store import DB_NAME, Store, results_folder
from grader.submission_meta import read_meta
from grader.submissions import discover
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

    grade.add_parser(sub)

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
    add_sandbox_option(board)
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


def cmd_similarity(args) -> int:
    from grader.similarity_cli import similarity

    return similarity(args)


def cmd_check(args) -> int:
    jobs = positive_jobs(args.jobs)
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
            sandbox = make_sandbox(config.sandbox, warn=warn)
            work = plan(submissions, cases, store)
            executor = ThreadExecutor(sandbox, config, folder / "builds", jobs)
            run_with_progress(work, store, executor, False)
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
    config = with_sandbox_choice(config, args)
    cases = load_cases(args.manifest or default_manifest())
    if not (args.results / DB_NAME).exists():
        raise UsageError(f"{args.results / DB_NAME}: no results yet (run `grader grade` first)")
    lb.timed_cases(cases, config)  # a bad [leaderboard] cases is said before anything runs
    with results_folder(args.results) as folder, Store(folder / DB_NAME) as store:
        if args.force_remeasure:
            store.forget_timings()
        for caveat in lb.caveats(config):
            warn(caveat)
        sandbox = grading_sandbox(config)
        session = lb.prepare(store, cases, config, sandbox, folder / "builds")
        work = lb.plan_timing(store, session, config)
        failed = 0
        if work.total:
            with progress_bar(work.total) as bar:

                def on_event(event: lb.TimedRunEvent) -> None:
                    run = "warm-up" if event.run_index is None else f"run {event.run_index + 1}"
                    bar.set_postfix_str(f"{event.program.id}/{event.case.id} {run}", refresh=False)
                    bar.update(1)

                failed = lb.measure(work, store, sandbox, config, on_event)
        if failed:
            warn(
                f"{failed} timed runs failed in the grader and were not stored; "
                "run leaderboard again to measure them"
            )
        standings = lb.collect(store, session, config)
        for caveat in lb.board_caveats(standings):
            warn(caveat)
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
