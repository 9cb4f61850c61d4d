"""Watching one running tree: its output under caps, the wall clock, polled CPU and
memory; rlimits; and the verdict flags worked out at the end."""

from __future__ import annotations

import ctypes
import math
import os
import resource
import selectors
import signal
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from grader.core.model import Limits, RunResult, java_heap_mb
from grader.sandbox.base import SetupError
from grader.sandbox.cgroups import Cgroups, Metered

POLL_SECONDS = 0.05
POLL_SECONDS_NO_RLIMIT = 0.02  # memory is only polled then (the JVM): look closer
_KILL_GRACE_SECONDS = 2.0  # after a kill, how long we wait for the pipes to close
_EXIT_GRACE_SECONDS = 0.25  # fallback: after the program exits, for leftovers' pipes
_EXIT_RECHECK_SECONDS = 0.001  # fallback: pipes closed, waiting for the exit status
READ_CHUNK = 1 << 16
_STDERR_FLOOD_FACTOR = 64
_STDERR_TAIL = 4096
# A program that failed after it came this close to its memory (its peak resident
# memory to the limit, or to the JVM's heap; its address space to RLIMIT_AS) failed
# for want of memory: measured, never read from what it printed.
_MLE_FRACTION = 0.9
# A group the OOM killer reached below this share of its limit: the machine's OOM.
_MACHINE_OOM_FRACTION = 0.9
_PR_SET_CHILD_SUBREAPER = 36


def poll_seconds(memory_rlimit: bool) -> float:
    """How often a run's tree is polled: closer when memory is not capped by an rlimit."""
    return POLL_SECONDS if memory_rlimit else POLL_SECONDS_NO_RLIMIT


@dataclass
class Capture:
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


@dataclass
class Usage:
    """What a poll of the live tree found.

    ``anon_kb`` is the memory the tree holds, what the limit applies to: every
    process's private anonymous memory, plus its share (PSS) of shared memory (shared
    anonymous mappings, System V and POSIX shared memory, memfd, mapped tmpfs files:
    a page six processes share counts once, not six times, and not zero times), plus
    the files in the run's own tmpfs /tmp and the memfds its processes hold open
    (memory too, mapped or not; one that is also mapped counts twice: the safe side).
    """

    cpu_seconds: float = 0.0
    anon_kb: int = 0
    max_rss_kb: int = 0
    max_vm_kb: int = 0  # the largest address space one process reached (VmPeak)
    oom_killed: bool = False  # the run's cgroup killed a process at its memory limit


class Supervisor:
    """Reads a running tree's output under caps; enforces wall clock and polled limits.

    ``poll`` returns the live tree's usage (or None when it cannot tell); ``kill``
    kills the whole tree. Without ``exited`` the run is over when every pipe is
    closed (bwrap: they close when its namespace is gone) or, one of ``extra``, marked
    ``finish``ed (a warm run's init has reported). With ``exited`` (the fallback), the
    run is over when the main process has exited, ``on_exit`` has killed its group and
    the pipes are closed, or a short grace later if an escaped process still holds them.
    """

    def __init__(
        self,
        limits: Limits,
        capture: Capture,
        *,
        poll: Callable[[], Usage | None],
        poll_every: float,
        kill: Callable[[], None],
        exited: Callable[[], bool] | None = None,
        on_exit: Callable[[], None] = lambda: None,
    ) -> None:
        self.limits = limits
        self.capture = capture
        self.poll = poll
        self.poll_every = poll_every
        self.kill = kill
        self.exited = exited
        self.on_exit = on_exit
        self.reason: str | None = None  # "wall", "cpu", "memory", "output"
        self.peak_rss_kb = 0
        self.peak_vm_kb = 0
        # Processes killed with the tree, or left behind when the command exits, die
        # unreaped by anyone who would account for them: their CPU time is known only
        # from the polls (the last one taken just before a kill).
        self.cpu_seen = 0.0
        self.extra: dict[int, Callable[[bytes], None]] = {}
        self._finished: set[int] = set()  # descriptors read to the end that matters
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
                    data = os.read(key.fd, READ_CHUNK)
                    if data:
                        handlers[key.fd](data)
                    if not data or key.fd in self._finished:
                        sel.unregister(key.fd)
        finally:
            sel.close()

    def finish(self, fd: int) -> None:
        """An ``extra`` descriptor has said all it will that matters (a handler's call):
        the run may be over before it closes."""
        self._finished.add(fd)

    def finished(self, fd: int) -> bool:
        return fd in self._finished

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

    def _sample(self) -> Usage | None:
        usage = self.poll()
        if usage is not None:
            self.peak_rss_kb = max(self.peak_rss_kb, usage.max_rss_kb, usage.anon_kb)
            self.peak_vm_kb = max(self.peak_vm_kb, usage.max_vm_kb)
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
        elif usage.oom_killed or usage.anon_kb > self.limits.memory_mb * 1024:
            self._stop("memory")


