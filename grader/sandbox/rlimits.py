"""Rlimits fallback (no bubblewrap; Linux or macOS)
================================================
It runs the command in its own session and process group with the same rlimits (set
by util-linux ``prlimit`` as a wrapper on Linux, in the child on macOS), except
RLIMIT_NPROC, which counts every process of the user, so a limit of 64 would
stop a student's own laptop from starting a JVM (and macOS does not enforce
RLIMIT_AS). For a run the workdir is copied into a private temporary folder (the
command's working directory; arguments naming files under the workdir are rewritten to
the copy) and the input is copied beside it; HOME and TMPDIR point into that folder;
a build runs in the workdir itself. On Linux the group's CPU and memory are polled from
/proc; on macOS memory is judged after the fact from ``ru_maxrss``. A child started by
(v)fork from the grader inherits the grader's own peak as its ``ru_maxrss``, so a
program smaller than the grader (a test suite's grader can be hundreds of MB) could
never show its peak. On Linux, therefore, prlimit runs ``/bin/sh``, which forks the
program in the background, reports its pid and exits; the program, re-parented to
the grader (a child subreaper, as for bubblewrap), starts when the grader says so and
is waited for directly: its ``ru_maxrss`` is its own (like any background job of a
shell, it starts with SIGINT and SIGQUIT ignored; nothing here sends them). Elsewhere
``peak_memory_kb`` is the program's figure only when larger than the grader's, else
the largest RSS the polls saw (0 for a program too quick to be seen). On timeout, output overflow and at the
end of every run the process group is killed (killpg).
It does NOT protect: the program can read any file the grader's user can read, write
anywhere that user can write (only the size of each file is limited), use the network,
see and signal the user's other processes, and escape the kill (and the CPU
accounting) by starting a new session or process group; the process count is unbounded.
It keeps honest programs honest; it is no defence against a hostile one.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import os
import resource
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Optional

from grader.model import Limits, RunResult
from grader.sandbox.base import (
    SANDBOX_PATH,
    Sandbox,
    check_request,
    guarded,
    substitute,
)
from grader.sandbox.supervise import (
    Capture,
    Ending,
    Libc,
    POLL_SECONDS,
    POLL_SECONDS_NO_RLIMIT,
    Supervisor,
    Usage,
    decode_wait_status,
    run_result,
    rlimit_values,
    rusage_cpu,
    rusage_peak_kb,
    tree_usage,
)

FALLBACK_WARNING = (
    "running without isolation (rlimits and a private temporary folder only); "
    "programs can read your files and use the network"
)

# The fallback's launcher (see RlimitSandbox._launch): fd 3 is our socket, the program
# starts once we have written a line to it, with /dev/null as its standard input.
_LAUNCHER = ('exec 3<&0 0</dev/null; '
             '(read -r _ <&3 || exit 125; exec 3<&-; exec "$@") & echo $! >&3')


_PRLIMIT_OPTIONS = {
    resource.RLIMIT_CPU: "cpu", resource.RLIMIT_FSIZE: "fsize", resource.RLIMIT_NOFILE: "nofile",
    resource.RLIMIT_CORE: "core", resource.RLIMIT_NPROC: "nproc", resource.RLIMIT_AS: "as",
}


def _prlimit_args(prlimit: str, limits: Limits, memory_rlimit: bool) -> list[str]:
    """util-linux prlimit as a wrapper: sets the limits on itself, then execs."""
    options = [f"--{_PRLIMIT_OPTIONS[r]}={soft}:{hard}" for r, (soft, hard) in
               rlimit_values(limits, memory_rlimit, nproc=False)]
    return [prlimit, *options, "--"]


def _set_rlimits(limits: Limits, memory_rlimit: bool) -> None:
    """Fallback without prlimit (macOS): runs in the child before exec."""
    for which, value in rlimit_values(limits, memory_rlimit, nproc=False):
        try:
            resource.setrlimit(which, value)
        except (ValueError, OSError):
            pass  # e.g. macOS refuses RLIMIT_AS; memory is then judged from ru_maxrss


class RlimitSandbox(Sandbox):
    """No isolation: rlimits, a private copy of the workdir, killpg. See the docstring."""

    name = "rlimits"

    def __init__(self) -> None:
        self.prlimit = shutil.which("prlimit") if sys.platform.startswith("linux") else None
        self.libc: Optional[Libc] = None
        if self.prlimit and os.path.exists("/bin/sh"):
            try:
                self.libc = Libc()  # to be the subreaper of the launched program
            except OSError:
                pass

    def run(
        self,
        argv: list[str],
        workdir: Path,
        limits: Limits,
        *,
        input_file: Optional[Path] = None,
        writable: bool = False,
        memory_rlimit: bool = True,
    ) -> RunResult:
        start = time.monotonic()
        workdir = Path(os.path.abspath(workdir))

        def work() -> RunResult:
            check_request(argv, workdir, input_file)
            with tempfile.TemporaryDirectory(prefix="sandbox-") as folder:
                private = Path(folder)
                command, cwd = self._stage(argv, workdir, private, input_file, writable)
                return self._spawn(command, cwd, private, limits, memory_rlimit, start)

        return guarded(self.name, start, work)

    @staticmethod
    def _stage(
        argv: list[str], workdir: Path, private: Path, input_file: Optional[Path], writable: bool
    ) -> tuple[list[str], Path]:
        (private / "tmp").mkdir()
        input_seen = None
        if input_file is not None:
            (private / "input").mkdir()
            seen = private / "input" / ("input" + input_file.suffix)
            shutil.copyfile(input_file, seen)
            input_seen = str(seen)
        command = substitute(argv, input_seen)
        if writable:
            return command, workdir
        cwd = private / "work"
        shutil.copytree(workdir, cwd, symlinks=True)
        prefix = str(workdir)
        moved = [
            str(cwd) + a[len(prefix):] if a == prefix or a.startswith(prefix + "/") else a
            for a in command
        ]
        return moved, cwd

    def _spawn(
        self,
        command: list[str],
        cwd: Path,
        private: Path,
        limits: Limits,
        memory_rlimit: bool,
        start: float,
    ) -> RunResult:
        env = {
            "PATH": os.environ.get("PATH", SANDBOX_PATH),
            "HOME": str(private / "tmp"),
            "TMPDIR": str(private / "tmp"),
            "LANG": "C.UTF-8",
        }
        preexec = None  # prlimit as a wrapper keeps Popen on its fast vfork path
        if self.prlimit:
            command = _prlimit_args(self.prlimit, limits, memory_rlimit) + command
        else:
            preexec = functools.partial(_set_rlimits, limits, memory_rlimit)
        own_peak = rusage_peak_kb([resource.getrusage(resource.RUSAGE_SELF)])
        try:
            if self.libc is not None:
                proc, program = self._launch(command, cwd, env)
            else:
                proc = subprocess.Popen(
                    command, cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
                    preexec_fn=preexec,
                )
                program = proc.pid
        except OSError as exc:  # the command could not start: exit status 127, as a shell says
            capture = Capture(limits.stdout_bytes, limits.stderr_bytes)
            capture.add_stderr(f"{command[0]}: {exc.strerror}\n".encode())
            ending = Ending(127, None, 0.0, 0)
            wall = time.monotonic() - start
            return run_result(self.name, limits, capture, ending, None, wall, memory_rlimit)
        if program != proc.pid:
            own_peak = 0  # a fork of a small shell: its ru_maxrss is its own
        return self._supervise(proc, program, limits, memory_rlimit, start, own_peak)

    def _launch(self, command: list[str], cwd: Path, env: dict) -> tuple[subprocess.Popen, int]:
        """(the launcher, the program's pid): prlimit runs a shell that forks the program
        in the background, says its pid and exits, so the program is our child (we are
        the subreaper) and not a vfork'ed copy of the grader (whose peak RSS its
        ru_maxrss would inherit: a program smaller than the grader could never show
        its own peak). The program waits for our word before it starts, so that it
        cannot end (and be reaped by the shell) before the shell is gone."""
        assert self.libc is not None
        self.libc.become_subreaper()
        split = command.index("--") + 1
        mine, theirs = socket.socketpair()  # the shell's stdin; the program gets /dev/null
        with mine:
            try:
                proc = subprocess.Popen(
                    [*command[:split], "/bin/sh", "-c", _LAUNCHER, "sh", *command[split:]],
                    cwd=cwd, env=env, stdin=theirs, stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE, start_new_session=True,
                )
            finally:
                theirs.close()
            said = b""
            try:
                with mine.makefile("rb") as report:
                    said = report.readline()
                proc.wait()  # the shell is gone: the program, waiting for the word, is ours
                if not said.strip().isdigit():
                    raise OSError(errno.ECHILD, "the launcher did not start the program")
                mine.sendall(b"go\n")
            except BaseException:
                with contextlib.suppress(OSError):
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
                if said.strip().isdigit():
                    with contextlib.suppress(ChildProcessError):
                        os.waitpid(int(said), 0)
                assert proc.stdout is not None and proc.stderr is not None
                proc.stdout.close()
                proc.stderr.close()
                raise
        return proc, int(said)

    def _supervise(
        self,
        proc: subprocess.Popen,
        program: int,
        limits: Limits,
        memory_rlimit: bool,
        start: float,
        own_peak: int,
    ) -> RunResult:
        capture = Capture(limits.stdout_bytes, limits.stderr_bytes)
        ended: list[tuple[int, resource.struct_rusage]] = []
        group = str(proc.pid)
        linux = sys.platform.startswith("linux")

        def kill() -> None:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass

        def exited() -> bool:
            if not ended:
                pid, status, usage = os.wait4(program, os.WNOHANG)
                if pid:
                    ended.append((status, usage))
            return bool(ended)

        def poll() -> Optional[Usage]:
            if not linux or ended:
                return None
            return tree_usage("/proc", pgrp=group)

        every = POLL_SECONDS if memory_rlimit else POLL_SECONDS_NO_RLIMIT
        watch = Supervisor(
            limits, capture, poll=poll, poll_every=every, kill=kill, exited=exited, on_exit=kill
        )
        assert proc.stdout is not None and proc.stderr is not None
        try:
            watch.watch(proc.stdout.fileno(), proc.stderr.fileno(), start)
        finally:
            kill()
            if not ended:
                _, status, usage = os.wait4(program, 0)
                ended.append((status, usage))
            if proc.returncode is None:
                proc.returncode = os.waitstatus_to_exitcode(ended[0][0])
            proc.stdout.close()
            proc.stderr.close()
        wall = time.monotonic() - start
        status, usage = ended[0]
        code, sig = decode_wait_status(status)
        # A child that began as a (v)fork of the grader inherits the grader's peak RSS as
        # its ru_maxrss: only a larger figure is the program's own; below it, trust the
        # polls. (Not so for one launched by the shell: own_peak is 0 then.)
        child_peak = rusage_peak_kb([usage])
        peak = max(child_peak if child_peak > own_peak else 0, watch.peak_rss_kb)
        ending = Ending(code, sig, max(rusage_cpu([usage]), watch.cpu_seen), peak)
        if ending.peak_memory_kb > limits.memory_mb * 1024 and watch.reason is None:
            watch.reason = "memory"  # macOS: no RLIMIT_AS, no polling; judged afterwards
        return run_result(self.name, limits, capture, ending, watch.reason, wall, memory_rlimit)
