"""grader import on the downloads Canvas and Moodle really hand out: every entry stamped
with the moment the zip was made, Moodle's folder namings (4.1 on and before, flat,
blind marking, teams), Canvas's anonymous grading, re-upload copies and text entries;
submission times only from a source that knows them."""

import json
from datetime import datetime, timedelta, timezone

import pytest

from grader.cli import main as grader_main
from grader.course import identity
from grader.course.submission_meta import META_NAME, Team, TeamMember, read_meta
from grader.lms.groups import GroupsError, read_groups
from grader.lms.importer import import_archive
from grader.lms.roster import read_roster
from grader.lms.times import read_times
from tests.helpers import named_in_code
from tests.lms_archives import (
    DOWNLOADED,
    SOURCES,
    canvas_entry,
    canvas_group_set,
    download,
    moodle_entry,
    moodle_worksheet,
)

pytestmark = pytest.mark.fast

ON_TIME = datetime(2026, 3, 1, 23, 30)
LATE = datetime(2026, 3, 3, 10, 5)


def files_of(folder) -> dict:
    return {
        str(p.relative_to(folder)): p.read_text()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and p.name != META_NAME
    }


def refused_names(result) -> dict:
    return {entry.name: entry.reason for entry in result.refused}


def moodle_member(pid: str, name: str) -> TeamMember:
    return TeamMember(pid, name, keys=((identity.MOODLE_PARTICIPANT, pid),))


def canvas_keys(user: str, sis: str, login: str = "") -> tuple:
    keys = ((identity.CANVAS_USER, user), (identity.CANVAS_SIS, sis))
    return keys + (((identity.CANVAS_LOGIN, login),) if login else ())


# ------------------------------------------------------------------ Moodle


@pytest.mark.parametrize(
    "folders, before_4_1",
    [(True, False), (True, True), (False, False)],
    ids=["folders-4.1", "folders-3.1-4.0", "flat"],
)
def test_moodle_times_come_from_the_worksheet_never_from_the_zip(tmp_path, folders, before_4_1):
    """Moodle stamps every entry with the download's moment (here 4 days after the
    deadline): taken as the submission time, everyone was 4 days late. The worksheet's
    "Last modified (submission)" is Moodle's own time for each participant."""
    archive = download(
        tmp_path / "moodle.zip",
        [
            (moodle_entry("Ada Lovelace", 1201, "puzzlesolver.c", **layout), "int a;\n")
            for layout in [{"folders": folders, "before_4_1": before_4_1}]
        ]
        + [
            (
                moodle_entry("Bo Lee", 1202, "puzzlesolver.py", folders=folders),
                "print(1)\n",
            )
        ],
    )
    sheet = moodle_worksheet(
        tmp_path / "worksheet.csv",
        [
            {"id": 1201, "name": "Ada Lovelace", "submitted": ON_TIME},
            {"id": 1202, "name": "Bo Lee", "submitted": LATE},
            {"id": 1203, "name": "Cy Absent", "submitted": None},
        ],
    )
    into = tmp_path / "class"
    result = import_archive(
        "moodle", archive, into, roster=read_roster(sheet), source_names=SOURCES
    )
    assert sorted(result.added) == ["1201", "1202"]
    ada, bo = read_meta(into / "1201"), read_meta(into / "1202")
    assert ada.submitted_at == ON_TIME.isoformat() and bo.submitted_at == LATE.isoformat()
    assert ada.time_source == "Last modified (submission) in worksheet.csv"
    assert ada.downloaded_at == DOWNLOADED.isoformat()
    assert result.no_submission == ["Cy Absent"] and result.no_time == []
    assert any(
        "every entry carries one time, 2026-03-05 09:12:44: when Moodle made the download" in n
        for n in result.notes
    )


def test_moodle_blind_marking_folders_are_participants(tmp_path):
    archive = download(
        tmp_path / "moodle.zip",
        [
            (moodle_entry("Participant", 1201, "puzzlesolver.c"), "int a;\n"),
            (moodle_entry("Participant", 1202, "puzzlesolver.c", folders=False), "int b;\n"),
        ],
    )
    sheet = moodle_worksheet(
        tmp_path / "worksheet.csv",
        [{"id": 1201, "submitted": ON_TIME}, {"id": 1202, "submitted": LATE}],
        blind=True,
    )
    into = tmp_path / "class"
    result = import_archive("moodle", archive, into, roster=read_roster(sheet))
    assert sorted(result.added) == ["1201", "1202"] and result.refused == []
    assert read_meta(into / "1202").submitted_at == LATE.isoformat()
    assert read_meta(into / "1201").lms_user_id == "1201"


