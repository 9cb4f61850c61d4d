"""Classes of teams through the CLI, graded for real: who is in each team (from the
course's teams file, and from each LMS's download), listed by `grader teams`, `show`
and results.json, and bad team data named in one line before anything is graded."""

import json
import os
import re
import shutil
import zipfile

import pytest

from grader.course.submission_meta import META_NAME, SubmissionMeta, Team, TeamMember, write_meta
from tests.helpers import (
    BUSY_OK,
    NO_SOLUTION,
    NO_SOLUTION_PY,
    SAMPLE_TEXT,
    WRONG_PY,
    draw_of,
    expected_output,
    make_cases,
)
from tests.helpers import REFERENCE_PY as REFERENCE
from tests.helpers import grader_cli as cli
from tests.helpers import read_csv_rows as read_csv
from tests.lms_archives import (
    canvas_entry,
    canvas_gradebook,
    canvas_group_set,
    download,
    gradescope_metadata,
    make_zip,
    moodle_entry,
    moodle_worksheet,
)
from tests.lms_rules import (
    canvas_feedback_reads,
    canvas_reads,
    moodle_feedback_reads,
    moodle_gradebook_reads,
    moodle_reads,
)

COURSE = '[limits]\nwall_seconds = 120\n\n[teams]\nfile = "teams.csv"\n'


def hand_made(root):
    """A class folder made by hand: two teams of two, a student alone, and a team that
    handed in twice (`rocket-v1`, then `rocket`, as its files' times say: a student's
    archive sets them, so they tell nothing)."""
    manifest = make_cases(root / "cases", {"sample": SAMPLE_TEXT, "none": NO_SOLUTION})
    for sid, source, mtime in (
        ("rocket-v1", WRONG_PY, 1_700_000_000),
        ("rocket", REFERENCE, 1_700_000_500),
        ("magma", NO_SOLUTION_PY, 1_700_000_000),
        ("solo", REFERENCE, 1_700_000_000),
    ):
        folder = root / "class" / sid
        folder.mkdir(parents=True)
        (folder / "puzzlesolver.py").write_text(source)
        os.utime(folder / "puzzlesolver.py", (mtime, mtime))
    (root / "course.toml").write_text(COURSE)
    (root / "teams.csv").write_text(
        "team,member,name\n"
        "rocket,1001,Ada Lovelace\nrocket,1002,Grace Hopper\n"
        "rocket-v1,1002,Grace Hopper\nrocket-v1,1001,Ada Lovelace\n"
        "magma,1003,Alan Turing\nmagma,S-1004,Emmy Noether\n"
    )
    return manifest


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    root = tmp_path_factory.mktemp("teams")
    manifest = hand_made(root)
    base = ["--course", root / "course.toml", "--manifest", manifest]
    results = root / "results"
    graded = cli(*base, "grade", root / "class", "--results", results, "--jobs", "2")
    assert graded.code == 0, graded.err
    return root, base, results, graded


def test_grade_names_each_submissions_team_and_the_undecided_one(made):
    root, base, results, graded = made
    assert (
        "grader: rocket (teams file) handed in twice (rocket, rocket-v1) and no submission "
        "time of the LMS tells which is newer (the files' own times are the student's to "
        "set): neither counts until you remove the older folder" in graded.err
    )
    assert "not in teams.csv: solo (each graded as one student's)" in graded.err
    rows = {line.split()[0]: line for line in graded.out.splitlines() if line[:1].isalpha()}
    assert "counts for no one (handed in twice)" in rows["rocket-v1"]
    assert "counts for no one (handed in twice)" in rows["rocket"]
    document = json.loads((results / "results.json").read_text())
    teams = {s["id"]: s["team"] for s in document["submissions"]}
    assert teams["magma"] == {
        "name": "magma",
        "source": "teams file",
        "members": [
            {"id": "1003", "name": "Alan Turing", "other_ids": []},
            {"id": "S-1004", "name": "Emmy Noether", "other_ids": []},
        ],
        "replaced_by": None,
        "undecided": None,
    }
    assert teams["rocket-v1"]["replaced_by"] is None
    assert "handed in twice (rocket, rocket-v1)" in teams["rocket-v1"]["undecided"]
    assert teams["solo"]["source"] == "alone" and teams["solo"]["members"][0]["id"] == "solo"


