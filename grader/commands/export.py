"""`python -m grader export KIND OUT`: the exports' command line.

    export gradescope OUT.zip             Gradescope autograder (the grader and every case)
    export csv OUT.csv [--bom]            gradebook for people and spreadsheets, a row per member
    export html OUT_DIR [--student]       feedback pages (+ index.html for the instructor)
    export student-kit OUT.zip            the students' self-check kit (public cases only)
    export github-classroom DIR           a GitHub Classroom template's autograding workflow
                                          and the kit its steps run (public cases only)
    export canvas OUT.csv --roster GRADEBOOK.csv   Canvas gradebook import (final scores)
    export moodle OUT.csv --roster WORKSHEET.csv   Moodle grading worksheet (final scores)
    export canvas-feedback OUT.zip        feedback pages for Canvas's Re-Upload Submissions
    export moodle-feedback OUT.zip        feedback pages for Moodle's feedback files zip

csv and html read the last `grade` run from --results (default: results/).
"""

import argparse
from pathlib import Path

from grader.commands.console import (
    course_lateness,
    settled_status,
    warn_unfinished,
    warn_waiting,
)
from grader.commands.options import add_settled_option
from grader.course.config import load_config
from grader.exports.common import zip_path
from grader.results.last_run import graded


def add_parser(
    sub: "argparse._SubParsersAction[argparse.ArgumentParser]",
) -> "argparse._SubParsersAction[argparse.ArgumentParser]":
    """Add `export` and its kinds made by grader/exports/; each LMS's kinds (what goes
    back to it, what it runs itself: grader/lms/systems.py) join them in grader/cli.py.
    Returns the kinds' subparsers."""
    export = sub.add_parser(
        "export",
        help="Gradescope autograder, gradebook CSV, feedback pages, student kit",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    kinds = export.add_subparsers(dest="export_kind", required=True, metavar="KIND")

    gradebook = kinds.add_parser(
        "csv",
        help="a gradebook CSV for people and spreadsheets: one row per team member, every "
        "verdict, the speed bonus (an LMS's own upload: export canvas or moodle)",
    )
    gradebook.add_argument("out", type=Path, metavar="OUT.csv")
    add_settled_option(gradebook)
    gradebook.add_argument(
        "--bom", action="store_true", help="start with a UTF-8 byte-order mark (for Excel)"
    )
    gradebook.set_defaults(func=cmd_csv)

    pages = kinds.add_parser("html", help="a feedback page per submission")
    pages.add_argument("out", type=Path, metavar="OUT_DIR")
    add_settled_option(pages)
    pages.add_argument(
        "--student",
        action="store_true",
        help="pages for students: hidden cases show their verdict only, "
        "and no index links them together",
    )
    pages.set_defaults(func=cmd_html)

    kit = kinds.add_parser("student-kit", help="the students' self-check kit (public cases only)")
    kit.add_argument("out", type=Path, metavar="OUT.zip")
    kit.set_defaults(func=cmd_student_kit)

    return kinds


def cmd_csv(args: argparse.Namespace) -> int:
    from grader.course.late import worth_showing
    from grader.exports.gradebook_csv import write_gradebook
    from grader.intake.teams import class_teams
    from grader.results.bonus import award

    config = load_config(args.course)
    policy = config.late
    with graded(args.results, args.manifest, config.policy_cases) as results:
        teams = class_teams([r.submission for r in results.reports], config)
        lateness = course_lateness(results.reports, config, teams)
        bonus = award(results.store, results.reports, teams, results.cases, config)
        warn_waiting(results.reports)
        warn_unfinished(results.unfinished)
        status = settled_status(results.reports, args.settled_only, "its score cell left empty")
        ranks = write_gradebook(
            args.out,
            results.reports,
            results.cases,
            args.results,
            bom=args.bom,
            lateness=lateness if worth_showing(lateness, policy) else None,
            teams=teams,
            bonus=bonus,
        )
        count = len(results.reports)
    for note in teams.notes:
        print(f"note: {note}")
    print(f"bonus: {bonus.note}")
    members = sum(len(t.members) for t in teams.by_submission.values() if t.counts)
    print(
        f"{args.out}: a gradebook for people and spreadsheets, {count} submissions, "
        f"{members} team members; {ranks.note} (for the LMS's own upload: export canvas or "
        "moodle)"
    )
    return status


def cmd_html(args: argparse.Namespace) -> int:
    from grader.core.progress import progress
    from grader.course.late import worth_showing
    from grader.exports.feedback_html import write_feedback
    from grader.intake.teams import class_teams

    config = load_config(args.course)
    cpu_limit = config.limits.cpu_seconds  # what grading runs under
    with graded(args.results, args.manifest, config.policy_cases) as results:
        teams = class_teams([r.submission for r in results.reports], config)
        lateness = course_lateness(results.reports, config, teams)
        warn_unfinished(results.unfinished)
        status = settled_status(results.reports, args.settled_only, "its page shows no score")
        with progress(len(results.reports), "writing pages", "page") as bar:

            def written(submission_id: str) -> None:
                bar.on(submission_id)
                bar.done()

            made = write_feedback(
                results,
                args.out,
                student=args.student,
                cpu_limit=cpu_limit,
                lateness=lateness if worth_showing(lateness, config.late) else None,
                teams=teams,
                written=written,
            )
    kind = "student" if args.student else "instructor"
    where = f"; open {made.index}" if made.index else ""
    print(f"{args.out}: {len(made.pages)} {kind} feedback pages{where}")
    return status


def cmd_student_kit(args: argparse.Namespace) -> int:
    from grader.exports.student_kit import build_student_kit

    kit = build_student_kit(zip_path(args.out), args.manifest, args.course)
    print(
        f"{kit.path}: student kit with {kit.cases} public cases; students unpack it, "
        "then run `python check.py path/to/puzzlesolver.c` in its folder (Windows, macOS, "
        "Linux)"
    )
    return 0
