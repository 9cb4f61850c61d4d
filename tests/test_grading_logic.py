"""The grading run's logic with a fake sandbox (tests/fakes.py): what is built, what
runs, which verdict each kind of run gets, what is stored, what a rerun redoes. The
same steps with the real sandbox and compilers are in tests/test_grading.py."""

from __future__ import annotations

import signal
from pathlib import Path

import pytest

from grader.cases.manifest import load_cases
from grader.course.config import load_config
from grader.grading.session import Event, EventKind, execute, plan
from grader.intake.submissions import discover
from grader.store import Store
from tests.fakes import FakeSandbox, Request, broken, result
from tests.helpers import small_cases, submission

pytestmark = pytest.mark.fast

# What "the program" does is written in its own source: the fake reads it back.
BEHAVIOURS = {
    "ac": lambda expected: result(expected),
    "wa": lambda expected: result(expected.replace(b"solutions", b"solution", 1)),
    "tle": lambda expected: result(cpu=10.5, exit_code=None, signal=signal.SIGKILL, timed_out=True),
    "mle": lambda expected: result(exit_code=None, signal=signal.SIGKILL, memory_exceeded=True),
    "crash": lambda expected: result(
        exit_code=None, signal=signal.SIGSEGV, stderr=b"Segmentation fault\n"
    ),
    "grader-fault": lambda expected: result(exit_code=None, error="clone failed: EAGAIN"),
}


def behaving(expected_of: dict[str, bytes]):
    def on_run(request: Request):
        source = next(request.workdir.glob("puzzlesolver.*")).read_text()
        kind = source.split("behaviour:")[1].split()[0]
        return BEHAVIOURS[kind](expected_of[request.input_file.name])

    return on_run


@pytest.fixture
def setup(tmp_path: Path):
    manifest = small_cases(tmp_path / "cases")
    cases = load_cases(manifest)
    expected_of = {case.input.name: case.expected.read_bytes() for case in cases}
    return tmp_path, cases, expected_of


def grade(tmp_path: Path, cases, sandbox, *, force=False):
    config = load_config()
    subs = discover(tmp_path / "class", config)
    with Store(tmp_path / "grader.db") as store:
        work = plan(subs, cases, store, force=force)
        execute(work, store, sandbox, config, tmp_path / "builds", jobs=2, force=force)
        verdicts = {
            sub.id: {
                case: row.verdict for (case, _), row in store.runs(sub.id, sub.content_hash).items()
            }
            for sub in subs
        }
    return work.total, verdicts


def python_class(tmp_path: Path, kinds) -> None:
    for kind in kinds:
        submission(tmp_path / "class", kind, "puzzlesolver.py", f"# behaviour: {kind}\n")


def test_each_kind_of_run_gets_its_verdict(setup):
    tmp_path, cases, expected_of = setup
    python_class(tmp_path, BEHAVIOURS)
    total, verdicts = grade(tmp_path, cases, FakeSandbox(behaving(expected_of)))
    assert total == len(BEHAVIOURS) * len(cases)
    want = {"ac": "AC", "tle": "TLE", "mle": "MLE", "crash": "RTE", "grader-fault": "IE"}
    for sid, verdict in want.items():
        assert set(verdicts[sid].values()) == {verdict}, sid
    # the plural slip only shows where there are several solutions
    assert verdicts["wa"]["sample"] == "WA"


def test_a_rerun_redoes_only_what_the_grader_failed(setup):
    tmp_path, cases, expected_of = setup
    python_class(tmp_path, ["ac", "grader-fault"])
    sandbox = FakeSandbox(behaving(expected_of))
    first, _ = grade(tmp_path, cases, sandbox)
    second, verdicts = grade(tmp_path, cases, sandbox)
    assert (first, second) == (2 * len(cases), len(cases))  # IE is retried, AC is kept
    assert len(sandbox.runs()) == 3 * len(cases)
    forced, _ = grade(tmp_path, cases, sandbox, force=True)
    assert forced == 2 * len(cases)


