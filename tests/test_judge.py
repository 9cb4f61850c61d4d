"""judge(): what happened in the sandbox -> verdict and the diagnosis a student reads.

Fed with prepared RunResults (tests/fakes.py), so every branch of the verdict logic is
tested without compilers or a sandbox; tests/test_grading.py and tests/test_sandbox.py
run the same paths with real programs in the real sandbox."""

from __future__ import annotations

import signal
from pathlib import Path

import pytest

from grader.build.builder import Artifact
from grader.cases.manifest import Case
from grader.core.model import Limits, Verdict
from grader.course.config import DEFAULT_LANGUAGES, LanguageSpec
from grader.judge.causes import root_cause
from grader.judge.judging import (
    STDERR_TAIL_LINES,
    Judgement,
    command,
    judge,
    relative_paths,
    run_case,
)
from grader.languages.source_facts import ProgramFacts
from tests.fakes import FakeSandbox, result
from tests.helpers import SAMPLE, SAMPLE_EXPECTED

pytestmark = pytest.mark.fast

LIMITS = Limits(cpu_seconds=2.5, wall_seconds=5, memory_mb=256, stdout_bytes=1000)
PUZZLE = SAMPLE.read_bytes()


SAMPLE_OUT = SAMPLE.with_suffix(".out")


def case(policy=(), input=SAMPLE, expected=SAMPLE_OUT) -> Case:
    return Case(
        id="sample",
        input=input,
        expected=expected,
        visibility="public",
        weight=1.0,
        timed=False,
        policy=tuple(policy),
        tags=(),
        version="v1",
    )


def verdict_of(run, expected=SAMPLE_EXPECTED, limits=LIMITS, policy=()) -> Judgement:
    return judge(run, case(policy), expected, PUZZLE, limits)


# ------------------------------------------------------------------ the verdict


# (what happened, verdict, kind): the first resource verdict wins, in the order
# IE > OLE > MLE > TLE > RTE, because each of them cuts the output short. The kind is
# the failure's class as data (reports group by it; no text is searched).
VERDICTS = [
    (result(SAMPLE_EXPECTED), Verdict.AC, ""),
    (result(SAMPLE_EXPECTED.replace(b"\n\n", b"\n \n", 1)), Verdict.PE, "PE/white-space"),
    (result(SAMPLE_EXPECTED[:-40]), Verdict.WA, "WA/truncated"),  # cut within a line
    (result(SAMPLE_EXPECTED[: SAMPLE_EXPECTED.rindex(b"\n\n") + 1]), Verdict.WA, "WA/missing"),
    (result(b"", exit_code=None, error="clone failed"), Verdict.IE, "IE"),
    (result(SAMPLE_EXPECTED, error="cgroup vanished", timed_out=True), Verdict.IE, "IE"),
    (
        result(
            b"x" * 1001,
            exit_code=None,
            signal=signal.SIGKILL,
            output_exceeded=True,
            memory_exceeded=True,
            timed_out=True,
        ),
        Verdict.OLE,
        "OLE/stdout",
    ),
    (
        result(b"", exit_code=None, signal=signal.SIGKILL, memory_exceeded=True, timed_out=True),
        Verdict.MLE,
        "MLE",
    ),
    (result(b"", exit_code=None, signal=signal.SIGKILL, timed_out=True), Verdict.TLE, "TLE"),
    (result(SAMPLE_EXPECTED, timed_out=True), Verdict.TLE, "TLE"),  # all printed, but too late
    (result(SAMPLE_EXPECTED, exit_code=None, signal=signal.SIGSEGV), Verdict.RTE, "RTE/SIGSEGV"),
    (result(SAMPLE_EXPECTED, exit_code=3), Verdict.RTE, "RTE/exit-status"),  # right, but 3
    (result(SAMPLE_EXPECTED, exit_code=-1), Verdict.RTE, "RTE/exit-status"),
    (result(SAMPLE_EXPECTED[:-40], exit_code=3), Verdict.RTE, "RTE/exit"),
]


