"""A cgroup per run, as isolate makes one per box: the CPU time of every process that
was ever in the run (the kernel charges it as it runs, so a child reaped by nobody, or
by the kernel itself because its parent ignores SIGCHLD, still counts), a memory limit
that counts what the run's processes hold and what they put in shared memory and tmpfs,
and a process limit.

Where
    Under the grader's own group of each hierarchy (``/proc/self/cgroup``), in a parent
    group of this grader process (``scramble-grader-<pid>-<random>``), one child group
    per run, removed when the run is over; the parent is removed when the sandbox is
    closed or the grader exits, and a parent left by a killed grader is removed by the
    next one. cgroup v1 (``cpuacct``, ``memory``, ``pids`` hierarchies) and v2 (the
    unified hierarchy: ``cpu.stat`` in every group; ``memory`` and ``pids`` when the
    grader's group may hand those controllers down) are both read; for each aspect
    the first usable of v1 and v2 is taken, so a machine that mounts both (hybrid)
    uses both.
Who may
    Root, or a user the hierarchy is delegated to; a container usually has none
    (Gradescope's): ``CgroupsUnavailable`` says why, and the sandboxes fall back to
    counting what the run's reaper reaps, with auto-reaping refused (seccomp.py).
How a run joins
    The program is in the group before its exec; every process it starts inherits
    it. A whole process moved by pid, or through ``cgroup.procs``, takes a
    global lock whose writer waits for an RCU grace period when no process has moved
    lately: 5 to 20 ms measured on the 2-core machine, several times a small program's
    whole run. So the warm sandbox's and the fallback's programs, given the
    groups open (they cannot see /sys: ``open_joins``), get in without it: in v1 one
    thread moves itself through ``tasks``; in v2 the process is born in the group
    (``clone3`` with ``CLONE_INTO_CGROUP``, Linux 5.7). A one-shot bwrap's is moved by
    pid (a build, seconds long).
"""

from __future__ import annotations

import contextlib
import errno
import itertools
import os
import secrets
import signal
import time
import weakref
from dataclasses import dataclass
from pathlib import Path

from grader.core.model import CpuAccounting, Limits
from grader.sandbox import cgroupfs

_PREFIX = "scramble-grader-"
_REMOVE_SECONDS = 2.0  # a group is busy until the kernel has released its last task


class CgroupsUnavailable(Exception):
    """No cgroup can be made here (one-line reason)."""


@dataclass(frozen=True)
class GroupUsage:
    """What a group counted: its counters as read, or (``since``) a run's share."""

    cpu_seconds: float
    # Read only once the OOM killer killed a process of the group (else the peak is
    # the processes' own: the group's counts the files the run cached); 0 where no
    # memory hierarchy is used or the kernel keeps no peak (v2 before Linux 5.19).
    peak_memory_kb: int
    oom_kills: int  # processes of the group the kernel's OOM killer killed, whoever's OOM
    processes_refused: int  # forks refused at the group's process limit

    def since(self, before: GroupUsage) -> GroupUsage:
        """What was counted after ``before`` was read (the peak is reset per run)."""
        return GroupUsage(
            self.cpu_seconds - before.cpu_seconds,
            self.peak_memory_kb,
            self.oom_kills - before.oom_kills,
            self.processes_refused - before.processes_refused,
        )


NOTHING = GroupUsage(0.0, 0, 0, 0)  # a new group's counters


def _number_in(path: Path) -> int:
    try:
        return int(path.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 0


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _remove(group: Path) -> None:
    """Remove the group; while it is busy, kill what is left in it and remove its
    children first."""
    give_up = time.monotonic() + _REMOVE_SECONDS
    while True:
        try:
            group.rmdir()
            return
        except FileNotFoundError:
            return
        except OSError as exc:
            if exc.errno != errno.EBUSY or time.monotonic() > give_up:
                return  # left for the next grader's sweep
        for child in [p for p in group.iterdir() if p.is_dir()]:
            _remove(child)
        _kill_members(group)
        time.sleep(0.001)


def _kill_members(group: Path) -> None:
    kill = group / "cgroup.kill"
    if kill.exists():
        with contextlib.suppress(OSError):
            kill.write_text("1")
        return
    try:
        pids = [int(p) for p in (group / "cgroup.procs").read_text().split()]
    except (OSError, ValueError):
        return
    for pid in pids:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)


