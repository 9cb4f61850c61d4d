"""A leaderboard cheat: the same correct program run in a child nobody waits for.

The forking twin (tests/hostile/fork_twin/) of a correct C program does all its work
in a child; its parent only waits for EOF on a pipe and exits without wait(). The
auto-reaping twin (tests/hostile/autoreap_twin/) also has the kernel reap that child
itself (SA_NOCLDWAIT, SIGCHLD ignored), so that its CPU time reaches no one's
RUSAGE_CHILDREN. Their CPU time must count as the honest program's does: neither ever
ranks above it, in the warm bubblewrap sandbox and in the rlimits fallback, with a
cgroup per run and without one (GRADER_CGROUPS=off: as in a container).
"""

import json
import shutil

import pytest

from grader.cli import main as grader_main
from grader.sandbox import CGROUPS_ENV
from tests.helpers import BUSY_OK, ROOT, draw_of, manifest_subset

pytestmark = pytest.mark.slow

HONEST = ROOT / "submissions" / "ada-c" / "puzzlesolver.c"
HOSTILE = ROOT / "tests" / "hostile"


@pytest.mark.parametrize(
    "twin, sandbox, cgroups",
    [
        ("fork_twin", "bubblewrap", "on"),
        ("fork_twin", "rlimits", "on"),
        ("autoreap_twin", "bubblewrap", "on"),
        ("autoreap_twin", "rlimits", "off"),
    ],
)
def test_a_forking_twin_never_ranks_above_the_honest_program(
    tmp_path, monkeypatch, twin, sandbox, cgroups
):
    monkeypatch.setenv(CGROUPS_ENV, cgroups)
    klass = tmp_path / "class"
    (klass / "honest").mkdir(parents=True)
    (klass / "twin").mkdir()
    shutil.copy(HONEST, klass / "honest" / "puzzlesolver.c")
    (klass / "twin" / "puzzlesolver.c").write_text(
        (HOSTILE / twin / "puzzlesolver.c").read_text().replace("@HONEST@", HONEST.read_text())
    )
    manifest = manifest_subset(tmp_path / "cases", ("timed-3-letters-a", "sample"))
    course = tmp_path / "course.toml"
    course.write_text(f'sandbox = "{sandbox}"\n[leaderboard]\nruns = 7\nwarmup = 1\n')
    results = tmp_path / "results"
    args = ["--course", str(course), "--manifest", str(manifest)]
    assert grader_main(args + ["grade", str(klass), "--results", str(results)]) == 0
    draw = draw_of(manifest, tmp_path / "draw.json")
    assert (
        grader_main(
            args + ["leaderboard", "--results", str(results), "--puzzles", str(draw), BUSY_OK]
        )
        == 0
    )
    doc = json.loads((results / "leaderboard.json").read_text())
    ranked = {entry["id"]: entry for entry in doc["ranked"]}
    assert set(ranked) == {"honest", "twin"}, doc["not_eligible"]
    honest, twin = ranked["honest"], ranked["twin"]
    assert twin["rank"] >= honest["rank"], (honest, twin)
    # The same work, plus a fork, so its CPU past the start-up is the honest program's.
    # Were the child's CPU uncounted, it would be about none (the parent only waits).
    # Half is the margin: two medians of 2 ms differ by 10% on a busy machine.
    assert twin["beyond_startup_cpu_s"] >= 0.5 * honest["beyond_startup_cpu_s"], (honest, twin)
    expected = "cgroup" if cgroups == "on" else "reaped"
    assert doc["machine"]["cpu_accounting"] == expected, doc["machine"]


def test_answers_stored_for_the_timed_cases_buy_nothing_on_puzzles_drawn_afresh(tmp_path):
    """A program that stores the answers to the timed cases (learned, say, from figures
    published before) and solves honestly otherwise: on those cases themselves it beats
    its honest twin by far (what the leaderboard used to time); on puzzles drawn afresh
    for the session (testcases draw, from each case's family) it does the same work and
    never ranks above it. (Python: its honest work dwarfs the start-up jitter that
    would blur a 2 ms C program's ratio.)"""

    honest = ROOT / "submissions" / "guido-py" / "puzzlesolver.py"
    klass = tmp_path / "class"
    (klass / "honest").mkdir(parents=True)
    (klass / "hardcoder").mkdir()
    shutil.copy(honest, klass / "honest" / "puzzlesolver.py")
    timed = ("timed-3-letters-a", "timed-3-letters-b")
    manifest = manifest_subset(tmp_path / "cases", (*timed, "sample"))
    hidden = ROOT / "testcases" / "hidden"
    learned = {
        (hidden / f"{cid}.txt").read_bytes(): (hidden / f"{cid}.out").read_bytes() for cid in timed
    }
    source = (HOSTILE / "hardcoder" / "puzzlesolver.py").read_text()
    source = source.replace("@LEARNED@", repr(learned)).replace(
        "@HONEST@", repr(honest.read_text())
    )
    (klass / "hardcoder" / "puzzlesolver.py").write_text(source)
    course = tmp_path / "course.toml"
    course.write_text("[leaderboard]\nruns = 5\nwarmup = 1\n")
    results = tmp_path / "results"
    args = ["--course", str(course), "--manifest", str(manifest)]
    assert grader_main(args + ["grade", str(klass), "--results", str(results)]) == 0

    def session(draw_file):
        command = ["leaderboard", "--results", str(results), "--puzzles", str(draw_file), BUSY_OK]
        assert grader_main(args + command) == 0
        doc = json.loads((results / "leaderboard.json").read_text())
        ranked = {entry["id"]: entry for entry in doc["ranked"]}
        assert set(ranked) == {"honest", "hardcoder"}, doc["not_eligible"]
        return ranked["honest"], ranked["hardcoder"]

    honest_run, cheat = session(draw_of(manifest, tmp_path / "old.json"))  # the cases themselves
    assert cheat["rank"] < honest_run["rank"], (honest_run, cheat)  # it would win the bonus
    assert cheat["cpu_median_s"] < 0.8 * honest_run["cpu_median_s"], (honest_run, cheat)
    # Fresh puzzles of the same families (3 letters, hundreds of solutions): the pool's
    # large ones, generated apart from the cases (a real draw of these families takes
    # seconds of generating; tests/test_draws.py draws for real).
    fresh = draw_of(ROOT / "testcases" / "pool" / "manifest.json", tmp_path / "fresh.json",
                    seed=2, ids=("large-3-letters-1", "large-3-letters-2"))  # fmt: skip
    document = json.loads(fresh.read_text())
    for puzzle, family in zip(document["puzzles"], timed):
        puzzle["family"] = family
    fresh.write_text(json.dumps(document))
    honest_run, cheat = session(fresh)
    assert cheat["rank"] >= honest_run["rank"], (honest_run, cheat)
    assert cheat["cpu_median_s"] >= 0.9 * honest_run["cpu_median_s"], (honest_run, cheat)
