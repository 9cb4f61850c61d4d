"""Run a built program on one case and turn what happened into a verdict."""

import math
import os
import re
import signal
from dataclasses import dataclass, replace
from pathlib import Path

from grader import languages
from grader.build.builder import Artifact
from grader.cases.manifest import Case
from grader.core.model import CpuAccounting, Limits, RunResult, Verdict, java_heap_mb
from grader.core.rules import rules_version
from grader.core.text import printable
from grader.course.config import LanguageSpec
from grader.intake.submissions import Submission
from grader.judge.causes import root_cause
from grader.judge.compare import compare
from grader.languages.source_facts import NO_FACTS, ProgramFacts
from grader.sandbox.base import Sandbox
from grader.store import Store

STDERR_TAIL_LINES = 12
STDOUT_TAIL_LINES = 5
TAIL_BYTES = 4000  # of the END of what it printed: the reason for a crash comes last


@dataclass(frozen=True)
class Judgement:
    verdict: Verdict
    diagnosis: str  # what a student reads: empty for AC
    result: RunResult | None = None  # None when nothing ran
    # The failure (WA or PE) is decided only by the case's policy rules: what the score
    # reads (grader.judge.compare.policy); the diagnosis only reports it.
    policy_only: bool = False
    # What kind of failure it is, as data ("WA/missing", "RTE/SIGSEGV", "RTE/input-stdin"):
    # two failures of one kind are the same mistake (grader.grading.counterexamples). "" for AC.
    kind: str = ""
    # The judging rules' version it was decided under (grader.core.rules); None when nothing
    # was judged (the grader failed: IE).
    rules: str | None = None


def record_pool_judgement(
    store: Store, sub: Submission, puzzle: Case, judgement: Judgement, exposed: bool
) -> None:
    """A run on a pool puzzle, judged, into the store (grading's probes, the proofs)."""
    store.record_pool_run(
        sub,
        puzzle,
        judgement.verdict,
        judgement.kind,
        judgement.diagnosis,
        judgement.result,
        exposed=exposed,
        rules=judgement.rules,
    )


def command(spec: LanguageSpec, limits: Limits) -> list[str]:
    """The run command with its placeholders filled, except {input} (the sandbox's)."""
    heap_mb = java_heap_mb(limits)
    return [word.replace("{heap_mb}", str(heap_mb)) for word in spec.run]


def run_case(
    artifact: Artifact,
    spec: LanguageSpec,
    case: Case,
    sandbox: Sandbox,
    limits: Limits,
    facts: ProgramFacts = NO_FACTS,
) -> Judgement:
    return run_in(artifact.folder, spec, case, sandbox, limits, facts)


def run_in(
    folder: Path,
    spec: LanguageSpec,
    case: Case,
    sandbox: Sandbox,
    limits: Limits,
    facts: ProgramFacts = NO_FACTS,
) -> Judgement:
    """Run the program built in `folder` on one case and judge it: the one way every
    run is judged (grading, the leaderboard's timed runs); `facts`, what its source
    shows, may name the cause of a failure."""
    result = sandbox.run(
        command(spec, limits),
        folder,
        limits,
        input_file=case.input,
        memory_rlimit=spec.memory_rlimit,
    )
    result = relative_paths(result, folder)
    try:
        expected = case.expected.read_bytes()
        puzzle = case.input.read_bytes()
    except OSError as error:
        return Judgement(
            Verdict.IE, f"the grader could not read case {case.id}: {error}", result, kind="IE"
        )
    return judge(result, case, expected, puzzle, limits, facts)


def judge(
    result: RunResult,
    case: Case,
    expected: bytes,
    puzzle: bytes,
    limits: Limits,
    facts: ProgramFacts = NO_FACTS,
) -> Judgement:
    """The verdict and its diagnosis, the root cause the source shows told first, under
    the current judging rules."""
    judgement = _symptoms(result, case, expected, puzzle, limits)
    if judgement.verdict is Verdict.IE:
        return judgement
    judgement = replace(judgement, rules=rules_version())
    right = judgement.verdict is Verdict.RTE and not result.signal and result.stdout == expected
    cut = len(result.stdout) < len(expected) and expected.startswith(result.stdout)
    cause = root_cause(judgement.verdict, facts, judgement.kind, right, cut)
    if cause is None:
        return judgement
    return replace(
        judgement,
        diagnosis=f"{cause.text}\n{judgement.diagnosis}",
        kind=f"{judgement.verdict}/{cause.kind}",
    )


