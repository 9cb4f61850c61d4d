"""The fast lane (`make test-fast`, i.e. `pytest -m "fast and not slow"`) promises no compilers, no
sandbox and no browser. While it runs, starting one of them is an error, so a test
marked fast that quietly needs one fails at once instead of slowing the lane down."""

from __future__ import annotations

import os
import subprocess

import pytest

# The order files are handed to the workers (tests/file_order.py): its hooks, here.
from tests.file_order import (  # noqa: F401
    pytest_addoption,
    pytest_collection_modifyitems,
    pytest_configure,
)

HEAVY_PROGRAMS = frozenset(
    {
        "gcc",
        "g++",
        "cc",
        "c++",
        "javac",
        "java",
        "bwrap",
        "chromium",
        "chromium-browser",
        "google-chrome",
    }
)


def _program(args) -> str:
    first = args if isinstance(args, (str, bytes, os.PathLike)) else args[0]
    return os.path.basename(os.fsdecode(first)).split()[0] if first else ""


@pytest.fixture(autouse=True, scope="session")
def _fast_lane_guard(request):
    if not request.config.option.markexpr.startswith("fast"):
        yield
        return
    original = subprocess.Popen._execute_child

    def refuse_heavy(self, args, *rest, **kwargs):
        if _program(args) in HEAVY_PROGRAMS:
            raise AssertionError(
                f"the fast lane must not start {_program(args)}: "
                "mark this test as part of the full suite instead"
            )
        return original(self, args, *rest, **kwargs)

    subprocess.Popen._execute_child = refuse_heavy
    try:
        yield
    finally:
        subprocess.Popen._execute_child = original


@pytest.fixture(autouse=True, scope="session")
def _grading_order_per_worker(tmp_path_factory):
    """The grading order (grader.grading.machine_order) is per user and machine: the suite's
    parallel workers are independent graders, as two courses on two machines would be,
    so each keeps its order in a folder of its own (which every grader it starts
    inherits)."""
    from grader.grading.machine_order import FOLDER_VARIABLE

    saved = os.environ.get(FOLDER_VARIABLE)
    os.environ[FOLDER_VARIABLE] = str(tmp_path_factory.mktemp("order") / "lock")
    yield
    if saved is None:
        os.environ.pop(FOLDER_VARIABLE, None)
    else:
        os.environ[FOLDER_VARIABLE] = saved


@pytest.fixture(autouse=True, scope="session")
def _builds_shared_by_the_suite(tmp_path_factory):
    """Every grader the suite starts shares one folder of builds (grader.build.shared_builds),
    across its parallel workers too: a program is built once per sandbox and limits,
    however many tests grade it (each still has a results folder of its own)."""
    from grader.build.shared_builds import SHARED_BUILDS_ENV

    base = tmp_path_factory.getbasetemp()
    root = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    saved = os.environ.get(SHARED_BUILDS_ENV)
    os.environ[SHARED_BUILDS_ENV] = str(root / "shared-builds")
    yield
    if saved is None:
        os.environ.pop(SHARED_BUILDS_ENV, None)
    else:
        os.environ[SHARED_BUILDS_ENV] = saved
