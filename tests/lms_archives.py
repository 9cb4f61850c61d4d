"""Bulk downloads in each LMS's real layout, made on the fly for the tests."""

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
