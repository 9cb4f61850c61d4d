"""Shared test helpers: small case sets and submission folders made on the fly, and
whatever more than one test module needs (test modules import from here, never from
one another: importing a test module into another runs its module-level code)."""

import contextlib
import csv
import functools
import io
import json
import math
import os
import random
import shutil
import sqlite3
import struct
import subprocess
import zipfile
import zlib
from html.parser import HTMLParser
from pathlib import Path
from types import SimpleNamespace

import pytest

from docsgen.browser import HEADLESS_FLAGS, chromium  # noqa: F401 (the page tests')
from grader.cases.manifest import Case, load_cases
from grader.cases.puzzle import turn
from grader.cli import main as grader_main
from grader.core.model import Verdict
from grader.core.rules import rules_version
from grader.course.submission_meta import SubmissionMeta, write_meta
from grader.judge.compare import Comparison, compare
from grader.judge.score import CaseOutcome, SubmissionReport
from grader.schemas import problem, schema, subset
from grader.store import Store, SubmissionRow
from reference import puzzlesolver
from reference import puzzlesolver as ps
from testcases.manifest import copy_subset

ROOT = Path(__file__).resolve().parent.parent


def named_in_code(names: set[str], own: str) -> dict[str, set[str]]:
    """Each module of grader/ outside the folder grader/`own`/ (at any depth) whose code
    (a string constant, never a comment or a docstring's words) names one of `names`,
    and which."""
    import ast

    named: dict[str, set[str]] = {}
    for path in sorted((ROOT / "grader").rglob("*.py")):
        if path.relative_to(ROOT / "grader").parts[0] == own:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and node.value in names:
                named.setdefault(str(path.relative_to(ROOT)), set()).add(node.value)
    return named


# `grader leaderboard` refuses to time on a busy machine: the suite's other worker keeps
# this one busy, and these tests check what is ranked, not how fast.
BUSY_OK = "--busy-ok"
PUBLIC = ROOT / "testcases" / "public"
# The integer-format puzzles the corpus was imported from.
SOURCES = ROOT / "testcases" / "sources"
# The hand-out's example and the lightbulbs puzzle, as shipped public cases
# (tests/test_testcases.py and tests/test_reference.py check them against the
# hand-out's own files).
SAMPLE = PUBLIC / "sample.txt"
LIGHTBULBS = PUBLIC / "lightbulbs.txt"
SAMPLE_TEXT = SAMPLE.read_text()
SAMPLE_EXPECTED = (PUBLIC / "sample.out").read_bytes()
LIGHTBULBS_TEXT = LIGHTBULBS.read_text()
LIGHTBULBS_EXPECTED = (PUBLIC / "lightbulbs.out").read_bytes()
NO_SOLUTION = "A0,A0,A0,A0\n" * 9

# A headless Chromium for the page tests (Debian package chromium), and the flags
# that keep it from reaching out or sandboxing itself inside ours.
CHROMIUM = chromium()


def expected_output(puzzle_text: str) -> bytes:
    out = io.BytesIO()
    puzzlesolver.write_output(puzzlesolver.parse(puzzle_text), out)
    return out.getvalue()


def make_cases(root: Path, puzzles: dict, hidden=()) -> Path:
    """A manifest at root/manifest.json for {case id: puzzle text}; returns its path."""
    entries = []
    for cid, text in puzzles.items():
        visibility = "hidden" if cid in hidden else "public"
        folder = root / visibility
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{cid}.txt").write_text(text)
        (folder / f"{cid}.out").write_bytes(expected_output(text))
        entries.append(
            {
                "id": cid,
                "input": f"{visibility}/{cid}.txt",
                "expected": f"{visibility}/{cid}.out",
                "visibility": visibility,
                "weight": 1,
                "timed": False,
                "policy": [],
                "tags": [],
            }
        )
    manifest = root / "manifest.json"
    manifest.write_text(json.dumps({"version": 1, "cases": entries}, indent=2))
    return manifest


def small_cases(root: Path) -> Path:
    return make_cases(
        root,
        {
            "sample": SAMPLE.read_text(),
            "lightbulbs": LIGHTBULBS.read_text(),
            "none": NO_SOLUTION,
        },
        hidden=("none",),
    )


def submission(root: Path, sid: str, fname: str, source: str) -> Path:
    folder = root / sid
    folder.mkdir(parents=True, exist_ok=True)
    (folder / fname).write_text(source)
    return folder


def reference_submission(root: Path, sid: str = "ref-py") -> Path:
    """The reference solver is itself a valid submission."""
    folder = root / sid
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(ROOT / "reference" / "puzzlesolver.py", folder / "puzzlesolver.py")
    return folder


