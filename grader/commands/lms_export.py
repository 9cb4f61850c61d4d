"""`grader export canvas|moodle OUT.csv`: the final scores (late penalties applied) in the
LMS's own grade import format, from the last `grade` run; each LMS's folder writes them
(grader/lms/canvas/export.py, grader/lms/moodle/export.py), and `export gradescope|
github-classroom` makes what that LMS runs itself.

export canvas OUT.csv --roster GRADEBOOK.csv [--assignment NAME] [--scale]
                     [--bonus-column NAME] [--results DIR]
export moodle OUT.csv --roster WORKSHEET.csv [--scale] [--results DIR]
export moodle-gradebook OUT.csv --roster WORKSHEET.csv [--column NAME] [--results DIR]
                                                 the speed bonus, for Moodle's gradebook
                                                 import (Grades > Import > CSV file)
export canvas-feedback OUT.zip [--results DIR]   for Canvas's "Re-Upload Submissions"
export moodle-feedback OUT.zip [--results DIR]   for Moodle's "Upload multiple feedback
                                                 files in a zip"

Every member of a team gets the team's score in their own row; every member of a
team ranked 1 by the last recorded leaderboard session gets the speed bonus
([leaderboard] bonus): in Canvas added to the score (Canvas takes points above the
maximum) or in a column of its own (--bonus-column); in Moodle, whose assignment grade
cannot exceed its maximum, in a grade item of its own (moodle-gradebook).

The feedback zips hold each student's feedback page (as `export html --student`
writes it), named as the LMS's upload finds its submission (each LMS's folder's feedback.py).
"""

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from grader.commands.console import (
    course_lateness,
    settled_status,
    warn,
    warn_unfinished,
    warn_waiting,
)
from grader.commands.options import add_settled_option
from grader.core.errors import UsageError
from grader.lms.systems import REGISTRY, Back

if TYPE_CHECKING:
    from grader.lms.export import Matched