def _symptoms(
    result: RunResult, case: Case, expected: bytes, puzzle: bytes, limits: Limits
) -> Judgement:
    """Resource verdicts first (they cut the output short), then the comparison."""
    if result.error:
        return Judgement(
            Verdict.IE, f"the grader failed to run the program: {result.error}", result, kind="IE"
        )
    if result.output_exceeded and result.stdout_size <= limits.stdout_bytes:
        return Judgement(
            Verdict.OLE,
            "the program flooded its error output (standard error) and was stopped",
            result,
            kind="OLE/stderr",
        )
    if result.output_exceeded:
        return Judgement(
            Verdict.OLE,
            f"the program printed more than "
            f"{limits.stdout_bytes:,} bytes and was stopped "
            f"(the expected output is {len(expected):,} bytes)",
            result,
            kind="OLE/stdout",
        )
    if result.memory_exceeded:
        return Judgement(
            Verdict.MLE,
            f"the program used more than {limits.memory_mb} MB of "
            f"memory (peak seen: {result.peak_memory_kb / 1024:.0f} MB)" + _stderr_tail(result),
            result,
            kind="MLE",
        )
    if result.timed_out:
        return Judgement(Verdict.TLE, _time_out(result, limits), result, kind="TLE")
    if result.signal:
        return Judgement(
            Verdict.RTE,
            f"the program crashed: killed by signal {result.signal} "
            f"({_signal_name(result.signal)})"
            + _allocation(result, limits)
            + _output_tails(result),
            result,
            kind=f"RTE/{_signal_name(result.signal).split(',')[0]}",
        )
    if result.exit_code != 0:
        return Judgement(
            Verdict.RTE,
            f"the program exited with status {result.exit_code} "
            "(a correct run exits with 0)"
            + _uncaught(result)
            + _allocation(result, limits)
            + _output_tails(result),
            result,
            kind="RTE/exit",
        )
    comparison = compare(expected, result.stdout, puzzle, case.policy)
    kind = f"{comparison.verdict}/{comparison.kind}" if comparison.verdict is not Verdict.AC else ""
    return Judgement(comparison.verdict, comparison.text(), result, comparison.policy_only, kind)


def relative_paths(result: RunResult, folder: Path) -> RunResult:
    """The run's error output with the program's files named as the submission names
    them: a traceback gives the path they ran from, the grading machine's build folder
    (or the sandbox's copy of it), which means nothing to a student. Standard output
    is left as printed: it is what is judged."""
    try:
        names = sorted((p.name for p in folder.iterdir() if p.is_file()), key=len, reverse=True)
    except OSError:
        return result
    if not names or not result.stderr:
        return result
    files = b"|".join(re.escape(os.fsencode(name)) for name in names)
    before = re.compile(rb"(?:/[^\s/\"':,()<>]+)+/(?=(?:" + files + rb")(?![\w.]))")
    return replace(result, stderr=before.sub(b"", result.stderr))


def _time_out(result: RunResult, limits: Limits) -> str:
    """The TLE message: the figure that stopped the program first, then both."""
    used = (
        f"(limits: {limits.cpu_seconds:g} s CPU, {limits.wall_seconds:g} s wall; used "
        f"{result.cpu_seconds:.2f} s CPU, {result.wall_seconds:.2f} s wall)"
    )
    if result.cpu_seconds > limits.cpu_seconds:
        cause = (
            f"its processes used {result.cpu_seconds:.2f} s of CPU time in all, more "
            f"than the {limits.cpu_seconds:g} s allowed"
        )
    elif result.signal == getattr(signal, "SIGXCPU", -1):  # none on Windows
        cause = (
            "a process of it reached the per-process CPU backstop (SIGXCPU, "
            f"{math.ceil(limits.cpu_seconds) + 1} s)"
        )
    else:
        cause = (
            f"it ran for {result.wall_seconds:.2f} s of wall-clock time, more than the "
            f"{limits.wall_seconds:g} s allowed"
        )
    return f"the program ran out of time: {cause} {used}" + _counted_by(result)


def _counted_by(result: RunResult) -> str:
    """Which mechanism counted the CPU time, for the reader who doubts the figure."""
    try:
        return f"\nCPU time counted by {CpuAccounting(result.cpu_accounting).explained}."
    except ValueError:  # a fake sandbox's, or a run stored before it was recorded
        return ""


def _signal_name(number: int) -> str:
    try:
        name = signal.Signals(number).name
    except ValueError:
        return "unknown signal"
    meaning = {
        "SIGSEGV": "segmentation fault: a bad memory access",
        "SIGABRT": "aborted, e.g. a failed assertion or an uncaught C++ exception",
        "SIGFPE": "arithmetic error, e.g. division by zero",
        "SIGKILL": "killed",
        "SIGBUS": "bus error: a bad memory access",
        "SIGXFSZ": "wrote a file larger than allowed",
    }.get(name)
    return f"{name}, {meaning}" if meaning else name


