"""Run one untrusted command under limits: bubblewrap namespaces, or rlimits only.

Two implementations of one small interface (``Sandbox.run``); ``make_sandbox`` picks one.

Bubblewrap (Linux 5.4+, for pidfds)
===================================
What the program sees
    Its workdir, bind-mounted at its own host path (read-only for runs, read-write for
    builds), as its working directory; the input file, copied in by bwrap from a
    descriptor we opened (so its permissions on the host do not matter), read-only at
    ``/input/input<suffix>`` (a neutral name: a program cannot key answers on a test's
    file name); read-only ``/usr`` and the ``/bin``, ``/lib*``, ``/sbin`` links; of
    ``/etc`` only what the toolchains need (``ld.so.cache``, ``alternatives``,
    ``java-*``, ``python3.*``: no passwd, no shadow); a fresh ``/proc``; a minimal
    ``/dev`` (null, zero, random, urandom, the fd links); a private ``/tmp`` tmpfs of
    max(64 MB, 4 x the file-size limit). Nothing else of the host: not /root, /home,
    /work, the host's /tmp. Standard input is /dev/null. The environment is cleared
    (PATH, HOME=/tmp, TMPDIR=/tmp, LANG=C.UTF-8). As root, that /etc is a copy bound
    once, and that /dev a folder of root's own device nodes bound once (each bind costs
    bwrap a read of the mount table): see "Prepared folders (root)" below.
Namespaces
    New pid, net (loopback only: nothing, not even the host's 127.0.0.1, is
    reachable), ipc and uts namespaces; ``--new-session``; ``--die-with-parent``. A
    seccomp filter (x86-64 and aarch64) refuses new user namespaces (a nested one could
    mount an unbounded tmpfs) and the kernel key rings (they outlive a run, so could
    carry state between runs, and could expose the grader's session keyring).
Which uid runs the program
    RLIMIT_NPROC is never enforced for uid 0, so a grader running as root must not run
    student code as root. As root, bwrap itself runs as root, with no user namespace
    (so it can mount any workdir, even one under a 0700 folder such as pytest's
    temporary folders), and starts the command through util-linux ``unshare --setuid
    --setgid`` (or ``setpriv``), which drops to a sandbox uid, no supplementary groups,
    no capabilities, before anything of the student's runs (bwrap sets no_new_privs:
    nothing can regain them). Each concurrent run gets its own uid, 70000 + slot, held
    by ``flock`` on a file in a root-owned 0700 folder under the system temporary
    folder, so parallel runs, even from separate grader processes, never share a
    process budget; uids in the password database are skipped. That uid does not own
    the workdir, so:
      * before a run the workdir tree is made world-readable (``o+r``, and ``o+x`` on
        folders and on files their owner may execute); nothing is made writable;
      * for a build (``writable=True``) the tree is handed to the sandbox uid
        (``chown -R``, never following links) and, once every process of the run is
        dead, handed back to its previous owner and made world-readable, without
        set-uid/set-gid bits or write access for others;
      * stdout and stderr are root's pipes: they are made 0666 so that opening
        ``/dev/stdout`` by name works.
    The root of the sandbox's tree, /dev and /input belong to root: the program cannot
    write there. Not root: bwrap creates a user namespace (the program keeps the
    grader's uid, without capabilities) with ``--disable-userns``, the root of the
    tree is remounted read-only, nothing is chowned. RLIMIT_NPROC then counts per user
    namespace (Linux 5.14 and later; older kernels count every process of the user).
Limits
    bwrap holds its pid 1 at ``--block-fd`` until we have set the rlimits on it with
    prlimit(2) (allowed: it runs as our uid), so the command inherits them and bwrap's
    own set-up is never limited: RLIMIT_CPU (soft = the CPU limit rounded up, then
    SIGXCPU; hard a second later), RLIMIT_AS (= the memory limit, unless
    ``memory_rlimit=False``), RLIMIT_NPROC, RLIMIT_FSIZE, RLIMIT_NOFILE, RLIMIT_CORE = 0.
    (CPU, AS and CORE are also set on bwrap itself as soon as it starts, so that pid 1
    usually inherits them: were the grader killed in the few milliseconds before it
    releases pid 1, the closed --block-fd would let the command start anyway.)
    The parent enforces the wall clock and polls the tree through the sandbox's own
    /proc (``/proc/<pid 1>/root/proc``) every 50 ms (20 ms without RLIMIT_AS): the
    tree's CPU time (CPU spread over several processes still counts) and its anonymous
    resident memory (forking cannot reach ``processes x memory``).
Killing the tree
    bwrap is killed with SIGKILL; ``--die-with-parent`` then kills its pid 1, and the
    kernel kills every process of the pid namespace with it: double-forked, setsid'ed,
    SIGTERM-ignoring alike. When the command exits on its own, bwrap exits at once and
    the same happens to whatever it left behind. bwrap exits without reaping pid 1, so
    the grader makes itself a child subreaper (``PR_SET_CHILD_SUBREAPER``, asserted on
    every run; a process-wide setting) and pid 1 is re-parented to it. ``run`` then
    kills pid 1 through a pidfd (no pid reuse race) and reaps it: pid 1 exits only
    after every process of its namespace, so when ``run`` returns nothing is left.
CPU time and memory
    CPU time = user + sys of all that pid 1 reaped (``wait4`` of pid 1, less pid 1's own
    set-up work, read from /proc/<pid>/schedstat while it is a zombie), i.e. the
    command and its descendants; as root that includes the uid-drop exec, about a
    millisecond.
    Processes killed with the tree (or left behind by the command) are reaped by the
    kernel without accounting, so the CPU time is also the largest the polls saw, the
    last poll taken just before a kill. ``peak_memory_kb``: the largest ``ru_maxrss``
    in pid 1's tree, or a larger figure seen by a poll: one process's RSS or the tree's
    total anonymous memory (what the limit applies to: six processes of 64 MB are
    384 MB). (Not bwrap's own ru_maxrss: bwrap is started by vfork and inherits the
    grader's size.)
Exit status
    bwrap reports a command killed by a signal as exit status 128 + signal, like a
    shell. A status in 129..192 is therefore read as a signal: a segfault is
    ``signal=11``; a program that itself exits with such a status is misreported as
    signalled (the verdict, RTE, is the same). bwrap writes an ``exit-code`` record to
    ``--json-status-fd`` for every command that ran: without it the sandbox failed to
    start (``error``, one line), unless the command could not be executed at all (exit
    status 127, as a shell would say, with the reason on stderr).
Verdict flags
    timed_out: the wall clock ran out, the polled tree CPU passed the limit, the
    command died of SIGXCPU, or its measured CPU time exceeds the limit (CPU time is
    what counts, even when the program then finished). memory_exceeded: the polled
    tree memory passed the limit (the tree is killed), or the program failed (non-zero
    exit or a signal, not one of our kills) and either its stderr shows an allocation
    failure (``MemoryError``, ``std::bad_alloc``, ``OutOfMemoryError``, ``Cannot
    allocate memory``, ``out of memory``...; not the JVM's "OutOfMemoryError: unable to
    create native thread", which is the process limit) or RLIMIT_AS was in force and its peak RSS
    reached 90% of the limit (a C program that mallocs and touches in a loop, checking
    for NULL or not, ends there). output_exceeded: stdout passed ``stdout_bytes`` (the
    tree is killed at once; ``stdout`` keeps exactly the cap), or stderr passed 64 x
    ``stderr_bytes`` (a flood: killed too; ``stdout_size`` then shows stdout within its
    cap). Below the flood mark stderr beyond its cap is read and dropped, so debugging
    noise costs nothing. The grader holds at most the two caps, a 64 KiB read buffer
    and a 4 KiB stderr tail, whatever the program prints.
Java
    Pass ``memory_rlimit=False`` (the JVM reserves far more address space than it
    uses) and cap the heap with -Xmx. Measured here: with ``-Xmx128m`` the JVM needs
    about 256 MB of RLIMIT_DATA to start while its RSS is 37 MB, so RLIMIT_DATA cannot
    stand for the limit either; memory is held by the 20 ms RSS poll (kill at the
    limit, MLE) and ``OutOfMemoryError`` in stderr. The JVM's threads count against
    RLIMIT_NPROC (about 20 on two cores); on many-core machines pass
    ``-XX:ActiveProcessorCount=2`` or raise the process limit.
Cost
    bench/bench_sandbox.py measures it. On the 2-core VM this was written on, at low
    load, a run costs about 6-7 ms more than running the binary bare: bwrap's
    namespaces and /proc alone take about 3.5 ms, the uid-drop exec about 1 ms, the
    other mounts about 1 ms (0.8 ms less with the prepared /etc and /dev), the grader's
    side under 1 ms. Under load it grows: every hand-off between the processes involved
    waits for a core. (Measured and not worth it: a static uid-drop helper instead of
    unshare saved about 0.1 ms more.)

Rlimits fallback (no bubblewrap; Linux or macOS)
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
shell, it starts with SIGINT and SIGQUIT ignored; nothing here sends them). Elsewhere ``peak_memory_kb`` is the
program's figure only when larger than the grader's, else the largest RSS the polls
saw (0 for a program too quick to be seen). On timeout, output overflow and at the
end of every run the process group is killed (killpg).
It does NOT protect: the program can read any file the grader's user can read, write
anywhere that user can write (only the size of each file is limited), use the network,
see and signal the user's other processes, and escape the kill (and the CPU
accounting) by starting a new session or process group; the process count is unbounded.
It keeps honest programs honest; it is no defence against a hostile one.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import fcntl
import functools
import hashlib
import json
import math
import os
import platform
import pwd
import resource
import selectors
import shutil
import signal
import socket
import stat
import struct
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator, Optional, Sequence

from grader.model import Limits, RunResult

INPUT_PLACEHOLDER = "{input}"

_SANDBOX_PATH = "/usr/local/bin:/usr/bin:/bin"
_UID_BASE = 70000
_UID_SLOTS = 256
_POLL_SECONDS = 0.05
_POLL_SECONDS_NO_RLIMIT = 0.02  # memory is only polled then (the JVM): look closer
_KILL_GRACE_SECONDS = 2.0  # after a kill, how long we wait for the pipes to close
_EXIT_GRACE_SECONDS = 0.25  # fallback: after the program exits, for leftovers' pipes
_EXIT_RECHECK_SECONDS = 0.001  # fallback: pipes closed, waiting for the exit status
_READ_CHUNK = 1 << 16
_STDERR_FLOOD_FACTOR = 64
_STDERR_TAIL = 4096
_MLE_RSS_FRACTION = 0.9
_OOM_MARKERS = (
    b"MemoryError",
    b"bad_alloc",
    b"OutOfMemoryError",
    b"Cannot allocate memory",
    b"out of memory",
    b"Out of memory",
    b"insufficient memory",
    b"memory exhausted",
)
# The JVM reports a refused thread (the process limit) as an OutOfMemoryError: not memory.
_NOT_MEMORY = (b"unable to create native thread", b"unable to create new native thread")
_ETC_ENTRIES = ("ld.so.cache", "alternatives")
_OWN_MOUNTS = ("/tmp", "/proc", "/dev", "/usr", "/etc", "/input")
_ETC_GLOBS = ("java-*", "python3.*")
_DEVICES = ("null", "zero", "random", "urandom")
_DEV_LINKS = (("fd", "/proc/self/fd"), ("stdin", "/proc/self/fd/0"),
              ("stdout", "/proc/self/fd/1"), ("stderr", "/proc/self/fd/2"))
_TOP_LINKS = ("bin", "sbin", "lib", "lib32", "lib64", "libx32")
_PR_SET_CHILD_SUBREAPER = 36
# The fallback's launcher (see RlimitSandbox._launch): fd 3 is our socket, the program
# starts once we have written a line to it, with /dev/null as its standard input.
_LAUNCHER = ('exec 3<&0 0</dev/null; '
             '(read -r _ <&3 || exit 125; exec 3<&-; exec "$@") & echo $! >&3')

FALLBACK_WARNING = (
    "running without isolation (rlimits and a private temporary folder only); "
    "programs can read your files and use the network"
)


class SandboxUnavailable(RuntimeError):
    """The requested sandbox cannot work on this machine (one-line reason)."""


class Sandbox:
    """Runs one command in a workdir under Limits; never raises for the program."""

    name: str = ""

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
        raise NotImplementedError


def _print_to_stderr(message: str) -> None:
    print(message, file=sys.stderr)


def make_sandbox(
    kind: str = "auto",
    *,
    warn: Callable[[str], None] = _print_to_stderr,
    extra_paths: Sequence[Path] = (),
) -> Sandbox:
    """The sandbox of that kind: "auto", "bubblewrap" or "rlimits".

    "auto" uses bubblewrap when it exists and a trivial probe run works, else the
    fallback, and then says so once through ``warn``. "bubblewrap" raises
    SandboxUnavailable when it cannot work. ``extra_paths``: more host folders to
    show read-only inside bubblewrap (a JDK under /opt, say).
    """
    if kind == "rlimits":
        warn(f"sandbox: rlimits chosen: {FALLBACK_WARNING}")
        return RlimitSandbox()
    if kind not in ("auto", "bubblewrap"):
        raise ValueError(f"unknown sandbox kind {kind!r} (expected auto, bubblewrap or rlimits)")
    try:
        box = BubblewrapSandbox(extra_paths=extra_paths)
        box.probe()
        return box
    except SandboxUnavailable as exc:
        if kind == "bubblewrap":
            raise
        warn(f"sandbox: bubblewrap not available ({exc}): {FALLBACK_WARNING}")
        return RlimitSandbox()


# ---------------------------------------------------------------------------------
# Shared pieces: argv, output capture, the supervision loop, verdict flags.


def _substitute(argv: Sequence[str], input_path: Optional[str]) -> list[str]:
    if input_path is None:
        if any(INPUT_PLACEHOLDER in a for a in argv):
            raise _SetupError(f"argv uses {INPUT_PLACEHOLDER} but no input file was given")
        return list(argv)
    return [a.replace(INPUT_PLACEHOLDER, input_path) for a in argv]


class _SetupError(Exception):
    """A problem of the sandbox or of the caller's request (becomes RunResult.error)."""