@pytest.mark.parametrize("run, verdict, kind", VERDICTS)
def test_verdict(run, verdict, kind):
    judgement = verdict_of(run)
    assert judgement.verdict is verdict
    assert judgement.kind == kind
    assert judgement.result is run
    assert (judgement.diagnosis == "") == (verdict is Verdict.AC)


@pytest.mark.parametrize(
    "printed, kind",
    [(b"x" * 1001, "OLE/stdout"), (b"", "OLE/stderr")],
)
def test_the_kind_of_an_output_limit_names_the_stream(printed, kind):
    run = result(printed, exit_code=None, signal=signal.SIGKILL, output_exceeded=True)
    assert verdict_of(run).kind == kind


# ------------------------------------------------------------------ what it says


def test_internal_error_names_the_sandbox_failure():
    judgement = verdict_of(result(exit_code=None, error="clone failed: EAGAIN"))
    assert judgement.diagnosis == "the grader failed to run the program: clone failed: EAGAIN"


def test_stdout_flood_gives_both_sizes():
    run = result(b"y" * 1000, exit_code=None, signal=signal.SIGKILL, output_exceeded=True)
    run.stdout_size = 5000  # the sandbox keeps at most the limit, but counts it all
    judgement = verdict_of(run, expected=b"z" * 1234, limits=Limits(stdout_bytes=1000))
    assert judgement.verdict is Verdict.OLE
    assert judgement.diagnosis == (
        "the program printed more than 1,000 bytes and was stopped "
        "(the expected output is 1,234 bytes)"
    )


@pytest.mark.parametrize(
    "printed, blames",
    [
        (999, "error output"),
        (1000, "error output"),
        (1001, "printed more than 1,000 bytes"),
    ],
)
def test_output_limit_hit_on_stderr_is_told_apart_from_stdout(printed, blames):
    """The limit counts stdout only: at or under it, the flood was on stderr."""
    run = result(b"y" * printed, exit_code=None, signal=signal.SIGKILL, output_exceeded=True)
    judgement = verdict_of(run)
    assert judgement.verdict is Verdict.OLE and judgement.result is run
    assert blames in judgement.diagnosis
    if blames == "error output":
        assert judgement.diagnosis == (
            "the program flooded its error output (standard error) and was stopped"
        )


def test_memory_limit_names_limit_and_peak():
    run = result(exit_code=None, signal=signal.SIGKILL, memory_exceeded=True)
    run.peak_memory_kb = 300 * 1024 + 600  # 300.6 MB: rounded to 301
    judgement = verdict_of(run)
    assert judgement.verdict is Verdict.MLE
    assert judgement.diagnosis == (
        "the program used more than 256 MB of memory (peak seen: 301 MB)"
    )


def test_memory_limit_shows_the_error_output():
    run = result(
        exit_code=None, signal=signal.SIGABRT, memory_exceeded=True, stderr=b"std::bad_alloc\n"
    )
    diagnosis = verdict_of(run).diagnosis
    assert diagnosis.endswith("\nLast lines of its error output:\n  std::bad_alloc")


@pytest.mark.parametrize(
    "cpu, wall, ended_by, cause",
    [
        (
            2.6,
            2.8,
            signal.SIGKILL,
            "its processes used 2.60 s of CPU time in all, more than the 2.5 s allowed",
        ),
        (
            2.4,
            2.756,
            signal.SIGXCPU,
            "a process of it reached the per-process CPU backstop (SIGXCPU, 4 s)",
        ),
        (
            0.3,
            5.2,
            signal.SIGKILL,
            "it ran for 5.20 s of wall-clock time, more than the 5 s allowed",
        ),
        (  # exactly the CPU allowed is within it: the wall clock stopped this one
            2.5,
            5.1,
            signal.SIGKILL,
            "it ran for 5.10 s of wall-clock time, more than the 5 s allowed",
        ),
    ],
)
def test_time_limit_names_the_figure_that_stopped_it(cpu, wall, ended_by, cause):
    run = result(exit_code=None, signal=ended_by, cpu=cpu, timed_out=True)
    run.wall_seconds = wall
    judgement = verdict_of(run)
    assert judgement.verdict is Verdict.TLE
    assert judgement.diagnosis == (
        f"the program ran out of time: {cause} (limits: 2.5 s CPU, "
        f"5 s wall; used {cpu:.2f} s CPU, {wall:.2f} s wall)"
    )


