"""Grading end to end: real compilers, the real sandbox, a real SQLite file."""

import glob
import json
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from grader.cases.manifest import load_cases
from grader.course.config import load_config
from grader.grading.session import execute, plan
from grader.intake.submissions import discover
from grader.judge.score import report
from grader.sandbox import make_sandbox
from grader.store import Store
from tests.helpers import (
    ROOT,
    SAMPLE_TEXT,
    make_cases,
    reference_submission,
    small_cases,
    submission,
)

C_WRONG_PLURAL = r"""
#include <stdio.h>
#include <string.h>
/* Prints the expected output of the case it is given, but with "1 unique solutions". */
int main(int argc, char **argv) {
    char path[4096]; snprintf(path, sizeof path, "%s", argv[1]);
    FILE *f = fopen(path, "r"); if (!f) return 3;
    char line[256]; int n = 0;
    printf("Input tiles:\n");
    while (fgets(line, sizeof line, f) && n < 9) {
        char e[4][8];
        line[strcspn(line, "\r\n")] = 0;
        if (sscanf(line, "%2s,%2s,%2s,%2s", e[0], e[1], e[2], e[3]) == 4)
            printf("%d. <%s, %s, %s, %s>\n", ++n, e[0], e[1], e[2], e[3]);
    }
    printf("\n1 unique solutions found:\n");
    return 0;
}
"""

C_CRASH = "int main(void) { int *p = 0; return *p; }\n"

PY_READS_EXPECTED = """
import sys, glob, os
found = []
for pattern in %r:
    found += glob.glob(pattern)
for path in found:
    try:
        print(open(path).read()[:200])
    except OSError as e:
        print("denied", path, file=sys.stderr)
print("saw", len(found), "files", file=sys.stderr)
sys.exit(1 if not found else 0)
"""

PY_NETWORK = """
import socket, sys
try:
    socket.create_connection(("127.0.0.1", int(sys.argv[2]) if len(sys.argv) > 2 else 22), timeout=2)
    print("CONNECTED")
except OSError as e:
    print("no network:", e, file=sys.stderr)
    sys.exit(4)
"""


def grade_folder(tmp_path, manifest, jobs=2, force=False):
    config = load_config()
    cases = load_cases(manifest)
    subs = discover(tmp_path / "class", config)
    with Store(tmp_path / "results.db") as store:
        work = plan(subs, cases, store, force=force)
        execute(
            work, store, make_sandbox("auto"), config, tmp_path / "builds", jobs=jobs, force=force
        )
        return {s.id: report(store, store.submission(s.id), cases) for s in subs}, work.total


@pytest.fixture
def manifest(tmp_path):
    return small_cases(tmp_path / "cases")


def test_reference_passes_its_own_grader_and_mistakes_get_their_verdicts(tmp_path, manifest):
    klass = tmp_path / "class"
    reference_submission(klass, "ref-py")
    submission(klass, "plural-c", "puzzlesolver.c", C_WRONG_PLURAL)
    submission(klass, "crash-c", "puzzlesolver.c", C_CRASH)
    submission(klass, "broken-cpp", "puzzlesolver.cpp", "int main() { return x; }\n")
    submission(klass, "two-files", "puzzlesolver.c", C_CRASH)
    (klass / "two-files" / "puzzlesolver.py").write_text("print()\n")
    reports, total = grade_folder(tmp_path, manifest)
    assert total == 5 * 3

    def verdicts(sid):
        return {o.case.id: o.verdict for o in reports[sid].outcomes}

    assert verdicts("ref-py") == {"sample": "AC", "lightbulbs": "AC", "none": "AC"}
    assert reports["ref-py"].score == reports["ref-py"].max_score == 3
    assert set(verdicts("crash-c").values()) == {"RTE"}
    crash = reports["crash-c"].outcomes[0].run
    assert crash.signal == signal.SIGSEGV and "SIGSEGV" in crash.diagnosis
    assert set(verdicts("broken-cpp").values()) == {"CE"}
    assert (
        "x" in reports["broken-cpp"].build.log and "not declared" in reports["broken-cpp"].build.log
    )
    assert set(verdicts("two-files").values()) == {"CE"}
    assert "more than one source file" in reports["two-files"].build_status
    plural = {o.case.id: o.run for o in reports["plural-c"].outcomes}
    assert plural["sample"].verdict == "WA"
    assert "2 unique solutions found:" in plural["sample"].diagnosis


