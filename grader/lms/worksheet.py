"""Moodle's grading worksheet: who each row is, their group, when they submitted, and
the columns Moodle needs back.

Moodle writes it (Assignment > "Download grading worksheet", mod/assign/gradingtable.php)
with column names in the language of the one who downloads it; these are the English
ones:
- "Identifier": "Participant <id>", the participant id the download's folders carry;
- "Group": only in an assignment with team submissions, the member's group name, or
  "Default group" for the students in no group;
- "Last modified (submission)": userdate() of the submission time, in the downloading
  user's time zone and `%A, %d %B %Y, %I:%M %p` ("Sunday, 1 March 2026, 11:30 PM");
  "-" without a submission;
- "Status": the items of the row's status joined by " - " ("Submitted for grading -
  Graded - Extension granted until: Thursday, 12 March 2026, 11:59 PM"; 4.5 ends every
  cell with a stray " -  - "); the extension is the student's own due date;
- "Due date": only where the assignment has overrides, each row's own due date (the
  override's); Moodle judges a row on its extension, else this, else the assignment's;
- "Maximum grade" ("Maximum Grade" before 4.4.12 and 4.5.5, whose English strings
  defined it twice and kept the second): the assignment's maximum, as format_float
  writes it.
Its upload (mod/assign/feedback/offline/importgradeslib.php) refuses the whole file
unless it has "Identifier", "Grade" and "Last modified (grade)", reads the id after
"Participant ", and skips, without a word, a grade above the maximum, below zero,
equal to the current one, or older than the grade Moodle holds ("Last modified
(grade)" more than a minute before the grade's own time).
"""

import re
from datetime import datetime

from grader.course import identity
from grader.course.identity import Key
from grader.course.submission_meta import TeamMember
from grader.lms.moodle_names import clean_name
from grader.lms.roster import Roster, number
from grader.lms.scales import scale_items

IDENTIFIER = "Identifier"
FULL_NAME = "Full name"
EMAIL = "Email address"  # get_string("email"): a site identity field, on by default
GROUP = "Group"
GRADE = "Grade"
MAXIMUM = ("Maximum grade", "Maximum Grade")  # 4.4.12+ and 4.5.5+; before
STATUS = "Status"
DUE_DATE = "Due date"  # get_string('duedate', 'assign')
EXTENSION = "Extension granted until: "  # get_string('userextensiondate', 'assign')
SUBMITTED = "Last modified (submission)"
GRADED = "Last modified (grade)"
FEEDBACK = "Feedback comments"
SCALE = (
    "Scale"  # get_string('scale', 'assign'): a scale assignment's items, in place of the maximum
)
CHANGEABLE = "Grade can be changed"  # get_string('gradecanbechanged', 'assign'): Yes or No
REQUIRED = (IDENTIFIER, GRADE, GRADED)
PARTICIPANT = "Participant "  # get_string('hiddenuser', 'assign')

_MONTHS = {
    name: number
    for number, name in enumerate(
        (
            "january february march april may june july august september october november december"
        ).split(),
        start=1,
    )
}
# userdate()'s default format in English; Moodle drops the leading zero of the day and
# (since 3.x) of the hour.
_USERDATE = re.compile(
    r"^(?:[A-Za-z]+,\s*)?(?P<day>\d{1,2})\s+(?P<month>[A-Za-z]+)\s+(?P<year>\d{4}),\s*"
    r"(?P<hour>\d{1,2}):(?P<minute>\d{2})\s*(?P<half>[AaPp][Mm])?$"
)


def missing_columns(roster: Roster) -> list[str]:
    """The columns Moodle's upload needs that the worksheet lacks."""
    return [name for name in REQUIRED if roster.column(name) is None]


def participant_id(roster: Roster, row: list[str]) -> str | None:
    index = roster.column(IDENTIFIER)
    if index is None:
        return None
    value = row[index].strip()
    rest = value[len(PARTICIPANT) :] if value.startswith(PARTICIPANT) else ""
    return rest if rest.isdigit() else None


def is_team_worksheet(roster: Roster) -> bool:
    return roster.column(IDENTIFIER) is not None and roster.column(GROUP) is not None


