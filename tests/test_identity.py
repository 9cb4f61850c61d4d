"""grader.course.identity: a person is one key of the system that owns them; a roster row is
matched by its system's kinds in order, never one kind of id against another, and every
ambiguity is refused, naming both sides."""

import pytest

from grader.course import identity
from grader.course.identity import ANY, CANVAS_LOGIN, CANVAS_SIS, CANVAS_USER, Person, match

pytestmark = pytest.mark.fast

ROWS = [
    [(CANVAS_USER, "101"), (CANVAS_SIS, "S1"), (CANVAS_LOGIN, "ada@uni")],
    [(CANVAS_USER, "102"), (CANVAS_SIS, "101"), (CANVAS_LOGIN, "bo@uni")],
    [(CANVAS_USER, "103"), (CANVAS_SIS, "S3")],
]
NAMES = ["Ada", "Bo", "Cy"]


def test_an_id_is_compared_only_with_an_id_of_its_kind():
    """Bo's SIS id is "101", Ada's Canvas user id: a person keyed by Canvas user id 101
    is Ada's row alone, never Bo's."""
    found = match(ROWS, NAMES, [Person("ada-sub", "Ada", ((CANVAS_USER, "101"),))])
    assert found.rows == {0: "ada-sub"} and found.refused == []


def test_a_row_is_matched_by_its_kinds_in_its_systems_order():
    people = [
        Person("cy-sub", "Cy", ((CANVAS_SIS, "S3"),)),
        Person("x", "X", ((CANVAS_LOGIN, "bo@uni"),)),
    ]
    found = match(ROWS, NAMES, people)
    assert found.rows == {1: "x", 2: "cy-sub"}


def test_a_row_two_submissions_claim_is_refused_naming_both():
    people = [
        Person("a", "A", ((CANVAS_USER, "103"),)),
        Person("b", "B", ((CANVAS_USER, "103"),)),
    ]
    found = match(ROWS, NAMES, people)
    assert found.rows == {}
    assert found.refused == [
        f"Cy: its {CANVAS_USER} 103 is claimed by two submissions, a and b: no grade written"
    ]


def test_a_person_two_rows_claim_gets_neither():
    """An id of no declared kind (a hand-made folder "101") keys Ada's row by her user id
    and Bo's by his SIS id: ambiguous, so neither gets a grade."""
    found = match(ROWS, NAMES, [Person("101", "101", ((ANY, "101"),))])
    assert found.rows == {}
    assert found.refused == ["101 of 101 is in two rows, Ada and Bo: no grade written to either"]


def test_a_declared_alias_maps_a_kind_to_the_rows():
    people = [Person("gs", "G", ((identity.GRADESCOPE_SID, "S1"),))]
    assert match(ROWS, NAMES, people).rows == {}
    aliased = match(ROWS, NAMES, people, {identity.GRADESCOPE_SID: CANVAS_SIS})
    assert aliased.rows == {0: "gs"} and aliased.people == {0}
    assert aliased.unmatched(people) == []


def test_members_of_one_team_each_get_their_row():
    team = [
        Person("t1", "Ada", ((CANVAS_USER, "101"),)),
        Person("t1", "Cy", ((CANVAS_USER, "103"),)),
        Person("t1", "Dee", ((CANVAS_USER, "999"),)),
    ]
    found = match(ROWS, NAMES, team)
    assert found.rows == {0: "t1", 2: "t1"}
    assert [p.label for p in found.unmatched(team)] == ["Dee"]
