"""grader import against students who name their files to hurt someone else: each
archive is built as the LMS itself names its entries (tests/lms_archives.py), and
each attack, without its fix, lands a file in another student's folder, refuses
the whole class, or stops the import half way."""

import json
import shutil
from datetime import datetime

import pytest
import yaml

from grader.course.submission_meta import META_NAME, SubmissionMeta, read_meta, write_meta
from grader.lms.importer import import_archive
from tests.lms_archives import (
    SOURCES,
    canvas_entry,
    download,
    gradescope_metadata,
    make_zip,
    moodle_entry,
)

pytestmark = pytest.mark.fast

T0 = datetime(2026, 3, 1, 23, 30)
LATE = datetime(2026, 3, 3, 10, 0)
VICTIM_C = "int main(void){return 0;} /* victim */\n"
EVIL_C = "int main(void){return 1;} /* attacker */\n"


def files_of(folder) -> dict:
    return {
        str(p.relative_to(folder)): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and p.name != META_NAME
    }


def refused_names(result) -> dict:
    return {entry.name: entry.reason for entry in result.refused}


# ------------------------------------------------------------------ Moodle


def test_a_moodle_file_named_like_another_participants_entry_stays_its_uploaders(tmp_path):
    """Flat download: Eve (1002) uploads `y_1001_assignsubmission_file_puzzlesolver.c`.
    The greedy prefix gave it to 1001: the victim's program replaced, their time moved."""
    archive = make_zip(
        tmp_path / "moodle.zip",
        [
            (moodle_entry("Vic Tim", 1001, "puzzlesolver.c", folders=False), VICTIM_C, T0),
            (moodle_entry("Eve Mallory", 1002, "puzzlesolver.c", folders=False), EVIL_C, T0),
            (
                moodle_entry(
                    "Eve Mallory",
                    1002,
                    "y_1001_assignsubmission_file_puzzlesolver.c",
                    folders=False,
                ),
                EVIL_C,
                LATE,
            ),
        ],
    )
    into = tmp_path / "class"
    result = import_archive("moodle", archive, into, source_names=SOURCES)
    assert sorted(result.added) == ["1001", "1002"] and result.refused == []
    assert files_of(into / "1001") == {"puzzlesolver.c": VICTIM_C.encode()}
    assert read_meta(into / "1001").name == "Vic Tim"
    assert set(files_of(into / "1002")) == {
        "puzzlesolver.c",
        "y_1001_assignsubmission_file_puzzlesolver.c",
    }
    # An entry's time is the download's, never a submission time to move.
    assert read_meta(into / "1001").submitted_at is None


@pytest.mark.parametrize(
    "folders, before_4_1",
    [(True, False), (True, True), (False, False)],
    ids=["folders-4.1", "folders-3.1-4.0", "flat"],
)
def test_every_moodle_layout_gives_the_same_folders(tmp_path, folders, before_4_1):
    """Moodle 4.1 names the folder `..._assignsubmission_file` (no trailing `_`): it was
    refused whole. A name holding `_` (Moodle writes a space) and digits is no id."""
    entries = [
        ("Ann_Lee 2nd", 2001, "puzzlesolver.c", VICTIM_C),
        ("Ann_Lee 2nd", 2001, "tables.h", "#pragma once\n"),
        ("Bo 7", 2002, "puzzlesolver.py", "print(7)\n"),
    ]
    archive = make_zip(
        tmp_path / "moodle.zip",
        [
            (moodle_entry(n, i, p, folders=folders, before_4_1=before_4_1), d, T0)
            for n, i, p, d in entries
        ],
    )
    into = tmp_path / "class"
    result = import_archive("moodle", archive, into, source_names=SOURCES)
    assert sorted(result.added) == ["2001", "2002"] and result.refused == []
    assert set(files_of(into / "2001")) == {"puzzlesolver.c", "tables.h"}
    assert read_meta(into / "2001").name == "Ann Lee 2nd"
    assert read_meta(into / "2002").name == "Bo 7"