# Where Python and Java say an uncaught exception stopped the program: the last frame
# of a traceback, and the exception. For the reader only, as the tails are.
_PYTHON_FRAME = re.compile(rb'^  File "([^"/]+)", line (\d+), in (\S+)$', re.M)
_PYTHON_ERROR = re.compile(
    rb"^(\w+(?:\.\w+)*(?:Error|Exception|Exit|Interrupt)\b)(?::\s*(.*))?$", re.M
)
_JAVA_ERROR = re.compile(rb'Exception in thread "[^"]*" ([\w.$]+)(?::\s*(.*))?')
_JAVA_FRAME = re.compile(rb"^\s+at [\w.$<>]+\(([\w$]+\.java):(\d+)\)", re.M)


def _uncaught(result: RunResult) -> str:
    """ "It stopped on an uncaught IndexError (...) at puzzlesolver.py line 17.": the
    program's own file and line, where the error output has a traceback."""
    said = result.stderr[-TAIL_BYTES:]
    frames = list(_PYTHON_FRAME.finditer(said))
    error = list(_PYTHON_ERROR.finditer(said))
    if frames and error:
        name, line, function = frames[-1].groups()
        where = f"{_text(name)} line {_text(line)}, in {_text(function)}"
        exception = error[-1]
    else:
        java = _JAVA_ERROR.search(said)
        frame = _JAVA_FRAME.search(said, java.end()) if java else None
        if java is None or frame is None:
            return ""
        where = f"{_text(frame.group(1))} line {_text(frame.group(2))}"
        exception = java
    detail = _text(exception.group(2) or b"").strip()
    shown = f"{_text(exception.group(1))}" + (f" ({detail[:80]})" if detail else "")
    return f"\nIt stopped on an uncaught {shown} at {where}."


def crash_site(stderr: str) -> tuple[str, str] | None:
    """(the exception, "file line N, in function") where an uncaught exception stopped
    a Python or Java program, read from its error output; the message after the
    exception's name is left out (it may quote the input). For the reader only."""
    said = stderr[-TAIL_BYTES:].encode("utf-8", "replace")
    frames, errors = list(_PYTHON_FRAME.finditer(said)), list(_PYTHON_ERROR.finditer(said))
    if frames and errors:
        name, line, function = frames[-1].groups()
        return _text(errors[-1].group(1)), f"{_text(name)} line {_text(line)}, in {_text(function)}"
    java = _JAVA_ERROR.search(said)
    frame = _JAVA_FRAME.search(said, java.end()) if java else None
    if java is None or frame is None:
        return None
    return _text(java.group(1)), f"{_text(frame.group(1))} line {_text(frame.group(2))}"


def crash_line(signal_number: int | None, stderr: str) -> str:
    """How a run crashed, told without anything it printed about its input: the
    uncaught exception and the line of the program's own source, or the signal."""
    site = crash_site(stderr)
    if site is not None:
        return f"It stopped on an uncaught {site[0]} at {site[1]}."
    if signal_number:
        return f"It was killed by signal {signal_number} ({_signal_name(signal_number)})."
    return ""


def _text(data: bytes) -> str:
    return printable(data.decode(errors="replace"))


# What runtimes print when an allocation is refused. For the reader only: the verdict is
# decided by what was measured (a program can print these words as well).
# What a runtime says when memory runs out (grader.languages), and what C's library
# says (strerror(ENOMEM), perror) in any language.
_ALLOCATION_FAILED = tuple(
    words for lang in languages.REGISTRY for words in lang.allocation_failed
) + ("Cannot allocate memory", "out of memory")


def _allocation(result: RunResult, limits: Limits) -> str:
    """A crash whose error output says an allocation failed, though the program held
    far less than the limit: one allocation asked for more than the limit."""
    said = result.stderr.decode(errors="replace")
    if not any(words in said for words in _ALLOCATION_FAILED):
        return ""
    return (
        f"\nIts error output says an allocation of memory failed: it held at most "
        f"{result.peak_memory_kb / 1024:.0f} MB, so one allocation asked for more than "
        f"the {limits.memory_mb} MB it may use."
    )


def _stderr_tail(result: RunResult) -> str:
    return _tail(result.stderr, STDERR_TAIL_LINES, "error output")


def _output_tails(result: RunResult) -> str:
    """The end of its error output, and of its standard output: a program that
    fails often says why on either ("can't open input.txt")."""
    return _stderr_tail(result) + _tail(result.stdout, STDOUT_TAIL_LINES, "standard output")


def _tail(data: bytes, lines: int, what: str) -> str:
    cut = len(data) > TAIL_BYTES
    text = printable(data[-TAIL_BYTES:]).rstrip()
    if not text:
        return ""
    shown = text.splitlines()
    if cut and len(shown) > 1:
        shown = shown[1:]  # it may start mid-line
    shown = shown[-lines:]
    return f"\nLast lines of its {what}:\n" + "\n".join("  " + line for line in shown)
