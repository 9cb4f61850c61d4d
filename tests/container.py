"""A process shaped like Gradescope's container, made from what this machine has.

Gradescope grades every submission in a Docker container, as root but with Docker's
default capabilities (no CAP_SYS_ADMIN), Docker's default seccomp profile (no new
user namespaces), the cgroup file system read-only, and CPU as a quota
(`docker --cpus`), not cores. `container_argv` wraps a command so that it runs that
way here (root needed):

- a cgroup v1 `cpu` group with the quota (the command is moved in before it starts);
- a mount namespace of its own in which every cgroup hierarchy is read-only;
- Docker's default capability set, no more (`setpriv --bounding-set`);
- a seccomp filter refusing new user namespaces (tests/seccomp_exec.py: no_new_privs,
  the filter, exec).
"""

from __future__ import annotations

import os
import platform
import shutil
import sys
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from grader.sandbox.cgroupfs import hierarchies
from grader.sandbox.seccomp import seccomp_program

# Docker's default capabilities (moby's oci/caps/defaults.go), as setpriv names them.
DOCKER_CAPS = (
    "chown dac_override fsetid fowner mknod net_raw setgid setuid setfcap setpcap "
    "net_bind_service sys_chroot kill audit_write"
).split()

_SECCOMP_EXEC = Path(__file__).with_name("seccomp_exec.py")


def why_not() -> str | None:
    """Why this machine cannot make the container, or None."""
    if os.geteuid() != 0:
        return "needs root (Gradescope's autograder runs as root)"
    for tool in ("unshare", "setpriv", "mount"):
        if shutil.which(tool) is None:
            return f"needs {tool} (util-linux)"
    if cpu_hierarchy() is None:
        return "needs a cgroup v1 cpu hierarchy for the CPU quota"
    if seccomp_program(platform.machine()) is None:
        return f"no seccomp filter for {platform.machine()}"
    return None


def cpu_hierarchy() -> Path | None:
    for hierarchy in hierarchies():
        if hierarchy.version == 1 and "cpu" in hierarchy.controllers:
            return hierarchy.own
    return None


@contextmanager
def cpu_quota(cpus: float) -> Iterator[Path]:
    """A cpu group with a quota of `cpus` CPUs; yields its cgroup.procs."""
    own = cpu_hierarchy()
    assert own is not None, why_not()
    group = own / f"container-{uuid.uuid4().hex[:8]}"
    group.mkdir()
    try:
        (group / "cpu.cfs_period_us").write_text("100000")
        (group / "cpu.cfs_quota_us").write_text(str(int(cpus * 100000)))
        yield group / "cgroup.procs"
    finally:
        for pid in (group / "cgroup.procs").read_text().split():  # nothing may outlive it
            try:
                os.kill(int(pid), 9)
            except ProcessLookupError:
                pass
        group.rmdir()


def container_argv(command: list[str]) -> list[str]:
    """`command` as Gradescope's container would run it (the quota: `cpu_quota`)."""
    mounts = sorted({str(h.mount) for h in hierarchies()})
    read_only = "; ".join(f"mount -o remount,bind,ro {m}" for m in mounts)
    caps = ",".join(["-all", *(f"+{cap}" for cap in DOCKER_CAPS)])
    bpf = seccomp_program(platform.machine())
    assert bpf is not None
    return [
        "unshare",
        "--mount",
        "--propagation",
        "private",
        "--",
        "sh",
        "-c",
        f'{read_only}; exec "$@"',
        "sh",
        "setpriv",
        "--bounding-set",
        caps,
        "--inh-caps",
        "-all",
        "--",
        sys.executable,
        str(_SECCOMP_EXEC),
        bpf.hex(),
        "--",
        *command,
    ]
