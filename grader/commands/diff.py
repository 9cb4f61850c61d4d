"""`grader diff`: what the last `grade` run changed, per student, against the run before
it (both kept in the results folder)."""

import argparse

from grader.commands.options import add_results_option
from grader.core.errors import UsageError
from grader.results import regrade


def add_parser(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    changes = sub.add_parser(
        "diff",
        help="what the last grade run changed (per student, old and new verdicts and scores)",
    )
    add_results_option(changes)
    changes.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
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
