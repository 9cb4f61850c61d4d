"""Bulk downloads and gradebooks in each LMS's real layout, made on the fly for the tests.

Canvas and Moodle stream their zips at download time: every entry carries that one
moment (DOWNLOADED), never a submission time; `download` builds such a zip.
"""

import csv
import io
import re
import stat
import zipfile
from collections.abc import Iterable, Sequence
from datetime import datetime
from pathlib import Path

Entry = tuple[str, bytes | str, datetime | None]


def make_zip(path: Path, entries: Iterable, symlinks: Iterable[tuple[str, str]] = ()) -> Path:
    """entries: (name, data, time or None); symlinks: (name, target) stored as Unix links
    (what `zip --symlinks` writes)."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data, when in entries:
            info = zipfile.ZipInfo(name, (when or datetime(2026, 3, 1, 12, 0)).timetuple()[:6])
            info.compress_type = zipfile.ZIP_DEFLATED
            info.create_system = 3
            info.external_attr = (stat.S_IFREG | 0o644) << 16
            zf.writestr(info, data.encode() if isinstance(data, str) else data)
        for name, target in symlinks:
            info = zipfile.ZipInfo(name, (2026, 3, 1, 12, 0, 0))
            info.create_system = 3
            info.external_attr = (stat.S_IFLNK | 0o777) << 16
            zf.writestr(info, target)
    return path


# The names the course's languages give a program: what an import keeps as sources.
SOURCES = frozenset({"puzzlesolver.c", "puzzlesolver.cpp", "PuzzleSolver.java", "puzzlesolver.py"})
DOWNLOADED = datetime(2026, 3, 5, 9, 12, 44)  # when the instructor clicked "Download"


def download(path: Path, entries: Iterable[tuple[str, bytes | str]], at: datetime = DOWNLOADED):
    """A download as Canvas and Moodle write it: every entry stamped with the moment
    the zip was made."""
    return make_zip(path, [(name, data, at) for name, data in entries])


def zip_bomb_entry(size: int = 17 << 20) -> bytes:
    """Zeros: deflate packs 17 MiB into about 17 KiB (ratio ~1000:1)."""
    return bytes(size)


def gradescope_metadata(submissions: dict) -> str:
    """submission_metadata.yml as Gradescope writes it: Ruby symbol keys, times with
    nanoseconds and an offset. submissions: {key: ([(name, sid, email)], created_at)}."""
    lines = ["---"]
    for key, (people, created) in submissions.items():
        lines.append(f":{key}:")
        lines.append("  :submitters:")
        for name, sid, email in people:
            lines.append(f"  - :name: {name}")
            lines.append(f"    :sid: '{sid}'")
            lines.append(f"    :email: {email}")
        lines.append(f"  :created_at: {created}")
        lines.append("  :score: 0.0")
        lines.append("  :status: Graded")
    return "\n".join(lines) + "\n"


def canvas_entry(
    sortable_name: str | None,
    user_id: int | str,
    attachment_id: int | None,
    display_name: str = "",
    late: bool = False,
    *,
    kind: str = "upload",
) -> str:
    """The zip name Canvas gives a submission's file: ContentZipper#add_submission
    (lib/content_zipper.rb) with its sanitize_user_name, get_filename,
    sanitize_file_name and sanitize_attachment_filename, step by step. Anonymous
    grading: `sortable_name` None and `user_id` the anonymous id (`anon_<id>`); a
    text entry or a URL (`kind` "text", "url") has no attachment."""
    name = None
    if sortable_name is not None:
        name = re.sub(r"_(\d+)_", r"\1", sortable_name).lower()  # sanitize_user_name
    ident = str(user_id) if sortable_name is not None else f"anon_{user_id}"
    parts = [name, "LATE" if late else None, ident]
    filename = re.sub(r"[^\w]", "", "_".join(p for p in parts if p))  # sanitize_file_name
    if kind == "text":
        return f"{filename}_text.html"
    if kind == "url":
        return f"{filename}_link.html"
    attachment = re.sub(r'[\x00/\\:*?"<>|]+', "_", display_name)
    return f"{filename}_{attachment_id}_{attachment}"


def moodle_entry(
    full_name: str,
    participant_id: int | None,
    path: str,
    *,
    folders: bool = True,
    before_4_1: bool = False,
    plugin: str = "file",
) -> str:
    """The zip path Moodle gives a participant's file: mod/assign/classes/downloader.php
    (4.1 on) or assign::download_submissions in locallib.php (3.1 to 4.0). The name's
    own `_` become spaces; with folders the path inside is kept, without them only
    the file's name, glued to the prefix. A team (4.1 on) is `full_name` = the group's
    name and `participant_id` = the group's id, None for the default group; blind
    marking is the name "Participant"."""
    ident = "" if participant_id is None else f"_{participant_id}"
    prefix = moodle_clean(full_name.replace("_", " ") + ident)
    if folders:
        folder = moodle_clean(f"{prefix}_assignsubmission_{plugin}" + ("_" if before_4_1 else ""))
        return f"{folder}/{path}"
    return moodle_clean(f"{prefix}_assignsubmission_{plugin}_{path.rsplit('/', 1)[-1]}")


def moodle_clean(name: str) -> str:
    """clean_filename, i.e. clean_param(PARAM_FILE) (lib/moodlelib.php): control
    characters and & < > " ` | ' : \\ / removed."""
    return re.sub(r"[\x00-\x1f\x7f&<>\"`|':\\/]", "", name)


