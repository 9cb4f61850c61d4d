"""Each student judged on their own due date: Canvas's cached_due_date (its overrides and
extensions), Moodle's extension in the worksheet's Status and its per-student "Due
date", and the course's extensions file, which comes first. Files built as each LMS
writes them; lateness computed as every command computes it."""

import json
from datetime import datetime, timezone
from pathlib import Path

import pytest

from grader.course import identity
from grader.course.config import load_config
from grader.course.late import Due, LatePolicy, assess, lateness_of
from grader.course.submission_meta import SubmissionMeta, Team, TeamMember, read_meta, write_meta
from grader.intake.extensions import (
    Extension,
    ExtensionsError,
    class_lateness,
    read_extensions,
    submission_dues,
)
from grader.intake.teams import resolve
from grader.lms.groups import read_groups
from grader.lms.importer import import_archive
from grader.lms.roster import read_roster
from grader.lms.times import read_times
from tests.helpers import reports_of
from tests.lms_archives import (
    SOURCES,
    canvas_entry,
    canvas_group_set,
    download,
    moodle_entry,
    moodle_worksheet,
)

pytestmark = pytest.mark.fast

DEADLINE = datetime(2026, 3, 1, 23, 59)  # the course's, on its clock (UTC here)
POLICY = LatePolicy(DEADLINE, 0, 10, 100, timezone="UTC")
UTC = timezone.utc


# ------------------------------------------------------------------ Canvas


def test_canvas_charges_from_each_student_s_own_due_date(tmp_path):
    """The Submissions API record Canvas gives (--times): Ada's extension to 5 March,
    handed in 20 h after it: 1 day late (Canvas says so too: seconds_late 72000), 1.8
    of 2; Grace, due with the course, 5 days."""
    archive = download(
        tmp_path / "submissions.zip",
        [
            (canvas_entry("Lovelace, Ada", 1001, 5001, "puzzlesolver.py", late=True), "a\n"),
            (canvas_entry("Hopper, Grace", 1002, 5002, "puzzlesolver.py", late=True), "g\n"),
        ],
    )
    api = [
        {"id": 71, "user_id": 1001, "submitted_at": "2026-03-06T19:59:00Z",
         "cached_due_date": "2026-03-05T23:59:00Z", "seconds_late": 72000, "late": True},
        {"id": 72, "user_id": 1002, "submitted_at": "2026-03-06T19:59:00Z",
         "cached_due_date": "2026-03-01T23:59:00Z", "seconds_late": 417600, "late": True},
    ]  # fmt: skip
    times = tmp_path / "submissions.json"
    times.write_text(json.dumps(api))
    into = tmp_path / "class"
    import_archive("canvas", archive, into, source_names=SOURCES, times=read_times(times))
    ada = read_meta(into / "1001")
    assert ada.due == datetime(2026, 3, 5, 23, 59, tzinfo=UTC)
    assert ada.due_source == "Canvas's cached_due_date in submissions.json"
    late = lateness_of(reports_of(into), POLICY)
    assert (late["1001"].days_late, late["1001"].final(2.0)) == (1, 1.8)
    assert late["1001"].note == (
        "1 day late: -10% (due 2026-03-05 23:59+00:00: Canvas's cached_due_date in "
        "submissions.json)"
    )
    assert late["1001"].due_at == "2026-03-05T23:59:00+00:00"
    assert (late["1002"].days_late, late["1002"].final(2.0)) == (5, 1.0)


def test_a_canvas_group_is_due_when_its_latest_member_is(tmp_path):
    """Canvas's group download holds the uploader's file; its group set names the team,
    and each member has their own cached_due_date (Grace's extension to 5 March)."""
    archive = download(
        tmp_path / "submissions.zip",
        [(canvas_entry("Lovelace, Ada", 1001, 5001, "puzzlesolver.py"), "a\n")],
    )
    groups = canvas_group_set(
        tmp_path / "groups.csv",
        [
            {"name": "Ada Lovelace", "id": 1001, "group": "Rocket", "group_id": 77},
            {"name": "Grace Hopper", "id": 1002, "group": "Rocket", "group_id": 77},
        ],
    )
    api = [
        {"user_id": 1001, "submitted_at": "2026-03-04T12:00:00Z",
         "cached_due_date": "2026-03-01T23:59:00Z"},
        {"user_id": 1002, "submitted_at": "2026-03-04T12:00:00Z",
         "cached_due_date": "2026-03-05T23:59:00Z"},
    ]  # fmt: skip
    (tmp_path / "times.json").write_text(json.dumps(api))
    into = tmp_path / "class"
    import_archive(
        "canvas", archive, into, source_names=SOURCES,
        times=read_times(tmp_path / "times.json"), groups=read_groups(groups),
    )  # fmt: skip
    (team,) = reports_of(into)
    late = lateness_of([team], POLICY)[team.submission.id]
    assert late.days_late == 0 and late.due_at == "2026-03-05T23:59:00+00:00"


