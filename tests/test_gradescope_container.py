"""The Gradescope autograder zip, run as Gradescope really runs it: in a container that
refuses new namespaces, with no writable cgroup and half a CPU (tests/container.py
builds one from what this machine has). The zip must grade there, in the mode the
export chose, and say so; a zip that worked only where user namespaces exist fails
here."""

import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from grader.cases.manifest import load_cases
from testcases.expected import load_expected
from tests.container import container_argv, cpu_quota, why_not
from tests.helpers import REAL_MANIFEST, ROOT, SUBMISSIONS, assert_valid, export, gradescope_layout

pytestmark = pytest.mark.slow

HALF_A_CPU = 0.5
# C and Python programs, right and wrong, and one that does not build (a JVM under half a
# CPU would take most of a minute: the Java example is graded in tests/test_exports.py).
# Every example's verdicts under this same fallback (no cgroup) are checked once, in
# tests/test_verify_examples.py: here, what the container changes.
EXAMPLES = ("ada-c", "guido-py", "wrong-plural", "compile-error")


@pytest.fixture(scope="module")
def container():
    problem = why_not()
    if problem:
        pytest.fail(f"the container cannot be made here: {problem}")


@pytest.fixture
def public_tmp():
    """A folder any user may pass, as /autograder is (pytest's own are root's alone)."""
    folder = Path(tempfile.mkdtemp(prefix="gradescope-"))
    os.chmod(folder, 0o755)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def kept_below(place: str, depth: int = 3) -> list[str]:
    """The files named kept-* in `place` and up to `depth` - 1 folders below it (as deep
    as the attack writes). A folder that goes while it is read (another test's
    temporary one, under pytest -n) or that cannot be read is passed over."""
    found, level = [], [place]
    for _ in range(depth):
        below = []
        for folder in level:
            try:
                with os.scandir(folder) as entries:
                    for entry in entries:
                        if entry.name.startswith("kept-"):
                            found.append(entry.path)
                        with contextlib.suppress(OSError):
                            if entry.is_dir():
                                below.append(entry.path)
            except OSError:
                continue
        level = below
    return found


def _in_container(command: list[str], cwd: Path, env: dict, timeout: int = 300):
    with cpu_quota(HALF_A_CPU) as procs:
        return subprocess.run(
            container_argv(command),
            cwd=cwd,
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
            preexec_fn=lambda: Path(procs).write_text("0"),  # into the quota first
        )


def test_the_container_refuses_what_dockers_refuses(container, tmp_path):
    probe = (
        "from grader.sandbox.namespaces import namespace_refusal\n"
        "from grader.sandbox.cgroups import runs_cgroups\n"
        "from grader.sandbox.cgroupfs import usable_cpus\n"
        "print(namespace_refusal()); print(runs_cgroups(True)[1]); print(usable_cpus())\n"
        "print([l for l in open('/proc/self/status') if l.startswith('CapEff')][0].split()[1])\n"
    )
    done = _in_container([sys.executable, "-c", probe], ROOT, dict(os.environ))
    assert done.returncode == 0, done.stderr
    refusal, cgroups, cpus, caps = done.stdout.splitlines()
    assert refusal.startswith("namespaces are not permitted here")
    assert "cannot create a cgroup" in cgroups and "Read-only file system" in cgroups
    assert cpus == "1"
    assert not int(caps, 16) & (1 << 21)  # no CAP_SYS_ADMIN


def _run_autograder(root: Path, submission: Path, settled: bool = True):
    """The results.json run_autograder writes (`settled`); else, where the grade cannot
    be settled, what it printed for the instructors (it writes no results.json)."""
    if (root / "submission").exists():
        shutil.rmtree(root / "submission")
    shutil.copytree(submission, root / "submission")
    shutil.rmtree(root / "results", ignore_errors=True)
    (root / "results").mkdir()
    env = {**os.environ, "AUTOGRADER_ROOT": str(root), "AUTOGRADER_PYTHON": sys.executable}
    env.pop("PYTHONPATH", None)
    done = _in_container([str(root / "run_autograder")], root, env)
    if not settled:
        assert done.returncode == 1 and not (root / "results" / "results.json").exists()
        return done.stdout + done.stderr
    assert done.returncode == 0, done.stdout + done.stderr
    (root / "results" / "stdout").write_text(done.stdout + done.stderr)
    document = json.loads((root / "results" / "results.json").read_text())
    assert_valid(document, "gradescope_results")
    return document


