#!/usr/bin/env python3
"""Benchmark the reference solver against its speed targets; prints figures.

    .venv/bin/python bench/bench_reference.py [--python PY] [--runs N] [--repeat N] [--quick]

1. The sample puzzle in-process: parse + solve + render, median and min over
   many runs (and the median CPU time), in this interpreter and in the
   system python (target 0.2 ms median).
2. Interpreter start-up (`PY -c pass`), reported apart: it is part of every
   whole-process figure and differs a lot between interpreters.
3. Whole process, `PY reference/puzzlesolver.py FILE | wc -c`, for nine copies
   of A0,B0,A1,B1 (362,880 solutions, 137 MB; targets 1.0 s, 100 MB) and of
   A0,A0,A1,A1 (5,806,080 solutions, 2.2 GB; targets 16 s, 256 MB): wall
   time, the solver's CPU time and peak RSS (from wait4), output size.

The machine is shared, so the load average is printed too; wall times under
load overstate, CPU times much less so.  Takes about half a minute
(--quick skips the 2.2 GB run).
"""

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOLVER = ROOT / "reference" / "puzzlesolver.py"
SYSTEM_PYTHON = "/usr/bin/python3"

# The hand-out's example (2 solutions), as in the spec's sample-input.txt.
SAMPLE = (
    "Y1,G0,R0,B1\nY0,B1,R1,B0\nY1,R1,G0,B0\nY1,G0,B0,G1\nB0,G0,R1,Y1\n"
    "Y0,G1,R1,B0\nR0,B1,Y1,G0\nY0,R1,B1,G0\nR0,G1,Y1,B0\n"
)
SAMPLE_TARGET_MS = 0.2


@dataclass(frozen=True)
class BigCase:
    name: str
    line: str  # the tile, nine times
    solutions: int
    size: int  # output bytes
    wall_target: float  # seconds
    rss_target: float  # MB
    skippable: bool  # by --quick


BIG_CASES = (
    BigCase("nine x A0,B0,A1,B1", "A0,B0,A1,B1", 362_880, 137_168_864, 1.0, 100, False),
    BigCase("nine x A0,A0,A1,A1", "A0,A0,A1,A1", 5_806_080, 2_194_698_465, 16.0, 256, True),
)


