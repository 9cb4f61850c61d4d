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
from tests.helpers import ROOT
from tests.test_leaderboard import _manifest

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
    manifest = _manifest(tmp_path / "cases", ("timed-3-letters-a", "sample"))
    course = tmp_path / "course.toml"
    course.write_text(f'sandbox = "{sandbox}"\n[leaderboard]\nruns = 7\nwarmup = 1\n')
    results = tmp_path / "results"
    args = ["--course", str(course), "--manifest", str(manifest)]
    assert grader_main(args + ["grade", str(klass), "--results", str(results)]) == 0
    assert grader_main(args + ["leaderboard", "--results", str(results)]) == 0
    doc = json.loads((results / "leaderboard.json").read_text())
    ranked = {entry["id"]: entry for entry in doc["ranked"]}
    assert set(ranked) == {"honest", "twin"}, doc["not_eligible"]
    honest, twin = ranked["honest"], ranked["twin"]
    assert twin["rank"] >= honest["rank"], (honest, twin)
    # the same work, plus a fork: never far below the honest figure
    assert twin["cpu_median_s"] >= 0.9 * honest["cpu_median_s"], (honest, twin)
    expected = "cgroup" if cgroups == "on" else "reaped"
    assert doc["machine"]["cpu_accounting"] == expected, doc["machine"]
