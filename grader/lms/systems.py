"""Every LMS the grader imports from, one declaration each: the name `grader import`
(and `grader export`) gives it, its name for people, how its download is read, which
of `grader import`'s options it reads, what goes back to it (`Back`: the final scores
in its grade import file, the feedback pages in its bulk upload's zip, the speed bonus)
and what it runs itself (`Runs`: Gradescope's autograder, GitHub Classroom's template).
The commands and the importer know no LMS by name: they read these.
Light on purpose (each reader and writer is imported when it is used): the command
line's parser reads these every time it starts.

A new LMS is a module of grader/lms/ with `read(download, options) -> Parsed`
(grader/lms/incoming.py) and its declaration here (docs/developers/extending.md)."""

import argparse
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from grader.course.late import Lateness
    from grader.course.submission_meta import SubmissionMeta
    from grader.intake.teams import Teams
    from grader.judge.score import SubmissionReport
    from grader.lms.export import Matched
    from grader.lms.feedback import FeedbackFiles
    from grader.lms.incoming import ImportOptions, Parsed
    from grader.lms.roster import Roster
    from grader.results.bonus import Award

Reader = Callable[[Path, "ImportOptions"], "Parsed"]

# The options of `grader import` that some sources read (or need) and others refuse
# (--into: every source).
OPTIONS = ("roster", "grades", "accepted", "times", "teams")


@dataclass(frozen=True)
class Scores:
    """What every grade export is given: the last grade run's, as `grader export` read
    it (the roster: the LMS's own file, as it exported it)."""

    reports: "Sequence[SubmissionReport]"
    lateness: "dict[str, Lateness]"
    roster: "Roster | None"
    teams: "Teams"
    bonus: "Award"
    missing_as_zero: bool
    scale: bool
    declared: Mapping[str, str]


Pages = Mapping[str, str]  # submission id -> its feedback page
# The speed bonus alone: (reports, roster, bonus, teams, declared, column) -> the file.
Gradebook = Callable[
    ["Sequence[SubmissionReport]", "Roster", "Award", "Teams", Mapping[str, str], str], "Matched"
]
Metas = Mapping[str, "SubmissionMeta | None"]  # submission id -> what its import recorded


@dataclass(frozen=True)
class Back:
    """What goes back to an LMS: `grader export NAME` (its grade import file),
    `NAME-feedback` (the pages, in the zip its bulk upload reads) and, where its
    assignment grade cannot exceed the maximum, `NAME-gradebook` (the speed bonus in a
    grade item of its own)."""

    help: str  # of `export NAME`
    roster: str  # --roster's help
    roster_file: str  # --roster's metavar: the file the LMS exports
    roster_required: bool
    maximum: str  # the roster's column holding the LMS's maximum (--scale)
    add_options: Callable[[argparse.ArgumentParser], None]  # its own options
    write: "Callable[[Scores, argparse.Namespace], Matched]"
    over_maximum: str  # what its upload does with a score above its maximum
    upload: str  # where the feedback zip goes, in its own words
    feedback: "Callable[[Pages, Metas, frozenset[str]], FeedbackFiles]"
    refusal: Callable[[argparse.Namespace], str | None] = lambda args: None
    gradebook: Gradebook | None = None
    gradebook_help: str = ""
    gradebook_roster: str = ""  # --roster's help for it
    gradebook_said: str = ""  # how to import it: {out} {filled} {count} {column} {bonus}


@dataclass(frozen=True)
class Runs:
    """What an LMS runs itself on every submission, made by `grader export NAME` (an
    autograder zip, a template repository's workflow)."""

    help: str  # of `export NAME`
    add_options: Callable[[argparse.ArgumentParser], None]  # its arguments and options
    export: Callable[[argparse.Namespace], list[str]]  # makes it; what to tell, line by line


@dataclass(frozen=True)
class Lms:
    name: str  # `grader import NAME`; the `lms` of the .lms.json its import writes
    title: str  # for people
    read: Reader
    takes: frozenset[str]  # of OPTIONS
    needs: Mapping[str, str] = field(default_factory=dict)  # option -> why it is needed
    hints: Mapping[str, str] = field(default_factory=dict)  # option refused -> what instead
    # --teams: a file naming each group's members ("file", said in `teams_said` when
    # missing), or a flag that the assignment has team submissions ("flag", said when
    # given a file); None: refused.
    teams: Literal["file", "flag"] | None = None
    teams_said: str = ""
    back: Back | None = None  # None: nothing goes back by `grader export`
    runs: Runs | None = None  # None: it runs nothing of ours

    def __post_init__(self) -> None:
        if self.back is not None and self.runs is not None:
            raise ValueError(
                f"{self.name}: `export {self.name}` is either way back or what it runs"
            )


def _canvas(download: Path, options: "ImportOptions") -> "Parsed":
    from grader.lms.canvas import read as canvas

    return canvas.read(download, options)


def _moodle(download: Path, options: "ImportOptions") -> "Parsed":
    from grader.lms.moodle import read as moodle

    return moodle.read(download, options)


