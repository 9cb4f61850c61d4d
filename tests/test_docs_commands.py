"""Every command a guide shows is run, so the guides cannot drift from the code.

A guide's `console` block holds commands (`$ ` lines, `\\` continuing one); each page's
commands run in order, each block from the page's own folder, which holds the example
class (graded once, shared) and the files the page names: each LMS's downloads built
as that LMS writes them (tests/lms_archives.py), a GitHub Classroom clone made with git.
`grader` and `testcases` run in this process on a few of the shipped cases and limits
short enough for a test (their `--course` and `--manifest` added where the page gives
none); `python` runs the student kit and the benches as a student or an operator would.
Only the commands of other systems (FOREIGN) are not run; `bash` blocks, scripts for
other machines, belong on the cluster's page alone."""

import contextlib
import io
import re
import shlex
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

from docsgen.pictures import COURSE, inside  # limits short enough for a test
from grader.cli import main as grader_main
from testcases.cli import main as cases_main
from tests.helpers import BUSY_OK, ROOT, accepted, cloned, grades_csv, pushed
from tests.helpers import CLASSROOM_ROSTER as ROSTER
from tests.lms_archives import (
    canvas_entry,
    canvas_gradebook,
    download,
    gradescope_metadata,
    make_zip,
    moodle_entry,
    moodle_worksheet,
)
from tests.mistake_variants import case_subset

pytestmark = pytest.mark.slow

