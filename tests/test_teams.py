"""The team model (grader.intake.teams) on real class folders: each source of teams, in its
order of precedence, and the bad team data named in one line."""

import os
from pathlib import Path

import pytest

from grader.course import identity
from grader.course.submission_meta import META_NAME, SubmissionMeta, Team, TeamMember, write_meta
from grader.intake.teams import Member, TeamsError, resolve

pytestmark = pytest.mark.fast


def folder(root: Path, sid: str, meta: SubmissionMeta | None = None, mtime: float = 0) -> Path:
    path = root / sid
    path.mkdir(parents=True)
    (path / "puzzlesolver.py").write_text("print()\n")
    if mtime:
        os.utime(path / "puzzlesolver.py", (mtime, mtime))
    if meta is not None:
        write_meta(path, meta)
    return path


def pairs(*paths: Path) -> list[tuple[str, Path]]:
    return [(p.name, p) for p in paths]


def gradescope(sid: str, submitted: str, *members: tuple[str, str]) -> SubmissionMeta:
    return SubmissionMeta(
        sid,
        "gradescope",
        name=" & ".join(name for _, name in members),
        submitted_at=submitted,
        team=Team(members=tuple(TeamMember(i, n) for i, n in members)),
    )


def test_a_hand_made_class_takes_its_teams_from_the_teams_file(tmp_path):
    rocket, solo = folder(tmp_path, "rocket"), folder(tmp_path, "solo")
    file = tmp_path / "teams.csv"
    file.write_text(
        "team,member,name\nrocket,1001,Ada\nrocket,S-1002,Grace\nrocket,1001,Ada\nghost,1009,\n"
    )
    teams = resolve(pairs(rocket, solo), file)
    anyone = identity.ANY  # a teams file says no more than "an id the roster knows"
    assert teams.of("rocket").members == (
        Member("1001", "Ada", keys=((anyone, "1001"),)),
        Member("S-1002", "Grace", keys=((anyone, "S-1002"),)),
    )
    assert teams.of("rocket").source == "teams file" and teams.of("rocket").counts
    assert teams.of("solo").members == (Member("solo", keys=((anyone, "solo"),)),)
    assert teams.of("solo").source == "alone"
    assert teams.notes == (
        f"{file}: team 'ghost' names no submission folder of the class (its members have "
        "no submission)",
        "not in teams.csv: solo (each graded as one student's)",
    )
    assert teams.as_json("rocket")["members"][1] == {
        "id": "S-1002",
        "name": "Grace",
        "other_ids": [],
    }


def test_what_the_lms_says_takes_precedence_over_the_teams_file(tmp_path):
    pair = folder(
        tmp_path, "S200", gradescope("S200", "2026-03-01T10:00:00", ("S200", "A"), ("S201", "B"))
    )
    canvas = folder(tmp_path, "1003", SubmissionMeta("1003", "canvas", name="Turing, Alan"))
    file = tmp_path / "teams.csv"
    file.write_text("team,member\nS200,S999\n1003,1003\n1003,1004\n")
    teams = resolve(pairs(pair, canvas), file)
    assert [m.id for m in teams.of("S200").members] == ["S200", "S201"]
    assert teams.of("S200").source == "gradescope" and teams.of("S200").name == "A & B"
    # Canvas recorded no team for 1003: the teams file says who is in it
    assert [m.id for m in teams.of("1003").members] == ["1003", "1004"]
    assert any("team 'S200': the Gradescope import recorded its team" in n for n in teams.notes)


def test_a_student_alone_is_known_by_the_keys_the_import_recorded(tmp_path):
    keys = ((identity.CANVAS_USER, "1001"), (identity.CANVAS_SIS, "S-1001"))
    meta = SubmissionMeta("1001", "canvas", name="Ada", other_ids=("S-1001",), keys=keys)
    member = resolve(pairs(folder(tmp_path, "1001", meta))).of("1001").members[0]
    assert member == Member("1001", "Ada", ("S-1001",), keys)