def test_grader_teams_lists_every_team_its_members_and_submission(made):
    root, base, results, graded = made
    listed = cli(*base, "teams", "--results", results)
    assert listed.code == 0, listed.err
    lines = listed.out.splitlines()
    assert lines[0].split() == ["team", "from", "submission", "members"]
    magma = next(line for line in lines if line.startswith("magma"))
    assert (
        magma.split(None, 3)[1:]
        == [
            "teams",
            "file",
            "magma    1003 (Alan Turing), S-1004 (Emmy Noether)",
        ]
        or "1003 (Alan Turing), S-1004 (Emmy Noether)" in magma
    )
    assert any("rocket-v1 (counts for no one: see the note)" in line for line in lines)
    assert f"2 teams, 3 students; teams file {root / 'teams.csv'}" in listed.out
    roster = canvas_gradebook(root / "gradebook.csv", GRADEBOOK_STUDENTS[:3], {ASSIGNMENT: "2"})
    checked = cli(*base, "teams", "--roster", roster, "--results", results)
    unknown = [line for line in checked.out.splitlines() if line.startswith("not in")]
    assert unknown == [
        "not in gradebook.csv: S-1004 (Emmy Noether) of magma (magma): no score reaches them",
        "not in gradebook.csv: solo: no score reaches them",
    ]


def test_show_lists_the_members(made):
    root, base, results, graded = made
    shown = cli(*base, "show", "rocket", "--results", results)
    assert "team rocket (from teams file): 1001 (Ada Lovelace), 1002 (Grace Hopper)" in shown.out
    undecided = cli(*base, "show", "rocket-v1", "--results", results)
    assert "counts for no one: rocket (teams file) handed in twice" in undecided.out
    alone = cli(*base, "show", "solo", "--results", results)
    assert "handed in by solo (alone)" in alone.out


def test_a_student_in_two_teams_stops_grade_before_anything_runs(made, tmp_path):
    root, base, results, graded = made
    course = tmp_path / "course.toml"
    course.write_text(COURSE)
    (tmp_path / "teams.csv").write_text(
        (root / "teams.csv").read_text() + "solo,1003,Alan Turing\n"
    )
    copy = tmp_path / "results"
    shutil.copytree(results, copy)
    before = (copy / "grader.db").read_bytes()
    done = cli(
        "--course", course, "--manifest", base[3], "grade", root / "class", "--results", copy
    )
    assert done.code == 2 and done.err.count("\n") == 1
    assert done.err == (
        "grader: error: a student in two teams: 1003 (Alan Turing) is in magma (teams file) "
        "and in solo (teams file)\n"
    )
    assert (copy / "grader.db").read_bytes() == before  # nothing graded, nothing lost
    listed = cli("--course", course, "--manifest", base[3], "teams", "--results", copy)
    assert listed.code == 2 and "a student in two teams: 1003" in listed.err


# ------------------------------------------------------------------ through the leaderboard
#
# Each class: two teams whose programs are the reference (they tie at rank 1: the noise
# floor is 50%), a slow one (rank 2: it burns half a second first), and one that passes
# the public case and fails the hidden one (never ranked, however fast). Every member of
# the two teams ranked 1, and no one else, gets the bonus in every gradebook export.

