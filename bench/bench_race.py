"""Racing on every core against the exhaustive session: wall time and the rank-1 set.

    .venv/bin/python bench/bench_race.py [--programs 40] [--sessions 5] [--family CASE]
                                          [--near-ties]

Makes a class of N programs, copies of the shipped example class's four correct ones
(C, C++, Java, Python) in turn (with --near-ties, every other C program is the C example
slowed by a loop at the start of main, of one of three sizes: from a few percent to
about a fifth of its run, programs that may or may not tie with the fastest, the hard
case for the rank-1 set), grades it once on the manifest's timed cases, then for
each session draws one puzzle afresh (`testcases draw --family`, a new seed each time)
and times the class twice on it from two copies of the graded results: the default
session (every agreeing core, racing) and `--exhaustive` (one core, every run), their
order alternating between sessions, and a second exhaustive session from a third copy
(the baseline: how often two exhaustive sessions agree). Prints, per session, the
cores that timed the racing session (and when, for one that did not time it all), each
one's wall time (the whole `grader leaderboard` command), their ratio, the runs each
made, and whether the rank-1 sets (who gets the bonus) are the same: racing's against
the exhaustive session's, the two exhaustive ones against each other, and the race
replayed on the exhaustive session's own runs (grader.leaderboard.racing's steps, each
program's runs cut where the race would have stopped it): the same rank-1 set there
means the race never stops a program that the same measurements rank 1. The issue's
bar: 16 programs, one session, ratio at most 0.4, the same rank-1 set.
"""

import argparse
import json
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from grader.leaderboard.racing import first_look, next_step  # noqa: E402
from grader.statistics.timing import Rule, ranks  # noqa: E402
from testcases.manifest import copy_subset  # noqa: E402

CORRECT = ("ada-c", "grace-cpp", "james-java", "guido-py")
# The near-ties' loops (iterations of a volatile counter): about +5 %, +15 % and +40 % of
# the C example's 1.4 ms CPU median on the drawn puzzle here (its leaderboard page), the
# loop alone measured at 0.055 ms per 100k iterations (gcc -O2, this machine kind).
SPINS = (130_000, 380_000, 1_000_000)
MAIN = "int main(int argc, char **argv)\n{\n"


def run(*args: str) -> None:
    subprocess.run([sys.executable, *args], cwd=ROOT, check=True, stdout=subprocess.DEVNULL)


def make_class(folder: Path, count: int, near_ties: bool = False) -> None:
    slowed = 0
    for index in range(count):
        example = CORRECT[index % len(CORRECT)]
        if not (near_ties and example == "ada-c" and index % 8 == 4):
            shutil.copytree(ROOT / "submissions" / example, folder / f"{example}-{index:03d}")
            continue
        spin = SPINS[slowed % len(SPINS)]
        slowed += 1
        made = folder / f"ada-c-slowed-{spin // 1000}k-{index:03d}"
        shutil.copytree(ROOT / "submissions" / example, made)
        source = made / "puzzlesolver.c"
        text = source.read_text()
        assert MAIN in text, "the C example's main is where the loop goes"
        loop = f"    for (volatile long spin = 0; spin < {spin}L; spin++) {{}}\n"
        source.write_text(text.replace(MAIN, MAIN + loop, 1))


def timed_manifest(folder: Path, family: str) -> Path:
    """The shipped manifest's `family` case alone (every program passes it)."""
    return copy_subset(ROOT / "testcases" / "manifest.json", folder / "manifest.json", {family})


def board(manifest: Path, results: Path, draw: Path, *extra: str) -> tuple[float, dict, int]:
    """(wall seconds, leaderboard.json, timed runs stored) of one session."""
    start = time.monotonic()
    run(
        "-m",
        "grader",
        "--manifest",
        str(manifest),
        "leaderboard",
        "--results",
        str(results),
        "--puzzles",
        str(draw),
        "--busy-ok",
        *extra,
    )
    took = time.monotonic() - start
    doc = json.loads((results / "leaderboard.json").read_text())
    with sqlite3.connect(results / "grader.db") as db:
        stored = db.execute("SELECT COUNT(*) FROM timings").fetchone()[0]
    return took, doc, stored


def cores_of(doc: dict) -> str:
    """The cores that timed the session, with when for one that did not time it all
    (seconds into the timing): '0,1', '1,0[0.1-2.3,4.0-]'."""
    machine = doc["machine"]
    spans = {c["core"]: c["timed_s"] for c in machine["core_reference_s"] if "timed_s" in c}

    def shown(core: int) -> str:
        if core not in spans:
            return str(core)
        inside = ",".join(
            f"{s['from']:g}-" + ("" if s["to"] is None else f"{s['to']:g}") for s in spans[core]
        )
        return f"{core}[{inside}]"

    return ",".join(shown(core) for core in machine["timing_cores"])


def winners(doc: dict) -> list[str]:
    return sorted(e["id"] for e in doc["ranked"] if e["winner"])


DEFAULT_RULE = Rule(0.03, 0.05)  # course.toml's defaults


