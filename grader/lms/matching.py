"""Who each roster row is: the one rule the import (who is in the roster, who handed
in) and the export (whose grade goes in which row) both apply, so that they never say
two things of one person. Each row is matched by its LMS's own keys in its order,
each person by theirs (grader.course.identity), other systems' ids as the roster's kinds
the course declares them to be (course.toml [lms])."""

from collections.abc import Mapping, Sequence
from types import MappingProxyType

from grader.course import identity
from grader.course.identity import Matching, Person
from grader.lms.roster import CANVAS_KEYS, MOODLE_KEYS, Roster

EMAIL = "Email address"  # Moodle's worksheet column (grader.lms.worksheet.EMAIL)

# Each other system's kind of id, and the roster column the course declares it to be
# (course.toml [lms]: gradescope_sid, gradescope_email, github_identifier).
DECLARED: Mapping[str, str] = MappingProxyType(
    {
        identity.GRADESCOPE_SID: "SIS User ID",
        identity.GRADESCOPE_EMAIL: "SIS Login ID",
        identity.CLASSROOM_IDENTIFIER: "SIS User ID",
    }
)


def aliases_for(roster: Roster, declared: Mapping[str, str]) -> dict[str, str]:
    """Other systems' ids (Gradescope's sid and e-mail, GitHub Classroom's roster
    identifier) as the roster's kinds the course declares them to be, where the
    roster has those columns. In Moodle's worksheet an e-mail or an identifier can
    only be its "Email address": a course sets its classroom identifiers to e-mails."""
    kinds = dict((*CANVAS_KEYS, *MOODLE_KEYS))
    found = {}
    for kind, column in declared.items():
        if column and roster.column(column) is not None and column in kinds:
            found[kind] = kinds[column]
    if roster.column(EMAIL) is not None:
        for kind in (identity.GRADESCOPE_EMAIL, identity.CLASSROOM_IDENTIFIER):
            found.setdefault(kind, identity.MOODLE_EMAIL)
    return found


def match_roster(
    roster: Roster, people: Sequence[Person], declared: Mapping[str, str] = DECLARED
) -> Matching:
    """Row index -> the submission of the person it keys (grader.course.identity.match)."""
    rows = [roster.keys(row) for row in roster.rows]
    labels = [roster.label(row) for row in roster.rows]
    return identity.match(rows, labels, people, aliases_for(roster, declared))
