"""The read-only system tree a sandboxed program sees: /usr, the top-level links,
a few /etc entries and a minimal /dev; as root, /etc and /dev prepared once."""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

from grader.sandbox.base import SandboxUnavailable, SetupError
from grader.sandbox.uids import UidSlots, walk

_ETC_ENTRIES = ("ld.so.cache", "alternatives")
OWN_MOUNTS = ("/tmp", "/proc", "/dev", "/usr", "/etc", "/input")
_ETC_GLOBS = ("java-*", "python3.*")
DEVICES = ("null", "zero", "random", "urandom")
DEV_LINKS = (
    ("fd", "/proc/self/fd"),
    ("stdin", "/proc/self/fd/0"),
    ("stdout", "/proc/self/fd/1"),
    ("stderr", "/proc/self/fd/2"),
)
_TOP_LINKS = ("bin", "sbin", "lib", "lib32", "lib64", "libx32")


def system_mounts(extra_paths: Sequence[Path], etc_folder: Path | None) -> list[str]:
    """Read-only system runtime: /usr, top-level links, a few /etc entries (one prepared
    folder when there is one)."""
    mounts = ["--ro-bind", "/usr", "/usr"]
    for name in _TOP_LINKS:
        path = Path("/") / name
        if path.is_symlink():
            mounts += ["--symlink", os.readlink(path), str(path)]
        elif path.is_dir():
            mounts += ["--ro-bind", str(path), str(path)]
    if etc_folder is not None:
        mounts += ["--ro-bind", str(etc_folder), "/etc"]
    else:
        mounts += ["--perms", "0755", "--dir", "/etc"]
        for path in _etc_entries():
            mounts += ["--ro-bind", str(path), str(path)]
    for path in extra_paths:
        path = Path(os.path.abspath(path))
        if not path.exists():
            raise SandboxUnavailable(f"extra path not found: {path}")
        mounts += ["--ro-bind", str(path), str(path)]
    return mounts


def _etc_entries() -> list[Path]:
    etc = [Path("/etc") / name for name in _ETC_ENTRIES]
    for pattern in _ETC_GLOBS:
        etc += sorted(Path("/etc").glob(pattern))
    return [path for path in etc if path.exists()]


# Prepared folders (root). Every bind mount costs bwrap a few system calls and a read of
# the mount table, so /etc's entries and /dev's devices are each put in one folder and
# bound once (about 0.8 ms a run). They live in the root-owned 0700 folder of the uid
# slots; /etc's copy is named by a digest of what it copies, so a changed /etc (a JDK
# update, update-alternatives) gets a fresh copy when a grader starts.


def prepared_folders(
    slots: UidSlots | None, extra_paths: Sequence[Path]
) -> tuple[Path | None, Path | None]:
    """(etc folder, dev folder) to bind, or None for either: then the entries one by one."""
    if slots is None:
        return None, None  # not root: no trusted place to keep them, no mknod
    try:
        slots.check_folder()
        under_etc = any(Path(os.path.abspath(p)).is_relative_to("/etc") for p in extra_paths)
        etc = None if under_etc else _prepared_etc(slots.folder, _etc_entries())
        return etc, _prepared_dev(slots.folder)
    except (OSError, SetupError):
        return None, None


def _is_own_folder(path: Path) -> bool:
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return False
    return stat.S_ISDIR(st.st_mode) and st.st_uid == os.geteuid() and not st.st_mode & 0o022


def _entries_digest(entries: Sequence[Path]) -> str:
    digest = hashlib.sha256()
    for top in entries:
        found = [(str(top), os.lstat(top))] if top.is_symlink() else walk(top)
        for path, st in found:
            link = os.readlink(path) if stat.S_ISLNK(st.st_mode) else ""
            digest.update(
                f"{path}\0{st.st_mode}\0{st.st_size}\0{st.st_mtime_ns}\0{link}\0".encode(
                    errors="surrogateescape"
                )
            )
    return digest.hexdigest()[:16]


def _install(folder: Path, final: Path, ready: Callable[[Path], bool]) -> Path:
    """Move a freshly made folder to its final name (another grader may have been first)."""
    os.chmod(folder, 0o755)
    try:
        os.rename(folder, final)
    except OSError:
        shutil.rmtree(folder, ignore_errors=True)
        if not ready(final):
            shutil.rmtree(final, ignore_errors=True)  # stale or damaged: make it anew
            raise
    return final


def _prepared_etc(root: Path, entries: Sequence[Path]) -> Path:
    final = root / f"etc-{_entries_digest(entries)}"
    if _is_own_folder(final):
        return final
    folder = Path(tempfile.mkdtemp(prefix=".etc-", dir=root))
    for path in entries:
        target = folder / path.name
        if path.is_symlink():
            os.symlink(os.readlink(path), target)
        elif path.is_dir():
            shutil.copytree(path, target, symlinks=True)
        else:
            shutil.copy2(path, target)
    return _install(folder, final, _is_own_folder)


def _dev_ready(folder: Path) -> bool:
    if not _is_own_folder(folder):
        return False
    wanted = set(DEVICES) | {name for name, _ in DEV_LINKS}
    if set(os.listdir(folder)) != wanted:
        return False
    for name in DEVICES:
        st = os.lstat(folder / name)
        if (
            not stat.S_ISCHR(st.st_mode)
            or st.st_rdev != os.stat(f"/dev/{name}").st_rdev
            or stat.S_IMODE(st.st_mode) != 0o666
            or st.st_uid != os.geteuid()
        ):
            return False
    return all(os.readlink(folder / name) == target for name, target in DEV_LINKS)


def _prepared_dev(root: Path) -> Path | None:
    """Device nodes of our own, bound read-write: they belong to root, so the sandbox
    uid can use them but change nothing. None where devices cannot work (nodev)."""
    if os.statvfs(root).f_flag & os.ST_NODEV:
        return None
    final = root / "dev"
    if _dev_ready(final):
        return final
    folder = Path(tempfile.mkdtemp(prefix=".dev-", dir=root))
    for name in DEVICES:
        os.mknod(folder / name, stat.S_IFCHR | 0o666, os.stat(f"/dev/{name}").st_rdev)
        os.chmod(folder / name, 0o666)  # whatever the umask
    for name, target in DEV_LINKS:
        os.symlink(target, folder / name)
    if final.exists() or final.is_symlink():
        shutil.rmtree(final, ignore_errors=True)
    return _install(folder, final, _dev_ready)