def _sweep(own: Path) -> None:
    """Parents left by graders that were killed (their pid is in the name)."""
    for parent in own.glob(f"{_PREFIX}*"):
        try:
            pid = int(parent.name[len(_PREFIX) :].split("-")[0])
        except ValueError:
            continue
        if not _alive(pid):
            _remove(parent)


@dataclass(frozen=True)
class _Parent:
    """Our parent group in one hierarchy, and what we read there."""

    path: Path
    version: int
    cpu: bool
    memory: bool
    pids: bool


class Cgroups:
    """The grader's parent groups; ``run_group`` makes one group per run."""

    def __init__(self, versions: tuple[int, ...] = (1, 2)) -> None:
        hierarchies = [h for h in cgroupfs.hierarchies() if h.version in versions]
        if not hierarchies:
            raise CgroupsUnavailable("no cgroup hierarchy is mounted where the grader can see it")
        name = f"{_PREFIX}{os.getpid()}-{secrets.token_hex(4)}"
        self.parents: list[_Parent] = []
        problems = []
        wanted = {"cpu", "memory", "pids"}
        # v1 first: its controllers need no delegation; v2 fills in what is missing.
        for hierarchy in sorted(hierarchies, key=lambda h: h.version):
            gives = self._gives(hierarchy) & wanted
            if not gives:
                continue
            try:
                _sweep(hierarchy.own)
                path = hierarchy.own / name
                path.mkdir(mode=0o755)
            except OSError as exc:
                problems.append(f"{hierarchy.own}: {exc.strerror}")
                continue
            if hierarchy.version == 2:
                gives = {"cpu"} | self._delegate(hierarchy.own, path, gives - {"cpu"})
            parent = _Parent(path, hierarchy.version, "cpu" in gives, "memory" in gives,
                             "pids" in gives)  # fmt: skip
            self.parents.append(parent)
            wanted -= gives
        if not any(p.cpu for p in self.parents):
            for parent in self.parents:
                _remove(parent.path)
            why = "; ".join(problems) or "no hierarchy counts CPU time"
            raise CgroupsUnavailable(f"cannot create a cgroup ({why})")
        self._names = itertools.count(1)
        self._finalizer = weakref.finalize(self, _remove_all, [p.path for p in self.parents])

    @staticmethod
    def _gives(hierarchy: cgroupfs.Hierarchy) -> set[str]:
        if hierarchy.version == 2:
            offered = set((hierarchy.own / "cgroup.controllers").read_text().split())
            return {"cpu"} | (offered & {"memory", "pids"})
        gives = set(hierarchy.controllers) & {"memory", "pids"}
        if "cpuacct" in hierarchy.controllers:
            gives.add("cpu")
        return gives

    @staticmethod
    def _delegate(own: Path, parent: Path, controllers: set[str]) -> set[str]:
        """v2: the controllers our runs' groups get (our own group must hand them down
        to the parent, and the parent to its children)."""
        given = set()
        for controller in sorted(controllers):
            try:
                if controller not in (own / "cgroup.subtree_control").read_text().split():
                    (own / "cgroup.subtree_control").write_text(f"+{controller}")
                (parent / "cgroup.subtree_control").write_text(f"+{controller}")
                given.add(controller)
            except OSError:
                continue  # a group with processes of its own cannot hand controllers down
        return given

    @property
    def accounting(self) -> CpuAccounting:
        return CpuAccounting.CGROUP

    @property
    def limits_memory(self) -> bool:
        return any(p.memory for p in self.parents)

    @property
    def limits_processes(self) -> bool:
        return any(p.pids for p in self.parents)

    def describe(self) -> str:
        parts = []
        for parent in self.parents:
            kinds = [k for k in ("cpu", "memory", "pids") if getattr(parent, k)]
            parts.append(f"v{parent.version} {'+'.join(kinds)}")
        return "a cgroup per run (" + ", ".join(parts) + ")"

    def run_group(self, limits: Limits, sandbox_processes: int) -> RunGroup:
        """A group for one run; ``sandbox_processes`` of the sandbox's own (the run's
        init, bwrap's pid 1) are in it beside the program's."""
        group = self.group("run")
        try:
            group.set_limits(limits, sandbox_processes)
        except OSError as exc:
            group.close()
            raise CgroupsUnavailable(f"cannot limit a run's cgroup: {exc.strerror}") from exc
        return group

    def group(self, kind: str) -> RunGroup:
        """A new group, no limits set yet (a warm sandbox's: its zygote and, one after
        the other, its runs, each measured by its counters' difference)."""
        name = f"{kind}-{next(self._names)}-{secrets.token_hex(3)}"
        paths = []
        try:
            for parent in self.parents:
                path = parent.path / name
                path.mkdir()
                paths.append((parent, path))
        except OSError as exc:
            for _, path in paths:
                _remove(path)
            raise CgroupsUnavailable(f"cannot create a run's cgroup: {exc.strerror}") from exc
        return RunGroup(paths)

    def close(self) -> None:
        self._finalizer()


