"""Grading on a Dask cluster: a real scheduler and real worker processes on this machine.

The module's cluster is a `dask scheduler` and two `dask worker` processes (one thread
each, no nanny, each with its own --local-directory, so each has its own build cache),
started as a lab machine would start them. The grader is driven through its command
line. Every test checks what the issue promises: the same results as local grading,
nothing lost and nothing stored twice when a worker or the client is killed, hostile
programs contained on a worker that then keeps serving, a worker without a sandbox
refusing work.

Every run the store receives is counted by a SQLite trigger the tests add to the
results database (`writes`): "stored exactly once" is checked on every insert, not
only on the rows that are left.
"""

import json
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from grader.course.config import ConfigError, load_config
from grader.store import Store
from tests.helpers import (
    ROOT,
    SAMPLE_TEXT,
    assert_valid,
    draw_of,
    make_cases,
    multi_file_class,
    reference_submission,
    submission,
)

distributed = pytest.importorskip("distributed")  # the dev extra installs it

pytestmark = pytest.mark.slow  # about a minute and a half in all

GRADER = [sys.executable, "-m", "grader"]
HOSTILE = Path(__file__).resolve().parent / "hostile"
# Six of the shipped cases, enough for every verdict of the example class: TLE
# (endless-loop on "symmetric"), RTE (crash on "lightbulbs"), WA, PE, CE, AC.
EXAMPLE_CASES = ("sample", "lightbulbs", "symmetric", "many-solutions", "one-solution", "crlf")
LIMITS = """
[counterexamples]
runs = 0
[limits]
cpu_seconds = 2
wall_seconds = 6
memory_mb = 256
processes = 48
"""
SLOW_PY = "import time\ntime.sleep(0.3)\n# {sid}\n"  # wall time, not CPU: fine under load


# ------------------------------------------------------------------ the cluster


class Cluster:
    def __init__(self, root: Path):
        self.root = root
        self.scheduler_file = root / "scheduler.json"
        self.procs = []
        self.workers = {}  # name -> Popen
        self.scheduler = self._start(
            [
                "distributed.cli.dask_scheduler",
                "--host",
                "127.0.0.1",
                "--port",
                "0",
                "--no-dashboard",
                "--scheduler-file",
                str(self.scheduler_file),
            ],
            "scheduler",
        )
        deadline = time.time() + 60
        while not self.scheduler_file.exists():
            assert time.time() < deadline, "the scheduler did not start"
            assert self.scheduler.poll() is None, self.log("scheduler")
            time.sleep(0.2)
        self.address = json.loads(self.scheduler_file.read_text())["address"]
        self.client = distributed.Client(self.address, timeout="30s")

    def _start(self, args, name, env=None):
        log = open(self.root / f"{name}.log", "wb")
        proc = subprocess.Popen(
            [sys.executable, "-m", *args],
            stdout=log,
            stderr=log,
            cwd=self.root,
            env=env,
            start_new_session=True,
        )
        self.procs.append(proc)
        return proc

    def log(self, name):
        return (self.root / f"{name}.log").read_text(errors="replace")[-3000:]

    def add_worker(self, name, env=None):
        folder = self.root / name
        folder.mkdir(exist_ok=True)
        before = len(self.client.scheduler_info()["workers"])
        self.workers[name] = self._start(
            [
                "distributed.cli.dask_worker",
                "--scheduler-file",
                str(self.scheduler_file),
                "--nthreads",
                "1",
                "--no-nanny",
                "--no-dashboard",
                "--name",
                name,
                "--local-directory",
                str(folder),
            ],
            name,
            env,
        )
        self.client.wait_for_workers(before + 1, timeout=60)
        return self.address_of(name)

    def address_of(self, name):
        for address, info in self.client.scheduler_info()["workers"].items():
            if info.get("name") == name:
                return address
        return None

    def close(self):
        self.client.close()
        for proc in self.procs:  # a graceful close takes seconds; their sandboxes die with them
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    made = Cluster(tmp_path_factory.mktemp("cluster"))
    try:
        made.add_worker("w1")
        made.add_worker("w2")
        yield made
    finally:
        made.close()


def grade(*args, timeout=300):
    return subprocess.run(
        GRADER + [str(a) for a in args], cwd=ROOT, capture_output=True, text=True, timeout=timeout
    )


