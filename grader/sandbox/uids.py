"""Sandbox uids for a grader running as root, and the workdir permissions they need."""

from __future__ import annotations

import contextlib
import fcntl
import os
import pwd
import stat
import tempfile
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

from grader.sandbox.base import SetupError

_UID_BASE = 70000
_UID_SLOTS = 256


def walk(top: Path) -> Iterator[tuple[str, os.stat_result]]:
    """Every entry under top (top included), never following symbolic links."""
    yield str(top), os.lstat(top)
    for root, dirs, files in os.walk(top, followlinks=False):
        for name in dirs + files:
            path = os.path.join(root, name)
            try:
                yield path, os.lstat(path)
            except FileNotFoundError:
                continue


def _make_world_readable(top: Path, built: bool = False) -> None:
    """o+r everywhere, o+x on folders and on files their owner may execute. After a
    build, also no set-uid/set-gid bit and nothing writable by others: what the
    student's build made must not become a root-owned set-uid program, nor be
    changed by other users before it runs. Links are never followed."""
    for path, st in walk(top):
        if stat.S_ISLNK(st.st_mode):
            continue
        mode = stat.S_IMODE(st.st_mode)
        wanted = mode | stat.S_IROTH
        if stat.S_ISDIR(st.st_mode) or mode & stat.S_IXUSR:
            wanted |= stat.S_IXOTH
        if built:
            wanted &= ~(stat.S_ISUID | stat.S_ISGID | stat.S_IWOTH)
        if wanted != mode:
            os.chmod(path, wanted)


def _chown_tree(top: Path, uid: int, gid: int) -> None:
    entries = list(walk(top))
    names = Counter((st.st_dev, st.st_ino) for _, st in entries)
    for path, st in entries:
        if not stat.S_ISDIR(st.st_mode) and st.st_nlink > names[(st.st_dev, st.st_ino)]:
            # A hard link the build made to a file outside its folder: changing it
            # would change that file. Not the build's own: removed, never handed over.
            os.unlink(path)
            continue
        os.chown(path, uid, gid, follow_symlinks=False)


def readable_by(uid: int | None, workdir: Path) -> None:
    """A read-only workdir, readable by the sandbox uid (nothing to do without one)."""
    if uid is not None:
        _make_world_readable(workdir)


def pipes_for(uid: int | None, *fds: int) -> None:
    """Pipes belong to their creator (root) with mode 0600: open("/dev/stdout"), which
    reopens the pipe through /proc, would fail for the sandbox uid."""
    if uid is not None:
        for fd in fds:
            os.fchmod(fd, 0o666)


@contextlib.contextmanager
def workdir_for(uid: int | None, workdir: Path, writable: bool) -> Iterator[None]:
    """Make the workdir usable by the sandbox uid for the run (see the docstring)."""
    if uid is None:
        yield
        return
    if not writable:
        readable_by(uid, workdir)
        yield
        return
    st = os.stat(workdir)
    try:
        _chown_tree(workdir, uid, uid)
        yield
    finally:  # every process of the run is dead by now: nothing can race the hand-back
        workdir_for_owner(workdir, st.st_uid, st.st_gid)


def workdir_for_owner(workdir: Path, uid: int, gid: int) -> None:
    """A build's output handed to the workdir's owner, world-readable, no set-uid bit."""
    _chown_tree(workdir, uid, gid)
    _make_world_readable(workdir, built=True)


def private_folder(folder: Path) -> Path:
    """folder, made if missing: ours alone (owned by us, writable by no one else),
    so what the grader keeps there cannot be swapped by another user."""
    try:
        folder.mkdir(mode=0o700, exist_ok=True)
    except OSError as exc:
        raise SetupError(f"cannot create {folder}: {exc.strerror}") from exc
    st = os.lstat(folder)
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.geteuid() or st.st_mode & 0o022:
        raise SetupError(f"{folder} must be a folder owned by the grader, not writable by others")
    return folder


class UidSlots:
    """One sandbox uid per concurrent run, held by flock (root only)."""

    def __init__(self, base: int = _UID_BASE, count: int = _UID_SLOTS) -> None:
        self.folder = Path(tempfile.gettempdir()) / "scramble-grader-uids"
        self.uids = range(base, base + count)
        self.is_account: dict[int, bool] = {}  # in the password database? (asked once)

    def check_folder(self) -> None:
        private_folder(self.folder)

    def acquire(self) -> tuple[int, int]:
        """(uid, lock descriptor); close the descriptor to give the uid back."""
        self.check_folder()
        for uid in self.uids:
            if self.is_account.get(uid):
                continue
            flags = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC
            fd = os.open(self.folder / f"{uid}.lock", flags, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                continue
            if uid not in self.is_account:  # asked only of a free slot: lookups can be slow
                self.is_account[uid] = _uid_exists(uid)
            if not self.is_account[uid]:
                return uid, fd
            os.close(fd)
        raise SetupError("all sandbox uids are in use")


def _uid_exists(uid: int) -> bool:
    try:
        pwd.getpwuid(uid)
        return True
    except KeyError:
        return False
