"""`grader teams [--roster CSV]`: every team of the last `grade` run, its members and its
submission (grader/intake/teams.py tells them: the LMS import's, else the course's teams file,
else the student alone), what was replaced, and with the LMS's roster (Canvas's
gradebook, Moodle's worksheet) the members it does not know, who would get no score."""

import argparse
from pathlib import Path

from grader.commands.console import warn_unrecorded
from grader.commands.options import add_results_option, graded_results
from grader.course.config import load_config
from grader.intake.teams import Teams, class_teams, teams_file
from grader.lms.roster import Roster, read_roster
from grader.results.last_run import graded_ids
from grader.store import Store


def add_parser(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    command = sub.add_parser(
        "teams", help="every team of the last grade run, its members and its submission"
    )
    command.add_argument(
        "--roster",
        type=Path,
        help="the LMS's gradebook CSV or grading worksheet: name the members it does not know",
    )
    add_results_option(command)
    command.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from tabulate import tabulate  # here: it costs every command 20 ms to import

    path = graded_results(args.results)
    config = load_config(args.course)
    roster = None if args.roster is None else read_roster(args.roster)  # RosterError: one line
    graded = graded_ids(args.results)
    with Store(path) as store:
        rows = [row for row in store.submissions() if graded is None or row.id in graded]
    warn_unrecorded(rows)
    teams = class_teams(rows, config)  # TeamsError: one line naming the bad data
    table = []
    for team in sorted(teams.by_submission.values(), key=lambda t: (t.name, t.submission_id)):
        submission = team.submission_id
        if team.replaced_by:
            submission += f" (replaced by {team.replaced_by})"
        elif team.undecided:
            submission += " (counts for no one: see the note)"
        members = ", ".join(m.shown for m in team.members) or "unknown"
        table.append((team.name, team.source, submission, members))
    print(tabulate(table, headers=("team", "from", "submission", "members")))
    for note in teams.notes:
        print(f"note: {note}")
    if roster is not None:
        _unknown_members(teams, roster, args.roster.name)
    counting = [t for t in teams.by_submission.values() if t.counts]
    students = sum(len(t.members) for t in counting)
    file = teams_file(config)
    print(
        f"\n{len(counting)} teams, {students} students"
        + (f"; teams file {file}" if file is not None else "")
    )
    return 0


def _unknown_members(teams: Teams, roster: Roster, name: str) -> None:
    """Each member of a team that counts whom no roster row keys (grader.course.identity)."""
    from grader.course import identity
    from grader.course.identity import Person

    counting = [t for t in teams.by_submission.values() if t.counts]
    people, owners = [], []
    for team in counting:
        for member in team.members:
            people.append(Person(team.submission_id, member.shown, member.keys))
            owners.append(team)
    rows = [roster.keys(row) for row in roster.rows]
    found = identity.match(rows, [roster.label(row) for row in roster.rows], people)
    for line in found.refused:
        print(f"in {name}: {line}")
    for number, person in enumerate(people):
        if number in found.people:
            continue
        team = owners[number]
        who = person.label
        if team.source != "alone":
            who += f" of {team.name} ({team.submission_id})"
        print(f"not in {name}: {who}: no score reaches them")
