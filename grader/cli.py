"""python -m grader SUBCOMMAND: grade a class, check one program, show a report."""

# The docstring above is the parser's description (`grader --help`). This module only
# assembles the parser from grader/commands/ and runs the chosen command, catching the
# GraderError family once.

import argparse
import importlib
import sys
from collections.abc import Sequence
from pathlib import Path

from grader.core.errors import run_entry_point

# Each command's modules under grader/commands/, in the order `grader --help` lists
# them. A command line names one: only its modules are imported (each command's own
# imports cost a Python started for it up to 80 ms); `--help` and no command import all.
# The LMS's own grade import formats are export kinds too: they meet here, so that
# neither feature knows the other.
COMMANDS: dict[str, tuple[str, ...]] = {
    "grade": ("grade",),
    "diff": ("diff",),
    "import": ("lms_import",),
    "check": ("check",),
    "show": ("show",),
    "override": ("override",),
    "teams": ("teams",),
    "leaderboard": ("leaderboard",),
    "similarity": ("similarity",),
    "export": ("export", "lms_export"),
}


def main(argv: list[str] | None = None) -> int:
    given = sys.argv[1:] if argv is None else argv
    args = parser(_command_of(given)).parse_args(given)
    return run_entry_point("grader: error", lambda: args.func(args), _interrupted)


def _command_of(argv: Sequence[str]) -> str | None:
    """The command a command line names (None: none, or help before it), read past the
    global options and their values."""
    takes_value = {flag for flag, _ in GLOBAL_OPTIONS}
    skip = False
    for word in argv:
        if skip:
            skip = False
        elif word in takes_value:
            skip = True
        elif word in ("-h", "--help"):
            return None
        elif not word.startswith("-"):
            return word if word in COMMANDS else None
    return None


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


def parser(command: str | None = None) -> argparse.ArgumentParser:
    """The whole parser, or only `command`'s. (A command line naming no known command
    gets the whole one: its error lists every command.)"""
    parser = argparse.ArgumentParser(prog="grader", description=__doc__)
    for flag, text in GLOBAL_OPTIONS:
        parser.add_argument(flag, type=Path, help=text)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, modules in COMMANDS.items():
        if command is not None and name != command:
            continue
        first, *joining = (importlib.import_module(f"grader.commands.{m}") for m in modules)
        kinds = first.add_parser(sub)
        for module in joining:
            module.add_parser(kinds)
    _accept_global_options_anywhere(parser)
    return parser