def test_unchanged_submissions_are_not_rerun_and_changed_ones_are(tmp_path, manifest):
    klass = tmp_path / "class"
    reference_submission(klass, "ref-py")
    submission(klass, "crash-c", "puzzlesolver.c", C_CRASH)
    _, first = grade_folder(tmp_path, manifest)
    _, second = grade_folder(tmp_path, manifest)
    assert (first, second) == (6, 0)
    (klass / "crash-c" / "puzzlesolver.c").write_text(C_CRASH + "/* changed */\n")
    _, third = grade_folder(tmp_path, manifest)
    assert third == 3
    _, forced = grade_folder(tmp_path, manifest, force=True)
    assert forced == 6


def test_program_cannot_read_expected_outputs_or_home(tmp_path, manifest):
    klass = tmp_path / "class"
    # Places that hold something on the host, wherever the clone is: the shipped
    # expected outputs, this grading run's cases, the class, and the home folder.
    patterns = [
        f"{ROOT}/testcases/*/*.out",
        f"{tmp_path / 'cases'}/*/*.out",
        f"{klass}/*/*",
        f"{Path.home()}/*",
    ]
    home_probe = Path.home() / f"grader-test-snoop-{tmp_path.name}"
    home_probe.write_text("host secret")
    try:
        submission(klass, "snoop", "puzzlesolver.py", PY_READS_EXPECTED % (patterns,))
        for pattern in patterns:
            assert glob.glob(pattern), f"the probe {pattern} finds nothing even on the host"
        reports, _ = grade_folder(tmp_path, manifest)
    finally:
        home_probe.unlink()
    for outcome in reports["snoop"].outcomes:
        assert outcome.verdict == "RTE"  # found nothing to read: exit 1
        assert "saw 0 files" in outcome.run.stderr
    assert "unique solution" not in (reports["snoop"].outcomes[0].run.stderr)


def test_program_cannot_open_a_network_connection(tmp_path):
    import socket

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    port = listener.getsockname()[1]
    manifest = make_cases(tmp_path / "cases", {"sample": SAMPLE_TEXT})
    klass = tmp_path / "class"
    submission(
        klass,
        "net",
        "puzzlesolver.py",
        PY_NETWORK.replace("int(sys.argv[2]) if len(sys.argv) > 2 else 22", str(port)),
    )
    try:
        reports, _ = grade_folder(tmp_path, manifest)
    finally:
        listener.close()
    run = reports["net"].outcomes[0].run
    assert run.verdict == "RTE" and run.exit_code == 4
    assert "no network" in run.stderr


SLOW_PY = """
import sys, time
time.sleep(0.4)
sys.stdout.write(open(sys.argv[1].replace(".txt", ".out")).read() if False else "")
"""


