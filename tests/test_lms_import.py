"""grader import: Canvas, Moodle and Gradescope downloads in their real layouts,
hostile entries, re-imports; the late policy's arithmetic; the [late] config."""

import json
import os
import zipfile
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from grader.cli import main as grader_main
from grader.course import identity
from grader.course.config import ConfigError, load_config
from grader.course.late import LatePolicy, assess
from grader.course.submission_meta import META_NAME, SubmissionMeta, Team, TeamMember, read_meta
from grader.lms.importer import import_archive
from grader.lms.roster import read_roster
from grader.lms.unpack import ArchiveError, UnpackLimits, read_zip
from tests.lms_archives import (
    SOURCES,
    download,
    gradescope_metadata,
    make_zip,
    moodle_entry,
    zip_bomb_entry,
)

T0 = datetime(2026, 3, 1, 23, 30)  # before the tests' deadline
LATE_TIME = datetime(2026, 3, 3, 10, 0)


def tree(root: Path) -> set:
    return {str(p.relative_to(root)) for p in root.rglob("*")}


def refused_names(result) -> dict:
    return {entry.name: entry.reason for entry in result.refused}


# ------------------------------------------------------------------ Canvas


def canvas_zip(path: Path) -> Path:
    archive = make_zip(
        path,
        [
            ("smithjohn_1001_5001_puzzlesolver.py", "print('smith')\n", T0),
            # late, and Canvas renamed the re-uploaded file
            ("oconnorsean_LATE_1002_5002_puzzlesolver-1.py", "print('oconnor')\n", LATE_TIME),
            # a name with non-ASCII letters, a second file with spaces and a comma
            ("müllerjürgen_1003_5003_puzzlesolver.c", "int main(void){return 0;}\n", T0),
            ("müllerjürgen_1003_5004_notes, v2 (final).txt", "notes\n", T0),
            # two uploads of one file in one submission: -2 is the later one
            ("leeann_1004_5005_puzzlesolver.py", "print('first')\n", T0),
            ("leeann_1004_5006_puzzlesolver-2.py", "print('latest')\n", T0),
            ("leeann_1004_5007_puzzlesolver-1.py", "print('middle')\n", T0),
            # a number in a file name that is not Canvas's copy suffix
            ("nguyenbao_1005_5008_data-2020.txt", "2020\n", T0),
            ("nguyenbao_1005_5009_puzzlesolver.py", "print('nguyen')\n", T0),
            # hostile entries
            ("../../escaped_1006_5010_puzzlesolver.py", "print('slip')\n", T0),
            ("/etc/cron.d/evil_1007_5011_x.py", "print('abs')\n", T0),
            ("bombsy_1008_5012_puzzlesolver.py", zip_bomb_entry(), T0),
            ("__MACOSX/._smithjohn_1001_5001_puzzlesolver.py", "junk", T0),
            ("README.txt", "not a submission", T0),
        ],
        symlinks=[("linker_1009_5013_puzzlesolver.py", "/etc/passwd")],
    )
    return archive


def test_canvas_download_becomes_one_folder_per_student(tmp_path):
    archive = canvas_zip(tmp_path / "submissions.zip")
    into = tmp_path / "class"
    result = import_archive("canvas", archive, into, source_names=SOURCES)
    assert sorted(result.added) == ["1001", "1002", "1003", "1004", "1005"]
    assert sorted(p.name for p in into.iterdir() if p.is_dir()) == [
        "1001",
        "1002",
        "1003",
        "1004",
        "1005",
    ]
    assert (into / "1002" / "puzzlesolver.py").read_text() == "print('oconnor')\n"
    assert not (into / "1002" / "puzzlesolver-1.py").exists()
    assert sorted(p.name for p in (into / "1004").iterdir()) == [META_NAME, "puzzlesolver.py"]
    assert (into / "1004" / "puzzlesolver.py").read_text() == "print('latest')\n"
    assert any("leeann_1004_5005_puzzlesolver.py dropped" in n for n in result.notes)
    assert (into / "1003" / "notes, v2 (final).txt").read_text() == "notes\n"
    assert (into / "1005" / "data-2020.txt").exists()  # not mistaken for a copy suffix

    late, on_time = read_meta(into / "1002"), read_meta(into / "1001")
    assert late.late_marker is True and on_time.late_marker is False
    # The entries' times say when the zip was made, not when anyone submitted.
    assert late.submitted_at is None and late.time_source == ""
    assert any("Canvas's download holds no submission times" in n for n in result.notes)
    assert late.name == "oconnorsean" and late.lms_user_id == "1002" and late.lms == "canvas"
    assert read_meta(into / "1003").name == "müllerjürgen"

    refused = refused_names(result)
    assert not list(tmp_path.parent.rglob("escaped*")) and not list(tmp_path.rglob("evil*"))
    assert "outside the target" in refused["../../escaped_1006_5010_puzzlesolver.py"]
    assert "absolute path" in refused["/etc/cron.d/evil_1007_5011_x.py"]
    assert "zip bomb" in refused["bombsy_1008_5012_puzzlesolver.py"]
    assert "symbolic link" in refused["linker_1009_5013_puzzlesolver.py"]
    assert "metadata" in refused["__MACOSX/._smithjohn_1001_5001_puzzlesolver.py"]
    assert "not named like a Canvas submission" in refused["README.txt"]
    assert len(result.refused) == 6
    # nothing but the five folders was written, anywhere
    assert tree(tmp_path) == {"submissions.zip", "class", *(f"class/{p}" for p in tree(into))}
    assert not any(p.is_symlink() for p in tmp_path.rglob("*"))


