"""The student kit: a zip a student unpacks and self-checks with, in one command, on
Windows, macOS or Linux with Python 3.10+.

    scramble-kit/
      check.py                  python check.py path/to/puzzlesolver.c  (or its folder)
      README.md                 for students: each platform, and WSL on Windows
      requirements.txt          the grader's few packages, installed by check.py on first use
      course.toml               the limits and commands the grader uses
      grader/                   the grader package, whole (it holds no solver)
      testcases/manifest.json   the public cases, and only them
      testcases/public/         their puzzles and expected outputs
      testcases/pool/           the pool of public puzzles (grader.pool): where a failing
                                case's smaller puzzle that fails the same way comes from

What a student may not have stays out, and the build checks it: no hidden case
(by name or content), no reference solver, no test-case tooling (it imports the
reference), no results. check.py runs `grader check` with the kit's own manifest and
course file, under the Python that runs it when it has the packages, else in a
virtual environment it makes in the kit (from PyPI, once). Where the POSIX-only modules
do not exist (Windows) the grader runs programs in its portable fallback
(grader.sandbox.portable) and says what it does not enforce there.
"""

import re
import tempfile
from dataclasses import dataclass
from pathlib import Path

from grader.cases import default_manifest, load_cases
from grader.config import default_course_file, load_config
from grader.exports.common import (
    Entry,
    ExportError,
    case_entries,
    package_entries,
    pool_entries,
    requirements_txt,
    write_zip,
)

KIT = "scramble-kit"
_SANDBOX_LINE = re.compile(r"^sandbox\s*=.*$", re.M)
_IMPORTS_REFERENCE = re.compile(rb"^\s*(from|import)\s+(reference|testcases)\b", re.M)

# Kept to Python 3.6's syntax, so that an older Python still says what it needs.
CHECK = r'''"""Self-check a Scramble Squares solver on the public cases, exactly as the grader
runs it:

    python check.py path/to/puzzlesolver.c     (or .cpp, PuzzleSolver.java, .py,
                                                or the folder holding it)

Windows, macOS and Linux, Python 3.10 or newer (on Windows `py check.py ...` works
too). Exit status 0: every public case passes. The first run may make a virtual
environment in this folder and install the grader's packages from PyPI.
"""
import os
import subprocess
import sys

KIT = os.path.dirname(os.path.abspath(__file__))
PACKAGES = ("tabulate", "tqdm", "jsonschema")
AGAIN = "SCRAMBLE_KIT_IN_VENV"  # set when check.py runs itself again in its .venv


def main(args):
    if sys.version_info < (3, 10):
        print("check: needs Python 3.10 or newer, this is " + sys.version.split()[0] +
              "; install one (https://www.python.org/downloads/) and run it", file=sys.stderr)
        return 2
    if not args or args[0] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if args else 2
    if not has_packages():
        if os.environ.get(AGAIN):
            print("check: the packages in " + os.path.join(KIT, "requirements.txt") +
                  " are still missing after installing them", file=sys.stderr)
            return 2
        python = kit_python()
        if python is None:
            return 2
        env = dict(os.environ)
        env[AGAIN] = "1"
        return subprocess.call([python, os.path.abspath(__file__)] + list(args), env=env)
    sys.path.insert(0, KIT)  # the kit's grader, before any other
    from grader.cli import main as grader
    return grader(["--course", os.path.join(KIT, "course.toml"),
                   "--manifest", os.path.join(KIT, "testcases", "manifest.json"),
                   "check"] + list(args))


def has_packages():
    import importlib.util
    wanted = PACKAGES + (("tomli",) if sys.version_info < (3, 11) else ())
    return all(importlib.util.find_spec(name) is not None for name in wanted)


def kit_python():
    """The kit's virtual environment's Python, made (and its packages installed) once."""
    venv = os.path.join(KIT, ".venv")
    bin_dir = "Scripts" if os.name == "nt" else "bin"
    python = os.path.join(venv, bin_dir, "python.exe" if os.name == "nt" else "python")
    ready = os.path.join(venv, ".ready")
    if os.path.exists(ready):
        return python
    print("check: first run: installing the grader's packages into " + venv + " (once)...",
          file=sys.stderr)
    import shutil
    import venv as venvs
    shutil.rmtree(venv, ignore_errors=True)
    try:
        venvs.create(venv, with_pip=True)
    except Exception as error:
        print("check: could not make a virtual environment (" + str(error) + "); on "
              "Debian or Ubuntu: sudo apt install python3-venv", file=sys.stderr)
        return None
    install = [python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
               "-r", os.path.join(KIT, "requirements.txt")]
    if subprocess.call(install) != 0:
        print("check: could not install the packages in requirements.txt (no network?); "
              "run this again when you are online", file=sys.stderr)
        return None
    open(ready, "w").close()
    return python


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
'''