def test_moodle_folders_keep_the_students_own_folders_and_refuse_foreign_shapes(tmp_path):
    archive = make_zip(
        tmp_path / "moodle.zip",
        [
            (moodle_entry("Vic Tim", 1001, "src/util.c"), "int u;\n", T0),
            (moodle_entry("Vic Tim", 1001, "puzzlesolver.c"), VICTIM_C, T0),
            (moodle_entry("Vic Tim", 1001, "notes.html", plugin="onlinetext"), "<p>", T0),
            # a folder Moodle never writes: something after the plugin's name
            ("Vic Tim_1001_assignsubmission_file_x/puzzlesolver.c", EVIL_C, T0),
            ("Vic Tim_1001_assignsubmission_file", EVIL_C, T0),  # flat, without a name
        ],
    )
    into = tmp_path / "class"
    result = import_archive("moodle", archive, into, source_names=SOURCES)
    assert files_of(into / "1001") == {
        "puzzlesolver.c": VICTIM_C.encode(),
        "src/util.c": b"int u;\n",
    }
    refused = refused_names(result)
    assert (
        "not in a Moodle participant folder"
        in refused["Vic Tim_1001_assignsubmission_file_x/puzzlesolver.c"]
    )
    assert refused["Vic Tim_1001_assignsubmission_file"] == (
        "a participant entry without a file name"
    )
    assert "onlinetext submission" in refused["Vic Tim_1001_assignsubmission_onlinetext/notes.html"]


# ------------------------------------------------------------------ Canvas


def test_a_canvas_name_that_claims_another_users_id_refuses_that_id(tmp_path):
    """Canvas squashes names after removing `_<digits>_` from them, so a student named
    `Eve_1002-_5001-` gets entries starting `eve_1002_5001_`: user 1002's, by Canvas's
    own reading. One prefix per user: Jane's is `doejane`, so 1002 is refused, never
    given Eve's `.c` file (an extra source in Jane's build) and Eve's late time."""
    archive = make_zip(
        tmp_path / "canvas.zip",
        [
            (canvas_entry("Doe, Jane", 1002, 7001, "puzzlesolver.c"), VICTIM_C, T0),
            (canvas_entry("Eve_1002-_5001-", 1001, 6001, "puzzlesolver.c"), EVIL_C, LATE),
            (canvas_entry("Roe, Al", 1003, 7002, "puzzlesolver.py"), "print(3)\n", T0),
        ],
    )
    assert canvas_entry("Eve_1002-_5001-", 1001, 6001, "x") == "eve_1002_5001_1001_6001_x"
    into = tmp_path / "class"
    result = import_archive("canvas", archive, into, source_names=SOURCES)
    assert result.added == ["1003"] and not (into / "1002").exists()
    refused = refused_names(result)
    assert set(refused) == {
        canvas_entry("Doe, Jane", 1002, 7001, "puzzlesolver.c"),
        canvas_entry("Eve_1002-_5001-", 1001, 6001, "puzzlesolver.c"),
    }
    assert all(
        r == "user 1002 is named two ways in this archive (doejane, eve): "
        "none of its entries is imported"
        for r in refused.values()
    )


def upload(tmp_path, name: str, entries) -> bytes:
    """A zip a student made themselves (any tool) and uploaded."""
    return make_zip(tmp_path / name, entries).read_bytes()


def test_a_file_that_is_also_a_folder_refuses_that_entry_and_imports_everyone(tmp_path):
    """Eve's zip holds `src/puzzlesolver.c` and then a file `src`; Canvas adds her file
    `lib` beside a zip folder `lib/`. Writing `src` over the folder stopped the import
    at Eve, half written, and Zoe (after her) was never imported."""
    eve_zip = upload(
        tmp_path,
        "eve.zip",
        [
            ("src/puzzlesolver.c", EVIL_C, T0),
            ("src", "a file named like the folder\n", T0),
            ("lib/util.h", "#pragma once\n", T0),
        ],
    )
    archive = make_zip(
        tmp_path / "canvas.zip",
        [
            (canvas_entry("Al, Amy", 1001, 5001, "puzzlesolver.c"), VICTIM_C, T0),
            (canvas_entry("Mallory, Eve", 1002, 5002, "lib"), "a file\n", T0),
            (canvas_entry("Mallory, Eve", 1002, 5003, "project.zip"), eve_zip, T0),
            (canvas_entry("Zed, Zoe", 1003, 5004, "puzzlesolver.py"), "print(1)\n", T0),
        ],
    )
    into = tmp_path / "class"
    result = import_archive("canvas", archive, into, source_names=SOURCES)
    assert result.added == ["1001", "1002", "1003"]
    assert set(files_of(into / "1002")) == {"src/puzzlesolver.c", "lib/util.h"}
    assert set(read_meta(into / "1002").files) == {"src/puzzlesolver.c", "lib/util.h"}
    refused = refused_names(result)
    assert refused == {
        "1002/lib": "a file, and also the folder holding lib/util.h in the same upload: "
        "the folder is kept",
        "1002/src": "a file, and also the folder holding src/puzzlesolver.c in the same "
        "upload: the folder is kept",
    }
    assert files_of(into / "1003") == {"puzzlesolver.py": b"print(1)\n"}