def test_the_zip_grades_the_example_class_in_gradescopes_container(container, public_tmp):
    out = public_tmp / "autograder.zip"
    assert export("export", "gradescope", out) == 0
    root = gradescope_layout(out, public_tmp / "autograder")
    case_ids = [case.id for case in load_cases(REAL_MANIFEST)]
    for name in EXAMPLES:
        document = _run_autograder(root, SUBMISSIONS / name)
        expected = load_expected(SUBMISSIONS / name, case_ids)
        assert expected is not None
        got = {t["name"].split(" (")[0]: t["extra_data"]["verdict"] for t in document["tests"]}
        assert got == {cid: expected.verdict(cid) for cid in case_ids}, name
        isolation = document["extra_data"]["isolation"]
        # the mode the export chose: the fallback, since this container refuses namespaces
        assert isolation["mode"] == "rlimits", isolation
        assert "namespaces are not permitted here" in isolation["why"], isolation
        assert isolation["not_isolated"] and isolation["cpu_accounting"] == "reaped"
        log = (root / "results" / "stdout").read_text()
        assert "Isolation: rlimits" in log and "install bubblewrap" not in log
    assert document["leaderboard"] if name in ("ada-c", "guido-py") else True


def test_a_zip_requiring_bubblewrap_says_why_it_graded_nothing(container, public_tmp):
    """Nothing graded: no results.json (Gradescope's own "the autograder failed", never a
    0), and the real cause in what the instructors see."""
    out = public_tmp / "strict.zip"
    assert export("export", "gradescope", out, "--require-bubblewrap") == 0
    root = gradescope_layout(out, public_tmp / "autograder")
    said = _run_autograder(root, SUBMISSIONS / "ada-c", settled=False)
    assert "namespaces are not permitted here" in said and "install" not in said
    assert "no results.json written: the grade is not settled" in said


def test_nothing_a_run_leaves_where_any_user_may_write_reaches_the_next(container, public_tmp):
    """A program that keeps every input it sees in a file wherever any user may write
    (/tmp, /run/lock, a world-writable folder below them) and prints what it finds: run
    twice in the container (the fallback: one machine for both), the second run's
    visible tests show no hidden input, and nothing of either run is left behind."""
    import uuid

    from tests.helpers import hidden_inputs

    shared = Path("/run/lock") / f"shared-{uuid.uuid4().hex[:10]}"
    shared.mkdir()
    shared.chmod(0o1777)  # a world-writable folder below another, made before the grader
    try:
        out = public_tmp / "autograder.zip"
        assert export("export", "gradescope", out) == 0
        root = gradescope_layout(out, public_tmp / "autograder")
        attack = public_tmp / "attack"
        attack.mkdir()
        shutil.copy(ROOT / "tests" / "hostile" / "leave_behind" / "puzzlesolver.c", attack)
        _run_autograder(root, attack)
        second = _run_autograder(root, attack)
        visible = [t for t in second["tests"] if t["visibility"] == "visible"]
        assert visible and all(t["status"] == "failed" for t in visible)
        shown = second["output"] + "".join(t["output"] for t in visible)
        # the attack prints each input kept on one line, its lines joined by |
        leaked = [cid for cid, text in hidden_inputs("|", 9).items() if text in shown]
        assert leaked == [], leaked
        places = ("/tmp", "/var/tmp", "/dev/shm", "/run/lock", str(shared))
        assert [path for place in places for path in kept_below(place)] == []
    finally:
        shutil.rmtree(shared, ignore_errors=True)
