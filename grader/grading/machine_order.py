"""The grading order between processes on one machine: while any grading process runs
visible runs (public cases, probes, a student's `check`), no hidden run of another
starts, and while one runs hidden runs, no other's visible run does (grader.grading.session's
rule, across processes). Visible phases share the machine (a shared lock), a hidden
phase has it alone (an exclusive one).

The lock file is the user's own (a folder only they may open): a sandboxed program,
run as another uid, can neither hold it nor watch it. Grading processes of other users
on the same machine are not ordered with these. Without advisory locks (Windows: the
student kit) there is nothing to order: one user checks their own program there.
"""

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

LOCK_NAME = "runs.lock"
# Where the lock lives when set (a folder this user alone may open, made if missing):
# graders that share it keep the order between them; by default every grader of this
# user on this machine does.
FOLDER_VARIABLE = "GRADER_ORDER_DIR"


class MachineOrder:
    """This process's place in the machine's order: visible (shared) until hidden()."""

    def __init__(self, fd: int | None) -> None:
        self.fd = fd
        self.in_hidden = False

    def hidden(self) -> None:
        """From now on this process runs hidden runs: wait until no other process runs
        a visible one, and keep them out until it ends."""
        if self.fd is None or self.in_hidden:
            return
        import fcntl

        fcntl.flock(self.fd, fcntl.LOCK_UN)  # never hold one kind while waiting for the other
        fcntl.flock(self.fd, fcntl.LOCK_EX)
        self.in_hidden = True


def lock_folder() -> Path:
    """This user's folder for the order's lock."""
    chosen = os.environ.get(FOLDER_VARIABLE)
    if chosen:
        return Path(chosen)
    return Path(tempfile.gettempdir()) / f"scramble-grader-{os.getuid()}"


@contextlib.contextmanager
def machine_order(folder: Path | None = None) -> Iterator[MachineOrder]:
    """Hold this machine's order for one grading session, visible first."""
    fd = _open(folder)
    if fd is None:
        yield MachineOrder(None)
        return
    try:
        import fcntl

        fcntl.flock(fd, fcntl.LOCK_SH)
        yield MachineOrder(fd)
    finally:
        os.close(fd)  # releases the lock


def _open(folder: Path | None) -> int | None:
    """The lock file in a folder only this user may open; None where there are no
    advisory locks or no such folder can be had (the order within this process still
    holds)."""
    try:
        import fcntl  # noqa: F401
    except ImportError:
        return None
    folder = folder or lock_folder()
    try:
        folder.mkdir(mode=0o700, exist_ok=True)
        st = os.lstat(folder)
        if st.st_uid != os.getuid() or st.st_mode & 0o077 or not os.path.isdir(folder):
            return None  # not ours alone: another user could hold or watch it
        return os.open(
            folder / LOCK_NAME, os.O_RDONLY | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, 0o600
        )
    except OSError:
        return None
