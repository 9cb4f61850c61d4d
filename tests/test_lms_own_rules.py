"""The LMS's own statuses and rules decide, each case built as the LMS's source writes
it and judged as its code applies it:

- Canvas: a status set in the gradebook (late_policy_status, seconds_late_override,
  excused) decides lateness as Submission::Tardiness does; a group graded
  individually downloads every member's own copy (ContentZipper via
  Assignment#representatives), each graded for its member, the group kept for the
  bonus; the Test Student (Course#student_view_student, listed last by
  GradebookExporter) is graded, never ranked nor given the bonus.
- Moodle: process_import_grades skips a row whose grading is disabled and, on a
  scale, a cell that is no item: such rows are named and left out (or mapped).
"""

import csv
import io
import json
import math
from datetime import datetime, timezone
from pathlib import Path

import pytest

from grader.course import identity
from grader.course.config import CourseConfig
from grader.course.late import LatePolicy, lateness_of
from grader.course.submission_meta import SubmissionMeta, read_meta
from grader.intake.teams import resolve
from grader.judge.score import report as store_report
from grader.lms import export
from grader.lms.export import people_of
from grader.lms.importer import import_archive
from grader.lms.moodle import export as moodle_export
from grader.lms.roster import read_roster
from grader.lms.scales import ScaleMapError, parse_scale_map
from grader.lms.times import read_times
from grader.results.bonus import award
from grader.store import LeaderboardSession, SessionProgram, Store
from tests.helpers import BONUS_CASES, hand_in, reports_of
from tests.helpers import grader_cli as cli
from tests.helpers import upload_report as report
from tests.lms_archives import (
    SOURCES,
    canvas_entry,
    canvas_gradebook,
    canvas_group_set,
    download,
    moodle_worksheet,
)
from tests.lms_rules import moodle_reads

pytestmark = pytest.mark.fast

UTC = timezone.utc
DEADLINE = datetime(2026, 3, 1, 23, 59)
POLICY = LatePolicy(DEADLINE, 0, 10, 100, timezone="UTC")
DUE = "2026-03-01T23:59:00Z"


# ------------------------------------------------------------------ Canvas's Tardiness


def canvas_tardiness(record: dict) -> tuple[bool, int]:
    """(late?, seconds_late) as app/models/submission.rb's Tardiness computes them."""
    if record.get("excused"):
        return False, 0
    status = record.get("late_policy_status")
    submitted = datetime.fromisoformat(record["submitted_at"].replace("Z", "+00:00"))
    due = datetime.fromisoformat(record["cached_due_date"].replace("Z", "+00:00"))
    if status == "late":
        seconds = record.get("seconds_late_override") or 0
    else:
        seconds = max(0, int((submitted - due).total_seconds()))
    late = status == "late" if status else seconds > 0
    return late, seconds


STATUS_CASES = {
    # a set status wins over the times: 2 days after the due date, "None": not late
    "none": {"submitted_at": "2026-03-03T20:00:00Z", "late_policy_status": "none"},
    "extended": {"submitted_at": "2026-03-04T20:00:00Z", "late_policy_status": "extended"},
    # one hour late, but the teacher typed in 3 days: 3 days
    "late, 3 days typed": {
        "submitted_at": "2026-03-02T00:59:00Z",
        "late_policy_status": "late",
        "seconds_late_override": 259200,
    },
    # "Late" with nothing typed: Canvas counts 0 seconds late
    "late, nothing typed": {"submitted_at": "2026-03-05T00:00:00Z", "late_policy_status": "late"},
    "excused": {"submitted_at": "2026-03-05T00:00:00Z", "excused": True},
    "missing": {"submitted_at": "2026-03-03T00:00:00Z", "late_policy_status": "missing"},
    # no status: the times decide, as the LATE_ marker does
    "no status, 2 days late": {"submitted_at": "2026-03-03T20:00:00Z"},
    "no status, on time": {"submitted_at": "2026-03-01T20:00:00Z"},
}


