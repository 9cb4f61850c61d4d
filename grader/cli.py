"""python -m grader SUBCOMMAND: grade a class, check one program, show a report."""

import argparse
import os
import sys
import tempfile
from pathlib import Path
from typing import List, Optional

from grader.cases import CaseError, default_manifest, load_cases
from grader.config import ConfigError, load_config
from grader.exports.cli import ExportError, add_export_command
from grader.grading import Event, execute, plan
from grader.reports.results_json import results_document, write_json
from grader.reports.terminal import build_report, case_report, score_line, summary_table
from grader.sandbox import SandboxUnavailable, isolating_sandbox, make_sandbox
from grader.score import report
from grader.store import Store, StoreError, results_folder
from grader.submissions import SubmissionError, discover

DB_NAME = "grader.db"


class UsageError(Exception):
    """A command used the wrong way; str() is the one-line reason."""


def main(argv: Optional[List[str]] = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except (ConfigError, CaseError, SubmissionError, StoreError, UsageError,
            ExportError, SandboxUnavailable) as error:
        print(f"grader: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("\ngrader: interrupted; every finished run is stored, run the same command "
              "again to resume", file=sys.stderr)
        return 130


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="grader", description=__doc__)
    parser.add_argument("--course", type=Path, help="course configuration (default: course.toml)")
    parser.add_argument("--manifest", type=Path, help="test-case manifest "
                        "(default: testcases/manifest.json)")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    grade = sub.add_parser("grade", help="grade every submission in a folder")
    grade.add_argument("folder", nargs="?", type=Path, default=Path("submissions"))
    grade.add_argument("--results", type=Path, default=Path("results"))
    grade.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    grade.add_argument("--force", action="store_true",
                       help="rebuild and rerun even what is already graded")
    _sandbox_option(grade)
    grade.set_defaults(func=cmd_grade)

    check = sub.add_parser("check", help="a student's self-check on the public cases")
    check.add_argument("path", type=Path, help="your source file or its folder")
    check.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    check.set_defaults(func=cmd_check)

    show = sub.add_parser("show", help="one submission's full report")
    show.add_argument("id")
    show.add_argument("--results", type=Path, default=Path("results"))
    show.set_defaults(func=cmd_show)

    board = sub.add_parser("leaderboard", help="time the programs that pass every case and "
                           "rank them (instructors)")
    board.add_argument("--results", type=Path, default=Path("results"))
    board.add_argument("--anonymize", action="store_true",
                       help="show stable pseudonyms instead of submission names")
    board.add_argument("--force-remeasure", action="store_true",
                       help="forget every stored timing and measure again")
    _sandbox_option(board)
    board.set_defaults(func=cmd_leaderboard)

    add_export_command(sub)
    return parser


def _sandbox_option(command: argparse.ArgumentParser) -> None:
    command.add_argument("--sandbox", choices=("auto", "bubblewrap", "rlimits"),
                         help="overrides course.toml; rlimits: no isolation (never chosen "
                         "for you: without bubblewrap, grading stops)")


def _grading_sandbox(config, args):
    """Untrusted code runs isolated, or unisolated only by the instructor's choice."""
    return isolating_sandbox(args.sandbox or config.sandbox, warn=_warn)


def _warn(message: str) -> None:
    print(f"grader: warning: {message}", file=sys.stderr)


def _positive_jobs(jobs: int) -> int:
    if jobs < 1:
        raise UsageError(f"--jobs must be at least 1, not {jobs}")
    return jobs


def cmd_grade(args) -> int:
    jobs = _positive_jobs(args.jobs)
    config = load_config(args.course)
    cases = load_cases(args.manifest or default_manifest())
    submissions = discover(args.folder, config)
    if not submissions:
        raise UsageError(f"{args.folder}: no submissions found (one folder per student)")
    with results_folder(args.results) as folder, Store(folder / DB_NAME) as store:
        sandbox = _grading_sandbox(config, args)
        work = plan(submissions, cases, store, force=args.force)
        _run_with_progress(work, store, sandbox, config, folder / "builds", jobs, args.force)
        reports = [report(store, store.submission(s.id), cases) for s in submissions]
        print(summary_table(reports))
        internal = sum(r.verdict_counts.get("IE", 0) for r in reports)
        if internal:
            _warn(f"{internal} run(s) ended in IE: the grader failed, not the students; "
                  "run the same command again to retry them")
        write_json(results_document(reports, cases, sandbox.name), folder / "results.json",
                   "results")
        print(f"\nresults: {folder / 'results.json'} and {folder / DB_NAME}")
    return 0


