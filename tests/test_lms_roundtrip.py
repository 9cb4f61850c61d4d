"""The instructor's round trip, through the CLI: a Canvas download in, grading with
a late policy, scores out in Canvas's and Moodle's import formats; and regrades
that list what changes before anything is overwritten."""

import json
import os
import shutil
import zipfile
from datetime import datetime
from types import SimpleNamespace

import pytest

from tests.helpers import NO_SOLUTION, NO_SOLUTION_PY, ROOT, SAMPLE_TEXT, WRONG_PY, make_cases
from tests.helpers import REFERENCE_PY as REFERENCE
from tests.helpers import grader_cli as cli
from tests.helpers import read_csv_rows as read_csv
from tests.lms_archives import canvas_gradebook, download, moodle_entry, moodle_worksheet
from tests.lms_rules import (
    canvas_feedback_reads,
    canvas_reads,
    moodle_feedback_reads,
    moodle_reads,
)

# A generous wall limit: these tests are about scores, and a loaded CI machine must not
# turn a correct program into TLE.
COURSE = """
[limits]
wall_seconds = 120

[late]
deadline = 2026-03-01T23:59:00
per_day_percent = 10
max_percent = 15
timezone = "UTC"
"""
ROSTER = (
    "Student,ID,SIS User ID,SIS Login ID,Section,Scramble Squares (88),Essay (89),"
    "Current Score\r\n"
    "    Points Possible,,,,,2,10,(read only)\r\n"
    '"Lovelace, Ada",1001,S-1001,ada,"Sec, 1",,7,50\r\n'
    '"Hopper, Grace",1002,S-1002,grace,Sec 1,1.5,8,60\r\n'
    '"Turing, Alan",1003,S-1003,alan,Sec 2,,9,70\r\n'
    '"Noether, Emmy",1004,S-1004,emmy,Sec 2,,10,80\r\n'
)


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    root = tmp_path_factory.mktemp("lms")
    manifest = make_cases(root / "cases", {"sample": SAMPLE_TEXT, "none": NO_SOLUTION})
    (root / "course.toml").write_text(COURSE)
    archive = download(
        root / "submissions.zip",
        [
            ("lovelaceada_1001_5001_puzzlesolver.py", REFERENCE),
            ("hoppergrace_LATE_1002_5002_puzzlesolver-1.py", NO_SOLUTION_PY),
            ("turingalan_1003_5003_puzzlesolver.py", WRONG_PY),
        ],
    )
    (root / "gradebook.csv").write_text(ROSTER, encoding="utf-8")
    # Canvas's API, GET .../assignments/88/submissions: the times the zip does not have.
    (root / "times.csv").write_text(
        "user_id,submitted_at\n1001,2026-03-01T22:00:00Z\n1002,2026-03-03T10:00:00Z\n"
        "1003,2026-03-01T09:00:00Z\n"
    )
    imported = cli(
        "import",
        "canvas",
        archive,
        "--roster",
        root / "gradebook.csv",
        "--times",
        root / "times.csv",
        "--into",
        root / "class",
    )
    assert imported.code == 0, imported.err
    base = ["--course", root / "course.toml", "--manifest", manifest]
    graded = cli(*base, "grade", root / "class", "--results", root / "results", "--jobs", "2")
    assert graded.code == 0, graded.err
    assert ".lms-import.json" not in graded.err  # the import's record is no submission
    return SimpleNamespace(
        root=root,
        base=base,
        manifest=manifest,
        imported=imported,
        graded=graded,
        results=root / "results",
    )


def test_import_reports_the_student_without_a_submission(course):
    assert "no submission: Noether, Emmy" in course.imported.out


def test_grade_table_shows_raw_score_and_penalty_side_by_side(course):
    lines = {
        line.split()[0]: line for line in course.graded.out.splitlines() if line.startswith("100")
    }
    assert lines["1002"].split()[1:5] == ["python", "1/2", "-0.15", "0.85"]
    assert "2 days late: -15% (capped)" in lines["1002"]
    assert lines["1001"].split()[1:4] == ["python", "2/2", "2"]
    assert "on time" in lines["1001"]


