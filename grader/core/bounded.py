"""Read a file someone else made, no further than a limit.

A submitted file's size is what its owner says it is: a sparse file of 64 GB takes
no disk and would take 64 GB of the grader's memory (or a MemoryError that stops
the whole class). So the size is asked of the open file before anything is read,
and the read stops one byte past the limit in case the file grows meanwhile. The
last part of the path is never followed as a link, and a FIFO never blocks.
"""

import os
import stat
from pathlib import Path

_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_NONBLOCK", 0)  # opening a FIFO would wait for a writer
    | getattr(os, "O_CLOEXEC", 0)
)
_CHUNK = 1 << 20


class NotAFile(OSError):
    """Not a regular file (a folder, a FIFO, a device); str() says so."""


class TooLarge(OSError):
    """Larger than the reader's limit; nothing was read into memory past it."""

    def __init__(self, size: int | None, limit: int):
        self.size = size  # as the file system says; None when it grew while being read
        self.limit = limit
        found = f"{size:,} bytes" if size is not None else "more bytes"
        super().__init__(f"{found}, more than the limit of {limit:,}")


def read_limited(path: Path, limit: int) -> bytes:
    """The whole file if it holds at most `limit` bytes; else TooLarge. OSError (ELOOP
    for a link) and NotAFile as the file is."""
    fd = os.open(path, _FLAGS)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise NotAFile("not a regular file")
        if info.st_size > limit:
            raise TooLarge(info.st_size, limit)
        chunks, total = [], 0
        while total <= limit:
            chunk = os.read(fd, min(_CHUNK, limit + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
        if total > limit:
            raise TooLarge(None, limit)
        return b"".join(chunks)
    finally:
        os.close(fd)


def read_text(path: Path, limit: int, what: str, error: type[Exception]) -> str:
    """A UTF-8 text file of at most `limit` bytes (a byte-order mark dropped), every
    problem raised as `error` in one line naming the file and `what` it is."""
    try:
        return read_limited(path, limit).decode("utf-8-sig")
    except OSError as problem:
        raise error(f"{path}: cannot read {what}: {problem.strerror or problem}") from None
    except UnicodeDecodeError as problem:
        raise error(f"{path}: not UTF-8 text (bad byte at offset {problem.start})") from None