@pytest.mark.parametrize(
    "number, meaning",
    [
        (signal.SIGSEGV, "SIGSEGV, segmentation fault: a bad memory access"),
        (signal.SIGABRT, "SIGABRT, aborted, e.g. a failed assertion or an uncaught C++ exception"),
        (signal.SIGFPE, "SIGFPE, arithmetic error, e.g. division by zero"),
        (signal.SIGKILL, "SIGKILL, killed"),
        (signal.SIGBUS, "SIGBUS, bus error: a bad memory access"),
        (signal.SIGXFSZ, "SIGXFSZ, wrote a file larger than allowed"),
        (signal.SIGTERM, "SIGTERM"),  # no explanation: just its name
        (200, "unknown signal"),
    ],
)
def test_crash_names_the_signal_and_its_meaning(number, meaning):
    judgement = verdict_of(result(exit_code=None, signal=number))
    assert judgement.verdict is Verdict.RTE
    assert judgement.diagnosis == f"the program crashed: killed by signal {int(number)} ({meaning})"


def test_exit_status_is_named():
    judgement = verdict_of(result(exit_code=42))  # printed nothing: no tail to show
    assert judgement.diagnosis == "the program exited with status 42 (a correct run exits with 0)"


def test_crash_shows_the_last_lines_of_error_output():
    stderr = "".join(f"line {n}\n" for n in range(1, 31)).encode() + b"\x1b[31mboom\x1b[0m  \n"
    judgement = verdict_of(result(exit_code=None, signal=signal.SIGSEGV, stderr=stderr))
    head, tail = judgement.diagnosis.split("\nLast lines of its error output:\n")
    assert head.startswith("the program crashed: killed by signal 11")
    lines = tail.split("\n")
    assert len(lines) == STDERR_TAIL_LINES == 12
    assert lines[0] == "  line 20"
    assert lines[-1] == "  \\x1b[31mboom\\x1b[0m"  # escaped, trailing blanks gone


def test_long_error_output_shows_its_end():
    """Debug lines first, the reason last: the reason is what must show."""
    stderr = b"".join(b"debug %d\n" % n for n in range(5000)) + b"ValueError: boom\n"
    diagnosis = verdict_of(result(exit_code=1, stderr=stderr)).diagnosis
    tail = diagnosis.split("\nLast lines of its error output:\n")[1].split("\n")
    assert tail[-2:] == ["  debug 4999", "  ValueError: boom"]
    assert len(tail) == STDERR_TAIL_LINES


def test_a_failed_run_shows_the_end_of_its_standard_output_too():
    """ "can't open input.txt" is often printed on standard output."""
    stdout = b"".join(b"out %d\n" % n for n in range(1, 9))
    diagnosis = verdict_of(result(stdout, exit_code=2, stderr=b"trace\n")).diagnosis
    assert diagnosis == (
        "the program exited with status 2 (a correct run exits with 0)\n"
        "Last lines of its error output:\n  trace\n"
        "Last lines of its standard output:\n  out 4\n  out 5\n  out 6\n  out 7\n  out 8"
    )