def _run_with_progress(work, store, sandbox, config, cache_root, jobs, force) -> None:
    from tqdm import tqdm

    if work.total == 0:
        print("nothing to grade: every submission is graded already (--force to redo)",
              file=sys.stderr)
        return
    with tqdm(total=work.total, unit="run", file=sys.stderr, disable=None,
              dynamic_ncols=True) as bar:
        def on_event(event: Event) -> None:
            if event.kind == "run":
                bar.set_postfix_str(f"{event.submission.id}/{event.case.id}: {event.verdict}",
                                    refresh=False)
                bar.update(1)
        execute(work, store, sandbox, config, cache_root, jobs=jobs, force=force,
                on_event=on_event)


def cmd_check(args) -> int:
    jobs = _positive_jobs(args.jobs)
    config = load_config(args.course)
    cases = load_cases(args.manifest or default_manifest(), public_only=True)
    submissions = discover(args.path, config)
    if len(submissions) != 1:
        raise UsageError(f"{args.path}: check takes one submission (a source file or the "
                         f"folder holding it), found {len(submissions)}")
    with tempfile.TemporaryDirectory(prefix="grader-check-") as tmp:
        folder = Path(tmp)
        with Store(folder / DB_NAME) as store:
            sandbox = make_sandbox(config.sandbox, warn=_warn)
            work = plan(submissions, cases, store)
            _run_with_progress(work, store, sandbox, config, folder / "builds", jobs, False)
            result = report(store, store.submission(submissions[0].id), cases)
    print(build_report(result))
    print(case_report(result, instructor=False))
    print(score_line(result, " on the public cases"))
    if result.all_accepted:
        print("All public cases pass. Hidden cases are graded after the deadline.")
        return 0
    return 1


def cmd_show(args) -> int:
    path = args.results / DB_NAME
    if not path.exists():
        raise UsageError(f"{path}: no results yet (run `grader grade` first)")
    cases = load_cases(args.manifest or default_manifest())
    with Store(path) as store:
        row = store.submission(args.id)
        if row is None:
            known = ", ".join(s.id for s in store.submissions()) or "none"
            raise UsageError(f"no submission {args.id!r} in {path} (known: {known})")
        result = report(store, row, cases)
    print(f"submission {row.id}  language {row.language}  folder {row.folder}")
    print(f"content {row.content_hash[:16]}")
    print(build_report(result))
    print(case_report(result, instructor=True))
    print(score_line(result, ""))
    return 0


def cmd_leaderboard(args) -> int:
    from tqdm import tqdm

    from grader import leaderboard as lb
    from grader.reports.leaderboard_html import html_page
    from grader.reports.leaderboard_md import markdown, terminal
    from grader.reports.results_json import write_atomic

    config = load_config(args.course)
    cases = load_cases(args.manifest or default_manifest())
    if not (args.results / DB_NAME).exists():
        raise UsageError(f"{args.results / DB_NAME}: no results yet (run `grader grade` first)")
    with results_folder(args.results) as folder, Store(folder / DB_NAME) as store:
        if args.force_remeasure:
            store.forget_timings()
        for caveat in lb.caveats(config):
            _warn(caveat)
        sandbox = _grading_sandbox(config, args)
        session = lb.prepare(store, cases, config, sandbox, folder / "builds")
        work = lb.plan(store, session, config)
        failed = 0
        if work.total:
            with tqdm(total=work.total, unit="run", file=sys.stderr, disable=None,
                      dynamic_ncols=True) as bar:
                def on_event(event: lb.Event) -> None:
                    run = "warm-up" if event.run_index is None else f"run {event.run_index + 1}"
                    bar.set_postfix_str(f"{event.program.id}/{event.case.id} {run}",
                                        refresh=False)
                    bar.update(1)
                failed = lb.measure(work, store, sandbox, config, on_event)
        if failed:
            _warn(f"{failed} timed runs failed in the grader and were not stored; "
                  "run leaderboard again to measure them")
        board = lb.collect(store, session, config)
        for caveat in lb.board_caveats(board):
            _warn(caveat)
        name = lb.pseudonyms(folder) if args.anonymize else (lambda sid: sid)
        doc = lb.document(board, lb.machine_info(sandbox.name, lb.pinned_core()), name,
                          anonymized=args.anonymize)
        print(terminal(doc))
        write_json(doc, folder / "leaderboard.json", "leaderboard")
        write_atomic(folder / "leaderboard.md", markdown(doc))
        write_atomic(folder / "leaderboard.html", html_page(doc))
        print(f"\nleaderboard: {folder / 'leaderboard.md'}, {folder / 'leaderboard.json'} and "
              f"{folder / 'leaderboard.html'}")
        if args.anonymize:
            ids = [row.id for row in store.submissions()]
            key = lb.write_pseudonym_key(folder, ids, name)
            print(f"pseudonyms: {key} (private: do not publish it, nor {lb.SALT_FILE})")
    return 0
