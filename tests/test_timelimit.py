"""`testcases timelimit`: limits proposed from runs in the real sandbox, the TLE
margin warning, the [timelimit] settings, and the "sensitive to the time limit"
mark of grade, show and the feedback pages."""

import csv
import re

import pytest

from grader.cli import main as grader_main
from grader.course.config import ConfigError, TimeLimitConfig, load_config
from grader.grading.sensitivity import near_limit
from testcases import cli as testcases_cli
from testcases.timelimit import Sample, _round_up, propose
from tests.helpers import NO_SOLUTION, ROOT, SAMPLE_TEXT, make_cases

REFERENCE = ROOT / "reference" / "puzzlesolver.py"
ENDLESS = "while True:\n    pass\n"


def sample(cpu, wall=0.0, program="p"):
    return Sample(program, "python", "c", cpu, wall)


# ------------------------------------------------------------------ the arithmetic


def test_cpu_limit_is_k_times_the_slowest_run_rounded_up():
    settings = TimeLimitConfig(k=2, runs=1, round_to=0.5, wall_factor=2)
    proposal = propose([sample(0.1), sample(0.3251, program="slow"), sample(0.2)], settings)
    assert proposal.cpu_seconds == 1.0 and proposal.slowest.program == "slow"
    assert proposal.wall_seconds == 2.0
    assert propose([sample(0.25)], settings).cpu_seconds == 0.5  # exactly on a step
    assert propose([sample(0.0001)], settings).cpu_seconds == 0.5  # never 0
    assert propose([sample(1.3)], TimeLimitConfig(k=3, round_to=1)).cpu_seconds == 4
    # a wall time longer than the CPU time (a JVM starting) raises the wall limit
    slow_wall = propose([sample(0.2, wall=1.6)], settings)
    assert slow_wall.cpu_seconds == 0.5 and slow_wall.wall_seconds == 3.5
    assert _round_up(0.30000000000000004, 0.1) == 0.3  # float noise is no extra step


@pytest.mark.parametrize(
    "text, message",
    [
        ("k = 0.5", "'timelimit.k': must be at least 1"),
        ("runs = 0", "'timelimit.runs': must be at least 1"),
        ("round_to = 0", "'timelimit.round_to': must be positive"),
        ("wall_factor = true", "'timelimit.wall_factor': must be int or float"),
        ("kk = 2", "unknown key 'timelimit.kk'"),
    ],
)
def test_bad_timelimit_settings_name_the_key(tmp_path, text, message):
    course = tmp_path / "course.toml"
    course.write_text(f"[timelimit]\n{text}\n")
    with pytest.raises(ConfigError, match=re.escape(message)):
        load_config(course)


def test_the_projects_settings_are_the_defaults():
    assert load_config().timelimit == TimeLimitConfig()


# ------------------------------------------------------------------ in the sandbox


@pytest.fixture
def timing_class(tmp_path):
    manifest = make_cases(tmp_path / "cases", {"sample": SAMPLE_TEXT, "none": NO_SOLUTION})
    examples = tmp_path / "examples"
    for name, source, declared in (
        ("good", REFERENCE.read_text(), 'verdict = "AC"\n'),
        # declared TLE but correct and fast: the limit does not separate it
        ("not-slow", REFERENCE.read_text(), 'verdict = "TLE"\n'),
        ("endless", ENDLESS, 'verdict = "TLE"\n'),
        ("wrong", "print('hello')\n", 'verdict = "WA"\n'),
    ):
        folder = examples / name
        folder.mkdir(parents=True)
        (folder / "puzzlesolver.py").write_text(source)
        (folder / "expected.toml").write_text(declared)
    return manifest, examples


