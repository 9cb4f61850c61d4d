"""Grading untrusted code runs isolated, or unisolated only by the instructor's choice.

The grader's command line, run as a subprocess on a machine where bubblewrap cannot
be found: a PATH of links to every system tool but bwrap (the real grader, the real
tools, only bwrap missing, as after a plain pip install).
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import BUSY_OK, ROOT, draw_of

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def no_bwrap(tmp_path_factory) -> dict:
    """An environment whose PATH has every tool of /usr/bin and /bin but bwrap."""
    tools = tmp_path_factory.mktemp("no-bwrap-bin")
    for folder in ("/usr/local/bin", "/usr/bin", "/bin"):
        for entry in sorted(Path(folder).iterdir()) if Path(folder).is_dir() else []:
            link = tools / entry.name
            if entry.name != "bwrap" and not os.path.lexists(link):
                link.symlink_to(entry)
    return {**os.environ, "PATH": str(tools)}


def _grader(env: dict, cwd: Path, *args) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "grader", *map(str, args)],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


def _course(folder: Path, sandbox: str) -> Path:
    course = folder / "course.toml"
    course.write_text(f'sandbox = "{sandbox}"\n')
    return course


def _class(folder: Path) -> Path:
    klass = folder / "class"
    (klass / "ada").mkdir(parents=True)
    (klass / "ada" / "puzzlesolver.c").write_text(
        (ROOT / "submissions" / "ada-c" / "puzzlesolver.c").read_text()
    )
    return klass


def _refused(done: subprocess.CompletedProcess) -> None:
    assert done.returncode == 2, done.stdout + done.stderr
    lines = [line for line in done.stderr.splitlines() if not line.startswith("grader: warning")]
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    assert "bubblewrap" in lines[0] and "apt-get install bubblewrap" in lines[0]
    assert "--sandbox rlimits" in lines[0] and 'sandbox = "rlimits"' in lines[0]


@pytest.mark.parametrize("sandbox", ["auto", "bubblewrap"])
def test_grade_and_leaderboard_refuse_to_run_unisolated(no_bwrap, tmp_path, sandbox):
    course = _course(tmp_path, sandbox)
    klass = _class(tmp_path)
    results = tmp_path / "results"
    _refused(_grader(no_bwrap, tmp_path, "--course", course, "grade", klass, "--results", results))
    # graded with the instructor's choice, then the leaderboard without it: refused
    chosen = _grader(
        no_bwrap,
        tmp_path,
        "--course",
        course,
        "grade",
        klass,
        "--results",
        results,
        "--sandbox",
        "rlimits",
    )
    assert chosen.returncode == 0, chosen.stderr
    assert "rlimits chosen" in chosen.stderr and "ada" in chosen.stdout
    draw = draw_of(ROOT / "testcases" / "manifest.json", tmp_path / "draw.json")
    _refused(
        _grader(
            no_bwrap,
            tmp_path,
            "--course",
            course,
            "leaderboard",
            "--results",
            results,
            "--puzzles",
            draw,
            BUSY_OK,
        )
    )


def test_rlimits_chosen_in_course_toml_grades(no_bwrap, tmp_path):
    course = _course(tmp_path, "rlimits")
    done = _grader(
        no_bwrap,
        tmp_path,
        "--course",
        course,
        "grade",
        _class(tmp_path),
        "--results",
        tmp_path / "results",
    )
    assert done.returncode == 0, done.stderr
    assert "rlimits chosen" in done.stderr and "36/36" in done.stdout


def test_check_may_fall_back_with_its_warning(no_bwrap, tmp_path):
    course = _course(tmp_path, "auto")
    source = _class(tmp_path) / "ada" / "puzzlesolver.c"
    done = _grader(no_bwrap, tmp_path, "--course", course, "check", source)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "bubblewrap not available" in done.stderr and "--sandbox" not in done.stderr
    assert "All public cases and the pool pass" in done.stdout


def test_check_with_bubblewrap_required_is_one_line(no_bwrap, tmp_path):
    course = _course(tmp_path, "bubblewrap")
    source = _class(tmp_path) / "ada" / "puzzlesolver.c"
    _refused(_grader(no_bwrap, tmp_path, "--course", course, "check", source))