FAST = REFERENCE
SLOW = "_burn = sum(i * i for i in range(6_000_000))\n" + REFERENCE
PUBLIC_ONLY = f"import sys\nsys.stdout.write({expected_output(SAMPLE_TEXT).decode()!r})\n"
BOARD = """
[limits]
wall_seconds = 120

[leaderboard]
runs = 4
warmup = 0
cases = ["sample"]
noise_floor = 0.5
bonus = 15
"""
GRADEBOOK_STUDENTS = [
    {"name": "Lovelace, Ada", "id": 1001, "sis": "S1", "login": "ada@uni.edu"},
    {"name": "Hopper, Grace", "id": 1002, "sis": "S2", "login": "grace@uni.edu"},
    {"name": "Turing, Alan", "id": 1003, "sis": "S3", "login": "alan@uni.edu"},
    {"name": "Noether, Emmy", "id": 1004, "sis": "S4", "login": "emmy@uni.edu"},
    {"name": "Goedel, Kurt", "id": 1005, "sis": "S5", "login": "kurt@uni.edu"},
    {"name": "Liskov, Barbara", "id": 1006, "sis": "S6", "login": "barbara@uni.edu"},
    {"name": "Knuth, Donald", "id": 1007, "sis": "S7", "login": "donald@uni.edu"},
]
ASSIGNMENT = "Scramble Squares (88)"


def board_class(root, course=BOARD):
    manifest = make_cases(
        root / "cases", {"sample": SAMPLE_TEXT, "none": NO_SOLUTION}, hidden=("none",)
    )
    (root / "course.toml").write_text(course)
    return ["--course", root / "course.toml", "--manifest", manifest]


def rank(root, base, results, seed=1):
    """`grader leaderboard` on puzzles drawn for the session (the sample's family)."""
    draw = draw_of(base[3], root / f"draw-{seed}.json", seed, ids=("sample",))
    return cli(*base, "leaderboard", "--results", results, "--puzzles", draw, BUSY_OK)


def grade_and_rank(root, base, folder):
    results = root / "results"
    graded = cli(*base, "grade", folder, "--results", results, "--jobs", "2")
    assert graded.code == 0, graded.err
    board = rank(root, base, results)
    assert board.code == 0, board.err
    return results, graded, board


def gradebook(root):
    return canvas_gradebook(root / "gradebook.csv", GRADEBOOK_STUDENTS, {ASSIGNMENT: "2"})


def csv_members(root, base, results):
    """export csv: {(submission, member): (score, bonus)}, and what it printed."""
    out = root / "grades.csv"
    done = cli(*base, "export", "csv", out, "--results", results)
    assert done.code == 0, done.err
    rows = read_csv(out)
    header = rows[0]
    at = {name: header.index(name) for name in ("id", "member", "score", "bonus")}
    found = {(r[at["id"]], r[at["member"]]): (r[at["score"]], r[at["bonus"]]) for r in rows[1:]}
    return found, done


def canvas_scores(root, base, results, *extra):
    out = root / "canvas.csv"
    done = cli(
        *base,
        "export",
        "canvas",
        out,
        "--roster",
        gradebook(root),
        "--assignment",
        "Scramble Squares",
        "--results",
        results,
        *extra,
    )
    assert done.code == 0, done.err
    upload = canvas_reads(out.read_text())  # as Canvas's importer reads it
    return upload.grades, done


# Moodle: the worksheet's scores (out of 20: no scaling), and the bonus in a grade item
# of its own through the gradebook's import, each participant known by their e-mail.
MOODLE_SCORES = {"31": 2, "32": 2, "33": 2, "34": 2, "35": 2, "36": 1, "37": 1}
MOODLE_BONUS = {str(31 + i): 15.0 if i < 4 else 0.0 for i in range(7)}


def moodle_bonus(root, base, results, sheet) -> dict:
    """export moodle-gradebook, as Moodle's gradebook import applies it: {user: bonus}."""
    out = root / "bonus.csv"
    done = cli(*base, "export", "moodle-gradebook", out, "--roster", sheet, "--results", results)
    assert done.code == 0, done.err
    said = done.out.splitlines()[0]  # the award's own line, before the rows it decided
    assert said.startswith("bonus: speed bonus +15 to every member of the ") or said.startswith(
        "bonus: no speed bonus: "
    ), said
    users = {s["login"]: str(31 + i) for i, s in enumerate(GRADEBOOK_STUDENTS)}
    return moodle_gradebook_reads(out.read_text(), users, maximum=15.0)


def winners_line(board) -> str:
    return next(line for line in board.out.splitlines() if line.startswith("session "))