DOCS = ROOT / "docs"
# Programs of other systems: what they do is theirs (a network service, another machine,
# the shell, the project's own Makefile, which CI runs itself).
FOREIGN = {"gh", "curl", "pip", "make", "source"}
SCRIPT_PAGES = {"instructors/cluster.md"}  # `bash` blocks: scripts for other machines
CASES = ("sample", "one-solution", "no-solution", "crlf", "timed-2-letters-a")
POOL = ("no-solution-1", "one-solution-1")
# `testcases verify-examples` and `timelimit` read the examples' verdicts, declared for
# every case: on all of them, a 1 s limit keeping the endless loop short, no probes.
VERIFY_COURSE = (
    "[limits]\ncpu_seconds = 1\nwall_seconds = 4\n[counterexamples]\nruns = 0\n"
    "[timelimit]\nruns = 1\n"
)
CLASS = ("ada-c", "no-blank-line", "guido-py")  # an LMS page's class: three students
FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```", re.M | re.S)


def blocks(page: Path) -> list[tuple[str, list[str]]]:
    """(language, its commands) of each fenced block, in order."""
    found = []
    for language, body in FENCE.findall(page.read_text(encoding="utf-8")):
        lines = body.replace("\\\n", " ").splitlines()
        found.append((language, [line[2:].strip() for line in lines if line.startswith("$ ")]))
    return found


# Pages whose commands another test runs, comparing what they print with the page.
CHECKED_ELSEWHERE = {"instructors/tutorial.md"}  # tests/test_tutorial.py


def guides() -> list[str]:
    found = sorted(str(p.relative_to(DOCS)) for p in DOCS.rglob("*.md"))
    return [page for page in found if page not in CHECKED_ELSEWHERE]


# ------------------------------------------------------------------ workspaces


@pytest.fixture(scope="module")
def shared(tmp_path_factory) -> Path:
    """The example class graded once, the cases and the course every command uses."""
    root = tmp_path_factory.mktemp("docs")
    case_subset(root / "cases", CASES, pool=POOL)
    (root / "course.toml").write_text(COURSE)
    (root / "verify.toml").write_text(VERIFY_COURSE)
    base = root / "base"
    shutil.copytree(ROOT / "submissions", base / "submissions")
    with inside(base):
        assert run_ours(grader_main, ["grader", "grade", "submissions", "--jobs", "2"], root) == 0
    return root


def canvas(work: Path, shared: Path) -> None:
    entries, students = [], []
    for uid, folder in enumerate(CLASS, start=1001):
        source = next(
            p for p in (ROOT / "submissions" / folder).iterdir() if p.stem.lower() == "puzzlesolver"
        )
        name = canvas_entry(f"{folder}, student", uid, 5000 + uid, source.name)
        entries.append((name, source.read_bytes()))
        students.append(
            {"name": f"Student, {folder}", "id": uid, "sis": f"S-{uid}", "login": folder}
        )
    download(work / "submissions.zip", entries)
    canvas_gradebook(work / "gradebook.csv", students, {"Scramble Squares (88)": "6"})
    times = "user_id,submitted_at\n" + "".join(
        f"{1001 + i},2026-03-01T20:00:00Z\n" for i in range(len(CLASS))
    )
    (work / "submissions.json").write_text(times)


def moodle(work: Path, shared: Path) -> None:
    entries, rows = [], []
    for pid, folder in enumerate(CLASS, start=31):
        source = next(
            p for p in (ROOT / "submissions" / folder).iterdir() if p.stem.lower() == "puzzlesolver"
        )
        entries.append((moodle_entry(f"Student {folder}", pid, source.name), source.read_bytes()))
        rows.append({"id": pid, "name": f"Student {folder}", "email": f"{folder}@uni.example"})
    download(work / "submissions.zip", entries)
    moodle_worksheet(work / "worksheet.csv", rows, maximum="6.00")
    scale = ("Not passed", "Passed", "Distinction")
    moodle_worksheet(work / "scale-worksheet.csv", rows, scale=scale)  # the same class, on a scale


def gradescope(work: Path, shared: Path) -> None:
    root = "assignment_7_export/"
    people = {f"submission_{9000 + i}": ([(f"Student {f}", f"S{i}", f"{f}@uni.example")],
                                        "2026-03-01 20:00:00.000000000 +0000")
              for i, f in enumerate(CLASS)}  # fmt: skip
    entries = [(root + "submission_metadata.yml", gradescope_metadata(people), None)]
    for i, folder in enumerate(CLASS):
        for source in (ROOT / "submissions" / folder).glob("[pP]uzzle[sS]olver.*"):
            entries.append(
                (f"{root}submission_{9000 + i}/{source.name}", source.read_bytes(), None)
            )
    make_zip(work / "export.zip", entries)


def github_classroom(work: Path, shared: Path) -> None:
    origins = work / "github"
    logins = ("adalovelace", "GraceHopper")
    for login, folder in zip(logins, ("ada-c", "no-blank-line"), strict=True):
        source = ROOT / "submissions" / folder / "puzzlesolver.c"
        pushed(
            origins / f"hw1-{login}",
            {"puzzlesolver.c": source.read_bytes()},
            "2030-01-01T00:00:00Z",
        )
    cloned(origins, "hw1", work)
    shutil.rmtree(origins)
    (work / "classroom_roster.csv").write_text(ROSTER)
    grades_csv(work / "grades.csv", [
        ("adalovelace", "S-1001", "hw1-adalovelace", "2026-03-01T20:00:00Z"),
        ("GraceHopper", "S-1002", "hw1-GraceHopper", "2026-03-01T21:00:00Z"),
    ])  # fmt: skip
    accepted(work / "accepted.json", "hw1-adalovelace", "2026-03-01T23:59:00Z")
    canvas_gradebook(work / "gradebook.csv", [
        {"name": "Lovelace, Ada", "id": 11, "sis": "S-1001", "login": "ada"},
        {"name": "Hopper, Grace", "id": 12, "sis": "S-1002", "login": "grace"},
    ], {"Scramble Squares (88)": "6"})  # fmt: skip


def student(work: Path, shared: Path) -> None:
    """A student's laptop: the kit's zip, their program, and (as in a GitHub Classroom
    repository) the kit beside a program at the top."""
    with inside(work):
        ok = run_ours(grader_main, ["grader", "export", "student-kit", "scramble-kit.zip"], shared)
    assert ok == 0
    (work / "my-solution").mkdir()
    shutil.copy(ROOT / "submissions" / "ada-c" / "puzzlesolver.c", work / "my-solution")
    shutil.copy(ROOT / "submissions" / "ada-c" / "puzzlesolver.c", work)
    with zipfile.ZipFile(work / "scramble-kit.zip") as kit:
        kit.extractall(work / "unpacked")
    shutil.move(str(work / "unpacked" / "scramble-kit"), work / ".scramble-kit")
    shutil.rmtree(work / "unpacked")


def operator(work: Path, shared: Path) -> None:
    (work / "bench").symlink_to(ROOT / "bench")


# The page's commands on two examples of the class (a correct one, a wrong one): that
# they run as written is this test's; every example's verdicts are test_verify_examples'.
VERIFIED = ("guido-py", "wrong-plural")


def verifying(work: Path, shared: Path) -> None:
    for folder in (work / "submissions").iterdir():
        if folder.name not in VERIFIED:
            shutil.rmtree(folder)


# Each page's folder: the graded example class, plus what the page names.
SETUP: dict[str, Callable[[Path, Path], None]] = {
    "instructors/canvas.md": canvas,
    "instructors/moodle.md": moodle,
    "instructors/gradescope.md": gradescope,
    "instructors/github-classroom.md": github_classroom,
    "students/index.md": student,
    "operators/index.md": operator,
    "staff/verifying.md": verifying,
}
OWN_CLASS = {"instructors/canvas.md", "instructors/moodle.md", "instructors/gradescope.md",
             "instructors/github-classroom.md"}  # fmt: skip


# ------------------------------------------------------------------ running


def run_ours(main, argv: list[str], shared_root: Path) -> int:
    """`grader` or `testcases` in this process, on the shared cases and course where
    the command names none."""
    args = argv[1:]
    given = set(args)
    cases, course = shared_root / "cases" / "manifest.json", shared_root / "course.toml"
    if args[:1] in (["verify-examples"], ["timelimit"]):  # the examples name every case
        cases, course = ROOT / "testcases" / "manifest.json", shared_root / "verify.toml"
    extra = [] if "--manifest" in given else ["--manifest", str(cases)]
    own = ["--course", str(course)] if "--course" not in given else []
    if argv[0] == "grader":
        extra += own
    if args[:1] == ["leaderboard"]:  # the suite keeps the machine busy (tests.helpers)
        args += [BUSY_OK]
    elif args[:1] in (["verify-examples"], ["timelimit"]):  # a --course of their own
        if args == args[:1]:  # their default, the clone's submissions/: the page's copy
            args += ["submissions"]
        args += own
    out, err = io.TextIOWrapper(io.BytesIO(), encoding="utf-8"), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(extra + args)
    if code != 0:
        out.seek(0)
        print(out.read(), err.getvalue(), sep="\n")
    return code


def run_line(line: str, cwd: Path, shared_root: Path) -> Path:
    """One command; the folder the next one runs in."""
    argv = shlex.split(line.split(" > ")[0])
    program = argv[0]
    if program in FOREIGN:
        return cwd
    if program == "cd":
        return (cwd / argv[1]).resolve()
    if program == "unzip":
        with zipfile.ZipFile(cwd / argv[1]) as archive:
            archive.extractall(cwd)
        return cwd
    with inside(cwd):
        if program in ("grader", "testcases"):
            code = run_ours(grader_main if program == "grader" else cases_main, argv, shared_root)
        elif program in ("python", "python3"):
            done = subprocess.run(
                [sys.executable, *argv[1:]], capture_output=True, text=True, timeout=300
            )
            code = done.returncode
            if code:
                print(done.stdout, done.stderr)
        else:
            raise AssertionError(f"{program}: neither ours nor a known other system's")
    assert code == 0, f"`{line}` exited {code} in {cwd}"
    return cwd


@pytest.mark.parametrize("page", guides())
def test_every_command_of_the_guide_runs(page, shared, tmp_path):
    found = blocks(DOCS / page)
    scripts = [language for language, _ in found if language in ("bash", "sh", "shell")]
    assert not scripts or page in SCRIPT_PAGES, (
        f"{page}: a script block; commands go in console blocks"
    )
    commands = [
        (i, line)
        for i, (language, lines) in enumerate(found)
        if language == "console"
        for line in lines
    ]
    if not commands:
        return
    work = tmp_path / "work"
    if page in OWN_CLASS:
        work.mkdir()
    else:
        shutil.copytree(shared / "base", work, symlinks=True)
    SETUP.get(page, lambda *_: None)(work, shared)
    cwd, block = work, None
    for index, line in commands:
        if index != block:  # each block starts from the page's folder
            cwd, block = work, index
        cwd = run_line(line, cwd, shared)


def test_every_subcommand_and_key_is_in_the_reference():
    """The bars of the reference: generated pages that name every subcommand `grader
    --help` lists and every key of course.toml."""
    from docsgen import reference
    from grader.cli import parser

    commands = reference.commands()
    for name in reference.PAGES.values():  # the building machine's clone is no one's path
        assert str(ROOT) not in reference.page(name), name
    for name in reference.subcommands(parser()):
        assert f"`grader {name}`" in commands, name
    configuration = reference.configuration()
    for line in (ROOT / "course.toml").read_text().splitlines():
        key = re.match(r"^#? ?([a-z_]+) = ", line)
        if key:
            assert f"| `{key.group(1)}` |" in configuration, key.group(1)
