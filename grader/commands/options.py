"""The options more than one command takes (--jobs, --sandbox), checked and applied
alike everywhere."""

import argparse
import dataclasses
from pathlib import Path

from grader.commands.console import warn
from grader.core.errors import UsageError
from grader.course.config import SANDBOX_CHOICES, CourseConfig
from grader.sandbox import Sandbox, isolating_sandbox
from grader.sandbox.cgroupfs import usable_cpus
from grader.store import DB_NAME


def add_sandbox_option(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--sandbox",
        choices=SANDBOX_CHOICES,
        help="overrides course.toml; rlimits: no isolation (never chosen "
        "for you: without bubblewrap, grading stops)",
    )


def with_sandbox_choice(config: CourseConfig, args: argparse.Namespace) -> CourseConfig:
    """course.toml's sandbox, or the one --sandbox chose."""
    return dataclasses.replace(config, sandbox=args.sandbox) if args.sandbox else config


def grading_sandbox(config: CourseConfig) -> Sandbox:
    """Untrusted code runs isolated, or unisolated only by the instructor's choice."""
    return isolating_sandbox(config.sandbox, warn=warn)


def add_jobs_option(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--jobs",
        type=int,
        help="programs graded at once (default: the CPUs the grader may really use: its "
        "affinity, and a container's CPU quota, never the host's count)",
    )


def positive_jobs(jobs: int | None) -> int:
    """--jobs as given, or the CPUs this process may really use."""
    if jobs is None:
        return usable_cpus()
    if jobs < 1:
        raise UsageError(f"--jobs must be at least 1, not {jobs}")
    return jobs


def add_results_option(command: argparse.ArgumentParser) -> None:
    command.add_argument("--results", type=Path, default=Path("results"))


def add_settled_option(command: argparse.ArgumentParser) -> None:
    """The exports that write scores: a submission whose score is not settled (a case
    not graded, IE, judged under other rules) gets none, is named, and the exit status
    says so unless this is given."""
    add_results_option(command)
    command.add_argument(
        "--settled-only",
        action="store_true",
        help="write only settled scores and exit 0 (by default the unsettled ones are left "
        "out too, named, and the exit status is 1)",
    )


def graded_results(results: Path, name: str = DB_NAME) -> Path:
    """A file `grader grade` writes into the results folder (its database, by
    default), or UsageError (one line) before any grading made it."""
    path = results / name
    if not path.exists():
        raise UsageError(f"{path}: no results yet (run `grader grade` first)")
    return path