def _check_request(argv: Sequence[str], workdir: Path, input_file: Optional[Path]) -> None:
    if not argv:
        raise _SetupError("empty command")
    if not workdir.is_dir():
        raise _SetupError(f"workdir is not a folder: {workdir}")
    if input_file is not None and not input_file.is_file():
        raise _SetupError(f"input file not found: {input_file}")


def _error_result(name: str, message: str, wall: float = 0.0) -> RunResult:
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


@dataclass
class _Capture:
    """stdout and stderr of one run, bounded whatever the program prints."""

    stdout_cap: int
    stderr_cap: int
    stdout: bytearray = field(default_factory=bytearray)
    stderr: bytearray = field(default_factory=bytearray)
    stderr_tail: bytes = b""
    stdout_size: int = 0
    stderr_size: int = 0

    def add_stdout(self, data: bytes) -> bool:
        """Keep what fits; True once the program has printed more than the cap."""
        self.stdout_size += len(data)
        room = self.stdout_cap - len(self.stdout)
        if room > 0:
            self.stdout += data[:room]
        return self.stdout_size > self.stdout_cap

    def add_stderr(self, data: bytes) -> bool:
        """Keep the head and a short tail; True once stderr floods (64 x its cap)."""
        self.stderr_size += len(data)
        room = self.stderr_cap - len(self.stderr)
        if room > 0:
            self.stderr += data[:room]
        self.stderr_tail = (self.stderr_tail + data[-_STDERR_TAIL:])[-_STDERR_TAIL:]
        return self.stderr_size > _STDERR_FLOOD_FACTOR * max(self.stderr_cap, 1)

    def shows_oom(self) -> bool:
        text = bytes(self.stderr) + self.stderr_tail
        lines = [line for line in text.splitlines()
                 if not any(phrase in line for phrase in _NOT_MEMORY)]
        return any(marker in line for line in lines for marker in _OOM_MARKERS)


