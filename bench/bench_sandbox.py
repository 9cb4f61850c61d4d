"""How much wall time the sandbox adds to one run of a tiny C program.

    .venv/bin/python bench/bench_sandbox.py [--runs 50] [--kind bubblewrap|rlimits|both]
                                            [--per-workdir 31] [--idle-ms 50] [--v2]

Runs the same binary bare (subprocess.run, output captured) and through the sandbox,
alternating, and prints the median of each, the median of the per-pair differences
(the overhead) and the ratio. Bubblewrap is measured both ways a run can start: warm
(through the worker's zygote: what grading uses) and one-shot (a bwrap per run: builds,
and machines without a C compiler). A warm zygote serves one workdir: the last figure
is the mean overhead when the workdir changes every --per-workdir runs (one submission's
cases), zygote start-ups included. The machine's load average is printed too: on a busy
machine every extra process hand-off waits for a core, so the overhead grows with load.

Where the grader makes cgroups, it also times how a run's first process moves into its
cgroup after some idle time (--idle-ms, as between two runs of a grading): through v1's
``tasks`` (its own thread, what the sandboxes do) and through ``cgroup.procs`` (a whole
process: the kernel's global lock, whose writer waits for an RCU grace period). With
--v2 every sandbox and that figure use the v2 hierarchy alone, as on a machine that
mounts no v1 one: there a run's first process is born in its group (clone3) instead.
"""

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from grader.core.model import Limits  # noqa: E402
from grader.sandbox import BubblewrapSandbox, RlimitSandbox, SandboxUnavailable  # noqa: E402
from grader.sandbox.cgroups import runs_cgroups  # noqa: E402

SOURCE = '#include <stdio.h>\nint main(int c, char **v) { printf("%s\\n", v[1]); return 0; }\n'
BUDGET_MS = 5.0


def compile_tiny(folder: Path) -> None:
    (folder / "tiny.c").write_text(SOURCE)
    subprocess.run(["gcc", "-O2", "-o", "tiny", "tiny.c"], cwd=folder, check=True)
    (folder / "case.txt").write_text("Y1,G0,R0,B1\n")


def bare(folder: Path) -> float:
    start = time.perf_counter()
    done = subprocess.run(["./tiny", str(folder / "case.txt")], cwd=folder, capture_output=True)
    elapsed = time.perf_counter() - start
    assert done.returncode == 0
    return elapsed


def boxed(box, folder: Path) -> float:
    start = time.perf_counter()
    result = box.run(["./tiny", "{input}"], folder, Limits(), input_file=folder / "case.txt")
    elapsed = time.perf_counter() - start
    assert result.exit_code == 0 and result.error is None, result
    return elapsed


def bare_bwrap(folder: Path) -> float:
    """A floor for reference: bwrap with namespaces and little else, no limits."""
    start = time.perf_counter()
    done = subprocess.run(
        [
            "bwrap",
            "--ro-bind",
            "/",
            "/",
            "--unshare-pid",
            "--unshare-net",
            "--unshare-ipc",
            "--unshare-uts",
            "--proc",
            "/proc",
            "--chdir",
            str(folder),
            "--die-with-parent",
            "./tiny",
            str(folder / "case.txt"),
        ],
        capture_output=True,
    )
    elapsed = time.perf_counter() - start
    assert done.returncode == 0, done.stderr
    return elapsed


def measure(box, folder: Path, runs: int) -> None:
    floor = box.name == "bubblewrap" and box.mode == "one-shot"
    for _ in range(3):  # warm caches (and the page cache) first
        bare(folder)
        boxed(box, folder)
    plain, sandboxed, minimal = [], [], []
    for _ in range(runs):
        plain.append(bare(folder))
        sandboxed.append(boxed(box, folder))
        if floor:
            minimal.append(bare_bwrap(folder))
    diffs = [b - a for a, b in zip(plain, sandboxed)]
    ms = lambda xs: statistics.median(xs) * 1000  # noqa: E731
    overhead = ms(diffs)
    label = f"{box.name} ({box.mode})" if box.name == "bubblewrap" else box.name
    label += "" if box.cgroups else " without cgroups (as in Gradescope's container)"
    print(f"{label}: {runs} runs each, alternating")
    print(f"  bare       median {ms(plain):7.2f} ms   min {min(plain) * 1000:7.2f} ms")
    print(f"  sandboxed  median {ms(sandboxed):7.2f} ms   min {min(sandboxed) * 1000:7.2f} ms")
    print(
        f"  overhead   median {overhead:7.2f} ms   min {min(diffs) * 1000:7.2f} ms   "
        f"ratio {ms(sandboxed) / ms(plain):.1f}x   "
        f"({'within' if overhead <= BUDGET_MS else 'over'} the {BUDGET_MS:g} ms budget)"
    )
    if floor:
        print(
            f"  for scale: bare bwrap (namespaces, /proc, nothing else) "
            f"median {ms(minimal):.2f} ms, min {min(minimal) * 1000:.2f} ms"
        )