def _gradescope(download: Path, options: "ImportOptions") -> "Parsed":
    from grader.lms.gradescope import read as gradescope

    return gradescope.read(download, options)


def _github_classroom(download: Path, options: "ImportOptions") -> "Parsed":
    from grader.lms.github_classroom import read as github_classroom

    return github_classroom.read(download, options)


def _canvas_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--assignment",
        help="the column to fill, by its title or whole ('Title (id)'); default: the "
        "roster's one assignment column",
    )
    parser.add_argument(
        "--new-column",
        action="store_true",
        help="a title no column has (--assignment, --bonus-column; without --assignment: "
        "'Scramble Squares') is written as a new column, which Canvas makes a new "
        "assignment; without this, refused",
    )
    parser.add_argument(
        "--bonus-column",
        metavar="NAME",
        help="write the speed bonus in a column of its own (Canvas makes it an assignment, "
        "e.g. 'Speed bonus'), not added to the score",
    )


def _canvas_scores(given: Scores, args: argparse.Namespace) -> "Matched":
    from grader.lms.canvas import export

    assert given.roster is not None, "argparse requires --roster for canvas"
    return export.scores(
        given.reports,
        given.lateness,
        given.roster,
        assignment=args.assignment,
        missing_as_zero=given.missing_as_zero,
        scale=given.scale,
        teams=given.teams,
        bonus=given.bonus,
        bonus_column=args.bonus_column,
        declared=given.declared,
        new_column=args.new_column,
    )


def _canvas_feedback(pages: Pages, metas: Metas, sources: frozenset[str]) -> "FeedbackFiles":
    from grader.lms.canvas import feedback

    return feedback.files(pages, metas, sources)


def _moodle_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--scale-map",
        metavar="ITEM=MIN,...",
        help="an assignment graded on a Moodle scale: each item with the lowest final "
        "score that earns it, in points or as a share ('Not passed=0,Passed=50%%,"
        "Distinction=100%%'); without it, such rows are left out (Moodle drops a number)",
    )
    parser.add_argument(
        "--bonus-column",
        metavar="NAME",
        help="refused: the speed bonus goes to Moodle's gradebook (export moodle-gradebook)",
    )


def _moodle_refusal(args: argparse.Namespace) -> str | None:
    if args.bonus_column is None:
        return None
    return (
        "--bonus-column is for Canvas: Moodle's speed bonus goes to a grade item of its "
        "own (export moodle-gradebook)"
    )


def _moodle_scores(given: Scores, args: argparse.Namespace) -> "Matched":
    from grader.lms.moodle import export
    from grader.lms.scales import parse_scale_map

    return export.scores(
        given.reports,
        given.lateness,
        given.roster,
        missing_as_zero=given.missing_as_zero,
        scale=given.scale,
        teams=given.teams,
        bonus=given.bonus,
        declared=given.declared,
        scale_map=None if args.scale_map is None else parse_scale_map(args.scale_map),
    )


def _moodle_feedback(pages: Pages, metas: Metas, sources: frozenset[str]) -> "FeedbackFiles":
    from grader.lms.moodle import feedback

    return feedback.files(pages, metas)


def _moodle_gradebook(
    reports: "Sequence[SubmissionReport]",
    roster: "Roster",
    bonus: "Award",
    teams: "Teams",
    declared: Mapping[str, str],
    column: str,
) -> "Matched":
    from grader.lms.moodle import export

    return export.bonus_gradebook(
        reports, roster, bonus, column=column, teams=teams, declared=declared
    )


_CANVAS_BACK = Back(
    help="Canvas gradebook import CSV (from the roster exported from Canvas's gradebook)",
    roster="the CSV Canvas's gradebook exports",
    roster_file="GRADEBOOK.csv",
    roster_required=True,
    maximum="Points Possible",
    add_options=_canvas_options,
    write=_canvas_scores,
    over_maximum="Canvas takes them as extra credit",
    upload="Canvas: Assignment > Submissions > Re-Upload Submissions",
    feedback=_canvas_feedback,
)

_MOODLE_BACK = Back(
    help="Moodle grading worksheet CSV (upload it in the assignment: 'Upload grading worksheet')",
    roster="the grading worksheet Moodle exports (needed: Moodle's upload requires its columns)",
    roster_file="WORKSHEET.csv",
    roster_required=False,
    maximum="Maximum grade",
    add_options=_moodle_options,
    write=_moodle_scores,
    over_maximum="Moodle's upload drops such a row without a word",
    upload="Moodle: Assignment > Upload multiple feedback files in a zip",
    feedback=_moodle_feedback,
    refusal=_moodle_refusal,
    gradebook=_moodle_gradebook,
    gradebook_help="the speed bonus for Moodle's gradebook import (Grades > Import > CSV "
    "file), into a grade item of its own",
    gradebook_roster="the assignment's grading worksheet Moodle exports (its Email address column)",
    gradebook_said="{out}: {filled} participants, {count} with the bonus. In Moodle: Grades "
    "> Import > CSV file; map from 'Email address' to 'Email address', and {column!r} to a "
    "grade item whose maximum is at least {bonus:g} (or 'New grade item': maximum 100)",
)