@dataclass
class _Usage:
    """What a poll of the live tree found."""

    cpu_seconds: float = 0.0
    anon_kb: int = 0
    max_rss_kb: int = 0


class _Supervisor:
    """Reads a running tree's output under caps; enforces wall clock and polled limits.

    ``poll`` returns the live tree's usage (or None when it cannot tell); ``kill``
    kills the whole tree. Without ``exited`` the run is over when every pipe is
    closed (bwrap: they close when its namespace is gone). With it (the fallback), the
    run is over when the main process has exited, ``on_exit`` has killed its group and
    the pipes are closed, or a short grace later if an escaped process still holds them.
    """

    def __init__(
        self,
        limits: Limits,
        capture: _Capture,
        *,
        poll: Callable[[], Optional[_Usage]],
        poll_every: float,
        kill: Callable[[], None],
        exited: Optional[Callable[[], bool]] = None,
        on_exit: Callable[[], None] = lambda: None,
    ) -> None:
        self.limits = limits
        self.capture = capture
        self.poll = poll
        self.poll_every = poll_every
        self.kill = kill
        self.exited = exited
        self.on_exit = on_exit
        self.reason: Optional[str] = None  # "wall", "cpu", "memory", "output"
        self.peak_rss_kb = 0
        # Processes killed with the tree, or left behind when the command exits, die
        # unreaped by anyone who would account for them: their CPU time is known only
        # from the polls (the last one taken just before a kill).
        self.cpu_seen = 0.0
        self.extra: dict[int, Callable[[bytes], None]] = {}
        self._ended = exited is None
        self._give_up = math.inf

    def watch(self, stdout_fd: int, stderr_fd: int, start: float) -> None:
        deadline = start + self.limits.wall_seconds
        sel = selectors.DefaultSelector()
        handlers: dict[int, Callable[[bytes], None]] = {
            stdout_fd: self._on_stdout,
            stderr_fd: self._on_stderr,
            **self.extra,
        }
        for fd in handlers:
            sel.register(fd, selectors.EVENT_READ)
        next_poll = start + self.poll_every
        try:
            while True:
                now = time.monotonic()
                if self.reason is None and now >= deadline:
                    self._stop("wall")
                if now >= next_poll:
                    next_poll = now + self.poll_every
                    self._check_usage()
                self._check_exit(now)
                if (self._ended and not sel.get_map()) or now >= self._give_up:
                    return
                clock = deadline if self.reason is None else math.inf
                wake = min(clock, next_poll, self._give_up)
                if not sel.get_map():  # pipes closed: the exit is a moment away
                    wake = min(wake, now + _EXIT_RECHECK_SECONDS)
                for key, _ in sel.select(max(0.0, wake - now)):
                    data = os.read(key.fd, _READ_CHUNK)
                    if data:
                        handlers[key.fd](data)
                    else:
                        sel.unregister(key.fd)
        finally:
            sel.close()

    def _check_exit(self, now: float) -> None:
        if not self._ended and self.exited is not None and self.exited():
            self._ended = True
            self.on_exit()
            self._give_up = min(self._give_up, now + _EXIT_GRACE_SECONDS)

    def _stop(self, reason: str) -> None:
        if self.reason is None:
            self.reason = reason
            self._sample()
            self.kill()
            self._give_up = min(self._give_up, time.monotonic() + _KILL_GRACE_SECONDS)

    def _on_stdout(self, data: bytes) -> None:
        if self.capture.add_stdout(data):
            self._stop("output")

    def _on_stderr(self, data: bytes) -> None:
        if self.capture.add_stderr(data):
            self._stop("output")

    def _sample(self) -> Optional[_Usage]:
        usage = self.poll()
        if usage is not None:
            self.peak_rss_kb = max(self.peak_rss_kb, usage.max_rss_kb, usage.anon_kb)
            self.cpu_seen = max(self.cpu_seen, usage.cpu_seconds)
        return usage

    def _check_usage(self) -> None:
        if self.reason is not None:
            return
        usage = self._sample()
        if usage is None:
            return
        if usage.cpu_seconds > self.limits.cpu_seconds:
            self._stop("cpu")
        elif usage.anon_kb > self.limits.memory_mb * 1024:
            self._stop("memory")


