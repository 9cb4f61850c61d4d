"""The student kit: a zip a student unpacks and self-checks with, in one command, on
Windows, macOS or Linux with Python 3.10+ alone (no network, no package to install).

    scramble-kit/
      check.py                  python check.py path/to/puzzlesolver.c  (or its folder)
      README.md                 for students: each platform, and WSL on Windows
      course.json               the limits and commands the grader uses (course.toml's
                                tables `check` reads, as JSON: Python 3.10 reads no TOML)
      grader/                   the part of the grader `check` runs (the modules it
                                imports, found by modulefinder; it holds no solver)
      testcases/manifest.json   the public cases, and only them
      testcases/public/         their puzzles and expected outputs
      testcases/pool/           the pool of public puzzles (grader.cases.pool), like the hidden
                                cases: check runs every one of them too

What a student may not have stays out, and the build checks it: no hidden case
(by name or content), no reference solver, no test-case tooling (it imports the
reference), no results. check.py runs the grader's `check` (grader.commands.check,
standalone) with the kit's manifest and course, on the public cases and the whole
pool, and prints one screen. The manifest is checked by grader.schemas.subset (the
standard library, as everywhere); where the POSIX-only modules do not exist (Windows)
programs run in the portable fallback (grader.sandbox.portable), which says what it
does not enforce there, and times are wall-clock times, labelled so.
"""

import json
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path

from grader import languages
from grader.cases.manifest import default_manifest, load_cases
from grader.course.config import default_course_file, load_config, tomllib
from grader.exports.common import (
    Entry,
    ExportError,
    case_entries,
    module_entries,
    pool_entries,
    write_zip,
)
from grader.results.last_run import RESULTS_JSON
from grader.store import DB_NAME

KIT = "scramble-kit"
_IMPORTS_REFERENCE = re.compile(rb"^\s*(from|import)\s+(reference|testcases)\b", re.M)
# course.toml's tables `check` reads (the rest is for grading a class: late policy, LMS,
# teams, leaderboard, cluster).
KIT_TABLES = ("sandbox", "limits", "build_limits", "languages", "submissions", "scoring",
              "counterexamples")  # fmt: skip