@pytest.mark.parametrize("case", list(STATUS_CASES))
def test_a_canvas_status_decides_as_canvas_tardiness_does(tmp_path, case):
    record = {"user_id": 1001, "cached_due_date": DUE, "late_policy_status": None,
              **STATUS_CASES[case]}  # fmt: skip
    late, seconds = canvas_tardiness(record)
    record["late"], record["seconds_late"] = late, seconds  # what the API adds
    # ContentZipper marks LATE_ by Submission#late?, the status included.
    archive = download(
        tmp_path / "submissions.zip",
        [(canvas_entry("Lovelace, Ada", 1001, 5001, "puzzlesolver.py", late=late), "a\n")],
    )
    (tmp_path / "submissions.json").write_text(json.dumps([record]))
    into = tmp_path / "class"
    times = read_times(tmp_path / "submissions.json")
    import_archive("canvas", archive, into, source_names=SOURCES, times=times)
    assessed = lateness_of(reports_of(into), POLICY)["1001"]
    days = math.ceil(seconds / 86400) if late else 0
    assert assessed.days_late == days, assessed.note
    assert assessed.final(2.0) == pytest.approx(2.0 * (1 - min(1, days * 0.1)))
    if record.get("late_policy_status") or record.get("excused"):
        assert "Canvas's status" in assessed.note  # the note names what decided


def test_an_unknown_status_is_named_and_the_times_decide(tmp_path):
    path = tmp_path / "t.json"
    path.write_text(json.dumps([{"user_id": 7, "submitted_at": DUE,
                                 "late_policy_status": "tardy"}]))  # fmt: skip
    times = read_times(path)
    assert times.status_by_id == {}
    assert times.unreadable == ("7: late_policy_status 'tardy' is not one Canvas has",)


# ------------------------------------------------------------------ Canvas groups


def group_class(tmp_path: Path, individually: bool):
    """Rocket (Ada, Grace, Alan) handed in one program; Canvas's download holds each
    member's own copy (the same attachment) when it grades them individually, else
    Ada's alone. Bo is in no group."""
    members = [("Lovelace, Ada", 1001), ("Hopper, Grace", 1002), ("Turing, Alan", 1003)]
    copies = members if individually else members[:1]
    entries = [(canvas_entry(name, uid, 5001, "puzzlesolver.py"), "a\n") for name, uid in copies]
    entries.append((canvas_entry("Lee, Bo", 1004, 5002, "puzzlesolver.py"), "b\n"))
    archive = download(tmp_path / "submissions.zip", entries)
    groups = canvas_group_set(tmp_path / "groups.csv", [
        {"name": "Ada Lovelace", "id": 1001, "sis": "S1", "group": "Rocket", "group_id": 77},
        {"name": "Grace Hopper", "id": 1002, "sis": "S2", "group": "Rocket", "group_id": 77},
        {"name": "Alan Turing", "id": 1003, "sis": "S3", "group": "Rocket", "group_id": 77},
        {"name": "Bo Lee", "id": 1004, "sis": "S4"},
    ])  # fmt: skip
    gradebook = canvas_gradebook(tmp_path / "gradebook.csv", [
        {"name": "Hopper, Grace", "id": 1002, "sis": "S2", "login": "grace"},
        {"name": "Lee, Bo", "id": 1004, "sis": "S4", "login": "bo"},
        {"name": "Lovelace, Ada", "id": 1001, "sis": "S1", "login": "ada"},
        {"name": "Turing, Alan", "id": 1003, "sis": "S3", "login": "alan"},
    ], {"Scramble Squares (88)": "2"})  # fmt: skip
    return archive, groups, gradebook


def import_canvas(tmp_path: Path, archive: Path, *options) -> tuple[Path, str]:
    into = tmp_path / "class"
    done = cli("import", "canvas", archive, *options, "--into", into)
    assert done.code == 0, done.err
    return into, done.out


