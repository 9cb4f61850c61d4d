"""`grader show ID`: one submission's full report from the results folder, with where it
came from and its late penalty when it was imported from an LMS."""

import argparse

from grader.cases.manifest import default_manifest, load_cases
from grader.commands.console import course_lateness
from grader.commands.options import add_results_option, graded_results
from grader.core.errors import UsageError
from grader.core.text import safe_name
from grader.course.config import load_config
from grader.course.submission_meta import read_meta
from grader.intake.teams import class_teams
from grader.judge.score import report
from grader.results.last_run import graded_ids
from grader.results.terminal import (
    build_report,
    case_report,
    decisions_report,
    late_report,
    score_line,
    team_report,
)
from grader.store import Store


def add_parser(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    show = sub.add_parser("show", help="one submission's full report")
    show.add_argument("id")
    add_results_option(show)
    show.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    path = graded_results(args.results)
    config = load_config(args.course)
    cases = load_cases(args.manifest or default_manifest())
    with Store(path) as store:
        row = store.submission(safe_name(args.id))
        if row is None:
            known = ", ".join(s.id for s in store.submissions()) or "none"
            raise UsageError(f"no submission {safe_name(args.id)!r} in {path} (known: {known})")
        result = report(store, row, cases, config.policy_cases)
        graded = graded_ids(args.results)
        teams = class_teams(
            [s for s in store.submissions() if graded is None or s.id in graded or s.id == row.id],
            config,
        )
    cpu_limit = config.limits.cpu_seconds
    print(f"submission {row.id}  language {row.language}  folder {row.folder}")
    print(f"content {row.content_hash[:16]}")
    meta = read_meta(row.folder)
    if meta is not None:
        print(f"from {meta.lms}: {meta.name or '?'} (LMS id {meta.lms_user_id})")
    print(team_report(teams.of(row.id)))
    print(build_report(result))
    print(case_report(result, instructor=True, cpu_limit=cpu_limit))
    print(score_line(result, ""))
    decided = decisions_report(result)
    if decided:
        print(decided)
    late = course_lateness([result], config, teams)[row.id]
    if meta is not None or late.note:
        print(late_report(result, late, meta.time_source if meta else ""))
    return 0