# (error output, the lines shown): TAIL_BYTES (4000) of the end are read; when that cuts
# the output, the first line read may be a fragment and is dropped, unless it is all there is.
TAILS = [
    (b"x" * 5000 + b"\nboom\n", ["boom"]),  # the fragment of x's is dropped
    (b"y" * 5000, ["y" * 4000]),  # one long line: its end is all there is
    (b"a" * 3995 + b"\nboom", ["a" * 3995, "boom"]),  # exactly 4000 bytes: nothing cut
    (b"a" * 3996 + b"\nboom", ["boom"]),  # 4001 bytes: the first line read is a fragment
    (b"z" * 4100 + b"\none\ntwo\n", ["one", "two"]),  # with two whole lines after it
    (b"".join(b"l%d\n" % n for n in range(12)), [f"l{n}" for n in range(12)]),  # 12: all
    (b"".join(b"l%d\n" % n for n in range(13)), [f"l{n}" for n in range(1, 13)]),
]


@pytest.mark.parametrize("stderr, shown", TAILS)
def test_the_tail_of_long_error_output(stderr, shown):
    diagnosis = verdict_of(result(exit_code=1, stderr=stderr)).diagnosis
    tail = diagnosis.split("\nLast lines of its error output:\n")[1]
    assert tail.split("\n") == ["  " + line for line in shown]


@pytest.mark.parametrize("stderr", [b"", b" \n\t\n"])
def test_no_error_output_no_tail(stderr):
    diagnosis = verdict_of(result(exit_code=1, stderr=stderr)).diagnosis
    assert diagnosis == "the program exited with status 1 (a correct run exits with 0)"


def test_wrong_answer_gets_the_comparisons_diagnosis():
    got = SAMPLE_EXPECTED.replace(b"solutions", b"solution", 1)
    judgement = verdict_of(result(got))
    assert judgement.verdict is Verdict.WA
    assert judgement.diagnosis.startswith("wrong singular on line")
    assert "first difference at line" in judgement.diagnosis


def test_the_cases_policy_reaches_the_comparison():
    """A symmetric board printed twice: the policy rule is named only when the case has it."""
    from tests.helpers import SYMMETRIC_PUZZLE as SYMMETRIC
    from tests.helpers import PuzzleCase as Puzzle

    puzzle = Puzzle(SYMMETRIC)
    got = puzzle.render(puzzle.boards * 2)
    with_rule = judge(
        result(got), case(["symmetric-tiles"]), puzzle.expected, SYMMETRIC.encode(), LIMITS
    )
    without = judge(result(got), case(), puzzle.expected, SYMMETRIC.encode(), LIMITS)
    assert with_rule.verdict is without.verdict is Verdict.WA
    assert "policy-dependent" in with_rule.diagnosis
    assert "policy-dependent" not in without.diagnosis


def test_the_judgement_carries_whether_only_the_policy_decides():
    from tests.helpers import SYMMETRIC_PUZZLE as SYMMETRIC
    from tests.helpers import PuzzleCase as Puzzle

    puzzle = Puzzle(SYMMETRIC)
    twice = result(puzzle.render(puzzle.boards * 2))  # the other reading: two placements
    rule = case(["symmetric-tiles"])
    assert judge(twice, rule, puzzle.expected, SYMMETRIC.encode(), LIMITS).policy_only
    assert not judge(twice, case(), puzzle.expected, SYMMETRIC.encode(), LIMITS).policy_only
    crashed = result(twice.stdout, exit_code=1)
    assert not judge(crashed, rule, puzzle.expected, SYMMETRIC.encode(), LIMITS).policy_only


CRLF_PUZZLE = PUZZLE.replace(b"\n", b"\r\n")
# The last edge of the first tile keeps the \r it read: the output shows it.
CARRIED_CR = SAMPLE_EXPECTED.replace(b"B1>\n", b"B1\r>\n", 1)


