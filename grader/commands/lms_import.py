"""`grader import canvas|moodle|gradescope|github-classroom DOWNLOAD`: an LMS's bulk
download (or the folder of GitHub Classroom's clones) turned into one folder per
student (grader/lms/ reads it; each folder gets its submission metadata beside the
student's files)."""

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from grader.core.errors import UsageError
from grader.lms.systems import REGISTRY, option_refusal

if TYPE_CHECKING:
    from grader.lms.importer import ImportResult


def add_parser(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    command = sub.add_parser(
        "import",
        help=f"turn an LMS's bulk download into one folder per student ({', '.join(REGISTRY)})",
    )
    command.add_argument("kind", choices=tuple(REGISTRY))
    command.add_argument(
        "archive",
        type=Path,
        metavar="DOWNLOAD",
        help="the LMS's zip; github-classroom: the folder `gh classroom clone "
        "student-repos` made (<assignment>-submissions, or the folder holding it)",
    )
    command.add_argument(
        "--roster",
        type=Path,
        help="the LMS's gradebook CSV (Canvas) or grading worksheet (Moodle: also the "
        "submission times and the teams' members): names, and who is missing; "
        "github-classroom (required): classroom_roster.csv, from the classroom's "
        "Students tab",
    )
    command.add_argument(
        "--grades",
        type=Path,
        metavar="GRADES.csv",
        help="github-classroom: the assignment's grades download (`gh classroom "
        "assignment-grades`): GitHub's submission times, and each team's members",
    )
    command.add_argument(
        "--accepted",
        type=Path,
        metavar="ACCEPTED.json",
        help="github-classroom: `gh api assignments/ID/accepted_assignments --paginate`: "
        "each repository's students (a team's members)",
    )
    command.add_argument(
        "--times",
        type=Path,
        metavar="FILE",
        help="canvas: submission times, the JSON Canvas's API gives for the assignment's "
        "submissions or a CSV of user_id (or anonymous_id) and submitted_at",
    )
    command.add_argument(
        "--teams",
        nargs="?",
        const="",
        metavar="GROUPS.csv",
        help="canvas: the group set export naming each group's members (Canvas downloads "
        "one member's submission per group); moodle, without a file: the assignment has "
        "team submissions (told without it by the worksheet's Group column or a "
        "'Default group' folder)",
    )
    command.add_argument(
        "--into",
        type=Path,
        default=Path("submissions"),
        help="folder of student folders (default: submissions/)",
    )
    command.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from grader.core.progress import progress
    from grader.course.config import load_config
    from grader.lms.classroom_lists import read_accepted, read_grades
    from grader.lms.groups import read_groups
    from grader.lms.importer import import_archive
    from grader.lms.incoming import ImportOptions
    from grader.lms.roster import read_roster
    from grader.lms.times import read_times

    config = load_config(args.course)
    lms = REGISTRY[args.kind]
    refusal = option_refusal(lms, vars(args))
    if refusal is not None:
        raise UsageError(refusal)
    # Each reader's error is a GraderError: it reaches the user as it is.
    roster = None if args.roster is None else read_roster(args.roster)
    options = ImportOptions(
        source_names=frozenset(spec.source for spec in config.languages.values()),
        roster=roster,
        times=None if args.times is None else read_times(args.times),
        groups=read_groups(Path(args.teams)) if lms.teams == "file" and args.teams else None,
        teams=lms.teams == "flag" and args.teams is not None,
        grades=None if args.grades is None else read_grades(args.grades),
        accepted=None if args.accepted is None else read_accepted(args.accepted),
        late=config.late,
        declared=config.lms.declared,
    )
    if args.into.exists() and not args.into.is_dir():
        raise UsageError(f"{args.into}: is not a folder")
    try:
        with progress(None, "importing", "student") as bar:

            def stored(student_id: str) -> None:
                bar.on(student_id)
                bar.done()

            result = import_archive(args.kind, args.archive, args.into, options, stored)
    except OSError as error:  # ArchiveError, a GraderError, reaches the user as it is
        raise UsageError(str(error)) from None
    _print(result, args)
    return 0


def _print(result: "ImportResult", args: argparse.Namespace) -> None:
    for entry in result.refused:
        print(f"refused: {entry.name}: {entry.reason}")
    for note in result.notes:
        print(f"note: {note}")
    for student in result.kept_newer:
        print(f"kept: {student}: the folder holds a later submission than this archive")
    for student in result.not_in_roster:
        print(f"not in the roster: {student}")
    if result.no_submission:
        print(f"no submission: {', '.join(result.no_submission)}")
    if result.absent:
        print(f"not in this archive (folders kept): {', '.join(result.absent)}")
    if result.no_time and len(result.no_time) == len(result.seen):
        print(f"no submission time for any of the {len(result.seen)} students")
    elif result.no_time:
        print(f"no submission time: {', '.join(result.no_time)}")
    print(
        f"{args.into}: {len(result.added)} added, {len(result.updated)} updated, "
        f"{len(result.unchanged)} unchanged, {len(result.refused)} entries refused"
    )
    if not result.imported:
        # Exit 2 with the reason: "0 added" and status 0 read as a success.
        why = (
            f"all {len(result.refused)} entries were refused (listed above)"
            if result.refused
            else "it holds no file"
        )
        raise UsageError(
            f"{args.archive}: no student imported from this {args.kind} download: {why}"
        )