@dataclass
class _Ending:
    """How the program ended, before the verdict flags are worked out."""

    exit_code: Optional[int]
    signal: Optional[int]
    cpu_seconds: float
    peak_memory_kb: int


def _result(
    name: str,
    limits: Limits,
    capture: _Capture,
    ending: _Ending,
    reason: Optional[str],
    wall: float,
    memory_rlimit: bool,
) -> RunResult:
    timed_out = (
        reason in ("wall", "cpu")
        or ending.cpu_seconds > limits.cpu_seconds
        or ending.signal == signal.SIGXCPU
    )
    failed = ending.signal is not None or ending.exit_code not in (0, None)
    limit_kb = limits.memory_mb * 1024
    memory_exceeded = reason == "memory" or (
        reason is None
        and failed
        and (
            capture.shows_oom()
            or (memory_rlimit and ending.peak_memory_kb >= _MLE_RSS_FRACTION * limit_kb)
        )
    )
    return RunResult(
        exit_code=ending.exit_code,
        signal=ending.signal,
        cpu_seconds=round(ending.cpu_seconds, 4),
        wall_seconds=round(wall, 4),
        peak_memory_kb=ending.peak_memory_kb,
        stdout=bytes(capture.stdout),
        stderr=bytes(capture.stderr),
        stdout_size=capture.stdout_size,
        timed_out=timed_out,
        memory_exceeded=memory_exceeded,
        output_exceeded=reason == "output",
        sandbox=name,
    )


def _rusage_cpu(usages: Sequence[resource.struct_rusage]) -> float:
    return sum(u.ru_utime + u.ru_stime for u in usages)


def _rusage_peak_kb(usages: Sequence[resource.struct_rusage]) -> int:
    peak = max((u.ru_maxrss for u in usages), default=0)
    return peak // 1024 if sys.platform == "darwin" else peak  # macOS counts bytes


def _rlimits(limits: Limits, memory_rlimit: bool, nproc: bool) -> list[tuple[int, tuple[int, int]]]:
    """(resource, (soft, hard)) for one run. CPU: soft = the limit rounded up, then
    SIGXCPU; hard one second later, then SIGKILL."""
    cpu = max(1, math.ceil(limits.cpu_seconds))
    wanted = [
        (resource.RLIMIT_CPU, (cpu, cpu + 1)),
        (resource.RLIMIT_FSIZE, (limits.file_size_mb << 20,) * 2),
        (resource.RLIMIT_NOFILE, (limits.open_files,) * 2),
        (resource.RLIMIT_CORE, (0, 0)),
    ]
    if nproc:
        wanted.append((resource.RLIMIT_NPROC, (limits.processes,) * 2))
    if memory_rlimit:
        wanted.append((resource.RLIMIT_AS, (limits.memory_mb << 20,) * 2))
    return wanted


_PRLIMIT_OPTIONS = {
    resource.RLIMIT_CPU: "cpu", resource.RLIMIT_FSIZE: "fsize", resource.RLIMIT_NOFILE: "nofile",
    resource.RLIMIT_CORE: "core", resource.RLIMIT_NPROC: "nproc", resource.RLIMIT_AS: "as",
}


def _prlimit_args(prlimit: str, limits: Limits, memory_rlimit: bool) -> list[str]:
    """util-linux prlimit as a wrapper: sets the limits on itself, then execs."""
    options = [f"--{_PRLIMIT_OPTIONS[r]}={soft}:{hard}" for r, (soft, hard) in
               _rlimits(limits, memory_rlimit, nproc=False)]
    return [prlimit, *options, "--"]


def _set_rlimits(limits: Limits, memory_rlimit: bool) -> None:
    """Fallback without prlimit (macOS): runs in the child before exec."""
    for which, value in _rlimits(limits, memory_rlimit, nproc=False):
        try:
            resource.setrlimit(which, value)
        except (ValueError, OSError):
            pass  # e.g. macOS refuses RLIMIT_AS; memory is then judged from ru_maxrss


def _decode_wait_status(status: int) -> tuple[Optional[int], Optional[int]]:
    if os.WIFSIGNALED(status):
        return None, os.WTERMSIG(status)
    return os.WEXITSTATUS(status), None


# ---------------------------------------------------------------------------------
# /proc readings (Linux).

_CLK_TCK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
_PAGE_KB = (os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096) // 1024


def _read_proc(
    proc_root: str, pid: str, pgrp: Optional[str], children_only: bool = False
) -> Optional[tuple[int, int, int]]:
    """(cpu ticks incl. reaped children, rss kb, anon kb) of one process; None when it is
    gone, or not of process group pgrp (when given)."""
    try:
        with open(f"{proc_root}/{pid}/stat", "rb") as f:
            raw = f.read()
        fields = raw[raw.rindex(b")") + 2 :].split()
        if pgrp is not None and fields[2].decode() != pgrp:
            return None
        with open(f"{proc_root}/{pid}/statm", "rb") as f:
            statm = f.read().split()
    except (OSError, ValueError):
        return None  # gone meanwhile
    ticks = sum(int(x) for x in fields[13 if children_only else 11 : 15])  # [u s] cu cs
    resident, shared = int(statm[1]), int(statm[2])
    return ticks, resident * _PAGE_KB, (resident - shared) * _PAGE_KB


def _tree_usage(
    proc_root: str, pgrp: Optional[str] = None, init: Optional[str] = None
) -> Optional[_Usage]:
    """Usage summed over the processes listed under proc_root (of one group if asked);
    of ``init`` (bwrap's pid 1) only what it reaped counts."""
    try:
        names = [n for n in os.listdir(proc_root) if n.isdigit()]
    except OSError:
        return None
    usage = _Usage()
    ticks = 0
    for name in names:
        entry = _read_proc(proc_root, name, pgrp, children_only=name == init)
        if entry is None:
            continue
        ticks += entry[0]
        usage.max_rss_kb = max(usage.max_rss_kb, entry[1])
        usage.anon_kb += entry[2]
    usage.cpu_seconds = ticks / _CLK_TCK
    return usage


# ---------------------------------------------------------------------------------
# Bubblewrap.

_SECCOMP_TABLES = {
    # machine: (AUDIT_ARCH, clone, unshare, clone3, add_key, request_key, keyctl, x32 bit)
    "x86_64": (0xC000003E, 56, 272, 435, 248, 249, 250, 0x40000000),
    "aarch64": (0xC00000B7, 220, 97, 435, 217, 218, 219, 0),
}
_CLONE_NEWUSER = 0x10000000