def replayed(results: Path, runs: int = 7, rule: Rule = DEFAULT_RULE):
    """(the rank-1 set of the exhaustive session's runs, the rank-1 set of the same runs
    cut where the race would have stopped each program)."""
    with sqlite3.connect(results / "grader.db") as db:
        rows = db.execute(
            "SELECT program_id, run_index, cpu_seconds FROM timings "
            "WHERE program_id NOT LIKE 'startup/%' ORDER BY run_index"
        ).fetchall()
    full: dict[str, list[float]] = {}
    for pid, _, cpu in rows:  # one case: a run's total is its CPU time
        full.setdefault(pid, []).append(cpu)
    look = first_look(runs, rule) or runs
    following = dict.fromkeys(full, look)
    racing = set(full)
    while True:
        samples = {p: full[p][: following[p]] for p in racing}
        step = next_step(samples, following, runs, rule)
        if step.complete:
            following.update(dict.fromkeys(step.complete, runs))
            continue
        racing -= set(step.stop)
        if step.round is None:
            break
        following.update(dict.fromkeys(step.round[1], step.round[0] + 1))

    def rank1(samples: dict) -> list[str]:
        return sorted(p for p, r in ranks(samples, rule).items() if r == 1)

    return rank1(full), rank1({p: full[p][: following[p]] for p in full})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--programs", type=int, default=40)
    parser.add_argument("--sessions", type=int, default=5)
    parser.add_argument("--family", default="timed-3-letters-a", help="the timed case drawn")
    parser.add_argument(
        "--near-ties", action="store_true", help="every other C program slowed a little"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-race-") as tmp:
        root = Path(tmp)
        make_class(root / "class", args.programs, args.near_ties)
        manifest = timed_manifest(root / "cases", args.family)
        graded = root / "graded"
        run("-m", "grader", "--manifest", str(manifest), "grade", str(root / "class"),
            "--results", str(graded))  # fmt: skip
        print(
            f"{args.programs} programs ({', '.join(CORRECT)} in turn"
            + ("; every other C one slowed a little" if args.near_ties else "")
            + "), one drawn puzzle "
            f"of {args.family} per session, {args.sessions} session(s)"
        )
        print(
            f"{'session':>7} {'first':>10} {'cores':>20} {'racing s':>9} {'exhaustive s':>12} {'ratio':>6} "
            f"{'runs':>9} {'same rank 1':>11} {'ex = ex':>7} {'replay':>6}  rank-1 set (exhaustive)"
        )
        tally = {"ratios": [], "same": 0, "baseline": 0, "replay": 0}
        for number in range(args.sessions):
            session(root, graded, manifest, args.family, number, tally)
        ratios = tally["ratios"]
        print(
            f"\nratio of wall time (racing / exhaustive): median {statistics.median(ratios):.2f}, "
            f"worst {max(ratios):.2f}; the same rank-1 set in {tally['same']} of "
            f"{args.sessions} (two exhaustive sessions: {tally['baseline']} of {args.sessions}; "
            f"the race replayed on the exhaustive runs: {tally['replay']} of {args.sessions})"
        )


def session(root: Path, graded: Path, manifest: Path, family: str, number: int, tally) -> None:
    """One drawn puzzle, timed racing, exhaustive and exhaustive again; one line."""
    draw = root / f"draw-{number}.json"
    run("-m", "testcases", "draw", "--seed", str(1000 + number), "--family", family,
        "-o", str(draw))  # fmt: skip
    found = {}
    order = ("racing", "exhaustive") if number % 2 == 0 else ("exhaustive", "racing")
    for kind in (*order, "again"):
        results = root / f"results-{number}-{kind}"
        shutil.copytree(graded, results)
        extra = () if kind == "racing" else ("--exhaustive",)
        found[kind] = board(manifest, results, draw, *extra)
    (race_s, race_doc, race_runs), (ex_s, ex_doc, ex_runs) = found["racing"], found["exhaustive"]
    tally["ratios"].append(race_s / ex_s)
    agree = winners(race_doc) == winners(ex_doc)
    again = winners(found["again"][1]) == winners(ex_doc)
    full, cut = replayed(root / f"results-{number}-exhaustive")
    tally["same"] += agree
    tally["baseline"] += again
    tally["replay"] += full == cut
    yes = {True: "yes", False: "NO"}
    print(
        f"{number + 1:>7} {order[0]:>10} {cores_of(race_doc):>20} {race_s:>9.1f} {ex_s:>12.1f} "
        f"{race_s / ex_s:>6.2f} "
        f"{race_runs:>4}/{ex_runs:<4} {yes[agree]:>11} {yes[again]:>7} {yes[full == cut]:>6}  "
        f"{', '.join(winners(ex_doc))}"
    )
    if not agree:
        print(f"        racing's rank-1 set: {', '.join(winners(race_doc))}")
    if not again:
        print(f"        the second exhaustive session's: {', '.join(winners(found['again'][1]))}")


if __name__ == "__main__":
    main()
