"""What `export canvas|moodle` hands back to the LMS, checked against the LMS's own
import (tests/lms_rules.py restates it from its source): the roster's identity
columns and separator kept, no cell of the LMS's damaged, the maximum respected.
Reports are built directly (no grading); the rosters are written as the LMS writes them."""

import csv
import io

import pytest

from grader.course import identity
from grader.course.late import Lateness
from grader.course.submission_meta import SubmissionMeta, Team, TeamMember
from grader.lms.canvas import export as canvas_export
from grader.lms.export import LmsExportError
from grader.lms.moodle import export as moodle_export
from grader.lms.roster import read_roster
from grader.results.bonus import Award
from tests.helpers import upload_report as report
from tests.lms_archives import canvas_gradebook, moodle_worksheet
from tests.lms_rules import Rejected, canvas_reads, moodle_gradebook_reads, moodle_reads

pytestmark = pytest.mark.fast

COLUMN = "Scramble Squares (88)"


def moodle_member(pid: str) -> TeamMember:
    return TeamMember(pid, keys=((identity.MOODLE_PARTICIPANT, pid),))


def canvas_meta(uid: str, **more) -> SubmissionMeta:
    return SubmissionMeta(
        uid, "canvas", lms_user_id=uid, keys=((identity.CANVAS_USER, uid),), **more
    )


STUDENTS = [
    {"name": "Lovelace, Ada", "last": "Lovelace", "first": "Ada", "id": 1001, "sis": "S1",
     "login": "ada", "integration": "I-1", "section": "Sec, 1", "cells": {COLUMN: ""}},
    {"name": "Hopper, Grace", "last": "Hopper", "first": "Grace", "id": 1002, "sis": "S2",
     "login": "grace", "integration": "I-2", "section": "Sec 1", "cells": {COLUMN: "EX"}},
    {"name": "Turing, Alan", "last": "Turing", "first": "Alan", "id": 1003, "sis": "S3",
     "login": "alan", "integration": "I-3", "section": "Sec 2", "cells": {COLUMN: "1.5"}},
    {"name": "Noether, Emmy", "last": "Noether", "first": "Emmy", "id": 1004, "sis": "S4",
     "login": "emmy", "integration": "I-4", "section": "Sec 2", "cells": {COLUMN: ""}},
]  # fmt: skip


def class_reports(tmp_path):
    return [
        report(tmp_path, "1001", ["AC", "AC"], canvas_meta("1001")),
        report(tmp_path, "1002", ["AC", "WA"], canvas_meta("1002")),
        report(tmp_path, "1003", ["AC", None], canvas_meta("1003")),  # not completely graded
    ]


@pytest.mark.parametrize(
    "layout",
    [
        {},
        {"last_first": True},
        {"integration_id": True},
        {"sis": False},
        {"last_first": True, "integration_id": True, "manual_posting": True},
    ],
    ids=["student", "last-first", "integration-id", "no-sis", "all"],
)
def test_canvas_export_keeps_the_rosters_own_identity_columns(tmp_path, layout):
    """A gradebook exported with LastName, FirstName came back with a Student-less
    header (Canvas: "Invalid header row"); Integration ID was moved after SIS ids."""
    roster = read_roster(
        canvas_gradebook(
            tmp_path / "g.csv", STUDENTS, {COLUMN: "2.00", "Essay (89)": "10"}, **layout
        )
    )
    made = canvas_export.scores(class_reports(tmp_path), {}, roster, assignment="Scramble Squares")
    upload = canvas_reads(made.text)  # Rejected if Canvas would refuse it
    assert upload.student_columns == roster.header[: roster.header.index("Section") + 1]
    assert upload.assignments == [COLUMN] and upload.points == {COLUMN: "2.00"}
    assert {sid: g[COLUMN] for sid, g in upload.grades.items()} == {
        "1001": "2",
        "1002": "EX",  # excused in Canvas: kept, whatever was graded
        "1003": "1.5",  # not completely graded: the roster's own score
        "1004": "",
    }
    width = len(upload.student_columns)
    written = list(csv.reader(io.StringIO(made.text)))
    source = list(csv.reader(io.StringIO((tmp_path / "g.csv").read_text())))
    assert [row[:width] for row in written] == [row[:width] for row in source]