def processes():
    """(pid, state letter, argv bytes NUL-separated) of every process in /proc
    but this one; processes that vanish while being read are skipped."""
    import os

    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == os.getpid():
            continue
        try:
            cmdline = Path(f"/proc/{name}/cmdline").read_bytes()
            stat = Path(f"/proc/{name}/stat").read_bytes()
        except OSError:
            continue
        yield name, stat.rsplit(b")", 1)[1].split()[0].decode(), cmdline


# The results database as graders before runs.policy_only wrote it (store schema 1):
# the tables that schema changed, and the submissions a report starts from.
SCHEMA_1 = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO meta VALUES ('schema', '1');
CREATE TABLE submissions (
    id TEXT PRIMARY KEY,
    language TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    folder TEXT NOT NULL,
    problem TEXT,
    updated_at REAL NOT NULL
);
CREATE TABLE runs (
    submission_id TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    case_id TEXT NOT NULL,
    case_version TEXT NOT NULL,
    verdict TEXT NOT NULL,
    exit_code INTEGER,
    signal INTEGER,
    cpu_seconds REAL,
    wall_seconds REAL,
    peak_memory_kb INTEGER,
    output_size INTEGER,
    diagnosis TEXT NOT NULL,
    stderr TEXT NOT NULL,
    output BLOB,
    sandbox TEXT NOT NULL,
    created_at REAL NOT NULL,
    PRIMARY KEY (submission_id, content_hash, case_id, case_version)
);
CREATE TABLE builds (
    content_hash TEXT PRIMARY KEY,
    ok INTEGER NOT NULL,
    log TEXT NOT NULL,
    cpu_seconds REAL NOT NULL,
    wall_seconds REAL NOT NULL,
    created_at REAL NOT NULL
);
CREATE TABLE submission_files (
    id TEXT PRIMARY KEY,
    used TEXT NOT NULL,
    ignored TEXT NOT NULL
);
"""


def schema_1_database(path: Path, sid: str = "amy", content_hash: str = "h1"):
    """A schema-1 results database with one submission; returns its connection."""
    db = sqlite3.connect(path, isolation_level=None)
    db.executescript(SCHEMA_1)
    db.execute(
        "INSERT INTO submissions VALUES (?, 'python', ?, ?, NULL, 0)", (sid, content_hash, sid)
    )
    return db


def schema_1_run(db, case, verdict: str, diagnosis: str, output: bytes = b"", **row) -> None:
    """A run as schema 1 stored it: the output as kept (zlib), `output_size` what was
    printed in all (more than kept when the store cut it short)."""
    values = {
        "submission_id": "amy",
        "content_hash": "h1",
        "case_id": case.id,
        "case_version": case.version,
        "verdict": verdict,
        "exit_code": 0,
        "signal": None,
        "cpu_seconds": 0.1,
        "wall_seconds": 0.1,
        "peak_memory_kb": 1024,
        "output_size": len(output),
        "diagnosis": diagnosis,
        "stderr": "",
        "output": zlib.compress(output) if output else None,
        "sandbox": "bubblewrap",
        "created_at": 0.0,
        **row,
    }
    db.execute(
        f"INSERT INTO runs ({', '.join(values)}) VALUES ({', '.join('?' * len(values))})",
        tuple(values.values()),
    )


def gradescope_isolation():
    """An Isolation as the Gradescope autograder records it (for results.json tests)."""
    from grader.lms.gradescope.autograder import Isolation

    return Isolation("bubblewrap", "the container lets it make namespaces", "", "cgroup")


def draw_of(manifest: Path, out: Path, seed: int = 1, ids=None) -> Path:
    """A draw file as `testcases draw` writes it (grader/schemas/draw.schema.json), whose
    puzzles are the manifest's timed cases themselves (or the cases `ids`), each standing
    for its own family: for tests that time real programs without drawing (a real draw
    of the shipped families takes seconds; tests/test_draws.py draws for real). Their
    expected outputs are the reference's (`testcases verify` checks them)."""
    data = json.loads(Path(manifest).read_text())
    chosen = [e for e in data["cases"] if (e["id"] in ids if ids else e.get("timed"))]
    puzzles = []
    for entry in chosen:
        expected = (Path(manifest).parent / entry["expected"]).read_bytes().decode("ascii")
        count = expected.split("\n\n", 1)[1].split("\n", 1)[0] if "\n\n" in expected else ""
        puzzles.append(
            {
                "id": f"{entry['id']}-d{seed}",
                "family": entry["id"],
                "input": (Path(manifest).parent / entry["input"]).read_bytes().decode("ascii"),
                "expected": expected,
                "solutions": int(count.split()[0]) if count[:1].isdigit() else 0,
                "policy": entry["policy"],
                "generator": entry.get("generator", {}),
            }
        )
    document = {
        "version": 1,
        "seed": seed,
        "drawn_at": "2026-01-01T00:00:00+00:00",
        "cross_checked": True,
        "puzzles": puzzles,
    }
    out = Path(out)
    out.write_text(json.dumps(document))
    return out


