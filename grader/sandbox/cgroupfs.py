"""Where this process's cgroups are (the mounted hierarchies and our group in each),
and the CPUs it may really use (its affinity, and a container's CPU quota).

Read from /proc/self/mountinfo and /proc/self/cgroup; used by the sandbox (a cgroup per
run) and for the number of parallel jobs (os.cpu_count() is the host's, whatever
`docker --cpus` gave the container).
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Hierarchy:
    """One mounted hierarchy: our own group's folder in it, its version, and (v1) the
    controllers mounted there."""

    own: Path
    mount: Path
    version: int
    controllers: frozenset[str]


def _unescape(field: str) -> str:
    """mountinfo writes space, tab, newline and backslash as octal escapes."""
    return field.encode().decode("unicode_escape") if "\\" in field else field


def _mounted(proc: Path) -> list[tuple[Path, Path, int, frozenset[str]]]:
    """(mount point, mount root, version, controllers) of every cgroup mount."""
    found = []
    try:
        lines = (proc / "self" / "mountinfo").read_text().splitlines()
    except OSError:
        return []
    for line in lines:
        fields = line.split()
        try:
            dash = fields.index("-")
        except ValueError:
            continue
        fstype, options = fields[dash + 1], fields[dash + 3].split(",")
        if fstype not in ("cgroup", "cgroup2"):
            continue
        root, point = Path(_unescape(fields[3])), Path(_unescape(fields[4]))
        version = 2 if fstype == "cgroup2" else 1
        found.append((point, root, version, frozenset(options) if version == 1 else frozenset()))
    return found


def _own_paths(proc: Path) -> tuple[dict[str, str], str | None]:
    """Our group per v1 controller, and in v2 (None without one)."""
    v1: dict[str, str] = {}
    v2 = None
    try:
        lines = (proc / "self" / "cgroup").read_text().splitlines()
    except OSError:
        return v1, v2
    for line in lines:
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        _, controllers, path = parts
        if controllers == "":
            v2 = path
        for name in controllers.split(","):
            v1[name] = path
    return v1, v2


def hierarchies(proc: Path = Path("/proc")) -> list[Hierarchy]:
    """Every mounted hierarchy in which we can see our own group."""
    v1_paths, v2_path = _own_paths(proc)
    found = []
    for point, root, version, options in _mounted(proc):
        if version == 2:
            path = v2_path
        else:
            names = [n for n in options if n in v1_paths]
            path = v1_paths[names[0]] if names else None
        if path is None:
            continue
        relative = os.path.relpath(path, root)
        if relative.startswith(".."):  # our group is outside what this mount shows
            continue
        own = Path(os.path.normpath(point / relative))
        if own.is_dir():
            found.append(Hierarchy(own, point, version, options))
    return found


def cpu_quota(proc: Path = Path("/proc")) -> float | None:
    """The CPUs' worth of time our groups may use (a container's `--cpus`): the
    smallest quota / period of our group and its ancestors (v2 cpu.max, v1
    cpu.cfs_quota_us and cpu.cfs_period_us); None when nothing limits it."""
    quotas = []
    for hierarchy in hierarchies(proc):
        if hierarchy.version == 1 and "cpu" not in hierarchy.controllers:
            continue
        folder = hierarchy.own
        while True:
            quota = _quota_in(folder, hierarchy.version)
            if quota is not None:
                quotas.append(quota)
            if folder == hierarchy.mount or folder == folder.parent:
                break
            folder = folder.parent
    return min(quotas, default=None)


def usable_cpus(proc: Path = Path("/proc")) -> int:
    """How many programs may run at once without sharing a core: the CPUs this process
    may run on, no more than its CPU quota rounded up (at least 1)."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # macOS, Windows
        cpus = os.cpu_count() or 1
    quota = cpu_quota(proc)
    if quota is not None:
        cpus = min(cpus, math.ceil(quota))
    return max(1, cpus)


def _quota_in(folder: Path, version: int) -> float | None:
    try:
        if version == 2:
            words = (folder / "cpu.max").read_text().split()
            quota = -1 if words[0] == "max" else int(words[0])
            period = int(words[1])
        else:
            quota = int((folder / "cpu.cfs_quota_us").read_text())
            period = int((folder / "cpu.cfs_period_us").read_text())
    except (OSError, ValueError, IndexError):
        return None
    return None if quota < 0 or period <= 0 else quota / period  # -1, "max": no quota