def test_a_semicolon_gradebook_is_read_and_written_back_with_semicolons(tmp_path):
    """Canvas writes `;` where the decimal separator is a comma: the file could not be
    read at all (one column named 'Student;ID;...')."""
    path = canvas_gradebook(
        tmp_path / "g.csv", STUDENTS, {COLUMN: "2,00", "Essay (89)": "10,00"}, delimiter=";"
    )
    roster = read_roster(path)
    assert roster.delimiter == ";" and roster.header[:2] == ["Student", "ID"]
    made = canvas_export.scores(class_reports(tmp_path), {}, roster, assignment="Scramble Squares")
    upload = canvas_reads(made.text)
    assert upload.delimiter == ";" and upload.points == {COLUMN: "2.00"}
    assert upload.grades["1001"][COLUMN] == "2" and upload.grades["1003"][COLUMN] == "1.5"


def test_a_cell_without_a_new_score_is_never_overwritten(tmp_path):
    """Emmy (no submission) and Alan (a case not graded: no settled score) kept an empty cell that
    overwrote a score typed into Canvas; Grace's EX became a score. `missing_as_zero`
    fills only an empty cell."""
    roster = read_roster(canvas_gradebook(tmp_path / "g.csv", STUDENTS, {COLUMN: "2.00"}))
    made = canvas_export.scores(class_reports(tmp_path), {}, roster, missing_as_zero=True)
    grades = {s: g[COLUMN] for s, g in canvas_reads(made.text).grades.items()}
    assert grades == {"1001": "2", "1002": "EX", "1003": "1.5", "1004": "0"}
    assert made.kept == [
        "Hopper, Grace: excused in the LMS (EX): kept, not 1",
        "Turing, Alan: no settled score: 1 case not graded yet (run `grader grade`, or let "
        "the running one finish); the cell keeps '1.5'",
    ]
    assert made.empty == ["Noether, Emmy: no submission"]


def test_a_score_above_points_possible_is_named_and_can_be_scaled(tmp_path):
    roster = read_roster(canvas_gradebook(tmp_path / "g.csv", STUDENTS, {COLUMN: "1.00"}))
    reports = class_reports(tmp_path)
    made = canvas_export.scores(reports, {}, roster)
    assert made.over == ["Lovelace, Ada: 2 > 1"]
    assert any("the grader's maximum is 2, Canvas's Points Possible 1" in n for n in made.notes)
    late = {"1001": Lateness(None, True, 1, 10.0, "1 day late: -10%")}
    scaled = canvas_export.scores(reports, late, roster, scale=True)
    assert scaled.over == []
    assert canvas_reads(scaled.text).grades["1001"][COLUMN] == "0.9"  # 1.8 of 2, out of 1


TWO_TITLES = {"Scramble Squares (101)": "2", "Scramble Squares (102)": "2", "Essay (9)": "10"}


@pytest.mark.parametrize(
    "options, message",
    [
        (
            {"assignment": "Scramble Squares"},
            "--assignment 'Scramble Squares': 2 columns of g.csv have that title (Scramble "
            "Squares (101), Scramble Squares (102)): name one whole, with its id",
        ),
        (
            {"assignment": "Scramble Sqares"},
            "--assignment 'Scramble Sqares': no column of g.csv has that title (its "
            "assignments: Scramble Squares (101), Scramble Squares (102), Essay (9)); "
            "--new-column writes a new one, which Canvas makes a new assignment",
        ),
        (
            {"assignment": "Scramble Squares (102)", "bonus_column": "Speed bonus"},
            "--bonus-column 'Speed bonus': no column of g.csv has that title",
        ),
    ],
)
def test_a_title_two_columns_share_or_none_has_is_refused(tmp_path, options, message):
    """Canvas fills the first column its import finds for a title, and makes a new
    assignment of a title it does not know: neither happens unless asked."""
    roster = read_roster(canvas_gradebook(tmp_path / "g.csv", STUDENTS, TWO_TITLES))
    with pytest.raises(LmsExportError) as refused:
        canvas_export.scores(class_reports(tmp_path), {}, roster, **options)
    assert str(refused.value).startswith(message) and "\n" not in str(refused.value)


