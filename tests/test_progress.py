"""Long work shows where it stands on a terminal (what it is on, done/total, elapsed and
left) and draws nothing when its output is piped: `grade`, `testcases draw`,
`leaderboard`, an import and the feedback pages, each run as a person runs it, in a
pseudo-terminal (pexpect) and piped."""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import BUSY_OK, ROOT, draw_of
from tests.mistake_variants import case_subset

pytestmark = pytest.mark.slow

SHOWN_WITHIN = 15  # seconds: the bar's first line, on a loaded machine too
# tqdm's line: "grading:  40%|####      | 4/10 [00:01<00:02, 3.1run/s, ada/sample: AC]"
BAR = r"{what}:\s+\d+%\|.*\| *\d+/{total} \[\d\d:\d\d<"


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "160"}


def on_terminal(tmp_path: Path, module: str, *args: object, expect: str) -> str:
    """The command in a pseudo-terminal: `expect` seen within SHOWN_WITHIN seconds, then
    everything it wrote by its end (exit 0)."""
    import pexpect

    child = pexpect.spawn(
        sys.executable,
        ["-m", module, *map(str, args)],
        cwd=str(tmp_path),
        encoding="utf-8",
        dimensions=(40, 160),
        env=_env(),
        timeout=SHOWN_WITHIN,
    )
    child.expect(expect)
    seen = child.before + child.after
    child.expect(pexpect.EOF, timeout=300)
    child.close()
    assert child.exitstatus == 0, seen + child.before
    return seen + child.before


def piped(tmp_path: Path, module: str, *args: object) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [sys.executable, "-m", module, *map(str, args)],
        cwd=tmp_path,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return done


def _no_bar(done: subprocess.CompletedProcess[str]) -> None:
    assert "\r" not in done.stderr and "%|" not in done.stderr, done.stderr
    assert "%|" not in done.stdout


@pytest.fixture
def klass(tmp_path: Path) -> tuple[Path, list[str]]:
    for name in ("guido-py", "wrong-plural"):
        shutil.copytree(ROOT / "submissions" / name, tmp_path / "class" / name)
    manifest = case_subset(
        tmp_path / "cases", ("sample", "one-solution", "timed-2-letters-a"), ("one-solution-1",)
    )
    (tmp_path / "course.toml").write_text(
        "[leaderboard]\nruns = 4\nwarmup = 1\n[counterexamples]\nruns = 0\n"
    )
    return tmp_path / "class", ["--course", "course.toml", "--manifest", str(manifest)]


def test_grade_and_leaderboard_show_progress_on_a_terminal_only(tmp_path, klass):
    folder, base = klass
    # 2 programs x 3 cases: the bar counts the graded cases, then the proofs' submissions
    shown = on_terminal(
        tmp_path,
        "grader",
        *base,
        "grade",
        folder,
        "--results",
        "on-terminal",
        expect=BAR.format(what="grading", total=6),
    )
    assert re.search(r"\d+/6 \[\d\d:\d\d<\d\d:\d\d", shown), shown  # elapsed<left
    assert re.search(r"(guido-py|wrong-plural)/(sample|one-solution|timed-2-letters-a): ", shown)
    quiet = piped(tmp_path, "grader", *base, "grade", folder, "--results", "piped")
    _no_bar(quiet)
    assert "guido-py" in quiet.stdout  # the table, as ever
    pages = ["export", "html", "--results", "on-terminal"]
    on_terminal(
        tmp_path, "grader", *base, *pages, "pages", expect=BAR.format(what="writing pages", total=2)
    )
    _no_bar(piped(tmp_path, "grader", *base, *pages, "pages-piped"))
    draw = draw_of(Path(base[3]), tmp_path / "draw.json")
    # guido-py alone passes: it and a start-up program per language, each 4 runs + 1 warm-up
    board = ["leaderboard", "--puzzles", draw, BUSY_OK]
    shown = on_terminal(
        tmp_path,
        "grader",
        *base,
        *board,
        "--results",
        "on-terminal",
        expect=BAR.format(what="timing", total=r"\d+"),
    )
    assert re.search(r"/timed-2-letters-a-d1 (warm-up|run \d)\]", shown), shown
    _no_bar(piped(tmp_path, "grader", *base, *board, "--results", "piped"))


def test_draw_shows_progress_on_a_terminal_only(tmp_path):
    family = ["draw", "--family", "timed-2-letters-a", "--seed", "5"]
    on_terminal(
        tmp_path, "testcases", *family, "-o", "a.json", expect=BAR.format(what="drawing", total=1)
    )
    _no_bar(piped(tmp_path, "testcases", *family, "-o", "b.json"))
    assert (tmp_path / "a.json").read_bytes()[:20] == (tmp_path / "b.json").read_bytes()[:20]


def test_an_import_shows_progress_on_a_terminal_only(tmp_path):
    download = ROOT / "docs" / "tutorial" / "canvas" / "submissions.zip"  # 4 students
    on_terminal(
        tmp_path, "grader", "import", "canvas", download, "--into", "a",
        expect=r"importing: \d+student \[\d\d:\d\d",
    )  # fmt: skip
    _no_bar(piped(tmp_path, "grader", "import", "canvas", download, "--into", "b"))
    students = sorted(p.name for p in (tmp_path / "b").iterdir() if p.is_dir())
    assert students == ["1001", "1002", "1003", "1004"]
