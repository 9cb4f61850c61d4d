"""Builds shared by every results folder on a machine (GRADER_SHARED_BUILDS).

A results folder keeps its own builds (builds/<hash>). When GRADER_SHARED_BUILDS names
a folder, a build missing there is first looked for in that folder, and a new one is
copied into it: a class graded again into a new results folder, several sections with
the same starter code, or a CI machine grading many small classes, build each program
once. An entry is keyed by everything a build depends on that the content hash does
not hold: the sandbox it was built in (a fallback build sees the host's files) and the
build limits (a build over a limit is a CE under those limits only).

Only finished builds are shared (a built folder, or a CE a canary showed is the
student's; never a build the grader failed: those are never cached anywhere). An
entry is one folder, its build and its record, made beside the others and renamed
into place at once: an entry is whole or absent, and never replaced or deleted while
another grader may be copying it.
Links are copied as links, never followed; a folder holding anything but files, links
and folders, or more than SHARE_LIMIT bytes, is not shared. Anything going wrong here
costs a build, never a verdict.
"""

import contextlib
import hashlib
import json
import os
import shutil
import stat
import tempfile
from pathlib import Path
from typing import Any

from grader.core.model import Limits

SHARED_BUILDS_ENV = "GRADER_SHARED_BUILDS"
SHARE_LIMIT = 64 << 20  # bytes: a bigger build folder is rebuilt, never copied around
_RECORD = "record.json"
_BUILD = "build"


def shared_folder() -> Path | None:
    """The machine's shared builds folder, or None (each results folder alone, or the
    folder named is not the grader's own: a build planted there by another user would
    run as a student's program)."""
    named = os.environ.get(SHARED_BUILDS_ENV, "").strip()
    if not named:
        return None
    try:
        os.makedirs(named, mode=0o700, exist_ok=True)
        st = os.lstat(named)
    except OSError:
        return None
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.geteuid() or st.st_mode & 0o022:
        return None
    return Path(named)


def entry_name(content_hash: str, sandbox_name: str, limits: Limits) -> str:
    key = f"{content_hash}\0{sandbox_name}\0{limits!r}".encode()
    return hashlib.sha256(key).hexdigest()[:32]


def adopt(shared: Path, name: str, final: Path) -> dict[str, Any] | None:
    """The shared entry `name` copied to `final` (which must not exist); its record,
    or None when there is none (or it cannot be read or copied)."""
    try:
        record = json.loads((shared / name / _RECORD).read_bytes())
        if not isinstance(record, dict):
            return None
        _copy_whole(shared / name / _BUILD, final)
        return record
    except (OSError, ValueError):
        return None


def publish(shared: Path, name: str, folder: Path, record: dict[str, Any]) -> None:
    """A finished build (`folder` and its record) copied into the shared folder, whole
    or not at all; an entry already there is kept."""
    entry = shared / name
    with contextlib.suppress(OSError):
        if entry.exists() or _size(folder) > SHARE_LIMIT:
            return
        work = Path(tempfile.mkdtemp(prefix=f".entry-{name[:16]}-", dir=shared))
        try:
            shutil.copytree(folder, work / _BUILD, symlinks=True)
            (work / _RECORD).write_text(json.dumps(record), encoding="utf-8")
            os.rename(work, entry)  # fails if another grader's entry got there first: kept
        finally:
            shutil.rmtree(work, ignore_errors=True)


def _copy_whole(source: Path, target: Path) -> None:
    """source copied to target by way of a temporary sibling, renamed at the end."""
    work = Path(tempfile.mkdtemp(prefix=f".copy-{target.name[:16]}-", dir=target.parent))
    try:
        copy = work / "copy"
        shutil.copytree(source, copy, symlinks=True)
        os.replace(copy, target)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _size(folder: Path) -> int:
    """The bytes of the files under folder; more than SHARE_LIMIT for anything that is
    not a file, a link or a folder (a FIFO a build left would block a copy)."""
    total = 0
    for root, folders, files in os.walk(folder):
        for entry in folders + files:
            st = os.lstat(os.path.join(root, entry))
            if not (
                stat.S_ISREG(st.st_mode) or stat.S_ISDIR(st.st_mode) or stat.S_ISLNK(st.st_mode)
            ):
                return SHARE_LIMIT + 1
            total += st.st_size if stat.S_ISREG(st.st_mode) else 0
    return total