def test_a_column_named_whole_or_made_new_when_asked(tmp_path):
    roster = read_roster(canvas_gradebook(tmp_path / "g.csv", STUDENTS, TWO_TITLES))
    reports = class_reports(tmp_path)
    made = canvas_export.scores(reports, {}, roster, assignment="Scramble Squares (102)")
    assert canvas_reads(made.text).grades["1001"] == {"Scramble Squares (102)": "2"}
    made = canvas_export.scores(reports, {}, roster, assignment="Puzzle", new_column=True)
    assert canvas_reads(made.text).grades["1001"] == {"Puzzle": "2"}
    bonus = {"Scramble Squares (88)": "2", "Speed bonus (90)": "15"}
    roster = read_roster(canvas_gradebook(tmp_path / "b.csv", STUDENTS, bonus))
    made = canvas_export.scores(reports, {}, roster, bonus=Award(15.0, None, ("1001",), (), ""),
                         assignment="Scramble Squares", bonus_column="Speed bonus")  # fmt: skip
    assert canvas_reads(made.text).grades["1001"] == {COLUMN: "2", "Speed bonus (90)": "15"}
    empty = read_roster(canvas_gradebook(tmp_path / "e.csv", STUDENTS, {}))
    with pytest.raises(LmsExportError, match="no assignment column: name one with --assign"):
        canvas_export.scores(reports, {}, empty)
    made = canvas_export.scores(reports, {}, empty, new_column=True)
    assert canvas_reads(made.text).assignments == ["Scramble Squares"]


def test_an_anonymous_submission_is_named_as_such(tmp_path):
    meta = SubmissionMeta("anon_Q2q3x", "canvas", anonymous_id="Q2q3x")
    reports = [report(tmp_path, "anon_Q2q3x", ["AC", "AC"], meta)]
    roster = read_roster(canvas_gradebook(tmp_path / "g.csv", STUDENTS, {COLUMN: "2.00"}))
    made = canvas_export.scores(reports, {}, roster)
    assert made.unmatched == ["anon_Q2q3x"] and made.anonymous == ["anon_Q2q3x"]


def test_a_roster_canvas_would_refuse_is_refused_in_one_line(tmp_path):
    path = tmp_path / "g.csv"
    path.write_text("ID,Student,Section,A (1)\n7,Doe,X,\n")
    with pytest.raises(LmsExportError, match="not a Canvas gradebook export") as caught:
        canvas_export.scores([], {}, read_roster(path))
    assert "\n" not in str(caught.value)
    path.write_text("Student,ID,SIS User ID,A (1)\nDoe,7,S7,\n")  # no Section
    with pytest.raises(LmsExportError, match="up to Section"):
        canvas_export.scores([], {}, read_roster(path))


# ------------------------------------------------------------------ Moodle


def moodle_meta(pid: str, **more) -> SubmissionMeta:
    return SubmissionMeta(pid, "moodle", lms_user_id=pid, **more)


def test_moodle_needs_its_own_worksheet(tmp_path):
    with pytest.raises(LmsExportError, match="needs the grading worksheet downloaded from Moodle"):
        moodle_export.scores([], {}, None)
    path = tmp_path / "w.csv"
    path.write_text("Identifier,Full name,Grade,Feedback comments\nParticipant 1,A,,\n")
    with pytest.raises(LmsExportError, match="no 'Last modified \\(grade\\)' column"):
        moodle_export.scores([], {}, read_roster(path))
    # What Moodle itself refuses:
    with pytest.raises(Rejected):
        moodle_reads(path.read_text(), maximum=2)