@dataclass
class Ending:
    """How the program ended, before the verdict flags are worked out."""

    exit_code: int | None
    signal: int | None
    cpu_seconds: float
    peak_memory_kb: int
    peak_vm_kb: int = 0  # the largest address space a poll saw
    oom_kills: int = 0  # processes of its cgroup the kernel's OOM killer killed
    processes_refused: int = 0  # forks its cgroup's process limit refused
    # The cgroup's memory peak when the OOM killer killed one of its processes (0 where
    # it cannot be read): at the group's own limit it is the limit itself.
    group_peak_kb: int = 0


@dataclass(frozen=True)
class Memory:
    """How a run's memory is held: ``jvm`` (capped by -Xmx, not by RLIMIT_AS) and
    whether RLIMIT_AS is set (not where a cgroup holds the limit)."""

    jvm: bool
    address_space: bool

    def failed_for_want(self, limits: Limits, ending: Ending) -> bool:
        """A failed run came close enough to its memory to have run out of it."""
        cap_kb = (java_heap_mb(limits) if self.jvm else limits.memory_mb) * 1024
        if ending.peak_memory_kb >= _MLE_FRACTION * cap_kb:
            return True
        as_kb = limits.memory_mb * 1024
        return self.address_space and ending.peak_vm_kb >= _MLE_FRACTION * as_kb


def nproc_of(limits: Limits, cgroups: Cgroups | None) -> int:
    """RLIMIT_NPROC: the process limit, or, where the run's cgroup holds that limit
    (and so can say it was reached), a backstop just past it."""
    return limits.processes + (2 if cgroups is not None and cgroups.limits_processes else 0)


def memory_of(memory_rlimit: bool, build: bool) -> Memory:
    """A program run sees its memory limit as RLIMIT_AS (an allocation fails, as on a
    student's own machine; the cgroup, where there is one, adds what RLIMIT_AS cannot
    see: shared memory, tmpfs, the sum over processes). A build has no RLIMIT_AS: a
    compiler that runs out of memory is stopped at the limit by its cgroup or by the
    polls, which the grader measures (an allocation refused by RLIMIT_AS would leave
    only the compiler's own words, which the student's code can make it print)."""
    return Memory(jvm=not memory_rlimit, address_space=memory_rlimit and not build)