def test_results_json_holds_raw_score_penalty_and_the_lateness(course):
    document = json.loads((course.results / "results.json").read_text())
    by_id = {s["id"]: s for s in document["submissions"]}
    late = by_id["1002"]
    assert (late["score"], late["penalty"], late["final_score"]) == (1, 0.15, 0.85)
    assert late["late"] == {
        "submitted_at": "2026-03-03T10:00:00+00:00",
        "late_marker": True,
        "days_late": 2,
        "penalty_percent": 15.0,
        "note": "2 days late: -15% (capped)",
        "due_at": None,
        "due_source": None,
    }
    assert (by_id["1001"]["penalty"], by_id["1001"]["final_score"]) == (0, 2)
    assert document["course"]["late"]["per_day_percent"] == 10


def test_an_extension_in_the_course_file_reaches_show_and_every_export(course, tmp_path):
    """Grace (Canvas user 1002, SIS S-1002) was given until 4 March: on time, named by
    her SIS id; Alan's line names nobody the class has twice... and an unknown id is
    named."""
    (tmp_path / "extensions.csv").write_text(
        "person,due,why\nS-1002,2026-03-04T00:00:00,illness\nS-9999,2026-03-09T00:00:00,\n"
    )
    (tmp_path / "course.toml").write_text(COURSE + 'extensions = "extensions.csv"\n')
    base = ["--course", tmp_path / "course.toml", "--manifest", course.manifest]
    shown = cli(*base, "show", "1002", "--results", course.results)
    assert shown.code == 0, shown.err
    assert "late: on time (due 2026-03-04 00:00: extensions.csv line 2)" in shown.out
    assert "raw score 1/2  penalty -0  final 1" in shown.out
    assert "extensions.csv line 3: 'S-9999' has no submission in the class" in shown.err
    out = tmp_path / "grades.csv"
    assert cli(*base, "export", "csv", out, "--results", course.results).code == 0
    rows = read_csv(out)
    final = rows[0].index("final_score")
    assert {r[0]: r[final] for r in rows[1:]}["1002"] == "1"


def test_show_prints_the_submission_time_and_the_penalty(course):
    shown = cli(*course.base, "show", "1002", "--results", course.results)
    assert shown.code == 0
    assert "from canvas: Hopper, Grace (LMS id 1002)" in shown.out
    assert (
        "submitted: 2026-03-03T10:00:00+00:00 (submitted_at in times.csv)  (the LMS marks it late)"
        in shown.out
    )
    assert "raw score 1/2  penalty -0.15  final 0.85" in shown.out


def test_canvas_export_read_back_column_by_column(course):
    out = course.root / "canvas.csv"
    done = cli(
        *course.base,
        "export",
        "canvas",
        out,
        "--roster",
        course.root / "gradebook.csv",
        "--assignment",
        "Scramble Squares",
        "--results",
        course.results,
    )
    assert done.code == 0, done.err
    rows = read_csv(out)
    roster = read_csv(course.root / "gradebook.csv")
    assert out.read_bytes().count(b"\r\n") == len(rows)
    assert rows[0] == [
        "Student",
        "ID",
        "SIS User ID",
        "SIS Login ID",
        "Section",
        "Scramble Squares (88)",
    ]
    assert rows[1] == roster[1][:5] + ["2"]  # Points Possible kept
    for got, source in zip(rows[2:], roster[2:]):
        assert got[:5] == source[:5]  # the roster's own identity columns, untouched
    scores = {row[1]: row[5] for row in rows[2:]}
    # final scores; Emmy has no submission: empty (never 0), whatever the roster held
    assert scores == {"1001": "2", "1002": "0.85", "1003": "0", "1004": ""}
    assert len(rows) == len(roster)
    assert "late: 1002: raw 1, penalty -0.15 (2 days late: -15% (capped)), final 0.85" in done.out
    assert "empty: Noether, Emmy: no submission" in done.out
    upload = canvas_reads(out.read_text())  # Canvas's importer accepts it
    assert upload.points == {"Scramble Squares (88)": "2"}
    assert {sid: g["Scramble Squares (88)"] for sid, g in upload.grades.items()} == scores


