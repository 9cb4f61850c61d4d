"""The input a sandbox stages for each run (grader/sandbox/base.py: InputStage), and
the warm sandbox's rule that a poll through its init's pid counts only while that
init lives (its pid may be another process's once the zygote has reaped it)."""

import os
import stat
import subprocess

from grader.sandbox import warm as warm_module
from grader.sandbox.base import InputStage
from grader.sandbox.supervise import Usage


def _mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def test_the_input_is_the_one_file_there_read_only_to_all(tmp_path):
    folder = tmp_path / "stage"
    folder.mkdir()
    (folder / "input.txt").write_text("left by a grader that was killed")
    stage = InputStage(folder)
    assert list(folder.iterdir()) == []
    case = tmp_path / "case.txt"
    case.write_text("Y1,G0,R0,B1\n")
    was = os.umask(0o077)  # as on Gradescope
    try:
        staged = stage.put(case)
    finally:
        os.umask(was)
    assert staged == folder / "input.txt" and staged.read_text() == "Y1,G0,R0,B1\n"
    assert _mode(staged) == 0o444


def test_each_input_replaces_the_last(tmp_path):
    stage = InputStage(tmp_path)
    small, big = tmp_path.parent / "small.txt", tmp_path.parent / "big.in"
    small.write_text("first\n")
    big.write_bytes(b"x" * 300_000)  # more than one read
    assert stage.put(small) == tmp_path / "input.txt"
    assert stage.put(small).read_text() == "first\n"
    staged = stage.put(big)
    assert list(tmp_path.iterdir()) == [tmp_path / "input.in"]
    assert staged.read_bytes() == b"x" * 300_000 and _mode(staged) == 0o444
    assert stage.put(None) is None and list(tmp_path.iterdir()) == []


def test_a_warm_poll_counts_only_while_the_init_lives():
    sleeper = subprocess.Popen(["sleep", "30"])
    pidfd = os.pidfd_open(sleeper.pid)
    try:
        polled = warm_module._while_alive(pidfd, lambda: Usage(cpu_seconds=1.5))
        assert polled() == Usage(cpu_seconds=1.5)
        sleeper.kill()
        sleeper.wait()
        assert polled() is None
    finally:
        os.close(pidfd)