def run_result(
    name: str,
    limits: Limits,
    capture: Capture,
    ending: Ending,
    reason: str | None,
    wall: float,
    memory: Memory,
    accounting: str,
) -> RunResult:
    """The verdict flags, from what was measured (never from what the program printed)."""
    timed_out = (
        reason in ("wall", "cpu")
        or ending.cpu_seconds > limits.cpu_seconds
        or ending.signal == signal.SIGXCPU
    )
    failed = ending.signal is not None or ending.exit_code not in (0, None)
    machine = machine_out_of_memory(limits, ending)
    memory_exceeded = machine is None and (
        reason == "memory"
        or ending.oom_kills > 0
        or (reason is None and failed and memory.failed_for_want(limits, ending))
    )
    return RunResult(
        exit_code=ending.exit_code,
        signal=ending.signal,
        # To the microsecond (what rusage counts): a C program's run takes about a
        # millisecond, and a coarser figure would make copies of one program differ by
        # more than the leaderboard's noise floor.
        cpu_seconds=round(ending.cpu_seconds, 6),
        wall_seconds=round(wall, 6),
        peak_memory_kb=ending.peak_memory_kb,
        stdout=bytes(capture.stdout),
        stderr=bytes(capture.stderr),
        stdout_size=capture.stdout_size,
        timed_out=timed_out,
        memory_exceeded=memory_exceeded,
        output_exceeded=reason == "output",
        sandbox=name,
        processes_exceeded=ending.processes_refused > 0,
        cpu_accounting=str(accounting),  # a CpuAccounting value
        error=machine,
    )


def machine_out_of_memory(limits: Limits, ending: Ending) -> str | None:
    """Why the run is the machine's failure, when the kernel's OOM killer killed a
    process of it while its cgroup held well under its own limit: the whole machine
    ran out of memory (the group's own limit kills only once the group is at it). Its
    cgroup counts such a kill like one at its limit; only the group's peak tells them
    apart, so where that peak is unknown the kill stays the run's."""
    limit_kb = limits.memory_mb * 1024
    if ending.oom_kills == 0 or not 0 < ending.group_peak_kb < _MACHINE_OOM_FRACTION * limit_kb:
        return None
    return (
        "the grading machine ran out of memory: the kernel killed a process of the run "
        f"while the run held {ending.group_peak_kb // 1024} MB of its {limits.memory_mb} MB"
    )


def rusage_cpu(usages: Sequence[resource.struct_rusage]) -> float:
    return sum(u.ru_utime + u.ru_stime for u in usages)


def rusage_peak_kb(usages: Sequence[resource.struct_rusage]) -> int:
    peak = max((u.ru_maxrss for u in usages), default=0)
    return peak // 1024 if sys.platform == "darwin" else peak  # macOS counts bytes


def tmpfs_bytes(limits: Limits) -> int:
    """The size of a run's private /tmp: room for a few files at the file-size limit."""
    return max(64, 4 * limits.file_size_mb) << 20


def sysv_shm_bytes(limits: Limits) -> int:
    """All System V shared memory segments of a run together: an eighth of the memory
    limit. A segment nobody has attached is in no process's memory, so no poll sees it:
    this bound is part of the slack over the memory limit."""
    return (limits.memory_mb << 20) // 8


def rlimit_values(
    limits: Limits, address_space: bool, nproc: int | None
) -> list[tuple[int, tuple[int, int]]]:
    """(resource, (soft, hard)) for one run. CPU: the limit is one of the whole tree,
    enforced by the polls of its CPU time (the figure the verdict reports); RLIMIT_CPU
    is only a per-process backstop a second past it (soft, SIGXCPU; hard one second
    later, SIGKILL), for a grader too starved to poll. At the limit itself, the
    kernel's finer clock would stop a process before the polls (tick-sampled) see
    the limit reached: a TLE reporting less CPU than its limit."""
    cpu = max(1, math.ceil(limits.cpu_seconds)) + 1
    wanted = [
        (resource.RLIMIT_CPU, (cpu, cpu + 1)),
        (resource.RLIMIT_FSIZE, (limits.file_size_mb << 20,) * 2),
        (resource.RLIMIT_NOFILE, (limits.open_files,) * 2),
        (resource.RLIMIT_CORE, (0, 0)),
    ]
    if nproc is not None:
        wanted.append((resource.RLIMIT_NPROC, (nproc, nproc)))
    if address_space:
        wanted.append((resource.RLIMIT_AS, (limits.memory_mb << 20,) * 2))
    return wanted