def test_timelimit_times_the_passing_programs_and_warns_about_a_weak_tle(
    timing_class, tmp_path, capsys
):
    manifest, examples = timing_class
    runs_csv = tmp_path / "runs.csv"
    code = testcases_cli.main(
        [
            "--manifest",
            str(manifest),
            "timelimit",
            str(examples),
            "--runs",
            "2",
            "--csv",
            str(runs_csv),
        ]
    )
    out, err = capsys.readouterr()
    assert code == 0, err
    rows = list(csv.DictReader(runs_csv.open()))
    # the reference and the one example expected to pass, 2 cases x 2 runs each
    assert sorted({r["program"] for r in rows}) == ["good", "reference"]
    assert len(rows) == 2 * 2 * 2
    slowest = max(float(r["cpu_seconds"]) for r in rows)
    assert 0 < slowest < 5
    expected_cpu = _round_up(2 * slowest, 0.5)
    assert f"proposed: CPU {expected_cpu:g} s" in out
    assert f"[limits]\ncpu_seconds = {expected_cpu:g}\n" in out
    assert "reference" in out and "good" in out
    # the correct program declared TLE is named, for both its cases; the endless loop is not
    warned = [line for line in err.splitlines() if "expected TLE" in line]
    assert len(warned) == 2 and all(
        line.startswith("testcases: warning: not-slow, case ") for line in warned
    ), err
    assert "ends AC after" in warned[0]
    assert "endless" not in err


def test_a_run_expected_to_pass_that_fails_stops_the_proposal(timing_class, capsys):
    manifest, examples = timing_class
    (examples / "wrong" / "expected.toml").write_text('verdict = "AC"\n')  # it prints hello
    code = testcases_cli.main(
        ["--manifest", str(manifest), "timelimit", str(examples), "--runs", "1"]
    )
    out, err = capsys.readouterr()
    assert code == 1
    assert "wrong, case 'sample', run 1: WA, not AC" in err
    assert "proposed" not in out


# ------------------------------------------------------------------ sensitive to the limit


def test_near_limit_is_a_finished_run_over_three_quarters_of_the_limit():
    assert near_limit(0.76, "AC", 1.0) and near_limit(0.75, "WA", 1.0)
    assert not near_limit(0.74, "AC", 1.0)
    assert not near_limit(1.0, "TLE", 1.0)  # over the limit: a TLE, not "close"
    assert not near_limit(None, "AC", 1.0) and not near_limit(0.9, None, 1.0)


BURN = """import time
while time.process_time() < {seconds}:
    pass
"""


def test_grade_show_and_feedback_mark_a_run_close_to_the_limit(tmp_path, capsys):
    """A correct program that burns 0.40 s of CPU first, under a 0.5 s limit: AC, and
    marked sensitive; the plain reference is not."""
    manifest = make_cases(tmp_path / "cases", {"none": NO_SOLUTION})
    course = tmp_path / "course.toml"
    course.write_text("[limits]\ncpu_seconds = 0.5\nwall_seconds = 5\n")
    subs = tmp_path / "subs"
    for name, prefix in (("close", BURN.format(seconds=0.40)), ("quick", "")):
        (subs / name).mkdir(parents=True)
        source = REFERENCE.read_text()
        (subs / name / "puzzlesolver.py").write_text(
            source.replace("\nimport sys\n", "\nimport sys\n" + prefix, 1)
        )
    common = ["--course", str(course), "--manifest", str(manifest)]
    results = tmp_path / "results"
    assert grader_main(common + ["grade", str(subs), "--results", str(results), "--jobs", "1"]) == 0
    table = capsys.readouterr().out
    lines = {line.split()[0]: line for line in table.splitlines() if line[:5] in ("close", "quick")}
    assert "AC:1" in lines["close"] and "sensitive (1 case >75%)" in lines["close"]
    assert "AC:1" in lines["quick"] and "sensitive" not in lines["quick"]
    assert "time limit" in table.splitlines()[0]

    assert grader_main(common + ["show", "close", "--results", str(results)]) == 0
    assert "(sensitive to the time limit: over 75% of 0.5 s)" in capsys.readouterr().out

    pages = tmp_path / "pages"
    assert grader_main(common + ["export", "html", str(pages), "--results", str(results)]) == 0
    close = (pages / "close.html").read_text()
    assert "sensitive to the time limit: 1 case used over 75% of 0.5 s CPU" in close
    assert '<span class="near"' in close
    assert "sensitive" not in (pages / "quick.html").read_text().replace(".sensitive", "")
