"""Rust, the fifth language, added as one module (grader/languages/rust.py): held-out
Rust programs (a correct one, one on two files joined by `mod`, one with a mistake)
graded beside C programs, then checked with `grader check`, with the student kit, on
a machine without rustc, and timed on the leaderboard with Rust's start-up program."""

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from grader.cli import main as grader_main
from grader.exports.student_kit import KIT
from grader.languages import BY_NAME, REGISTRY
from grader.schemas import schema
from tests.helpers import BUSY_OK, ROOT, draw_of, named_in_code
from tests.mistake_variants import variant

pytestmark = pytest.mark.slow

SOURCE = (ROOT / "tests" / "rust" / "one-file" / "puzzlesolver.rs").read_text()
PLURAL = ("1 unique solution found:", "1 unique solutions found:")
COURSE = (
    "[counterexamples]\nruns = 0\n"
    '[leaderboard]\nruns = 4\nwarmup = 1\ncases = ["timed-2-letters-a"]\n'
)


def two_files(folder: Path) -> Path:
    """The same program with its tiles in a module of their own (tiles.rs)."""
    start, end = SOURCE.index("// TILES BEGIN\n"), SOURCE.index("// TILES END\n")
    tiles = SOURCE[start:end].replace("// TILES BEGIN\n", "")
    main = SOURCE[:start] + "mod tiles;\n\nuse tiles::{die, placements, read_tiles, Placement};\n"
    folder.mkdir(parents=True)
    (folder / "puzzlesolver.rs").write_text(main + SOURCE[end + len("// TILES END\n") :])
    (folder / "tiles.rs").write_text(tiles)
    return folder


def one_file(folder: Path, text: str = SOURCE) -> Path:
    folder.mkdir(parents=True)
    (folder / "puzzlesolver.rs").write_text(text)
    return folder


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    if shutil.which("rustc", path="/usr/local/bin:/usr/bin:/bin") is None:
        pytest.fail("needs rustc where the sandbox sees it (make setup installs it)")
    root = tmp_path_factory.mktemp("rust")
    klass = root / "class"
    one_file(klass / "rust-one")
    two_files(klass / "rust-two")
    one_file(klass / "rust-plural", SOURCE.replace(*PLURAL))
    shutil.copytree(ROOT / "submissions" / "ada-c", klass / "ada-c")
    shutil.copytree(variant("plural", "c", root / "variants"), klass / "c-plural")
    (root / "course.toml").write_text(COURSE)
    base = ["--course", str(root / "course.toml")]
    results = root / "results"
    assert grader_main([*base, "grade", str(klass), "--results", str(results), "--jobs", "2"]) == 0
    document = json.loads((results / "results.json").read_text())
    return root, base, results, {s["id"]: s for s in document["submissions"]}


def verdicts(entry: dict) -> dict:
    return {case["id"]: case["verdict"] for case in entry["cases"]}


def test_rust_programs_get_their_verdicts_beside_c_ones(graded):
    _, _, _, found = graded
    for sid in ("rust-one", "rust-two"):
        assert found[sid]["language"] == "rust"
        assert set(verdicts(found[sid]).values()) == {"AC"}, verdicts(found[sid])
        assert len(verdicts(found[sid])) == 31
    # the same mistake as the C program's, case for case
    assert verdicts(found["rust-plural"]) == verdicts(found["c-plural"])
    assert "WA" in verdicts(found["rust-plural"]).values()
    assert set(verdicts(found["ada-c"]).values()) == {"AC"}


def test_a_module_file_is_used_not_ignored(graded, capsys):
    root, base, results, _ = graded
    capsys.readouterr()
    assert grader_main([*base, "show", "rust-two", "--results", str(results)]) == 0
    shown = capsys.readouterr().out
    assert "files used: puzzlesolver.rs, tiles.rs" in shown, shown
    assert "not a source" not in shown


def test_the_results_schema_names_every_language_of_the_registry():
    enum = schema("results")["properties"]["submissions"]["items"]["properties"]["language"]
    assert set(enum["enum"]) == {lang.name for lang in REGISTRY} | {"?"}


def test_check_and_the_kit_check_rust(tmp_path):
    program = one_file(tmp_path / "mine")
    checked = subprocess.run(
        [sys.executable, "-m", "grader", "check", str(program)],
        cwd=ROOT, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "All public cases and the pool pass" in checked.stdout
    assert grader_main(["export", "student-kit", str(tmp_path / "kit.zip")]) == 0
    with zipfile.ZipFile(tmp_path / "kit.zip") as kit:
        kit.extractall(tmp_path)
    wrong = one_file(tmp_path / "wrong", SOURCE.replace(*PLURAL))
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    kit_check = [sys.executable, str(tmp_path / KIT / "check.py")]
    done = subprocess.run(
        [*kit_check, str(wrong)], cwd=tmp_path, env=env, capture_output=True, text=True,
        timeout=600,
    )  # fmt: skip
    assert done.returncode == 1 and "WA   one-solution" in done.stdout, done.stdout + done.stderr
    # Without rustc: one line naming what to install, nothing run.
    bare = tmp_path / "bin"
    bare.mkdir()
    (bare / "python3").symlink_to(sys.executable)
    done = subprocess.run(
        [*kit_check, str(program)], cwd=tmp_path, env={**env, "PATH": str(bare)},
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 2 and done.stdout == "", done.stdout
    assert "needs rustc, which is not installed here" in done.stderr
    assert BY_NAME["rust"].install["Linux"] in done.stderr


def test_the_leaderboard_times_rust_beside_its_start_up_program(graded, tmp_path):
    root, base, results, _ = graded
    draw = draw_of(ROOT / "testcases" / "manifest.json", tmp_path / "draw.json",
                   ids=("timed-2-letters-a",))  # fmt: skip
    command = ["leaderboard", "--results", str(results), "--puzzles", str(draw), BUSY_OK]
    assert grader_main([*base, *command]) == 0
    board = json.loads((results / "leaderboard.json").read_text())
    assert {"rust-one", "rust-two", "ada-c"} <= {entry["id"] for entry in board["ranked"]}
    rust = next(s for s in board["startup"] if s["language"] == "rust")
    assert rust["available"] and rust["cpu_median_s"] > 0
    ranked = {entry["id"]: entry for entry in board["ranked"]}
    assert ranked["rust-one"]["language"] == "rust"


def test_outside_its_module_a_language_is_named_only_where_listed():
    """Each language declares itself in grader/languages/ and every table reads the
    registry. The other modules that name one in code are listed here, each with why,
    so that a new mention is a decision, not a drift."""
    from grader import languages

    names = {language.name for language in languages.REGISTRY}
    assert named_in_code(names, "languages") == {
        # "python" the interpreter the grader itself runs on, not a submission's language
        "grader/leaderboard/machine.py": {"python"},
        "grader/sandbox/portable.py": {"python"},
        "grader/build/toolchain.py": {"python"},
        # "c": the Latin letter a Cyrillic one looks like
        "grader/judge/compare/lookalike.py": {"c"},
    }