def test_moodle_worksheet_keeps_its_cells_and_feedback_and_respects_the_maximum(tmp_path):
    sheet = moodle_worksheet(
        tmp_path / "w.csv",
        [
            {"id": 1201, "name": "Ada Lovelace", "feedback": "Well done"},
            {
                "id": 1202,
                "name": "Bo Lee",
                "grade": "1.00",
                "graded": "Monday, 2 March 2026, 9:00 AM",
            },
            {
                "id": 1203,
                "name": "Cy Dee",
                "feedback": "Scramble Squares grader: 0 of 2 cases passed; score 0/2.",
            },
            {"id": 1204, "name": "Di Eve"},
        ],
        maximum="1.00",
        delimiter=";",
    )
    roster = read_roster(sheet)
    reports = [
        report(tmp_path, "1201", ["AC", "AC"], moodle_meta("1201")),
        report(tmp_path, "1203", ["AC", "WA"], moodle_meta("1203")),
        report(tmp_path, "1204", [None, "AC"], moodle_meta("1204")),
    ]
    late = {"1203": Lateness(None, None, 1, 10.0, "1 day late: -10%")}
    # Ada's 2 is above Moodle's maximum 1: Moodle would drop her row without a word
    with pytest.raises(LmsExportError) as refused:
        moodle_export.scores(reports, late, roster)
    assert str(refused.value) == (
        "1 score(s) above Moodle's Maximum grade (Ada Lovelace: 2 > 1): Moodle's upload "
        "would drop those rows without a word; --scale writes every score out of 1 "
        "(nothing written)"
    )
    made = moodle_export.scores(reports, late, roster, scale=True)
    assert made.text.splitlines()[0] == sheet.read_text().splitlines()[0]  # `;`, every column
    upload = moodle_reads(made.text, separator=";", maximum=1.0, current={"1202": 1.0})
    assert upload.applied == {"1201": 1.0, "1203": 0.45}
    assert upload.skipped == {"1202": "not modified", "1204": "no value"}
    assert upload.feedback["1201"] == "Well done"  # the instructor's own
    assert upload.feedback["1203"] == (
        "Scramble Squares grader: 1 of 2 cases passed; raw score 1/2, late penalty -0.1 "
        "(1 day late: -10%), final score 0.9 (written as 0.45)."
    )  # the grader's earlier summary brought up to date
    assert made.kept == ["Bo Lee: no submission; the cell keeps '1.00'"]


@pytest.mark.parametrize("version", ["4.1", "4.4.3", "4.4.12", "4.5.0", "4.5.5"])
def test_scale_reads_the_maximum_as_each_moodle_version_heads_it(tmp_path, version):
    """4.4.12 and 4.5.5 head it "Maximum grade" (before: "Maximum Grade"): a real Moodle
    4.5 stored 1 and 2 out of 100, unscaled, and no warning fired."""
    sheet = moodle_worksheet(
        tmp_path / "w.csv",
        [{"id": 1201, "name": "Ada"}, {"id": 1202, "name": "Bo"}],
        version=version,
    )
    reports = [
        report(tmp_path, "1201", ["AC", "WA"], moodle_meta("1201")),
        report(tmp_path, "1202", ["AC", "AC"], moodle_meta("1202")),
    ]
    made = moodle_export.scores(reports, {}, read_roster(sheet), scale=True)
    assert moodle_reads(made.text, maximum=100.0).applied == {"1201": 50.0, "1202": 100.0}
    assert "scores scaled to Moodle's Maximum grade 100: each is score x 100 / 2" in made.notes


def winners(*sids: str) -> Award:
    return Award(15.0, None, sids, (), "speed bonus +15 to ...")


