"""grader.sandbox.supervise.run_result: how a program's ending becomes the verdict
flags (timed out, memory exceeded, output exceeded), as a table of endings. Every
sandbox builds its RunResult here; tests/test_sandbox.py runs real programs."""

from __future__ import annotations

import signal

import pytest

from grader.model import Limits
from grader.sandbox.supervise import Capture, Ending, run_result

pytestmark = pytest.mark.fast

LIMITS = Limits(cpu_seconds=1.0, wall_seconds=3.0, memory_mb=100)
MB = 1024


def ending(exit_code=0, sig=None, cpu=0.2, peak_mb=10):
    return Ending(exit_code=exit_code, signal=sig, cpu_seconds=cpu, peak_memory_kb=peak_mb * MB)


def capture(stderr=b""):
    c = Capture(stdout_cap=1000, stderr_cap=1000)
    c.add_stdout(b"out\n")
    c.add_stderr(stderr)
    return c


# (ending, the supervisor's stop reason, memory rlimit, (timed_out, memory_exceeded, output_exceeded))
FLAGS = [
    (ending(), None, True, (False, False, False)),
    # RLIMIT_CPU's SIGXCPU arrives at the soft limit: the CPU read back may be a hair under it.
    (ending(None, signal.SIGXCPU, cpu=0.9995), None, True, (True, False, False)),
    (ending(None, signal.SIGXCPU, cpu=0.0), None, True, (True, False, False)),
    (ending(None, signal.SIGKILL, cpu=1.0), None, True, (False, False, False)),  # at, not over
    (ending(None, signal.SIGKILL, cpu=1.01), None, True, (True, False, False)),
    (ending(0, None, cpu=1.01), None, True, (True, False, False)),
    (ending(None, signal.SIGKILL, cpu=0.3), "wall", True, (True, False, False)),
    (ending(None, signal.SIGKILL, cpu=0.3), "cpu", True, (True, False, False)),
    (ending(None, signal.SIGKILL), "memory", True, (False, True, False)),
    (ending(None, signal.SIGKILL), "output", True, (False, False, True)),
    # Near the memory limit and failed: the allocation failed (malloc NULL, bad_alloc).
    (ending(None, signal.SIGABRT, peak_mb=90), None, True, (False, True, False)),
    (ending(1, None, peak_mb=95), None, True, (False, True, False)),
    (ending(None, signal.SIGABRT, peak_mb=89), None, True, (False, False, False)),
    (ending(0, None, peak_mb=99), None, True, (False, False, False)),  # ran fine: no MLE
    (ending(None, signal.SIGABRT, peak_mb=95), None, False, (False, False, False)),  # the JVM
]


@pytest.mark.parametrize("end, reason, rlimit, flags", FLAGS)
def test_flags_of_an_ending(end, reason, rlimit, flags):
    result = run_result("bubblewrap", LIMITS, capture(), end, reason, 0.5, rlimit)
    assert (result.timed_out, result.memory_exceeded, result.output_exceeded) == flags
    assert (result.exit_code, result.signal) == (end.exit_code, end.signal)
    assert result.stdout == b"out\n" and result.sandbox == "bubblewrap"


def test_an_out_of_memory_message_marks_the_run_whatever_its_peak():
    c = capture(stderr=b'Exception in thread "main" java.lang.OutOfMemoryError: Java heap space\n')
    result = run_result("rlimits", LIMITS, c, ending(1, None, peak_mb=5), None, 0.5, False)
    assert result.memory_exceeded and not result.timed_out
