"""grader.sandbox.supervise.run_result: how a program's ending becomes the verdict
flags (timed out, memory exceeded, output exceeded), as a table of endings. Every
sandbox builds its RunResult here; tests/test_sandbox.py runs real programs."""

from __future__ import annotations

import signal

import pytest

from grader.core.model import CpuAccounting, Limits
from grader.sandbox.supervise import Capture, Ending, Memory, run_result

pytestmark = pytest.mark.fast

LIMITS = Limits(cpu_seconds=1.0, wall_seconds=3.0, memory_mb=100)
MB = 1024


def ending(exit_code=0, sig=None, cpu=0.2, peak_mb=10, vm_mb=0, oom=0, refused=0):
    return Ending(exit_code, sig, cpu, peak_mb * MB, vm_mb * MB, oom, refused)


RLIMIT = Memory(jvm=False, address_space=True)  # RLIMIT_AS holds the limit
GROUP = Memory(jvm=False, address_space=False)  # a cgroup holds it
JVM = Memory(jvm=True, address_space=False)  # -Xmx: 75 MB of heap for a 100 MB limit


def capture(stderr=b""):
    c = Capture(stdout_cap=1000, stderr_cap=1000)
    c.add_stdout(b"out\n")
    c.add_stderr(stderr)
    return c


# (ending, the supervisor's stop reason, how memory is held,
#  (timed_out, memory_exceeded, output_exceeded))
FLAGS = [
    (ending(), None, RLIMIT, (False, False, False)),
    # RLIMIT_CPU's SIGXCPU arrives at the soft limit: the CPU read back may be a hair under it.
    (ending(None, signal.SIGXCPU, cpu=0.9995), None, RLIMIT, (True, False, False)),
    (ending(None, signal.SIGXCPU, cpu=0.0), None, RLIMIT, (True, False, False)),
    (ending(None, signal.SIGKILL, cpu=1.0), None, RLIMIT, (False, False, False)),  # at, not over
    (ending(None, signal.SIGKILL, cpu=1.01), None, RLIMIT, (True, False, False)),
    (ending(0, None, cpu=1.01), None, RLIMIT, (True, False, False)),
    (ending(None, signal.SIGKILL, cpu=0.3), "wall", RLIMIT, (True, False, False)),
    (ending(None, signal.SIGKILL, cpu=0.3), "cpu", RLIMIT, (True, False, False)),
    (ending(None, signal.SIGKILL), "memory", RLIMIT, (False, True, False)),
    (ending(None, signal.SIGKILL), "output", RLIMIT, (False, False, True)),
    # Near the memory limit and failed: the allocation failed (malloc NULL, bad_alloc).
    (ending(None, signal.SIGABRT, peak_mb=90), None, RLIMIT, (False, True, False)),
    (ending(1, None, peak_mb=95), None, RLIMIT, (False, True, False)),
    (ending(None, signal.SIGABRT, peak_mb=89), None, RLIMIT, (False, False, False)),
    (ending(0, None, peak_mb=99), None, RLIMIT, (False, False, False)),  # ran fine: no MLE
    # Its address space near RLIMIT_AS, where that limit is set: a refused allocation.
    (ending(1, None, peak_mb=20, vm_mb=92), None, RLIMIT, (False, True, False)),
    (ending(1, None, peak_mb=20, vm_mb=88), None, RLIMIT, (False, False, False)),
    (ending(1, None, peak_mb=20, vm_mb=500), None, GROUP, (False, False, False)),
    # The cgroup's OOM killer: measured by the kernel, whatever the figures polled.
    (ending(None, signal.SIGKILL, peak_mb=3, oom=1), None, GROUP, (False, True, False)),
    # The JVM fails near its heap (75 MB of 100), not near the limit.
    (ending(1, None, peak_mb=68), None, JVM, (False, True, False)),
    (ending(1, None, peak_mb=67), None, JVM, (False, False, False)),
    (ending(0, None, peak_mb=95), None, JVM, (False, False, False)),
]


def flags(memory, end, reason=None, stderr=b""):
    cgroup = CpuAccounting.CGROUP
    return run_result("bubblewrap", LIMITS, capture(stderr), end, reason, 0.5, memory, cgroup)


@pytest.mark.parametrize("end, reason, memory, expected", FLAGS)
def test_flags_of_an_ending(end, reason, memory, expected):
    result = flags(memory, end, reason)
    assert (result.timed_out, result.memory_exceeded, result.output_exceeded) == expected
    assert (result.exit_code, result.signal) == (end.exit_code, end.signal)
    assert result.stdout == b"out\n" and result.sandbox == "bubblewrap"
    assert result.cpu_accounting == "cgroup"


def test_times_are_kept_to_the_microsecond():
    """A C program's run takes about a millisecond: to a tenth of one, two copies of it
    would differ by more than the leaderboard's noise floor (3%) by rounding alone."""
    cgroup = CpuAccounting.CGROUP
    end = ending(cpu=0.00134449)
    result = run_result("bubblewrap", LIMITS, capture(), end, None, 0.0021456, RLIMIT, cgroup)
    assert (result.cpu_seconds, result.wall_seconds) == (0.001344, 0.002146)


@pytest.mark.parametrize("memory", [RLIMIT, GROUP, JVM])
def test_an_out_of_memory_message_far_from_the_limit_is_not_mle(memory):
    # What a program prints is the program's: it decides no verdict flag.
    said = b'Exception in thread "main" java.lang.OutOfMemoryError: Java heap space\n'
    result = flags(memory, ending(1, None, peak_mb=5), stderr=said + b"MemoryError\n")
    assert not result.memory_exceeded and not result.timed_out


def test_a_fork_refused_at_the_process_limit_is_flagged():
    assert flags(GROUP, ending(1, None, refused=3)).processes_exceeded
    assert not flags(GROUP, ending(1, None)).processes_exceeded


# (processes the OOM killer killed, the group's peak when it did (0: unknown), whose
#  failure: "run" is MLE, "machine" is the grader's own, retried)
OOM_KILLS = [
    (1, 100, "run"),  # at the group's own limit
    (1, 90, "run"),
    (1, 89, "machine"),  # well under it: the whole machine ran out of memory
    (2, 12, "machine"),
    (1, 0, "run"),  # the peak unknown (cgroup v2 before Linux 5.19): the run's, as ever
    (0, 12, "run"),  # no kill: nothing to say
]


@pytest.mark.parametrize("kills, group_peak_mb, whose", OOM_KILLS)
def test_an_oom_kill_under_the_groups_limit_is_the_machines_failure(kills, group_peak_mb, whose):
    end = Ending(None, signal.SIGKILL, 0.2, 10 * MB, 0, kills, 0, group_peak_mb * MB)
    result = flags(GROUP, end)
    if whose == "machine":
        assert not result.memory_exceeded
        assert result.error == (
            "the grading machine ran out of memory: the kernel killed a process of the "
            f"run while the run held {group_peak_mb} MB of its 100 MB"
        )
    else:
        assert result.error is None and result.memory_exceeded == (kills > 0)