def test_a_student_s_own_metadata_names_nobody(tmp_path):
    """A `.lms.json` handed in (in a class folder made by hand) is not the import's: its
    team of two, with someone else in it, is not believed."""
    ada = folder(tmp_path, "ada")
    forged = gradescope("ada", "2030-01-01T00:00:00", ("ada", "Ada"), ("bo", "Bo"))
    scratch = folder(tmp_path / "elsewhere", "ada", forged)
    (ada / META_NAME).write_bytes((scratch / META_NAME).read_bytes())
    team = resolve(pairs(ada)).of("ada")
    assert team.source == "alone" and [m.id for m in team.members] == ["ada"]


def test_a_student_in_two_teams_is_one_line_naming_both(tmp_path):
    moodle = SubmissionMeta(
        "group-12",
        "moodle",
        team=Team("12", "Team Rocket", members=(TeamMember("31", "Ada"), TeamMember("32", "Bo"))),
    )
    rocket, other = folder(tmp_path, "group-12", moodle), folder(tmp_path, "pair")
    file = tmp_path / "teams.csv"
    file.write_text("team,member\npair,32\npair,33\n")
    with pytest.raises(TeamsError) as error:
        resolve(pairs(rocket, other), file)
    assert str(error.value) == (
        "a student in two teams: 32 (Bo) is in 'Team Rocket' (group-12, moodle) and in "
        "pair (teams file)"
    )


def test_a_team_that_handed_in_twice_counts_its_newer_submission(tmp_path):
    """Gradescope names a folder by its first submitter: a team whose order changed between
    two downloads has two folders (an import keeps the absent one)."""
    old = folder(
        tmp_path, "S200", gradescope("S200", "2026-03-01T10:00:00", ("S200", "A"), ("S201", "B"))
    )
    new = folder(
        tmp_path, "S201", gradescope("S201", "2026-03-02T09:30:00", ("S201", "B"), ("S200", "A"))
    )
    teams = resolve(pairs(old, new))
    assert teams.replaced == {"S200": "S201"}
    assert not teams.of("S200").counts and teams.of("S201").counts
    assert teams.notes == (
        "replaced: S200 ('A & B' (S200, gradescope) handed in twice: its newer submission "
        "S201 counts: submitted 2026-03-02 09:30:00, S200 submitted 2026-03-01 10:00:00)",
    )


def test_without_the_lms_s_times_neither_counts_whatever_the_files_say(tmp_path):
    """A file's time is the student's to set (an archive carries it): a team's two
    submissions without the LMS's times count for no one, and the class is graded."""
    file = tmp_path / "teams.csv"
    file.write_text("team,member\nv1,ada\nv1,bo\nv2,bo\nv2,ada\n")
    v1, v2 = (
        folder(tmp_path, "v1", mtime=1_700_000_000),
        folder(tmp_path, "v2", mtime=1_900_000_000),
    )
    teams = resolve(pairs(v1, v2), file)
    assert teams.replaced == {} and not teams.of("v1").counts and not teams.of("v2").counts
    assert teams.notes == (
        "v1 (teams file) handed in twice (v1, v2) and no submission time of the LMS tells "
        "which is newer (the files' own times are the student's to set): neither counts "
        "until you remove the older folder",
    )
    assert teams.as_json("v2")["undecided"] == teams.notes[0]


@pytest.mark.parametrize(
    "text, message",
    [
        ("folder,student\nx,1\n", "the teams file needs a header with the columns 'team'"),
        ("team,member\nx,\n", "line 2: no member"),
        ("team,member\n,1001\n", "line 2: no team"),
        (b"team,member\nx,\xff\n", "not UTF-8 text"),
    ],
)
def test_a_bad_teams_file_is_one_line_naming_it(tmp_path, text, message):
    file = tmp_path / "teams.csv"
    file.write_bytes(text if isinstance(text, bytes) else text.encode())
    with pytest.raises(TeamsError) as error:
        resolve(pairs(folder(tmp_path, "x")), file)
    assert message in str(error.value) and str(file) in str(error.value)
    assert "\n" not in str(error.value)
    with pytest.raises(TeamsError, match="cannot read the teams file"):
        resolve([], tmp_path / "missing.csv")