def team_download(tmp_path):
    """A 4.1 team assignment: one folder per group, named by the GROUP's id, and the
    students in no group under `Default group` without any id."""
    return download(
        tmp_path / "moodle.zip",
        [
            (moodle_entry("Team_Rocket", 1203, "puzzlesolver.c"), "int rocket;\n"),
            (moodle_entry("Team_Rocket", 1203, "lib/util.h"), "#pragma once\n"),
            (moodle_entry("Default group", None, "puzzlesolver.py"), "print('none')\n"),
        ],
    )


def test_moodle_team_folders_are_teams_never_the_participant_holding_that_number(tmp_path):
    """Group 1203's folder went to participant 1203 (Cy, in another group), and the
    default group's was refused. Through the worksheet's Group column a team folder
    maps to its members, with their time."""
    sheet = moodle_worksheet(
        tmp_path / "worksheet.csv",
        [
            {"id": 1201, "name": "Ada Lovelace", "group": "Team_Rocket", "submitted": LATE},
            {"id": 1202, "name": "Bo Lee", "group": "Team_Rocket", "submitted": LATE},
            {"id": 1203, "name": "Cy Other", "group": "Team Magma", "submitted": None},
            {"id": 1204, "name": "Di Alone", "group": "Default group", "submitted": ON_TIME},
        ],
        teams=True,
    )
    into = tmp_path / "class"
    result = import_archive(
        "moodle", team_download(tmp_path), into, roster=read_roster(sheet), source_names=SOURCES
    )
    assert sorted(result.added) == ["default-group", "group-1203"] and result.refused == []
    assert not (into / "1203").exists()
    assert files_of(into / "group-1203") == {
        "puzzlesolver.c": "int rocket;\n",
        "lib/util.h": "#pragma once\n",
    }
    rocket, default = read_meta(into / "group-1203"), read_meta(into / "default-group")
    assert rocket.team == Team(
        group_id="1203",
        group_name="Team Rocket",
        members=(moodle_member("1201", "Ada Lovelace"), moodle_member("1202", "Bo Lee")),
    )
    assert rocket.name == "Team Rocket" and rocket.lms_user_id == ""
    assert set(rocket.ids()) >= {"1201", "1202"} and "1203" not in rocket.ids()
    assert rocket.submitted_at == LATE.isoformat()
    assert default.team == Team(
        group_name="Default group", default_group=True, members=(moodle_member("1204", "Di Alone"),)
    )
    assert default.submitted_at == ON_TIME.isoformat()
    assert result.no_submission == ["Cy Other"]


def test_moodle_teams_are_told_without_the_worksheet(tmp_path):
    """The default group's id-less folder says the assignment has teams; without one,
    --teams does. The members are then unknown, never guessed."""
    into = tmp_path / "class"
    result = import_archive("moodle", team_download(tmp_path), into, source_names=SOURCES)
    assert sorted(result.added) == ["default-group", "group-1203"]
    assert read_meta(into / "group-1203").team == Team(group_id="1203", group_name="Team Rocket")

    only_groups = download(
        tmp_path / "groups.zip", [(moodle_entry("Team Magma", 1207, "puzzlesolver.c"), "int m;\n")]
    )
    assert import_archive("moodle", only_groups, tmp_path / "a").added == ["1207"]
    assert import_archive("moodle", only_groups, tmp_path / "b", teams=True).added == ["group-1207"]


def test_moodle_team_members_unknown_when_two_groups_clean_alike(tmp_path):
    sheet = moodle_worksheet(
        tmp_path / "worksheet.csv",
        [
            {"id": 1201, "name": "Ada Lovelace", "group": "Team_Rocket", "submitted": LATE},
            {"id": 1205, "name": "Ed Twin", "group": "Team Rocket", "submitted": ON_TIME},
        ],
        teams=True,
    )
    into = tmp_path / "class"
    result = import_archive("moodle", team_download(tmp_path), into, roster=read_roster(sheet))
    assert read_meta(into / "group-1203").team.members == ()
    assert any("two groups of the worksheet are named 'Team Rocket'" in n for n in result.notes)