# Who each class's members are, and what each gets: the two fast teams' members 2 + 15,
# the slow team's 2, the team failing the hidden case 1 (its programs pass one of two).
WON, SLOWER, FAILED = ("2", "15"), ("2", "0"), ("1", "0")
# The scores a Canvas class of the example teams uploads: a correct program's 2 and the
# bonus of 15 to every member of the two rank-1 teams.
WITH_BONUS = dict.fromkeys(["1001", "1002", "1003", "1004"], "17") | {
    "1005": "2",
    "1006": "1",
    "1007": "1",
}


@pytest.mark.slow
def test_gradescope_submitters_through_grade_leaderboard_and_every_export(tmp_path):
    base = board_class(tmp_path)
    prefix = "assignment_1_export/"
    when = "2026-03-01 10:00:00.000000000 -05:00"
    people = {
        "submission_1": [
            ("Ada Lovelace", "S1", "ada@uni.edu"),
            ("Grace Hopper", "S2", "grace@uni.edu"),
        ],
        "submission_2": [
            ("Alan Turing", "S3", "alan@uni.edu"),
            ("Emmy Noether", "S4", "emmy@uni.edu"),
        ],
        "submission_3": [("Kurt Goedel", "S5", "kurt@uni.edu")],
        "submission_4": [
            ("Barbara Liskov", "S6", "barbara@uni.edu"),
            ("Donald Knuth", "S7", "donald@uni.edu"),
        ],
    }
    programs = {
        "submission_1": FAST,
        "submission_2": FAST,
        "submission_3": SLOW,
        "submission_4": PUBLIC_ONLY,
    }
    metadata = gradescope_metadata({key: (who, when) for key, who in people.items()})
    archive = make_zip(
        tmp_path / "export.zip",
        [(prefix + "submission_metadata.yml", metadata, None)]
        + [(f"{prefix}{key}/puzzlesolver.py", source, None) for key, source in programs.items()],
    )
    assert cli(*base, "import", "gradescope", archive, "--into", tmp_path / "class").code == 0
    results, graded, board = grade_and_rank(tmp_path, base, tmp_path / "class")

    assert "speed bonus +15 to every member of the 2 team(s) ranked 1" in winners_line(board)
    assert "  Ada Lovelace & Grace Hopper (S1): S1 (Ada Lovelace), S2 (Grace Hopper)" in board.out
    members, done = csv_members(tmp_path, base, results)
    assert members == {
        ("S1", "S1"): WON,
        ("S1", "S2"): WON,
        ("S3", "S3"): WON,
        ("S3", "S4"): WON,
        ("S5", "S5"): SLOWER,
        ("S6", "S6"): FAILED,
        ("S6", "S7"): FAILED,
    }
    # Canvas's gradebook knows them by SIS id (the sid): the bonus added to the score
    grades, done = canvas_scores(tmp_path, base, results)
    assert {sid: g["Scramble Squares (88)"] for sid, g in grades.items()} == WITH_BONUS
    assert "team: Ada Lovelace & Grace Hopper (S1): 17 to Lovelace, Ada, Hopper, Grace" in done.out
    assert "bonus: Lovelace, Ada: +15 (speed bonus)" in done.out
    assert "4 score(s) above the LMS's maximum" in done.err and "extra credit" in done.err
    # Moodle's worksheet knows them by e-mail (Gradescope's, kept beside each sid)
    sheet = moodle_worksheet(
        tmp_path / "worksheet.csv",
        [
            {"id": 31 + i, "name": s["name"], "email": s["login"]}
            for i, s in enumerate(GRADEBOOK_STUDENTS)
        ],
        maximum="20.00",
    )
    out = tmp_path / "moodle.csv"
    done = cli(*base, "export", "moodle", out, "--roster", sheet, "--results", results)
    assert done.code == 0, done.err
    upload = moodle_reads(out.read_text(), maximum=20.0)
    assert upload.applied == MOODLE_SCORES  # the bonus never in the worksheet
    assert "speed bonus +15 (ranked 1 on the leaderboard; a grade item" in upload.feedback["32"]
    assert moodle_bonus(tmp_path, base, results, sheet) == MOODLE_BONUS
    assert "team Ada Lovelace & Grace Hopper" in upload.feedback["32"]
    assert "speed bonus" not in upload.feedback["35"]
    pages = tmp_path / "pages"
    assert cli(*base, "export", "html", pages, "--results", results, "--student").code == 0
    assert "Team Ada Lovelace &amp; Grace Hopper: Ada Lovelace, Grace Hopper." in (
        (pages / "S1.html").read_text()
    )