# ------------------------------------------------------------------ puzzles and their outputs
# Puzzles that show one rule each, and a puzzle as the comparison sees it: for
# tests/test_compare.py and the tests judging or explaining its verdicts.

NONE_PUZZLE = SAMPLE_TEXT.replace("Y1,G0,R0,B1", "Y1,G0,R0,B0")
# Tile 9 looks the same turned by 180 degrees; one solution.
SYMMETRIC_PUZZLE = "A0,B1,C0,C0\nC1,A0,A0,C0\nC0,C1,B0,A1\nB1,C1,A0,A1\nA0,B0,A0,A0\nA0,A1,B0,B1\nB1,C0,A0,A1\nC1,C1,B0,B0\nC0,B1,C0,B1\n"
# Two solutions with the same digits 369817425 (no symmetric tile needed).
TIE_PUZZLE = "C0,C0,C0,A1\nB1,C1,B0,C1\nA1,C1,A0,C1\nA1,A1,B0,B0\nC0,A1,B1,B1\nA1,A0,C1,C0\nA0,C0,C1,A0\nA1,A1,C1,B1\nA1,B0,A1,A1\n"


class PuzzleCase:
    """A puzzle, its solutions and its expected output."""

    def __init__(self, text: str):
        self.text = text
        self.puzzle = ps.parse(text)
        self.boards = list(ps.solve(self.puzzle))
        self.expected = self.render(self.boards)

    def render(self, boards, count=None) -> bytes:
        out = ps.render(self.puzzle, boards)
        if count is not None:
            out = out.replace(ps.count_line(len(boards)), count, 1)
        return out.encode()

    def check(self, got: bytes, policy=()) -> Comparison:
        result = compare(self.expected, got, self.text, policy)
        assert_sane(result)
        return result


def assert_sane(result: Comparison) -> None:
    """Every diagnosis: one summary line, terminal-safe text, the first difference."""
    assert "\n" not in result.summary
    text = result.text()
    assert all(ch == "\n" or ch.isprintable() for ch in text), text
    if result.verdict is Verdict.AC:
        assert result.summary == "" and text == ""
    else:
        assert result.summary and "first difference at line" in text


def each_placement_output(puzzle: ps.Puzzle) -> bytes:
    """Every board once per placement of its tiles that draws it, counted so."""
    boards = [
        board
        for board in ps.solve(puzzle)
        for _ in range(math.prod(sum(turn(p.edges, k) == p.edges for k in range(4)) for p in board))
    ]
    return ps.render(puzzle, boards).encode()


def ties_reversed_output(puzzle: ps.Puzzle) -> bytes:
    """Boards with the same 9-digit string in the reverse of the tie rule's order."""
    boards: list = []
    for board in ps.solve(puzzle):
        run_start = len(boards)
        while run_start and [p.tile for p in boards[run_start - 1]] == [p.tile for p in board]:
            run_start -= 1
        boards.insert(run_start, board)
    return ps.render(puzzle, boards).encode()


# ------------------------------------------------------------------ cases and reports, nothing run
# Cases whose files are never read, and what the store or a report holds of them:
# for the store's, the score's, the bonus's and the LMS exports' tests, which need
# no program run.


def store_case(cid="c1", version="v1"):
    return Case(cid, Path("in"), Path("out"), "public", 1.0, False, (), (), version)


def score_case(cid: str, weight: float = 1.0, version: str = "v1") -> Case:
    return Case(
        id=cid,
        input=Path(f"{cid}.txt"),
        expected=Path(f"{cid}.out"),
        visibility="public",
        weight=weight,
        timed=False,
        policy=(),
        tags=(),
        version=version,
    )


def bonus_case(cid: str, timed: bool, version: str = "v1") -> Case:
    return Case(cid, Path("in"), Path("out"), "public", 1.0, timed, (), (), version)


BONUS_CASES = [bonus_case("t", True), bonus_case("h", False)]


def hand_in(store: Store, sid: str, content: str = "", verdicts=("AC", "AC"), cases=BONUS_CASES):
    sub = SimpleNamespace(
        id=sid, language_name="c", content_hash=content or f"h-{sid}", folder=sid, problem=None
    )
    store.record_submission(sub)
    for c, verdict in zip(cases, verdicts):
        store.record_run(sub, c, Verdict(verdict), "", rules=rules_version())


UPLOAD_CASES = [score_case("t1", 1), score_case("t2", 1)]