# ------------------------------------------------------------------ Moodle

STATUS_VERSIONS = ["4.1", "4.4.3", "4.4.12", "4.5.0", "4.5.5"]


@pytest.mark.parametrize("version", STATUS_VERSIONS)
def test_moodle_extension_in_the_worksheet_status(tmp_path, version):
    """ "Submitted for grading - Extension granted until: Thursday, 12 March 2026, 11:59
    PM" (4.5 ends it with " -  - "): Ada, who handed in on 10 March, is on time; Bo,
    without one, 9 days late."""
    archive = download(
        tmp_path / "moodle.zip",
        [
            (moodle_entry("Ada Lovelace", 1201, "puzzlesolver.py"), "a\n"),
            (moodle_entry("Bo Lee", 1202, "puzzlesolver.py"), "b\n"),
        ],
    )
    tenth = datetime(2026, 3, 10, 10, 0)
    sheet = moodle_worksheet(
        tmp_path / "worksheet.csv",
        [
            {"id": 1201, "name": "Ada Lovelace", "submitted": tenth,
             "extension": datetime(2026, 3, 12, 23, 59)},
            {"id": 1202, "name": "Bo Lee", "submitted": tenth},
        ],
        version=version,
    )  # fmt: skip
    into = tmp_path / "class"
    import_archive("moodle", archive, into, roster=read_roster(sheet), source_names=SOURCES)
    late = lateness_of(reports_of(into), POLICY)
    assert (late["1201"].percent, late["1201"].final(2.0)) == (0, 2.0)
    assert late["1201"].note == (
        'on time (due 2026-03-12 23:59: Moodle\'s "Extension granted until" (Status) in '
        "worksheet.csv)"
    )
    assert (late["1202"].days_late, late["1202"].due_at) == (9, None)


def test_moodle_per_student_due_date_of_an_override(tmp_path):
    """With overrides, the worksheet has a "Due date" column: each row's own."""
    archive = download(
        tmp_path / "moodle.zip", [(moodle_entry("Bo Lee", 1202, "puzzlesolver.py"), "b\n")]
    )
    sheet = moodle_worksheet(
        tmp_path / "worksheet.csv",
        [{"id": 1202, "name": "Bo Lee", "submitted": datetime(2026, 3, 4, 9, 0),
          "due": datetime(2026, 3, 3, 23, 59)}],
        overrides=True,
    )  # fmt: skip
    into = tmp_path / "class"
    import_archive("moodle", archive, into, roster=read_roster(sheet), source_names=SOURCES)
    assert read_meta(into / "1202").due_source == 'Moodle\'s "Due date" in worksheet.csv'
    assert lateness_of(reports_of(into), POLICY)["1202"].days_late == 1


def test_a_moodle_team_is_due_when_its_latest_member_is(tmp_path):
    archive = download(
        tmp_path / "moodle.zip",
        [(moodle_entry("Team Rocket", 7, "puzzlesolver.py"), "t\n")],
    )
    handed_in = datetime(2026, 3, 6, 12, 0)
    sheet = moodle_worksheet(
        tmp_path / "worksheet.csv",
        [
            {"id": 1201, "name": "Ada", "group": "Team Rocket", "submitted": handed_in,
             "extension": datetime(2026, 3, 5, 23, 59)},
            {"id": 1202, "name": "Bo", "group": "Team Rocket", "submitted": handed_in,
             "extension": datetime(2026, 3, 8, 23, 59)},
        ],
        teams=True,
    )  # fmt: skip
    into = tmp_path / "class"
    import_archive("moodle", archive, into, roster=read_roster(sheet), source_names=SOURCES)
    (team,) = reports_of(into)
    assert lateness_of([team], POLICY)[team.submission.id].due_at == "2026-03-08T23:59:00"


def test_an_extension_moodle_did_not_write_is_named(tmp_path):
    archive = download(
        tmp_path / "moodle.zip", [(moodle_entry("Ada Lovelace", 1201, "puzzlesolver.py"), "a\n")]
    )
    sheet = moodle_worksheet(
        tmp_path / "worksheet.csv", [{"id": 1201, "submitted": datetime(2026, 3, 2, 9, 0)}]
    )
    text = sheet.read_text().replace(
        "Submitted for grading", "Submitted for grading - Extension granted until: soon"
    )
    sheet.write_text(text)
    result = import_archive(
        "moodle", archive, tmp_path / "class", roster=read_roster(sheet), source_names=SOURCES
    )
    assert "1201: Extension granted until: 'soon' is not a time Moodle writes in English" in (
        result.notes
    )