def test_reimport_of_a_newer_download_updates_only_what_changed(tmp_path):
    into = tmp_path / "class"
    first = make_zip(
        tmp_path / "v1.zip",
        [
            ("smithjohn_1001_5001_puzzlesolver.py", "print('v1')\n", T0),
            ("smithjohn_1001_5002_helper.txt", "old helper\n", T0),
            ("doejane_1002_5003_puzzlesolver.py", "print('jane')\n", T0),
            ("roeric_1003_5004_puzzlesolver.py", "print('eric')\n", T0),
        ],
    )
    import_archive("canvas", first, into, source_names=SOURCES)
    (into / "1001" / "my-own-notes.txt").write_text("the instructor's\n")
    before = {p: p.stat().st_mtime_ns for p in into.rglob("*") if p.is_file()}
    os.utime(into / "1002" / "puzzlesolver.py", ns=(1, 1))  # any rewrite would change it

    second = make_zip(
        tmp_path / "v2.zip",
        [
            ("smithjohn_LATE_1001_6001_puzzlesolver-1.py", "print('v2')\n", LATE_TIME),
            ("doejane_1002_5003_puzzlesolver.py", "print('jane')\n", T0),
            ("newkid_1004_6002_puzzlesolver.py", "print('new')\n", T0),
        ],
    )
    result = import_archive("canvas", second, into, source_names=SOURCES)
    assert (result.added, result.updated, result.unchanged) == (["1004"], ["1001"], ["1002"])
    assert result.absent == ["1003"]  # kept, and said
    assert (into / "1003" / "puzzlesolver.py").exists()
    assert (into / "1001" / "puzzlesolver.py").read_text() == "print('v2')\n"
    assert not (into / "1001" / "helper.txt").exists()  # no longer part of the submission
    assert (into / "1001" / "my-own-notes.txt").exists()  # never ours to remove
    assert read_meta(into / "1001").late_marker is True
    assert (into / "1002" / "puzzlesolver.py").stat().st_mtime_ns == 1
    assert (into / "1002" / META_NAME).stat().st_mtime_ns == before[into / "1002" / META_NAME]

    # The first download again: older than what the folders hold, so nothing goes back.
    again = import_archive("canvas", first, into, source_names=SOURCES)
    assert [k.split(" ")[0] for k in again.kept_newer] == ["1001"]
    assert (into / "1001" / "puzzlesolver.py").read_text() == "print('v2')\n"


def test_import_never_writes_through_a_planted_link(tmp_path, capsys):
    """The planted link's student is refused with the reason; the others are imported."""
    into = tmp_path / "class"
    outside = tmp_path / "outside"
    outside.mkdir()
    into.mkdir()
    (into / "1001").symlink_to(outside)
    archive = make_zip(
        tmp_path / "a.zip",
        [
            ("smithjohn_1001_5001_puzzlesolver.py", "x\n", T0),
            ("doejane_1002_5002_puzzlesolver.py", "y\n", T0),
        ],
    )
    assert grader_main(["import", "canvas", str(archive), "--into", str(into)]) == 0
    assert list(outside.iterdir()) == []
    out = capsys.readouterr().out
    assert "refused: 1001/puzzlesolver.py: " in out and "is a symbolic link" in out
    assert (into / "1002" / "puzzlesolver.py").read_text() == "y\n"