def upload_report(tmp_path: Path, sid: str, verdicts, meta: SubmissionMeta | None = None):
    folder = tmp_path / "class" / sid
    folder.mkdir(parents=True, exist_ok=True)
    if meta is not None:
        write_meta(folder, meta)
    outcomes = [
        CaseOutcome(
            c,
            None
            if v is None
            else SimpleNamespace(verdict=v, policy_only=False, rules=rules_version()),
        )
        for c, v in zip(UPLOAD_CASES, verdicts)
    ]
    return SubmissionReport(SubmissionRow(sid, "c", "h-" + sid, str(folder), None), None, outcomes)


def reports_of(into: Path) -> list:
    """What lateness_of reads of a graded submission: its id and folder."""
    return [
        SimpleNamespace(submission=SimpleNamespace(id=p.name, folder=str(p)))
        for p in sorted(into.iterdir())
        if p.is_dir()
    ]


# ------------------------------------------------------------------ the CLI in this process
# The grader's CLI run here (what it prints, captured) and the programs the LMS
# round trips hand in: for the tests of import, export and regrade commands.

REFERENCE_PY = (ROOT / "reference" / "puzzlesolver.py").read_text()
# Right on the no-solution case only.
NO_SOLUTION_PY = f"import sys\nsys.stdout.write({expected_output(NO_SOLUTION).decode()!r})\n"
WRONG_PY = "print('hello')\n"


def grader_cli(*argv) -> SimpleNamespace:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = grader_main([str(a) for a in argv])
    return SimpleNamespace(code=code, out=out.getvalue(), err=err.getvalue())


def read_csv_rows(path: Path):
    return list(csv.reader(io.StringIO(path.read_text(encoding="utf-8"), newline="")))


# ------------------------------------------------------------------ GitHub Classroom
# Repositories, clones and lists as git and gh-classroom make them: for the import's
# tests, the documentation's commands and the tutorial's course.

CLASSROOM_ROSTER = (  # the Students tab's Download: every field quoted
    '"identifier","github_username","github_id","name"\n'
    '"S-1001","adalovelace","5001","Ada Lovelace"\n'
    '"S-1002","GraceHopper","5002","Grace Hopper"\n'
    '"S-1003","alanturing","5003","Alan Turing"\n'
    '"S-1004","kjohnson","5004","Katherine Johnson"\n'
    '"S-1005","","",""\n'  # on the roster, never accepted
)
GRADES_HEADER = (
    "assignment_name,assignment_url,starter_code_url,github_username,roster_identifier,"
    "student_repository_name,student_repository_url,submission_timestamp,points_awarded,"
    "points_available"
)


def git(*args: str, cwd: Path, date: str = "2030-01-01T12:00:00+00:00") -> None:
    env = {**os.environ, "GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date,
           "GIT_AUTHOR_NAME": "s", "GIT_AUTHOR_EMAIL": "s@example.com",
           "GIT_COMMITTER_NAME": "s", "GIT_COMMITTER_EMAIL": "s@example.com",
           "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}  # fmt: skip
    subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True)


def pushed(origin: Path, files: dict[str, bytes], date: str) -> Path:
    """A student's repository on GitHub: the template's files, their commit (dated by
    their own clock) on top."""
    origin.mkdir(parents=True)
    git("init", "-q", "-b", "main", cwd=origin)
    for name, data in files.items():
        (origin / name).parent.mkdir(parents=True, exist_ok=True)
        (origin / name).write_bytes(data)
    git("add", "-A", cwd=origin)
    git("commit", "-q", "-m", "solution", cwd=origin, date=date)
    return origin


def cloned(origins: Path, slug: str, into: Path) -> Path:
    """`gh classroom clone student-repos`: `gh repo clone` of each into
    `<dir>/<slug>-submissions/<repository name>`."""
    folder = into / f"{slug}-submissions"
    folder.mkdir(parents=True)
    for origin in sorted(origins.iterdir()):
        git("clone", "-q", str(origin), str(folder / origin.name), cwd=into)
    return folder


def grades_csv(path: Path, rows: list[tuple[str, str, str, str]], group: bool = False) -> Path:
    """grades.csv as gh-classroom writes it: (username, identifier, repository, time)
    [+ group]."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(GRADES_HEADER.split(",") + (["group_name"] if group else []))
    for login, identifier, repo, when, *rest in rows:
        url = f"https://github.com/course-org/{repo}"
        writer.writerow(["hw1", "https://classroom.github.com/a/x", "", login, identifier,
                         repo, url, when, "3", "3", *rest])  # fmt: skip
    path.write_text(buffer.getvalue())
    return path


def committed(origin: Path, steps: list[tuple[dict[str, bytes], str]]) -> list[str]:
    """A repository whose default branch has one commit per step (files written, then
    committed at that date): their shas, oldest first."""
    origin.mkdir(parents=True)
    git("init", "-q", "-b", "main", cwd=origin)
    shas = []
    for files, date in steps:
        for name, data in files.items():
            (origin / name).write_bytes(data)
        git("add", "-A", cwd=origin)
        git("commit", "-q", "-m", f"at {date}", cwd=origin, date=date)
        done = subprocess.run(["git", "rev-parse", "HEAD"], cwd=origin, capture_output=True,
                              text=True, check=True)  # fmt: skip
        shas.append(done.stdout.strip())
    return shas


def accepted(path: Path, repo: str, deadline: str | None) -> Path:
    """`gh api assignments/ID/accepted_assignments`: Classroom's deadline in `assignment`."""
    element = {"id": 1, "students": [{"id": 5001, "login": "adalovelace"}],
               "repository": {"id": 9, "name": repo, "full_name": f"org/{repo}"},
               "assignment": {"id": 3, "slug": "hw1", "deadline": deadline}}  # fmt: skip
    path.write_text(json.dumps([element]))
    return path