@pytest.mark.slow
def test_a_moodle_team_worksheet_through_grade_leaderboard_and_every_export(tmp_path):
    base = board_class(tmp_path)
    archive = download(
        tmp_path / "moodle.zip",
        [
            (moodle_entry("Team Rocket", 1201, "puzzlesolver.py"), FAST),
            # Magma's group id is also Ada's participant id (Ada is in Team Rocket)
            (moodle_entry("Team Magma", 31, "puzzlesolver.py"), FAST),
            (moodle_entry("Team Aqua", 1203, "puzzlesolver.py"), SLOW),
            (moodle_entry("Default group", None, "puzzlesolver.py"), PUBLIC_ONLY),
        ],
    )
    groups = ["Team Rocket", "Team Rocket", "Team Magma", "Team Magma", "Team Aqua"]
    groups += ["Default group", "Default group"]
    sheet = moodle_worksheet(
        tmp_path / "worksheet.csv",
        [
            {"id": 31 + i, "name": s["name"], "group": group, "email": s["login"]}
            for i, (s, group) in enumerate(zip(GRADEBOOK_STUDENTS, groups))
        ],
        maximum="20.00",
        teams=True,
    )
    imported = cli(
        *base, "import", "moodle", archive, "--roster", sheet, "--into", tmp_path / "class"
    )
    assert imported.code == 0, imported.out
    results, graded, board = grade_and_rank(tmp_path, base, tmp_path / "class")
    assert "Team Rocket (group-1201), Team Magma (group-31)" in winners_line(board)
    members, done = csv_members(tmp_path, base, results)
    assert members == {
        ("default-group", "36"): FAILED,
        ("default-group", "37"): FAILED,
        ("group-1201", "31"): WON,
        ("group-1201", "32"): WON,
        ("group-31", "33"): WON,
        ("group-31", "34"): WON,
        ("group-1203", "35"): SLOWER,
    }
    out = tmp_path / "grades.csv"
    done = cli(*base, "export", "moodle", out, "--roster", sheet, "--results", results)
    assert done.code == 0, done.err
    upload = moodle_reads(out.read_text(), maximum=20.0)
    assert upload.applied == MOODLE_SCORES
    assert "team: Team Rocket (group-1201): 2 to Lovelace, Ada, Hopper, Grace" in done.out
    assert moodle_bonus(tmp_path, base, results, sheet) == MOODLE_BONUS
    assert "team Team Rocket" in upload.feedback["31"]
    refused = cli(
        *base,
        "export",
        "moodle",
        out,
        "--roster",
        sheet,
        "--bonus-column",
        "Bonus",
        "--results",
        results,
    )
    assert refused.code == 2 and "--bonus-column is for Canvas" in refused.err
    feedback = tmp_path / "feedback.zip"
    made = cli(*base, "export", "moodle-feedback", feedback, "--results", results)
    assert made.code == 0, made.err
    assert "skipped: default-group: Moodle's default group (students in no group)" in made.out
    groups = {"1201": ["31", "32"], "31": ["33", "34"], "1203": ["35"]}  # as Moodle maps them
    with zipfile.ZipFile(feedback) as zf:
        found, ignored = moodle_feedback_reads(zf.namelist(), groups)
        pages_of = {  # whose page each member gets: the submission it names
            pid: {re.search(r"group-\d+", zf.read(entry).decode())[0] for entry, _ in got}
            for pid, got in found.items()
        }
    assert ignored == []
    assert pages_of == {
        "31": {"group-1201"},
        "32": {"group-1201"},
        "33": {"group-31"},
        "34": {"group-31"},
        "35": {"group-1203"},
    }