def members_by_group(roster: Roster) -> tuple[dict[str, list[TeamMember]], set[str]]:
    """({group as the download names it: its members}, names two groups share). The
    worksheet gives group names, the download those names cleaned: two groups whose
    names clean alike cannot be told apart."""
    group, name, email = roster.column(GROUP), roster.column(FULL_NAME), roster.column(EMAIL)
    members: dict[str, list[TeamMember]] = {}
    spellings: dict[str, set[str]] = {}
    if group is None:
        return members, set()
    for row in roster.rows:
        pid = participant_id(roster, row)
        if pid is None:
            continue
        key = clean_name(row[group].strip())
        spellings.setdefault(key, set()).add(row[group].strip())
        # Their e-mail too, where the site shows it: what the course's other files
        # (an extensions file, another system's roster) may name them by.
        address = row[email].strip() if email is not None else ""
        keys: tuple[Key, ...] = ((identity.MOODLE_PARTICIPANT, pid),)
        keys += ((identity.MOODLE_EMAIL, address),) if address else ()
        members.setdefault(key, []).append(
            TeamMember(
                pid,
                row[name].strip() if name is not None else "",
                (address,) if address else (),
                keys,
            )
        )
    return members, {key for key, names in spellings.items() if len(names) > 1}


def submitted_at(roster: Roster, row: list[str]) -> tuple[datetime | None, str]:
    """(the row's submission time, "" or why a time written there cannot be read)."""
    index = roster.column(SUBMITTED)
    if index is None:
        return None, ""
    text = row[index].strip()
    if text in ("", "-"):
        return None, ""
    when = parse_userdate(text)
    if when is None:
        return None, f"{SUBMITTED} {text!r} is not a time Moodle writes in English"
    return when, ""


def due_at(roster: Roster, row: list[str]) -> tuple[datetime | None, str, str]:
    """(the row's own due date, the column that gave it, "" or why a date written there
    cannot be read), as Moodle judges the row (gradingtable.php): its extension, else
    the "Due date" an override gave it; (None, "", "") when it has neither."""
    status = roster.column(STATUS)
    items = row[status].split(" - ") if status is not None else []
    for item in (part.strip() for part in items):
        if item.startswith(EXTENSION.strip()):
            text = item[len(EXTENSION.strip()) :].strip()
            when = parse_userdate(text)
            if when is None:
                return (
                    None,
                    "",
                    f"{EXTENSION.strip()} {text!r} is not a time Moodle writes in English",
                )
            return when, f'"{EXTENSION.strip()[:-1]}" ({STATUS})', ""
    index = roster.column(DUE_DATE)
    text = row[index].strip() if index is not None else ""
    if text in ("", "-"):
        return None, "", ""
    when = parse_userdate(text)
    if when is None:
        return None, "", f"{DUE_DATE} {text!r} is not a time Moodle writes in English"
    return when, f'"{DUE_DATE}"', ""


def parse_userdate(text: str) -> datetime | None:
    """A time as userdate() writes it in English (or in ISO 8601), naive: the
    downloading user's clock."""
    match = _USERDATE.match(text.strip())
    if match is None:
        try:
            return datetime.fromisoformat(text.strip())
        except ValueError:
            return None
    month = _MONTHS.get(match["month"].lower())
    hour = int(match["hour"])
    if match["half"]:
        if not 1 <= hour <= 12:
            return None
        hour = hour % 12 + (12 if match["half"].lower() == "pm" else 0)
    if month is None:
        return None
    try:
        return datetime(int(match["year"]), month, int(match["day"]), hour, int(match["minute"]))
    except ValueError:
        return None


def maximum_column(roster: Roster) -> int | None:
    """The "Maximum grade" column, in either spelling Moodle has used."""
    return next((i for i in map(roster.column, MAXIMUM) if i is not None), None)


def maximum(roster: Roster) -> float | None:
    """The assignment's "Maximum grade" (format_float may write a decimal comma)."""
    index = maximum_column(roster)
    if index is None:
        return None
    for row in roster.rows:
        value = number(row[index])
        if value is not None:
            return value
    return None


def scale(roster: Roster) -> tuple[str, ...] | None:
    """The items of the assignment's scale (its "Scale" column), None when it is graded
    in points."""
    index = roster.column(SCALE)
    if index is None:
        return None
    for row in roster.rows:
        found = scale_items(row[index])
        if found:
            return found
    return ()


def locked(roster: Roster, row: list[str]) -> bool:
    """Moodle will not change the row's grade (grading_disabled: the grade is locked or
    overridden in the gradebook), as its "Grade can be changed" column says."""
    index = roster.column(CHANGEABLE)
    return index is not None and row[index].strip().lower() == "no"
