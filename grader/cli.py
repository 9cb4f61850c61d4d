"""python -m grader SUBCOMMAND: grade a class, check one program, show a report."""

# The docstring above is the parser's description (`grader --help`). This module only
# assembles the parser from grader/commands/ and runs the chosen command, catching the
# GraderError family once.

import argparse
import sys
from pathlib import Path

from grader.commands import (
    check,
    diff,
    export,
    grade,
    leaderboard,
    lms_export,
    lms_import,
    override,
    show,
    similarity,
    teams,
)
from grader.errors import run_entry_point


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
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


def parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="grader", description=__doc__)
    for flag, text in GLOBAL_OPTIONS:
        parser.add_argument(flag, type=Path, help=text)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    # In the order `grader --help` lists them. Each command module adds its own options.
    grade.add_parser(sub)
    diff.add_parser(sub)
    lms_import.add_parser(sub)
    check.add_parser(sub)
    show.add_parser(sub)
    override.add_parser(sub)
    teams.add_parser(sub)
    leaderboard.add_parser(sub)
    similarity.add_parser(sub)
    kinds = export.add_parser(sub)
    # The LMS's own grade import formats are export kinds too: they meet here, so that
    # neither feature knows the other.
    lms_export.add_parser(kinds)
    _accept_global_options_anywhere(parser)
    return parser
