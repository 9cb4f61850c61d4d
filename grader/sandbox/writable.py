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

The sweep costs what the run did, not what the machine holds (a Moodle data folder
alone has hundreds of world-writable folders): an inotify watch kept on every place
since the scan says which of them changed while a run went on (`mark` before it,
`sweep(uid, since=mark)` after), and only those are looked into. A place the watch
cannot follow (no inotify, too many watches, a folder replaced since the scan) is
looked into after every run, as is everything once the kernel's event queue
overflowed: the guarantee is the same, only its cost differs.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import os
import shutil
import stat
import struct
import threading
from dataclasses import dataclass, field
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
    """What a uid that owns nothing can write here, and the watch on it (None: every
    place is looked into after every run)."""

    folders: tuple[str, ...]
    files: tuple[WritableFile, ...]
    watch: Watch | None = field(default=None, compare=False)

    @property
    def unkept(self) -> list[str]:
        """World-writable files too large to be restored after a run."""
        return [file.path for file in self.files if file.content is None]

    def mark(self) -> int | None:
        """Taken just before a run starts: what its sweep looks from."""
        return self.watch.mark() if self.watch is not None else None

    def sweep(self, uid: int, since: int | None = None) -> None:
        """Everything `uid` left in the folders removed, the files given their content
        back: in the places changed since `since` (a mark), or in all of them."""
        changed = self.watch.changed(since) if self.watch is not None and since else None
        for folder in self.folders:
            if changed is None or folder in changed:
                _remove_owned(folder, uid)
        for file in self.files:
            if changed is None or file.path in changed:
                _restore(file)


# What a run can do in a watched place: make, change, move, remove an entry; and the
# place itself going away (its watch then follows nothing: looked into every time).
_IN_MODIFY, _IN_ATTRIB, _IN_CLOSE_WRITE = 0x2, 0x4, 0x8
_IN_MOVED_FROM, _IN_MOVED_TO, _IN_CREATE, _IN_DELETE = 0x40, 0x80, 0x100, 0x200
_IN_DELETE_SELF, _IN_MOVE_SELF, _IN_Q_OVERFLOW, _IN_IGNORED = 0x400, 0x800, 0x4000, 0x8000
_IN_NONBLOCK, _IN_CLOEXEC = os.O_NONBLOCK, os.O_CLOEXEC
_CHANGES = _IN_MODIFY | _IN_ATTRIB | _IN_CLOSE_WRITE | _IN_MOVED_FROM | _IN_MOVED_TO
_CHANGES |= _IN_CREATE | _IN_DELETE | _IN_DELETE_SELF | _IN_MOVE_SELF
_GONE = _IN_DELETE_SELF | _IN_MOVE_SELF | _IN_IGNORED
_EVENT = struct.Struct("iIII")  # struct inotify_event: wd, mask, cookie, len (then the name)


class Watch:
    """An inotify watch on every place, kept for the process's life: which places
    changed since a mark. Thread-safe (runs end on several threads)."""

    def __init__(self, paths: list[str]) -> None:
        libc = ctypes.CDLL(None, use_errno=True)
        self._fd = libc.inotify_init1(_IN_NONBLOCK | _IN_CLOEXEC)
        if self._fd < 0:
            raise OSError(ctypes.get_errno(), "inotify_init1")
        self._by_wd: dict[int, str] = {}
        self.always: set[str] = set()  # followed by no watch: looked into every time
        for path in paths:
            wd = libc.inotify_add_watch(self._fd, os.fsencode(path), _CHANGES)
            if wd < 0:  # ENOSPC past max_user_watches, a place gone since the scan
                self.always.add(path)
            else:
                self._by_wd[wd] = path
        self._lock = threading.Lock()
        self._seq = 1
        self._changed: dict[str, int] = {}  # place -> the last mark period it changed in

    def mark(self) -> int:
        with self._lock:
            self._drain()
            self._seq += 1
            return self._seq

    def changed(self, since: int) -> set[str]:
        """The places changed since the mark `since` (and those no watch follows)."""
        with self._lock:
            self._drain()
            return {p for p, seq in self._changed.items() if seq >= since} | self.always

    def _drain(self) -> None:
        while True:
            try:
                data = os.read(self._fd, 1 << 16)
            except BlockingIOError:
                return
            at = 0
            while at + _EVENT.size <= len(data):
                wd, mask, _, length = _EVENT.unpack_from(data, at)
                at += _EVENT.size + length
                if mask & _IN_Q_OVERFLOW:  # events were lost: everything may have changed
                    self._changed.update(dict.fromkeys(self._by_wd.values(), self._seq))
                    continue
                path = self._by_wd.get(wd)
                if path is None:
                    continue
                self._changed[path] = self._seq
                if mask & _GONE:  # replaced or removed: no event will come from it again
                    self.always.add(path)


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
    try:
        watch: Watch | None = Watch(folders + [file.path for file in files])
    except OSError:  # no inotify here (or no instance left): every place, every time
        watch = None
    return WritablePlaces(tuple(sorted(folders)), tuple(files), watch)


def _look_at(
    entry: os.DirEntry[str],
    pseudo: frozenset[str],
    folders: list[str],
    files: list[WritableFile],
    stack: list[str],
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