def test_a_group_graded_individually_grades_each_member_on_their_own_copy(tmp_path):
    archive, groups, gradebook = group_class(tmp_path, individually=True)
    into, out = import_canvas(tmp_path, archive, "--teams", groups, "--roster", gradebook)
    assert "the download holds each member's own copy" in out
    lines = out.splitlines()
    assert "claimed by two" not in out, out
    assert not [line for line in lines if line.startswith(("no submission:", "not in the roster"))]
    assert sorted(p.name for p in into.iterdir() if p.is_dir()) == ["1001", "1002", "1003", "1004"]
    grace = read_meta(into / "1002")
    assert grace.team.graded_alone and grace.team.group_name == "Rocket"
    assert grace.other_ids == ()  # her own ids: no other member's
    teams = resolve([(p.name, p) for p in sorted(into.iterdir()) if p.is_dir()])
    assert [m.id for m in teams.of("1002").members] == ["1002"]  # her grade is hers
    # one program of the group on the leaderboard, its bonus to every member
    assert teams.unranked == {
        "1002": "a copy of group 'Rocket''s submission, ranked as 1001",
        "1003": "a copy of group 'Rocket''s submission, ranked as 1001",
    }
    assert [m.id for m in teams.bonus_members("1001")] == ["1001", "1002", "1003"]
    # each member's row gets their own copy's grade: one person, one submission
    reports = [report(tmp_path, sid, ["AC", "AC"]) for sid in ("1001", "1002", "1003", "1004")]
    people, nobody = people_of(reports, teams)
    assert sorted(p.submission for p in people) == ["1001", "1002", "1003", "1004"]
    assert nobody == []


def test_a_group_graded_as_a_whole_is_one_submission_for_every_member(tmp_path):
    archive, groups, gradebook = group_class(tmp_path, individually=False)
    into, out = import_canvas(tmp_path, archive, "--teams", groups, "--roster", gradebook)
    assert "one submission per group" in out
    assert not [
        line
        for line in out.splitlines()
        if line.startswith(("no submission:", "not in the roster"))
    ]
    teams = resolve([(p.name, p) for p in sorted(into.iterdir()) if p.is_dir()])
    assert [m.id for m in teams.of("1001").members] == ["1001", "1002", "1003"]
    assert teams.unranked == {}


def session(*programs: SessionProgram) -> LeaderboardSession:
    """A recorded leaderboard session of these programs, on one timed case."""
    return LeaderboardSession(0, 1.7e9, None, None, "CPU", {}, (("t", "v1"),), programs)


def test_the_bonus_goes_to_every_member_of_a_winning_groups_copies(tmp_path):
    archive, groups, _ = group_class(tmp_path, individually=True)
    into, _ = import_canvas(tmp_path, archive, "--teams", groups)
    teams = resolve([(p.name, p) for p in sorted(into.iterdir()) if p.is_dir()])
    with Store(tmp_path / "grader.db") as store:
        for sid in ("1001", "1002", "1003", "1004"):
            hand_in(store, sid)
        store.record_leaderboard_session(
            session(
                SessionProgram("1001", "h-1001", "ranked", 1, 0.1),
                SessionProgram("1004", "h-1004", "ranked", 2, 0.5),
            )
        )
        reports = [
            store_report(store, store.submission(s), BONUS_CASES) for s in teams.by_submission
        ]
        won = award(store, reports, teams, BONUS_CASES, CourseConfig())
    assert won.stale == () and won.winners == ("1001",)
    assert [won.of(s) for s in ("1001", "1002", "1003", "1004")] == [15, 15, 15, 0]


# ------------------------------------------------------------------ Canvas's Test Student


def test_canvas_s_test_student_is_graded_never_ranked_and_named(tmp_path):
    archive = download(tmp_path / "submissions.zip", [
        (canvas_entry("Lovelace, Ada", 1001, 5001, "puzzlesolver.c"), "a\n"),
        (canvas_entry("Student, Test", 1099, 5099, "puzzlesolver.c"), "fast\n"),
    ])  # fmt: skip
    gradebook = canvas_gradebook(tmp_path / "gradebook.csv", [
        {"name": "Lovelace, Ada", "id": 1001, "sis": "S1", "login": "ada"},
        # StudentViewEnrollment: last; no SIS id; its login Canvas's HMAC
        {"name": "Student, Test", "id": 1099, "login": "5f0c" * 10},
    ], {"Scramble Squares (88)": "2"})  # fmt: skip
    into, out = import_canvas(tmp_path, archive, "--roster", gradebook)
    assert "note: 1099: Student, Test (Canvas user id 1099) is Canvas's Test Student" in out
    assert read_meta(into / "1099").test_account and not read_meta(into / "1001").test_account
    teams = resolve([(p.name, p) for p in sorted(into.iterdir()) if p.is_dir()])
    assert "never ranked" in teams.unranked["1099"] and "1001" not in teams.unranked
    assert any("Test Student" in note for note in teams.notes)
    with Store(tmp_path / "grader.db") as store:
        hand_in(store, "1001")
        hand_in(store, "1099")  # passes every case, never timed: the session still holds
        store.record_leaderboard_session(
            session(SessionProgram("1001", "h-1001", "ranked", 1, 0.2))
        )
        reports = [store_report(store, store.submission(s), BONUS_CASES) for s in ("1001", "1099")]
        won = award(store, reports, teams, BONUS_CASES, CourseConfig())
    assert won.winners == ("1001",) and won.of("1099") == 0