def _remove_all(paths: list[Path]) -> None:
    for path in paths:
        _remove(path)


def _set_limits(parent: _Parent, path: Path, limits: Limits, sandbox_processes: int) -> None:
    memory = str(limits.memory_mb << 20)
    processes = str(limits.processes + sandbox_processes)
    if parent.memory and parent.version == 1:
        # No swapping past the limit: memory + swap held to it too. v1 refuses a memory
        # limit above the memory + swap one, so a limit that grows sets that one first.
        files = [path / "memory.limit_in_bytes", path / "memory.memsw.limit_in_bytes"]
        files = [f for f in files if f.exists()]
        if len(files) == 2 and _number_in(files[0]) < int(memory):
            files.reverse()
        for file in files:
            file.write_text(memory)
    elif parent.memory:
        (path / "memory.max").write_text(memory)
        if (path / "memory.swap.max").exists():
            (path / "memory.swap.max").write_text("0")
    if parent.pids:
        (path / "pids.max").write_text(processes)


class RunGroup:
    """One run's group (a folder in each hierarchy used)."""

    def __init__(self, paths: list[tuple[_Parent, Path]]) -> None:
        self.paths = paths
        self._limits: tuple[Limits, int] | None = None
        # Counter files kept open: read at least twice a run.
        self._open: dict[tuple[str, int], int] = {}
        # Where each counter is read (the file, and the key of its line: None for the
        # file's first number), worked out once: a warm worker reads them every run.
        self._cpu: tuple[str, str | None] | None = None
        self._cpu_unit = 1.0
        self._peak: str | None = None
        self._oom: tuple[str, str | None] | None = None
        self._refused: tuple[str, str | None] | None = None
        for parent, path in paths:
            v1 = parent.version == 1
            if parent.cpu and self._cpu is None:
                self._cpu = (
                    (f"{path}/cpuacct.usage", None) if v1 else (f"{path}/cpu.stat", "usage_usec")
                )
                self._cpu_unit = 1e9 if v1 else 1e6
            if parent.memory:
                # v2's memory.peak is Linux 5.19's: before it, the peak is not known.
                peak = f"{path}/memory.{'max_usage_in_bytes' if v1 else 'peak'}"
                self._peak = peak if os.path.exists(peak) else None
                self._oom = (f"{path}/memory.{'oom_control' if v1 else 'events'}", "oom_kill")
            if parent.pids:
                self._refused = (f"{path}/pids.events", "max")
        # Every process of a run joins every hierarchy: one list of members says it all.
        self._members = f"{paths[0][1]}/cgroup.procs" if paths else None
        # A group kept for many runs goes with the thread or the sandbox that kept it.
        self._finalizer = weakref.finalize(self, _close, self._open, [p for _, p in paths])

    def _fd(self, file: str, flags: int) -> int:
        fd = self._open.get((file, flags))
        if fd is None:
            fd = self._open[file, flags] = os.open(file, flags | os.O_CLOEXEC)
        return fd

    def _read(self, file: str) -> str:
        """A counter file's content now (kernfs makes it afresh for a read at 0)."""
        try:
            return os.pread(self._fd(file, os.O_RDONLY), 4096, 0).decode()
        except OSError:
            return ""

    def _count(self, counter: tuple[str, str | None] | None) -> int:
        """A counter's value (0 where it is not counted)."""
        if counter is None:
            return 0
        file, key = counter
        if key is None:
            words = self._read(file).split()
            return int(words[0]) if words and words[0].isdigit() else 0
        for line in self._read(file).splitlines():
            name, _, value = line.partition(" ")
            if name == key and value.strip().isdigit():
                return int(value)
        return 0

    def set_limits(self, limits: Limits, sandbox_processes: int) -> None:
        """The run's memory and process limits (written only when they change)."""
        if self._limits != (limits, sandbox_processes):
            for parent, path in self.paths:
                _set_limits(parent, path, limits, sandbox_processes)
            self._limits = (limits, sandbox_processes)

    def reset_peak(self) -> None:
        """The memory peak from now on (v1; v2's memory.peak is reset per reader, from
        Linux 6.12: where it cannot be, the peak is the group's since it was made).
        Best effort."""
        if self._peak is not None:
            with contextlib.suppress(OSError):
                os.pwrite(self._fd(self._peak, os.O_RDWR), b"0", 0)

    @property
    def clone_into(self) -> bool:
        """Whether a run's first process is born in the group (a v2 one: open_joins)."""
        return any(parent.version == 2 for parent, _ in self.paths)

    def procs_files(self) -> list[Path]:
        return [path / "cgroup.procs" for _, path in self.paths]

    def attach(self, pid: int) -> None:
        for procs in self.procs_files():
            procs.write_text(str(pid))

    def open_joins(self) -> list[int]:
        """How the run's first process gets in, for a process that cannot see /sys: v1's
        ``tasks``, open for writing, to which a single-threaded process writes "0" to
        move itself in; v2's folder (O_PATH), for ``clone3`` to start the process in the
        group (where that is refused, the process writes "0" to the folder's
        ``cgroup.procs``). Not through ``cgroup.procs`` when there is another way: a
        whole process moved takes a global lock, whose writer waits for an RCU grace
        period, 5 to 20 ms measured, when no process has moved lately; one thread moving
        itself through ``tasks``, or a process born in the group, takes no such lock."""
        fds: list[int] = []
        try:
            for parent, path in self.paths:
                if parent.version == 1:
                    fds.append(os.open(path / "tasks", os.O_WRONLY | os.O_CLOEXEC))
                else:
                    fds.append(os.open(path, os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC))
        except OSError:
            for fd in fds:
                os.close(fd)
            raise
        return fds

    def cpu_seconds(self) -> float:
        return self._count(self._cpu) / self._cpu_unit

    def oom_kills(self) -> int:
        return self._count(self._oom)

    def usage(self) -> GroupUsage:
        """The counters; the memory peak only once a process was killed at the limit
        (a warm worker reads them twice a run: each file read costs)."""
        oom = self.oom_kills()
        peak = self._count((self._peak, None) if self._peak and oom else None) // 1024
        return GroupUsage(self.cpu_seconds(), peak, oom, self._count(self._refused))

    def kill(self) -> None:
        """Every process still in the group (usually none: then nothing more is done)."""
        if self._members is not None and self._read(self._members).strip():
            for _, path in self.paths:
                _kill_members(path)

    def close(self) -> None:
        self._finalizer()


