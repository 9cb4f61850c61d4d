"""Who a person is, as each system keys them, and which roster row is whose.

A person is one key of the system that owns them: Canvas's user id (then its SIS user
id, then its SIS login id, each compared only with an id of the same kind, as Canvas's
own gradebook import does: lib/gradebook_importer.rb), Moodle's participant id (the
"Participant N" of the worksheet, nothing else), Gradescope's sid and e-mail, GitHub's
user id and username (a GitHub Classroom roster: its identifier is the course's). A key is
(kind, value); an id of one kind is never compared with an id of another, except
through a declared alias (Gradescope's sid is the course's SIS user id, say: course.toml
[lms] gradescope_sid). A folder made by hand, or a teams file's member, is known by an
id of no declared kind (ANY): it may stand for any of the roster's kinds, and every
ambiguity that opens is refused.

`match` gives each roster row the submission of the person it keys, trying the row's
kinds in its system's order, and refuses (naming both) a row two submissions claim and
a person two rows claim: such a row gets no grade rather than a stranger's.
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

Key = tuple[str, str]  # (kind, value)

CANVAS_USER = "Canvas user id"
CANVAS_SIS = "Canvas SIS user id"
CANVAS_LOGIN = "Canvas SIS login id"
MOODLE_PARTICIPANT = "Moodle participant id"
MOODLE_EMAIL = "Moodle e-mail address"
GRADESCOPE_SID = "Gradescope sid"
GRADESCOPE_EMAIL = "Gradescope e-mail"
GITHUB_ID = "GitHub user id"
GITHUB_LOGIN = "GitHub username"  # compared as GitHub does, case aside: github_login()
CLASSROOM_IDENTIFIER = "GitHub Classroom roster identifier"
ANY = "an id of any kind"  # a hand-made class: a folder's name, a teams file's member

CANVAS_ROW_KINDS = (CANVAS_USER, CANVAS_SIS, CANVAS_LOGIN)  # gradebook_importer's order
MOODLE_ROW_KINDS = (MOODLE_PARTICIPANT, MOODLE_EMAIL)


def github_login(login: str) -> Key:
    """A GitHub username as a key: GitHub treats `Ada` and `ada` as one account."""
    return (GITHUB_LOGIN, login.strip().lower())


@dataclass(frozen=True)
class Person:
    """Someone a submission's result is for: a student alone, or a team's member."""

    submission: str  # the submission they get the result of
    label: str  # for messages: "Ada (S100)"
    keys: tuple[Key, ...]


@dataclass
class Matching:
    rows: dict[int, str] = field(default_factory=dict)  # row index -> submission id
    refused: list[str] = field(default_factory=list)  # one line each: the row and why
    people: set[int] = field(default_factory=set)  # the people some row matched

    def unmatched(self, people: Sequence[Person]) -> list[Person]:
        return [p for i, p in enumerate(people) if i not in self.people]


def match(
    rows: Sequence[Sequence[Key]],
    row_names: Sequence[str],
    people: Sequence[Person],
    aliases: Mapping[str, str] = {},
) -> Matching:
    """Each row (its keys in its system's order) -> the submission of the person it
    keys. `aliases`: a person's kind -> the row kind it is declared to be."""
    row_kinds = list(dict.fromkeys(kind for keys in rows for kind, _ in keys))
    index: dict[Key, set[int]] = {}
    for number, person in enumerate(people):
        for kind, value in person.keys:
            for target in _as_row_kinds(kind, aliases, row_kinds):
                index.setdefault((target, value), set()).add(number)
    found = Matching()
    claimed: dict[int, list[int]] = {}  # person -> the rows that matched them
    for row, keys in enumerate(rows):
        for key in keys:
            holders = index.get(key)
            if not holders:
                continue
            submissions = sorted({people[p].submission for p in holders})
            if len(submissions) > 1:
                found.refused.append(
                    f"{row_names[row]}: its {key[0]} {key[1]} is claimed by two "
                    f"submissions, {submissions[0]} and {submissions[1]}: no grade written"
                )
            else:
                found.rows[row] = submissions[0]
                for holder in holders:
                    claimed.setdefault(holder, []).append(row)
            break
    for holder, their_rows in claimed.items():
        found.people.add(holder)
        if len(their_rows) > 1:
            person = people[holder]
            names = " and ".join(row_names[r] for r in their_rows[:2])
            found.refused.append(
                f"{person.label} of {person.submission} is in two rows, {names}: no grade "
                "written to either"
            )
            for row in their_rows:
                found.rows.pop(row, None)
    return found


def _as_row_kinds(kind: str, aliases: Mapping[str, str], row_kinds: Sequence[str]) -> list[str]:
    if kind == ANY:
        return list(row_kinds)
    return [kind, aliases[kind]] if kind in aliases else [kind]