def with_group_cpu(
    poll: Callable[[], Usage | None], group: Metered | None
) -> Callable[[], Usage | None]:
    """The tree's polled usage, with what the run's cgroup counted: CPU time (which
    includes processes that lived and died between two polls) and the processes its
    memory limit killed (the rest of the tree is then stopped, as at any limit)."""
    if group is None:
        return poll

    def polled() -> Usage | None:
        usage = poll() or Usage()
        usage.cpu_seconds = max(usage.cpu_seconds, group.cpu_seconds())
        usage.oom_killed = group.oom_killed()
        return usage

    return polled


def group_ending(
    group: Metered | None,
    exit_code: int | None,
    sig: int | None,
    cpu: float,
    peak_kb: int,
    watch: Supervisor,
) -> Ending:
    """How the run ended, with what its cgroup counted (once the run is over: whatever
    is still in the group is killed first)."""
    if group is None:
        return Ending(exit_code, sig, max(cpu, watch.cpu_seen), peak_kb, watch.peak_vm_kb)
    counted = group.usage()
    if counted.oom_kills:
        # Killed at the group's limit: the memory the kernel counted (it includes the
        # files the run cached, so it is the peak only of a run that reached the limit).
        peak_kb = max(peak_kb, counted.peak_memory_kb)
    return Ending(
        exit_code,
        sig,
        max(cpu, watch.cpu_seen, counted.cpu_seconds),
        peak_kb,
        watch.peak_vm_kb,
        counted.oom_kills,
        counted.processes_refused,
        counted.peak_memory_kb,
    )


def decode_wait_status(status: int) -> tuple[int | None, int | None]:
    if os.WIFSIGNALED(status):
        return None, os.WTERMSIG(status)
    return os.WEXITSTATUS(status), None


_CLK_TCK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
_PAGE_KB = (os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096) // 1024


# Shared memory below this, per process, is counted whole (RssShmem, cheap to read);
# above it, the process's share (Pss_Shmem from smaps_rollup, which walks its mappings).
_SHMEM_EXACT_KB = 1024


def _status_kb(raw: bytes) -> dict[bytes, int]:
    """The "Name:   123 kB" lines of /proc/PID/status (or smaps_rollup) wanted here."""
    found = {}
    for line in raw.splitlines():
        name, _, rest = line.partition(b":")
        if name in (b"VmRSS", b"VmPeak", b"RssAnon", b"RssShmem", b"Pss_Shmem"):
            found[name] = int(rest.split()[0])
    return found


def _shared_kb(proc_root: str, pid: str, rss_shmem: int) -> int:
    if rss_shmem <= _SHMEM_EXACT_KB:
        return rss_shmem
    try:
        with open(f"{proc_root}/{pid}/smaps_rollup", "rb") as f:
            return _status_kb(f.read()).get(b"Pss_Shmem", rss_shmem)
    except OSError:
        return rss_shmem


def _memfd_kb(proc_root: str, pid: str, seen: set[tuple[int, int]]) -> int:
    """Memory in the memfds the process holds open and no other process of the tree
    counted before (``seen``): a memfd written, never mapped, is in no one's RSS."""
    total = 0
    try:
        fds = os.listdir(f"{proc_root}/{pid}/fd")
    except OSError:
        return 0
    for fd in fds:
        path = f"{proc_root}/{pid}/fd/{fd}"
        try:
            if not os.readlink(path).startswith("/memfd:"):
                continue
            st = os.stat(path)
        except OSError:
            continue
        if (st.st_dev, st.st_ino) not in seen:
            seen.add((st.st_dev, st.st_ino))
            total += st.st_blocks // 2
    return total


@dataclass
class _Process:
    ticks: int  # user + sys, with those of reaped children when asked
    rss_kb: int
    held_kb: int  # private anonymous + its share of shared memory
    vm_kb: int  # the largest its address space has been


