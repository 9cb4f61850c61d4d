"""Grading on a Dask cluster against grading on threads, and the grader's own cost.

    .venv/bin/pip install -e '.[cluster]'
    .venv/bin/python bench/bench_cluster.py [--submissions 200] [--keep DIR]

Makes a synthetic class (C, C++, Java and Python copies of the example class's correct
programs, each with a unique comment so that each is built; some Python programs that
spin 0.3 s of CPU first; some that hit the time limit) and grades it on four public
cases, under a small CPU limit (1 s) so that the whole bench takes a few minutes:

1. local: `--jobs 2` threads, from an empty results folder (builds included), against
2. cluster: a LocalCluster of 2 worker processes x 1 thread on this machine, from an
   empty results folder and empty worker caches (its start-up timed apart), in two
   halves of the class, alternated (local, cluster, cluster, local);
3. runs only: the programs that do not hit a limit graded again on 2 threads with
   their builds cached, against the same programs run bare (no sandbox, no grader)
   on 2 threads: the grader's cost per run;

then projects, from the measured per-build and per-run costs, how long 10,000 and
50,000 submissions of 31 runs each would take on 1, 10 and 50 workers.

Figures depend on the machine and on what else runs on it: the load average is
printed before and after.
"""

import argparse
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from grader.cases.manifest import load_cases  # noqa: E402
from grader.course.config import load_config  # noqa: E402
from grader.grading.session import ThreadExecutor, grade, plan  # noqa: E402
from grader.intake.submissions import discover  # noqa: E402
from grader.judge.judging import command  # noqa: E402
from grader.sandbox import make_sandbox  # noqa: E402
from grader.sandbox.base import SANDBOX_PATH  # noqa: E402
from grader.store import Store  # noqa: E402

CASES = ("sample", "lightbulbs", "symmetric", "many-solutions")
COURSE = """
[limits]
cpu_seconds = 1
wall_seconds = 10
"""
SPIN_PY = (
    "import time as _t\n_s = _t.process_time()\nwhile _t.process_time() - _s < 0.3:\n    pass\n"
)
LOOP_C = "int main(void) { for (;;) { } }\n"
# share of the class: (kind, folder or None, file name, count per 200)
MIX = (
    ("c", "ada-c", "puzzlesolver.c", 64),
    ("cpp", "grace-cpp", "puzzlesolver.cpp", 36),
    ("java", "james-java", "PuzzleSolver.java", 24),
    ("python", "guido-py", "puzzlesolver.py", 52),
    ("slow-python", "guido-py", "puzzlesolver.py", 12),
    ("tle-python", "endless-loop", "puzzlesolver.py", 6),
    ("tle-c", None, "puzzlesolver.c", 6),
)
BARE_TIMEOUT = 60  # only programs within the limits run bare: this is a guard
RUNS_PER_SUBMISSION = 31  # the real case set, for the projection
WORKERS = (1, 10, 50)
CLASS_SIZES = (10_000, 50_000)


def make_class(folder: Path, total: int) -> dict:
    kinds = {}
    scale = total / sum(count for *_, count in MIX)
    for kind, source, name, count in MIX:
        for i in range(max(1, round(count * scale))):
            sid = f"{kind}-{i:03d}"
            (folder / sid).mkdir(parents=True)
            text = (ROOT / "submissions" / source / name).read_text() if source else LOOP_C
            marker = f"# {sid}\n" if name.endswith(".py") else f"/* {sid} */\n"
            if kind == "slow-python":
                text = SPIN_PY + text
            (folder / sid / name).write_text(
                marker + text if not name.endswith(".py") else text + marker
            )
            kinds[sid] = kind
    return kinds


def make_cases(folder: Path) -> Path:
    import json

    manifest = json.loads((ROOT / "testcases" / "manifest.json").read_text())
    entries = [c for c in manifest["cases"] if c["id"] in CASES]
    for entry in entries:
        for key in ("input", "expected"):
            (folder / entry[key]).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(ROOT / "testcases" / entry[key], folder / entry[key])
    (folder / "manifest.json").write_text(json.dumps({**manifest, "cases": entries}))
    return folder / "manifest.json"


