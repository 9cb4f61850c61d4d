"""What a clone holds, read with git: its default branch's commits and the files of one
of them, each file a student cannot have meant as theirs named with why.

`gh classroom clone` clones each repository with git, so git is where the clones are.
It runs here on a student's repository, so only the commands that read objects
(`log`, `ls-tree`, `cat-file`: no hook, no filter, no fsmonitor runs for them), with
no system or user configuration, replacement objects off, a time limit, and every
output read within bounds. Where git is not installed, GitNotFound: the caller reads
the work tree instead.

A file the clone holds but a build cannot use is named, never silently dropped:
- a symbolic link (mode 120000): its target, which the grader never follows;
- a Git LFS pointer: the file itself is in GitHub's LFS storage, which a clone
  without git-lfs does not fetch;
- a submodule (mode 160000): a commit of another repository, not in this one.
"""

import contextlib
import os
import subprocess
import tempfile
import threading
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path, PurePosixPath
from typing import IO

from grader.core.errors import GraderError
from grader.lms.unpack import UnpackLimits

MAX_COMMITS = 10_000
_TIMEOUT = 60.0  # seconds: one git command on one repository
_LOG_BYTES = 8 << 20
_TREE_BYTES = 32 << 20
LFS_POINTER = b"version https://git-lfs.github.com/spec/v1"
MAX_DEPTH = 32  # folders in folders: deeper is not a program's source tree


class GitNotFound(GraderError):
    """git is not installed here."""


class GitFailed(GraderError):
    """git could not read the clone; str() says what it said."""


@dataclass(frozen=True)
class Commit:
    sha: str
    committed: datetime  # its committer date: the committer's own clock, aware
    subject: str = ""


@dataclass
class Tree:
    files: dict[PurePosixPath, bytes] = field(default_factory=dict)
    unusable: dict[str, str] = field(default_factory=dict)  # path -> why it is not used
    over: list[tuple[str, str]] = field(default_factory=list)  # (path, why) past the limits


def history(repo: Path) -> list[Commit]:
    """The default branch's commits as the clone checked it out (HEAD), newest first,
    along its first parents (the branch's own line, not what was merged into it)."""
    out = _git(
        repo,
        ["log", "--first-parent", f"--max-count={MAX_COMMITS}", "-z", "--format=%H %ct %s"],
        _LOG_BYTES,
    )
    commits = []
    for record in out.split(b"\0"):
        if not record.strip():
            continue
        sha, stamp, subject = (record.decode("utf-8", "replace").strip().split(" ", 2) + [""])[:3]
        when = datetime.fromtimestamp(int(stamp), timezone.utc)
        commits.append(Commit(sha, when, subject))
    return commits


def tree(repo: Path, sha: str, limits: UnpackLimits) -> Tree:
    """The files of commit `sha`, hidden entries aside (as the work tree is read), within
    the limits a download has; links, LFS pointers and submodules named."""
    listing = _git(repo, ["ls-tree", "-r", "-z", "--long", "--full-tree", sha], _TREE_BYTES)
    found = Tree()
    blobs: list[tuple[str, str, str]] = []  # (path, mode, object)
    total = 0
    for entry in listing.split(b"\0"):
        if not entry:
            continue
        head, _, raw_path = entry.partition(b"\t")
        mode, kind, obj, size = head.decode("ascii", "replace").split()
        path = raw_path.decode("utf-8", "surrogateescape")
        parts = PurePosixPath(path).parts
        if any(part.startswith(".") for part in parts):
            continue  # .github, .gitignore, the template's hidden kit: never a source
        if len(parts) > MAX_DEPTH + 1:
            found.over.append((path, "a folder nested too deep: not imported"))
        elif kind == "commit":
            found.unusable[path] = (
                f"a git submodule (commit {obj[:12]} of another repository): its files are "
                "not in this repository"
            )
        elif len(blobs) >= limits.max_entries:
            found.over.append((path, f"more than {limits.max_entries:,} files"))
        elif int(size) > min(limits.max_file_bytes, limits.max_total_bytes - total):
            found.over.append((path, f"too large: {int(size):,} bytes"))
        else:
            total += int(size)
            blobs.append((path, mode, obj))
    contents = _blobs(repo, [obj for _, _, obj in blobs], total)
    for path, mode, obj in blobs:
        data = contents[obj]
        if mode == "120000":
            target = data.decode("utf-8", "replace")
            found.unusable[path] = (
                f"a symbolic link in the repository (to {target}): never followed; commit "
                "the file itself"
            )
        elif data.startswith(LFS_POINTER):
            found.unusable[path] = lfs_reason()
        else:
            found.files[PurePosixPath(path)] = data
    return found