def test_a_file_named_like_the_imports_metadata_is_refused_not_taken_for_it(tmp_path):
    archive = make_zip(
        tmp_path / "canvas.zip",
        [
            (canvas_entry("Mallory, Eve", 1002, 5001, "puzzlesolver.c"), EVIL_C, LATE),
            (
                canvas_entry("Mallory, Eve", 1002, 5002, META_NAME),
                json.dumps({"format": 1, "student_id": "1002", "lms": "canvas"}),
                LATE,
            ),
        ],
    )
    into = tmp_path / "class"
    result = import_archive("canvas", archive, into, source_names=SOURCES)
    assert refused_names(result) == {
        f"1002/{META_NAME}": f"named like the import's own metadata file ({META_NAME}): not written"
    }
    meta = read_meta(into / "1002")
    assert meta.late_marker is False and set(meta.files) == {"puzzlesolver.c"}


def test_a_longest_legal_file_name_is_imported(tmp_path):
    """255 bytes of UTF-8 is a legal name; the atomic writer's temporary name for it was
    not, and the file was refused as "File name too long"."""
    long_name = "é" * 125 + "x.txt"  # 255 bytes
    archive = make_zip(
        tmp_path / "canvas.zip",
        [
            (canvas_entry("Al, Amy", 1001, 5001, "puzzlesolver.c"), VICTIM_C, T0),
            (canvas_entry("Al, Amy", 1001, 5002, long_name), "notes\n", T0),
        ],
    )
    into = tmp_path / "class"
    result = import_archive("canvas", archive, into, source_names=SOURCES)
    assert result.refused == [] and (into / "1001" / long_name).read_text() == "notes\n"
    assert len(long_name.encode()) == 255


# ------------------------------------------------------------------ re-imports


def canvas_class(tmp_path, name, files, when):
    return make_zip(
        tmp_path / name,
        [
            (canvas_entry("Al, Amy", 1001, 5000 + n, path), data, when)
            for n, (path, data) in enumerate(files)
        ]
        + [(canvas_entry("Zed, Zoe", 1003, 9000, "puzzlesolver.py"), "print(1)\n", T0)],
    )


def test_a_reimport_where_a_folder_became_a_file(tmp_path):
    """Amy's first upload had `src/` (from her zip), her second a file `src`: the old
    files go first, and the folder they leave empty, so the new file fits."""
    first_zip = upload(
        tmp_path, "p.zip", [("src/puzzlesolver.c", VICTIM_C, T0), ("README", "r\n", T0)]
    )
    into = tmp_path / "class"
    first = canvas_class(tmp_path, "v1.zip", [("project.zip", first_zip)], T0)
    import_archive("canvas", first, into, source_names=SOURCES)
    assert set(files_of(into / "1001")) == {"src/puzzlesolver.c", "README"}
    second = canvas_class(
        tmp_path, "v2.zip", [("src", "now a file\n"), ("puzzlesolver.c", VICTIM_C)], LATE
    )
    result = import_archive("canvas", second, into, source_names=SOURCES)
    assert result.updated == ["1001"] and result.refused == []
    assert files_of(into / "1001") == {"src": b"now a file\n", "puzzlesolver.c": VICTIM_C.encode()}


