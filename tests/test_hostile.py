"""Hostile and broken submissions, grader faults and bad input, through the whole grader.

Nothing gets out, nothing is lost. The attacks are purpose-built submissions under
tests/hostile/<attack>/ (see its README), in the languages where it matters. A module
fixture grades one class holding all of them, plus correct programs and malformed
folders, with the real grader (grading.plan/execute, a real Store, make_sandbox) in a
grader process of its own, and small limits from a temporary course.toml; once with
the sandbox "auto" picks (bubblewrap where it works) and once with the rlimits
fallback forced. Each test then checks one
attack's exact verdict and what must hold afterwards: the process table (every
program that runs on carries a unique marker in its argv; C/C++ programs are also
known by their executable, Java by its working folder), the host's files, the stored
results, the grader's own memory. The fallback grades only what it can hold; the
tests for the rest say why they skip. Faults of the grader itself (a second run at
once, a full disk, a read-only results folder, broken cases, bad configuration) are
driven through the command line.
"""

import contextlib
import json
import os
import re
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from dataclasses import asdict, astuple, dataclass, field
from pathlib import Path

import pytest

from grader.cases.manifest import load_cases
from grader.cli import main as grader_main
from grader.course.config import load_config
from grader.grading.session import execute, plan
from grader.intake.submissions import discover, load
from grader.judge.score import report
from grader.sandbox import make_sandbox
from grader.store import Store, results_folder
from tests.helpers import ROOT, SAMPLE, expected_output, make_cases, processes, submission

pytestmark = pytest.mark.slow  # about a minute in all, most of it two grading runs

HOSTILE = Path(__file__).resolve().parent / "hostile"
SOURCE_NAMES = {
    "c": "puzzlesolver.c",
    "cpp": "puzzlesolver.cpp",
    "java": "PuzzleSolver.java",
    "python": "puzzlesolver.py",
}
NORMAL = {"c": "ada-c", "cpp": "grace-cpp", "java": "james-java", "python": "guido-py"}

CPU, WALL, MEMORY_MB, FILE_MB, STDOUT_KB, STDERR_KB = 1, 4, 256, 1, 1024, 64
BUILD_CPU, BUILD_WALL = 3, 15
COURSE = f"""
sandbox = "{{sandbox}}"
[limits]
cpu_seconds = {CPU}
wall_seconds = {WALL}
memory_mb = {MEMORY_MB}
processes = 48
file_size_mb = {FILE_MB}
open_files = 64
stdout_kb = {STDOUT_KB}
stderr_kb = {STDERR_KB}
[build_limits]
cpu_seconds = {BUILD_CPU}
wall_seconds = {BUILD_WALL}
memory_mb = 1024
processes = 64
file_size_mb = 32
open_files = 256
stdout_kb = 64
stderr_kb = 64
[languages.c]
build = ["gcc", "-O2", "-std=gnu17", "-o", "puzzlesolver", "{{{{sources}}}}"]
[counterexamples]
runs = 0  # attacks, not mistakes: no public puzzle to look for (tests/test_feedback_*)
"""
JOBS = 3
MARGIN = 2.0  # seconds past a wall limit that killing and reaping the tree may take
GRADER_GROWTH_KB = 64 * 1024  # how much the grader's peak memory may grow in a whole run

# attack: (languages under bubblewrap, languages under the fallback). The fallback runs
# only what it can hold; fewer languages elsewhere keep the file fast: Java (a build of
# its own, a JVM start) only where the JVM makes the attack another one (its threads,
# its heap, its own file and network calls, a JVM that outlives its main).
ATTACKS = {
    "endless_busy": ("c java python", "c python"),
    "endless_sleep": ("c python", "c python"),
    "ignore_sigterm": ("c python", "c python"),
    "fork_bomb": ("c cpp java python", ""),
    "memory_bomb": ("c cpp java python", "c java python"),
    "memory_fork": ("c", "c"),
    "output_flood": ("c cpp java python", "c python"),
    "stderr_flood": ("c python", "c"),
    "big_file": ("c python", "c python"),
    "snoop": ("c cpp java python", ""),
    "network": ("c java python", ""),
    "daemon": ("c cpp java python", "c python"),
    "garbage_output": ("c python", "python"),
    "garbage_crash": ("cpp python", "python"),
    "no_output": ("c python", "c"),
    "read_stdin": ("c python", "c python"),
    "template_bomb": ("cpp", "cpp"),
    "dev_random": ("c", "c"),
    "preprocessor_bomb": ("c", "c"),
    "include_secret": ("c", ""),
    "compile_garbage": ("cpp", "cpp"),
    "orphan_cpu": ("c python", "c python"),
    "shared_memory": ("c", "c"),
    "autoreap": ("c python", "c python"),
    "option_name": ("c", "c"),
    "error_text": ("c", "c"),
}

FALLBACK_CANNOT = {
    "fork_bomb": "not run here: not as root, the rlimits fallback sets no process limit "
    "(RLIMIT_NPROC counts every process of the user), so a fork bomb would "
    "take the machine down (as root its sandbox uid has one: test_sandbox)",
    "snoop": "the rlimits fallback does not isolate files: a program reads whatever the "
    "grader's user can read",
    "include_secret": "the rlimits fallback builds with the host's files in view: "
    "#include of an expected output works",
    "network": "the rlimits fallback has no network namespace: connections would work "
    "(and really leave the machine)",
    "outside": "the rlimits fallback does not isolate files: a program can write anywhere "
    "the grader's user can (each file only up to the size limit)",
}

# Raw control characters that must never reach a terminal or a report: C0 but tab and
# newline, DEL, C1, and the bidirectional overrides that reorder what is shown.
RAW_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


# --------------------------------------------------------------------------- helpers


@dataclass
class Call:
    folder: str  # the name of the build folder it ran in
    build: bool
    seconds: float  # sandbox.run as seen from outside: set-up, run, kill, reap


class TimedSandbox:
    """The real sandbox, timed from outside: how long each build and run really took."""

    def __init__(self, inner):
        self.inner = inner
        self.name = inner.name
        self.shares_builds = False  # every build really made and timed here
        self.calls: list[Call] = []
        self.lock = threading.Lock()

    def run(self, argv, workdir, limits, **options):
        start = time.monotonic()
        result = self.inner.run(argv, workdir, limits, **options)
        seconds = time.monotonic() - start
        with self.lock:
            self.calls.append(Call(Path(workdir).name, options.get("writable", False), seconds))
        return result


