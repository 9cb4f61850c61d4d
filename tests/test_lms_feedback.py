"""Feedback pages back into the LMS: every file of the zips `export canvas-feedback` and
`export moodle-feedback` is read as the LMS's own upload reads it (tests/lms_rules.py)
and must reach the submission it belongs to, and no other. The metadata comes from
importing downloads in the LMS's real layout."""

import pytest

from grader.lms import feedback
from grader.lms.importer import import_archive
from grader.lms.roster import read_roster
from grader.submission_meta import read_meta
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
    made = feedback.canvas(pages, metas, SOURCES)
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
    made = feedback.canvas(*pages_of(into), SOURCES)
    assert made.files == {}
    assert made.skipped[0].startswith("anon_Q2q3x: anonymous (no user id until Canvas reveals")


def test_moodle_feedback_reaches_each_participant_and_every_team_member(tmp_path):
    archive = download(
        tmp_path / "m.zip",
        [
            (moodle_entry("Team_Rocket", 1203, "puzzlesolver.c"), "int r;"),
            (moodle_entry("Default group", None, "puzzlesolver.c"), "int d;"),
            (moodle_entry("Team Magma", 1207, "puzzlesolver.c"), "int m;"),
        ],
    )
    sheet = moodle_worksheet(
        tmp_path / "w.csv",
        [
            {"id": 1201, "name": "Ann_Lee O'Hara", "group": "Team_Rocket"},
            {"id": 1202, "name": "Bo Lee", "group": "Team_Rocket"},
            {"id": 1204, "name": "Di Alone", "group": "Default group"},
        ],
        teams=True,
    )
    into = tmp_path / "class"
    import_archive("moodle", archive, into, roster=read_roster(sheet), source_names=SOURCES)
    solo = download(
        tmp_path / "s.zip", [(moodle_entry("Cy_Solo", 1301, "puzzlesolver.c"), "int c;")]
    )
    import_archive("moodle", solo, into, source_names=SOURCES)
    pages, metas = pages_of(into)
    made = feedback.moodle(pages, metas)
    found, ignored = moodle_feedback_reads(list(made.files), {"1201", "1202", "1204", "1301"})
    assert ignored == []
    assert {pid: [made.files[n] for n in made.files if f"_{pid}_" in n] for pid in found} == {
        "1201": [pages["group-1203"]],
        "1202": [pages["group-1203"]],
        "1204": [pages["default-group"]],
        "1301": [pages["1301"]],
    }
    # the file Moodle stores: feedback.html (its path holds what follows the folder)
    assert all(
        [f.rsplit("/", 1)[-1] for f in files] == ["feedback.html"] for files in found.values()
    )
    assert "Ann Lee OHara_1201_assignfeedback_file/feedback.html" in made.files
    assert made.skipped == [
        "group-1207: a team whose members are not known (import with the grading worksheet, "
        "--roster)"
    ]
