"""`grader import canvas|moodle|gradescope ARCHIVE`: an LMS's bulk download turned into
one folder per student (grader/lms/ reads the archive; each folder gets its
submission metadata beside the student's files)."""

import argparse
from pathlib import Path

from grader.errors import UsageError


def add_parser(sub) -> None:
    command = sub.add_parser(
        "import",
        help="turn an LMS's bulk download into one folder per student (canvas, moodle, gradescope)",
    )
    command.add_argument("kind", choices=("canvas", "moodle", "gradescope"))
    command.add_argument("archive", type=Path, metavar="ARCHIVE.zip")
    command.add_argument(
        "--roster",
        type=Path,
        help="the LMS's gradebook CSV (Canvas) or grading worksheet (Moodle: also the "
        "submission times and the teams' members): names, and who is missing",
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
    from grader.config import load_config
    from grader.lms.groups import read_groups
    from grader.lms.importer import import_archive
    from grader.lms.roster import read_roster
    from grader.lms.times import read_times

    config = load_config(args.course)
    if args.times is not None and args.kind != "canvas":
        raise UsageError(f"--times is for Canvas: {args.kind}'s times come with its own files")
    if args.teams is not None and args.kind == "gradescope":
        raise UsageError(
            "--teams is for Canvas and Moodle: Gradescope's metadata names every submitter"
        )
    if args.kind == "canvas" and args.teams == "":
        raise UsageError("--teams needs Canvas's group set export: --teams GROUPS.csv")
    if args.kind == "moodle" and args.teams:
        raise UsageError(
            f"--teams takes no file for Moodle ({args.teams}): its download names the groups "
            "and its grading worksheet (--roster) their members"
        )
    # RosterError, TimesError and GroupsError are GraderErrors: they reach the user as they are.
    roster = None if args.roster is None else read_roster(args.roster)
    times = None if args.times is None else read_times(args.times)
    groups = read_groups(Path(args.teams)) if args.kind == "canvas" and args.teams else None
    names = frozenset(spec.source for spec in config.languages.values())
    if args.into.exists() and not args.into.is_dir():
        raise UsageError(f"{args.into}: is not a folder")
    try:
        result = import_archive(
            args.kind,
            args.archive,
            args.into,
            roster=roster,
            source_names=names,
            times=times,
            teams=args.kind == "moodle" and args.teams is not None,
            groups=groups,
        )
    except OSError as error:  # ArchiveError, a GraderError, reaches the user as it is
        raise UsageError(str(error)) from None
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
    return 0