def _gradescope_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("out", type=Path, metavar="OUT.zip")
    parser.add_argument(
        "--require-bubblewrap",
        action="store_true",
        help="grade nothing where Gradescope's container refuses the namespaces bubblewrap "
        "needs (by default: the unisolated fallback there, shut out of the autograder's "
        "files, and every results.json says so)",
    )
    parser.add_argument(
        "--puzzles",
        type=Path,
        metavar="DRAW.json",
        help="puzzles drawn by `testcases draw` for Gradescope's leaderboard, timed "
        "instead of the hidden timed cases (whose inputs a published time could spell "
        "out); without it, results.json has no leaderboard value",
    )


def _gradescope_export(args: argparse.Namespace) -> list[str]:
    from grader.exports.common import zip_path
    from grader.lms.gradescope.autograder import build_autograder

    made = build_autograder(
        zip_path(args.out),
        args.manifest,
        args.course,
        require_bubblewrap=args.require_bubblewrap,
        draw=args.puzzles,
    )
    board = (
        f"its leaderboard times the {made.drawn} puzzles of {args.puzzles}"
        if made.drawn
        else "no leaderboard (export with --puzzles DRAW.json for one)"
    )
    return [
        f"{made.path}: Gradescope autograder with {made.public} public and {made.hidden} "
        f"hidden cases, {board}; upload it as the assignment's autograder (Ubuntu 22.04+ image)"
    ]


def _classroom_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("out", type=Path, metavar="DIR", help="the template repository")


def _classroom_export(args: argparse.Namespace) -> list[str]:
    from grader.lms.github_classroom.template import KIT_FOLDER, WORKFLOW, write_template

    made = write_template(args.out, args.manifest, args.course)
    points = sum(step.points for step in made.steps)
    scale = f" ({made.scale} points per unit of weight)" if made.scale != 1 else ""
    return [f"note: replaced the earlier {name}" for name in made.replaced] + [
        f"{made.folder}: {WORKFLOW} grades every push on {len(made.steps)} public cases, "
        f"{points} points{scale}, with {KIT_FOLDER}/ (the kit its steps run). Commit and "
        "push it to the assignment's template repository, keep the students' source file "
        "at the repository's top, and add no autograding test in GitHub Classroom's "
        "assignment form: tests added there replace this workflow."
    ]


_OWN_TIMES = "{title}'s times come with its own files"

REGISTRY: dict[str, Lms] = {
    lms.name: lms
    for lms in (
        Lms(
            "canvas",
            "Canvas",
            _canvas,
            frozenset({"roster", "times", "teams"}),
            teams="file",
            teams_said="--teams needs Canvas's group set export: --teams GROUPS.csv",
            back=_CANVAS_BACK,
        ),
        Lms(
            "moodle",
            "Moodle",
            _moodle,
            frozenset({"roster", "teams"}),
            hints={"times": _OWN_TIMES.format(title="Moodle")},
            teams="flag",
            teams_said="--teams takes no file for Moodle ({given}): its download names the "
            "groups and its grading worksheet (--roster) their members",
            back=_MOODLE_BACK,
        ),
        Lms(
            "gradescope",
            "Gradescope",
            _gradescope,
            frozenset({"roster"}),
            hints={
                "times": _OWN_TIMES.format(title="Gradescope"),
                "teams": "Gradescope's metadata names every submitter",
            },
            runs=Runs(
                "an autograder zip for Gradescope (the grader and every case, public and hidden)",
                _gradescope_options,
                _gradescope_export,
            ),
        ),
        Lms(
            "github-classroom",
            "GitHub Classroom",
            _github_classroom,
            frozenset({"roster", "grades", "accepted"}),
            needs={
                "roster": "github-classroom needs the classroom's roster: --roster "
                "classroom_roster.csv (the classroom's Students tab, Download): it names "
                "each repository's student"
            },
            hints={
                "times": _OWN_TIMES.format(title="GitHub Classroom"),
                "teams": "for a GitHub Classroom group assignment, --grades or --accepted "
                "name each team's members",
            },
            runs=Runs(
                "a GitHub Classroom template's autograding workflow (a step per public case) "
                "and the kit it runs",
                _classroom_options,
                _classroom_export,
            ),
        ),
    )
}


def option_refusal(lms: Lms, given: Mapping[str, object]) -> str | None:
    """Why `grader import` refuses these options for this LMS (None: it takes them):
    one it cannot do without is missing, one it does not read is given, or --teams is
    not in its form."""
    for option, why in lms.needs.items():
        if given.get(option) is None:
            return why
    for option in OPTIONS:
        if given.get(option) is None or option in lms.takes:
            continue
        takers = [other.title for other in REGISTRY.values() if option in other.takes]
        hint = lms.hints.get(option)
        return f"--{option} is for {' and '.join(takers)}" + (f": {hint}" if hint else "")
    teams = given.get("teams")
    if (lms.teams == "file" and teams == "") or (lms.teams == "flag" and teams):
        return lms.teams_said.format(given=teams)
    return None