# ------------------------------------------------------------------ a small class graded for real
# The exports' class (real compilers, sandbox and store), the Gradescope layout and
# the student kit's check: for the exports', the pages' and the container's tests.

SUBMISSIONS = ROOT / "submissions"
REAL_MANIFEST = ROOT / "testcases" / "manifest.json"
ONE_SOLUTION = (ROOT / "testcases" / "public" / "one-solution.txt").read_text()
WEIRD_ID = 'o\'brien, "x" <b>'  # a folder name that needs CSV quoting and HTML escaping
HIDDEN_IDS = ("hidden-bulbs", "hidden-empty")

# A program whose output is hostile to any page that shows it.
HOSTILE_PY = r"""
import sys
out = sys.stdout.buffer
out.write(b"Input tiles:\n<script>document.title='pwned'</script>\n")
out.write(b"bad bytes \xff\xfe, a NUL \x00, an escape \x1b[31m, a CR\r\n")
out.write("\u202e</pre></td></table><img src=x onerror=\"document.title='img'\">\n".encode())
sys.stderr.write("<script>document.title='stderr'</script> \x00\n")
"""


def class_cases(root: Path) -> Path:
    """Two public cases and two hidden ones; one hidden case is timed and weighs 2."""
    manifest = make_cases(
        root,
        {
            "sample": SAMPLE.read_text(),
            "one-solution": ONE_SOLUTION,
            "hidden-bulbs": LIGHTBULBS.read_text(),
            "hidden-empty": NO_SOLUTION,
        },
        hidden=HIDDEN_IDS,
    )
    document = json.loads(manifest.read_text())
    for entry in document["cases"]:
        if entry["id"] == "hidden-bulbs":
            entry.update(timed=True, weight=2, tags=["letters"])
    manifest.write_text(json.dumps(document, indent=2))
    return manifest


def grade_class(root: Path) -> SimpleNamespace:
    """A small class, graded with the real CLI: correct C and Python (the latter in a
    folder with a hostile name), a compile error, a wrong answer, white-space errors,
    and a program printing hostile bytes."""
    manifest = class_cases(root / "cases")
    folder = root / "class"
    folder.mkdir()
    for name in ("ada-c", "compile-error", "wrong-plural", "trailing-spaces"):
        shutil.copytree(SUBMISSIONS / name, folder / name)
    shutil.copytree(SUBMISSIONS / "guido-py", folder / WEIRD_ID)
    (folder / "hostile").mkdir()
    (folder / "hostile" / "puzzlesolver.py").write_text(HOSTILE_PY)
    results = root / "results"
    code = grader_main(
        [
            "--manifest",
            str(manifest),
            "grade",
            str(folder),
            "--results",
            str(results),
            "--jobs",
            "2",
        ]
    )
    assert code == 0
    return SimpleNamespace(root=root, manifest=manifest, folder=folder, results=results)


def export(*argv) -> int:
    return grader_main([str(arg) for arg in argv])


def unzip(archive: Path, into: Path) -> None:
    """Unpack as a user would (Info-ZIP keeps the executable bits), else with Python
    and the modes the zip records."""
    into.mkdir(parents=True, exist_ok=True)
    if shutil.which("unzip"):
        subprocess.run(["unzip", "-q", str(archive), "-d", str(into)], check=True)
        return
    with zipfile.ZipFile(archive) as zf:
        for info in zf.infolist():
            zf.extract(info, into)
            mode = info.external_attr >> 16
            if mode:
                os.chmod(into / info.filename, mode & 0o777)


def gradescope_layout(autograder_zip: Path, root: Path) -> Path:
    """/autograder as Gradescope sets it up: source/ (the zip), run_autograder beside it."""
    unzip(autograder_zip, root / "source")
    shutil.copy2(root / "source" / "run_autograder", root / "run_autograder")
    return root