def test_the_moodle_bonus_goes_to_the_gradebook_never_above_the_maximum(tmp_path):
    """Out of 100, with --scale: the fastest team's 100 + 15 = 115 was above the maximum,
    and Moodle's upload dropped the winners' rows. The worksheet holds the score; the
    bonus goes to a grade item of its own through the gradebook's import."""
    sheet = moodle_worksheet(
        tmp_path / "w.csv",
        [
            {"id": 1201, "name": "Ada Lovelace", "email": "ada@uni.edu", "group": "Rocket"},
            {"id": 1202, "name": "Bo Lee", "email": "Bo@Uni.edu", "group": "Rocket"},
            {"id": 1203, "name": "Cy Other", "email": "cy@uni.edu", "group": "Magma"},
            {"id": 1204, "name": "Di Absent", "email": "di@uni.edu", "group": "Magma"},
        ],
        teams=True,
    )
    rocket = Team("7", "Rocket", members=(moodle_member("1201"), moodle_member("1202")))
    magma = Team("8", "Magma", members=(moodle_member("1203"), moodle_member("1204")))
    reports = [
        report(tmp_path, "group-7", ["AC", "AC"], SubmissionMeta("group-7", "moodle", team=rocket)),
        report(tmp_path, "group-8", ["AC", "AC"], SubmissionMeta("group-8", "moodle", team=magma)),
    ]
    roster = read_roster(sheet)
    made = moodle_export.scores(reports, {}, roster, scale=True, bonus=winners("group-7"))
    upload = moodle_reads(made.text, maximum=100.0)
    assert upload.applied == {"1201": 100.0, "1202": 100.0, "1203": 100.0, "1204": 100.0}
    assert "a grade item of its own in the gradebook" in upload.feedback["1201"]
    assert any("export moodle-gradebook" in note for note in made.notes)

    bonus = moodle_export.bonus_gradebook(reports, roster, winners("group-7"))
    users = {"ada@uni.edu": "u1", "bo@uni.edu": "u2", "cy@uni.edu": "u3", "di@uni.edu": "u4"}
    assert moodle_gradebook_reads(bonus.text, users, maximum=15.0) == {
        "u1": 15.0,
        "u2": 15.0,
        "u3": 0.0,
        "u4": 0.0,
    }
    assert bonus.bonus == [
        "Ada Lovelace: +15 in 'Speed bonus'",
        "Bo Lee: +15 in 'Speed bonus'",
    ]


def test_what_moodle_s_gradebook_import_would_refuse_is_left_out_or_refused(tmp_path):
    """Moodle refuses the whole file for an address two users share or none has: a
    shared address is left out and named; no e-mail column, or no bonus, refused."""
    rows = [
        {"id": 1201, "name": "Ada", "email": "ada@uni.edu"},
        {"id": 1202, "name": "Ada Twin", "email": "ADA@uni.edu"},
        {"id": 1203, "name": "Cy", "email": ""},
        {"id": 1204, "name": "Di", "email": "di@uni.edu"},
    ]
    roster = read_roster(moodle_worksheet(tmp_path / "w.csv", rows))
    reports = [report(tmp_path, "1204", ["AC", "AC"], moodle_meta("1204"))]
    made = moodle_export.bonus_gradebook(reports, roster, winners("1204"))
    assert moodle_gradebook_reads(made.text, {"di@uni.edu": "u4"}, maximum=15.0) == {"u4": 15.0}
    assert made.refused == [
        "Ada: ada@uni.edu is also another participant's address: left out (Moodle's import "
        "refuses a whole file naming an address twice)",
        "Ada Twin: ADA@uni.edu is also another participant's address: left out (Moodle's "
        "import refuses a whole file naming an address twice)",
    ]
    assert made.empty == ["Cy: no e-mail address in the worksheet: left out"]
    with pytest.raises(LmsExportError, match="^no speed bonus to write: nobody won"):
        moodle_export.bonus_gradebook(reports, roster, Award(15.0, None, (), (), "nobody won"))
    blind = read_roster(moodle_worksheet(tmp_path / "b.csv", rows, blind=True))
    with pytest.raises(LmsExportError, match="not a grading worksheet with 'Email address'"):
        moodle_export.bonus_gradebook(reports, blind, winners("1204"))


def test_moodle_reads_a_decimal_comma_as_its_language_says():
    """On an English site Moodle's worksheet upload stores "2,5" as 2 (and its gradebook
    import refuses the file): the export writes points with a decimal point only."""
    sheet = 'Identifier,Grade,Last modified (grade)\nParticipant 1,"2,5",-\n'
    assert moodle_reads(sheet, maximum=10.0).applied == {"1": 2.0}
    assert moodle_reads(sheet, maximum=10.0, decsep=",").applied == {"1": 2.5}
    with pytest.raises(Rejected, match="badgrade"):
        moodle_gradebook_reads('Email address,B\na@x,"2,5"\n', {"a@x": "u"}, 10.0)