def add_parser(kinds: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    """`export NAME`, `NAME-feedback` and `NAME-gradebook` for every LMS scores go back to,
    and `export NAME` for every LMS that runs something of ours (grader/lms/systems.py),
    beside the other export kinds."""
    for lms in REGISTRY.values():
        if lms.back is not None:
            _add_kinds(kinds, lms.name, lms.back)
        if lms.runs is not None:
            what = kinds.add_parser(lms.name, help=lms.runs.help)
            lms.runs.add_options(what)
            what.set_defaults(func=run_runs, lms=lms.name)


def run_runs(args: argparse.Namespace) -> int:
    """`export NAME` of an LMS that runs something of ours: make it, say what it is."""
    runs = REGISTRY[args.lms].runs
    assert runs is not None, "only an LMS that runs something has this kind"
    for line in runs.export(args):
        print(line)
    return 0


def _add_kinds(
    kinds: "argparse._SubParsersAction[argparse.ArgumentParser]", name: str, back: Back
) -> None:
    scores = kinds.add_parser(name, help=back.help)
    scores.add_argument("out", type=Path, metavar="OUT.csv")
    scores.add_argument(
        "--roster",
        type=Path,
        required=back.roster_required,
        metavar=back.roster_file,
        help=back.roster,
    )
    scores.add_argument("--scale", action="store_true", help=_SCALE.format(back.maximum))
    back.add_options(scores)
    add_settled_option(scores)
    scores.set_defaults(func=run_scores, lms=name)

    if back.gradebook is not None:
        gradebook = kinds.add_parser(f"{name}-gradebook", help=back.gradebook_help)
        gradebook.add_argument("out", type=Path, metavar="OUT.csv")
        gradebook.add_argument(
            "--roster",
            type=Path,
            required=True,
            metavar=back.roster_file,
            help=back.gradebook_roster,
        )
        gradebook.add_argument(
            "--column",
            default="Speed bonus",
            metavar="NAME",
            help="the bonus column's name (default: 'Speed bonus'); map it to the bonus grade item",
        )
        add_settled_option(gradebook)
        gradebook.set_defaults(func=run_gradebook, lms=name)

    pages = kinds.add_parser(
        f"{name}-feedback",
        help=f"each student's feedback page in a zip for the LMS ({back.upload})",
    )
    pages.add_argument("out", type=Path, metavar="OUT.zip")
    add_settled_option(pages)
    pages.set_defaults(func=run_feedback, lms=name)


_SCALE = "write each score out of the LMS's maximum (the roster's {}), not the grader's"


def _back(args: argparse.Namespace) -> Back:
    back = REGISTRY[args.lms].back
    assert back is not None, "only an LMS with a way back has these kinds"
    return back


def run_gradebook(args: argparse.Namespace) -> int:
    from grader.core.atomic import write_file
    from grader.course.config import load_config
    from grader.intake.teams import class_teams
    from grader.lms.roster import read_roster
    from grader.results.bonus import award
    from grader.results.last_run import graded

    back = _back(args)
    assert back.gradebook is not None, "only an LMS with a gradebook export has the kind"
    config = load_config(args.course)
    roster = read_roster(args.roster)
    if args.out.is_dir():
        raise UsageError(f"{args.out}: is a folder; name the CSV file to write")
    with graded(args.results, args.manifest, config.policy_cases) as results:
        teams = class_teams([r.submission for r in results.reports], config)
        bonus = award(results.store, results.reports, teams, results.cases, config)
        warn_waiting(results.reports)
        warn_unfinished(results.unfinished)
        status = settled_status(results.reports, args.settled_only, "left out")
        made = back.gradebook(
            results.reports, roster, bonus, teams, config.lms.declared, args.column
        )
    write_file(args.out, made.text)
    print(f"bonus: {bonus.note}")
    for line in made.bonus:
        print(f"bonus: {line}")
    for line in made.empty:
        print(f"left out: {line}")
    for line in made.refused:
        warn(f"refused: {line}")
    print(
        back.gradebook_said.format(
            out=args.out,
            filled=made.filled,
            count=len(made.bonus),
            column=args.column,
            bonus=config.leaderboard.bonus,
        )
    )
    return status


def run_scores(args: argparse.Namespace) -> int:
    from grader.core.atomic import write_file
    from grader.course.config import load_config
    from grader.intake.teams import class_teams
    from grader.lms.roster import read_roster
    from grader.lms.systems import Scores
    from grader.results.bonus import award
    from grader.results.last_run import graded

    back = _back(args)
    refusal = back.refusal(args)
    if refusal is not None:
        raise UsageError(refusal)
    config = load_config(args.course)
    roster = None if args.roster is None else read_roster(args.roster)  # RosterError: a GraderError
    if args.out.is_dir():
        raise UsageError(f"{args.out}: is a folder; name the CSV file to write")
    with graded(args.results, args.manifest, config.policy_cases) as results:
        teams = class_teams([r.submission for r in results.reports], config)
        lateness = course_lateness(results.reports, config, teams)
        bonus = award(results.store, results.reports, teams, results.cases, config)
        warn_waiting(results.reports)
        warn_unfinished(results.unfinished)
        status = settled_status(
            results.reports, args.settled_only, "its cell keeps what the roster had"
        )
        given = Scores(
            results.reports,
            lateness,
            roster,
            teams,
            bonus,
            config.lms.missing_as_zero,
            args.scale,
            config.lms.declared,
        )
        made = back.write(given, args)
    write_file(args.out, made.text)
    _say_written(made, teams.notes, bonus.note, back, args)
    if made.left_out:
        warn(
            f"{len(made.left_out)} row(s) left out of {args.out} (listed above): the LMS "
            "would skip their grade without a word; set them there by hand"
        )
        return status or EXIT_LEFT_OUT
    return status


def _say_written(
    made: "Matched", notes: "Sequence[str]", bonus: str, back: Back, args: argparse.Namespace
) -> None:
    """What the export wrote, decided and left out, in the terminal: a line per kind."""
    for note in notes:
        print(f"note: {note}")
    for line in made.teams:
        print(f"team: {line}")
    for line in made.late:
        print(f"late: {line}")
    for line in made.empty:
        print(f"empty: {line}")
    for line in made.kept:
        print(f"kept: {line}")
    for line in made.notes:
        print(f"note: {line}")
    for line in made.decided:
        print(f"decided: {line}")
    print(f"bonus: {bonus}")
    for line in made.bonus:
        print(f"bonus: {line}")
    if made.over:
        warn(
            f"{len(made.over)} score(s) above the LMS's maximum ({'; '.join(made.over)}): "
            + back.over_maximum
            + (
                "; the bonus is added after scaling: --bonus-column writes it in a column "
                "of its own"
                if args.scale
                else "; --scale writes every score out of the LMS's maximum"
            )
        )
    for line in made.refused:
        warn(f"refused: {line}")
    if made.unmatched:
        print(f"not in the roster (not exported): {', '.join(made.unmatched)}")
    if made.unknown_members:
        warn(
            f"{len(made.unknown_members)} team member(s) not in {args.roster.name}, so given "
            f"no score: {'; '.join(made.unknown_members)} (check the team's members: the "
            "LMS's import, or the teams file)"
        )
    if made.anonymous:
        warn(
            f"{len(made.anonymous)} submission(s) came from an anonymous Canvas download "
            f"({', '.join(made.anonymous)}): no gradebook row can name them; their grades "
            "can be uploaded only after Canvas reveals the names (download and import again)"
        )
    for line in made.left_out:
        warn(f"left out: {line}")
    print(
        f"{args.out}: column {made.column!r}: {made.filled} scores, "
        f"{len(made.empty)} empty, {len(made.kept)} kept as the roster had them"
        + (f", {len(made.left_out)} rows left out" if made.left_out else "")
    )


EXIT_LEFT_OUT = 1  # written, but rows the LMS would skip were left out of it


def run_feedback(args: argparse.Namespace) -> int:
    from datetime import datetime, timezone

    from grader.core.progress import progress
    from grader.course.config import load_config
    from grader.course.submission_meta import read_meta
    from grader.exports.common import Entry, write_zip
    from grader.exports.feedback_html import render_page
    from grader.intake.teams import class_teams
    from grader.lms.export import LmsExportError
    from grader.results.last_run import graded

    config = load_config(args.course)
    if args.out.is_dir():
        raise UsageError(f"{args.out}: is a folder; name the zip file to write")
    generated = datetime.now(timezone.utc).isoformat(timespec="seconds")
    with graded(args.results, args.manifest, config.policy_cases) as results:
        teams = class_teams([r.submission for r in results.reports], config)
        lateness = course_lateness(results.reports, config, teams)
        warn_unfinished(results.unfinished)
        status = settled_status(results.reports, args.settled_only, "its page shows no score")
        theirs = [r for r in results.reports if teams.of(r.submission.id).counts]
        pages = {}  # a replaced submission's page is not theirs: none
        with progress(len(theirs), "writing pages", "page") as bar:
            for r in theirs:
                bar.on(r.submission.id)
                pages[r.submission.id] = render_page(
                    r,
                    results.store,
                    student=True,
                    generated=generated,
                    cpu_limit=config.limits.cpu_seconds,
                    late=lateness.get(r.submission.id),
                    team=teams.of(r.submission.id),
                )
                bar.done()
        metas = {r.submission.id: read_meta(r.submission.folder) for r in results.reports}
    sources = frozenset(spec.source for spec in config.languages.values())
    made = _back(args).feedback(pages, metas, sources)
    for line in made.skipped:
        print(f"skipped: {line}")
    if not made.files:
        raise LmsExportError(
            f"{args.out}: no feedback page to upload: no graded submission was imported "
            f"from {REGISTRY[args.lms].title} with what its upload needs (listed above)"
        )
    write_zip(args.out, [Entry(name, page) for name, page in made.files.items()])
    print(f"{args.out}: {len(made.files)} feedback pages, {len(made.skipped)} skipped")
    return status