@dataclass
class Graded:
    """One graded class: what was graded, the stored results, and what the grading
    process saw (its summary)."""

    tmp: Path
    summary: dict
    cases: list = field(default_factory=list)
    subs: dict[str, object] = field(default_factory=dict)  # id: SubmissionRow
    reports: dict[str, object] = field(default_factory=dict)

    def __post_init__(self):
        self.klass, self.results = self.tmp / "class", self.tmp / "results"
        self.course, self.manifest = self.tmp / "course.toml", self.tmp / "cases" / "manifest.json"
        self.cases = load_cases(self.manifest)
        with Store(self.results / "grader.db") as store:
            self.subs = {row.id: row for row in store.submissions()}
            self.reports = {sid: report(store, row, self.cases) for sid, row in self.subs.items()}
        for key, value in self.summary.items():
            setattr(self, key, value)
        self.calls = [Call(*call) for call in self.summary["calls"]]
        self.outside = [Path(p) for p in self.summary["outside"]]

    def ids(self, attack: str) -> list[str]:
        found = sorted(sid for sid in self.subs if sid.startswith(attack + "-"))
        assert found, f"no submission of the {attack} attack was graded"  # no vacuous loop
        return found

    def run(self, sid: str):
        return self.reports[sid].outcomes[0].run

    def verdict(self, sid: str) -> str:
        return self.reports[sid].outcomes[0].verdict

    def call(self, sid: str, build: bool = False) -> Call:
        digest = self.subs[sid].content_hash
        for call in self.calls:
            name = call.folder
            if call.build == build and (
                name.startswith(f".tmp-{digest[:16]}-") if build else name == digest[:32]
            ):
                return call
        raise AssertionError(f"{sid}: no {'build' if build else 'run'} went through the sandbox")

    def output(self, sid: str) -> bytes | None:
        sub, case = self.subs[sid], self.cases[0]
        with Store(self.results / "grader.db") as store:
            return store.output(sid, sub.content_hash, case.id, case.version)

    def build_folder(self, sid: str) -> Path:
        return self.results / "builds" / self.subs[sid].content_hash[:32]

    def left_behind(self, sid: str) -> list[str]:
        build = self.subs[sid].content_hash[:32]
        return [line for line in self.leftovers if self.markers[sid] in line or build in line]


def _status_kb(field_name: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field_name + ":"):
            return int(line.split()[1])
    return 0


