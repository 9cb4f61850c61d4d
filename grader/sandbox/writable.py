"""Every place of this machine a sandbox uid could write, and the sweep that takes back
what a run left there (the rlimits fallback: it has no file system of its own).

A sandbox uid owns nothing and belongs to no group, so it may write only where any user
may: a folder that is writable by others and that others can reach (every folder above
it searchable by others), or a regular file writable by others. The machine is scanned
once per grader process, not read from a fixed list: a container can have world-writable
folders anywhere (/run/lock, /var/lock, a world-writable folder below /tmp). After each
run, everything the uid owns in those folders goes (files, links, sockets, whole
folders), and a world-writable file whose content changed gets its first content back.
Pseudo file systems (/proc, /sys, cgroups) are not scanned: nothing written there is
stored.
"""

from __future__ import annotations

import contextlib
import functools
import os
import shutil
import stat
from dataclasses import dataclass
from pathlib import Path

# File systems whose files are the kernel's views, not storage.
_PSEUDO = frozenset(
    {
        "proc", "sysfs", "cgroup", "cgroup2", "debugfs", "tracefs", "securityfs", "bpf",
        "pstore", "configfs", "fusectl", "binfmt_misc", "autofs", "efivarfs", "nsfs",
    }
)  # fmt: skip
# A world-writable file larger than this cannot be kept to be restored: the fallback
# refuses to grade as root on such a machine (WritablePlaces.unkept).
KEPT_BYTES = 16 << 20


@dataclass(frozen=True)
class WritableFile:
    path: str
    content: bytes | None  # as found at start-up; None when too large to keep


@dataclass(frozen=True)
class WritablePlaces:
    """What a uid that owns nothing can write here."""

    folders: tuple[str, ...]
    files: tuple[WritableFile, ...]

    @property
    def unkept(self) -> list[str]:
        """World-writable files too large to be restored after a run."""
        return [file.path for file in self.files if file.content is None]

    def sweep(self, uid: int) -> None:
        """Everything `uid` left in the folders removed, the files given their content
        back."""
        for folder in self.folders:
            _remove_owned(folder, uid)
        for file in self.files:
            _restore(file)


@functools.cache
def writable_places(root: str = "/") -> WritablePlaces:
    """The scan, made once per process (a few seconds on a large machine; the places
    do not change while a grader runs)."""
    pseudo = _pseudo_mounts()
    folders: list[str] = []
    files: list[WritableFile] = []
    stack = [root]
    while stack:
        folder = stack.pop()
        with contextlib.suppress(OSError), os.scandir(folder) as entries:
            for entry in entries:
                _look_at(entry, pseudo, folders, files, stack)
    return WritablePlaces(tuple(sorted(folders)), tuple(files))


def _look_at(
    entry: os.DirEntry, pseudo: frozenset[str], folders: list, files: list, stack: list
) -> None:
    try:
        if entry.is_dir(follow_symlinks=False):
            if entry.path in pseudo:
                return
            mode = entry.stat(follow_symlinks=False).st_mode
            if mode & stat.S_IXOTH:  # others can pass it: look inside
                stack.append(entry.path)
                if mode & stat.S_IWOTH:
                    folders.append(entry.path)
        elif entry.is_file(follow_symlinks=False):
            st = entry.stat(follow_symlinks=False)
            if st.st_mode & stat.S_IWOTH:
                files.append(_kept(entry.path, st))
    except OSError:
        return


def _kept(path: str, st: os.stat_result) -> WritableFile:
    content = None
    if st.st_size <= KEPT_BYTES:
        with contextlib.suppress(OSError):
            content = Path(path).read_bytes()
    return WritableFile(path, content)


def _pseudo_mounts() -> frozenset[str]:
    found = set()
    with contextlib.suppress(OSError), open("/proc/self/mountinfo", "rb") as info:
        for line in info:
            fields = line.split()
            fstype = fields[fields.index(b"-") + 1].decode(errors="replace")
            if fstype in _PSEUDO:
                found.add(_unescape(fields[4]))
    return frozenset(found)


def _unescape(field: bytes) -> str:
    """mountinfo writes space, tab, newline and backslash as octal escapes."""
    for code in (b"\\040", b"\\011", b"\\012", b"\\134"):
        field = field.replace(code, bytes([int(code[1:], 8)]))
    return os.fsdecode(field)


def _remove_owned(folder: str, uid: int) -> None:
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    for entry in entries:
        try:
            if entry.stat(follow_symlinks=False).st_uid != uid:
                continue
            if entry.is_dir(follow_symlinks=False):
                shutil.rmtree(entry.path, ignore_errors=True)
            else:
                os.unlink(entry.path)
        except OSError:
            continue


def _restore(file: WritableFile) -> None:
    if file.content is None:
        return
    # Never through a link the run may have put in its place (the folders are swept
    # first, so such a link is gone by now anyway).
    with contextlib.suppress(OSError), os.fdopen(_open_nofollow(file.path), "r+b") as handle:
        if handle.read(len(file.content) + 1) != file.content:
            handle.seek(0)
            handle.write(file.content)
            handle.truncate()


def _open_nofollow(path: str) -> int:
    return os.open(path, os.O_RDWR | os.O_NOFOLLOW | os.O_CLOEXEC)