def counted_store(results: Path) -> Path:
    """A results database whose every insert into runs is logged in `writes`."""
    results.mkdir(parents=True, exist_ok=True)
    db = results / "grader.db"
    Store(db).close()
    with sqlite3.connect(db) as conn:
        conn.executescript("""
            CREATE TABLE writes (submission_id TEXT, case_id TEXT, verdict TEXT);
            CREATE TRIGGER count_writes AFTER INSERT ON runs BEGIN
                INSERT INTO writes VALUES (NEW.submission_id, NEW.case_id, NEW.verdict);
            END;""")
    return db


def writes(db: Path):
    with sqlite3.connect(db, timeout=10) as conn:
        return conn.execute("SELECT submission_id, case_id, verdict FROM writes").fetchall()


def rows(db: Path):
    with sqlite3.connect(db, timeout=10) as conn:
        return {
            (s, c): (v, t)
            for s, c, v, t in conn.execute(
                "SELECT submission_id, case_id, verdict, created_at FROM runs"
            )
        }


def slow_class(root: Path, count: int, cases: int):
    for i in range(count):
        submission(root / "class", f"s{i}", "puzzlesolver.py", SLOW_PY.format(sid=i))
    puzzles = {f"c{i}": "A0,A0,A0,A0\n" * 9 for i in range(cases)}
    return root / "class", make_cases(root / "cases", puzzles)


def comparable(results_json: Path) -> dict:
    """results.json without what depends on the clock: times, timestamps, peak memory,
    and which limit ended a TLE first (the CPU limit, the CPU rlimit or the wall clock:
    on a loaded machine a busy loop may reach the wall limit first)."""
    data = json.loads(results_json.read_text())
    data.pop("generated_at")
    for sub in data["submissions"]:
        for case in sub["cases"]:
            for key in ("cpu_seconds", "wall_seconds", "peak_memory_kb"):
                case.pop(key, None)
            # A class graded on a cluster is not searched for public puzzles that fail alike
            # (each case says so): the verdicts and diagnoses are what must agree.
            case.pop("counterexample", None)
            case.pop("counterexample_reason", None)
            if case["verdict"] == "TLE":
                case.pop("signal", None)
                case["diagnosis"] = case["diagnosis"].split(":")[0]  # "ran out of time"
    return data


# ------------------------------------------------------------------ tests


def test_example_class_on_the_cluster_is_graded_as_locally(cluster, tmp_path):
    source = json.loads((ROOT / "testcases" / "manifest.json").read_text())
    entries = [c for c in source["cases"] if c["id"] in EXAMPLE_CASES]
    for entry in entries:
        for key in ("input", "expected"):
            (tmp_path / "cases" / entry[key]).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(ROOT / "testcases" / entry[key], tmp_path / "cases" / entry[key])
    manifest = tmp_path / "cases" / "manifest.json"
    manifest.write_text(json.dumps({**source, "cases": entries}))
    course = tmp_path / "course.toml"
    course.write_text(LIMITS + "[cluster]\ncases_per_task = 4\n")
    common = ["--course", course, "--manifest", manifest, "grade", ROOT / "submissions"]

    local = grade(*common, "--results", tmp_path / "local", "--jobs", "2")
    assert local.returncode == 0, local.stderr
    db = counted_store(tmp_path / "cluster")
    remote = grade(*common, "--results", tmp_path / "cluster", "--cluster", cluster.address)
    assert remote.returncode == 0, remote.stderr

    expected = comparable(tmp_path / "local" / "results.json")
    got = comparable(tmp_path / "cluster" / "results.json")
    verdicts = {c["verdict"] for s in got["submissions"] for c in s["cases"]}
    assert verdicts == {"AC", "WA", "PE", "TLE", "RTE", "CE"}  # the subset covers them all
    assert got == expected
    assert sorted(writes(db)) == sorted((s, c, v) for (s, c), (v, _) in rows(db).items())
    # Both workers built in their own cache folder (no shared file system).
    for name in ("w1", "w2"):
        assert list((cluster.root / name).glob("**/grader/builds/*")), name


