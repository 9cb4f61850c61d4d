"""Files written whole or not at all."""

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

from grader.core.errors import GraderError


class WriteError(GraderError):
    """A result, report or export file could not be written (full disk, no permission)."""


@contextmanager
def atomic_output(path: Path) -> Iterator[BinaryIO]:
    """A binary handle on a temporary file beside `path`. When the block ends
    normally the file replaces `path` (mode 0644: results are meant to be read
    and published); when it fails (full disk, no permission) the previous
    version stays and no stray file is left. OSError propagates."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    # The temporary name must fit where `path`'s own does: a legal 255-byte name plus
    # a prefix and mkstemp's suffix would not, so only the name's head is kept.
    fd, tmp = tempfile.mkstemp(prefix=f".{_head(path.name)}.", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            yield handle
        os.chmod(tmp, 0o644)  # mkstemp makes 0600
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


_HEAD_BYTES = 64  # of the name, in the temporary one: enough to tell whose it is


def _head(name: str) -> str:
    """The longest start of `name` that encodes to at most _HEAD_BYTES bytes, cut
    between characters."""
    kept, size = [], 0
    for char in name:
        size += len(os.fsencode(char))
        if size > _HEAD_BYTES:
            break
        kept.append(char)
    return "".join(kept)


def write_file(path: Path, data: bytes | str) -> None:
    """Write a file whole or not at all, bytes exactly as given (str: UTF-8, invalid
    code points escaped); WriteError names the file and the reason."""
    path = Path(path)
    if isinstance(data, str):
        data = data.encode("utf-8", "backslashreplace")
    try:
        with atomic_output(path) as handle:
            handle.write(data)
    except OSError as error:
        raise WriteError(f"{path}: cannot write: {error.strerror or error}") from None


@contextmanager
def atomic_folder(path: Path, kind: str = ".html") -> Iterator[Path]:
    """A new folder beside `path` to fill; when the block ends normally it takes the
    place of `path` (the old folder goes only then), so a reader finds the old folder
    whole or the new one whole, never the two mixed, and a killed writer leaves the
    old one as it was. A folder `path` holding anything but files ending in `kind` (what
    such an export writes) is refused: replacing it would delete someone's files."""
    path = Path(path)
    if path.exists() and not path.is_dir():
        raise WriteError(f"{path}: not a folder")
    if path.is_dir() and any(
        not entry.name.endswith(kind) or not entry.is_file() for entry in path.iterdir()
    ):
        raise WriteError(
            f"{path}: holds files the grader did not write; name a new folder (the export "
            "replaces its folder whole)"
        )
    parent = path.parent
    try:
        parent.mkdir(parents=True, exist_ok=True)
        for stale in parent.glob(f".{_head(path.name)}.new-*"):  # a killed export's
            shutil.rmtree(stale, ignore_errors=True)
        new = Path(tempfile.mkdtemp(prefix=f".{_head(path.name)}.new-", dir=parent))
    except OSError as error:
        raise WriteError(f"{path}: cannot write: {error.strerror or error}") from None
    try:
        yield new
        os.chmod(new, 0o755)  # mkdtemp makes 0700: pages are meant to be published
        _swap(new, path)
    finally:
        shutil.rmtree(new, ignore_errors=True)


def _swap(new: Path, path: Path) -> None:
    """`new` in place of `path`: renames within one folder (atomic each)."""
    old = None
    try:
        if path.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{_head(path.name)}.old-", dir=path.parent))
            os.replace(path, old / "folder")
        os.replace(new, path)
    except OSError as error:
        if old is not None and not path.exists():
            os.replace(old / "folder", path)  # put the old one back
        raise WriteError(f"{path}: cannot write: {error.strerror or error}") from None
    finally:
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