def test_the_puzzle_reaches_the_comparison():
    """A \r the output carries from a puzzle with CR LF line ends is blamed on reading
    the input; the same output for a plain puzzle says nothing of the input."""
    crlf = judge(result(CARRIED_CR), case(), SAMPLE_EXPECTED, CRLF_PUZZLE, LIMITS)
    plain = judge(result(CARRIED_CR), case(), SAMPLE_EXPECTED, PUZZLE, LIMITS)
    assert crlf.verdict is plain.verdict is Verdict.WA
    assert crlf.diagnosis.startswith("the puzzle file of this case ends its lines with CR LF")
    assert "CRLF input" not in plain.diagnosis


# ------------------------------------------------------------------ command and run_case


@pytest.mark.parametrize("memory_mb, heap", [(512, 384), (256, 192), (40, 32), (8, 32)])
def test_java_heap_is_three_quarters_of_the_limit_at_least_32_mb(memory_mb, heap):
    spec = LanguageSpec(
        "java",
        "puzzlesolver.java",
        (),
        ("java", "-Xmx{heap_mb}m", "-Xss{heap_mb}", "Main", "{input}"),
    )
    assert command(spec, Limits(memory_mb=memory_mb)) == [
        "java",
        f"-Xmx{heap}m",
        f"-Xss{heap}",
        "Main",
        "{input}",
    ]


def test_command_leaves_other_words_alone():
    assert command(DEFAULT_LANGUAGES["c"], LIMITS) == list(DEFAULT_LANGUAGES["c"].run)


def test_run_case_runs_the_program_on_the_cases_input(tmp_path: Path):
    sandbox = FakeSandbox(on_run=lambda request: result(SAMPLE_EXPECTED))
    artifact = Artifact(ok=True, folder=tmp_path, log="")
    spec = DEFAULT_LANGUAGES["java"]
    judgement = run_case(artifact, spec, case(), sandbox, LIMITS)
    assert judgement.verdict is Verdict.AC
    [request] = sandbox.requests
    assert request.argv == command(spec, LIMITS)
    assert request.workdir == tmp_path
    assert request.input_file == SAMPLE
    assert not request.writable


def test_run_case_passes_the_memory_rule_of_the_language(tmp_path: Path):
    seen = []

    class Recording(FakeSandbox):
        def run(
            self, argv, workdir, limits, *, input_file=None, writable=False, memory_rlimit=True
        ):
            seen.append((limits, memory_rlimit))
            return super().run(argv, workdir, limits, input_file=input_file, writable=writable)

    sandbox = Recording(on_run=lambda request: result(SAMPLE_EXPECTED))
    artifact = Artifact(ok=True, folder=tmp_path, log="")
    for language in ("java", "c"):
        run_case(artifact, DEFAULT_LANGUAGES[language], case(), sandbox, LIMITS)
    assert seen == [(LIMITS, False), (LIMITS, True)]


def test_unreadable_expected_output_is_an_internal_error(tmp_path: Path):
    sandbox = FakeSandbox(on_run=lambda request: result(SAMPLE_EXPECTED))
    artifact = Artifact(ok=True, folder=tmp_path, log="")
    missing = tmp_path / "gone.out"
    judgement = run_case(artifact, DEFAULT_LANGUAGES["c"], case(expected=missing), sandbox, LIMITS)
    assert judgement.verdict is Verdict.IE and judgement.kind == "IE"
    assert judgement.diagnosis.startswith("the grader could not read case sample: ")
    assert "gone.out" in judgement.diagnosis
    assert judgement.result is not None and judgement.result.stdout == SAMPLE_EXPECTED


def test_run_case_judges_against_the_cases_own_puzzle_file(tmp_path: Path):
    puzzle = tmp_path / "crlf.txt"
    puzzle.write_bytes(CRLF_PUZZLE)
    sandbox = FakeSandbox(on_run=lambda request: result(CARRIED_CR))
    artifact = Artifact(ok=True, folder=tmp_path, log="")
    judgement = run_case(artifact, DEFAULT_LANGUAGES["c"], case(input=puzzle), sandbox, LIMITS)
    assert judgement.verdict is Verdict.WA
    assert "your program mishandles CRLF input" in judgement.diagnosis