def test_old_files_are_never_removed_through_a_link_or_outside_the_folder(tmp_path):
    """What the last import wrote is removed when a newer upload no longer has it, but
    only inside the student's folder: not through a folder since replaced by a link,
    not along a path the metadata file (only a file) says is `../..`."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.c").write_text("someone else's\n")
    (tmp_path / "precious.txt").write_text("someone else's\n")
    into = tmp_path / "class"
    inner = upload(tmp_path, "p.zip", [("lib/keep.c", "int k;\n", T0), ("README", "r\n", T0)])
    first = canvas_class(tmp_path, "v1.zip", [("puzzlesolver.c", VICTIM_C), ("p.zip", inner)], T0)
    import_archive("canvas", first, into, source_names=SOURCES)
    folder = into / "1001"
    for path in (folder / "lib" / "keep.c", folder / "lib"):
        path.unlink() if path.is_file() else path.rmdir()
    (folder / "lib").symlink_to(outside)
    meta = json.loads((folder / META_NAME).read_text())
    meta["files"]["../../precious.txt"] = "0" * 64
    (folder / META_NAME).write_text(json.dumps(meta))

    second = canvas_class(tmp_path, "v2.zip", [("puzzlesolver.c", EVIL_C)], LATE)
    result = import_archive("canvas", second, into, source_names=SOURCES)
    assert result.updated == ["1001"]
    assert (outside / "keep.c").exists() and (tmp_path / "precious.txt").exists()
    assert (folder / "puzzlesolver.c").read_text() == EVIL_C


# ------------------------------------------------------------------ Gradescope


def test_a_gradescope_student_file_named_like_the_metadata_is_that_students(tmp_path):
    """One student handed in `submission_metadata.yml`: the export was refused for the
    whole class ("expected one submission_metadata.yml, found 2")."""
    root = "assignment_77_export/"
    metadata = gradescope_metadata(
        {
            "submission_9001": ([("Ada L", "S100", "ada@uni.edu")], "2026-03-01 10:00:00 -0500"),
            "submission_9002": ([("Eve M", "S200", "eve@uni.edu")], "2026-03-01 11:00:00 -0500"),
        }
    )
    forged = yaml.safe_dump({":submission_9001:": {":submitters:": [{":sid": "S200"}]}})
    archive = make_zip(
        tmp_path / "gs.zip",
        [
            (root + "submission_metadata.yml", metadata, T0),
            (root + "submission_9001/puzzlesolver.py", "print('ada')\n", T0),
            (root + "submission_9002/puzzlesolver.py", "print('eve')\n", T0),
            (root + "submission_9002/submission_metadata.yml", forged, T0),
        ],
    )
    into = tmp_path / "class"
    result = import_archive("gradescope", archive, into, source_names=SOURCES)
    assert sorted(result.added) == ["S100", "S200"] and result.refused == []
    assert files_of(into / "S100") == {"puzzlesolver.py": b"print('ada')\n"}
    assert files_of(into / "S200") == {
        "puzzlesolver.py": b"print('eve')\n",
        "submission_metadata.yml": forged.encode(),
    }


def test_metadata_the_import_did_not_write_never_keeps_a_folder_from_it(tmp_path):
    """A class folder made by hand, where Mallory's folder holds a `.lms.json` she
    handed in (exactly as an import writes one, submitted and downloaded in 2030): importing Canvas's
    download replaced nothing, "the folder holds a later submission", and recorded her
    file as the import's. It is the download's now."""
    into = tmp_path / "class"
    forged = SubmissionMeta(
        "1001", "canvas", submitted_at="2030-01-01T00:00", downloaded_at="2030-01-01T00:00"
    )
    write_meta(tmp_path / "scratch" / "1001", forged)
    (into / "1001").mkdir(parents=True)
    (into / "1001" / "puzzlesolver.py").write_text("print('mallory')\n")
    shutil.copy(tmp_path / "scratch" / "1001" / META_NAME, into / "1001" / META_NAME)
    assert read_meta(into / "1001") is None  # not the import's: it says nothing
    archive = download(
        tmp_path / "submissions.zip",
        [(canvas_entry("Lovelace, Ada", 1001, 5001, "puzzlesolver.py"), "print('ada')\n")],
    )
    result = import_archive("canvas", archive, into, source_names=SOURCES)
    assert result.kept_newer == [] and result.updated == ["1001"]
    assert (into / "1001" / "puzzlesolver.py").read_text() == "print('ada')\n"
    assert read_meta(into / "1001").submitted_at is None  # the download's own: no time
