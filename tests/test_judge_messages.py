"""The TLE message gives the figure that stopped the program (pure logic)."""

import signal

from grader.core.model import Limits, RunResult, Verdict
from grader.judge.judging import judge

LIMITS = Limits(cpu_seconds=10, wall_seconds=20)


def _timed_out(cpu: float, wall: float, sig=signal.SIGKILL) -> RunResult:
    return RunResult(
        exit_code=None,
        signal=sig,
        cpu_seconds=cpu,
        wall_seconds=wall,
        peak_memory_kb=1000,
        stdout=b"",
        stderr=b"",
        stdout_size=0,
        timed_out=True,
    )


def _message(result: RunResult) -> str:
    judgement = judge(result, None, b"", b"", LIMITS)
    assert judgement.verdict == Verdict.TLE
    return judgement.diagnosis


def test_a_cpu_stop_names_the_trees_cpu_time():
    text = _message(_timed_out(10.04, 5.3))
    assert "used 10.04 s of CPU time in all, more than the 10 s allowed" in text
    assert "wall-clock" not in text


def test_a_wall_stop_names_the_wall_clock():
    text = _message(_timed_out(0.5, 20.02))
    assert "ran for 20.02 s of wall-clock time, more than the 20 s allowed" in text
    assert "CPU time in all" not in text


def test_the_per_process_backstop_says_so_never_a_cpu_figure_below_the_limit():
    text = _message(_timed_out(9.28, 18.64, signal.SIGXCPU))
    assert "CPU backstop (SIGXCPU, 11 s)" in text
    assert "more than the 10 s allowed" not in text