@pytest.mark.parametrize(
    "last, flagged",
    [
        ({"name": "Student, Test", "id": 1099, "login": ""}, True),
        ({"last": "Student", "first": "Test", "id": 1099}, True),
        ({"name": "Zed, Zoe", "id": 1099, "login": "ab" * 20}, True),  # another language's name
        ({"name": "Student, Test", "id": 1099, "sis": "S99", "login": "test"}, False),  # real
    ],
)
def test_the_test_student_is_told_by_canvas_s_own_marks(tmp_path, last, flagged):
    first_last = "last" in last
    ada = {"name": "Lovelace, Ada", "last": "Lovelace", "first": "Ada", "id": 1001, "sis": "S1"}
    path = canvas_gradebook(tmp_path / "g.csv", [ada, last], {"A (1)": "2"}, last_first=first_last)
    assert read_roster(path).test_accounts() == ({1} if flagged else set())
    # listed anywhere but last, it is not Canvas's test enrollment
    path = canvas_gradebook(tmp_path / "h.csv", [last, ada], {"A (1)": "2"}, last_first=first_last)
    assert read_roster(path).test_accounts() == set()


# ------------------------------------------------------------------ Moodle


def moodle_class(tmp_path: Path, scale=None):
    rows = [
        {"id": 1201, "name": "Ada Lovelace"},
        {"id": 1202, "name": "Bo Lee", "locked": True, "grade": "1.00" if not scale else ""},
        {"id": 1203, "name": "Cy Dee"},
    ]
    sheet = moodle_worksheet(tmp_path / "w.csv", rows, maximum="2.00", scale=scale)
    reports = [
        report(
            tmp_path, "1201", ["AC", "AC"], SubmissionMeta("1201", "moodle", lms_user_id="1201")
        ),
        report(
            tmp_path, "1202", ["AC", "AC"], SubmissionMeta("1202", "moodle", lms_user_id="1202")
        ),
        report(
            tmp_path, "1203", ["AC", "WA"], SubmissionMeta("1203", "moodle", lms_user_id="1203")
        ),
    ]
    return read_roster(sheet), reports


def participants(text: str) -> list[str]:
    rows = csv.DictReader(io.StringIO(text.lstrip("\ufeff")))
    return [row["Identifier"] for row in rows]


def test_a_locked_moodle_grade_is_named_and_left_out(tmp_path):
    roster, reports = moodle_class(tmp_path)
    made = moodle_export.scores(reports, {}, roster)
    assert made.left_out == [
        "Bo Lee: Moodle will not change this grade (Grade can be changed: No: locked or "
        "overridden in the gradebook): left out of the file"
    ]
    assert participants(made.text) == ["Participant 1201", "Participant 1203"]
    upload = moodle_reads(made.text, maximum=2.0, locked=("1202",))
    assert upload.applied == {"1201": 2.0, "1203": 1.0}


SCALE = ("Not passed", "Passed", "Distinction")


def test_a_scale_without_a_map_leaves_every_graded_row_out(tmp_path):
    roster, reports = moodle_class(tmp_path, scale=SCALE)
    made = moodle_export.scores(reports, {}, roster)
    assert participants(made.text) == []  # nothing Moodle would drop is written
    assert len(made.left_out) == 3 and all("--scale-map" in line or "locked" in line
                                           for line in made.left_out)  # fmt: skip


