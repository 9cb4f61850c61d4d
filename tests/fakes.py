"""A fake sandbox for the fast lane: it runs nothing and answers each request with a
prepared RunResult, so grading logic (build cache, plan, verdicts, the store, resume,
IE handling) is tested without compilers, bubblewrap or a browser.

The answer is chosen by a function of the request, so a test states what "the
program" does on each case, e.g. print the expected output, crash, or time out.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from grader.core.model import Limits, RunResult
from grader.judge.canary import expected_output
from grader.sandbox import Sandbox


@dataclass(frozen=True)
class Request:
    """One call of Sandbox.run, as the fake saw it."""

    argv: list[str]
    workdir: Path
    input_file: Path | None
    writable: bool


def result(
    stdout: bytes = b"",
    *,
    exit_code: int | None = 0,
    signal: int | None = None,
    cpu: float = 0.01,
    stderr: bytes = b"",
    error: str | None = None,
    **flags: bool,
) -> RunResult:
    """A RunResult as a sandbox would return it; flags: timed_out, memory_exceeded,
    output_exceeded."""
    return RunResult(
        exit_code=exit_code,
        signal=signal,
        cpu_seconds=cpu,
        wall_seconds=cpu * 1.1,
        peak_memory_kb=2048,
        stdout=stdout,
        stderr=stderr,
        stdout_size=len(stdout),
        sandbox="fake",
        error=error,
        **flags,
    )


Behaviour = Callable[[Request], RunResult]


def _canary(request: Request) -> bool:
    """A request of grader.judge.canary's known-good program (its folders are its own)."""
    return any(part.startswith("canary-") for part in request.workdir.parts)


def healthy(request: Request) -> RunResult:
    """A healthy machine's answer to a canary: it builds, and prints what it must."""
    if request.writable or request.input_file is None:
        return result()
    return result(expected_output(request.input_file.read_bytes()))


def broken(request: Request) -> RunResult:
    """A machine whose toolchain cannot start (a JDK under ulimit -v, say)."""
    said = b"Error occurred during initialization of VM\n"
    return result(exit_code=1, stderr=said)


@dataclass
class FakeSandbox(Sandbox):
    """Answers builds (writable runs) with `on_build` and program runs with `on_run`;
    records every request in `requests`. The canaries' requests (grader.judge.canary) go to
    `machine` (a healthy one by default) and are recorded in `canary_requests`."""

    on_run: Behaviour
    on_build: Behaviour = lambda request: result()
    requests: list[Request] = field(default_factory=list)
    name: str = "fake"
    machine: Behaviour = healthy
    canary_requests: list[Request] = field(default_factory=list)

    def run(
        self,
        argv: list[str],
        workdir: Path,
        limits: Limits,
        *,
        input_file: Path | None = None,
        writable: bool = False,
        memory_rlimit: bool = True,
    ) -> RunResult:
        request = Request(list(argv), Path(workdir), input_file, writable)
        if _canary(request):
            self.canary_requests.append(request)
            return self.machine(request)
        self.requests.append(request)
        return (self.on_build if writable else self.on_run)(request)

    def runs(self) -> list[Request]:
        return [r for r in self.requests if not r.writable]

    def builds(self) -> list[Request]:
        return [r for r in self.requests if r.writable]