def timed_grade(submissions, cases, results: Path, executor) -> float:
    results.mkdir(parents=True, exist_ok=True)
    with Store(results / "grader.db") as store:
        work = plan(submissions, cases, store)
        start = time.perf_counter()
        grade(work, store, executor)
        return time.perf_counter() - start


def local_vs_cluster(submissions, cases, config, sandbox, client, tmp: Path, blocks: int = 2):
    """Wall time of grading on 2 threads and on the cluster, each from empty results and
    build caches, in alternating blocks of the class (ABBA) so that a change in the
    machine's load hits both alike."""
    from grader.grading.cluster import ClusterExecutor

    local = remote = 0.0
    for i in range(blocks):
        block = submissions[i::blocks]
        for mode in ("local", "cluster") if i % 2 == 0 else ("cluster", "local"):
            results = tmp / f"{mode}-{i}"
            if mode == "local":
                local += timed_grade(
                    block, cases, results, ThreadExecutor(sandbox, config, results / "builds", 2)
                )
            else:
                remote += timed_grade(
                    block, cases, results, ClusterExecutor(client, config, cases, say=print)
                )
            print(f"  block {i + 1}/{blocks} {mode:7}: done (load average {loadavg()})", flush=True)
    return local, remote


def _query(tmp: Path, mode: str, sql: str) -> list:
    found = []
    for db_path in sorted(tmp.glob(f"{mode}-*/grader.db")):
        with sqlite3.connect(db_path) as db:
            found += db.execute(sql).fetchall()
    return found


def verdicts(tmp: Path, mode: str) -> dict:
    return {
        (s, c): v
        for s, c, v in _query(tmp, mode, "SELECT submission_id, case_id, verdict FROM runs")
    }


def bare(submissions, cases, config, cache_root: Path, jobs: int) -> float:
    """Every program run directly on every case: no sandbox, no grader."""

    def one(args):
        sub, case = args
        argv = [w.replace("{input}", str(case.input)) for w in command(sub.language, config.limits)]
        if "/" not in argv[0]:  # as in the sandbox: its PATH, not a pyenv shim, say
            argv[0] = shutil.which(argv[0], path=SANDBOX_PATH) or argv[0]
        # A session of its own, as in the sandbox: with the kernel's autogroup scheduling
        # each session gets a fair share of the CPU, and on a shared machine a program
        # in the bench's session would get less than a sandboxed one.
        subprocess.run(
            argv,
            cwd=cache_root / sub.content_hash[:32],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=BARE_TIMEOUT,
            env={**os.environ, "PATH": SANDBOX_PATH},
            start_new_session=True,
        )

    work = [(sub, case) for sub in submissions for case in cases]
    start = time.perf_counter()
    with ThreadPoolExecutor(jobs) as pool:
        list(pool.map(one, work))
    return time.perf_counter() - start


def runs_only(blocks, cases, config, sandbox, tmp: Path, group: int = 3):
    """Wall time of grading (builds cached, one store) and of running bare, 2 jobs each,
    alternating every `group` submissions (ABBA): the load of a shared machine drifts
    over seconds, and both sides see the same drift."""
    bare_wall = graded = 0.0
    turn = 0
    with Store(_fresh(tmp / "runs-only") / "grader.db") as store:
        for i, block in enumerate(blocks):
            cache = tmp / f"local-{i}" / "builds"  # where local_vs_cluster built them
            executor = ThreadExecutor(sandbox, config, cache, 2)
            for start in range(0, len(block), group):
                subs = block[start : start + group]
                for kind in ("bare", "grader") if turn % 2 == 0 else ("grader", "bare"):
                    if kind == "bare":
                        bare_wall += bare(subs, cases, config, cache, 2)
                    else:
                        work = plan(subs, cases, store)
                        begun = time.perf_counter()
                        grade(work, store, executor)
                        graded += time.perf_counter() - begun
                turn += 1
    return bare_wall, graded