README = """# Scramble Squares: self-check kit

This kit runs your puzzle solver on the assignment's **public** test cases,
exactly as the grader does: same compiler flags, same limits, same comparison
(byte for byte), same explanations when something differs.

## Use it

With Python 3.10 or newer, in this folder (after unpacking the zip):

    python check.py path/to/puzzlesolver.c

On Windows, `py check.py path\\to\\puzzlesolver.c` works too; on macOS and Linux the
command may be `python3`. Give it your source file (`puzzlesolver.c`,
`puzzlesolver.cpp`, `PuzzleSolver.java` or `puzzlesolver.py`) or the folder holding
it. It prints every case with its verdict and, for each failure, where the output
first differs, what that means, and a smaller public puzzle that your program fails
the same way when there is one (its file is under `testcases/pool/public/`). Exit
status 0 means every public case passes.

The first run may take a minute: if your Python lacks the grader's few packages
(jsonschema, tabulate, tqdm), it makes a virtual environment in `.venv` here and
installs them from PyPI, once.

## Compilers

To build C, C++ or Java you need the compiler on your PATH; `check.py` names what to
install when it is missing:

- Windows: C and C++ from MSYS2 (https://www.msys2.org: `pacman -S
  mingw-w64-ucrt-x86_64-gcc`, then add `C:\\msys64\\ucrt64\\bin` to PATH); Java: a JDK
  (`winget install Microsoft.OpenJDK.21`).
- macOS: `xcode-select --install` (gcc and g++); Java: `brew install openjdk`.
- Linux: `sudo apt install gcc g++ default-jdk` (Debian, Ubuntu) or the same from your
  distribution.

## How your program runs

- Linux with bubblewrap installed: isolated, as in the real grading.
- macOS, or Linux without bubblewrap: with the grader's resource limits (time, memory,
  output), not isolated; the grader says so.
- Windows: the portable fallback. Time limits still hold (a run is stopped when its
  wall-clock time reaches the CPU limit, since Windows gives the kit no CPU counter:
  stricter than the grading) and so do output limits; memory, process and file-size
  limits are not enforced and the program is not isolated (the grader prints this
  when it starts). Your program's CR LF line ends (C's and Python's text mode, Java's
  println) are read as LF, as the grader's Linux machine would print LF.
- For the real grading sandbox on Windows, use WSL (Windows Subsystem for Linux): in
  PowerShell `wsl --install -d Ubuntu`, restart, then in the Ubuntu terminal `sudo apt
  install python3 python3-venv gcc g++ default-jdk bubblewrap`, and run `python3
  check.py ...` there, on the kit unpacked inside WSL (e.g. in your home folder).

## Verdicts

- AC: accepted, the output is exactly the expected output.
- WA: wrong answer. PE: the output differs only in white space (still a failure:
  the comparison is exact).
- TLE / MLE / OLE: over the time, memory or output limit (see course.toml).
- RTE: the program crashed or exited with a non-zero status.
- CE: it did not compile, or the file is missing or misnamed.
- IE: the grader itself failed; tell the course staff.

## What is not here

The hidden cases: your submission is also graded on them after the deadline.
Passing every public case is necessary, not sufficient: test your program on
puzzles of your own too (no solution, one, many, duplicate and symmetric tiles,
Windows line ends, no final newline), and on the puzzles in `testcases/pool/public/`
(each with its expected output, the `.out` file beside it).
"""


@dataclass(frozen=True)
class StudentKit:
    path: Path
    cases: int
    files: list[str]


def build_student_kit(
    out: Path, manifest: Path | None = None, course: Path | None = None
) -> StudentKit:
    """Write the kit zip: the grader, the public cases only (and the pool beside them),
    check.py, a README."""
    public, case_files = case_entries(
        manifest, keep=lambda case: case.public, prefix=f"{KIT}/testcases/"
    )
    course_file = Path(course) if course else default_course_file()
    config = load_config(course)  # a broken configuration fails here, not on students' machines
    entries = [
        Entry(f"{KIT}/check.py", CHECK),
        Entry(f"{KIT}/README.md", README),
        Entry(f"{KIT}/requirements.txt", requirements_txt()),
        *package_entries(f"{KIT}/"),
        *case_files,
        *pool_entries(manifest, prefix=f"{KIT}/testcases/"),
    ]
    if course_file.exists():
        entries.append(Entry(f"{KIT}/course.toml", _kit_course(course_file, config.sandbox)))
    _refuse_secrets(entries, manifest)
    write_zip(out, entries)
    return StudentKit(Path(out), len(public), sorted(entry.name for entry in entries))


def _kit_course(path: Path, sandbox: str) -> str:
    """The course file, with the sandbox left to `auto`: bubblewrap exists on few
    students' machines and never on macOS, where a required one would stop every check."""
    text = path.read_text(encoding="utf-8")
    if sandbox == "auto":
        return text
    kit_text = _SANDBOX_LINE.sub('sandbox = "auto"  # the kit: bubblewrap where it works', text)
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "course.toml").write_text(kit_text, encoding="utf-8")
        if load_config(Path(tmp) / "course.toml").sandbox != "auto":
            raise ExportError(f"{path}: cannot set its sandbox to auto for the student kit")
    return kit_text


def _refuse_secrets(entries: list[Entry], manifest: Path | None) -> None:
    """Nothing hidden, no solver: checked on what is packed, not on how it was chosen."""
    hidden = [case for case in load_cases(manifest or default_manifest()) if not case.public]
    secrets = [
        (case.id, path.read_bytes()) for case in hidden for path in (case.input, case.expected)
    ]
    for entry in entries:
        parts = entry.name.split("/")
        if "hidden" in parts or "reference" in parts or "results" in parts:
            raise ExportError(f"internal error: the kit would hold {entry.name}")
        data = entry.data()
        if entry.name.endswith(".py") and _IMPORTS_REFERENCE.search(data):
            raise ExportError(
                f"{entry.name} imports the reference solver or the test-case "
                "tooling: it cannot go into the student kit"
            )
        for case_id, secret in secrets:
            if secret.strip() and secret in data:
                raise ExportError(
                    f"{entry.name} holds the text of hidden case {case_id!r}: "
                    "it cannot go into the student kit"
                )