def test_moodle_team_grades_reach_every_member(tmp_path):
    sheet = moodle_worksheet(
        tmp_path / "w.csv",
        [
            {"id": 1201, "name": "Ada Lovelace", "group": "Team Rocket"},
            {"id": 1202, "name": "Bo Lee", "group": "Team Rocket"},
            {"id": 1203, "name": "Cy Other", "group": "Team Magma"},
        ],
        teams=True,
        maximum="2.00",
    )
    team = Team("1203", "Team Rocket", members=(moodle_member("1201"), moodle_member("1202")))
    meta = SubmissionMeta("group-1203", "moodle", other_ids=("1201", "1202"), team=team)
    made = moodle_export.scores(
        [report(tmp_path, "group-1203", ["AC", "WA"], meta)], {}, read_roster(sheet)
    )
    assert moodle_reads(made.text, maximum=2.0).applied == {"1201": 1.0, "1202": 1.0}


# ------------------------------------------------------------------ one key per person


def test_a_moodle_id_number_equal_to_another_participant_is_never_them(tmp_path):
    """Bo's "ID number" is 1201, Ada's participant id: matched on any id, Bo's row got
    Ada's grade and feedback. Moodle keys a row by its Identifier alone."""
    sheet = moodle_worksheet(
        tmp_path / "w.csv",
        [
            {"id": 1201, "name": "Ada Lovelace", "idnumber": "S-77"},
            {"id": 1202, "name": "Bo Lee", "idnumber": "1201"},
        ],
        maximum="2.00",
        id_numbers=True,
    )
    reports = [
        report(tmp_path, "1201", ["AC", "AC"], moodle_meta("1201", keys=moodle_keys("1201"))),
        report(tmp_path, "1202", ["AC", "WA"], moodle_meta("1202", keys=moodle_keys("1202"))),
    ]
    made = moodle_export.scores(reports, {}, read_roster(sheet))
    upload = moodle_reads(made.text, maximum=2.0)
    assert upload.applied == {"1201": 2.0, "1202": 1.0}
    assert upload.feedback["1202"].startswith("Scramble Squares grader: 1 of 2 cases passed")
    assert made.refused == [] and made.unmatched == []


def moodle_keys(pid: str) -> tuple:
    return ((identity.MOODLE_PARTICIPANT, pid),)


def gradescope_meta(sid: str, email: str) -> SubmissionMeta:
    keys = ((identity.GRADESCOPE_SID, sid), (identity.GRADESCOPE_EMAIL, email))
    return SubmissionMeta(sid, "gradescope", keys=keys)


def test_a_gradescope_sid_equal_to_a_canvas_user_id_is_never_that_user(tmp_path):
    """Grace's Gradescope sid is 1001, Ada's Canvas user id: Ada's row got Grace's 0 and
    Ada's own 2 was "not in the roster". A sid is the course's SIS User ID ([lms]
    gradescope_sid), compared only with that column."""
    roster = read_roster(canvas_gradebook(tmp_path / "g.csv", STUDENTS, {COLUMN: "2.00"}))
    reports = [
        report(tmp_path, "S1", ["AC", "AC"], gradescope_meta("S1", "ada")),  # Ada: SIS S1
        report(tmp_path, "1001", ["WA", "WA"], gradescope_meta("1001", "grace@x")),
    ]
    made = canvas_export.scores(reports, {}, roster)
    grades = {sid: g[COLUMN] for sid, g in canvas_reads(made.text).grades.items()}
    assert grades["1001"] == "2" and made.unmatched == ["1001"]


def test_a_row_two_submissions_claim_gets_neither_and_is_named(tmp_path):
    roster = read_roster(canvas_gradebook(tmp_path / "g.csv", STUDENTS, {COLUMN: "2.00"}))
    reports = [
        report(tmp_path, "a", ["AC", "AC"], canvas_meta("1001")),
        report(tmp_path, "b", ["WA", "WA"], canvas_meta("1001")),
    ]
    made = canvas_export.scores(reports, {}, roster)
    assert canvas_reads(made.text).grades["1001"][COLUMN] == ""
    assert made.refused == [
        "Lovelace, Ada (Canvas user id 1001): its Canvas user id 1001 is claimed by two "
        "submissions, a and b: no grade written"
    ]