@pytest.mark.parametrize("stop", [signal.SIGKILL, signal.SIGINT], ids=["kill-9", "ctrl-c"])
def test_stopped_midway_then_resume_loses_nothing_and_repeats_nothing(tmp_path, stop):
    puzzles = {f"c{i}": "A0,A0,A0,A0\n" * 9 for i in range(8)}
    manifest = make_cases(tmp_path / "cases", puzzles)
    klass = tmp_path / "class"
    for sid in ("s1", "s2", "s3"):
        submission(klass, sid, "puzzlesolver.py", SLOW_PY + f"# {sid}\n")
    results = tmp_path / "results"
    cmd = [
        sys.executable,
        "-m",
        "grader",
        "--manifest",
        str(manifest),
        "grade",
        str(klass),
        "--results",
        str(results),
        "--jobs",
        "2",
    ]
    log = tmp_path / "stderr.txt"
    with log.open("wb") as err:
        # Ctrl-C as in a terminal: a suite started in the background (`make test &`, some
        # CI runners) passes SIGINT down ignored, and the grader would never see it.
        proc = subprocess.Popen(
            cmd,
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=err,
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        )
    db = results / "grader.db"
    deadline = time.time() + 60
    stored = 0
    while time.time() < deadline and stored < 6:
        time.sleep(0.1)
        if db.exists():
            try:
                stored = _count(db)
            except sqlite3.OperationalError:
                pass
    proc.send_signal(stop)
    code = proc.wait(timeout=60)
    if stop == signal.SIGINT:  # Ctrl-C: a clean stop that says how to resume
        assert code == 130, (code, len(_rows(db)), log.read_text()[-400:])
        assert "interrupted; every finished run is stored" in log.read_text()
        assert "Traceback" not in log.read_text()
    before = _rows(db)
    assert 6 <= len(before) < 24, "the kill should land midway"
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    after = _rows(db)
    assert len(after) == 24  # 3 submissions x 8 cases, each exactly once
    for key, created in before.items():
        assert after[key] == created, f"{key} was graded twice"
    data = json.loads((results / "results.json").read_text())
    assert all(c["verdict"] == "WA" for s in data["submissions"] for c in s["cases"])


def _count(db):
    with sqlite3.connect(db, timeout=5) as conn:
        return conn.execute("select count(*) from runs").fetchone()[0]


def _rows(db):
    with sqlite3.connect(db, timeout=5) as conn:
        return {
            (s, c): t
            for s, c, t in conn.execute("select submission_id, case_id, created_at from runs")
        }


class _Replay:
    """An executor that delivers what a cluster may deliver after losing a worker: every
    outcome twice, and a build after its runs (a rerun of the whole unit elsewhere)."""

    def __init__(self, outcomes):
        self.outcomes = outcomes

    def run(self, work, deliver, *, force):
        for outcome in self.outcomes + self.outcomes[::-1]:
            deliver(outcome)


def test_an_outcome_delivered_twice_is_stored_once(tmp_path):
    from grader.build.builder import Artifact
    from grader.core.model import Verdict
    from grader.grading.session import Built, Judged, grade
    from grader.judge.judging import Judgement

    cases = load_cases(small_cases(tmp_path / "cases"))
    submission(tmp_path / "class", "ok", "puzzlesolver.py", "print()\n")
    submission(tmp_path / "class", "broken", "puzzlesolver.c", "int main(void) { oops }\n")
    subs = {s.id: s for s in discover(tmp_path / "class", load_config())}
    db = tmp_path / "results.db"
    with Store(db) as store:
        store.db.executescript("""
            CREATE TABLE writes (submission_id TEXT, case_id TEXT);
            CREATE TRIGGER count_writes AFTER INSERT ON runs BEGIN
                INSERT INTO writes VALUES (NEW.submission_id, NEW.case_id); END;""")
        work = plan(list(subs.values()), cases, store)
        outcomes = [
            Built(subs["ok"], Artifact(True, tmp_path, "")),
            Built(subs["broken"], Artifact(False, tmp_path, "error: oops")),
        ]
        outcomes += [Judged(subs["ok"], case, Judgement(Verdict.WA, "wrong")) for case in cases]
        grade(work, store, _Replay(outcomes))
        written = store.db.execute("SELECT submission_id, case_id FROM writes").fetchall()
        builds = store.db.execute("SELECT COUNT(*) FROM builds").fetchone()[0]
    assert sorted(written) == sorted((sid, c.id) for sid in subs for c in cases)
    assert builds == 2