def _seccomp_program(machine: str) -> Optional[bytes]:
    """BPF refusing new user namespaces and key rings; None on other architectures."""
    machine = {"amd64": "x86_64", "arm64": "aarch64"}.get(machine.lower(), machine.lower())
    table = _SECCOMP_TABLES.get(machine)
    if table is None:
        return None
    arch, clone, unshare, clone3, add_key, request_key, keyctl, x32 = table
    ld, jeq, jge, jset, ret = 0x20, 0x15, 0x35, 0x45, 0x06
    allow, eperm = 0x7FFF0000, 0x00050000 | errno.EPERM
    enosys = 0x00050000 | errno.ENOSYS

    def op(code: int, jt: int, jf: int, k: int) -> bytes:
        return struct.pack("<HBBI", code, jt, jf, k)

    checks = [(clone, "flags"), (unshare, "flags"), (clone3, "enosys"),
              (add_key, "deny"), (request_key, "deny"), (keyctl, "deny")]
    n = len(checks)
    target = {"flags": n + 1, "deny": n + 4, "enosys": n + 5}
    head = [op(ld, 0, 0, 4), op(jeq, 1, 0, arch), op(ret, 0, 0, eperm), op(ld, 0, 0, 0)]
    head.append(op(jge, 0, 1, x32) if x32 else op(jeq, 0, 1, 0xFFFFFFFF))
    head.append(op(ret, 0, 0, eperm))
    body = [op(jeq, target[kind] - i - 1, 0, nr) for i, (nr, kind) in enumerate(checks)]
    tail = [
        op(ret, 0, 0, allow),  # n: anything else
        op(ld, 0, 0, 16),  # n+1: low half of the first argument (the clone flags)
        op(jset, 1, 0, _CLONE_NEWUSER),
        op(ret, 0, 0, allow),
        op(ret, 0, 0, eperm),  # n+4
        op(ret, 0, 0, enosys),  # n+5: clone3 hides its flags; libc falls back to clone
    ]
    return b"".join(head + body + tail)


