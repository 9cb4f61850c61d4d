"""Bulk downloads in each LMS's real layout, made on the fly for the tests."""

import re
import stat
import zipfile
from collections.abc import Iterable
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
    sortable_name: str, user_id: int, attachment_id: int, display_name: str, late: bool = False
) -> str:
    """The zip name Canvas gives a submitted file: ContentZipper#add_submission
    (lib/content_zipper.rb) with its sanitize_user_name, get_filename,
    sanitize_file_name and sanitize_attachment_filename, step by step."""
    name = re.sub(r"_(\d+)_", r"\1", sortable_name).lower()  # sanitize_user_name
    parts = [name, "LATE" if late else None, str(user_id)]
    filename = re.sub(r"[^\w]", "", "_".join(p for p in parts if p))  # sanitize_file_name
    attachment = re.sub(r'[\x00/\\:*?"<>|]+', "_", display_name)
    return f"{filename}_{attachment_id}_{attachment}"


def moodle_entry(
    full_name: str,
    participant_id: int,
    path: str,
    *,
    folders: bool = True,
    before_4_1: bool = False,
    plugin: str = "file",
) -> str:
    """The zip path Moodle gives a participant's file: mod/assign/classes/downloader.php
    (4.1 on) or assign::download_submissions in locallib.php (3.1 to 4.0). The name's
    own `_` become spaces; with folders the path inside is kept, without them only
    the file's name, glued to the prefix."""
    prefix = _moodle_clean(full_name.replace("_", " ") + f"_{participant_id}")
    if folders:
        folder = _moodle_clean(f"{prefix}_assignsubmission_{plugin}" + ("_" if before_4_1 else ""))
        return f"{folder}/{path}"
    return _moodle_clean(f"{prefix}_assignsubmission_{plugin}_{path.rsplit('/', 1)[-1]}")


def _moodle_clean(name: str) -> str:
    """clean_filename (PARAM_FILE) for the plain names the tests use: what it strips."""
    return re.sub(r'[\x00-\x1f\x7f/\\:*?"<>|]', "", name)
