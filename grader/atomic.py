"""Files written whole or not at all."""

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

from grader.errors import GraderError


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
