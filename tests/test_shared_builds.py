"""Builds shared by every results folder of a machine (grader.build.shared_builds): the real
sandbox and compiler, two results folders, one build; never across sandboxes, limits
or a folder another user may write."""

from __future__ import annotations

import dataclasses
import os
import shutil
from pathlib import Path

import pytest

from grader.build.builder import build
from grader.build.shared_builds import SHARED_BUILDS_ENV, entry_name, publish
from grader.course.config import load_config
from grader.intake.submissions import load
from grader.judge.canary import Canaries
from grader.sandbox import make_sandbox
from tests.helpers import ROOT

pytestmark = pytest.mark.slow


@pytest.fixture
def ada(tmp_path):
    shutil.copytree(ROOT / "submissions" / "ada-c", tmp_path / "class" / "ada-c")
    return load(tmp_path / "class" / "ada-c", load_config())


@pytest.fixture
def machine_builds(tmp_path, monkeypatch) -> Path:
    folder = tmp_path / "machine-builds"
    monkeypatch.setenv(SHARED_BUILDS_ENV, str(folder))
    return folder


def test_a_second_results_folder_takes_the_first_ones_build(tmp_path, ada, machine_builds):
    config = load_config()
    sandbox = make_sandbox("bubblewrap")
    first = build(ada, tmp_path / "one" / "builds", sandbox, config.build_limits)
    assert first.ok and not first.cached
    second = build(ada, tmp_path / "two" / "builds", sandbox, config.build_limits)
    assert second.ok and second.cached, "taken from the shared folder, not built"
    assert second.folder.parent == tmp_path / "two" / "builds"  # the results folder's own
    made = (first.folder / "puzzlesolver").read_bytes()
    assert (second.folder / "puzzlesolver").read_bytes() == made
    assert os.access(second.folder / "puzzlesolver", os.X_OK)


def test_another_sandbox_or_other_build_limits_build_again(tmp_path, ada, machine_builds):
    config = load_config()
    build(ada, tmp_path / "one" / "builds", make_sandbox("bubblewrap"), config.build_limits)
    other_limits = dataclasses.replace(config.build_limits, memory_mb=1024)
    for sandbox, limits, where in (
        (make_sandbox("rlimits"), config.build_limits, "fallback"),
        (make_sandbox("bubblewrap"), other_limits, "limits"),
    ):
        made = build(ada, tmp_path / where / "builds", sandbox, limits)
        assert made.ok and not made.cached, where


def test_a_folder_others_may_write_is_never_taken_from(tmp_path, ada, machine_builds):
    """A build planted there would run as the student's program: not shared at all."""
    config = load_config()
    sandbox = make_sandbox("bubblewrap")
    machine_builds.mkdir(mode=0o700)
    os.chmod(machine_builds, 0o777)
    build(ada, tmp_path / "one" / "builds", sandbox, config.build_limits)
    assert list(machine_builds.iterdir()) == [], "nothing written there"
    again = build(ada, tmp_path / "two" / "builds", sandbox, config.build_limits)
    assert again.ok and not again.cached


def test_a_half_copied_entry_or_an_odd_file_costs_a_build_never_a_verdict(
    tmp_path, ada, machine_builds
):
    config = load_config()
    sandbox = make_sandbox("bubblewrap")
    name = entry_name(ada.content_hash, sandbox.name, config.build_limits)
    machine_builds.mkdir(mode=0o700)
    (machine_builds / name).mkdir()  # a copy whose record was never written
    (machine_builds / name / "puzzlesolver").write_text("planted")
    made = build(ada, tmp_path / "one" / "builds", sandbox, config.build_limits)
    assert made.ok and not made.cached
    assert (made.folder / "puzzlesolver").read_bytes() != b"planted"
    # A build folder holding a FIFO is never copied (a copy would block on it).
    odd = tmp_path / "odd"
    odd.mkdir()
    os.mkfifo(odd / "pipe")
    publish(
        machine_builds, "odd", odd, {"ok": True, "log": "", "cpu_seconds": 0, "wall_seconds": 0}
    )
    assert not (machine_builds / "odd").exists()


def test_a_ce_is_shared_only_once_a_canary_blamed_it_and_a_canary_never(tmp_path, machine_builds):
    """Another results folder takes a shared CE as the student's without asking again:
    one built with no canary to ask is kept in its own results folder only."""
    config = load_config()
    sandbox = make_sandbox("bubblewrap")
    shutil.copytree(ROOT / "submissions" / "compile-error", tmp_path / "class" / "ce")
    broken = load(tmp_path / "class" / "ce", config)
    unasked = build(broken, tmp_path / "one" / "builds", sandbox, config.build_limits)
    assert not unasked.ok and not unasked.internal
    assert not machine_builds.exists() or list(machine_builds.iterdir()) == []
    healthy = build(
        broken, tmp_path / "two" / "builds", sandbox, config.build_limits, blame=lambda _: None
    )
    assert not healthy.ok and not healthy.internal
    (entry,) = machine_builds.iterdir()
    assert (entry / "record.json").is_file() and (entry / "build").is_dir()
    with Canaries(sandbox, config.build_limits, config.limits, tmp_path / "canaries") as canaries:
        assert canaries.health(config.languages["c"], build=True).ok
    assert list(machine_builds.iterdir()) == [entry], "the canary's build is never shared"
