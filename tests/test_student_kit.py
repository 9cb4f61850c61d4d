"""The student kit where Python has none of the POSIX-only modules (Windows): the kit,
exported and unpacked, run with `resource`, `fcntl`, `pwd`, `grp`, `termios` made
unavailable (and the POSIX-only names of `os` and `signal` that Windows lacks): the
portable fallback builds and runs real programs, holds the time and output limits, says
what it does not enforce, and names what to install where a compiler is missing.
tests/test_exports.py runs the same kit as macOS and Linux do."""

import shutil
import sys
import zipfile
from pathlib import Path

import pytest

from grader.cli import main as grader_main
from grader.core.model import Limits
from grader.sandbox.portable import PortableSandbox
from tests.helpers import ROOT, run_check
from tests.mistake_variants import case_subset

SUBMISSIONS = ROOT / "submissions"

WINDOWS = """
import os, signal, sys
for name in ("resource", "fcntl", "pwd", "grp", "termios", "tty", "pty"):
    sys.modules[name] = None
for name in ("SIGXCPU", "SIGXFSZ"):
    delattr(signal, name)
for name in ("killpg", "setsid", "fork", "getpgid"):
    delattr(os, name)
"""


# The pool's puzzles these kits keep: they test the portable sandbox, not the pool.
FEW_PUZZLES = ("one-solution-1", "duplicates-2", "no-final-newline-1")


def make_kit(folder: Path, course: Path | None = None) -> Path:
    out = folder / "kit.zip"
    cases = case_subset(folder / "cases", None, FEW_PUZZLES)
    args = ["--manifest", str(cases), "export", "student-kit", str(out)]
    assert grader_main(args if course is None else ["--course", str(course), *args]) == 0
    with zipfile.ZipFile(out) as archive:
        archive.extractall(folder)
    return folder / "scramble-kit"


@pytest.fixture(scope="module")
def kit(tmp_path_factory):
    return make_kit(tmp_path_factory.mktemp("kit"))


def on_windows(kit: Path, target: Path, **kw):
    """`python check.py TARGET`, run in the kit's folder, without the POSIX modules."""
    return run_check(kit, target, kit, sys.executable, prelude=WINDOWS, **kw)


def test_without_posix_modules_the_kit_says_what_it_does_not_enforce(kit):
    done = on_windows(kit, SUBMISSIONS / "guido-py")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "no POSIX here (no resource module): the portable fallback" in done.stderr
    assert "memory, process, file-size and open-file limits are not enforced" in done.stderr
    assert "the program is not isolated" in done.stderr
    assert "All public cases and the pool pass" in done.stdout
    assert all(
        line.endswith(" s wall") for line in done.stdout.splitlines() if line.startswith("AC ")
    )


@pytest.mark.parametrize("example", ["ada-c", "grace-cpp", "james-java"])
def test_without_posix_modules_compiled_programs_build_and_pass(kit, example):
    done = on_windows(kit, SUBMISSIONS / example)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "score on the public cases: 6/6" in done.stdout


def test_without_posix_modules_a_failure_is_explained_with_another_public_puzzle(kit):
    done = on_windows(kit, SUBMISSIONS / "wrong-plural")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "wrong plural on line 12" in done.stdout
    assert (
        "Another public puzzle, no larger, that fails the same way, to run and debug: pool "
        "puzzle one-solution-1 (testcases/pool/public/one-solution-1.txt)"
    ) in done.stdout
    assert (kit / "testcases" / "pool" / "public" / "one-solution-1.txt").is_file()


def test_without_posix_modules_the_time_limit_still_holds(tmp_path):
    course = tmp_path / "course.toml"
    course.write_text("[limits]\ncpu_seconds = 1\nwall_seconds = 2\n")
    kit = make_kit(tmp_path, course)
    done = on_windows(kit, SUBMISSIONS / "endless-loop", timeout=120)
    assert done.returncode == 1, done.stdout + done.stderr
    assert any(line.startswith("TLE  symmetric") for line in done.stdout.splitlines())
    assert "CPU time counted by wall-clock time" in done.stdout


def test_a_missing_compiler_is_named_with_what_to_install(kit, tmp_path):
    # A PATH with this Python only: no gcc, no JDK.
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "python3").symlink_to(sys.executable)
    c = on_windows(kit, SUBMISSIONS / "ada-c", path=str(bin_dir))
    java = on_windows(kit, SUBMISSIONS / "james-java", path=str(bin_dir))
    python = on_windows(kit, SUBMISSIONS / "guido-py", path=str(bin_dir))
    assert c.returncode == 2
    assert "puzzlesolver.c needs gcc, which is not installed here (not on the PATH): " in c.stderr
    assert "sudo apt install gcc g++" in c.stderr  # this is Linux
    assert java.returncode == 2 and "PuzzleSolver.java needs javac" in java.stderr
    assert "default-jdk" in java.stderr
    assert python.returncode == 0, python.stdout + python.stderr  # runs as this Python


PRINTS = {
    "crlf.py": "import sys\nsys.stdout.buffer.write(b'a\\r\\nb\\r\\n')\n",
    "flood.py": "import sys\nwhile True:\n    sys.stdout.write('x' * 65536)\n",
    "sleepy.py": "import time\ntime.sleep(30)\n",
}


@pytest.fixture
def programs(tmp_path):
    for name, text in PRINTS.items():
        (tmp_path / name).write_text(text)
    return tmp_path


def test_the_portable_sandbox_reads_crlf_as_lf_where_the_platform_writes_it(programs):
    windows = PortableSandbox(crlf_as_lf=True).run([sys.executable, "crlf.py"], programs, Limits())
    assert windows.stdout == b"a\nb\n" and windows.exit_code == 0
    posix = PortableSandbox(crlf_as_lf=False).run([sys.executable, "crlf.py"], programs, Limits())
    assert posix.stdout == b"a\r\nb\r\n"


def test_the_portable_sandbox_stops_a_flood_and_a_sleeper(programs):
    flood = PortableSandbox().run(
        [sys.executable, "flood.py"], programs, Limits(stdout_bytes=1 << 20, cpu_seconds=20)
    )
    assert flood.output_exceeded and not flood.timed_out
    assert len(flood.stdout) == 1 << 20 and flood.stdout_size > 1 << 20
    sleeper = PortableSandbox().run(
        [sys.executable, "sleepy.py"], programs, Limits(cpu_seconds=1, wall_seconds=5)
    )
    assert sleeper.timed_out and sleeper.wall_seconds < 5  # stopped at the CPU limit
    assert sleeper.cpu_accounting == "wall"


def test_the_portable_sandbox_finds_the_program_a_build_made(programs):
    shutil.copyfile(sys.executable, programs / "puzzlesolver")
    (programs / "puzzlesolver").chmod(0o755)
    done = PortableSandbox().run(["./puzzlesolver", "-c", "print(1)"], programs, Limits())
    assert done.stdout.strip() == b"1"
    missing = PortableSandbox().run(["./nothing"], programs, Limits())
    assert missing.error and "cannot start the program: ./nothing" in missing.error
