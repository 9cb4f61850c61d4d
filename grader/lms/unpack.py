"""Read an LMS's zip download without trusting it.

Nothing is written to disk here: every entry is checked and read into memory,
so a hostile archive cannot place a file outside the target (zip-slip), plant a
symbolic link, or fill the disk (zip bomb). Each entry that is refused is named
with the reason; the importers decide what the accepted ones mean.
"""

import io
import stat
import zipfile
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path, PurePosixPath

from grader.core.errors import GraderError

# macOS adds these to zips it makes; they are never part of a submission.
_JUNK_DIRS = ("__MACOSX",)
_JUNK_FILES = (".DS_Store", "Thumbs.db")
_ZIP_EPOCH = (1980, 1, 1, 0, 0, 0)  # a zip's "no time": the format's earliest date


class ArchiveError(GraderError):
    """The archive as a whole cannot be used; str() is the one-line reason."""


@dataclass(frozen=True)
class UnpackLimits:
    max_entries: int = 20_000  # entries in the central directory
    max_file_bytes: int = 16 << 20  # one entry, once unpacked
    max_total_bytes: int = 512 << 20  # every entry together, once unpacked
    max_ratio: int = 200  # unpacked / packed size of one entry (above 64 KiB)


DEFAULT_LIMITS = UnpackLimits()


@dataclass(frozen=True)
class Member:
    path: PurePosixPath  # normalised, relative, no '..'
    data: bytes
    mtime: datetime | None  # the entry's time (naive, as zip stores it), None if unset


@dataclass(frozen=True)
class Refused:
    name: str  # the entry's name as the archive spells it
    reason: str


@dataclass
class Unpacked:
    members: list[Member] = field(default_factory=list)
    refused: list[Refused] = field(default_factory=list)


def read_zip(
    archive: Path | bytes, limits: UnpackLimits = DEFAULT_LIMITS, *, label: str = ""
) -> Unpacked:
    """Every acceptable file entry of `archive` (a path, or a zip's bytes named `label`),
    and every refused one with why."""
    source: io.BytesIO | Path
    if isinstance(archive, bytes):
        source, archive = io.BytesIO(archive), Path(label or "zip")
    else:
        archive = Path(archive)
        source = archive
    try:
        handle = zipfile.ZipFile(source)
    except FileNotFoundError:
        raise ArchiveError(f"{archive}: no such file") from None
    except (zipfile.BadZipFile, OSError) as error:
        raise ArchiveError(f"{archive}: not a readable zip archive: {error}") from None
    with handle:
        infos = handle.infolist()
        if len(infos) > limits.max_entries:
            raise ArchiveError(
                f"{archive}: holds {len(infos):,} entries, more than the "
                f"limit of {limits.max_entries:,} (a zip bomb?)"
            )
        result = Unpacked()
        seen = set()
        total = 0
        too_much = (
            f"the archive unpacks to more than {limits.max_total_bytes:,} bytes (a zip bomb?)"
        )
        for info in infos:
            if info.is_dir():
                continue
            path, reason = _checked_path(info.filename)
            if reason is None:
                reason = _entry_problem(info, limits)
            if reason is None and path in seen:
                reason = "a second entry with the same name"
            if reason is None and total >= limits.max_total_bytes:
                reason = too_much
            if reason is None:
                data, reason = _read_capped(handle, info, limits.max_file_bytes)
                if reason is None and total + len(data) > limits.max_total_bytes:
                    reason = too_much
            if reason is not None:
                result.refused.append(Refused(info.filename, reason))
                continue
            assert path is not None, "_checked_path gives a path whenever it gives no reason"
            seen.add(path)
            total += len(data)
            result.members.append(Member(path, data, _mtime(info)))
        return result


def _checked_path(name: str) -> tuple[PurePosixPath, None] | tuple[None, str]:
    """(normalised path, None) or (None, why it is refused)."""
    if "\0" in name:
        return None, "a NUL byte in its name"
    text = name.replace("\\", "/")  # zips made on Windows may use backslashes
    if text.startswith("/") or (len(text) > 1 and text[1] == ":"):
        return None, "an absolute path (it would be written outside the target folder)"
    parts = [part for part in text.split("/") if part not in ("", ".")]
    if ".." in parts:
        return None, "a '..' in its path (it would be written outside the target folder)"
    if not parts:
        return None, "an empty name"
    if parts[0] in _JUNK_DIRS or parts[-1] in _JUNK_FILES or parts[-1].startswith("._"):
        return None, "operating-system metadata, not part of a submission"
    if any(ord(ch) < 32 for part in parts for ch in part):
        return None, "a control character in its name"
    return PurePosixPath(*parts), None


def _entry_problem(info: zipfile.ZipInfo, limits: UnpackLimits) -> str | None:
    mode = info.external_attr >> 16
    if info.create_system == 3 and mode:  # Unix: the high bits hold st_mode
        if stat.S_ISLNK(mode):
            return "a symbolic link (links are never unpacked)"
        if stat.S_IFMT(mode) and not stat.S_ISREG(mode):
            return "not a regular file"
    if info.flag_bits & 0x1:
        return "encrypted"
    if info.file_size > limits.max_file_bytes:
        return (
            f"{info.file_size:,} bytes once unpacked, more than the limit of "
            f"{limits.max_file_bytes:,} (a zip bomb?)"
        )
    if info.file_size > 64 << 10 and info.file_size > limits.max_ratio * max(1, info.compress_size):
        return (
            f"compressed {info.file_size // max(1, info.compress_size):,} to 1, more than "
            f"{limits.max_ratio} to 1 (a zip bomb?)"
        )
    return None


def _read_capped(
    handle: zipfile.ZipFile, info: zipfile.ZipInfo, cap: int
) -> tuple[bytes, str | None]:
    """The entry's bytes, read no further than `cap` + 1: the size in the header may lie."""
    try:
        with handle.open(info) as stream:
            data = stream.read(cap + 1)
    except (zipfile.BadZipFile, OSError, EOFError, NotImplementedError, RuntimeError) as error:
        return b"", f"cannot be read: {error}"
    except Exception as error:  # zlib.error and friends from a corrupt stream
        return b"", f"cannot be read: {type(error).__name__}: {error}"
    if len(data) > cap:
        return b"", f"more than {cap:,} bytes once unpacked (a zip bomb?)"
    return data, None


def _mtime(info: zipfile.ZipInfo) -> datetime | None:
    if tuple(info.date_time) <= _ZIP_EPOCH:
        return None
    try:
        return datetime(*info.date_time)
    except ValueError:
        return None