def _walk(top: Path) -> Iterator[tuple[str, os.stat_result]]:
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
    changed by other users before it runs."""
    for path, st in _walk(top):
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
    for path, _ in _walk(top):
        os.chown(path, uid, gid, follow_symlinks=False)


@contextlib.contextmanager
def _workdir_for(uid: Optional[int], workdir: Path, writable: bool) -> Iterator[None]:
    """Make the workdir usable by the sandbox uid for the run (see the docstring)."""
    if uid is None:
        yield
        return
    if not writable:
        _make_world_readable(workdir)
        yield
        return
    st = os.stat(workdir)
    try:
        _chown_tree(workdir, uid, uid)
        yield
    finally:  # every process of the run is dead by now: nothing can race the hand-back
        _chown_tree(workdir, st.st_uid, st.st_gid)
        _make_world_readable(workdir, built=True)


class _UidSlots:
    """One sandbox uid per concurrent run, held by flock (root only)."""

    def __init__(self, base: int = _UID_BASE, count: int = _UID_SLOTS) -> None:
        self.folder = Path(tempfile.gettempdir()) / "scramble-grader-uids"
        self.uids = range(base, base + count)
        self.is_account: dict[int, bool] = {}  # in the password database? (asked once)

    def check_folder(self) -> None:
        try:
            self.folder.mkdir(mode=0o700, exist_ok=True)
        except OSError as exc:
            raise _SetupError(f"cannot create {self.folder}: {exc.strerror}") from exc
        st = os.lstat(self.folder)
        if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.geteuid() or st.st_mode & 0o022:
            raise _SetupError(
                f"{self.folder} must be a folder owned by the grader, not writable by others"
            )

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
        raise _SetupError("all sandbox uids are in use")


def _uid_exists(uid: int) -> bool:
    try:
        pwd.getpwuid(uid)
        return True
    except KeyError:
        return False


class _Libc:
    def __init__(self) -> None:
        self.lib = ctypes.CDLL(None, use_errno=True)

    def become_subreaper(self) -> None:
        if self.lib.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
            raise _SetupError(f"prctl(PR_SET_CHILD_SUBREAPER): {os.strerror(ctypes.get_errno())}")


class _Pid1:
    """bwrap's pid 1 in the new pid namespace, known from --json-status-fd.

    When its pid arrives, ``on_start`` sets the rlimits on it (bwrap holds it at
    --block-fd until then, so the command inherits them); at the end it is killed
    (which takes the namespace down) and reaped.
    """

    def __init__(self, on_start: Callable[[int], None]) -> None:
        self.on_start = on_start
        self.pid: Optional[int] = None
        self.pidfd: Optional[int] = None
        self.status = b""  # --json-status-fd records
        self.ran = False  # the command started and ended (an "exit-code" record)
        self.own_seconds = 0.0  # bwrap's own work as pid 1 (its set-up), not the command's

    def feed(self, data: bytes) -> None:
        self.status += data[:4096]
        while b"\n" in self.status:
            line, self.status = self.status.split(b"\n", 1)
            self._record(line)

    def _record(self, line: bytes) -> None:
        try:
            record = json.loads(line)
        except ValueError:
            return
        if "child-pid" in record and self.pid is None:
            self.pid = int(record["child-pid"])
            try:
                self.pidfd = os.pidfd_open(self.pid)
            except ProcessLookupError:
                self.pidfd = None  # bwrap failed and reaped it already
            else:
                self.on_start(self.pid)
        if "exit-code" in record:
            self.ran = True

    def reap(self) -> Optional[resource.struct_rusage]:
        """Once bwrap is gone: kill pid 1 (and so its namespace) and reap it.

        bwrap exits without reaping pid 1 (when the command exits, and when we kill
        bwrap), so pid 1 has been re-parented to us, the subreaper. None if bwrap
        reaped it after all (its usage is then in bwrap's).
        """
        if self.pid is None or self.pidfd is None:
            return None
        try:
            signal.pidfd_send_signal(self.pidfd, signal.SIGKILL)
        except ProcessLookupError:
            pass  # already dead, maybe not yet reaped
        try:
            os.waitid(os.P_PIDFD, self.pidfd, os.WEXITED | os.WNOWAIT)
            self.own_seconds = _own_cpu_seconds(self.pid)  # a zombie still tells
            return os.wait4(self.pid, 0)[2]
        except ChildProcessError:
            return None
        finally:
            os.close(self.pidfd)
            self.pidfd = None


def _own_cpu_seconds(pid: int) -> float:
    """CPU time of the process itself, not its children (0 when the kernel won't say)."""
    try:
        with open(f"/proc/{pid}/schedstat", "rb") as f:
            return int(f.read().split()[0]) / 1e9
    except (OSError, ValueError, IndexError):
        return 0.0


def _sandbox_usage(pid1: int) -> Optional[_Usage]:
    """The tree's usage, read from the sandbox's own /proc (its pid namespace only)."""
    proc_root = f"/proc/{pid1}/root/proc"
    try:
        # Until bwrap has pivoted into the new root, this path is the host's /proc,
        # whose every process must not count.
        if os.stat(proc_root).st_dev == os.stat("/proc").st_dev:
            return None
    except OSError:
        return None
    return _tree_usage(proc_root, init="1")


class _Descriptors:
    """The descriptors of one launch; whatever is still open at the end is closed."""

    def __init__(self) -> None:
        self.open: list[int] = []

    def pipe(self) -> tuple[int, int]:
        pair = os.pipe()
        self.open += pair
        return pair

    def file(self, path: Path) -> int:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
        self.open.append(fd)
        return fd

    def close(self, fd: int) -> None:
        if fd in self.open:
            self.open.remove(fd)
            os.close(fd)

    def close_all(self) -> None:
        for fd in list(self.open):
            self.close(fd)


@dataclass
class _Launch:
    """One bwrap run: what to run, and the descriptors bwrap reads."""

    command: list[str]
    workdir: Path
    limits: Limits
    writable: bool
    memory_rlimit: bool
    uid: Optional[int]  # the sandbox uid (root), None when bwrap runs as the grader
    input_fd: Optional[int] = None
    input_seen: Optional[str] = None  # where the program sees the input
    status_fd: int = -1  # --json-status-fd (write end)
    block_fd: int = -1  # --block-fd (read end)
    seccomp_fd: Optional[int] = None

    def passed(self) -> tuple[int, ...]:
        fds = (self.input_fd, self.status_fd, self.block_fd, self.seccomp_fd)
        return tuple(fd for fd in fds if fd is not None)


def _drain(fd: int, sink: Callable[[bytes], None]) -> None:
    """Whatever is already in a pipe, without waiting for more."""
    os.set_blocking(fd, False)
    try:
        while True:
            data = os.read(fd, _READ_CHUNK)
            if not data:
                return
            sink(data)
    except BlockingIOError:
        return


def _find_tool(name: str) -> Optional[str]:
    return shutil.which(name, path=_SANDBOX_PATH + ":/usr/sbin:/sbin")


def _uid_dropper() -> Callable[[int], list[str]]:
    """The command prefix that becomes uid:gid, with no supplementary groups, then execs.

    util-linux ``unshare -S -G`` (2.36 and later) is the lighter exec; ``setpriv`` the
    fallback. Run as root inside the sandbox; becoming non-root drops every capability.
    """
    unshare = _find_tool("unshare")
    if unshare:
        usage = subprocess.run([unshare, "--help"], capture_output=True, text=True).stdout
        if "--setuid" in usage and "--setgid" in usage:
            return lambda uid: [unshare, f"--setuid={uid}", f"--setgid={uid}", "--"]
    setpriv = _find_tool("setpriv")
    if setpriv:
        return lambda uid: [setpriv, f"--reuid={uid}", f"--regid={uid}", "--clear-groups",
                            "--inh-caps=-all", "--"]
    raise SandboxUnavailable("neither unshare (with --setuid) nor setpriv found (util-linux)")


class BubblewrapSandbox(Sandbox):
    """Namespaces with bubblewrap, rlimits set on its pid 1, a sandbox uid when root."""

    name = "bubblewrap"

    def __init__(self, bwrap: Optional[str] = None, *, extra_paths: Sequence[Path] = ()) -> None:
        if not sys.platform.startswith("linux"):
            raise SandboxUnavailable("bubblewrap needs Linux")
        if not hasattr(os, "pidfd_open"):
            raise SandboxUnavailable("this Python has no os.pidfd_open")
        found = bwrap or shutil.which("bwrap")
        if found is None:
            raise SandboxUnavailable("bwrap not found on PATH")
        self.bwrap = found
        self.as_root = os.geteuid() == 0
        self.drop_to = _uid_dropper() if self.as_root else None
        self.slots = _UidSlots() if self.as_root else None
        self.seccomp = _seccomp_program(platform.machine())
        self.etc_folder, self.dev_folder = _prepared_folders(self.slots, extra_paths)
        self.system_mounts = _system_mounts(extra_paths, self.etc_folder)
        try:
            self.libc = _Libc()
        except OSError as exc:
            raise SandboxUnavailable(f"cannot load the C library: {exc}") from exc

    def probe(self) -> None:
        """A trivial run through the whole machinery; SandboxUnavailable if it fails."""
        with tempfile.TemporaryDirectory(prefix="sandbox-probe-") as folder:
            result = self.run(["true"], Path(folder), Limits(cpu_seconds=5, wall_seconds=10))
        if result.error or result.exit_code != 0:
            said = result.stderr.decode(errors="replace").strip()
            detail = result.error or said or f"exit status {result.exit_code}"
            raise SandboxUnavailable(f"probe run failed: {detail.splitlines()[0]}")

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
        uid_lock: Optional[int] = None
        try:
            _check_request(argv, workdir, input_file)
            self.libc.become_subreaper()
            uid = None
            if self.slots is not None:
                uid, uid_lock = self.slots.acquire()
            input_seen = "/input/input" + input_file.suffix if input_file else None
            command = _substitute(argv, input_seen)
            launch = _Launch(command, workdir, limits, writable, memory_rlimit, uid)
            with _workdir_for(uid, workdir, writable):
                return self._launch(launch, input_file, input_seen, start)
        except _SetupError as exc:
            return _error_result(self.name, str(exc), time.monotonic() - start)
        except Exception as exc:  # the sandbox's own failure must never escape as a crash
            wall = time.monotonic() - start
            return _error_result(self.name, f"{type(exc).__name__}: {exc}", wall)
        finally:
            if uid_lock is not None:
                os.close(uid_lock)

    def _launch(
        self, launch: _Launch, input_file: Optional[Path], input_seen: Optional[str], start: float
    ) -> RunResult:
        fds = _Descriptors()
        try:
            return self._spawn(launch, input_file, input_seen, fds, start)
        finally:
            fds.close_all()

    def _spawn(
        self,
        launch: _Launch,
        input_file: Optional[Path],
        input_seen: Optional[str],
        fds: _Descriptors,
        start: float,
    ) -> RunResult:
        if input_file is not None:
            launch.input_fd, launch.input_seen = fds.file(input_file), input_seen
        status_r, launch.status_fd = fds.pipe()
        launch.block_fd, block_w = fds.pipe()
        if self.seccomp is not None:
            launch.seccomp_fd, seccomp_w = fds.pipe()
            os.write(seccomp_w, self.seccomp)  # a few hundred bytes: fits the pipe
            fds.close(seccomp_w)
        proc = subprocess.Popen(
            self._argv(launch), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, pass_fds=launch.passed(),
        )
        for fd in launch.passed():
            fds.close(fd)
        # Were the grader killed before pid 1 is released, bwrap would start the command
        # anyway (a closed --block-fd reads as go): give bwrap now, for pid 1 to
        # inherit, the limits that bound a run on its own. (Not NPROC: in a user
        # namespace it must be set after the namespace exists.)
        try:
            for which, value in _rlimits(launch.limits, launch.memory_rlimit, nproc=False):
                if which in (resource.RLIMIT_CPU, resource.RLIMIT_AS, resource.RLIMIT_CORE):
                    resource.prlimit(proc.pid, which, value)
        except ProcessLookupError:
            pass  # bwrap failed at once: its message says why
        if launch.uid is not None:
            # Pipes belong to their creator (root) with mode 0600: open("/dev/stdout"),
            # which reopens the pipe through /proc, would fail for the sandbox uid.
            assert proc.stdout is not None and proc.stderr is not None
            os.fchmod(proc.stdout.fileno(), 0o666)
            os.fchmod(proc.stderr.fileno(), 0o666)

        def release(pid: int) -> None:
            # bwrap's pid 1 is blocked before it forks the command: limit it, let it go.
            for which, value in _rlimits(launch.limits, launch.memory_rlimit, nproc=True):
                resource.prlimit(pid, which, value)
            os.write(block_w, b"x")
            fds.close(block_w)

        return self._supervise(proc, _Pid1(release), status_r, launch, start)

    def _argv(self, launch: _Launch) -> list[str]:
        tmp_bytes = max(64, 4 * launch.limits.file_size_mb) << 20
        workdir = str(launch.workdir)
        a = [
            self.bwrap, "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts",
            "--hostname", "sandbox", "--die-with-parent", "--new-session",
            "--clearenv", "--setenv", "PATH", _SANDBOX_PATH, "--setenv", "HOME", "/tmp",
            "--setenv", "TMPDIR", "/tmp", "--setenv", "LANG", "C.UTF-8",
        ]
        if launch.uid is None:
            a += ["--unshare-user", "--disable-userns"]
        else:
            a += ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]  # to drop to the uid
        a += self.system_mounts
        a += ["--proc", "/proc"]
        # A minimal /dev, lighter than bwrap's --dev (no tty, no pts): as root one prepared
        # folder (root's, so read-only to the program), else the devices one by one.
        if self.dev_folder is not None:
            a += ["--dev-bind", str(self.dev_folder), "/dev"]
        else:
            a += ["--perms", "0755", "--dir", "/dev"]
            for device in _DEVICES:
                a += ["--dev-bind", f"/dev/{device}", f"/dev/{device}"]
            for name, target in _DEV_LINKS:
                a += ["--symlink", target, f"/dev/{name}"]
        a += ["--perms", "1777", "--size", str(tmp_bytes), "--tmpfs", "/tmp"]
        for parent in reversed(launch.workdir.parents[:-1]):
            if str(parent) not in _OWN_MOUNTS:
                a += ["--perms", "0755", "--dir", str(parent)]
        a += ["--bind" if launch.writable else "--ro-bind", workdir, workdir]
        if launch.input_fd is not None and launch.input_seen is not None:
            a += ["--perms", "0755", "--dir", "/input"]
            a += ["--perms", "0444", "--file", str(launch.input_fd), launch.input_seen]
        if launch.uid is None:
            # bwrap made the root tmpfs as the grader's uid, which the program has too.
            # As root it belongs to root, whom the program is not.
            a += ["--remount-ro", "/"]
        a += ["--chdir", workdir]
        a += ["--json-status-fd", str(launch.status_fd), "--block-fd", str(launch.block_fd)]
        if launch.seccomp_fd is not None:
            a += ["--seccomp", str(launch.seccomp_fd)]
        a.append("--")
        if launch.uid is not None and self.drop_to is not None:
            a += self.drop_to(launch.uid)
        return a + launch.command

    def _supervise(
        self, proc: subprocess.Popen, pid1: _Pid1, status_r: int, launch: _Launch, start: float
    ) -> RunResult:
        limits = launch.limits
        capture = _Capture(limits.stdout_bytes, limits.stderr_bytes)

        def poll() -> Optional[_Usage]:
            return _sandbox_usage(pid1.pid) if pid1.pid else None

        # Killing bwrap (not pid 1) keeps bwrap from reaping pid 1: --die-with-parent
        # kills pid 1, which takes the namespace down, and we reap it ourselves.
        def kill() -> None:
            os.kill(proc.pid, signal.SIGKILL)  # not Popen.kill: it may reap bwrap

        every = _POLL_SECONDS if launch.memory_rlimit else _POLL_SECONDS_NO_RLIMIT
        watch = _Supervisor(limits, capture, poll=poll, poll_every=every, kill=kill)
        watch.extra[status_r] = pid1.feed
        assert proc.stdout is not None and proc.stderr is not None
        try:
            watch.watch(proc.stdout.fileno(), proc.stderr.fileno(), start)
        finally:
            kill()  # a no-op when bwrap has exited (unreaped, its pid is still ours)
            _, status, bwrap_usage = os.wait4(proc.pid, 0)
            proc.returncode = os.waitstatus_to_exitcode(status)
            wall = time.monotonic() - start
            if pid1.pid is None:
                # Killed before we read pid 1's pid: read it now, so that pid 1 (which
                # has no parent-death signal yet while it sets up) dies too, never
                # released to start the command.
                pid1.on_start = lambda pid: None
                _drain(status_r, pid1.feed)
            tree_usage = pid1.reap()
            proc.stdout.close()
            proc.stderr.close()
        # The command's tree is pid 1's, less pid 1's own set-up work; bwrap's own
        # figures (its CPU, and its ru_maxrss, which is the grader's size: bwrap is
        # started by vfork) count only if bwrap reaped pid 1 itself.
        if tree_usage is not None:
            cpu = max(0.0, _rusage_cpu([tree_usage]) - pid1.own_seconds)
            peak = max(_rusage_peak_kb([tree_usage]), watch.peak_rss_kb)
        else:
            cpu, peak = _rusage_cpu([bwrap_usage]), watch.peak_rss_kb
        return self._finish(watch, pid1, capture, status, cpu, peak, launch, wall)

    def _finish(
        self,
        watch: _Supervisor,
        pid1: _Pid1,
        capture: _Capture,
        status: int,
        cpu: float,
        peak_kb: int,
        launch: _Launch,
        wall: float,
    ) -> RunResult:
        code, sig = _decode_wait_status(status)
        if not pid1.ran and watch.reason is None:
            if capture.stderr.startswith(b"bwrap: execvp "):
                # The command itself could not be executed (not a sandbox failure): say
                # 127, as a shell (and unshare or setpriv, as root) would. A program that
                # ran cannot fake this: bwrap records an exit code for every one that ran.
                code, pid1.ran = 127, True
            else:
                message = capture.stderr.decode(errors="replace").strip().splitlines()
                detail = message[0] if message else f"bwrap ended with {_describe(code, sig)}"
                return _error_result(self.name, f"sandbox failed to start: {detail}", wall)
        if pid1.ran and code is not None:
            exit_code, sig = (None, code - 128) if 128 < code <= 128 + 64 else (code, None)
        else:
            exit_code, sig = None, signal.SIGKILL  # we killed the tree before it ended
        ending = _Ending(
            exit_code=exit_code,
            signal=sig,
            cpu_seconds=max(cpu, watch.cpu_seen),
            peak_memory_kb=peak_kb,
        )
        return _result(
            self.name, launch.limits, capture, ending, watch.reason, wall, launch.memory_rlimit
        )


def _describe(code: Optional[int], sig: Optional[int]) -> str:
    return f"signal {sig}" if sig is not None else f"exit status {code}"


def _system_mounts(extra_paths: Sequence[Path], etc_folder: Optional[Path]) -> list[str]:
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


def _prepared_folders(
    slots: Optional["_UidSlots"], extra_paths: Sequence[Path]
) -> tuple[Optional[Path], Optional[Path]]:
    """(etc folder, dev folder) to bind, or None for either: then the entries one by one."""
    if slots is None:
        return None, None  # not root: no trusted place to keep them, no mknod
    try:
        slots.check_folder()
        under_etc = any(Path(os.path.abspath(p)).is_relative_to("/etc") for p in extra_paths)
        etc = None if under_etc else _prepared_etc(slots.folder, _etc_entries())
        return etc, _prepared_dev(slots.folder)
    except (OSError, _SetupError):
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
        found = [(str(top), os.lstat(top))] if top.is_symlink() else _walk(top)
        for path, st in found:
            link = os.readlink(path) if stat.S_ISLNK(st.st_mode) else ""
            digest.update(f"{path}\0{st.st_mode}\0{st.st_size}\0{st.st_mtime_ns}\0{link}\0"
                          .encode(errors="surrogateescape"))
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
    wanted = set(_DEVICES) | {name for name, _ in _DEV_LINKS}
    if set(os.listdir(folder)) != wanted:
        return False
    for name in _DEVICES:
        st = os.lstat(folder / name)
        if (not stat.S_ISCHR(st.st_mode) or st.st_rdev != os.stat(f"/dev/{name}").st_rdev
                or stat.S_IMODE(st.st_mode) != 0o666 or st.st_uid != os.geteuid()):
            return False
    return all(os.readlink(folder / name) == target for name, target in _DEV_LINKS)


def _prepared_dev(root: Path) -> Optional[Path]:
    """Device nodes of our own, bound read-write: they belong to root, so the sandbox
    uid can use them but change nothing. None where devices cannot work (nodev)."""
    if os.statvfs(root).f_flag & os.ST_NODEV:
        return None
    final = root / "dev"
    if _dev_ready(final):
        return final
    folder = Path(tempfile.mkdtemp(prefix=".dev-", dir=root))
    for name in _DEVICES:
        os.mknod(folder / name, stat.S_IFCHR | 0o666, os.stat(f"/dev/{name}").st_rdev)
        os.chmod(folder / name, 0o666)  # whatever the umask
    for name, target in _DEV_LINKS:
        os.symlink(target, folder / name)
    if final.exists() or final.is_symlink():
        shutil.rmtree(final, ignore_errors=True)
    return _install(folder, final, _dev_ready)


# ---------------------------------------------------------------------------------
# Fallback: rlimits, a private temporary folder, the process group.


class RlimitSandbox(Sandbox):
    """No isolation: rlimits, a private copy of the workdir, killpg. See the docstring."""

    name = "rlimits"

    def __init__(self) -> None:
        self.prlimit = shutil.which("prlimit") if sys.platform.startswith("linux") else None
        self.libc: Optional[_Libc] = None
        if self.prlimit and os.path.exists("/bin/sh"):
            try:
                self.libc = _Libc()  # to be the subreaper of the launched program
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
        try:
            _check_request(argv, workdir, input_file)
            with tempfile.TemporaryDirectory(prefix="sandbox-") as folder:
                private = Path(folder)
                command, cwd = self._stage(argv, workdir, private, input_file, writable)
                return self._spawn(command, cwd, private, limits, memory_rlimit, start)
        except _SetupError as exc:
            return _error_result(self.name, str(exc), time.monotonic() - start)
        except Exception as exc:  # the sandbox's own failure must never escape as a crash
            wall = time.monotonic() - start
            return _error_result(self.name, f"{type(exc).__name__}: {exc}", wall)

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
        command = _substitute(argv, input_seen)
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
            "PATH": os.environ.get("PATH", _SANDBOX_PATH),
            "HOME": str(private / "tmp"),
            "TMPDIR": str(private / "tmp"),
            "LANG": "C.UTF-8",
        }
        preexec = None  # prlimit as a wrapper keeps Popen on its fast vfork path
        if self.prlimit:
            command = _prlimit_args(self.prlimit, limits, memory_rlimit) + command
        else:
            preexec = functools.partial(_set_rlimits, limits, memory_rlimit)
        own_peak = _rusage_peak_kb([resource.getrusage(resource.RUSAGE_SELF)])
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
            capture = _Capture(limits.stdout_bytes, limits.stderr_bytes)
            capture.add_stderr(f"{command[0]}: {exc.strerror}\n".encode())
            ending = _Ending(127, None, 0.0, 0)
            wall = time.monotonic() - start
            return _result(self.name, limits, capture, ending, None, wall, memory_rlimit)
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
        capture = _Capture(limits.stdout_bytes, limits.stderr_bytes)
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

        def poll() -> Optional[_Usage]:
            if not linux or ended:
                return None
            return _tree_usage("/proc", pgrp=group)

        every = _POLL_SECONDS if memory_rlimit else _POLL_SECONDS_NO_RLIMIT
        watch = _Supervisor(
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
        code, sig = _decode_wait_status(status)
        # A child that began as a (v)fork of the grader inherits the grader's peak RSS as
        # its ru_maxrss: only a larger figure is the program's own; below it, trust the
        # polls. (Not so for one launched by the shell: own_peak is 0 then.)
        child_peak = _rusage_peak_kb([usage])
        peak = max(child_peak if child_peak > own_peak else 0, watch.peak_rss_kb)
        ending = _Ending(code, sig, max(_rusage_cpu([usage]), watch.cpu_seen), peak)
        if ending.peak_memory_kb > limits.memory_mb * 1024 and watch.reason is None:
            watch.reason = "memory"  # macOS: no RLIMIT_AS, no polling; judged afterwards
        return _result(self.name, limits, capture, ending, watch.reason, wall, memory_rlimit)