# ------------------------------------------------------------------ the program's paths


@pytest.mark.parametrize(
    "stderr, shown",
    [
        (
            b'  File "/var/grader/builds/3f2a/puzzlesolver.py", line 7, in <module>\n',
            b'  File "puzzlesolver.py", line 7, in <module>\n',
        ),
        (b"(/sandbox/copy/a+b.c:3) and /x/y/tiles.h:9", b"(a+b.c:3) and tiles.h:9"),
        # not the program's file, or only a longer name that begins like it
        (b"/usr/lib/python3/json/__init__.py:1", b"/usr/lib/python3/json/__init__.py:1"),
        (b"/b/puzzlesolver.pyc /b/puzzlesolver.py2", b"/b/puzzlesolver.pyc /b/puzzlesolver.py2"),
        (
            b"puzzlesolver.py stays; /b/puzzlesolver.py, line 2",
            b"puzzlesolver.py stays; puzzlesolver.py, line 2",
        ),
        (b"relative/puzzlesolver.py", b"relative/puzzlesolver.py"),
    ],
)
def test_error_output_names_the_programs_files_as_the_submission_does(tmp_path, stderr, shown):
    for name in ("puzzlesolver.py", "a+b.c", "tiles.h"):
        (tmp_path / name).write_text("")
    (tmp_path / "folder.py").mkdir()  # a folder is not one of its files
    run = result(b"/b/puzzlesolver.py on standard output", stderr=stderr + b" /x/folder.py")
    changed = relative_paths(run, tmp_path)
    assert changed.stderr == shown + b" /x/folder.py"
    assert changed.stdout == run.stdout  # what is judged is left as printed


def test_nothing_to_rename_leaves_the_run_as_it_is(tmp_path):
    run = result(stderr=b"/b/puzzlesolver.py:1")
    assert relative_paths(run, tmp_path) is run  # no files
    assert relative_paths(run, tmp_path / "gone") is run  # no folder
    (tmp_path / "puzzlesolver.py").write_text("")
    quiet = result(b"/b/puzzlesolver.py")
    assert relative_paths(quiet, tmp_path) is quiet  # no error output


# ------------------------------------------------------------------ the cause told first


def test_the_cause_the_source_shows_comes_before_the_symptoms():
    facts = ProgramFacts(reads_stdin="scanf", language="c")
    run = result(b"")  # read nothing from its empty standard input, printed nothing
    symptoms = judge(run, case(), SAMPLE_EXPECTED, PUZZLE, LIMITS)
    judgement = judge(run, case(), SAMPLE_EXPECTED, PUZZLE, LIMITS, facts)
    cause = root_cause(symptoms.verdict, facts)
    assert cause is not None and cause.kind == "input-stdin"
    assert judgement.verdict is symptoms.verdict
    assert judgement.diagnosis == f"{cause.text}\n{symptoms.diagnosis}"
    assert judgement.kind == f"{symptoms.verdict}/input-stdin"
    assert judgement.result is run


def test_a_program_that_reads_its_argument_has_no_cause_told():
    facts = ProgramFacts(reads_stdin="scanf", uses_arguments=True, language="c")
    run = result(b"")
    assert judge(run, case(), SAMPLE_EXPECTED, PUZZLE, LIMITS, facts) == judge(
        run, case(), SAMPLE_EXPECTED, PUZZLE, LIMITS
    )


def test_run_case_passes_what_the_source_shows(tmp_path: Path):
    sandbox = FakeSandbox(on_run=lambda request: result(b""))
    artifact = Artifact(ok=True, folder=tmp_path, log="")
    facts = ProgramFacts(reads_stdin="scanf", language="c")
    judged = run_case(artifact, DEFAULT_LANGUAGES["c"], case(), sandbox, LIMITS, facts)
    assert judged.kind.endswith("/input-stdin")
