"""Feedback pages back into the LMS: every file of the zips `export canvas-feedback` and
`export moodle-feedback` is read as the LMS's own upload reads it (tests/lms_rules.py)
and must reach the submission it belongs to, and no other. The metadata comes from
importing downloads in the LMS's real layout."""

import pytest

from grader.course.submission_meta import read_meta
from grader.lms.canvas import feedback as canvas_feedback
from grader.lms.importer import import_archive
from grader.lms.moodle import feedback as moodle_feedback
from grader.lms.roster import read_roster
from tests.lms_archives import SOURCES, canvas_entry, download, moodle_entry, moodle_worksheet
from tests.lms_rules import canvas_feedback_reads, moodle_feedback_reads

pytestmark = pytest.mark.fast


def pages_of(into) -> tuple[dict, dict]:
    folders = sorted(p for p in into.iterdir() if p.is_dir())
    return (
        {f.name: f"<html>page of {f.name}</html>" for f in folders},
        {f.name: read_meta(f) for f in folders},
    )


def test_canvas_feedback_reaches_each_submission_through_its_own_attachment(tmp_path):
    entries = [
        (canvas_entry("Lovelace, Ada", 1001, 5001, "notes.txt"), "n"),
        (canvas_entry("Lovelace, Ada", 1001, 5002, "puzzlesolver-1.py"), "print(1)"),
        (canvas_entry("Hopper, Grace", 1002, 5003, "puzzlesolver.c", late=True), "int g;"),
        (canvas_entry("O'Connor-Smith, Seán", 1003, 5004, "puzzlesolver.py"), "print(3)"),
        (canvas_entry("Nguyen 2nd, Bao", 1004, 5005, "PuzzleSolver.java"), "class P{}"),
        # some schools name accounts by student number: Canvas would read it as the user id
        (canvas_entry("20231234", 1005, 5006, "puzzlesolver.py"), "print(5)"),
    ]
    into = tmp_path / "class"
    import_archive("canvas", download(tmp_path / "c.zip", entries), into, source_names=SOURCES)
    pages, metas = pages_of(into)
    metas["outsider"] = None
    pages["outsider"] = "<html>hand-made</html>"
    made = canvas_feedback.files(pages, metas, SOURCES)
    # Each submission's attachments, as Canvas holds them.
    attachments = {
        "1001": {"5001", "5002"},
        "1002": {"5003"},
        "1003": {"5004"},
        "1004": {"5005"},
        "1005": {"5006"},
    }
    found, ignored = canvas_feedback_reads(list(made.files), attachments)
    assert ignored == []
    assert {user: [made.files[n] for n in names] for user, names in found.items()} == {
        sid: [pages[sid]] for sid in ("1001", "1002", "1003", "1004", "1005")
    }
    # the comment's file takes the name of the attachment it answers: the program's
    assert found["1001"] == ["lovelaceada_1001_5002_feedback.html"]
    assert made.skipped == ["outsider: not imported from Canvas"]


def test_anonymous_canvas_submissions_wait_for_the_names(tmp_path):
    into = tmp_path / "class"
    archive = download(
        tmp_path / "c.zip", [(canvas_entry(None, "Q2q3x", 7001, "puzzlesolver.py"), "x")]
    )
    import_archive("canvas", archive, into, source_names=SOURCES)
    made = canvas_feedback.files(*pages_of(into), SOURCES)
    assert made.files == {}
    assert made.skipped[0].startswith("anon_Q2q3x: anonymous (no user id until Canvas reveals")


def test_moodle_team_feedback_reaches_every_member_of_its_own_group(tmp_path):
    """Moodle maps a team folder's number to a GROUP id: Team Magma's id is also Ann's
    participant id, and still only Magma's member gets Magma's page. The default group
    is under no number: its page is named, not lost without a word."""
    archive = download(
        tmp_path / "m.zip",
        [
            (moodle_entry("Team_Rocket", 1203, "puzzlesolver.c"), "int r;"),
            (moodle_entry("Default group", None, "puzzlesolver.c"), "int d;"),
            (moodle_entry("Team Magma", 1201, "puzzlesolver.c"), "int m;"),
        ],
    )
    sheet = moodle_worksheet(
        tmp_path / "w.csv",
        [
            {"id": 1201, "name": "Ann_Lee O'Hara", "group": "Team_Rocket"},
            {"id": 1202, "name": "Bo Lee", "group": "Team_Rocket"},
            {"id": 1204, "name": "Di Alone", "group": "Default group"},
            {"id": 1205, "name": "Ed Magma", "group": "Team Magma"},
        ],
        teams=True,
    )
    into = tmp_path / "class"
    import_archive("moodle", archive, into, roster=read_roster(sheet), source_names=SOURCES)
    pages, metas = pages_of(into)
    made = moodle_feedback.files(pages, metas)
    groups = {"1203": ["1201", "1202"], "1201": ["1205"]}  # as Moodle maps them
    found, ignored = moodle_feedback_reads(list(made.files), groups)
    assert ignored == []
    assert {pid: [made.files[entry] for entry, _ in got] for pid, got in found.items()} == {
        "1201": [pages["group-1203"]],
        "1202": [pages["group-1203"]],
        "1205": [pages["group-1201"]],
    }
    # the file Moodle stores: feedback.html (its path holds what follows the folder)
    stored = {path.rsplit("/", 1)[-1] for got in found.values() for _, path in got}
    assert stored == {"feedback.html"}
    assert "Team Rocket_1203_assignfeedback_file/feedback.html" in made.files
    assert made.skipped == [
        "default-group: Moodle's default group (students in no group): its zip upload "
        "gives a page to no one in no group; upload this page to each of them by hand, or "
        "put them in a group"
    ]


def test_moodle_feedback_reaches_each_participant(tmp_path):
    solo = download(
        tmp_path / "s.zip",
        [
            (moodle_entry("Cy_Solo", 1301, "puzzlesolver.c"), "int c;"),
            (moodle_entry("Ann_Lee O'Hara", 1302, "puzzlesolver.c"), "int a;"),
        ],
    )
    into = tmp_path / "class"
    import_archive("moodle", solo, into, source_names=SOURCES)
    pages, metas = pages_of(into)
    made = moodle_feedback.files(pages, metas)
    found, ignored = moodle_feedback_reads(list(made.files), {"1301", "1302", "1303"})
    assert ignored == [] and made.skipped == []
    assert {pid: [made.files[entry] for entry, _ in got] for pid, got in found.items()} == {
        "1301": [pages["1301"]],
        "1302": [pages["1302"]],
    }
    assert "Ann Lee OHara_1302_assignfeedback_file/feedback.html" in made.files