def _fresh(folder: Path) -> Path:
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    return folder


def loadavg() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--submissions", type=int, default=200)
    parser.add_argument("--keep", type=Path, help="keep the class and results here")
    args = parser.parse_args()
    from grader.grading.cluster import connect

    tmp = Path(args.keep or tempfile.mkdtemp(prefix="bench-cluster-"))
    tmp.mkdir(parents=True, exist_ok=True)
    (tmp / "course.toml").write_text(COURSE)
    config = load_config(tmp / "course.toml")
    kinds = make_class(tmp / "class", args.submissions)
    cases = load_cases(make_cases(tmp / "cases"))
    submissions = discover(tmp / "class", config)
    print(
        f"class: {len(submissions)} submissions x {len(cases)} cases "
        f"({', '.join(f'{k} {list(kinds.values()).count(k)}' for k, *_ in MIX)}), "
        f"limits {config.limits.cpu_seconds:g} s CPU / {config.limits.wall_seconds:g} s wall"
    )
    print(
        f"machine: {os.cpu_count()} cores, load average before {loadavg()} "
        "(shared with other work: figures are noisy)",
        flush=True,
    )

    sandbox = make_sandbox(config.sandbox)
    start = time.perf_counter()
    with connect("local:2", say=print) as client:
        client.wait_for_workers(2)
        print(
            f"LocalCluster of 2 workers x 1 thread started in "
            f"{time.perf_counter() - start:.1f} s (not counted below)",
            flush=True,
        )
        local, remote = local_vs_cluster(submissions, cases, config, sandbox, client, tmp)
    same = verdicts(tmp, "local") == verdicts(tmp, "cluster")
    print(
        f"local --jobs 2: {local:.1f} s; cluster 2 workers x 1 thread: {remote:.1f} s; "
        f"cluster overhead {100 * (remote / local - 1):+.1f}% (target <= 10%); "
        f"verdicts identical: {same}",
        flush=True,
    )

    normal = [
        [s for s in submissions[i::2] if not kinds[s.id].startswith("tle")] for i in range(2)
    ]  # the blocks of local_vs_cluster, within the limits
    runs = sum(len(block) for block in normal) * len(cases)
    bare_wall, graded = runs_only(normal, cases, config, sandbox, tmp)
    print(
        f"runs only ({runs} runs of programs within the limits, builds cached, 2 jobs, "
        f"alternated every 3 submissions): grader {graded:.1f} s, bare {bare_wall:.1f} s: "
        f"{graded / bare_wall:.2f}x (target <= 1.05x), "
        f"{1000 * (graded - bare_wall) * 2 / runs:+.1f} ms per run",
        flush=True,
    )

    build_walls = [w for (w,) in _query(tmp, "local", "SELECT wall_seconds FROM builds")]
    per_build = sum(build_walls) / len(build_walls)
    per_run = graded * 2 / runs  # worker-seconds per run, sandbox and grader included
    factor = max(1.0, remote / local)
    print(
        f"\nper build {per_build:.2f} s, per run {per_run * 1000:.0f} ms (this mix; a run "
        f"that hits a 10 s limit costs 10 s), cluster factor {factor:.2f}"
    )
    print(
        f"projected wall time for submissions of 1 build + {RUNS_PER_SUBMISSION} runs "
        "(a worker = one core):"
    )
    print(
        f"{'submissions':>12} " + " ".join(f"{w:>4} worker{'s' if w > 1 else ' '}" for w in WORKERS)
    )
    for size in CLASS_SIZES:
        seconds = size * (per_build + RUNS_PER_SUBMISSION * per_run) * factor
        print(f"{size:>12,} " + " ".join(f"{_hours(seconds / w):>12}" for w in WORKERS))
    print(f"\nload average after {loadavg()}")
    if not args.keep:
        shutil.rmtree(tmp, ignore_errors=True)


def _hours(seconds: float) -> str:
    if seconds >= 3600:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds / 60:.0f} min"


if __name__ == "__main__":
    main()