def test_a_scale_map_writes_the_scale_s_items_as_moodle_reads_them(tmp_path):
    roster, reports = moodle_class(tmp_path, scale=SCALE)
    scale_map = parse_scale_map("Not passed=0, Passed=50%, Distinction=2")
    made = moodle_export.scores(reports, {}, roster, scale_map=scale_map)
    upload = moodle_reads(made.text, maximum=0, scale=SCALE, locked=("1202",))
    assert upload.applied == {"1201": 3.0, "1203": 2.0}  # Distinction, Passed
    assert "1202" not in upload.applied and len(made.left_out) == 1
    with pytest.raises(ScaleMapError, match="'Merit', not an item of the assignment's scale"):
        moodle_export.scores(reports, {}, roster, scale_map=parse_scale_map("Merit=1"))
    (tmp_path / "points").mkdir()
    points, _ = moodle_class(tmp_path / "points")
    with pytest.raises(export.LmsExportError, match="graded in points, not on a scale"):
        moodle_export.scores(reports, {}, points, scale_map=scale_map)


@pytest.mark.parametrize("text", ["Passed", "Passed=", "=1", "Passed=-1", "Passed=lots", ""])
def test_a_bad_scale_map_is_one_line(text):
    with pytest.raises(ScaleMapError) as error:
        parse_scale_map(text)
    assert "\n" not in str(error.value) and "--scale-map" in str(error.value)


def test_moodle_team_members_keep_their_e_mail_for_the_course_s_files(tmp_path):
    """An extensions file names a team member by their e-mail: found (not "has no
    submission"), as the worksheet gives it."""
    from grader.lms.worksheet import members_by_group

    sheet = moodle_worksheet(tmp_path / "w.csv", [
        {"id": 31, "name": "Ada", "email": "ada@uni.edu", "group": "Rocket"},
    ], teams=True)  # fmt: skip
    members, _ = members_by_group(read_roster(sheet))
    (ada,) = members["Rocket"]
    assert (identity.MOODLE_EMAIL, "ada@uni.edu") in ada.keys and "ada@uni.edu" in ada.other_ids


# ------------------------------------------------------------------ import and export agree


def test_the_import_finds_in_the_roster_whom_the_export_grades(tmp_path):
    """A Gradescope class out to Canvas: the course declares Gradescope's sid to be the
    gradebook's SIS User ID. The import matches the roster as the export does: nobody
    is "not in the roster", nobody "without a submission", whom the export grades."""
    from tests.lms_archives import gradescope_metadata, make_zip

    root = "assignment_7_export/"
    people = {"submission_9001": ([("Ada Lovelace", "S1", "ada@uni.example")],
                                  "2026-03-01 20:00:00.000000000 +0000")}  # fmt: skip
    archive = make_zip(tmp_path / "export.zip", [
        (root + "submission_metadata.yml", gradescope_metadata(people), None),
        (root + "submission_9001/puzzlesolver.py", "print()\n", None),
    ])  # fmt: skip
    gradebook = canvas_gradebook(tmp_path / "gradebook.csv", [
        {"name": "Lovelace, Ada", "id": 1001, "sis": "S1", "login": "ada"},
        {"name": "Lee, Bo", "id": 1002, "sis": "S2", "login": "bo"},
    ], {"Scramble Squares (88)": "2"})  # fmt: skip
    course = tmp_path / "course.toml"
    course.write_text('[lms]\ngradescope_sid = "SIS User ID"\n')
    done = cli("--course", course, "import", "gradescope", archive, "--roster", gradebook,
               "--into", tmp_path / "class")  # fmt: skip
    assert done.code == 0, done.err
    lines = done.out.splitlines()
    assert not [line for line in lines if line.startswith("not in the roster")], done.out
    assert "no submission: Lee, Bo" in lines


@pytest.mark.parametrize(
    "cell",
    [
        "Not passed   Passed   Distinction",
        "Not passed\nPassed\nDistinction",
        " Not passed \r\nPassed\rDistinction",
    ],
)
def test_the_scale_s_items_as_the_worksheet_writes_them(cell):
    """col_scale joins the items with line breaks; the download's format_text makes each
    three spaces (a real Moodle 4.5.6 wrote "Not passed   Passed   Distinction")."""
    from grader.lms.scales import scale_items

    assert scale_items(cell) == ("Not passed", "Passed", "Distinction")