def userdate(when: datetime | None) -> str:
    """A time as Moodle's worksheet writes it: userdate() with strftimedaydatetime
    (`%A, %d %B %Y, %I:%M %p`), day and hour without their leading zero; "-" for none."""
    if when is None:
        return "-"
    hour = when.hour % 12 or 12
    return f"{when:%A}, {when.day} {when:%B} {when.year}, {hour}:{when:%M} " + (
        "AM" if when.hour < 12 else "PM"
    )


# The Moodle releases whose English strings head the column "Maximum Grade" (the key
# defined twice, the second kept): before 4.4.12 and 4.5.5.
OLD_MAXIMUM = ("4.1", "4.2", "4.3", "4.4.3", "4.5.0")


def moodle_worksheet(
    path: Path,
    rows: Sequence[dict],
    *,
    maximum: str = "100.00",
    teams: bool = False,
    blind: bool = False,
    delimiter: str = ",",
    version: str = "4.5.5",
    overrides: bool = False,
    id_numbers: bool = False,
    scale: Sequence[str] | None = None,
) -> Path:
    """The grading worksheet as Moodle `version` writes it (mod/assign/gradingtable.php,
    downloading): Identifier, Full name, Email address (the site's identity fields),
    Status, with `overrides` Allow submissions from, Due date and Cut-off date, Group
    (team submissions only), Grade, Maximum grade ("Maximum Grade" before 4.4.12 and
    4.5.5), Grade can be changed, Last modified (submission), Last modified (grade),
    Feedback comments; with `id_numbers` the site shows "ID number" beside the e-mail
    (showuseridentity). On a `scale` (its items), "Scale" (col_scale: the items one per
    line, which the download's format_text makes three spaces) stands where the maximum
    does, and a grade is an item. A row's `locked`
    makes its "Grade can be changed" No (col_gradecanbechanged: grading_disabled). Under blind marking, without the capability to see names, only
    the Identifier. Each row: id, name, email, group, submitted (a datetime or None),
    extension and due (datetimes or None), grade, graded, feedback. The Status items
    are joined by " - ", and 4.5 leaves " -  - " at the end of every cell."""
    header = ["Identifier"]
    if not blind:
        header += ["Full name", "Email address"] + (["ID number"] if id_numbers else [])
    header += ["Status"]
    if overrides:
        header += ["Allow submissions from", "Due date", "Cut-off date"]
    header += ["Group"] if teams else []
    spelling = "Maximum Grade" if version in OLD_MAXIMUM else "Maximum grade"
    spelling = "Scale" if scale is not None else spelling
    header += ["Grade", spelling, "Grade can be changed", "Last modified (submission)"]
    header += ["Last modified (grade)", "Feedback comments"]
    table = [header]
    for row in rows:
        submitted = row.get("submitted")
        line = [f"Participant {row['id']}"]
        if not blind:
            line += [row.get("name", ""), row.get("email", "")]
            line += [row.get("idnumber", "")] if id_numbers else []
        status = ["Submitted for grading" if submitted else "No submission"]
        if row.get("extension") is not None:
            status.append("Extension granted until: " + userdate(row["extension"]))
        line += [" - ".join(status) + (" -  - " if version.startswith("4.5") else "")]
        if overrides:
            due = row.get("due")
            line += ["", userdate(due) if due is not None else "", ""]
        if teams:
            line += [row.get("group", "Default group")]
        bound = "   ".join(scale) if scale is not None else maximum
        line += [row.get("grade", ""), bound, "No" if row.get("locked") else "Yes"]
        line += [userdate(submitted)]
        line += [row.get("graded", "-"), row.get("feedback", "")]
        table.append(line)
    buffer = io.StringIO()
    csv.writer(buffer, delimiter=delimiter, lineterminator="\n").writerows(table)
    path.write_text(buffer.getvalue(), encoding="utf-8")
    return path


