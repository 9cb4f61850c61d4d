"""The student kit: a zip a student unpacks and self-checks with, in one command.

    scramble-kit/
      check                     ./check path/to/puzzlesolver.c  (or the folder holding it)
      README.md                 for students
      requirements.txt          the grader's few packages, installed by `check` on first use
      course.toml               the limits and commands the grader uses
      grader/                   the grader package, whole (it holds no solver)
      testcases/manifest.json   the public cases, and only them
      testcases/public/         their puzzles and expected outputs

What a student may not have stays out, and the build checks it: no hidden case
(by name or content), no reference solver, no test-case tooling (it imports the
reference), no results. `check` runs `python -m grader check` with the kit's own
manifest and course file, under the first Python 3.10+ it finds that already has
the packages, else in a virtual environment it makes in the kit (from PyPI, once).
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
    requirements_txt,
    write_zip,
)

KIT = "scramble-kit"
_SANDBOX_LINE = re.compile(r"^sandbox\s*=.*$", re.M)
_IMPORTS_REFERENCE = re.compile(rb"^\s*(from|import)\s+(reference|testcases)\b", re.M)

CHECK = r"""#!/usr/bin/env bash
# Self-check a Scramble Squares solver on the public cases, exactly as the grader
# runs it:   ./check path/to/puzzlesolver.c   (or .cpp, PuzzleSolver.java, .py,
# or the folder holding it). Exit status 0: every public case passes.
# Needs Python 3.10+ (PYTHON=/path/to/python3 picks one). The first run may make a
# virtual environment in this folder and install the grader's packages from PyPI.
set -euo pipefail
kit="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

if [ $# -eq 0 ] || [ "$1" = "-h" ] || [ "$1" = "--help" ]; then
    sed -n '2,6s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"
    [ $# -eq 0 ] && exit 2 || exit 0
fi

new_enough='import sys; sys.exit(sys.version_info < (3, 10))'
has_packages='import sys, tabulate, tqdm
from jsonschema import Draft202012Validator
if sys.version_info < (3, 11): import tomli'

python=""
if [ -n "${PYTHON:-}" ]; then
    candidates=("$PYTHON")  # the student's choice, and only it
else
    candidates=(python3 python3.13 python3.12 python3.11 python3.10 python)
fi
for candidate in "${candidates[@]}"; do
    if command -v "$candidate" >/dev/null 2>&1 && "$candidate" -c "$new_enough" 2>/dev/null; then
        python="$(command -v "$candidate")"
        break
    fi
done
if [ -z "$python" ]; then
    echo "check: needs Python 3.10 or newer (tried: ${candidates[*]}); install one," \
         "or set PYTHON=/path/to/python3" >&2
    exit 2
fi

# -I: neither the current folder, PYTHONPATH nor user site-packages can put another
# `grader` (or anything else) before the kit's own.
if ! "$python" -I -c "$has_packages" 2>/dev/null; then
    venv="$kit/.venv"
    if [ ! -f "$venv/.ready" ]; then
        echo "check: first run: installing the grader's packages into $venv (once)..." >&2
        rm -rf "$venv"
        if ! "$python" -m venv "$venv"; then
            echo "check: could not make a virtual environment with $python" \
                 "(Debian/Ubuntu: sudo apt install python3-venv)" >&2
            exit 2
        fi
        if ! "$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
                -r "$kit/requirements.txt"; then
            echo "check: could not install the packages in $kit/requirements.txt" \
                 "(no network?); run this again when you are online" >&2
            exit 2
        fi
        touch "$venv/.ready"
    fi
    python="$venv/bin/python"
fi

run_grader='import runpy, sys
sys.path.insert(0, sys.argv.pop(1))
runpy.run_module("grader", run_name="__main__", alter_sys=True)'
exec "$python" -I -c "$run_grader" "$kit" --course "$kit/course.toml" \
    --manifest "$kit/testcases/manifest.json" check "$@"
"""

README = """# Scramble Squares: self-check kit

This kit runs your puzzle solver on the assignment's **public** test cases,
exactly as the grader does: same compiler flags, same limits, same comparison
(byte for byte), same explanations when something differs.

## Use it

On Linux or macOS, with Python 3.10 or newer:

    unzip scramble-kit.zip
    cd scramble-kit
    ./check path/to/puzzlesolver.c

Give it your source file (`puzzlesolver.c`, `puzzlesolver.cpp`, `PuzzleSolver.java`
or `puzzlesolver.py`) or the folder holding it. It prints every case with its
verdict and, for each failure, where the output first differs and what that
means. Exit status 0 means every public case passes.

The first run may take a minute: if your Python lacks the grader's few packages
(jsonschema, tabulate, tqdm), it makes a virtual environment in `.venv/` here and
installs them from PyPI, once. Choose the Python with `PYTHON=/path/to/python3
./check ...`. If `./check` is not executable after unpacking, run `bash check ...`.
To compile C, C++ or Java you need gcc, g++ or a JDK on your PATH.

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
Windows line ends, no final newline).

On Linux with bubblewrap installed your program runs isolated, as in the real
grading; elsewhere (macOS, or without bubblewrap) it runs with resource limits
only, and the grader says so.
"""


@dataclass(frozen=True)
class StudentKit:
    path: Path
    cases: int
    files: list[str]


def build_student_kit(
    out: Path, manifest: Path | None = None, course: Path | None = None
) -> StudentKit:
    """Write the kit zip: the grader, the public cases only, a runner, a README."""
    public, case_files = case_entries(
        manifest, keep=lambda case: case.public, prefix=f"{KIT}/testcases/"
    )
    course_file = Path(course) if course else default_course_file()
    config = load_config(course)  # a broken configuration fails here, not on students' machines
    entries = [
        Entry(f"{KIT}/check", CHECK, executable=True),
        Entry(f"{KIT}/README.md", README),
        Entry(f"{KIT}/requirements.txt", requirements_txt()),
        *package_entries(f"{KIT}/"),
        *case_files,
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
