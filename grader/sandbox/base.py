"""The sandbox interface, what every sandbox checks of a request, its errors."""

from __future__ import annotations

import abc
import errno
import os
import shutil
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from grader.core.errors import GraderError
from grader.core.model import Limits, RunResult

INPUT_PLACEHOLDER = "{input}"

SANDBOX_PATH = "/usr/local/bin:/usr/bin:/bin"


class SandboxUnavailable(GraderError):
    """The requested sandbox cannot work on this machine (one-line reason)."""


class Sandbox(abc.ABC):
    """Runs one command in a workdir under Limits; never raises for the program."""

    name: str = ""
    accounting: str = ""  # a CpuAccounting value: what counts a run's CPU time
    # Its builds are the same wherever they are made (grader.build.shared_builds): a real
    # sandbox's are; a stand-in's, made up by a test, are not.
    shares_builds: bool = False

    @abc.abstractmethod
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
        raise NotImplementedError


def substitute(argv: Sequence[str], input_path: str | None) -> list[str]:
    if input_path is None:
        if any(INPUT_PLACEHOLDER in a for a in argv):
            raise SetupError(f"argv uses {INPUT_PLACEHOLDER} but no input file was given")
        return list(argv)
    return [a.replace(INPUT_PLACEHOLDER, input_path) for a in argv]


class InputStage:
    """A sandbox's own folder where its runs find their input, one run at a time: the
    input of the run about to start is the one file there, read-only to all. Every run
    stages one, so it takes as few system calls as can be (the folder is not listed:
    what is there is known). Not written over in place: ext4 flushes a file truncated
    and written again when it is closed (auto_da_alloc), which costs far more."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._staged: Path | None = None
        with os.scandir(folder) as entries:
            for entry in entries:
                os.unlink(entry.path)

    def put(self, input_file: Path | None) -> Path | None:
        """``input_file`` copied in (None: nothing there); its path there."""
        if self._staged is not None:
            os.unlink(self._staged)
            self._staged = None
        if input_file is None:
            return None
        staged = self.folder / ("input" + input_file.suffix)
        source = os.open(input_file, os.O_RDONLY | os.O_CLOEXEC)
        try:
            copy = os.open(staged, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o444)
            self._staged = staged
            try:
                os.fchmod(copy, 0o444)  # whatever the umask
                while os.sendfile(copy, source, None, 1 << 24):
                    pass
            finally:
                os.close(copy)
        finally:
            os.close(source)
        return staged


class SetupError(Exception):
    """A problem of the sandbox or of the caller's request (becomes RunResult.error)."""


def check_request(
    argv: Sequence[str], workdir: Path, input_file: Path | None, path: str = SANDBOX_PATH
) -> None:
    if not argv:
        raise SetupError("empty command")
    if not workdir.is_dir():
        raise SetupError(f"workdir is not a folder: {workdir}")
    if input_file is not None and not input_file.is_file():
        raise SetupError(f"input file not found: {input_file}")
    _check_startable(argv[0], workdir, path)


def _check_startable(name: str, workdir: Path, path: str) -> None:
    """The command exists where the run will look for it: a missing interpreter or a
    build that made no program is the grader's failure, found by the grader's own
    look before the run, never by reading what the run printed (a program could print
    the same). A link the build made is not followed here."""
    if "/" in name:
        where = Path(name) if os.path.isabs(name) else workdir / name
        found = os.path.lexists(where)
    else:
        found = shutil.which(name, path=path) is not None
    if not found:
        raise SetupError(f"cannot start the program: {name}: {os.strerror(errno.ENOENT)}")


def error_result(name: str, message: str, wall: float = 0.0) -> RunResult:
    line = " ".join(message.split()) or "sandbox failure"
    return RunResult(
        exit_code=None,
        signal=None,
        cpu_seconds=0.0,
        wall_seconds=wall,
        peak_memory_kb=0,
        stdout=b"",
        stderr=b"",
        stdout_size=0,
        sandbox=name,
        error=line,
    )


def guarded(name: str, begun: float, work: Callable[[], RunResult]) -> RunResult:
    """work(), or an error result saying why not: the sandbox's own failure (or a bad
    request) never escapes as a crash."""
    try:
        return work()
    except SetupError as exc:
        return error_result(name, str(exc), time.monotonic() - begun)
    except Exception as exc:
        return error_result(name, f"{type(exc).__name__}: {exc}", time.monotonic() - begun)