def run_check(kit: Path, target: Path, cwd: Path, python: str, timeout=300, prelude="", path=None):
    """`python check.py TARGET` as a student runs it; `prelude`: Python run first, in the
    same interpreter (to take POSIX-only modules away, say); `path`: another PATH."""
    env = dict(os.environ, **({"PATH": path} if path is not None else {}))
    for key in ("PYTHONPATH", "VIRTUAL_ENV"):
        env.pop(key, None)
    command = [python, str(kit / "check.py"), str(target)]
    if prelude:
        command = [
            python,
            "-c",
            f"{prelude}\nimport runpy, sys\nsys.argv = sys.argv[1:]\n"
            "runpy.run_path(sys.argv[0], run_name='__main__')",
            str(kit / "check.py"),
            str(target),
        ]
    return subprocess.run(
        command, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout
    )


# The shipped cases' hidden inputs, for the tests that look for one where a student
# could read it (tests/test_information_flow.py, the Gradescope container's).
def hidden_inputs(joined: str = "\n", lines: int = 2) -> dict:
    """Each hidden case's first `lines` lines, `joined`: what a leak would show."""
    return {
        case.id: joined.join(
            case.input.read_bytes().decode().replace("\r", "").splitlines()[:lines]
        )
        for case in load_cases(REAL_MANIFEST)
        if not case.public
    }


# ------------------------------------------------------------------ programs of several files
# A class whose programs span several files, for the class-folder tests and the cluster's.

CPP_HEADER = "#pragma once\ninline int ExitStatus() { return 0; }\n"
CPP_HELPER = "int HelperStatus() { return 0; }\n"


def multi_file_class(klass):
    """A C++ program with its own header (and one with a second .cpp file), a
    Python program split into modules, a Java program in two classes."""
    grace = (ROOT / "submissions/grace-cpp/puzzlesolver.cpp").read_text()
    header = klass / "cpp-header"
    header.mkdir(parents=True)
    (header / "puzzlesolver.cpp").write_text(
        '#include "puzzlesolver.h"\n' + grace.replace("return 0;\n}", "return ExitStatus();\n}")
    )
    (header / "puzzlesolver.h").write_text(CPP_HEADER)
    (header / "notes.txt").write_text("my notes")
    (header / "a.out").write_bytes(b"\x7fELF\x00")
    (header / "old").mkdir()
    py = klass / "py-modules"
    py.mkdir()
    (py / "puzzlesolver.py").write_text(
        "import sys\nfrom solver_main import main\nsys.exit(main())\n"
    )
    reference = (ROOT / "reference/puzzlesolver.py").read_text()
    (py / "solver_main.py").write_text(reference.replace('if __name__ == "__main__":', "if False:"))
    java = klass / "java-classes"
    java.mkdir()
    (java / "PuzzleSolver.java").write_text(
        "public class PuzzleSolver {\n  public static void main(String[] args) throws Exception"
        " {\n    Solver.main(args);\n  }\n}\n"
    )
    james = (ROOT / "submissions/james-java/PuzzleSolver.java").read_text()
    (java / "Solver.java").write_text(
        james.replace("public final class PuzzleSolver", "final class Solver")
        .replace("PuzzleSolver(", "Solver(")
        .replace("PuzzleSolver solver", "Solver solver")
    )
    return klass


# ------------------------------------------------------------------ leaderboards
# Leaderboard documents made by hand (the schema's, the pages' and the terminal's
# tests) and the shipped cases cut down (for the sessions timed for real).


def tiny_document(reason="WA on 1 case"):
    figures = {
        "cpu_median_s": 0.01,
        "cpu_min_s": 0.009,
        "cpu_max_s": 0.012,
        "cpu_mad_s": 0.001,
        "cpu_runs_s": [0.01, 0.009, 0.012],
        "cpu_outliers": [],
    }
    case = {"id": "t1", **figures, "wall_median_s": 0.02}
    return {
        "generated_at": "2024-01-01T00:00:00+00:00",
        "grader_version": "0",
        "anonymized": False,
        "measured": {"first_run": None, "last_run": None},
        "settings": {
            "runs": 3,
            "warmup": 1,
            "cases": [{"id": "t1", "version": "v"}],
            "noise_floor": 0.03,
            "alpha": 0.05,
            "statistic": "",
            "test": "",
            "rank_rule": "",
            "smallest_p_value": 0.1,
            "exhaustive": False,
        },
        "machine": {
            "platform": "x",
            "cpu_model": "y",
            "cpu_count": 2,
            "pinned_core": None,
            "timing_cores": [0, 1],
            "timing_workers": [],
            "core_reference_s": [
                {"core": 0, "reference_s": 0.0101, "used": True},
                {"core": 1, "reference_s": 0.0102, "used": True},
            ],
            "load_average": [1.0],
            "python": "3",
            "sandbox": "bubblewrap",
            "cpu_accounting": "cgroup",
        },
        "startup": [
            {
                "language": "c",
                "available": True,
                "timed_runs": 7,
                "stopped_early": False,
                **figures,
                "wall_median_s": 0.02,
                "cases": [case],
            }
        ],
        "ranked": [
            {
                "id": "amy",
                "language": "c",
                "rank": 1,
                "winner": True,
                "timed_runs": 7,
                "stopped_early": False,
                **figures,
                "wall_median_s": 0.02,
                "wall_min_s": 0.02,
                "wall_max_s": 0.02,
                "wall_mad_s": 0.0,
                "wall_runs_s": [0.02] * 3,
                "startup_cpu_median_s": 0.01,
                "beyond_startup_cpu_s": 0.0,
                "faster_than": [],
                "cases": [case],
            }
        ],
        "not_eligible": [{"id": "bob", "language": "python", "reason": reason}],
    }