def test_a_worksheet_time_moodle_did_not_write_in_english_is_named(tmp_path):
    archive = download(tmp_path / "m.zip", [(moodle_entry("Ada L", 1201, "puzzlesolver.c"), "x")])
    sheet = moodle_worksheet(tmp_path / "w.csv", [{"id": 1201, "submitted": ON_TIME}])
    sheet.write_text(sheet.read_text().replace("Sunday, 1 March 2026", "Sonntag, 1. März 2026"))
    result = import_archive("moodle", archive, tmp_path / "c", roster=read_roster(sheet))
    assert read_meta(tmp_path / "c" / "1201").submitted_at is None
    assert any("is not a time Moodle writes in English" in n for n in result.notes)
    assert result.no_time == ["1201"]


# ------------------------------------------------------------------ Canvas


def test_a_canvas_group_download_names_every_member_through_the_group_set(tmp_path):
    """Canvas downloads one member's submission per group: the group set export says
    whose team it is, and keeps each member's SIS id and login for the roster."""
    archive = download(
        tmp_path / "canvas.zip",
        [
            (canvas_entry("Hopper, Grace", 1002, 5002, "puzzlesolver.py"), "x"),
            (canvas_entry("Noether, Emmy", 1004, 5004, "puzzlesolver.py"), "y"),
        ],
    )
    groups = canvas_group_set(
        tmp_path / "groups.csv",
        [
            {
                "name": "Ada Lovelace",
                "id": 1001,
                "sis": "S-1001",
                "login": "ada",
                "group": "Rocket",
                "group_id": 71,
            },
            {
                "name": "Grace Hopper",
                "id": 1002,
                "sis": "S-1002",
                "group": "Rocket",
                "group_id": 71,
            },
            {"name": "Alan Turing", "id": 1003, "group": "Magma", "group_id": 72},
            {"name": "Emmy Noether", "id": 1004},
        ],
    )
    into = tmp_path / "class"
    result = import_archive("canvas", archive, into, groups=read_groups(groups))
    grace = read_meta(into / "1002")
    assert grace.team == Team(
        group_id="71",
        group_name="Rocket",
        members=(
            TeamMember(
                "1001", "Ada Lovelace", ("S-1001", "ada"), canvas_keys("1001", "S-1001", "ada")
            ),
            TeamMember("1002", "Grace Hopper", ("S-1002",), canvas_keys("1002", "S-1002")),
        ),
    )
    assert {"1001", "S-1001", "ada", "1002", "S-1002"} <= grace.ids()
    assert read_meta(into / "1004").team is None
    assert "groups.csv: 1004: in no group of the set: each graded as one student's" in result.notes


def test_a_group_set_canvas_did_not_write_is_refused_by_name(tmp_path):
    path = tmp_path / "groups.csv"
    path.write_text("name,user,group\nAda,1001,Rocket\n")
    with pytest.raises(GroupsError, match="not Canvas's group set export: no canvas_user_id"):
        read_groups(path)
    path.write_text("canvas_user_id,group_name\n1001,Rocket\n1001,Magma\n")
    with pytest.raises(GroupsError, match=r"line 3: user 1001 is in two groups of the set"):
        read_groups(path)


@pytest.mark.parametrize(
    "kind, option, message",
    [
        ("canvas", ["--teams"], "--teams needs Canvas's group set export"),
        ("moodle", ["--teams", "groups.csv"], "--teams takes no file for Moodle"),
        ("gradescope", ["--teams"], "--teams is for Canvas and Moodle"),
    ],
)
def test_teams_is_a_file_for_canvas_and_a_switch_for_moodle(
    tmp_path, capsys, kind, option, message
):
    archive = download(tmp_path / "x.zip", [("x", "y")])
    code = grader_main(["import", kind, str(archive), *option, "--into", str(tmp_path / "c")])
    err = capsys.readouterr().err
    assert code == 2 and message in err and err.count("\n") == 1