@pytest.mark.slow
def test_a_canvas_group_set_through_grade_leaderboard_and_every_export(tmp_path):
    base = board_class(tmp_path)
    archive = download(
        tmp_path / "submissions.zip",
        [
            (canvas_entry("Lovelace, Ada", 1001, 5001, "puzzlesolver.py"), FAST),
            (canvas_entry("Turing, Alan", 1003, 5003, "puzzlesolver.py"), FAST),
            (canvas_entry("Goedel, Kurt", 1005, 5005, "puzzlesolver.py"), SLOW),
            (canvas_entry("Liskov, Barbara", 1006, 5006, "puzzlesolver.py"), PUBLIC_ONLY),
        ],
    )
    groups = ["Rocket", "Rocket", "Magma", "Magma", "", "Aqua", "Aqua"]
    group_set = canvas_group_set(
        tmp_path / "groups.csv",
        [
            {**s, "group": group, "group_id": {"Rocket": 71, "Magma": 72, "Aqua": 73}.get(group)}
            for s, group in zip(GRADEBOOK_STUDENTS, groups)
        ],
    )
    imported = cli(
        *base,
        "import",
        "canvas",
        archive,
        "--teams",
        group_set,
        "--roster",
        gradebook(tmp_path),
        "--into",
        tmp_path / "class",
    )
    assert imported.code == 0, imported.out
    assert "groups.csv: 1005: in no group of the set" in imported.out
    assert "no submission:" not in imported.out  # every member of a group has one
    results, graded, board = grade_and_rank(tmp_path, base, tmp_path / "class")
    assert "Rocket (1001), Magma (1003)" in winners_line(board)
    members, done = csv_members(tmp_path, base, results)
    assert members == {
        ("1001", "1001"): WON,
        ("1001", "1002"): WON,
        ("1003", "1003"): WON,
        ("1003", "1004"): WON,
        ("1005", "1005"): SLOWER,
        ("1006", "1006"): FAILED,
        ("1006", "1007"): FAILED,
    }
    grades, done = canvas_scores(tmp_path, base, results)
    assert {sid: g["Scramble Squares (88)"] for sid, g in grades.items()} == WITH_BONUS
    assert "team: Rocket (1001): 17 to Lovelace, Ada, Hopper, Grace" in done.out
    # The bonus in a column of its own: the scores stay within Points Possible
    grades, done = canvas_scores(
        tmp_path, base, results, "--bonus-column", "Speed bonus", "--new-column"
    )
    assert {sid: (g["Scramble Squares (88)"], g["Speed bonus"]) for sid, g in grades.items()} == {
        "1001": ("2", "15"),
        "1002": ("2", "15"),
        "1003": ("2", "15"),
        "1004": ("2", "15"),
        "1005": ("2", "0"),
        "1006": ("1", "0"),
        "1007": ("1", "0"),
    }
    assert "above the LMS's maximum" not in done.err
    feedback = tmp_path / "feedback.zip"
    assert cli(*base, "export", "canvas-feedback", feedback, "--results", results).code == 0
    with zipfile.ZipFile(feedback) as zf:
        found, ignored = canvas_feedback_reads(
            zf.namelist(), {"1001": {"5001"}, "1003": {"5003"}, "1005": {"5005"}, "1006": {"5006"}}
        )
    assert ignored == [] and sorted(found) == ["1001", "1003", "1005", "1006"]


