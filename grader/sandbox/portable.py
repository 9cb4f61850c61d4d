"""Portable fallback (Windows, or any Python without resource, fcntl and pwd): the
student kit's way to run a program where neither bubblewrap nor rlimits can work.

Held: time, with no CPU counter to read (the run is stopped once its wall-clock time
reaches the CPU limit: a single-threaded program's CPU time never exceeds its wall
time, so this is stricter than grading, never looser), and the sizes of standard output
and error output. Not held: memory, processes, file size, open files; and the program is
not isolated at all. Where the platform writes text with CR LF line ends (Windows: C's
and Python's text mode, Java's println), CR LF is read as LF, since the grader's Linux
machine writes LF for the same program.

Stdlib only, and nothing POSIX-only: it is what runs when the rest of grader.sandbox
cannot be imported.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, TypedDict

from grader.core.model import CpuAccounting, Limits, RunResult
from grader.sandbox.base import Sandbox, SetupError, guarded, substitute

NOT_HELD = (
    "memory, process, file-size and open-file limits are not enforced, the program is "
    "not isolated, and CPU time is not counted: the wall-clock time of a run is held "
    "to the CPU limit instead (stricter than grading)"
)
CHUNK = 1 << 16


class PortableSandbox(Sandbox):
    name = "portable"
    shares_builds = True
    accounting = CpuAccounting.WALL

    def __init__(self, *, crlf_as_lf: bool = os.name == "nt") -> None:
        self.crlf_as_lf = crlf_as_lf

    def run(
        self,
        argv: list[str],
        workdir: Path,
        limits: Limits,
        *,
        input_file: Path | None = None,
        writable: bool = False,
        memory_rlimit: bool = True,
    ) -> RunResult:
        start = time.monotonic()
        workdir = Path(os.path.abspath(workdir))

        def work() -> RunResult:
            if not argv:
                raise SetupError("empty command")
            if not workdir.is_dir():
                raise SetupError(f"workdir is not a folder: {workdir}")
            if input_file is not None and not input_file.is_file():
                raise SetupError(f"input file not found: {input_file}")
            with tempfile.TemporaryDirectory(prefix="sandbox-") as folder:
                private = Path(folder)
                seen = None
                if input_file is not None:  # a neutral name, as in the other sandboxes
                    seen = private / ("input" + input_file.suffix)
                    shutil.copyfile(input_file, seen)
                command = substitute(argv, str(seen) if seen else None)
                command[0] = program_path(command[0], workdir)
                return self._spawn(command, workdir, private, limits)

        return guarded(self.name, start, work)

    def _spawn(self, command: list[str], cwd: Path, private: Path, limits: Limits) -> RunResult:
        (private / "tmp").mkdir()
        env = dict(os.environ, TMPDIR=str(private / "tmp"), TEMP=str(private / "tmp"))
        begun = time.monotonic()
        process = subprocess.Popen(
            command,
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            **_own_group(),
        )
        stdout = _Reader(process.stdout, limits.stdout_bytes, lambda: _stop(process))
        stderr = _Reader(process.stderr, limits.stderr_bytes, None)
        timed_out = False
        try:
            process.wait(timeout=min(limits.cpu_seconds, limits.wall_seconds))
        except subprocess.TimeoutExpired:
            timed_out = True
            _stop(process)
            process.wait()
        finally:
            stdout.join()
            stderr.join()
        wall = time.monotonic() - begun
        code = process.returncode
        out = stdout.data.replace(b"\r\n", b"\n") if self.crlf_as_lf else stdout.data
        return RunResult(
            exit_code=code if code >= 0 else None,
            signal=-code if code < 0 else None,
            cpu_seconds=wall,
            wall_seconds=wall,
            peak_memory_kb=0,
            stdout=out,
            stderr=stderr.data,
            stdout_size=stdout.size,
            timed_out=timed_out and not stdout.exceeded,
            output_exceeded=stdout.exceeded,
            sandbox=self.name,
            cpu_accounting=self.accounting.value,
        )


def program_path(name: str, workdir: Path) -> str:
    """Where the command's program is: a path is the workdir's (Windows adds .exe to
    what a compiler made); `python3` is this Python where there is none (Windows has
    `python` and `py`), any other name is looked up on the PATH."""
    if "/" in name or "\\" in name:
        path = Path(name) if os.path.isabs(name) else workdir / name
        if os.name == "nt" and not path.exists() and path.with_suffix(".exe").exists():
            path = path.with_suffix(".exe")
        if not path.exists():
            raise SetupError(f"cannot start the program: {name}: no such file")
        return str(path)
    if name in ("python3", "python") and (os.name == "nt" or shutil.which(name) is None):
        return sys.executable
    found = shutil.which(name)
    if found is None:
        raise SetupError(f"cannot start the program: {name}: not found on the PATH")
    return found


class _GroupOptions(TypedDict, total=False):
    """Popen's keywords that start a program in a process group of its own."""

    creationflags: int
    start_new_session: bool


def _own_group() -> _GroupOptions:
    """Start the program in a group of its own, so that stopping it stops its children."""
    if os.name == "nt":
        return {"creationflags": getattr(subprocess, "CREATE_NEW_PROCESS_GROUP", 0x200)}
    return {"start_new_session": True}


def _stop(process: subprocess.Popen[bytes]) -> None:
    """Kill the program and what it started."""
    if process.poll() is not None:
        return
    if os.name == "nt":
        taskkill = shutil.which("taskkill")
        if taskkill:
            subprocess.run(
                [taskkill, "/T", "/F", "/PID", str(process.pid)], capture_output=True, check=False
            )
    elif hasattr(os, "killpg"):
        try:
            os.killpg(process.pid, 9)
        except OSError:
            pass
    if process.poll() is None:
        process.kill()


class _Reader:
    """Reads a pipe to its end in a thread, keeping at most `cap` bytes; past the cap
    `on_exceeded` is called once (None: the rest is read and dropped)."""

    def __init__(self, pipe: IO[bytes] | None, cap: int, on_exceeded: Callable[[], None] | None):
        self.pipe, self.cap, self.on_exceeded = pipe, cap, on_exceeded
        self.chunks: list[bytes] = []
        self.size = 0
        self.exceeded = False
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        assert self.pipe is not None, "Popen was given PIPE"
        kept = 0
        while (
            chunk := self.pipe.read1(CHUNK)
            if hasattr(self.pipe, "read1")
            else self.pipe.read(CHUNK)
        ):
            self.size += len(chunk)
            if kept < self.cap:
                self.chunks.append(chunk[: self.cap - kept])
                kept += len(self.chunks[-1])
            if self.size > self.cap and not self.exceeded:
                self.exceeded = True
                if self.on_exceeded is not None:
                    self.on_exceeded()
        self.pipe.close()

    def join(self) -> None:
        self.thread.join()

    @property
    def data(self) -> bytes:
        return b"".join(self.chunks)