# ------------------------------------------------------------------ the extensions file


def canvas_student(root: Path, uid: str, sis: str, due: str | None = None) -> Path:
    folder = root / uid
    folder.mkdir(parents=True)
    (folder / "puzzlesolver.py").write_text("print()\n")
    keys = ((identity.CANVAS_USER, uid), (identity.CANVAS_SIS, sis))
    write_meta(
        folder,
        SubmissionMeta(
            uid, "canvas", lms_user_id=uid, submitted_at="2026-03-04T12:00:00", keys=keys,
            due_at=due, due_source="Canvas's cached_due_date in times.json" if due else "",
        ),
    )  # fmt: skip
    return folder


def course(tmp_path: Path, extensions: str) -> Path:
    (tmp_path / "extensions.csv").write_text(extensions)
    toml = tmp_path / "course.toml"
    toml.write_text(
        "[late]\ndeadline = 2026-03-01T23:59:00\nper_day_percent = 10\n"
        'timezone = "UTC"\nextensions = "extensions.csv"\n'
    )
    return toml


def test_the_extensions_file_comes_first_and_names_what_it_cannot_apply(tmp_path):
    """By any id the LMS gives the student (here a SIS id); before the LMS's own due date;
    an id two people hold, and one nobody holds, named and applied to no one."""
    root = tmp_path / "class"
    canvas_student(root, "1001", "S-1001", due="2026-03-02T23:59:00")
    canvas_student(root, "1002", "1003")  # a SIS id that is another's user id
    canvas_student(root, "1003", "S-1003")
    config = load_config(
        course(
            tmp_path,
            "person,due,reason\nS-1001,2026-03-05T23:59,illness\n1003,2026-03-09T00:00,\n"
            "S-9999,2026-03-09T00:00,\n",
        )
    )
    reports = reports_of(root)
    teams = resolve([(r.submission.id, r.submission.folder) for r in reports])
    late, notes = class_lateness(reports, config, teams)
    assert late["1001"].days_late == 0 and late["1001"].due_source == "extensions.csv line 2"
    assert late["1002"].days_late == late["1003"].days_late == 3
    assert notes == [
        "extensions.csv line 3: '1003' is an id of two people, 1002 and 1003: not applied "
        "(name the person by an id only they have)",
        "extensions.csv line 4: 'S-9999' has no submission in the class",
    ]


def test_a_team_in_the_extensions_file_is_due_when_its_latest_member_is(tmp_path):
    folder = tmp_path / "rocket"
    folder.mkdir()
    members = tuple(
        TeamMember(pid, keys=((identity.MOODLE_PARTICIPANT, pid),)) for pid in ("31", "32")
    )
    write_meta(folder, SubmissionMeta("rocket", "moodle", team=Team("7", "Rocket", False, members)))
    teams = resolve([("rocket", folder)])
    entries = [
        Extension("31", datetime(2026, 3, 5, 23, 59), 2),
        Extension("32", datetime(2026, 3, 8, 23, 59), 3),
    ]
    dues, notes = submission_dues(entries, teams, "extensions.csv", UTC)
    assert dues == {"rocket": Due(datetime(2026, 3, 8, 23, 59), "extensions.csv line 3")}
    assert notes == []


@pytest.mark.parametrize(
    "text, message",
    [
        ("who,when\n1,2\n", "the extensions file needs a header with the columns 'person'"),
        ("person,due\n1001,next week\n", "line 2: due 'next week' is not an ISO 8601 time"),
        ("person,due\n,2026-03-05T23:59\n", "line 2: no person"),
    ],
)
def test_a_bad_extensions_file_is_one_line(tmp_path, text, message):
    path = tmp_path / "extensions.csv"
    path.write_text(text)
    with pytest.raises(ExtensionsError) as error:
        read_extensions(path)
    assert message in str(error.value) and "\n" not in str(error.value)


def test_without_a_policy_a_due_date_charges_nothing():
    meta = SubmissionMeta("1", "canvas", submitted_at="2026-03-09T00:00:00", due_at="2026-03-05")
    assert assess(LatePolicy(), meta).percent == 0
    due = Due(datetime(2026, 3, 10), "extensions.csv line 2")
    assert assess(POLICY, meta, due).note.startswith("on time (due 2026-03-10 00:00")