def test_canvas_feedback_zip_for_re_upload_submissions(course, tmp_path):
    out = tmp_path / "feedback.zip"
    done = cli(*course.base, "export", "canvas-feedback", out, "--results", course.results)
    assert done.code == 0, done.err
    with zipfile.ZipFile(out) as zf:
        names = zf.namelist()
        pages = {name: zf.read(name).decode() for name in names}
    # Canvas's own reading of each name: the user and one of their submission's files.
    found, ignored = canvas_feedback_reads(
        names, {"1001": {"5001"}, "1002": {"5002"}, "1003": {"5003"}}
    )
    assert ignored == [] and sorted(found) == ["1001", "1002", "1003"]
    grace = pages[found["1002"][0]]
    assert "Raw score 1, late penalty −0.15, final score <b>0.85</b> / 2." in grace
    assert "all submissions</a>" not in grace  # a student's page: no link to the others
    assert f"{out}: 3 feedback pages, 0 skipped" in done.out


def test_a_feedback_zip_with_nothing_to_upload_is_refused(course, tmp_path):
    out = tmp_path / "feedback.zip"
    done = cli(*course.base, "export", "moodle-feedback", out, "--results", course.results)
    assert done.code == 2 and done.err.count("\n") == 1 and "no feedback page to upload" in done.err
    assert "skipped: 1001: not imported from Moodle" in done.out and not out.exists()


def test_canvas_export_needs_a_column_when_the_roster_has_several(course, tmp_path):
    done = cli(
        *course.base,
        "export",
        "canvas",
        tmp_path / "x.csv",
        "--roster",
        course.root / "gradebook.csv",
        "--results",
        course.results,
    )
    assert done.code == 2 and done.err.count("\n") == 1 and "--assignment" in done.err
    assert not (tmp_path / "x.csv").exists()


def test_canvas_export_zero_for_missing_only_when_the_course_says_so(course, tmp_path):
    toml = tmp_path / "course.toml"
    toml.write_text(COURSE + "[lms]\nmissing_as_zero = true\n")
    out = tmp_path / "canvas.csv"
    done = cli(
        "--course",
        toml,
        "--manifest",
        course.manifest,
        "export",
        "canvas",
        out,
        "--roster",
        course.root / "gradebook.csv",
        "--assignment",
        "Scramble Squares",
        "--results",
        course.results,
    )
    assert done.code == 0, done.err
    assert {row[1]: row[5] for row in read_csv(out)[2:]}["1004"] == "0"


def test_a_moodle_worksheet_never_takes_a_canvas_class_by_equal_numbers(course, tmp_path):
    """Moodle's participants 1001 and 1002 are not Canvas's users 1001 and 1002: a
    person is one key of the system that owns them. Nobody's row is filled; every
    graded student is named, and the worksheet keeps every cell it had."""
    worksheet = moodle_worksheet(
        tmp_path / "worksheet.csv",
        [
            {"id": 1002, "name": "Grace Hopper", "submitted": datetime(2026, 3, 3, 10, 0)},
            {"id": 1001, "name": "Ada Lovelace", "feedback": "Well done"},
            {"id": 1777, "name": "Nobody Here"},
        ],
        maximum="2.00",
    )
    out = tmp_path / "moodle.csv"
    done = cli(
        *course.base, "export", "moodle", out, "--roster", worksheet, "--results", course.results
    )
    assert done.code == 0, done.err
    assert read_csv(out) == read_csv(worksheet)
    upload = moodle_reads(out.read_text(), maximum=2.0)  # as Moodle's upload applies it
    assert upload.applied == {}
    assert "not in the roster (not exported): 1001, 1002, 1003\n" in done.out


