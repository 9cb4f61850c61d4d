"""The results folder: held by one writer, or shared by readers."""

import errno
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

from grader.store.rows import StoreError

DB_NAME = "grader.db"  # the database `grader grade` keeps in its results folder


@contextmanager
def results_folder(folder: Path, *, wait: bool = False, shared: bool = False) -> Iterator[Path]:
    """Hold the results folder: alone for a command that writes it (`grade`,
    `leaderboard`), or `shared` for one that only reads it (an export).

    A second writer is refused (or waits, with wait=True) instead of racing the first
    one: two graders writing one database would both run the same cases; a reader is
    refused while a writer holds it (what it would read is half a grade), and a writer
    while a reader does.
    """
    folder = Path(folder)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        handle = open(folder / ".lock", "a+")
    except OSError as error:
        raise StoreError(
            f"{folder}: cannot use the results folder: {error.strerror or error}"
        ) from None
    try:
        _lock(handle, folder, wait, shared)
        yield folder
    finally:
        handle.close()


def _lock(handle: IO[str], folder: Path, wait: bool, shared: bool) -> None:
    try:
        import fcntl
    except ImportError:  # Windows: no advisory locks; single-user anyway
        return
    flags = (fcntl.LOCK_SH if shared else fcntl.LOCK_EX) | (0 if wait else fcntl.LOCK_NB)
    try:
        fcntl.flock(handle.fileno(), flags)
    except OSError as error:
        if error.errno in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK):
            raise StoreError(_busy(folder, handle, shared)) from None
        raise
    if shared:
        return  # the writer's pid stays in the file
    handle.seek(0)
    handle.truncate()
    handle.write(f"{os.getpid()}\n")
    handle.flush()


def _busy(folder: Path, handle: IO[str], shared: bool) -> str:
    if shared:
        handle.seek(0)
        pid = handle.read(32).strip()
        by = f" (process {pid})" if pid.isdigit() else ""
        return (
            f"{folder}: a `grader grade` or `grader leaderboard` is writing this results "
            f"folder{by}: export once it has finished (what it is writing is not settled)"
        )
    return (
        f"{folder}: another grading run is using this results folder (or an export reads "
        "it); wait for it to finish or pass another --results folder"
    )