# Kept to Python 3.6's syntax, so that an older Python still says what it needs.
CHECK = r'''"""Self-check a Scramble Squares solver on the public cases and the pool's
puzzles (public puzzles like the hidden cases), exactly as the grader runs it:

    python check.py path/to/puzzlesolver.c     (or .cpp, PuzzleSolver.java, .py,
                                                or the folder holding it)
    python check.py --details ...              every case in full

Windows, macOS and Linux, Python 3.10 or newer and nothing else (on Windows
`py check.py ...` works too). Exit status 0: every public case and pool puzzle passes.
"""
import os
import sys

KIT = os.path.dirname(os.path.abspath(__file__))


def main(args):
    if sys.version_info < (3, 10):
        print("check: needs Python 3.10 or newer, this is " + sys.version.split()[0] +
              "; install one (https://www.python.org/downloads/) and run it", file=sys.stderr)
        return 2
    if not args or args[0] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if args else 2
    sys.path.insert(0, KIT)  # the kit's grader, before any other
    from grader.commands.check import standalone
    return standalone(["--course", os.path.join(KIT, "course.json"),
                       "--manifest", os.path.join(KIT, "testcases", "manifest.json"),
                       "--pool"] + list(args))


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
command may be `python3`. Give it your source file (SOURCE_NAMES) or the folder holding
it. For a failure it says what caused it where it can tell (the way the program ends,
where it reads its puzzle from...), where the output first differs, what all its runs
show it does wrong, a property of the puzzle file only where a run proved it (the same
puzzle without it passes), and a smaller public puzzle that fails
the same way when there is one. Exit status 0 means every public case and every pool
puzzle passes.

It needs Python 3.10 or newer and nothing else: no network, no package to install.
It runs every public case and every puzzle of the pool (`testcases/pool/public/`:
public puzzles like the hidden cases, with Windows line ends, without a final newline,
with thousands of solutions...), and prints one screen: a line per public case, a line
on the pool, the first failure explained, a line for each other kind of failure.
`--details` prints every case in full.

## Compilers

A Python program needs nothing more. To build the others you need the compiler on your
PATH; `check.py` names what to install when it is missing:

COMPILERS

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


def kit_readme() -> str:
    """The kit's README: the source names and what to install, from grader.languages."""
    names = [f"`{lang.source}`" for lang in languages.REGISTRY]
    same: dict[tuple[tuple[str, str], ...], list[str]] = {}  # C and C++: one toolchain
    for lang in languages.REGISTRY:
        if lang.install:
            same.setdefault(tuple(lang.install.items()), []).append(lang.display)
    compilers = [
        f"- {' and '.join(names)}: "
        + "; ".join(f"{system.replace('Darwin', 'macOS')}: {hint}" for system, hint in hints)
        for hints, names in same.items()
    ]
    text = README.replace("SOURCE_NAMES", ", ".join(names[:-1]) + f" or {names[-1]}")
    return text.replace("COMPILERS", "\n".join(compilers))


def build_student_kit(
    out: Path, manifest: Path | None = None, course: Path | None = None
) -> StudentKit:
    """Write the kit zip: the grader, the public cases only (and the pool beside them),
    check.py, a README."""
    cases, entries = kit_entries(f"{KIT}/", manifest, course)
    refuse_secrets(entries, manifest)
    write_zip(out, entries)
    return StudentKit(Path(out), cases, sorted(entry.name for entry in entries))


def kit_entries(
    prefix: str, manifest: Path | None = None, course: Path | None = None, readme: str | None = None
) -> tuple[int, list[Entry]]:
    """The kit's files under `prefix`, and how many public cases it holds; the caller
    checks them with refuse_secrets before they go anywhere."""
    public, case_files = case_entries(
        manifest, keep=lambda case: case.public, prefix=f"{prefix}testcases/"
    )
    course_file = Path(course) if course else default_course_file()
    load_config(course)  # a broken configuration fails here, not on students' machines
    return len(public), [
        Entry(f"{prefix}check.py", CHECK),
        Entry(f"{prefix}README.md", kit_readme() if readme is None else readme),
        Entry(f"{prefix}course.json", _kit_course(course_file)),
        *module_entries("grader.commands.check", prefix),
        *case_files,
        *pool_entries(manifest, prefix=f"{prefix}testcases/"),
    ]


def _kit_course(path: Path) -> str:
    """The course's tables `check` reads, as JSON (Python 3.10 has no TOML reader), the
    sandbox left to `auto`: bubblewrap exists on few students' machines and never on
    macOS, where a required one would stop every check."""
    data = tomllib.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    kept = {name: value for name, value in data.items() if name in KIT_TABLES}
    kept["sandbox"] = "auto"
    text = json.dumps(kept, indent=2) + "\n"
    with tempfile.TemporaryDirectory() as tmp:  # what students' check.py will read
        (Path(tmp) / "course.json").write_text(text, encoding="utf-8")
        load_config(Path(tmp) / "course.json")
    return text


def _secret_place(parts: list[str]) -> bool:
    """Hidden cases, the solver, or a grading run's results folder (its store and
    results.json hold hidden outputs). The grader's own results/ package (its code and
    page templates) is not one."""
    if "hidden" in parts or "reference" in parts or parts[-1] in (DB_NAME, RESULTS_JSON):
        return True
    return any(part == "results" and parts[i - 1 : i] != ["grader"] for i, part in enumerate(parts))


def refuse_secrets(entries: list[Entry], manifest: Path | None) -> None:
    """Nothing hidden, no solver: checked on what is packed, not on how it was chosen."""
    hidden = [case for case in load_cases(manifest or default_manifest()) if not case.public]
    secrets = [
        (case.id, path.read_bytes()) for case in hidden for path in (case.input, case.expected)
    ]
    for entry in entries:
        if _secret_place(entry.name.split("/")):
            raise ExportError(f"internal error: a student's copy would hold {entry.name}")
        data = entry.data()
        if entry.name.endswith(".py") and _IMPORTS_REFERENCE.search(data):
            raise ExportError(
                f"{entry.name} imports the reference solver or the test-case "
                "tooling: it cannot go where students read it"
            )
        for case_id, secret in secrets:
            if secret.strip() and secret in data:
                raise ExportError(
                    f"{entry.name} holds the text of hidden case {case_id!r}: "
                    "it cannot go where students read it"
                )