@pytest.mark.slow
def test_a_hand_made_teams_file_the_bonus_and_a_stale_session(tmp_path):
    """The bonus goes to exactly the rank-1 teams' members while the recorded session
    describes the class; a program that passes every case since (by a decision here) or
    a winner handing in again leaves everyone without it, naming what to measure."""
    base = board_class(tmp_path, BOARD + '\n[teams]\nfile = "teams.csv"\n')
    programs = {"rocket": FAST, "magma": FAST, "aqua": SLOW, "solo": PUBLIC_ONLY, "aqua-v0": FAST}
    for sid, source in programs.items():
        (tmp_path / "class" / sid).mkdir(parents=True)
        (tmp_path / "class" / sid / "puzzlesolver.py").write_text(source)
    # aqua handed in twice, a fast program and a slow one, and nothing the LMS recorded
    # tells which is newer (a file's time is the student's to set): neither counts, and
    # the fast one never wins aqua the bonus
    os.utime(tmp_path / "class" / "aqua-v0" / "puzzlesolver.py", (1_900_000_000, 1_900_000_000))
    (tmp_path / "teams.csv").write_text(
        "team,member\nrocket,1001\nrocket,S2\nmagma,alan@uni.edu\nmagma,1004\naqua,1005\n"
        "solo,1006\naqua-v0,1005\n"
    )
    results, graded, board = grade_and_rank(tmp_path, base, tmp_path / "class")
    undecided = "the team handed in twice and nothing tells which is newer: remove one"
    assert f"aqua-v0    python      {undecided}" in board.out
    assert f"aqua       python      {undecided}" in board.out
    assert "ranked 1 in the leaderboard session of" in winners_line(board)
    assert winners_line(board).endswith(": magma (magma), rocket (rocket)")
    members, done = csv_members(tmp_path, base, results)
    assert members == {
        ("aqua", ""): SLOWER,
        ("aqua-v0", ""): SLOWER,
        ("magma", "1004"): WON,
        ("magma", "alan@uni.edu"): WON,
        ("rocket", "1001"): WON,
        ("rocket", "S2"): WON,
        ("solo", "1006"): FAILED,
    }
    # Members known by any id of the gradebook (its ID, SIS User ID, SIS Login ID)
    grades, done = canvas_scores(tmp_path, base, results)
    scores = {sid: g["Scramble Squares (88)"] for sid, g in grades.items()}
    assert scores == {
        "1001": "17",
        "1002": "17",
        "1003": "17",
        "1004": "17",
        "1005": "",
        "1006": "1",
        "1007": "",
    }

    # An appeal makes `solo` pass every case: it was never timed, so no one gets the bonus.
    appeal = ["solo", "--case", "none", "--verdict", "AC", "--reason", "appeal granted"]
    assert cli(*base, "override", *appeal, "--results", results).code == 0
    members, done = csv_members(tmp_path, base, results)
    assert {bonus for _, bonus in members.values()} == {"0"}
    assert (
        "bonus: no speed bonus: the leaderboard session of" in done.out
        and "solo passes every case and was not timed then (WA on 1 case)" in done.out
    )
    grades, done = canvas_scores(tmp_path, base, results)
    scores = {sid: g["Scramble Squares (88)"] for sid, g in grades.items()}
    assert {scores.pop("1005"), scores.pop("1007")} == {""}  # aqua's, and no one's
    assert set(scores.values()) == {"2"}
    assert "and run `grader leaderboard --puzzles` again" in done.out
    cleared = cli(*base, "override", "solo", "--case", "none", "--clear", "--results", results)
    assert cleared.code == 0
    assert csv_members(tmp_path, base, results)[0][("rocket", "S2")] == WON

    # A winner hands in again: graded, not measured yet: no bonus, and it is named.
    (tmp_path / "class" / "rocket" / "puzzlesolver.py").write_text(FAST + "# again\n")
    assert cli(*base, "grade", tmp_path / "class", "--results", results).code == 0
    members, done = csv_members(tmp_path, base, results)
    assert {bonus for _, bonus in members.values()} == {"0"}
    assert "rocket was handed in again since: measure it" in done.out
    again = rank(tmp_path, base, results, seed=2)
    assert again.code == 0, again.err
    assert "session 2 recorded" in again.out
    members, done = csv_members(tmp_path, base, results)
    assert members[("rocket", "1001")] == WON and members[("aqua", "")] == SLOWER

    # A member the roster does not know: one line naming them; the others are exported.
    (tmp_path / "teams.csv").write_text((tmp_path / "teams.csv").read_text() + "magma,x999\n")
    grades, done = canvas_scores(tmp_path, base, results)
    assert done.err.count("\n") == 2  # this line, and the one on scores above the maximum
    assert (
        "1 team member(s) not in gradebook.csv, so given no score: x999 of magma (magma)"
        in done.err
    )
    assert grades["1003"]["Scramble Squares (88)"] == "17"