def test_moodle_export_without_the_worksheet_refuses_in_one_line(course, tmp_path):
    done = cli(*course.base, "export", "moodle", tmp_path / "m.csv", "--results", course.results)
    assert done.code == 2 and done.err.count("\n") == 1
    assert "needs the grading worksheet downloaded from Moodle (--roster" in done.err
    assert not (tmp_path / "m.csv").exists()


def test_lms_exports_name_the_graded_students_the_roster_lacks(course, tmp_path):
    gradebook = canvas_gradebook(
        tmp_path / "gradebook.csv",
        [{"name": "Hopper, Grace", "id": 1002, "sis": "S-1002", "login": "grace",
          "section": "Sec 1", "cells": {"Scramble Squares (88)": ""}}],
        {"Scramble Squares (88)": "2"},
    )  # fmt: skip
    done = cli(
        *course.base,
        "export",
        "canvas",
        tmp_path / "canvas.csv",
        "--roster",
        gradebook,
        "--results",
        course.results,
    )
    assert done.code == 0, done.err
    assert "not in the roster (not exported): 1001, 1003\n" in done.out


def test_gradebook_csv_and_feedback_pages_show_the_penalty(course, tmp_path):
    out = tmp_path / "grades.csv"
    done = cli(*course.base, "export", "csv", out, "--results", course.results)
    assert done.code == 0
    assert "a gradebook for people and spreadsheets" in done.out  # not an LMS upload
    rows = read_csv(out)
    assert rows[0][4:10] == ["language", "score", "max_score", "penalty", "final_score", "late"]
    assert rows[0][:4] == ["id", "team", "member", "member_name"]
    assert {r[0]: r[5:10] for r in rows[1:]}["1002"] == [
        "1",
        "2",
        "0.15",
        "0.85",
        "2 days late: -15% (capped)",
    ]
    pages = tmp_path / "pages"
    assert cli(*course.base, "export", "html", pages, "--results", course.results).code == 0
    page = next(p for p in pages.iterdir() if p.name.startswith("1002")).read_text()
    assert "Raw score 1, late penalty −0.15, final score <b>0.85</b> / 2." in page


def test_dry_run_after_a_policy_change_lists_only_the_late_student(course, tmp_path):
    before = {p.name: p.read_bytes() for p in course.results.iterdir() if p.is_file()}
    toml = tmp_path / "course.toml"
    toml.write_text(COURSE.replace("max_percent = 15", "max_percent = 50"))
    done = cli(
        "--course",
        toml,
        "--manifest",
        course.manifest,
        "grade",
        course.root / "class",
        "--results",
        course.results,
        "--dry-run",
    )
    assert done.code == 0, done.err
    assert "why: course.toml: late policy changed" in done.out
    changed = [line.split()[0] for line in done.out.splitlines() if line.startswith("100")]
    assert changed == ["1002"]
    assert "0.85 -> 0.8" in done.out
    assert "nothing written" in done.out
    after = {p.name: p.read_bytes() for p in course.results.iterdir() if p.is_file()}
    assert after == before


# ------------------------------------------------------------------ regrades


