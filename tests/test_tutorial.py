"""The tutorial course (docs/instructors/tutorial.md): its downloads in docs/tutorial/
are what tests/tutorial_course.py writes (as Canvas and Moodle write them), and every
command of the page, run as a person runs it in the clone's folder, prints what the
page shows after it (figures that vary from run to run shown as N)."""

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import ROOT
from tests.tutorial_course import write

pytestmark = pytest.mark.slow

PAGE = ROOT / "docs" / "instructors" / "tutorial.md"
SHIPPED = ROOT / "docs" / "tutorial"
FENCE = re.compile(r"^```console\n(.*?)^```", re.M | re.S)
# What varies from run to run: the proofs' counts and seconds.
VARYING = re.compile(r"^(grader: )\d+( run\(s\) after grading.*)$")


def steps(page: Path) -> list[tuple[str, list[str]]]:
    """Each command of the page's console blocks, with the lines shown after it."""
    found: list[tuple[str, list[str]]] = []
    for block in FENCE.findall(page.read_text(encoding="utf-8")):
        for line in block.splitlines():
            if line.startswith("$ "):
                found.append((line[2:], []))
            else:
                found[-1][1].append(line)
    return found


def shown(text: str) -> list[str]:
    """Output as the page shows it: the varying figures as N."""
    lines = []
    for line in text.rstrip("\n").splitlines():
        if VARYING.match(line):
            line = re.sub(r"\d+(\.\d+)?", "N", line)
        lines.append(line.rstrip())
    return lines


def test_the_shipped_downloads_are_what_each_system_writes(tmp_path):
    made = write(tmp_path)
    shipped = sorted(p for p in SHIPPED.rglob("*") if p.is_file())
    assert [p.relative_to(tmp_path) for p in made] == [p.relative_to(SHIPPED) for p in shipped]
    for new, old in zip(made, shipped, strict=True):
        assert new.read_bytes() == old.read_bytes(), f"{old}: run python -m tests.tutorial_course"


def test_every_command_prints_what_the_page_shows(tmp_path):
    """In a folder laid out as the clone (the course's files and the downloads), each
    command as a subprocess, its two streams as a terminal interleaves them."""
    shutil.copytree(SHIPPED, tmp_path / "docs" / "tutorial")
    shutil.copyfile(ROOT / "course.toml", tmp_path / "course.toml")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1", "COLUMNS": "200"}
    for key in ("VIRTUAL_ENV", "PYTHONHOME"):
        env.pop(key, None)
    found = steps(PAGE)
    assert len(found) >= 9
    for command, expected in found:
        words = shlex.split(command)
        assert words[0] in ("grader", "unzip"), command
        argv = [sys.executable, "-m", "grader", *words[1:]] if words[0] == "grader" else words
        done = subprocess.run(
            argv, cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            text=True, timeout=600,
        )  # fmt: skip
        assert shown(done.stdout) == expected, f"$ {command}\n{done.stdout}"