@pytest.mark.slow
def test_a_students_own_metadata_changes_nobodys_grade(tmp_path):
    """A class folder made by hand from what students handed in: Mallory's archive
    carried a `.lms.json` (exactly as an import writes one) naming Ada as her team-mate,
    submitted in 2030, and its files dated 2030. Ada keeps her own program's score, the
    class is graded, and the file is named."""
    manifest = make_cases(tmp_path / "cases", {"sample": SAMPLE_TEXT, "none": NO_SOLUTION})
    for sid, source in (("ada", REFERENCE), ("mallory", WRONG_PY)):
        (tmp_path / "class" / sid).mkdir(parents=True)
        (tmp_path / "class" / sid / "puzzlesolver.py").write_text(source)
    team = Team(members=(TeamMember("mallory", "Mallory"), TeamMember("ada", "Ada")))
    forged = SubmissionMeta("mallory", "gradescope", submitted_at="2030-01-01T00:00", team=team)
    write_meta(tmp_path / "scratch" / "mallory", forged)  # as the import would write it
    mallory = tmp_path / "class" / "mallory"
    shutil.copy(tmp_path / "scratch" / "mallory" / META_NAME, mallory / META_NAME)
    for path in mallory.iterdir():
        os.utime(path, (1_900_000_000, 1_900_000_000))
    (tmp_path / "course.toml").write_text("[limits]\nwall_seconds = 120\n")
    base = ["--course", tmp_path / "course.toml", "--manifest", manifest]
    results = tmp_path / "results"
    graded = cli(*base, "grade", tmp_path / "class", "--results", results)
    assert graded.code == 0, graded.err
    assert (
        f"1 folder(s) hold a {META_NAME} that grader import did not write (mallory): ignored"
        in graded.err
    )
    document = json.loads((results / "results.json").read_text())
    found = {s["id"]: (s["score"], s["team"]["source"]) for s in document["submissions"]}
    assert found == {"ada": (2, "alone"), "mallory": (0, "alone")}
    members, _ = csv_members(tmp_path, base, results)
    assert members[("ada", "ada")][0] == "2" and members[("mallory", "mallory")][0] == "0"


@pytest.mark.slow
def test_a_folder_name_that_is_not_utf8_keeps_its_team_through_the_bonus(tmp_path):
    """`unzip` of a Windows zip makes Latin-1 folder names: a correct program in one was
    "gone" for the leaderboard on every rerun, and nobody got the bonus."""
    base = board_class(tmp_path, BOARD + '\n[teams]\nfile = "teams.csv"\n')
    latin = os.fsdecode(b"equipe-caf\xe9")  # the name as Python holds those bytes
    for sid, source in ((latin, FAST), ("slow", SLOW)):
        (tmp_path / "class" / sid).mkdir(parents=True)
        (tmp_path / "class" / sid / "puzzlesolver.py").write_text(source)
    shown = "equipe-caf\\xe9"  # its id: the bytes that are not UTF-8 as \xNN
    (tmp_path / "teams.csv").write_text(f"team,member\n{shown},1001\n{shown},1002\nslow,1003\n")
    results, graded, board = grade_and_rank(tmp_path, base, tmp_path / "class")
    assert "gone" not in board.out, board.out
    assert winners_line(board).endswith(f": {shown} ({shown})"), board.out
    members, _ = csv_members(tmp_path, base, results)
    assert members[(shown, "1001")] == WON and members[(shown, "1002")] == WON
    assert members[("slow", "1003")] == SLOWER
    grades, _ = canvas_scores(tmp_path, base, results)
    assert grades["1001"][ASSIGNMENT] == "17" and grades["1003"][ASSIGNMENT] == "2"