def test_regrade_after_a_changed_expected_output_lists_exactly_who_changes(tmp_path):
    manifest = make_cases(tmp_path / "cases", {"sample": SAMPLE_TEXT, "none": NO_SOLUTION})
    folder = tmp_path / "class"
    for sid, source in (
        ("ref", REFERENCE),
        ("nosol", NO_SOLUTION_PY),
        ("wrong", WRONG_PY),
        ("ref-too", REFERENCE),
    ):
        (folder / sid).mkdir(parents=True)
        (folder / sid / "puzzlesolver.py").write_text(source)
    results = tmp_path / "results"
    (tmp_path / "course.toml").write_text("[limits]\nwall_seconds = 120\n")
    base = [
        "--course",
        tmp_path / "course.toml",
        "--manifest",
        manifest,
        "grade",
        folder,
        "--results",
        results,
        "--jobs",
        "2",
    ]
    assert cli(*base).code == 0
    first = (results / "results.json").read_bytes()

    # The instructor fixes the no-solution case's expected output: the two reference
    # programs and `nosol` were right on it, now they are not; `wrong` was never right.
    expected = tmp_path / "cases" / "public" / "none.out"
    expected.write_bytes(
        expected.read_bytes().replace(b"No solution found.", b"0 unique solutions found:")
    )
    dry = cli(*base, "--dry-run")
    assert dry.code == 0, dry.err
    assert "why: input or expected output changed: none" in dry.out
    rows = {
        line.split()[0]: line
        for line in dry.out.splitlines()
        if line.split() and line.split()[0] in ("ref", "nosol", "wrong", "ref-too")
    }
    assert sorted(rows) == ["nosol", "ref", "ref-too"]
    assert rows["ref"].split()[1:4] == ["2", "->", "1"] and "none AC -> WA" in rows["ref"]
    assert rows["nosol"].split()[1:4] == ["1", "->", "0"]
    assert "3 student(s) change score" in dry.out
    assert (results / "results.json").read_bytes() == first  # nothing overwritten
    assert not (results / "results.previous.json").exists()

    real = cli(*base)
    assert real.code == 0
    assert "since the previous run:" in real.out and "3 student(s) change score" in real.out
    assert (results / "results.previous.json").read_bytes() == first  # the old run kept
    shown = cli("diff", "--results", results)
    assert shown.code == 0
    listed = [
        line.split()[0]
        for line in shown.out.splitlines()
        if line.split() and line.split()[0] in ("ref", "nosol", "wrong", "ref-too")
    ]
    assert sorted(listed) == ["nosol", "ref", "ref-too"]

    # Nothing changed since: a dry run says so.
    again = cli(*base, "--dry-run")
    assert "no student's verdicts or scores change" in again.out


def test_a_results_json_that_cannot_be_compared_is_still_kept(tmp_path):
    manifest = make_cases(tmp_path / "cases", {"none": NO_SOLUTION})
    (tmp_path / "class" / "nosol").mkdir(parents=True)
    (tmp_path / "class" / "nosol" / "puzzlesolver.py").write_text(NO_SOLUTION_PY)
    results = tmp_path / "results"
    results.mkdir()
    (results / "results.json").write_text('{"made by": "an older grader"}\n')
    done = cli("--manifest", manifest, "grade", tmp_path / "class", "--results", results)
    assert done.code == 0 and "kept as results.previous.json" in done.err
    assert (results / "results.previous.json").read_text() == '{"made by": "an older grader"}\n'
    assert json.loads((results / "results.json").read_text())["submissions"][0]["score"] == 1


def test_canvas_export_to_a_new_assignment_column(course, tmp_path):
    roster = tmp_path / "roster.csv"
    roster.write_text(
        "Student,ID,SIS User ID,SIS Login ID,Section\n"
        "    Points Possible,,,,\n"
        ",,,,Manual Posting\n"
        '"Hopper, Grace",1002,S-1002,grace,Sec 1\n',
        encoding="utf-8",
    )
    out = tmp_path / "canvas.csv"
    export = [*course.base, "export", "canvas", out, "--roster", roster]
    refused = cli(*export, "--results", course.results)
    assert refused.code == 2 and "no assignment column" in refused.err  # not unless asked
    done = cli(*export, "--new-column", "--results", course.results)
    assert done.code == 0, done.err
    assert read_csv(out) == [
        ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "Scramble Squares"],
        ["    Points Possible", "", "", "", "", "2"],
        ["", "", "", "", "Manual Posting", ""],
        ["Hopper, Grace", "1002", "S-1002", "grace", "Sec 1", "0.85"],
    ]
    assert canvas_reads(out.read_text()).grades == {"1002": {"Scramble Squares": "0.85"}}
    assert "not in the roster (not exported): 1001, 1003" in done.out