def _reset_peak_memory() -> bool:
    """Reset this process's VmHWM to its current size (Linux 4.0+), if allowed."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
        return True
    except OSError:
        return False


def _identities(folder: Path) -> dict[tuple, str]:
    """(device, inode) of every folder and file under folder, to its path."""
    found = {}
    for dirpath, _, files in os.walk(folder):
        for path in [dirpath, *(os.path.join(dirpath, f) for f in files)]:
            try:
                st = os.lstat(path)
            except OSError:
                continue
            found[(st.st_dev, st.st_ino)] = path
    return found


def processes_left(prefix: str, folder: Path | None = None) -> list[str]:
    """Live processes with the prefix in their argv, or running a program under folder
    or from a working folder under it (however they renamed themselves)."""
    idents = _identities(folder) if folder is not None and folder.exists() else {}
    found = []
    for name, state, cmdline in processes():
        why = ["argv"] if prefix.encode() in cmdline else []
        for link in ("exe", "cwd"):
            try:
                st = os.stat(f"/proc/{name}/{link}")
            except OSError:
                continue
            if (st.st_dev, st.st_ino) in idents:
                why.append(f"{link} {idents[(st.st_dev, st.st_ino)]}")
        if why:
            words = cmdline.replace(b"\0", b" ").decode(errors="replace")
            found.append(f"pid {name} state {state} ({', '.join(why)}): {words}")
    return found


def _materialize(klass: Path, sid: str, source: Path, values: dict[str, str]) -> None:
    """The attack's program in that language, with the attack's other files (not the
    programs of other languages) beside it, placeholders filled in."""
    folder = klass / sid
    folder.mkdir(parents=True)
    others = set(SOURCE_NAMES.values()) - {source.name}
    for path in sorted(source.parent.iterdir()):
        if path.name in others:
            continue
        text = path.read_text(encoding="utf-8")
        for key, value in values.items():
            text = text.replace(f"@{key}@", value)
        (folder / path.name).write_text(text, encoding="utf-8")


MALFORMED = {  # folder: the reason it must be given
    "bad-empty": "the folder is empty",
    "bad-two-sources": "more than one source file",
    "bad-wrong-name": "no file is named puzzlesolver.c: solver.c holds main()",
    "bad-wrong-case": "must be named PuzzleSolver.java",
    "bad-link-outside": "is a symbolic link",
    "bad-link-shadow": "is a symbolic link",
    "bad-binary": "not a text file",
    "bad-latin1": "not UTF-8 text",
    "bad-nested": "must be at the top of the folder",
    "bad-fifo": "not a regular file",
    "bad-folder-as-source": "not a regular file",
    "bad-huge": "a source file may be at most",
}


def _malformed(klass: Path) -> None:
    """The folders of MALFORMED."""

    def folder(name):
        path = klass / name
        path.mkdir()
        return path

    folder("bad-empty")
    two = folder("bad-two-sources")
    (two / "puzzlesolver.c").write_text("int main(void) { return 0; }\n")
    (two / "PuzzleSolver.java").write_text("public class PuzzleSolver {}\n")
    (folder("bad-wrong-name") / "solver.c").write_text("int main(void) { return 0; }\n")
    (folder("bad-wrong-case") / "Puzzlesolver.java").write_text("class Puzzlesolver {}\n")
    # A link to the reference solver would score full marks if it were followed.
    os.symlink(
        ROOT / "reference" / "puzzlesolver.py", folder("bad-link-outside") / "puzzlesolver.py"
    )
    os.symlink("/etc/shadow", folder("bad-link-shadow") / "puzzlesolver.c")
    shutil.copyfile("/bin/true", folder("bad-binary") / "puzzlesolver.c")
    (folder("bad-latin1") / "puzzlesolver.py").write_bytes(b"print('caf\xe9')\n")
    nested = folder("bad-nested") / "src"
    nested.mkdir()
    (nested / "puzzlesolver.cpp").write_text("int main() { return 0; }\n")
    os.mkfifo(folder("bad-fifo") / "puzzlesolver.py")  # reading it would block for ever
    (folder("bad-folder-as-source") / "puzzlesolver.py").mkdir()
    line = "int f{0}(void) {{ return {0}; }}\n"
    (folder("bad-huge") / "puzzlesolver.c").write_text(
        "".join(line.format(i) for i in range(120_000)) + "int main(void) { return 0; }\n"
    )


def _grade_class(tmp: Path, sandbox_kind: str) -> Graded:
    """Grade the hostile class in a grader process of its own (so that its memory is
    the grader's alone), then read what it stored."""
    done = subprocess.run(
        [sys.executable, "-m", "tests.test_hostile", str(tmp), sandbox_kind],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return Graded(tmp, json.loads((tmp / "summary.json").read_text()))


@dataclass
class _Setup:
    """What the grading process made before grading."""

    prefix: str
    secrets: dict[str, str]
    markers: dict[str, str] = field(default_factory=dict)
    snooped: list[str] = field(default_factory=list)
    outside: list[str] = field(default_factory=list)  # host paths a program tried to write


def _setup_and_grade(tmp: Path, sandbox_kind: str) -> dict:
    """In the grading process: make the class, grade it, say what was seen."""
    prefix = "hm" + uuid.uuid4().hex[:10]
    setup = _Setup(
        prefix,
        {
            "hidden case": f"hidden-{prefix}-token",
            "other submission": f"other-{prefix}-token",
            "environment": f"env-{prefix}-token",
            "database": "SQLite format 3",
            "reference solver": "Scramble Squares reference solver",
            "expected output": expected_output(SAMPLE.read_text()).decode().splitlines()[-3],
        },
    )
    manifest = make_cases(tmp / "cases", {"sample": SAMPLE.read_text()})
    (tmp / "cases" / "hidden").mkdir()
    (tmp / "cases" / "hidden" / "secret.out").write_text(setup.secrets["hidden case"] + "\n")
    (tmp / "course.toml").write_text(COURSE.format(sandbox=sandbox_kind))
    config = load_config(tmp / "course.toml")
    said: list[str] = []
    sandbox = TimedSandbox(make_sandbox(config.sandbox, warn=said.append))
    # What the fallback cannot hold is never run there (a fork bomb without a process
    # limit, real network traffic), even when "auto" finds no bubblewrap.
    fallback = sandbox.name == "rlimits"
    tcp = socket.socket()
    tcp.bind(("127.0.0.1", 0))
    unix = socket.socket(socket.AF_UNIX)
    unix.bind(f"\0hostile-{prefix}")
    for listener in (tcp, unix):
        listener.listen(8)
        listener.setblocking(False)
    _write_class(tmp, config, setup, fallback, tcp.getsockname()[1])
    if sandbox_kind == "auto":  # once: they never reach a sandbox
        _malformed(tmp / "class")

    os.environ["HOSTILE_SECRET"] = setup.secrets["environment"]  # the grader's own environment
    reset = _reset_peak_memory()
    before = _status_kb("VmRSS" if reset else "VmHWM")
    results = tmp / "results"
    with results_folder(results), Store(results / "grader.db") as store:
        work = plan(discover(tmp / "class", config), load_cases(manifest), store)
        execute(work, store, sandbox, config, results / "builds", jobs=JOBS)
    peak_growth = _status_kb("VmHWM") - before
    leftovers = processes_left(prefix, results / "builds")
    connections = []
    for listener, what in ((tcp, "tcp"), (unix, "abstract unix socket")):
        try:
            listener.accept()
            connections.append(what)
        except BlockingIOError:
            pass
        listener.close()
    return {
        **asdict(setup),
        "kind": sandbox.name,
        "warnings": said,
        "calls": [astuple(call) for call in sandbox.calls],
        "leftovers": leftovers,
        "peak_growth_kb": peak_growth,
        "connections": connections,
    }


def _write_class(tmp: Path, config, setup: _Setup, fallback: bool, port: int) -> None:
    """The hostile submissions (placeholders filled in) and the correct ones."""
    klass, results, cases = tmp / "class", tmp / "results", tmp / "cases"
    outside_dir = tmp / "outside"
    outside_dir.mkdir()
    outside_dir.chmod(0o777)  # writable by anyone: only the sandbox can keep a program out
    for lang, example in NORMAL.items():
        if not fallback or lang in ("c", "python"):
            shutil.copytree(ROOT / "submissions" / example, klass / f"normal-{lang}")
    other = klass / "normal-python" / "puzzlesolver.py"
    other.write_text(other.read_text() + f"# {setup.secrets['other submission']}\n")
    other_build = results / "builds" / load(klass / "normal-c", config).content_hash[:32]
    expected_file = cases / "public" / "sample.out"
    setup.snooped = [
        str(p)
        for p in (
            expected_file,
            cases / "public",
            cases / "hidden" / "secret.out",
            cases / "manifest.json",
            ROOT / "reference" / "puzzlesolver.py",
            ROOT / "testcases" / "hidden",
            other,
            klass,
            results / "grader.db",
            other_build / "puzzlesolver",
            Path.home(),
            Path.home() / ".bashrc",
            "/root",
            "/home",
            "/etc/shadow",
            "/etc/passwd",
            "/etc/hostname",
            "/work",
            ROOT,
            "/proc/1/environ",
        )
    ]
    for attack, (langs, fallback_langs) in ATTACKS.items():
        for lang in (fallback_langs if fallback else langs).split():
            sid = f"{attack}-{lang}"
            marker = setup.markers[sid] = f"{setup.prefix}-{sid}"
            targets = (
                []
                if fallback
                else [
                    str(p)
                    for p in (
                        outside_dir / f"escaped-{sid}",
                        klass / sid / "escaped",
                        results / "grader.db",
                        ROOT / f"escaped-{marker}",
                        f"/tmp/escaped-{marker}",
                        Path.home() / f"escaped-{marker}",
                        f"/dev/escaped-{marker}",
                        f"/etc/escaped-{marker}",
                    )
                ]
            )
            if attack == "big_file":
                setup.outside += [t for t in targets if not t.endswith("grader.db")]
            _materialize(
                klass,
                sid,
                HOSTILE / attack / SOURCE_NAMES[lang],
                {
                    "MARKER": marker,
                    "PORT": str(port),
                    "ABSTRACT": f"hostile-{setup.prefix}",
                    "PATHS": "|".join(setup.snooped),
                    "OUTSIDE": "|".join(targets),
                    "EXPECTED": str(expected_file),
                },
            )


@pytest.fixture(scope="module")
def graded_auto(tmp_path_factory) -> Graded:
    if shutil.which("gcc") is None or shutil.which("g++") is None or shutil.which("javac") is None:
        pytest.skip("needs gcc, g++ and a JDK")
    graded = _grade_class(tmp_path_factory.mktemp("hostile-auto"), "auto")
    # "auto" must have picked bubblewrap: a broken one fails here, never a silent fallback
    assert graded.kind == "bubblewrap", f"auto graded with {graded.kind}"
    return graded


@pytest.fixture(scope="module")
def graded_fallback(tmp_path_factory) -> Graded:
    if shutil.which("gcc") is None or shutil.which("g++") is None or shutil.which("javac") is None:
        pytest.skip("needs gcc, g++ and a JDK")
    return _grade_class(tmp_path_factory.mktemp("hostile-rlimits"), "rlimits")


@pytest.fixture(params=["auto", "rlimits"])
def graded(request) -> Graded:
    """Both sandboxes, for what both must hold."""
    return request.getfixturevalue("graded_auto" if request.param == "auto" else "graded_fallback")


def _skip_on_fallback(graded: Graded, attack: str) -> None:
    if graded.kind == "rlimits":
        pytest.skip(FALLBACK_CANNOT[attack])


def _cli(capsys, *args) -> tuple:
    """The grader's command line, in this process; (exit status, stdout, stderr)."""
    code = grader_main([str(a) for a in args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


# --------------------------------------------------------------------------- attacks


def test_normal_submissions_in_the_same_run_are_graded_normally(graded):
    normal = graded.ids("normal")
    assert len(normal) >= 2
    for sid in normal:
        assert graded.verdict(sid) == "AC", (sid, graded.run(sid))
        assert graded.reports[sid].build_status == "ok"


@pytest.mark.parametrize("attack", ["endless_busy", "endless_sleep"])
def test_endless_loops_are_tle_within_the_wall_limit(graded, attack):
    for sid in graded.ids(attack):
        run = graded.run(sid)
        assert run.verdict == "TLE", (sid, run)
        assert "ran out of time" in run.diagnosis
        assert graded.call(sid).seconds <= WALL + MARGIN, sid
        if attack == "endless_sleep":
            assert run.wall_seconds >= WALL and run.cpu_seconds < 1, (sid, run)
        assert graded.left_behind(sid) == []


def test_ignoring_sigterm_does_not_help(graded):
    for sid in graded.ids("ignore_sigterm"):
        run = graded.run(sid)
        assert run.verdict == "TLE" and run.signal == 9, (sid, run)
        assert graded.call(sid).seconds <= WALL + MARGIN, sid
        assert graded.left_behind(sid) == []


def test_fork_bomb_is_bounded_and_the_run_goes_on(graded):
    _skip_on_fallback(graded, "fork_bomb")
    for sid in graded.ids("fork_bomb"):
        run = graded.run(sid)
        # Hitting the process limit is a crash or a time-out, never "memory".
        assert run.verdict in ("RTE", "TLE"), (sid, run)
        assert graded.call(sid).seconds <= WALL + MARGIN, sid
        assert graded.left_behind(sid) == []
    assert all(graded.verdict(sid) == "AC" for sid in graded.ids("normal"))


def test_memory_bombs_are_mle(graded):
    for sid in graded.ids("memory_bomb") + graded.ids("memory_fork"):
        run = graded.run(sid)
        assert run.verdict == "MLE", (sid, run)
        seen = re.search(
            rf"more than {MEMORY_MB} MB of memory \(peak seen: (\d+) MB\)", run.diagnosis
        )
        assert seen and int(seen.group(1)) >= 0.8 * MEMORY_MB, (sid, run.diagnosis)
        assert graded.left_behind(sid) == []


def test_cpu_of_children_nobody_waits_for_counts(graded):
    """The child burns 300 ms and the parent exits without wait(): all of it counts."""
    for sid in graded.ids("orphan_cpu"):
        run = graded.run(sid)
        assert run.verdict == "WA" and run.cpu_seconds >= 0.95 * 0.300, (sid, run)
        assert graded.left_behind(sid) == []


def test_cpu_hidden_in_children_the_kernel_reaps_is_a_time_out(graded):
    """15 s of CPU in children the kernel reaps itself (SIGCHLD ignored), under a 1 s
    limit: TLE (it was AC at "0.060 s CPU"), every millisecond its children burnt
    counted (it prints how many, as it goes: a loaded machine may stop it on the wall
    clock first), and the diagnosis says what counted it."""
    for sid in graded.ids("autoreap"):
        run = graded.run(sid)
        said = re.findall(rb"^burnt (\d+)$", graded.output(sid) or b"", re.M)
        burnt_ms = int(said[-1]) if said else 0
        assert run.verdict == "TLE" and burnt_ms >= 200, (sid, run, said[-2:])
        assert run.cpu_seconds >= 0.9 * burnt_ms / 1000, (sid, run, burnt_ms)
        assert "CPU time counted by" in run.diagnosis and run.cpu_accounting, (sid, run)
        assert graded.call(sid).seconds <= WALL + MARGIN, sid
        assert graded.left_behind(sid) == []


def test_a_file_name_is_never_a_compiler_option(graded):
    """A file named "-specs=evil.c" beside the program, a course build command with
    {sources}: gcc gets "./-specs=evil.c", a C file (not a valid one: CE), never the
    option that would read it as specs (and could run any command in the build)."""
    report_ = graded.reports["option_name-c"]
    assert report_.outcomes[0].verdict == "CE", report_.build
    assert "./-specs=evil.c" in report_.build.log, report_.build.log
    assert "-specs=evil.c" in report_.files_used


def test_the_compilers_words_never_make_a_build_the_graders_failure(graded):
    """`#error No space left on device`: the student's CE, the words in its log; never
    an IE (retried for ever, never graded)."""
    report_ = graded.reports["error_text-c"]
    assert report_.outcomes[0].verdict == "CE" and report_.build_status != "ok"
    assert "#error No space left on device" in report_.build.log
    assert report_.build.log.startswith("the build failed (exit status 1)")


def test_shared_memory_counts_toward_the_memory_limit(graded):
    """Six processes hold 200 MB of shared anonymous memory each: the tree holds far
    more than the limit, whatever each process holds privately."""
    for sid in graded.ids("shared_memory"):
        run = graded.run(sid)
        assert run.verdict == "MLE", (sid, run)
        seen = re.search(r"\(peak seen: (\d+) MB\)", run.diagnosis)
        # stopped by a poll: the limit, plus what the tree touched since the last one
        assert seen and MEMORY_MB <= int(seen.group(1)) < MEMORY_MB + 256, run.diagnosis
        assert graded.left_behind(sid) == []


def test_the_grader_own_memory_stays_small(graded):
    # The class printed gigabytes and allocated past the limit many times over.
    assert graded.peak_growth_kb < GRADER_GROWTH_KB, graded.peak_growth_kb


@pytest.mark.parametrize("attack", ["output_flood", "stderr_flood"])
def test_output_floods_are_ole_and_stored_capped(graded, attack):
    cap = STDOUT_KB * 1024
    for sid in graded.ids(attack):
        run = graded.run(sid)
        assert run.verdict == "OLE", (sid, run)
        assert graded.call(sid).seconds <= WALL + MARGIN, sid
        assert len(run.stderr.encode("utf-8", "surrogateescape")) <= STDERR_KB * 1024
        stored = graded.output(sid) or b""
        assert len(stored) <= cap
        if attack == "output_flood":
            assert run.output_size > cap and len(stored) == cap
            assert f"printed more than {cap:,} bytes" in run.diagnosis
        else:
            assert run.output_size == 0 and stored == b""
            assert "flooded its error output" in run.diagnosis
        assert graded.left_behind(sid) == []


def test_huge_file_is_stopped_by_the_file_size_limit(graded):
    for sid in graded.ids("big_file"):
        run = graded.run(sid)
        assert run.verdict == "RTE", (sid, run)
        assert re.search(r"SIGXFSZ|File too large", run.diagnosis + run.stderr), (sid, run)
        assert "wrote 64 MiB" not in (graded.output(sid) or b"").decode()
        big = f"big-{graded.markers[sid]}.out"
        assert not (graded.build_folder(sid) / big).exists()
        assert not (Path("/tmp") / big).exists()


def test_nothing_is_written_outside_the_sandbox(graded):
    _skip_on_fallback(graded, "outside")
    assert graded.outside
    for path in graded.outside:
        assert not path.exists(), path
    assert os.listdir(graded.tmp / "outside") == []
    with sqlite3.connect(graded.results / "grader.db") as db:
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    assert not (graded.results / "grader.db").read_bytes().endswith(b"escaped\n")
    for sid in graded.ids("big_file"):
        assert sorted(os.listdir(graded.klass / sid)) == [SOURCE_NAMES[sid.split("-")[1]]]
    # The sandbox's /dev and /etc may be folders of the grader's, bound in: untouched too.
    prepared = Path(tempfile.gettempdir()) / "scramble-grader-uids"
    assert not list(prepared.glob("*/escaped-*"))


def test_secrets_cannot_be_read(graded):
    _skip_on_fallback(graded, "snoop")
    ancestors = {str(p) for p in graded.build_folder("snoop-c").parents}
    for sid in graded.ids("snoop"):
        run = graded.run(sid)
        assert run.verdict == "RTE" and run.exit_code == 3, (sid, run)
        seen = {}
        for line in run.stderr.splitlines():
            what, _, rest = line.partition("\t")
            if what in ("read", "listed", "missing", "denied") or "Exception" in what:
                seen[rest.split("\t")[0]] = what
            if what == "fd":  # a descriptor the grader (or bwrap) let through
                pytest.fail(f"{sid} inherited a descriptor: {rest}")
        # The error output names the program's own files as the submission does (a path
        # ending in one of them is shown by that name alone): so it shows the other
        # build's program as "puzzlesolver".
        own = {p.name for p in graded.build_folder(sid).iterdir() if p.is_file()}
        shown = {Path(p).name if Path(p).name in own else p: p for p in graded.snooped}
        assert set(seen) == set(shown), (sid, run.stderr)
        for name, what in seen.items():
            path = shown[name]
            allowed = {"missing", "denied"} | ({"listed"} if path in ancestors else set())
            assert what in allowed, (sid, path, what)
        shown = (graded.output(sid) or b"").decode(errors="replace") + run.stderr + run.diagnosis
        for name, secret in graded.secrets.items():
            assert secret not in shown, f"{sid} leaked the {name}"


def test_compile_time_include_of_an_expected_output_fails(graded):
    _skip_on_fallback(graded, "include_secret")
    report_ = graded.reports["include_secret-c"]
    assert report_.outcomes[0].verdict == "CE"
    assert "No such file" in report_.build.log
    for secret in graded.secrets.values():
        assert secret not in report_.build.log


def test_network_is_unreachable(graded):
    _skip_on_fallback(graded, "network")
    assert graded.connections == []  # nothing reached the listeners
    for sid in graded.ids("network"):
        run = graded.run(sid)
        assert run.verdict == "RTE" and run.exit_code == 4, (sid, run)
        attempts = [line for line in run.stderr.splitlines() if ": " in line]
        assert len(attempts) == (5 if "java" not in sid else 4), run.stderr
        assert all("CONNECTED" not in line for line in attempts), run.stderr
        # No network at all: every attempt fails at once (refused, unreachable, no
        # name server); none waits for its 2 s time-out.
        assert not re.search("timed out|timeout", run.stderr, re.IGNORECASE), run.stderr
        assert run.wall_seconds < WALL, (sid, run)


def test_background_processes_die_with_the_run(graded):
    for sid in graded.ids("daemon"):
        run = graded.run(sid)
        assert run.verdict == "WA" and run.exit_code == 0, (sid, run)
        # The run ended when the program did, not when its leftovers were timed out.
        assert graded.call(sid).seconds < WALL, sid
        assert graded.left_behind(sid) == []


def test_nothing_is_left_running(graded):
    assert graded.leftovers == []
    assert processes_left(graded.prefix, graded.results / "builds") == []


def test_the_process_check_sees_what_escapes(tmp_path):
    """The process-table check is no rubber stamp: the daemon program run with no
    sandbox at all leaves its setsid'ed processes, and the check finds them; run
    under the fallback (its reaper is a subreaper: a double fork cannot leave its
    tree), nothing is left."""
    from grader.core.model import Limits
    from grader.sandbox import RlimitSandbox

    marker = "hm" + uuid.uuid4().hex[:10]
    _materialize(tmp_path, "daemon", HOSTILE / "daemon" / "puzzlesolver.c", {"MARKER": marker})
    folder = tmp_path / "daemon"
    subprocess.run(["gcc", "-O2", "-o", "puzzlesolver", "puzzlesolver.c"], cwd=folder, check=True)
    with open(tmp_path / "bare.out", "wb") as out:  # the leftovers hold it open
        subprocess.run(
            ["./puzzlesolver", "x"],
            cwd=folder,
            stdout=out,
            start_new_session=True,
            timeout=30,
            check=True,
        )
    assert (tmp_path / "bare.out").read_bytes() == b"parent done\n"
    time.sleep(0.5)  # the double fork's grandchild may still be on its way
    escaped = processes_left(marker)
    for line in escaped:
        try:
            os.kill(int(line.split()[1]), 9)  # ours: started just now, found by marker
        except ProcessLookupError:
            pass
    assert escaped, "the double-forked daemon should have escaped a bare run"
    result = RlimitSandbox().run(["./puzzlesolver", "x"], folder, Limits(wall_seconds=5))
    assert result.stdout == b"parent done\n"
    assert processes_left(marker) == []


def test_standard_input_is_at_end_of_file_at_once(graded):
    for sid in graded.ids("read_stdin"):
        run = graded.run(sid)
        assert run.verdict == "WA", (sid, run)
        assert graded.output(sid) == b"stdin: 0 bytes\n"
        assert graded.call(sid).seconds < WALL, sid


def _assert_safe(text: str, where: str) -> None:
    found = RAW_CONTROL.search(text)
    if found:
        around = text[max(0, found.start() - 80) : found.end() + 80]
        pytest.fail(f"raw {found.group()!r} in {where}: {around!r}")


def test_garbage_output_is_judged_and_diagnosed_safely(graded):
    for sid in graded.ids("garbage_output") + graded.ids("no_output"):
        run = graded.run(sid)
        assert run.verdict == "WA" and run.exit_code == 0, (sid, run)
        _assert_safe(run.diagnosis, sid)
    for sid in graded.ids("no_output"):
        assert "the output is empty" in graded.run(sid).diagnosis
    for sid in graded.ids("garbage_output"):
        assert "not printable text" in graded.run(sid).diagnosis
    for sid in graded.ids("garbage_crash"):
        run = graded.run(sid)
        assert run.verdict == "RTE" and run.exit_code == 1, (sid, run)
        assert "pwned-title" in run.diagnosis  # its error output is shown, escaped
        _assert_safe(run.diagnosis, sid)


def test_show_and_check_print_hostile_output_safely(graded, capsys):
    hostile = (
        graded.ids("garbage_output")
        + graded.ids("garbage_crash")
        + graded.ids("compile_garbage")
        + graded.ids("no_output")
    )
    for sid in hostile:
        code, out, err = _cli(
            capsys,
            "--course",
            graded.course,
            "--manifest",
            graded.manifest,
            "show",
            sid,
            "--results",
            graded.results,
        )
        assert code == 0, err
        assert sid in out
        _assert_safe(out + err, f"grader show {sid}")
    code, out, err = _cli(
        capsys,
        "--course",
        graded.course,
        "--manifest",
        graded.manifest,
        "check",
        graded.klass / "garbage_crash-python",
    )
    assert code == 1 and "RTE" in out and "pwned-title" in out
    _assert_safe(out + err, "grader check")


def test_whole_class_report_and_results_json_are_safe(graded):
    # Rerun the CLI on the graded folder: nothing to redo; table and results.json from
    # everything the hostile class left in the database.
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "grader",
            "--course",
            str(graded.course),
            "--manifest",
            str(graded.manifest),
            "grade",
            str(graded.klass),
            "--results",
            str(graded.results),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "nothing to grade" in done.stderr and "Traceback" not in done.stderr
    _assert_safe(done.stdout + done.stderr, "grader grade")
    raw = (graded.results / "results.json").read_text(encoding="utf-8")
    _assert_safe(raw, "results.json")
    data = json.loads(raw)
    assert {s["id"] for s in data["submissions"]} == set(graded.subs)
    for entry in data["submissions"]:
        _assert_safe(json.dumps(entry, ensure_ascii=False), entry["id"])


# How each bomb may be stopped: by a limit of the build, which the grader measured and
# names first in the log (never by words of the compiler's: they are the student's to
# choose), whichever limit it reaches first on this machine, under any load.
STOPPED = r"^(the build took too long|the build used more than \d+ MB)"
COMPILE_BOMBS = {
    "template_bomb-cpp": STOPPED,
    "preprocessor_bomb-c": STOPPED,
    "dev_random-c": STOPPED + "|^the compiler printed more output than allowed",
}


def test_compile_time_bombs_are_ce_within_the_build_limits(graded):
    for sid, reason in COMPILE_BOMBS.items():
        report_ = graded.reports[sid]
        assert report_.outcomes[0].verdict == "CE", (sid, report_.build)
        assert re.search(reason, report_.build.log), (sid, report_.build.log[:500])
        assert graded.call(sid, build=True).seconds <= BUILD_WALL + MARGIN, sid
        assert graded.left_behind(sid) == []
    garbage = graded.reports["compile_garbage-cpp"]
    assert garbage.outcomes[0].verdict == "CE" and "pwned-title" in garbage.build.log
    _assert_safe(garbage.build.log, "a build log")


def test_malformed_folders_are_ce_with_their_reason(graded_auto):
    for sid, reason in MALFORMED.items():
        outcome = graded_auto.reports[sid].outcomes[0]
        assert outcome.verdict == "CE", sid
        assert reason in outcome.run.diagnosis and reason in graded_auto.reports[sid].build_status
    # None of them reached the sandbox (the huge one, 3 MB, was refused unread by a
    # compiler; the link to the reference solver was not followed).
    built = {call.folder for call in graded_auto.calls}
    for sid in MALFORMED:
        assert graded_auto.subs[sid].language == "?" and graded_auto.subs[sid].problem
        assert not any(
            name.startswith(".tmp-" + graded_auto.subs[sid].content_hash[:16]) for name in built
        )


# --------------------------------------------------------------------------- faults

SLOW_PY = "import time\ntime.sleep({seconds})\nprint('nothing')\n"


def _grader(*args, timeout=120) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "grader", *map(str, args)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def _small_class(tmp: Path, seconds: float = 0.0, count: int = 2):
    manifest = make_cases(
        tmp / "cases", {"sample": SAMPLE.read_text(), "none": "A0,A0,A0,A0\n" * 9}
    )
    klass = tmp / "class"
    for i in range(count):
        submission(klass, f"s{i}", "puzzlesolver.py", SLOW_PY.format(seconds=seconds) + f"# {i}\n")
    return manifest, klass


def _rows(db: Path) -> dict:
    with sqlite3.connect(db, timeout=10) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        return {
            (s, c): (v, t)
            for s, c, v, t in conn.execute(
                "SELECT submission_id, case_id, verdict, created_at FROM runs"
            )
        }


def _one_clear_error(done: subprocess.CompletedProcess, *needles: str) -> None:
    assert done.returncode == 2, (done.returncode, done.stdout, done.stderr)
    assert "Traceback" not in done.stderr + done.stdout
    errors = [line for line in done.stderr.splitlines() if line.startswith("grader: error:")]
    assert len(errors) == 1, done.stderr
    for needle in needles:
        assert needle in errors[0], (needle, errors[0])


# A course whose build runs what the student handed in (make, a build script): here a
# shell that plants links where the grader once kept its build record, to a file of the
# grader's user outside the sandbox, and a hard link to that file (which works where
# the build can see it: the rlimits mode), then builds.
PLANTING_BUILD = (
    "ln -s {target} .build.json; ln -s /dev/zero puzzlesolver.json; "
    "ln {target} hard.txt 2>/dev/null; gcc -o puzzlesolver puzzlesolver.c"
)


@pytest.mark.parametrize("sandbox", ["auto", "rlimits"])
def test_nothing_a_build_made_is_followed_by_the_grader(tmp_path, sandbox):
    """The grader writes and reads its build record beside the build folder, where the
    build cannot write, never through what the build left in it (a planted link once
    let it write as root outside the sandbox: the class's database destroyed)."""
    manifest, _ = _small_class(tmp_path, count=0)
    klass = tmp_path / "class"
    submission(klass, "planter", "puzzlesolver.c", "int main(void) { return 0; }\n")
    # Where any user may reach it (pytest's folders are root's alone), writable by anyone:
    # only the grader's care keeps it whole.
    public = Path(tempfile.mkdtemp(prefix="victim-"))
    public.chmod(0o755)
    target = public / "victim.txt"
    target.write_text("the grader's own file\n")
    target.chmod(0o666)
    try:
        _plant_links(tmp_path, klass, manifest, sandbox, target)
    finally:
        shutil.rmtree(public)


def _plant_links(tmp_path: Path, klass: Path, manifest: Path, sandbox: str, target: Path):
    script = PLANTING_BUILD.format(target=target)
    course = tmp_path / "course.toml"
    course.write_text(
        f'sandbox = "{sandbox}"\n[languages.c]\nbuild = ["sh", "-c", {json.dumps(script)}]\n'
    )
    results = tmp_path / "results"
    args = ["--course", course, "--manifest", manifest, "grade", klass, "--results", results]
    for _ in range(2):  # built, then the record read back
        done = _grader(*args)
        assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
        assert target.read_text() == "the grader's own file\n"
        # nothing handed over through the hard link: its mode and owner are as they were
        assert (target.stat().st_mode & 0o777, target.stat().st_uid) == (0o666, 0)
    builds = results / "builds"
    (folder,) = [p for p in builds.iterdir() if p.is_dir()]
    assert (folder / ".build.json").is_symlink()  # left there, never followed
    record = builds / f"{folder.name}.build.json"
    assert record.is_file() and not record.is_symlink()
    assert json.loads(record.read_text())["ok"] is True
    assert {v for v, _ in _rows(results / "grader.db").values()} == {"WA"}


@pytest.mark.parametrize("sandbox", ["auto", "rlimits"])
def test_a_compiler_killed_by_the_machine_is_the_graders_failure(tmp_path, sandbox):
    """A compiler killed by a signal no limit of the build sent (the machine's OOM
    killer, an administrator): IE, retried, never the student's CE; once the machine
    is well again, graded."""
    manifest, _ = _small_class(tmp_path, count=0)
    klass = tmp_path / "class"
    submission(klass, "victim", "puzzlesolver.c", "int main(void) { return 0; }\n")
    course = tmp_path / "course.toml"
    killed = ["sh", "-c", "kill -KILL $$"]
    course.write_text(f'sandbox = "{sandbox}"\n[languages.c]\nbuild = {json.dumps(killed)}\n')
    results = tmp_path / "results"
    args = ["--course", course, "--manifest", manifest, "grade", klass, "--results", results]
    done = _grader(*args)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    with sqlite3.connect(results / "grader.db") as db:
        rows = db.execute("SELECT verdict, diagnosis FROM runs").fetchall()
    assert {verdict for verdict, _ in rows} == {"IE"}, rows
    assert all("signal 9 SIGKILL, by none of the build's limits" in d for _, d in rows), rows
    course.write_text(f'sandbox = "{sandbox}"\n')  # the machine is well again
    assert _grader(*args).returncode == 0
    assert {v for v, _ in _rows(results / "grader.db").values()} == {"WA"}


# A C++ program long enough to compile for a test to catch its cc1plus at work.
HEAVY_CPP = """#include <bits/stdc++.h>
template <int N> struct F { static constexpr long v = F<N - 1>::v + F<N - 2>::v; };
template <> struct F<1> { static constexpr long v = 1; };
template <> struct F<0> { static constexpr long v = 0; };
int main() { std::map<int, std::vector<std::string>> m; std::printf("%ld\\n", F<80>::v); }
"""


def _kill_while_it_runs(name: str, marker: str, stop: threading.Event) -> list:
    """SIGKILL every process called `name` whose command line holds `marker`, until
    `stop`, as an administrator or the machine's OOM killer would: from outside. Every
    such process, the canary's compiler too (a compile of half a second): this thread
    runs at a higher priority (as root), and reads a command line only where the name
    matches, so that a loaded machine does not let one through between two looks."""
    with contextlib.suppress(OSError):  # not root: as it is
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), -10)
    killed = []
    while not stop.is_set():
        for entry in os.listdir("/proc"):
            try:
                if Path(f"/proc/{entry}/comm").read_text().strip() != name:
                    continue
                cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
            except (OSError, ValueError):
                continue
            if marker.encode() in cmdline:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(int(entry), signal.SIGKILL)
                    killed.append(int(entry))
        time.sleep(0.002)
    return killed


@pytest.mark.parametrize("sandbox", ["auto", "rlimits"])
def test_a_compilers_child_killed_from_outside_is_the_graders_failure(tmp_path, sandbox):
    """g++ runs cc1plus as a child: killed from outside, g++ says so in words and exits
    1, like a compile error. The build's witness (grader/sandbox/witness.c) makes it
    the build's signal: IE, not cached; the next run builds it and grades it."""
    manifest, _ = _small_class(tmp_path, count=0)
    klass = tmp_path / "class"
    submission(klass, "victim", "puzzlesolver.cpp", HEAVY_CPP)
    # A macro of its own on the compiler's command line: only this build's cc1plus dies.
    marker = f"MARK_{uuid.uuid4().hex[:12]}"
    build = ["g++", "-O2", f"-D{marker}", "-o", "puzzlesolver", "puzzlesolver.cpp"]
    course = tmp_path / "course.toml"
    course.write_text(f'sandbox = "{sandbox}"\n[languages.cpp]\nbuild = {json.dumps(build)}\n')
    results = tmp_path / "results"
    args = ["--course", course, "--manifest", manifest, "grade", klass, "--results", results]
    stop = threading.Event()
    killed: list = []
    killer = threading.Thread(
        target=lambda: killed.extend(_kill_while_it_runs("cc1plus", marker, stop))
    )
    killer.start()
    try:
        done = _grader(*args)
    finally:
        stop.set()
        killer.join()
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    assert killed, "cc1plus was never seen running"
    with sqlite3.connect(results / "grader.db") as db:
        rows = db.execute("SELECT verdict, diagnosis FROM runs").fetchall()
        builds = db.execute("SELECT COUNT(*) FROM builds").fetchone()[0]
    assert {verdict for verdict, _ in rows} == {"IE"}, rows
    assert all("signal 9 SIGKILL, by none of the build's limits" in d for _, d in rows), rows
    assert builds == 0  # not cached
    assert _grader(*args).returncode == 0  # the machine is well again: built, graded
    with sqlite3.connect(results / "grader.db") as db:
        rows = db.execute("SELECT verdict, diagnosis FROM runs").fetchall()
    assert {verdict for verdict, _ in rows} == {"WA"}, rows


def test_a_second_grading_run_on_the_same_results_is_refused(tmp_path):
    manifest, klass = _small_class(tmp_path, seconds=1.0)
    results = tmp_path / "results"
    args = ["--manifest", manifest, "grade", klass, "--results", results, "--jobs", "1"]
    first = subprocess.Popen(
        [sys.executable, "-m", "grader", *map(str, args)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:  # the first run holds the folder...
            lock = results / ".lock"
            if lock.exists() and lock.read_text().strip() == str(first.pid):
                break
            time.sleep(0.05)
        second = _grader(*args)  # ...while the second one tries
        out, err = first.communicate(timeout=120)
    finally:
        if first.poll() is None:
            first.kill()
            first.wait()
    _one_clear_error(second, "another grading run is using this results folder")
    assert first.returncode == 0, err
    rows = _rows(results / "grader.db")
    assert len(rows) == 4 and {v for v, _ in rows.values()} == {"WA"}
    data = json.loads((results / "results.json").read_text())
    assert [s["id"] for s in data["submissions"]] == ["s0", "s1"]


def _can_mount() -> str | None:
    if os.geteuid() != 0:
        return "needs root to mount a small tmpfs"
    if shutil.which("mount") is None or shutil.which("umount") is None:
        return "needs mount and umount"
    return None


@pytest.fixture
def tmpfs(tmp_path):
    """A 4 MiB tmpfs mounted at tmp_path/disk (root only), unmounted afterwards."""
    why = _can_mount()
    if why:
        pytest.skip(why)
    disk = tmp_path / "disk"
    disk.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=4m,mode=0755", "tmpfs", str(disk)],
        capture_output=True,
        text=True,
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.strip()}")
    try:
        yield disk
    finally:
        subprocess.run(["umount", "-l", str(disk)], check=False)


def _fill(disk: Path) -> None:
    """Fill the file system to the last byte."""
    with open(disk / "filler", "wb", buffering=0) as filler:
        size = 1 << 16
        while size:
            try:
                filler.write(b"\0" * size)
            except OSError:
                size //= 2


def test_a_full_disk_is_a_clear_error_and_earlier_results_survive(tmp_path, tmpfs):
    manifest, klass = _small_class(tmp_path)
    results = tmpfs / "results"
    args = ["--manifest", manifest, "grade", klass, "--results", results, "--jobs", "1"]
    first = _grader(*args)
    assert first.returncode == 0, first.stderr
    before = _rows(results / "grader.db")
    report_before = (results / "results.json").read_bytes()
    _fill(tmpfs)
    # A changed submission and a new one: new builds, new rows, a new results.json.
    (klass / "s0" / "puzzlesolver.py").write_text(SLOW_PY.format(seconds=0) + "# changed\n")
    submission(klass, "s9", "puzzlesolver.py", "print('late')\n")
    full = _grader(*args)
    _one_clear_error(full)
    assert re.search(r"No space left on device|database or disk is full", full.stderr)
    (tmpfs / "filler").unlink()
    assert _rows(results / "grader.db").items() >= before.items()  # nothing lost
    assert (results / "results.json").read_bytes() == report_before
    assert not [p for p in results.iterdir() if p.name.startswith(".results.json.")]
    again = _grader(*args)  # with room again, it resumes
    assert again.returncode == 0, again.stderr
    after = _rows(results / "grader.db")
    assert len(after) == 6
    assert {k: v for k, v in after.items() if k[0] == "s1"} == {
        k: v for k, v in before.items() if k[0] == "s1"
    }


def test_a_full_build_folder_is_an_internal_error_retried_later(tmp_path, tmpfs):
    # The database has room, the build cache (its own small file system) has none.
    manifest, klass = _small_class(tmp_path)
    results = tmp_path / "results"
    (results / "builds").mkdir(parents=True)
    subprocess.run(["mount", "--bind", str(tmpfs), str(results / "builds")], check=True)
    try:
        args = ["--manifest", manifest, "grade", klass, "--results", results, "--jobs", "1"]
        assert _grader(*args).returncode == 0
        before = _rows(results / "grader.db")
        _fill(tmpfs)
        (klass / "s0" / "puzzlesolver.py").write_text("print('changed')\n")
        full = _grader(*args)
        assert full.returncode == 0 and "Traceback" not in full.stderr, full.stderr
        rows = _rows(results / "grader.db")
        with sqlite3.connect(results / "grader.db") as db:
            diagnoses = db.execute("SELECT diagnosis FROM runs WHERE verdict = 'IE'").fetchall()
        assert {rows[k][0] for k in rows if k[0] == "s0"} == {"IE"}  # the grader's failure
        assert len(diagnoses) == 2 and all("No space left on device" in d for (d,) in diagnoses)
        assert {k: v for k, v in rows.items() if k[0] == "s1"} == {
            k: v for k, v in before.items() if k[0] == "s1"
        }
        (tmpfs / "filler").unlink()
        again = _grader(*args)  # IE is retried: with room again, s0 is graded
        assert again.returncode == 0, again.stderr
        assert {v for v, _ in _rows(results / "grader.db").values()} == {"WA"}
    finally:
        subprocess.run(["umount", "-l", str(results / "builds")], check=False)


def test_a_read_only_results_folder_is_a_clear_error(tmp_path):
    why = _can_mount()
    if why:
        pytest.skip(why)
    manifest, klass = _small_class(tmp_path)
    results = tmp_path / "results"
    args = ["--manifest", manifest, "grade", klass, "--results", results]
    assert _grader(*args).returncode == 0
    before = _rows(results / "grader.db")
    report_before = (results / "results.json").read_bytes()
    (klass / "s0" / "puzzlesolver.py").write_text("print('changed')\n")
    bound = subprocess.run(
        ["mount", "--bind", str(results), str(results)], capture_output=True, text=True
    )
    if bound.returncode != 0:
        pytest.skip(f"cannot bind-mount here: {bound.stderr.strip()}")
    try:
        remount = subprocess.run(
            ["mount", "-o", "remount,bind,ro", str(results)], capture_output=True, text=True
        )
        if remount.returncode != 0:
            pytest.skip(f"cannot remount read-only here: {remount.stderr.strip()}")
        _one_clear_error(_grader(*args), str(results), "Read-only file system")
        shown = _grader("--manifest", manifest, "show", "s1", "--results", results)
        if shown.returncode != 0:  # reading a read-only database: fine, or said clearly
            _one_clear_error(shown, "grader.db")
    finally:
        subprocess.run(["umount", "-l", str(results)], check=False)
    assert _rows(results / "grader.db") == before
    assert (results / "results.json").read_bytes() == report_before


def _break_cases(tmp: Path, how: str):
    manifest = make_cases(
        tmp / "cases", {"sample": SAMPLE.read_text(), "none": "A0,A0,A0,A0\n" * 9}
    )
    public = tmp / "cases" / "public"
    named = {
        "manifest not JSON": (manifest, lambda: manifest.write_text('{"version": 1, "cases": [')),
        "manifest missing": (manifest, manifest.unlink),
        "manifest wrong shape": (
            manifest,
            lambda: manifest.write_text(json.dumps({"version": 1, "cases": [{"id": "x"}]})),
        ),
        "expected missing": (public / "none.out", (public / "none.out").unlink),
        "input missing": (public / "sample.txt", (public / "sample.txt").unlink),
        "expected empty": (public / "sample.out", lambda: (public / "sample.out").write_bytes(b"")),
        "expected truncated": (
            public / "sample.out",
            lambda: (public / "sample.out").write_bytes((public / "sample.out").read_bytes()[:200]),
        ),
        "expected garbage": (
            public / "none.out",
            lambda: (public / "none.out").write_bytes(os.urandom(300)),
        ),
        "expected a folder": (
            public / "none.out",
            lambda: ((public / "none.out").unlink(), (public / "none.out").mkdir()),
        ),
    }
    path, damage = named[how]
    damage()
    return manifest, path


@pytest.mark.parametrize(
    "how",
    [
        "manifest not JSON",
        "manifest missing",
        "manifest wrong shape",
        "expected missing",
        "input missing",
        "expected empty",
        "expected truncated",
        "expected garbage",
        "expected a folder",
    ],
)
def test_broken_cases_stop_everything_before_grading_starts(tmp_path, capsys, how):
    manifest, broken = _break_cases(tmp_path, how)
    klass = tmp_path / "class"
    submission(klass, "s0", "puzzlesolver.py", "print('x')\n")
    results = tmp_path / "results"
    code, out, err = _cli(capsys, "--manifest", manifest, "grade", klass, "--results", results)
    assert code == 2, (out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("grader: error: ") and str(broken) in lines[0]
    assert not results.exists()  # nothing started: no database, no lock


@pytest.mark.parametrize(
    "text, key",
    [
        ("[limits]\ncpu_secs = 2\n", "limits.cpu_secs"),
        ('[limits]\ncpu_seconds = "2"\n', "limits.cpu_seconds"),
        ("[limits]\nwall_seconds = -4\n", "limits.wall_seconds"),
        ("[limits]\nprocesses = 0\n", "limits.processes"),
        ("[build_limits]\nmemory_mb = true\n", "build_limits.memory_mb"),
        ('sandbox = "docker"\n', "sandbox"),
        ('[languages.c]\nrun = "./puzzlesolver"\n', "languages.c.run"),
        ("[limits\ncpu_seconds = 2\n", "not valid TOML"),
    ],
)
def test_bad_configuration_stops_grading_before_it_starts(tmp_path, capsys, text, key):
    course = tmp_path / "course.toml"
    course.write_text(text)
    manifest, klass = _small_class(tmp_path, count=1)
    results = tmp_path / "results"
    code, out, err = _cli(
        capsys, "--course", course, "--manifest", manifest, "grade", klass, "--results", results
    )
    assert code == 2, (out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("grader: error: ")
    assert key in lines[0] and str(course) in lines[0]
    assert not results.exists()


if __name__ == "__main__":  # the grading process of _grade_class
    folder, kind = Path(sys.argv[1]), sys.argv[2]
    (folder / "summary.json").write_text(json.dumps(_setup_and_grade(folder, kind)))