def _close(descriptors: dict[tuple[str, int], int], paths: list[Path]) -> None:
    for fd in descriptors.values():
        os.close(fd)
    descriptors.clear()
    for path in paths:
        _remove(path)


def runs_cgroups(wanted: bool, versions: tuple[int, ...] = (1, 2)) -> tuple[Cgroups | None, str]:
    """Cgroups for the runs, when wanted and this machine lets the grader make them
    (in hierarchies of these versions); else None and why not (one line, for the
    README's "which is in force")."""
    if not wanted:
        return None, "cgroups turned off"
    try:
        return Cgroups(versions), ""
    except (CgroupsUnavailable, OSError) as exc:
        return None, str(exc)


@dataclass
class Metered:
    """A run's group and its counters when the run began: what the run alone used.
    Only the run's processes are ever in it (the sandbox's own stay out, but for the
    run's init): whatever is left of the run at its end is killed before the counters
    are read."""

    group: RunGroup
    before: GroupUsage = NOTHING

    @classmethod
    def continuing(cls, group: RunGroup) -> Metered:
        """A group kept from run to run: this run is what its counters add from now."""
        group.reset_peak()
        return cls(group, group.usage())

    def cpu_seconds(self) -> float:
        return self.group.cpu_seconds() - self.before.cpu_seconds

    def oom_killed(self) -> bool:
        return self.group.oom_kills() > self.before.oom_kills

    def usage(self) -> GroupUsage:
        """Once the run is over."""
        self.group.kill()
        return self.group.usage().since(self.before)