def test_canvas_times_come_from_its_api_never_from_the_zip(tmp_path):
    """A Canvas student one hour late was charged four days: the zip's time is the
    download's. The LATE marker stays Canvas's; the days come from `submitted_at`."""
    archive = download(
        tmp_path / "canvas.zip",
        [
            (canvas_entry("Hopper, Grace", 1002, 5002, "puzzlesolver.py", late=True), "x"),
            (canvas_entry("Turing, Alan", 1003, 5003, "puzzlesolver.py"), "y"),
            (canvas_entry("Noether, Emmy", 1004, 5004, "puzzlesolver.py"), "z"),
        ],
    )
    api = tmp_path / "submissions.json"  # GET /api/v1/courses/:c/assignments/:a/submissions
    api.write_text(
        json.dumps(
            [
                {"id": 1, "user_id": 1002, "submitted_at": "2026-03-02T05:59:00Z", "late": True},
                {"id": 2, "user_id": 1003, "submitted_at": "2026-03-01T20:00:00Z"},
                {"id": 3, "user_id": 1004, "submitted_at": None},
            ]
        )
    )
    into = tmp_path / "class"
    result = import_archive("canvas", archive, into, times=read_times(api))
    grace = read_meta(into / "1002")
    assert grace.submitted == datetime(2026, 3, 2, 5, 59, tzinfo=timezone.utc)
    assert grace.time_source == "submitted_at in submissions.json" and grace.late_marker
    assert read_meta(into / "1004").submitted_at is None and result.no_time == ["1004"]
    assert not any("holds no submission times" in n for n in result.notes)


def test_canvas_times_as_a_csv_and_what_cannot_be_read(tmp_path):
    path = tmp_path / "times.csv"
    path.write_text("user_id,submitted_at\n1002,2026-03-02T05:59:00Z\n1003,yesterday\n")
    times = read_times(path)
    assert times.by_id == {"1002": datetime(2026, 3, 2, 5, 59, tzinfo=timezone.utc)}
    assert times.unreadable == ("1003: submitted_at 'yesterday' is not an ISO 8601 time",)
    path.write_text("name,when\nx,y\n")
    with pytest.raises(Exception, match="expected the columns submitted_at and user_id"):
        read_times(path)


def test_canvas_copies_get_their_name_back_even_the_uuid_ones(tmp_path):
    """From the 8th upload of one name Canvas writes `puzzlesolver-<uuid>.py`: it kept
    that name, so a correct program scored 0 (CE, no puzzlesolver.py)."""
    uuid = "1b4e28ba-2fa1-41d2-883f-0016d3cca427"
    archive = download(
        tmp_path / "canvas.zip",
        [
            (canvas_entry("Lee, Ann", 1004, 5005, f"puzzlesolver-{uuid}.py"), "print('uuid')\n"),
            (canvas_entry("Lee, Ann", 1004, 5001, "puzzlesolver-7.py"), "print('seventh')\n"),
            (canvas_entry("Roe, Al", 1005, 5010, f"PuzzleSolver-{uuid}.java"), "class P{}\n"),
            (canvas_entry("Roe, Al", 1005, 5011, f"notes-{uuid}.txt"), "n\n"),
        ],
    )
    into = tmp_path / "class"
    result = import_archive("canvas", archive, into, source_names=SOURCES)
    assert files_of(into / "1004") == {"puzzlesolver.py": "print('uuid')\n"}
    assert files_of(into / "1005") == {
        "PuzzleSolver.java": "class P{}\n",
        f"notes-{uuid}.txt": "n\n",
    }
    assert read_meta(into / "1004").attachments == {"puzzlesolver.py": "5005"}
    assert any("puzzlesolver-7.py dropped" in n for n in result.notes)


def test_canvas_anonymous_grading_imports_under_the_anonymous_ids(tmp_path):
    archive = download(
        tmp_path / "canvas.zip",
        [
            (canvas_entry(None, "Q2q3x", 70004, "puzzlesolver.py"), "print(1)\n"),
            (canvas_entry(None, "Zk9aB", 70005, "puzzlesolver.c", late=True), "int z;\n"),
            (canvas_entry(None, "Zk9aB", None, kind="text"), "<p>typed</p>"),
        ],
    )
    assert canvas_entry(None, "Zk9aB", 70005, "x.c", late=True) == "LATE_anon_Zk9aB_70005_x.c"
    into = tmp_path / "class"
    result = import_archive("canvas", archive, into, source_names=SOURCES)
    assert sorted(result.added) == ["anon_Q2q3x", "anon_Zk9aB"]
    meta = read_meta(into / "anon_Zk9aB")
    assert meta.anonymous_id == "Zk9aB" and meta.lms_user_id == "" and meta.late_marker
    assert refused_names(result) == {
        "anon_Zk9aB_text.html": "Canvas's online text entry (typed into Canvas), not a submitted file"
    }