def canvas_gradebook(
    path: Path,
    students: Sequence[dict],
    assignments: dict[str, str],
    *,
    last_first: bool = False,
    sis: bool = True,
    integration_id: bool = False,
    delimiter: str = ",",
    manual_posting: bool = False,
) -> Path:
    """The gradebook CSV as Canvas's GradebookExporter writes it (lib/gradebook_exporter.rb):
    Student (or LastName, FirstName), ID, SIS User ID (with SIS ids), SIS Login ID,
    Integration ID (where the account shows it), Section, then each assignment as
    "Title (id)" and the totals; a "Manual Posting" row when an assignment is posted
    by hand, then "    Points Possible". `assignments`: column -> points possible;
    each student: name or last/first, id, sis, login, integration, section, and the
    cells of the assignment columns."""
    header = ["LastName", "FirstName"] if last_first else ["Student"]
    header += ["ID"] + (["SIS User ID"] if sis else []) + ["SIS Login ID"]
    header += (["Integration ID"] if integration_id else []) + ["Section"]
    identity = len(header)
    header += list(assignments) + ["Current Score", "Unposted Current Score"]
    header += ["Final Score", "Unposted Final Score"]
    table = [header]
    if manual_posting:
        table.append([""] * identity + ["Manual Posting"] * len(assignments) + [""] * 4)
    table.append(
        ["    Points Possible"]
        + [""] * (identity - 1)
        + list(assignments.values())
        + ["(read only)"] * 4
    )
    for s in students:
        row = [s["last"], s["first"]] if last_first else [s["name"]]
        row += [str(s["id"])] + ([s.get("sis", "")] if sis else []) + [s.get("login", "")]
        row += ([s.get("integration", "")] if integration_id else []) + [s.get("section", "")]
        row += [s.get("cells", {}).get(column, "") for column in assignments]
        row += ["", "", "", ""]
        table.append(row)
    buffer = io.StringIO()
    csv.writer(buffer, delimiter=delimiter, lineterminator="\n").writerows(table)
    path.write_text(buffer.getvalue(), encoding="utf-8")
    return path


def canvas_group_set(path: Path, students: Sequence[dict]) -> Path:
    """The group set export as Canvas writes it (GroupCategoriesController#export,
    `GET /api/v1/group_categories/:id/export`): a row per student of the course, and the
    columns canvas_group_id and group_id only when some student is in a group. Each
    student: name, id (Canvas user id), sis, login, section, group (name), group_id."""
    grouped = any(s.get("group") for s in students)
    header = ["name", "canvas_user_id", "user_id", "login_id", "sections", "group_name"]
    header += ["canvas_group_id", "group_id"] if grouped else []
    table = [header]
    for s in students:
        row = [s["name"], str(s["id"]), s.get("sis", ""), s.get("login", ""), s.get("section", "")]
        row += [s.get("group", "")]
        if grouped:
            row += [str(s.get("group_id", "")) if s.get("group") else "", ""]
        table.append(row)
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerows(table)
    path.write_text(buffer.getvalue(), encoding="utf-8")
    return path