def amortized(box, folder: Path, runs: int, per_workdir: int) -> None:
    """Mean overhead when every per_workdir runs come from another workdir."""
    copies = []
    for index in range(max(1, runs // per_workdir)):
        copy = folder.parent / f"{folder.name}-{index}"
        shutil.copytree(folder, copy)
        copies.append(copy)
    diffs = []
    for copy in copies:
        for _ in range(per_workdir):
            diffs.append(boxed(box, copy) - bare(copy))
    mean = statistics.fmean(diffs) * 1000
    print(
        f"  a new workdir every {per_workdir} runs ({len(diffs)} runs, zygote start-ups "
        f"included): mean overhead {mean:.2f} ms, median "
        f"{statistics.median(diffs) * 1000:.2f} ms"
    )


def moves(runs: int, idle_ms: float, versions: tuple[int, ...]) -> None:
    """Median time a new single-threaded process takes to move itself into a cgroup,
    idle_ms after the last move, each way."""
    cgroups, absent = runs_cgroups(True, versions)
    if cgroups is None:
        print(f"cgroup moves: not measured ({absent})")
        return
    group = cgroups.group("bench")
    ways = {"cgroup.procs": [os.open(p, os.O_WRONLY | os.O_CLOEXEC) for p in group.procs_files()]}
    if all(parent.version == 1 for parent in cgroups.parents):
        ways["tasks (used)"] = group.open_joins()  # v2's way is clone3: zygote.c, reaper.c
    print(
        f"a new process moving itself into a run's cgroup, {idle_ms:g} ms after the last "
        f"move ({cgroups.describe()}), {runs} moves each way:"
    )
    try:
        for label, fds in ways.items():
            taken = [_move(fds, idle_ms / 1000) for _ in range(runs)]
            print(
                f"  {label:13} median {statistics.median(taken) * 1000:7.3f} ms   "
                f"max {max(taken) * 1000:7.3f} ms"
            )
    finally:
        for fds in ways.values():
            for fd in fds:
                os.close(fd)
        group.close()
        cgroups.close()


def _move(fds: list[int], idle: float) -> float:
    time.sleep(idle)
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        start = time.perf_counter()
        for fd in fds:
            os.write(fd, b"0")
        os.write(write, str(time.perf_counter() - start).encode())
        os._exit(0)
    os.close(write)
    taken = float(os.read(read, 64))
    os.close(read)
    os.waitpid(pid, 0)
    return taken


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--kind", choices=("bubblewrap", "rlimits", "both"), default="both")
    parser.add_argument(
        "--per-workdir",
        type=int,
        default=31,
        help="runs per workdir for the amortized figure (default: 31 cases)",
    )
    parser.add_argument("--idle-ms", type=float, default=50.0, help="before each cgroup move")
    parser.add_argument(
        "--v2",
        action="store_true",
        help="the runs' cgroups in the v2 hierarchy alone (as where no v1 one is mounted)",
    )
    args = parser.parse_args()
    if shutil.which("gcc") is None:
        print("gcc not found: nothing to measure", file=sys.stderr)
        return 1
    load = os.getloadavg() if hasattr(os, "getloadavg") else (float("nan"),) * 3
    print(
        f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} on {os.cpu_count()} cores; "
        f"running as uid {os.geteuid()}"
    )
    versions = (2,) if args.v2 else (1, 2)
    boxes = []
    if args.kind in ("bubblewrap", "both"):
        for warm in (True, False):
            try:
                box = BubblewrapSandbox(warm=warm, cgroup_versions=versions)
                box.probe()
                boxes.append(box)
            except SandboxUnavailable as exc:
                print(f"bubblewrap: unavailable ({exc})")
                break
    if args.kind in ("rlimits", "both"):
        boxes.append(RlimitSandbox(cgroup_versions=versions))
        boxes.append(RlimitSandbox(cgroups=False))
    with tempfile.TemporaryDirectory(prefix="bench-sandbox-") as tmp:
        work = Path(tmp) / "work"
        work.mkdir()
        compile_tiny(work)
        for box in boxes:
            measure(box, work, args.runs)
            if getattr(box, "mode", None) == "warm":
                amortized(box, work, max(args.runs, 4 * args.per_workdir), args.per_workdir)
    for box in boxes:
        if box.cgroups:
            print(f"{box.name}: {box.cgroups.describe()}")
    moves(min(args.runs, 40), args.idle_ms, versions)
    return 0


if __name__ == "__main__":
    sys.exit(main())