def test_canvas_text_and_link_entries_are_named_for_what_they_are(tmp_path):
    archive = download(
        tmp_path / "canvas.zip",
        [
            (canvas_entry("Doe, Jane", 1002, None, kind="text"), "<p>my answer</p>"),
            (canvas_entry("Roe, Al", 1003, None, kind="url", late=True), "<html>"),
            (canvas_entry("Roe, Al", 1003, 5003, "puzzlesolver.py"), "print(3)\n"),
        ],
    )
    result = import_archive("canvas", archive, tmp_path / "class", source_names=SOURCES)
    assert refused_names(result) == {
        "doejane_1002_text.html": "Canvas's online text entry (typed into Canvas), not a "
        "submitted file",
        "roeal_LATE_1003_link.html": "Canvas's website URL submission (a link), not a "
        "submitted file",
    }
    assert result.added == ["1003"]


# ------------------------------------------------------------------ either


def test_an_import_that_yields_no_student_exits_2_with_the_reason(tmp_path, capsys):
    """A Canvas download imported as Moodle's: every entry refused, "0 added", exit 0."""
    archive = download(
        tmp_path / "canvas.zip", [(canvas_entry("Doe, Jane", 1002, 5002, "puzzlesolver.c"), "x")]
    )
    code = grader_main(["import", "moodle", str(archive), "--into", str(tmp_path / "c")])
    captured = capsys.readouterr()
    assert code == 2
    assert "refused: doejane_1002_5002_puzzlesolver.c: not in a Moodle participant folder" in (
        captured.out
    )
    assert captured.err.count("\n") == 1 and "no student imported from this moodle download: " in (
        captured.err
    )
    assert "all 1 entries were refused" in captured.err


def test_an_older_download_never_replaces_a_newer_one_by_when_each_was_made(tmp_path):
    """No submission times: which download is newer is still known, from when the LMS
    made each one (every entry's time)."""
    old = download(
        tmp_path / "v1.zip",
        [(canvas_entry("Doe, Jane", 1002, 5002, "puzzlesolver.py"), "print('v1')\n")],
        at=DOWNLOADED,
    )
    new = download(
        tmp_path / "v2.zip",
        [(canvas_entry("Doe, Jane", 1002, 6002, "puzzlesolver.py"), "print('v2')\n")],
        at=DOWNLOADED + timedelta(days=1),
    )
    into = tmp_path / "class"
    import_archive("canvas", new, into, source_names=SOURCES)
    result = import_archive("canvas", old, into, source_names=SOURCES)
    assert [k.split(" ")[0] for k in result.kept_newer] == ["1002"]
    assert files_of(into / "1002") == {"puzzlesolver.py": "print('v2')\n"}


def test_every_lms_is_declared_once_and_the_schemas_follow():
    """grader/lms/systems.py declares each LMS; results.json's team sources are its
    names and the two others; outside grader/lms/, only the modules listed here name
    an LMS in code (each says why), so a new mention is a decision, not a drift."""
    from grader.lms.systems import REGISTRY
    from grader.schemas import schema as load_schema

    schema = load_schema("results")
    team = schema["properties"]["submissions"]["items"]["properties"]["team"]
    assert set(team["properties"]["source"]["enum"]) == {*REGISTRY, "teams file", "alone"}
    assert named_in_code(set(REGISTRY), "lms") == {
        # .lms.json of format 1 kept untyped ids: which kind of key each LMS's was
        "grader/course/submission_meta.py": {"canvas", "moodle", "gradescope"},
    }


@pytest.mark.parametrize(
    "lms, given, said",
    [
        (
            "moodle",
            {"times": "t.json"},
            "--times is for Canvas: Moodle's times come with its own files",
        ),
        ("canvas", {"grades": "g.csv"}, "--grades is for GitHub Classroom"),
        ("gradescope", {"accepted": "a.json"}, "--accepted is for GitHub Classroom"),
        ("github-classroom", {"roster": None}, "github-classroom needs the classroom's roster"),
        ("canvas", {"teams": "", "roster": "r.csv"}, "--teams needs Canvas's group set export"),
        ("moodle", {"teams": "g.csv"}, "--teams takes no file for Moodle (g.csv)"),
        ("moodle", {"teams": "", "roster": "w.csv"}, None),
        ("github-classroom", {"roster": "r.csv", "grades": "g.csv"}, None),
    ],
)
def test_import_options_are_refused_by_what_each_lms_declares(lms, given, said):
    """Who takes an option is read from the declarations: the message names them all."""
    from grader.lms.systems import REGISTRY, option_refusal

    found = option_refusal(REGISTRY[lms], given)
    if said is None:
        assert found is None
    else:
        assert found is not None and found.startswith(said), found