def test_moodle_round_trip_in_a_terminal(tmp_path):
    """As an instructor types it: import into ./submissions, grade, show, export. The
    download alone has no submission times: `grade` says so once, and charges nothing;
    the grading worksheet (--roster) brings Moodle's own times."""
    import sys

    import pexpect

    def run(*args):
        child = pexpect.spawn(
            sys.executable,
            ["-m", "grader", *map(str, args)],
            cwd=str(tmp_path),
            timeout=180,
            encoding="utf-8",
            dimensions=(40, 200),
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
        child.expect(pexpect.EOF)
        child.close()
        return child.exitstatus, child.before

    manifest = make_cases(tmp_path / "cases", {"none": NO_SOLUTION})
    (tmp_path / "course.toml").write_text(COURSE)
    download(
        tmp_path / "moodle.zip",
        [
            (moodle_entry("Grace Hopper", 31, "puzzlesolver.py"), NO_SOLUTION_PY),
            (moodle_entry("Alan Turing", 32, "puzzlesolver.py"), WRONG_PY),
        ],
    )
    moodle_worksheet(
        tmp_path / "worksheet.csv",
        [
            {"id": 31, "name": "Grace Hopper", "submitted": datetime(2026, 3, 2, 8, 0)},
            {"id": 32, "name": "Alan Turing", "submitted": datetime(2026, 3, 1, 8, 0)},
        ],
        maximum="1.00",
    )
    base = ["--course", "course.toml", "--manifest", manifest]
    code, out = run(*base, "import", "moodle", "moodle.zip")
    assert code == 0 and "2 added, 0 updated, 0 unchanged, 0 entries refused" in out
    assert "no submission time for any of the 2 students" in out
    code, out = run(*base, "grade")
    assert code == 0, out
    assert out.count("the late policy has no submission time for 2 submission(s) (31, 32)") == 1
    assert "day late" not in out

    code, out = run(*base, "import", "moodle", "moodle.zip", "--roster", "worksheet.csv")
    assert code == 0 and "0 added, 2 updated, 0 unchanged" in out, out
    code, out = run(*base, "grade")
    assert code == 0, out
    assert "1 day late: -10%" in out and "no submission time" not in out
    code, out = run(*base, "show", "31")
    assert code == 0 and "from moodle: Grace Hopper (LMS id 31)" in out
    assert "submitted: 2026-03-02T08:00:00 (Last modified (submission) in worksheet.csv)" in out
    assert "raw score 1/1  penalty -0.1  final 0.9" in out
    code, out = run(*base, "export", "moodle", "grades.csv", "--roster", "worksheet.csv")
    assert code == 0, out
    rows = read_csv(tmp_path / "grades.csv")
    grade = rows[0].index("Grade")
    assert [row[grade] for row in rows[1:]] == ["0.9", "0"]
    code, out = run(*base, "export", "moodle-feedback", "feedback.zip")
    assert code == 0, out
    with zipfile.ZipFile(tmp_path / "feedback.zip") as zf:
        found, ignored = moodle_feedback_reads(zf.namelist(), {"31", "32"})
    assert ignored == [] and sorted(found) == ["31", "32"]
    # A folder no import wrote, beside the imported class: graded, and named.
    shutil.copytree(ROOT / "submissions" / "guido-py", tmp_path / "submissions" / "guido-py")
    code, out = run(*base, "grade")
    assert code == 0, out
    assert "1 folder(s) beside the 2 imported one(s) came from no import (guido-py)" in out
    assert "--into FOLDER" in out
