"""Classes of teams through the CLI, graded for real: who is in each team (from the
course's teams file, and from each LMS's download), listed by `grader teams`, `show`
and results.json, and bad team data named in one line before anything is graded."""

import json
import os
import shutil

import pytest

from tests.helpers import NO_SOLUTION, SAMPLE_TEXT, make_cases
from tests.test_lms_roundtrip import NO_SOLUTION_PY, REFERENCE, WRONG_PY, cli

COURSE = '[limits]\nwall_seconds = 120\n\n[teams]\nfile = "teams.csv"\n'


def hand_made(root):
    """A class folder made by hand: two teams of two, a student alone, and a team that
    handed in twice (`rocket-v1`, then `rocket`)."""
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


def test_grade_names_each_submissions_team_and_the_replaced_one(made):
    root, base, results, graded = made
    assert (
        "grader: replaced: rocket-v1 (rocket-v1 (teams file) handed in twice: its newer "
        "submission rocket counts: files modified" in graded.err
    )
    assert "not in teams.csv: solo (each graded as one student's)" in graded.err
    rows = {line.split()[0]: line for line in graded.out.splitlines() if line[:1].isalpha()}
    assert "rocket: 1001, 1002" in rows["rocket"] and "replaced by rocket" in rows["rocket-v1"]
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
    }
    assert teams["rocket-v1"]["replaced_by"] == "rocket"
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
    assert any("rocket-v1 (replaced by rocket)" in line for line in lines)
    assert f"3 teams, 5 students; teams file {root / 'teams.csv'}" in listed.out


def test_show_lists_the_members(made):
    root, base, results, graded = made
    shown = cli(*base, "show", "rocket", "--results", results)
    assert "team rocket (from teams file): 1001 (Ada Lovelace), 1002 (Grace Hopper)" in shown.out
    replaced = cli(*base, "show", "rocket-v1", "--results", results)
    assert "replaced by rocket: the team handed in twice, its newer submission counts" in (
        replaced.out
    )
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