def test_a_failed_build_is_ce_on_every_case_and_built_once(setup):
    tmp_path, cases, expected_of = setup
    submission(tmp_path / "class", "broken", "puzzlesolver.c", "int main( {\n")
    sandbox = FakeSandbox(
        behaving(expected_of), on_build=lambda request: result(exit_code=1, stderr=b"error: ')'\n")
    )
    grade(tmp_path, cases, sandbox)
    _, verdicts = grade(tmp_path, cases, sandbox, force=False)
    assert set(verdicts["broken"].values()) == {"CE"}
    assert len(sandbox.builds()) == 1 and not sandbox.runs()


def test_a_build_the_grader_failed_is_ie_and_not_cached(setup):
    tmp_path, cases, expected_of = setup
    submission(tmp_path / "class", "fine", "puzzlesolver.c", "# behaviour: ac\n")
    failing = FakeSandbox(
        behaving(expected_of), on_build=lambda request: result(exit_code=None, error="no bwrap")
    )
    _, verdicts = grade(tmp_path, cases, failing)
    assert set(verdicts["fine"].values()) == {"IE"}
    working = FakeSandbox(behaving(expected_of))
    again, verdicts = grade(tmp_path, cases, working)
    assert again == len(cases) and len(working.builds()) == 1
    assert set(verdicts["fine"].values()) == {"AC"}


def test_a_build_failure_is_blamed_by_evidence_and_the_compilers_words_decide_nothing(setup):
    """A compiler killed by a signal none of the build's limits sent: on a machine whose
    known-good program fails too (grader.judge.canary), the grader's failure, IE, never
    cached; on a healthy machine it is built once more, and a crash again is the
    source's own CE, cached. What the compiler printed decides nothing: a student's own
    `#error No space left on device` is CE."""
    tmp_path, cases, expected_of = setup
    submission(tmp_path / "class", "full", "puzzlesolver.c", "# behaviour: ac\n")

    def killed(request):
        return result(exit_code=None, signal=9)

    sick = FakeSandbox(behaving(expected_of), on_build=killed, machine=broken)
    _, verdicts = grade(tmp_path, cases, sick)
    assert set(verdicts["full"].values()) == {"IE"}
    assert sick.canary_requests, "the canary was asked"
    crashes = FakeSandbox(behaving(expected_of), on_build=killed)
    again, verdicts = grade(tmp_path, cases, crashes)
    assert again == len(cases) and len(crashes.builds()) == 2  # once more, on a clean copy
    assert set(verdicts["full"].values()) == {"CE"}
    with Store(tmp_path / "grader.db") as store:
        row = store.recorded("full")
        assert "the compiler itself crashed on your source" in store.build(row.content_hash).log
    cached = FakeSandbox(behaving(expected_of))
    assert grade(tmp_path, cases, cached)[0] == 0 and not cached.builds()

    said = b"puzzlesolver.c:1:2: error: #error No space left on device\n"
    submission(tmp_path / "class", "full", "puzzlesolver.c", "# behaviour: ac\n// new\n")
    student = FakeSandbox(
        behaving(expected_of), on_build=lambda request: result(exit_code=1, stderr=said)
    )
    again, verdicts = grade(tmp_path, cases, student)
    assert again == len(cases) and len(student.builds()) == 1
    assert set(verdicts["full"].values()) == {"CE"}


def test_a_transient_crash_of_the_compiler_builds_the_second_time(setup):
    tmp_path, cases, expected_of = setup
    submission(tmp_path / "class", "once", "puzzlesolver.c", "# behaviour: ac\n")
    calls = []

    def crashes_once(request):
        calls.append(request)
        return result(exit_code=None, signal=11) if len(calls) == 1 else result()

    _, verdicts = grade(tmp_path, cases, FakeSandbox(behaving(expected_of), on_build=crashes_once))
    assert set(verdicts["once"].values()) == {"AC"} and len(calls) == 2


