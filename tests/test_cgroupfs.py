"""grader.sandbox.cgroupfs: where our cgroups are, and how many CPUs the grader may really use
(--jobs by default): its affinity, capped by a container's CPU quota. A fake /proc and
cgroup tree for the rules; the machine's own cgroup v1 cpu hierarchy for the real
thing (a group with a quota of half a CPU, as `docker --cpus 0.5` makes)."""

import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from grader.sandbox.cgroupfs import cpu_quota, hierarchies, usable_cpus
from tests.helpers import ROOT


def _fake(tmp_path: Path, mounts: list[tuple[str, str, str]], groups: list[str]) -> Path:
    """A /proc of our own: mounts (fstype, options, where) and /proc/self/cgroup lines."""
    proc = tmp_path / "proc"
    (proc / "self").mkdir(parents=True)
    lines = [
        f"{30 + i} 23 0:{40 + i} / {tmp_path / where} rw,relatime - {fstype} cgroup {options}"
        for i, (fstype, options, where) in enumerate(mounts)
    ]
    (proc / "self" / "mountinfo").write_text("\n".join(lines) + "\n")
    (proc / "self" / "cgroup").write_text("\n".join(groups) + "\n")
    return proc


def _write(folder: Path, files: dict[str, str]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (folder / name).write_text(text + "\n")


@pytest.mark.fast
def test_a_v2_quota_of_the_group_or_an_ancestor_caps_the_cpus(tmp_path):
    proc = _fake(tmp_path, [("cgroup2", "rw", "cg")], ["0::/docker/box"])
    _write(tmp_path / "cg" / "docker" / "box", {"cpu.max": "max 100000"})
    _write(tmp_path / "cg" / "docker", {"cpu.max": "150000 100000"})
    assert [h.own for h in hierarchies(proc)] == [tmp_path / "cg" / "docker" / "box"]
    assert cpu_quota(proc) == 1.5
    assert usable_cpus(proc) == min(2, len(os.sched_getaffinity(0)))


@pytest.mark.fast
def test_a_v1_cfs_quota_caps_the_cpus_and_none_leaves_them(tmp_path):
    proc = _fake(tmp_path, [("cgroup", "rw,cpu,cpuacct", "cpu")], ["3:cpu,cpuacct:/box"])
    _write(tmp_path / "cpu" / "box", {"cpu.cfs_quota_us": "50000", "cpu.cfs_period_us": "100000"})
    assert cpu_quota(proc) == 0.5 and usable_cpus(proc) == 1
    _write(tmp_path / "cpu" / "box", {"cpu.cfs_quota_us": "-1"})
    assert cpu_quota(proc) is None
    assert usable_cpus(proc) == len(os.sched_getaffinity(0))


@pytest.mark.fast
def test_a_group_outside_what_the_mount_shows_is_not_ours(tmp_path):
    # A container sees its own part of the tree mounted at the root: /proc/self/cgroup
    # may name a path the mount does not show.
    proc = _fake(tmp_path, [("cgroup2", "rw", "cg")], ["0::/../elsewhere"])
    (tmp_path / "cg").mkdir()
    assert hierarchies(proc) == [] and cpu_quota(proc) is None


SHOW = "from grader.sandbox.cgroupfs import usable_cpus; print(usable_cpus())"


def _v1_cpu_group() -> Path | None:
    for hierarchy in hierarchies():
        if hierarchy.version == 1 and "cpu" in hierarchy.controllers:
            return hierarchy.own
    return None


def test_in_a_group_of_half_a_cpu_the_grader_runs_one_program_at_a_time(tmp_path):
    own = _v1_cpu_group()
    if os.geteuid() != 0 or own is None:
        pytest.skip("needs root and a cgroup v1 cpu hierarchy (this project's machines)")
    group = own / f"test-quota-{uuid.uuid4().hex[:8]}"
    group.mkdir()
    try:
        (group / "cpu.cfs_period_us").write_text("100000")
        (group / "cpu.cfs_quota_us").write_text("50000")
        code = f"open('{group}/cgroup.procs', 'w').write('0'); {SHOW}"
        inside = subprocess.run(
            [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
        )
        assert inside.stdout.strip() == "1", inside
    finally:
        group.rmdir()
    outside = subprocess.run(
        [sys.executable, "-c", SHOW], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert outside.stdout.strip() == str(len(os.sched_getaffinity(0)))


def test_pinned_to_one_core_the_grader_runs_one_program_at_a_time():
    pinned = subprocess.run(
        [sys.executable, "-c", SHOW],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        preexec_fn=lambda: os.sched_setaffinity(0, {min(os.sched_getaffinity(0))}),
    )
    assert pinned.stdout.strip() == "1"
