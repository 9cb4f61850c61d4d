"""python -m grader SUBCOMMAND: grade a class, check one program, show a report."""

import argparse
import sys
from pathlib import Path

from grader.cases import default_manifest, load_cases
from grader.commands import check, diff, grade, show
from grader.commands.console import progress_bar, warn
from grader.commands.options import (
    add_sandbox_option,
    grading_sandbox,
    with_sandbox_choice,
)
from grader.config import load_config
from grader.errors import UsageError, run_entry_point
from grader.exports.cli import add_export_command
from grader.lms.cli import add_import_command
from grader.store import DB_NAME, Store, results_folder


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

    diff.add_parser(sub)
    add_import_command(sub)

    check.add_parser(sub)
    show.add_parser(sub)

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


def cmd_similarity(args) -> int:
    from grader.similarity_cli import similarity

    return similarity(args)


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
