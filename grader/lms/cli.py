"""`grader import KIND ARCHIVE` and `grader export canvas|moodle OUT.csv`.

import canvas|moodle|gradescope ARCHIVE [--roster CSV] [--into DIR]
export canvas OUT.csv --roster GRADEBOOK.csv [--assignment NAME] [--results DIR]
export moodle OUT.csv [--roster WORKSHEET.csv] [--results DIR]
"""

from pathlib import Path

from grader.errors import GraderError


class LmsError(GraderError):
    """An import or LMS export cannot be done; str() is the one-line reason."""


def add_import_command(sub) -> None:
    command = sub.add_parser(
        "import",
        help="turn an LMS's bulk download into one folder per student (canvas, moodle, gradescope)",
    )
    command.add_argument("kind", choices=("canvas", "moodle", "gradescope"))
    command.add_argument("archive", type=Path, metavar="ARCHIVE.zip")
    command.add_argument(
        "--roster", type=Path, help="the LMS's gradebook CSV: names, and who is missing"
    )
    command.add_argument(
        "--into",
        type=Path,
        default=Path("submissions"),
        help="folder of student folders (default: submissions/)",
    )
    command.set_defaults(func=cmd_import)


def add_lms_exports(kinds) -> None:
    """`export canvas` and `export moodle`, beside the other export kinds."""
    canvas = kinds.add_parser(
        "canvas",
        help="Canvas gradebook import CSV (from the roster exported from Canvas's gradebook)",
    )
    canvas.add_argument("out", type=Path, metavar="OUT.csv")
    canvas.add_argument(
        "--roster",
        type=Path,
        required=True,
        metavar="GRADEBOOK.csv",
        help="the CSV Canvas's gradebook exports",
    )
    canvas.add_argument(
        "--assignment",
        help="the column to fill (default: the roster's one "
        "assignment column, else a new 'Scramble Squares' column)",
    )
    canvas.add_argument("--results", type=Path, default=Path("results"))
    canvas.set_defaults(func=cmd_export_canvas)

    moodle = kinds.add_parser(
        "moodle",
        help="Moodle grading worksheet CSV (upload it in the "
        "assignment: 'Upload grading worksheet')",
    )
    moodle.add_argument("out", type=Path, metavar="OUT.csv")
    moodle.add_argument(
        "--roster",
        type=Path,
        metavar="WORKSHEET.csv",
        help="the grading worksheet Moodle exports (default: built from the imported folders)",
    )
    moodle.add_argument("--results", type=Path, default=Path("results"))
    moodle.set_defaults(func=cmd_export_moodle)


def _roster(path):
    from grader.lms.roster import read_roster

    return None if path is None else read_roster(path)  # RosterError is a GraderError


def cmd_import(args) -> int:
    from grader.config import load_config
    from grader.lms.importer import import_archive

    config = load_config(args.course)
    roster = _roster(args.roster)
    names = frozenset(spec.source for spec in config.languages.values())
    if args.into.exists() and not args.into.is_dir():
        raise LmsError(f"{args.into}: is not a folder")
    try:
        result = import_archive(
            args.kind, args.archive, args.into, roster=roster, source_names=names
        )
    except OSError as error:  # ArchiveError, a GraderError, reaches the user as it is
        raise LmsError(str(error)) from None
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
    print(
        f"{args.into}: {len(result.added)} added, {len(result.updated)} updated, "
        f"{len(result.unchanged)} unchanged, {len(result.refused)} entries refused"
    )
    return 0


def _export(args, kind) -> int:
    from grader.atomic import write_file
    from grader.config import load_config
    from grader.last_run import graded
    from grader.late import lateness_of
    from grader.lms import export

    config = load_config(args.course)
    roster = _roster(args.roster)
    if args.out.is_dir():
        raise LmsError(f"{args.out}: is a folder; name the CSV file to write")
    with graded(args.results, args.manifest, config.policy_cases) as results:
        lateness = lateness_of(results.reports, config.late)
        if kind == "canvas":
            made = export.canvas(
                results.reports,
                lateness,
                roster,
                assignment=args.assignment,
                missing_as_zero=config.lms.missing_as_zero,
            )
        else:
            made = export.moodle(
                results.reports, lateness, roster, missing_as_zero=config.lms.missing_as_zero
            )
    write_file(args.out, made.text)
    for line in made.late:
        print(f"late: {line}")
    for line in made.empty:
        print(f"empty: {line}")
    if made.unmatched:
        print(f"not in the roster (not exported): {', '.join(made.unmatched)}")
    print(f"{args.out}: column {made.column!r}: {made.filled} scores, {len(made.empty)} empty")
    return 0


def cmd_export_canvas(args) -> int:
    return _export(args, "canvas")


def cmd_export_moodle(args) -> int:
    return _export(args, "moodle")
