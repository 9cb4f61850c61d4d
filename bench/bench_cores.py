"""Do this machine's cores time alike? The leaderboard's per-core calibration, and real
timed runs of the shipped programs on each core, compared by the leaderboard's own rule.

    .venv/bin/python bench/bench_cores.py [--runs 15] [--cluster ADDRESS]

1. The calibration `grader leaderboard` makes before a session (grader.leaderboard.
   cores: the same reference work on each core, the cores taking turns), its figures
   and which cores it keeps.
2. For the C and Python example programs: `--runs` timed runs on each core, the cores
   taking turns, each run in the grading sandbox from the build `grade` makes, the
   thread pinned to the core as the leaderboard pins it. Per core: the median CPU time,
   its MAD; per program: the slowest core's median over the fastest's, and the rank
   test's p-value between them. The difference is inside the noise when the ratio is
   within the noise floor (3%) or the test cannot tell the cores apart (p >= 0.05).

With --cluster (tcp://scheduler:8786, or local:N): the same for a Dask cluster's places,
as `grader leaderboard --cluster` finds them (grader.leaderboard.on_workers): each
machine's survey (its cores' reference figures, and which the cluster keeps), then the
timed runs sent to each place (worker and core) in turn, built and warmed up there.
"""

import argparse
import functools
import os
import shutil
import sys
import tempfile
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from grader.build.builder import build  # noqa: E402
from grader.cases.manifest import load_cases  # noqa: E402
from grader.course.config import load_config  # noqa: E402
from grader.grading.timed_runs import Program, timed_run  # noqa: E402
from grader.intake.submissions import load  # noqa: E402
from grader.leaderboard.cores import allowed_cores, calibrate  # noqa: E402
from grader.sandbox import make_sandbox  # noqa: E402
from grader.statistics.timing import mad, median  # noqa: E402

PROGRAMS = ("ada-c", "guido-py")
CASE = "timed-3-letters-a"


def on_core(core: int, job):
    """job() in a thread pinned to core, as the leaderboard's timing threads are."""
    found = []

    def pinned():
        os.sched_setaffinity(0, {core})
        found.append(job())

    thread = threading.Thread(target=pinned)
    thread.start()
    thread.join()
    return found[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--cluster", metavar="ADDRESS", help="a Dask cluster's places instead")
    args = parser.parse_args()
    config = load_config()
    [case] = [c for c in load_cases(ROOT / "testcases" / "manifest.json") if c.id == CASE]
    if args.cluster:
        on_cluster(args.cluster, config, case, args.runs)
        return
    cores = allowed_cores()
    if len(cores) < 2:
        sys.exit("this machine lets the grader use fewer than 2 cores: nothing to compare")
    board = config.leaderboard
    calibration = calibrate(cores, board.rule)
    print("calibration (reference work, median of 7 turns):")
    for core, seconds in sorted(calibration.seconds.items()):
        kept = "kept" if core in calibration.used else "LEFT OUT"
        print(f"  core {core}: {seconds * 1000:.2f} ms  {kept}")
    sandbox = make_sandbox(config.sandbox)
    with tempfile.TemporaryDirectory(prefix="bench-cores-") as tmp:
        print(f"\ntimed runs on {CASE}, {args.runs} per core, the cores taking turns:")
        for program in programs(Path(tmp), config, sandbox):
            run = functools.partial(timed_run, program, case, sandbox, config.limits)
            on_core(cores[0], run)  # warm-up
            compare(program.id, cores, lambda core, run=run: on_core(core, run), args.runs, config)


def programs(tmp: Path, config, sandbox) -> list[Program]:
    made_all = []
    for name in PROGRAMS:
        shutil.copytree(ROOT / "submissions" / name, tmp / name)
        sub = load(tmp / name, config)
        made = build(sub, tmp / "builds", sandbox, config.build_limits)
        assert made.ok, made.log
        assert sub.language is not None
        made_all.append(Program(sub.id, sub.language, sub.content_hash, made.folder, sub))
    return made_all


def compare(name: str, places, run_on, runs: int, config) -> None:
    """`runs` timed runs at each place, the places taking turns; the figures and the
    verdict: inside the noise or not."""
    board = config.leaderboard
    found: dict = {place: [] for place in places}
    for _ in range(runs):
        for place in places:
            _, result = run_on(place)
            found[place].append(result.cpu_seconds)
    middle = {place: median(values) for place, values in found.items()}
    fast = min(middle, key=lambda place: middle[place])
    slow = max(middle, key=lambda place: middle[place])
    ratio = middle[slow] / middle[fast]
    p = board.rule.test.p_value(found[fast], found[slow])
    for place in places:
        print(
            f"  {name:9s} {label(place)}: median {middle[place] * 1000:8.2f} ms, "
            f"MAD {mad(found[place]) * 1000:6.2f} ms"
        )
    inside = ratio <= 1 + board.noise_floor or p >= board.alpha
    print(
        f"  {name:9s} slowest place / fastest: {ratio:.3f}, p = {p:.3f}: "
        + ("inside the noise" if inside else "OUTSIDE the noise: the survey must leave one out")
    )


def label(place) -> str:
    return f"core {place}" if isinstance(place, int) else f"{place.worker} core {place.core}"


def on_cluster(address: str, config, case, runs: int) -> None:
    from grader.grading.cluster import connect, workers_sandbox
    from grader.grading.cluster_worker import GraderPlugin
    from grader.leaderboard.on_workers import ClusterTiming, survey

    with connect(address, say=print) as client:
        plugin = GraderPlugin(workers_sandbox(config))
        client.register_plugin(plugin)
        found = survey(client, plugin.name, config.leaderboard.rule, True, print)
        print("survey (reference work on each machine's cores, median of 7 turns):")
        for entry in found.reference_s(found.kept):
            kept = "kept" if entry["used"] else "LEFT OUT"
            print(
                f"  {entry['host']} core {entry['core']}: {entry['reference_s'] * 1000:.2f} ms  {kept}"
            )
        print("places: " + ", ".join(label(place) for place in found.places))
        if not found.places:
            sys.exit("no place to time on")
        timing = ClusterTiming(
            client, plugin.name, found, [case], config.limits, config.build_limits, 1
        )
        sandbox = make_sandbox(config.sandbox)
        with tempfile.TemporaryDirectory(prefix="bench-cores-") as tmp:
            print(f"\ntimed runs on {CASE}, {runs} per place, the places taking turns:")
            for program in programs(Path(tmp), config, sandbox):

                def run_on(place, program=program):
                    verdict, result = timing.run(place, program, case, True)
                    assert verdict == "AC", result.error
                    return verdict, result

                compare(program.id, found.places, run_on, runs, config)


if __name__ == "__main__":
    main()
