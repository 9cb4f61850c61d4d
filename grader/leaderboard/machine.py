"""Facts about the machine the timings come from (shown with every leaderboard)."""

import os
import platform
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from grader.leaderboard.cores import Calibration, allowed_cores
from grader.leaderboard.measuring import Span, timed_s


def machine_info(
    sandbox_name: str,
    cores: Sequence[int | None],
    cpu_accounting: str,
    calibration: Calibration | None = None,
    workers: Sequence[dict[str, Any]] = (),
    worker_reference: Sequence[dict[str, Any]] | None = None,
    timed: Mapping[int, Sequence[Span]] | None = None,
) -> dict[str, Any]:
    """The machine's facts; `cores`: this machine's cores that timed runs (None: not
    pinned), `calibration`: each core's reference figure (grader.leaderboard.cores);
    `workers`: a cluster's workers that timed runs (grader.leaderboard.measuring
    .workers_used), `worker_reference`: their machines' cores' reference figures
    (grader.leaderboard.on_workers); `timed`: when the cores that did not time the
    whole session did (grader.leaderboard.measuring.spans)."""
    model = cpu_model()
    load = [round(x, 2) for x in load_average()]
    return {
        "platform": platform.platform(),
        "cpu_model": model,
        "cpu_count": os.cpu_count() or 1,
        "pinned_core": cores[0] if len(cores) == 1 else None,
        "timing_cores": [core for core in cores if core is not None],
        "timing_workers": list(workers),
        "core_reference_s": list(worker_reference)
        if worker_reference is not None
        else [
            _reference(core, seconds, core in cores, (timed or {}).get(core))
            for core, seconds in sorted(calibration.seconds.items())
        ]
        if calibration is not None
        else [],
        "load_average": load,
        "python": platform.python_version(),
        "sandbox": sandbox_name,
        "cpu_accounting": cpu_accounting,
    }


def _reference(
    core: int, seconds: float, used: bool, timed: Sequence[Span] | None
) -> dict[str, Any]:
    """A core's reference figure at the start, whether it timed runs, and when it did
    if not throughout."""
    found: dict[str, Any] = {"core": core, "reference_s": seconds, "used": used}
    if timed is not None:
        found["timed_s"] = timed_s(timed)
    return found


def cpu_model() -> str:
    """The processor's model name, as the kernel gives it (else what Python knows)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def load_average() -> tuple[float, ...]:
    """The load averages over 1, 5 and 15 minutes; () where the system has none."""
    try:
        return tuple(os.getloadavg())
    except (OSError, AttributeError):
        return ()


def pinned_core() -> int | None:
    """The core `measure` pins to (for the report), without pinning anything."""
    return max(allowed_cores(), default=None)