def time_sample_here(runs: int) -> tuple:
    """(median ms, min ms, median CPU ms) of parse + solve + render of the
    sample, in-process.  CPU time leaves out the time the process waited
    for a core: on a busy machine it is the steadier figure."""
    sys.path.insert(0, str(SOLVER.parent))
    import puzzlesolver as ps  # noqa: E402 (the file under test, not a package)

    text = SAMPLE
    expected = None
    times, cpu_times = [], []
    for index in range(runs + runs // 10):
        cpu_start, start = time.process_time(), time.perf_counter()
        puzzle = ps.parse(text)
        output = ps.render(puzzle, ps.solve(puzzle))
        elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu_start
        if index >= runs // 10:  # the first tenth warms up
            times.append(elapsed)
            cpu_times.append(cpu)
        if expected is None:
            expected = output
        assert output == expected
    return statistics.median(times) * 1e3, min(times) * 1e3, statistics.median(cpu_times) * 1e3


def time_sample_in(python: str, runs: int) -> tuple:
    """time_sample_here, run by another interpreter."""
    code = (
        f"import sys; sys.path.insert(0, {str(ROOT / 'bench')!r}); "
        f"import bench_reference as b; print(*b.time_sample_here({runs}))"
    )
    done = subprocess.run([python, "-c", code], capture_output=True, text=True, check=True)
    return tuple(float(figure) for figure in done.stdout.split())


def startup_ms(python: str, runs: int = 10) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([python, "-c", "pass"], check=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e3


def real_executable(python: str) -> str:
    """The interpreter a launcher (e.g. a pyenv shim) really runs."""
    done = subprocess.run(
        [python, "-c", "import sys; print(sys.executable)"],
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip()


def version(python: str) -> str:
    done = subprocess.run(
        [python, "-c", "import platform; print(platform.python_version())"],
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip()


def whole_process(python: str, puzzle: Path) -> dict:
    """Run `python puzzlesolver.py puzzle | wc -c`; the solver's figures."""
    start = time.perf_counter()
    solver = subprocess.Popen([python, str(SOLVER), str(puzzle)], stdout=subprocess.PIPE)
    counter = subprocess.Popen(["wc", "-c"], stdin=solver.stdout, stdout=subprocess.PIPE, text=True)
    solver.stdout.close()  # wc holds the only reading end now
    _, status, usage = os.wait4(solver.pid, 0)
    solver.returncode = os.waitstatus_to_exitcode(status)
    size = int(counter.communicate()[0].split()[0])
    wall = time.perf_counter() - start
    return {
        "wall": wall,
        "cpu": usage.ru_utime + usage.ru_stime,
        "rss_mb": usage.ru_maxrss / 1024,
        "bytes": size,
        "status": solver.returncode,
    }


def ratio(value: float, target: float) -> str:
    return f"{value / target:.2f} of target"


def report_sample(pythons: list, runs: int) -> None:
    print(
        f"\nsample puzzle, in-process parse + solve + render ({runs} runs), "
        f"target {SAMPLE_TARGET_MS} ms median:"
    )
    for python in dict.fromkeys(pythons):
        if python == sys.executable:
            median, low, cpu = time_sample_here(runs)
        else:
            median, low, cpu = time_sample_in(python, runs)
        print(
            f"  {python} ({version(python)}): median {median:.3f} ms, min {low:.3f} ms, "
            f"median CPU {cpu:.3f} ms  -> {ratio(median, SAMPLE_TARGET_MS)}"
        )


def report_startup(whole_process_python: str) -> None:
    print("\ninterpreter start-up (`-c pass`, median of 10), included in whole-process times:")
    on_path = shutil.which("python3")
    labels = [
        (SYSTEM_PYTHON, "system python"),
        (on_path, "python3 on PATH"),
        (sys.executable, "this benchmark's"),
        (whole_process_python, "the whole-process runs'"),
    ]
    behind = real_executable(on_path) if on_path else None
    if behind and behind != on_path:
        labels.append((behind, f"what {on_path} runs"))
    for python in dict.fromkeys(p for p, _ in labels if p and os.path.exists(p)):
        names = ", ".join(label for p, label in labels if p == python)
        print(f"  {python} ({version(python)}; {names}): {startup_ms(python):.1f} ms")


def report_big_case(python: str, case: BigCase, folder: Path, repeat: int) -> None:
    puzzle = folder / "puzzle.txt"
    puzzle.write_text((case.line + "\n") * 9)
    runs = [whole_process(python, puzzle) for _ in range(repeat)]
    walls = sorted(run["wall"] for run in runs)
    fastest = min(runs, key=lambda run: run["wall"])
    ok = all(run["bytes"] == case.size and run["status"] == 0 for run in runs)
    print(
        f"  {case.name} ({case.solutions:,} solutions, {fastest['bytes']:,} bytes"
        f"{'' if ok else ' -- UNEXPECTED SIZE OR EXIT STATUS'}):"
    )
    if repeat > 1:
        median = statistics.median(walls)
        print(
            f"    wall best {walls[0]:.2f} s, median {median:.2f} s of {repeat} "
            f"(cpu {fastest['cpu']:.2f} s)  -> {ratio(walls[0], case.wall_target)}, "
            f"median {ratio(median, case.wall_target)} ({case.wall_target:g} s)"
        )
    else:
        print(
            f"    wall {walls[0]:.2f} s (cpu {fastest['cpu']:.2f} s)"
            f"  -> {ratio(walls[0], case.wall_target)} ({case.wall_target:g} s)"
        )
    peak = max(run["rss_mb"] for run in runs)
    print(f"    peak RSS {peak:.1f} MB  -> {ratio(peak, case.rss_target)} ({case.rss_target:g} MB)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--python",
        default=SYSTEM_PYTHON if os.path.exists(SYSTEM_PYTHON) else sys.executable,
        help="interpreter for the whole-process runs "
        "and the second sample figure (default: the system python)",
    )
    parser.add_argument("--runs", type=int, default=3000, help="sample runs (default 3000)")
    parser.add_argument(
        "--repeat",
        type=int,
        default=3,
        help="runs of the 137 MB case, best and median shown (default 3)",
    )
    parser.add_argument("--quick", action="store_true", help="skip the 2.2 GB case")
    args = parser.parse_args()

    print(f"reference solver benchmark: {SOLVER.relative_to(ROOT)}")
    print(
        f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())} "
        f"({os.cpu_count()} cores)"
    )
    report_sample([sys.executable, args.python], args.runs)
    report_startup(args.python)
    print(
        f"\nwhole process, `{args.python} ({version(args.python)}) puzzlesolver.py FILE | wc -c`:"
    )
    with tempfile.TemporaryDirectory() as folder:
        for case in BIG_CASES:
            if args.quick and case.skippable:
                print(f"  {case.name}: skipped (--quick)")
            else:
                repeat = 1 if case.skippable else args.repeat
                report_big_case(args.python, case, Path(folder), repeat)
    return 0


if __name__ == "__main__":
    sys.exit(main())