# ------------------------------------------------------------------ Moodle


def test_moodle_download_folder_per_participant(tmp_path):
    archive = download(
        tmp_path / "moodle.zip",
        [
            (moodle_entry("Jane Doe", 2001, "puzzlesolver.py"), "print('jane')\n"),
            (moodle_entry("Jane Doe", 2001, "tests/input.txt"), "t\n"),
            (moodle_entry("Seán O'Brien-Smith", 2002, "PuzzleSolver.java"), "class P{}\n"),
            # "Download submissions in folders" off: the prefix is glued to the file name
            (moodle_entry("Ann Lee", 2003, "puzzlesolver.c", folders=False), "int main(){}\n"),
            (moodle_entry("Jane Doe", 2001, "onlinetext.html", plugin="onlinetext"), "<p>hi</p>"),
            (moodle_entry("Jane Doe", 2001, "../../../escape.py"), "x"),
            ("stray.txt", "?"),
        ],
    )
    with zipfile.ZipFile(archive, "a") as zf:  # a link, as `zip --symlinks` stores one
        info = zipfile.ZipInfo(moodle_entry("Seán O'Brien-Smith", 2002, "puzzlesolver.py"))
        info.create_system, info.external_attr = 3, (0o120777 << 16)
        zf.writestr(info, "../../../../etc/shadow")
    into = tmp_path / "class"
    result = import_archive("moodle", archive, into, source_names=SOURCES)
    assert sorted(result.added) == ["2001", "2002", "2003"]
    assert (into / "2001" / "tests" / "input.txt").read_text() == "t\n"
    assert (into / "2003" / "puzzlesolver.c").exists()
    meta = read_meta(into / "2002")
    # clean_filename drops the apostrophe from the path; the worksheet has the name.
    assert meta.name == "Seán OBrien-Smith" and meta.lms_user_id == "2002"
    assert meta.submitted_at is None and meta.late_marker is None
    assert read_meta(into / "2003").name == "Ann Lee"
    refused = refused_names(result)
    assert refused[moodle_entry("Jane Doe", 2001, "onlinetext.html", plugin="onlinetext")] == (
        "Moodle's onlinetext submission: online text (typed into Moodle), not a submitted file"
    )
    assert "outside the target" in refused["Jane Doe_2001_assignsubmission_file/../../../escape.py"]
    assert (
        "symbolic link" in refused["Seán OBrien-Smith_2002_assignsubmission_file/puzzlesolver.py"]
    )
    assert "not in a Moodle participant folder" in refused["stray.txt"]
    assert not (into / "2002" / "puzzlesolver.py").exists()
    assert any("Moodle's download holds no submission times" in n for n in result.notes)


# ------------------------------------------------------------------ Gradescope


def gradescope_keys(sid: str, user: str) -> tuple:
    return ((identity.GRADESCOPE_SID, sid), (identity.GRADESCOPE_EMAIL, f"{user}@uni.edu"))


def test_gradescope_export_with_its_metadata(tmp_path):
    root = "assignment_77_export/"
    metadata = gradescope_metadata(
        {
            "submission_9001": (
                [("Ada Lovelace", "S100", "ada@uni.edu")],
                "2026-03-01 23:58:59.123456789 -0500",
            ),
            "submission_9002": (
                [("Pair One", "S200", "one@uni.edu"), ("Pair Two", "S201", "two@uni.edu")],
                "2026-03-02 06:00:00.000000000 -05:00",
            ),
        }
    )
    archive = make_zip(
        tmp_path / "gs.zip",
        [
            (root + "submission_metadata.yml", metadata, T0),
            (root + "submission_9001/puzzlesolver.py", "print('ada')\n", T0),
            (root + "submission_9002/src/../puzzlesolver.c", "int main(){}\n", T0),
            (root + "submission_9002/puzzlesolver.c", "int main(){return 0;}\n", T0),
            (root + "submission_9999/puzzlesolver.py", "print('?')\n", T0),
        ],
    )
    into = tmp_path / "class"
    result = import_archive("gradescope", archive, into, source_names=SOURCES)
    assert sorted(result.added) == ["S100", "S200"]
    ada, pair = read_meta(into / "S100"), read_meta(into / "S200")
    assert ada.submitted == datetime(
        2026, 3, 1, 23, 58, 59, 123456, tzinfo=timezone(timedelta(hours=-5))
    )
    assert ada.time_source == "submission_metadata.yml" and ada.lms_user_id == "9001"
    assert set(pair.other_ids) == {"S200", "one@uni.edu", "S201", "two@uni.edu"}
    assert pair.name == "Pair One & Pair Two"
    assert pair.team == Team(  # each member's e-mail kept beside their sid
        members=(
            TeamMember("S200", "Pair One", ("one@uni.edu",), gradescope_keys("S200", "one")),
            TeamMember("S201", "Pair Two", ("two@uni.edu",), gradescope_keys("S201", "two")),
        )
    )
    assert ada.team is None
    refused = refused_names(result)
    assert "outside the target" in refused[root + "submission_9002/src/../puzzlesolver.c"]
    assert "not listed" in refused[root + "submission_9999/puzzlesolver.py"]