def lfs_reason() -> str:
    return (
        "a Git LFS pointer: the file itself is in GitHub's LFS storage, not in the "
        "repository; commit the file itself"
    )


def _blobs(repo: Path, objects: list[str], total: int) -> dict[str, bytes]:
    """Each object's content, through one `git cat-file --batch`."""
    if not objects:
        return {}
    request = "".join(f"{obj}\n" for obj in objects).encode("ascii")
    out = _git(repo, ["cat-file", "--batch"], total + 128 * len(objects) + 1024, request)
    found: dict[str, bytes] = {}
    at = 0
    for obj in objects:
        end = out.index(b"\n", at)
        name, kind, size = out[at:end].decode("ascii").split()
        if kind != "blob":
            raise GitFailed(f"{repo.name}: object {obj} is a {kind}, not a file")
        start = end + 1
        found[obj] = out[start : start + int(size)]
        at = start + int(size) + 1
    return found


def _git(repo: Path, args: list[str], limit: int, stdin: bytes = b"") -> bytes:
    """One git command on the clone, in a clean environment; its output read only up to
    `limit` (past it, the command is stopped), within _TIMEOUT."""
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": os.devnull,
        "LANG": "C",
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_NO_REPLACE_OBJECTS": "1",
        "GIT_TERMINAL_PROMPT": "0",
    }
    command = ["git", "-c", "safe.directory=*", "-c", "core.fsmonitor=false"]
    command += ["--git-dir", str(repo / ".git"), "--no-pager", *args]
    with tempfile.TemporaryFile() as errors:  # a file: a full pipe never stops git
        try:
            process = subprocess.Popen(
                command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=errors, env=env
            )
        except FileNotFoundError:
            raise GitNotFound("git is not installed here") from None
        out, code = _finish(process, stdin, limit, repo, args[0])
        errors.seek(0)
        said = errors.read(64 << 10).decode("utf-8", "replace").strip().splitlines()
    if code < 0:
        raise GitFailed(f"{repo.name}: git {args[0]} took over {_TIMEOUT:g} s")
    if code != 0:
        raise GitFailed(f"{repo.name}: git {args[0]}: {said[-1] if said else 'failed'}")
    return out


def _finish(
    process: subprocess.Popen[bytes], stdin: bytes, limit: int, repo: Path, what: str
) -> tuple[bytes, int]:
    """(its output, its exit status), its input fed beside; stopped past `limit` bytes
    of output or _TIMEOUT seconds."""
    stopper = threading.Timer(_TIMEOUT, process.kill)
    writer = threading.Thread(target=_feed, args=(process, stdin), daemon=True)
    stopper.start()
    writer.start()
    try:
        assert process.stdout is not None, "piped by the caller"
        out = _read_within(process.stdout, limit)
        if out is None:
            raise GitFailed(f"{repo.name}: git {what} wrote more than {limit:,} bytes")
        code = process.wait()
    finally:
        stopper.cancel()
        process.kill()
        process.wait()
        writer.join()
        if process.stdout is not None:
            process.stdout.close()
    return out, code


def _feed(process: subprocess.Popen[bytes], data: bytes) -> None:
    """The command's input, written beside the reading (a pipe holds only so much)."""
    assert process.stdin is not None, "piped by the caller"
    with contextlib.suppress(OSError):  # it stopped reading: its output says why
        process.stdin.write(data)
    with contextlib.suppress(OSError):
        process.stdin.close()


def _read_within(stream: IO[bytes], limit: int) -> bytes | None:
    """All of `stream`, or None past `limit` bytes."""
    chunks, size = [], 0
    while chunk := stream.read(1 << 16):
        size += len(chunk)
        if size > limit:
            return None
        chunks.append(chunk)
    return b"".join(chunks)