def test_a_run_failure_on_a_broken_machine_is_the_graders_and_retried(setup):
    """A runtime that cannot start makes every run fail: the canary fails too, so each
    failure is IE (retried), never the student's RTE; once the machine is mended the
    same program is judged."""
    tmp_path, cases, expected_of = setup
    python_class(tmp_path, ["ac"])
    sick = FakeSandbox(lambda request: broken(request), machine=broken)
    _, verdicts = grade(tmp_path, cases, sick)
    assert set(verdicts["ac"].values()) == {"IE"}
    _, verdicts = grade(tmp_path, cases, FakeSandbox(behaving(expected_of)))
    assert set(verdicts["ac"].values()) == {"AC"}


def test_the_program_runs_in_its_build_folder_on_the_case_input(setup):
    tmp_path, cases, expected_of = setup
    python_class(tmp_path, ["ac"])
    sandbox = FakeSandbox(behaving(expected_of))
    grade(tmp_path, cases, sandbox)
    runs = sandbox.runs()
    assert sorted(r.input_file.name for r in runs) == sorted(c.input.name for c in cases)
    assert all(r.workdir.parent == tmp_path / "builds" for r in runs)
    assert all("{input}" in r.argv for r in runs)  # the sandbox places the input


def test_each_build_and_each_run_is_an_event_of_its_kind(setup):
    tmp_path, cases, expected_of = setup
    python_class(tmp_path, ["ac", "wa"])
    events: list[Event] = []
    config = load_config()
    subs = discover(tmp_path / "class", config)
    with Store(tmp_path / "grader.db") as store:
        work = plan(subs, cases, store)
        sandbox = FakeSandbox(behaving(expected_of))
        execute(work, store, sandbox, config, tmp_path / "builds", on_event=events.append)
    kinds = [event.kind for event in events]
    assert {type(kind) for kind in kinds} == {EventKind}
    assert kinds.count(EventKind.BUILD) == 2 and kinds.count(EventKind.RUN) == 2 * len(cases)
    runs = [e for e in events if e.kind is EventKind.RUN]
    assert all(e.verdict is not None and e.case is not None for e in runs)
    assert all(e.artifact is not None for e in events if e.kind is EventKind.BUILD)


def test_a_hidden_phase_has_the_machine_alone(tmp_path):
    """Two grading processes of one user: while one runs hidden runs, the other's
    visible phase waits; visible phases share the machine."""
    import threading

    from grader.grading.machine_order import machine_order

    folder = tmp_path / "order"
    with machine_order(folder), machine_order(folder):
        pass  # two visible phases at once
    entered = threading.Event()

    def visible() -> None:
        with machine_order(folder):
            entered.set()

    with machine_order(folder) as grading:
        grading.hidden()
        other = threading.Thread(target=visible)
        other.start()
        assert not entered.wait(0.3)  # kept out while the hidden phase lasts
    assert entered.wait(5)
    other.join()
    assert (folder.stat().st_mode & 0o777) == 0o700  # no other user may hold or watch it


def test_every_visible_run_of_the_class_ends_before_any_hidden_run(setup):
    """THE RULE on threads: however the submissions interleave, the first hidden run
    of any of them starts after the last visible run of all of them has ended."""
    import time

    tmp_path, cases, expected_of = setup
    python_class(tmp_path, ["ac", "wa", "tle"])
    spans: list[tuple[str, float, float]] = []

    def timed(request: Request):
        began = time.monotonic()
        answer = behaving(expected_of)(request)
        time.sleep(0.05 if "sample" in request.input_file.name else 0.01)
        spans.append((request.input_file.name, began, time.monotonic()))
        return answer

    grade(tmp_path, cases, FakeSandbox(timed))
    hidden = {c.input.name for c in cases if not c.public}
    last_visible = max(end for name, _, end in spans if name not in hidden)
    first_hidden = min(start for name, start, _ in spans if name in hidden)
    assert last_visible <= first_hidden