def _read_proc(
    proc_root: str, pid: str, pgrp: str | None, children_only: bool = False
) -> _Process | None:
    """One process; None when it is gone, or not of process group pgrp (when given)."""
    try:
        with open(f"{proc_root}/{pid}/stat", "rb") as f:
            raw = f.read()
        fields = raw[raw.rindex(b")") + 2 :].split()
        if pgrp is not None and fields[2].decode() != pgrp:
            return None
        with open(f"{proc_root}/{pid}/status", "rb") as f:
            status = _status_kb(f.read())
    except (OSError, ValueError):
        return None  # gone meanwhile
    ticks = sum(int(x) for x in fields[13 if children_only else 11 : 15])  # [u s] cu cs
    shared = _shared_kb(proc_root, pid, status.get(b"RssShmem", 0))
    held = status.get(b"RssAnon", 0) + shared
    return _Process(ticks, status.get(b"VmRSS", 0), held, status.get(b"VmPeak", 0))


def _descendants(proc_root: str, root: str) -> list[str]:
    """root and every process under it, from the kernel's lists of each thread's
    children: a walk of the tree alone, not of every process on the machine."""
    tree, todo = [], [root]
    while todo:
        pid = todo.pop()
        tree.append(pid)
        try:
            threads = os.listdir(f"{proc_root}/{pid}/task")
        except OSError:
            continue
        for tid in threads:
            try:
                with open(f"{proc_root}/{pid}/task/{tid}/children", "rb") as f:
                    todo += [c.decode() for c in f.read().split()]
            except OSError:
                continue
    return tree


def tree_usage(
    proc_root: str,
    pgrp: str | None = None,
    init: str | None = None,
    root: str | None = None,
) -> Usage | None:
    """Usage summed over the processes listed under proc_root (of one group, or of the
    tree under ``root``, if asked); of ``init`` (bwrap's pid 1, a reaper) only what it
    reaped counts."""
    try:
        names = (
            _descendants(proc_root, root)
            if root is not None
            else [n for n in os.listdir(proc_root) if n.isdigit()]
        )
    except OSError:
        return None
    found = {}
    for name in names:
        entry = _read_proc(proc_root, name, pgrp, children_only=name in (init, root))
        if entry is not None:
            found[name] = entry
    usage = Usage()
    ticks = 0
    memfds: set[tuple[int, int]] = set()
    for name, entry in found.items():
        ticks += entry.ticks
        if name in (init, root):
            continue  # the sandbox's own process, not the program's
        usage.max_rss_kb = max(usage.max_rss_kb, entry.rss_kb)
        usage.max_vm_kb = max(usage.max_vm_kb, entry.vm_kb)
        usage.anon_kb += entry.held_kb + _memfd_kb(proc_root, name, memfds)
    usage.cpu_seconds = ticks / _CLK_TCK
    return usage


def tmpfs_used_kb(path: str) -> int:
    try:
        st = os.statvfs(path)
    except OSError:
        return 0
    return (st.f_blocks - st.f_bfree) * st.f_frsize // 1024


class Libc:
    def __init__(self) -> None:
        self.lib = ctypes.CDLL(None, use_errno=True)

    def become_subreaper(self) -> None:
        if self.lib.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
            raise SetupError(f"prctl(PR_SET_CHILD_SUBREAPER): {os.strerror(ctypes.get_errno())}")


def describe(code: int | None, sig: int | None) -> str:
    return f"signal {sig}" if sig is not None else f"exit status {code}"


def sandbox_usage(pid1: int) -> Usage | None:
    """The tree's usage, read from the sandbox's own /proc (its pid namespace only)."""
    proc_root = f"/proc/{pid1}/root/proc"
    try:
        # Until bwrap has pivoted into the new root, this path is the host's /proc,
        # whose every process must not count.
        if os.stat(proc_root).st_dev == os.stat("/proc").st_dev:
            return None
    except OSError:
        return None
    usage = tree_usage(proc_root, init="1")
    if usage is not None:
        usage.anon_kb += tmpfs_used_kb(f"/proc/{pid1}/root/tmp")
    return usage