def manifest_subset(folder: Path, ids) -> Path:
    return copy_subset(ROOT / "testcases" / "manifest.json", folder / "manifest.json", ids)


# A program's id that every page must show as text.
HOSTILE_ID = "<script>alert(1)</script>&amp;"


def _figures(runs):
    ordered = sorted(runs)
    median = ordered[len(runs) // 2]
    mad = sorted(abs(r - median) for r in runs)[len(runs) // 2]
    outliers = [i for i, r in enumerate(runs) if abs(r - median) > 3 * 1.4826 * mad + 1e-4]
    return {
        "cpu_median_s": median,
        "cpu_min_s": ordered[0],
        "cpu_max_s": ordered[-1],
        "cpu_mad_s": mad,
        "cpu_runs_s": runs,
        "cpu_outliers": outliers,
    }


def leaderboard_document(runs=7) -> dict:
    """A realistic leaderboard: four languages, a tie, an outlier, a hostile name."""
    rng = random.Random(5)
    cases = ["timed-a", "timed-b"]

    def series(centre, spread=0.015, wild=None):
        values = [round(centre * (1 + rng.gauss(0, spread)), 4) for _ in range(runs)]
        if wild is not None:
            values[wild] = round(centre * 1.6, 4)
        return values

    def program(pid, language, rank, centre, startup, wild=None):
        totals = series(centre, wild=wild)
        per_case = [
            {"id": cid, **_figures([round(t / 2, 5) for t in totals]), "wall_median_s": centre}
            for cid in cases
        ]
        return {
            "id": pid,
            "language": language,
            "rank": rank,
            "winner": rank == 1,
            "timed_runs": 7,
            "stopped_early": False,
            **_figures(totals),
            "wall_median_s": centre * 2,
            "wall_min_s": centre * 1.8,
            "wall_max_s": centre * 2.5,
            "wall_mad_s": centre * 0.1,
            "wall_runs_s": [centre * 2] * runs,
            "startup_cpu_median_s": startup,
            "beyond_startup_cpu_s": _figures(totals)["cpu_median_s"] - startup,
            "faster_than": [],
            "cases": per_case,
        }

    starts = {"c": 0.0078, "cpp": 0.0079, "java": 0.2264, "python": 0.0522}
    ranked = [
        program("ada-c", "c", 1, 0.0148, starts["c"]),
        program(HOSTILE_ID, "c", 1, 0.0150, starts["c"], wild=3),
        program("grace-cpp", "cpp", 3, 0.0247, starts["cpp"]),
        program("guido-py", "python", 4, 0.2384, starts["python"]),
        program("james-java", "java", 5, 0.8359, starts["java"], wild=0),
    ]
    startup = []
    for language, centre in starts.items():
        figures = _figures(series(centre))
        startup.append(
            {
                "language": language,
                "available": True,
                "timed_runs": runs,
                "stopped_early": False,
                **figures,
                "wall_median_s": centre * 3,
                "cases": [{"id": cid, **figures, "wall_median_s": centre} for cid in cases],
            }
        )
    doc = {
        "generated_at": "2024-05-01T12:00:00+00:00",
        "grader_version": "0.1.0",
        "anonymized": False,
        "measured": {
            "first_run": "2024-05-01T11:58:00+00:00",
            "last_run": "2024-05-01T11:59:30+00:00",
        },
        "settings": {
            "runs": runs,
            "warmup": 1,
            "cases": [{"id": cid, "version": "abc"} for cid in cases],
            "noise_floor": 0.03,
            "alpha": 0.05,
            "statistic": "sum",
            "test": "MWU",
            "rank_rule": "1 + faster",
            "smallest_p_value": 2 / 3432,
            "exhaustive": False,
        },
        "machine": {
            "platform": "Linux",
            "cpu_model": "Test CPU",
            "cpu_count": 2,
            "pinned_core": None,
            "timing_cores": [0, 1],
            "timing_workers": [],
            "core_reference_s": [
                {"core": 0, "reference_s": 0.0101, "used": True},
                {"core": 1, "reference_s": 0.0102, "used": True},
            ],
            "load_average": [1.5, 1.2, 1.0],
            "python": "3.11",
            "sandbox": "bubblewrap",
            "cpu_accounting": "cgroup",
        },
        "startup": startup,
        "ranked": ranked,
        "not_eligible": [
            {"id": "crash", "language": "c", "reason": "RTE on 7 cases"},
            {"id": "compile-error", "language": "cpp", "reason": "build failed"},
        ],
    }
    assert_valid(doc, "leaderboard")
    return doc


# ------------------------------------------------------------------ pages in a browser
# Pages parsed, and loaded in headless Chromium with a fixed window: for the feedback
# pages' and the similarity report's tests.

needs_chromium = pytest.mark.skipif(
    CHROMIUM is None, reason="chromium is not installed (Debian: apt-get install chromium)"
)
WINDOW = (1200, 1500)


def assert_valid(document, schema_of) -> None:
    """`document` fits a schema (a grader schema's name, or a schema) by the grader's
    checker (grader.schemas.subset), and the checker judges it and some near misses of it
    as jsonschema does, in the same words: every real document the suite checks tests the
    checker too."""
    against = schema(schema_of) if isinstance(schema_of, str) else schema_of
    assert problem(document, against) is None, problem(document, against)
    text = json.dumps(against, sort_keys=True)
    assert _judged_alike(json.dumps(document, sort_keys=True), text) == []


@functools.cache
def _judged_alike(document: str, against: str) -> list:
    """The variants (the document, then its near misses) the two checkers judge apart,
    with both judgements; once per document and schema in a process."""
    rules = json.loads(against)
    variants = [json.loads(document), *near_misses(json.loads(document))]
    judged = [judgements(variant, rules) for variant in variants]
    return [(ours, theirs) for ours, theirs in judged if ours != theirs]


def judgements(document, rules) -> tuple[list, list]:
    """What grader.schemas.subset and jsonschema find wrong with `document`: each
    (path, message), sorted."""
    from jsonschema import Draft202012Validator

    standard = Draft202012Validator(rules)
    ours = sorted(subset.errors(document, rules), key=str)
    theirs = sorted(
        ((list(e.absolute_path), e.message) for e in standard.iter_errors(document)), key=str
    )
    return ours, theirs


def near_misses(document, limit: int = 15):
    """Copies of `document` each with one mistake (a key dropped, a key added, a value
    of another type), at most `limit`, taken evenly over the whole document."""
    places = []

    def walk(node, path):
        if isinstance(node, dict):
            for key, value in node.items():
                places.append((path, key))
                walk(value, (*path, key))
        elif isinstance(node, list):
            for index, value in enumerate(node[:3]):
                places.append((path, index))
                walk(value, (*path, index))

    walk(document, ())
    step = max(1, len(places) // max(1, limit // 3))
    for path, key in places[::step][: max(1, limit // 3)]:
        for mistake in ("drop", "add", "retype"):
            copy = json.loads(json.dumps(document))
            parent = copy
            for part in path:
                parent = parent[part]
            if mistake == "drop" and isinstance(parent, dict):
                del parent[key]
            elif mistake == "add" and isinstance(parent, dict):
                parent["unexpected-key"] = 1
            elif mistake == "retype":
                value = parent[key]
                parent[key] = "7" if not isinstance(value, str) else (7 if value else [])
            else:
                continue
            yield copy


class Page(HTMLParser):
    """Every tag with its attributes, and the text, of one page."""

    def __init__(self, path: Path):
        super().__init__(convert_charrefs=True)
        self.tags, self.text = [], []
        self.raw = path.read_bytes()
        self.feed(self.raw.decode("utf-8"))  # strict: a page is valid UTF-8

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data):
        self.text.append(data)

    @property
    def all_text(self) -> str:
        return "".join(self.text)


def run_chromium(tmp_path: Path, url: str, *extra: str) -> subprocess.CompletedProcess:
    profile = tmp_path / f"profile-{len(list(tmp_path.glob('profile-*')))}"
    profile.mkdir()
    return subprocess.run(
        [
            CHROMIUM,
            *HEADLESS_FLAGS,
            f"--user-data-dir={profile}",
            "--enable-logging=stderr",
            "--v=0",
            "--hide-scrollbars",
            f"--window-size={WINDOW[0]},{WINDOW[1]}",
            *extra,
            url,
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )


def console_messages(done: subprocess.CompletedProcess) -> list:
    return [line for line in done.stderr.splitlines() if ":CONSOLE" in line]


def png_summary(path: Path):
    """Width, height and how many distinct byte values the image data holds (a blank
    page holds a handful)."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, size = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos : pos + 8])
        body = data[pos + 8 : pos + 8 + length]
        if kind == b"IHDR":
            size = struct.unpack(">II", body[:8])
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    return size[0], size[1], len(set(zlib.decompress(idat)))
