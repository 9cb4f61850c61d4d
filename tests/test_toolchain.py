"""What `check` says when a language's compiler or runtime is not installed (fast: it
only looks on the PATH). The kit run without it: tests/test_student_kit.py."""

import os

import pytest

from grader.build.toolchain import install_hint, missing_tools
from grader.course.config import load_config

pytestmark = pytest.mark.fast

LANGUAGES = load_config().languages


def test_the_programs_each_language_starts_are_looked_up_on_the_path(tmp_path):
    empty = str(tmp_path)
    assert missing_tools(LANGUAGES["c"], empty) == ["gcc"]  # ./puzzlesolver is the build's
    assert missing_tools(LANGUAGES["cpp"], empty) == ["g++"]
    assert missing_tools(LANGUAGES["java"], empty) == ["javac", "java"]
    assert missing_tools(LANGUAGES["python"], empty) == []  # run as the kit's own Python
    gcc = tmp_path / "gcc"
    gcc.write_text("#!/bin/sh\n")
    gcc.chmod(0o755)
    assert missing_tools(LANGUAGES["c"], empty) == []
    assert missing_tools(LANGUAGES["c"], os.pathsep.join([empty, str(tmp_path / "no")])) == []


@pytest.mark.parametrize(
    "tool, system, words",
    [
        ("gcc", "Windows", "mingw-w64-ucrt-x86_64-gcc"),
        ("g++", "Darwin", "xcode-select --install"),
        ("gcc", "Linux", "sudo apt install gcc g++"),
        ("javac", "Windows", "winget install Microsoft.OpenJDK.21"),
        ("java", "Darwin", "brew install openjdk"),
        ("javac", "Linux", "default-jdk"),
        ("pypy3", "Linux", "install pypy3 and put it on your PATH"),
    ],
)
def test_what_to_install_is_named_for_each_platform(tool, system, words):
    assert words in install_hint(tool, system)