def test_gradescope_export_without_metadata_is_one_clear_error(tmp_path, capsys):
    archive = make_zip(tmp_path / "gs.zip", [("submission_1/puzzlesolver.py", "x", T0)])
    assert grader_main(["import", "gradescope", str(archive), "--into", str(tmp_path / "c")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "submission_metadata.yml" in err


# ------------------------------------------------------------------ archives as a whole


def test_too_many_entries_refuse_the_archive(tmp_path):
    archive = make_zip(tmp_path / "many.zip", [(f"s_{i}_{i}_f{i}.txt", "", T0) for i in range(60)])
    with pytest.raises(ArchiveError, match="60 entries, more than the limit of 50"):
        read_zip(archive, UnpackLimits(max_entries=50))


def test_total_size_limit_names_every_entry_past_it(tmp_path):
    archive = make_zip(
        tmp_path / "big.zip", [(f"s_{i}_{i}_f.txt", bytes(4000), T0) for i in range(5)]
    )
    result = read_zip(archive, UnpackLimits(max_total_bytes=10_000))
    assert len(result.members) == 2
    assert [r.name for r in result.refused] == ["s_2_2_f.txt", "s_3_3_f.txt", "s_4_4_f.txt"]
    assert all("zip bomb" in r.reason for r in result.refused)


def test_a_size_the_header_understates_is_caught_while_reading(tmp_path):
    """A bomb can lie in its headers: the reader stops at the limit whatever they say."""
    archive = make_zip(tmp_path / "liar.zip", [("s_1_1_puzzlesolver.py", bytes(300_000), T0)])
    data = bytearray(archive.read_bytes())
    # Patch the declared size (local header and central directory) down to 1000 bytes.
    with zipfile.ZipFile(archive) as zf:
        info = zf.infolist()[0]
    real = info.file_size.to_bytes(4, "little")
    assert data.count(real) == 2
    archive.write_bytes(bytes(data).replace(real, (1000).to_bytes(4, "little")))
    result = read_zip(archive, UnpackLimits(max_file_bytes=100_000))
    assert result.members == [] and len(result.refused) == 1


def test_not_a_zip_is_one_line(tmp_path, capsys):
    bad = tmp_path / "x.zip"
    bad.write_text("not a zip")
    assert grader_main(["import", "canvas", str(bad), "--into", str(tmp_path / "c")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not a readable zip archive" in err


def test_import_cli_names_every_refused_entry_and_roster_gaps(tmp_path, capsys):
    archive = canvas_zip(tmp_path / "s.zip")
    roster = tmp_path / "gradebook.csv"
    roster.write_text(
        "Student,ID,SIS User ID,SIS Login ID,Section,Puzzle (77)\n"
        "    Points Possible,,,,,10\n"
        '"Smith, John",1001,S1,jsmith,A,\n'
        '"Absent, Al",1999,S9,aabsent,A,\n',
        encoding="utf-8",
    )
    assert (
        grader_main(
            [
                "import",
                "canvas",
                str(archive),
                "--roster",
                str(roster),
                "--into",
                str(tmp_path / "class"),
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert out.count("refused: ") == 6
    assert "refused: linker_1009_5013_puzzlesolver.py: a symbolic link" in out
    assert "no submission: Absent, Al" in out
    assert "not in the roster: 1002 (oconnorsean)" in out
    assert read_meta(tmp_path / "class" / "1001").name == "Smith, John"
    assert out.rstrip().endswith("5 added, 0 updated, 0 unchanged, 6 entries refused")


# ------------------------------------------------------------------ late policy


DEADLINE = datetime(2026, 3, 1, 23, 59, tzinfo=timezone(timedelta(hours=-5)))


def meta(when, marker=None) -> SubmissionMeta:
    return SubmissionMeta(
        "s", "canvas", submitted_at=when.isoformat() if when else None, late_marker=marker
    )


@pytest.mark.parametrize(
    "submitted, days, percent",
    [
        (DEADLINE - timedelta(hours=1), 0, 0),
        (DEADLINE + timedelta(minutes=14), 0, 0),  # within the 15 minutes' grace
        (DEADLINE + timedelta(minutes=16), 1, 10),  # a started day counts
        (DEADLINE + timedelta(days=1, seconds=1), 2, 20),
        (DEADLINE + timedelta(days=9), 9, 50),  # capped
        (datetime(2026, 3, 2, 2, 0), 1, 10),  # no zone (a zip time): the course's clock
        (datetime(2026, 3, 2, 4, 58, tzinfo=timezone.utc), 0, 0),  # 23:58 -05:00
    ],
)
def test_late_penalty(submitted, days, percent):
    policy = LatePolicy(DEADLINE, 15, 10, 50, timezone="America/New_York")
    late = assess(policy, meta(submitted))
    assert (late.days_late, late.percent) == (days, percent)
    assert late.penalty(8) == 8 * percent / 100 and late.final(8) == 8 - 8 * percent / 100


# 2026-03-08 02:00 in New York: the clocks go forward to 03:00 (EST -05:00 to EDT -04:00).
DST_DEADLINE = datetime(2026, 3, 7, 23, 59)  # course time, as course.toml may write it
DST_INSTANT = datetime(2026, 3, 9, 4, 30, tzinfo=timezone.utc)  # 23 h 31 min later


@pytest.mark.parametrize(
    "deadline",
    [DST_DEADLINE, DST_DEADLINE.replace(tzinfo=timezone(timedelta(hours=-5)))],
    ids=["deadline-naive", "deadline-with-offset"],
)
@pytest.mark.parametrize(
    "submitted",
    [
        DST_INSTANT,
        DST_INSTANT.astimezone(timezone(timedelta(hours=-4))),  # 00:30 -04:00
        datetime(2026, 3, 9, 0, 30),  # the same instant on the course's wall clock (a zip time)
    ],
    ids=["utc", "offset", "naive"],
)
def test_one_instant_is_as_late_however_it_is_written(deadline, submitted):
    """23 h 31 min of real time across the change to summer time is 1 day late; read on
    fixed offsets (or subtracted as wall clocks) the naive times were 2."""
    policy = LatePolicy(deadline, 0, 10, 100, timezone="America/New_York")
    late = assess(policy, meta(submitted))
    assert (late.days_late, late.percent) == (1, 10)


def test_naive_times_are_read_on_the_course_clock_not_the_machine_clock(monkeypatch):
    monkeypatch.setenv("TZ", "Asia/Tokyo")  # where the grading machine happens to be
    policy = LatePolicy(DST_DEADLINE, 0, 10, 100, timezone="America/New_York")
    assert assess(policy, meta(DST_INSTANT)).days_late == 1
    assert policy.describe()["timezone"] == "America/New_York"
    machine = LatePolicy(DST_DEADLINE, 0, 10, 100)  # no zone given: the machine's
    assert machine.describe()["timezone"] == "Asia/Tokyo"
    # 23:59 in Tokyo is 14:59 UTC, 37 h 31 min before the instant: 2 days.
    assert assess(machine, meta(DST_INSTANT)).days_late == 2


def test_no_policy_or_no_time_means_no_penalty():
    assert assess(LatePolicy(), None).note == ""
    assert "not imported" in assess(LatePolicy(DEADLINE, per_day_percent=10), None).note
    assert assess(LatePolicy(), meta(DEADLINE + timedelta(days=3), True)).percent == 0
    late = assess(LatePolicy(DEADLINE, per_day_percent=10), meta(None))
    assert late.percent == 0 and "no submission time" in late.note


@pytest.mark.parametrize(
    "submitted, marker, days",
    [
        (DEADLINE + timedelta(days=3), False, 0),  # the LMS knows of an extension
        (DEADLINE + timedelta(days=3), True, 3),  # late: the time counts the days
        (DEADLINE - timedelta(days=1), True, 1),  # late by the LMS, whatever the zip's time
        (None, True, 0),  # no time, and a grace period it may be within: nothing
        (DEADLINE + timedelta(minutes=5), True, 0),  # the course's grace still applies
    ],
)
def test_the_lms_late_marker_decides_whether_it_is_late(submitted, marker, days):
    policy = LatePolicy(DEADLINE, grace_minutes=10, per_day_percent=10, max_percent=100)
    late = assess(policy, meta(submitted, marker))
    assert (late.days_late, late.percent) == (days, 10 * days)


@pytest.mark.parametrize(
    "marker, grace, days, unknown",
    [
        (True, 0, 1, True),  # late by the LMS, no grace: at least one started day
        (True, 15, 0, True),  # it may be within the grace period
        (None, 0, 0, True),  # Moodle: no marker, no time
        (False, 0, 0, False),  # on time by the LMS's marker: no time needed
    ],
)
def test_without_a_time_only_what_the_marker_proves_is_charged(marker, grace, days, unknown):
    policy = LatePolicy(DEADLINE, grace_minutes=grace, per_day_percent=10, max_percent=100)
    late = assess(policy, meta(None, marker))
    assert (late.days_late, late.percent, late.unknown_time) == (days, 10 * days, unknown)
    assert assess(policy, None).unknown_time  # a folder made by hand
    assert not assess(policy, meta(DEADLINE + timedelta(days=2), marker)).unknown_time
    assert not assess(LatePolicy(), meta(None, marker)).unknown_time  # no policy, no need


def test_late_config(tmp_path):
    course = tmp_path / "course.toml"
    course.write_text(
        "[late]\ndeadline = 2026-03-01T23:59:00-05:00\ngrace_minutes = 15\n"
        "per_day_percent = 10\nmax_percent = 50\n[lms]\nmissing_as_zero = true\n"
    )
    config = load_config(course)
    assert config.late == LatePolicy(DEADLINE, 15, 10, 50) and config.lms.missing_as_zero
    for bad, key in (
        ("[late]\nper_day_percent = 10\n", "late.deadline"),
        ("[late]\ndeadline = 2026-03-01\n", "late.deadline"),
        ("[late]\ndeadline = 2026-03-01T10:00:00\nmax_percent = 150\n", "late.max_percent"),
        ("[lms]\nmissing_as_zero = 0\n", "lms.missing_as_zero"),
        ("[late]\nfoo = 1\n", "late.foo"),
        ("[late]\ntimezone = 'Mars/Olympus_Mons'\n", "late.timezone"),
        ("[late]\ntimezone = '../../etc/passwd'\n", "late.timezone"),
        ("[late]\ntimezone = 5\n", "late.timezone"),
    ):
        course.write_text(bad)
        with pytest.raises(ConfigError, match=key.replace(".", r"\.")):
            load_config(course)


def test_roster_keeps_canvas_rows_and_points_possible(tmp_path):
    path = tmp_path / "g.csv"
    path.write_bytes(
        "\ufeffStudent,ID,SIS User ID,SIS Login ID,Section,A (1)\r\n"
        '    Points Possible,,,,,10\r\n"Doe, Jane",7,S7,jd,X,\r\n'.encode()
    )
    roster = read_roster(path)
    assert roster.header[0] == "Student" and len(roster.preamble) == 1
    assert roster.keys(roster.rows[0]) == [
        (identity.CANVAS_USER, "7"),
        (identity.CANVAS_SIS, "S7"),
        (identity.CANVAS_LOGIN, "jd"),
    ]
    assert json.dumps(roster.rows) == json.dumps([["Doe, Jane", "7", "S7", "jd", "X", ""]])


def test_size_and_ratio_limits_each_refuse_an_entry(tmp_path):
    big = os.urandom(200_000)  # incompressible: only the size limit can stop it
    archive = make_zip(
        tmp_path / "big.zip",
        [
            ("s_1_1_big.bin", big, T0),
            ("s_2_2_zeros.txt", bytes(1 << 20), T0),
            ("s_3_3_ok.txt", b"fine", T0),
        ],
    )
    result = read_zip(archive, UnpackLimits(max_file_bytes=100_000 + (2 << 20)))
    assert [m.path.name for m in result.members] == ["s_1_1_big.bin", "s_3_3_ok.txt"]
    assert "to 1" in refused_names(result)["s_2_2_zeros.txt"]  # ~1000:1
    result = read_zip(archive, UnpackLimits(max_file_bytes=100_000))
    assert "more than the limit of 100,000" in refused_names(result)["s_1_1_big.bin"]


def test_a_hand_made_folder_of_the_same_id_is_left_alone(tmp_path):
    into = tmp_path / "class"
    (into / "1001").mkdir(parents=True)
    (into / "1001" / "puzzlesolver.py").write_text("the instructor's own\n")
    archive = make_zip(tmp_path / "a.zip", [("smithjohn_1001_5001_puzzlesolver.py", "x\n", T0)])
    result = import_archive("canvas", archive, into, source_names=SOURCES)
    assert result.added == [] and "not made by an import" in result.refused[0].reason
    assert (into / "1001" / "puzzlesolver.py").read_text() == "the instructor's own\n"


def test_a_zip_the_student_uploaded_is_unpacked_as_safely(tmp_path):
    inner = make_zip(
        tmp_path / "inner.zip",
        [
            ("my project/puzzlesolver.c", "int main(){}\n", T0),
            ("my project/lib/util.h", "#pragma once\n", T0),
            ("my project/../../../../escape.c", "x", T0),
            ("my project/nested.zip", b"PK\x05\x06" + bytes(18), T0),
        ],
        symlinks=[("my project/link.c", "/etc/passwd")],
    )
    archive = make_zip(
        tmp_path / "canvas.zip",
        [
            ("smithjohn_1001_5001_project.zip", inner.read_bytes(), T0),
            ("doejane_1002_5002_broken.zip", b"not a zip", T0),
        ],
    )
    into = tmp_path / "class"
    result = import_archive("canvas", archive, into, source_names=SOURCES)
    assert tree(into / "1001") == {META_NAME, "puzzlesolver.c", "lib", "lib/util.h"}
    refused = refused_names(result)
    assert "outside the target" in refused["1001/project.zip: my project/../../../../escape.c"]
    assert "symbolic link" in refused["1001/project.zip: my project/link.c"]
    assert "a zip inside" in refused["1001/project.zip: my project/nested.zip"]
    assert "kept as it is" in refused["1002/broken.zip"]
    assert (into / "1002" / "broken.zip").exists()
    assert not list(tmp_path.parent.rglob("escape.c"))


def test_gradescope_metadata_with_plain_keys(tmp_path):
    """Some exports write `submission_1:` rather than Ruby's `:submission_1:`."""
    metadata = gradescope_metadata(
        {"submission_5": ([("Solo", "S5", "s@u.edu")], "2026-03-01 10:00:00 +0000")}
    )
    metadata = metadata.replace(":submission_5:", "submission_5:")
    archive = make_zip(
        tmp_path / "gs.zip",
        [("submission_metadata.yml", metadata, T0), ("submission_5/puzzlesolver.py", "x\n", T0)],
    )
    result = import_archive("gradescope", archive, tmp_path / "c", source_names=SOURCES)
    assert result.added == ["S5"]
    assert read_meta(tmp_path / "c" / "S5").submitted_at == "2026-03-01T10:00:00+00:00"


def test_regrade_names_every_reason():
    from grader.results.regrade import diff

    def doc(version, weight, policy, late, limits, verdict, score):
        return {
            "cases": [{"id": "c", "version": version, "weight": weight, "policy": policy}],
            "course": {"limits": limits, "late": late},
            "submissions": [
                {"id": "s", "score": score, "cases": [{"id": "c", "verdict": verdict}]}
            ],
        }

    late = {"deadline": None, "grace_minutes": 0, "per_day_percent": 0, "max_percent": 100}
    old = doc("v1", 1, [], late, "L1", "AC", 1)
    new = doc("v2", 2, ["tie-order"], {**late, "deadline": "2026-03-01T00:00:00"}, "L2", "WA", 0)
    result = diff(old, new)
    assert [r.split(":")[0] for r in result.reasons] == [
        "input or expected output changed",
        "weight changed",
        "policy rules (symmetric tiles, ties) changed",
        "course.toml",
        "course.toml",
    ]
    assert result.changes[0].cases == (("c", "AC", "WA"),)
    assert diff(old, old).changes == [] and diff(old, old).reasons == []


def test_a_file_the_file_system_cannot_hold_is_refused_by_name(tmp_path):
    long_name = "n" * 300 + ".txt"  # more than the 255 bytes a file name may have
    archive = make_zip(
        tmp_path / "a.zip",
        [
            (f"smithjohn_1001_5001_{long_name}", "x\n", T0),
            ("smithjohn_1001_5002_puzzlesolver.py", "print(1)\n", T0),
            (f"doejane_1002_5003_{long_name}", "x\n", T0),  # nothing else
        ],
    )
    result = import_archive("canvas", archive, tmp_path / "c", source_names=SOURCES)
    assert result.added == ["1001"] and (tmp_path / "c" / "1001" / "puzzlesolver.py").exists()
    assert refused_names(result) == {
        f"1001/{long_name}": "cannot be written: File name too long",
        f"1002/{long_name}": "cannot be written: File name too long",
    }
    # The metadata lists what is there, so the next import tries the rest again; a
    # student with nothing written gets no folder.
    assert set(read_meta(tmp_path / "c" / "1001").files) == {"puzzlesolver.py"}
    assert not (tmp_path / "c" / "1002").exists()


def test_a_huge_metadata_file_is_not_an_imports(tmp_path):
    """.lms.json is read for every graded folder: 64 GB of it (sparse) is no
    MemoryError, just not metadata the import wrote."""
    (tmp_path / META_NAME).touch()
    os.truncate(tmp_path / META_NAME, 64 << 30)
    assert read_meta(tmp_path) is None


def test_a_reimport_does_not_read_a_file_grown_huge_since(tmp_path):
    """A file the last import wrote, now 64 GB (sparse), is compared by size first and
    written afresh; it was read whole to compare (MemoryError, the import stopped)."""
    into = tmp_path / "class"
    first = make_zip(
        tmp_path / "v1.zip",
        [
            ("smithjohn_1001_5001_puzzlesolver.py", "print('v1')\n", T0),
            ("smithjohn_1001_5002_data.txt", "data\n", T0),
        ],
    )
    import_archive("canvas", first, into, source_names=SOURCES)
    os.truncate(into / "1001" / "data.txt", 64 << 30)
    second = make_zip(
        tmp_path / "v2.zip",
        [
            ("smithjohn_1001_6001_puzzlesolver.py", "print('v2')\n", LATE_TIME),
            ("smithjohn_1001_6002_data.txt", "data\n", LATE_TIME),
        ],
    )
    result = import_archive("canvas", second, into, source_names=SOURCES)
    assert result.updated == ["1001"]
    assert (into / "1001" / "data.txt").read_bytes() == b"data\n"


def test_a_machine_without_a_zone_database_says_so(tmp_path, monkeypatch):
    import sys
    import zoneinfo

    for name in ["tzdata", *(m for m in sys.modules if m.startswith("tzdata."))]:
        monkeypatch.setitem(sys.modules, name, None)  # no pip tzdata...
    zoneinfo.reset_tzpath(to=[])  # ...and no /usr/share/zoneinfo: a slim image
    zoneinfo.ZoneInfo.clear_cache()
    try:
        course = tmp_path / "course.toml"
        course.write_text("[late]\ntimezone = 'America/Chicago'\n")
        with pytest.raises(ConfigError, match="late.timezone.*no time zone database"):
            load_config(course)
    finally:
        zoneinfo.reset_tzpath()


def test_a_late_policy_change_is_a_reason_only_where_there_is_a_deadline():
    from grader.results.regrade import diff

    def doc(late):
        return {"cases": [], "course": {"limits": "L", "late": late}, "submissions": []}

    none = LatePolicy().describe()
    assert diff(doc(none), doc({**none, "timezone": "Asia/Tokyo"})).reasons == []
    with_deadline = LatePolicy(DST_DEADLINE, timezone="America/New_York").describe()
    moved = {**with_deadline, "timezone": "Europe/Berlin"}
    assert diff(doc(with_deadline), doc(moved)).reasons == [
        "course.toml: late policy changed (deadline 2026-03-07T23:59:00, grace 0 min, "
        "-0%/day, cap 100%, zone America/New_York -> deadline 2026-03-07T23:59:00, "
        "grace 0 min, -0%/day, cap 100%, zone Europe/Berlin)"
    ]