def test_multi_file_submissions_reach_the_workers_whole(cluster, tmp_path):
    """A header, a second Python module, a second Java class: the worker builds with the
    extra files the course keeps, as local grading does (it once got the main file only)."""
    klass = multi_file_class(tmp_path / "class")
    manifest = make_cases(tmp_path / "cases", {"sample": SAMPLE_TEXT})
    course = tmp_path / "course.toml"
    course.write_text(LIMITS)
    done = grade(
        "--course", course, "--manifest", manifest, "grade", klass,
        "--results", tmp_path / "results", "--cluster", cluster.address,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    got = json.loads((tmp_path / "results" / "results.json").read_text())
    verdicts = {s["id"]: [c["verdict"] for c in s["cases"]] for s in got["submissions"]}
    assert verdicts == {"cpp-header": ["AC"], "py-modules": ["AC"], "java-classes": ["AC"]}


def graded_for_timing(root: Path) -> tuple[Path, list]:
    """ada-c and the reference solver slowed down, graded here on one timed case:
    (the results folder, the leaderboard's arguments but --cluster)."""
    klass = root / "class"
    shutil.copytree(ROOT / "submissions" / "ada-c", klass / "ada-c")
    slow = reference_submission(klass, "slow-py") / "puzzlesolver.py"
    slow.write_text("import time\ntime.sleep(0.2)\n" + slow.read_text())
    manifest = make_cases(root / "cases", {"sample": SAMPLE_TEXT})
    document = json.loads(manifest.read_text())
    document["cases"][0]["timed"] = True
    manifest.write_text(json.dumps(document))
    course = root / "course.toml"
    course.write_text(LIMITS)
    results = root / "results"
    common = ["--course", course, "--manifest", manifest]
    done = grade(*common, "grade", klass, "--results", results)
    assert done.returncode == 0, done.stderr
    draw = draw_of(manifest, root / "draw.json")
    return results, [*common, "leaderboard", "--results", results, "--puzzles", draw, "--busy-ok"]


def test_the_leaderboard_times_on_the_workers_each_core_serving_one(cluster, tmp_path):
    """`leaderboard --cluster`: every timed run is made on a worker, pinned to a core of
    its machine; the two workers share this machine, so a core serves one of them; the
    faster program ranks 1 and gets the bonus, as on this machine; leaderboard.json
    says which worker and core timed. The workers build what they time: nothing is
    built here (the machine that sends the work may have no compiler)."""
    results, board = graded_for_timing(tmp_path)
    shutil.rmtree(results / "builds")
    done = grade(*board, "--cluster", cluster.address)
    assert done.returncode == 0, done.stderr
    assert not list((results / "builds").glob("**/*.build.json")), "built here"
    doc = json.loads((results / "leaderboard.json").read_text())
    assert_valid(doc, "leaderboard")
    assert [e["id"] for e in doc["ranked"] if e["winner"]] == ["ada-c"]
    addresses = {cluster.address_of("w1"), cluster.address_of("w2")}
    with sqlite3.connect(results / "grader.db") as db:
        timed = db.execute("SELECT DISTINCT worker, core FROM timings").fetchall()
    assert timed and {worker for worker, _ in timed} <= addresses
    serving: dict[int, set[str]] = {}
    for worker, core in timed:
        assert core in os.sched_getaffinity(0)
        serving.setdefault(core, set()).add(worker)
    assert all(len(workers) == 1 for workers in serving.values()), serving
    shown = {(w["worker"], core) for w in doc["machine"]["timing_workers"] for core in w["cores"]}
    assert shown == set(timed) and doc["machine"]["timing_cores"] == []
    page = (results / "leaderboard.md").read_text()
    assert "Timed on a Dask cluster's workers: " in page


def test_a_look_at_a_place_is_made_by_its_worker_and_judged_by_the_rule(cluster):
    """A place left out by the survey, or one that times, is looked at again by its own
    worker (the reference work on its core, there), and the look is put beside the
    survey's fastest core by the rule that ranks programs; a gone worker is no place."""
    from grader.cases.manifest import default_manifest, load_cases
    from grader.leaderboard.cores import agrees
    from grader.leaderboard.measuring import Place
    from grader.leaderboard.on_workers import ClusterTiming
    from grader.leaderboard.places import WorkerPlaces
    from grader.statistics.timing import Rule

    config = load_config()
    cases = load_cases(default_manifest())[:1]
    worker = cluster.address_of("w1")
    place = Place(min(os.sched_getaffinity(0)), worker)

    def timing(fastest: list[float]) -> ClusterTiming:
        found = WorkerPlaces((), {worker: "here"}, waiting=(place,), fastest=tuple(fastest))
        return ClusterTiming(
            cluster.client, "none", found, cases, config.limits, config.limits, 1, looks=True
        )

    rule = Rule(0.03, 0.05)
    slow = [1.0 + i * 1e-3 for i in range(7)]  # the reference work takes about 10 ms
    there = timing(slow)
    assert there.waiting == (place,) and there.fastest == tuple(slow)
    assert agrees(slow, there.look(place), rule)
    assert not agrees([1e-6 + i * 1e-9 for i in range(7)], there.look(place), rule)
    gone = timing(slow)
    gone.gone[worker] = f"worker {worker} left the cluster"
    assert gone.look(place) == []


def test_a_worker_that_does_not_answer_in_time_is_no_place_to_time_on(cluster, tmp_path):
    """A worker whose only thread is stuck (here, on someone else's long task): a look at
    its place ends within the bound, not for ever, and the worker is then no place to
    time on: a run sent there is the grader's failure (IE, not stored, measured again by
    the next session), which says why."""
    from grader.cases.manifest import default_manifest, load_cases
    from grader.core.model import Verdict
    from grader.grading.timed_runs import Program
    from grader.leaderboard.measuring import Place
    from grader.leaderboard.on_workers import ClusterTiming
    from grader.leaderboard.places import WorkerPlaces

    config = load_config()
    cases = load_cases(default_manifest())[:1]
    worker = cluster.address_of("w1")
    place = Place(min(os.sched_getaffinity(0)), worker)
    found = WorkerPlaces((), {worker: "here"}, waiting=(place,), fastest=(1.0,) * 7)
    timing = ClusterTiming(
        cluster.client, "none", found, cases, config.limits, config.limits, 1, looks=True
    )
    assert timing.within > config.limits.wall_seconds * 2, "a run's limits, and more"
    stuck = cluster.client.submit(
        time.sleep, 4, workers=[worker], allow_other_workers=False, pure=False
    )
    try:
        deadline = time.time() + 30
        while not cluster.client.processing(workers=[worker]).get(worker):
            assert time.time() < deadline, "the long task never started"
            time.sleep(0.05)
        timing.within = 1.0
        began = time.monotonic()
        assert timing.look(place) == []
        assert time.monotonic() - began < 3.5, "the bound, not the 4-s task's end"
        assert timing.gone == {worker: f"worker {worker} did not answer within 1 s"}
        program = Program("p", config.languages["c"], "h", tmp_path)
        verdict, result = timing.run(place, program, cases[0], True)
        assert verdict == Verdict.IE and result.error == f"WorkerGone: {timing.gone[worker]}"
    finally:
        stuck.result(timeout=60)  # the worker serves the module's next tests


def test_a_worker_gone_mid_session_loses_its_runs_only_and_the_next_session_makes_them(
    tmp_path,
):
    """Its runs are not stored (the grader's failure, said in one line); the session
    ends, and the next one, on another worker, makes every missing run, storing none
    twice."""
    (tmp_path / "cluster").mkdir()
    lonely = Cluster(tmp_path / "cluster")
    try:
        victim = lonely.add_worker("victim")
        results, board = graded_for_timing(tmp_path)
        session = subprocess.Popen(
            GRADER + [str(a) for a in (*board, "--cluster", lonely.address)],
            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        deadline = time.time() + 120
        while not any(
            "timed_task" in str(key)
            for key in lonely.client.processing(workers=[victim]).get(victim, ())
        ):
            assert time.time() < deadline and session.poll() is None, session.communicate()
            time.sleep(0.05)
        time.sleep(0.5)  # a few timed runs stored first
        lonely.workers["victim"].send_signal(signal.SIGKILL)
        out, err = session.communicate(timeout=300)
        assert session.returncode == 0, err
        assert re.search(r"\d+ timed runs failed in the grader and were not stored", err), err
        with sqlite3.connect(results / "grader.db") as db:
            first = db.execute("SELECT worker, COUNT(*) FROM timings GROUP BY worker").fetchall()
        assert [worker for worker, _ in first] in ([], [victim])
        second = lonely.add_worker("second")
        again = grade(*board, "--cluster", lonely.address)
        assert again.returncode == 0, again.stderr
        assert "failed in the grader" not in again.stderr
        with sqlite3.connect(results / "grader.db") as db:
            stored = db.execute("SELECT worker, COUNT(*) FROM timings GROUP BY worker").fetchall()
        assert dict(stored).get(victim, 0) == dict(first).get(victim, 0)  # kept, not made again
        assert dict(stored)[second] > 0
        doc = json.loads((results / "leaderboard.json").read_text())
        assert [e["id"] for e in doc["ranked"] if e["winner"]] == ["ada-c"]
    finally:
        lonely.close()


def test_a_worker_killed_mid_grade_loses_nothing_and_stores_once(cluster, tmp_path):
    klass, manifest = slow_class(tmp_path, 6, 8)
    course = tmp_path / "course.toml"
    course.write_text(LIMITS + "[cluster]\ncases_per_task = 2\n")
    victim = cluster.add_worker("victim")
    results = tmp_path / "results"
    db = counted_store(results)
    client = subprocess.Popen(
        GRADER
        + [
            "--course",
            str(course),
            "--manifest",
            str(manifest),
            "grade",
            str(klass),
            "--results",
            str(results),
            "--cluster",
            cluster.address,
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.time() + 120
    while not cluster.client.processing(workers=[victim]).get(victim):
        assert time.time() < deadline and client.poll() is None, "the victim never got work"
        time.sleep(0.05)
    time.sleep(0.3)  # into a run
    cluster.workers["victim"].send_signal(signal.SIGKILL)
    out, err = client.communicate(timeout=240)
    assert client.returncode == 0, err
    stored = rows(db)
    assert len(stored) == 48 and {v for v, _ in stored.values()} == {"WA"}
    assert len(writes(db)) == 48  # every case stored exactly once
    # The scheduler learns of the death when it next hears (or fails to hear) from the
    # worker: on a loaded machine, possibly after the grade finished.
    deadline = time.time() + 60
    while cluster.address_of("victim") is not None:
        assert time.time() < deadline, "the scheduler still lists the killed worker"
        time.sleep(0.2)


def test_client_killed_mid_grade_then_rerun_resumes_and_repeats_nothing(cluster, tmp_path):
    klass, manifest = slow_class(tmp_path, 4, 8)
    course = tmp_path / "course.toml"  # the scheduler from course.toml, not --cluster
    course.write_text(LIMITS + f'[cluster]\nscheduler = "{cluster.address}"\ncases_per_task = 2\n')
    results = tmp_path / "results"
    db = counted_store(results)
    cmd = GRADER + [
        "--course",
        str(course),
        "--manifest",
        str(manifest),
        "grade",
        str(klass),
        "--results",
        str(results),
    ]
    client = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 120
    while len(rows(db)) < 8:
        assert time.time() < deadline and client.poll() is None, "no run stored in time"
        time.sleep(0.05)
    client.send_signal(signal.SIGKILL)
    client.wait()
    before = rows(db)
    assert 8 <= len(before) < 32, "the kill should land midway"
    # Stored as they came back, not all at the end: 8 runs are 4 tasks of 2 runs of 0.3 s
    # on 2 workers, so the first and the last stored are at least 0.6 s apart.
    stamps = [created for _, created in before.values()]
    assert max(stamps) - min(stamps) >= 0.5
    again = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=240)
    assert again.returncode == 0, again.stderr
    after = rows(db)
    assert len(after) == 32 and len(writes(db)) == 32  # each exactly once, over both runs
    for key, value in before.items():
        assert after[key] == value, f"{key} was graded twice"


def test_hostile_programs_are_contained_and_the_workers_keep_serving(cluster, tmp_path):
    klass = tmp_path / "class"
    for attack, language, name in (
        ("fork_bomb", "c", "puzzlesolver.c"),
        ("memory_bomb", "c", "puzzlesolver.c"),
        ("memory_bomb", "python", "puzzlesolver.py"),
    ):
        (klass / f"{attack}-{language}").mkdir(parents=True)
        shutil.copyfile(HOSTILE / attack / name, klass / f"{attack}-{language}" / name)
    shutil.copytree(ROOT / "submissions" / "ada-c", klass / "ada-c")
    manifest = make_cases(
        tmp_path / "cases", {"sample": (ROOT / "testcases" / "public" / "sample.txt").read_text()}
    )
    course = tmp_path / "course.toml"
    course.write_text(LIMITS)
    pids = {name: cluster.workers[name].pid for name in ("w1", "w2")}
    done = grade(
        "--course",
        course,
        "--manifest",
        manifest,
        "grade",
        klass,
        "--results",
        tmp_path / "results",
        "--cluster",
        cluster.address,
    )
    assert done.returncode == 0, done.stderr
    data = json.loads((tmp_path / "results" / "results.json").read_text())
    verdict = {s["id"]: s["cases"][0]["verdict"] for s in data["submissions"]}
    assert verdict["fork_bomb-c"] in ("RTE", "TLE")  # as locally (tests/test_hostile.py)
    assert verdict["memory_bomb-c"] == verdict["memory_bomb-python"] == "MLE"
    assert verdict["ada-c"] == "AC"
    for name, pid in pids.items():  # the same worker processes, still in the cluster
        assert cluster.workers[name].poll() is None and cluster.workers[name].pid == pid
        assert cluster.address_of(name) is not None
    shutil.copytree(ROOT / "submissions" / "ada-c", tmp_path / "after" / "ada-c")
    again = grade(
        "--course",
        course,
        "--manifest",
        manifest,
        "grade",
        tmp_path / "after",
        "--results",
        tmp_path / "again",
        "--cluster",
        cluster.address,
    )
    assert again.returncode == 0, again.stderr
    assert re.search(r"ada-c +c +1/1 +AC:1", again.stdout), again.stdout


def test_a_worker_without_a_sandbox_refuses_work_in_one_line(tmp_path):
    lonely = Cluster(tmp_path)
    try:
        # No bwrap on its PATH: this worker cannot sandbox anything.
        lonely.add_worker("nobwrap", env={**os.environ, "PATH": str(tmp_path / "empty")})
        klass, manifest = slow_class(tmp_path, 1, 2)
        results = tmp_path / "results"
        done = grade(
            "--manifest",
            manifest,
            "grade",
            klass,
            "--results",
            results,
            "--cluster",
            lonely.address,
        )
        assert done.returncode == 2
        refusals = [line for line in done.stderr.splitlines() if "refuses work" in line]
        assert refusals[0].startswith("grader: cluster: worker tcp://")
        assert "no working sandbox" in refusals[0] and "bubblewrap" in refusals[0]
        assert refusals[-1].startswith("grader: error: no worker left that can grade")
        assert "Traceback" not in done.stderr
        assert rows(results / "grader.db") == {}  # nothing graded without a sandbox
        lonely.workers["nobwrap"].wait(timeout=60)  # retired from the cluster
    finally:
        lonely.close()


def test_without_dask_the_command_says_how_to_install_it(tmp_path):
    klass, manifest = slow_class(tmp_path, 1, 1)
    code = (
        "import sys; sys.modules['distributed'] = None; from grader.cli import main; "
        f"sys.exit(main(['--manifest', {str(manifest)!r}, 'grade', {str(klass)!r}, "
        f"'--results', {str(tmp_path / 'r')!r}, '--cluster', 'local:1']))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "grader: error: grading on a cluster needs Dask: pip install "
        "'scramble-grader[cluster]' (in a checkout: .venv/bin/pip install -e '.[cluster]')"
    ]


def test_cluster_configuration_is_checked(tmp_path):
    course = tmp_path / "course.toml"
    course.write_text('[cluster]\nscheduler = "tcp://lab1:8786"\ncases_per_task = 5\n')
    config = load_config(course)
    assert (config.cluster.scheduler, config.cluster.cases_per_task) == ("tcp://lab1:8786", 5)
    assert load_config().cluster.scheduler == ""  # the project's course.toml grades here
    for bad, key in (
        ("cases_per_task = 0", "cluster.cases_per_task"),
        ("schedular = 'x'", "cluster.schedular"),
        ("scheduler = 1", "cluster.scheduler"),
    ):
        course.write_text(f"[cluster]\n{bad}\n")
        with pytest.raises(ConfigError, match=re.escape(key)):
            load_config(course)
